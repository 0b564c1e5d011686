/*
 * search: the sweep. Which GPU type, how many nodes, which pricing and which parallel layout
 * train this model on this many tokens for the least money (or in the least time) while
 * meeting a throughput target or a deadline?
 *
 * A sweep file (configs/NAME-sweep.json; README "Sweeps" documents every key) names the model,
 * the token budget, candidate systems, node counts, pricing models, the parallel options to
 * search (lists, or "auto" for every valid value), reliability and cost sections as in a
 * job, a constraint and an objective.
 *
 * Search:
 *   1. Enumerate layouts (system x software profile x nodes x global batch x tp x pp x ep x etp x cp x microbatch x
 *      schedule x virtual stages x sequence parallel x recompute x ZeRO x TP overlap); the
 *      pricing models are priced inside each layout's evaluation.
 *   2. Reject invalid layouts (divisibility: the job validator), layouts that do not fit in
 *      memory, and layouts whose best possible throughput or finish time cannot meet the
 *      constraint, counting each reason.
 *   3. Screen the survivors with a lower bound of the objective: the iteration
 *      simulation's lower bound (ts_step_lower_bound, never above the simulated time) pushed
 *      through the same run and cost models, which only grow with the iteration time.
 *   4. Evaluate in order of the bound, in batches, in parallel (OpenMP, dynamic schedule,
 *      per-thread scratch, results written by index): the discrete-event iteration
 *      simulation, the analytic run model (Daly's expected wall time for the job's failure
 *      rate, checkpoint interval auto per configuration) and the bill. Skip a candidate
 *      that at no pricing can enter the top k purchases, improve or tie its own purchase's
 *      best (within TS_SWEEP_TIE_TOLERANCE) or join the cost/time Pareto front (bounds
 *      dominated by an evaluated point cannot be on it), each pricing judged on its own
 *      bound, and that bound tighter than screening's: the pipeline's drain (the last
 *      backward travelling back to stage 0) and the wait for the slowest GPU added, so it
 *      sits within about 1% of the simulated time. Because the bound never exceeds the
 *      exact value, this returns the same best, top-k, listed layouts and front as
 *      evaluating everything (the constraint checks, counts and order keep screening's
 *      bound, so nothing reported but `simulated` and the pruned count depends on it).
 *      Then the best of every system x pricing is completed (best_per_system).
 *   5. Run the failure Monte Carlo for the top-k finalists (expected and p90 time and cost);
 *      a probabilistic deadline ("probability": 0.9) is checked on the Monte Carlo quantile
 *      at that probability (with the model's own error when options.model_uncertainty), and
 *      finalists that miss it are replaced by the next candidates. The finalists are ranked
 *      by the Monte Carlo mean of the objective, or by its quantile at the probability.
 * Results are identical for any thread count: batches are fixed by the bound order, each
 * candidate's result depends only on its inputs, and reductions run in index order.
 * Under MPI (build option TS_MPI, search/shard.h) every rank runs ts_sweep_run on the same
 * inputs: each chunk of screening, batch of simulations and group of finalists is split
 * over the ranks by index and gathered before it is used, and every stop poll is a
 * collective, so the result (and the progress of an interrupted run) is identical for any
 * number of ranks; only rank 0 writes the --csv file.
 */
#ifndef TS_SEARCH_H
#define TS_SEARCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "cost/cost.h"
#include "run/run.h"
#include "spec/spec.h"
#include "step/step.h"

#define TS_SWEEP_SYSTEMS_MAX 16
#define TS_SWEEP_SOFTWARE_MAX 8
#define TS_SWEEP_LIST_MAX 64

/* Spot preemption of a sweep's spot rows when the file gives no reliability.spot (search.c
 * cites the values): one per node every 3650 h, notice 120 s, capacity back after 600 s. */
#define TS_SWEEP_SPOT_MTBF_S (3650.0 * 3600.0)
#define TS_SWEEP_SPOT_NOTICE_S 120.0
#define TS_SWEEP_SPOT_REACQUIRE_S 600.0

/* A searched dimension: explicit values, or every valid one. */
struct ts_int_list {
    bool is_auto;
    int n;
    int v[TS_SWEEP_LIST_MAX];
};

