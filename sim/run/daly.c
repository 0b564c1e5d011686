/*
 * run: the closed forms of checkpoint/restart theory (Young 1974, Daly 2006) and the derived
 * constants of a run (M, delta, R, tau, T_s), including the check that a run can finish at
 * all before the simulator is asked to play it out. The manual is run.h.
 */
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_gamma.h>

#include "run/run.h"
#include "run/run_internal.h"

/* ---------------------------------------------------------------- closed forms */

/* Daly (2006), "A higher order estimate of the optimum checkpoint interval for restart
 * dumps", FGCS 22, eq. (13): T_w = M e^{R/M} (e^{(tau + delta)/M} - 1) T_s / tau.
 * expm1 keeps the bracket exact when M is much larger than tau + delta; without failures
 * (M infinite) the limit is T_s (tau + delta) / tau. */
double ts_run_daly_wall_time(double M, double delta, double R, double tau, double Ts)
{
    TS_ASSERT(M > 0.0 && delta >= 0.0 && R >= 0.0 && tau > 0.0 && Ts >= 0.0,
              "daly: M=%g delta=%g R=%g tau=%g Ts=%g", M, delta, R, tau, Ts);
    if (isinf(M))
        return Ts * (tau + delta) / tau;
    return M * exp(R / M) * expm1((tau + delta) / M) * Ts / tau;
}

/* Daly (2006) eq. (37): the higher-order optimum, valid for delta < 2M; beyond it the
 * optimum is M itself. */
double ts_run_daly_interval(double delta, double M)
{
    TS_ASSERT(delta >= 0.0 && M > 0.0, "daly: delta=%g M=%g", delta, M);
    if (isinf(M))
        return HUGE_VAL;
    if (delta >= 2.0 * M)
        return M;
    double x = delta / (2.0 * M);
    return sqrt(2.0 * delta * M) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta;
}

/* Young (1974), "A first order approximation to the optimum checkpoint interval", CACM 17(9). */
double ts_run_young_interval(double delta, double M)
{
    TS_ASSERT(delta >= 0.0 && M > 0.0, "young: delta=%g M=%g", delta, M);
    return sqrt(2.0 * delta * M);
}

/* ---------------------------------------------------------------- job-level rates */

double ts_run__process_copies(const struct ts_failure_process *f, int gpus, int nodes)
{
    switch (f->component) {
    case TS_COMP_GPU:
        return gpus;
    case TS_COMP_NODE:
    case TS_COMP_NETWORK:
    case TS_COMP_SWITCH:
    case TS_COMP_SOFTWARE:
        return nodes;
    case TS_COMP_JOB:
    case TS_COMP_COUNT:
        break;
    }
    return 1.0;
}

double ts_run__mechanism_rate(const struct ts_reliability *rel, int gpus, int nodes)
{
    const struct ts_mechanisms *x = &rel->mech;
    double rate = 0.0;
    /* Lemons without eviction: (1 - f) r + f m r per node, i.e. f (m - 1) r on top. With an
     * eviction policy they are soon replaced and the long-run rate tends to the healthy one
     * (ts_run_estimate counts their failures until eviction). */
    if (x->bad_nodes.fraction > 0.0 && x->bad_nodes.evict_after == 0)
        rate += x->bad_nodes.fraction * (x->bad_nodes.multiplier - 1.0) *
                ts_run__node_failure_rate(rel, gpus, nodes) * nodes;
    if (x->correlated.domain_mtbf_s > 0.0 && x->correlated.domain_nodes > 0)
        rate += ceil((double)nodes / x->correlated.domain_nodes) * rel->rate_scale /
                x->correlated.domain_mtbf_s;
    return rate;
}

double ts_run__process_mtbf(const struct ts_reliability *rel, int i)
{
    return rel->failures[i].mtbf_s / rel->rate_scale;
}

double ts_run__process_rate(const struct ts_reliability *rel, int i, int gpus, int nodes)
{
    return ts_run__process_copies(&rel->failures[i], gpus, nodes) / ts_run__process_mtbf(rel, i);
}

