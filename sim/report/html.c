/*
 * The HTML report (audit.h): one self-contained page. No external reference of any kind (no
 * stylesheet, script, font or image from elsewhere): the style and a small self-check script
 * are inline, the charts are gnuplot's SVG inlined. Every string from an input or a result
 * goes through ts_html_escape.
 *
 * Sections: the question, the answer, assumptions, the bill and GPU-hour attribution, the
 * Pareto front, the finish-time CDF and the cost distribution (a histogram of the bills of
 * the same replications), the tornado chart (with break-evens), the best per
 * system and the iteration timeline. A section without data says why (a single job has no
 * Pareto front; a run without --report's sensitivity has no tornado).
 *
 * The self-check script marks the page when it has rendered: for each chart it counts the
 * drawn SVG elements with a non-empty box and writes <p id="render-check"
 * data-charts="N" data-drawn="M">, which the browser test reads.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/audit.h"
#include "report/report.h"

void ts_html_escape(struct ts_buf *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        switch (*p) {
        case '&': ts_buf_append(out, "&amp;", 5); break;
        case '<': ts_buf_append(out, "&lt;", 4); break;
        case '>': ts_buf_append(out, "&gt;", 4); break;
        case '"': ts_buf_append(out, "&quot;", 6); break;
        case '\'': ts_buf_append(out, "&#39;", 5); break;
        default:
            if (*p >= 0x20 || *p == '\n' || *p == '\t')
                ts_buf_append(out, (const char *)p, 1);
        }
    }
}

/* Text for a gnuplot data file or string: no quotes, backslashes or control characters. */
static void plot_label(char *dst, size_t n, const char *s)
{
    size_t k = 0;
    for (; s && *s && k + 1 < n; s++)
        dst[k++] = (*s == '"' || *s == '\\' || *s == '\'' || (unsigned char)*s < 0x20) ? '_' : *s;
    dst[k] = '\0';
}

static double jnum(const cJSON *o, const char *key)
{
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    return cJSON_IsNumber(v) ? v->valuedouble : (double)NAN;
}

