/*
 * Tests of the discrete-event engine (sim/des): event order (time, priority, FIFO),
 * cancellation and handles, growth, a large random run checked against brute-force
 * references, the FIFO server and the processor-sharing link against hand-computed times,
 * and the assertions that catch misuse (run in a child process, which must abort).
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_helpers.h"

#include "des/des.h"

/* ---------------------------------------------------------------- helpers */

/* SplitMix64: a small fixed-seed generator, so every run sees the same schedule. */
static uint64_t test_rng_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint32_t test_rng_below(uint64_t *state, uint32_t n)
{
    return (uint32_t)(test_rng_next(state) % n);
}

/* Pop every pending event and store its payload `a` in out (at most cap); returns the count. */
static size_t drain_payloads(struct ts_des *d, int64_t *out, size_t cap)
{
    struct ts_des_event ev;
    size_t n = 0;
    while (ts_des_next(d, &ev)) {
        assert_true(n < cap);
        out[n++] = ev.a;
    }
    return n;
}

/* Run fn in a child process with stderr silenced; the test passes if the child aborts. */
static void assert_aborts(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(3);
        fn();
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

/* ---------------------------------------------------------------- ordering */

static void events_pop_in_time_order(void **state)
{
    (void)state;
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, 16), 0);
    const double times[] = {5.0, 1.0, 3.0, 0.5, 4.0, 2.0};
    for (int i = 0; i < 6; i++)
        ts_des_schedule(&d, times[i], 0, 7, i, -i);
    assert_int_equal(ts_des_pending_count(&d), 6);
    assert_close(ts_des_peek_time(&d), 0.5, 0, 0);

    const int64_t expected[] = {3, 1, 5, 2, 4, 0};
    struct ts_des_event ev;
    for (int i = 0; i < 6; i++) {
        assert_true(ts_des_next(&d, &ev));
        assert_int_equal(ev.a, expected[i]);
        assert_int_equal(ev.b, -expected[i]);
        assert_int_equal(ev.kind, 7);
        assert_close(ev.time, times[expected[i]], 0, 0);
        assert_close(ts_des_now(&d), ev.time, 0, 0);
    }
    assert_false(ts_des_next(&d, &ev));
    assert_int_equal(d.popped, 6);
    ts_des_close(&d);
}

static void events_at_equal_time_run_lower_priority_first(void **state)
{
    (void)state;
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, 16), 0);
    ts_des_schedule(&d, 1.0, 2, 0, 0, 0);
    ts_des_schedule(&d, 1.0, -1, 0, 1, 0);
    ts_des_schedule(&d, 1.0, 0, 0, 2, 0);
    ts_des_schedule(&d, 0.5, 9, 0, 3, 0);   // earlier time beats any priority
    int64_t order[8];
    assert_int_equal(drain_payloads(&d, order, 8), 4);
    assert_int_equal(order[0], 3);
    assert_int_equal(order[1], 1);
    assert_int_equal(order[2], 2);
    assert_int_equal(order[3], 0);
    ts_des_close(&d);
}

static void events_at_equal_time_and_priority_run_in_fifo_order(void **state)
{
    (void)state;
    enum { N = 3000 };
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, 64), 0);
    // Tied events interleaved with others that sort before and after them, so the heap
    // shuffles them about.
    for (int i = 0; i < N; i++) {
        ts_des_schedule(&d, 5.0, 1, 0, i, 0);
        ts_des_schedule(&d, 9.0 - (i % 7), 0, 1, -1, 0);
        ts_des_schedule(&d, 5.0, 2, 1, -1, 0);
    }
    struct ts_des_event ev;
    int64_t next = 0;
    uint64_t last_seq = 0;
    while (ts_des_next(&d, &ev)) {
        if (ev.kind != 0)
            continue;
        assert_int_equal(ev.a, next);
        if (next > 0)
            assert_true(ev.seq > last_seq);
        last_seq = ev.seq;
        next++;
    }
    assert_int_equal(next, N);
    ts_des_close(&d);
}

static void an_empty_engine_pops_nothing_and_peeks_infinity(void **state)
{
    (void)state;
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, 0), 0);
    struct ts_des_event ev;
    assert_false(ts_des_next(&d, &ev));
    assert_true(isinf(ts_des_peek_time(&d)) && ts_des_peek_time(&d) > 0);
    assert_int_equal(ts_des_pending_count(&d), 0);
    assert_close(ts_des_now(&d), 0.0, 0, 0);
    ts_des_close(&d);
}

static void schedule_in_is_relative_to_now(void **state)
{
    (void)state;
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, 8), 0);
    ts_des_schedule(&d, 2.5, 0, 0, 0, 0);
    struct ts_des_event ev;
    assert_true(ts_des_next(&d, &ev));
    ts_des_schedule_in(&d, 1.25, 0, 0, 1, 0);
    ts_des_schedule_in(&d, 0.0, 0, 0, 2, 0);
    assert_true(ts_des_next(&d, &ev));
    assert_int_equal(ev.a, 2);
    assert_close(ev.time, 2.5, 0, 0);
    assert_true(ts_des_next(&d, &ev));
    assert_int_equal(ev.a, 1);
    assert_close(ev.time, 3.75, 0, 0);
    ts_des_close(&d);
}