enum ts_objective { TS_OBJECTIVE_COST, TS_OBJECTIVE_TIME, TS_OBJECTIVE_COUNT };
extern const char *const ts_objective_names[TS_OBJECTIVE_COUNT];   // "cost", "time"

struct ts_sweep {
    char name[TS_NAME_MAX];
    char file[1024];                        // the sweep file
    struct ts_model model;
    double tokens;                          // training tokens
    struct ts_int_list global_batch;        // sequences per iteration
    int n_systems;
    struct ts_system systems[TS_SWEEP_SYSTEMS_MAX];
    struct ts_int_list nodes;               // node counts
    int n_pricing;
    enum ts_pricing pricing[TS_PRICING_COUNT];
    enum ts_precision precision;
    /* parallel dimensions searched */
    struct ts_int_list tp, pp, cp, microbatch, virtual_stages, zero; // pp "auto": divisors of
                                            //   the layers and powers of two with a balanced
                                            //   uneven split (ts_sweep_stage_split)
    struct ts_int_list ep, etp;             // expert (tensor) parallel; "auto": ep every divisor
                                            //   of the experts, etp 1, 2, 4, 8 (dense: 1)
    struct ts_int_list schedule;            // values of enum ts_schedule
    struct ts_int_list sequence_parallel;   // 0 / 1
    struct ts_int_list recompute;           // values of enum ts_recompute
    struct ts_int_list tp_comm_overlap;     // 0 / 1
    struct ts_parallel fixed;               // the options not searched (dp_overlap, attention, ...)
                                            //   with the first software profile applied
    /* Software profiles searched ("software": a name, path or object, or a list of them;
     * default megatron-core): each is a searched dimension like the systems. A layout's
     * job takes software[k] and fixed_by_software[k] (the fixed options with profile k
     * applied; keys given under "parallel" win over every profile). `trainsim sweep`
     * hands this a list only with --search-software; otherwise it runs one sweep per
     * listed profile (sim/cli/whatif.c). */
    int n_software;
    struct ts_software software[TS_SWEEP_SOFTWARE_MAX];
    struct ts_parallel fixed_by_software[TS_SWEEP_SOFTWARE_MAX];
    /* runs[s][k]: system s can run profile k (false: its kernel does not exist there, e.g. a
     * profile's FlashAttention-3 on an A100; those layouts are rejected as
     * TS_REJECT_SOFTWARE, counted by layout). At least one pair runs. */
    bool runs[TS_SWEEP_SYSTEMS_MAX][TS_SWEEP_SOFTWARE_MAX];
    bool has_reliability;
    struct ts_reliability reliability;
    bool has_cost;
    struct ts_cost_config cost[TS_SWEEP_SYSTEMS_MAX]; // per system (base + by_system overrides)
    /* commit_bases[s]: the committed bases searched on system s (cost.commitment.nodes given
     * as a list, a range or "auto" = the sweep's node counts; n == 0: not searched, the
     * commitment as given). A reserved row is priced at each base plus burst and keeps the
     * cheapest (ts_outcome.commit_nodes); on_demand and spot rows ignore the commitment. */
    struct ts_int_list commit_bases[TS_SWEEP_SYSTEMS_MAX];
    /* offered[s][pricing]: the system has a price at that pricing model (always true without a
     * cost section). A listed pricing a system has no price for is not offered there: those
     * configurations are not counted, simulated or reported. */
    bool offered[TS_SWEEP_SYSTEMS_MAX][TS_PRICING_COUNT];
    /* constraint (both 0: none; every configuration qualifies) */
    double min_tokens_per_s;                // 0 = none
    double deadline_s;                      // 0 = none
    double probability;                     // deadline probability (0: on the expected time)
    enum ts_objective objective;
    int top;                                // k
    /* What the answer depends on, for resuming (set by ts_sweep_load; zero from
     * ts_sweep_parse): the sweep document and every model, system, accelerator and price file
     * its parse read, each hashed as parsed (inline objects are part of the sweep document),
     * and the trainsim version. A partial file resumes only a sweep with the same
     * fingerprint; `inputs` names the file that changed. */
    uint64_t fingerprint;                   // FNV-1a 64: inputs.hash continued over TS_VERSION
    struct ts_inputs inputs;                // the files read, in order
};

/* Parse a sweep file. */
int ts_sweep_load(const char *file, struct ts_sweep *out, struct ts_err *err);
/* Parse an already loaded sweep document of `file` (e.g. after --set overrides), recording it
 * as the sweep document for the fingerprint. */