double ts_run_job_mtbf(const struct ts_reliability *rel, int gpus, int nodes)
{
    double rate = 0.0;
    for (int i = 0; i < rel->n_failures; i++)
        rate += ts_run__process_rate(rel, i, gpus, nodes);
    if (rel->spot.enabled)
        rate += nodes / rel->spot.preemption_mtbf_s;
    rate += ts_run__mechanism_rate(rel, gpus, nodes);
    return rate > 0.0 ? 1.0 / rate : HUGE_VAL;
}

/* Rate of failures that take a node out (gpu, node, network and switch processes), per
 * second. */
static double hardware_rate(const struct ts_reliability *rel, int gpus, int nodes)
{
    double rate = 0.0;
    for (int i = 0; i < rel->n_failures; i++)
        if (ts_component_takes_node(rel->failures[i].component))
            rate += ts_run__process_rate(rel, i, gpus, nodes);
    return rate;
}

double ts_run__node_failure_rate(const struct ts_reliability *rel, int gpus, int nodes)
{
    return hardware_rate(rel, gpus, nodes) / nodes;
}

double ts_run__hang_fraction(const struct ts_reliability *rel, int i)
{
    double h = rel->mech.recovery.hang_fraction;
    return h > 0.0 ? h : rel->failures[i].hang_fraction;
}

double ts_run__hardware_hang_fraction(const struct ts_reliability *rel, int gpus, int nodes)
{
    if (rel->mech.recovery.hang_fraction > 0.0)
        return rel->mech.recovery.hang_fraction;
    double rate = 0.0, hang = 0.0;
    for (int i = 0; i < rel->n_failures; i++)
        if (ts_component_takes_node(rel->failures[i].component)) {
            double r = ts_run__process_rate(rel, i, gpus, nodes);
            rate += r;
            hang += r * rel->failures[i].hang_fraction;
        }
    return rate > 0.0 ? hang / rate : 0.0;
}

double ts_run__failure_hang_fraction(const struct ts_reliability *rel, int gpus, int nodes)
{
    if (rel->mech.recovery.hang_fraction > 0.0)
        return rel->mech.recovery.hang_fraction;
    double rate = 0.0, hang = 0.0;
    for (int i = 0; i < rel->n_failures; i++) {
        double r = ts_run__process_rate(rel, i, gpus, nodes);
        rate += r;
        hang += r * rel->failures[i].hang_fraction;
    }
    double mech = ts_run__mechanism_rate(rel, gpus, nodes);
    rate += mech;
    hang += mech * ts_run__hardware_hang_fraction(rel, gpus, nodes);
    return rate > 0.0 ? hang / rate : 0.0;
}

double ts_run__phases_mean_s(const struct ts_reliability *rel, int gpus, int nodes)
{
    const struct ts_recovery *rc = &rel->mech.recovery;
    double h = ts_run__failure_hang_fraction(rel, gpus, nodes);
    return (1.0 - h) * rc->crash_detect_s + h * rc->hang_timeout_s + rc->queue_s +
           (rc->diagnose_median_s > 0.0
                ? rc->diagnose_median_s * exp(0.5 * rc->diagnose_sigma * rc->diagnose_sigma)
                : 0.0);
}

double ts_run_hang_fraction(const struct ts_reliability *rel, int gpus, int nodes)
{
    return ts_run__failure_hang_fraction(rel, gpus, nodes);
}

double ts_run_recovery_phases_mean(const struct ts_reliability *rel, int gpus, int nodes)
{
    return ts_run__phases_mean_s(rel, gpus, nodes);
}

double ts_run_startup(const struct ts_reliability *rel, int nodes)
{
    return ts_run__startup_s(rel, nodes);
}

double ts_run__startup_s(const struct ts_reliability *rel, int nodes)
{
    return rel->mech.recovery.startup_s + rel->mech.recovery.startup_per_node_s * nodes;
}

/* ---------------------------------------------------------------- input ranges */

double ts_run__weibull_scale(double mtbf_s, double shape)
{
    /* mean = scale Gamma(1 + 1/k), so scale = mtbf / Gamma(1 + 1/k), in logs so that no
     * intermediate overflows; NaN (rejected by check_inputs) if GSL cannot evaluate it. */
    gsl_sf_result lg;
    if (!(shape > 0.0) || gsl_sf_lngamma_e(1.0 + 1.0 / shape, &lg) != GSL_SUCCESS) {
        ts_gsl_error_take(NULL, 0);
        return NAN;
    }
    return exp(log(mtbf_s) - lg.val);
}

