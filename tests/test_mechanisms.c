/*
 * Tests of the recovery phases and incident mechanisms of the whole-run simulation
 * (sim/run; keys "recovery", "fail_slow", "bad_nodes", "correlated", "rollback", "planned" of
 * sim/spec/reliability.c), each against a closed form, a renewal-reward expectation or a
 * hand-computed timeline, and the analytic estimate (estimate.c) against the same oracles.
 */
#include <gsl/gsl_integration.h>
#include <omp.h>

#include "test_helpers.h"

#include "run/run.h"

#define HOUR 3600.0
#define MINUTE 60.0
#define STORAGE_BW 1e9

/* One node of 8 GPUs, 1 s iterations, sync checkpoints at 1 GB/s (60 s), instant reload,
 * restart 10 min, no failures. */
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
    in.rel.replications = 2000;
    in.rel.seed = 11;
    return in;
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

static void simulate(const struct ts_run_input *in, struct ts_run_result *res,
                     struct ts_run_timeline *tl)
{
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_run_simulate(in, res, NULL, tl, &err);
    if (rc != TS_OK)
        print_error("ts_run_simulate: %s\n", err.msg);
    assert_int_equal(rc, TS_OK);
}

static void estimate(const struct ts_run_input *in, struct ts_run_result *res)
{
    struct ts_err err;
    ts_err_clear(&err);
    int rc = ts_run_estimate(in, res, &err);
    if (rc != TS_OK)
        print_error("ts_run_estimate: %s\n", err.msg);
    assert_int_equal(rc, TS_OK);
}

static void assert_attribution_sums(const struct ts_run_result *r, int gpus)
{
    double sum = r->productive_gpu_h + r->rework_gpu_h + r->checkpoint_gpu_h + r->restart_gpu_h +
                 r->repair_wait_gpu_h + r->degraded_gpu_h + r->slow_node_gpu_h;
    assert_close(sum, r->mean_s * gpus / HOUR, 1e-9, 0.0);
}

static void report(const char *what, const struct ts_run_result *r, double expected)
{
    print_message("%s: simulated %.6g +- %.3g, expected %.6g (%+.3f%%, %.2f se)\n", what,
                  r->mean_s, r->stderr_s, expected, 100.0 * (r->mean_s / expected - 1.0),
                  (r->mean_s - expected) / r->stderr_s);
}

/* ---------------------------------------------------------------- renewal-reward oracle */

struct lognormal_arg {
    double mu, sigma, lambda;
};

static double lognormal_integrand(double y, void *p)
{
    const struct lognormal_arg *a = p;
    if (y <= 0.0)
        return 0.0;
    double z = (log(y) - a->mu) / a->sigma;
    return exp(-a->lambda * y - 0.5 * z * z) / (y * a->sigma * 2.5066282746310002);
}

/* E[exp(-lambda Y)] for a lognormal Y, by adaptive quadrature over y (GSL QAGIU): an
 * independent evaluation of the transform the estimate takes over the normal variable. */
static double lognormal_laplace(double median, double sigma, double lambda)
{
    struct lognormal_arg a = {log(median), sigma, lambda};
    gsl_function f = {lognormal_integrand, &a};
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
    double v, e;
    assert_int_equal(gsl_integration_qagiu(&f, 0.0, 1e-13, 1e-10, 1000, w, &v, &e), 0);
    gsl_integration_workspace_free(w);
    return v;
}

/* Renewal-reward with exponential failures at rate 1/M and i.i.d. recoveries R + X (X the
 * random phases; a failure during a recovery starts a fresh one): a segment of tau + delta
 * completes after (e^{(tau+delta)/M} - 1) M / E[e^{-(R+X)/M}], so Daly's T_w divides by
 * E[e^{-X/M}]. */
static double renewal_wall(double M, double delta, double R, double tau, double Ts, double Lx)
{
    return M * exp(R / M) * expm1((tau + delta) / M) * Ts / tau / Lx;
}

/* ---------------------------------------------------------------- recovery phases */