static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void esc_printf(struct ts_buf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void esc_printf(struct ts_buf *out, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ts_html_escape(out, buf);
}

static const char *days(double s, char *buf, size_t n)
{
    if (!isfinite(s))
        snprintf(buf, n, "-");
    else
        ts_quantity_format(s, TS_DIM_SECONDS, buf, n);
    return buf;
}

/* ---------------------------------------------------------------- charts */

struct page {
    struct ts_buf *out;
    int charts, missing;
    char *why;
    size_t n_why;
};

static void chart(struct page *pg, const char *name, const char *caption, const char *script,
                  const char *const data[], int n_data, int w, int h)
{
    struct ts_buf svg;
    ts_buf_init(&svg);
    char why[256] = "";
    pg->charts++;
    if (ts_plot_svg(script, data, n_data, w, h, &svg, why, sizeof why) == 0) {
        ts_buf_printf(pg->out, "<figure class=\"chart\" data-chart=\"%s\">", name);
        ts_buf_append(pg->out, svg.data, svg.len);
    } else {
        pg->missing++;
        if (!pg->why[0])
            ts_strlcpy(pg->why, why, pg->n_why);
        ts_buf_printf(pg->out, "<figure class=\"chart missing\" data-chart=\"%s\"><p class=\"note\">"
                      "Chart not drawn: ", name);
        ts_html_escape(pg->out, why);
        ts_buf_printf(pg->out, ".</p>");
    }
    ts_buf_printf(pg->out, "<figcaption>");
    ts_html_escape(pg->out, caption);
    ts_buf_printf(pg->out, "</figcaption></figure>\n");
    ts_buf_free(&svg);
}

static void note(struct ts_buf *out, const char *text)
{
    ts_buf_printf(out, "<p class=\"note\">");
    ts_html_escape(out, text);
    ts_buf_printf(out, "</p>\n");
}

/* ---------------------------------------------------------------- tables */

static void value_text(const cJSON *v, char *buf, size_t n)
{
    if (cJSON_IsNumber(v))
        ts_json_format_double(v->valuedouble, buf, n);
    else if (cJSON_IsString(v))
        ts_strlcpy(buf, v->valuestring, n);
    else if (cJSON_IsBool(v))
        ts_strlcpy(buf, cJSON_IsTrue(v) ? "true" : "false", n);
    else if (cJSON_IsNull(v))
        ts_strlcpy(buf, "-", n);
    else
        buf[0] = '\0';
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* A value under `key` for people: a quantity whose key names its unit (_s, _bytes, _Bps)
 * also in a readable unit, "9.04 y (285228322.4 s)"; others as value_text. */
static void value_human(const char *key, const cJSON *v, char *buf, size_t n)
{
    int dim = !key || !cJSON_IsNumber(v) || !isfinite(v->valuedouble) ? -1
              : ends_with(key, "_s") ? TS_DIM_SECONDS
              : ends_with(key, "_bytes") ? TS_DIM_BYTES
              : ends_with(key, "_Bps") || ends_with(key, "_bytes_per_s") ? TS_DIM_BYTES_PER_S : -1;
    if (dim < 0 || v->valuedouble == 0) {
        value_text(v, buf, n);
        return;
    }
    char q[48];
    ts_quantity_format(v->valuedouble, (enum ts_dim)dim, q, sizeof q);
    snprintf(buf, n, "%s (%.10g)", q, v->valuedouble);
}

/* Any JSON value as nested key / value tables (arrays of objects as rows). */
static void json_table(struct ts_buf *out, const cJSON *o, int depth)
{
    char vb[512];
    if (cJSON_IsArray(o) && cJSON_IsObject(o->child)) {
        /* an array of objects: one row each, the first object's keys as the header */
        ts_buf_printf(out, "<table class=\"rows\"><tr>");
        for (const cJSON *k = o->child->child; k; k = k->next) {
            ts_buf_printf(out, "<th>");
            ts_html_escape(out, k->string);
            ts_buf_printf(out, "</th>");
        }
        ts_buf_printf(out, "</tr>\n");
        for (const cJSON *c = o->child; c; c = c->next) {
            ts_buf_printf(out, "<tr>");
            for (const cJSON *k = o->child->child; k; k = k->next) {
                const cJSON *v = cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, k->string) : NULL;
                ts_buf_printf(out, "<td>");
                if (v && (cJSON_IsObject(v) || cJSON_IsArray(v)) && depth < 6)
                    json_table(out, v, depth + 1);
                else if (v) {
                    value_human(k->string, v, vb, sizeof vb);
                    ts_html_escape(out, vb);
                }
                ts_buf_printf(out, "</td>");
            }
            ts_buf_printf(out, "</tr>\n");
        }
        ts_buf_printf(out, "</table>\n");
        return;
    }
    if (cJSON_IsArray(o)) {
        ts_buf_printf(out, "<ol>");
        for (const cJSON *c = o->child; c; c = c->next) {
            ts_buf_printf(out, "<li>");
            if (cJSON_IsObject(c) || cJSON_IsArray(c))
                json_table(out, c, depth + 1);
            else {
                value_text(c, vb, sizeof vb);
                ts_html_escape(out, vb);
            }
            ts_buf_printf(out, "</li>");
        }
        ts_buf_printf(out, "</ol>");
        return;
    }
    if (!cJSON_IsObject(o)) {
        value_text(o, vb, sizeof vb);
        ts_html_escape(out, vb);
        return;
    }
    ts_buf_printf(out, "<table class=\"kv\">");
    for (const cJSON *c = o->child; c; c = c->next) {
        ts_buf_printf(out, "<tr><th>");
        ts_html_escape(out, c->string);
        ts_buf_printf(out, "</th><td>");
        if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && depth < 6)
            json_table(out, c, depth + 1);
        else {
            value_human(c->string, c, vb, sizeof vb);
            ts_html_escape(out, vb);
        }
        ts_buf_printf(out, "</td></tr>");
    }
    ts_buf_printf(out, "</table>\n");
}

/* ---------------------------------------------------------------- sections */

static void section(struct ts_buf *out, const char *id, const char *title)
{
    ts_buf_printf(out, "<section id=\"%s\"><h2>", id);
    ts_html_escape(out, title);
    ts_buf_printf(out, "</h2>\n");
}

static void question(struct ts_buf *out, const struct ts_html_input *in, const cJSON *job)
{
    section(out, "question", "The question");
    const cJSON *r = in->result;
    if (r && jstr(r, "sweep")) {
        esc_printf(out, "Sweep \"%s\" (%s): which cluster, pricing and layout trains %s on %.4g "
                   "tokens for the least %s, %s, failures included?", jstr(r, "sweep"), in->file,
                   jstr(r, "model") ? jstr(r, "model") : "the model", jnum(r, "tokens"),
                   jstr(r, "objective") && strcmp(jstr(r, "objective"), "time") == 0 ? "time" : "money",
                   jstr(r, "constraint") ? jstr(r, "constraint") : "");
    } else if (job) {
        esc_printf(out, "Job %s: how long does %s on %.0f x %s (%s pricing) take to train on %.4g "
                   "tokens, and what does it cost, failures included?", in->file,
                   jstr(job, "model") ? jstr(job, "model") : "the model", jnum(job, "nodes"),
                   jstr(job, "system") ? jstr(job, "system") : "nodes",
                   jstr(job, "pricing") ? jstr(job, "pricing") : "no", jnum(job, "tokens"));
    } else {
        esc_printf(out, "How does the answer of %s move with its uncertain inputs?", in->file);
    }
    ts_buf_printf(out, "</section>\n");
}