static void a_time_a_rounding_error_before_now_is_clamped_to_now(void **state)
{
    (void)state;
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, 8), 0);
    ts_des_schedule(&d, 0.3, 0, 0, 0, 0);
    struct ts_des_event ev;
    assert_true(ts_des_next(&d, &ev));
    ts_des_schedule(&d, 0.3 * (1.0 - 1e-13), 0, 0, 1, 0);   // 3e-14 s early: rounding
    assert_true(ts_des_next(&d, &ev));
    assert_int_equal(ev.a, 1);
    assert_close(ev.time, 0.3, 0, 0);
    assert_close(ts_des_now(&d), 0.3, 0, 0);
    ts_des_close(&d);
}

/* ---------------------------------------------------------------- cancellation and handles */

static void cancelled_events_never_pop(void **state)
{
    (void)state;
    enum { N = 100 };
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, N), 0);
    ts_des_handle h[N];
    for (int i = 0; i < N; i++)
        h[i] = ts_des_schedule(&d, (double)((i * 37) % N), 0, 0, i, 0);
    for (int i = 0; i < N; i += 3)
        assert_true(ts_des_cancel(&d, h[i]));
    assert_int_equal(ts_des_pending_count(&d), N - (N + 2) / 3);

    struct ts_des_event ev;
    double last = -1.0;
    int popped = 0;
    while (ts_des_next(&d, &ev)) {
        assert_true(ev.a % 3 != 0);
        assert_true(ev.time >= last);
        last = ev.time;
        popped++;
    }
    assert_int_equal(popped, N - (N + 2) / 3);
    ts_des_close(&d);
}

static void cancel_returns_false_for_fired_or_cancelled_handles(void **state)
{
    (void)state;
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, 4), 0);
    ts_des_handle fired = ts_des_schedule(&d, 1.0, 0, 0, 0, 0);
    ts_des_handle cancelled = ts_des_schedule(&d, 2.0, 0, 0, 1, 0);
    ts_des_handle kept = ts_des_schedule(&d, 3.0, 0, 0, 2, 0);
    assert_true(fired != 0 && cancelled != 0 && kept != 0);
    assert_true(ts_des_pending(&d, fired));

    struct ts_des_event ev;
    assert_true(ts_des_next(&d, &ev));
    assert_int_equal(ev.a, 0);
    assert_false(ts_des_pending(&d, fired));
    assert_false(ts_des_cancel(&d, fired));

    assert_true(ts_des_cancel(&d, cancelled));
    assert_false(ts_des_pending(&d, cancelled));
    assert_false(ts_des_cancel(&d, cancelled));
    assert_false(ts_des_cancel(&d, 0));

    assert_true(ts_des_pending(&d, kept));
    assert_true(ts_des_next(&d, &ev));
    assert_int_equal(ev.a, 2);
    assert_false(ts_des_next(&d, &ev));
    ts_des_close(&d);
}

static void stale_handles_are_not_pending_after_their_slot_is_reused(void **state)
{
    (void)state;
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, 1), 0);
    ts_des_handle old = ts_des_schedule(&d, 1.0, 0, 0, 0, 0);
    assert_true(ts_des_cancel(&d, old));
    ts_des_handle reused = ts_des_schedule(&d, 1.0, 0, 0, 1, 0);
    // Same slot (the pool has one), new generation.
    assert_int_equal((uint32_t)reused, (uint32_t)old);
    assert_true(reused != old);
    assert_false(ts_des_pending(&d, old));
    assert_false(ts_des_cancel(&d, old));
    assert_true(ts_des_pending(&d, reused));
    assert_int_equal(d.grows, 0);
    struct ts_des_event ev;
    assert_true(ts_des_next(&d, &ev));
    assert_int_equal(ev.a, 1);
    assert_false(ts_des_pending(&d, reused));
    assert_false(ts_des_pending(&d, 0));
    ts_des_close(&d);
}

static void cancelling_the_root_or_a_middle_event_keeps_the_heap_in_order(void **state)
{
    (void)state;
    enum { N = 64 };
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, N), 0);
    ts_des_handle h[N];
    for (int i = 0; i < N; i++)
        h[i] = ts_des_schedule(&d, (double)i, 0, 0, i, 0);
    assert_true(ts_des_cancel(&d, h[0]));       // the root
    assert_true(ts_des_cancel(&d, h[N - 1]));   // the last leaf
    assert_true(ts_des_cancel(&d, h[20]));      // somewhere inside
    assert_close(ts_des_peek_time(&d), 1.0, 0, 0);
    int64_t order[N];
    size_t n = drain_payloads(&d, order, N);
    assert_int_equal(n, N - 3);
    int64_t want = 1;
    for (size_t i = 0; i < n; i++, want++) {
        if (want == 20)
            want++;
        assert_int_equal(order[i], want);
    }
    ts_des_close(&d);
}

