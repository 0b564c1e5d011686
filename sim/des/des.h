/*
 * des: a deterministic discrete-event engine, shared by the iteration simulation (sim/step)
 * and the whole-run simulation (sim/run).
 *
 * Events are ordered by (time, priority, sequence number): earlier time first; at equal time
 * lower priority value first; at equal priority the event scheduled first runs first (FIFO).
 * So the order of execution never depends on heap layout, platform or thread count.
 *
 * The engine does not call back: the simulator pops events with ts_des_next() and dispatches
 * on the event's `kind` in its own loop (a switch), which keeps the hot loop free of
 * indirect calls. Events carry two 64-bit integer payloads for the simulator's use.
 *
 * Memory: the event pool and the heap are allocated once by ts_des_init with a capacity; the
 * event loop itself never allocates unless the capacity is exceeded, in which case the pool
 * grows by doubling (amortized, and counted in `grows` so benchmarks can check it stays 0).
 *
 * Resources:
 *   - struct ts_des_fifo: a server with `servers` parallel slots and a FIFO queue (a compute
 *     stream, a DP communication stream). Jobs have fixed durations.
 *   - struct ts_des_link: a shared link with processor sharing: concurrent flows split the
 *     bandwidth equally (a NIC shared by pipeline sends and gradient all-reduces). Each flow
 *     carries a byte count; completions are rescheduled (cancel + schedule) whenever a flow
 *     starts or ends. A latency is the caller's business: delay the start by it.
 *
 * Misuse is a bug and hits TS_ASSERT: scheduling in the past, a negative duration, NaN
 * times, cancelling a handle twice is allowed (returns false) but cancelling garbage is not.
 *
 * Thread safety: one struct ts_des per thread; no globals.
 */
#ifndef TS_DES_H
#define TS_DES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Handle of a scheduled event: pool slot in the low 32 bits, slot generation in the high 32
 * bits, so a stale handle (event already fired or cancelled) is recognised. 0 is never a
 * valid handle. */
typedef uint64_t ts_des_handle;

struct ts_des_event {
    double time;        // simulated time in seconds
    int32_t priority;   // lower runs first at equal time
    int32_t kind;       // simulator-defined event type
    uint64_t seq;       // scheduling order (FIFO tie-break), assigned by the engine
    int64_t a, b;       // simulator-defined payload
};

struct ts_des_slot;     // private: an event plus its heap position and generation

struct ts_des {
    double now;                 // time of the last event popped (0 at start)
    uint64_t next_seq;          // sequence number of the next scheduled event
    uint64_t popped;            // events popped so far (for events/s benchmarks)
    uint64_t grows;             // times the pool had to grow (0 when capacity was right)
    struct ts_des_slot *slots;  // event pool
    uint32_t *heap;             // binary min-heap of slot indices
    uint32_t heap_len;          // events pending
    uint32_t capacity;          // slots allocated
    uint32_t free_head;         // head of the free-slot list (UINT32_MAX when empty)
};

/* Allocate a pool for `capacity` pending events. Returns 0 on success, -1 on out of memory. */
int ts_des_init(struct ts_des *d, uint32_t capacity);

/* Forget all pending events and reset time to 0, keeping the allocation. */
void ts_des_reset(struct ts_des *d);

void ts_des_close(struct ts_des *d);

/* Schedule an event at absolute time `time` (>= now). Returns its handle. */
ts_des_handle ts_des_schedule(struct ts_des *d, double time, int32_t priority, int32_t kind,
                              int64_t a, int64_t b);

/* Schedule at now + delay (delay >= 0). */
ts_des_handle ts_des_schedule_in(struct ts_des *d, double delay, int32_t priority, int32_t kind,
                                 int64_t a, int64_t b);

/* Cancel a pending event. Returns true if it was pending, false if it already fired or was
 * already cancelled. */
bool ts_des_cancel(struct ts_des *d, ts_des_handle h);

