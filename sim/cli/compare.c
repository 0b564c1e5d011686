/*
 * `trainsim compare A.json B.json ...`: jobs side by side. Each job is run exactly as
 * `trainsim run JOB --format json` runs it (the same code, its answer captured), and the
 * answers are lined up key by key: the iteration, memory, the whole run, the bill and the
 * GPU-hour attribution, with each value's relative difference from the first job's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

#define COMPARE_JOBS_MAX 16

void ts_cli_compare_help(FILE *f)
{
    fprintf(f,
            "usage: trainsim compare A.json B.json [C.json ...] [--format table|json|csv]\n"
            "                        [--set PATH=VALUE ...] [--replications N] [--seed S]\n"
            "                        [--threads N] [--all]\n"
            "\n"
            "Run each job file as `trainsim run` does and show them side by side: iteration time,\n"
            "throughput, MFU, memory per GPU, the whole run with failures, the bill by category and\n"
            "the attribution of GPU-hours, with every value's difference from the first job\n"
            "(relative, e.g. +12.5%%). On a terminal the values that differ are bold, and red or\n"
            "green by whether they are worse or better for the buyer where that is clear.\n"
            "\n"
            "options:\n"
            "  --format F     table (default on a terminal), json (default otherwise), csv\n"
            "  --set P=V      override a key in every job (as in trainsim run; repeatable)\n"
            "  --replications N, --seed S, --threads N   passed to each run\n"
            "  --all          also list the rows where every job agrees\n"
            "\n"
            "JSON: {\"jobs\": [file, ...], \"rows\": [{\"key\", \"values\": [...], \"relative\": [...],\n"
            "\"differs\"}], \"runs\": [each job's run answer]}. CSV: key, one column per job, then\n"
            "one relative-difference column per job after the first.\n"
            "\n"
            "examples:\n"
            "  trainsim compare configs/gpt3-175b-a100.json mine.json\n"
            "  trainsim compare a.json b.json --set reliability.rate_scale=2 --format csv\n");
}

/* The keys compared, in this order; objects are expanded into their scalar members. */
static const char *const compare_keys[] = {
    "feasible", "reason", "model", "system", "gpus", "nodes", "global_batch", "precision",
    "software", "pricing", "layout", "iteration_time_s", "tokens_per_s", "mfu", "hfu",
    "model_tflops_per_gpu", "bubble_fraction", "memory_per_gpu_bytes", "memory_capacity_bytes",
    "memory", "time_to_train_s", "expected_time_to_train_s", "p90_time_to_train_s", "goodput",
    "failures_expected", "preemptions_expected", "checkpoint_interval_s", "cost_total", "cost_p90",
    "cost_per_million_tokens", "cost_per_hour", "cost_breakdown", "gpu_hours", "gpu_hours_lost",
    "cost_attribution", "top_waste", NULL,
};

/* Higher is better for these (so a rise shows green); for other numbers lower is better
 * only where it obviously is (times, money, memory, waste). */
static int direction(const char *key)
{
    static const char *const higher[] = {"tokens_per_s", "mfu", "hfu", "model_tflops_per_gpu",
                                         "goodput", "gpu_hours.productive", NULL};
    static const char *const lower_prefix[] = {"iteration_time_s", "memory_per_gpu_bytes",
                                               "time_to_train_s", "expected_time_to_train_s",
                                               "p90_time_to_train_s", "cost_", "bubble_fraction",
                                               "failures_expected", "gpu_hours_lost", NULL};
    for (int i = 0; higher[i]; i++)
        if (strcmp(key, higher[i]) == 0)
            return 1;
    for (int i = 0; lower_prefix[i]; i++)
        if (strncmp(key, lower_prefix[i], strlen(lower_prefix[i])) == 0)
            return -1;
    return 0;
}

/* The scalar at key of run answer j, expanded: "memory.weights" is member weights of memory. */
static void collect_keys(const cJSON *run, cJSON *keys)
{
    for (int i = 0; compare_keys[i]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(run, compare_keys[i]);
        if (!v)
            continue;
        if (cJSON_IsObject(v)) {
            for (const cJSON *c = v->child; c; c = c->next) {
                if (cJSON_IsObject(c) || cJSON_IsArray(c))
                    continue;
                char k[TS_PATH_MAX];
                snprintf(k, sizeof k, "%s.%s", compare_keys[i], c->string);
                bool have = false;
                for (const cJSON *e = keys->child; e && !have; e = e->next)
                    have = strcmp(e->valuestring, k) == 0;
                if (!have)
                    cJSON_AddItemToArray(keys, cJSON_CreateString(k));
            }
        } else if (!cJSON_IsArray(v)) {
            bool have = false;
            for (const cJSON *e = keys->child; e && !have; e = e->next)
                have = strcmp(e->valuestring, compare_keys[i]) == 0;
            if (!have)
                cJSON_AddItemToArray(keys, cJSON_CreateString(compare_keys[i]));
        }
    }
}

