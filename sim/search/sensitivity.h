/*
 * sensitivity: how far the answer moves when the uncertain inputs move.
 *
 * `trainsim sensitivity FILE` (a job or a sweep) and `trainsim sweep FILE --sensitivity`
 * perturb one input at a time over a stated range, re-evaluate, and report for each input
 * the cost and time at both ends of its range and whether the answer (for a sweep: the
 * purchase, system x nodes x pricing) changes; sorted by the swing of the objective, that
 * is a tornado chart. Where the answer changes, or where the answer is spot capacity, the
 * input's break-even is found by bisection: "spot stays the answer unless preemptions exceed
 * one per node every N h".
 *
 * Inputs and ranges (multipliers of the value the file resolves to):
 *   throughput            the device speed within the validation band of the software
 *                         profile on the answer's device: published / predicted throughput
 *                         from 1 / (1 + max error) to 1 / (1 + min error) (struct ts_sw_band);
 *                         0.8 .. 1.2 where no published row was compared (an assumption of
 *                         trainsim's, not a measurement). Applied as every compute, memory and
 *                         link rate x s and every latency / s (all systems of a sweep).
 *   failure_rate          reliability.rate_scale x 0.5 .. x 2 (issue 15)
 *   recovery_time         restart_overhead and the recovery phases x 0.5 .. x 2
 *   spot_preemption_rate  preemptions per node x 0.5 .. x 2 (only where spot is priced)
 *   prices                every price in the cost section x 0.8 .. x 1.2 (cost is linear in
 *                         them, so the cost swings by exactly -20% .. +20%)
 *   spot_price            the spot GPU-hour / node-hour prices x 0.8 .. x 1.2 (only where
 *                         spot is priced)
 *   checkpoint_bandwidth  every checkpoint write, read and snapshot bandwidth x 0.5 .. x 2
 *   tokens                the token budget x 0.8 .. x 1.2
 *
 * Work: a job is evaluated in full (iteration simulation, failure Monte Carlo with the same
 * seed, so every perturbation sees the same random streams, and the bill) per point; a sweep
 * is re-run per point (its top k and finalists' Monte Carlo as in the file, so the answer is
 * the one `trainsim sweep` would give there). Every point evaluated is remembered, so the
 * range ends serve as the bisection's brackets and no point is evaluated twice; `sweep
 * --sensitivity` hands over its own result as the base. A break-even is searched where an
 * end changes the answer, and for spot's two inputs (preemption rate, spot price) also
 * beyond the range: up to x1024 the assumed preemption rate and x4.8 the spot price when
 * the answer is spot, down as far when spot is offered but not the answer.
 * Results depend only on the inputs: the same bytes for any thread count.
 *
 * MPI (search/shard.h): the range ends (two points per input, up to 16) are independent, so
 * point k runs whole on rank k % ranks (a sweep as a one-process sweep there) and the answers
 * are exchanged in index order; the base and the break-evens' bisections, which depend on
 * earlier points, run on every rank (a sweep's own steps sharded as in `trainsim sweep`). The
 * bytes are those of one process for any number of ranks. Call on every rank.
 */
#ifndef TS_SENSITIVITY_H
#define TS_SENSITIVITY_H

#include <signal.h>
#include <stdbool.h>

#include "cost/cost.h"
#include "run/run.h"
#include "search/search.h"
#include "spec/spec.h"
#include "step/step.h"

enum ts_sens_input {
    TS_SENS_THROUGHPUT,
    TS_SENS_FAILURE_RATE,
    TS_SENS_RECOVERY,
    TS_SENS_PREEMPTION,
    TS_SENS_PRICES,
    TS_SENS_SPOT_PRICE,
    TS_SENS_CKPT_BANDWIDTH,
    TS_SENS_TOKENS,
    TS_SENS_COUNT
};
extern const char *const ts_sens_input_names[TS_SENS_COUNT];   // "throughput", "failure_rate", ...

/* ---------------------------------------------------------------- one job, in full */

/* Everything `trainsim run` computes for a job. */
struct ts_job_eval {
    struct ts_iteration it;
    bool have_run;                  // the failure Monte Carlo ran (training section, fits)
    struct ts_run_result run;
    bool have_cost;                 // the bill (cost section, fits)
    struct ts_cost_result cost;
    int n_samples;                  // per-replication wall times in samples (when asked)
    double checkpoint_bytes;        // one checkpoint's size (what the run and bill assumed)
};

/* Evaluate a validated job as `trainsim run` does (discrete-event iteration, the whole run's
 * Monte Carlo when the job has a training section, the bill with a cost section). `samples`
 * (may be NULL) receives the replications' wall times; it must hold
 * max(1, job->reliability.replications) values. `trace` (may be NULL) receives the
 * iteration's spans. An infeasible job is a result (out->it.feasible false). Errors are the
 * run and cost models' (TS_ERR_INPUT with the JSON path). Thread safe. */
