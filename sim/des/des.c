/*
 * des: the discrete-event engine behind sim/step and sim/run (the manual is des.h).
 *
 * Layout. Events live in a pool of slots; a binary min-heap holds slot indices ordered by
 * (time, priority, seq). Each slot records its position in the heap, so cancelling an
 * event removes it in O(log n), and a generation count, bumped whenever the slot is freed
 * (popped, cancelled, reset), so a handle (generation << 32 | slot) of an event that has
 * gone is recognised as stale. Free slots form a singly linked list threaded through the
 * same position field; a slot is pending exactly when heap[slot.heap_pos] == slot.
 *
 * Hot path. ts_des_schedule and ts_des_next touch only the pool and the heap: no allocation
 * (unless the pool is full), no calls through pointers. The sifts move a "hole" rather than
 * swapping, so each level costs one or two comparisons and one store; a pop refills the
 * root bottom-up (des_refill_root).
 *
 * Resources (FIFO server, processor-sharing link) are thin layers on top that schedule and
 * cancel completion events through the same public calls a simulator would use. A link's
 * loops over its flow slots stop at the highest slot in use (`used`): most links carry one
 * or two flows, and scanning all TS_DES_LINK_FLOWS_MAX slots four times per flow was 17% of
 * the iteration simulation's instructions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "des/des.h"
#include "util/util.h"

/* ---------------------------------------------------------------- pool and heap */

struct ts_des_slot {
    struct ts_des_event ev;     // the event (its seq makes the heap order total)
    uint32_t heap_pos;          // index in d->heap while pending; next free slot while free
    uint32_t gen;               // generation, >= 1; bumped when the slot is freed
};

#define DES_NONE UINT32_MAX                 // empty free list
#define DES_CAPACITY_MAX (UINT32_C(1) << 31)  // keeps slot indices below DES_NONE

/* Whether event x runs before event y: earlier time, then lower priority, then FIFO. */
static inline bool des_before(const struct ts_des_event *x, const struct ts_des_event *y)
{
    if (x->time != y->time)
        return x->time < y->time;
    if (x->priority != y->priority)
        return x->priority < y->priority;
    return x->seq < y->seq;
}

static inline ts_des_handle des_handle(uint32_t slot, uint32_t gen)
{
    return ((uint64_t)gen << 32) | slot;
}

/* Move slot s up from hole `pos` to its place and store it there. */
static inline void des_sift_up(struct ts_des *d, uint32_t pos, uint32_t s)
{
    struct ts_des_slot *slots = d->slots;
    uint32_t *heap = d->heap;
    const struct ts_des_event *ev = &slots[s].ev;
    while (pos > 0) {
        uint32_t parent = (pos - 1) / 2;
        uint32_t p = heap[parent];
        if (!des_before(ev, &slots[p].ev))
            break;
        heap[pos] = p;
        slots[p].heap_pos = pos;
        pos = parent;
    }
    heap[pos] = s;
    slots[s].heap_pos = pos;
}

/* Move slot s down from hole `pos` (heap_len already excludes the removed entry). */
static inline void des_sift_down(struct ts_des *d, uint32_t pos, uint32_t s)
{
    struct ts_des_slot *slots = d->slots;
    uint32_t *heap = d->heap;
    const struct ts_des_event *ev = &slots[s].ev;
    uint32_t n = d->heap_len;
    for (;;) {
        uint32_t child = 2 * pos + 1;
        if (child >= n)
            break;
        uint32_t c = heap[child];
        if (child + 1 < n) {
            uint32_t c2 = heap[child + 1];
            if (des_before(&slots[c2].ev, &slots[c].ev)) {
                child++;
                c = c2;
            }
        }
        if (!des_before(&slots[c].ev, ev))
            break;
        heap[pos] = c;
        slots[c].heap_pos = pos;
        pos = child;
    }
    heap[pos] = s;
    slots[s].heap_pos = pos;
}

