/*
 * Tests of the whole-run simulation (sim/run): Daly's closed forms as oracles (worked examples,
 * the expected wall time with exponential failures, the optimum found by a sweep), derived
 * constants, determinism across thread counts, spares and repairs, asynchronous checkpoints,
 * spot preemption, elastic continuation, Weibull processes, the GPU-hour attribution and the
 * guards against runs that cannot finish.
 *
 * Deterministic cases use a Weibull process with a very large shape, whose failures come
 * within a fraction of a percent of its mtbf.
 */
#include <ctype.h>
#include <strings.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_gamma.h>
#include <omp.h>

#include "test_helpers.h"

#include "run/run.h"

/* ---------------------------------------------------------------- fixtures */

#define HOUR 3600.0
#define MINUTE 60.0
#define STORAGE_BW 1e9      // aggregate write bandwidth of the fixture: size = delta x 1e9

/* One node of 8 GPUs (8 replicas), 1 s iterations, no failures, sync checkpoints written at
 * 1 GB/s and read back in no time, restart 10 min. Tests add what they exercise. */
static struct ts_run_input base_input(double solve_s)
{
    struct ts_run_input in;
    memset(&in, 0, sizeof in);
    in.iteration_s = 1.0;
    in.iterations = solve_s;
    in.gpus = 8;
    in.nodes = 1;
    in.gpus_per_node = 8;
    in.dp = 8;
    in.checkpoint_bytes = 60.0 * STORAGE_BW;
    ts_reliability_defaults(&in.rel);
    in.rel.n_failures = 0;
    in.rel.checkpoint.write_bandwidth = STORAGE_BW;
    in.rel.checkpoint.node_write_bandwidth = 0.0;
    in.rel.checkpoint.read_bandwidth = 1e20;
    in.rel.checkpoint.node_read_bandwidth = 0.0;
    in.rel.restart_overhead_s = 10 * MINUTE;
    in.rel.repair_time_s = 0.0;
    in.rel.replications = 1000;
    in.rel.seed = 7;
    return in;
}

static void set_write_s(struct ts_run_input *in, double delta)
{
    in->checkpoint_bytes = delta * STORAGE_BW;
}

static void set_interval(struct ts_run_input *in, double tau)
{
    in->rel.checkpoint.interval_auto = false;
    in->rel.checkpoint.interval_s = tau;
}

static void add_process(struct ts_run_input *in, enum ts_component c, double mtbf,
                        enum ts_distribution dist, double shape)
{
    struct ts_failure_process *f = &in->rel.failures[in->rel.n_failures++];
    memset(f, 0, sizeof *f);
    f->component = c;
    f->mtbf_s = mtbf;
    f->distribution = dist;
    f->shape = shape;
    ts_strlcpy(f->name, ts_component_names[c], sizeof f->name);
}

static void simulate(const struct ts_run_input *in, struct ts_run_result *res)
{
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_run_simulate(in, res, NULL, NULL, &err);
    if (rc != TS_OK)
        print_error("ts_run_simulate: %s\n", err.msg);
    assert_int_equal(rc, TS_OK);
}

/* The GPU-hour categories of the job sum to mean wall time x gpus. */
static void assert_attribution_sums(const struct ts_run_result *r, int gpus)
{
    double sum = r->productive_gpu_h + r->rework_gpu_h + r->checkpoint_gpu_h + r->restart_gpu_h +
                 r->repair_wait_gpu_h + r->degraded_gpu_h + r->slow_node_gpu_h;
    assert_close(sum, r->mean_s * gpus / HOUR, 1e-9, 0.0);
}

/* ---------------------------------------------------------------- closed forms */

static void daly_interval_reproduces_dalys_worked_examples(void **state)
{
    (void)state;
    double delta = 5 * MINUTE;
    assert_close(ts_run_daly_interval(delta, 24 * HOUR) / MINUTE, 116.7, 0.0, 0.1);
    assert_close(ts_run_daly_interval(delta, 6 * HOUR) / MINUTE, 56.7, 0.0, 0.1);
    assert_close(ts_run_daly_interval(delta, 15 * MINUTE) / MINUTE, 9.14, 0.0, 0.1);
}

static void daly_interval_is_m_once_the_write_takes_twice_m(void **state)
{
    (void)state;
    assert_close(ts_run_daly_interval(2 * HOUR, HOUR), HOUR, 0.0, 0.0);
    assert_close(ts_run_daly_interval(5 * HOUR, HOUR), HOUR, 0.0, 0.0);
}

static void young_interval_is_the_square_root_of_twice_delta_m(void **state)
{
    (void)state;
    assert_close(ts_run_young_interval(300.0, 86400.0), sqrt(2.0 * 300.0 * 86400.0), 1e-15, 0.0);
}

static void daly_interval_is_close_to_the_minimum_of_dalys_wall_time(void **state)
{
    (void)state;
    // Golden-section search of the exact T_w(tau): the higher-order optimum is within 1%.
    double M = HOUR, delta = 5 * MINUTE, R = 10 * MINUTE, Ts = 100 * HOUR;
    double a = 60.0, b = 3 * HOUR, g = (sqrt(5.0) - 1.0) / 2.0;
    for (int i = 0; i < 200; i++) {
        double c = b - g * (b - a), d = a + g * (b - a);
        if (ts_run_daly_wall_time(M, delta, R, c, Ts) < ts_run_daly_wall_time(M, delta, R, d, Ts))
            b = d;
        else
            a = c;
    }
    assert_close(ts_run_daly_interval(delta, M), (a + b) / 2.0, 0.01, 0.0);
}

static void daly_wall_time_without_failures_is_compute_plus_checkpoints(void **state)
{
    (void)state;
    assert_close(ts_run_daly_wall_time(HUGE_VAL, 60.0, 600.0, 3600.0, 36000.0), 36600.0, 1e-15, 0.0);
    // Large M approaches the same limit (expm1 keeps it accurate).
    assert_close(ts_run_daly_wall_time(1e15, 60.0, 600.0, 3600.0, 36000.0), 36600.0, 1e-9, 0.0);
}

/* ---------------------------------------------------------------- derived constants */

static void job_mtbf_adds_every_process_scaled_by_size_and_spot_preemptions(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(HOUR);
    add_process(&in, TS_COMP_GPU, 1000 * HOUR, TS_DIST_EXPONENTIAL, 1.0);
    add_process(&in, TS_COMP_NODE, 100 * HOUR, TS_DIST_WEIBULL, 0.7);
    add_process(&in, TS_COMP_NETWORK, 200 * HOUR, TS_DIST_EXPONENTIAL, 1.0);
    add_process(&in, TS_COMP_JOB, 50 * HOUR, TS_DIST_EXPONENTIAL, 1.0);
    double rate = 64 / 1000.0 + 8 / 100.0 + 8 / 200.0 + 1 / 50.0;   // per hour, 64 GPUs in 8 nodes
    assert_close(ts_run_job_mtbf(&in.rel, 64, 8), HOUR / rate, 1e-12, 0.0);
    in.rel.spot.enabled = true;
    in.rel.spot.preemption_mtbf_s = 80 * HOUR;
    assert_close(ts_run_job_mtbf(&in.rel, 64, 8), HOUR / (rate + 8 / 80.0), 1e-12, 0.0);
}

