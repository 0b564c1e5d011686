/*
 * The iteration discrete-event simulation (see step.h for the model).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "des/des.h"
#include "step/step.h"

/* ---------------------------------------------------------------- workspace */

enum ev_kind {
    EV_TASK_DONE = 1,   // a = stage, b = index in the stage's order
    EV_LINK_DONE,       // a = flow id, b = link tag (2 stage + is_nic)
    EV_BUCKET_READY,    // a = stage, b = chunk
    EV_DP_LAT_DONE,     // a = stage
    EV_STAGE_DONE,      // a = stage (optimizer and tail finished)
};

/* Event priorities at equal time: completions free resources before new work is looked at. */
enum { PRI_DONE = 0, PRI_LINK = 1, PRI_READY = 2 };

enum dp_kind { DP_BUCKET, DP_GATHER, DP_SCATTER };

struct dp_job {
    double latency_s;
    double bytes;
    int32_t task;       // gather: the task it feeds (index in the stage's order), else -1
    uint8_t kind;       // enum dp_kind
    double issued;      // time queued (trace)
};

struct stage_state {
    int next;               // next task index in the order
    bool busy;              // compute stream running a task (or blocked on its own send)
    int sends_pending;      // blocking sends not yet delivered
    double blocked_since;   // when the stream started waiting on its own send
    bool computing_done;    // all tasks finished
    bool finished;          // optimizer and tail done
    double free_since;      // when the stream last became free
    double busy_s, comm_s, pp_wait_s, z3_wait_s, z3_task_s, offload_s;
    double compute_end_s;   // end of the last task
    double end_s;           // end of the iteration for this stage
    double dp_drain_s;      // gradient reduction after the last task
    int outstanding;        // gradient buckets not yet reduced (or not yet ready)
    /* data-parallel stream */
    bool dp_busy;
    bool dp_in_latency;
    struct dp_job current;
    double current_start;
    struct dp_job *queue;   // ring buffer
    int q_head, q_len, q_cap;
};

struct ts_step_sim {
    struct ts_des des;
    struct ts_task *order;      // [p][2mv]
    int32_t *index;             // [p][2][v][m] -> position in the stage's order
    uint8_t *deps;              // [p][2mv] unmet dependencies
    double *up_done;            // [p][2mv] when the producing task finished
    double *msg_arrived;        // [p][2mv] when the message arrived
    int32_t *last_b;            // [p][v] index of the chunk's last backward
    struct stage_state *st;     // [p]
    struct dp_job *jobs;        // backing store of the stage queues
    struct ts_des_link *links;  // [p][2]: scale-up, NIC
    /* Flows waiting for a free slot on a full link (TS_DES_LINK_FLOWS_MAX), FIFO per link.
     * Entry g < p 2mv is the message to task g; entry p 2mv + k is stage k's DP flow. */
    double *wait_bytes;         // [p 2mv + p]
    int32_t *wait_next;         // [p 2mv + p] next entry in the link's queue, or -1
    int32_t *wait_head, *wait_tail; // [p][2]
    size_t cap_tasks, cap_stages, cap_jobs, cap_lastb, cap_wait;
};