/* `v` outside [lo, hi] (or not finite): an input error naming `path` and the range. */
static int check_range(double v, double lo, double hi, enum ts_dim dim, const char *path,
                       struct ts_err *err)
{
    if (isfinite(v) && v >= lo && v <= hi)
        return TS_OK;
    char a[48], b[48], c[48];
    /* The value as given, in the base unit: a denormal reads "1e-320 s", not "1e-314 us". */
    const char *unit = dim == TS_DIM_SECONDS ? " s" : dim == TS_DIM_BYTES ? " B"
                       : dim == TS_DIM_BYTES_PER_S ? " B/s" : "";
    if (isfinite(v))
        snprintf(c, sizeof c, "%g%s", v, unit);
    else
        snprintf(c, sizeof c, "a value that is not a finite number");
    if (lo == 0.0)
        snprintf(a, sizeof a, "0%s", unit);
    else
        ts_quantity_format(lo, dim, a, sizeof a);
    if (isinf(hi))
        return ts_err_set(err, TS_ERR_INPUT, "%s: %s is out of range (allowed: a finite value of "
                          "at least %s)", path, c, a);
    return ts_err_set(err, TS_ERR_INPUT, "%s: %s is out of range (allowed %s to %s)", path, c,
                      a, ts_quantity_format(hi, dim, b, sizeof b));
}

/* The reliability inputs the run model's arithmetic needs: the lower ends of the ranges of
 * spec.h, and finite values (the parser enforces the whole ranges; a caller that fills the
 * structs itself gets an input error instead of an overflow or an assertion), and the upper
 * end of the waits (restart, repair, notice, reacquire), which the simulation adds to its
 * clock. Other upper ends are not needed here: a longer MTBF or a faster link only makes
 * the numbers smaller, and a long write is judged by check_can_finish. */
