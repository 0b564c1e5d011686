/*
 * Tests of the iteration simulation (sim/step): the schedules against an independent
 * re-implementation of Megatron-LM's loops and a brute-force deadlock check, the
 * discrete-event simulation against the closed-form pipeline times on homogeneous stages,
 * hand-computed message, bucket and link-sharing cases, a randomized lower-bound property,
 * determinism, and one catalogue job end to end with its trace.
 *
 * Plans are built by hand (struct ts_step_plan is plain data) so every time in a test is
 * one the test chose.
 */
#include "test_helpers.h"
#include "test_job.h"

#include "spec/spec.h"
#include "step/step.h"

/* ---------------------------------------------------------------- fixtures */

/* A plan with every stage and chunk taking tf / v forward and tb / v backward, and nothing
 * else: no messages, no buckets, no optimizer, no tail. */
static void oracle_plan(struct ts_step_plan *pl, enum ts_schedule sched, int p, int v, int m,
                        double tf, double tb)
{
    assert_int_equal(ts_step_plan_init(pl, p, v), 0);
    pl->schedule = sched;
    pl->m = m;
    pl->nic_bandwidth = 1e10;
    pl->up_bandwidth = 1e11;
    for (int i = 0; i < p * v; i++) {
        pl->chunk[i].fwd_s = tf / v;
        pl->chunk[i].bwd_s = tb / v;
    }
}

static struct ts_step_result simulate(const struct ts_step_plan *pl)
{
    struct ts_step_sim *sim = ts_step_sim_new();
    assert_non_null(sim);
    struct ts_step_result r;
    ts_step_simulate(sim, pl, &r, NULL, NULL);
    ts_step_sim_free(sim);
    return r;
}

/* SplitMix64: the tests' fixed-seed random numbers. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(rng_next(s) >> 11) / 9007199254740992.0;
}

static int rng_int(uint64_t *s, int lo, int hi)
{
    return lo + (int)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

/* ---------------------------------------------------------------- closed-form oracle */

static void gpipe_and_1f1b_take_p_minus_1_plus_m_slots_of_tf_plus_tb(void **state)
{
    (void)state;
    static const struct {
        int p, m;
        double tf, tb;
    } cases[] = {
        {1, 1, 1.0, 2.0},   {1, 7, 0.3, 0.9},    {2, 1, 1.0, 1.0},     {2, 5, 1.0, 3.0},
        {4, 2, 2.0, 1.0},   {4, 4, 1.0, 2.0},    {4, 16, 0.013, 0.029}, {8, 3, 1.5, 0.5},
        {8, 64, 1.0, 2.0},  {7, 30, 0.25, 0.75}, {16, 5, 3.0, 7.0},    {35, 280, 1e-3, 2.1e-3},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(cases); i++) {
        for (int s = 0; s < 2; s++) {
            enum ts_schedule sched = s ? TS_SCHED_1F1B : TS_SCHED_GPIPE;
            int p = cases[i].p, m = cases[i].m;
            double tf = cases[i].tf, tb = cases[i].tb;
            struct ts_step_plan pl;
            oracle_plan(&pl, sched, p, 1, m, tf, tb);
            struct ts_step_result r = simulate(&pl);
            double expected = (p - 1 + m) * (tf + tb);
            assert_close(r.iteration_s, expected, 1e-9, 0);
            assert_close(r.pipeline_s, expected, 1e-9, 0);
            assert_close(ts_step_closed_form(&pl), expected, 1e-9, 0);
            assert_true(ts_step_lower_bound(&pl) <= r.iteration_s * (1 + 1e-12));
            ts_step_plan_free(&pl);
        }
    }
}

static void bubble_fraction_is_p_minus_1_over_m_plus_p_minus_1(void **state)
{
    (void)state;
    static const int cases[][2] = {{1, 4}, {2, 2}, {4, 3}, {4, 16}, {8, 8}, {8, 64}, {16, 12}};
    for (size_t i = 0; i < TS_ARRAY_LEN(cases); i++) {
        for (int s = 0; s < 2; s++) {
            int p = cases[i][0], m = cases[i][1];
            struct ts_step_plan pl;
            oracle_plan(&pl, s ? TS_SCHED_1F1B : TS_SCHED_GPIPE, p, 1, m, 1.0, 2.5);
            struct ts_step_result r = simulate(&pl);
            assert_close(r.bubble_fraction, (double)(p - 1) / (m + p - 1), 1e-9, 1e-15);
            ts_step_plan_free(&pl);
        }
    }
}

/* Megatron's interleaved schedule on homogeneous stages takes (m + (p - 1) / v)(tf + tb)
 * exactly, for any tf and tb, not only tf = tb: a replay of the schedule in exact rational
 * arithmetic confirmed it for every p <= 8, v <= 4 and m a multiple of p up to 32. */
static void interleaved_takes_m_plus_p_minus_1_over_v_slots(void **state)
{
    (void)state;
    static const struct {
        int p, v, m;
        double tf, tb;
    } cases[] = {
        {2, 2, 2, 1.0, 2.0},  {2, 4, 6, 3.0, 1.0},   {4, 2, 4, 1.0, 1.0},  {4, 3, 8, 1.0, 3.0},
        {4, 4, 16, 2.0, 5.0}, {8, 2, 8, 0.7, 1.9},   {8, 3, 64, 1.0, 2.0}, {8, 4, 32, 5.0, 3.0},
        {3, 2, 9, 1.0, 2.0},  {5, 3, 20, 0.2, 0.45}, {35, 3, 280, 1.0, 2.0},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(cases); i++) {
        int p = cases[i].p, v = cases[i].v, m = cases[i].m;
        double tf = cases[i].tf, tb = cases[i].tb;
        struct ts_step_plan pl;
        oracle_plan(&pl, TS_SCHED_INTERLEAVED, p, v, m, tf, tb);
        struct ts_step_result r = simulate(&pl);
        double slots = m + (double)(p - 1) / v;
        assert_close(r.iteration_s, slots * (tf + tb), 1e-9, 0);
        assert_close(ts_step_closed_form(&pl), slots * (tf + tb), 1e-9, 0);
        assert_close(r.bubble_fraction, (double)(p - 1) / v / slots, 1e-9, 0);
        ts_step_plan_free(&pl);
    }
}

/* ---------------------------------------------------------------- schedules */

/* Megatron-LM's loops, written out again: warm-up forwards, one forward and one backward
 * per steady step, cool-down backwards; the chunk of the i-th forward (backward) from
 * get_model_chunk_id, the microbatch from a per-chunk counter. */
static void megatron_order(enum ts_schedule sched, int p, int v, int m, int stage,
                           struct ts_task *out)
{
    int n = 0;
    if (sched == TS_SCHED_GPIPE) {
        for (int j = 0; j < m; j++)
            out[n++] = (struct ts_task){TS_TASK_F, 0, j};
        for (int j = 0; j < m; j++)
            out[n++] = (struct ts_task){TS_TASK_B, 0, j};
        return;
    }
    int total = m * v, warmup;
    if (sched == TS_SCHED_1F1B)
        warmup = p - stage - 1 < m ? p - stage - 1 : m;
    else if (m == p)
        warmup = total;     /* all_warmup_microbatches */
    else {
        warmup = (p - stage - 1) * 2 + (v - 1) * p;
        if (warmup > total)
            warmup = total;
    }
    int fcount[TS_VIRTUAL_MAX] = {0}, bcount[TS_VIRTUAL_MAX] = {0};
    int f = 0, b = 0;
#define FWD()                                                               \
    do {                                                                    \
        int c = (f % (p * v)) / p;                                          \
        if (sched == TS_SCHED_1F1B)                                         \
            c = 0;                                                          \
        out[n++] = (struct ts_task){TS_TASK_F, (uint8_t)c, fcount[c]++};    \
        f++;                                                                \
    } while (0)
#define BWD()                                                               \
    do {                                                                    \
        int c = v - 1 - (b % (p * v)) / p;                                  \
        if (sched == TS_SCHED_1F1B)                                         \
            c = 0;                                                          \
        out[n++] = (struct ts_task){TS_TASK_B, (uint8_t)c, bcount[c]++};    \
        b++;                                                                \
    } while (0)
    for (int i = 0; i < warmup; i++)
        FWD();
    for (int i = 0; i < total - warmup; i++) {
        FWD();
        BWD();
    }
    while (b < total)
        BWD();
#undef FWD
#undef BWD
}

/* Every layout the schedule tests sweep: GPipe and 1F1B for p <= 8, m <= 32; interleaved
 * for p in 2..8, v in 2..4, m a multiple of p up to 32. Calls fn for each stage order. */
typedef void (*order_check)(enum ts_schedule sched, int p, int v, int m, int stage,
                            const struct ts_task *order);

static void for_each_schedule(order_check fn)
{
    struct ts_task *order = ts_xcalloc(2 * 32 * 4, sizeof *order);
    for (int p = 1; p <= 8; p++) {
        for (int m = 1; m <= 32; m++)
            for (int s = 0; s < 2; s++)
                for (int k = 0; k < p; k++) {
                    enum ts_schedule sched = s ? TS_SCHED_1F1B : TS_SCHED_GPIPE;
                    ts_step_schedule(sched, p, 1, m, k, order);
                    fn(sched, p, 1, m, k, order);
                }
        for (int v = 2; v <= 4 && p > 1; v++)
            for (int m = p; m <= 32; m += p)
                for (int k = 0; k < p; k++) {
                    ts_step_schedule(TS_SCHED_INTERLEAVED, p, v, m, k, order);
                    fn(TS_SCHED_INTERLEAVED, p, v, m, k, order);
                }
    }
    free(order);
}