/* Refill the root hole after a pop with slot s (the former last entry), bottom-up: walk the
 * hole down to a leaf along the smaller children (one comparison per level), then sift s up
 * from there. The last entry usually belongs near the bottom, so this beats a plain
 * sift-down's two comparisons per level (I. Wegener, "BOTTOM-UP-HEAPSORT", Theoretical
 * Computer Science 118, 1993); measured about 7% faster at 1000 pending events. */
static inline void des_refill_root(struct ts_des *d, uint32_t s)
{
    struct ts_des_slot *slots = d->slots;
    uint32_t *heap = d->heap;
    uint32_t n = d->heap_len;
    uint32_t pos = 0;
    for (;;) {
        uint32_t child = 2 * pos + 1;
        if (child >= n)
            break;
        uint32_t c = heap[child];
        if (child + 1 < n) {
            uint32_t c2 = heap[child + 1];
            if (des_before(&slots[c2].ev, &slots[c].ev)) {
                child++;
                c = c2;
            }
        }
        heap[pos] = c;
        slots[c].heap_pos = pos;
        pos = child;
    }
    des_sift_up(d, pos, s);
}

/* Return slot s to the free list; its generation moves on so old handles go stale. */
static inline void des_slot_free(struct ts_des *d, uint32_t s)
{
    struct ts_des_slot *slot = &d->slots[s];
    slot->gen = slot->gen == UINT32_MAX ? 1 : slot->gen + 1;
    slot->heap_pos = d->free_head;
    d->free_head = s;
}

/* Thread slots [from, to) onto the front of the free list in ascending order. */
static void des_free_list_push_range(struct ts_des *d, uint32_t from, uint32_t to)
{
    for (uint32_t s = to; s-- > from;) {
        d->slots[s].heap_pos = d->free_head;
        d->free_head = s;
    }
}

/* Double the pool and the heap (the rare path of ts_des_schedule). Aborts on out of memory,
 * since the caller has no error path mid-simulation. */
static void des_grow(struct ts_des *d)
{
    TS_ASSERT(d->capacity <= DES_CAPACITY_MAX / 2, "des: event pool cannot grow past %u slots",
              (unsigned)DES_CAPACITY_MAX);
    uint32_t old = d->capacity;
    uint32_t cap = old > 0 ? old * 2 : 16;   // 0 only after ts_des_close
    d->slots = ts_xrealloc(d->slots, (size_t)cap * sizeof *d->slots);
    d->heap = ts_xrealloc(d->heap, (size_t)cap * sizeof *d->heap);
    for (uint32_t s = old; s < cap; s++)
        d->slots[s].gen = 1;
    des_free_list_push_range(d, old, cap);
    d->capacity = cap;
    d->grows++;
}

/* Slot index of a handle that must name a slot of this pool (0 means "no event" and is
 * handled by the callers). Garbage, which no call ever returned, is a bug. */
static inline uint32_t des_handle_slot(const struct ts_des *d, ts_des_handle h)
{
    uint32_t s = (uint32_t)h;
    TS_ASSERT(s < d->capacity && (h >> 32) != 0,
              "des: handle %#llx was never returned by ts_des_schedule (pool has %u slots)",
              (unsigned long long)h, (unsigned)d->capacity);
    return s;
}

/* Whether slot s is in the heap (a free slot's heap_pos is a free-list link instead). */
static inline bool des_slot_in_heap(const struct ts_des *d, uint32_t s)
{
    uint32_t pos = d->slots[s].heap_pos;
    return pos < d->heap_len && d->heap[pos] == s;
}

/* ---------------------------------------------------------------- engine */

