/*
 * run: the whole-run Monte Carlo discrete-event simulation (the manual is run.h).
 *
 * One replication is a state machine driven by the events of sim/des:
 *
 *   COMPUTE --segment end--> STALL (sync write | async snapshot | wait for the previous
 *   write) --stall end--> COMPUTE ... ; a failure in any running state cancels the pending
 *   progress event (cancel by handle), rolls back to the last durable checkpoint and goes to
 *   RESTART, or to WAIT when nodes or spot capacity are missing; DRAIN is the spot notice
 *   period after an emergency checkpoint was started.
 *
 * Failure processes. Each process has its own RNG stream, so its sample path does not depend
 * on what the job does (common random numbers across checkpoint intervals). Exponential
 * processes are superposed into one event per process at rate copies / mtbf, where a gpu,
 * node or network process counts the copies on the nodes the job holds now (a node in
 * repair cannot fail); after each failure, or whenever the held nodes change, the event is
 * redrawn (memoryless, so this is exact). A Weibull process with at most 64 copies is a
 * renewal process per copy: one event per copy, redrawn from scratch when its component is
 * replaced. With more copies it takes the superposition's exponential limit at the same mean
 * rate: the superposition of many independent renewal processes tends to a Poisson process
 * (Drenick, "The failure law of complex equipment", J. SIAM 8(4), 1960), which keeps the cost
 * O(1) per failure.
 *
 * Fast path. Between failures a run is a fixed cycle: tau compute + delta write (sync), or
 * tau compute, a wait for the previous write if it is longer, and the snapshot (async). When
 * the next pending (failure, repair, spot) event lies k >= 2 whole cycles ahead, the k cycles
 * are one event (a batch), so a replication costs O(failures), not O(checkpoints). Nothing
 * can happen inside a batch: only handlers schedule events, and none runs before the batch
 * ends.
 *
 * GPU-seconds are attributed whenever the state changes (account()): compute goes to a
 * pending bucket that becomes productive when its checkpoint is durable and rework when a
 * failure loses it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "des/des.h"
#include "run/run.h"
#include "run/run_internal.h"

const char *const ts_run_span_names[TS_SPAN_COUNT] = {
    "compute", "checkpoint", "lost", "restart", "wait", "failure", "detect", "diagnose", "queue",
    "slow", "planned"};
_Static_assert(TS_SPAN_COUNT == 11, "update ts_run_span_names");

/* ---------------------------------------------------------------- model constants */

#define PER_COPY_MAX 64     // Weibull processes with more copies use the exponential limit
#define SLOTS_MAX 64

enum run_event {
    EV_SEGMENT_END, EV_BATCH_END, EV_STALL_END, EV_PERSIST_END, EV_RESTART_END,
    EV_REPAIRED, EV_REACQUIRED, EV_RECLAIM, EV_FAILURE, EV_PREEMPTION,
    EV_SLOW_ONSET, EV_SLOW_DETECT, EV_LEMON, EV_CORRELATED, EV_PLANNED,
};

/* Random streams of the mechanisms, each its own purpose id (ts_rng_stream_seed), apart from
 * the failure processes (1 .. n_proc) and spot (n_proc + 1), so that turning one mechanism on
 * does not move the sample paths of the others. */
enum { X_RECOVERY, X_SLOW, X_LEMON, X_CORRELATED, X_ROLLBACK, X_PLANNED, X_COUNT };
#define X_PURPOSE_BASE 1000u
#define RNG_MAX (TS_FAILURES_MAX + 1 + X_COUNT)
#define RING_MAX 4096       // retained checkpoints tracked for rollbacks

/* At equal times the job's own progress first, then capacity coming back, then losses. */
enum { PRIO_PROGRESS = 0, PRIO_CAPACITY = 1, PRIO_RECLAIM = 2, PRIO_FAILURE = 3 };

enum run_state { ST_COMPUTE, ST_BATCH, ST_STALL, ST_RESTART, ST_WAIT, ST_DRAIN, ST_DONE };

enum run_stall {
    STALL_WRITE,        // sync checkpoint write
    STALL_SNAPSHOT,     // async device-to-host snapshot
    STALL_PERSIST_WAIT, // async: the next snapshot waits for the previous write
    STALL_FINAL_WAIT,   // async: the last checkpoint's write; the run ends when it is durable
    STALL_EMERGENCY,    // spot: the checkpoint written in the notice period
    STALL_SAVE,         // planned interruption or fail-slow drain: save, then restart
};

/* What a restart follows: an unplanned failure runs the recovery phases drawn for it; a
 * planned interruption, a drain, a rejoin or a spot reacquisition only the constant part. */
enum restart_kind { RESTART_FAILURE, RESTART_PLANNED };

/* What the job's GPU-seconds went to (run.h: the *_gpu_h fields of the result). */
enum run_cat { CAT_PRODUCTIVE, CAT_REWORK, CAT_CHECKPOINT, CAT_RESTART, CAT_WAIT, CAT_DEGRADED,
               CAT_SLOW, CAT_COUNT };

struct run_proc {
    bool node_scoped;       // rate grows with the nodes held (every component but job)
    bool takes_node;        // gpu, node, network, switch: the failed node must be replaced
    bool per_copy;          // Weibull renewal per copy (at most PER_COPY_MAX copies)
    bool weibull;
    double mtbf_s;          // of one copy
    double scale_s;         // Weibull scale: mtbf / Gamma(1 + 1/k)
    double shape;
    double copies_per_node; // superposed node-scoped: rate = copies_per_node x held / mtbf
    int copies;             // per-copy: total copies
    int copies_per_slot;    // per-copy node-scoped: copies in one node (gpu: gpus_per_node)
    int copy_base;          // per-copy: index of its first handle in rep.copy_h
    double hang;            // share of its failures that are hangs (ts_run__hang_fraction)
};

struct run_model {
    double tau_s, solve_s, stall_s, persist_s, restart_s, emergency_s, repair_s;
    double finish_eps_s;        // progress within this of T_s counts as finished
    bool async, elastic, spot, emergency_fits, track_slots;
    int gpus, nodes, dp, spares, replica_gpus, replicas_per_node;
    double iteration_s;
    const double *elastic_iteration_s;
    double preemption_mtbf_s, notice_s, reacquire_s;
    int n_proc;
    struct run_proc proc[TS_FAILURES_MAX];
    int n_copy_handles;
    uint64_t seed;

    /* Recovery phases (run.h) and incident mechanisms; zero = off. */
    double crash_detect_s, hang_timeout_s, diag_mu, diag_sigma, queue_s;
    double hw_hang;                                     // hang share of lemon and domain events
    bool diagnose, any_hang;
    double slow_mean_s, slow_factor, slow_detect_s;     // slow_mean_s: job-wide mean gap
    double lemon_fraction, lemon_extra_rate;            // extra rate of one lemon, per second
    int evict_after;
    double evict_window_s;
    double corr_mean_s;                                 // job-wide mean gap of domain events
    int corr_nodes;
    double rollback_fraction;
    int rollback_depth;
    bool rollback_to_start;                             // keep < depth + 1
    double planned_mean_s;                              // job-wide mean gap
    int ring_cap;                                       // checkpoint ring (rollback) entries
    int lemon_cap;                                      // lemon records (nodes)
};

/* Wall seconds per useful second with `lost` replicas missing (elastic). */
static double slowdown(const struct run_model *m, int lost)
{
    if (lost == 0)
        return 1.0;
    if (m->elastic_iteration_s)
        return m->elastic_iteration_s[lost] / m->iteration_s;
    return (double)m->dp / (double)(m->dp - lost);   // the same global batch on fewer replicas
}

/* ---------------------------------------------------------------- one replication */
struct rep;
static double wall_per_useful(const struct rep *r);

struct rep_stats {
    double wall_s;
    double gpu_s[CAT_COUNT];
    double failures, preemptions, checkpoints;
    double hangs, slow_episodes, planned, rollbacks, evictions, correlated, nodes_replaced;
    int status;                 // REP_DONE (0), or how the replication ended early
};

/* A durable checkpoint, for rollbacks: its useful seconds, the productive GPU-seconds
 * credited up to it and the timeline length when it became durable. */
struct ckpt_rec {
    double pos_s, prod_gpu_s;
    size_t tl;
};

struct rep {
    const struct run_model *m;
    struct ts_des *des;
    gsl_rng **rng;              // [RNG_MAX]: a stream per process, spot, then X_* streams
    ts_des_handle *copy_h;      // [n_copy_handles]: pending per-copy failures
    ts_des_handle proc_h[TS_FAILURES_MAX]; // pending superposed failures
    ts_des_handle preempt_h;
    ts_des_handle job_h;        // pending progress event (segment, batch, stall, restart end)
    ts_des_handle persist_h;    // async: pending background write
    double persist_end;         // async: when it ends
    unsigned char slot_up[SLOTS_MAX];

