/*
 * cli: the subcommands behind `trainsim`. Each takes argv starting at the subcommand name and
 * returns an exit status (0, 1 runtime failure, 2 bad usage or input); messages go to stderr,
 * results to stdout.
 */
#ifndef TS_CLI_H
#define TS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/report.h"

struct ts_cli_command {
    const char *name;
    const char *summary;
    int (*main)(int argc, char **argv);
    void (*help)(FILE *f);
};

int ts_cli_run(int argc, char **argv);
void ts_cli_run_help(FILE *f);
int ts_cli_sweep(int argc, char **argv);
void ts_cli_sweep_help(FILE *f);
int ts_cli_calibrate(int argc, char **argv);
void ts_cli_calibrate_help(FILE *f);
int ts_cli_sensitivity(int argc, char **argv);
void ts_cli_sensitivity_help(FILE *f);
struct ts_sensitivity;

/* Build the HTML report (report/audit.h) and write it to path (checked before the work) as an
 * output file; charts gnuplot could not draw are a warning on stderr, not a failure.
 * Returns the exit status. */
struct ts_html_input;
int ts_cli_write_report(const char *path, const struct ts_html_input *in);

/* The page of an answer: `job` (NULL: none) evaluated in full once more for its finish-time
 * samples and iteration timeline; `result` the run or sweep JSON (NULL: the job's run JSON
 * is built); `sens` the tornado (may be NULL). Returns the exit status. */
struct ts_job;
int ts_cli_report_answer(const char *path, const char *command, const char *file,
                         const struct ts_job *job, const cJSON *result,
                         const struct ts_sensitivity *sens);
/* calibrate --nccl-tests / --gemm-csv (sim/cli/calibrate_files.c). */
bool ts_cli_calibrate_is_files(int argc, char **argv);
/* calibrate's --format: table or json (its report has no CSV); prints and returns -1 if not. */
int ts_cli_calibrate_format(const char *value, enum ts_format *out);
int ts_cli_calibrate_files(int argc, char **argv);
int ts_cli_import(int argc, char **argv);
void ts_cli_import_help(FILE *f);
/* import skypilot (sim/cli/import_skypilot.c): argv after the file name. */
int ts_cli_import_skypilot(const char *file, int argc, char **argv);
int ts_cli_list(int argc, char **argv);
int ts_cli_show(int argc, char **argv);
void ts_cli_list_help(FILE *f);
int ts_cli_new(int argc, char **argv);
void ts_cli_new_help(FILE *f);

/* Parse "--format X" values; prints an error and returns -1 if unknown. */
int ts_cli_parse_format(const char *value, enum ts_format *out);

/* The default format: table on a terminal, JSON otherwise. */
enum ts_format ts_cli_default_format(void);

/* Write buf to stdout (or a file when path is not NULL, atomically). Returns an exit code. */
int ts_cli_emit(const struct ts_buf *buf, const char *path);

/* "--opt N": a whole number in [lo, hi]. Prints "trainsim CMD: OPT: ..." and returns -1 if
 * not. */
int ts_cli_parse_long(const char *cmd, const char *opt, const char *value, long lo, long hi,
                      long *out);
int ts_cli_parse_int(const char *cmd, const char *opt, const char *value, int lo, int hi, int *out);

/* An argument that is not a known option: the subcommand's one FILE (what: "job", "sweep").
 * Prints why and returns -1 for an unknown option or a second file. */
int ts_cli_positional(const char *cmd, const char *what, const char *arg, const char **file);

/* Prints "missing FILE" and returns -1 when no FILE was given. */
int ts_cli_need_file(const char *cmd, const char *file);

/* Check an output path before the work (ts_file_check_output), and that it is not one of the
 * NULL-terminated `others` (the input files, and the outputs already checked): a regular file
 * named twice would be overwritten. Devices and FIFOs may be named more than once. Prints
 * "trainsim CMD: OPT: why" and returns the exit status (0 when the path is fine). */
int ts_cli_check_output(const char *cmd, const char *opt, const char *path,
                        const char *const others[]);

/* A file named after another: path (or, with base_only, its last component) without a
 * trailing ".json", plus suffix. out is "" if it does not fit. */
void ts_cli_derived_path(const char *path, bool base_only, const char *suffix, char *out, size_t n);

/* ---------------------------------------------------------------- --set PATH=VALUE (set.c) */

#define TS_CLI_SETS_MAX 64

/* The --set overrides of one command, in the order given (later ones win). */
struct ts_cli_sets {
    int n;
    const char *arg[TS_CLI_SETS_MAX];   // "PATH=VALUE" as given (borrowed from argv)
};

/* Take one --set argument. Prints "trainsim CMD: --set ARG: why" and returns -1 when it is not
 * PATH=VALUE or there are too many. */
int ts_cli_sets_add(struct ts_cli_sets *s, const char *cmd, const char *arg);

/* Apply the overrides to the document of `file` (set.c documents PATH and VALUE; references
 * on the way resolve relative to `file`). TS_ERR_INPUT "FILE: --set ARG: PATH: why" for a
 * path that cannot be followed. s may be NULL. */