static void constant_recovery_phases_add_to_the_restart_in_dalys_formula(void **state)
{
    (void)state;
    skip_when_slow();
    // Crash detection 2 min, queue 3 min, restart_overhead 5 min: Daly with R = 10 min.
    struct ts_run_input in = base_input(20 * HOUR);
    add_process(&in, TS_COMP_JOB, HOUR, TS_DIST_EXPONENTIAL, 1.0);
    set_interval(&in, HOUR);
    in.rel.restart_overhead_s = 5 * MINUTE;
    in.rel.mech.recovery.crash_detect_s = 2 * MINUTE;
    in.rel.mech.recovery.queue_s = 3 * MINUTE;
    in.rel.replications = 20000;
    struct ts_run_result r, e;
    simulate(&in, &r, NULL);
    double daly = ts_run_daly_wall_time(HOUR, 60.0, 10 * MINUTE, HOUR, 20 * HOUR);
    report("constant phases", &r, daly);
    assert_close(r.mean_s, daly, 0.0, 3.0 * r.stderr_s);
    assert_close(r.mean_s, daly, 0.01, 0.0);
    estimate(&in, &e);
    assert_close(e.mean_s, daly, 1e-9, 0.0);
    assert_attribution_sums(&r, in.gpus);
}

static void lognormal_diagnosis_matches_renewal_reward_with_failures_during_recovery(void **state)
{
    (void)state;
    skip_when_slow();
    // M = 2 h; diagnosis lognormal median 30 min, sigma 1 (mean 49 min, a long tail): failures
    // during a recovery are frequent (about 1 in 3), and each starts a fresh one.
    double M = 2 * HOUR, median = 30 * MINUTE, sigma = 1.0;
    struct ts_run_input in = base_input(20 * HOUR);
    add_process(&in, TS_COMP_JOB, M, TS_DIST_EXPONENTIAL, 1.0);
    set_interval(&in, HOUR);
    in.rel.mech.recovery.diagnose_median_s = median;
    in.rel.mech.recovery.diagnose_sigma = sigma;
    in.rel.replications = 20000;
    struct ts_run_result r, e;
    simulate(&in, &r, NULL);
    double Lx = lognormal_laplace(median, sigma, 1.0 / M);
    double expected = renewal_wall(M, 60.0, 10 * MINUTE, HOUR, 20 * HOUR, Lx);
    report("lognormal diagnosis", &r, expected);
    assert_close(r.mean_s, expected, 0.0, 3.0 * r.stderr_s);
    assert_close(r.mean_s, expected, 0.015, 0.0);
    // The constant-restart formula is far off: the phases matter.
    assert_true(r.mean_s > 1.1 * ts_run_daly_wall_time(M, 60.0, 10 * MINUTE, HOUR, 20 * HOUR));
    estimate(&in, &e);
    assert_close(e.mean_s, expected, 1e-6, 0.0);
    assert_attribution_sums(&r, in.gpus);
}

static void hangs_wait_for_the_timeout_in_their_share_of_failures(void **state)
{
    (void)state;
    skip_when_slow();
    double M = 3 * HOUR, t = 30 * MINUTE;
    struct ts_run_input in = base_input(30 * HOUR);
    add_process(&in, TS_COMP_JOB, M, TS_DIST_EXPONENTIAL, 1.0);
    set_interval(&in, HOUR);
    in.rel.mech.recovery.hang_fraction = 0.4;
    in.rel.mech.recovery.hang_timeout_s = t;
    in.rel.replications = 20000;
    struct ts_run_result r, e;
    simulate(&in, &r, NULL);
    double Lx = 0.6 + 0.4 * exp(-t / M);
    double expected = renewal_wall(M, 60.0, 10 * MINUTE, HOUR, 30 * HOUR, Lx);
    report("hangs", &r, expected);
    assert_close(r.mean_s, expected, 0.0, 3.0 * r.stderr_s);
    assert_close(r.hangs_mean, 0.4 * r.failures_mean, 0.03, 0.0);
    estimate(&in, &e);
    assert_close(e.mean_s, expected, 1e-9, 0.0);
}

static void per_process_hang_shares_mix_in_the_renewal_reward_oracle(void **state)
{
    (void)state;
    skip_when_slow();
    // One node: software failures (every 6 h) all hang for the 30 min watchdog, node failures
    // (every 3 h) crash. Detection is drawn per failure by its process, so the recovery's
    // transform is the rate-weighted mixture: L = (a e^{-t/M} + b) / (a + b), M = 1/(a + b).
    double a = 1.0 / (6 * HOUR), b = 1.0 / (3 * HOUR), t = 30 * MINUTE, M = 1.0 / (a + b);
    struct ts_run_input in = base_input(30 * HOUR);
    add_process(&in, TS_COMP_SOFTWARE, 1.0 / a, TS_DIST_EXPONENTIAL, 1.0);
    add_process(&in, TS_COMP_NODE, 1.0 / b, TS_DIST_EXPONENTIAL, 1.0);
    in.rel.failures[0].hang_fraction = 1.0;
    in.rel.mech.recovery.hang_timeout_s = t;
    set_interval(&in, HOUR);
    in.rel.replications = 20000;
    struct ts_run_result r, e;
    simulate(&in, &r, NULL);
    double Lx = (a * exp(-t / M) + b) / (a + b);
    double expected = renewal_wall(M, 60.0, 10 * MINUTE, HOUR, 30 * HOUR, Lx);
    report("hangs by process", &r, expected);
    assert_close(r.mean_s, expected, 0.0, 3.0 * r.stderr_s);
    assert_close(r.hangs_mean, a / (a + b) * r.failures_mean, 0.03, 0.0);
    estimate(&in, &e);
    assert_close(e.mean_s, expected, 1e-9, 0.0);
    assert_close(ts_run_hang_fraction(&in.rel, in.gpus, in.nodes), a / (a + b), 1e-12, 0.0);
}