/* Whether the handle's event is still pending. */
bool ts_des_pending(const struct ts_des *d, ts_des_handle h);

/* Pop the next event into *ev and advance `now` to its time. Returns false when no event is
 * pending. */
bool ts_des_next(struct ts_des *d, struct ts_des_event *ev);

/* Time of the next pending event, or +infinity when none. */
double ts_des_peek_time(const struct ts_des *d);

static inline double ts_des_now(const struct ts_des *d) { return d->now; }
static inline uint32_t ts_des_pending_count(const struct ts_des *d) { return d->heap_len; }

/* ---------------------------------------------------------------- FIFO server */

struct ts_des_fifo_job {
    int64_t id;                 // simulator's job id, returned in the completion event's `a`
    double duration;            // service time, seconds
};

struct ts_des_fifo {
    int servers;                // parallel service slots (1 = a stream)
    int busy;                   // slots in use
    int32_t done_kind;          // event kind scheduled when a job completes (a = job id, b = tag)
    int32_t priority;           // priority of completion events
    int64_t tag;                // copied into completion events' `b` (e.g. the stage index)
    struct ts_des_fifo_job *queue;  // ring buffer of waiting jobs
    uint32_t q_head, q_len, q_cap;
    double busy_time;           // total service time started (for utilisation reports)
};

/* Prepare a FIFO with `servers` slots and room for `queue_cap` waiting jobs (grows if
 * exceeded). Returns 0 or -1 on out of memory. */
int ts_des_fifo_init(struct ts_des_fifo *f, int servers, uint32_t queue_cap, int32_t done_kind,
                     int32_t priority, int64_t tag);
void ts_des_fifo_close(struct ts_des_fifo *f);

/* Submit a job: starts now if a slot is free (its completion event is scheduled at
 * now + duration), else waits in FIFO order. Returns true if it started immediately. */
bool ts_des_fifo_submit(struct ts_des *d, struct ts_des_fifo *f, int64_t id, double duration);

/* Call when a completion event of this FIFO is handled: frees the slot and starts the next
 * waiting job, if any. Returns true if another job started. */
bool ts_des_fifo_release(struct ts_des *d, struct ts_des_fifo *f);

/* ---------------------------------------------------------------- shared link */

#define TS_DES_LINK_FLOWS_MAX 16

struct ts_des_flow {
    int64_t id;                 // simulator's flow id (completion event's `a`)
    double bytes;               // total bytes of the flow, e.g. 1.6e9 (for bytes_sent)
    double remaining_bytes;     // bytes still to send (as of the link's last_update)
    ts_des_handle done;         // pending completion event
    bool active;
};

struct ts_des_link {
    double bandwidth;           // bytes/s shared equally by active flows
    int32_t done_kind;          // event kind of flow completions (a = flow id, b = tag)
    int32_t priority;
    int64_t tag;
    double last_update;         // time the flows' remaining bytes were last advanced
    int active;                 // flows in progress
    int used;                   // flows[used ..] are all inactive (loops stop at used)
    struct ts_des_flow flows[TS_DES_LINK_FLOWS_MAX];
    double bytes_sent;          // total bytes completed (for reports)
};

void ts_des_link_init(struct ts_des_link *l, double bandwidth, int32_t done_kind, int32_t priority,
                      int64_t tag);

/* Start a flow of `bytes` now. Bandwidth is shared equally among active flows; a zero-byte
 * flow completes at once (its event is still delivered). Asserts if more than
 * TS_DES_LINK_FLOWS_MAX flows are active. */
void ts_des_link_start(struct ts_des *d, struct ts_des_link *l, int64_t id, double bytes);

/* Call when a completion event of this link is handled (ev->a is the flow id): removes the
 * flow and reschedules the others at their new, larger share. */
void ts_des_link_finish(struct ts_des *d, struct ts_des_link *l, int64_t id);

#endif