    enum run_state state;
    enum run_stall stall;
    double t_mark;              // GPU-seconds are attributed up to here
    double durable_s;           // useful seconds in the last durable checkpoint
    double progress_s;          // useful seconds computed (durable or not)
    double inflight_s;          // async: useful seconds in the checkpoint being written
    double seg_useful_s, seg_start;
    bool persist_active, emergency_done, reclaim_pending, reacquiring, rejoin;
    int held, pool, missing, lost_replicas;

    double gpu_s[CAT_COUNT];
    double pend_cur_gpu_s;      // compute not yet in any checkpoint
    double pend_inflight_gpu_s; // async: compute in the checkpoint being written
    double failures, preemptions, checkpoints;
    bool too_many_interrupts;   // more than TS_RUN_INTERRUPTIONS_MAX: stopped, not finished

    /* Mechanisms. */
    double ph_detect, ph_diag, ph_queue;    // phases drawn at the last failure, not yet run
    double rec_t0, rec_b[3];    // the recovery under way: start and ends of detect, diagnose,
                                //   queue (then the constant restart)
    int n_slow;                 // GPUs slow now and not yet detected
    ts_des_handle slow_h, lemon_h, corr_h, planned_h;
    int n_lemons;               // lemons in the job's population (held, in repair or in the pool)
    int lemons_out;             // of them, not held now: in repair or spare in the pool
    int pool_lemons;            // of the pool's spares, lemons back from a naive repair
    double *lemon_hist;         // [lemon_cap x evict_after]: last failure times per lemon
    int *lemon_nhist;           // [lemon_cap]
    struct ckpt_rec *ring;      // [ring_cap]: the latest durable checkpoints
    int ring_len, ring_head;
    double hangs, slow_episodes, planned, rollbacks, evictions, correlated, nodes_replaced;

    struct ts_run_timeline *tl; // replication 0 only
    size_t tl_uncommitted;      // first span whose compute is not durable
    size_t tl_lost_upto;        // spans before this one are already marked lost (tl_mark_lost)
    size_t tl_inflight;         // async: first span after the snapshot being written
};

/* ------------------------------------------------ timeline (replication 0) */

static void tl_add(struct rep *r, int kind, double start, double end)
{
    struct ts_run_timeline *t = r->tl;
    if (!t || t->len >= TS_RUN_TIMELINE_MAX)
        return;
    if (kind != TS_SPAN_FAILURE && t->len > 0 && t->len > r->tl_uncommitted) {
        struct ts_run_span *last = &t->spans[t->len - 1];
        if (last->kind == kind && last->end_s == start) {
            last->end_s = end;
            return;
        }
    }
    if (t->len == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->spans = ts_xrealloc(t->spans, t->cap * sizeof *t->spans);
    }
    t->spans[t->len++] = (struct ts_run_span){kind, start, end};
}

/* The recovery under way from `a` to `b`, cut at its phase ends (detect, diagnose, queue,
 * then the constant restart). */
static void tl_add_restart(struct rep *r, double a, double b)
{
    if (!r->tl)
        return;
    static const int kinds[3] = {TS_SPAN_DETECT, TS_SPAN_DIAGNOSE, TS_SPAN_QUEUE};
    for (int k = 0; k < 3 && a < b; k++) {
        double e = fmin(r->rec_b[k], b);
        if (e > a) {
            tl_add(r, kinds[k], a, e);
            a = e;
        }
    }
    if (a < b)
        tl_add(r, TS_SPAN_RESTART, a, b);
}

static void tl_mark_lost_from(struct rep *r, size_t from)
{
    if (!r->tl)
        return;
    for (size_t i = from; i < r->tl->len; i++)
        if (r->tl->spans[i].kind == TS_SPAN_COMPUTE)
            r->tl->spans[i].kind = TS_SPAN_LOST;
}

/* Mark the compute since the last durable checkpoint as lost. Spans an earlier call marked
 * are not scanned again (tl_lost_upto), so a run whose checkpoints never complete stays
 * linear in its timeline. */
static void tl_mark_lost(struct rep *r)
{
    if (!r->tl)
        return;
    size_t from = r->tl_uncommitted > r->tl_lost_upto ? r->tl_uncommitted : r->tl_lost_upto;
    for (size_t i = from; i < r->tl->len; i++)
        if (r->tl->spans[i].kind == TS_SPAN_COMPUTE)
            r->tl->spans[i].kind = TS_SPAN_LOST;
    r->tl_lost_upto = r->tl->len;
}

static size_t tl_len(const struct rep *r)
{
    return r->tl ? r->tl->len : 0;
}

/* ------------------------------------------------ accounting */

static bool rep_running(const struct rep *r)
{
    return r->state == ST_COMPUTE || r->state == ST_BATCH || r->state == ST_STALL ||
           r->state == ST_RESTART || (r->state == ST_DRAIN && !r->emergency_done);
}

/* Attribute the GPU-seconds since t_mark to what the job was doing. */
static void account(struct rep *r)
{
    const struct run_model *m = r->m;
    double now = ts_des_now(r->des), dt = now - r->t_mark;
    TS_ASSERT(dt >= 0.0, "run: time went backwards from %.17g to %.17g", r->t_mark, now);
    if (dt > 0.0) {
        if (!rep_running(r)) {
            r->gpu_s[CAT_WAIT] += m->gpus * dt;
            tl_add(r, TS_SPAN_WAIT, r->t_mark, now);
        } else {
            double active = (double)(m->dp - r->lost_replicas) * m->replica_gpus;
            r->gpu_s[CAT_DEGRADED] += (m->gpus - active) * dt;
            switch (r->state) {
            case ST_COMPUTE:
                if (r->n_slow > 0) {
                    // A slow GPU holds every step: the (factor - 1) / factor part is its time.
                    double kept = active * dt / m->slow_factor;
                    r->pend_cur_gpu_s += kept;
                    r->gpu_s[CAT_SLOW] += active * dt - kept;
                    tl_add(r, TS_SPAN_SLOW, r->t_mark, now);
                } else {
                    r->pend_cur_gpu_s += active * dt;
                    tl_add(r, TS_SPAN_COMPUTE, r->t_mark, now);
                }
                break;
            case ST_STALL:
            case ST_DRAIN:
                r->gpu_s[CAT_CHECKPOINT] += active * dt;
                tl_add(r, TS_SPAN_CHECKPOINT, r->t_mark, now);
                break;
            case ST_RESTART:
                r->gpu_s[CAT_RESTART] += active * dt;
                tl_add_restart(r, r->t_mark, now);
                break;
            case ST_BATCH:      // attributed by on_batch_end
            case ST_WAIT:
            case ST_DONE:
                TS_ASSERT(false, "run: account() in state %d", (int)r->state);
            }
        }
    }
    r->t_mark = now;
}

/* ------------------------------------------------ failure processes */

/* A failure drawn further away than this never comes within a run (runs that cannot finish
 * in 100 x their failure-free time are refused); clamping keeps a draw from a huge mean or
 * a tiny Weibull shape finite, so event times never overflow. */
#define NEVER_S 1e300

static double draw_exponential_g(gsl_rng *g, double mean)
{
    return fmin(gsl_ran_exponential(g, mean), NEVER_S);
}

static double draw_exponential(struct rep *r, int stream, double mean)
{
    return draw_exponential_g(r->rng[stream], mean);
}

/* Schedule the next failure of superposed process p at its current rate (none while the job
 * holds no node of it). Cancels the pending one first. */
static void superposed_redraw(struct rep *r, int p)
{
    const struct run_proc *pr = &r->m->proc[p];
    ts_des_cancel(r->des, r->proc_h[p]);
    r->proc_h[p] = 0;
    double copies = pr->node_scoped ? pr->copies_per_node * r->held : 1.0;
    if (copies <= 0.0)
        return;
    r->proc_h[p] = ts_des_schedule_in(r->des, draw_exponential(r, p, pr->mtbf_s / copies),
                                      PRIO_FAILURE, EV_FAILURE, p, -1);
}

static void preemption_redraw(struct rep *r)
{
    const struct run_model *m = r->m;
    if (!m->spot)
        return;
    ts_des_cancel(r->des, r->preempt_h);
    r->preempt_h = 0;
    if (r->held > 0)
        r->preempt_h = ts_des_schedule_in(r->des,
                                          draw_exponential(r, m->n_proc, m->preemption_mtbf_s / r->held),
                                          PRIO_FAILURE, EV_PREEMPTION, 0, 0);
}

/* The held nodes changed: every node-scoped superposed rate changed with them. */
static void held_changed(struct rep *r)
{
    for (int p = 0; p < r->m->n_proc; p++)
        if (!r->m->proc[p].per_copy && r->m->proc[p].node_scoped)
            superposed_redraw(r, p);
    preemption_redraw(r);
}

static void copy_schedule(struct rep *r, int p, int copy)
{
    const struct run_proc *pr = &r->m->proc[p];
    double dt = pr->weibull ? fmin(gsl_ran_weibull(r->rng[p], pr->scale_s, pr->shape), NEVER_S)
                            : draw_exponential(r, p, pr->mtbf_s);
    r->copy_h[pr->copy_base + copy] =
        ts_des_schedule_in(r->des, dt, PRIO_FAILURE, EV_FAILURE, p, copy);
}