static void startup_grows_with_the_nodes_of_the_job(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(HOUR);
    in.nodes = 16;
    in.gpus = 128;
    in.dp = 128;
    in.rel.mech.recovery.startup_s = 60.0;
    in.rel.mech.recovery.startup_per_node_s = 2.0;
    struct ts_run_params p;
    struct ts_err err;
    assert_int_equal(ts_run_params_compute(&in, &p, &err), TS_OK);
    assert_close(p.restart_s, 600.0 + 60.0 + 2.0 * 16, 1e-12, 1e-9);
}

static void recovery_phases_far_longer_than_the_mtbf_make_the_job_unfinishable(void **state)
{
    (void)state;
    // Manual diagnosis (mean 12.3 h) against a failure every hour: rejected up front.
    struct ts_run_input in = base_input(100 * HOUR);
    add_process(&in, TS_COMP_JOB, HOUR, TS_DIST_EXPONENTIAL, 1.0);
    in.rel.mech.recovery.diagnose_median_s = 10.6 * HOUR;
    in.rel.mech.recovery.diagnose_sigma = 0.55;
    struct ts_run_params p;
    struct ts_err err;
    ts_err_clear(&err);
    assert_input_error(ts_run_params_compute(&in, &p, &err), &err, "cannot finish in any useful time");
    // The same job with the phases off is fine.
    in.rel.mech.recovery.diagnose_median_s = 0.0;
    ts_err_clear(&err);
    assert_int_equal(ts_run_params_compute(&in, &p, &err), TS_OK);
}

static void timeline_shows_the_recovery_phases_in_order(void **state)
{
    (void)state;
    // One deterministic failure at ~3 h (the next would come at ~6 h, after the end at
    // ~5.7 h): detect 5 min, diagnose (sigma 0: 20 min), queue 7 min, then the 10 min restart.
    struct ts_run_input in = base_input(4 * HOUR);
    add_process(&in, TS_COMP_JOB, 3 * HOUR, TS_DIST_WEIBULL, 1000.0);
    set_interval(&in, HOUR);
    in.rel.mech.recovery.crash_detect_s = 5 * MINUTE;
    in.rel.mech.recovery.diagnose_median_s = 20 * MINUTE;
    in.rel.mech.recovery.diagnose_sigma = 0.0;
    in.rel.mech.recovery.queue_s = 7 * MINUTE;
    in.rel.replications = 1;
    struct ts_run_result r;
    struct ts_run_timeline tl = {0};
    simulate(&in, &r, &tl);
    const int order[4] = {TS_SPAN_DETECT, TS_SPAN_DIAGNOSE, TS_SPAN_QUEUE, TS_SPAN_RESTART};
    const double dur[4] = {5 * MINUTE, 20 * MINUTE, 7 * MINUTE, 10 * MINUTE};
    size_t i = 0;
    while (i < tl.len && tl.spans[i].kind != TS_SPAN_DETECT)
        i++;
    assert_true(i + 4 <= tl.len);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(tl.spans[i + k].kind, order[k]);
        assert_close(tl.spans[i + k].end_s - tl.spans[i + k].start_s, dur[k], 1e-9, 1e-6);
    }
    assert_close(r.restart_gpu_h, 42 * MINUTE * 8 / HOUR, 1e-9, 0.0);
    for (size_t j = 1; j < tl.len; j++)
        assert_close(tl.spans[j].start_s, tl.spans[j - 1].end_s, 0.0, 1e-6);
    ts_run_timeline_free(&tl);
}

/* ---------------------------------------------------------------- fail-slow */