static void check_same_as_megatron(enum ts_schedule sched, int p, int v, int m, int stage,
                                   const struct ts_task *order)
{
    struct ts_task ref[2 * 32 * 4];
    megatron_order(sched, p, v, m, stage, ref);
    for (int i = 0; i < 2 * m * v; i++) {
        if (order[i].kind != ref[i].kind || order[i].chunk != ref[i].chunk ||
            order[i].micro != ref[i].micro) {
            print_error("%s p=%d v=%d m=%d stage %d, task %d: %c(micro %d, chunk %d), Megatron "
                        "runs %c(micro %d, chunk %d)\n", ts_schedule_names[sched], p, v, m, stage,
                        i, order[i].kind == TS_TASK_F ? 'F' : 'B', order[i].micro, order[i].chunk,
                        ref[i].kind == TS_TASK_F ? 'F' : 'B', ref[i].micro, ref[i].chunk);
            fail();
        }
    }
}

static void schedules_run_the_tasks_in_megatron_lm_order(void **state)
{
    (void)state;
    for_each_schedule(check_same_as_megatron);
}

static void check_each_task_once_forward_first(enum ts_schedule sched, int p, int v, int m,
                                               int stage, const struct ts_task *order)
{
    int seen[2][4][32];
    memset(seen, 0, sizeof seen);
    int forwards_before_first_b = -1, f = 0;
    for (int i = 0; i < 2 * m * v; i++) {
        const struct ts_task *t = &order[i];
        assert_true(t->kind <= TS_TASK_B && t->chunk < v && t->micro >= 0 && t->micro < m);
        seen[t->kind][t->chunk][t->micro]++;
        if (t->kind == TS_TASK_B) {
            assert_int_equal(seen[TS_TASK_F][t->chunk][t->micro], 1);
            if (forwards_before_first_b < 0)
                forwards_before_first_b = f;
        } else {
            f++;
        }
    }
    for (int kind = 0; kind < 2; kind++)
        for (int c = 0; c < v; c++)
            for (int j = 0; j < m; j++)
                assert_int_equal(seen[kind][c][j], 1);
    /* Warm-up as Megatron-LM counts it, plus the steady phase's first forward. */
    int expected;
    if (sched == TS_SCHED_GPIPE)
        expected = m;
    else if (sched == TS_SCHED_1F1B)
        expected = p - stage < m ? p - stage : m;
    else if (m == p)
        expected = m * v;
    else
        expected = 2 * (p - stage - 1) + (v - 1) * p + 1 < m * v ? 2 * (p - stage - 1) + (v - 1) * p + 1
                                                                : m * v;
    if (forwards_before_first_b != expected) {
        print_error("%s p=%d v=%d m=%d stage %d: %d forwards before the first backward, "
                    "Megatron-LM runs %d\n", ts_schedule_names[sched], p, v, m, stage,
                    forwards_before_first_b, expected);
        fail();
    }
}

static void schedules_run_every_task_once_and_forward_before_backward(void **state)
{
    (void)state;
    for_each_schedule(check_each_task_once_forward_first);
}

/* Untimed replay: repeatedly run any stage whose next task's input is ready, until no stage
 * can move. Returns the tasks run (all 2 m v p when nothing deadlocks). */
static int replay(enum ts_schedule sched, int p, int v, int m)
{
    int per = 2 * m * v;
    struct ts_task *order = ts_xcalloc((size_t)p * per, sizeof *order);
    int *next = ts_xcalloc((size_t)p, sizeof *next);
    /* done[stage][kind][chunk][micro] */
    bool *done = ts_xcalloc((size_t)p * 2 * v * m, sizeof *done);
#define DONE(k, kind, c, j) done[((((size_t)(k) * 2 + (kind)) * v + (c)) * m) + (j)]
    for (int k = 0; k < p; k++)
        ts_step_schedule(sched, p, v, m, k, &order[(size_t)k * per]);
    int ran = 0;
    bool moved = true;
    while (moved) {
        moved = false;
        for (int k = 0; k < p; k++) {
            while (next[k] < per) {
                const struct ts_task *t = &order[(size_t)k * per + next[k]];
                int c = t->chunk, j = t->micro;
                bool ready;
                if (t->kind == TS_TASK_F)
                    ready = k > 0 ? DONE(k - 1, TS_TASK_F, c, j)
                                  : c == 0 || DONE(p - 1, TS_TASK_F, c - 1, j);
                else
                    ready = k < p - 1 ? DONE(k + 1, TS_TASK_B, c, j)
                                      : c == v - 1 ? DONE(k, TS_TASK_F, c, j)
                                                   : DONE(0, TS_TASK_B, c + 1, j);
                if (!ready)
                    break;
                DONE(k, t->kind, c, j) = true;
                next[k]++;
                ran++;
                moved = true;
            }
        }
    }
#undef DONE
    free(order);
    free(next);
    free(done);
    return ran;
}

static void no_schedule_deadlocks_up_to_8_stages_4_chunks_and_32_microbatches(void **state)
{
    (void)state;
    for (int p = 1; p <= 8; p++) {
        for (int m = 1; m <= 32; m++) {
            assert_int_equal(replay(TS_SCHED_GPIPE, p, 1, m), 2 * m * p);
            assert_int_equal(replay(TS_SCHED_1F1B, p, 1, m), 2 * m * p);
        }
        for (int v = 2; v <= 4 && p > 1; v++)
            for (int m = p; m <= 32; m += p)
                assert_int_equal(replay(TS_SCHED_INTERLEAVED, p, v, m), 2 * m * v * p);
    }
}

/* ---------------------------------------------------------------- pipeline messages */

static void one_microbatch_through_two_stages_pays_both_transfers(void **state)
{
    (void)state;
    struct ts_step_plan pl;
    oracle_plan(&pl, TS_SCHED_1F1B, 2, 1, 1, 0.010, 0.020);
    pl.msg_bytes = 4e6;             /* 0.4 ms at 1e10 B/s */
    pl.msg_latency_s = 50e-6;
    pl.msg_over_nic = true;
    struct ts_step_result r = simulate(&pl);
    double transfer = 4e6 / 1e10 + 50e-6;
    assert_close(r.iteration_s, 2 * (0.010 + 0.020) + 2 * transfer, 1e-12, 0);
    /* stage 0 waits for the gradient: one transfer on the critical stage */
    assert_int_equal(r.critical_stage, 0);
    assert_close(r.exposed_pp_s, transfer, 1e-9, 0);
    assert_close(r.nic_bytes, 2 * 4e6, 1e-12, 0);
    ts_step_plan_free(&pl);
}

static void messages_add_at_least_2_p_minus_1_transfers_to_1f1b(void **state)
{
    (void)state;
    static const int cases[][2] = {{2, 4}, {4, 4}, {4, 12}, {8, 3}, {8, 32}};
    for (size_t i = 0; i < TS_ARRAY_LEN(cases); i++) {
        int p = cases[i][0], m = cases[i][1];
        for (int nic = 0; nic < 2; nic++) {
            struct ts_step_plan pl;
            oracle_plan(&pl, TS_SCHED_1F1B, p, 1, m, 1.0, 2.0);
            double base = simulate(&pl).iteration_s;
            pl.msg_bytes = 1e9;     /* 0.1 s on the NIC, 0.01 s on the scale-up link */
            pl.msg_over_nic = nic;
            double transfer = 1e9 / (nic ? pl.nic_bandwidth : pl.up_bandwidth);
            struct ts_step_result r = simulate(&pl);
            assert_true(r.iteration_s >= base + 2 * (p - 1) * transfer - 1e-9);
            assert_true(r.exposed_pp_s > 0);
            ts_step_plan_free(&pl);
        }
    }
}

static void messages_far_slower_than_compute_queue_on_the_link_instead_of_aborting(void **state)
{
    (void)state;
    /* pp 32: stage 0 runs 31 warm-up forwards of 0.1 s while each message takes 1 s, so more
     * than TS_DES_LINK_FLOWS_MAX messages wait on its NIC at once. */
    struct ts_step_plan pl;
    oracle_plan(&pl, TS_SCHED_1F1B, 32, 1, 64, 0.1, 0.2);
    pl.msg_over_nic = true;
    pl.msg_bytes = 1.0 * pl.nic_bandwidth;
    struct ts_step_result r = simulate(&pl);
    assert_true(isfinite(r.iteration_s));
    assert_true(r.iteration_s >= (32 - 1 + 64) * 0.3 + 2 * 31 * 1.0);
    assert_close(r.nic_bytes, 2.0 * 31 * 64 * pl.msg_bytes, 1e-12, 0);
    ts_step_plan_free(&pl);
}

/* ---------------------------------------------------------------- data-parallel buckets */

static void bucket_plan(struct ts_step_plan *pl, bool overlap, double latency, double bytes)
{
    /* one stage, 4 microbatches of 1 s forward and 2 s backward, 4 buckets */
    oracle_plan(pl, TS_SCHED_1F1B, 1, 1, 4, 1.0, 2.0);
    pl->dp_overlap = overlap;
    pl->dp_over_nic = true;
    pl->nic_bandwidth = 1e9;
    pl->chunk[0].buckets = 4;
    pl->chunk[0].bucket_latency_s = latency;
    pl->chunk[0].bucket_bytes = bytes;
    pl->optimizer_s[0] = 0.25;
    pl->tail_s[0] = 0.125;
}