static void checkpoint_times_use_the_tighter_of_aggregate_and_per_node_bandwidth(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(100 * HOUR);
    in.nodes = 4;
    in.gpus = 32;
    in.dp = 32;
    in.checkpoint_bytes = 1e12;
    struct ts_checkpoint *c = &in.rel.checkpoint;
    c->write_bandwidth = 0.0;
    c->node_write_bandwidth = 1e9;  // 4 GB/s for 4 nodes
    c->read_bandwidth = 2e9;        // tighter than 4 x 2.5 GB/s
    c->node_read_bandwidth = 2.5e9;
    struct ts_run_params p;
    struct ts_err err;
    assert_int_equal(ts_run_params_compute(&in, &p, &err), TS_OK);
    assert_close(p.checkpoint_write_s, 250.0, 1e-12, 0.0);
    assert_close(p.checkpoint_persist_s, 250.0, 1e-12, 0.0);
    assert_close(p.restart_s, 600.0 + 500.0, 1e-12, 0.0);
    // Async: the stall is every GPU copying its shard to host memory.
    c->mode = TS_CKPT_ASYNC;
    c->snapshot_bandwidth = 25e9;
    assert_int_equal(ts_run_params_compute(&in, &p, &err), TS_OK);
    assert_close(p.checkpoint_write_s, 1e12 / 32 / 25e9, 1e-12, 0.0);
    assert_close(p.checkpoint_persist_s, 250.0, 1e-12, 0.0);
    // An explicit size overrides the job's.
    c->size_bytes = 2e12;
    assert_int_equal(ts_run_params_compute(&in, &p, &err), TS_OK);
    assert_close(p.checkpoint_persist_s, 500.0, 1e-12, 0.0);
}

static void auto_interval_is_dalys_optimum_clamped_to_an_iteration_and_the_run(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(1000 * HOUR);
    add_process(&in, TS_COMP_JOB, 6 * HOUR, TS_DIST_EXPONENTIAL, 1.0);
    set_write_s(&in, 5 * MINUTE);
    struct ts_run_params p;
    struct ts_err err;
    assert_int_equal(ts_run_params_compute(&in, &p, &err), TS_OK);
    assert_close(p.job_mtbf_s, 6 * HOUR, 1e-12, 0.0);
    assert_close(p.checkpoint_interval_s, ts_run_daly_interval(5 * MINUTE, 6 * HOUR), 1e-12, 0.0);
    assert_close(p.solve_s, 1000 * HOUR, 1e-12, 0.0);

    in.iteration_s = 2 * HOUR;      // Daly's 56.7 min is shorter than one iteration
    in.iterations = 100;
    assert_int_equal(ts_run_params_compute(&in, &p, &err), TS_OK);
    assert_close(p.checkpoint_interval_s, 2 * HOUR, 0.0, 0.0);

    in.rel.n_failures = 0;          // no failures: one checkpoint at the end
    assert_int_equal(ts_run_params_compute(&in, &p, &err), TS_OK);
    assert_close(p.checkpoint_interval_s, p.solve_s, 0.0, 0.0);
}

static void interval_in_iterations_is_iterations_times_the_iteration_time(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(100 * HOUR);
    in.iteration_s = 7.5;
    in.iterations = 48000;
    in.rel.checkpoint.interval_auto = false;
    in.rel.checkpoint.interval_iterations = 400;
    struct ts_run_params p;
    struct ts_err err;
    assert_int_equal(ts_run_params_compute(&in, &p, &err), TS_OK);
    assert_close(p.checkpoint_interval_s, 3000.0, 1e-12, 0.0);
}

static void interval_shorter_than_an_iteration_is_rejected(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(100 * HOUR);
    in.iteration_s = 30.0;
    in.iterations = 12000;
    set_interval(&in, 20.0);
    struct ts_run_params p;
    struct ts_err err;
    ts_err_clear(&err);
    assert_input_error(ts_run_params_compute(&in, &p, &err), &err,
                       "reliability.checkpoint.interval: 20 s is shorter than one iteration (30 s)");
}

static void missing_checkpoint_size_is_rejected(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(100 * HOUR);
    in.checkpoint_bytes = 0.0;
    struct ts_run_result res;
    struct ts_err err;
    ts_err_clear(&err);
    assert_input_error(ts_run_simulate(&in, &res, NULL, NULL, &err), &err,
                       "reliability.checkpoint.size");
}

/* ---------------------------------------------------------------- without failures */

static void run_without_failures_takes_compute_plus_every_checkpoint(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(10 * HOUR);
    set_interval(&in, HOUR);
    set_write_s(&in, 60.0);
    in.rel.replications = 3;
    struct ts_run_result r;
    simulate(&in, &r);
    assert_close(r.mean_s, 10 * HOUR + 10 * 60.0, 1e-12, 0.0);
    assert_close(r.p99_s, r.mean_s, 1e-12, 0.0);
    assert_close(r.stderr_s, 0.0, 0.0, 1e-9);
    assert_close(r.checkpoints_mean, 10.0, 0.0, 0.0);
    assert_close(r.failures_mean, 0.0, 0.0, 0.0);
    assert_close(r.daly_mean_s, r.mean_s, 1e-12, 0.0);
    assert_close(r.goodput, 10 * HOUR / r.mean_s, 1e-12, 0.0);
    assert_close(r.productive_gpu_h, 10.0 * 8, 1e-12, 0.0);
    assert_close(r.checkpoint_gpu_h, 10 * 60.0 * 8 / HOUR, 1e-12, 0.0);
    assert_attribution_sums(&r, 8);
}

static void final_segment_is_shorter_when_the_run_is_not_a_multiple_of_the_interval(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(2.5 * HOUR);
    set_interval(&in, HOUR);
    set_write_s(&in, 60.0);
    in.rel.replications = 2;
    struct ts_run_result r;
    simulate(&in, &r);
    assert_close(r.checkpoints_mean, 3.0, 0.0, 0.0);
    assert_close(r.mean_s, 2.5 * HOUR + 3 * 60.0, 1e-12, 0.0);
}

/* ---------------------------------------------------------------- Daly's oracle */

/* Exponential job failures, sync checkpoints, constant restart, no spares: the simulated
 * mean must match Daly's closed form within 3 standard errors and 1%. T_s is a whole number
 * of intervals, as the formula assumes. */
static void check_daly(double M, double delta, double R, double tau, int segments)
{
    struct ts_run_input in = base_input(segments * tau);
    add_process(&in, TS_COMP_JOB, M, TS_DIST_EXPONENTIAL, 1.0);
    set_write_s(&in, delta);
    set_interval(&in, tau);
    in.rel.restart_overhead_s = R;
    in.rel.replications = 20000;
    struct ts_run_result r;
    simulate(&in, &r);
    double daly = ts_run_daly_wall_time(r.params.job_mtbf_s, r.params.checkpoint_write_s,
                                        r.params.restart_s, r.params.checkpoint_interval_s,
                                        r.params.solve_s);
    print_message("Daly M=%g delta=%g R=%g tau=%g: simulated %.6g +- %.3g, formula %.6g (%+.3f%%, %.2f se)\n",
                  M, delta, R, tau, r.mean_s, r.stderr_s, daly, 100.0 * (r.mean_s / daly - 1.0),
                  (r.mean_s - daly) / r.stderr_s);
    assert_close(r.daly_mean_s, daly, 1e-12, 0.0);
    assert_close(r.mean_s, daly, 0.0, 3.0 * r.stderr_s);
    assert_close(r.mean_s, daly, 0.01, 0.0);
    // Poisson failures over the whole wall time (Wald): E[N] = E[wall] / M.
    assert_close(r.failures_mean, r.mean_s / M, 0.02, 0.0);
    assert_attribution_sums(&r, in.gpus);
}

static void simulated_mean_matches_daly_at_the_optimum_interval(void **state)
{
    (void)state;
    double M = HOUR, delta = 5 * MINUTE;
    check_daly(M, delta, 10 * MINUTE, ts_run_daly_interval(delta, M), 20);
}

