/*
 * `--explain`: the resolved inputs of a run or a sweep, every key with its value and where it
 * came from:
 *   "file"                     the job or sweep file itself (inline objects included)
 *   "--set PATH=VALUE"         a command-line override (set.c)
 *   "catalogue PATH"           a model, system, accelerator, software profile or price file the
 *                              input names (keys the input gives itself win over it)
 *   "software profile NAME"    a parallel switch the job left to its software stack
 *   "default"                  a key the input left out: the value trainsim assumed (these
 *                              are also listed in the output's assumptions.defaults)
 *   "derived"                  computed from other keys (dp, nodes)
 *   "searched"                 a sweep dimension left to the search ("auto")
 * Entries are sorted by key, so the listing of the same inputs is the same bytes every time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "search/search.h"
#include "spec/spec.h"

/* ---------------------------------------------------------------- the list */

struct explain {
    cJSON *arr;                 // [{key, value, source}]
    cJSON *pending;             // [[catalogue, reference, prefix, from file]] to walk next
    const struct ts_cli_sets *sets;
    const char *file;
};

/* The entry of `key`, or NULL. */
static cJSON *find(const struct explain *e, const char *key)
{
    for (cJSON *c = e->arr->child; c; c = c->next) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(c, "key");
        if (strcmp(k->valuestring, key) == 0)
            return c;
    }
    return NULL;
}

/* Whether `key` or a key above it is listed as a value (then its parts are not defaults):
 * "reliability": "none" covers reliability.*, "parallel": "auto" covers parallel.*. */
static bool covered(const struct explain *e, const char *key)
{
    char k[TS_PATH_MAX];
    ts_strlcpy(k, key, sizeof k);
    for (;;) {
        if (find(e, k))
            return true;
        /* Also an object listed by its keys: "cost.gpu_hour.spot" under "cost.gpu_hour". */
        char *dot = strrchr(k, '.');
        char *br = strrchr(k, '[');
        char *cut = dot > br ? dot : br;
        if (!cut)
            return false;
        *cut = '\0';
    }
}

/* Whether some listed key lies below `key` (the file gave the object in parts). */
static bool has_below(const struct explain *e, const char *key)
{
    size_t n = strlen(key);
    for (cJSON *c = e->arr->child; c; c = c->next) {
        const char *k = cJSON_GetObjectItemCaseSensitive(c, "key")->valuestring;
        if (strncmp(k, key, n) == 0 && (k[n] == '.' || k[n] == '['))
            return true;
    }
    return false;
}

static void add(struct explain *e, const char *key, cJSON *value, const char *source)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "key", key);
    cJSON_AddItemToObject(o, "value", value);
    cJSON_AddStringToObject(o, "source", source);
    cJSON_AddItemToArray(e->arr, o);
}

/* A default: listed unless the input gave the key (or an object or value above it). */
static void add_default(struct explain *e, const char *key, cJSON *value, const char *source)
{
    if (covered(e, key) || has_below(e, key)) {
        cJSON_Delete(value);
        return;
    }
    add(e, key, value, source);
}

static void add_num(struct explain *e, const char *key, double v, const char *source)
{
    add_default(e, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateString("not given"),
                source);
}

static void add_str(struct explain *e, const char *key, const char *v, const char *source)
{
    add_default(e, key, cJSON_CreateString(v), source);
}

static void add_bool(struct explain *e, const char *key, bool v, const char *source)
{
    add_default(e, key, cJSON_CreateBool(v), source);
}

/* ---------------------------------------------------------------- walking documents */

/* Where a key of the input document came from: the --set that wrote it (or an object above
 * it), else the file. */
