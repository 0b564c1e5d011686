/*
 * The analytic run model: Daly's expected wall time, for ranking configurations in sweeps
 * (see ts_run_estimate in run.h). The Monte Carlo simulation (run.c) is the reference; this
 * is its first-order summary.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "run/run.h"
#include "run/run_internal.h"

/* E[exp(-lambda Y)] for a lognormal Y (median e^mu, log-sd sigma): the trapezoidal rule over
 * the standard normal z in [-8, 8] (step 0.1), which is exact to double precision for such a
 * smooth, rapidly decaying integrand. */
static double lognormal_laplace(double mu, double sigma, double lambda)
{
    /* A sweep asks for the same few (mu, sigma, lambda) for every layout of a system x nodes
     * x pricing: a small per-thread memo of exact arguments returns the same value, so the
     * result does not depend on it (or on the thread count). */
    enum { MEMO = 8 };
    static _Thread_local struct {
        double mu, sigma, lambda, value;
        bool set;
    } memo[MEMO];
    static _Thread_local int next;
    for (int m = 0; m < MEMO; m++)
        if (memo[m].set && memo[m].mu == mu && memo[m].sigma == sigma && memo[m].lambda == lambda)
            return memo[m].value;
    double sum = 0.0, h = 0.1;
    for (int i = -80; i <= 80; i++) {
        double z = i * h;
        sum += exp(-0.5 * z * z - lambda * exp(mu + sigma * z));
    }
    double value = sum * h * 0.39894228040143267794;    // 1 / sqrt(2 pi)
    memo[next].mu = mu;
    memo[next].sigma = sigma;
    memo[next].lambda = lambda;
    memo[next].value = value;
    memo[next].set = true;
    next = (next + 1) % MEMO;
    return value;
}

/* E[exp(-lambda X)] for the recovery phases X of an unplanned failure (detection, diagnose,
 * queue) and, with the rollback share, the k intervals redone after a rollback. */
static double phases_laplace(const struct ts_reliability *rel, double hang_share, double lambda,
                             double redo_s)
{
    const struct ts_recovery *rc = &rel->mech.recovery;
    double h = hang_share;
    double L = (1.0 - h) * exp(-lambda * rc->crash_detect_s) + h * exp(-lambda * rc->hang_timeout_s);
    if (rc->diagnose_median_s > 0.0)
        L *= lognormal_laplace(log(rc->diagnose_median_s), rc->diagnose_sigma, lambda);
    L *= exp(-lambda * rc->queue_s);
    double p = rel->mech.rollback.fraction;
    return L * ((1.0 - p) + p * exp(-lambda * redo_s));
}

/* Failures one lemon adds before the policy evicts it: with k = evict_after failures in a
 * window W at its rate mr, k - 1 further failures each need the previous k - 1 within W:
 * 1 + (k - 1) / P(Poisson(mr W) >= k - 1) (exact for k = 1, 2 and for an unbounded window;
 * an approximation otherwise), at most what it would fail in the whole run. */
static double lemon_failures(const struct ts_bad_nodes *b, double lemon_rate, double horizon_s)
{
    double all = lemon_rate * horizon_s;
    if (b->evict_after <= 0)
        return all;
    double k = b->evict_after, p = 1.0;
    if (k >= 2.0)
        p = gsl_cdf_poisson_Q((unsigned)(k - 2.0), lemon_rate * b->evict_window_s);
    double n = p > 0.0 ? 1.0 + (k - 1.0) / p : HUGE_VAL;
    return fmin(n, all);
}

/* Daly's wall time generalised by renewal-reward to random recoveries: with failures at
 * rate lambda and i.i.d. recovery times X (a failure during one starts a fresh one), a
 * recovery completes after (1 / E[e^{-lambda X}] - 1) / lambda on average, so e^{R/M} becomes
 * e^{R/M} / E[e^{-lambda X}] (constant X: Daly's formula). Planned interruptions and
 * fail-slow drains (a save and a restart while training) stretch the result. */
