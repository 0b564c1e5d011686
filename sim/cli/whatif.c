/*
 * The what-if options that `run` and `sweep` share (--set, --explain, --emit), loading their
 * input with the overrides applied, and printing the answer with what those options add.
 * Sweeps over several models, token budgets, precisions, software profiles or constraints
 * (lists in the sweep file) are expanded here into one sweep per combination ("scenarios");
 * with --search-software a software list stays one sweep that searches the profiles.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "search/shard.h"
#include "search/search.h"
#include "spec/spec.h"

int ts_cli_whatif_option(struct ts_cli_whatif *w, const char *cmd, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    bool has_value = *i + 1 < argc;
    if (strcmp(a, "--set") == 0 && has_value) {
        return ts_cli_sets_add(&w->sets, cmd, argv[++*i]) ? -1 : 1;
    }
    if (strncmp(a, "--set=", 6) == 0)
        return ts_cli_sets_add(&w->sets, cmd, a + 6) ? -1 : 1;
    if (strcmp(a, "--explain") == 0) {
        w->explain = true;
        return 1;
    }
    if (strcmp(a, "--emit") == 0 && has_value) {
        const char *what = argv[++*i];
        if (strcmp(what, "megatron") == 0) {
            w->emit_megatron = true;
            return 1;
        }
        if (strcmp(what, "job") == 0 && *i + 1 < argc) {
            w->emit_job = argv[++*i];
            return 1;
        }
        fprintf(stderr, "trainsim %s: --emit: give \"job FILE\" or \"megatron\" (got \"%s\")\n",
                cmd, what);
        return -1;
    }
    return 0;
}

int ts_cli_whatif_check(const struct ts_cli_whatif *w, const char *cmd, const char *file,
                        enum ts_format format)
{
    if (w->explain && format == TS_FORMAT_CSV) {
        fprintf(stderr, "trainsim %s: --explain prints a table or, with --format json, an "
                "\"explain\" key; not CSV\n", cmd);
        return TS_ERR_INPUT;
    }
    if (w->emit_job) {
        const char *others[] = {file, NULL};
        return ts_cli_check_output(cmd, "--emit job", w->emit_job, others);
    }
    return TS_OK;
}

void ts_cli_whatif_free(struct ts_cli_whatif *w)
{
    cJSON_Delete(w->doc);
    for (int i = 0; i < w->n_scenarios; i++)
        cJSON_Delete(w->scenarios[i]);
    free(w->scenarios);
    w->doc = NULL;
    w->scenarios = NULL;
    w->n_scenarios = 0;
}

/* Write a JSON document to a file, as every output is written (atomically). */
static int write_json_file(const char *path, const cJSON *j)
{
    struct ts_buf b;
    ts_buf_init(&b);
    ts_report_json_print(j, &b);
    int rc = ts_cli_emit(&b, path);
    ts_buf_free(&b);
    return rc;
}

/* "defaults applied to FILE (--explain lists them): a, b, c", wrapped to 100 columns. */
static void defaults_line(const char *file, const cJSON *defaults, struct ts_buf *b)
{
    if (cJSON_GetArraySize(defaults) == 0)
        return;
    size_t start = b->len;
    ts_buf_printf(b, "defaults applied to %s (--explain gives the values):", file);
    size_t col = b->len - start;
    for (const cJSON *c = defaults->child; c; c = c->next) {
        const char *k = cJSON_GetObjectItemCaseSensitive(c, "key")->valuestring;
        size_t need = strlen(k) + 2;
        if (col + need > 100) {
            ts_buf_printf(b, "\n   ");
            col = 3;
        }
        ts_buf_printf(b, " %s%s", k, c->next ? "," : "");
        col += need;
    }
    ts_buf_printf(b, "\n");
}

/* Add assumptions.defaults (the defaults a user-supplied file left to trainsim). */
static void add_defaults(cJSON *answer, const cJSON *defaults)
{
    cJSON *as = cJSON_GetObjectItemCaseSensitive(answer, "assumptions");
    if (!as)
        as = cJSON_AddObjectToObject(answer, "assumptions");
    cJSON_AddItemToObject(as, "defaults", cJSON_Duplicate(defaults, 1));
}

