/*
 * report: results as tables for people, JSON and CSV for programs, Chrome traces for
 * Perfetto. Output keys are the interface contract (DESIGN section 4): never rename or drop
 * one. Formatting only; no modelling here.
 */
#ifndef TS_REPORT_H
#define TS_REPORT_H

#include <cjson/cJSON.h>

#include "cost/cost.h"
#include "run/run.h"
#include "search/search.h"
#include "spec/spec.h"
#include "step/step.h"
#include "util/util.h"

enum ts_format { TS_FORMAT_TABLE, TS_FORMAT_JSON, TS_FORMAT_CSV, TS_FORMAT_COUNT };
extern const char *const ts_format_names[TS_FORMAT_COUNT];   // "table", "json", "csv"

/* What `trainsim run` knows about one job. Pointers are borrowed. */
struct ts_run_output {
    const char *file;                   // job file as given
    const struct ts_job *job;
    const struct ts_iteration *it;
    const struct ts_step_stages *stages;// per-stage arrays of length pp (may be NULL)
    const double *stage_memory_bytes;   // per-stage memory (may be NULL)
    const struct ts_run_result *run;    // whole-run Monte Carlo (NULL without reliability)
    const struct ts_cost_result *cost;  // the bill (NULL without a cost section)
    const struct ts_run_distribution *dist; // finish time and cost with the model's error
                                        //   (NULL: not computed); JSON time_quantiles,
                                        //   cost_quantiles, model_uncertainty
};

/* The run result as a JSON object (caller frees with cJSON_Delete). */
cJSON *ts_report_run_json(const struct ts_run_output *r);

/* The run result as an aligned, sectioned table. */
void ts_report_run_table(const struct ts_run_output *r, struct ts_buf *out);

/* The table form of the run's `validation` object (software profile on the device,
 * validated or not with its residual band, plausibility warning), starting with a blank
 * line. The run table and the sweep table (under the answer) print it. */
void ts_report_validation_text(const struct ts_job *job, const struct ts_iteration *it,
                               struct ts_buf *out);

/* The flat scalar keys of the JSON object as a CSV header and one row. */
void ts_report_run_csv(const struct ts_run_output *r, struct ts_buf *out);

/* Flatten the scalar members of a JSON object (nested objects joined with '.') into CSV:
 * a header line and a value line. Used for every CSV output. */
void ts_report_json_to_csv(const cJSON *obj, struct ts_buf *out);

/* Print a cJSON value deterministically (2-space indentation) into out, with a newline. */
void ts_report_json_print(const cJSON *obj, struct ts_buf *out);

/* USD with thousands separators: 12345678.9 -> "$12,345,679"; "not priced" when usd is not
 * finite. Returns buf. */
const char *ts_report_format_usd(double usd, char *buf, size_t n);

/* The run's finish-time and cost distribution with the model's error: JSON keys
 * time_quantiles {p05 ... p99, mean} (s), cost_quantiles (USD) and model_uncertainty
 * {applied, validated, min_error, max_error, source, draw, replications} added to `o`; and a
 * table of the quantiles. */
void ts_report_distribution_json(const struct ts_run_distribution *d, cJSON *o);
void ts_report_distribution_text(const struct ts_run_distribution *d, struct ts_buf *out);

/* A number for people, three significant digits with an SI prefix: (2.9e6, "tokens/s") ->
 * "2.90 M tokens/s", (1.53e6, "$") -> "$1.53 M", (1.65e6, "s") -> "19.1 d" (times use the
 * quantity formatter). Tables only: JSON and CSV keep full precision. Returns buf. */
const char *ts_report_format_human(double v, const char *unit, char *buf, size_t n);

/* Tables: every column (--wide) instead of fitting 100 columns. */
extern bool ts_report_wide;

/* The width that table output fits by default (columns), and the prose wrapping that keeps
 * it: every line of b wider than `width` columns (UTF-8 code points) is broken at spaces,
 * the continuation lines indented 4 more than the line; a word wider than the line stays
 * whole. Lines within the width are left byte for byte. For table output only (not JSON or
 * CSV), and not with --wide (sim/report/wrap.c). */
#define TS_REPORT_WIDTH 100
void ts_report_wrap_prose(struct ts_buf *b, int width);

/* The sweep result: best (with the same metrics as a run), top, pareto, counts. */
cJSON *ts_report_sweep_json(const struct ts_sweep *sw, const struct ts_sweep_result *r);
void ts_report_sweep_table(const struct ts_sweep *sw, const struct ts_sweep_result *r, struct ts_buf *out);
void ts_report_sweep_csv(const struct ts_sweep *sw, const struct ts_sweep_result *r, struct ts_buf *out);

/* Write a Chrome trace (JSON object format, microsecond timestamps) of an iteration: one
 * process per pipeline stage, threads "compute", "send", "data-parallel". Written to a
 * temporary file and renamed into place. */
int ts_report_trace_write(const char *path, const struct ts_trace *trace, const struct ts_job *job,
                          struct ts_err *err);

/* Write a Chrome trace of one replication's run timeline (compute, checkpoints, failures,
 * restarts, waits) in hours-long wall-clock time. */
int ts_report_run_trace_write(const char *path, const struct ts_run_timeline *tl, const struct ts_job *job,
                              struct ts_err *err);

#endif