int ts_sweep_load_doc(const char *file, const cJSON *doc, struct ts_sweep *out, struct ts_err *err);
int ts_sweep_parse(const struct ts_jnode *root, struct ts_sweep *out, struct ts_err *err);

/* ---------------------------------------------------------------- candidates */

/* Tie tolerance of the purchase decision: layouts of one purchase (system x nodes x
 * pricing) whose objective is within this fraction of the purchase's best are equivalent
 * and listed with it as one row (top, pareto). 0.5%: below the spread the model itself
 * cannot resolve (the validation bands of configs/software span several per cent; the Monte
 * Carlo standard error of a mean at 200 replications is 0.1-0.5% of it). */
#define TS_SWEEP_TIE_TOLERANCE 0.005

/* A layout, compactly. */
struct ts_layout {
    uint8_t system;         // index in sweep->systems
    uint8_t schedule;       // enum ts_schedule
    uint8_t recompute;      // enum ts_recompute
    uint8_t zero;
    uint8_t sp;             // sequence parallel
    uint8_t tp_overlap;
    uint8_t virtual_stages;
    uint8_t software;       // index in sweep->software
    int32_t nodes;
    int32_t global_batch;
    int32_t tp, pp, cp, microbatch;
    uint16_t ep, etp;       // expert parallel, expert tensor parallel (1 for dense models)
};

/* Reasons a layout is rejected, in the order they are checked (TS_REJECT_TASKS, added later,
 * is checked with divisibility; TS_REJECT_SOFTWARE, added later still, before it). */
enum ts_reject {
    TS_REJECT_NONE,
    TS_REJECT_DIVISIBILITY,     // the job validator refused it
    TS_REJECT_MEMORY,           // does not fit in HBM
    TS_REJECT_CONSTRAINT,       // cannot meet the throughput target or deadline even at its bound
    TS_REJECT_PRUNED,           // its bound cannot beat the top-k or join the Pareto front
    TS_REJECT_DEADLINE_P,       // evaluated, but misses the deadline at the required probability
    TS_REJECT_TASKS,            // valid, but its iteration needs more than TS_STEP_TASKS_MAX
                                //   simulated tasks (checked with divisibility; counted by layout)
    TS_REJECT_SOFTWARE,         // its system cannot run its software profile (a kernel the
                                //   device lacks; checked first; counted by layout)
    TS_REJECT_COUNT
};
extern const char *const ts_reject_names[TS_REJECT_COUNT];

/* The evaluation of one layout at one pricing model. */
struct ts_outcome {
    struct ts_layout layout;
    uint8_t pricing;            // enum ts_pricing
    bool meets;                 // meets the constraint
    double iteration_s;
    double tokens_per_s;
    double mfu;
    double time_s;              // expected wall-clock time to train (analytic run model)
    double cost_usd;            // expected bill (analytic run model)
    double objective;           // cost_usd or time_s
    double memory_bytes;
    double commit_nodes;        // the committed base (nodes) this row is priced at, the
                                //   cheapest of the sweep's commit_bases for its system;
                                //   0 when the bases are not searched (or not reserved)
    /* Monte Carlo (finalists only) */
    bool monte_carlo;
    double mc_time_mean_s, mc_time_p90_s, mc_cost_mean_usd, mc_cost_p90_usd, goodput;
    double mc_rank;             // what the finalists are ranked by: the objective's Monte
                                //   Carlo mean, or with a deadline probability its quantile
                                //   there over failures and model error combined (run.h)
};

/* The finished work of an interrupted sweep: which candidates were simulated and their
 * outcomes (with the Monte Carlo of the finalists done so far), enough to continue the sweep
 * to the same answer, bit for bit, as an uninterrupted run. */
struct ts_sweep_progress {
    long n;                         // candidates simulated
    long *layout;                   // [n] index of each among the sweep's valid layouts (the
                                    //   enumeration order, the same for the same sweep)
    struct ts_outcome *outcomes;    // [n * n_pricing], by candidate then pricing slot
    uint8_t *mc_failed;             // [n * n_pricing] 1: a finalist that missed the deadline
                                    //   probability in its Monte Carlo
    long rejected_deadline_p;       // how many those are
};

void ts_sweep_progress_free(struct ts_sweep_progress *p);