/* Copies of per-copy process p that live in node slot s: [*lo, *hi). */
static void slot_copies(const struct run_proc *pr, int s, int *lo, int *hi)
{
    *lo = s * pr->copies_per_slot;
    *hi = *lo + pr->copies_per_slot;
    if (*hi > pr->copies)
        *hi = pr->copies;
}

/* A fresh node fills slot s (up: its per-copy processes start from new) or leaves it (their
 * pending failures are cancelled). */
static void slot_set(struct rep *r, int s, bool up)
{
    const struct run_model *m = r->m;
    if (!m->track_slots)
        return;
    TS_ASSERT(s >= 0 && s < m->nodes && r->slot_up[s] != up, "run: %s of slot %d",
              up ? "fill" : "empty", s);
    r->slot_up[s] = up;
    for (int p = 0; p < m->n_proc; p++) {
        const struct run_proc *pr = &m->proc[p];
        if (!pr->per_copy || !pr->node_scoped)
            continue;
        int lo, hi;
        slot_copies(pr, s, &lo, &hi);
        for (int c = lo; c < hi; c++) {
            ts_des_cancel(r->des, r->copy_h[pr->copy_base + c]);
            r->copy_h[pr->copy_base + c] = 0;
            if (up)
                copy_schedule(r, p, c);
        }
    }
}

static void slot_fill(struct rep *r, int s)
{
    slot_set(r, s, true);
}

static void slot_empty(struct rep *r, int s)
{
    slot_set(r, s, false);
}

/* The slot of a node that a superposed process failed: uniform over the held nodes. */
static int slot_pick_with(struct rep *r, gsl_rng *g)
{
    if (!r->m->track_slots)
        return -1;
    TS_ASSERT(r->held > 0, "run: failure with no node held");
    unsigned long j = gsl_rng_uniform_int(g, (unsigned long)r->held);
    for (int s = 0; s < r->m->nodes; s++)
        if (r->slot_up[s] && j-- == 0)
            return s;
    TS_ASSERT(false, "run: %d nodes held but fewer slots up", r->held);
}

static int slot_pick_failed(struct rep *r, int p)
{
    return slot_pick_with(r, r->rng[p]);
}

static int slot_first_empty(const struct rep *r)
{
    if (!r->m->track_slots)
        return -1;
    for (int s = 0; s < r->m->nodes; s++)
        if (!r->slot_up[s])
            return s;
    TS_ASSERT(false, "run: a node came back with every slot filled");
}

/* ------------------------------------------------ the job */

static bool finished(const struct rep *r, double useful_s)
{
    return useful_s >= r->m->solve_s - r->m->finish_eps_s;
}

/* Replicas the job cannot run with `missing` nodes: all of them unless elastic. */
static int lost_for(const struct run_model *m, int missing)
{
    if (missing == 0)
        return 0;
    if (!m->elastic)
        return m->dp;
    long lost = (long)missing * m->replicas_per_node;
    return lost < m->dp ? (int)lost : m->dp;
}

static void finish(struct rep *r)
{
    TS_ASSERT(r->pend_cur_gpu_s == 0.0 && r->pend_inflight_gpu_s == 0.0,
              "run: finished with %g + %g pending GPU-seconds", r->pend_cur_gpu_s,
              r->pend_inflight_gpu_s);
    r->state = ST_DONE;
}

/* Record a durable checkpoint in the rollback ring (only when rollbacks are on). */
static void ring_push(struct rep *r, double pos_s, double prod_gpu_s, size_t tl)
{
    const struct run_model *m = r->m;
    if (m->ring_cap == 0)
        return;
    r->ring[r->ring_head] = (struct ckpt_rec){pos_s, prod_gpu_s, tl};
    r->ring_head = (r->ring_head + 1) % m->ring_cap;
    if (r->ring_len < m->ring_cap)
        r->ring_len++;
}

/* A durable checkpoint now holds everything computed. */
static void commit_all(struct rep *r)
{
    r->gpu_s[CAT_PRODUCTIVE] += r->pend_cur_gpu_s + r->pend_inflight_gpu_s;
    r->pend_cur_gpu_s = r->pend_inflight_gpu_s = 0.0;
    r->durable_s = r->progress_s;
    r->checkpoints += 1.0;
    r->tl_uncommitted = tl_len(r);
    ring_push(r, r->durable_s, r->gpu_s[CAT_PRODUCTIVE], r->tl_uncommitted);
}

/* A rollback incident: go back rollback_depth checkpoints beyond the latest durable one,
 * which must be retained (checkpoint.keep >= depth + 1, counting the checkpoints still in
 * storage: those after the target are discarded), else to the start. The work between is
 * moved from productive to rework. Called right after rollback(). */
static void rollback_deep(struct rep *r)
{
    const struct run_model *m = r->m;
    int k = m->rollback_depth;
    struct ckpt_rec target = {0.0, 0.0, 0};
    int keep_len = 0;       // ring entries that survive (those up to the target)
    if (!m->rollback_to_start && r->ring_len >= k + 1) {
        int idx = ((r->ring_head - 1 - k) % m->ring_cap + m->ring_cap) % m->ring_cap;
        target = r->ring[idx];
        keep_len = r->ring_len - k;
    }
    double moved = r->gpu_s[CAT_PRODUCTIVE] - target.prod_gpu_s;
    r->gpu_s[CAT_PRODUCTIVE] -= moved;
    r->gpu_s[CAT_REWORK] += moved;
    r->progress_s = r->durable_s = target.pos_s;
    if (m->ring_cap > 0)
        r->ring_head = ((r->ring_head - (r->ring_len - keep_len)) % m->ring_cap + m->ring_cap) %
                       m->ring_cap;
    r->ring_len = keep_len;
    tl_mark_lost_from(r, target.tl);
    r->rollbacks += 1.0;
}

/* Lose everything since the last durable checkpoint (an in-flight write too). */
static void rollback(struct rep *r)
{
    r->gpu_s[CAT_REWORK] += r->pend_cur_gpu_s + r->pend_inflight_gpu_s;
    r->pend_cur_gpu_s = r->pend_inflight_gpu_s = 0.0;
    if (r->persist_active) {
        ts_des_cancel(r->des, r->persist_h);
        r->persist_active = false;
        r->persist_h = 0;
    }
    r->progress_s = r->durable_s;
    tl_mark_lost(r);
}

static void cancel_progress(struct rep *r)
{
    ts_des_cancel(r->des, r->job_h);
    r->job_h = 0;
}

/* Whole tau cycles (before the final, possibly shorter, segment) that end before `horizon`
 * seconds from now, when the first takes `first` seconds and the others `cycle`. */
static double batch_cycles(const struct rep *r, double remaining, double horizon, double first,
                           double cycle)
{
    const struct run_model *m = r->m;
    if (horizon < first)
        return 0.0;
    double full = ceil((remaining - m->finish_eps_s) / m->tau_s) - 1.0;
    double k = fmin(1.0 + floor((horizon - first) / cycle), full);
    if (k >= 1.0 && first + (k - 1.0) * cycle >= horizon)
        k -= 1.0;
    return k;
}

/* Wall seconds per useful second now: elastic slowdown times the fail-slow factor. */
static double wall_per_useful(const struct rep *r)
{
    return slowdown(r->m, r->lost_replicas) * (r->n_slow > 0 ? r->m->slow_factor : 1.0);
}

static void begin_segment(struct rep *r)
{
    const struct run_model *m = r->m;
    struct ts_des *d = r->des;
    double now = ts_des_now(d);
    double remaining = m->solve_s - r->progress_s;
    double slow = wall_per_useful(r);
    double compute_s = m->tau_s * slow;
    r->state = ST_COMPUTE;
    r->seg_start = now;

    if (remaining > m->tau_s + m->finish_eps_s) {
        /* Batch the whole cycles that end before the next pending failure, repair or spot
         * event. Sync: each cycle is compute + write. Async: compute, then a wait for the
         * previous write if it is longer, then the snapshot; the write in flight now (started
         * by the snapshot just taken) is absorbed into the batch. */
        double first, cycle, persist_end = r->persist_end;
        bool inflight = m->async && r->persist_active;
        if (inflight)
            ts_des_cancel(d, r->persist_h);
        if (!m->async) {
            first = cycle = compute_s + m->stall_s;
        } else {
            cycle = fmax(compute_s, m->persist_s) + m->stall_s;
            first = (inflight ? fmax(compute_s, persist_end - now) : compute_s) + m->stall_s;
        }
        double k = batch_cycles(r, remaining, ts_des_peek_time(d) - now, first, cycle);
        if (k >= 2.0) {
            r->state = ST_BATCH;
            r->job_h = ts_des_schedule(d, now + first + (k - 1.0) * cycle, PRIO_PROGRESS,
                                       EV_BATCH_END, (int64_t)k, inflight);
            return;
        }
        if (inflight)
            r->persist_h = ts_des_schedule(d, persist_end, PRIO_PROGRESS, EV_PERSIST_END, 0, 0);
    }
    r->seg_useful_s = remaining - m->tau_s <= m->finish_eps_s ? remaining : m->tau_s;
    r->job_h = ts_des_schedule_in(d, r->seg_useful_s * slow, PRIO_PROGRESS, EV_SEGMENT_END, 0, 0);
}