/* ---------------------------------------------------------------- reset and growth */

static void reset_forgets_pending_events_and_time(void **state)
{
    (void)state;
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, 8), 0);
    ts_des_schedule(&d, 1.0, 0, 0, 0, 0);
    ts_des_handle h = ts_des_schedule(&d, 2.0, 0, 0, 1, 0);
    struct ts_des_event ev;
    assert_true(ts_des_next(&d, &ev));
    ts_des_reset(&d);
    assert_int_equal(ts_des_pending_count(&d), 0);
    assert_close(ts_des_now(&d), 0.0, 0, 0);
    assert_false(ts_des_pending(&d, h));
    assert_false(ts_des_cancel(&d, h));
    assert_false(ts_des_next(&d, &ev));
    assert_int_equal(d.capacity, 8);

    // Usable again from time 0, with fresh sequence numbers.
    ts_des_schedule(&d, 0.5, 0, 0, 5, 0);
    assert_true(ts_des_next(&d, &ev));
    assert_int_equal(ev.a, 5);
    assert_int_equal(ev.seq, 0);
    assert_close(ev.time, 0.5, 0, 0);
    ts_des_close(&d);
}

static void growth_beyond_capacity_keeps_order_and_counts_grows(void **state)
{
    (void)state;
    enum { N = 1000 };
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, 4), 0);
    ts_des_handle h[N];
    for (int i = 0; i < N; i++)
        h[i] = ts_des_schedule(&d, (double)((i * 7919) % N), 0, 0, (i * 7919) % N, 0);
    assert_int_equal(d.grows, 8);   // 4 -> 8 -> ... -> 1024
    assert_int_equal(d.capacity, 1024);
    for (int i = 0; i < N; i++)
        assert_true(ts_des_pending(&d, h[i]));
    int64_t order[N];
    assert_int_equal(drain_payloads(&d, order, N), N);
    for (int i = 0; i < N; i++)
        assert_int_equal(order[i], i);
    ts_des_close(&d);
}

static void a_pool_of_the_right_capacity_never_grows(void **state)
{
    (void)state;
    enum { N = 256 };
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, N), 0);
    uint64_t rng = 7;
    for (int i = 0; i < N; i++)
        ts_des_schedule(&d, (double)test_rng_below(&rng, 100), 0, 0, i, 0);
    struct ts_des_event ev;
    for (int i = 0; i < 100000; i++) {   // steady state: pop one, schedule one
        assert_true(ts_des_next(&d, &ev));
        ts_des_schedule_in(&d, (double)test_rng_below(&rng, 100), 0, 0, i, 0);
    }
    assert_int_equal(d.grows, 0);
    assert_int_equal(d.popped, 100000);
    assert_int_equal(ts_des_pending_count(&d), N);
    ts_des_close(&d);
}

/* ---------------------------------------------------------------- random runs vs references */

struct ref_event {
    double time;
    int32_t priority;
    uint64_t seq;
    ts_des_handle handle;
    bool fired, cancelled;
};

/* qsort order of record indices by (time, priority, seq), the engine's documented order. */
static const struct ref_event *ref_sort_base;

static int ref_compare(const void *pa, const void *pb)
{
    const struct ref_event *x = &ref_sort_base[*(const int64_t *)pa];
    const struct ref_event *y = &ref_sort_base[*(const int64_t *)pb];
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->priority != y->priority)
        return x->priority < y->priority ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int64_t ref_schedule(struct ts_des *d, struct ref_event *recs, int64_t *n, double time,
                            int32_t priority)
{
    int64_t id = (*n)++;
    recs[id] = (struct ref_event){.time = time, .priority = priority, .seq = (uint64_t)id};
    recs[id].handle = ts_des_schedule(d, time, priority, 0, id, 0);
    return id;
}

/* Cancel a random record and check the engine agrees on whether it was pending. */
static void ref_cancel_random(struct ts_des *d, struct ref_event *recs, int64_t n, uint64_t *rng)
{
    int64_t victim = (int64_t)test_rng_below(rng, (uint32_t)n);
    bool pending = !recs[victim].fired && !recs[victim].cancelled;
    assert_int_equal(ts_des_pending(d, recs[victim].handle), pending);
    assert_int_equal(ts_des_cancel(d, recs[victim].handle), pending);
    if (pending)
        recs[victim].cancelled = true;
}

/* 200000 events with many ties, random cancellations, and events that schedule further
 * events. Children never sort before their parent (a zero delay keeps at least the parent's
 * priority), so the popped sequence must be exactly the sorted list of all events that were
 * not cancelled. */
