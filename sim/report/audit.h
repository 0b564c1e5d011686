/*
 * report (continued): the outputs that let a buyer audit an answer. The sensitivity analysis
 * as table / JSON / CSV, and `--report FILE.html`: one self-contained page (no network, no
 * external file) with the question, the answer, its assumptions, the bill and GPU-hour
 * attribution, the Pareto front, the finish-time CDF, the tornado chart, the best per system
 * and the iteration timeline.
 *
 * Charts are drawn by gnuplot (`set terminal svg`), run as a child process on data written
 * to a private temporary directory; its SVG is inlined in the page. Where gnuplot is absent
 * or fails, the page says so in place of each chart and the write still succeeds (the caller
 * gets a warning). The program is `gnuplot` on PATH, or $TRAINSIM_GNUPLOT.
 * Every string put into the page is HTML-escaped. Formatting only; no modelling here.
 */
#ifndef TS_REPORT_AUDIT_H
#define TS_REPORT_AUDIT_H

#include <cjson/cJSON.h>

#include "search/sensitivity.h"
#include "step/step.h"
#include "util/util.h"

/* ---------------------------------------------------------------- sensitivity */

/* JSON: `sensitivity_of`, `kind` ("job" | "sweep"), `objective`, `base` {answer, cost, time},
 * `sensitivity` (tornado order: {input, range, low, high, cost_low, cost_high, time_low,
 * time_high, answer_low, answer_high, answer_changes, cost_swing, time_swing}), `not_varied`
 * ({input, why}), `break_even` ({input, found, multiplier, multiplier_flip, statement}) and
 * `evaluations`. Numbers in SI units and USD, full precision. */
cJSON *ts_report_sensitivity_json(const char *file, const struct ts_sensitivity *s);
void ts_report_sensitivity_table(const char *file, const struct ts_sensitivity *s,
                                 struct ts_buf *out);
/* One row per varied input (the JSON rows' scalar keys), header first. */
void ts_report_sensitivity_csv(const struct ts_sensitivity *s, struct ts_buf *out);

/* ---------------------------------------------------------------- gnuplot */

/* Run gnuplot on `script` (gnuplot commands after the terminal and output lines, which this
 * adds: svg, size w x h) with the data files `data[i]` (text, written as $DIR/dI.dat; the
 * script names them as "DIR/dI.dat" through the placeholder @DIR@). On success *svg holds the
 * <svg> element (XML prolog and namespace declarations removed: inline SVG in HTML needs
 * neither) and the return is 0. Otherwise -1 with the reason in why ("gnuplot is not
 * installed", or its first error line). Thread safe apart from the child process. */
int ts_plot_svg(const char *script, const char *const data[], int n_data, int w, int h,
                struct ts_buf *svg, char *why, size_t n_why);

/* ---------------------------------------------------------------- the HTML report */

/* What a page is built from; pointers borrowed, any may be NULL. */
struct ts_html_input {
    const char *command;                // "run", "sweep", "sensitivity"
    const char *file;                   // the input file as given
    const cJSON *result;                // the run or sweep JSON (ts_report_run_json /
                                        //   ts_report_sweep_json); the answer's job for a sweep
                                        //   is its "best"
    const struct ts_sensitivity *sens;  // the tornado and break-evens
    const double *samples;              // the answer's per-replication wall times (s)
    int n_samples;
    const struct ts_trace *trace;       // the answer's iteration, for the timeline
    const double *bills;                // the bill of each of those replications (USD), for
    int n_bills;                        //   the cost distribution (NULL / 0: not priced)
};

/* Build the page into out. *charts_missing counts the charts gnuplot could not draw (the
 * page says why at each); why_missing gets the first reason. */
void ts_report_html(const struct ts_html_input *in, struct ts_buf *out, int *charts_missing,
                    char *why_missing, size_t n_why);

/* Append s to out with &, <, >, " and ' escaped (and control characters dropped). */
void ts_html_escape(struct ts_buf *out, const char *s);

#endif