/* Write progress as a partial file: JSON marked "trainsim_partial_sweep", the sweep's file
 * name, fingerprint and input files, the outcomes (doubles written exactly; "inf" as a
 * string) and a checksum of it all (progress.c). Written as an output file (util.h). */
int ts_sweep_progress_write(const char *path, const struct ts_sweep *sw,
                            const struct ts_sweep_progress *p, struct ts_err *err);

/* Read a partial file for `sw` into *out (free with ts_sweep_progress_free). TS_ERR_INPUT, with
 * a message naming the check that failed, when the file is not a complete partial sweep file
 * of this format and trainsim version, its checksum does not match its content (edited or
 * damaged), it was written for other inputs (the fingerprint differs: the message names the
 * file that changed), or its values are out of range or its counters inconsistent.
 * ts_sweep_run checks the layouts too. */
int ts_sweep_progress_load(const char *path, const struct ts_sweep *sw,
                           struct ts_sweep_progress *out, struct ts_err *err);

struct ts_sweep_options {
    int threads;                // 0: OpenMP default
    bool progress;              // progress bar with ETA on stderr
    bool exhaustive;            // no pruning (for tests: evaluate every candidate)
    int batch;                  // candidates per parallel batch (default 256)
    const char *csv_path;       // every evaluated configuration, or NULL
    /* Interruption: the sweep polls *stop (when not NULL) between chunks of screening, before
     * and inside each batch of simulations (a batch cut short is dropped), before each
     * finalist and between its Monte Carlo replications; once it is non-zero the sweep stops
     * within a fraction of a second and returns with result.interrupted and its finished work
     * (finalists' Monte Carlo included) in result.progress. A signal handler may set it (the
     * CLI's handler for SIGINT, SIGTERM and SIGHUP stores the signal's number); the library
     * installs no handler. */
    volatile sig_atomic_t *stop;
    long stop_after_batches;    // act as if *stop rose after this many batches (0: never); a
                                //   deterministic stand-in for Ctrl-C in tests
    const struct ts_sweep_progress *resume; // continue from an interrupted run's work (NULL:
                                //   start afresh); a layout that does not match is TS_ERR_INPUT
    long stop_after_finalists;  // act as if *stop rose after this many finalists' Monte Carlo
                                //   runs (0: never), the same stand-in for the finalist phase
    uint64_t max_configs;       // refuse (TS_ERR_INPUT) a sweep that enumerates more layouts
                                //   (0: TS_SWEEP_MAX_CONFIGS_DEFAULT); ts_sweep_count counts
    bool model_uncertainty;     // finalists' Monte Carlo carries the model's validation
                                //   band (run.h; the CLI's default, --no-model-uncertainty)
    long keep;                  // candidates kept in memory per stream (0:
                                //   TS_SWEEP_KEEP_DEFAULT); smaller values only make more
                                //   streams (tests use it to exercise them), never another answer
};

/* Default limit on the layouts a sweep enumerates (`--max-configs` raises it): the shipped
 * sweeps enumerate up to 1.6 M (llama3-70b-sizing), screened at about 0.5 M a second on two
 * cores; every option "auto" over 21 node counts and several global batches is 6 M to 24 M
 * and takes a minute or more, so it asks to be narrowed or allowed explicitly. */
#define TS_SWEEP_MAX_CONFIGS_DEFAULT 4000000ull

/* Default size of the kept candidate set (about 90 bytes each: 90 MiB). Sweeps with fewer
 * candidates are screened once; larger ones stream again for each next set. */
#define TS_SWEEP_KEEP_DEFAULT (1L << 20)

/* How many layouts the sweep enumerates (before validation: the `enumerated` count of
 * ts_sweep_run), counted without generating them. */
uint64_t ts_sweep_count(const struct ts_sweep *sw);

