/*
 * The analytic run model: Daly's expected wall time, for ranking configurations in sweeps
 * (see ts_run_estimate in run.h). The Monte Carlo simulation (run.c) is the reference; this
 * is its first-order summary.
 */
#include <math.h>
#include <string.h>

#include "run/run.h"
#include "run/run_internal.h"

int ts_run_estimate(const struct ts_run_input *in, struct ts_run_result *out, struct ts_err *err)
{
    if (ts_run__failure_free(in, out, NULL, NULL))
        return TS_OK;
    memset(out, 0, sizeof *out);
    int rc = ts_run_params_compute(in, &out->params, err);
    if (rc)
        return rc;
    const struct ts_reliability *rel = &in->rel;
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
    if (rel->spot.enabled)
        rate_spot = in->nodes / rel->spot.preemption_mtbf_s;
    double rate = rate_job + rate_hw + rate_spot;
    double wait_hw = rel->spares > 0 || rel->elastic ? 0.0 : rel->repair_time_s;
    double wait_spot = rel->spot.enabled ? rel->spot.reacquire_s : 0.0;

    double Tw;
    if (rate <= 0.0) {
        Tw = Ts + ceil(Ts / tau - 1e-9) * delta;
    } else {
        double M = 1.0 / rate;
        double R_eff = R + (rate_hw * wait_hw + rate_spot * wait_spot) / rate;
        Tw = ts_run_daly_wall_time(M, delta, R_eff, tau, Ts);
        if (!isfinite(Tw))
            return ts_err_set(err, TS_ERR_INPUT,
                              "run: with a mean time to interrupt of %.3g s and a restart of %.3g s "
                              "the job cannot finish", M, R_eff);
        out->failures_mean = Tw * (rate_job + rate_hw);
        out->preemptions_mean = Tw * rate_spot;
    }
    out->replications = 0;
    out->mean_s = out->p50_s = out->p90_s = out->p99_s = Tw;
    out->daly_mean_s = Tw;
    out->goodput = Ts / Tw;
    out->checkpoints_mean = ceil(Ts / tau - 1e-9);

    double g = in->gpus / 3600.0;
    out->productive_gpu_h = Ts * g;
    out->checkpoint_gpu_h = fmin(out->checkpoints_mean * delta, Tw - Ts) * g;
    double restarts = out->failures_mean + out->preemptions_mean;
    double room = fmax(0.0, Tw - Ts - out->checkpoint_gpu_h / g);
    double restart_s = fmin(restarts * R, room);
    double wait_s = fmin(out->failures_mean * (rate > 0 ? rate_hw / (rate_job + rate_hw + 1e-300) : 0) *
                             wait_hw + out->preemptions_mean * wait_spot, room - restart_s);
    out->restart_gpu_h = restart_s * g;
    out->repair_wait_gpu_h = fmax(0.0, wait_s) * g;
    /* Whatever the wall time holds beyond useful work, stalls, restarts and waits is work
     * lost and redone. */
    out->rework_gpu_h = fmax(0.0, Tw * g - out->productive_gpu_h - out->checkpoint_gpu_h -
                                      out->restart_gpu_h - out->repair_wait_gpu_h);
    out->spare_gpu_h = rel->spares * in->gpus_per_node * Tw / 3600.0;
    return TS_OK;
}