static void simulated_mean_matches_daly_with_rare_failures(void **state)
{
    (void)state;
    skip_when_slow();    // (the optimum-interval case runs under valgrind too)
    check_daly(24 * HOUR, 5 * MINUTE, 10 * MINUTE, 116.7 * MINUTE, 60);
}

static void simulated_mean_matches_daly_with_the_interval_near_m(void **state)
{
    (void)state;
    skip_when_slow();    // (the optimum-interval case runs under valgrind too)
    check_daly(2 * HOUR, MINUTE, 5 * MINUTE, 2 * HOUR, 12);
}

static void simulated_mean_matches_daly_with_restart_comparable_to_m(void **state)
{
    (void)state;
    skip_when_slow();    // (the optimum-interval case runs under valgrind too)
    check_daly(30 * MINUTE, 2 * MINUTE, 20 * MINUTE, 10 * MINUTE, 30);
}

static void sweeping_the_interval_finds_dalys_optimum(void **state)
{
    (void)state;
    skip_when_slow();
    double M = HOUR, delta = 5 * MINUTE, R = 5 * MINUTE;
    double opt = ts_run_daly_interval(delta, M);
    struct ts_run_input in = base_input(100 * HOUR);
    add_process(&in, TS_COMP_JOB, M, TS_DIST_EXPONENTIAL, 1.0);
    set_write_s(&in, delta);
    in.rel.restart_overhead_s = R;
    in.rel.replications = 2000;
    // 15 intervals from 0.6 to 1.6 x the optimum, geometric. The same seed gives every
    // interval the same failure times (one stream per process), so the differences are sharp.
    double best_mean = HUGE_VAL, best_tau = 0.0, mean[15];
    for (int i = 0; i < 15; i++) {
        double tau = opt * 0.6 * pow(1.6 / 0.6, i / 14.0);
        set_interval(&in, tau);
        struct ts_run_result r;
        simulate(&in, &r);
        mean[i] = r.mean_s;
        if (r.mean_s < best_mean) {
            best_mean = r.mean_s;
            best_tau = tau;
        }
    }
    print_message("sweep: best tau %.1f s, Daly %.1f s (means %.5g .. %.5g .. %.5g)\n", best_tau, opt,
                  mean[0], best_mean, mean[14]);
    assert_close(best_tau, opt, 0.10, 0.0);
    assert_true(mean[0] > best_mean && mean[14] > best_mean);
}

/* ---------------------------------------------------------------- determinism */

/* A configuration that exercises every mechanism at once. */
static struct ts_run_input everything_input(void)
{
    struct ts_run_input in = base_input(200 * HOUR);
    in.nodes = 4;
    in.gpus = 32;
    in.dp = 4;
    add_process(&in, TS_COMP_GPU, 400 * HOUR, TS_DIST_WEIBULL, 0.7);      // 32 copies: renewal
    add_process(&in, TS_COMP_NODE, 200 * HOUR, TS_DIST_EXPONENTIAL, 1.0);
    add_process(&in, TS_COMP_NETWORK, 300 * HOUR, TS_DIST_WEIBULL, 1.5);  // 4 copies
    add_process(&in, TS_COMP_JOB, 60 * HOUR, TS_DIST_EXPONENTIAL, 1.0);
    in.rel.spares = 1;
    in.rel.repair_time_s = 8 * HOUR;
    in.rel.elastic = true;
    in.rel.spot.enabled = true;
    in.rel.spot.preemption_mtbf_s = 100 * HOUR;
    in.rel.spot.notice_s = 120.0;
    in.rel.spot.reacquire_s = 10 * MINUTE;
    in.rel.replications = 400;
    return in;
}

static void same_seed_gives_identical_results_on_one_and_two_threads(void **state)
{
    (void)state;
    for (int mode = 0; mode < TS_CKPT_COUNT; mode++) {
        struct ts_run_input in = everything_input();
        in.rel.checkpoint.mode = (enum ts_ckpt_mode)mode;
        int n = in.rel.replications;
        double *s1 = calloc((size_t)n, sizeof *s1), *s2 = calloc((size_t)n, sizeof *s2);
        struct ts_run_result r1, r2;
        struct ts_run_timeline t1 = {0}, t2 = {0};
        struct ts_err err;
        int threads = omp_get_max_threads();
        omp_set_num_threads(1);
        assert_int_equal(ts_run_simulate(&in, &r1, s1, &t1, &err), TS_OK);
        omp_set_num_threads(2);
        assert_int_equal(ts_run_simulate(&in, &r2, s2, &t2, &err), TS_OK);
        omp_set_num_threads(threads);
        assert_true(r1.failures_mean > 1.0 && r1.preemptions_mean > 0.1);
        assert_memory_equal(s1, s2, (size_t)n * sizeof *s1);
        assert_memory_equal(&r1.params, &r2.params, sizeof r1.params);
        assert_int_equal(r1.replications, r2.replications);
#define SAME(f) assert_memory_equal(&r1.f, &r2.f, sizeof r1.f)
        SAME(mean_s); SAME(stderr_s); SAME(p50_s); SAME(p90_s); SAME(p99_s); SAME(goodput);
        SAME(failures_mean); SAME(preemptions_mean); SAME(checkpoints_mean);
        SAME(productive_gpu_h); SAME(rework_gpu_h); SAME(checkpoint_gpu_h); SAME(restart_gpu_h);
        SAME(repair_wait_gpu_h); SAME(degraded_gpu_h); SAME(spare_gpu_h); SAME(daly_mean_s);
#undef SAME
        assert_int_equal(t1.len, t2.len);
        for (size_t i = 0; i < t1.len; i++) {   // field by field: the struct has padding
            assert_int_equal(t1.spans[i].kind, t2.spans[i].kind);
            assert_memory_equal(&t1.spans[i].start_s, &t2.spans[i].start_s, sizeof(double));
            assert_memory_equal(&t1.spans[i].end_s, &t2.spans[i].end_s, sizeof(double));
        }
        assert_attribution_sums(&r1, in.gpus);
        ts_run_timeline_free(&t1);
        ts_run_timeline_free(&t2);
        free(s1);
        free(s2);
    }
}

static void different_seeds_give_different_samples(void **state)
{
    (void)state;
    struct ts_run_input in = everything_input();
    in.rel.replications = 50;
    struct ts_run_result r1, r2;
    simulate(&in, &r1);
    in.rel.seed = 8;
    simulate(&in, &r2);
    assert_true(r1.mean_s != r2.mean_s);
}

static void timeline_of_replication_zero_covers_the_run_without_gaps(void **state)
{
    (void)state;
    for (int mode = 0; mode < TS_CKPT_COUNT; mode++) {
        struct ts_run_input in = everything_input();
        in.rel.checkpoint.mode = (enum ts_ckpt_mode)mode;
        in.rel.replications = 1;
        double wall;
        struct ts_run_result r;
        struct ts_run_timeline t = {0};
        struct ts_err err;
        assert_int_equal(ts_run_simulate(&in, &r, &wall, &t, &err), TS_OK);
        assert_true(t.len > 10);
        int count[TS_SPAN_COUNT] = {0};
        double end = 0.0, compute = 0.0;
        for (size_t i = 0; i < t.len; i++) {
            const struct ts_run_span *s = &t.spans[i];
            assert_true(s->kind >= 0 && s->kind < TS_SPAN_COUNT);
            count[s->kind]++;
            assert_true(s->end_s >= s->start_s);
            assert_close(s->start_s, end, 1e-12, 1e-6);   // contiguous
            end = s->end_s;
            if (s->kind == TS_SPAN_COMPUTE)
                compute += s->end_s - s->start_s;
        }
        assert_close(end, wall, 1e-12, 0.0);
        assert_true(count[TS_SPAN_CHECKPOINT] > 0);
        assert_int_equal(count[TS_SPAN_FAILURE], (int)(r.failures_mean + r.preemptions_mean));
        assert_true(count[TS_SPAN_LOST] > 0 && count[TS_SPAN_RESTART] > 0);
        // Kept compute spans are the productive GPU-hours (elastic: on the active GPUs).
        assert_true(compute * in.gpus / HOUR + 1e-6 >= r.productive_gpu_h);
        ts_run_timeline_free(&t);
    }
    assert_string_equal(ts_run_span_names[TS_SPAN_LOST], "lost");
}

