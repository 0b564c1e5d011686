/*
 * Helpers and limits shared by the files of sim/run (not part of the public API).
 */
#ifndef TS_RUN_INTERNAL_H
#define TS_RUN_INTERNAL_H

#include "run/run.h"

/* A run expecting more interruptions than this, or a mean wall time more than this many
 * times its failure-free time, "cannot finish": an input error, not hours of simulation. */
#define TS_RUN_INTERRUPTIONS_MAX 1e5
#define TS_RUN_STRETCH_MAX 100.0

/* Events one replication may take before it is declared stuck (an input error). */
#define TS_RUN_EVENTS_MAX 10000000u

/* Spans the timeline of replication 0 keeps at most. */
#define TS_RUN_TIMELINE_MAX 1000000u

/* Independent copies of a failure process in a job: gpus, nodes, or 1 for the job. */
double ts_run__process_copies(const struct ts_failure_process *f, int gpus, int nodes);

/* MTBF of one copy of process i with rate_scale applied: failures[i].mtbf_s / rate_scale. */
double ts_run__process_mtbf(const struct ts_reliability *rel, int i);

/* Failure rate of process i for the whole job, per second: copies / scaled MTBF. */
double ts_run__process_rate(const struct ts_reliability *rel, int i, int gpus, int nodes);

/* "reliability": "none" without spot: fill *out with the failure-free run (wall time T_s,
 * goodput 1, no checkpoint), samples[0 .. replications) with T_s and the timeline (may be
 * NULL) with one compute span. Returns true when it did; false when the run must be
 * simulated. */
bool ts_run__failure_free(const struct ts_run_input *in, struct ts_run_result *out,
                          double *samples, struct ts_run_timeline *timeline);

/* Weibull scale for a mean of mtbf_s and shape k: mtbf / Gamma(1 + 1/k), computed in logs;
 * NaN if it cannot be evaluated (ts_run_params_compute rejects such a shape first). */
double ts_run__weibull_scale(double mtbf_s, double shape);

/* Failure rate of one node from the node-scoped processes (gpu x gpus per node, node,
 * network; exponential-equivalent), per second. */
double ts_run__node_failure_rate(const struct ts_reliability *rel, int gpus, int nodes);

/* Interrupt rate of the incident mechanisms that add failures (lemons without eviction,
 * correlated domain events), per second. */
double ts_run__mechanism_rate(const struct ts_reliability *rel, int gpus, int nodes);

/* Share of process i's failures that are hangs: recovery.hang_fraction when it is > 0 (one
 * share for every process), else the process's own hang_fraction. */
double ts_run__hang_fraction(const struct ts_reliability *rel, int i);

/* Rate-weighted hang share of the processes that take a node out (that of lemon failures and
 * correlated domain events); recovery.hang_fraction when it is > 0. */
double ts_run__hardware_hang_fraction(const struct ts_reliability *rel, int gpus, int nodes);

/* Rate-weighted hang share of every unplanned failure (processes and mechanisms), for the
 * analytic model: detection is drawn independently of the other phases, so the mixture of
 * crash and hang detection over the kinds is exact at the mean share. */
double ts_run__failure_hang_fraction(const struct ts_reliability *rel, int gpus, int nodes);

/* Mean of the recovery phases of one unplanned failure (detection, diagnosis, queue). */
double ts_run__phases_mean_s(const struct ts_reliability *rel, int gpus, int nodes);

/* Framework start-up of a restart: startup + startup_per_node x nodes. */
double ts_run__startup_s(const struct ts_reliability *rel, int nodes);

#endif