static void slow_buckets_expose_what_the_last_backward_cannot_hide(void **state)
{
    (void)state;
    /* The last backward runs 10 .. 12 s; bucket i is ready at 10 + 0.5 (i + 1) and takes
     * 1 s, so they run back to back from 10.5 to 14.5: 2.5 s after the compute ends.
     * Without overlap all four run after it: 4 s. Then optimizer and tail. */
    for (int by_bytes = 0; by_bytes < 2; by_bytes++) {
        struct ts_step_plan pl;
        double lat = by_bytes ? 0.0 : 1.0, bytes = by_bytes ? 1e9 : 0.0;
        bucket_plan(&pl, true, lat, bytes);
        struct ts_step_result r = simulate(&pl);
        assert_close(r.pipeline_s, 12.0, 1e-12, 0);
        assert_close(r.exposed_dp_s, 2.5, 1e-12, 0);
        assert_close(r.iteration_s, 12.0 + 2.5 + 0.375, 1e-12, 0);
        pl.dp_overlap = false;
        r = simulate(&pl);
        assert_close(r.exposed_dp_s, 4.0, 1e-12, 0);
        assert_close(r.iteration_s, 12.0 + 4.0 + 0.375, 1e-12, 0);
        ts_step_plan_free(&pl);
    }
    /* fast buckets: only the last one, ready at the end of compute, is exposed */
    struct ts_step_plan pl;
    bucket_plan(&pl, true, 0.1, 0.0);
    struct ts_step_result r = simulate(&pl);
    assert_close(r.exposed_dp_s, 0.1, 1e-12, 0);
    ts_step_plan_free(&pl);
}

static void overlapping_buckets_never_expose_more_than_reducing_after_backward(void **state)
{
    (void)state;
    uint64_t seed = 42;
    for (int trial = 0; trial < 200; trial++) {
        int p = rng_int(&seed, 1, 6), v = p > 1 && rng_int(&seed, 0, 1) ? rng_int(&seed, 2, 3) : 1;
        int m = v > 1 ? p * rng_int(&seed, 1, 4) : rng_int(&seed, 1, 12);
        struct ts_step_plan pl;
        oracle_plan(&pl, v > 1 ? TS_SCHED_INTERLEAVED : TS_SCHED_1F1B, p, v, m, 1.0, 2.0);
        pl.dp_over_nic = rng_int(&seed, 0, 1);
        for (int i = 0; i < p * v; i++) {
            pl.chunk[i].fwd_s = rng_uniform(&seed, 0.2, 1.0);
            pl.chunk[i].bwd_s = rng_uniform(&seed, 0.4, 2.0);
            pl.chunk[i].buckets = rng_int(&seed, 1, 5);
            pl.chunk[i].bucket_latency_s = rng_uniform(&seed, 0, 0.05);
            pl.chunk[i].bucket_bytes = rng_uniform(&seed, 0, 2e9);
        }
        pl.dp_overlap = true;
        struct ts_step_result on = simulate(&pl);
        pl.dp_overlap = false;
        struct ts_step_result off = simulate(&pl);
        assert_true(on.exposed_dp_s <= off.exposed_dp_s + 1e-12);
        assert_true(on.iteration_s <= off.iteration_s + 1e-12);
        ts_step_plan_free(&pl);
    }
}

static void a_pipeline_message_and_a_bucket_on_one_nic_share_its_bandwidth(void **state)
{
    (void)state;
    /* Two stages, one microbatch: forward 10 ms, backward 20 ms, 1 MB messages and one 3 MB
     * bucket per stage at 1 GB/s (1 ms and 3 ms alone).
     *   0-10 F on stage 0; message 10-11; 11-21 F and 21-41 B on stage 1.
     *   At 41 stage 1 sends the gradient and starts its bucket. On its NIC both run at
     *   0.5 GB/s: the message arrives at 43 (not 42), the bucket ends at 45.
     *   Stage 0: B 43-63, its bucket alone 63-66. */
    struct ts_step_plan pl;
    oracle_plan(&pl, TS_SCHED_1F1B, 2, 1, 1, 0.010, 0.020);
    pl.nic_bandwidth = pl.up_bandwidth = 1e9;
    pl.msg_bytes = 1e6;
    pl.msg_over_nic = true;
    pl.dp_overlap = true;
    pl.dp_over_nic = true;
    for (int k = 0; k < 2; k++) {
        pl.chunk[k].buckets = 1;
        pl.chunk[k].bucket_bytes = 3e6;
    }
    double stage_end[2];
    struct ts_step_stages st = {NULL, NULL, stage_end};
    struct ts_step_sim *sim = ts_step_sim_new();
    struct ts_step_result r;
    ts_step_simulate(sim, &pl, &r, &st, NULL);
    assert_close(r.iteration_s, 0.066, 1e-12, 0);
    assert_close(stage_end[1], 0.045, 1e-12, 0);
    assert_close(r.exposed_pp_s, 0.002, 1e-9, 0);
    assert_close(r.exposed_dp_s, 0.003, 1e-9, 0);
    /* The same bucket over the scale-up link leaves the NIC to the message: 1 ms faster. */
    pl.dp_over_nic = false;
    ts_step_simulate(sim, &pl, &r, &st, NULL);
    assert_close(r.iteration_s, 0.065, 1e-12, 0);
    assert_close(stage_end[1], 0.044, 1e-12, 0);
    assert_close(r.exposed_pp_s, 0.001, 1e-9, 0);
    /* Reducing after the backward (no overlap), a non-blocking send shares the NIC with the
     * bucket that starts with it (message at 43); a blocking send holds the stream, so the
     * bucket starts only after delivery (message at 42, bucket 42-45): blocking is 1 ms
     * faster here, which is why the blocking property test keeps DP traffic off the
     * message link. */
    pl.dp_over_nic = true;
    pl.dp_overlap = false;
    ts_step_simulate(sim, &pl, &r, &st, NULL);
    assert_close(r.iteration_s, 0.066, 1e-12, 0);
    pl.msg_blocking = true;
    ts_step_simulate(sim, &pl, &r, &st, NULL);
    assert_close(r.iteration_s, 0.065, 1e-12, 0);
    assert_close(stage_end[1], 0.045, 1e-12, 0);
    ts_step_sim_free(sim);
    ts_step_plan_free(&pl);
}

/* ---------------------------------------------------------------- random plans */

/* A random plan: schedule, sizes, uneven chunk times, messages, buckets, ZeRO-3 traffic,
 * flags. Message and ZeRO-3 transfers stay below the compute time of a chunk. */
static void random_plan(uint64_t *seed, struct ts_step_plan *pl)
{
    int kind = rng_int(seed, 0, 2);
    int p = rng_int(seed, kind == 2 ? 2 : 1, 8);
    int v = kind == 2 ? rng_int(seed, 2, 4) : 1;
    int m = kind == 2 ? p * rng_int(seed, 1, 4) : rng_int(seed, 1, 24);
    enum ts_schedule sched = kind == 0 ? TS_SCHED_GPIPE : kind == 1 ? TS_SCHED_1F1B
                                                                   : TS_SCHED_INTERLEAVED;
    oracle_plan(pl, sched, p, v, m, 1.0, 2.0);
    pl->nic_bandwidth = rng_uniform(seed, 1e9, 1e10);
    pl->up_bandwidth = rng_uniform(seed, 1e10, 1e11);
    pl->msg_over_nic = rng_int(seed, 0, 1);
    pl->msg_blocking = rng_int(seed, 0, 1);
    if (rng_int(seed, 0, 3))
        pl->msg_bytes = rng_uniform(seed, 0, 0.05) * pl->nic_bandwidth / v;
    pl->msg_latency_s = rng_int(seed, 0, 1) ? rng_uniform(seed, 0, 1e-3) : 0.0;
    pl->dp_overlap = rng_int(seed, 0, 1);
    pl->dp_over_nic = rng_int(seed, 0, 1);
    pl->zero3 = rng_int(seed, 0, 4) == 0;
    double scale = rng_uniform(seed, 0.1, 1.0);
    for (int i = 0; i < p * v; i++) {
        struct ts_step_chunk *c = &pl->chunk[i];
        c->fwd_s = scale * rng_uniform(seed, 0.5, 1.5) / v;
        c->bwd_s = scale * rng_uniform(seed, 0.8, 3.0) / v;
        if (!pl->zero3 && rng_int(seed, 0, 2)) {
            c->buckets = rng_int(seed, 1, 6);
            c->bucket_latency_s = rng_uniform(seed, 0, 0.01);
            c->bucket_bytes = rng_uniform(seed, 0, 0.2) * pl->nic_bandwidth;
        }
        if (pl->zero3) {
            c->z3_gather_latency_s = rng_uniform(seed, 0, 1e-3);
            c->z3_gather_bytes = rng_uniform(seed, 0, 0.03) * pl->nic_bandwidth;
            c->z3_bgather_latency_s = rng_uniform(seed, 0, 1e-3);
            c->z3_bgather_bytes = rng_uniform(seed, 0, 0.03) * pl->nic_bandwidth;
            c->z3_scatter_latency_s = rng_uniform(seed, 0, 1e-3);
            c->z3_scatter_bytes = rng_uniform(seed, 0, 0.03) * pl->nic_bandwidth;
        }
    }
    for (int k = 0; k < p; k++) {
        pl->optimizer_s[k] = rng_uniform(seed, 0, 0.05);
        pl->tail_s[k] = rng_int(seed, 0, 1) ? rng_uniform(seed, 0, 0.05) : 0.0;
    }
}

static void the_lower_bound_never_exceeds_the_simulated_time_on_random_plans(void **state)
{
    (void)state;
    uint64_t seed = 20240611;
    struct ts_step_sim *sim = ts_step_sim_new();
    double worst_low = 1e300, worst_high = 0;
    for (int trial = 0; trial < 2000; trial++) {
        struct ts_step_plan pl;
        random_plan(&seed, &pl);
        struct ts_step_result r;
        ts_step_simulate(sim, &pl, &r, NULL, NULL);
        double lb = ts_step_lower_bound(&pl), cf = ts_step_closed_form(&pl);
        if (!(lb <= r.iteration_s * (1 + 1e-12))) {
            print_error("trial %d (%s p=%d v=%d m=%d): lower bound %.12g > simulated %.12g\n",
                        trial, ts_schedule_names[pl.schedule], pl.p, pl.v, pl.m, lb, r.iteration_s);
            fail();
        }
        assert_true(lb > 0);
        worst_low = fmin(worst_low, cf / r.iteration_s);
        worst_high = fmax(worst_high, cf / r.iteration_s);
        ts_step_plan_free(&pl);
    }
    /* The closed form is an estimate, not a bound, but a sane one. */
    printf("closed form / simulated over 2000 random plans: %.3f .. %.3f\n", worst_low, worst_high);
    assert_true(worst_low > 0.67 && worst_high < 1.5);
    ts_step_sim_free(sim);
}

