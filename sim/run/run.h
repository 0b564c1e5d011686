/*
 * run: the whole training run in wall-clock time, as a Monte Carlo discrete-event
 * simulation on the engine of sim/des: iterations at the simulated rate, failures of GPUs,
 * nodes, network and software as independent processes, spot preemptions with notice,
 * checkpoints (synchronous or asynchronous), restarts with reload, hot spares and repairs,
 * elastic continuation with fewer data-parallel replicas.
 *
 * Model (one replication):
 *   - Useful work is the failure-free compute time T_s = iterations x iteration_s. It is cut
 *     into segments of tau useful seconds (the checkpoint interval); after each segment,
 *     including the last, a checkpoint is written.
 *   - Synchronous checkpoints stall training for delta = size / write bandwidth. Asynchronous
 *     ones stall for the device-to-host snapshot only and write in the background; a
 *     checkpoint counts once its write has finished; a failure during the write loses it.
 *     The next snapshot waits for the previous write (a stall), and the run ends when the
 *     last checkpoint is durable.
 *   - Failures arrive from every process (superposed); a failure at any time (computing,
 *     writing a checkpoint, restarting) loses the work since the last completed checkpoint
 *     and starts a restart: restart_overhead + reload (size / read bandwidth). A failure
 *     during a restart starts the restart over. gpu, node and network processes fail on the
 *     nodes the job holds (a node in repair does not fail; held nodes keep failing while the
 *     job waits); a job (software) process fails only while the job runs.
 *   - A failed node (gpu, node or network failure) must be replaced: a hot spare if one is
 *     left (the spare returns to the pool after repair_time), else the job waits for the
 *     repair, or, if elastic, continues with one data-parallel replica fewer (slower
 *     iterations) until the node is back. (Elastic details: a missing node costs the replicas
 *     on it, gpus_per_node / (gpus / dp) of them when replicas are smaller than a node; with
 *     no replica left the job waits; a repaired node rejoins at the next durable checkpoint
 *     through a restart; the checkpoint time does not change while degraded.) Hot spares do
 *     not fail while idle.
 *   - Spot preemption of a node gives `notice` seconds of warning: if a checkpoint fits in
 *     the notice the job writes it, so no work is lost; the job then waits reacquire_s for
 *     capacity before its restart. (Details: "fits" means the full write, size / write
 *     bandwidth, in both modes, since host memory goes with the node; the job idles for the
 *     rest of the notice; when it does not fit the job trains on and loses, at the reclaim,
 *     what is not durable by then. Preemptions strike nodes the job holds, at rate
 *     held nodes / preemption_mtbf, and not while it waits or is already being reclaimed.)
 *   - Processes are per copy (gpu: per GPU; node, network, switch, software: per node; job:
 *     one), each rate multiplied by rel.rate_scale. software fails only while the job runs
 *     and takes no node out (like job, but its rate grows with the nodes held).
 *   - rel.none ("reliability": "none") without spot is the failure-free what-if: the wall
 *     time is T_s exactly, goodput 1, no checkpoint (ts_run_simulate and ts_run_estimate
 *     both return it without simulating).
 *   - Recovery phases (reliability "recovery"; zero in ts_reliability_defaults, the cited
 *     default phases for a parsed job: reliability.c): an unplanned failure's restart first
 *     runs detection (crash_detection, or hang_timeout with the failing process's hang share:
 *     failures[].hang_fraction, or recovery.hang_fraction for every process; lemon and
 *     correlated events take the rate-weighted share of the node-taking processes),
 *     diagnosis + replacement (lognormal) and the queue, then the constant restart
 *     R = restart_overhead + startup + startup_per_node x nodes + reload. They are drawn at the
 *     failure and run at the start of the restart that follows (after any wait for a node or
 *     for capacity); a failure during any of them draws a fresh recovery (the old one is
 *     abandoned).
 *     Planned interruptions, drains, rejoins and spot reacquisitions run R only.
 *   - Fail-slow ("fail_slow"): onsets at gpus / gpu_mtbf in wall time; while any GPU is slow
 *     every step takes `factor` times longer (compute only; writes and restarts are not
 *     slowed), and the (factor - 1) / factor part of the compute GPU-time is slow_node_gpu_h.
 *     After `detection` the GPU is drained: if the job is training, a save (the full write)
 *     and R, no work lost; in a recovery or a wait it leaves with no extra cost.
 *   - Lemons ("bad_nodes"): Binomial(nodes, fraction) lemon nodes per replication fail
 *     `multiplier` times the node-scoped rate; a naive repair returns the same node. A node
 *     failure hits a lemon with the lemons' share of the nodes. With evict_after = k a lemon
 *     that failed k times within `window` is replaced by a healthy node (at no extra time:
 *     inside the recovery). Only the lemons the job holds fail: a lemon in repair, or back in
 *     the pool after its naive repair, does not (a spare taken from the pool is a lemon with
 *     the pool's lemon share); a failed node is a lemon with the held lemons' share of the
 *     held nodes. Correlated events take healthy nodes only.
 *   - Correlated events ("correlated"): ceil(nodes / domain_nodes) domains, each an event
 *     per domain_mtbf: one interruption that takes min(domain_nodes, held) nodes (each to
 *     spares or repair). Not drawn while the job holds no node.
 *   - Rollbacks ("rollback"): a `fraction` of the failures that strike while training go
 *     back `depth` checkpoints beyond the latest durable one, if that many older ones are
 *     kept (checkpoint.keep >= depth + 1, counting those still in storage; at most 4096
 *     tracked), else to the start; the work in between moves from productive to rework.
 *   - Planned interruptions ("planned"): at nodes / node_mtbf; while training a save and R,
 *     no work lost; one arriving during a recovery, a save or the last write merges with it
 *     (it is counted in planned_mean either way).
 * With exponential failures, synchronous checkpoints, a constant restart time and no spares
 * or repairs, the mean wall time equals Daly's closed form (see ts_run_daly_wall_time); with
 * random recovery phases X it is Daly's divided by E[exp(-X / M)] (renewal-reward, the
 * analytic estimate).
 *
 * Monte Carlo: replications are independent, each with its own GSL RNG stream seeded from
 * (seed, replication index). Replications run in parallel (OpenMP) and write results by
 * index; statistics reduce in index order, so the output does not depend on thread count.
 * Each failure process draws from its own stream, so its failure times do not depend on
 * what the job does: runs that differ only in the checkpoint policy see the same failures
 * (common random numbers), which makes comparisons between them sharp.
 *
 * Cost: O(failures) events per replication, not O(checkpoints): the whole checkpoint cycles
 * between two failures are one event. About 0.2 ms per replication at Llama 3 scale (16,384
 * GPUs, 54 days of work, ~450 failures).
 *
 * Errors: messages start with the JSON path ("reliability.checkpoint.interval: ...") but not
 * the file, which the caller prefixes.
 */