int ts_des_init(struct ts_des *d, uint32_t capacity)
{
    memset(d, 0, sizeof *d);
    d->free_head = DES_NONE;
    TS_ASSERT(capacity <= DES_CAPACITY_MAX, "des: capacity %u exceeds the maximum %u",
              (unsigned)capacity, (unsigned)DES_CAPACITY_MAX);
    if (capacity == 0)
        capacity = 1;
    d->slots = malloc((size_t)capacity * sizeof *d->slots);
    d->heap = malloc((size_t)capacity * sizeof *d->heap);
    if (!d->slots || !d->heap) {
        free(d->heap);
        free(d->slots);
        d->slots = NULL;
        d->heap = NULL;
        return -1;
    }
    d->capacity = capacity;
    for (uint32_t s = 0; s < capacity; s++)
        d->slots[s].gen = 1;
    des_free_list_push_range(d, 0, capacity);
    return 0;
}

void ts_des_reset(struct ts_des *d)
{
    // Pending events' slots move to a new generation so their handles go stale.
    for (uint32_t i = 0; i < d->heap_len; i++) {
        struct ts_des_slot *slot = &d->slots[d->heap[i]];
        slot->gen = slot->gen == UINT32_MAX ? 1 : slot->gen + 1;
    }
    d->heap_len = 0;
    d->free_head = DES_NONE;
    des_free_list_push_range(d, 0, d->capacity);
    d->now = 0.0;
    d->next_seq = 0;
    d->popped = 0;
    // `grows` describes the allocation, which is kept, so it is kept too.
}

void ts_des_close(struct ts_des *d)
{
    free(d->heap);
    free(d->slots);
    memset(d, 0, sizeof *d);
    d->free_head = DES_NONE;
}

ts_des_handle ts_des_schedule(struct ts_des *d, double time, int32_t priority, int32_t kind,
                              int64_t a, int64_t b)
{
    TS_ASSERT(isfinite(time), "des: event time %g (kind %d) is not finite", time, (int)kind);
    if (time < d->now) {
        // Sums of durations may land a rounding error before now; anything more is a bug.
        TS_ASSERT(time >= d->now - 1e-12 * fmax(1.0, fabs(d->now)),
                  "des: event of kind %d scheduled at t=%.17g, before now=%.17g", (int)kind,
                  time, d->now);
        time = d->now;
    }
    if (d->free_head == DES_NONE)
        des_grow(d);
    uint32_t s = d->free_head;
    struct ts_des_slot *slot = &d->slots[s];
    d->free_head = slot->heap_pos;
    slot->ev.time = time;
    slot->ev.priority = priority;
    slot->ev.kind = kind;
    slot->ev.seq = d->next_seq++;
    slot->ev.a = a;
    slot->ev.b = b;
    des_sift_up(d, d->heap_len++, s);
    return des_handle(s, slot->gen);
}

ts_des_handle ts_des_schedule_in(struct ts_des *d, double delay, int32_t priority, int32_t kind,
                                 int64_t a, int64_t b)
{
    TS_ASSERT(delay >= 0.0 && isfinite(delay),
              "des: delay %g of an event of kind %d must be finite and >= 0", delay, (int)kind);
    return ts_des_schedule(d, d->now + delay, priority, kind, a, b);
}

bool ts_des_cancel(struct ts_des *d, ts_des_handle h)
{
    if (h == 0)
        return false;
    uint32_t s = des_handle_slot(d, h);
    if (d->slots[s].gen != (uint32_t)(h >> 32))
        return false;   // fired or cancelled already
    TS_ASSERT(des_slot_in_heap(d, s), "des: handle %#llx names a free slot: never scheduled",
              (unsigned long long)h);
    uint32_t pos = d->slots[s].heap_pos;
    uint32_t last = d->heap[--d->heap_len];
    if (last != s) {
        // The last entry fills the hole; it may belong above or below it.
        if (pos > 0 && des_before(&d->slots[last].ev, &d->slots[d->heap[(pos - 1) / 2]].ev))
            des_sift_up(d, pos, last);
        else
            des_sift_down(d, pos, last);
    }
    des_slot_free(d, s);
    return true;
}

bool ts_des_pending(const struct ts_des *d, ts_des_handle h)
{
    if (h == 0)
        return false;
    uint32_t s = des_handle_slot(d, h);
    return d->slots[s].gen == (uint32_t)(h >> 32) && des_slot_in_heap(d, s);
}

