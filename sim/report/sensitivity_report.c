/*
 * The sensitivity analysis as JSON, a table and CSV (audit.h).
 */
#include <math.h>
#include <string.h>

#include "report/audit.h"
#include "report/report.h"

static void num(cJSON *o, const char *key, double v)
{
    cJSON_AddItemToObject(o, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static cJSON *answer_json(const struct ts_sens_answer *a)
{
    cJSON *o = cJSON_CreateObject();
    if (!a->ok) {
        cJSON_AddStringToObject(o, "error", a->error);
        return o;
    }
    cJSON_AddStringToObject(o, "answer", a->label);
    cJSON_AddBoolToObject(o, "found", a->found);
    num(o, "cost", a->cost_usd);
    num(o, "time_s", a->time_s);
    return o;
}

static const char *answer_text(const struct ts_sens_answer *a)
{
    return a->ok ? a->label : a->error;
}

cJSON *ts_report_sensitivity_json(const char *file, const struct ts_sensitivity *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "trainsim_version", TS_VERSION);
    cJSON_AddStringToObject(o, "sensitivity_of", file);
    cJSON_AddStringToObject(o, "kind", s->is_sweep ? "sweep" : "job");
    cJSON_AddStringToObject(o, "objective", ts_objective_names[s->objective]);
    cJSON_AddItemToObject(o, "base", answer_json(&s->base));
    cJSON *rows = cJSON_AddArrayToObject(o, "sensitivity");
    cJSON *skipped = cJSON_AddArrayToObject(o, "not_varied");
    for (int i = 0; i < s->n_rows; i++) {
        const struct ts_sens_row *r = &s->rows[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "input", ts_sens_input_names[r->input]);
        if (!r->applicable) {
            cJSON_AddStringToObject(j, "why", r->why_not);
            cJSON_AddItemToArray(skipped, j);
            continue;
        }
        cJSON_AddStringToObject(j, "range", r->range);
        num(j, "low", r->low);
        num(j, "high", r->high);
        num(j, "cost_low", r->at_low.ok ? r->at_low.cost_usd : (double)NAN);
        num(j, "cost_high", r->at_high.ok ? r->at_high.cost_usd : (double)NAN);
        num(j, "time_low", r->at_low.ok ? r->at_low.time_s : (double)NAN);
        num(j, "time_high", r->at_high.ok ? r->at_high.time_s : (double)NAN);
        cJSON_AddStringToObject(j, "answer_low", answer_text(&r->at_low));
        cJSON_AddStringToObject(j, "answer_high", answer_text(&r->at_high));
        cJSON_AddBoolToObject(j, "answer_changes", r->answer_changes);
        num(j, "cost_swing", fabs(r->at_high.cost_usd - r->at_low.cost_usd));
        num(j, "time_swing", fabs(r->at_high.time_s - r->at_low.time_s));
        cJSON_AddItemToArray(rows, j);
    }
    cJSON *be = cJSON_AddArrayToObject(o, "break_even");
    for (int i = 0; i < s->n_break_even; i++) {
        const struct ts_sens_break_even *b = &s->break_even[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "input", ts_sens_input_names[b->input]);
        cJSON_AddBoolToObject(j, "found", b->found);
        num(j, "multiplier", b->multiplier);
        num(j, "multiplier_flip", b->multiplier_flip);
        cJSON_AddStringToObject(j, "statement", b->statement);
        cJSON_AddItemToArray(be, j);
    }
    num(o, "evaluations", (double)s->evaluations);
    return o;
}

/* "+12.3%" of v against base, or "-" when either is missing. */
static const char *pct(double v, double base, char *buf, size_t n)
{
    if (!isfinite(v) || !isfinite(base) || base == 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%+.1f%%", 100.0 * (v / base - 1.0));
    return buf;
}

void ts_report_sensitivity_table(const char *file, const struct ts_sensitivity *s,
                                 struct ts_buf *out)
{
    char a[48], b[48], c[48], d[48];
    const struct ts_sens_answer *base = &s->base;
    ts_buf_printf(out, "trainsim sensitivity of %s (%s; tornado by %s)\n", file,
                  s->is_sweep ? "sweep" : "job", ts_objective_names[s->objective]);
    ts_buf_printf(out, "base answer: %s: cost %s, expected time %s\n\n", base->label,
                  ts_report_format_usd(base->cost_usd, a, sizeof a),
                  isfinite(base->time_s) ? ts_quantity_format(base->time_s, TS_DIM_SECONDS, b, sizeof b) : "-");
    ts_buf_printf(out, "%-22s %8s %8s %9s %9s %9s %9s  %s\n", "input", "low", "high", "cost lo",
                  "cost hi", "time lo", "time hi", "answer changes?");
    for (int i = 0; i < s->n_rows; i++) {
        const struct ts_sens_row *r = &s->rows[i];
        if (!r->applicable)
            continue;
        char lo[16], hi[16];
        snprintf(lo, sizeof lo, "x%.3g", r->low);
        snprintf(hi, sizeof hi, "x%.3g", r->high);
        ts_buf_printf(out, "%-22s %8s %8s %9s %9s %9s %9s  %s\n", ts_sens_input_names[r->input], lo, hi,
                      pct(r->at_low.cost_usd, base->cost_usd, a, sizeof a),
                      pct(r->at_high.cost_usd, base->cost_usd, b, sizeof b),
                      pct(r->at_low.time_s, base->time_s, c, sizeof c),
                      pct(r->at_high.time_s, base->time_s, d, sizeof d),
                      !r->answer_changes ? "no"
                      : strcmp(r->at_low.label, base->label) != 0 ? answer_text(&r->at_low)
                                                                  : answer_text(&r->at_high));
    }
    ts_buf_printf(out, "\nranges:\n");
    for (int i = 0; i < s->n_rows; i++) {
        const struct ts_sens_row *r = &s->rows[i];
        if (r->applicable)
            ts_buf_printf(out, "  %-22s %s\n", ts_sens_input_names[r->input], r->range);
        else
            ts_buf_printf(out, "  %-22s not varied: %s\n", ts_sens_input_names[r->input], r->why_not);
    }
    if (s->n_break_even) {
        ts_buf_printf(out, "\nbreak-even:\n");
        for (int i = 0; i < s->n_break_even; i++)
            ts_buf_printf(out, "  %s\n", s->break_even[i].statement);
    }
    ts_buf_printf(out, "\n%ld %s evaluated\n", s->evaluations, s->is_sweep ? "sweeps" : "jobs");
}

/* A CSV field in the dialect of every trainsim CSV (report.c): quoted only when it holds a
 * comma, a quote or a newline, quotes doubled (RFC 4180). */
static void csv_field(struct ts_buf *out, const char *s)
{
    bool quote = strpbrk(s, ",\"\n") != NULL;
    if (quote)
        ts_buf_append(out, "\"", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            ts_buf_append(out, "\"", 1);
        ts_buf_append(out, p, 1);
    }
    if (quote)
        ts_buf_append(out, "\"", 1);
}

void ts_report_sensitivity_csv(const struct ts_sensitivity *s, struct ts_buf *out)
{
    ts_buf_printf(out, "input,low,high,cost_low,cost_high,time_low,time_high,answer_low,"
                       "answer_high,answer_changes\n");
    for (int i = 0; i < s->n_rows; i++) {
        const struct ts_sens_row *r = &s->rows[i];
        if (!r->applicable)
            continue;
        double v[6] = {r->low, r->high, r->at_low.cost_usd, r->at_high.cost_usd, r->at_low.time_s,
                       r->at_high.time_s};
        ts_buf_printf(out, "%s", ts_sens_input_names[r->input]);
        for (int k = 0; k < 6; k++) {
            char nb[40] = "";
            if (isfinite(v[k]))
                ts_json_format_double(v[k], nb, sizeof nb);
            ts_buf_printf(out, ",%s", nb);
        }
        ts_buf_append(out, ",", 1);
        csv_field(out, answer_text(&r->at_low));
        ts_buf_append(out, ",", 1);
        csv_field(out, answer_text(&r->at_high));
        ts_buf_printf(out, ",%s\n", r->answer_changes ? "true" : "false");
    }
}