static void blocking_sends_are_never_faster_than_non_blocking_ones(void **state)
{
    (void)state;
    uint64_t seed = 7;
    struct ts_step_sim *sim = ts_step_sim_new();
    int slower = 0;
    for (int trial = 0; trial < 5000; trial++) {
        struct ts_step_plan pl;
        random_plan(&seed, &pl);
        pl.dp_over_nic = !pl.msg_over_nic;
        struct ts_step_result a, b;
        pl.msg_blocking = false;
        ts_step_simulate(sim, &pl, &a, NULL, NULL);
        pl.msg_blocking = true;
        ts_step_simulate(sim, &pl, &b, NULL, NULL);
        if (!(b.iteration_s >= a.iteration_s * (1 - 1e-12))) {
            print_error("trial %d (%s p=%d v=%d m=%d): blocking %.12g < non-blocking %.12g\n",
                        trial, ts_schedule_names[pl.schedule], pl.p, pl.v, pl.m, b.iteration_s,
                        a.iteration_s);
            fail();
        }
        slower += b.iteration_s > a.iteration_s * (1 + 1e-9);
        ts_step_plan_free(&pl);
    }
    assert_true(slower > 100);  /* and blocking does cost something in most plans with messages */
    ts_step_sim_free(sim);
}

/* ---------------------------------------------------------------- determinism */

static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void assert_identical(const struct ts_step_result *a, const struct ts_step_result *b)
{
    assert_true(same_bits(a->iteration_s, b->iteration_s));
    assert_true(same_bits(a->pipeline_s, b->pipeline_s));
    assert_true(same_bits(a->bubble_fraction, b->bubble_fraction));
    assert_true(same_bits(a->compute_s, b->compute_s));
    assert_true(same_bits(a->exposed_tp_s, b->exposed_tp_s));
    assert_true(same_bits(a->exposed_pp_s, b->exposed_pp_s));
    assert_true(same_bits(a->exposed_dp_s, b->exposed_dp_s));
    assert_true(same_bits(a->optimizer_s, b->optimizer_s));
    assert_true(same_bits(a->tail_s, b->tail_s));
    assert_true(same_bits(a->nic_bytes, b->nic_bytes));
    assert_true(same_bits(a->up_bytes, b->up_bytes));
    assert_int_equal(a->critical_stage, b->critical_stage);
    assert_int_equal(a->events, b->events);
}

static void the_same_plan_gives_bit_identical_results_in_a_used_or_fresh_workspace(void **state)
{
    (void)state;
    uint64_t seed = 99;
    struct ts_step_sim *used = ts_step_sim_new();
    for (int trial = 0; trial < 50; trial++) {
        struct ts_step_plan pl, other;
        random_plan(&seed, &pl);
        random_plan(&seed, &other);
        struct ts_step_result first, again, fresh, between;
        ts_step_simulate(used, &pl, &first, NULL, NULL);
        ts_step_simulate(used, &other, &between, NULL, NULL);   /* dirty the workspace */
        ts_step_simulate(used, &pl, &again, NULL, NULL);
        fresh = simulate(&pl);
        assert_identical(&first, &again);
        assert_identical(&first, &fresh);
        assert_true(first.events > 0);
        ts_step_plan_free(&pl);
        ts_step_plan_free(&other);
    }
    ts_step_sim_free(used);
}

/* ---------------------------------------------------------------- a catalogue job */

static void load_config(const char *rel, struct ts_job *job)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", ts_spec_home(), rel);
    struct ts_err err;
    ts_err_clear(&err);
    cJSON *doc;
    if (ts_json_load(path, &doc, &err) != TS_OK) {
        print_error("%s\n", err.msg);
        fail();
    }
    struct ts_jnode root = ts_jnode_root(doc, path);
    int rc = ts_job_parse(&root, NULL, job, &err);
    cJSON_Delete(doc);
    if (rc != TS_OK) {
        print_error("%s\n", err.msg);
        fail();
    }
}

static int cmp_span_start(const void *a, const void *b)
{
    const struct ts_trace_span *x = a, *y = b;
    if (x->stage != y->stage)
        return x->stage < y->stage ? -1 : 1;
    return x->start_s < y->start_s ? -1 : x->start_s > y->start_s;
}

static void korthikanti_175b_evaluates_feasibly_with_one_compute_span_per_task(void **state)
{
    (void)state;
    struct ts_job job;
    load_config("configs/validation/korthikanti-175b-seqsel.json", &job);
    struct ts_eval_scratch s;
    assert_int_equal(ts_eval_scratch_init(&s), 0);
    struct ts_trace trace;
    ts_trace_init(&trace);
    struct ts_iteration it;
    ts_step_evaluate(&job, TS_METHOD_DISCRETE_EVENT, &s, &it, NULL, &trace);
    assert_true(it.feasible);
    assert_int_equal(it.method, TS_METHOD_DISCRETE_EVENT);
    assert_true(it.mfu > 0.4 && it.mfu < 0.65);
    assert_true(it.hfu >= it.mfu);
    assert_true(it.step.events > 0);
    /* The iteration is the simulated step plus the wait for the slowest GPU (no loader). */
    assert_true(it.sync_wait_s > 0.0);
    assert_close(it.iteration_s, it.step.iteration_s + it.sync_wait_s, 0, 0);

    int p = s.plan.p, v = s.plan.v, m = s.plan.m;
    assert_int_equal(p, 8);
    assert_int_equal(v, 3);
    assert_int_equal(m, 64);
    /* compute spans: one per (stage, kind, chunk, micro), never overlapping on a stage */
    size_t n = 0;
    struct ts_trace_span *compute = ts_xcalloc(trace.len, sizeof *compute);
    for (size_t i = 0; i < trace.len; i++)
        if (trace.spans[i].track == 0)
            compute[n++] = trace.spans[i];
    assert_int_equal(n, (size_t)p * 2 * v * m);
    unsigned char *seen = ts_xcalloc((size_t)p * 2 * v * m, 1);
    for (size_t i = 0; i < n; i++) {
        const struct ts_trace_span *sp = &compute[i];
        assert_true(sp->stage >= 0 && sp->stage < p && sp->chunk >= 0 && sp->chunk < v &&
                    sp->micro >= 0 && sp->micro < m && (sp->kind == TS_TASK_F || sp->kind == TS_TASK_B));
        assert_true(sp->end_s > sp->start_s);
        size_t key = (((size_t)sp->stage * 2 + sp->kind) * v + sp->chunk) * m + sp->micro;
        assert_int_equal(seen[key], 0);
        seen[key] = 1;
    }
    qsort(compute, n, sizeof *compute, cmp_span_start);
    for (size_t i = 1; i < n; i++)
        if (compute[i].stage == compute[i - 1].stage)
            assert_true(compute[i].start_s >= compute[i - 1].end_s);
    for (size_t i = 0; i < n; i++)
        assert_true(compute[i].end_s <= it.iteration_s);
    free(seen);
    free(compute);
    ts_trace_free(&trace);
    ts_eval_scratch_free(&s);
}

/* ---------------------------------------------------------------- context parallelism */

/* The llama3-8b-shaped job at seq 32768 on 2 dgx-h100 nodes, cp 8 (tp 1: no TP traffic),
 * placed by `order`, on `software` (a JSON value; NULL: the default profile): its compute in
 * *c and the exposed context-parallel time of one layer's forward and backward in its plan.
 * Returns the job (the caller frees it). */
static struct ts_job *cp_job(const char *software, const char *order, struct ts_compute *c,
                             double *fwd_comm, double *bwd_comm)
{
    char sw[640] = "";
    if (software)
        snprintf(sw, sizeof sw, " \"software\": %s,", software);
    char text[1536];
    snprintf(text, sizeof text,
             "{\"model\": {\"name\": \"m\", \"layers\": 4, \"hidden\": 4096, \"heads\": 32,"
             " \"kv_heads\": 8, \"ffn_hidden\": 14336, \"ffn\": \"swiglu\", \"vocab\": 128256,"
             " \"seq_len\": 32768}, \"system\": \"dgx-h100\", \"gpus\": 16, \"global_batch\": 2,%s"
             " \"parallel\": {\"tp\": 1, \"pp\": 1, \"cp\": 8, \"order\": \"%s\"}}", sw, order);
    struct ts_job *job = ts_xmalloc(sizeof *job);
    parse_job(text, job);
    ts_compute_build(job, c);
    struct ts_eval_scratch s;
    assert_int_equal(ts_eval_scratch_init(&s), 0);
    ts_step_plan_build(job, c, &s.plan);
    *fwd_comm = s.plan.layer_fwd_s - c->layer.fwd.time_s;
    *bwd_comm = s.plan.layer_bwd_s - c->layer.bwd.time_s;
    ts_eval_scratch_free(&s);
    return job;
}

/* cp_job on the default profile: the exposed forward time, *sys the job's system and, when
 * bwd_comm is not NULL, the exposed backward time. */
static double cp_forward_comm(const char *order, struct ts_compute *c, struct ts_system *sys,
                              double *bwd_comm)
{
    double fwd, bwd;
    struct ts_job *job = cp_job(NULL, order, c, &fwd, &bwd);
    if (bwd_comm)
        *bwd_comm = bwd;
    *sys = job->system;
    free(job);
    return fwd;
}