/* ---------------------------------------------------------------- spares and repairs */

static struct ts_run_input spares_input(int spares, double repair_s)
{
    struct ts_run_input in = base_input(100 * HOUR);
    in.nodes = 8;
    in.gpus = 64;
    in.dp = 8;
    add_process(&in, TS_COMP_NODE, 8 * 10 * HOUR, TS_DIST_EXPONENTIAL, 1.0); // job: one per 10 h
    in.rel.spares = spares;
    in.rel.repair_time_s = repair_s;
    in.rel.replications = 1000;
    return in;
}

static void enough_hot_spares_mean_no_waiting_for_repairs(void **state)
{
    (void)state;
    struct ts_run_input in = spares_input(100, 24 * HOUR);
    struct ts_run_result r;
    simulate(&in, &r);
    assert_true(r.failures_mean > 5.0);
    assert_close(r.repair_wait_gpu_h, 0.0, 0.0, 0.0);
    assert_close(r.spare_gpu_h, 100.0 * 8 * r.mean_s / HOUR, 1e-12, 0.0);
    assert_attribution_sums(&r, in.gpus);
    // Every failure is replaced at once, so Daly's closed form holds.
    assert_close(r.mean_s, r.daly_mean_s, 0.01, 0.0);
}

static void without_spares_a_long_repair_makes_the_job_wait(void **state)
{
    (void)state;
    struct ts_run_input in = spares_input(0, 12 * HOUR);
    struct ts_run_result r;
    simulate(&in, &r);
    assert_true(r.repair_wait_gpu_h > 0.0);
    assert_close(r.spare_gpu_h, 0.0, 0.0, 0.0);
    assert_attribution_sums(&r, in.gpus);
    struct ts_run_input in2 = spares_input(2, 12 * HOUR);
    struct ts_run_result r2;
    simulate(&in2, &r2);
    assert_true(r2.repair_wait_gpu_h < 0.2 * r.repair_wait_gpu_h);
    assert_true(r2.mean_s < r.mean_s);
    assert_attribution_sums(&r2, in2.gpus);
}

static void software_does_not_fail_while_the_job_waits_for_a_repair(void **state)
{
    (void)state;
    // The node fails at ~2.5 h and is back 8 h later (no spare); the software process
    // (Weibull shape 1000, every ~5 h) strikes at 5 h and 10 h, while nothing runs, and would
    // next strike at 15 h, after the end: 2 h of checkpointed work, a wait to 10.5 h, a
    // restart, 2 h more: 12.67 h, one failure.
    struct ts_run_input in = base_input(4 * HOUR);
    set_interval(&in, HOUR);
    set_write_s(&in, 0.1);
    in.rel.restart_overhead_s = 10 * MINUTE;
    add_process(&in, TS_COMP_NODE, 2.5 * HOUR, TS_DIST_WEIBULL, 1000.0);
    add_process(&in, TS_COMP_JOB, 5 * HOUR, TS_DIST_WEIBULL, 1000.0);
    in.rel.repair_time_s = 8 * HOUR;
    in.rel.replications = 50;
    struct ts_run_result r;
    simulate(&in, &r);
    assert_close(r.failures_mean, 1.0, 0.0, 0.0);
    assert_close(r.mean_s, 10.5 * HOUR + 10 * MINUTE + 2 * HOUR + 0.2, 0.0, MINUTE);
    assert_close(r.repair_wait_gpu_h, 8.0 * 8, 1e-9, 0.0);
    assert_close(r.rework_gpu_h, 0.5 * 8, 0.0, 0.1);
    assert_attribution_sums(&r, in.gpus);
}

/* ---------------------------------------------------------------- asynchronous checkpoints */

static void async_checkpoint_stalls_only_for_the_snapshot(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(10 * HOUR);
    set_interval(&in, HOUR);
    in.checkpoint_bytes = 8e11;                 // 800 s to storage at 1 GB/s
    in.rel.checkpoint.snapshot_bandwidth = 1e10; // 1e11 per GPU / 1e10 = 10 s
    in.rel.checkpoint.mode = TS_CKPT_ASYNC;
    in.rel.replications = 2;
    struct ts_run_result r;
    simulate(&in, &r);
    assert_close(r.params.checkpoint_write_s, 10.0, 1e-12, 0.0);
    assert_close(r.params.checkpoint_persist_s, 800.0, 1e-12, 0.0);
    // Ten snapshots, and the last write must finish before the run counts as done.
    assert_close(r.mean_s, 10 * HOUR + 10 * 10.0 + 800.0, 1e-12, 0.0);
    assert_close(r.checkpoint_gpu_h, (10 * 10.0 + 800.0) * 8 / HOUR, 1e-9, 0.0);
    assert_close(r.checkpoints_mean, 10.0, 0.0, 0.0);
    in.rel.checkpoint.mode = TS_CKPT_SYNC;
    simulate(&in, &r);
    assert_close(r.mean_s, 10 * HOUR + 10 * 800.0, 1e-12, 0.0);
}

static void async_writes_longer_than_the_interval_stall_until_the_previous_write_is_done(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(4 * HOUR);
    set_interval(&in, HOUR);
    in.checkpoint_bytes = 2 * HOUR * STORAGE_BW;    // 2 h write
    in.rel.checkpoint.snapshot_bandwidth = 1e20;    // instant snapshot
    in.rel.checkpoint.mode = TS_CKPT_ASYNC;
    in.rel.replications = 1;
    struct ts_run_result r;
    simulate(&in, &r);
    // compute 1 h, then each next snapshot waits for the 2 h write: 1 + 3 x 2 + 2 (last write)
    assert_close(r.mean_s, 9 * HOUR, 1e-9, 0.0);
}

static void failure_during_an_async_write_loses_that_checkpoint(void **state)
{
    (void)state;
    // Writes take 3 h; the job fails at ~5 h (Weibull shape 1000), while checkpoint 2 is
    // being written: it is lost and segment 2 is redone from checkpoint 1.
    struct ts_run_input in = base_input(2 * HOUR);
    set_interval(&in, HOUR);
    in.checkpoint_bytes = 3 * HOUR * STORAGE_BW;
    in.rel.checkpoint.snapshot_bandwidth = 1e20;
    in.rel.checkpoint.mode = TS_CKPT_ASYNC;
    in.rel.restart_overhead_s = 10 * MINUTE;
    add_process(&in, TS_COMP_JOB, 5 * HOUR, TS_DIST_WEIBULL, 1000.0);
    in.rel.replications = 200;
    struct ts_run_result r;
    simulate(&in, &r);
    assert_close(r.failures_mean, 1.0, 0.0, 0.0);
    assert_close(r.checkpoints_mean, 2.0, 0.0, 0.0);
    // 0-1 h seg 1, 1-2 h seg 2, wait for write 1 until 4 h, write 2 from 4 h, failure at 5 h,
    // restart to 5:10, seg 2 again to 6:10, its write to 9:10.
    assert_close(r.mean_s, 9 * HOUR + 10 * MINUTE, 0.0, 2 * MINUTE);
    assert_close(r.rework_gpu_h, 1.0 * 8, 1e-9, 0.0);
    assert_close(r.productive_gpu_h, 2.0 * 8, 1e-9, 0.0);
    assert_close(r.restart_gpu_h, 10 * MINUTE * 8 / HOUR, 1e-6, 0.0);
    assert_attribution_sums(&r, in.gpus);
}