static int check_inputs(const struct ts_run_input *in, struct ts_err *err)
{
    const struct ts_reliability *rel = &in->rel;
    const struct ts_checkpoint *c = &rel->checkpoint;
    char path[96];
    int rc;
    if (rel->n_failures < 0 || rel->n_failures > TS_FAILURES_MAX)
        return ts_err_set(err, TS_ERR_INPUT, "reliability.failures: %d processes (0 to %d)",
                          rel->n_failures, TS_FAILURES_MAX);
    if ((rc = check_range(rel->rate_scale, TS_REL_RATE_SCALE_MIN, TS_REL_RATE_SCALE_MAX,
                          TS_DIM_NUMBER, "reliability.rate_scale", err)))
        return rc;
    for (int i = 0; i < rel->n_failures; i++) {
        const struct ts_failure_process *f = &rel->failures[i];
        snprintf(path, sizeof path, "reliability.failures[%d].mtbf", i);
        if ((rc = check_range(f->mtbf_s, TS_REL_MTBF_MIN_S, HUGE_VAL, TS_DIM_SECONDS,
                              path, err)))
            return rc;
        if (f->distribution == TS_DIST_WEIBULL) {
            snprintf(path, sizeof path, "reliability.failures[%d].shape", i);
            if ((rc = check_range(f->shape, TS_REL_SHAPE_MIN, TS_REL_SHAPE_MAX, TS_DIM_NUMBER,
                                  path, err)))
                return rc;
            double scale = ts_run__weibull_scale(f->mtbf_s, f->shape);
            if (!(scale > 0.0) || !isfinite(scale))
                return ts_err_set(err, TS_ERR_INPUT, "%s: Weibull shape %g with mtbf %g s has "
                                  "no finite scale (allowed shapes %g to %g)", path, f->shape,
                                  f->mtbf_s, TS_REL_SHAPE_MIN, TS_REL_SHAPE_MAX);
        }
    }
    if (rel->spot.enabled) {
        if ((rc = check_range(rel->spot.preemption_mtbf_s, TS_REL_MTBF_MIN_S, HUGE_VAL,
                              TS_DIM_SECONDS, "reliability.spot.preemption_mtbf", err)) ||
            (rc = check_range(rel->spot.notice_s, 0.0, TS_REL_DURATION_MAX_S, TS_DIM_SECONDS,
                              "reliability.spot.notice", err)) ||
            (rc = check_range(rel->spot.reacquire_s, 0.0, TS_REL_DURATION_MAX_S, TS_DIM_SECONDS,
                              "reliability.spot.reacquire", err)))
            return rc;
    }
    if ((rc = check_range(rel->restart_overhead_s, 0.0, TS_REL_DURATION_MAX_S, TS_DIM_SECONDS,
                          "reliability.restart_overhead", err)) ||
        (rc = check_range(rel->repair_time_s, 0.0, TS_REL_DURATION_MAX_S, TS_DIM_SECONDS,
                          "reliability.repair_time", err)))
        return rc;
    const struct ts_mechanisms *x = &rel->mech;
    const struct {
        const char *path;
        double v, lo, hi;
    } ranges[] = {
        {"reliability.recovery.crash_detection", x->recovery.crash_detect_s, 0, TS_REL_DURATION_MAX_S},
        {"reliability.recovery.hang_fraction", x->recovery.hang_fraction, 0, 1},
        {"reliability.recovery.hang_timeout", x->recovery.hang_timeout_s, 0, TS_REL_DURATION_MAX_S},
        {"reliability.recovery.diagnose.median", x->recovery.diagnose_median_s, 0, TS_REL_DURATION_MAX_S},
        {"reliability.recovery.diagnose.sigma", x->recovery.diagnose_sigma, 0, 5},
        {"reliability.recovery.queue", x->recovery.queue_s, 0, TS_REL_DURATION_MAX_S},
        {"reliability.recovery.startup", x->recovery.startup_s, 0, TS_REL_DURATION_MAX_S},
        {"reliability.recovery.startup_per_node", x->recovery.startup_per_node_s, 0, 1e5},
        {"reliability.fail_slow.gpu_mtbf", x->fail_slow.gpu_mtbf_s, 0, TS_REL_MTBF_MAX_S},
        {"reliability.fail_slow.detection", x->fail_slow.detect_s, 0, TS_REL_DURATION_MAX_S},
        {"reliability.bad_nodes.fraction", x->bad_nodes.fraction, 0, 1},
        {"reliability.bad_nodes.window", x->bad_nodes.evict_window_s, 0, TS_REL_DURATION_MAX_S},
        {"reliability.correlated.domain_mtbf", x->correlated.domain_mtbf_s, 0, TS_REL_MTBF_MAX_S},
        {"reliability.rollback.fraction", x->rollback.fraction, 0, 1},
        {"reliability.planned.node_mtbf", x->planned.node_mtbf_s, 0, TS_REL_MTBF_MAX_S},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(ranges); i++)
        if ((rc = check_range(ranges[i].v, ranges[i].lo, ranges[i].hi, TS_DIM_NUMBER,
                              ranges[i].path, err)))
            return rc;
    if (x->fail_slow.gpu_mtbf_s > 0.0 &&
        ((rc = check_range(x->fail_slow.gpu_mtbf_s, TS_REL_MTBF_MIN_S, TS_REL_MTBF_MAX_S,
                           TS_DIM_SECONDS, "reliability.fail_slow.gpu_mtbf", err)) ||
         (rc = check_range(x->fail_slow.factor, 1.0, 100.0, TS_DIM_NUMBER,
                           "reliability.fail_slow.factor", err))))
        return rc;
    if (x->bad_nodes.fraction > 0.0 &&
        ((rc = check_range(x->bad_nodes.multiplier, 1.0, 1e6, TS_DIM_NUMBER,
                           "reliability.bad_nodes.multiplier", err)) ||
         (rc = check_range(x->bad_nodes.evict_after, 0, 100, TS_DIM_NUMBER,
                           "reliability.bad_nodes.evict_after", err))))
        return rc;
    if (x->correlated.domain_mtbf_s > 0.0 &&
        ((rc = check_range(x->correlated.domain_mtbf_s, TS_REL_MTBF_MIN_S, TS_REL_MTBF_MAX_S,
                           TS_DIM_SECONDS, "reliability.correlated.domain_mtbf", err)) ||
         (rc = check_range(x->correlated.domain_nodes, 1, 1e6, TS_DIM_NUMBER,
                           "reliability.correlated.domain_nodes", err))))
        return rc;
    if (x->rollback.fraction > 0.0 &&
        (rc = check_range(x->rollback.depth, 0, 1000, TS_DIM_NUMBER, "reliability.rollback.depth",
                          err)))
        return rc;
    if (x->planned.node_mtbf_s > 0.0 &&
        (rc = check_range(x->planned.node_mtbf_s, TS_REL_MTBF_MIN_S, TS_REL_MTBF_MAX_S,
                          TS_DIM_SECONDS, "reliability.planned.node_mtbf", err)))
        return rc;
    if (rel->spares < 0)
        return ts_err_set(err, TS_ERR_INPUT, "reliability.spares: %d must not be negative",
                          rel->spares);
    if (!c->interval_auto && c->interval_iterations <= 0 &&
        (rc = check_range(c->interval_s, 0.0, HUGE_VAL, TS_DIM_SECONDS,
                          "reliability.checkpoint.interval", err)))
        return rc;
    const struct {
        const char *key;
        double bytes_per_s;     // 0 = no limit
    } limits[] = {
        {"write_bandwidth", c->write_bandwidth},
        {"read_bandwidth", c->read_bandwidth},
        {"node_write_bandwidth", c->node_write_bandwidth},
        {"node_read_bandwidth", c->node_read_bandwidth},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(limits); i++) {
        snprintf(path, sizeof path, "reliability.checkpoint.%s", limits[i].key);
        if (limits[i].bytes_per_s != 0.0 &&
            (rc = check_range(limits[i].bytes_per_s, TS_REL_BANDWIDTH_MIN, HUGE_VAL,
                              TS_DIM_BYTES_PER_S, path, err)))
            return rc;
    }
    if (c->mode == TS_CKPT_ASYNC &&
        (rc = check_range(c->snapshot_bandwidth, TS_REL_BANDWIDTH_MIN, HUGE_VAL,
                          TS_DIM_BYTES_PER_S, "reliability.checkpoint.snapshot_bandwidth", err)))
        return rc;
    return TS_OK;
}