/* Each ring step passes a K/V block to the next rank: inside one node over NVLink, across
 * nodes (cp ranks 8 GPUs apart when dp is placed inside the node) over the 50 GB/s NIC. The
 * exposed time is what the step's attention cannot hide: steps x max(0, hop - attn/(steps+1)),
 * the hop priced by hand from the system's alpha-beta constants. */
static void context_parallel_rings_across_nodes_pay_the_network(void **state)
{
    (void)state;
    struct ts_compute in, out;
    struct ts_system sys;
    double inside = cp_forward_comm("tp,cp,dp,pp", &in, &sys, NULL);
    double across = cp_forward_comm("tp,dp,cp,pp", &out, &sys, NULL);
    int steps = out.layer.cp_steps;
    assert_int_equal(steps, 7);
    double block = out.layer.cp_fwd_bytes / steps;
    double hop_nic = sys.scale_out.latency + block / (sys.scale_out.bandwidth * sys.scale_out.efficiency);
    double hop_nvl = sys.scale_up.latency + block / (sys.scale_up.bandwidth * sys.scale_up.efficiency);
    double hide = out.layer.attn_fwd_s / (steps + 1);
    assert_close(across, steps * fmax(0.0, hop_nic - hide), 1e-6, 1e-12);
    assert_close(inside, steps * fmax(0.0, hop_nvl - hide), 1e-6, 1e-12);
    assert_true(across > inside);
    assert_true(across > 0.0);
}

/* Backward passes K/V and dK/dV each ring step, hidden behind that step's attention
 * backward, and then the dK/dV hop back to their owner, which nothing hides: with the ring
 * across nodes, steps x max(0, hop(2 kv) - attn_bwd/(steps+1)) + hop(kv), priced by hand. */
static void context_parallel_backward_exposes_the_last_gradient_hop(void **state)
{
    (void)state;
    struct ts_compute c;
    struct ts_system sys;
    double bwd = 0.0;
    cp_forward_comm("tp,dp,cp,pp", &c, &sys, &bwd);
    int steps = c.layer.cp_steps;
    double kv = c.layer.cp_fwd_bytes / steps;
    assert_close(c.layer.cp_bwd_bytes, 2.0 * kv * steps, 1e-12, 0);
    assert_close(c.layer.cp_bwd_tail_bytes, kv, 1e-12, 0);
    double nic = sys.scale_out.bandwidth * sys.scale_out.efficiency;
    double hop2 = sys.scale_out.latency + 2.0 * kv / nic;
    double tail = sys.scale_out.latency + kv / nic;
    double hide = c.layer.attn_bwd_s / (steps + 1);
    assert_close(bwd, steps * fmax(0.0, hop2 - hide) + tail, 1e-6, 1e-12);
    assert_true(tail > 0.0 && bwd > 0.99 * tail);  /* the last hop shows even when the ring hides */
}

/* PyTorch context_parallel as torchtitan runs it (software context_parallel: rotate
 * "allgather", repeat_kv, grad_dtype fp32; comm_contention as given) on the job of
 * cp_job: the plan's exposed forward and backward CP time of one layer. */
#define PT_CP_SOFTWARE                                                                      \
    "{\"name\": \"pt\", \"description\": \"d\", \"source\": \"s\", \"comm_contention\": %s, " \
    "\"context_parallel\": {\"rotate\": \"allgather\", \"repeat_kv\": true, "                 \
    "\"grad_dtype\": \"fp32\"}}"
static struct ts_job *pt_cp_job(const char *order, const char *contention, struct ts_compute *c,
                                double *fwd_comm, double *bwd_comm)
{
    char sw[512];
    snprintf(sw, sizeof sw, PT_CP_SOFTWARE, contention);
    return cp_job(sw, order, c, fwd_comm, bwd_comm);
}

/* With the all-gather rotation every rank's K/V (query heads: 32, repeated from 8) arrive
 * in one all-gather issued with step 0 and waited for at step 1, so only step 0's attention
 * hides it: forward max(0, AG - attn/8); backward the same gather again, then the fp32 dK/dV
 * hops of 2 x 4 bytes x T x 32 x 128 (7 behind steps 1..7, the last after the loop) priced by
 * hand over the NIC (the ring crosses the two nodes). */
static void an_allgather_ring_hides_its_gather_behind_the_first_step_only(void **state)
{
    (void)state;
    struct ts_compute c;
    double fwd, bwd;
    struct ts_job *job = pt_cp_job("tp,dp,cp,pp", "false", &c, &fwd, &bwd);
    const struct ts_system *sys = &job->system;
    const double T = 32768 / 8, heads = 32, d = 128;
    double kv = 2.0 * 2.0 * T * heads * d, dkv = 2.0 * 4.0 * T * heads * d;
    assert_int_equal(c.layer.cp_steps, 7);
    assert_close(c.layer.cp_gather_bytes, 8 * kv, 1e-12, 0);
    assert_close(c.layer.cp_fwd_bytes, 0, 0, 0);
    assert_close(c.layer.cp_bwd_bytes, 7 * dkv, 1e-12, 0);
    assert_close(c.layer.cp_bwd_tail_bytes, dkv, 1e-12, 0);
    struct ts_group g;
    ts_comm_group(sys, &job->parallel, TS_PDIM_CP, &g);
    assert_int_equal(g.domains, 2);
    struct ts_coll_cost ag;
    ts_comm_collective(sys, TS_COLL_ALLGATHER, &g, 8 * kv, &ag);
    double nic = sys->scale_out.bandwidth * sys->scale_out.efficiency;
    double hop = sys->scale_out.latency + dkv / nic;
    double step_f = c.layer.attn_fwd_s / 8, step_b = c.layer.attn_bwd_s / 8;
    assert_close(fwd, fmax(0.0, ag.time_s - step_f), 1e-6, 1e-12);
    assert_close(bwd, fmax(0.0, ag.time_s - step_b) + 7 * fmax(0.0, hop - step_b) + hop, 1e-6,
                 1e-12);
    assert_true(fwd > 0.0);     /* 8 x 64 MiB gathered over the NIC outlast one step */
    free(job);
}

/* A stack whose overlapped collectives slow the compute beside them (comm_contention) pays
 * the accelerator's overlap_slowdown on the hidden part of every CP transfer: the gather's
 * min(AG, step) and each hidden hop's min(hop, step), forward and backward. */
static void hidden_context_parallel_transfers_slow_the_attention_under_contention(void **state)
{
    (void)state;
    struct ts_compute c0, c1;
    double f0, b0, f1, b1;
    struct ts_job *j0 = pt_cp_job("tp,dp,cp,pp", "false", &c0, &f0, &b0);
    struct ts_job *j1 = pt_cp_job("tp,dp,cp,pp", "true", &c1, &f1, &b1);
    const struct ts_system *sys = &j1->system;
    struct ts_group g;
    ts_comm_group(sys, &j1->parallel, TS_PDIM_CP, &g);
    struct ts_coll_cost ag;
    ts_comm_collective(sys, TS_COLL_ALLGATHER, &g, c1.layer.cp_gather_bytes, &ag);
    double nic = sys->scale_out.bandwidth * sys->scale_out.efficiency;
    double hop = sys->scale_out.latency + c1.layer.cp_bwd_tail_bytes / nic;
    double step_f = c1.layer.attn_fwd_s / 8, step_b = c1.layer.attn_bwd_s / 8;
    double k = sys->accel.overlap_slowdown;
    assert_true(k > 0.0);
    assert_close(c1.layer.attn_fwd_s, c0.layer.attn_fwd_s, 1e-15, 0);
    assert_close(f1 - f0, k * fmin(ag.time_s, step_f), 1e-6, 1e-12);
    assert_close(b1 - b0, k * (fmin(ag.time_s, step_b) + 7 * fmin(hop, step_b)), 1e-6, 1e-12);
    free(j0);
    free(j1);
}

/* ---------------------------------------------------------------- ZeRO-3 / FSDP units */

/* A job of `layers` layers (h 1024) on 16 GPUs of two nodes, pp 1, dp 16, ZeRO-3 with the
 * given unit size, over a scale-out of `net` ("1 Gb/s": far slower than compute; "3200
 * Gb/s": far faster). */
static void fsdp_job(struct ts_job *job, int unit_layers, const char *net, int zero)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"model\": {\"name\": \"f\", \"layers\": 8, \"hidden\": 1024, \"heads\": 8, "
             "\"vocab\": 32000, \"seq_len\": 1024, \"ffn\": \"swiglu\", \"ffn_hidden\": 2816}, "
             "\"system\": {\"name\": \"s\", \"accelerator\": {\"name\": \"g\", \"peak_flops\": "
             "{\"bf16\": 1e14}, \"memory\": \"80 GiB\", \"memory_bandwidth\": 1e12, "
             "\"gemm_efficiency\": [[1000, 0.5]]}, \"gpus_per_node\": 8, \"scale_up\": "
             "{\"bandwidth\": \"300 GB/s\", \"latency\": \"5 us\", \"domain_size\": 8}, "
             "\"scale_out\": {\"bandwidth\": \"%s\", \"latency\": \"10 us\"}}, "
             "\"gpus\": 16, \"global_batch\": 64, \"parallel\": {\"zero\": %d, "
             "\"fsdp_unit_layers\": %d}}",
             net, zero, unit_layers);
    parse_valid_job(text, job);
}