static void doc_source(const struct explain *e, const char *key, char *buf, size_t n)
{
    char k[TS_PATH_MAX];
    ts_strlcpy(k, key, sizeof k);
    for (;;) {
        const char *arg = ts_cli_sets_find(e->sets, k);
        if (arg) {
            snprintf(buf, n, "--set %s", arg);
            return;
        }
        char *dot = strrchr(k, '.');
        char *br = strrchr(k, '[');
        char *cut = dot > br ? dot : br;
        if (!cut)
            break;
        *cut = '\0';
    }
    snprintf(buf, n, "file");
}

static void walk(struct explain *e, const cJSON *j, const char *prefix, const char *source,
                 const char *from_file);

/* A catalogue file named by a reference string: its keys under prefix. */
static void walk_ref(struct explain *e, enum ts_catalog cat, const char *ref, const char *prefix,
                     const char *from_file)
{
    char path[2048];
    struct ts_err err;
    if (ts_spec_resolve(cat, ref, from_file, path, sizeof path, &err))
        return;
    cJSON *doc;
    if (ts_json_load(path, &doc, &err))
        return;
    /* Shown relative to the catalogue root when it lies there. */
    const char *home = ts_spec_home();
    size_t hl = strlen(home);
    const char *shown = strncmp(path, home, hl) == 0 && path[hl] == '/' ? path + hl + 1 : path;
    char source[2100];
    snprintf(source, sizeof source, "catalogue %s", shown);
    if (cat == TS_CAT_PRICES && cJSON_IsObject(doc)) {
        /* A price file's keys are the cost section's defaults; its own name, date and source
         * describe the file. */
        static const char *const meta[] = {"name", "description", "date", "source", NULL};
        for (const cJSON *c = doc->child; c; c = c->next) {
            bool is_meta = false;
            for (int i = 0; meta[i]; i++)
                is_meta |= strcmp(c->string, meta[i]) == 0;
            char key[TS_PATH_MAX];
            snprintf(key, sizeof key, "cost%s.%s", is_meta ? ".prices" : "", c->string);
            walk(e, c, key, source, path);
        }
    } else {
        walk(e, doc, prefix, source, path);
    }
    cJSON_Delete(doc);
}

/* Walk the references found so far, in the order found (they may find more). */
static void walk_pending(struct explain *e)
{
    while (e->pending->child) {
        cJSON *p = cJSON_DetachItemViaPointer(e->pending, e->pending->child);
        walk_ref(e, (enum ts_catalog)cJSON_GetArrayItem(p, 0)->valueint,
                 cJSON_GetArrayItem(p, 1)->valuestring, cJSON_GetArrayItem(p, 2)->valuestring,
                 cJSON_GetArrayItem(p, 3)->valuestring);
        cJSON_Delete(p);
    }
}

/* The catalogue a reference string at `key` names (-1: not a reference). */
static int ref_kind(const char *key)
{
    if (strcmp(key, "model") == 0)
        return TS_CAT_MODEL;
    if (strcmp(key, "system") == 0 || (strncmp(key, "systems[", 8) == 0 && !strchr(key, '.')))
        return TS_CAT_SYSTEM;
    if (strcmp(key, "software") == 0 || (strncmp(key, "software[", 9) == 0 && !strchr(key, '.')))
        return TS_CAT_SOFTWARE;
    size_t n = strlen(key);
    if (n >= 12 && strcmp(key + n - 12, ".accelerator") == 0)
        return TS_CAT_ACCEL;
    if (strcmp(key, "cost.prices") == 0)
        return TS_CAT_PRICES;
    return -1;
}