static void fail_slow_costs_rate_times_delay_times_the_slowdown(void **state)
{
    (void)state;
    // Onsets at 8 GPUs / 800 h = 1 per 100 h of wall time, detection 1 h, factor 1.5; no
    // failures, restart and reload free, 1 s saves. Each episode costs d (1 - 1/F) of wall
    // time (the steps of d wall seconds do d / F useful seconds: to first order in F - 1 this
    // is the rate x delay x (F - 1) of the low-rate limit) plus the drain (a 1 s save, no
    // restart); with N = lambda x wall episodes: wall = base / (1 - lambda (d (1 - 1/F) + 1 s)).
    double F = 1.5, d = HOUR, lambda = 1.0 / (100 * HOUR);
    struct ts_run_input in = base_input(1000 * HOUR);
    set_interval(&in, HOUR);
    in.checkpoint_bytes = 1.0 * STORAGE_BW;
    in.rel.restart_overhead_s = 0.0;
    in.rel.mech.fail_slow.gpu_mtbf_s = 8.0 / lambda;
    in.rel.mech.fail_slow.factor = F;
    in.rel.mech.fail_slow.detect_s = d;
    in.rel.replications = 4000;
    struct ts_run_result r, e;
    simulate(&in, &r, NULL);
    double base = 1000 * HOUR + 1000 * 1.0;
    double expected = base / (1.0 - lambda * (d * (1.0 - 1.0 / F) + 1.0));
    report("fail-slow", &r, expected);
    assert_close(r.mean_s, expected, 0.0, 3.0 * r.stderr_s + 1e-3 * expected);
    assert_close(r.slow_episodes_mean, lambda * r.mean_s, 0.02, 0.0);
    // Slow-node time: (1 - 1/F) of the GPU time of each episode; no work is lost.
    assert_close(r.slow_node_gpu_h, r.slow_episodes_mean * d * (1.0 - 1.0 / F) * 8 / HOUR, 0.02, 0.0);
    assert_close(r.rework_gpu_h, 0.0, 0.0, 1e-9);
    assert_attribution_sums(&r, in.gpus);
    estimate(&in, &e);
    assert_close(e.mean_s, expected, 0.005, 0.0);
    assert_close(e.slow_node_gpu_h, r.slow_node_gpu_h, 0.03, 0.0);

    // The low-rate, small-slowdown limit: the relative slowdown is rate x delay x (F - 1).
    in.rel.mech.fail_slow.factor = 1.02;
    in.checkpoint_bytes = 1e-3 * STORAGE_BW;    // drains of 1 ms: the slowdown alone
    simulate(&in, &r, NULL);
    double base2 = 1000 * HOUR + 1000 * 1e-3;
    double slowdown = r.mean_s / base2 - 1.0;
    print_message("fail-slow, F = 1.02: slowdown %.5f, rate x delay x (F - 1) = %.5f\n", slowdown,
                  lambda * d * 0.02);
    assert_close(slowdown, lambda * d * 0.02, 0.04, 0.0);
}

/* ---------------------------------------------------------------- lemons */

static struct ts_run_input lemon_input(double solve_s)
{
    // 8 nodes of 8 GPUs, node failures 1 per 100 h each, free restarts, 60 s intervals with
    // 1 s writes: little is lost per failure, so the wall time is close to T_s and the
    // failure count measures the rate.
    struct ts_run_input in = base_input(solve_s);
    in.nodes = 8;
    in.gpus = 64;
    in.dp = 64;
    in.checkpoint_bytes = 1.0 * STORAGE_BW;
    set_interval(&in, 60.0);
    in.rel.restart_overhead_s = 0.0;
    add_process(&in, TS_COMP_NODE, 100 * HOUR, TS_DIST_EXPONENTIAL, 1.0);
    return in;
}

static void lemons_without_eviction_fail_at_the_mixed_rate(void **state)
{
    (void)state;
    // f = 0.25 lemons failing m = 5 times as often: (1 - f) r + f m r = 2 r per node.
    struct ts_run_input in = lemon_input(500 * HOUR);
    in.rel.mech.bad_nodes.fraction = 0.25;
    in.rel.mech.bad_nodes.multiplier = 5.0;
    struct ts_run_result r, e;
    simulate(&in, &r, NULL);
    double rate = 8 * ((1 - 0.25) + 0.25 * 5.0) / (100 * HOUR);
    print_message("lemons: %.4g failures per hour, closed form %.4g\n",
                  r.failures_mean / r.mean_s * HOUR, rate * HOUR);
    assert_close(r.failures_mean / r.mean_s, rate, 0.03, 0.0);
    assert_close(r.evictions_mean, 0.0, 0.0, 0.0);
    estimate(&in, &e);
    assert_close(e.failures_mean / e.mean_s, rate, 1e-9, 0.0);
    assert_attribution_sums(&r, in.gpus);
}