/* ---------------------------------------------------------------- run */

int ts_cli_run_load(struct ts_cli_whatif *w, const char *file, struct ts_job *job,
                    struct ts_err *err)
{
    int rc = ts_cli_doc_load(file, &w->sets, &w->doc, err);
    if (rc)
        return rc;
    struct ts_jnode root = ts_jnode_root(w->doc, file);
    rc = ts_job_parse(&root, NULL, job, err);
    ts_cli_sets_note(&w->sets, file, err);
    return rc;
}

int ts_cli_run_answer(const struct ts_cli_whatif *w, const char *file,
                      const struct ts_run_output *out, enum ts_format format)
{
    int rc = TS_OK;
    if (w->emit_job) {
        cJSON *job = ts_cli_emit_run_job(file, w->doc);
        rc = write_json_file(w->emit_job, job);
        cJSON_Delete(job);
        if (rc)
            return rc;
    }
    struct ts_buf buf;
    ts_buf_init(&buf);
    if (w->emit_megatron) {
        ts_cli_emit_megatron(out->job, &buf, stderr);
        rc = ts_cli_emit(&buf, NULL);
        ts_buf_free(&buf);
        return rc;
    }
    cJSON *explain = ts_cli_explain_job(file, w->doc, &w->sets, out->job);
    cJSON *defaults = ts_cli_explain_defaults(explain);
    if (format == TS_FORMAT_TABLE) {
        if (w->explain)
            ts_cli_explain_table(explain, &buf);
        ts_report_run_table(out, &buf);
        defaults_line(file, defaults, &buf);
    } else if (format == TS_FORMAT_CSV) {
        ts_report_run_csv(out, &buf);
    } else {
        cJSON *o = ts_report_run_json(out);
        add_defaults(o, defaults);
        if (w->explain)
            cJSON_AddItemToObject(o, "explain", cJSON_Duplicate(explain, 1));
        ts_report_json_print(o, &buf);
        cJSON_Delete(o);
    }
    cJSON_Delete(explain);
    cJSON_Delete(defaults);
    if (format == TS_FORMAT_TABLE && !ts_report_wide)
        ts_report_wrap_prose(&buf, TS_REPORT_WIDTH);
    rc = ts_cli_emit(&buf, NULL);
    ts_buf_free(&buf);
    return rc;
}

/* ---------------------------------------------------------------- sweep scenarios */

#define SCENARIOS_MAX 256

/* The places where a sweep may list values to compare, one sweep per combination. */
static const char *const list_keys[][2] = {
    {"model", NULL}, {"tokens", NULL}, {"precision", NULL}, {"software", NULL},
    {"constraint", "deadline"}, {"constraint", "min_tokens_per_s"},
};
#define N_LIST_KEYS ((int)TS_ARRAY_LEN(list_keys))
#define LIST_KEY_SOFTWARE 3

/* Whether list key k is expanded into combinations (software: unless searched). */
static bool compared(const struct ts_cli_whatif *w, int k)
{
    return k != LIST_KEY_SOFTWARE || !w->search_software;
}

static cJSON *list_at(cJSON *doc, int k)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, list_keys[k][0]);
    if (v && list_keys[k][1])
        v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, list_keys[k][1]) : NULL;
    return cJSON_IsArray(v) ? v : NULL;
}

static void key_text(int k, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s", list_keys[k][0], list_keys[k][1] ? "." : "",
             list_keys[k][1] ? list_keys[k][1] : "");
}