static void a_large_random_run_pops_in_the_order_of_a_sorted_reference(void **state)
{
    (void)state;
    enum { TOTAL = 200000, INITIAL = 100000 };
    struct ref_event *recs = ts_xcalloc(TOTAL, sizeof *recs);
    int64_t *popped = ts_xmalloc(TOTAL * sizeof *popped);
    int64_t *expected = ts_xmalloc(TOTAL * sizeof *expected);
    uint64_t rng = 12345;
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, 1000), 0);

    int64_t n = 0;
    for (int i = 0; i < INITIAL; i++)
        ref_schedule(&d, recs, &n, 0.5 * test_rng_below(&rng, 2000),
                     (int32_t)test_rng_below(&rng, 4));
    for (int i = 0; i < INITIAL / 10; i++)
        ref_cancel_random(&d, recs, n, &rng);

    struct ts_des_event ev;
    int64_t npopped = 0;
    while (ts_des_next(&d, &ev)) {
        struct ref_event *r = &recs[ev.a];
        assert_false(r->fired || r->cancelled);
        assert_int_equal(ev.seq, r->seq);
        assert_true(ev.time == r->time && ev.priority == r->priority);
        r->fired = true;
        popped[npopped++] = ev.a;
        if (n < TOTAL && test_rng_below(&rng, 4) != 0) {
            uint32_t delay = test_rng_below(&rng, 20);
            int32_t prio = delay == 0 ? ev.priority + (int32_t)test_rng_below(&rng, 3)
                                      : (int32_t)test_rng_below(&rng, 4);
            ref_schedule(&d, recs, &n, ev.time + 0.5 * delay, prio);
        }
        if (test_rng_below(&rng, 8) == 0)
            ref_cancel_random(&d, recs, n, &rng);
    }
    assert_int_equal(n, TOTAL);
    assert_true(d.grows > 0);

    int64_t nexpected = 0;
    for (int64_t i = 0; i < n; i++)
        if (!recs[i].cancelled)
            expected[nexpected++] = i;
    ref_sort_base = recs;
    qsort(expected, (size_t)nexpected, sizeof *expected, ref_compare);
    assert_int_equal(npopped, nexpected);
    for (int64_t i = 0; i < npopped; i++)
        if (popped[i] != expected[i])
            fail_msg("position %lld: popped event %lld, reference expects %lld", (long long)i,
                     (long long)popped[i], (long long)expected[i]);

    ts_des_close(&d);
    free(expected);
    free(popped);
    free(recs);
}

/* A smaller run with no constraint on children (zero delays with any priority, so a child
 * may sort before its already-popped parent), checked pop by pop against a linear scan for
 * the minimum over all pending records. */
static void a_random_run_matches_a_linear_scan_reference_pop_by_pop(void **state)
{
    (void)state;
    enum { TOTAL = 5000, INITIAL = 1500 };
    struct ref_event *recs = ts_xcalloc(TOTAL, sizeof *recs);
    ref_sort_base = recs;
    uint64_t rng = 987654321;
    struct ts_des d;
    assert_int_equal(ts_des_init(&d, 16), 0);

    int64_t n = 0;
    for (int i = 0; i < INITIAL; i++)
        ref_schedule(&d, recs, &n, 0.25 * test_rng_below(&rng, 400),
                     (int32_t)test_rng_below(&rng, 5) - 2);

    struct ts_des_event ev;
    for (;;) {
        int64_t best = -1;
        uint32_t live = 0;
        for (int64_t i = 0; i < n; i++) {
            if (recs[i].fired || recs[i].cancelled)
                continue;
            live++;
            if (best < 0 || ref_compare(&i, &best) < 0)
                best = i;
        }
        assert_int_equal(ts_des_pending_count(&d), live);
        if (best < 0) {
            assert_false(ts_des_next(&d, &ev));
            break;
        }
        assert_close(ts_des_peek_time(&d), recs[best].time, 0, 0);
        assert_true(ts_des_next(&d, &ev));
        assert_int_equal(ev.a, best);
        assert_close(ts_des_now(&d), recs[best].time, 0, 0);
        recs[best].fired = true;
        uint32_t children = test_rng_below(&rng, 3);
        for (uint32_t c = 0; c < children && n < TOTAL; c++)
            ref_schedule(&d, recs, &n, ev.time + 0.25 * test_rng_below(&rng, 4),
                         (int32_t)test_rng_below(&rng, 5) - 2);
        if (test_rng_below(&rng, 3) == 0)
            ref_cancel_random(&d, recs, n, &rng);
    }
    assert_int_equal(n, TOTAL);
    ts_des_close(&d);
    free(recs);
}

/* ---------------------------------------------------------------- FIFO server */

enum { KIND_JOB_DONE = 11, KIND_FLOW_DONE = 12, KIND_START_FLOW = 13 };