int ts_cli_sets_apply(const struct ts_cli_sets *s, cJSON *doc, const char *file,
                      struct ts_err *err);

/* Load a JSON input (ts_json_load) and apply the overrides. The caller frees *doc. */
int ts_cli_doc_load(const char *file, const struct ts_cli_sets *s, cJSON **doc,
                    struct ts_err *err);

/* After a parse of `file` failed: when the message's JSON path is one a --set wrote (or lies
 * above or below one), append " (from --set ARG)" to it. */
void ts_cli_sets_note(const struct ts_cli_sets *s, const char *file, struct ts_err *err);

/* The latest --set argument whose path is exactly `path`, or NULL. */
const char *ts_cli_sets_find(const struct ts_cli_sets *s, const char *path);

/* ---------------------------------------------------------------- what-if options (whatif.c) */

struct ts_sweep;
struct ts_sweep_result;
struct ts_sweep_options;
struct ts_outcome;

/* --set, --explain and --emit of run and sweep, and the input they apply to. */
struct ts_cli_whatif {
    struct ts_cli_sets sets;
    bool explain;               // --explain: the resolved inputs and where each came from
    const char *emit_job;       // --emit job FILE: the answer as a runnable job file
    bool emit_megatron;         // --emit megatron: the Megatron-LM arguments (instead of the answer)
    bool search_software;       // sweep --search-software: a "software" list is one searched
                                //   dimension (the answer takes the best profile), not one
                                //   combination per profile
    cJSON *doc;                 // the input document with the overrides applied (owned)
    int n_scenarios;            // sweeps: the combinations of the listed values (1 without lists)
    cJSON **scenarios;          // [n_scenarios] one sweep document each (owned)
};

/* Consume argv[*i] (and its values) when it is one of the what-if options: 1 consumed, 0 not
 * one of them, -1 bad (message printed). */
int ts_cli_whatif_option(struct ts_cli_whatif *w, const char *cmd, int argc, char **argv, int *i);

/* Check the options before the work (an --emit job path; --explain with CSV). Exit status. */
int ts_cli_whatif_check(const struct ts_cli_whatif *w, const char *cmd, const char *file,
                        enum ts_format format);

void ts_cli_whatif_free(struct ts_cli_whatif *w);

/* Load and parse a job with the overrides (w->doc keeps the document). */
int ts_cli_run_load(struct ts_cli_whatif *w, const char *file, struct ts_job *job,
                    struct ts_err *err);

/* Print run's answer in `format` with what the options add (explanation, assumptions.defaults,
 * emitted forms). Exit status. */
int ts_cli_run_answer(const struct ts_cli_whatif *w, const char *file,
                      const struct ts_run_output *out, enum ts_format format);

/* Load a sweep with the overrides, expand its lists (model, tokens, precision, software unless
 * w->search_software, constraint.deadline, constraint.min_tokens_per_s) into combinations
 * (a value listed twice is an error naming it), check every one, and leave the first in *sw. */
int ts_cli_sweep_load(struct ts_cli_whatif *w, const char *file, struct ts_sweep *sw,
                      struct ts_err *err);

/* Print a sweep's answer (sw, res: the first combination, run by the caller); with several
 * combinations run the others with the same options (top: the --top override, 0 none) and
 * print each (JSON: the first at the top level and all in "scenarios"). Exit status. */
int ts_cli_sweep_answer(const struct ts_cli_whatif *w, const char *file,
                        const struct ts_sweep *sw, const struct ts_sweep_result *res,
                        const struct ts_sweep_options *opt, int top, enum ts_format format);

/* explain.c: the resolved inputs as [{key, value, source}], sorted by key. */
cJSON *ts_cli_explain_job(const char *file, const cJSON *doc, const struct ts_cli_sets *sets,
                          const struct ts_job *job);
cJSON *ts_cli_explain_sweep(const char *file, const cJSON *doc, const struct ts_cli_sets *sets,
                            const struct ts_sweep *sw);
/* The entries that are defaults (or a software profile's), for assumptions.defaults. */
cJSON *ts_cli_explain_defaults(const cJSON *explain);
void ts_cli_explain_table(const cJSON *explain, struct ts_buf *b);

/* emit.c: the job's Megatron-LM arguments on one line (notes on what does not map exactly go
 * to `notes` when not NULL); the sweep's outcome o (whose job is `best`) as a job document. */
void ts_cli_emit_megatron(const struct ts_job *job, struct ts_buf *b, FILE *notes);
cJSON *ts_cli_emit_run_job(const char *file, const cJSON *doc);
cJSON *ts_cli_emit_sweep_job(const char *file, const cJSON *doc, const struct ts_sweep *sw,
                             const struct ts_outcome *o, const struct ts_job *best);

/* compare.c: `trainsim compare A.json B.json ...`. */
int ts_cli_compare(int argc, char **argv);
void ts_cli_compare_help(FILE *f);

/* Send what ts_cli_emit would write to standard output into b instead (NULL: stdout again).
 * For compare, which runs `run` on each job. */
void ts_cli_capture_stdout(struct ts_buf *b);
/* Print the warnings met while reading inputs (ts_warning_add) on stderr, once, and forget
 * them. */
void ts_cli_print_warnings(void);

#endif