#ifndef TS_RUN_H
#define TS_RUN_H

#include <stddef.h>

#include <signal.h>

#include "spec/spec.h"

/* Everything the run simulation needs about the job, already priced. */
struct ts_run_input {
    double iteration_s;             // seconds per iteration at full size
    double iterations;              // iterations to train
    int gpus;                       // GPUs of the job
    int nodes;                      // nodes of the job (failure and billing unit)
    int gpus_per_node;
    int dp;                         // data-parallel replicas
    const double *elastic_iteration_s; // [dp] iteration time with dp - k replicas at index k
                                       //   (index 0 = iteration_s); NULL unless elastic; when
                                       //   NULL an elastic run scales as dp / (dp - k)
    double checkpoint_bytes;        // size of one checkpoint (weights + optimizer state)
    struct ts_reliability rel;      // the job's reliability section (defaults filled in)
    volatile sig_atomic_t *stop;    // ts_run_simulate stops early once *stop is non-zero
                                    //   (polled every replication and every 4096 events;
                                    //   NULL: never)
};

/* Derived constants of a run (also the inputs of Daly's formulas). */
struct ts_run_params {
    double job_mtbf_s;              // M: mean time to interrupt of the whole job (all processes
                                    //   and spot preemptions); +infinity without any
    double checkpoint_write_s;      // delta: training stall per checkpoint
    double checkpoint_persist_s;    // time until a checkpoint is durable (= delta when sync)
    double restart_s;               // R: restart_overhead + start-up + reload (the constant
                                    //   part; recovery phases come on top for failures)
    double checkpoint_interval_s;   // tau used: Daly's optimum when auto (async: at least the
                                    //   write time, since a shorter interval only waits on the
                                    //   write), at least one iteration, at most T_s
    double solve_s;                 // T_s: failure-free compute time
    double checkpoint_bytes;        // size of one checkpoint (given or derived)
    double write_bandwidth;         // bytes/s of a whole-checkpoint write (the tighter of the
    double read_bandwidth;          //   aggregate and per-node x nodes limits); and of a reload
};

