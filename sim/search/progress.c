/*
 * Partial files of interrupted sweeps: the finished work (struct ts_sweep_progress) as JSON,
 * and back. One entry per line:
 *
 *   {"trainsim_partial_sweep": 1, "trainsim_version": "0.1.0",
 *    "sweep": "configs/x.json", "fingerprint": "8c7d...", "pricing": ["on_demand"],
 *    "rejected_deadline_probability": 0,
 *    "layout_fields": [...], "outcome_fields": [...],
 *    "evaluated": [
 *      {"layout": 17, "at": [0, 4, 512, 2, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], "outcomes": [[...]]},
 *      ...]}
 *
 * Doubles are written so that they read back to the same bits (ts_json_format_double);
 * infinities and NaN as the strings "inf", "-inf", "nan". The layout itself is stored next to
 * its index so that a resumed run can check that it enumerates the same layouts.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"

#define PARTIAL_FORMAT 1

/* ---------------------------------------------------------------- fields */

static const char *const layout_fields[] = {
    "system", "nodes", "global_batch", "tp", "pp", "cp", "microbatch", "schedule",
    "virtual_stages", "sequence_parallel", "recompute", "zero", "tp_comm_overlap", "software",
};
#define N_LAYOUT_FIELDS ((int)TS_ARRAY_LEN(layout_fields))

static void layout_get(const struct ts_layout *l, long v[N_LAYOUT_FIELDS])
{
    long x[] = {l->system, l->nodes, l->global_batch, l->tp, l->pp, l->cp, l->microbatch,
                l->schedule, l->virtual_stages, l->sp, l->recompute, l->zero, l->tp_overlap, l->software};
    _Static_assert(TS_ARRAY_LEN(x) == TS_ARRAY_LEN(layout_fields), "layout fields");
    memcpy(v, x, sizeof x);
}

static void layout_set(struct ts_layout *l, const long v[N_LAYOUT_FIELDS])
{
    memset(l, 0, sizeof *l);
    l->system = (uint8_t)v[0];
    l->nodes = (int32_t)v[1];
    l->global_batch = (int32_t)v[2];
    l->tp = (int32_t)v[3];
    l->pp = (int32_t)v[4];
    l->cp = (int32_t)v[5];
    l->microbatch = (int32_t)v[6];
    l->schedule = (uint8_t)v[7];
    l->virtual_stages = (uint8_t)v[8];
    l->sp = (uint8_t)v[9];
    l->recompute = (uint8_t)v[10];
    l->zero = (uint8_t)v[11];
    l->tp_overlap = (uint8_t)v[12];
    l->software = (uint8_t)v[13];
}

/* The outcome's doubles, by name and offset; the flags come first in each row. */
struct dfield {
    const char *name;
    size_t offset;
};

static const struct dfield outcome_doubles[] = {
    {"iteration_s", offsetof(struct ts_outcome, iteration_s)},
    {"tokens_per_s", offsetof(struct ts_outcome, tokens_per_s)},
    {"mfu", offsetof(struct ts_outcome, mfu)},
    {"time_s", offsetof(struct ts_outcome, time_s)},
    {"cost_usd", offsetof(struct ts_outcome, cost_usd)},
    {"objective", offsetof(struct ts_outcome, objective)},
    {"memory_bytes", offsetof(struct ts_outcome, memory_bytes)},
    {"mc_time_mean_s", offsetof(struct ts_outcome, mc_time_mean_s)},
    {"mc_time_p90_s", offsetof(struct ts_outcome, mc_time_p90_s)},
    {"mc_cost_mean_usd", offsetof(struct ts_outcome, mc_cost_mean_usd)},
    {"mc_cost_p90_usd", offsetof(struct ts_outcome, mc_cost_p90_usd)},
    {"goodput", offsetof(struct ts_outcome, goodput)},
};
#define N_FLAGS 4   /* pricing, meets, monte_carlo, mc_failed */
static const char *const flag_fields[N_FLAGS] = {"pricing", "meets", "monte_carlo", "mc_failed"};
#define N_OUTCOME_FIELDS (N_FLAGS + (int)TS_ARRAY_LEN(outcome_doubles))

static double *dfield_at(struct ts_outcome *o, int i)
{
    return (double *)((char *)o + outcome_doubles[i].offset);
}

/* ---------------------------------------------------------------- writing */

static void put_double(struct ts_buf *b, double v)
{
    if (isnan(v)) {
        ts_buf_printf(b, "\"nan\"");
    } else if (isinf(v)) {
        ts_buf_printf(b, v > 0 ? "\"inf\"" : "\"-inf\"");
    } else {
        char num[64];
        ts_json_format_double(v, num, sizeof num);
        ts_buf_printf(b, "%s", num);
    }
}