static void fsdp_with_one_unit_per_chunk_is_zero3_at_chunk_granularity(void **state)
{
    (void)state;
    /* Oracle: one unit holding the whole chunk is gathered before each task and reduced
     * after each backward, as one all-gather / reduce-scatter of the chunk's parameters on
     * the gradient group; the tasks themselves last their compute (as with ZeRO-1). */
    const char *nets[] = {"1 Gb/s", "3200 Gb/s"};
    for (int i = 0; i < 2; i++) {
        struct ts_job z3, z1;
        fsdp_job(&z3, 8, nets[i], 3);
        fsdp_job(&z1, 8, nets[i], 1);
        struct ts_compute c3, c1;
        struct ts_step_plan p3, p1;
        build_plan(&z3, &c3, &p3);
        build_plan(&z1, &c1, &p1);
        const struct ts_step_chunk *x = &p3.chunk[0];
        assert_close(x->fwd_s, p1.chunk[0].fwd_s, 1e-15, 0);
        assert_close(x->bwd_s, p1.chunk[0].bwd_s, 1e-15, 0);
        struct ts_group g;
        ts_comm_group(&z3.system, &z3.parallel, TS_PDIM_DP, &g);
        struct ts_coll_cost ag, rs;
        ts_comm_collective(&z3.system, TS_COLL_ALLGATHER, &g, x->params * 2.0, &ag);
        ts_comm_collective(&z3.system, TS_COLL_REDUCESCATTER, &g, x->params * 4.0, &rs);
        double bw = p3.dp_over_nic ? p3.nic_bandwidth : p3.up_bandwidth;
        assert_true(p3.dp_over_nic);
        assert_close(x->z3_gather_latency_s, ag.latency_s, 1e-12, 0);
        assert_close(x->z3_gather_bytes, (ag.time_s - ag.latency_s) * bw, 1e-12, 0);
        assert_close(x->z3_bgather_bytes, x->z3_gather_bytes, 1e-12, 0);
        assert_close(x->z3_scatter_latency_s, rs.latency_s, 1e-12, 0);
        assert_close(x->z3_scatter_bytes, (rs.time_s - rs.latency_s) * bw, 1e-12, 0);
        ts_step_plan_free(&p3);
        ts_step_plan_free(&p1);
    }
}

static void fsdp_units_hide_gathers_behind_compute_as_a_flow_shop(void **state)
{
    (void)state;
    /* Per-layer units, prefetch 1. Forward: unit i + 1's all-gather (g) runs while unit i
     * computes (c); with g far above c every unit after the first waits for its gather, so
     * the forward lasts (n - 1) g + c + the output layer (the embedding hides inside the
     * first gather); with g far below c the forward is its compute. Backward: each unit's
     * link work is its re-gather plus the previous unit's reduce-scatter. */
    struct ts_job slow, fast, base;
    fsdp_job(&slow, 1, "1 Gb/s", 3);
    fsdp_job(&fast, 1, "3200 Gb/s", 3);
    fsdp_job(&base, 1, "1 Gb/s", 1);
    struct ts_compute cs, cf, cb;
    struct ts_step_plan ps, pf, pb;
    build_plan(&slow, &cs, &ps);
    build_plan(&fast, &cf, &pf);
    build_plan(&base, &cb, &pb);
    int n = 8;
    double c = pb.layer_fwd_s, cbk = pb.layer_bwd_s + pb.layer_recompute_s;
    double out_f = cb.output.fwd.time_s, emb_b = cb.embed.bwd.time_s;
    struct ts_group g;
    ts_comm_group(&slow.system, &slow.parallel, TS_PDIM_DP, &g);
    struct ts_coll_cost ag, rs;
    ts_comm_collective(&slow.system, TS_COLL_ALLGATHER, &g, cs.layer.params * 2.0, &ag);
    ts_comm_collective(&slow.system, TS_COLL_REDUCESCATTER, &g, cs.layer.params * 4.0, &rs);
    assert_true(ag.time_s > 10 * (c + cb.embed.fwd.time_s));
    assert_close(ps.chunk[0].fwd_s, (n - 1) * ag.time_s + c + out_f, 1e-12, 0);
    /* Backward, units computed last to first: unit n - 1 starts at 0; each later unit
     * waits for its gather, issued when the previous unit started, behind the previous
     * unit's reduce-scatter: start_i = start_{i-1} + g + rs from the second gather on
     * (the first gather is issued at 0 and only waits for itself). */
    double expect = ag.time_s + (n - 2) * (ag.time_s + rs.time_s) + cbk + emb_b;
    assert_close(ps.chunk[0].bwd_s, expect, 1e-9, 0);
    assert_close(ps.chunk[0].fwd_z3_s, ps.chunk[0].fwd_s - pb.chunk[0].fwd_s, 1e-12, 1e-15);
    assert_close(ps.chunk[0].fwd_comm_s, pb.chunk[0].fwd_comm_s, 1e-15, 0);
    /* Fast network: the units' communication hides completely. */
    assert_close(pf.chunk[0].fwd_s, pb.chunk[0].fwd_s, 1e-15, 0);
    assert_close(pf.chunk[0].bwd_s, pb.chunk[0].bwd_s, 1e-15, 0);
    /* Per-layer units expose far less than gathering the whole model before each task. */
    struct ts_job whole;
    fsdp_job(&whole, 8, "3200 Gb/s", 3);
    struct ts_eval_scratch sc;
    assert_int_equal(ts_eval_scratch_init(&sc), 0);
    struct ts_iteration it_unit, it_whole;
    ts_step_evaluate(&fast, TS_METHOD_DISCRETE_EVENT, &sc, &it_unit, NULL, NULL);
    ts_step_evaluate(&whole, TS_METHOD_DISCRETE_EVENT, &sc, &it_whole, NULL, NULL);
    assert_true(it_unit.iteration_s < it_whole.iteration_s);
    ts_eval_scratch_free(&sc);
    ts_step_plan_free(&ps);
    ts_step_plan_free(&pf);
    ts_step_plan_free(&pb);
}

static void fsdp_unit_compute_slows_by_the_contention_of_the_collectives_beside_it(void **state)
{
    (void)state;
    /* With comm_contention each unit's compute runs overlap_slowdown slower for as long as
     * the communication stream works beside it: its all-gather in forward, all-gather plus
     * reduce-scatter in backward, at most the unit's own compute (Lee et al. 2025). Fast
     * network (g < c, g + rs < c): every unit of the 8 adds s g forward and s (g + rs) backward. Slow
     * network (g >> c): the exposed gathers set the pace and the one unit nothing waits
     * behind (the last) adds s c. */
    const double slow_down = 0.25;
    const char *nets[] = {"3200 Gb/s", "1 Gb/s"};
    for (int i = 0; i < 2; i++) {
        struct ts_job off, on;
        fsdp_job(&off, 1, nets[i], 3);
        fsdp_job(&on, 1, nets[i], 3);
        on.parallel.sw.contention = true;
        on.system.accel.overlap_slowdown = slow_down;
        off.system.accel.overlap_slowdown = slow_down;   /* ignored: contention off */
        struct ts_compute c0, c1;
        struct ts_step_plan p0, p1;
        build_plan(&off, &c0, &p0);
        build_plan(&on, &c1, &p1);
        struct ts_group g;
        ts_comm_group(&on.system, &on.parallel, TS_PDIM_DP, &g);
        struct ts_coll_cost ag, rs;
        ts_comm_collective(&on.system, TS_COLL_ALLGATHER, &g, c1.layer.params * 2.0, &ag);
        ts_comm_collective(&on.system, TS_COLL_REDUCESCATTER, &g, c1.layer.params * 4.0, &rs);
        double cf = p0.layer_fwd_s, cb = p0.layer_bwd_s + p0.layer_recompute_s;
        if (i == 0) {
            assert_true(ag.time_s < cf && ag.time_s + rs.time_s < cb);
            assert_close(p1.chunk[0].fwd_s - p0.chunk[0].fwd_s, 8 * slow_down * ag.time_s, 1e-9, 0);
            assert_close(p1.chunk[0].bwd_s - p0.chunk[0].bwd_s,
                         8 * slow_down * (ag.time_s + rs.time_s), 1e-9, 0);
        } else {
            assert_true(ag.time_s > 10 * cb);
            assert_close(p1.chunk[0].fwd_s - p0.chunk[0].fwd_s, slow_down * cf, 1e-9, 0);
        }
        ts_step_plan_free(&p0);
        ts_step_plan_free(&p1);
    }
}

static void fsdp2_copies_add_a_copy_out_per_gather_and_a_copy_in_per_backward_unit(void **state)
{
    (void)state;
    /* Oracle (torch fully_shard, _fsdp_collectives.py): after each unit's all-gather the
     * compute stream copies the gathered 16-bit buffer into the parameters (read + write,
     * 2 x 2 bytes per parameter); after each unit's backward it waits for the copy of the
     * 16-bit gradients into the fp32 reduce-scatter buffer (2 + 4 bytes). With a fast network
     * the communication stays hidden, so the 8 per-layer units' forward lengthens by
     * 8 (4 P / bw + latency) plus the embedding's and output layer's 4 bytes per parameter,
     * and their backward by 8 (10 P / bw + 2 latency) plus 10 bytes per parameter of both. */
    struct ts_job off, on;
    fsdp_job(&off, 1, "3200 Gb/s", 3);
    fsdp_job(&on, 1, "3200 Gb/s", 3);
    off.parallel.sw.contention = on.parallel.sw.contention = false;
    off.parallel.sw.fsdp2_copies = false;
    on.parallel.sw.fsdp2_copies = true;
    struct ts_compute c0, c1;
    struct ts_step_plan p0, p1;
    build_plan(&off, &c0, &p0);
    build_plan(&on, &c1, &p1);
    const struct ts_accel *a = &on.system.accel;
    double bw = a->memory_bandwidth * a->memory_efficiency;
    double lat = on.parallel.sw.kernel_latency_s >= 0 ? on.parallel.sw.kernel_latency_s
                                                      : a->kernel_latency;
    double P = c1.layer.params, E = c1.embed.params, O = c1.output.params;
    assert_true(P > 0 && E > 0 && O > 0);
    assert_close(p1.chunk[0].fwd_s - p0.chunk[0].fwd_s, 8 * (4.0 * P / bw + lat) + 4.0 * (E + O) / bw,
                 1e-9, 0);
    assert_close(p1.chunk[0].bwd_s - p0.chunk[0].bwd_s,
                 8 * (10.0 * P / bw + 2.0 * lat) + 10.0 * (E + O) / bw, 1e-9, 0);
    /* Without ZeRO-3 nothing is gathered, so nothing is copied. */
    struct ts_job z1off, z1on;
    fsdp_job(&z1off, 1, "3200 Gb/s", 1);
    fsdp_job(&z1on, 1, "3200 Gb/s", 1);
    z1on.parallel.sw.fsdp2_copies = true;
    z1off.parallel.sw.fsdp2_copies = false;
    struct ts_compute c2, c3;
    struct ts_step_plan p2, p3;
    build_plan(&z1off, &c2, &p2);
    build_plan(&z1on, &c3, &p3);
    assert_close(p3.chunk[0].fwd_s, p2.chunk[0].fwd_s, 1e-15, 0);
    assert_close(p3.chunk[0].bwd_s, p2.chunk[0].bwd_s, 1e-15, 0);
    ts_step_plan_free(&p0);
    ts_step_plan_free(&p1);
    ts_step_plan_free(&p2);
    ts_step_plan_free(&p3);
}