static void async_checkpoints_with_instant_writes_match_daly(void **state)
{
    (void)state;
    skip_when_slow();
    // The write to storage takes no time, so an async checkpoint is a sync one whose write
    // is the snapshot: Daly's formula holds with delta = the snapshot time.
    double M = 2 * HOUR, tau = 40 * MINUTE;
    struct ts_run_input in = base_input(30 * tau);
    add_process(&in, TS_COMP_JOB, M, TS_DIST_EXPONENTIAL, 1.0);
    set_interval(&in, tau);
    in.rel.checkpoint.mode = TS_CKPT_ASYNC;
    in.rel.checkpoint.write_bandwidth = 1e20;
    in.checkpoint_bytes = 8 * 1e9 * 120.0;          // 120 s snapshot at 1 GB/s per GPU
    in.rel.checkpoint.snapshot_bandwidth = 1e9;
    in.rel.replications = 10000;
    struct ts_run_result r;
    simulate(&in, &r);
    assert_close(r.params.checkpoint_write_s, 120.0, 1e-12, 0.0);
    print_message("async Daly: simulated %.6g +- %.3g, formula %.6g\n", r.mean_s, r.stderr_s,
                  r.daly_mean_s);
    assert_close(r.mean_s, r.daly_mean_s, 0.0, 3.0 * r.stderr_s);
    assert_close(r.mean_s, r.daly_mean_s, 0.01, 0.0);
    assert_attribution_sums(&r, in.gpus);
}

static void async_run_with_a_failure_and_a_spare_follows_the_hand_computed_timeline(void **state)
{
    (void)state;
    // 11 h of work in 1 h segments, 10 s snapshots, 20 min writes, restart 10 min. The node
    // fails at ~7.3 h (Weibull shape 1000; the next failure would be at ~14.6 h); a hot spare
    // replaces it and the repair returns 20 min later.
    //   0 - 25270 s: 7 cycles of 3610 s; writes 1-6 durable, 7 in flight until 26470
    //   25270: segment 8; 26280: failure: write 7 lost, back to 6 h (4610 s of work lost)
    //   26880: restarted; segment 7 again to 30480, snapshot to 30490 (write in flight)
    //   30490 - 41320: 3 cycles (segments 8-10); 41320 - 44930: segment 11 and snapshot;
    //   46130: the last write is durable.
    struct ts_run_input in = base_input(11 * HOUR);
    set_interval(&in, HOUR);
    in.rel.checkpoint.mode = TS_CKPT_ASYNC;
    in.checkpoint_bytes = 1200 * STORAGE_BW;                                // 20 min write
    in.rel.checkpoint.snapshot_bandwidth = in.checkpoint_bytes / 8 / 10.0;  // 10 s snapshot
    add_process(&in, TS_COMP_NODE, 7.3 * HOUR, TS_DIST_WEIBULL, 1000.0);
    in.rel.spares = 1;
    in.rel.repair_time_s = 20 * MINUTE;
    in.rel.replications = 100;
    struct ts_run_result r;
    simulate(&in, &r);
    assert_close(r.failures_mean, 1.0, 0.0, 0.0);
    assert_close(r.checkpoints_mean, 11.0, 0.0, 0.0);
    assert_close(r.mean_s, 46130.0, 0.0, 3 * MINUTE);
    assert_close(r.productive_gpu_h, 11.0 * 8, 1e-9, 0.0);
    assert_close(r.rework_gpu_h, 4610.0 * 8 / HOUR, 0.0, 0.3);
    assert_close(r.checkpoint_gpu_h, (12 * 10.0 + 1200.0) * 8 / HOUR, 1e-6, 0.0);
    assert_close(r.restart_gpu_h, 600.0 * 8 / HOUR, 1e-6, 0.0);
    assert_close(r.repair_wait_gpu_h, 0.0, 0.0, 0.0);
    assert_attribution_sums(&r, in.gpus);
}

static void async_batches_wait_for_writes_longer_than_the_interval(void **state)
{
    (void)state;
    // 10 h of work in 1 h segments, 10 s snapshots, 1.5 h writes: each cycle waits 30 min
    // for the previous write (5410 s). The node fails at ~9.4 h; a spare replaces it.
    //   0 - 30660 s: cycle 1 (3610 s) and 5 cycles of 5410 s; write 6 in flight to 36060
    //   30660: segment 7; 33840: failure: write 6 lost, back to 5 h (6780 s of work lost)
    //   34440: restarted; segment 6 again, snapshot at 38040-38050 (write in flight to 43450)
    //   38050 - 54280: 3 cycles of 5410 s (the first waits for the write in flight too)
    //   54280: segment 10 to 57880, wait for write 9 to 59680, snapshot, write to 65090.
    struct ts_run_input in = base_input(10 * HOUR);
    set_interval(&in, HOUR);
    in.rel.checkpoint.mode = TS_CKPT_ASYNC;
    in.checkpoint_bytes = 5400 * STORAGE_BW;
    in.rel.checkpoint.snapshot_bandwidth = in.checkpoint_bytes / 8 / 10.0;
    add_process(&in, TS_COMP_NODE, 9.4 * HOUR, TS_DIST_WEIBULL, 1000.0);
    in.rel.spares = 1;
    in.rel.repair_time_s = 20 * MINUTE;
    in.rel.replications = 100;
    struct ts_run_result r;
    simulate(&in, &r);
    assert_close(r.failures_mean, 1.0, 0.0, 0.0);
    assert_close(r.checkpoints_mean, 10.0, 0.0, 0.0);
    assert_close(r.mean_s, 65090.0, 0.0, 3 * MINUTE);
    assert_close(r.productive_gpu_h, 10.0 * 8, 1e-9, 0.0);
    assert_close(r.rework_gpu_h, 6780.0 * 8 / HOUR, 0.0, 0.4);
    assert_attribution_sums(&r, in.gpus);
}

/* ---------------------------------------------------------------- spot capacity */

static struct ts_run_input spot_input(double notice_s)
{
    struct ts_run_input in = base_input(100 * HOUR);
    set_write_s(&in, 60.0);
    set_interval(&in, HOUR);
    in.rel.spot.enabled = true;
    in.rel.spot.preemption_mtbf_s = 20 * HOUR;
    in.rel.spot.notice_s = notice_s;
    in.rel.spot.reacquire_s = 10 * MINUTE;
    in.rel.replications = 500;
    return in;
}

static void spot_notice_long_enough_to_checkpoint_loses_no_work(void **state)
{
    (void)state;
    struct ts_run_input in = spot_input(120.0);
    struct ts_run_result r;
    simulate(&in, &r);
    assert_true(r.preemptions_mean > 3.0);
    assert_close(r.failures_mean, 0.0, 0.0, 0.0);
    assert_close(r.rework_gpu_h, 0.0, 0.0, 0.0);
    assert_close(r.productive_gpu_h, 100.0 * 8, 1e-9, 0.0);
    assert_true(r.repair_wait_gpu_h > 0.0);     // waiting for the capacity to come back
    assert_attribution_sums(&r, in.gpus);
    // Each preemption costs the notice (the emergency checkpoint, then idle), the
    // reacquisition and the restart; the regular checkpoints are as without spot.
    double per_preemption = 120.0 + 10 * MINUTE + 10 * MINUTE;
    assert_close(r.mean_s, 100 * HOUR + 100 * 60.0 + r.preemptions_mean * per_preemption, 0.002, 0.0);
}