/* ---------------------------------------------------------------- derived constants */

/* Bandwidth of a transfer of the whole checkpoint: the tighter of the aggregate storage limit
 * and the per-node limit times the nodes (0 = that limit absent). */
static double transfer_bandwidth(double aggregate, double per_node, int nodes)
{
    double bw = HUGE_VAL;
    if (aggregate > 0.0)
        bw = aggregate;
    if (per_node > 0.0)
        bw = fmin(bw, per_node * nodes);
    return bw;
}

static const char *fmt_s(double seconds, char *buf, size_t n)
{
    if (!isfinite(seconds))
        snprintf(buf, n, "unbounded");
    else
        ts_quantity_format(seconds, TS_DIM_SECONDS, buf, n);
    return buf;
}

/* e^x as text: "%.3g" while it is a double, else its power of ten from the log (a count of
 * interruptions that overflows a double is still a number the user can read). */
static const char *fmt_exp(double x, char *buf, size_t n)
{
    if (x < 700.0)
        snprintf(buf, n, "%.3g", exp(x));
    else if (isfinite(x))
        snprintf(buf, n, "1e+%.0f", floor(x / log(10.0)));
    else
        snprintf(buf, n, "more than 1e+308");
    return buf;
}

/* A number for a message with `digits` significant digits (0: "%g"), or words when it is not
 * finite. */
static const char *fmt_num(double v, int digits, char *buf, size_t n)
{
    if (!isfinite(v))
        snprintf(buf, n, "%s", isnan(v) ? "undefined" : "unbounded");
    else if (digits > 0)
        snprintf(buf, n, "%.*g", digits, v);
    else
        snprintf(buf, n, "%g", v);
    return buf;
}

static const char *fmt_3g(double v, char *buf, size_t n)
{
    return fmt_num(v, 3, buf, n);
}

static const char *fmt_g(double v, char *buf, size_t n)
{
    return fmt_num(v, 0, buf, n);
}

/* log(e^x - 1) without overflow for large x. */
static double log_expm1(double x)
{
    return x > 50.0 ? x + log1p(-exp(-x)) : log(expm1(x));
}