#define UNTIL_WRITE_ENDS (-1.0)    // a stall that on_persist_end ends, not a timer

static void start_stall(struct rep *r, enum run_stall kind, double duration)
{
    r->state = ST_STALL;
    r->stall = kind;
    r->job_h = duration == UNTIL_WRITE_ENDS
                   ? 0
                   : ts_des_schedule_in(r->des, duration, PRIO_PROGRESS, EV_STALL_END, 0, 0);
}

/* A restart: the recovery phases drawn at the last failure (if it follows one), then the
 * constant restart (restart_overhead + start-up + reload). */
static void start_restart(struct rep *r, int lost)
{
    double now = ts_des_now(r->des);
    r->state = ST_RESTART;
    r->lost_replicas = lost;
    r->rejoin = false;
    r->rec_t0 = now;
    r->rec_b[0] = now + r->ph_detect;
    r->rec_b[1] = r->rec_b[0] + r->ph_diag;
    r->rec_b[2] = r->rec_b[1] + r->ph_queue;
    r->ph_detect = r->ph_diag = r->ph_queue = 0.0;
    r->job_h = ts_des_schedule(r->des, r->rec_b[2] + r->m->restart_s, PRIO_PROGRESS,
                               EV_RESTART_END, 0, 0);
}

/* Restart if the job has what it needs (nodes, or enough replicas when elastic, and its spot
 * capacity); else wait for it. */
static void try_restart(struct rep *r)
{
    int lost = lost_for(r->m, r->missing);
    if (r->reacquiring || lost >= r->m->dp) {
        r->state = ST_WAIT;
        return;
    }
    start_restart(r, lost);
}

/* After a durable checkpoint between segments: done, rejoin, or the next segment. */
static void after_checkpoint(struct rep *r)
{
    if (finished(r, r->durable_s))
        finish(r);
    else if (r->rejoin)
        start_restart(r, lost_for(r->m, r->missing));   // no work lost: nothing is pending
    else
        begin_segment(r);
}

/* ------------------------------------------------ event handlers */

static void on_segment_end(struct rep *r)
{
    account(r);
    r->job_h = 0;
    r->progress_s += r->seg_useful_s;
    if (!r->m->async)
        start_stall(r, STALL_WRITE, r->m->stall_s);
    else if (r->persist_active)
        start_stall(r, STALL_PERSIST_WAIT, UNTIL_WRITE_ENDS);
    else
        start_stall(r, STALL_SNAPSHOT, r->m->stall_s);
}

/* The same spans the k cycles of a batch would have left: compute, then the stall (the wait
 * for the previous write, if any, and the write or snapshot). */
static void tl_add_batch(struct rep *r, int64_t k, double seg, double prev_persist_end)
{
    const struct run_model *m = r->m;
    double t = r->t_mark, now = ts_des_now(r->des);
    for (int64_t i = 0; i < k; i++) {
        bool last = i + 1 == k;
        double end_compute = t + seg;
        double snap = m->async ? fmax(end_compute, prev_persist_end) : end_compute;
        double next = last ? now : snap + m->stall_s;
        tl_add(r, TS_SPAN_COMPUTE, t, end_compute);
        if (last && m->async && tl_len(r) > 0)
            r->tl_uncommitted = tl_len(r) - 1;  // the k-th segment is not durable yet
        tl_add(r, TS_SPAN_CHECKPOINT, end_compute, next);
        prev_persist_end = next + m->persist_s;
        t = next;
    }
    r->tl_inflight = tl_len(r);
    if (!m->async)
        r->tl_uncommitted = tl_len(r);
}

/* The end of k whole cycles (see begin_segment): attribute them and leave the checkpoint
 * state where the k cycles, played one event at a time, would have left it. */
static void on_batch_end(struct rep *r, int64_t k, bool inflight)
{
    const struct run_model *m = r->m;
    double now = ts_des_now(r->des), dt = now - r->t_mark;
    double active = (double)(m->dp - r->lost_replicas) * m->replica_gpus;
    double seg = m->tau_s * wall_per_useful(r), compute_s = (double)k * seg;
    TS_ASSERT(r->pend_cur_gpu_s == 0.0, "run: a batch started with pending work");
    if (r->tl)
        tl_add_batch(r, k, seg, inflight ? r->persist_end : -HUGE_VAL);
    r->gpu_s[CAT_DEGRADED] += (m->gpus - active) * dt;
    r->gpu_s[CAT_CHECKPOINT] += active * (dt - compute_s);
    double prod_before = r->gpu_s[CAT_PRODUCTIVE];
    if (r->n_slow > 0) {
        // Fail-slow: the slow part of the compute is its own category (see account()).
        double kept = compute_s / m->slow_factor;
        r->gpu_s[CAT_SLOW] += active * (compute_s - kept);
        compute_s = kept;
        seg /= m->slow_factor;
    }
    r->job_h = 0;
    r->t_mark = now;
    double start_s = r->progress_s;
    r->progress_s += (double)k * m->tau_s;
    if (!m->async) {
        r->gpu_s[CAT_PRODUCTIVE] += active * compute_s;
        r->durable_s = r->progress_s;
        r->checkpoints += (double)k;
        for (int64_t j = k - (k < m->ring_cap ? k : m->ring_cap) + 1; m->ring_cap && j <= k; j++)
            ring_push(r, start_s + (double)j * m->tau_s, prod_before + active * seg * (double)j,
                      tl_len(r));
        after_checkpoint(r);
        return;
    }
    // Durable now: the write in flight before the batch and the first k - 1 of the batch;
    // the k-th is being written.
    if (m->ring_cap) {
        double base = prod_before + r->pend_inflight_gpu_s;
        if (inflight)
            ring_push(r, start_s, base, r->tl_inflight);
        int64_t lo = k - 1 - (k - 1 < m->ring_cap ? k - 1 : m->ring_cap) + 1;
        for (int64_t j = lo; j <= k - 1; j++)
            ring_push(r, start_s + (double)j * m->tau_s, base + active * seg * (double)j,
                      tl_len(r));
    }
    r->gpu_s[CAT_PRODUCTIVE] += r->pend_inflight_gpu_s + active * (compute_s - seg);
    r->pend_inflight_gpu_s = active * seg;
    r->durable_s = start_s + (double)(k - 1) * m->tau_s;
    r->inflight_s = r->progress_s;
    r->checkpoints += (double)(k - 1) + (inflight ? 1.0 : 0.0);
    r->persist_active = true;
    r->persist_end = now + m->persist_s;
    r->persist_h = ts_des_schedule(r->des, r->persist_end, PRIO_PROGRESS, EV_PERSIST_END, 0, 0);
    begin_segment(r);
}

static void on_stall_end(struct rep *r)
{
    const struct run_model *m = r->m;
    account(r);
    r->job_h = 0;
    switch (r->stall) {
    case STALL_WRITE:
        commit_all(r);
        after_checkpoint(r);
        break;
    case STALL_SNAPSHOT:
        // The snapshot is in host memory; the write to storage proceeds in the background.
        r->pend_inflight_gpu_s = r->pend_cur_gpu_s;
        r->pend_cur_gpu_s = 0.0;
        r->inflight_s = r->progress_s;
        r->tl_inflight = tl_len(r);
        r->persist_active = true;
        r->persist_end = ts_des_now(r->des) + m->persist_s;
        r->persist_h = ts_des_schedule(r->des, r->persist_end, PRIO_PROGRESS, EV_PERSIST_END, 0, 0);
        if (finished(r, r->progress_s))
            start_stall(r, STALL_FINAL_WAIT, UNTIL_WRITE_ENDS);
        else
            begin_segment(r);
        break;
    case STALL_EMERGENCY:
        commit_all(r);
        r->emergency_done = true;
        if (finished(r, r->durable_s))
            finish(r);
        break;
    case STALL_SAVE:
        commit_all(r);
        if (finished(r, r->durable_s))
            finish(r);
        else
            start_restart(r, lost_for(r->m, r->missing));
        break;
    case STALL_PERSIST_WAIT:
    case STALL_FINAL_WAIT:
        TS_ASSERT(false, "run: stall %d has no end event", (int)r->stall);
    }
}

static void on_persist_end(struct rep *r)
{
    account(r);
    r->persist_active = false;
    r->persist_h = 0;
    r->gpu_s[CAT_PRODUCTIVE] += r->pend_inflight_gpu_s;
    r->pend_inflight_gpu_s = 0.0;
    r->durable_s = r->inflight_s;
    r->checkpoints += 1.0;
    r->tl_uncommitted = r->tl_inflight;
    ring_push(r, r->durable_s, r->gpu_s[CAT_PRODUCTIVE], r->tl_uncommitted);
    if (r->state == ST_STALL && r->stall == STALL_PERSIST_WAIT) {
        start_stall(r, STALL_SNAPSHOT, r->m->stall_s);
    } else if (r->state == ST_STALL && r->stall == STALL_FINAL_WAIT) {
        finish(r);
    } else if (r->rejoin && r->state == ST_COMPUTE) {
        // Rejoin from the checkpoint just made durable; the segment under way is redone.
        cancel_progress(r);
        rollback(r);
        start_restart(r, lost_for(r->m, r->missing));
    }
}