static void walk(struct explain *e, const cJSON *j, const char *prefix, const char *source,
                 const char *from_file)
{
    if (cJSON_IsObject(j)) {
        for (const cJSON *c = j->child; c; c = c->next) {
            char key[TS_PATH_MAX];
            snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "", c->string);
            walk(e, c, key, source, from_file);
        }
        return;
    }
    /* A list of references or objects: by element; any other list is one value. */
    if (cJSON_IsArray(j) && (ref_kind(prefix) < 0)) {
        char k0[TS_PATH_MAX];
        snprintf(k0, sizeof k0, "%s[0]", prefix);
        if (ref_kind(k0) >= 0) {
            int i = 0;
            for (const cJSON *c = j->child; c; c = c->next, i++) {
                char key[TS_PATH_MAX];
                snprintf(key, sizeof key, "%s[%d]", prefix, i);
                walk(e, c, key, source, from_file);
            }
            return;
        }
    }
    if (find(e, prefix))        /* the input's own key wins over a catalogue file's */
        return;
    char src[2200];
    if (strcmp(source, "file") == 0)
        doc_source(e, prefix, src, sizeof src);
    else
        ts_strlcpy(src, source, sizeof src);
    add(e, prefix, cJSON_Duplicate(j, 1), src);
    int cat = ref_kind(prefix);
    if (cat >= 0 && cJSON_IsString(j)) {
        /* After the document that names it: the document's own keys win. */
        cJSON *p = cJSON_CreateArray();
        cJSON_AddItemToArray(p, cJSON_CreateNumber(cat));
        cJSON_AddItemToArray(p, cJSON_CreateString(j->valuestring));
        cJSON_AddItemToArray(p, cJSON_CreateString(prefix));
        cJSON_AddItemToArray(p, cJSON_CreateString(from_file ? from_file : ""));
        cJSON_AddItemToArray(e->pending, p);
    }
}

/* ---------------------------------------------------------------- defaults */

static const char *const pkey_names[TS_PKEY_COUNT] = {
    "parallel.attention", "parallel.p2p_overlap", "parallel.dp_overlap",
    "parallel.tp_comm_overlap", "parallel.fp32_grads", "parallel.grad_accum_fusion"};

/* The parallel options a file may leave out. `searched` (sweeps) lists none of the searched
 * dimensions. */
static void parallel_defaults(struct explain *e, const struct ts_parallel *p, const char *sw_name,
                              bool job)
{
    char prof[TS_NAME_MAX + 32];
    snprintf(prof, sizeof prof, "software profile %s", sw_name);
    bool profile_bits[TS_PKEY_COUNT];
    for (int k = 0; k < TS_PKEY_COUNT; k++)
        profile_bits[k] = !(p->given & (1u << k));
    if (job) {
        add_num(e, "parallel.tp", p->tp, "default");
        add_num(e, "parallel.pp", p->pp, "default");
        add_num(e, "parallel.dp", p->dp, "derived");
        add_num(e, "parallel.cp", p->cp, "default");
        add_num(e, "parallel.microbatch", p->microbatch, "default");
        add_str(e, "parallel.schedule", ts_schedule_names[p->schedule], "default");
        add_num(e, "parallel.virtual_stages", p->virtual_stages, "default");
        add_bool(e, "parallel.sequence_parallel", p->sequence_parallel, "default");
        char rc[128];
        ts_recompute_describe(p, rc, sizeof rc);
        add_str(e, "parallel.recompute", rc, "default");
        add_num(e, "parallel.zero", p->zero, "default");
    }
    add_str(e, pkey_names[TS_PKEY_ATTENTION], ts_attention_names[p->attention],
            profile_bits[TS_PKEY_ATTENTION] ? prof : "default");
    add_bool(e, pkey_names[TS_PKEY_P2P_OVERLAP], p->p2p_overlap,
             profile_bits[TS_PKEY_P2P_OVERLAP] ? prof : "default");
    add_bool(e, pkey_names[TS_PKEY_DP_OVERLAP], p->dp_overlap,
             profile_bits[TS_PKEY_DP_OVERLAP] ? prof : "default");
    if (job)
        add_bool(e, pkey_names[TS_PKEY_TP_COMM_OVERLAP], p->tp_comm_overlap,
                 profile_bits[TS_PKEY_TP_COMM_OVERLAP] ? prof : "default");
    add_bool(e, pkey_names[TS_PKEY_FP32_GRADS], p->fp32_grads,
             profile_bits[TS_PKEY_FP32_GRADS] ? prof : "default");
    add_bool(e, pkey_names[TS_PKEY_GRAD_ACCUM_FUSION], p->grad_accum_fusion,
             profile_bits[TS_PKEY_GRAD_ACCUM_FUSION] ? prof : "default");
    if (job)
        add_bool(e, "parallel.scatter_gather", p->scatter_gather, "default");
    else    /* per candidate: on where there is tensor parallelism (search.c) */
        add_str(e, "parallel.scatter_gather", p->scatter_gather || p->tp == 1 ? "true when tp > 1"
                                                                              : "false", "default");
    add_num(e, "parallel.bucket_size", p->bucket_bytes, "default");
    add_num(e, "parallel.zero_group", p->zero_group, "default");
    add_num(e, "parallel.fsdp_unit_layers", p->fsdp_unit_layers, "default");
    add_num(e, "parallel.fsdp_prefetch", p->fsdp_prefetch, "default");
    add_num(e, "parallel.offload_layers", p->offload_layers, "default");
    char order[32] = "";
    for (int i = 0; i < TS_PDIM_COUNT; i++) {
        strcat(order, i ? "," : "");
        strcat(order, ts_pdim_names[p->order[i]]);
    }
    add_str(e, "parallel.order", order, "default");
}