bool ts_des_next(struct ts_des *d, struct ts_des_event *ev)
{
    if (d->heap_len == 0)
        return false;
    uint32_t s = d->heap[0];
    *ev = d->slots[s].ev;
    d->now = ev->time;
    d->popped++;
    uint32_t last = d->heap[--d->heap_len];
    if (d->heap_len > 0)
        des_refill_root(d, last);
    des_slot_free(d, s);
    return true;
}

double ts_des_peek_time(const struct ts_des *d)
{
    return d->heap_len > 0 ? d->slots[d->heap[0]].ev.time : HUGE_VAL;
}

/* ---------------------------------------------------------------- FIFO server */

int ts_des_fifo_init(struct ts_des_fifo *f, int servers, uint32_t queue_cap, int32_t done_kind,
                     int32_t priority, int64_t tag)
{
    TS_ASSERT(servers >= 1, "des: a FIFO needs at least one server, got %d", servers);
    memset(f, 0, sizeof *f);
    if (queue_cap == 0)
        queue_cap = 1;
    f->queue = malloc((size_t)queue_cap * sizeof *f->queue);
    if (!f->queue)
        return -1;
    f->servers = servers;
    f->done_kind = done_kind;
    f->priority = priority;
    f->tag = tag;
    f->q_cap = queue_cap;
    return 0;
}

void ts_des_fifo_close(struct ts_des_fifo *f)
{
    free(f->queue);
    memset(f, 0, sizeof *f);
}

/* Occupy a server with a job and schedule its completion. */
static void des_fifo_start(struct ts_des *d, struct ts_des_fifo *f, int64_t id, double duration)
{
    f->busy++;
    f->busy_time += duration;
    ts_des_schedule_in(d, duration, f->priority, f->done_kind, id, f->tag);
}

/* Double the ring buffer, unrolling it so the oldest job lands at index 0. */
static void des_fifo_grow(struct ts_des_fifo *f)
{
    TS_ASSERT(f->q_cap <= UINT32_MAX / 2, "des: FIFO queue cannot grow past %u jobs",
              (unsigned)f->q_cap);
    uint32_t cap = f->q_cap * 2;
    struct ts_des_fifo_job *q = ts_xmalloc((size_t)cap * sizeof *q);
    for (uint32_t i = 0; i < f->q_len; i++)
        q[i] = f->queue[(f->q_head + i) % f->q_cap];
    free(f->queue);
    f->queue = q;
    f->q_head = 0;
    f->q_cap = cap;
}

bool ts_des_fifo_submit(struct ts_des *d, struct ts_des_fifo *f, int64_t id, double duration)
{
    TS_ASSERT(duration >= 0.0 && isfinite(duration),
              "des: job %lld (FIFO tag %lld) has duration %g; it must be finite and >= 0",
              (long long)id, (long long)f->tag, duration);
    if (f->busy < f->servers) {
        des_fifo_start(d, f, id, duration);
        return true;
    }
    if (f->q_len == f->q_cap)
        des_fifo_grow(f);
    f->queue[(f->q_head + f->q_len) % f->q_cap] = (struct ts_des_fifo_job){id, duration};
    f->q_len++;
    return false;
}

bool ts_des_fifo_release(struct ts_des *d, struct ts_des_fifo *f)
{
    TS_ASSERT(f->busy > 0, "des: release of FIFO tag %lld with no job in service",
              (long long)f->tag);
    f->busy--;
    if (f->q_len == 0)
        return false;
    struct ts_des_fifo_job job = f->queue[f->q_head];
    f->q_head = (f->q_head + 1) % f->q_cap;
    f->q_len--;
    des_fifo_start(d, f, job.id, job.duration);
    return true;
}

/* ---------------------------------------------------------------- shared link */