int ts_job_eval_full(const struct ts_job *job, struct ts_job_eval *out, double *samples,
                     struct ts_trace *trace, struct ts_err *err);

/* The bill of each replication at its own wall time: bills[i] for samples[i], i < n, the
 * failure Monte Carlo's wall times of `run` for the job whose iteration is `it` and one of
 * whose checkpoints is checkpoint_bytes; their 90th percentile is the cost model's p90_usd
 * (sim/cost/cost.h), whose bills they are. Errors: the cost model's. */
int ts_job_replication_bills(const struct ts_job *job, const struct ts_iteration *it,
                             const struct ts_run_result *run, double checkpoint_bytes,
                             const double *samples, int n, double *bills, struct ts_err *err);

/* ---------------------------------------------------------------- perturbations */

/* Apply input `in` at multiplier `m` (1: unchanged) to a job or a sweep. */
void ts_sens_apply_job(struct ts_job *job, enum ts_sens_input in, double m);
void ts_sens_apply_sweep(struct ts_sweep *sw, enum ts_sens_input in, double m);

/* The throughput range of a profile on a device in a precision at a sequence length
 * (ts_software_band): the band's published / predicted speed factors (*lo <= 1 <= *hi not
 * guaranteed), or 0.8 .. 1.2 when it has no band there. Returns whether it is validated. */
bool ts_sens_throughput_range(const struct ts_software *sw, const char *device, int precision,
                              int seq_len, double *lo, double *hi);

/* Bisection of a monotone predicate on [a, b] in log space: pred(a) holds, pred(b) does not.
 * Returns the point where it flips after `steps` halvings (the last point known to hold),
 * and *b_out the first known not to. */
double ts_sens_bisect(double a, double b, int steps, bool (*pred)(double x, void *ctx), void *ctx,
                      double *b_out);

/* ---------------------------------------------------------------- the analysis */

/* The answer at one point: a job's bill and expected time, or a sweep's purchase. */
struct ts_sens_answer {
    bool ok;                        // evaluated (false: error in `error`)
    bool found;                     // sweep: something meets the constraint; job: it fits
    int system;                     // sweep: index of the answer's system
    int nodes;
    int pricing;                    // enum ts_pricing
    char label[160];                // "2 x aws-p5en, spot"
    double cost_usd;                // expected bill (NAN when not priced)
    double time_s;                  // expected wall time to train
    char error[256];
};

struct ts_sens_row {
    enum ts_sens_input input;
    bool applicable;
    char why_not[160];              // when not applicable
    char range[200];                // what was varied and where the range comes from
    double low, high;               // multipliers at the two ends
    struct ts_sens_answer at_low, at_high;
    bool answer_changes;            // the answer differs from the base at either end
    double swing;                   // |objective(high) - objective(low)| (sort key)
};

struct ts_sens_break_even {
    enum ts_sens_input input;
    bool found;                     // the answer flips inside the searched range
    double multiplier;              // last multiplier at which the base answer holds
    double multiplier_flip;         // first at which it does not
    char statement[400];
};

struct ts_sensitivity {
    bool is_sweep;
    enum ts_objective objective;    // what the tornado sorts by (a job: cost when priced)
    struct ts_sens_answer base;
    int n_rows;
    struct ts_sens_row rows[TS_SENS_COUNT];   // applicable first, by swing (tornado order),
                                              //   then the others in input order
    int n_break_even;
    struct ts_sens_break_even break_even[TS_SENS_COUNT];
    long evaluations;               // jobs or sweeps evaluated
};

struct ts_sens_options {
    int threads;                    // OpenMP threads for a sweep (0: default)
    int bisect_steps;               // halvings per break-even (default 7)
    bool progress;                  // a line per evaluation on stderr
    unsigned only;                  // bit (1 << input): vary only these (0: all)
    volatile sig_atomic_t *stop;    // polled by the sweeps and between points: once non-zero
                                    //   the analysis returns TS_ERR_RUNTIME ("interrupted")
    const struct ts_sweep_result *base_result; // the sweep's result as given (sweep
                                    //   --sensitivity has it already: not run again), or NULL
};

/* Sensitivity of a job (validated, as from ts_job_parse) or of a sweep. `file` names the
 * input in messages. Errors: the base evaluation's; a perturbed point that fails is reported
 * in its row (at_low / at_high .ok false), not as an error. */
int ts_sensitivity_job(const struct ts_job *job, const struct ts_sens_options *opt,
                       struct ts_sensitivity *out, struct ts_err *err);
int ts_sensitivity_sweep(const struct ts_sweep *sw, const struct ts_sens_options *opt,
                         struct ts_sensitivity *out, struct ts_err *err);

#endif