static void model_defaults(struct explain *e, const struct ts_model *m)
{
    add_num(e, "model.kv_heads", m->kv_heads, "default");
    add_num(e, "model.ffn_hidden", m->ffn_hidden, "default");
    add_str(e, "model.ffn", ts_ffn_names[m->ffn], "default");
    add_bool(e, "model.bias", m->bias, "default");
    add_num(e, "model.dropout", m->dropout, "default");
}

static void reliability_defaults(struct explain *e, const struct ts_reliability *r)
{
    if (r->none)
        return;
    char buf[256];
    add_str(e, "reliability.fleet", ts_fleet_names[r->fleet], "default");
    if (r->failures_default)
        add_str(e, "reliability.failures", ts_reliability_source(r, buf, sizeof buf), "default");
    add_num(e, "reliability.rate_scale", r->rate_scale, "default");
    const struct ts_checkpoint *c = &r->checkpoint;
    if (c->interval_auto)
        add_str(e, "reliability.checkpoint.interval", "auto (Daly's optimum)", "default");
    add_str(e, "reliability.checkpoint.mode", ts_ckpt_mode_names[c->mode], "default");
    if (c->size_bytes == 0)
        add_str(e, "reliability.checkpoint.size", "weights + optimizer state", "default");
    add_num(e, "reliability.checkpoint.write_bandwidth", c->write_bandwidth, "default");
    add_num(e, "reliability.checkpoint.read_bandwidth", c->read_bandwidth, "default");
    add_num(e, "reliability.checkpoint.node_write_bandwidth", c->node_write_bandwidth, "default");
    add_num(e, "reliability.checkpoint.node_read_bandwidth", c->node_read_bandwidth, "default");
    add_num(e, "reliability.checkpoint.keep", c->keep, "default");
    add_num(e, "reliability.restart_overhead", r->restart_overhead_s, "default");
    if (r->recovery_mode == TS_RECOVERY_DEFAULT) {
        const struct ts_recovery *rv = &r->mech.recovery;
        snprintf(buf, sizeof buf,
                 "default phases: crash detected at once, hang after the %g s watchdog, "
                 "%s diagnosis and replacement (lognormal median %g s), queue %g s, start-up "
                 "%g s + %g s per node, reload at the read bandwidth",
                 rv->hang_timeout_s, rv->diagnose_preset, rv->diagnose_median_s, rv->queue_s,
                 rv->startup_s, rv->startup_per_node_s);
        add_str(e, "reliability.recovery", buf, "default");
    }
    add_num(e, "reliability.spares", r->spares, "default");
    add_num(e, "reliability.repair_time", r->repair_time_s, "default");
    add_bool(e, "reliability.elastic", r->elastic, "default");
    add_num(e, "reliability.replications", r->replications, "default");
    add_num(e, "reliability.seed", (double)r->seed, "default");
    if (r->spot.enabled) {
        add_num(e, "reliability.spot.preemption_mtbf", r->spot.preemption_mtbf_s, "default");
        add_num(e, "reliability.spot.notice", r->spot.notice_s, "default");
        add_num(e, "reliability.spot.reacquire", r->spot.reacquire_s, "default");
    }
}