static void answer(struct ts_buf *out, const struct ts_html_input *in, const cJSON *job)
{
    section(out, "answer", "The answer");
    char a[64], b[64], c[64], d[64];
    const cJSON *r = in->result;
    if (r && jstr(r, "sweep") && !job) {
        note(out, jstr(r, "message") ? jstr(r, "message") : "no configuration meets the constraint");
    } else if (job) {
        const cJSON *lay = cJSON_GetObjectItemCaseSensitive(job, "layout");
        ts_buf_printf(out, "<p class=\"answer\">");
        esc_printf(out, "%.0f x %s nodes (%.0f GPUs), %s pricing: expected cost %s (p90 %s), "
                   "expected time %s (p90 %s)", jnum(job, "nodes"),
                   jstr(job, "system") ? jstr(job, "system") : "?", jnum(job, "gpus"),
                   jstr(job, "pricing") ? jstr(job, "pricing") : "no",
                   ts_report_format_usd(jnum(job, "cost_total"), a, sizeof a),
                   ts_report_format_usd(jnum(job, "cost_p90"), b, sizeof b),
                   days(jnum(job, "expected_time_to_train_s"), c, sizeof c),
                   days(jnum(job, "p90_time_to_train_s"), d, sizeof d));
        ts_buf_printf(out, "</p>\n");
        if (lay) {
            ts_buf_printf(out, "<p>");
            esc_printf(out, "Layout: TP %.0f, PP %.0f, DP %.0f, CP %.0f, microbatch %.0f, %s schedule; "
                       "%.4g tokens/s, MFU %.1f%%, iteration %.4g s.", jnum(lay, "tp"), jnum(lay, "pp"),
                       jnum(lay, "dp"), jnum(lay, "cp"), jnum(lay, "microbatch"),
                       jstr(lay, "schedule") ? jstr(lay, "schedule") : "?", jnum(job, "tokens_per_s"),
                       100 * jnum(job, "mfu"), jnum(job, "iteration_time_s"));
            ts_buf_printf(out, "</p>\n");
        }
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(job, "validation");
        if (v) {
            ts_buf_printf(out, "<details><summary>Validation of the prediction</summary>");
            json_table(out, v, 0);
            ts_buf_printf(out, "</details>\n");
        }
    }
    if (in->sens) {
        const struct ts_sens_answer *s = &in->sens->base;
        ts_buf_printf(out, "<p class=\"answer\">");
        esc_printf(out, "Base answer of the sensitivity analysis: %s: cost %s, expected time %s.",
                   s->label, ts_report_format_usd(s->cost_usd, a, sizeof a), days(s->time_s, b, sizeof b));
        ts_buf_printf(out, "</p>\n");
    }
    ts_buf_printf(out, "</section>\n");
}

static void assumptions(struct ts_buf *out, const cJSON *job, const cJSON *result)
{
    section(out, "assumptions", "Assumptions");
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(job ? job : result, "assumptions");
    if (!as && result)
        as = cJSON_GetObjectItemCaseSensitive(result, "assumptions");
    if (as) {
        if (job && jstr(job, "price_source")) {
            ts_buf_printf(out, "<p>");
            esc_printf(out, "Prices: %s", jstr(job, "price_source"));
            ts_buf_printf(out, "</p>\n");
        }
        ts_buf_printf(out, "<div class=\"scroll\">");
        json_table(out, as, 0);
        ts_buf_printf(out, "</div>\n");
    } else {
        note(out, "No assumptions recorded (no run or sweep result in this report).");
    }
    ts_buf_printf(out, "</section>\n");
}