static void on_restart_end(struct rep *r)
{
    account(r);
    r->job_h = 0;
    begin_segment(r);
}

static gsl_rng *xrng(struct rep *r, int x);
static void lemon_redraw(struct rep *r);

/* Lemons the job holds now (not in repair, not spares in the pool). */
static int lemons_held(const struct rep *r)
{
    return r->n_lemons - r->lemons_out;
}

/* Node in slot s failed (`lemon`: it is a lemon, which a naive repair returns as one): a hot
 * spare replaces it if one is left (a lemon back in the pool with the pool's lemon share),
 * else it is missing until its repair. Either way it goes to repair. */
static void node_lost(struct rep *r, int s, bool lemon)
{
    const struct run_model *m = r->m;
    slot_empty(r, s);
    r->nodes_replaced += 1.0;
    ts_des_schedule_in(r->des, m->repair_s, PRIO_CAPACITY, EV_REPAIRED, lemon ? 1 : 0, 0);
    if (lemon)
        r->lemons_out++;
    if (r->pool > 0) {
        if (r->pool_lemons > 0 &&
            gsl_rng_uniform_int(xrng(r, X_LEMON), (unsigned long)r->pool) <
                (unsigned long)r->pool_lemons) {
            r->pool_lemons--;
            r->lemons_out--;
        }
        r->pool--;
        slot_fill(r, s);
    } else {
        r->held--;
        r->missing++;
        held_changed(r);
    }
    if (m->lemon_fraction > 0.0)
        lemon_redraw(r);
}

/* A node is back from repair (`lemon`: a lemon, as bad as before): it fills a missing place
 * in the job, else joins the pool. */
static void on_repaired(struct rep *r, bool lemon)
{
    if (r->missing == 0) {
        r->pool++;
        r->pool_lemons += lemon ? 1 : 0;
        return;
    }
    account(r);
    r->missing--;
    r->held++;
    if (lemon) {
        r->lemons_out--;
        lemon_redraw(r);
    }
    slot_fill(r, slot_first_empty(r));
    held_changed(r);
    if (r->state == ST_WAIT)
        try_restart(r);
    else if (r->m->elastic && rep_running(r) && r->lost_replicas > lost_for(r->m, r->missing))
        r->rejoin = true;
}

/* Count an interruption. A run interrupted more often than the run model accepts in
 * expectation (TS_RUN_INTERRUPTIONS_MAX, daly.c) cannot finish in any useful time: Weibull
 * infant mortality (shape well below 1) renews on every replaced node and may interrupt far
 * more often than its exponential equivalent predicts. Stop the replication then (it is an
 * input error), rather than play out millions of failures. */
static bool interrupt_counted(struct rep *r)
{
    if (r->failures + r->preemptions <= TS_RUN_INTERRUPTIONS_MAX)
        return true;
    r->too_many_interrupts = true;
    r->state = ST_DONE;
    return false;
}

static gsl_rng *xrng(struct rep *r, int x)
{
    return r->rng[TS_FAILURES_MAX + 1 + x];
}

/* The recovery phases of an unplanned failure: detection (the crash detector, or the hang
 * timeout for the hang_fraction share), diagnosis + replacement (lognormal) and the queue.
 * They run at the start of the next restart; a failure before it draws them anew. */
static void draw_phases(struct rep *r, double hang_share)
{
    const struct run_model *m = r->m;
    gsl_rng *g = xrng(r, X_RECOVERY);
    bool hang = hang_share > 0.0 && gsl_rng_uniform(g) < hang_share;
    r->hangs += hang ? 1.0 : 0.0;
    r->ph_detect = hang ? m->hang_timeout_s : m->crash_detect_s;
    r->ph_diag = m->diagnose ? fmin(exp(m->diag_mu + m->diag_sigma * gsl_ran_ugaussian(g)),
                                    TS_REL_DURATION_MAX_S)
                             : 0.0;
    r->ph_queue = m->queue_s;
}

/* A lemon's failure at `now`: evict it (replaced by a healthy node) once it has failed
 * evict_after times within the window. Returns whether it was evicted. */
static bool lemon_record(struct rep *r, int j)
{
    const struct run_model *m = r->m;
    int k = m->evict_after;
    if (k <= 0)
        return false;
    double now = ts_des_now(r->des);
    double *h = r->lemon_hist + (size_t)j * (size_t)k;
    h[r->lemon_nhist[j] % k] = now;
    r->lemon_nhist[j]++;
    if (r->lemon_nhist[j] < k || now - h[r->lemon_nhist[j] % k] > m->evict_window_s)
        return false;
    int last = r->n_lemons - 1;     // the last record fills the evicted one's place
    memcpy(h, r->lemon_hist + (size_t)last * (size_t)k, (size_t)k * sizeof *h);
    r->lemon_nhist[j] = r->lemon_nhist[last];
    r->n_lemons--;
    r->evictions += 1.0;
    return true;
}

static void lemon_redraw(struct rep *r)
{
    const struct run_model *m = r->m;
    ts_des_cancel(r->des, r->lemon_h);
    r->lemon_h = 0;
    if (lemons_held(r) > 0 && m->lemon_extra_rate > 0.0)
        r->lemon_h = ts_des_schedule_in(
            r->des,
            draw_exponential_g(xrng(r, X_LEMON), 1.0 / (lemons_held(r) * m->lemon_extra_rate)),
            PRIO_FAILURE, EV_LEMON, 0, 0);
}

/* An unplanned interruption: `n_nodes` nodes fail at once (0 for software; `slot` is the
 * first one's slot or -1, `lemon` whether that one is a lemon; further slots come from `g`);
 * `hang_share` is the chance that it is a hang. */
static void strike(struct rep *r, int n_nodes, int slot, bool lemon, gsl_rng *g,
                   double hang_share)
{
    const struct run_model *m = r->m;
    bool running = rep_running(r);
    if (n_nodes == 0 && !running)
        return;     // software cannot fail while nothing runs
    TS_ASSERT(r->state != ST_BATCH, "run: failure inside a batch");
    r->failures += 1.0;
    if (!interrupt_counted(r))
        return;
    account(r);
    double now = ts_des_now(r->des);
    tl_add(r, TS_SPAN_FAILURE, now, now);
    bool training = running && r->state != ST_RESTART;
    if (running) {
        cancel_progress(r);
        rollback(r);
    }
    if (training && m->rollback_fraction > 0.0 &&
        gsl_rng_uniform(xrng(r, X_ROLLBACK)) < m->rollback_fraction)
        rollback_deep(r);
    draw_phases(r, hang_share);
    for (int i = 0; i < n_nodes && r->held > 0; i++)
        node_lost(r, i == 0 ? slot : slot_pick_with(r, g), i == 0 && lemon);
    if (r->state == ST_DRAIN)
        r->emergency_done = true;   // nothing more runs before the reclaim
    else if (r->state != ST_WAIT)
        try_restart(r);
}

static void on_failure(struct rep *r, const struct ts_des_event *ev)
{
    const struct run_model *m = r->m;
    int p = (int)ev->a;
    const struct run_proc *pr = &m->proc[p];
    int slot = -1;
    if (pr->per_copy) {
        int copy = (int)ev->b;
        r->copy_h[pr->copy_base + copy] = 0;
        if (pr->takes_node)
            slot = copy / pr->copies_per_slot;  // renewed when the node is replaced
        else
            copy_schedule(r, p, copy);          // job and software processes renew at once
    } else {
        r->proc_h[p] = 0;
        if (pr->takes_node)
            slot = slot_pick_failed(r, p);
        superposed_redraw(r, p);
    }
    bool lemon = false;
    if (pr->takes_node && lemons_held(r) > 0 && r->held > 0) {
        // The failed node is a lemon with the held lemons' share of the held nodes; an
        // evicted lemon is replaced by a healthy node and does not come back.
        gsl_rng *g = xrng(r, X_LEMON);
        if (gsl_rng_uniform(g) < (double)lemons_held(r) / r->held) {
            lemon = !lemon_record(r, (int)gsl_rng_uniform_int(g, (unsigned long)r->n_lemons));
            lemon_redraw(r);
        }
    }
    strike(r, pr->takes_node ? 1 : 0, slot, lemon, r->rng[p], pr->hang);
}

static void on_lemon(struct rep *r)
{
    const struct run_model *m = r->m;
    gsl_rng *g = xrng(r, X_LEMON);
    r->lemon_h = 0;
    bool evicted = lemon_record(r, (int)gsl_rng_uniform_int(g, (unsigned long)r->n_lemons));
    lemon_redraw(r);
    strike(r, 1, m->track_slots ? slot_pick_with(r, g) : -1, !evicted, g, m->hw_hang);
}