static const cJSON *value_at(const cJSON *run, const char *key)
{
    const char *dot = strchr(key, '.');
    if (!dot)
        return cJSON_GetObjectItemCaseSensitive(run, key);
    char top[TS_PATH_MAX];
    snprintf(top, sizeof top, "%.*s", (int)(dot - key), key);
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, top), dot + 1);
}

/* Whether two values agree (numbers exactly, others by their printed form). */
static bool same(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return a == b;
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return a->valuedouble == b->valuedouble;
    return cJSON_Compare(a, b, true);
}

/* The relative difference of b from a (NAN when it has none: not numbers, or a is 0 and b not). */
static double relative(const cJSON *a, const cJSON *b)
{
    if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b))
        return NAN;
    if (a->valuedouble == b->valuedouble)
        return 0.0;
    if (a->valuedouble == 0)
        return NAN;
    return (b->valuedouble - a->valuedouble) / fabs(a->valuedouble);
}

/* A value for people: times, sizes and money with their units; JSON and CSV keep full
 * precision. */
static void value_text(const char *key, const cJSON *v, char *buf, size_t n)
{
    size_t kl = strlen(key);
    bool ends_s = kl > 2 && strcmp(key + kl - 2, "_s") == 0 &&
                  !(kl > 6 && strcmp(key + kl - 6, "_per_s") == 0);
    bool fraction = strcmp(key, "mfu") == 0 || strcmp(key, "hfu") == 0 ||
                    strcmp(key, "goodput") == 0 || strcmp(key, "bubble_fraction") == 0;
    bool bytes = kl > 6 && strcmp(key + kl - 6, "_bytes") == 0;
    bool money = strncmp(key, "cost_", 5) == 0 || strncmp(key, "cost_breakdown.", 15) == 0 ||
                 strncmp(key, "cost_attribution.", 17) == 0;
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && (ends_s || bytes)) {
        ts_quantity_format(v->valuedouble, ends_s ? TS_DIM_SECONDS : TS_DIM_BYTES, buf, n);
        return;
    }
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && money) {
        if (fabs(v->valuedouble) < 100)
            snprintf(buf, n, "$%.2f", v->valuedouble);
        else
            ts_report_format_usd(v->valuedouble, buf, n);
        return;
    }
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && fraction) {
        snprintf(buf, n, "%.2f%%", 100 * v->valuedouble);
        return;
    }
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && fabs(v->valuedouble) >= 1e4) {
        double x = fabs(v->valuedouble);
        const char *unit = x >= 1e12 ? "T" : x >= 1e9 ? "G" : x >= 1e6 ? "M" : "k";
        double div = x >= 1e12 ? 1e12 : x >= 1e9 ? 1e9 : x >= 1e6 ? 1e6 : 1e3;
        snprintf(buf, n, "%.4g %s", v->valuedouble / div, unit);
        return;
    }
    if (!v || cJSON_IsNull(v))
        snprintf(buf, n, "-");
    else if (cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    else if (cJSON_IsBool(v))
        snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsNumber(v))
        snprintf(buf, n, "%.5g", v->valuedouble);
    else
        snprintf(buf, n, "?");
}

/* Run job `file` through `trainsim run`, its JSON answer into *out. Exit status. */
static int run_one(const char *file, char **pass, int n_pass, cJSON **out)
{
    char **argv = ts_xcalloc((size_t)n_pass + 5, sizeof *argv);
    int argc = 0;
    argv[argc++] = (char *)"run";
    argv[argc++] = (char *)file;
    argv[argc++] = (char *)"--format";
    argv[argc++] = (char *)"json";
    for (int i = 0; i < n_pass; i++)
        argv[argc++] = pass[i];
    struct ts_buf cap;
    ts_buf_init(&cap);
    ts_cli_capture_stdout(&cap);
    int rc = ts_cli_run(argc, argv);
    ts_cli_capture_stdout(NULL);
    free(argv);
    if (rc == TS_OK) {
        struct ts_err err;
        if (ts_json_parse(cap.data ? cap.data : "", cap.len, file, out, &err) != TS_OK) {
            fprintf(stderr, "trainsim compare: %s\n", err.msg);
            rc = TS_ERR_RUNTIME;
        }
    }
    ts_buf_free(&cap);
    return rc;
}