/* Run a FIFO to completion, recording each completion's job id and time in order. */
static int run_fifo(struct ts_des *d, struct ts_des_fifo *f, int64_t *ids, double *times, int cap)
{
    struct ts_des_event ev;
    int n = 0;
    while (ts_des_next(d, &ev)) {
        switch (ev.kind) {
        case KIND_JOB_DONE:
            assert_true(n < cap);
            assert_int_equal(ev.b, f->tag);
            assert_int_equal(ev.priority, f->priority);
            ids[n] = ev.a;
            times[n] = ev.time;
            n++;
            ts_des_fifo_release(d, f);
            break;
        default:
            fail_msg("unexpected event kind %d", ev.kind);
        }
    }
    return n;
}

static void a_single_server_fifo_runs_jobs_back_to_back(void **state)
{
    (void)state;
    struct ts_des d;
    struct ts_des_fifo f;
    assert_int_equal(ts_des_init(&d, 8), 0);
    assert_int_equal(ts_des_fifo_init(&f, 1, 4, KIND_JOB_DONE, 3, 42), 0);
    assert_true(ts_des_fifo_submit(&d, &f, 100, 3.0));
    assert_false(ts_des_fifo_submit(&d, &f, 101, 1.0));
    assert_false(ts_des_fifo_submit(&d, &f, 102, 2.0));
    assert_int_equal(f.busy, 1);
    assert_int_equal(f.q_len, 2);

    int64_t ids[8];
    double times[8];
    assert_int_equal(run_fifo(&d, &f, ids, times, 8), 3);
    assert_int_equal(ids[0], 100);
    assert_int_equal(ids[1], 101);
    assert_int_equal(ids[2], 102);
    assert_close(times[0], 3.0, 1e-15, 0);
    assert_close(times[1], 4.0, 1e-15, 0);
    assert_close(times[2], 6.0, 1e-15, 0);
    assert_close(f.busy_time, 6.0, 1e-15, 0);
    assert_int_equal(f.busy, 0);
    assert_int_equal(f.q_len, 0);
    ts_des_fifo_close(&f);
    ts_des_close(&d);
}

static void a_two_server_fifo_runs_two_jobs_at_once(void **state)
{
    (void)state;
    struct ts_des d;
    struct ts_des_fifo f;
    assert_int_equal(ts_des_init(&d, 8), 0);
    assert_int_equal(ts_des_fifo_init(&f, 2, 4, KIND_JOB_DONE, 0, 7), 0);
    // Server A: job 0 [0, 3]; server B: job 1 [0, 1], job 2 [1, 3]; then job 3 starts when
    // job 0 (scheduled first, so released first at t = 3) frees A: [3, 5].
    assert_true(ts_des_fifo_submit(&d, &f, 0, 3.0));
    assert_true(ts_des_fifo_submit(&d, &f, 1, 1.0));
    assert_false(ts_des_fifo_submit(&d, &f, 2, 2.0));
    assert_false(ts_des_fifo_submit(&d, &f, 3, 2.0));

    int64_t ids[8];
    double times[8];
    assert_int_equal(run_fifo(&d, &f, ids, times, 8), 4);
    const int64_t want_ids[] = {1, 0, 2, 3};
    const double want_times[] = {1.0, 3.0, 3.0, 5.0};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(ids[i], want_ids[i]);
        assert_close(times[i], want_times[i], 1e-15, 0);
    }
    assert_close(f.busy_time, 8.0, 1e-15, 0);
    ts_des_fifo_close(&f);
    ts_des_close(&d);
}

static void a_fifo_queue_grows_past_its_capacity_and_keeps_order_across_wraparound(void **state)
{
    (void)state;
    enum { N = 40 };
    struct ts_des d;
    struct ts_des_fifo f;
    assert_int_equal(ts_des_init(&d, 8), 0);
    assert_int_equal(ts_des_fifo_init(&f, 1, 2, KIND_JOB_DONE, 0, 0), 0);
    // Job 0 runs, jobs 1 and 2 fill the ring; job 0's release moves the head to slot 1, so
    // job 3 wraps around to slot 0; job 4 overflows the wrapped ring, and so on.
    for (int i = 0; i < 3; i++)
        ts_des_fifo_submit(&d, &f, i, 1.0);
    struct ts_des_event ev;
    assert_true(ts_des_next(&d, &ev));
    assert_int_equal(ev.a, 0);
    assert_true(ts_des_fifo_release(&d, &f));
    assert_false(ts_des_fifo_submit(&d, &f, 3, 1.0));
    assert_int_equal(f.q_head, 1);
    assert_int_equal(f.q_len, 2);
    assert_int_equal(f.q_cap, 2);
    for (int i = 4; i < N; i++)
        assert_false(ts_des_fifo_submit(&d, &f, i, 1.0));
    assert_true(f.q_cap >= N - 2);

    int64_t ids[N];
    double times[N];
    int n = run_fifo(&d, &f, ids, times, N);
    assert_int_equal(n, N - 1);
    for (int i = 0; i < n; i++) {
        assert_int_equal(ids[i], i + 1);
        assert_close(times[i], (double)(i + 2), 1e-14, 0);
    }
    assert_close(f.busy_time, (double)N, 1e-15, 0);
    ts_des_fifo_close(&f);
    ts_des_close(&d);
}