static void spot_notice_too_short_to_checkpoint_loses_the_work_since_the_last_one(void **state)
{
    (void)state;
    struct ts_run_input in = spot_input(30.0);
    struct ts_run_result r;
    simulate(&in, &r);
    assert_true(r.preemptions_mean > 3.0);
    assert_true(r.rework_gpu_h > 0.25 * r.preemptions_mean * 8 * 0.5);   // ~ half an interval each
    assert_attribution_sums(&r, in.gpus);
    struct ts_run_result r_long;
    struct ts_run_input in_long = spot_input(120.0);
    simulate(&in_long, &r_long);
    assert_true(r.mean_s > r_long.mean_s);
}

/* ---------------------------------------------------------------- elastic */

/* Two nodes of one replica each, nodes failing every 10 h and repaired in 5 h: each node is
 * up a fraction A = 10 / 15 of the time, independently. With short intervals, writes and
 * restarts the run is a fluid: elastic training progresses at (nodes up) / 2, so it takes
 * T_s / A; waiting for both nodes progresses only while both are up: T_s / A^2. */
static struct ts_run_input elastic_input(bool elastic)
{
    struct ts_run_input in = base_input(500 * HOUR);
    in.nodes = 2;
    in.gpus = 16;
    in.dp = 2;
    add_process(&in, TS_COMP_NODE, 10 * HOUR, TS_DIST_EXPONENTIAL, 1.0);
    set_write_s(&in, 0.1);
    set_interval(&in, 60.0);
    in.rel.restart_overhead_s = 1.0;
    in.rel.repair_time_s = 5 * HOUR;
    in.rel.elastic = elastic;
    in.rel.replications = 300;
    return in;
}

static void elastic_job_continues_on_fewer_replicas_at_the_availability_of_one_node(void **state)
{
    (void)state;
    double A = 10.0 / 15.0;
    struct ts_run_input in = elastic_input(true);
    struct ts_run_result r;
    simulate(&in, &r);
    print_message("elastic: %.1f h (fluid %.1f h)\n", r.mean_s / HOUR, 500 / A);
    assert_close(r.mean_s, 500 * HOUR / A, 0.02, 0.0);
    assert_true(r.degraded_gpu_h > 0.0);
    assert_attribution_sums(&r, in.gpus);
    // Half the GPUs at half the speed: a useful hour still costs gpus GPU-hours.
    assert_close(r.productive_gpu_h, 500.0 * 16, 1e-9, 0.0);

    struct ts_run_input wait = elastic_input(false);
    struct ts_run_result rw;
    simulate(&wait, &rw);
    print_message("waiting: %.1f h (fluid %.1f h)\n", rw.mean_s / HOUR, 500 / (A * A));
    assert_close(rw.mean_s, 500 * HOUR / (A * A), 0.02, 0.0);
    assert_close(rw.degraded_gpu_h, 0.0, 0.0, 0.0);
    assert_true(rw.repair_wait_gpu_h > r.repair_wait_gpu_h);
}

static void elastic_iteration_times_set_the_degraded_speed(void **state)
{
    (void)state;
    struct ts_run_input in = elastic_input(true);
    in.rel.replications = 100;
    const double slow[2] = {1.0, 3.0};         // one replica left: 3x slower, not 2x
    struct ts_run_result linear, slower;
    simulate(&in, &linear);
    in.elastic_iteration_s = slow;
    simulate(&in, &slower);
    assert_true(slower.mean_s > linear.mean_s);
    // Degraded, 8 GPUs work 3 s per useful second: more GPU-hours per useful hour.
    assert_true(slower.productive_gpu_h > 500.0 * 16 * 1.01);
    assert_attribution_sums(&slower, in.gpus);
}

/* ---------------------------------------------------------------- Weibull */

static void weibull_with_shape_one_matches_exponential(void **state)
{
    (void)state;
    skip_when_slow();
    // 8 node copies: Weibull runs one renewal process per node, exponential superposes.
    struct ts_run_result r[2];
    for (int i = 0; i < 2; i++) {
        struct ts_run_input in = spares_input(0, 0.0);
        in.rel.failures[0].distribution = i ? TS_DIST_WEIBULL : TS_DIST_EXPONENTIAL;
        in.rel.replications = 4000;
        in.rel.seed = 11;
        simulate(&in, &r[i]);
    }
    double se = sqrt(r[0].stderr_s * r[0].stderr_s + r[1].stderr_s * r[1].stderr_s);
    print_message("exponential %.6g, weibull(1) %.6g (%.2f se)\n", r[0].mean_s, r[1].mean_s,
                  (r[1].mean_s - r[0].mean_s) / se);
    assert_true(r[0].mean_s != r[1].mean_s);   // different paths: the comparison is statistical
    assert_close(r[1].mean_s, r[0].mean_s, 0.0, 4.0 * se);
    assert_close(r[1].failures_mean, r[0].failures_mean, 0.05, 0.0);
    assert_close(r[1].mean_s, r[1].daly_mean_s, 0.01, 0.0);
}

static void weibull_wear_out_fails_less_often_early_than_exponential(void **state)
{
    (void)state;
    skip_when_slow();
    // A job-level Weibull with shape 3 and mtbf 50 h rarely fails in a 10 h run; the
    // exponential with the same mean fails about 0.2 times.
    struct ts_run_input in = base_input(10 * HOUR);
    add_process(&in, TS_COMP_JOB, 50 * HOUR, TS_DIST_WEIBULL, 3.0);
    in.rel.replications = 2000;
    struct ts_run_result wear, expo;
    simulate(&in, &wear);
    in.rel.failures[0].distribution = TS_DIST_EXPONENTIAL;
    in.rel.failures[0].shape = 1.0;
    simulate(&in, &expo);
    assert_true(wear.failures_mean < 0.1 * expo.failures_mean);
}

/* ---------------------------------------------------------------- runs that cannot finish */

static void job_interrupted_faster_than_it_restarts_is_rejected(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(54 * 24 * HOUR);
    add_process(&in, TS_COMP_JOB, 5 * MINUTE, TS_DIST_EXPONENTIAL, 1.0);
    in.rel.restart_overhead_s = 12 * MINUTE;
    struct ts_run_result r;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_run_simulate(&in, &r, NULL, NULL, &err);
    assert_input_error(rc, &err, "reliability: the job cannot finish");
    assert_input_error(rc, &err, "the mean time to interrupt 5 min is shorter than the restart 12 min");
    /* It is refused up front, from the derived constants, before any replication runs (so
     * it answers at once instead of simulating a run that never ends). */
    struct ts_run_params params;
    ts_err_clear(&err);
    rc = ts_run_params_compute(&in, &params, &err);
    assert_input_error(rc, &err, "the mean time to interrupt 5 min is shorter than the restart 12 min");
}

static void job_waiting_on_repairs_without_spares_is_rejected(void **state)
{
    (void)state;
    // 100 nodes failing every 10 days each with a 10-day repair: ~100 in repair at a time.
    struct ts_run_input in = base_input(100 * HOUR);
    in.nodes = 100;
    in.gpus = 800;
    in.dp = 100;
    add_process(&in, TS_COMP_NODE, 240 * HOUR, TS_DIST_EXPONENTIAL, 1.0);
    in.rel.repair_time_s = 240 * HOUR;
    struct ts_run_result r;
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_run_simulate(&in, &r, NULL, NULL, &err);
    assert_input_error(rc, &err, "reliability: the job cannot finish");
    assert_input_error(rc, &err, "add spares");
    // Enough hot spares make the same job feasible.
    in.rel.spares = 150;
    in.rel.replications = 20;
    simulate(&in, &r);
    assert_close(r.repair_wait_gpu_h, 0.0, 0.0, 1.0);
}