static void lemons_in_repair_do_not_fail(void **state)
{
    (void)state;
    skip_when_slow();
    // One node, a lemon failing 3 times the node rate (1 per 100 h): each failure takes it to
    // a 5 h repair with no spare. A node in repair cannot fail, so failures arrive at 3 r only
    // while the job holds the node: E[failures] = 3 r E[held time] (the compensator of the
    // failure count), held time = wall time - waiting for the repair.
    struct ts_run_input in = lemon_input(200 * HOUR);
    in.nodes = 1;
    in.gpus = 8;
    in.dp = 8;
    in.rel.repair_time_s = 5 * HOUR;
    in.rel.mech.bad_nodes.fraction = 1.0;
    in.rel.mech.bad_nodes.multiplier = 3.0;
    in.rel.replications = 4000;
    struct ts_run_result r;
    simulate(&in, &r, NULL);
    double held_s = r.mean_s - r.repair_wait_gpu_h * HOUR / in.gpus;
    double expected = 3.0 / (100 * HOUR) * held_s;
    print_message("lemon in repair: %.4g failures, 3 r x held time %.4g (wait %.3g h)\n",
                  r.failures_mean, expected, r.repair_wait_gpu_h / in.gpus);
    assert_true(r.repair_wait_gpu_h / in.gpus > 20.0);     // the repairs take real time
    assert_close(r.failures_mean, expected, 0.03, 0.0);
    assert_attribution_sums(&r, in.gpus);
}

static void evicting_lemons_at_their_first_failure_tends_to_the_healthy_rate(void **state)
{
    (void)state;
    skip_when_slow();
    // Over 2,000 h the 8 healthy-rate nodes fail 160 times; the ~2 lemons are evicted at
    // their first failure and add at most about one each.
    struct ts_run_input in = lemon_input(2000 * HOUR);
    in.rel.mech.bad_nodes.fraction = 0.25;
    in.rel.mech.bad_nodes.multiplier = 5.0;
    in.rel.mech.bad_nodes.evict_after = 1;
    in.rel.mech.bad_nodes.evict_window_s = TS_REL_DURATION_MAX_S;
    in.rel.replications = 1000;
    struct ts_run_result r, e;
    simulate(&in, &r, NULL);
    double healthy = 8 / (100 * HOUR);
    double ratio = r.failures_mean / (r.mean_s * healthy);
    print_message("evicted lemons: rate / healthy rate %.4f\n", ratio);
    assert_close(ratio, 1.0 + 0.25 * 8 * (1 - 1 / 5.0) / 160.0, 0.025, 0.0);
    assert_close(r.evictions_mean, 0.25 * 8, 0.06, 0.0);
    estimate(&in, &e);
    assert_close(e.failures_mean, r.failures_mean, 0.03, 0.0);
}

/* ---------------------------------------------------------------- correlated events */

static void correlated_event_is_one_interruption_that_replaces_its_whole_domain(void **state)
{
    (void)state;
    // 8 nodes in 2 domains of 4, one event per domain per 50 h; 8 hot spares cover the 2 h
    // repairs. Each event is one interruption and takes 4 nodes; E[events] = rate x wall.
    struct ts_run_input in = lemon_input(200 * HOUR);
    in.rel.n_failures = 0;
    in.rel.mech.correlated.domain_mtbf_s = 50 * HOUR;
    in.rel.mech.correlated.domain_nodes = 4;
    in.rel.repair_time_s = 2 * HOUR;
    in.rel.spares = 8;
    struct ts_run_result r, e;
    simulate(&in, &r, NULL);
    double rate = 2.0 / (50 * HOUR);
    assert_close(r.failures_mean, r.correlated_mean, 0.0, 0.0);
    assert_close(r.nodes_replaced_mean, 4.0 * r.correlated_mean, 1e-3, 0.0);
    assert_close(r.correlated_mean, rate * r.mean_s, 0.02, 0.0);
    // Without spares the job waits for the domain's repairs (in parallel): about 2 h each.
    in.rel.spares = 0;
    simulate(&in, &r, NULL);
    assert_close(r.repair_wait_gpu_h / 64, r.correlated_mean * 2, 0.1, 0.0);
    estimate(&in, &e);
    assert_close(e.correlated_mean, r.correlated_mean, 0.03, 0.0);
}

/* ---------------------------------------------------------------- rollbacks */