struct ts_run_result {
    bool interrupted;               // ts_run_simulate returned early on in->stop (nothing
                                    //   else is set)
    struct ts_run_params params;
    int replications;
    double mean_s;                  // mean wall-clock time to train
    double stderr_s;                // standard error of the mean
    double p50_s, p90_s, p99_s;     // percentiles of wall-clock time
    double goodput;                 // T_s / mean wall time (effective training time ratio)
    double failures_mean;           // failures per run (mean)
    double preemptions_mean;        // spot preemptions per run (mean)
    double checkpoints_mean;        // checkpoints written per run (mean)
    /* Counts per run (mean) of the mechanisms (reliability.c "recovery" ... "planned"). */
    double hangs_mean;              // failures that were hangs (detected at the timeout)
    double slow_episodes_mean;      // fail-slow onsets
    double planned_mean;            // planned interruptions arrived (those during a recovery
                                    //   or a save merge with it)
    double rollbacks_mean;          // failures that went back further than the latest checkpoint
    double evictions_mean;          // lemons evicted by the health-check policy
    double correlated_mean;         // correlated (domain) events
    double nodes_replaced_mean;     // nodes taken out by failures
    /* Mean GPU-hours per run by what the job's GPUs were doing: productive + rework +
     * checkpoint + restart + repair_wait + degraded + slow_node = mean wall time x gpus / 3600.
     * spare_gpu_h is billed on top of that sum. */
    double productive_gpu_h;        // useful compute kept
    double rework_gpu_h;            // compute lost to failures and redone
    double checkpoint_gpu_h;        // stalled writing checkpoints (sync) or snapshots (async)
    double restart_gpu_h;           // detect + reschedule + reload
    double repair_wait_gpu_h;       // waiting for a node (no spare left) or for spot capacity,
                                    //   including the idle rest of a spot notice
    double degraded_gpu_h;          // elastic: GPUs of the missing replicas idle while degraded
    double slow_node_gpu_h;         // fail-slow: the (factor - 1) / factor part of compute
                                    //   while a slow GPU holds every step
    double spare_gpu_h;             // hot spares held, idle (billed): spares x gpus_per_node x
                                    //   mean wall time
    double daly_mean_s;             // Daly's closed form for the same M, delta, R, tau
};

/* Daly (2006) expected wall time with exponential failures:
 * T_w = M e^{R/M} (e^{(tau + delta)/M} - 1) T_s / tau. */
double ts_run_daly_wall_time(double M, double delta, double R, double tau, double Ts);

/* Daly's higher-order optimum interval: sqrt(2 delta M) [1 + (1/3) sqrt(delta / (2M)) +
 * (1/9) (delta / (2M))] - delta for delta < 2M, else M. */
double ts_run_daly_interval(double delta, double M);

/* Young's first-order optimum: sqrt(2 delta M). */
double ts_run_young_interval(double delta, double M);