/* fsdp_job's model and system in fp8 (fp8 peak 2e14), per-layer units, 1 Gb/s across the
 * two nodes, with or without the float8 all-gather. */
static void fsdp_fp8_job(struct ts_job *job, bool fp8_allgather)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"model\": {\"name\": \"f\", \"layers\": 8, \"hidden\": 1024, \"heads\": 8, "
             "\"vocab\": 32000, \"seq_len\": 1024, \"ffn\": \"swiglu\", \"ffn_hidden\": 2816}, "
             "\"system\": {\"name\": \"s\", \"accelerator\": {\"name\": \"g\", \"peak_flops\": "
             "{\"bf16\": 1e14, \"fp8\": 2e14}, \"memory\": \"80 GiB\", \"memory_bandwidth\": 1e12, "
             "\"gemm_efficiency\": [[1000, 0.5]]}, \"gpus_per_node\": 8, \"scale_up\": "
             "{\"bandwidth\": \"300 GB/s\", \"latency\": \"5 us\", \"domain_size\": 8}, "
             "\"scale_out\": {\"bandwidth\": \"1 Gb/s\", \"latency\": \"10 us\"}}, "
             "\"gpus\": 16, \"global_batch\": 64, \"precision\": \"fp8\", \"parallel\": "
             "{\"zero\": 3, \"fsdp_unit_layers\": 1, \"fsdp_fp8_allgather\": %s}}",
             fp8_allgather ? "true" : "false");
    parse_valid_job(text, job);
}

static void fsdp_float8_all_gather_moves_the_layers_weights_at_one_byte(void **state)
{
    (void)state;
    /* Oracle: with gathers far slower than compute the forward lasts (n - 1) g + compute
     * (fsdp_units_hide_gathers_behind_compute_as_a_flow_shop), so the float8 gather changes
     * it by (n - 1) (g(P x 1 byte) - g(P x 2 bytes)); the first unit's gather, a flow of the
     * step simulation, moves its layer at 1 byte and the embedding at 2. */
    struct ts_job off, on;
    fsdp_fp8_job(&off, false);
    fsdp_fp8_job(&on, true);
    struct ts_compute c0, c1;
    struct ts_step_plan p0, p1;
    build_plan(&off, &c0, &p0);
    build_plan(&on, &c1, &p1);
    struct ts_group g;
    ts_comm_group(&on.system, &on.parallel, TS_PDIM_DP, &g);
    double P = c1.layer.params, E = c1.embed.params;
    struct ts_coll_cost ag1, ag2, first1, first2;
    ts_comm_collective(&on.system, TS_COLL_ALLGATHER, &g, P * 1.0, &ag1);
    ts_comm_collective(&on.system, TS_COLL_ALLGATHER, &g, P * 2.0, &ag2);
    ts_comm_collective(&on.system, TS_COLL_ALLGATHER, &g, P * 1.0 + E * 2.0, &first1);
    ts_comm_collective(&on.system, TS_COLL_ALLGATHER, &g, (P + E) * 2.0, &first2);
    assert_true(ag1.time_s > 10 * p0.layer_bwd_s);
    assert_close(p1.chunk[0].fwd_s - p0.chunk[0].fwd_s, 7 * (ag1.time_s - ag2.time_s), 1e-9, 0);
    double bw = p1.nic_bandwidth;
    assert_true(p1.dp_over_nic);
    assert_close(p1.chunk[0].z3_gather_bytes, (first1.time_s - first1.latency_s) * bw, 1e-12, 0);
    assert_close(p0.chunk[0].z3_gather_bytes, (first2.time_s - first2.latency_s) * bw, 1e-12, 0);
    ts_step_plan_free(&p0);
    ts_step_plan_free(&p1);
}

static void fsdp_without_backward_prefetch_queues_each_gather_behind_the_reduce_scatter(void **state)
{
    (void)state;
    /* backward_prefetch None: the next unit's all-gather is issued when a unit's backward
     * ends, after its reduce-scatter on the one stream, so every unit after the first (computed
     * last to first) starts rs + g after the previous one ended, however fast the network:
     * bwd = (n - 1)(c + rs + g) + c + the output layer's backward (computed with the first
     * unit) + the embedding's (with the last). The forward is unchanged. */
    const char *nets[] = {"1 Gb/s", "3200 Gb/s"};
    for (int i = 0; i < 2; i++) {
        struct ts_job pre, post, base;
        fsdp_job(&pre, 1, nets[i], 3);
        fsdp_job(&post, 1, nets[i], 3);
        post.parallel.fsdp_no_backward_prefetch = true;
        fsdp_job(&base, 1, nets[i], 1);
        struct ts_compute cp, cq, cb;
        struct ts_step_plan pp, pq, pb;
        build_plan(&pre, &cp, &pp);
        build_plan(&post, &cq, &pq);
        build_plan(&base, &cb, &pb);
        int n = 8;
        double cbk = pb.layer_bwd_s + pb.layer_recompute_s;
        double head_b = pb.chunk[0].bwd_s - n * cbk - cb.embed.bwd.time_s;
        struct ts_group g;
        ts_comm_group(&post.system, &post.parallel, TS_PDIM_DP, &g);
        struct ts_coll_cost ag, rs;
        ts_comm_collective(&post.system, TS_COLL_ALLGATHER, &g, cq.layer.params * 2.0, &ag);
        ts_comm_collective(&post.system, TS_COLL_REDUCESCATTER, &g, cq.layer.params * 4.0, &rs);
        assert_close(pq.chunk[0].bwd_s,
                     (n - 1) * (cbk + rs.time_s + ag.time_s) + cbk + head_b + cb.embed.bwd.time_s,
                     1e-9, 0);
        assert_close(pq.chunk[0].fwd_s, pp.chunk[0].fwd_s, 1e-15, 0);
        assert_true(pq.chunk[0].bwd_s >= pp.chunk[0].bwd_s);
        ts_step_plan_free(&pp);
        ts_step_plan_free(&pq);
        ts_step_plan_free(&pb);
    }
    /* The default prefetches. */
    struct ts_job job;
    fsdp_job(&job, 1, "1 Gb/s", 3);
    assert_false(job.parallel.fsdp_no_backward_prefetch);
}

static void hybrid_sharding_gathers_inside_the_group_and_all_reduces_across_replicas(void **state)
{
    (void)state;
    /* 16 GPUs on two nodes, zero_group 8: the shard group is one node (NVLink), the two
     * replicas all-reduce each reduced shard (1/8 of a unit's gradient) over the network. */
    struct ts_job job;
    fsdp_job(&job, 8, "1 Gb/s", 3);
    job.parallel.zero_group = 8;
    struct ts_compute c;
    struct ts_step_plan pl;
    build_plan(&job, &c, &pl);
    const struct ts_step_chunk *x = &pl.chunk[0];
    struct ts_group shard, replicas;
    ts_comm_group_strided(&job.system, 8, 1, &shard);
    ts_comm_group_strided(&job.system, 2, 8, &replicas);
    assert_int_equal(shard.domains, 1);
    assert_int_equal(replicas.domains, 2);
    struct ts_coll_cost ag, rs, ar;
    ts_comm_collective(&job.system, TS_COLL_ALLGATHER, &shard, x->params * 2.0, &ag);
    ts_comm_collective(&job.system, TS_COLL_REDUCESCATTER, &shard, x->params * 4.0, &rs);
    ts_comm_collective(&job.system, TS_COLL_ALLREDUCE, &replicas, x->params * 4.0 / 8, &ar);
    double bw = pl.dp_over_nic ? pl.nic_bandwidth : pl.up_bandwidth;
    assert_close(x->z3_gather_latency_s, ag.latency_s, 1e-12, 0);
    assert_close(x->z3_gather_bytes, (ag.time_s - ag.latency_s) * bw, 1e-12, 0);
    assert_close(x->z3_scatter_latency_s, rs.latency_s + ar.latency_s, 1e-12, 0);
    assert_close(x->z3_scatter_bytes, (rs.time_s + ar.time_s - rs.latency_s - ar.latency_s) * bw,
                 1e-12, 0);
    ts_step_plan_free(&pl);

    /* A group size that does not divide dp x cp is an input error naming the key. */
    struct ts_err err;
    ts_err_clear(&err);
    job.parallel.zero_group = 3;
    assert_int_equal(ts_job_validate(&job, "test.json", &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "parallel.zero_group"));
    job.parallel.zero_group = 8;
    job.parallel.zero = 0;
    assert_int_equal(ts_job_validate(&job, "test.json", &err), TS_ERR_INPUT);
}