static void cost_defaults(struct explain *e, const struct ts_cost_config *c, bool job)
{
    /* A sweep prices each row at its own pricing (the sweep's "pricing" list). */
    if (job) {
        add_str(e, "cost.pricing", ts_pricing_names[c->pricing], "default");
        add_str(e, "cost.spare_pricing", ts_pricing_names[c->spare_pricing], "default");
    }
    add_num(e, "cost.fixed_per_hour", c->fixed_per_hour, "default");
    add_num(e, "cost.budget", c->budget, "default");
    for (int t = 0; t < TS_TIER_COUNT; t++) {
        char k[96];
        snprintf(k, sizeof k, "cost.storage.price_gb_month.%s", ts_tier_names[t]);
        add_num(e, k, c->storage_gb_month[t], "default");
    }
    add_num(e, "cost.storage.checkpoint_retention", c->checkpoint_retention_s, "default");
    add_num(e, "cost.storage.dataset.size", c->dataset_bytes, "default");
    add_num(e, "cost.storage.logs.bytes_per_step_per_node", c->log_bytes_per_step_node, "default");
    add_num(e, "cost.network.inter_node_gb", c->inter_node_gb, "default");
    add_num(e, "cost.network.egress", c->egress_bytes, "default");
    add_num(e, "cost.network.egress_gb", c->egress_gb, "default");
    add_num(e, "cost.network.cross_region", c->cross_region_bytes, "default");
    add_num(e, "cost.network.cross_region_gb", c->cross_region_gb, "default");
    add_num(e, "cost.data.bytes_per_token", c->data_bytes_per_token, "default");
    add_num(e, "cost.monitoring.node_hour", c->monitoring_node_hour, "default");
    add_num(e, "cost.monitoring.ingest_gb", c->log_ingest_gb, "default");
    add_num(e, "cost.operations.hours_per_incident", c->ops_hours_per_incident, "default");
    add_num(e, "cost.operations.hours_per_restart", c->ops_hours_per_restart, "default");
    add_num(e, "cost.operations.hourly_rate", c->ops_hourly_rate, "default");
}

/* Sort by key (insertion sort on the array's items: inputs are a few hundred keys). */
static void sort_entries(cJSON *arr)
{
    int n = cJSON_GetArraySize(arr);
    if (n < 2)
        return;
    cJSON **items = ts_xmalloc((size_t)n * sizeof *items);
    int i = 0;
    while (arr->child)
        items[i++] = cJSON_DetachItemViaPointer(arr, arr->child);
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0; b--) {
            const char *x = cJSON_GetObjectItemCaseSensitive(items[b - 1], "key")->valuestring;
            const char *y = cJSON_GetObjectItemCaseSensitive(items[b], "key")->valuestring;
            if (strcmp(x, y) <= 0)
                break;
            cJSON *t = items[b];
            items[b] = items[b - 1];
            items[b - 1] = t;
        }
    for (i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, items[i]);
    free(items);
}

