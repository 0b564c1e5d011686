/*
 * run: the closed forms of checkpoint/restart theory (Young 1974, Daly 2006) and the derived
 * constants of a run (M, delta, R, tau, T_s), including the check that a run can finish at
 * all before the simulator is asked to play it out. The manual is run.h.
 */
#include <math.h>

#include <gsl/gsl_cdf.h>

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
        return nodes;
    case TS_COMP_JOB:
    case TS_COMP_COUNT:
        break;
    }
    return 1.0;
}

double ts_run_job_mtbf(const struct ts_reliability *rel, int gpus, int nodes)
{
    double rate = 0.0;
    for (int i = 0; i < rel->n_failures; i++)
        rate += ts_run__process_copies(&rel->failures[i], gpus, nodes) / rel->failures[i].mtbf_s;
    if (rel->spot.enabled)
        rate += nodes / rel->spot.preemption_mtbf_s;
    return rate > 0.0 ? 1.0 / rate : HUGE_VAL;
}

/* Rate of failures that take a node out (gpu, node and network processes), per second. */
static double hardware_rate(const struct ts_reliability *rel, int gpus, int nodes)
{
    double rate = 0.0;
    for (int i = 0; i < rel->n_failures; i++)
        if (rel->failures[i].component != TS_COMP_JOB)
            rate += ts_run__process_copies(&rel->failures[i], gpus, nodes) / rel->failures[i].mtbf_s;
    return rate;
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
    if (isinf(seconds))
        snprintf(buf, n, "infinite");
    else
        ts_quantity_format(seconds, TS_DIM_SECONDS, buf, n);
    return buf;
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
    double M = p->job_mtbf_s, R = p->restart_s, tau = p->checkpoint_interval_s;
    double delta = p->checkpoint_write_s, Ts = p->solve_s;
    double log_interrupts = -HUGE_VAL, log_stretch = log((tau + delta) / tau);
    if (!isinf(M)) {
        log_interrupts = R / M + log(expm1((tau + delta) / M)) + log(Ts / tau);
        log_stretch = log_interrupts + log(M / Ts);
    }
    double availability = 1.0, in_repair = 0.0;
    if (!rel->elastic && rel->repair_time_s > 0.0) {
        in_repair = hardware_rate(rel, in->gpus, in->nodes) * rel->repair_time_s;
        if (in_repair > 0.0)
            availability = gsl_cdf_poisson_P((unsigned)rel->spares, in_repair);
    }
    double log_wall_stretch = log_stretch - log(availability);
    if (log_interrupts <= log(TS_RUN_INTERRUPTIONS_MAX) && log_wall_stretch <= log(TS_RUN_STRETCH_MAX))
        return TS_OK;

    char m[48], r[48], t[48], d[48], why[512] = "";
    if (availability < 0.5)
        snprintf(why, sizeof why,
                 "; hardware failures keep about %.3g nodes in repair (repair_time %s) against "
                 "%d hot spares, so all %d nodes are up only %.3g%% of the time: add spares, "
                 "shorten repair_time or set elastic",
                 in_repair, fmt_s(rel->repair_time_s, d, sizeof d), rel->spares, in->nodes,
                 100.0 * availability);
    else if (M < R)
        snprintf(why, sizeof why,
                 "; the mean time to interrupt %s is shorter than the restart %s, so most "
                 "restarts are interrupted themselves: lower the failure rates or the restart "
                 "time (restart_overhead, checkpoint size, read bandwidth)",
                 fmt_s(M, m, sizeof m), fmt_s(R, r, sizeof r));
    else
        snprintf(why, sizeof why, "; lower the failure rates, the restart time or the checkpoint "
                 "write time");
    return ts_err_set(err, TS_ERR_INPUT,
                      "reliability: the job cannot finish in any useful time: about %.3g "
                      "interruptions per run and %.3g times its failure-free time (mean time to "
                      "interrupt %s, restart %s, checkpoint every %s, write %s)%s",
                      exp(log_interrupts), exp(log_wall_stretch), fmt_s(M, m, sizeof m),
                      fmt_s(R, r, sizeof r), fmt_s(tau, t, sizeof t), fmt_s(delta, d, sizeof d),
                      why);
}

int ts_run_params_compute(const struct ts_run_input *in, struct ts_run_params *out,
                          struct ts_err *err)
{
    const struct ts_reliability *rel = &in->rel;
    const struct ts_checkpoint *c = &rel->checkpoint;
    *out = (struct ts_run_params){0};
    if (!(in->iteration_s > 0.0) || !isfinite(in->iteration_s) || !(in->iterations > 0.0) ||
        !isfinite(in->iterations))
        return ts_err_set(err, TS_ERR_INPUT,
                          "run: the iteration time (%g s) and the iterations (%g) must be positive",
                          in->iteration_s, in->iterations);
    if (in->gpus < 1 || in->nodes < 1 || in->gpus_per_node < 1 || in->dp < 1 ||
        in->gpus % in->dp != 0)
        return ts_err_set(err, TS_ERR_INPUT,
                          "run: %d GPUs in %d nodes of %d with %d data-parallel replicas is not a "
                          "valid job", in->gpus, in->nodes, in->gpus_per_node, in->dp);
    if (rel->elastic && in->elastic_iteration_s)
        for (int k = 0; k < in->dp; k++)
            if (!(in->elastic_iteration_s[k] > 0.0) || !isfinite(in->elastic_iteration_s[k]))
                return ts_err_set(err, TS_ERR_INPUT,
                                  "run: the iteration time with %d of %d replicas is %g s; it "
                                  "must be positive", in->dp - k, in->dp,
                                  in->elastic_iteration_s[k]);

    double size = c->size_bytes > 0.0 ? c->size_bytes : in->checkpoint_bytes;
    if (!(size > 0.0) || !isfinite(size))
        return ts_err_set(err, TS_ERR_INPUT,
                          "reliability.checkpoint.size: the job gives no checkpoint size; set "
                          "one, e.g. \"2.3 TB\"");
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
    out->restart_s = rel->restart_overhead_s + size / read_bw;
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
