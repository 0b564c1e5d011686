/*
 * Partial files of interrupted sweeps: the finished work (struct ts_sweep_progress) as JSON,
 * and back. One entry per line:
 *
 *   {"trainsim_partial_sweep": 2, "trainsim_version": "0.1.0", "note": "...",
 *    "sweep": "configs/x.json", "fingerprint": "8c7d...",
 *    "inputs": [{"file": "configs/x.json", "fnv1a64": "..."}, ...],
 *    "pricing": ["on_demand"], "simulated": 512, "rejected_deadline_probability": 0,
 *    "layout_fields": [...], "outcome_fields": [...],
 *    "evaluated": [
 *      {"layout": 17, "at": [0, 4, 512, 2, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], "outcomes": [[...]]},
 *      ...],
 *    "checksum": "fnv1a64:..."}
 *
 * Doubles are written so that they read back to the same bits (ts_json_format_double); the
 * one value that is not a finite number, the cost of an unpriced configuration (+infinity),
 * is written as null (the file holds no "inf" or "nan"). The layout
 * itself is stored next to its index so that a resumed run can check that it enumerates the
 * same layouts.
 *
 * A partial file is trusted only after four checks, each with its own message:
 *   1. it is a complete JSON text marked as a partial file of this format and version;
 *   2. the checksum: FNV-1a 64 of the content as values (partial_checksum: fingerprint,
 *      pricing, counters, every layout and outcome with its doubles' bits), so an edited or
 *      damaged value is caught whatever its spelling;
 *   3. the fingerprint: the sweep and every file it resolves are what they were (search.h);
 *   4. the values themselves (check_outcome, check_counters), in case someone recomputed the
 *      checksum: times and sizes finite and positive, costs not negative, no NaN, the
 *      objective equal to its metric, the flags and counters consistent with each other. A
 *      NaN or a negative objective would defeat the pruning of the resumed search.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"

#define PARTIAL_FORMAT 2   /* 2: inputs, simulated, checksum */

/* ---------------------------------------------------------------- fields */

static const char *const layout_fields[] = {
    "system", "nodes", "global_batch", "tp", "pp", "cp", "microbatch", "schedule",
    "virtual_stages", "sequence_parallel", "recompute", "zero", "tp_comm_overlap", "software",
    "ep", "etp",
};
#define N_LAYOUT_FIELDS ((int)TS_ARRAY_LEN(layout_fields))