static void put_string(struct ts_buf *b, const char *s)
{
    cJSON *j = cJSON_CreateString(s);
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    TS_ASSERT(text != NULL, "out of memory");
    ts_buf_printf(b, "%s", text);
    cJSON_free(text);
    cJSON_Delete(j);
}

static void put_names(struct ts_buf *b, const char *key, const char *const *names, int n,
                      const char *const *more, int n_more)
{
    ts_buf_printf(b, "  \"%s\": [", key);
    for (int i = 0; i < n + n_more; i++)
        ts_buf_printf(b, "%s\"%s\"", i ? ", " : "", i < n ? names[i] : more[i - n]);
    ts_buf_printf(b, "],\n");
}

int ts_sweep_progress_write(const char *path, const struct ts_sweep *sw,
                            const struct ts_sweep_progress *p, struct ts_err *err)
{
    int np = sw->n_pricing;
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "{\n  \"trainsim_partial_sweep\": %d,\n  \"trainsim_version\": \"%s\",\n",
                  PARTIAL_FORMAT, TS_VERSION);
    ts_buf_printf(&b, "  \"note\": \"finished work of an interrupted sweep; continue it with: "
                      "trainsim sweep SWEEP --resume THIS_FILE\",\n  \"sweep\": ");
    put_string(&b, sw->file);
    ts_buf_printf(&b, ",\n  \"fingerprint\": \"%016llx\",\n  \"pricing\": [",
                  (unsigned long long)sw->fingerprint);
    for (int q = 0; q < np; q++)
        ts_buf_printf(&b, "%s\"%s\"", q ? ", " : "", ts_pricing_names[sw->pricing[q]]);
    ts_buf_printf(&b, "],\n  \"rejected_deadline_probability\": %ld,\n", p->rejected_deadline_p);
    put_names(&b, "layout_fields", layout_fields, N_LAYOUT_FIELDS, NULL, 0);
    const char *dnames[TS_ARRAY_LEN(outcome_doubles)];
    for (size_t i = 0; i < TS_ARRAY_LEN(outcome_doubles); i++)
        dnames[i] = outcome_doubles[i].name;
    put_names(&b, "outcome_fields", flag_fields, N_FLAGS, dnames, (int)TS_ARRAY_LEN(dnames));
    ts_buf_printf(&b, "  \"evaluated\": [");
    for (long j = 0; j < p->n; j++) {
        long lv[N_LAYOUT_FIELDS];
        layout_get(&p->outcomes[j * np].layout, lv);
        ts_buf_printf(&b, "%s\n    {\"layout\": %ld, \"at\": [", j ? "," : "", p->layout[j]);
        for (int i = 0; i < N_LAYOUT_FIELDS; i++)
            ts_buf_printf(&b, "%s%ld", i ? ", " : "", lv[i]);
        ts_buf_printf(&b, "], \"outcomes\": [");
        for (int q = 0; q < np; q++) {
            struct ts_outcome o = p->outcomes[j * np + q];
            ts_buf_printf(&b, "%s[\"%s\", %s, %s, %s", q ? ", " : "",
                          ts_pricing_names[o.pricing % TS_PRICING_COUNT],
                          o.meets ? "true" : "false", o.monte_carlo ? "true" : "false",
                          p->mc_failed[j * np + q] ? "true" : "false");
            for (size_t i = 0; i < TS_ARRAY_LEN(outcome_doubles); i++) {
                ts_buf_printf(&b, ", ");
                put_double(&b, *dfield_at(&o, (int)i));
            }
            ts_buf_printf(&b, "]");
        }
        ts_buf_printf(&b, "]}");
    }
    ts_buf_printf(&b, "\n  ]\n}\n");
    int rc = ts_file_write_atomic(path, b.data, b.len, err);
    ts_buf_free(&b);
    return rc;
}

/* ---------------------------------------------------------------- reading */

static int bad(const char *path, const char *what, long j, struct ts_err *err)
{
    if (j >= 0)
        return ts_err_set(err, TS_ERR_INPUT, "%s: evaluated[%ld]: %s; not a partial sweep file "
                          "written by trainsim sweep", path, j, what);
    return ts_err_set(err, TS_ERR_INPUT, "%s: %s; not a partial sweep file written by trainsim "
                      "sweep", path, what);
}

static bool get_double(const cJSON *j, double *out)
{
    if (cJSON_IsNumber(j)) {
        *out = j->valuedouble;
        return true;
    }
    if (!cJSON_IsString(j))
        return false;
    if (strcmp(j->valuestring, "inf") == 0)
        *out = INFINITY;
    else if (strcmp(j->valuestring, "-inf") == 0)
        *out = -INFINITY;
    else if (strcmp(j->valuestring, "nan") == 0)
        *out = NAN;
    else
        return false;
    return true;
}

static bool get_long(const cJSON *j, long lo, long hi, long *out)
{
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= (double)lo && j->valuedouble <= (double)hi) ||
        j->valuedouble != floor(j->valuedouble))
        return false;
    *out = (long)j->valuedouble;
    return true;
}