static void on_correlated(struct rep *r)
{
    const struct run_model *m = r->m;
    gsl_rng *g = xrng(r, X_CORRELATED);
    r->corr_h = ts_des_schedule_in(r->des, draw_exponential_g(g, m->corr_mean_s), PRIO_FAILURE,
                                   EV_CORRELATED, 0, 0);
    if (r->held == 0)
        return;     // nothing held to strike
    r->correlated += 1.0;
    strike(r, m->corr_nodes, m->track_slots ? slot_pick_with(r, g) : -1, false, g, m->hw_hang);
}

/* A planned interruption or a fail-slow drain while training: save everything, then the
 * constant restart; no work is lost. A failure during the save loses as usual. */
static void planned_save(struct rep *r)
{
    const struct run_model *m = r->m;
    account(r);
    double now = ts_des_now(r->des);
    tl_add(r, TS_SPAN_PLANNED, now, now);
    if (r->state == ST_COMPUTE)
        r->progress_s += (now - r->seg_start) / wall_per_useful(r);
    cancel_progress(r);
    bool writing = r->persist_active;
    if (writing) {
        // This save supersedes the write in flight.
        ts_des_cancel(r->des, r->persist_h);
        r->persist_active = false;
        r->persist_h = 0;
    }
    if (r->progress_s > r->durable_s || writing) {
        r->state = ST_STALL;
        r->stall = STALL_SAVE;
        r->job_h = ts_des_schedule_in(r->des, m->emergency_s, PRIO_PROGRESS, EV_STALL_END, 0, 0);
    } else {
        start_restart(r, lost_for(m, r->missing));
    }
}

/* Whether a planned save can interrupt now: while training, not while a save, the last
 * write or a recovery is under way. */
static bool can_save(const struct rep *r)
{
    return r->state == ST_COMPUTE ||
           (r->state == ST_STALL && r->stall != STALL_FINAL_WAIT && r->stall != STALL_SAVE);
}

static void on_planned(struct rep *r)
{
    const struct run_model *m = r->m;
    r->planned_h = ts_des_schedule_in(r->des, draw_exponential_g(xrng(r, X_PLANNED),
                                                                 m->planned_mean_s),
                                      PRIO_FAILURE, EV_PLANNED, 0, 0);
    r->planned += 1.0;
    if (can_save(r))
        planned_save(r);
}

/* The number of slow GPUs changes by `delta`: a segment under way continues at the new
 * speed from now. */
static void slow_change(struct rep *r, int delta)
{
    if (r->state != ST_COMPUTE) {
        r->n_slow += delta;
        return;
    }
    account(r);     // at the old speed
    double now = ts_des_now(r->des), old = wall_per_useful(r);
    r->n_slow += delta;
    double cur = wall_per_useful(r);
    if (cur == old)
        return;
    double done = fmin((now - r->seg_start) / old, r->seg_useful_s);
    r->progress_s += done;
    r->seg_useful_s -= done;
    r->seg_start = now;
    cancel_progress(r);
    r->job_h = ts_des_schedule_in(r->des, r->seg_useful_s * cur, PRIO_PROGRESS, EV_SEGMENT_END,
                                  0, 0);
}

static void on_slow_onset(struct rep *r)
{
    const struct run_model *m = r->m;
    r->slow_h = ts_des_schedule_in(r->des, draw_exponential_g(xrng(r, X_SLOW), m->slow_mean_s),
                                   PRIO_FAILURE, EV_SLOW_ONSET, 0, 0);
    r->slow_episodes += 1.0;
    ts_des_schedule_in(r->des, m->slow_detect_s, PRIO_CAPACITY, EV_SLOW_DETECT, 0, 0);
    slow_change(r, +1);
}

/* Detected: the slow GPU is drained with a save and a restart if the job is training; in a
 * recovery or a wait it is swapped out with the failed node at no extra cost. */
static void on_slow_detect(struct rep *r)
{
    bool drain = can_save(r);
    slow_change(r, -1);
    if (drain)
        planned_save(r);
}

static void on_preemption(struct rep *r)
{
    const struct run_model *m = r->m;
    r->preempt_h = 0;
    preemption_redraw(r);
    bool holding = r->state == ST_COMPUTE || r->state == ST_STALL || r->state == ST_RESTART;
    if (!holding || r->reclaim_pending)
        return;     // already waiting or already being reclaimed
    r->preemptions += 1.0;
    if (!interrupt_counted(r))
        return;
    account(r);
    r->reclaim_pending = true;
    ts_des_schedule_in(r->des, m->notice_s, PRIO_RECLAIM, EV_RECLAIM, 0, 0);
    if (!m->emergency_fits)
        return;     // keep training; the reclaim loses what is not durable by then
    if (r->state == ST_COMPUTE)
        r->progress_s += (ts_des_now(r->des) - r->seg_start) / wall_per_useful(r);
    cancel_progress(r);
    r->state = ST_DRAIN;
    if (r->state == ST_DRAIN && (r->progress_s > r->durable_s || r->persist_active)) {
        // Write everything now: this checkpoint supersedes any write in flight.
        if (r->persist_active) {
            ts_des_cancel(r->des, r->persist_h);
            r->persist_active = false;
            r->persist_h = 0;
        }
        r->emergency_done = false;
        r->stall = STALL_EMERGENCY;
        r->job_h = ts_des_schedule_in(r->des, m->emergency_s, PRIO_PROGRESS, EV_STALL_END, 0, 0);
    } else {
        r->emergency_done = true;   // nothing to save (e.g. preempted while restarting)
    }
}

static void on_reclaim(struct rep *r)
{
    r->reclaim_pending = false;
    account(r);
    double now = ts_des_now(r->des);
    if (rep_running(r)) {
        cancel_progress(r);
        rollback(r);
    }
    tl_add(r, TS_SPAN_FAILURE, now, now);
    r->reacquiring = true;
    r->state = ST_WAIT;
    ts_des_schedule_in(r->des, r->m->reacquire_s, PRIO_CAPACITY, EV_REACQUIRED, 0, 0);
}

static void on_reacquired(struct rep *r)
{
    account(r);
    r->reacquiring = false;
    if (r->state == ST_WAIT)
        try_restart(r);
}

/* Seed the streams and start the job; nothing is allocated. */
static void rep_start(struct rep *r, int index)
{
    const struct run_model *m = r->m;
    struct ts_des *d = r->des;
    ts_des_reset(d);
    int streams = m->n_proc + (m->spot ? 1 : 0);
    for (int s = 0; s < streams; s++)
        gsl_rng_set(r->rng[s], (unsigned long)ts_rng_stream_seed(m->seed, (uint64_t)index,
                                                                   (uint64_t)s + 1));
    bool x_on[X_COUNT] = {
        [X_RECOVERY] = m->any_hang || m->diagnose,
        [X_SLOW] = m->slow_mean_s > 0.0,
        [X_LEMON] = m->lemon_fraction > 0.0,
        [X_CORRELATED] = m->corr_mean_s > 0.0,
        [X_ROLLBACK] = m->rollback_fraction > 0.0,
        [X_PLANNED] = m->planned_mean_s > 0.0,
    };
    for (int x = 0; x < X_COUNT; x++)
        if (x_on[x])
            gsl_rng_set(xrng(r, x), (unsigned long)ts_rng_stream_seed(
                                        m->seed, (uint64_t)index, X_PURPOSE_BASE + (uint64_t)x));
    if (m->lemon_fraction > 0.0) {
        r->n_lemons = (int)gsl_ran_binomial(xrng(r, X_LEMON), m->lemon_fraction,
                                            (unsigned)m->nodes);
        for (int j = 0; j < r->n_lemons; j++)
            r->lemon_nhist[j] = 0;
        lemon_redraw(r);
    }
    if (m->slow_mean_s > 0.0)
        r->slow_h = ts_des_schedule_in(d, draw_exponential_g(xrng(r, X_SLOW), m->slow_mean_s),
                                       PRIO_FAILURE, EV_SLOW_ONSET, 0, 0);
    if (m->corr_mean_s > 0.0)
        r->corr_h = ts_des_schedule_in(d, draw_exponential_g(xrng(r, X_CORRELATED),
                                                             m->corr_mean_s),
                                       PRIO_FAILURE, EV_CORRELATED, 0, 0);
    if (m->planned_mean_s > 0.0)
        r->planned_h = ts_des_schedule_in(d, draw_exponential_g(xrng(r, X_PLANNED),
                                                                m->planned_mean_s),
                                          PRIO_FAILURE, EV_PLANNED, 0, 0);
    r->held = m->nodes;
    r->pool = m->spares;
    for (int s = 0; s < m->nodes && m->track_slots; s++)
        r->slot_up[s] = 0;
    for (int i = 0; i < m->n_copy_handles; i++)
        r->copy_h[i] = 0;
    for (int p = 0; p < m->n_proc; p++) {
        const struct run_proc *pr = &m->proc[p];
        r->proc_h[p] = 0;
        if (!pr->per_copy)
            superposed_redraw(r, p);
        else if (!pr->node_scoped)
            copy_schedule(r, p, 0);
    }
    for (int s = 0; s < m->nodes && m->track_slots; s++)
        slot_fill(r, s);
    r->preempt_h = 0;
    preemption_redraw(r);
    begin_segment(r);
}