static void layout_get(const struct ts_layout *l, long v[N_LAYOUT_FIELDS])
{
    long x[] = {l->system, l->nodes, l->global_batch, l->tp, l->pp, l->cp, l->microbatch,
                l->schedule, l->virtual_stages, l->sp, l->recompute, l->zero, l->tp_overlap, l->software,
                l->ep, l->etp};
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
    l->ep = (uint16_t)v[14];
    l->etp = (uint16_t)v[15];
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
    {"mc_rank", offsetof(struct ts_outcome, mc_rank)},
    {"commit_nodes", offsetof(struct ts_outcome, commit_nodes)},
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
    /* Only +infinity is a valid outcome value that is not finite; anything else would be
     * refused when read back (a forged or broken file: the tests write such files). */
    if (isnan(v)) {
        ts_buf_printf(b, "\"not a number\"");
    } else if (isinf(v)) {
        ts_buf_printf(b, v > 0 ? "null" : "\"negative infinity\"");
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

/* ---------------------------------------------------------------- checksum */

static uint64_t hash_double(uint64_t h, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return ts_fnv1a64_u64(h, bits);
}

/* FNV-1a 64 of the content as values, in file order. */
static uint64_t partial_checksum(uint64_t fingerprint, const struct ts_sweep *sw, long simulated,
                                 const struct ts_sweep_progress *p)
{
    int np = sw->n_pricing;
    uint64_t h = ts_fnv1a64_u64(TS_FNV1A64_INIT, PARTIAL_FORMAT);
    h = ts_fnv1a64_u64(h, fingerprint);
    h = ts_fnv1a64_u64(h, (uint64_t)np);
    for (int q = 0; q < np; q++)
        h = ts_fnv1a64_u64(h, (uint64_t)sw->pricing[q]);
    h = ts_fnv1a64_u64(h, (uint64_t)simulated);
    h = ts_fnv1a64_u64(h, (uint64_t)p->rejected_deadline_p);
    h = ts_fnv1a64_u64(h, (uint64_t)p->n);
    for (long j = 0; j < p->n; j++) {
        h = ts_fnv1a64_u64(h, (uint64_t)p->layout[j]);
        long lv[N_LAYOUT_FIELDS];
        layout_get(&p->outcomes[j * np].layout, lv);
        for (int i = 0; i < N_LAYOUT_FIELDS; i++)
            h = ts_fnv1a64_u64(h, (uint64_t)lv[i]);
        for (int q = 0; q < np; q++) {
            const struct ts_outcome *o = &p->outcomes[j * np + q];
            h = ts_fnv1a64_u64(h, o->pricing);
            h = ts_fnv1a64_u64(h, o->meets);
            h = ts_fnv1a64_u64(h, o->monte_carlo);
            h = ts_fnv1a64_u64(h, p->mc_failed[j * np + q] != 0);
            for (size_t i = 0; i < TS_ARRAY_LEN(outcome_doubles); i++)
                h = hash_double(h, *dfield_at((struct ts_outcome *)o, (int)i));
        }
    }
    return h;
}

/* ---------------------------------------------------------------- writing */

int ts_sweep_progress_write(const char *path, const struct ts_sweep *sw,
                            const struct ts_sweep_progress *p, struct ts_err *err)
{
    int np = sw->n_pricing;
    struct ts_buf b;
    ts_buf_init(&b);
    ts_buf_printf(&b, "{\n  \"trainsim_partial_sweep\": %d,\n  \"trainsim_version\": \"%s\",\n",
                  PARTIAL_FORMAT, TS_VERSION);
    ts_buf_printf(&b, "  \"note\": \"finished work of an interrupted sweep; continue it with: "
                      "trainsim sweep SWEEP --resume THIS_FILE. Do not edit: a checksum guards "
                      "the content\",\n  \"sweep\": ");
    put_string(&b, sw->file);
    ts_buf_printf(&b, ",\n  \"fingerprint\": \"%016llx\",\n  \"inputs\": [",
                  (unsigned long long)sw->fingerprint);
    for (int i = 0; i < sw->inputs.n; i++) {
        ts_buf_printf(&b, "%s\n    {\"file\": ", i ? "," : "");
        put_string(&b, sw->inputs.files[i].path);
        ts_buf_printf(&b, ", \"fnv1a64\": \"%016llx\"}",
                      (unsigned long long)sw->inputs.files[i].hash);
    }
    ts_buf_printf(&b, "\n  ],\n  \"pricing\": [");
    for (int q = 0; q < np; q++)
        ts_buf_printf(&b, "%s\"%s\"", q ? ", " : "", ts_pricing_names[sw->pricing[q]]);
    ts_buf_printf(&b, "],\n  \"simulated\": %ld,\n  \"rejected_deadline_probability\": %ld,\n",
                  p->n, p->rejected_deadline_p);
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
    ts_buf_printf(&b, "\n  ],\n  \"checksum\": \"fnv1a64:%016llx\"\n}\n",
                  (unsigned long long)partial_checksum(sw->fingerprint, sw, p->n, p));
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
    if (cJSON_IsNull(j)) {
        *out = INFINITY;    /* an unpriced configuration's cost */
        return true;
    }
    /* Strings a hand-edited file may hold: read, so that the value checks can name them. */
    if (!cJSON_IsString(j))
        return false;
    const char *t = j->valuestring;
    if (strcmp(t, "inf") == 0 || strcmp(t, "infinity") == 0)
        *out = INFINITY;
    else if (strcmp(t, "-inf") == 0 || strcmp(t, "negative infinity") == 0)
        *out = -INFINITY;
    else if (strcmp(t, "nan") == 0 || strcmp(t, "not a number") == 0)
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

/* A 16-digit hexadecimal string (after prefix) as a number. */
static bool get_hex64(const cJSON *j, const char *prefix, uint64_t *out)
{
    if (!cJSON_IsString(j))
        return false;
    size_t np = strlen(prefix);
    const char *s = j->valuestring;
    if (strncmp(s, prefix, np) != 0 || strlen(s + np) != 16)
        return false;
    uint64_t v = 0;
    for (const char *c = s + np; *c; c++) {
        int d = *c >= '0' && *c <= '9' ? *c - '0' : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10 : -1;
        if (d < 0)
            return false;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
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

/* ---------------------------------------------------------------- checks */

/* The partial was written for other inputs: say which file differs, as far as the list of
 * files in the partial tells. */
static int inputs_changed(const char *path, const struct ts_sweep *sw, const cJSON *doc,
                          struct ts_err *err)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "inputs");
    const cJSON *e = cJSON_IsArray(list) ? list->child : NULL;
    char what[1200] = "";
    int i = 0;
    for (; i < sw->inputs.n && e; i++, e = e->next) {
        const cJSON *file = cJSON_GetObjectItemCaseSensitive(e, "file");
        uint64_t h;
        if (!cJSON_IsString(file) ||
            !get_hex64(cJSON_GetObjectItemCaseSensitive(e, "fnv1a64"), "", &h))
            break;
        const struct ts_input_file *now = &sw->inputs.files[i];
        if (h == now->hash)
            continue;
        if (strcmp(file->valuestring, now->path) == 0)
            snprintf(what, sizeof what, "%.500s changed", now->path);
        else
            snprintf(what, sizeof what, "the sweep now reads %.500s where it read %.500s",
                     now->path, file->valuestring);
        break;
    }
    if (!what[0] && i < sw->inputs.n && !e && cJSON_IsArray(list))
        snprintf(what, sizeof what, "the sweep now also reads %.500s", sw->inputs.files[i].path);
    else if (!what[0] && e && i == sw->inputs.n) {
        const cJSON *file = cJSON_GetObjectItemCaseSensitive(e, "file");
        snprintf(what, sizeof what, "the sweep no longer reads %.500s",
                 cJSON_IsString(file) ? file->valuestring : "a file");
    }
    if (!what[0])
        snprintf(what, sizeof what, "the sweep %s or a file it reads changed", sw->file);
    return ts_err_set(err, TS_ERR_INPUT, "%s: the inputs changed since the partial was written "
                      "(%s): its finished work does not belong to this sweep; run the sweep "
                      "again without --resume", path, what);
}

static bool is_time(double v)    // a duration: positive, +inf allowed (never finishes)
{
    return v > 0 && !isnan(v);
}

static bool is_cost(double v)    // a bill: zero (free capacity) or more, +inf allowed (no price)
{
    return v >= 0 && !isnan(v);
}

static bool is_base(const struct ts_sweep *sw, const struct ts_outcome *o)
{
    if (o->commit_nodes == 0)
        return true;
    const struct ts_int_list *b = &sw->commit_bases[o->layout.system % TS_SWEEP_SYSTEMS_MAX];
    for (int i = 0; i < b->n; i++)
        if (o->commit_nodes == b->v[i])
            return true;
    return false;
}

/* Whether one outcome's values can have come from a simulation of this sweep; if not, why
 * (into why). */
static bool check_outcome(const struct ts_sweep *sw, const struct ts_outcome *o, bool mc_failed,
                          char *why, size_t n)
{
    struct { const char *name; double v; bool ok; const char *want; } v[] = {
        {"iteration_s", o->iteration_s, isfinite(o->iteration_s) && o->iteration_s > 0,
         "a finite positive time"},
        {"tokens_per_s", o->tokens_per_s, isfinite(o->tokens_per_s) && o->tokens_per_s > 0,
         "a finite positive throughput"},
        {"mfu", o->mfu, o->mfu >= 0 && o->mfu <= 1, "a fraction from 0 to 1"},
        {"time_s", o->time_s, is_time(o->time_s), "a positive time"},
        {"cost_usd", o->cost_usd, is_cost(o->cost_usd), "a cost of 0 or more"},
        {"memory_bytes", o->memory_bytes, isfinite(o->memory_bytes) && o->memory_bytes > 0,
         "a finite positive size"},
        {"mc_time_mean_s", o->mc_time_mean_s,
         o->monte_carlo ? is_time(o->mc_time_mean_s) : o->mc_time_mean_s == 0,
         o->monte_carlo ? "a positive time" : "0 (no Monte Carlo)"},
        {"mc_time_p90_s", o->mc_time_p90_s,
         o->monte_carlo ? is_time(o->mc_time_p90_s) : o->mc_time_p90_s == 0,
         o->monte_carlo ? "a positive time" : "0 (no Monte Carlo)"},
        {"mc_cost_mean_usd", o->mc_cost_mean_usd,
         o->monte_carlo ? is_cost(o->mc_cost_mean_usd) : o->mc_cost_mean_usd == 0,
         o->monte_carlo ? "a cost of 0 or more" : "0 (no Monte Carlo)"},
        {"mc_cost_p90_usd", o->mc_cost_p90_usd,
         o->monte_carlo ? is_cost(o->mc_cost_p90_usd) : o->mc_cost_p90_usd == 0,
         o->monte_carlo ? "a cost of 0 or more" : "0 (no Monte Carlo)"},
        {"goodput", o->goodput,
         o->monte_carlo ? o->goodput >= 0 && o->goodput <= 1 : o->goodput == 0,
         o->monte_carlo ? "a fraction from 0 to 1" : "0 (no Monte Carlo)"},
        {"mc_rank", o->mc_rank,
         o->monte_carlo ? isfinite(o->mc_rank) && o->mc_rank >= 0 : o->mc_rank == 0,
         o->monte_carlo ? "a finite value of 0 or more" : "0 (no Monte Carlo)"},
        {"commit_nodes", o->commit_nodes, is_base(sw, o), "0 or one of the committed bases searched"},
    };
    for (size_t i = 0; i < TS_ARRAY_LEN(v); i++)
        if (!v[i].ok) {
            char num[64];
            if (isnan(v[i].v))
                snprintf(num, sizeof num, "a value that is not a number");
            else if (isinf(v[i].v))
                snprintf(num, sizeof num, v[i].v > 0 ? "an infinite value" : "a negative infinite value");
            else
                ts_json_format_double(v[i].v, num, sizeof num);
            snprintf(why, n, "%s: %s is out of range (expected %s)", v[i].name, num, v[i].want);
            return false;
        }
    double metric = sw->objective == TS_OBJECTIVE_COST ? o->cost_usd : o->time_s;
    if (memcmp(&o->objective, &metric, sizeof metric) != 0) {
        snprintf(why, n, "objective: %.17g is not the %s of the same outcome (%.17g)",
                 o->objective, ts_objective_names[sw->objective], metric);
        return false;
    }
    if (o->meets && !(isfinite(o->time_s) && isfinite(o->cost_usd))) {
        snprintf(why, n, "meets: a configuration that meets the constraint has a finite time "
                 "and cost");
        return false;
    }
    if (mc_failed != (o->monte_carlo && !o->meets)) {
        snprintf(why, n, "mc_failed: inconsistent with meets and monte_carlo (a finalist misses "
                 "the deadline probability exactly when its Monte Carlo ran and it no longer "
                 "meets the constraint)");
        return false;
    }
    return true;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The values: every outcome in range, the counters consistent with the lists. */
static int check_values(const char *path, const struct ts_sweep *sw, long simulated,
                        const struct ts_sweep_progress *p, struct ts_err *err)
{
    int np = sw->n_pricing;
    const char *fix = "the partial file was edited or damaged; run the sweep again without "
                      "--resume";
    for (long j = 0; j < p->n; j++)
        for (int q = 0; q < np; q++) {
            char why[400];
            if (!check_outcome(sw, &p->outcomes[j * np + q], p->mc_failed[j * np + q], why,
                               sizeof why))
                return ts_err_set(err, TS_ERR_INPUT, "%s: evaluated[%ld].outcomes[%d]: %s; %s",
                                  path, j, q, why, fix);
        }
    if (simulated != p->n)
        return ts_err_set(err, TS_ERR_INPUT, "%s: counter inconsistent: \"simulated\" is %ld but "
                          "\"evaluated\" lists %ld; %s", path, simulated, p->n, fix);
    long failed = 0;
    for (long i = 0; i < p->n * np; i++)
        failed += p->mc_failed[i] != 0;
    if (failed != p->rejected_deadline_p)
        return ts_err_set(err, TS_ERR_INPUT, "%s: counter inconsistent: "
                          "\"rejected_deadline_probability\" is %ld but %ld outcomes are marked "
                          "mc_failed; %s", path, p->rejected_deadline_p, failed, fix);
    long *sorted = ts_xmalloc((size_t)(p->n ? p->n : 1) * sizeof *sorted);
    memcpy(sorted, p->layout, (size_t)p->n * sizeof *sorted);
    qsort(sorted, (size_t)p->n, sizeof *sorted, cmp_long);
    long dup = -1;
    for (long j = 1; j < p->n && dup < 0; j++)
        if (sorted[j] == sorted[j - 1])
            dup = sorted[j];
    free(sorted);
    if (dup >= 0)
        return ts_err_set(err, TS_ERR_INPUT, "%s: layout %ld is listed twice; %s", path, dup, fix);
    return TS_OK;
}

/* ---------------------------------------------------------------- loading */

int ts_sweep_progress_load(const char *path, const struct ts_sweep *sw,
                           struct ts_sweep_progress *out, struct ts_err *err)
{
    memset(out, 0, sizeof *out);
    cJSON *doc;
    int rc = ts_json_load(path, &doc, err);
    if (rc) {
        if (rc == TS_ERR_INPUT && ts_file_exists(path)) {
            char msg[TS_ERR_MSG_MAX];
            ts_strlcpy(msg, err->msg, sizeof msg);
            ts_err_set(err, rc, "%.900s (a truncated or damaged partial file cannot be resumed: "
                       "run the sweep again without --resume)", msg);
        }
        return rc;
    }
    int np = sw->n_pricing;
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(doc, "trainsim_partial_sweep");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(doc, "trainsim_version");
    const cJSON *fp = cJSON_GetObjectItemCaseSensitive(doc, "fingerprint");
    const cJSON *sim = cJSON_GetObjectItemCaseSensitive(doc, "simulated");
    const cJSON *rej = cJSON_GetObjectItemCaseSensitive(doc, "rejected_deadline_probability");
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(doc, "evaluated");
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(doc, "checksum");
    uint64_t fingerprint = 0, checksum = 0;
    long n = 0, simulated = 0;
    if (!cJSON_IsObject(doc) || !cJSON_IsNumber(format)) {
        rc = bad(path, "no \"trainsim_partial_sweep\" marker", -1, err);
    } else if (format->valuedouble != PARTIAL_FORMAT) {
        rc = ts_err_set(err, TS_ERR_INPUT, "%s: partial file format %g; this trainsim reads "
                        "format %d: run the sweep again without --resume", path,
                        format->valuedouble, PARTIAL_FORMAT);
    } else if (!cJSON_IsString(version) || strcmp(version->valuestring, TS_VERSION) != 0) {
        rc = ts_err_set(err, TS_ERR_INPUT, "%s: written by trainsim %.40s; this is trainsim %s, "
                        "whose answers may differ: run the sweep again without --resume", path,
                        cJSON_IsString(version) ? version->valuestring : "(unknown version)",
                        TS_VERSION);
    } else if (!get_hex64(fp, "", &fingerprint)) {
        rc = bad(path, "no fingerprint", -1, err);
    } else if (!get_hex64(sum, "fnv1a64:", &checksum)) {
        rc = bad(path, "no checksum (\"checksum\": \"fnv1a64:...\")", -1, err);
    } else if (!get_long(sim, 0, 1L << 40, &simulated)) {
        rc = bad(path, "no \"simulated\" count", -1, err);
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
            ok = get_long(cJSON_GetArrayItem(at, i), 0,
                          i >= 14 ? 1L << 15 : i == 0 || i >= 7 ? 255 : 1L << 30, &lv[i]);
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
    if (rc == TS_OK && partial_checksum(fingerprint, sw, simulated, out) != checksum)
        rc = ts_err_set(err, TS_ERR_INPUT, "%s: checksum mismatch: the content is not what "
                        "trainsim wrote (the file was edited or damaged); run the sweep again "
                        "without --resume", path);
    if (rc == TS_OK && fingerprint != sw->fingerprint)
        rc = inputs_changed(path, sw, doc, err);
    if (rc == TS_OK)
        rc = check_values(path, sw, simulated, out, err);
    cJSON_Delete(doc);
    if (rc)
        ts_sweep_progress_free(out);
    return rc;
}