/* Whether the run can finish in any useful time; else an input error that says why.
 * Expected interruptions per run are Daly's T_w / M (computed in logs, since e^{R/M} may
 * overflow); without hot spares to cover the repairs, the job runs only while every node is
 * up: with hardware failures at rate lambda and repairs of D, the nodes in repair are
 * Poisson(lambda D) (an M/G/infinity queue), so the job has all nodes a fraction
 * P(Poisson(lambda D) <= spares) of the time and its wall time stretches by the inverse. */
static int check_can_finish(const struct ts_run_input *in, const struct ts_run_params *p,
                            struct ts_err *err)
{
    const struct ts_reliability *rel = &in->rel;
    /* The recovery phases of a failure count at their mean (Jensen: a long tail makes the
     * run slower still, which the simulation's interruption cap then catches). */
    double phases = ts_run__phases_mean_s(rel, in->gpus, in->nodes);
    double M = p->job_mtbf_s, R = p->restart_s + phases, tau = p->checkpoint_interval_s;
    double delta = p->checkpoint_write_s, Ts = p->solve_s;
    double log_interrupts = -HUGE_VAL, log_stretch = log((tau + delta) / tau);
    if (!isinf(M)) {
        log_interrupts = R / M + log_expm1((tau + delta) / M) + log(Ts / tau);
        log_stretch = log_interrupts + log(M / Ts);
    }
    double availability = 1.0, in_repair = 0.0;
    if (!rel->elastic && rel->repair_time_s > 0.0) {
        in_repair = hardware_rate(rel, in->gpus, in->nodes) * rel->repair_time_s;
        if (in_repair > 0.0) {
            availability = gsl_cdf_poisson_P((unsigned)rel->spares, in_repair);
            /* GSL's errors no longer abort (ts_gsl_errors_install): on one, the value is
             * undefined; far more nodes in repair than spares means all are rarely up. */
            if (ts_gsl_error_take(NULL, 0) || !(availability >= 0.0 && availability <= 1.0))
                availability = in_repair > rel->spares ? 0.0 : 1.0;
        }
    }
    double log_wall_stretch = log_stretch - log(availability);
    if (log_interrupts <= log(TS_RUN_INTERRUPTIONS_MAX) && log_wall_stretch <= log(TS_RUN_STRETCH_MAX))
        return TS_OK;

    char m[48], r[48], t[48], d[48], ni[48], ns[48], why[512] = "";
    if (availability < 0.5)
        snprintf(why, sizeof why,
                 "; hardware failures keep about %s nodes in repair (repair_time %s) against "
                 "%d hot spares, so all %d nodes are up only %s%% of the time: add spares, "
                 "shorten repair_time or set elastic",
                 fmt_3g(in_repair, ni, sizeof ni), fmt_s(rel->repair_time_s, d, sizeof d),
                 rel->spares, in->nodes, fmt_3g(100.0 * availability, ns, sizeof ns));
    else if (M < R)
        snprintf(why, sizeof why,
                 "; the mean time to interrupt %s is shorter than the restart %s, so most "
                 "restarts are interrupted themselves: lower the failure rates or the restart "
                 "time (restart_overhead, recovery phases, checkpoint size, read bandwidth)",
                 fmt_s(M, m, sizeof m), fmt_s(R, r, sizeof r));
    else
        snprintf(why, sizeof why, "; lower the failure rates, the restart time or the checkpoint "
                 "write time");
    return ts_err_set(err, TS_ERR_INPUT,
                      "reliability: the job cannot finish in any useful time: about %s "
                      "interruptions per run and %s times its failure-free time (mean time to "
                      "interrupt %s, restart %s, checkpoint every %s, write %s)%s",
                      fmt_exp(log_interrupts, ni, sizeof ni),
                      fmt_exp(log_wall_stretch, ns, sizeof ns), fmt_s(M, m, sizeof m),
                      fmt_s(R, r, sizeof r), fmt_s(tau, t, sizeof t), fmt_s(delta, d, sizeof d),
                      why);
}