/* One outcome row: flags, then the doubles. */
static bool get_outcome(const cJSON *row, const struct ts_sweep *sw, int q, struct ts_outcome *o,
                        uint8_t *mc_failed)
{
    if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != N_OUTCOME_FIELDS)
        return false;
    const cJSON *c = row->child;
    if (!cJSON_IsString(c) || strcmp(c->valuestring, ts_pricing_names[sw->pricing[q]]) != 0)
        return false;
    o->pricing = (uint8_t)sw->pricing[q];
    c = c->next;
    bool flags[N_FLAGS - 1];
    for (int i = 0; i < N_FLAGS - 1; i++, c = c->next) {
        if (!cJSON_IsBool(c))
            return false;
        flags[i] = cJSON_IsTrue(c);
    }
    o->meets = flags[0];
    o->monte_carlo = flags[1];
    *mc_failed = flags[2];
    for (size_t i = 0; i < TS_ARRAY_LEN(outcome_doubles); i++, c = c->next)
        if (!get_double(c, dfield_at(o, (int)i)))
            return false;
    return true;
}

int ts_sweep_progress_load(const char *path, const struct ts_sweep *sw,
                           struct ts_sweep_progress *out, struct ts_err *err)
{
    memset(out, 0, sizeof *out);
    cJSON *doc;
    int rc = ts_json_load(path, &doc, err);
    if (rc)
        return rc;
    int np = sw->n_pricing;
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(doc, "trainsim_partial_sweep");
    const cJSON *fp = cJSON_GetObjectItemCaseSensitive(doc, "fingerprint");
    const cJSON *rej = cJSON_GetObjectItemCaseSensitive(doc, "rejected_deadline_probability");
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(doc, "evaluated");
    char want[32];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)sw->fingerprint);
    long n = 0;
    if (!cJSON_IsObject(doc) || !cJSON_IsNumber(format)) {
        rc = bad(path, "no \"trainsim_partial_sweep\" marker", -1, err);
    } else if (format->valuedouble != PARTIAL_FORMAT) {
        rc = ts_err_set(err, TS_ERR_INPUT, "%s: partial file format %g; this trainsim reads "
                        "format %d: run the sweep again without --resume", path,
                        format->valuedouble, PARTIAL_FORMAT);
    } else if (!cJSON_IsString(fp)) {
        rc = bad(path, "no fingerprint", -1, err);
    } else if (strcmp(fp->valuestring, want) != 0) {
        rc = ts_err_set(err, TS_ERR_INPUT, "%s: written for another version of %s (fingerprint "
                        "%.20s, the file now has %s): the sweep changed since it was interrupted; "
                        "run it again without --resume", path, sw->file, fp->valuestring, want);
    } else if (!get_long(rej, 0, 1L << 40, &out->rejected_deadline_p) || !cJSON_IsArray(ev)) {
        rc = bad(path, "no \"evaluated\" list", -1, err);
    } else {
        n = cJSON_GetArraySize(ev);
        out->layout = ts_xmalloc((size_t)(n ? n : 1) * sizeof *out->layout);
        out->outcomes = ts_xcalloc((size_t)(n ? n : 1) * np, sizeof *out->outcomes);
        out->mc_failed = ts_xcalloc((size_t)(n ? n : 1) * np, 1);
    }
    long j = 0;
    for (const cJSON *e = rc ? NULL : ev->child; e && rc == TS_OK; e = e->next, j++) {
        const cJSON *li = cJSON_GetObjectItemCaseSensitive(e, "layout");
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(e, "at");
        const cJSON *oc = cJSON_GetObjectItemCaseSensitive(e, "outcomes");
        long lv[N_LAYOUT_FIELDS];
        bool ok = get_long(li, 0, 1L << 40, &out->layout[j]) && cJSON_IsArray(at) &&
                  cJSON_GetArraySize(at) == N_LAYOUT_FIELDS && cJSON_IsArray(oc) &&
                  cJSON_GetArraySize(oc) == np;
        for (int i = 0; ok && i < N_LAYOUT_FIELDS; i++)
            ok = get_long(cJSON_GetArrayItem(at, i), 0, i == 0 || i >= 7 ? 255 : 1L << 30, &lv[i]);
        struct ts_layout l;
        if (ok)
            layout_set(&l, lv);
        for (int q = 0; ok && q < np; q++) {
            struct ts_outcome *o = &out->outcomes[j * np + q];
            ok = get_outcome(cJSON_GetArrayItem(oc, q), sw, q, o, &out->mc_failed[j * np + q]);
            o->layout = l;
        }
        if (!ok)
            rc = bad(path, "malformed entry", j, err);
    }
    out->n = j;
    cJSON_Delete(doc);
    if (rc)
        ts_sweep_progress_free(out);
    return rc;
}