/* How a replication ended early. */
enum { REP_DONE, REP_EVENT_CAP, REP_INTERRUPTS, REP_CANCELLED, REP_STOPPED };

/* Play one replication to the end. Returns REP_DONE; REP_EVENT_CAP after more than
 * events_max events; REP_INTERRUPTS when it was interrupted too often to finish;
 * REP_CANCELLED when a replication of a lower index than this one ended early (*first_bad);
 * REP_STOPPED when the caller's *ext_stop rose. */
static int rep_run(struct rep *r, int index, const int *first_bad, volatile sig_atomic_t *ext_stop,
                   uint64_t events_max, struct rep_stats *out)
{
    rep_start(r, index);
    struct ts_des_event ev;
    while (r->state != ST_DONE) {
        bool got = ts_des_next(r->des, &ev);
        TS_ASSERT(got, "run: replication %d has no pending event in state %d", index,
                  (int)r->state);
        if ((r->des->popped & 4095u) == 0) {
            int s;
#pragma omp atomic read
            s = *first_bad;
            if (s < index)
                return REP_CANCELLED;
            if (ext_stop && *ext_stop)
                return REP_STOPPED;
            if (r->des->popped > events_max)
                return REP_EVENT_CAP;
        }
        switch ((enum run_event)ev.kind) {
        case EV_SEGMENT_END: on_segment_end(r); break;
        case EV_BATCH_END: on_batch_end(r, ev.a, ev.b != 0); break;
        case EV_STALL_END: on_stall_end(r); break;
        case EV_PERSIST_END: on_persist_end(r); break;
        case EV_RESTART_END: on_restart_end(r); break;
        case EV_REPAIRED: on_repaired(r, ev.a != 0); break;
        case EV_REACQUIRED: on_reacquired(r); break;
        case EV_RECLAIM: on_reclaim(r); break;
        case EV_FAILURE: on_failure(r, &ev); break;
        case EV_PREEMPTION: on_preemption(r); break;
        case EV_SLOW_ONSET: on_slow_onset(r); break;
        case EV_SLOW_DETECT: on_slow_detect(r); break;
        case EV_LEMON: on_lemon(r); break;
        case EV_CORRELATED: on_correlated(r); break;
        case EV_PLANNED: on_planned(r); break;
        }
    }
    out->wall_s = ts_des_now(r->des);
    for (int c = 0; c < CAT_COUNT; c++)
        out->gpu_s[c] = r->gpu_s[c];
    out->failures = r->failures;
    out->preemptions = r->preemptions;
    out->checkpoints = r->checkpoints;
    out->hangs = r->hangs;
    out->slow_episodes = r->slow_episodes;
    out->planned = r->planned;
    out->rollbacks = r->rollbacks;
    out->evictions = r->evictions;
    out->correlated = r->correlated;
    out->nodes_replaced = r->nodes_replaced;
    out->status = r->too_many_interrupts ? REP_INTERRUPTS : REP_DONE;
    return out->status;
}

/* The event cap of one replication: TRAINSIM_MAX_EVENTS when set to a positive integer, else
 * TS_RUN_EVENTS_MAX. */
static uint64_t events_cap(void)
{
    const char *env = getenv("TRAINSIM_MAX_EVENTS");
    if (env && *env) {
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (*end == '\0' && v > 0)
            return v;
    }
    return TS_RUN_EVENTS_MAX;
}

/* ---------------------------------------------------------------- setup and summary */