cJSON *ts_cli_explain_job(const char *file, const cJSON *doc, const struct ts_cli_sets *sets,
                          const struct ts_job *job)
{
    struct explain e = {cJSON_CreateArray(), cJSON_CreateArray(), sets, file};
    walk(&e, doc, "", "file", file);
    walk_pending(&e);
    cJSON_Delete(e.pending);
    add_str(&e, "software", job->software.name[0] ? job->software.name : "megatron-core",
            "default");
    add_str(&e, "precision", ts_precision_names[job->precision], "default");
    add_num(&e, "gpus", job->gpus, "derived");
    add_num(&e, "nodes", job->nodes, "derived");
    model_defaults(&e, &job->model);
    parallel_defaults(&e, &job->parallel, job->software.name, true);
    if (job->has_reliability)
        reliability_defaults(&e, &job->reliability);
    if (job->has_cost)
        cost_defaults(&e, &job->cost, true);
    sort_entries(e.arr);
    return e.arr;
}

cJSON *ts_cli_explain_sweep(const char *file, const cJSON *doc, const struct ts_cli_sets *sets,
                            const struct ts_sweep *sw)
{
    struct explain e = {cJSON_CreateArray(), cJSON_CreateArray(), sets, file};
    walk(&e, doc, "", "file", file);
    walk_pending(&e);
    cJSON_Delete(e.pending);
    add_str(&e, "software", sw->software[0].name, "default");
    add_str(&e, "precision", ts_precision_names[sw->precision], "default");
    add_str(&e, "pricing", ts_pricing_names[sw->pricing[0]], "default");
    add_str(&e, "objective", ts_objective_names[sw->objective], "default");
    add_num(&e, "top", sw->top, "default");
    add_str(&e, "constraint", "none (optimise the objective)", "default");
    static const char *const searched[] = {
        "tp", "pp", "cp", "microbatch", "virtual_stages", "zero", "schedule",
        "sequence_parallel", "recompute", "tp_comm_overlap"};
    for (size_t i = 0; i < TS_ARRAY_LEN(searched); i++) {
        char k[64];
        snprintf(k, sizeof k, "parallel.%s", searched[i]);
        add_str(&e, k, "auto (every valid value)", "searched");
    }
    model_defaults(&e, &sw->model);
    parallel_defaults(&e, &sw->fixed, sw->software[0].name, false);
    reliability_defaults(&e, &sw->reliability);
    if (sw->has_cost)
        cost_defaults(&e, &sw->cost[0], false);
    sort_entries(e.arr);
    return e.arr;
}

cJSON *ts_cli_explain_defaults(const cJSON *explain)
{
    cJSON *out = cJSON_CreateArray();
    for (const cJSON *c = explain->child; c; c = c->next) {
        const char *src = cJSON_GetObjectItemCaseSensitive(c, "source")->valuestring;
        if (strcmp(src, "default") != 0 && strncmp(src, "software profile", 16) != 0)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "key", cJSON_GetObjectItemCaseSensitive(c, "key")->valuestring);
        cJSON_AddItemToObject(o, "value",
                              cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(c, "value"), 1));
        cJSON_AddStringToObject(o, "source", src);
        cJSON_AddItemToArray(out, o);
    }
    return out;
}

void ts_cli_explain_table(const cJSON *explain, struct ts_buf *b)
{
    ts_buf_printf(b, "resolved inputs (key, value, where it came from):\n");
    for (const cJSON *c = explain->child; c; c = c->next) {
        const char *key = cJSON_GetObjectItemCaseSensitive(c, "key")->valuestring;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "value");
        const char *src = cJSON_GetObjectItemCaseSensitive(c, "source")->valuestring;
        char *text = cJSON_IsString(v) ? NULL : cJSON_PrintUnformatted(v);
        const char *shown = text ? text : v->valuestring;
        /* Long values (curves, citations) are cut in the table; JSON keeps them whole. */
        int len = (int)strlen(shown);
        ts_buf_printf(b, "  %-44s %-.*s%s  [%s]\n", key, len > 40 ? 37 : len, shown,
                      len > 40 ? "..." : "", src);
        free(text);
    }
    ts_buf_printf(b, "\n");
}