static void rollback_redoes_k_more_intervals_when_keep_holds_them(void **state)
{
    (void)state;
    // 6 h of work, 1 h intervals, 60 s writes (3660 s cycles), restart 10 min. One node, its
    // failure at ~5 h (Weibull shape 1000); the repair takes 10 h, so its replacement fails
    // next at ~20 h, after the end. At 18000 s: 4 checkpoints durable, 3360 s of segment 5
    // lost. The job waits until 54000 and restarts until 54600; then:
    //   no rollback:              2 cycles left -> 61920 s
    //   rollback k = 1, keep 2:   back to 3 h: 3 cycles -> 65580 s (k x tau more work lost)
    //   rollback k = 2, keep 3:   back to 2 h: 4 cycles -> 69240 s
    struct ts_run_input in = base_input(6 * HOUR);
    set_interval(&in, HOUR);
    add_process(&in, TS_COMP_NODE, 5 * HOUR, TS_DIST_WEIBULL, 1000.0);
    in.rel.repair_time_s = 10 * HOUR;
    in.rel.replications = 20;
    struct ts_run_result r0, r1, r2;
    simulate(&in, &r0, NULL);
    in.rel.mech.rollback.fraction = 1.0;
    in.rel.mech.rollback.depth = 1;
    in.rel.checkpoint.keep = 2;
    simulate(&in, &r1, NULL);
    in.rel.mech.rollback.depth = 2;
    in.rel.checkpoint.keep = 3;
    simulate(&in, &r2, NULL);
    assert_close(r0.mean_s, 61920.0, 0.0, 60.0);
    assert_close(r1.mean_s, 65580.0, 0.0, 60.0);
    assert_close(r2.mean_s, 69240.0, 0.0, 60.0);
    for (int k = 1; k <= 2; k++) {
        const struct ts_run_result *r = k == 1 ? &r1 : &r2;
        assert_close(r->mean_s - r0.mean_s, k * (HOUR + 60.0), 1e-9, 0.0);          // k (tau + delta)
        assert_close(r->rework_gpu_h - r0.rework_gpu_h, k * HOUR * 8 / HOUR, 1e-9, 0.0);  // k tau
        assert_close(r->rollbacks_mean, 1.0, 0.0, 0.0);
        assert_attribution_sums(r, in.gpus);
    }
}

static void rollback_without_the_older_checkpoint_kept_goes_to_the_start(void **state)
{
    (void)state;
    skip_when_slow();
    // keep = 1 < k + 1: every rollback restarts from the beginning. Rare failures (M = 100 h,
    // 6 h of work), common random numbers: the failure times are the same with keep 1 and 2.
    // A first failure at useful progress P loses P - (P mod tau) more with keep 1 than the
    // single older interval with keep 2, so the extra rework per rollback is at least 1 h of
    // work and about the mean progress at a failure (~3 h minus a part of an interval).
    struct ts_run_input in = base_input(6 * HOUR);
    set_interval(&in, HOUR);
    add_process(&in, TS_COMP_JOB, 100 * HOUR, TS_DIST_EXPONENTIAL, 1.0);
    in.rel.mech.rollback.fraction = 1.0;
    in.rel.mech.rollback.depth = 1;
    in.rel.replications = 20000;
    struct ts_run_result r1, r2;
    in.rel.checkpoint.keep = 2;
    simulate(&in, &r1, NULL);
    in.rel.checkpoint.keep = 1;
    simulate(&in, &r2, NULL);
    double per_rollback_h = (r2.rework_gpu_h - r1.rework_gpu_h) / 8 / r2.rollbacks_mean;
    print_message("to the start: %.3f h more work lost per rollback\n", per_rollback_h);
    // With keep 2 the loss beyond the latest checkpoint is min(1 h, what exists); with keep 1
    // it is everything durable: E[floor(P)] - E[min(1, floor(P))] for P ~ uniform(0, 6) h
    // (failures rare) = 2.5 - 5/6 h.
    assert_close(per_rollback_h, 2.5 - 5.0 / 6.0, 0.08, 0.0);
    assert_attribution_sums(&r2, in.gpus);
}

static void rollback_estimate_tracks_the_monte_carlo(void **state)
{
    (void)state;
    struct ts_run_input in = base_input(40 * HOUR);
    add_process(&in, TS_COMP_JOB, 10 * HOUR, TS_DIST_EXPONENTIAL, 1.0);
    set_interval(&in, HOUR);
    in.rel.mech.rollback.fraction = 0.2;
    in.rel.mech.rollback.depth = 2;
    in.rel.checkpoint.keep = 10;
    struct ts_run_result r, e;
    simulate(&in, &r, NULL);
    estimate(&in, &e);
    report("rollback estimate", &r, e.mean_s);
    assert_close(r.rollbacks_mean, 0.2 * r.failures_mean, 0.1, 0.0);
    assert_close(e.mean_s, r.mean_s, 0.01, 0.0);
}

