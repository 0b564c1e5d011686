/*
 * cost: the whole bill of a training run, by category, and where every GPU-hour went.
 * Pure functions of the job, its iteration result and its run result; no I/O; thread safe.
 *
 * Categories (cost-governance practice for training; `cost_breakdown` in the output, a flat
 * object that sums exactly to `cost_total`):
 *   compute            GPU-hours of the job's nodes x the price of its pricing model
 *   spares             hot spare nodes, billed like running nodes for the whole wall time
 *   fixed              cluster management and other per-hour fixed costs
 *   storage_checkpoints checkpoints by age tier (keep-last-k during the run, the last k kept
 *                      for checkpoint_retention after it)
 *   storage_dataset    the training data held for the run
 *   storage_logs       logs and metrics held for their retention
 *   network            inter-node traffic (from the iteration simulation), egress, cross-region
 *   data_pipeline      loader hosts
 *   monitoring         per-node-hour agents and log ingestion
 *   operations         human hours per incident (failure, preemption) and per restart
 *   commitment_unused  committed GPU-hours of a cost.commitment the run left idle (the term
 *                      is paid whether used or not), net of their other_use_value
 *
 * Attribution (`gpu_hours`): the GPU-hours billed (job nodes + hot spares) split into
 * productive compute, pipeline bubble, exposed communication, data-loader stall, checkpoint
 * stalls, failure rework, restart downtime, waiting for repair or capacity, degraded
 * (elastic, missing replicas idle) and idle spares. The iteration-level parts come from the
 * simulated iteration's breakdown, scaled by the useful iterations; the run-level parts from
 * the run simulation. The parts sum exactly to the GPU-hours billed.
 *
 * Expected cost uses the mean of the run simulation; the p90 cost is the 90th percentile of
 * per-replication bills (every category recomputed per replication).
 */
#ifndef TS_COST_H
#define TS_COST_H

#include <stdbool.h>

#include "run/run.h"
#include "spec/spec.h"
#include "step/step.h"

enum ts_cost_category {
    TS_COST_COMPUTE,
    TS_COST_SPARES,
    TS_COST_FIXED,
    TS_COST_STORAGE_CHECKPOINTS,
    TS_COST_STORAGE_DATASET,
    TS_COST_STORAGE_LOGS,
    TS_COST_NETWORK,
    TS_COST_DATA_PIPELINE,
    TS_COST_MONITORING,
    TS_COST_OPERATIONS,
    TS_COST_COMMITMENT_UNUSED,
    TS_COST_COUNT
};
extern const char *const ts_cost_category_names[TS_COST_COUNT];  // "compute", "spares", ...

enum ts_gpuh {
    TS_GPUH_PRODUCTIVE,         // useful compute (incl. the optimizer step)
    TS_GPUH_BUBBLE,             // pipeline bubble
    TS_GPUH_EXPOSED_COMM,       // exposed TP/CP, pipeline and data-parallel communication
    TS_GPUH_DATA_STALL,         // waiting for the data loader
    TS_GPUH_SYNC_WAIT,          // waiting for the slowest GPU at each synchronisation
    TS_GPUH_CHECKPOINT,         // checkpoint stalls
    TS_GPUH_REWORK,             // work lost to failures and redone
    TS_GPUH_RESTART,            // detect, reschedule, reload
    TS_GPUH_REPAIR_WAIT,        // waiting for a repaired node or for spot capacity
    TS_GPUH_DEGRADED,           // elastic: GPUs of missing replicas idle
    TS_GPUH_IDLE_SPARES,        // hot spares waiting
    TS_GPUH_SLOW_NODE,          // fail-slow: steps held by a degraded GPU until it is drained
    TS_GPUH_COUNT
};
extern const char *const ts_gpuh_names[TS_GPUH_COUNT];   // "productive", "pipeline_bubble", ...
extern const char *const ts_gpuh_labels[TS_GPUH_COUNT];  // "productive compute", "pipeline bubble", ...

struct ts_cost_input {
    const struct ts_job *job;           // with has_cost (and usually has_training)
    const struct ts_iteration *it;      // the iteration (time, breakdown, traffic)
    const struct ts_run_result *run;    // NULL: a failure-free run of time_to_train
    const double *wall_samples;         // per-replication wall times (NULL: mean only)
    int n_samples;
    double checkpoint_bytes;            // size of one checkpoint
};

struct ts_cost_result {
    double total_usd;                   // expected bill (sum of breakdown_usd, in category order)
    double p90_usd;                     // 90th percentile of per-replication bills
    double per_million_tokens_usd;      // total / (training tokens / 1e6)
    double per_hour_usd;                // bill rate while running (compute + spares + fixed)
    double breakdown_usd[TS_COST_COUNT];
    double gpu_hours_billed;            // job GPUs x wall + spares x gpus_per_node x wall
    double gpu_hours[TS_GPUH_COUNT];    // attribution, sums to gpu_hours_billed
    double waste_usd[TS_GPUH_COUNT];    // compute + spares dollars by attribution
    int top_waste;                      // largest waste_usd other than productive
                                        //   (TS_GPUH_PRODUCTIVE when nothing is wasted)
    double loader_hosts;                // loader hosts billed
    double data_stall_s;                // per iteration, from the loader cap (the iteration's
                                        //   data_stall_s: ts_step_evaluate applies the cap)
    double nic_bytes_total;             // inter-node bytes over the run
    bool budget_set;
    bool over_budget_expected;          // total_usd > budget
    bool over_budget_p90;               // p90_usd > budget
};

/* Price the run. Returns TS_ERR_INPUT with a message naming the cost key when an input that
 * the bill needs is missing (e.g. no gpu_hour for the chosen pricing, or for spare_pricing
 * when the job has hot spares). `it` must come from ts_step_evaluate of the same job (its
 * iteration time includes the loader stall); `run`, when given, from the same iteration. */
int ts_cost_compute(const struct ts_cost_input *in, struct ts_cost_result *out, struct ts_err *err);

/* Data-loader cap: seconds per iteration the loader needs for a job, and the hosts it uses.
 * 0 (and *hosts = 0) when the job has no cost section, no loader model (data.bytes_per_token
 * 0), or "hosts": "auto": then ts_cost_compute sizes the hosts to the GPUs' token rate,
 * ceil(tokens/s x bytes_per_token / loader_throughput), so the loader never stalls. */
double ts_cost_loader_time(const struct ts_job *job, double *hosts);

/* USD per GPU-hour of a pricing for a job: its gpu_hour, else its node_hour divided by the
 * system's gpus_per_node; NAN when neither is given (0 is a price: free capacity). */
double ts_cost_gpu_hour_price(const struct ts_job *job, enum ts_pricing pricing);

#endif