static void model_build(const struct ts_run_input *in, const struct ts_run_params *p,
                        struct run_model *m)
{
    const struct ts_reliability *rel = &in->rel;
    memset(m, 0, sizeof *m);
    m->tau_s = p->checkpoint_interval_s;
    m->solve_s = p->solve_s;
    m->finish_eps_s = 1e-9 * p->solve_s;
    m->stall_s = p->checkpoint_write_s;
    m->persist_s = p->checkpoint_persist_s;
    m->restart_s = p->restart_s;
    m->emergency_s = p->checkpoint_persist_s;   // the notice-period checkpoint must be durable
    m->repair_s = rel->repair_time_s;
    m->async = rel->checkpoint.mode == TS_CKPT_ASYNC;
    m->elastic = rel->elastic;
    m->gpus = in->gpus;
    m->nodes = in->nodes;
    m->dp = in->dp;
    m->spares = rel->spares;
    m->replica_gpus = in->gpus / in->dp;
    m->replicas_per_node = m->replica_gpus >= in->gpus_per_node
                               ? 1 : in->gpus_per_node / m->replica_gpus;
    m->iteration_s = in->iteration_s;
    m->elastic_iteration_s = rel->elastic ? in->elastic_iteration_s : NULL;
    m->spot = rel->spot.enabled;
    m->preemption_mtbf_s = rel->spot.preemption_mtbf_s;
    m->notice_s = rel->spot.notice_s;
    m->reacquire_s = rel->spot.reacquire_s;
    m->emergency_fits = m->emergency_s <= m->notice_s;
    m->seed = rel->seed;
    m->n_proc = rel->n_failures;
    const struct ts_mechanisms *x = &rel->mech;
    m->crash_detect_s = x->recovery.crash_detect_s;
    m->hang_timeout_s = x->recovery.hang_timeout_s;
    m->hw_hang = ts_run__hardware_hang_fraction(rel, in->gpus, in->nodes);
    m->any_hang = m->hw_hang > 0.0;
    m->diagnose = x->recovery.diagnose_median_s > 0.0;
    m->diag_mu = m->diagnose ? log(x->recovery.diagnose_median_s) : 0.0;
    m->diag_sigma = x->recovery.diagnose_sigma;
    m->queue_s = x->recovery.queue_s;
    if (x->fail_slow.gpu_mtbf_s > 0.0) {
        m->slow_mean_s = x->fail_slow.gpu_mtbf_s / rel->rate_scale / in->gpus;
        m->slow_factor = x->fail_slow.factor;
        m->slow_detect_s = x->fail_slow.detect_s;
    }
    m->slow_factor = m->slow_factor > 0.0 ? m->slow_factor : 1.0;
    if (x->bad_nodes.fraction > 0.0) {
        m->lemon_fraction = x->bad_nodes.fraction;
        m->lemon_extra_rate = (x->bad_nodes.multiplier - 1.0) *
                              ts_run__node_failure_rate(rel, in->gpus, in->nodes);
        m->evict_after = x->bad_nodes.evict_after;
        m->evict_window_s = x->bad_nodes.evict_window_s;
        m->lemon_cap = in->nodes;
    }
    if (x->correlated.domain_mtbf_s > 0.0) {
        int domains = (in->nodes + x->correlated.domain_nodes - 1) / x->correlated.domain_nodes;
        m->corr_mean_s = x->correlated.domain_mtbf_s / rel->rate_scale / domains;
        m->corr_nodes = x->correlated.domain_nodes < in->nodes ? x->correlated.domain_nodes
                                                               : in->nodes;
    }
    if (x->rollback.fraction > 0.0) {
        m->rollback_fraction = x->rollback.fraction;
        m->rollback_depth = x->rollback.depth;
        m->rollback_to_start = rel->checkpoint.keep < x->rollback.depth + 1 ||
                               rel->checkpoint.keep < 1;
        // The checkpoints kept in storage, up to RING_MAX (older ones count as gone).
        m->ring_cap = rel->checkpoint.keep < 1 ? 0
                      : rel->checkpoint.keep < RING_MAX ? rel->checkpoint.keep : RING_MAX;
    }
    if (x->planned.node_mtbf_s > 0.0)
        m->planned_mean_s = x->planned.node_mtbf_s / in->nodes;
    for (int i = 0; i < rel->n_failures; i++) {
        const struct ts_failure_process *f = &rel->failures[i];
        struct run_proc *pr = &m->proc[i];
        double copies = ts_run__process_copies(f, in->gpus, in->nodes);
        pr->node_scoped = f->component != TS_COMP_JOB;
        pr->takes_node = ts_component_takes_node(f->component);
        pr->weibull = f->distribution == TS_DIST_WEIBULL;
        pr->per_copy = pr->weibull && copies <= PER_COPY_MAX;
        pr->mtbf_s = ts_run__process_mtbf(rel, i);      // rate_scale applied
        pr->shape = f->shape;
        pr->scale_s = pr->weibull ? ts_run__weibull_scale(pr->mtbf_s, f->shape) : pr->mtbf_s;
        pr->copies_per_node = pr->node_scoped ? copies / in->nodes : 0.0;
        pr->hang = ts_run__hang_fraction(rel, i);
        m->any_hang = m->any_hang || pr->hang > 0.0;
        if (pr->per_copy) {
            pr->copies = (int)copies;
            pr->copies_per_slot = f->component == TS_COMP_GPU ? in->gpus_per_node : 1;
            pr->copy_base = m->n_copy_handles;
            m->n_copy_handles += pr->copies;
            if (pr->node_scoped)
                m->track_slots = true;
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int ts_run_simulate(const struct ts_run_input *in, struct ts_run_result *out, double *samples,
                    struct ts_run_timeline *timeline, struct ts_err *err)
{
    if (ts_run__failure_free(in, out, samples, timeline))
        return TS_OK;
    memset(out, 0, sizeof *out);
    int rc = ts_run_params_compute(in, &out->params, err);
    if (rc)
        return rc;
    struct run_model *m = ts_xmalloc(sizeof *m);
    model_build(in, &out->params, m);
    int n = in->rel.replications;
    TS_ASSERT(n >= 1, "run: %d replications", n);
    struct rep_stats *stats = ts_xcalloc((size_t)n, sizeof *stats);
    if (timeline)
        timeline->len = 0;
    int first_bad = n, ext_stopped = 0;
    uint64_t events_max = events_cap();

#pragma omp parallel
    {
        struct ts_des des;
        TS_ASSERT(ts_des_init(&des, 64u + (uint32_t)m->n_copy_handles) == 0,
                  "run: out of memory for the event pool");
        gsl_rng *rng[RNG_MAX] = {0};
        for (int s = 0; s <= m->n_proc; s++)
            rng[s] = gsl_rng_alloc(gsl_rng_mt19937);
        for (int x = 0; x < X_COUNT; x++)
            rng[TS_FAILURES_MAX + 1 + x] = gsl_rng_alloc(gsl_rng_mt19937);
        ts_des_handle *copy_h = ts_xcalloc((size_t)m->n_copy_handles + 1, sizeof *copy_h);
        double *lemon_hist = ts_xcalloc((size_t)m->lemon_cap * (size_t)(m->evict_after + 1) + 1,
                                        sizeof *lemon_hist);
        int *lemon_nhist = ts_xcalloc((size_t)m->lemon_cap + 1, sizeof *lemon_nhist);
        struct ckpt_rec *ring = ts_xcalloc((size_t)m->ring_cap + 1, sizeof *ring);
        struct rep *r = ts_xmalloc(sizeof *r);

#pragma omp for schedule(dynamic)
        for (int i = 0; i < n; i++) {
            memset(r, 0, sizeof *r);
            r->m = m;
            r->des = &des;
            r->rng = rng;
            r->copy_h = copy_h;
            r->lemon_hist = lemon_hist;
            r->lemon_nhist = lemon_nhist;
            r->ring = ring;
            r->tl = i == 0 ? timeline : NULL;
            /* A replication that ended early (event cap, too many interruptions) cancels
             * the ones above its index only; those below run on, so the lowest early end is
             * the same for any thread count. A stop request ends every replication. */
            int end = REP_CANCELLED;
            int bad, stopped;
#pragma omp atomic read
            bad = first_bad;
#pragma omp atomic read
            stopped = ext_stopped;
            if (!stopped && in->stop && *in->stop)
                end = REP_STOPPED;
            else if (!stopped && i < bad)
                end = rep_run(r, i, &first_bad, in->stop, events_max, &stats[i]);
            stats[i].status = end;
            if (end == REP_STOPPED) {
#pragma omp atomic write
                ext_stopped = 1;
            } else if (end == REP_EVENT_CAP || end == REP_INTERRUPTS) {
#pragma omp critical(ts_run_first_bad)
                if (i < first_bad) {
#pragma omp atomic write
                    first_bad = i;
                }
            }
        }

        free(r);
        free(copy_h);
        free(lemon_hist);
        free(lemon_nhist);
        free(ring);
        for (int s = 0; s < RNG_MAX; s++)
            if (rng[s])
                gsl_rng_free(rng[s]);
        ts_des_close(&des);
    }

    /* An early end decides the outcome by the lowest replication index that ended early (all
     * lower ones ran to the end: see the loop above), so the message does not depend on the
     * thread count or timing; a stop request wins over both. */
    if (ext_stopped || first_bad < n) {
        int end = ext_stopped ? REP_STOPPED : stats[first_bad].status;
        free(stats);
        free(m);
        if (timeline)
            timeline->len = 0;
        if (end == REP_INTERRUPTS) {
            double M = out->params.job_mtbf_s;
            char mt[48];
            if (isfinite(M))
                ts_quantity_format(M, TS_DIM_SECONDS, mt, sizeof mt);
            return ts_err_set(err, TS_ERR_INPUT,
                              "reliability: the job cannot finish in any useful time: a "
                              "simulated run was interrupted more than %.0f times (the "
                              "rates give one every %s; Weibull shapes well below 1 fail "
                              "early again on every replaced node, and checkpoints too slow "
                              "to complete between interruptions keep the work from "
                              "becoming durable): raise the Weibull shape, the mtbf or the "
                              "checkpoint bandwidths, or lower the preemption rate",
                              TS_RUN_INTERRUPTIONS_MAX, isfinite(M) ? mt : "never");
        }
        if (end == REP_EVENT_CAP)
            return ts_err_set(err, TS_ERR_INPUT,
                              "reliability: a simulated run reached the event cap of %llu "
                              "events per replication without finishing: failures, "
                              "preemptions, waits for repairs or checkpoint writes too slow to "
                              "complete between interruptions keep the job from progressing; "
                              "lower the failure rates, add spares, shorten repair_time or "
                              "raise the checkpoint bandwidths, or "
                              "raise the cap with the environment variable "
                              "TRAINSIM_MAX_EVENTS=N", (unsigned long long)events_max);
        out->interrupted = true;
        return ts_err_set(err, TS_ERR_RUNTIME, "run: interrupted");
    }

    // Reduce in index order, so the sums do not depend on the thread count.
    double *wall = samples ? samples : ts_xmalloc((size_t)n * sizeof *wall);
    double gpu_s[CAT_COUNT] = {0};
    for (int i = 0; i < n; i++) {
        wall[i] = stats[i].wall_s;
        out->failures_mean += stats[i].failures;
        out->preemptions_mean += stats[i].preemptions;
        out->checkpoints_mean += stats[i].checkpoints;
        out->hangs_mean += stats[i].hangs;
        out->slow_episodes_mean += stats[i].slow_episodes;
        out->planned_mean += stats[i].planned;
        out->rollbacks_mean += stats[i].rollbacks;
        out->evictions_mean += stats[i].evictions;
        out->correlated_mean += stats[i].correlated;
        out->nodes_replaced_mean += stats[i].nodes_replaced;
        for (int c = 0; c < CAT_COUNT; c++)
            gpu_s[c] += stats[i].gpu_s[c];
    }
    const struct ts_run_params *p = &out->params;
    out->replications = n;
    out->mean_s = ts_stats_mean(wall, (size_t)n);
    out->stderr_s = ts_stats_stddev(wall, (size_t)n) / sqrt((double)n);
    double *sorted = ts_xmalloc((size_t)n * sizeof *sorted);
    memcpy(sorted, wall, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
    out->p50_s = ts_stats_percentile_sorted(sorted, (size_t)n, 0.50);
    out->p90_s = ts_stats_percentile_sorted(sorted, (size_t)n, 0.90);
    out->p99_s = ts_stats_percentile_sorted(sorted, (size_t)n, 0.99);
    out->goodput = p->solve_s / out->mean_s;
    out->failures_mean /= n;
    out->preemptions_mean /= n;
    out->checkpoints_mean /= n;
    out->hangs_mean /= n;
    out->slow_episodes_mean /= n;
    out->planned_mean /= n;
    out->rollbacks_mean /= n;
    out->evictions_mean /= n;
    out->correlated_mean /= n;
    out->nodes_replaced_mean /= n;
    double to_h = 1.0 / (3600.0 * n);
    out->productive_gpu_h = gpu_s[CAT_PRODUCTIVE] * to_h;
    out->rework_gpu_h = gpu_s[CAT_REWORK] * to_h;
    out->checkpoint_gpu_h = gpu_s[CAT_CHECKPOINT] * to_h;
    out->restart_gpu_h = gpu_s[CAT_RESTART] * to_h;
    out->repair_wait_gpu_h = gpu_s[CAT_WAIT] * to_h;
    out->degraded_gpu_h = gpu_s[CAT_DEGRADED] * to_h;
    out->slow_node_gpu_h = gpu_s[CAT_SLOW] * to_h;
    out->spare_gpu_h = (double)in->rel.spares * in->gpus_per_node * out->mean_s / 3600.0;
    out->daly_mean_s = ts_run_daly_wall_time(p->job_mtbf_s, p->checkpoint_write_s, p->restart_s,
                                             p->checkpoint_interval_s, p->solve_s);
    free(sorted);
    if (!samples)
        free(wall);
    free(stats);
    free(m);
    return TS_OK;
}

void ts_run_timeline_free(struct ts_run_timeline *t)
{
    if (!t)
        return;
    free(t->spans);
    t->spans = NULL;
    t->len = t->cap = 0;
}
