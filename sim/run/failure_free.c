/*
 * run: the failure-free what-if ("reliability": "none"), shared by the Monte Carlo and the
 * analytic model (run.h). Nothing interrupts the job, so it takes no checkpoint and needs
 * no restart: the wall time is the failure-free compute time T_s itself.
 */
#include <math.h>
#include <string.h>

#include "run/run.h"
#include "run/run_internal.h"

bool ts_run__failure_free(const struct ts_run_input *in, struct ts_run_result *out,
                          double *samples, struct ts_run_timeline *timeline)
{
    const struct ts_reliability *rel = &in->rel;
    double Ts = in->iterations * in->iteration_s;
    if (!rel->none || rel->spot.enabled || !(Ts > 0.0) || !isfinite(Ts))
        return false;   // simulated, or refused by ts_run_params_compute
    memset(out, 0, sizeof *out);
    out->params.job_mtbf_s = HUGE_VAL;
    out->params.solve_s = Ts;
    out->params.checkpoint_interval_s = 0.0;    // none taken (the bill stores none)
    out->replications = 1;
    out->mean_s = out->p50_s = out->p90_s = out->p99_s = Ts;
    out->daly_mean_s = Ts;
    out->goodput = 1.0;
    out->productive_gpu_h = Ts * in->gpus / 3600.0;
    out->spare_gpu_h = rel->spares * in->gpus_per_node * Ts / 3600.0;
    int reps = rel->replications > 0 ? rel->replications : 1;
    if (samples)
        for (int r = 0; r < reps; r++)
            samples[r] = Ts;
    if (timeline) {     // one span: the whole run computes
        memset(timeline, 0, sizeof *timeline);
        timeline->spans = ts_xmalloc(sizeof *timeline->spans);
        timeline->spans[0] = (struct ts_run_span){TS_SPAN_COMPUTE, 0.0, Ts};
        timeline->len = timeline->cap = 1;
    }
    return true;
}