/* Expand w->doc into w->scenarios. */
static int expand(struct ts_cli_whatif *w, const char *file, struct ts_err *err)
{
    int count[N_LIST_KEYS];
    long total = 1;
    for (int k = 0; k < N_LIST_KEYS; k++) {
        cJSON *l = compared(w, k) ? list_at(w->doc, k) : NULL;
        count[k] = l ? cJSON_GetArraySize(l) : 0;
        char key[64];
        key_text(k, key, sizeof key);
        if (l && count[k] == 0)
            return ts_err_at(err, file, key, "an empty list compares nothing (give one value or "
                             "several)");
        /* The same value twice would answer the same question twice. */
        for (int i = 1; i < count[k]; i++)
            for (int j = 0; j < i; j++)
                if (cJSON_Compare(cJSON_GetArrayItem(l, i), cJSON_GetArrayItem(l, j), true)) {
                    char at[80];
                    snprintf(at, sizeof at, "%s[%d]", key, i);
                    return ts_err_at(err, file, at, "the same value as %s[%d] (each value is "
                                     "compared once: drop one)", key, j);
                }
        if (count[k])
            total *= count[k];
        if (total > SCENARIOS_MAX)
            return ts_err_at(err, file, key, "the lists make more than %d combinations (compare "
                             "fewer values at a time)", SCENARIOS_MAX);
    }
    w->scenarios = ts_xcalloc((size_t)total, sizeof *w->scenarios);
    w->n_scenarios = (int)total;
    for (long s = 0; s < total; s++) {
        cJSON *d = cJSON_Duplicate(w->doc, 1);
        long rest = s;
        /* The last list varies fastest: scenario order is the lists' order, nested. */
        int pick[N_LIST_KEYS];
        for (int k = N_LIST_KEYS - 1; k >= 0; k--) {
            pick[k] = count[k] ? (int)(rest % count[k]) : -1;
            if (count[k])
                rest /= count[k];
        }
        for (int k = 0; k < N_LIST_KEYS; k++) {
            if (pick[k] < 0)
                continue;
            cJSON *l = list_at(d, k);
            cJSON *item = cJSON_Duplicate(cJSON_GetArrayItem(l, pick[k]), 1);
            cJSON *parent = list_keys[k][1] ? cJSON_GetObjectItemCaseSensitive(d, list_keys[k][0]) : d;
            cJSON_ReplaceItemInObjectCaseSensitive(parent, list_keys[k][1] ? list_keys[k][1]
                                                                           : list_keys[k][0], item);
        }
        w->scenarios[s] = d;
    }
    return TS_OK;
}

/* What scenario s fixes: {"model": ..., "tokens": ...} (the listed keys only). */
static cJSON *scenario_json(const struct ts_cli_whatif *w, int s)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; k < N_LIST_KEYS; k++) {
        if (!compared(w, k) || !list_at(w->doc, k))
            continue;
        char key[64];
        key_text(k, key, sizeof key);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(w->scenarios[s], list_keys[k][0]);
        if (list_keys[k][1])
            v = cJSON_GetObjectItemCaseSensitive(v, list_keys[k][1]);
        cJSON_AddItemToObject(o, key, cJSON_Duplicate(v, 1));
    }
    return o;
}

static void scenario_text(const struct ts_cli_whatif *w, int s, char *buf, size_t n)
{
    cJSON *o = scenario_json(w, s);
    size_t used = 0;
    buf[0] = '\0';
    for (const cJSON *c = o->child; c && used < n; c = c->next) {
        char *v = cJSON_IsString(c) ? NULL : cJSON_PrintUnformatted(c);
        const char *shown = v ? v : c->valuestring;
        if (cJSON_IsObject(c)) {   /* an inline profile or model: its name when it has one */
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(c, "name");
            shown = cJSON_IsString(nm) ? nm->valuestring : "(inline object)";
        }
        int wr = snprintf(buf + used, n - used, "%s%s = %s", used ? ", " : "", c->string, shown);
        free(v);
        if (wr < 0)
            break;
        used += (size_t)wr;
    }
    cJSON_Delete(o);
}

int ts_cli_sweep_load(struct ts_cli_whatif *w, const char *file, struct ts_sweep *sw,
                      struct ts_err *err)
{
    int rc = ts_cli_doc_load(file, &w->sets, &w->doc, err);
    if (rc)
        return rc;
    if ((rc = expand(w, file, err)))
        return rc;
    /* Every combination is checked before any work: a bad one must not cost the others. */
    for (int s = w->n_scenarios - 1; s >= 0; s--) {
        if ((rc = ts_sweep_load_doc(file, w->scenarios[s], sw, err))) {
            ts_cli_sets_note(&w->sets, file, err);
            if (w->n_scenarios > 1) {
                char t[512];
                scenario_text(w, s, t, sizeof t);
                size_t used = strlen(err->msg);
                snprintf(err->msg + used, sizeof err->msg - used, " (in the combination %s)", t);
            }
            return rc;
        }
    }
    return TS_OK;
}