/* Mean time to interrupt of the whole job: 1 / sum of the process rates scaled by size and
 * by rel->rate_scale (exponential-equivalent rates for Weibull processes: rate_scale / mtbf
 * per copy), plus spot preemptions at nodes / preemption_mtbf when spot is enabled (not
 * scaled). +infinity when nothing can interrupt. */
double ts_run_job_mtbf(const struct ts_reliability *rel, int gpus, int nodes);

/* Share of the job's unplanned failures that are hangs (each process's hang_fraction, or
 * recovery.hang_fraction for all, weighted by the rates at this size). */
double ts_run_hang_fraction(const struct ts_reliability *rel, int gpus, int nodes);

/* Mean of the recovery phases before the constant restart of one unplanned failure:
 * detection (crash or hang), diagnosis + replacement (lognormal mean), queue. */
double ts_run_recovery_phases_mean(const struct ts_reliability *rel, int gpus, int nodes);

/* Framework start-up of a restart at this size: startup + startup_per_node x nodes. */
double ts_run_startup(const struct ts_reliability *rel, int nodes);

/* Fill the derived constants. Returns TS_ERR_INPUT (with a message naming the reliability
 * key) when the input cannot run, e.g. a checkpoint interval shorter than an iteration, or
 * when the run cannot finish in any useful time: more than 1e5 expected interruptions
 * (Daly's T_w / M) or a mean wall time above 100 x T_s (Daly's T_w, stretched by the
 * fraction of time all nodes are up when repairs are not covered by spares: the nodes in
 * repair are Poisson(hardware failure rate x repair_time)). */
int ts_run_params_compute(const struct ts_run_input *in, struct ts_run_params *out,
                          struct ts_err *err);

/* A recorded interval of one replication's timeline, for the run's Chrome trace. Spans are
 * contiguous from 0 to the wall time; LOST is compute that a failure threw away; FAILURE is a
 * zero-length mark at each failure and each spot reclaim. */
enum ts_run_span_kind { TS_SPAN_COMPUTE, TS_SPAN_CHECKPOINT, TS_SPAN_LOST, TS_SPAN_RESTART,
                        TS_SPAN_WAIT, TS_SPAN_FAILURE, TS_SPAN_DETECT, TS_SPAN_DIAGNOSE,
                        TS_SPAN_QUEUE, TS_SPAN_SLOW, TS_SPAN_PLANNED, TS_SPAN_COUNT };
/* DETECT, DIAGNOSE and QUEUE are the recovery phases before the constant restart (RESTART);
 * SLOW is compute while a fail-slow GPU holds every step; PLANNED is a zero-length mark at a
 * planned interruption or a fail-slow drain. */
extern const char *const ts_run_span_names[TS_SPAN_COUNT];

struct ts_run_span {
    int kind;               // enum ts_run_span_kind
    double start_s, end_s;  // wall-clock
};

struct ts_run_timeline {
    struct ts_run_span *spans;
    size_t len, cap;
};

/* Simulate `replications` runs (in parallel with OpenMP) and summarise. `samples` (may be
 * NULL) receives each replication's wall time by index. `timeline` (may be NULL) receives
 * replication 0's timeline (at most 1e6 spans; free with ts_run_timeline_free). Returns TS_OK
 * or an input error: those of ts_run_params_compute, or a replication that reaches the event
 * cap (TS_RUN_EVENTS_MAX, 1e7 events, or the TRAINSIM_MAX_EVENTS environment variable: the job
 * hardly progresses). TS_ERR_RUNTIME with out->interrupted when in->stop rose. Thread safe; it opens its own OpenMP team. */
int ts_run_simulate(const struct ts_run_input *in, struct ts_run_result *out, double *samples,
                    struct ts_run_timeline *timeline, struct ts_err *err);

void ts_run_timeline_free(struct ts_run_timeline *t);