static double wall_estimate(const struct ts_run_input *in, const struct ts_run_params *p,
                            double rate_fail, double rate_spot, double R_eff, double stretch,
                            double drain_rate, double *out_drain_s)
{
    const struct ts_reliability *rel = &in->rel;
    double Ts = p->solve_s * stretch, tau = p->checkpoint_interval_s * stretch;
    double delta = p->checkpoint_write_s, R = p->restart_s;
    double rate = rate_fail + rate_spot, Tw;
    if (rate <= 0.0) {
        Tw = Ts + ceil(p->solve_s / p->checkpoint_interval_s - 1e-9) * delta;
    } else {
        double M = 1.0 / rate;
        int k = rel->mech.rollback.depth;
        bool to_start = rel->checkpoint.keep < k + 1;
        double redo = to_start ? 0.5 * (Ts + Ts / tau * delta) : k * (tau + delta);
        double h = ts_run__failure_hang_fraction(rel, in->gpus, in->nodes);
        double L = (rate_fail * phases_laplace(rel, h, rate, redo) + rate_spot) / rate;
        Tw = ts_run_daly_wall_time(M, delta, R_eff, tau, Ts) / L;
    }
    double drain_s = p->checkpoint_persist_s + R;
    double train = fmin(1.0, (Ts + ceil(p->solve_s / p->checkpoint_interval_s - 1e-9) * delta) / Tw);
    double x = drain_rate * drain_s * train;
    *out_drain_s = drain_s;
    return x < 1.0 ? Tw / (1.0 - x) : HUGE_VAL;
}