static void a_fifo_job_submitted_later_starts_at_submission_time(void **state)
{
    (void)state;
    struct ts_des d;
    struct ts_des_fifo f;
    assert_int_equal(ts_des_init(&d, 8), 0);
    assert_int_equal(ts_des_fifo_init(&f, 1, 1, KIND_JOB_DONE, 0, 0), 0);
    ts_des_schedule(&d, 10.0, 0, KIND_START_FLOW, 0, 0);
    struct ts_des_event ev;
    assert_true(ts_des_next(&d, &ev));
    assert_true(ts_des_fifo_submit(&d, &f, 5, 0.5));
    assert_true(ts_des_next(&d, &ev));
    assert_int_equal(ev.kind, KIND_JOB_DONE);
    assert_close(ev.time, 10.5, 1e-15, 0);
    assert_false(ts_des_fifo_release(&d, &f));
    ts_des_fifo_close(&f);
    ts_des_close(&d);
}

/* ---------------------------------------------------------------- shared link */

struct flow_done {
    int64_t id;
    double time;
};

/* Run a link to completion. KIND_START_FLOW events start flow a with b bytes. Returns the
 * number of completions, recorded in order. */
static int run_link(struct ts_des *d, struct ts_des_link *l, struct flow_done *done, int cap)
{
    struct ts_des_event ev;
    int n = 0;
    while (ts_des_next(d, &ev)) {
        switch (ev.kind) {
        case KIND_START_FLOW:
            ts_des_link_start(d, l, ev.a, (double)ev.b);
            break;
        case KIND_FLOW_DONE:
            assert_true(n < cap);
            assert_int_equal(ev.b, l->tag);
            done[n++] = (struct flow_done){ev.a, ev.time};
            ts_des_link_finish(d, l, ev.a);
            break;
        default:
            fail_msg("unexpected event kind %d", ev.kind);
        }
    }
    assert_int_equal(l->active, 0);
    return n;
}

static void link_flows_starting_together_share_the_bandwidth_equally(void **state)
{
    (void)state;
    struct ts_des d;
    struct ts_des_link l;
    assert_int_equal(ts_des_init(&d, 8), 0);
    ts_des_link_init(&l, 100.0, KIND_FLOW_DONE, 0, 9);
    // Both get 50 B/s; flow 1 ends at t = 2 with 200 B of flow 2 left, sent alone at 100 B/s.
    ts_des_link_start(&d, &l, 1, 100.0);
    ts_des_link_start(&d, &l, 2, 300.0);
    assert_int_equal(l.active, 2);
    struct flow_done done[4];
    assert_int_equal(run_link(&d, &l, done, 4), 2);
    assert_int_equal(done[0].id, 1);
    assert_close(done[0].time, 2.0, 1e-12, 0);
    assert_int_equal(done[1].id, 2);
    assert_close(done[1].time, 4.0, 1e-12, 0);
    assert_close(l.bytes_sent, 400.0, 0, 0);
    ts_des_close(&d);
}

static void a_flow_joining_midway_slows_the_flow_in_progress(void **state)
{
    (void)state;
    struct ts_des d;
    struct ts_des_link l;
    assert_int_equal(ts_des_init(&d, 8), 0);
    ts_des_link_init(&l, 100.0, KIND_FLOW_DONE, 0, 0);
    // Flow 1 (300 B) alone until t = 1 (200 B left); flow 2 (100 B) joins, both at 50 B/s:
    // flow 2 ends at t = 3 with 100 B of flow 1 left, which then takes 1 s alone.
    ts_des_link_start(&d, &l, 1, 300.0);
    ts_des_schedule(&d, 1.0, 0, KIND_START_FLOW, 2, 100);
    struct flow_done done[4];
    assert_int_equal(run_link(&d, &l, done, 4), 2);
    assert_int_equal(done[0].id, 2);
    assert_close(done[0].time, 3.0, 1e-12, 0);
    assert_int_equal(done[1].id, 1);
    assert_close(done[1].time, 4.0, 1e-12, 0);
    assert_close(l.bytes_sent, 400.0, 0, 0);
    ts_des_close(&d);
}