static void hybrid_sharding_without_dp_overlap_all_reduces_across_replicas_after_the_backward(void **state)
{
    (void)state;
    /* zero_group 8 on two nodes with dp_overlap off (XLA / MaxText: FSDP inside a VM, data
     * parallel across VMs, the cross-VM gradient all-reduce after the backward): each unit
     * reduce-scatters inside the node only; the chunk's reduced fp32 shard (params x 4 / 8
     * bytes) is all-reduced over the two replicas in ceil(shard / bucket_bytes) buckets that
     * start when the last backward ends, so the step lasts at least the backward's end plus
     * those buckets plus the optimizer. */
    const char *nets[] = {"1 Gb/s", "100 Gb/s"};
    for (int i = 0; i < 2; i++) {
        struct ts_job on, off;
        fsdp_job(&on, 1, nets[i], 3);
        fsdp_job(&off, 1, nets[i], 3);
        on.parallel.zero_group = off.parallel.zero_group = 8;
        off.parallel.dp_overlap = false;
        struct ts_compute con, coff;
        struct ts_step_plan pon, poff;
        build_plan(&on, &con, &pon);
        build_plan(&off, &coff, &poff);
        const struct ts_step_chunk *x = &poff.chunk[0];
        assert_int_equal(pon.chunk[0].buckets, 0);
        struct ts_group replicas;
        ts_comm_group_strided(&off.system, 2, 8, &replicas);
        double shard = x->params * 4.0 / 8;
        int nb = (int)ceil(shard / off.parallel.bucket_bytes);
        assert_true(nb >= 1);
        assert_int_equal(x->buckets, nb);
        struct ts_coll_cost ar;
        ts_comm_collective(&off.system, TS_COLL_ALLREDUCE, &replicas, shard / nb, &ar);
        double bw = poff.dp_over_nic ? poff.nic_bandwidth : poff.up_bandwidth;
        assert_close(x->bucket_latency_s, ar.latency_s, 1e-12, 0);
        assert_close(x->bucket_bytes, (ar.time_s - ar.latency_s) * bw, 1e-9, 0);
        /* the units' communication no longer carries the cross-replica part */
        assert_true(x->bwd_s <= pon.chunk[0].bwd_s);

        struct ts_step_sim *sim = ts_step_sim_new();
        assert_non_null(sim);
        struct ts_step_result roff;
        ts_step_simulate(sim, &poff, &roff, NULL, NULL);
        double after = nb * ar.time_s;
        assert_true(roff.iteration_s >= roff.pipeline_s + after + roff.optimizer_s - 1e-9);
        assert_true(roff.exposed_dp_s >= after - 1e-9);
        assert_true(ts_step_lower_bound(&poff) <= roff.iteration_s + 1e-12);
        ts_step_sim_free(sim);
        ts_step_plan_free(&pon);
        ts_step_plan_free(&poff);
    }
}

/* ---------------------------------------------------------------- size budget */

/* pp x 2 x microbatches x virtual_stages in 64 bits: pp 2, v 64 and 2^25 microbatches is
 * 2 x 2 x 2^25 x 64 = 2^33 tasks (an int would overflow), refused before allocation with a
 * message naming the keys and the limit; a job at exactly 2^24 tasks is accepted, one with
 * twice the virtual stages is not. */
static void task_count_is_computed_in_64_bits_and_bounded_before_allocation(void **state)
{
    (void)state;
    struct ts_job job;
    load_config("configs/gpt3-175b-a100.json", &job);
    /* The count takes any factors (the validator checks their divisibility). */
    job.parallel.tp = 8;
    job.parallel.pp = 2;
    job.parallel.dp = 64;
    job.parallel.microbatch = 1;
    job.parallel.virtual_stages = 64;
    job.global_batch = 1 << 26;                 /* 2^26 / (64 x 1) = 2^20 microbatches */
    assert_true(ts_step_task_count(&job) == (int64_t)2 * 2 * (1 << 20) * 64);
    job.parallel.dp = 2;                        /* 2^25 microbatches */
    assert_true(ts_step_task_count(&job) == (int64_t)1 << 33);
    struct ts_err err;
    ts_err_clear(&err);
    assert_int_equal(ts_step_check_size(&job, "job.json", &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "job.json: global_batch:"));
    assert_non_null(strstr(err.msg, "microbatch"));
    assert_non_null(strstr(err.msg, "virtual_stages"));
    assert_non_null(strstr(err.msg, "8589934592 tasks"));
    assert_non_null(strstr(err.msg, "limit of 16777216 tasks"));
    /* At the limit: pp 2 x 2 x 2^21 x v 2 = 2^24. */
    job.parallel.virtual_stages = 2;
    job.parallel.dp = 32;                       /* 2^26 / 32 = 2^21 microbatches */
    assert_true(ts_step_task_count(&job) == TS_STEP_TASKS_MAX);
    ts_err_clear(&err);
    assert_int_equal(ts_step_check_size(&job, "job.json", &err), TS_OK);
    job.parallel.virtual_stages = 4;
    assert_int_equal(ts_step_check_size(&job, "job.json", &err), TS_ERR_INPUT);
    /* Nonsense factors never overflow: the count says so. */
    job.parallel.microbatch = 0;
    assert_true(ts_step_task_count(&job) == -1);
}

/* The validator applies the budget: a job of 2^26 sequences, one per microbatch, on one
 * pipeline (dp 1) would hold 2^27 tasks. */
static void job_validation_refuses_an_iteration_above_the_task_budget(void **state)
{
    (void)state;
    struct ts_job job;
    load_config("configs/gpt3-175b-a100.json", &job);
    struct ts_err err;
    ts_err_clear(&err);
    assert_int_equal(ts_job_validate(&job, "job.json", &err), TS_OK);
    job.parallel.schedule = TS_SCHED_1F1B;
    job.parallel.virtual_stages = 1;
    job.parallel.tp = 8;
    job.parallel.pp = 1;
    job.parallel.dp = 128;
    job.parallel.microbatch = 1;
    job.global_batch = 1 << 26;                 /* 2^19 microbatches: 2^20 tasks, fine */
    assert_int_equal(ts_job_validate(&job, "job.json", &err), TS_OK);
    job.nodes = 1;
    job.gpus = 8;
    job.parallel.dp = 1;                        /* 2^26 microbatches: 2^27 tasks */
    assert_int_equal(ts_job_validate(&job, "job.json", &err), TS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "134217728 tasks"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpipe_and_1f1b_take_p_minus_1_plus_m_slots_of_tf_plus_tb),
        cmocka_unit_test(bubble_fraction_is_p_minus_1_over_m_plus_p_minus_1),
        cmocka_unit_test(interleaved_takes_m_plus_p_minus_1_over_v_slots),
        cmocka_unit_test(schedules_run_the_tasks_in_megatron_lm_order),
        cmocka_unit_test(schedules_run_every_task_once_and_forward_before_backward),
        cmocka_unit_test(no_schedule_deadlocks_up_to_8_stages_4_chunks_and_32_microbatches),
        cmocka_unit_test(one_microbatch_through_two_stages_pays_both_transfers),
        cmocka_unit_test(messages_add_at_least_2_p_minus_1_transfers_to_1f1b),
        cmocka_unit_test(messages_far_slower_than_compute_queue_on_the_link_instead_of_aborting),
        cmocka_unit_test(slow_buckets_expose_what_the_last_backward_cannot_hide),
        cmocka_unit_test(overlapping_buckets_never_expose_more_than_reducing_after_backward),
        cmocka_unit_test(a_pipeline_message_and_a_bucket_on_one_nic_share_its_bandwidth),
        cmocka_unit_test(the_lower_bound_never_exceeds_the_simulated_time_on_random_plans),
        cmocka_unit_test(blocking_sends_are_never_faster_than_non_blocking_ones),
        cmocka_unit_test(the_same_plan_gives_bit_identical_results_in_a_used_or_fresh_workspace),
        cmocka_unit_test(korthikanti_175b_evaluates_feasibly_with_one_compute_span_per_task),
        cmocka_unit_test(context_parallel_rings_across_nodes_pay_the_network),
        cmocka_unit_test(context_parallel_backward_exposes_the_last_gradient_hop),
        cmocka_unit_test(an_allgather_ring_hides_its_gather_behind_the_first_step_only),
        cmocka_unit_test(hidden_context_parallel_transfers_slow_the_attention_under_contention),
        cmocka_unit_test(fsdp_with_one_unit_per_chunk_is_zero3_at_chunk_granularity),
        cmocka_unit_test(fsdp_units_hide_gathers_behind_compute_as_a_flow_shop),
        cmocka_unit_test(fsdp_unit_compute_slows_by_the_contention_of_the_collectives_beside_it),
        cmocka_unit_test(fsdp2_copies_add_a_copy_out_per_gather_and_a_copy_in_per_backward_unit),
        cmocka_unit_test(fsdp_float8_all_gather_moves_the_layers_weights_at_one_byte),
        cmocka_unit_test(fsdp_without_backward_prefetch_queues_each_gather_behind_the_reduce_scatter),
        cmocka_unit_test(hybrid_sharding_gathers_inside_the_group_and_all_reduces_across_replicas),
        cmocka_unit_test(hybrid_sharding_without_dp_overlap_all_reduces_across_replicas_after_the_backward),
        cmocka_unit_test(task_count_is_computed_in_64_bits_and_bounded_before_allocation),
        cmocka_unit_test(job_validation_refuses_an_iteration_above_the_task_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