/* Whether text holds "inf" or "nan" as a word, any case. */
static bool mentions_nonfinite(const char *text)
{
    for (const char *p = text; *p; p++) {
        bool start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        if (start && (strncasecmp(p, "inf", 3) == 0 || strncasecmp(p, "nan", 3) == 0) &&
            !isalnum((unsigned char)p[3]))
            return true;
    }
    return false;
}

/* Struct values the parser would refuse, given directly: each is an input error that names
 * its key and range, from the simulation and the estimate alike; none trips an assertion
 * (a denormal MTBF used to reach Daly's formula as M = 0) or GSL's abort (Gamma(1 + 1/k)
 * overflows for k < 0.0058). */
static void extreme_struct_values_are_input_errors_naming_the_key(void **state)
{
    (void)state;
    int n = 0;
#define CASE(text, body)                                                                      \
    do {                                                                                      \
        struct ts_run_input in = base_input(100 * HOUR);                                      \
        in.rel.replications = 4;                                                              \
        body;                                                                                 \
        struct ts_run_result r;                                                               \
        struct ts_err err;                                                                    \
        ts_err_clear(&err);                                                                   \
        assert_input_error(ts_run_simulate(&in, &r, NULL, NULL, &err), &err, text);           \
        assert_false(mentions_nonfinite(err.msg));                                            \
        ts_err_clear(&err);                                                                   \
        assert_input_error(ts_run_estimate(&in, &r, &err), &err, text);                       \
        n++;                                                                                  \
    } while (0)
    CASE("reliability.failures[0].mtbf: 1e-310 s is out of range (allowed: a finite value of "
         "at least 1 s)",
         add_process(&in, TS_COMP_GPU, 1e-310, TS_DIST_EXPONENTIAL, 1.0));
    CASE("reliability.failures[0].mtbf: a value that is not a finite number is out of range",
         add_process(&in, TS_COMP_GPU, NAN, TS_DIST_EXPONENTIAL, 1.0));
    CASE("reliability.failures[0].shape: 0.001 is out of range (allowed 0.1 to 1000)",
         add_process(&in, TS_COMP_GPU, 100 * HOUR, TS_DIST_WEIBULL, 0.001));
    CASE("reliability.spot.preemption_mtbf: 1e-310 s is out of range",
         (in.rel.spot.enabled = true, in.rel.spot.preemption_mtbf_s = 1e-310));
    CASE("reliability.checkpoint.write_bandwidth: ",
         in.rel.checkpoint.write_bandwidth = 1e-320);
    CASE("reliability.restart_overhead: 8.64e+304 s is out of range (allowed 0 s to 1.16e+04 d)",
         in.rel.restart_overhead_s = 1e300 * 86400.0);
    CASE("reliability.checkpoint.size: 1.15292e+18 B is out of range (allowed 1 B to 888 PiB)",
         in.checkpoint_bytes = 1024.0 * 1024 * 1024 * 1024 * 1024 * 1024);
    CASE("run: the iteration time (undefined s)", in.iteration_s = NAN);
#undef CASE
    assert_int_equal(n, 8);
}

/* A failure rate so high that the count of interruptions overflows a double: the refusal
 * still gives it as a number (its power of ten), never "inf". */
static void astronomical_interruption_counts_are_reported_as_numbers(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(54 * 24 * HOUR);
    add_process(&in, TS_COMP_GPU, 1.0, TS_DIST_EXPONENTIAL, 1.0);   // 8 GPUs: M = 1/8 s
    in.rel.restart_overhead_s = 1e9;                                 // R / M = 8e9
    struct ts_run_result r;
    struct ts_err err;
    ts_err_clear(&err);
    assert_input_error(ts_run_simulate(&in, &r, NULL, NULL, &err), &err,
                       "reliability: the job cannot finish in any useful time: about 1e+");
    /* log10 of the count: (R/M + log(e^((tau + delta)/M) - 1) + log(Ts / tau)) / ln 10 =
     * (8e9 + 8 x 61 + log(4.67e6)) / 2.3026 = 3,474,356,073.3 (tau = 1 s: one iteration). */
    assert_non_null(strstr(err.msg, "about 1e+3474356073 interruptions per run and 1e+"));
    assert_false(mentions_nonfinite(err.msg));
}

/* Weibull infant mortality renews on every replaced node: at shape 0.1 a fresh GPU's median
 * life is mtbf x (ln 2)^10 / Gamma(11) = 7e-9 mtbf, so the job is interrupted without end.
 * The simulation stops a replication after TS_RUN_INTERRUPTIONS_MAX interruptions with an
 * input error, instead of playing out 1e7 events. */
static void endless_weibull_infant_mortality_is_refused_after_the_interruption_cap(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(54 * 24 * HOUR);
    add_process(&in, TS_COMP_GPU, 1000 * HOUR, TS_DIST_WEIBULL, 0.1);
    in.rel.restart_overhead_s = 1.0;
    in.rel.replications = 2;
    struct ts_run_result r;
    struct ts_err err;
    ts_err_clear(&err);
    assert_input_error(ts_run_simulate(&in, &r, NULL, NULL, &err), &err,
                       "a simulated run was interrupted more than 100000 times");
    /* The same process at shape 1 is ordinary: about 8 x 1296 h / 1000 h = 10 failures. */
    in.rel.failures[0].distribution = TS_DIST_EXPONENTIAL;
    in.rel.failures[0].shape = 1.0;
    in.rel.replications = 200;
    simulate(&in, &r);
    assert_close(r.failures_mean, 8.0 * 54 * 24 / 1000.0, 0.25, 0);
}

/* GSL's default handler aborts the process; trainsim's only records the error, and the
 * function returns its status (here the overflow of Gamma(200) ~ 4e372). */
static void gsl_errors_are_recorded_never_abort(void **state)
{
    (void)state;
    ts_gsl_errors_install();
    ts_gsl_errors_install();    /* idempotent */
    ts_gsl_error_take(NULL, 0);
    gsl_sf_result g;
    assert_int_equal(gsl_sf_gamma_e(200.0, &g), GSL_EOVRFLW);
    char reason[160];
    assert_int_equal(ts_gsl_error_take(reason, sizeof reason), GSL_EOVRFLW);
    assert_true(strlen(reason) > 0);
    assert_int_equal(ts_gsl_error_take(reason, sizeof reason), 0);    /* taken: cleared */
    assert_false(isfinite(gsl_sf_gamma(300.0)));
    assert_int_equal(ts_gsl_error_take(NULL, 0), GSL_EOVRFLW);
}

static void invalid_job_shape_is_rejected(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(HOUR);
    in.dp = 3;      // 8 GPUs do not split into 3 replicas
    struct ts_run_params p;
    struct ts_err err;
    ts_err_clear(&err);
    assert_input_error(ts_run_params_compute(&in, &p, &err), &err, "is not a valid job");
    in = base_input(HOUR);
    in.iteration_s = 0.0;
    assert_input_error(ts_run_params_compute(&in, &p, &err), &err, "must be positive");
}

/* ---------------------------------------------------------------- always-on defaults */

/* rate_scale k with MTBF M draws the same failures as MTBF M / k: the same run, bit for bit
 * (each process draws exponentials of mean mtbf / copies from its own stream). */
static void rate_scale_is_the_same_run_as_the_scaled_mtbf(void **state)
{
    (void)state;
    struct ts_run_input a = base_input(40 * HOUR), b;
    a.gpus = 16;
    a.nodes = 2;
    a.dp = 16;
    add_process(&a, TS_COMP_GPU, 400 * HOUR, TS_DIST_EXPONENTIAL, 1.0);
    add_process(&a, TS_COMP_SOFTWARE, 60 * HOUR, TS_DIST_WEIBULL, 0.7);  // 2 copies: renewal
    a.rel.replications = 200;
    b = a;
    a.rel.rate_scale = 2.0;
    b.rel.failures[0].mtbf_s /= 2.0;
    b.rel.failures[1].mtbf_s /= 2.0;
    struct ts_run_result ra, rb;
    simulate(&a, &ra);
    simulate(&b, &rb);
    assert_true(ra.params.job_mtbf_s == rb.params.job_mtbf_s);
    assert_true(ra.mean_s == rb.mean_s && ra.p90_s == rb.p90_s);
    assert_true(ra.failures_mean == rb.failures_mean);
    assert_true(ra.failures_mean > 0.0);
}