static void bill(struct page *pg, const cJSON *job)
{
    struct ts_buf *out = pg->out;
    section(out, "bill", "The bill and where the GPU-hours went");
    const cJSON *bd = job ? cJSON_GetObjectItemCaseSensitive(job, "cost_breakdown") : NULL;
    const cJSON *gh = job ? cJSON_GetObjectItemCaseSensitive(job, "gpu_hours") : NULL;
    if (!bd && !gh) {
        note(out, "No bill: the job has no cost section, or this report has no answer.");
        ts_buf_printf(out, "</section>\n");
        return;
    }
    char a[64];
    if (bd) {
        double total = jnum(job, "cost_total");
        ts_buf_printf(out, "<table class=\"num\"><tr><th>category</th><th>USD</th><th>share</th></tr>\n");
        for (const cJSON *c = bd->child; c; c = c->next) {
            if (!cJSON_IsNumber(c))
                continue;
            ts_buf_printf(out, "<tr><td>");
            ts_html_escape(out, c->string);
            ts_buf_printf(out, "</td><td>");
            ts_html_escape(out, ts_report_format_usd(c->valuedouble, a, sizeof a));
            ts_buf_printf(out, "</td><td>%.1f%%</td></tr>\n", total > 0 ? 100 * c->valuedouble / total : 0.0);
        }
        ts_buf_printf(out, "<tr><th>total</th><th>");
        ts_html_escape(out, ts_report_format_usd(total, a, sizeof a));
        ts_buf_printf(out, "</th><th></th></tr></table>\n");
    }
    if (gh) {
        struct ts_buf d;
        ts_buf_init(&d);
        int n = 0;
        double billed = jnum(gh, "billed");
        for (const cJSON *c = gh->child; c; c = c->next) {
            if (!cJSON_IsNumber(c) || strcmp(c->string, "billed") == 0)
                continue;
            char l[64];
            plot_label(l, sizeof l, c->string);
            ts_buf_printf(&d, "%d \"%s\" %.17g\n", n++, l, billed > 0 ? 100 * c->valuedouble / billed : 0.0);
        }
        const char *data[] = {d.data};
        char script[1024];
        snprintf(script, sizeof script,
                 "set style fill solid 0.8 border -1\nset boxwidth 0.7\nunset key\n"
                 "set ylabel 'share of GPU-hours billed (%%)'\nset yrange [0:*]\n"
                 "set xtics rotate by -35 nomirror\nset grid ytics\n"
                 "set xrange [-0.6:%d-0.4]\n"
                 "plot '@DIR@/d0.dat' using 1:3:xtic(2) with boxes lc rgb '#3b6ea5' notitle\n", n);
        chart(pg, "attribution", "Where the GPU-hours billed went (share of the total).", script,
              data, 1, 760, 380);
        ts_buf_free(&d);
    }
    ts_buf_printf(out, "</section>\n");
}