void ts_des_link_init(struct ts_des_link *l, double bandwidth, int32_t done_kind, int32_t priority,
                      int64_t tag)
{
    TS_ASSERT(bandwidth > 0.0 && isfinite(bandwidth),
              "des: link tag %lld has bandwidth %g B/s; it must be finite and > 0",
              (long long)tag, bandwidth);
    memset(l, 0, sizeof *l);
    l->bandwidth = bandwidth;
    l->done_kind = done_kind;
    l->priority = priority;
    l->tag = tag;
}

/* Bring every active flow's remaining bytes up to now: each got bandwidth / active since the
 * last change (processor sharing: L. Kleinrock, "Time-shared systems: a theoretical
 * treatment", J. ACM 14(2), 1967). */
static void des_link_advance(const struct ts_des *d, struct ts_des_link *l)
{
    double dt = d->now - l->last_update;
    if (l->active > 0 && dt > 0.0) {
        double sent = dt * l->bandwidth / l->active;
        for (int i = 0; i < l->used; i++) {
            struct ts_des_flow *f = &l->flows[i];
            if (f->active)
                f->remaining_bytes = f->remaining_bytes > sent ? f->remaining_bytes - sent : 0.0;
        }
    }
    l->last_update = d->now;
}

/* Reschedule every active flow's completion at its current share. A flow whose completion
 * has already fired (handled at this instant, finish not yet called) keeps no event. */
static void des_link_reschedule(struct ts_des *d, struct ts_des_link *l)
{
    if (l->active == 0)
        return;
    double share = l->bandwidth / l->active;
    for (int i = 0; i < l->used; i++) {
        struct ts_des_flow *f = &l->flows[i];
        if (!f->active)
            continue;
        if (f->done != 0 && !ts_des_cancel(d, f->done))
            continue;   // fired already (a new flow has done == 0), awaiting finish
        f->done = ts_des_schedule(d, d->now + f->remaining_bytes / share, l->priority,
                                  l->done_kind, f->id, l->tag);
    }
}

/* Index of the active flow with this id, or -1. */
static int des_link_find(const struct ts_des_link *l, int64_t id)
{
    for (int i = 0; i < l->used; i++)
        if (l->flows[i].active && l->flows[i].id == id)
            return i;
    return -1;
}

void ts_des_link_start(struct ts_des *d, struct ts_des_link *l, int64_t id, double bytes)
{
    TS_ASSERT(bytes >= 0.0 && isfinite(bytes),
              "des: flow %lld on link tag %lld has %g bytes; it must be finite and >= 0",
              (long long)id, (long long)l->tag, bytes);
    TS_ASSERT(l->active < TS_DES_LINK_FLOWS_MAX,
              "des: link tag %lld already carries %d flows (TS_DES_LINK_FLOWS_MAX)",
              (long long)l->tag, l->active);
    TS_ASSERT(des_link_find(l, id) < 0, "des: flow id %lld is already active on link tag %lld",
              (long long)id, (long long)l->tag);
    des_link_advance(d, l);
    int i = 0;
    while (l->flows[i].active)
        i++;
    l->flows[i] = (struct ts_des_flow){
        .id = id, .bytes = bytes, .remaining_bytes = bytes, .done = 0, .active = true};
    if (i >= l->used)
        l->used = i + 1;
    l->active++;
    des_link_reschedule(d, l);
}

void ts_des_link_finish(struct ts_des *d, struct ts_des_link *l, int64_t id)
{
    int i = des_link_find(l, id);
    TS_ASSERT(i >= 0, "des: finish of flow id %lld, which is not active on link tag %lld",
              (long long)id, (long long)l->tag);
    des_link_advance(d, l);
    struct ts_des_flow *f = &l->flows[i];
    // A flow finished before its completion fired is an abort: count what was sent.
    if (ts_des_cancel(d, f->done))
        l->bytes_sent += f->bytes - f->remaining_bytes;
    else
        l->bytes_sent += f->bytes;
    f->active = false;
    f->done = 0;
    l->active--;
    while (l->used > 0 && !l->flows[l->used - 1].active)
        l->used--;
    des_link_reschedule(d, l);
}