/* "reliability": "none": the failure-free what-if is T_s exactly, goodput 1, no failure, no
 * checkpoint, in both the Monte Carlo and the analytic model. */
static void reliability_none_runs_in_the_failure_free_time_with_goodput_one(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(50 * HOUR);
    struct ts_reliability d = in.rel;
    ts_reliability_defaults(&in.rel);
    in.rel.checkpoint = d.checkpoint;
    in.rel.none = true;
    in.rel.n_failures = 0;
    in.rel.replications = 10;
    double samples[10];
    struct ts_run_result r, e;
    struct ts_err err;
    ts_err_clear(&err);
    assert_int_equal(ts_run_simulate(&in, &r, samples, NULL, &err), TS_OK);
    assert_int_equal(ts_run_estimate(&in, &e, &err), TS_OK);
    const struct ts_run_result *res[2] = {&r, &e};
    for (int k = 0; k < 2; k++) {
        assert_true(res[k]->mean_s == 50 * HOUR && res[k]->p90_s == 50 * HOUR);
        assert_true(res[k]->goodput == 1.0);
        assert_true(res[k]->failures_mean == 0.0 && res[k]->preemptions_mean == 0.0);
        assert_true(res[k]->checkpoints_mean == 0.0 && res[k]->checkpoint_gpu_h == 0.0);
        assert_true(isinf(res[k]->params.job_mtbf_s));
        assert_close(res[k]->productive_gpu_h, 50.0 * 8, 1e-12, 0.0);
    }
    for (int i = 0; i < 10; i++)
        assert_true(samples[i] == 50 * HOUR);
}

/* A software failure restarts the job on its nodes: with a day-long repair and no spare, a
 * per-node software process still matches Daly's closed form (no wait), while the same
 * rate as a node process waits for the repair. */
static void software_failures_restart_the_job_without_replacing_a_node(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(20 * HOUR);
    in.gpus = 32;
    in.nodes = 4;
    in.dp = 32;
    add_process(&in, TS_COMP_SOFTWARE, 4 * 5 * HOUR, TS_DIST_EXPONENTIAL, 1.0); // job: 1 per 5 h
    set_write_s(&in, 60.0);
    set_interval(&in, HOUR);
    in.rel.repair_time_s = 24 * HOUR;
    in.rel.replications = ts_test_under_valgrind() ? 500 : 4000;
    struct ts_run_result r;
    simulate(&in, &r);
    assert_close(r.params.job_mtbf_s, 5 * HOUR, 1e-12, 0.0);
    double daly = ts_run_daly_wall_time(5 * HOUR, 60.0, r.params.restart_s, HOUR, 20 * HOUR);
    assert_close(r.mean_s, daly, 0.0, 3.0 * r.stderr_s);
    assert_true(r.repair_wait_gpu_h == 0.0);
    in.rel.failures[0].component = TS_COMP_NODE;
    in.rel.repair_time_s = 2 * HOUR;
    in.rel.replications = 200;
    simulate(&in, &r);
    assert_true(r.repair_wait_gpu_h > 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(daly_interval_reproduces_dalys_worked_examples),
        cmocka_unit_test(rate_scale_is_the_same_run_as_the_scaled_mtbf),
        cmocka_unit_test(reliability_none_runs_in_the_failure_free_time_with_goodput_one),
        cmocka_unit_test(software_failures_restart_the_job_without_replacing_a_node),
        cmocka_unit_test(daly_interval_is_m_once_the_write_takes_twice_m),
        cmocka_unit_test(young_interval_is_the_square_root_of_twice_delta_m),
        cmocka_unit_test(daly_interval_is_close_to_the_minimum_of_dalys_wall_time),
        cmocka_unit_test(daly_wall_time_without_failures_is_compute_plus_checkpoints),
        cmocka_unit_test(job_mtbf_adds_every_process_scaled_by_size_and_spot_preemptions),
        cmocka_unit_test(checkpoint_times_use_the_tighter_of_aggregate_and_per_node_bandwidth),
        cmocka_unit_test(auto_interval_is_dalys_optimum_clamped_to_an_iteration_and_the_run),
        cmocka_unit_test(interval_in_iterations_is_iterations_times_the_iteration_time),
        cmocka_unit_test(interval_shorter_than_an_iteration_is_rejected),
        cmocka_unit_test(missing_checkpoint_size_is_rejected),
        cmocka_unit_test(run_without_failures_takes_compute_plus_every_checkpoint),
        cmocka_unit_test(final_segment_is_shorter_when_the_run_is_not_a_multiple_of_the_interval),
        cmocka_unit_test(simulated_mean_matches_daly_at_the_optimum_interval),
        cmocka_unit_test(simulated_mean_matches_daly_with_rare_failures),
        cmocka_unit_test(simulated_mean_matches_daly_with_the_interval_near_m),
        cmocka_unit_test(simulated_mean_matches_daly_with_restart_comparable_to_m),
        cmocka_unit_test(sweeping_the_interval_finds_dalys_optimum),
        cmocka_unit_test(same_seed_gives_identical_results_on_one_and_two_threads),
        cmocka_unit_test(different_seeds_give_different_samples),
        cmocka_unit_test(timeline_of_replication_zero_covers_the_run_without_gaps),
        cmocka_unit_test(enough_hot_spares_mean_no_waiting_for_repairs),
        cmocka_unit_test(without_spares_a_long_repair_makes_the_job_wait),
        cmocka_unit_test(software_does_not_fail_while_the_job_waits_for_a_repair),
        cmocka_unit_test(async_checkpoint_stalls_only_for_the_snapshot),
        cmocka_unit_test(async_writes_longer_than_the_interval_stall_until_the_previous_write_is_done),
        cmocka_unit_test(failure_during_an_async_write_loses_that_checkpoint),
        cmocka_unit_test(async_checkpoints_with_instant_writes_match_daly),
        cmocka_unit_test(async_run_with_a_failure_and_a_spare_follows_the_hand_computed_timeline),
        cmocka_unit_test(async_batches_wait_for_writes_longer_than_the_interval),
        cmocka_unit_test(spot_notice_long_enough_to_checkpoint_loses_no_work),
        cmocka_unit_test(spot_notice_too_short_to_checkpoint_loses_the_work_since_the_last_one),
        cmocka_unit_test(elastic_job_continues_on_fewer_replicas_at_the_availability_of_one_node),
        cmocka_unit_test(elastic_iteration_times_set_the_degraded_speed),
        cmocka_unit_test(weibull_with_shape_one_matches_exponential),
        cmocka_unit_test(weibull_wear_out_fails_less_often_early_than_exponential),
        cmocka_unit_test(job_interrupted_faster_than_it_restarts_is_rejected),
        cmocka_unit_test(job_waiting_on_repairs_without_spares_is_rejected),
        cmocka_unit_test(extreme_struct_values_are_input_errors_naming_the_key),
        cmocka_unit_test(astronomical_interruption_counts_are_reported_as_numbers),
        cmocka_unit_test(endless_weibull_infant_mortality_is_refused_after_the_interruption_cap),
        cmocka_unit_test(gsl_errors_are_recorded_never_abort),
        cmocka_unit_test(invalid_job_shape_is_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