/* ---------------------------------------------------------------- sweep answer */

/* The printed answer of one scenario (table or CSV rows, or the JSON object). */
static void sweep_output(const struct ts_cli_whatif *w, const char *file, const cJSON *doc,
                         const struct ts_sweep *sw, const struct ts_sweep_result *res,
                         enum ts_format format, bool explain, struct ts_buf *buf, cJSON **json)
{
    cJSON *ex = ts_cli_explain_sweep(file, doc, &w->sets, sw);
    cJSON *defaults = ts_cli_explain_defaults(ex);
    if (format == TS_FORMAT_TABLE) {
        if (explain)
            ts_cli_explain_table(ex, buf);
        ts_report_sweep_table(sw, res, buf);
        defaults_line(file, defaults, buf);
    } else if (format == TS_FORMAT_CSV) {
        ts_report_sweep_csv(sw, res, buf);
    } else {
        cJSON *o = ts_report_sweep_json(sw, res);
        add_defaults(o, defaults);
        if (explain)
            cJSON_AddItemToObject(o, "explain", cJSON_Duplicate(ex, 1));
        *json = o;
    }
    cJSON_Delete(ex);
    cJSON_Delete(defaults);
}

/* CSV rows of scenario s with a leading "scenario" column (the header once). */
static void csv_with_scenario(const char *csv, int s, struct ts_buf *out)
{
    const char *line = csv;
    bool header = true;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (header) {
            if (s == 0)
                ts_buf_printf(out, "scenario,%.*s\n", (int)len, line);
            header = false;
        } else if (len) {
            ts_buf_printf(out, "%d,%.*s\n", s + 1, (int)len, line);
        }
        line += len + (nl ? 1 : 0);
    }
}

/* The emitted forms of a sweep's answer; exit status. */
static int sweep_emit(const struct ts_cli_whatif *w, const char *file, const cJSON *doc,
                      const struct ts_sweep *sw, const struct ts_sweep_result *res,
                      struct ts_buf *buf)
{
    if (!w->emit_job && !w->emit_megatron)
        return TS_OK;
    if (!res->found) {
        fprintf(stderr, "trainsim sweep: --emit: no configuration meets the constraint: there is "
                "no answer to emit\n");
        return TS_ERR_RUNTIME;
    }
    if (w->emit_megatron)
        ts_cli_emit_megatron(&res->best_job, buf, stderr);
    if (w->emit_job && ts_shard_rank() == 0) {  /* under MPI rank 0 writes the files */
        cJSON *job = ts_cli_emit_sweep_job(file, doc, sw, &res->top[0], &res->best_job);
        int rc = write_json_file(w->emit_job, job);
        cJSON_Delete(job);
        return rc;
    }
    return TS_OK;
}