static void three_flows_finish_as_their_shares_grow(void **state)
{
    (void)state;
    struct ts_des d;
    struct ts_des_link l;
    assert_int_equal(ts_des_init(&d, 8), 0);
    ts_des_link_init(&l, 300.0, KIND_FLOW_DONE, 0, 0);
    // 100 B/s each until t = 1 (flow 1 done; 100 and 200 B left), then 150 B/s each until
    // t = 1 + 100/150 (flow 2 done; 100 B left), then 300 B/s: done at 2 = 600 B / 300 B/s.
    ts_des_link_start(&d, &l, 1, 100.0);
    ts_des_link_start(&d, &l, 2, 200.0);
    ts_des_link_start(&d, &l, 3, 300.0);
    struct flow_done done[4];
    assert_int_equal(run_link(&d, &l, done, 4), 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(done[i].id, i + 1);
    assert_close(done[0].time, 1.0, 1e-12, 0);
    assert_close(done[1].time, 1.0 + 100.0 / 150.0, 1e-12, 0);
    assert_close(done[2].time, 2.0, 1e-12, 0);
    assert_close(l.bytes_sent, 600.0, 0, 0);
    ts_des_close(&d);
}

static void a_zero_byte_flow_completes_at_once_without_slowing_others(void **state)
{
    (void)state;
    struct ts_des d;
    struct ts_des_link l;
    assert_int_equal(ts_des_init(&d, 8), 0);
    ts_des_link_init(&l, 100.0, KIND_FLOW_DONE, 0, 0);
    ts_des_schedule(&d, 0.5, 0, KIND_START_FLOW, 1, 100);
    ts_des_schedule(&d, 0.5, 0, KIND_START_FLOW, 2, 0);
    struct flow_done done[4];
    assert_int_equal(run_link(&d, &l, done, 4), 2);
    assert_int_equal(done[0].id, 2);
    assert_close(done[0].time, 0.5, 0, 0);
    assert_int_equal(done[1].id, 1);
    assert_close(done[1].time, 1.5, 1e-12, 0);
    assert_close(l.bytes_sent, 100.0, 0, 0);
    ts_des_close(&d);
}

static void flows_keep_their_slots_and_new_flows_take_the_first_free_one(void **state)
{
    (void)state;
    struct ts_des d;
    struct ts_des_link l;
    assert_int_equal(ts_des_init(&d, 8), 0);
    ts_des_link_init(&l, 1.0, KIND_FLOW_DONE, 0, 0);
    for (int i = 0; i < 3; i++)
        ts_des_link_start(&d, &l, 10 + i, 1.0 + i);
    struct ts_des_event ev;
    assert_true(ts_des_next(&d, &ev));
    assert_int_equal(ev.a, 10);
    ts_des_link_finish(&d, &l, 10);
    assert_false(l.flows[0].active);
    assert_int_equal(l.flows[1].id, 11);
    assert_int_equal(l.flows[2].id, 12);
    ts_des_link_start(&d, &l, 13, 1.0);
    assert_true(l.flows[0].active);
    assert_int_equal(l.flows[0].id, 13);
    assert_int_equal(l.active, 3);
    ts_des_close(&d);
}

static void starting_a_flow_while_handling_a_completion_delivers_each_completion_once(void **state)
{
    (void)state;
    struct ts_des d;
    struct ts_des_link l;
    assert_int_equal(ts_des_init(&d, 8), 0);
    ts_des_link_init(&l, 100.0, KIND_FLOW_DONE, 0, 0);
    // Flows 1 and 2 both end at t = 2. Handling flow 1's completion starts flow 3 before
    // calling finish, which must neither re-deliver flow 1 nor lose flow 2.
    ts_des_link_start(&d, &l, 1, 100.0);
    ts_des_link_start(&d, &l, 2, 100.0);
    struct ts_des_event ev;
    int count[4] = {0};
    double at[4] = {0};
    while (ts_des_next(&d, &ev)) {
        assert_int_equal(ev.kind, KIND_FLOW_DONE);
        count[ev.a]++;
        at[ev.a] = ev.time;
        if (ev.a == 1)
            ts_des_link_start(&d, &l, 3, 100.0);
        ts_des_link_finish(&d, &l, ev.a);
    }
    for (int i = 1; i <= 3; i++)
        assert_int_equal(count[i], 1);
    assert_close(at[1], 2.0, 1e-12, 0);
    assert_close(at[2], 2.0, 1e-12, 0);
    assert_close(at[3], 3.0, 1e-12, 0);
    assert_close(l.bytes_sent, 300.0, 0, 0);
    ts_des_close(&d);
}

static void finishing_a_flow_early_counts_only_the_bytes_sent(void **state)
{
    (void)state;
    struct ts_des d;
    struct ts_des_link l;
    assert_int_equal(ts_des_init(&d, 8), 0);
    ts_des_link_init(&l, 100.0, KIND_FLOW_DONE, 0, 0);
    ts_des_link_start(&d, &l, 1, 1000.0);
    ts_des_schedule(&d, 2.5, 0, KIND_START_FLOW, 0, 0);
    struct ts_des_event ev;
    assert_true(ts_des_next(&d, &ev));
    assert_int_equal(ev.kind, KIND_START_FLOW);
    ts_des_link_finish(&d, &l, 1);   // abort at t = 2.5 after 250 B
    assert_close(l.bytes_sent, 250.0, 1e-12, 0);
    assert_false(ts_des_next(&d, &ev));
    ts_des_close(&d);
}

/* ---------------------------------------------------------------- misuse aborts */

static void schedule_before_now(void)
{
    struct ts_des d;
    ts_des_init(&d, 4);
    struct ts_des_event ev;
    ts_des_schedule(&d, 1.0, 0, 0, 0, 0);
    ts_des_next(&d, &ev);
    ts_des_schedule(&d, 0.999, 0, 0, 0, 0);
}

static void schedule_at_nan(void)
{
    struct ts_des d;
    ts_des_init(&d, 4);
    ts_des_schedule(&d, (double)NAN, 0, 0, 0, 0);
}

static void schedule_at_infinity(void)
{
    struct ts_des d;
    ts_des_init(&d, 4);
    ts_des_schedule(&d, HUGE_VAL, 0, 0, 0, 0);
}

static void schedule_with_negative_delay(void)
{
    struct ts_des d;
    ts_des_init(&d, 4);
    ts_des_schedule_in(&d, -1e-9, 0, 0, 0, 0);
}

static void cancel_garbage(void)
{
    struct ts_des d;
    ts_des_init(&d, 4);
    ts_des_cancel(&d, ((uint64_t)1 << 32) | 1000);
}

static void submit_negative_duration(void)
{
    struct ts_des d;
    struct ts_des_fifo f;
    ts_des_init(&d, 4);
    ts_des_fifo_init(&f, 1, 1, 0, 0, 0);
    ts_des_fifo_submit(&d, &f, 0, -1.0);
}

static void release_idle_fifo(void)
{
    struct ts_des d;
    struct ts_des_fifo f;
    ts_des_init(&d, 4);
    ts_des_fifo_init(&f, 1, 1, 0, 0, 0);
    ts_des_fifo_release(&d, &f);
}

static void finish_unknown_flow(void)
{
    struct ts_des d;
    struct ts_des_link l;
    ts_des_init(&d, 4);
    ts_des_link_init(&l, 1.0, 0, 0, 0);
    ts_des_link_start(&d, &l, 1, 1.0);
    ts_des_link_finish(&d, &l, 2);
}

static void start_too_many_flows(void)
{
    struct ts_des d;
    struct ts_des_link l;
    ts_des_init(&d, 4);
    ts_des_link_init(&l, 1.0, 0, 0, 0);
    for (int i = 0; i <= TS_DES_LINK_FLOWS_MAX; i++)
        ts_des_link_start(&d, &l, i, 1.0);
}

static void misuse_hits_an_assertion(void **state)
{
    (void)state;
    assert_aborts(schedule_before_now);
    assert_aborts(schedule_at_nan);
    assert_aborts(schedule_at_infinity);
    assert_aborts(schedule_with_negative_delay);
    assert_aborts(cancel_garbage);
    assert_aborts(submit_negative_duration);
    assert_aborts(release_idle_fifo);
    assert_aborts(finish_unknown_flow);
    assert_aborts(start_too_many_flows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(events_pop_in_time_order),
        cmocka_unit_test(events_at_equal_time_run_lower_priority_first),
        cmocka_unit_test(events_at_equal_time_and_priority_run_in_fifo_order),
        cmocka_unit_test(an_empty_engine_pops_nothing_and_peeks_infinity),
        cmocka_unit_test(schedule_in_is_relative_to_now),
        cmocka_unit_test(a_time_a_rounding_error_before_now_is_clamped_to_now),
        cmocka_unit_test(cancelled_events_never_pop),
        cmocka_unit_test(cancel_returns_false_for_fired_or_cancelled_handles),
        cmocka_unit_test(stale_handles_are_not_pending_after_their_slot_is_reused),
        cmocka_unit_test(cancelling_the_root_or_a_middle_event_keeps_the_heap_in_order),
        cmocka_unit_test(reset_forgets_pending_events_and_time),
        cmocka_unit_test(growth_beyond_capacity_keeps_order_and_counts_grows),
        cmocka_unit_test(a_pool_of_the_right_capacity_never_grows),
        cmocka_unit_test(a_large_random_run_pops_in_the_order_of_a_sorted_reference),
        cmocka_unit_test(a_random_run_matches_a_linear_scan_reference_pop_by_pop),
        cmocka_unit_test(a_single_server_fifo_runs_jobs_back_to_back),
        cmocka_unit_test(a_two_server_fifo_runs_two_jobs_at_once),
        cmocka_unit_test(a_fifo_queue_grows_past_its_capacity_and_keeps_order_across_wraparound),
        cmocka_unit_test(a_fifo_job_submitted_later_starts_at_submission_time),
        cmocka_unit_test(link_flows_starting_together_share_the_bandwidth_equally),
        cmocka_unit_test(a_flow_joining_midway_slows_the_flow_in_progress),
        cmocka_unit_test(three_flows_finish_as_their_shares_grow),
        cmocka_unit_test(a_zero_byte_flow_completes_at_once_without_slowing_others),
        cmocka_unit_test(flows_keep_their_slots_and_new_flows_take_the_first_free_one),
        cmocka_unit_test(starting_a_flow_while_handling_a_completion_delivers_each_completion_once),
        cmocka_unit_test(finishing_a_flow_early_counts_only_the_bytes_sent),
        cmocka_unit_test(misuse_hits_an_assertion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