struct ts_sweep_result {
    uint64_t configurations;    // layouts the sweep enumerates (ts_sweep_count, set first)
    long enumerated;            // layouts generated
    long evaluated;             // layouts x pricing assessed (screened or simulated)
    long simulated;             // layouts run through the iteration simulation
    long feasible;              // layouts x pricing that fit in memory and are not excluded by the
                                //   constraint at their bound (screening is exhaustive, so this
                                //   does not depend on pruning)
    long rejected[TS_REJECT_COUNT];
    double elapsed_s;
    int n_top;
    struct ts_outcome *top;     // best first (n_top <= sweep->top)
    int n_pareto;
    struct ts_outcome *pareto;  // cost/time front, by time
    /* The purchase decision: top and pareto rows are distinct purchases (system x nodes x
     * pricing). Row i's layouts (the row's own first, then by objective) are
     * top_layouts[top_first[i] .. top_first[i + 1]): for top, the layouts of its purchase
     * within TS_SWEEP_TIE_TOLERANCE of its objective (analytic values); for pareto, the other
     * front points of its purchase. */
    struct ts_outcome *top_layouts;
    int *top_first;             // [n_top + 1]
    struct ts_outcome *pareto_layouts;
    int *pareto_first;          // [n_pareto + 1]
    int n_best_per_system;
    struct ts_outcome *best_per_system; // the best meeting layout of each system x pricing
                                //   where some layout meets (analytic values; exact:
                                //   pruning keeps them), in the sweep's system and pricing
                                //   order
    bool found;                 // top[0] is the answer
    struct ts_outcome closest;  // when nothing meets the constraint: the nearest miss
    bool has_closest;
    /* the best configuration in full (for the report) */
    struct ts_job best_job;
    struct ts_iteration best_it;
    struct ts_run_result best_run;
    struct ts_cost_result best_cost;
    struct ts_run_distribution best_dist; // its finish-time and cost distribution
    /* Interrupted (options.stop): nothing above is set but enumerated, simulated and the
     * divisibility count; `progress` holds the finished work (resumed runs included). */
    bool interrupted;
    struct ts_sweep_progress progress;
    long candidates;            // layouts that passed screening (the work to do, at most)
};

/* Run the sweep. Returns TS_OK (also when nothing meets the constraint: found == false, and
 * when stopped: interrupted == true) or an error; TS_ERR_INPUT, before any work, when the
 * sweep enumerates more than opt->max_configs layouts (the message gives the count and how to
 * narrow the sweep). Memory does not grow with the number of layouts: the enumeration is
 * streamed (screened in chunks, only counters, the closest miss, the kept candidates and the
 * simulated ones are held), and streamed again when the kept set runs out (unless every
 * candidate left out of it is already prunable). *stop is polled
 * between chunks of screening, between batches of simulations, between finalists and (by the
 * run simulation) between Monte Carlo replications. The caller frees the result with ts_sweep_result_free. */
int ts_sweep_run(const struct ts_sweep *sw, const struct ts_sweep_options *opt,
                 struct ts_sweep_result *out, struct ts_err *err);
void ts_sweep_result_free(struct ts_sweep_result *r);

/* The lower bounds of a layout's iteration time that the sweep uses: *screen_s,
 * screening's (ts_step_lower_bound, at least the data loader's time), by which layouts are
 * screened against the constraint, counted and ordered; *tight_s, the tighter one pruning
 * compares (the pipeline's drain and the wait for the slowest GPU added). Both are at most
 * the iteration time ts_step_evaluate gives ts_sweep_layout_job's job (tests check it).
 * Returns the job validator's error for a layout that is not valid. */
int ts_sweep_layout_bounds(const struct ts_sweep *sw, const struct ts_layout *l, double *screen_s,
                           double *tight_s, struct ts_err *err);

/* Build the job of a layout (for reports and for `trainsim run` reproduction): its system,
 * software profile (job->software, as a job file naming it would have), size and layout. */
void ts_sweep_layout_job(const struct ts_sweep *sw, const struct ts_layout *l, enum ts_pricing pricing,
                         struct ts_job *out);

/* The balanced uneven pipeline split the sweep uses for a pp that does not divide the
 * layers: the middle stages hold ceil(layers / pp) layers, the first stage first_out and the
 * last stage last_out (the last the smaller when the spare layers are odd). Returns false,
 * leaving the outputs unspecified, when pp divides the layers, pp < 2 or pp > layers, or no
 * such split leaves each end stage a layer. */
bool ts_sweep_stage_split(int layers, int pp, int *first_out, int *last_out);

/* The job of an outcome: ts_sweep_layout_job at its pricing, committed to its base
 * (o->commit_nodes, when the sweep searches the base). */
void ts_sweep_outcome_job(const struct ts_sweep *sw, const struct ts_outcome *o, struct ts_job *out);

#endif