/* ---------------------------------------------------------------- planned */

static void planned_interruptions_arrive_at_their_rate_and_lose_no_work(void **state)
{
    (void)state;
    // One per 20 h; each is a 60 s save and the 10 min restart.
    struct ts_run_input in = base_input(200 * HOUR);
    set_interval(&in, HOUR);
    in.rel.mech.planned.node_mtbf_s = 20 * HOUR;
    struct ts_run_result r, e;
    simulate(&in, &r, NULL);
    assert_close(r.planned_mean, r.mean_s / (20 * HOUR), 0.02, 0.0);
    assert_close(r.rework_gpu_h, 0.0, 0.0, 1e-9);
    assert_close(r.failures_mean, 0.0, 0.0, 0.0);
    // Planned saves reset no clock: the regular checkpoints still come every interval of
    // work, so wall = T_s + 200 x 60 s + (arrivals while training) x (60 s + 600 s).
    double base = 200 * HOUR + 200 * 60.0;
    assert_close(r.mean_s, base / (1.0 - (660.0 / (20 * HOUR)) * (base / r.mean_s)), 0.002, 0.0);
    estimate(&in, &e);
    assert_close(e.mean_s, r.mean_s, 0.005, 0.0);
    assert_attribution_sums(&r, in.gpus);
}

static void llama3_default_planned_rate_is_47_in_54_days_at_2048_nodes(void **state)
{
    (void)state;
    // The parser's default (reliability.c); here through the struct that the key sets.
    struct ts_run_input in = base_input(54 * 24 * HOUR);
    in.nodes = 2048;
    in.gpus = 16384;
    in.dp = 16384 / 8;
    in.rel.mech.planned.node_mtbf_s = 2048.0 * 54 * 86400 / 47.0;
    struct ts_run_result e;
    estimate(&in, &e);
    assert_close(e.planned_mean / e.mean_s * 54 * 86400, 47.0, 1e-9, 0.0);
}

/* ---------------------------------------------------------------- together */

static void estimate_tracks_the_monte_carlo_with_every_mechanism_on(void **state)
{
    (void)state;
    skip_when_slow();
    struct ts_run_input in = lemon_input(300 * HOUR);
    set_interval(&in, HOUR);
    in.checkpoint_bytes = 60.0 * STORAGE_BW;
    in.rel.restart_overhead_s = 5 * MINUTE;
    in.rel.spares = 8;
    in.rel.repair_time_s = HOUR;
    add_process(&in, TS_COMP_JOB, 100 * HOUR, TS_DIST_EXPONENTIAL, 1.0);
    struct ts_mechanisms *x = &in.rel.mech;
    x->recovery.hang_fraction = 0.1;
    x->recovery.diagnose_median_s = 10 * MINUTE;
    x->recovery.diagnose_sigma = 0.541;
    x->recovery.startup_s = 2 * MINUTE;
    x->fail_slow.gpu_mtbf_s = 64 * 200 * HOUR;
    x->fail_slow.factor = 1.1;
    x->fail_slow.detect_s = 2 * HOUR;
    x->bad_nodes.fraction = 0.125;
    x->bad_nodes.multiplier = 4.0;
    x->bad_nodes.evict_after = 2;
    x->bad_nodes.evict_window_s = 100 * HOUR;
    x->correlated.domain_mtbf_s = 400 * HOUR;
    x->correlated.domain_nodes = 4;
    x->rollback.fraction = 0.05;
    x->rollback.depth = 1;
    x->planned.node_mtbf_s = 8 * 50 * HOUR;
    struct ts_run_result r, e;
    simulate(&in, &r, NULL);
    estimate(&in, &e);
    report("all mechanisms, estimate", &r, e.mean_s);
    assert_close(e.mean_s, r.mean_s, 0.02, 0.0);
    assert_close(e.failures_mean, r.failures_mean, 0.05, 0.0);
    assert_attribution_sums(&r, in.gpus);
}