int ts_cli_compare(int argc, char **argv)
{
    const char *files[COMPARE_JOBS_MAX];
    int n = 0;
    char **pass = ts_xcalloc((size_t)argc + 1, sizeof *pass);
    int n_pass = 0;
    enum ts_format format = ts_cli_default_format();
    bool all = false;
    int rc = TS_OK;
    struct ts_cli_sets sets = {0};
    for (int i = 1; i < argc && rc == TS_OK; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--format") == 0 && has_value) {
            if (ts_cli_parse_format(argv[++i], &format))
                rc = TS_ERR_INPUT;
        } else if (strcmp(a, "--all") == 0) {
            all = true;
        } else if ((strcmp(a, "--set") == 0 || strcmp(a, "--replications") == 0 ||
                    strcmp(a, "--seed") == 0 || strcmp(a, "--threads") == 0) && has_value) {
            if (strcmp(a, "--set") == 0 && ts_cli_sets_add(&sets, "compare", argv[i + 1]))
                rc = TS_ERR_INPUT;
            pass[n_pass++] = argv[i];
            pass[n_pass++] = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "trainsim compare: unknown option or missing value: %s (see trainsim "
                    "compare --help)\n", a);
            rc = TS_ERR_INPUT;
        } else if (n >= COMPARE_JOBS_MAX) {
            fprintf(stderr, "trainsim compare: at most %d jobs at a time\n", COMPARE_JOBS_MAX);
            rc = TS_ERR_INPUT;
        } else {
            files[n++] = a;
        }
    }
    if (rc == TS_OK && n < 2) {
        fprintf(stderr, "trainsim compare: give two or more job files (see trainsim compare "
                "--help)\n");
        rc = TS_ERR_INPUT;
    }
    cJSON *runs[COMPARE_JOBS_MAX] = {NULL};
    for (int j = 0; j < n && rc == TS_OK; j++)
        rc = run_one(files[j], pass, n_pass, &runs[j]);
    free(pass);
    if (rc != TS_OK) {
        for (int j = 0; j < n; j++)
            cJSON_Delete(runs[j]);
        return rc;
    }

    cJSON *keys = cJSON_CreateArray();
    for (int j = 0; j < n; j++)
        collect_keys(runs[j], keys);
    cJSON *rows = cJSON_CreateArray();
    int differing = 0;
    for (const cJSON *k = keys->child; k; k = k->next) {
        const cJSON *first = value_at(runs[0], k->valuestring);
        bool differs = false;
        for (int j = 1; j < n; j++)
            differs |= !same(first, value_at(runs[j], k->valuestring));
        differing += differs;
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "key", k->valuestring);
        cJSON *vals = cJSON_AddArrayToObject(row, "values");
        cJSON *rel = cJSON_AddArrayToObject(row, "relative");
        for (int j = 0; j < n; j++) {
            const cJSON *v = value_at(runs[j], k->valuestring);
            cJSON_AddItemToArray(vals, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
            double r = relative(first, v);
            cJSON_AddItemToArray(rel, isfinite(r) ? cJSON_CreateNumber(r) : cJSON_CreateNull());
        }
        cJSON_AddBoolToObject(row, "differs", differs);
        cJSON_AddItemToArray(rows, row);
    }

    struct ts_buf b;
    ts_buf_init(&b);
    if (format == TS_FORMAT_JSON) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "trainsim_version", TS_VERSION);
        cJSON *jf = cJSON_AddArrayToObject(o, "jobs");
        for (int j = 0; j < n; j++)
            cJSON_AddItemToArray(jf, cJSON_CreateString(files[j]));
        cJSON_AddNumberToObject(o, "differences", differing);
        cJSON_AddItemToObject(o, "rows", rows);
        rows = NULL;
        cJSON *jr = cJSON_AddArrayToObject(o, "runs");
        for (int j = 0; j < n; j++) {
            cJSON_AddItemToArray(jr, runs[j]);
            runs[j] = NULL;
        }
        ts_report_json_print(o, &b);
        cJSON_Delete(o);
    } else if (format == TS_FORMAT_CSV) {
        /* One dialect with the other CSV outputs: a header, then one row per key; text
         * quoted only where it must be (RFC 4180). */
        ts_buf_printf(&b, "key");
        for (int j = 0; j < n; j++)
            ts_buf_printf(&b, ",job%d", j + 1);
        for (int j = 1; j < n; j++)
            ts_buf_printf(&b, ",relative%d", j + 1);
        ts_buf_printf(&b, ",differs\n");
        for (const cJSON *r = rows->child; r; r = r->next) {
            ts_buf_printf(&b, "%s", cJSON_GetObjectItemCaseSensitive(r, "key")->valuestring);
            const cJSON *vals = cJSON_GetObjectItemCaseSensitive(r, "values");
            for (const cJSON *v = vals->child; v; v = v->next) {
                if (cJSON_IsNumber(v)) {
                    char d[40];
                    ts_json_format_double(v->valuedouble, d, sizeof d);
                    ts_buf_printf(&b, ",%s", d);
                } else if (cJSON_IsString(v)) {
                    const char *s = v->valuestring;
                    if (strpbrk(s, ",\"\n")) {
                        ts_buf_printf(&b, ",\"");
                        for (; *s; s++)
                            ts_buf_printf(&b, *s == '"' ? "\"\"" : "%c", *s);
                        ts_buf_printf(&b, "\"");
                    } else {
                        ts_buf_printf(&b, ",%s", s);
                    }
                } else if (cJSON_IsBool(v)) {
                    ts_buf_printf(&b, ",%s", cJSON_IsTrue(v) ? "true" : "false");
                } else {
                    ts_buf_printf(&b, ",");
                }
            }
            const cJSON *rel = cJSON_GetObjectItemCaseSensitive(r, "relative");
            for (const cJSON *v = rel->child ? rel->child->next : NULL; v; v = v->next) {
                char d[40] = "";
                if (cJSON_IsNumber(v))
                    ts_json_format_double(v->valuedouble, d, sizeof d);
                ts_buf_printf(&b, ",%s", d);
            }
            ts_buf_printf(&b, ",%s\n",
                          cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "differs")) ? "true"
                                                                                       : "false");
        }
    } else {
        bool tty = isatty(STDOUT_FILENO);
        ts_buf_printf(&b, "trainsim compare: %d jobs, %d of %d values differ from the first "
                      "(%s)\n\n", n, differing, cJSON_GetArraySize(keys), files[0]);
        /* Columns: key, then per job its value and (after the first) its difference. */
        ts_buf_printf(&b, "  %-34s", "");
        for (int j = 0; j < n; j++) {
            const char *f = strrchr(files[j], '/');
            f = f ? f + 1 : files[j];
            ts_buf_printf(&b, " %*.*s", j ? 22 : 14, j ? 22 : 14, f);
        }
        ts_buf_printf(&b, "\n");
        for (const cJSON *r = rows->child; r; r = r->next) {
            bool differs = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "differs"));
            if (!differs && !all)
                continue;
            const char *key = cJSON_GetObjectItemCaseSensitive(r, "key")->valuestring;
            ts_buf_printf(&b, "  %-34.34s", key);
            const cJSON *vals = cJSON_GetObjectItemCaseSensitive(r, "values");
            const cJSON *rel = cJSON_GetObjectItemCaseSensitive(r, "relative");
            int j = 0;
            for (const cJSON *v = vals->child; v; v = v->next, j++) {
                char t[64], d[24] = "";
                value_text(key, v, t, sizeof t);
                const cJSON *rv = cJSON_GetArrayItem(rel, j);
                bool diff = j > 0 && !same(vals->child, v);
                if (j > 0 && cJSON_IsNumber(rv) && rv->valuedouble != 0)
                    snprintf(d, sizeof d, "%+.1f%%", 100 * rv->valuedouble);
                else if (diff)
                    snprintf(d, sizeof d, "differs");
                const char *on = "", *off = "";
                if (tty && diff) {
                    int dir = direction(key);
                    double x = cJSON_IsNumber(rv) ? rv->valuedouble : 0;
                    on = dir * x > 0 ? "\033[1;32m" : dir * x < 0 ? "\033[1;31m" : "\033[1m";
                    off = "\033[0m";
                }
                if (j == 0)
                    ts_buf_printf(&b, " %14.14s", t);
                else
                    ts_buf_printf(&b, " %s%12.12s %9s%s", on, t, d, off);
            }
            ts_buf_printf(&b, "\n");
        }
        if (differing == 0)
            ts_buf_printf(&b, "  (no differences)\n");
    }
    rc = ts_cli_emit(&b, NULL);
    ts_buf_free(&b);
    cJSON_Delete(rows);
    cJSON_Delete(keys);
    for (int j = 0; j < n; j++)
        cJSON_Delete(runs[j]);
    return rc;
}