int ts_run_estimate(const struct ts_run_input *in, struct ts_run_result *out, struct ts_err *err)
{
    if (ts_run__failure_free(in, out, NULL, NULL))
        return TS_OK;
    memset(out, 0, sizeof *out);
    int rc = ts_run_params_compute(in, &out->params, err);
    if (rc)
        return rc;
    const struct ts_reliability *rel = &in->rel;
    const struct ts_mechanisms *x = &rel->mech;
    const struct ts_run_params *p = &out->params;
    double Ts = p->solve_s, tau = p->checkpoint_interval_s, delta = p->checkpoint_write_s;
    double R = p->restart_s;

    /* Interrupt kinds and their restart times: software and job (the job restarts),
     * hardware (a node must be replaced: from a spare, else after the repair), spot
     * (capacity must be reacquired). */
    double rate_job = 0.0, rate_hw = 0.0, rate_spot = 0.0;
    for (int i = 0; i < rel->n_failures; i++) {
        double r = ts_run__process_rate(rel, i, in->gpus, in->nodes);
        if (!ts_component_takes_node(rel->failures[i].component))
            rate_job += r;
        else
            rate_hw += r;
    }
    rate_hw += ts_run__mechanism_rate(rel, in->gpus, in->nodes);
    if (rel->spot.enabled)
        rate_spot = in->nodes / rel->spot.preemption_mtbf_s;
    double wait_hw = rel->spares > 0 || rel->elastic ? 0.0 : rel->repair_time_s;
    double wait_spot = rel->spot.enabled ? rel->spot.reacquire_s : 0.0;

    /* Fail-slow: onsets at gpus / gpu_mtbf, each slowing the steps by `factor` for the
     * detection delay d; the GPUs slow at once are Poisson(rate d) (M/D/infinity), so a step
     * is slow with probability q = 1 - e^{-rate d} and the compute stretches by
     * 1 / (1 - q (1 - 1/factor)); each episode ends in a drain. */
    double stretch = 1.0, slow_rate = 0.0;
    if (x->fail_slow.gpu_mtbf_s > 0.0) {
        slow_rate = in->gpus * in->rel.rate_scale / x->fail_slow.gpu_mtbf_s;
        double q = -expm1(-slow_rate * x->fail_slow.detect_s);
        stretch = 1.0 / (1.0 - q * (1.0 - 1.0 / x->fail_slow.factor));
    }
    double planned_rate = x->planned.node_mtbf_s > 0.0 ? in->nodes / x->planned.node_mtbf_s : 0.0;
    double drain_rate = planned_rate + slow_rate;

    double rate_fail = rate_job + rate_hw, drain_s = 0.0;
    double rate = rate_fail + rate_spot;
    double R_eff = rate > 0.0 ? R + (rate_hw * wait_hw + rate_spot * wait_spot) / rate : R;
    double Tw = wall_estimate(in, p, rate_fail, rate_spot, R_eff, stretch, drain_rate, &drain_s);
    if (x->bad_nodes.fraction > 0.0 && x->bad_nodes.evict_after > 0 && isfinite(Tw)) {
        /* Lemons under eviction: their extra failures until evicted, spread over the run. */
        double r_node = ts_run__node_failure_rate(rel, in->gpus, in->nodes);
        double lemon_rate = x->bad_nodes.multiplier * r_node;
        for (int it = 0; it < 2; it++) {
            double extra = x->bad_nodes.fraction * in->nodes *
                           lemon_failures(&x->bad_nodes, lemon_rate, Tw) *
                           (1.0 - 1.0 / x->bad_nodes.multiplier) / Tw;
            double rf = rate_fail + extra, rt = rf + rate_spot;
            double Re = R + ((rate_hw + extra) * wait_hw + rate_spot * wait_spot) / rt;
            Tw = wall_estimate(in, p, rf, rate_spot, Re, stretch, drain_rate, &drain_s);
            if (it == 1)
                rate_fail = rf;
        }
    }
    if (!isfinite(Tw))
        return ts_err_set(err, TS_ERR_INPUT,
                          "run: with a mean time to interrupt of %.3g s and a restart of %.3g s "
                          "the job cannot finish", rate > 0.0 ? 1.0 / rate : HUGE_VAL, R_eff);
    out->failures_mean = Tw * rate_fail;
    out->preemptions_mean = Tw * rate_spot;
    out->planned_mean = Tw * planned_rate;
    out->slow_episodes_mean = Tw * slow_rate;
    out->hangs_mean = out->failures_mean * ts_run__failure_hang_fraction(rel, in->gpus, in->nodes);
    out->rollbacks_mean = out->failures_mean * x->rollback.fraction;
    if (x->correlated.domain_mtbf_s > 0.0)
        out->correlated_mean = Tw * ceil((double)in->nodes / x->correlated.domain_nodes) *
                               in->rel.rate_scale / x->correlated.domain_mtbf_s;
    out->replications = 0;
    out->mean_s = out->p50_s = out->p90_s = out->p99_s = Tw;
    out->daly_mean_s = Tw;
    out->goodput = Ts / Tw;
    out->checkpoints_mean = ceil(Ts / tau - 1e-9);

    double g = in->gpus / 3600.0;
    out->productive_gpu_h = Ts * g;
    double slow_s = fmin(Ts * (stretch - 1.0), Tw - Ts);
    out->slow_node_gpu_h = slow_s * g;
    out->checkpoint_gpu_h = fmin(out->checkpoints_mean * delta, Tw - Ts - slow_s) * g;
    double restarts = out->failures_mean + out->preemptions_mean;
    double room = fmax(0.0, Tw - Ts - slow_s - out->checkpoint_gpu_h / g);
    double phases = ts_run__phases_mean_s(rel, in->gpus, in->nodes);
    double restart_s = fmin(restarts * R + out->failures_mean * phases +
                                (out->planned_mean + out->slow_episodes_mean) * drain_s, room);
    double wait_s = fmin(out->failures_mean * (rate > 0 ? rate_hw / (rate_job + rate_hw + 1e-300) : 0) *
                             wait_hw + out->preemptions_mean * wait_spot, room - restart_s);
    out->restart_gpu_h = restart_s * g;
    out->repair_wait_gpu_h = fmax(0.0, wait_s) * g;
    /* Whatever the wall time holds beyond useful work, stalls, restarts and waits is work
     * lost and redone. */
    out->rework_gpu_h = fmax(0.0, Tw * g - out->productive_gpu_h - out->slow_node_gpu_h -
                                      out->checkpoint_gpu_h - out->restart_gpu_h -
                                      out->repair_wait_gpu_h);
    out->spare_gpu_h = rel->spares * in->gpus_per_node * Tw / 3600.0;
    return TS_OK;
}