struct ts_step_sim *ts_step_sim_new(void)
{
    struct ts_step_sim *s = ts_xcalloc(1, sizeof *s);
    if (ts_des_init(&s->des, 1024) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

void ts_step_sim_free(struct ts_step_sim *s)
{
    if (!s)
        return;
    ts_des_close(&s->des);
    free(s->order);
    free(s->index);
    free(s->deps);
    free(s->up_done);
    free(s->msg_arrived);
    free(s->last_b);
    free(s->st);
    free(s->jobs);
    free(s->links);
    free(s->wait_bytes);
    free(s->wait_next);
    free(s->wait_head);
    free(s->wait_tail);
    free(s);
}

static void workspace_reserve(struct ts_step_sim *s, const struct ts_step_plan *pl, size_t jobs)
{
    size_t p = (size_t)pl->p, per = 2u * (size_t)pl->m * pl->v;
    size_t tasks = p * per;
    if (tasks > s->cap_tasks) {
        s->order = ts_xrealloc(s->order, tasks * sizeof *s->order);
        s->deps = ts_xrealloc(s->deps, tasks * sizeof *s->deps);
        s->up_done = ts_xrealloc(s->up_done, tasks * sizeof *s->up_done);
        s->msg_arrived = ts_xrealloc(s->msg_arrived, tasks * sizeof *s->msg_arrived);
        s->index = ts_xrealloc(s->index, tasks * sizeof *s->index);   /* p 2 v m == p per */
        s->cap_tasks = tasks;
    }
    if (tasks + p > s->cap_wait) {
        s->wait_bytes = ts_xrealloc(s->wait_bytes, (tasks + p) * sizeof *s->wait_bytes);
        s->wait_next = ts_xrealloc(s->wait_next, (tasks + p) * sizeof *s->wait_next);
        s->cap_wait = tasks + p;
    }
    if (p * pl->v > s->cap_lastb) {
        s->last_b = ts_xrealloc(s->last_b, p * pl->v * sizeof *s->last_b);
        s->cap_lastb = p * pl->v;
    }
    if (p > s->cap_stages) {
        s->st = ts_xrealloc(s->st, p * sizeof *s->st);
        s->links = ts_xrealloc(s->links, 2 * p * sizeof *s->links);
        s->wait_head = ts_xrealloc(s->wait_head, 2 * p * sizeof *s->wait_head);
        s->wait_tail = ts_xrealloc(s->wait_tail, 2 * p * sizeof *s->wait_tail);
        s->cap_stages = p;
    }
    if (jobs > s->cap_jobs) {
        s->jobs = ts_xrealloc(s->jobs, jobs * sizeof *s->jobs);
        s->cap_jobs = jobs;
    }
    /* Pending events: a task per stage, two flows per stage link, a few per DP stream, and
     * the buckets of one chunk per stage. */
    size_t events = 16 * p + jobs + 64;
    if (events > s->des.capacity) {
        ts_des_close(&s->des);
        TS_ASSERT(ts_des_init(&s->des, (uint32_t)events) == 0, "out of memory");
    }
    ts_des_reset(&s->des);
}

/* ---------------------------------------------------------------- helpers */

struct run {
    struct ts_step_sim *s;
    const struct ts_step_plan *pl;
    struct ts_trace *trace;
    int per;            // tasks per stage (2 m v)
    double nic_bytes, up_bytes;
};

static inline int32_t task_index(const struct run *r, int stage, int kind, int chunk, int micro)
{
    const struct ts_step_plan *pl = r->pl;
    return r->s->index[(((size_t)stage * 2 + kind) * pl->v + chunk) * pl->m + micro];
}

static inline size_t gid(const struct run *r, int stage, int idx)
{
    return (size_t)stage * r->per + idx;
}

/* Record a span (callers test r->trace first, so an untraced run pays no call). */
static void trace_add(struct run *r, int stage, int track, int kind, int micro, int chunk,
                      double start, double end)
{
    struct ts_trace *t = r->trace;
    if (t->len == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->spans = ts_xrealloc(t->spans, t->cap * sizeof *t->spans);
    }
    struct ts_trace_span *sp = &t->spans[t->len++];
    sp->stage = stage;
    sp->track = track;
    sp->kind = kind;
    sp->micro = micro;
    sp->chunk = chunk;
    sp->start_s = start;
    sp->end_s = end;
}

static struct ts_des_link *link_of(struct run *r, int stage, bool nic)
{
    return &r->s->links[2 * stage + (nic ? 1 : 0)];
}

#define FLOW_MSG 1LL
#define FLOW_DP 2LL
static inline int64_t flow_id(long long type, long long value) { return (type << 40) | value; }

/* Start flow `entry` (see struct ts_step_sim) of `bytes` on link `tag`; if the link already
 * carries TS_DES_LINK_FLOWS_MAX flows, queue it until one ends. That happens only when
 * transfers fall far behind compute (say pp 32 with messages ten times slower than a
 * forward), and queueing keeps such a plan a result instead of an abort. */
static void flow_start(struct run *r, int tag, int32_t entry, double bytes)
{
    struct ts_step_sim *s = r->s;
    struct ts_des_link *l = &s->links[tag];
    int32_t tasks = (int32_t)r->pl->p * r->per;
    if (l->active < TS_DES_LINK_FLOWS_MAX) {
        int64_t id = entry < tasks ? flow_id(FLOW_MSG, entry) : flow_id(FLOW_DP, entry - tasks);
        ts_des_link_start(&s->des, l, id, bytes);
        return;
    }
    s->wait_bytes[entry] = bytes;
    s->wait_next[entry] = -1;
    if (s->wait_tail[tag] < 0)
        s->wait_head[tag] = entry;
    else
        s->wait_next[s->wait_tail[tag]] = entry;
    s->wait_tail[tag] = entry;
}

static void try_start(struct run *r, int stage);
static void dp_enqueue(struct run *r, int stage, struct dp_job job);
static void release_stream(struct run *r, int stage, int idx);

/* A dependency of task (stage, idx) is met. */
static void satisfy(struct run *r, int stage, int idx)
{
    size_t g = gid(r, stage, idx);
    TS_ASSERT(r->s->deps[g] > 0, "stage %d task %d has no pending dependency", stage, idx);
    r->s->deps[g]--;
    if (r->s->deps[g] == 0)
        try_start(r, stage);
}

/* Send the output of a finished task to the task that consumes it. Returns true if a
 * flow was started (false when delivery is immediate). */
static bool send_message(struct run *r, int from, int to_stage, int to_idx)
{
    const struct ts_step_plan *pl = r->pl;
    double now = ts_des_now(&r->s->des);
    size_t g = gid(r, to_stage, to_idx);
    r->s->up_done[g] = now;
    if (pl->msg_bytes <= 0 && pl->msg_latency_s <= 0 && pl->msg_recv_s <= 0) {
        r->s->msg_arrived[g] = now;
        satisfy(r, to_stage, to_idx);
        return false;
    }
    bool nic = pl->msg_over_nic;
    struct ts_des_link *l = link_of(r, from, nic);
    /* Latency and the receiver's all-gather are folded into the flow as the bytes the link
     * would have moved meanwhile: exact when the link is not shared. */
    double bytes = pl->msg_bytes + (pl->msg_latency_s + pl->msg_recv_s) * l->bandwidth;
    if (nic)
        r->nic_bytes += pl->msg_bytes;
    else
        r->up_bytes += pl->msg_bytes;
    flow_start(r, (int)(l - r->s->links), (int32_t)g, bytes);
    return true;
}

static void start_task(struct run *r, int stage, int idx)
{
    struct ts_step_sim *s = r->s;
    const struct ts_step_plan *pl = r->pl;
    struct stage_state *st = &s->st[stage];
    const struct ts_task *t = &s->order[gid(r, stage, idx)];
    const struct ts_step_chunk *ch = &pl->chunk[stage * pl->v + t->chunk];
    double now = ts_des_now(&s->des);
    double dur = t->kind == TS_TASK_F ? ch->fwd_s : ch->bwd_s;
    double comm = t->kind == TS_TASK_F ? ch->fwd_comm_s : ch->bwd_comm_s;
    TS_ASSERT(dur >= 0 && isfinite(dur), "task duration %g", dur);
    bool reduces = t->kind == TS_TASK_B && pl->dp_overlap && ch->buckets > 0 &&
                   idx == s->last_b[stage * pl->v + t->chunk];
    /* Contention: the gradient reduction that overlaps this backward (from the first
     * bucket's readiness, dur / buckets, for as long as the buckets take on an idle link)
     * takes SMs and HBM bandwidth from it, slowing the overlapped part by overlap_slowdown
     * (first order: the buckets' own timing is not re-solved). */
    if (reduces && pl->overlap_slowdown > 0 && ch->buckets > 1) {
        double bw = pl->dp_over_nic ? pl->nic_bandwidth : pl->up_bandwidth;
        double reduce_s = ch->buckets * (ch->bucket_latency_s + ch->bucket_bytes / bw);
        double overlapped = fmin(dur * (1.0 - 1.0 / ch->buckets), reduce_s);
        dur += pl->overlap_slowdown * overlapped;
    }

    /* Why did the stream wait? Up to the producer's end: the schedule (bubble); from then
     * to the message's arrival: pipeline communication; after that: a ZeRO-3 gather. */
    size_t g = gid(r, stage, idx);
    double base = fmax(st->free_since, s->up_done[g]);
    if (now > base) {
        double msg_end = fmin(now, fmax(base, s->msg_arrived[g]));
        st->pp_wait_s += msg_end - base;
        st->z3_wait_s += now - msg_end;
    }

    st->busy = true;
    st->next = idx + 1;
    st->busy_s += dur;
    st->comm_s += comm;
    st->z3_task_s += t->kind == TS_TASK_F ? ch->fwd_z3_s : ch->bwd_z3_s;
    st->offload_s += t->kind == TS_TASK_F ? ch->fwd_offload_s : ch->bwd_offload_s;
    ts_des_schedule(&s->des, now + dur, PRI_DONE, EV_TASK_DONE, stage, idx);
    if (r->trace)
        trace_add(r, stage, 0, t->kind, t->micro, t->chunk, now, now + dur);

    /* Gradient buckets of a chunk fill up during its last backward. */
    if (reduces) {
        for (int b = 0; b < ch->buckets; b++)
            ts_des_schedule(&s->des, now + dur * (b + 1) / ch->buckets, PRI_READY, EV_BUCKET_READY,
                            stage, t->chunk);
    }
    /* ZeRO-3: prefetch the weights of the next task. */
    if (pl->zero3 && idx + 1 < r->per) {
        const struct ts_task *nt = &s->order[gid(r, stage, idx + 1)];
        const struct ts_step_chunk *nch = &pl->chunk[stage * pl->v + nt->chunk];
        bool fwd = nt->kind == TS_TASK_F;
        struct dp_job j = {fwd ? nch->z3_gather_latency_s : nch->z3_bgather_latency_s,
                           fwd ? nch->z3_gather_bytes : nch->z3_bgather_bytes, idx + 1, DP_GATHER,
                           now};
        dp_enqueue(r, stage, j);
    }
}

static void try_start(struct run *r, int stage)
{
    struct stage_state *st = &r->s->st[stage];
    if (st->busy || st->next >= r->per)
        return;
    if (r->s->deps[gid(r, stage, st->next)] == 0)
        start_task(r, stage, st->next);
}

/* ---------------------------------------------------------------- data-parallel stream */

static void dp_start_next(struct run *r, int stage);

static void dp_enqueue(struct run *r, int stage, struct dp_job job)
{
    struct stage_state *st = &r->s->st[stage];
    TS_ASSERT(st->q_len < st->q_cap, "stage %d DP queue overflow (%d)", stage, st->q_cap);
    st->queue[(st->q_head + st->q_len) % st->q_cap] = job;
    st->q_len++;
    if (!st->dp_busy)
        dp_start_next(r, stage);
}

static void dp_begin_flow(struct run *r, int stage)
{
    struct stage_state *st = &r->s->st[stage];
    st->dp_in_latency = false;
    bool nic = r->pl->dp_over_nic;
    if (nic)
        r->nic_bytes += st->current.bytes;
    else
        r->up_bytes += st->current.bytes;
    flow_start(r, 2 * stage + (nic ? 1 : 0), (int32_t)r->pl->p * r->per + stage,
               st->current.bytes);
}

static void dp_start_next(struct run *r, int stage)
{
    struct stage_state *st = &r->s->st[stage];
    if (st->dp_busy || st->q_len == 0)
        return;
    st->current = st->queue[st->q_head];
    st->q_head = (st->q_head + 1) % st->q_cap;
    st->q_len--;
    st->dp_busy = true;
    st->current_start = ts_des_now(&r->s->des);
    if (st->current.latency_s > 0) {
        st->dp_in_latency = true;
        ts_des_schedule_in(&r->s->des, st->current.latency_s, PRI_LINK, EV_DP_LAT_DONE, stage, 0);
    } else {
        dp_begin_flow(r, stage);
    }
}

static void maybe_finish_stage(struct run *r, int stage)
{
    struct stage_state *st = &r->s->st[stage];
    if (!st->computing_done || st->finished || st->outstanding > 0 || st->dp_busy || st->q_len)
        return;
    double now = ts_des_now(&r->s->des);
    st->dp_drain_s = now - st->compute_end_s;
    st->finished = true;
    double tail = r->pl->optimizer_s[stage] + r->pl->tail_s[stage];
    ts_des_schedule(&r->s->des, now + tail, PRI_DONE, EV_STAGE_DONE, stage, 0);
}

static void dp_job_done(struct run *r, int stage)
{
    struct stage_state *st = &r->s->st[stage];
    double now = ts_des_now(&r->s->des);
    struct dp_job j = st->current;
    st->dp_busy = false;
    if (r->trace)
        trace_add(r, stage, 2, j.kind, j.task, 0, st->current_start, now);
    if (j.kind == DP_BUCKET)
        st->outstanding--;
    dp_start_next(r, stage);
    if (j.kind == DP_GATHER)
        satisfy(r, stage, j.task);
    maybe_finish_stage(r, stage);
}

/* ---------------------------------------------------------------- events */

static void task_done(struct run *r, int stage, int idx)
{
    struct ts_step_sim *s = r->s;
    const struct ts_step_plan *pl = r->pl;
    struct stage_state *st = &s->st[stage];
    const struct ts_task *t = &s->order[gid(r, stage, idx)];
    double now = ts_des_now(&s->des);
    int p = pl->p, v = pl->v;
    bool sent = false;

    if (t->kind == TS_TASK_F) {
        if (stage < p - 1)
            sent = send_message(r, stage, stage + 1, task_index(r, stage + 1, TS_TASK_F, t->chunk, t->micro));
        else if (t->chunk < v - 1)
            sent = send_message(r, stage, 0, task_index(r, 0, TS_TASK_F, t->chunk + 1, t->micro));
        else {
            int b = task_index(r, stage, TS_TASK_B, t->chunk, t->micro);
            s->up_done[gid(r, stage, b)] = now;
            s->msg_arrived[gid(r, stage, b)] = now;
            satisfy(r, stage, b);
        }
    } else {
        if (stage > 0)
            sent = send_message(r, stage, stage - 1, task_index(r, stage - 1, TS_TASK_B, t->chunk, t->micro));
        else if (t->chunk > 0)
            sent = send_message(r, stage, p - 1, task_index(r, p - 1, TS_TASK_B, t->chunk - 1, t->micro));
        if (pl->zero3) {
            const struct ts_step_chunk *ch = &pl->chunk[stage * v + t->chunk];
            struct dp_job j = {ch->z3_scatter_latency_s, ch->z3_scatter_bytes, -1, DP_SCATTER, now};
            dp_enqueue(r, stage, j);
        }
    }

    /* A blocking send holds the stream until delivery (release_stream then continues). */
    if (sent && pl->msg_blocking) {
        st->sends_pending++;
        st->blocked_since = now;
        return;
    }
    release_stream(r, stage, idx);
}

/* The stream of `stage` is free after task `idx` (and its blocking send). */
static void release_stream(struct run *r, int stage, int idx)
{
    struct ts_step_sim *s = r->s;
    const struct ts_step_plan *pl = r->pl;
    struct stage_state *st = &s->st[stage];
    double now = ts_des_now(&s->des);
    int v = pl->v;
    st->busy = false;
    st->free_since = now;
    if (idx == r->per - 1) {
        st->computing_done = true;
        st->compute_end_s = now;
        if (!pl->dp_overlap) {
            for (int c = v - 1; c >= 0; c--) {
                const struct ts_step_chunk *ch = &pl->chunk[stage * v + c];
                for (int b = 0; b < ch->buckets; b++) {
                    struct dp_job j = {ch->bucket_latency_s, ch->bucket_bytes, -1, DP_BUCKET, now};
                    dp_enqueue(r, stage, j);
                }
            }
        }
        maybe_finish_stage(r, stage);
    } else {
        try_start(r, stage);
    }
}

static void link_done(struct run *r, int64_t id, int64_t tag)
{
    struct ts_step_sim *s = r->s;
    int stage = (int)(tag / 2);
    ts_des_link_finish(&s->des, &s->links[tag], id);
    int32_t w = s->wait_head[tag];
    if (w >= 0) {
        s->wait_head[tag] = s->wait_next[w];
        if (s->wait_head[tag] < 0)
            s->wait_tail[tag] = -1;
        flow_start(r, (int)tag, w, s->wait_bytes[w]);
    }
    long long type = id >> 40, value = id & ((1LL << 40) - 1);
    double now = ts_des_now(&s->des);
    if (type == FLOW_MSG) {
        size_t g = (size_t)value;
        int to_stage = (int)(g / (size_t)r->per), to_idx = (int)(g % (size_t)r->per);
        s->msg_arrived[g] = now;
        const struct ts_task *t = &s->order[g];
        if (r->trace)
            trace_add(r, stage, 1, t->kind, t->micro, t->chunk, s->up_done[g], now);
        if (r->pl->msg_blocking) {
            /* The sender (this link's stage) was waiting on this delivery. */
            struct stage_state *snd = &s->st[stage];
            TS_ASSERT(snd->sends_pending > 0, "stage %d: delivery without a blocked send", stage);
            snd->sends_pending--;
            snd->pp_wait_s += now - snd->blocked_since;
            release_stream(r, stage, snd->next - 1);
        }
        satisfy(r, to_stage, to_idx);
    } else {
        dp_job_done(r, (int)value);
    }
}

/* ---------------------------------------------------------------- driver */

void ts_step_simulate(struct ts_step_sim *s, const struct ts_step_plan *pl,
                      struct ts_step_result *out, struct ts_step_stages *stages,
                      struct ts_trace *trace)
{
    int p = pl->p, v = pl->v, m = pl->m;
    TS_ASSERT(p >= 1 && v >= 1 && m >= 1, "plan p=%d v=%d m=%d", p, v, m);
    TS_ASSERT(pl->schedule == TS_SCHED_INTERLEAVED || v == 1, "v=%d needs the interleaved schedule", v);
    TS_ASSERT(pl->schedule != TS_SCHED_INTERLEAVED || m % p == 0,
              "interleaving needs m (%d) to be a multiple of p (%d)", m, p);
    /* ts_job_validate bounds the task count (ts_step_check_size); a plan built otherwise
     * must respect the same budget, checked in 64 bits before anything is sized from it. */
    int64_t tasks64 = (int64_t)p * 2 * m * v;
    TS_ASSERT(tasks64 <= TS_STEP_TASKS_MAX, "plan p=%d v=%d m=%d needs %lld tasks, above "
              "TS_STEP_TASKS_MAX (%ld)", p, v, m, (long long)tasks64, TS_STEP_TASKS_MAX);
    int per = (int)(2 * (int64_t)m * v);

    /* Queue room per stage: every bucket, plus two ZeRO-3 jobs per task. */
    size_t jobs_per_stage = 1 + (pl->zero3 ? 2u * (size_t)per : 0);
    for (int c = 0; c < v; c++) {
        size_t nb = 0;
        for (int k = 0; k < p; k++)
            if ((size_t)pl->chunk[k * v + c].buckets > nb)
                nb = (size_t)pl->chunk[k * v + c].buckets;
        jobs_per_stage += nb;
    }
    workspace_reserve(s, pl, jobs_per_stage * p);

    struct run r = {s, pl, trace, per, 0.0, 0.0};
    memset(s->deps, 0, (size_t)p * per * sizeof *s->deps);
    for (int k = 0; k < p; k++) {
        struct ts_task *order = &s->order[(size_t)k * per];
        ts_step_schedule(pl->schedule, p, v, m, k, order);
        for (int i = 0; i < per; i++) {
            const struct ts_task *t = &order[i];
            s->index[(((size_t)k * 2 + t->kind) * v + t->chunk) * m + t->micro] = i;
            if (t->kind == TS_TASK_B)
                s->last_b[k * v + t->chunk] = i;
            size_t g = (size_t)k * per + i;
            s->up_done[g] = 0.0;
            s->msg_arrived[g] = 0.0;
            bool first_input = t->kind == TS_TASK_F && k == 0 && t->chunk == 0;
            s->deps[g] = first_input ? 0 : 1;
            if (pl->zero3)
                s->deps[g]++;
        }
        struct stage_state *st = &s->st[k];
        memset(st, 0, sizeof *st);
        st->queue = &s->jobs[(size_t)k * jobs_per_stage];
        st->q_cap = (int)jobs_per_stage;
        for (int c = 0; c < v; c++)
            st->outstanding += pl->chunk[k * v + c].buckets;
        ts_des_link_init(&s->links[2 * k], pl->up_bandwidth, EV_LINK_DONE, PRI_LINK, 2 * k);
        ts_des_link_init(&s->links[2 * k + 1], pl->nic_bandwidth, EV_LINK_DONE, PRI_LINK, 2 * k + 1);
        s->wait_head[2 * k] = s->wait_head[2 * k + 1] = -1;
        s->wait_tail[2 * k] = s->wait_tail[2 * k + 1] = -1;
    }
    uint64_t popped0 = s->des.popped;

    for (int k = 0; k < p; k++) {
        if (pl->zero3) {
            const struct ts_task *t = &s->order[(size_t)k * per];
            const struct ts_step_chunk *ch = &pl->chunk[k * v + t->chunk];
            struct dp_job j = {ch->z3_gather_latency_s, ch->z3_gather_bytes, 0, DP_GATHER, 0.0};
            dp_enqueue(&r, k, j);
        }
        try_start(&r, k);
    }

    struct ts_des_event ev;
    while (ts_des_next(&s->des, &ev)) {
        switch (ev.kind) {
        case EV_TASK_DONE:
            task_done(&r, (int)ev.a, (int)ev.b);
            break;
        case EV_LINK_DONE:
            link_done(&r, ev.a, ev.b);
            break;
        case EV_BUCKET_READY: {
            const struct ts_step_chunk *ch = &pl->chunk[ev.a * v + ev.b];
            struct dp_job j = {ch->bucket_latency_s, ch->bucket_bytes, -1, DP_BUCKET, ev.time};
            dp_enqueue(&r, (int)ev.a, j);
            break;
        }
        case EV_DP_LAT_DONE:
            dp_begin_flow(&r, (int)ev.a);
            break;
        case EV_STAGE_DONE:
            s->st[ev.a].end_s = ev.time;
            break;
        default:
            TS_ASSERT(false, "unknown event kind %d", ev.kind);
        }
    }

    memset(out, 0, sizeof *out);
    double pipeline = 0.0, iteration = 0.0;
    int crit = 0;
    for (int k = 0; k < p; k++) {
        const struct stage_state *st = &s->st[k];
        TS_ASSERT(st->finished && st->next == per, "stage %d did not finish (%d of %d tasks): "
                  "the schedule deadlocked", k, st->next, per);
        pipeline = fmax(pipeline, st->compute_end_s);
        if (st->end_s > iteration) {
            iteration = st->end_s;
            crit = k;
        }
    }
    double idle_sum = 0.0;
    for (int k = 0; k < p; k++) {
        const struct stage_state *st = &s->st[k];
        double idle = pipeline - st->busy_s - st->pp_wait_s - st->z3_wait_s;
        idle_sum += fmax(0.0, idle);
        if (stages) {
            if (stages->busy_s)
                stages->busy_s[k] = st->busy_s;
            if (stages->idle_s)
                stages->idle_s[k] = st->end_s - st->busy_s;
            if (stages->end_s)
                stages->end_s[k] = st->end_s;
        }
    }
    const struct stage_state *cs = &s->st[crit];
    out->iteration_s = iteration;
    out->pipeline_s = pipeline;
    out->bubble_fraction = iteration > 0 ? idle_sum / p / iteration : 0.0;
    out->critical_stage = crit;
    out->compute_s = 0.0;
    for (int k = 0; k < p; k++)
        out->compute_s = fmax(out->compute_s, s->st[k].busy_s - s->st[k].comm_s -
                                                  s->st[k].z3_task_s - s->st[k].offload_s);
    out->exposed_tp_s = cs->comm_s;
    out->exposed_pp_s = cs->pp_wait_s;
    out->exposed_dp_s = cs->dp_drain_s + cs->z3_wait_s + cs->z3_task_s;
    out->exposed_offload_s = cs->offload_s;
    out->optimizer_s = pl->optimizer_s[crit];
    out->tail_s = pl->tail_s[crit];
    out->events = s->des.popped - popped0;
    out->nic_bytes = r.nic_bytes;
    out->up_bytes = r.up_bytes;
}

/* ---------------------------------------------------------------- closed forms */

static void stage_sums(const struct ts_step_plan *pl, int k, double *f, double *b)
{
    *f = *b = 0.0;
    for (int c = 0; c < pl->v; c++) {
        *f += pl->chunk[k * pl->v + c].fwd_s;
        *b += pl->chunk[k * pl->v + c].bwd_s;
    }
}

/* Reduction time of all buckets of stage k if nothing overlaps. */
static double stage_dp_time(const struct ts_step_plan *pl, int k)
{
    double bw = pl->dp_over_nic ? pl->nic_bandwidth : pl->up_bandwidth, t = 0.0;
    for (int c = 0; c < pl->v; c++) {
        const struct ts_step_chunk *ch = &pl->chunk[k * pl->v + c];
        t += ch->buckets * (ch->bucket_latency_s + ch->bucket_bytes / bw);
    }
    return t;
}

double ts_step_closed_form(const struct ts_step_plan *pl)
{
    int p = pl->p, v = pl->v;
    double worst = 0.0, fill = 0.0, end = 0.0;
    int wk = 0;
    for (int k = 0; k < p; k++) {
        double f, b;
        stage_sums(pl, k, &f, &b);
        if (f + b > worst) {
            worst = f + b;
            wk = k;
        }
        fill += (f + b) / v;
    }
    double msg_bw = pl->msg_over_nic ? pl->nic_bandwidth : pl->up_bandwidth;
    double msg = p > 1 ? pl->msg_bytes / msg_bw + pl->msg_latency_s + pl->msg_recv_s : 0.0;
    /* (m + (p - 1) / v) slots of the slowest stage: the fill is the other stages' work. */
    double pipe = pl->m * worst + (fill - worst / v) + 2.0 * (p - 1) * msg;
    for (int k = 0; k < p; k++) {
        double dp = stage_dp_time(pl, k);
        double last_b = pl->chunk[k * v].bwd_s;
        double exposed = pl->dp_overlap ? fmax(0.0, dp - last_b) : dp;
        end = fmax(end, exposed + pl->optimizer_s[k] + pl->tail_s[k]);
    }
    (void)wk;
    return pipe + end;
}

double ts_step_lower_bound(const struct ts_step_plan *pl)
{
    int p = pl->p, v = pl->v;
    double lb = 0.0;
    /* Stage k cannot start before the first microbatch's forward reached it through chunk 0
     * of the earlier stages, must run all its own tasks, and cannot finish before its
     * optimizer step and tail. */
    double before = 0.0;
    for (int k = 0; k < p; k++) {
        double f, b;
        stage_sums(pl, k, &f, &b);
        double t = before + pl->m * (f + b) + pl->optimizer_s[k] + pl->tail_s[k];
        lb = fmax(lb, t);
        before += pl->chunk[k * v].fwd_s;
    }
    return lb;
}

void ts_trace_init(struct ts_trace *t)
{
    memset(t, 0, sizeof *t);
}

void ts_trace_free(struct ts_trace *t)
{
    free(t->spans);
    memset(t, 0, sizeof *t);
}