static void pareto(struct page *pg, const cJSON *result, const cJSON *job)
{
    struct ts_buf *out = pg->out;
    section(out, "pareto", "The cost / time Pareto front");
    const cJSON *pf = result ? cJSON_GetObjectItemCaseSensitive(result, "pareto") : NULL;
    if (!cJSON_IsArray(pf) || !pf->child) {
        note(out, result && jstr(result, "sweep") ? "The sweep has no Pareto front."
                                                  : "A single job has no Pareto front (run a sweep).");
        ts_buf_printf(out, "</section>\n");
        return;
    }
    struct ts_buf d, b;
    ts_buf_init(&d);
    ts_buf_init(&b);
    int n = 0;
    double tmin = 0, tmax = 0;
    for (const cJSON *c = pf->child; c; c = c->next) {
        double t = jnum(c, "expected_time_to_train_s"), cost = jnum(c, "expected_cost");
        if (!isfinite(t))
            t = jnum(c, "estimated_time_to_train_s");
        if (!isfinite(cost))
            cost = jnum(c, "cost_total");
        if (!isfinite(t) || !isfinite(cost))
            continue;
        char l[128], s[64], p[32];
        plot_label(s, sizeof s, jstr(c, "system") ? jstr(c, "system") : "?");
        plot_label(p, sizeof p, jstr(c, "pricing") ? jstr(c, "pricing") : "");
        snprintf(l, sizeof l, "%.0fx %s %s", jnum(c, "nodes"), s, p);
        ts_buf_printf(&d, "%.17g %.17g \"%s\"\n", t / 86400.0, cost, l);
        tmin = n == 0 || t / 86400.0 < tmin ? t / 86400.0 : tmin;
        tmax = n == 0 || t / 86400.0 > tmax ? t / 86400.0 : tmax;
        n++;
    }
    if (job)
        ts_buf_printf(&b, "%.17g %.17g\n", jnum(job, "expected_time_to_train_s") / 86400.0,
                      jnum(job, "cost_total"));
    if (n == 0) {
        note(out, "The Pareto front has no priced points.");
    } else {
        const char *data[] = {d.data, b.len ? b.data : "\n"};
        char script[1400];
        snprintf(script, sizeof script,
                 "set xlabel 'expected time to train (days, log scale)'\nset ylabel 'expected cost (USD)'\n"
                 "set format y '$%%.0f'\nset logscale x\nset xrange [%.6g:%.6g]\nset grid\nset key top right\n"
                 "set offsets 0, 0, graph 0.2, graph 0.1\n"
                 "plot '@DIR@/d0.dat' using 1:2 with linespoints pt 7 ps 1.2 lc rgb '#3b6ea5' title 'Pareto front', "
                 "'' using 1:2:3 with labels left rotate by 30 offset 0.5,0.8 font 'sans,9' notitle, "
                 "'@DIR@/d1.dat' using 1:2 with points pt 6 ps 3 lw 2 lc rgb '#c0392b' title 'the answer'\n",
                 tmin / 1.5, tmax * 2.5);
        chart(pg, "pareto", "The cheapest way to finish in a given time: every point is a purchase "
              "that no other beats on both cost and time; the ring marks the answer.", script, data,
              2, 760, 420);
    }
    ts_buf_free(&d);
    ts_buf_free(&b);
    ts_buf_printf(out, "</section>\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define COST_BINS 20

/* The bill's distribution over the same replications: a histogram (share of replications
 * per bin of equal width between the cheapest and dearest bill), p50 and p90 marked. */
static void cost_histogram(struct page *pg, const struct ts_html_input *in)
{
    if (!in->bills || in->n_bills < 2) {
        note(pg->out, "No cost distribution: the answer has no cost section.");
        return;
    }
    int n = in->n_bills;
    double *x = ts_xmalloc((size_t)n * sizeof *x);
    memcpy(x, in->bills, (size_t)n * sizeof *x);
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    double lo = x[0], hi = x[n - 1];
    /* All bills equal (no failures drawn): one bin 1% of the bill wide. */
    double width = hi - lo > 1e-9 * fabs(hi) ? (hi - lo) / COST_BINS : fmax(fabs(hi) * 0.01, 1e-6);
    int bins = hi - lo > 1e-9 * fabs(hi) ? COST_BINS : 1;
    int count[COST_BINS] = {0};
    for (int i = 0; i < n; i++) {
        int b = (int)((x[i] - lo) / width);
        count[b < bins ? b : bins - 1]++;
    }
    struct ts_buf d, q;
    ts_buf_init(&d);
    ts_buf_init(&q);
    double top = 0.0;
    for (int b = 0; b < bins; b++) {
        double share = (double)count[b] / n;
        top = fmax(top, share);
        ts_buf_printf(&d, "%.17g %.17g\n", lo + (b + 0.5) * width, share);
    }
    double p50 = ts_stats_percentile_sorted(x, (size_t)n, 0.5),
           p90 = ts_stats_percentile_sorted(x, (size_t)n, 0.9);
    ts_buf_printf(&q, "%.17g %.17g \"p50\"\n%.17g %.17g \"p90\"\n", p50, top * 1.08, p90, top * 1.08);
    char script[1024];
    snprintf(script, sizeof script,
             "set xlabel 'bill of the whole run (USD)'\nset ylabel 'share of replications'\n"
             "set format x '$%%.3s%%c'\nset yrange [0:%.17g]\nset boxwidth %.17g absolute\n"
             "set style fill solid 0.6 border lc rgb '#2e5e8c'\nset grid ytics\nset key top right\n"
             "plot '@DIR@/d0.dat' using 1:2 with boxes lc rgb '#3b6ea5' title 'replications per bin', "
             "'@DIR@/d1.dat' using 1:2 with impulses lw 2 lc rgb '#c0392b' notitle, "
             "'' using 1:2:3 with labels left offset 0.5,0.4 notitle\n",
             top * 1.25, width * 0.9);
    const char *data[] = {d.data, q.data};
    char cap[256], a[48], b[48];
    snprintf(cap, sizeof cap, "Cost distribution of the answer: the bill of each of the %d "
             "replications at its own wall time: p50 %s, p90 %s.", n,
             ts_report_format_usd(p50, a, sizeof a), ts_report_format_usd(p90, b, sizeof b));
    chart(pg, "cost", cap, script, data, 2, 760, 340);
    ts_buf_free(&d);
    ts_buf_free(&q);
    free(x);
}

static void cdf(struct page *pg, const struct ts_html_input *in)
{
    struct ts_buf *out = pg->out;
    section(out, "cdf", "Finish-time and cost distribution");
    if (!in->samples || in->n_samples < 2) {
        note(out, "No Monte Carlo of the whole run in this report (a job without a training "
             "section, or a sensitivity-only report).");
        ts_buf_printf(out, "</section>\n");
        return;
    }
    int n = in->n_samples;
    double *x = ts_xmalloc((size_t)n * sizeof *x);
    memcpy(x, in->samples, (size_t)n * sizeof *x);
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    struct ts_buf d, q;
    ts_buf_init(&d);
    ts_buf_init(&q);
    for (int i = 0; i < n; i++)
        ts_buf_printf(&d, "%.17g %.17g\n", x[i] / 86400.0, (i + 1.0) / n);
    double p50 = ts_stats_percentile_sorted(x, (size_t)n, 0.5),
           p90 = ts_stats_percentile_sorted(x, (size_t)n, 0.9);
    ts_buf_printf(&q, "%.17g 0.5 \"p50\"\n%.17g 0.9 \"p90\"\n", p50 / 86400.0, p90 / 86400.0);
    const char *data[] = {d.data, q.data};
    const char *script =
        "set xlabel 'wall-clock time to train (days)'\nset ylabel 'probability of being done'\n"
        "set yrange [0:1.05]\nset grid\nset key bottom right\n"
        "plot '@DIR@/d0.dat' using 1:2 with steps lw 2 lc rgb '#3b6ea5' title 'Monte Carlo replications', "
        "'@DIR@/d1.dat' using 1:2 with points pt 7 ps 1.2 lc rgb '#c0392b' notitle, "
        "'' using 1:2:3 with labels left offset 1,-0.6 notitle\n";
    char cap[256], a[48], b[48];
    snprintf(cap, sizeof cap, "Finish-time CDF of the answer over %d replications of the whole run "
             "with failures: p50 %s, p90 %s.", n, days(p50, a, sizeof a), days(p90, b, sizeof b));
    chart(pg, "cdf", cap, script, data, 2, 760, 380);
    ts_buf_free(&d);
    ts_buf_free(&q);
    free(x);
    cost_histogram(pg, in);
    ts_buf_printf(out, "</section>\n");
}

static void tornado(struct page *pg, const struct ts_sensitivity *s)
{
    struct ts_buf *out = pg->out;
    section(out, "tornado", "Sensitivity: what moves the answer");
    if (!s) {
        note(out, "No sensitivity analysis in this report (use trainsim sensitivity FILE --report, "
             "or sweep --sensitivity).");
        ts_buf_printf(out, "</section>\n");
        return;
    }
    bool cost = s->objective == TS_OBJECTIVE_COST;
    double base = cost ? s->base.cost_usd : s->base.time_s;
    struct ts_buf d;
    ts_buf_init(&d);
    int n = 0;
    for (int i = 0; i < s->n_rows; i++)
        if (s->rows[i].applicable)
            n++;
    int k = 0;
    for (int i = 0; i < s->n_rows; i++) {
        const struct ts_sens_row *r = &s->rows[i];
        if (!r->applicable)
            continue;
        double lo = cost ? r->at_low.cost_usd : r->at_low.time_s;
        double hi = cost ? r->at_high.cost_usd : r->at_high.time_s;
        double pl = isfinite(lo) && base > 0 ? 100 * (lo / base - 1) : 0;
        double ph = isfinite(hi) && base > 0 ? 100 * (hi / base - 1) : 0;
        /* widest at the top: y = n - 1 - k */
        ts_buf_printf(&d, "%d %.17g %.17g \"%s%s\"\n", n - 1 - k, pl, ph, ts_sens_input_names[r->input],
                      r->answer_changes ? " *" : "");
        k++;
    }
    ts_buf_printf(out, "<table class=\"num\"><tr><th>input</th><th>range</th><th>low</th><th>high</th>"
                  "<th>%s at low</th><th>%s at high</th><th>answer changes?</th></tr>\n",
                  cost ? "cost" : "time", cost ? "cost" : "time");
    char a[64], b[64];
    for (int i = 0; i < s->n_rows; i++) {
        const struct ts_sens_row *r = &s->rows[i];
        if (!r->applicable)
            continue;
        ts_buf_printf(out, "<tr><td>%s</td><td>", ts_sens_input_names[r->input]);
        ts_html_escape(out, r->range);
        ts_buf_printf(out, "</td><td>x%.3g</td><td>x%.3g</td><td>", r->low, r->high);
        if (cost) {
            ts_html_escape(out, ts_report_format_usd(r->at_low.cost_usd, a, sizeof a));
            ts_buf_printf(out, "</td><td>");
            ts_html_escape(out, ts_report_format_usd(r->at_high.cost_usd, b, sizeof b));
        } else {
            ts_html_escape(out, days(r->at_low.time_s, a, sizeof a));
            ts_buf_printf(out, "</td><td>");
            ts_html_escape(out, days(r->at_high.time_s, b, sizeof b));
        }
        ts_buf_printf(out, "</td><td>");
        if (!r->answer_changes)
            ts_buf_printf(out, "no");
        else
            esc_printf(out, "yes: %s / %s", r->at_low.ok ? r->at_low.label : r->at_low.error,
                       r->at_high.ok ? r->at_high.label : r->at_high.error);
        ts_buf_printf(out, "</td></tr>\n");
    }
    ts_buf_printf(out, "</table>\n");
    if (n > 0) {
        char script[1400];
        snprintf(script, sizeof script,
                 "set style fill solid 0.85 border -1\nset key below\nset grid xtics\n"
                 "set xlabel 'change of the %s from the base answer (%%)'\n"
                 "set yrange [-0.7:%d-0.3]\nset ytics nomirror\nset yzeroaxis lt -1\n"
                 "set offsets graph 0.1, graph 0.1, 0, 0\n"
                 "plot '@DIR@/d0.dat' using ($2/2):1:(abs($2)/2):(0.35):ytic(4) with boxxyerror "
                 "lc rgb '#3b6ea5' title 'low end of the range', "
                 "'' using ($3/2):1:(abs($3)/2):(0.35) with boxxyerror lc rgb '#e08e0b' "
                 "title 'high end of the range'\n", cost ? "expected cost" : "expected time", n);
        const char *data[] = {d.data};
        chart(pg, "tornado", "Tornado: each input moved alone over its stated range; * marks an "
              "input whose range changes the answer.", script, data, 1, 760, 110 + 42 * n);
    }
    if (s->n_break_even) {
        ts_buf_printf(out, "<h3>Break-even</h3><ul>\n");
        for (int i = 0; i < s->n_break_even; i++) {
            ts_buf_printf(out, "<li>");
            ts_html_escape(out, s->break_even[i].statement);
            ts_buf_printf(out, "</li>\n");
        }
        ts_buf_printf(out, "</ul>\n");
    }
    ts_buf_printf(out, "</section>\n");
    ts_buf_free(&d);
}

/* Best per system x pricing: the sweep's own table when it has one, else the cheapest (by
 * the objective's figures) among its top and Pareto rows. */
static void best_per_system(struct ts_buf *out, const cJSON *result)
{
    section(out, "best-per-system", "Best per system");
    if (!result || !jstr(result, "sweep")) {
        note(out, "A single job: no systems compared (run a sweep).");
        ts_buf_printf(out, "</section>\n");
        return;
    }
    const cJSON *own = cJSON_GetObjectItemCaseSensitive(result, "best_per_system");
    if (own) {
        json_table(out, own, 0);
        ts_buf_printf(out, "</section>\n");
        return;
    }
    struct row { char system[96], pricing[32]; double cost, time; int nodes; } rows[64];
    int n = 0;
    const char *lists[] = {"top", "pareto"};
    for (int li = 0; li < 2; li++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(result, lists[li]);
        for (const cJSON *c = cJSON_IsArray(arr) ? arr->child : NULL; c; c = c->next) {
            const char *sy = jstr(c, "system"), *pr = jstr(c, "pricing");
            double cost = jnum(c, "expected_cost"), t = jnum(c, "expected_time_to_train_s");
            if (!isfinite(cost))
                cost = jnum(c, "cost_total");
            if (!isfinite(t))
                t = jnum(c, "estimated_time_to_train_s");
            if (!sy || !pr)
                continue;
            int k = 0;
            while (k < n && !(strcmp(rows[k].system, sy) == 0 && strcmp(rows[k].pricing, pr) == 0))
                k++;
            bool better = k == n || (isfinite(cost) && !(rows[k].cost <= cost));
            if (k == n && n == 64)
                continue;
            if (better) {
                ts_strlcpy(rows[k].system, sy, sizeof rows[k].system);
                ts_strlcpy(rows[k].pricing, pr, sizeof rows[k].pricing);
                rows[k].cost = cost;
                rows[k].time = t;
                rows[k].nodes = (int)jnum(c, "nodes");
                if (k == n)
                    n++;
            }
        }
    }
    note(out, "The best of each system and pricing among the sweep's top and Pareto rows.");
    ts_buf_printf(out, "<table class=\"num\"><tr><th>system</th><th>pricing</th><th>nodes</th>"
                  "<th>expected cost</th><th>expected time</th></tr>\n");
    char a[64], b[64];
    for (int k = 0; k < n; k++) {
        ts_buf_printf(out, "<tr><td>");
        ts_html_escape(out, rows[k].system);
        ts_buf_printf(out, "</td><td>");
        ts_html_escape(out, rows[k].pricing);
        ts_buf_printf(out, "</td><td>%d</td><td>", rows[k].nodes);
        ts_html_escape(out, ts_report_format_usd(rows[k].cost, a, sizeof a));
        ts_buf_printf(out, "</td><td>");
        ts_html_escape(out, days(rows[k].time, b, sizeof b));
        ts_buf_printf(out, "</td></tr>\n");
    }
    ts_buf_printf(out, "</table>\n</section>\n");
}

/* At most this many spans are drawn; a larger iteration is drawn up to this many. */
#define HTML_TIMELINE_SPANS_MAX 40000

static void timeline(struct page *pg, const struct ts_trace *tr)
{
    struct ts_buf *out = pg->out;
    section(out, "timeline", "One iteration, stage by stage");
    if (!tr || tr->len == 0) {
        note(out, "No iteration timeline in this report.");
        ts_buf_printf(out, "</section>\n");
        return;
    }
    struct ts_buf d;
    ts_buf_init(&d);
    int stages = 0, drawn = 0;
    for (size_t i = 0; i < tr->len && drawn < HTML_TIMELINE_SPANS_MAX; i++) {
        const struct ts_trace_span *s = &tr->spans[i];
        if (s->stage + 1 > stages)
            stages = s->stage + 1;
        /* rows: per stage, compute above, send and data-parallel below */
        double y = s->stage + (s->track == 0 ? 0.0 : s->track == 1 ? 0.3 : -0.3);
        double h = s->track == 0 ? 0.12 : 0.06;
        int color = s->track == 0 ? (s->kind == TS_TASK_F ? 1 : 2) : s->track == 1 ? 3 : 4;
        double x0 = s->start_s * 1e3, x1 = s->end_s * 1e3;
        ts_buf_printf(&d, "%.9g %.4g %.9g %.4g %d\n", (x0 + x1) / 2, y, (x1 - x0) / 2, h, color);
        drawn++;
    }
    char script[1200];
    snprintf(script, sizeof script,
             "set style fill solid 0.9 noborder\nunset key\nset xlabel 'time in the iteration (ms)'\n"
             "set ylabel 'pipeline stage'\nset yrange [%d-0.5:-0.5]\nset ytics 1\n"
             "set palette defined (1 '#3b6ea5', 2 '#e08e0b', 3 '#2e8b57', 4 '#8e44ad')\n"
             "set cbrange [1:4]\nunset colorbox\n"
             "set label 1 'forward' at graph 0.0, graph 1.06 tc rgb '#3b6ea5'\n"
             "set label 2 'backward' at graph 0.1, graph 1.06 tc rgb '#e08e0b'\n"
             "set label 3 'pipeline send' at graph 0.22, graph 1.06 tc rgb '#2e8b57'\n"
             "set label 4 'data-parallel' at graph 0.38, graph 1.06 tc rgb '#8e44ad'\n"
             "set tmargin 2.5\n"
             "plot '@DIR@/d0.dat' using 1:2:3:4:5 with boxxyerror fc palette notitle\n", stages);
    const char *data[] = {d.data};
    char cap[256];
    snprintf(cap, sizeof cap, "The simulated iteration of the answer: every forward and backward "
             "of every microbatch per stage, with pipeline sends and data-parallel collectives "
             "(%d spans%s).", drawn, (size_t)drawn < tr->len ? ", the first ones" : "");
    chart(pg, "timeline", cap, script, data, 1, 900, 120 + 50 * (stages < 16 ? stages : 16));
    ts_buf_free(&d);
    ts_buf_printf(out, "</section>\n");
}

static const char *const page_style =
    "body{font-family:sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#222}"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.2em .5em;"
    "text-align:left;vertical-align:top}table.num td{font-variant-numeric:tabular-nums}"
    "table.kv table.kv{margin:0}.answer{font-size:1.15em;font-weight:bold}"
    ".note{color:#666;font-style:italic}figure{margin:1em 0}figure svg{max-width:100%;height:auto}"
    "table.kv,table.rows{font-size:.85em}table.rows td{max-width:24em;overflow-wrap:anywhere}"
    ".scroll{overflow-x:auto}figcaption{color:#444;font-size:.9em}#render-check{color:#999;font-size:.8em}";

/* Counts each chart's drawn SVG shapes with a non-empty box; a chart is drawn when it has at
 * least 3 (axes alone are paths too, so data are needed besides). */
static const char *const page_script =
    "(function(){var f=document.querySelectorAll('figure.chart');var drawn=0;var names=[];"
    "for(var i=0;i<f.length;i++){var s=f[i].querySelector('svg');if(!s)continue;"
    "var e=s.querySelectorAll('path,rect,polygon,polyline,circle,line,use');var k=0;"
    "for(var j=0;j<e.length;j++){var b=e[j].getBoundingClientRect();if(b.width>0||b.height>0)k++;}"
    "if(k>=3){drawn++;names.push(f[i].getAttribute('data-chart'));}}"
    "var p=document.getElementById('render-check');p.setAttribute('data-charts',String(f.length));"
    "p.setAttribute('data-drawn',String(drawn));"
    "p.textContent='render check: '+drawn+' of '+f.length+' charts drawn ('+names.join(' ')+')';})();";

void ts_report_html(const struct ts_html_input *in, struct ts_buf *out, int *charts_missing,
                    char *why_missing, size_t n_why)
{
    why_missing[0] = '\0';
    struct page pg = {out, 0, 0, why_missing, n_why};
    const cJSON *r = in->result;
    const cJSON *job = NULL;
    if (r && jstr(r, "sweep")) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "best");
        job = cJSON_IsObject(b) ? b : NULL;
    } else if (r) {
        job = r;
    }
    ts_buf_printf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<title>trainsim report: ");
    ts_html_escape(out, in->file);
    ts_buf_printf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>trainsim %s report: ",
                  page_style, in->command);
    ts_html_escape(out, in->file);
    ts_buf_printf(out, "</h1>\n<p class=\"note\">trainsim %s. One self-contained page: it opens "
                  "from disk with no network. Charts drawn by gnuplot.</p>\n", TS_VERSION);
    question(out, in, job);
    answer(out, in, job);
    assumptions(out, job, r);
    bill(&pg, job);
    pareto(&pg, r, job);
    cdf(&pg, in);
    tornado(&pg, in->sens);
    best_per_system(out, r);
    timeline(&pg, in->trace);
    ts_buf_printf(out, "<p id=\"render-check\">render check: not run (JavaScript off)</p>\n"
                  "<script>%s</script>\n</body>\n</html>\n", page_script);
    *charts_missing = pg.missing;
}