/* The analytic run model (no Monte Carlo), used by the sweep to rank configurations: Daly's
 * expected wall time for the superposed failure and preemption rate (exponential-equivalent,
 * restart time averaged over the interrupt kinds by rate; spot reacquisition added to a
 * preemption's restart), the given or Daly-optimal checkpoint interval, with enough spares.
 * Fills mean_s (p50/p90/p99 equal to it), goodput, failures_mean, preemptions_mean and a
 * first-order GPU-hour attribution (checkpoint stalls = T_s / tau x stall, restarts =
 * interrupts x restart time, rework = the rest). It grows with iteration_s, so a lower bound
 * of the iteration time gives a lower bound of the run. The mechanisms enter by their
 * expected values: e^{R/M} is divided by E[e^{-X/M}] of the recovery phases X (renewal-reward;
 * a rollback adds depth x (tau + delta) with its probability, half the run when the older
 * checkpoint is not kept); lemons add f (m - 1) r per node without eviction, else their
 * failures until eviction; correlated events add their rate; fail-slow stretches the compute
 * by 1 / (1 - q (1 - 1/factor)), q = 1 - e^{-rate x detection}; planned interruptions and
 * drains divide the wall time by 1 - rate x (save + R) x the training share. */
int ts_run_estimate(const struct ts_run_input *in, struct ts_run_result *out, struct ts_err *err);

/* ---------------------------------------------------------------- model uncertainty */

struct ts_iteration;    /* step/step.h */

/* The model's own error (uncertainty.c): each prediction carries the validation band of its
 * regime (software profile x device: the profile's `validation` entry for the device), a
 * relative error of the predicted throughput, predicted / published - 1, so a real run takes
 * (1 + e) times the predicted time; unvalidated regimes get the default band below, wider
 * than the rows of every validation experiment (together -12.7% .. +36.7%; set when the 216
 * llm-foundry rows spanned -19.9% .. +37.9%). */
#define TS_RUN_BAND_DEFAULT_MIN (-0.20)
#define TS_RUN_BAND_DEFAULT_MAX 0.38

struct ts_run_band {
    bool on;                        // applied (false: --no-model-uncertainty; factors are 1)
    bool validated;                 // the band comes from published rows of this regime
    double min_error, max_error;    // e.g. -0.07 .. 0.074 (megatron-core on h100-sxm)
    char source[512];               // where the band comes from
};

/* The band of a job's regime. */
void ts_run_model_band(const struct ts_job *job, bool on, struct ts_run_band *out);

/* Replication i's time factor 1 + e_i, e_i uniform on the band, stratified (the n midpoints
 * of the band in a shuffled order): deterministic per (seed, n, i). All 1 when !b->on. */
void ts_run_model_factors(const struct ts_run_band *b, uint64_t seed, int n, double *factor);

#define TS_RUN_QUANTILES 8
extern const double ts_run_quantile_levels[TS_RUN_QUANTILES];   // 0.05 ... 0.99
extern const char *const ts_run_quantile_names[TS_RUN_QUANTILES]; // "p05" ... "p99"

/* The finish-time and cost distribution of a run, failures and model error combined:
 * replication i takes wall_i x factor_i and is billed at that time. */
struct ts_run_distribution {
    struct ts_run_band band;
    int n;                          // replications
    double time_s[TS_RUN_QUANTILES];
    double time_mean_s;
    bool has_cost;
    double cost_usd[TS_RUN_QUANTILES];
    double cost_mean_usd;
    double q;                       // an extra level asked for (0: none), e.g. a deadline's
    double time_at_q_s, cost_at_q_usd; //   probability, and the quantiles there
};

/* Fill *out from the Monte Carlo's per-replication wall times `wall` [n] of `run` (the job's
 * reliability seed draws the factors), with the quantiles at level q too when q > 0.
 * Returns TS_OK or the cost model's error. */
int ts_run_distribution_compute(const struct ts_run_band *band, const struct ts_job *job,
                                const struct ts_iteration *it, const struct ts_run_result *run,
                                const double *wall, int n, double checkpoint_bytes, double q,
                                struct ts_run_distribution *out, struct ts_err *err);

/* The q-quantile of wall_i x factor_i. */
double ts_run_distribution_quantile(const struct ts_run_band *band, uint64_t seed, const double *wall,
                                    int n, double q);

#endif
