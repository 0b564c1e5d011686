/*
 * Checkpoint size of a job.
 */
#include "compute/compute.h"

double ts_compute_checkpoint_bytes(const struct ts_job *job, const struct ts_compute *c)
{
    double per_param = job->precision == TS_PREC_FP32 ? 12.0 : 14.0;
    return ts_compute_param_count(job, c) * per_param;
}