int ts_run_params_compute(const struct ts_run_input *in, struct ts_run_params *out,
                          struct ts_err *err)
{
    const struct ts_reliability *rel = &in->rel;
    const struct ts_checkpoint *c = &rel->checkpoint;
    *out = (struct ts_run_params){0};
    ts_gsl_errors_install();
    int rc = check_inputs(in, err);
    if (rc)
        return rc;
    char g1[32], g2[32];
    if (!(in->iteration_s > 0.0) || !isfinite(in->iteration_s) || !(in->iterations > 0.0) ||
        !isfinite(in->iterations))
        return ts_err_set(err, TS_ERR_INPUT,
                          "run: the iteration time (%s s) and the iterations (%s) must be "
                          "positive and finite", fmt_g(in->iteration_s, g1, sizeof g1),
                          fmt_g(in->iterations, g2, sizeof g2));
    if (in->gpus < 1 || in->nodes < 1 || in->gpus_per_node < 1 || in->dp < 1 ||
        in->gpus % in->dp != 0)
        return ts_err_set(err, TS_ERR_INPUT,
                          "run: %d GPUs in %d nodes of %d with %d data-parallel replicas is not a "
                          "valid job", in->gpus, in->nodes, in->gpus_per_node, in->dp);
    if (rel->elastic && in->elastic_iteration_s)
        for (int k = 0; k < in->dp; k++)
            if (!(in->elastic_iteration_s[k] > 0.0) || !isfinite(in->elastic_iteration_s[k]))
                return ts_err_set(err, TS_ERR_INPUT,
                                  "run: the iteration time with %d of %d replicas is %s s; it "
                                  "must be positive and finite", in->dp - k, in->dp,
                                  fmt_g(in->elastic_iteration_s[k], g1, sizeof g1));

    double size = c->size_bytes > 0.0 ? c->size_bytes : in->checkpoint_bytes;
    if (!(size > 0.0) || !isfinite(size))
        return ts_err_set(err, TS_ERR_INPUT,
                          "reliability.checkpoint.size: the job gives no checkpoint size; set "
                          "one, e.g. \"2.3 TB\"");
    if ((rc = check_range(size, TS_REL_SIZE_MIN_BYTES, TS_REL_SIZE_MAX_BYTES, TS_DIM_BYTES,
                          "reliability.checkpoint.size", err)))
        return rc;
    double write_bw = transfer_bandwidth(c->write_bandwidth, c->node_write_bandwidth, in->nodes);
    double read_bw = transfer_bandwidth(c->read_bandwidth, c->node_read_bandwidth, in->nodes);
    if (isinf(write_bw) || isinf(read_bw))
        return ts_err_set(err, TS_ERR_INPUT,
                          "reliability.checkpoint: give a write and a read bandwidth (aggregate "
                          "or per node)");
    double write_s = size / write_bw;
    if (c->mode == TS_CKPT_ASYNC) {
        // Every GPU copies its shard to host memory at once; the write follows in the background.
        TS_ASSERT(c->snapshot_bandwidth > 0.0, "snapshot bandwidth %g", c->snapshot_bandwidth);
        out->checkpoint_write_s = size / in->gpus / c->snapshot_bandwidth;
        out->checkpoint_persist_s = write_s;
    } else {
        out->checkpoint_write_s = write_s;
        out->checkpoint_persist_s = write_s;
    }
    out->checkpoint_bytes = size;
    out->write_bandwidth = write_bw;
    out->read_bandwidth = read_bw;
    out->restart_s = rel->restart_overhead_s + ts_run__startup_s(rel, in->nodes) + size / read_bw;
    out->job_mtbf_s = ts_run_job_mtbf(rel, in->gpus, in->nodes);
    out->solve_s = in->iterations * in->iteration_s;

    double tau;
    char a[48], b[48];
    if (c->interval_auto) {
        tau = ts_run_daly_interval(out->checkpoint_write_s, out->job_mtbf_s);
        // Async: an interval shorter than the background write only stalls on that write.
        if (c->mode == TS_CKPT_ASYNC)
            tau = fmax(tau, out->checkpoint_persist_s);
        tau = fmax(tau, in->iteration_s);
    } else if (c->interval_iterations > 0) {
        tau = (double)c->interval_iterations * in->iteration_s;
    } else {
        tau = c->interval_s;
        if (tau < in->iteration_s)
            return ts_err_set(err, TS_ERR_INPUT,
                              "reliability.checkpoint.interval: %s is shorter than one iteration "
                              "(%s); checkpoints are taken between iterations",
                              fmt_s(tau, a, sizeof a), fmt_s(in->iteration_s, b, sizeof b));
    }
    out->checkpoint_interval_s = fmin(tau, out->solve_s);
    return check_can_finish(in, out, err);
}