static void estimate_tracks_the_monte_carlo_with_the_default_recovery(void **state)
{
    (void)state;
    skip_when_slow();
    // 64 H100 nodes with the default processes and the default recovery (automated
    // diagnosis, watchdog hangs by process, start-up per node), 30 days of work: the sweep
    // screens with the estimate and the finalists get the Monte Carlo, so the two must agree.
    struct ts_run_input in = base_input(30 * 24 * HOUR);
    in.nodes = 64;
    in.gpus = 512;
    in.dp = 512;
    in.iteration_s = 10.0;
    in.iterations = 30 * 24 * HOUR / 10.0;
    ts_reliability_defaults(&in.rel);
    ts_reliability_apply_defaults(&in.rel, TS_GEN_HOPPER);
    in.rel.checkpoint.write_bandwidth = STORAGE_BW;
    in.rel.checkpoint.node_write_bandwidth = 0.0;
    in.rel.replications = 4000;
    in.rel.seed = 11;
    assert_int_equal(in.rel.recovery_mode, TS_RECOVERY_DEFAULT);
    struct ts_run_result r, e;
    simulate(&in, &r, NULL);
    estimate(&in, &e);
    report("default recovery, estimate", &r, e.mean_s);
    assert_true(r.hangs_mean > 0.0 && r.hangs_mean < r.failures_mean);
    assert_close(r.mean_s, e.mean_s, 0.0, 3.0 * r.stderr_s);
    assert_close(r.failures_mean, e.failures_mean, 0.03, 0.0);
    assert_close(r.hangs_mean, e.hangs_mean, 0.1, 0.0);
    assert_attribution_sums(&r, in.gpus);
}

static void same_seed_gives_identical_results_with_mechanisms_on_any_thread_count(void **state)
{
    (void)state;
    struct ts_run_input in = lemon_input(100 * HOUR);
    in.rel.mech.recovery.diagnose_median_s = 10 * MINUTE;
    in.rel.mech.recovery.diagnose_sigma = 0.5;
    in.rel.mech.fail_slow.gpu_mtbf_s = 64 * 50 * HOUR;
    in.rel.mech.fail_slow.factor = 1.2;
    in.rel.mech.fail_slow.detect_s = HOUR;
    in.rel.mech.bad_nodes.fraction = 0.2;
    in.rel.mech.bad_nodes.multiplier = 3.0;
    in.rel.mech.rollback.fraction = 0.1;
    in.rel.mech.planned.node_mtbf_s = 8 * 30 * HOUR;
    in.rel.replications = 300;
    double a[300], b[300];
    struct ts_run_result ra, rb;
    struct ts_err err;
    omp_set_num_threads(1);
    assert_int_equal(ts_run_simulate(&in, &ra, a, NULL, &err), TS_OK);
    omp_set_num_threads(2);
    assert_int_equal(ts_run_simulate(&in, &rb, b, NULL, &err), TS_OK);
    assert_memory_equal(a, b, sizeof a);
    assert_true(ra.slow_node_gpu_h == rb.slow_node_gpu_h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(constant_recovery_phases_add_to_the_restart_in_dalys_formula),
        cmocka_unit_test(lognormal_diagnosis_matches_renewal_reward_with_failures_during_recovery),
        cmocka_unit_test(hangs_wait_for_the_timeout_in_their_share_of_failures),
        cmocka_unit_test(per_process_hang_shares_mix_in_the_renewal_reward_oracle),
        cmocka_unit_test(startup_grows_with_the_nodes_of_the_job),
        cmocka_unit_test(recovery_phases_far_longer_than_the_mtbf_make_the_job_unfinishable),
        cmocka_unit_test(timeline_shows_the_recovery_phases_in_order),
        cmocka_unit_test(fail_slow_costs_rate_times_delay_times_the_slowdown),
        cmocka_unit_test(lemons_without_eviction_fail_at_the_mixed_rate),
        cmocka_unit_test(lemons_in_repair_do_not_fail),
        cmocka_unit_test(evicting_lemons_at_their_first_failure_tends_to_the_healthy_rate),
        cmocka_unit_test(correlated_event_is_one_interruption_that_replaces_its_whole_domain),
        cmocka_unit_test(rollback_redoes_k_more_intervals_when_keep_holds_them),
        cmocka_unit_test(rollback_without_the_older_checkpoint_kept_goes_to_the_start),
        cmocka_unit_test(rollback_estimate_tracks_the_monte_carlo),
        cmocka_unit_test(planned_interruptions_arrive_at_their_rate_and_lose_no_work),
        cmocka_unit_test(llama3_default_planned_rate_is_47_in_54_days_at_2048_nodes),
        cmocka_unit_test(estimate_tracks_the_monte_carlo_with_every_mechanism_on),
        cmocka_unit_test(estimate_tracks_the_monte_carlo_with_the_default_recovery),
        cmocka_unit_test(same_seed_gives_identical_results_with_mechanisms_on_any_thread_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