int ts_cli_sweep_answer(const struct ts_cli_whatif *w, const char *file,
                        const struct ts_sweep *sw, const struct ts_sweep_result *res,
                        const struct ts_sweep_options *opt, int top, enum ts_format format)
{
    struct ts_buf buf;
    ts_buf_init(&buf);
    int rc = TS_OK;
    if (w->n_scenarios <= 1) {
        if (w->emit_megatron) {
            rc = sweep_emit(w, file, w->scenarios[0], sw, res, &buf);
        } else {
            cJSON *json = NULL;
            sweep_output(w, file, w->scenarios[0], sw, res, format, w->explain, &buf, &json);
            if (json) {
                ts_report_json_print(json, &buf);
                cJSON_Delete(json);
            }
            struct ts_buf none;
            ts_buf_init(&none);
            rc = sweep_emit(w, file, w->scenarios[0], sw, res, &none);
            ts_buf_free(&none);
        }
        if (format == TS_FORMAT_TABLE && !w->emit_megatron && !ts_report_wide)
            ts_report_wrap_prose(&buf, TS_REPORT_WIDTH);
        if (rc == TS_OK)
            rc = ts_cli_emit(&buf, NULL);
        ts_buf_free(&buf);
        return rc;
    }

    /* Several combinations: scenario 0 was run by the caller; the others here. */
    cJSON *first = NULL, *all = cJSON_CreateArray();
    struct ts_sweep *swk = ts_xmalloc(sizeof *swk);
    struct ts_sweep_result *rk = ts_xmalloc(sizeof *rk);
    for (int s = 0; s < w->n_scenarios && rc == TS_OK; s++) {
        const struct ts_sweep *cur = sw;
        const struct ts_sweep_result *cres = res;
        if (s > 0) {
            struct ts_err err;
            ts_err_clear(&err);
            if ((rc = ts_sweep_load_doc(file, w->scenarios[s], swk, &err))) {
                fprintf(stderr, "trainsim: %s\n", err.msg);
                break;
            }
            if (top)
                swk->top = top;
            if ((rc = ts_sweep_run(swk, opt, rk, &err))) {
                fprintf(stderr, "trainsim: %s\n", err.msg);
                ts_sweep_result_free(rk);
                break;
            }
            if (rk->interrupted) {
                fprintf(stderr, "\ntrainsim: interrupted in combination %d of %d; a sweep over "
                        "several combinations saves no partial work\n", s + 1, w->n_scenarios);
                ts_sweep_result_free(rk);
                rc = 128 + (opt->stop && *opt->stop ? (int)*opt->stop : 2);
                break;
            }
            cur = swk;
            cres = rk;
        }
        char t[512];
        scenario_text(w, s, t, sizeof t);
        if (format == TS_FORMAT_TABLE && !w->emit_megatron)
            ts_buf_printf(&buf, "%s=== combination %d of %d: %s\n\n", s ? "\n" : "", s + 1,
                          w->n_scenarios, t);
        cJSON *json = NULL;
        struct ts_buf part;
        ts_buf_init(&part);
        if (w->emit_megatron) {
            if (cres->found) {
                ts_buf_printf(&buf, "# combination %d: %s\n", s + 1, t);
                ts_cli_emit_megatron(&cres->best_job, &buf, stderr);
            } else {
                ts_buf_printf(&buf, "# combination %d: %s: no configuration meets the "
                              "constraint\n", s + 1, t);
            }
        } else {
            sweep_output(w, file, w->scenarios[s], cur, cres, format, w->explain && s == 0,
                         &part, &json);
        }
        if (format == TS_FORMAT_CSV && !w->emit_megatron)
            csv_with_scenario(part.data ? part.data : "", s, &buf);
        else if (part.len)
            ts_buf_append(&buf, part.data, part.len);
        ts_buf_free(&part);
        if (json) {
            if (s == 0)
                first = cJSON_Duplicate(json, 1);
            cJSON_AddItemToObject(json, "scenario", scenario_json(w, s));
            cJSON_AddItemToArray(all, json);
        }
        /* --emit job writes the first combination's answer. */
        if (s == 0 && w->emit_job) {
            struct ts_buf none;
            ts_buf_init(&none);
            struct ts_cli_whatif jw = *w;
            jw.emit_megatron = false;
            rc = sweep_emit(&jw, file, w->scenarios[0], cur, cres, &none);
            ts_buf_free(&none);
        }
        if (s > 0)
            ts_sweep_result_free(rk);
    }
    free(rk);
    free(swk);
    if (rc == TS_OK && first) {
        cJSON_AddItemToObject(first, "scenarios", all);
        all = NULL;
        ts_report_json_print(first, &buf);
    }
    cJSON_Delete(first);
    cJSON_Delete(all);
    if (format == TS_FORMAT_TABLE && !w->emit_megatron && !ts_report_wide)
        ts_report_wrap_prose(&buf, TS_REPORT_WIDTH);
    if (rc == TS_OK)
        rc = ts_cli_emit(&buf, NULL);
    ts_buf_free(&buf);
    return rc;
}
