/*
 * Sweep files: what to search.
 *
 * {
 *   "name": "...", "description": "...",
 *   "model": name | path | object,
 *   "tokens": 2e12 | "2T",
 *   "global_batch": 1024 | [512, 1024],                       sequences per iteration
 *   "systems": ["dgx-h100", "aws-p5", ...],
 *   "nodes": [8, 16] | {"from": 8, "to": 1024, "step": 8} | {"from": 8, "to": 1024, "powers_of_two": true},
 *   "pricing": "on_demand" | ["on_demand", "spot"],            default on_demand
 *   "precision": "bf16",
 *   "software": "megatron-core" | ["megatron-core", "pytorch-fsdp", ...],  names, paths or
 *                objects; default megatron-core; each profile is a searched dimension
 *   "parallel": "auto" | {"tp": [1, 2, 4, 8] | 8 | "auto", "pp": ..., "cp": ..., "microbatch": ...,
 *                "ep": ..., "etp": ... (MoE models; "auto": ep every divisor of the experts, etp
 *                1, 2, 4, 8; dense models search ep = etp = 1 only),
 *                "schedule": ..., "virtual_stages": ..., "sequence_parallel": ..., "recompute": ...,
 *                "zero": ..., "tp_comm_overlap": ...,
 *                and fixed options as in a job: "dp_overlap", "attention", "p2p_overlap", ...},
 *   "reliability": {...as in a job...},
 *   "cost": {...as in a job..., "by_system": {"aws-p5": {...overrides...}}},
 *                "commitment": {"nodes": [2, 4, 8] | {"from": ..., "to": ...} | "auto", ...}
 *                searches the committed base (the buy plan): each reserved row is priced
 *                at every base plus burst and keeps the cheapest ("auto": the sweep's node
 *                counts); a number commits that base as in a job
 *   "constraint": {"min_tokens_per_s": 1e6} | {"deadline": "60 d", "probability": 0.9},
 *                optional: without one the sweep optimises the objective alone
 *   "objective": "cost" | "time",                             default cost
 *   "top": 10                                                 default 10
 * }
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"

const char *const ts_objective_names[TS_OBJECTIVE_COUNT] = {"cost", "time"};
_Static_assert(TS_OBJECTIVE_COUNT == 2, "update ts_objective_names");

static const char *const sweep_keys[] = {
    "name", "description", "model", "tokens", "global_batch", "systems", "nodes", "pricing",
    "precision", "parallel", "software", "reliability", "cost", "constraint", "objective", "top",
    NULL,
};

/* Searched parallel keys, and the enum names of those given as strings (NULL: integers). */
struct dim {
    const char *key;
    const char *const *names;
    int count;
    size_t offset;          // of the struct ts_int_list in struct ts_sweep
    long lo, hi;
};

static const char *const bool_names[] = {"false", "true"};

static const struct dim dims[] = {
    {"tp", NULL, 0, offsetof(struct ts_sweep, tp), 1, 1 << 16},
    {"pp", NULL, 0, offsetof(struct ts_sweep, pp), 1, 1 << 16},
    {"cp", NULL, 0, offsetof(struct ts_sweep, cp), 1, 1 << 16},
    {"ep", NULL, 0, offsetof(struct ts_sweep, ep), 1, 1 << 15},
    {"etp", NULL, 0, offsetof(struct ts_sweep, etp), 1, 1 << 15},
    {"microbatch", NULL, 0, offsetof(struct ts_sweep, microbatch), 1, 1 << 20},
    {"virtual_stages", NULL, 0, offsetof(struct ts_sweep, virtual_stages), 1, TS_VIRTUAL_MAX},
    {"zero", NULL, 0, offsetof(struct ts_sweep, zero), 0, 3},
    {"schedule", ts_schedule_names, TS_SCHED_COUNT, offsetof(struct ts_sweep, schedule), 0, 0},
    {"sequence_parallel", bool_names, 2, offsetof(struct ts_sweep, sequence_parallel), 0, 0},
    {"recompute", ts_recompute_names, TS_RECOMPUTE_COUNT, offsetof(struct ts_sweep, recompute), 0, 0},
    {"tp_comm_overlap", bool_names, 2, offsetof(struct ts_sweep, tp_comm_overlap), 0, 0},
};

static struct ts_int_list *dim_list(struct ts_sweep *sw, const struct dim *d)
{
    return (struct ts_int_list *)((char *)sw + d->offset);
}

/* One element of a searched dimension: an integer, or a name / boolean. */
static int parse_dim_value(const struct ts_jnode *n, const struct dim *d, int *out, struct ts_err *err)
{
    if (d->names) {
        if (cJSON_IsBool(n->json) && d->names == bool_names) {
            *out = cJSON_IsTrue(n->json);
            return TS_OK;
        }
        if (cJSON_IsString(n->json))
            for (int i = 0; i < d->count; i++)
                if (strcmp(n->json->valuestring, d->names[i]) == 0) {
                    *out = i;
                    return TS_OK;
                }
        char desc[96], list[128] = "";
        size_t used = 0;
        for (int i = 0; i < d->count; i++) {
            int w = snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? " | " : "", d->names[i]);
            if (w > 0 && (size_t)w < sizeof list - used)
                used += (size_t)w;
        }
        ts_jnode_describe(n->json, desc, sizeof desc);
        return ts_err_at(err, n->file, n->path, "%s is not one of %s", desc, list);
    }
    long v;
    int rc = ts_jnode_to_long(n, d->lo, d->hi, &v, err);
    *out = (int)v;
    return rc;
}

static int add_value(struct ts_int_list *l, int v, const struct ts_jnode *n, struct ts_err *err)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i] == v)
            return ts_err_at(err, n->file, n->path, "value %d appears twice", v);
    if (l->n >= TS_SWEEP_LIST_MAX)
        return ts_err_at(err, n->file, n->path, "too many values (at most %d)", TS_SWEEP_LIST_MAX);
    l->v[l->n++] = v;
    return TS_OK;
}

static int parse_dim(const struct ts_jnode *n, const struct dim *d, struct ts_int_list *l,
                     struct ts_err *err)
{
    memset(l, 0, sizeof *l);
    if (cJSON_IsString(n->json) && strcmp(n->json->valuestring, "auto") == 0) {
        l->is_auto = true;
        return TS_OK;
    }
    int rc, v;
    if (cJSON_IsArray(n->json)) {
        int count = cJSON_GetArraySize(n->json);
        if (count == 0)
            return ts_err_at(err, n->file, n->path, "an empty list searches nothing; give values or \"auto\"");
        for (int i = 0; i < count; i++) {
            struct ts_jnode it = ts_jnode_item(n, i);
            if ((rc = parse_dim_value(&it, d, &v, err)) || (rc = add_value(l, v, &it, err)))
                return rc;
        }
        return TS_OK;
    }
    if ((rc = parse_dim_value(n, d, &v, err)))
        return rc;
    return add_value(l, v, n, err);
}

/* A list of integers: a number, an array, or a range object. */
static int parse_int_list(const struct ts_jnode *n, long lo, long hi, struct ts_int_list *l,
                          struct ts_err *err)
{
    static const char *const range_keys[] = {"from", "to", "step", "powers_of_two", NULL};
    memset(l, 0, sizeof *l);
    int rc;
    long v;
    if (cJSON_IsObject(n->json)) {
        long from = 0, to = 0, step = 1;
        bool pow2 = false;
        if ((rc = ts_jnode_check_keys(n, range_keys, err)) ||
            (rc = ts_jnode_get_long(n, "from", TS_REQUIRED, lo, hi, &from, err)) ||
            (rc = ts_jnode_get_long(n, "to", TS_REQUIRED, lo, hi, &to, err)) ||
            (rc = ts_jnode_get_long(n, "step", TS_OPTIONAL, 1, hi, &step, err)) ||
            (rc = ts_jnode_get_bool(n, "powers_of_two", TS_OPTIONAL, &pow2, err)))
            return rc;
        if (to < from)
            return ts_err_at(err, n->file, n->path, "\"to\" (%ld) is below \"from\" (%ld)", to, from);
        if (pow2 && cJSON_GetObjectItemCaseSensitive(n->json, "step"))
            return ts_err_at(err, n->file, n->path, "give \"step\" or \"powers_of_two\", not both");
        for (long x = from; x <= to; x = pow2 ? x * 2 : x + step) {
            if (pow2 && (x & (x - 1)))
                return ts_err_at(err, n->file, n->path, "\"from\" (%ld) is not a power of two", from);
            if (l->n >= TS_SWEEP_LIST_MAX)
                return ts_err_at(err, n->file, n->path, "the range has more than %d values",
                                 TS_SWEEP_LIST_MAX);
            l->v[l->n++] = (int)x;
        }
        return TS_OK;
    }
    if (cJSON_IsArray(n->json)) {
        int count = cJSON_GetArraySize(n->json);
        if (count == 0)
            return ts_err_at(err, n->file, n->path, "an empty list searches nothing");
        for (int i = 0; i < count; i++) {
            struct ts_jnode it = ts_jnode_item(n, i);
            if ((rc = ts_jnode_to_long(&it, lo, hi, &v, err)) || (rc = add_value(l, (int)v, &it, err)))
                return rc;
        }
        return TS_OK;
    }
    if ((rc = ts_jnode_to_long(n, lo, hi, &v, err)))
        return rc;
    l->v[l->n++] = (int)v;
    return TS_OK;
}

/* Split the sweep's parallel object into searched dimensions and the fixed job options. */
static int parse_parallel(const struct ts_jnode *n, struct ts_sweep *sw, struct ts_err *err)
{
    ts_parallel_defaults(&sw->fixed);
    /* The job parser's default bucket (40M elements), also when the object is absent or
     * "auto"; without it every layout would reduce its gradients in one bucket. */
    sw->fixed.bucket_bytes = 40e6 * 4.0;
    for (size_t i = 0; i < TS_ARRAY_LEN(dims); i++)
        dim_list(sw, &dims[i])->is_auto = true;
    if (cJSON_IsString(n->json) && strcmp(n->json->valuestring, "auto") == 0)
        return TS_OK;
    int rc = ts_jnode_expect_object(n, err);
    if (rc)
        return rc;
    cJSON *fixed = cJSON_CreateObject();
    for (const cJSON *c = n->json->child; c; c = c->next) {
        const struct dim *d = NULL;
        for (size_t i = 0; i < TS_ARRAY_LEN(dims); i++)
            if (strcmp(c->string, dims[i].key) == 0)
                d = &dims[i];
        if (!d) {
            cJSON_AddItemToObject(fixed, c->string, cJSON_Duplicate(c, 1));
            continue;
        }
        struct ts_jnode cn;
        ts_jnode_child(n, c->string, &cn);
        if ((rc = parse_dim(&cn, d, dim_list(sw, d), err))) {
            cJSON_Delete(fixed);
            return rc;
        }
    }
    struct ts_jnode fn = *n;
    fn.json = fixed;
    bool bucket_given = cJSON_GetObjectItemCaseSensitive(fixed, "bucket_size") != NULL;
    rc = ts_parallel_parse(&fn, &sw->fixed, err);
    cJSON_Delete(fixed);
    if (rc)
        return rc;
    if (!bucket_given)
        sw->fixed.bucket_bytes = 40e6 * (sw->fixed.fp32_grads ? 4.0 : 2.0);
    /* dp is derived per configuration; so is the uneven split of a pp that does not divide
     * the layers (ts_sweep_stage_split). */
    if (cJSON_GetObjectItemCaseSensitive(n->json, "dp"))
        return ts_err_at(err, n->file, n->path, "\"dp\" is derived for each configuration; remove it");
    if (sw->fixed.first_stage_layers || sw->fixed.last_stage_layers)
        return ts_err_at(err, n->file, n->path, "the sweep derives uneven stage splits (a "
                         "balanced one for each pp that does not divide the layers); remove "
                         "first_stage_layers / last_stage_layers");
    return TS_OK;
}

/* Merge a per-system override into the base cost object (override keys win, objects merge). */
static cJSON *merge_objects(const cJSON *base, const cJSON *over)
{
    cJSON *out = cJSON_Duplicate(base, 1);
    for (const cJSON *c = over->child; c; c = c->next) {
        cJSON *have = cJSON_GetObjectItemCaseSensitive(out, c->string);
        if (have && cJSON_IsObject(have) && cJSON_IsObject(c)) {
            cJSON *merged = merge_objects(have, c);
            cJSON_ReplaceItemInObjectCaseSensitive(out, c->string, merged);
        } else if (have) {
            cJSON_ReplaceItemInObjectCaseSensitive(out, c->string, cJSON_Duplicate(c, 1));
        } else {
            cJSON_AddItemToObject(out, c->string, cJSON_Duplicate(c, 1));
        }
    }
    return out;
}

/* cost.commitment.nodes searched (a list, a range, or "auto" = the sweep's node counts): read
 * into *bases, and its first value put in its place so that the cost parser checks the rest
 * of the commitment as it would a job's. A number (or no commitment) searches nothing. */
static int take_commit_bases(const struct ts_jnode *cost, const struct ts_sweep *sw,
                             struct ts_int_list *bases, struct ts_err *err)
{
    memset(bases, 0, sizeof *bases);
    struct ts_jnode cm, nn;
    if (!ts_jnode_child(cost, "commitment", &cm) || !cJSON_IsObject(cm.json) ||
        !ts_jnode_child(&cm, "nodes", &nn))
        return TS_OK;
    bool is_auto = cJSON_IsString(nn.json) && strcmp(nn.json->valuestring, "auto") == 0;
    if (!is_auto && !cJSON_IsArray(nn.json) && !cJSON_IsObject(nn.json))
        return TS_OK;
    if (is_auto) {
        *bases = sw->nodes;
        bases->is_auto = false;
    } else {
        int rc = parse_int_list(&nn, 1, 1 << 20, bases, err);
        if (rc)
            return rc;
    }
    /* cost->json is the caller's own copy of the cost object (parse_cost). */
    cJSON_ReplaceItemInObjectCaseSensitive((cJSON *)cm.json, "nodes",
                                           cJSON_CreateNumber(bases->v[0]));
    return TS_OK;
}

static int parse_cost(const struct ts_jnode *n, struct ts_sweep *sw, struct ts_err *err)
{
    int rc = ts_jnode_expect_object(n, err);
    if (rc)
        return rc;
    cJSON *base = cJSON_Duplicate(n->json, 1);
    cJSON *by = cJSON_DetachItemFromObjectCaseSensitive(base, "by_system");
    struct ts_jnode byn;
    ts_jnode_child(n, "by_system", &byn);
    if (by && !cJSON_IsObject(by)) {
        cJSON_Delete(base);
        cJSON_Delete(by);
        return ts_jnode_expect_object(&byn, err);
    }
    if (by) {
        for (const cJSON *c = by->child; c; c = c->next) {
            bool known = false;
            for (int s = 0; s < sw->n_systems; s++)
                known |= strcmp(sw->systems[s].name, c->string) == 0;
            if (!known) {
                char p[TS_PATH_MAX];
                snprintf(p, sizeof p, "%s.%s", byn.path, c->string);
                cJSON_Delete(base);
                cJSON_Delete(by);
                return ts_err_at(err, n->file, p, "not one of the sweep's systems");
            }
        }
    }
    for (int s = 0; s < sw->n_systems && rc == TS_OK; s++) {
        const cJSON *over = by ? cJSON_GetObjectItemCaseSensitive(by, sw->systems[s].name) : NULL;
        cJSON *obj = over ? merge_objects(base, over) : cJSON_Duplicate(base, 1);
        struct ts_jnode on = *n;
        on.json = obj;
        if (over) {
            char p[TS_PATH_MAX];
            snprintf(p, sizeof p, "%s.by_system.%s", n->path, sw->systems[s].name);
            ts_strlcpy(on.path, p, sizeof on.path);
        }
        ts_cost_config_defaults(&sw->cost[s]);
        rc = take_commit_bases(&on, sw, &sw->commit_bases[s], err);
        if (rc == TS_OK)
            rc = ts_cost_config_parse(&on, &sw->cost[s], err);
        cJSON_Delete(obj);
    }
    cJSON_Delete(base);
    cJSON_Delete(by);
    if (rc == TS_OK)
        sw->has_cost = true;
    return rc;
}

static int parse_constraint(const struct ts_jnode *n, struct ts_sweep *sw, struct ts_err *err)
{
    static const char *const keys[] = {"min_tokens_per_s", "deadline", "probability", NULL};
    int rc;
    if ((rc = ts_jnode_check_keys(n, keys, err)) ||
        (rc = ts_jnode_get_quantity(n, "min_tokens_per_s", TS_OPTIONAL, TS_DIM_NUMBER, 1e-9, 1e15,
                                    &sw->min_tokens_per_s, err)) ||
        (rc = ts_jnode_get_quantity(n, "deadline", TS_OPTIONAL, TS_DIM_SECONDS, 1.0, 1e10,
                                    &sw->deadline_s, err)) ||
        (rc = ts_jnode_get_quantity(n, "probability", TS_OPTIONAL, TS_DIM_NUMBER, 0.01, 0.999,
                                    &sw->probability, err)))
        return rc;
    if (sw->min_tokens_per_s > 0 && sw->deadline_s > 0)
        return ts_err_at(err, n->file, n->path, "give min_tokens_per_s or deadline, not both");
    if (sw->probability > 0 && sw->deadline_s == 0) {
        struct ts_jnode c;
        ts_jnode_child(n, "probability", &c);
        return ts_err_at(err, n->file, c.path, "a probability applies to a deadline");
    }
    return TS_OK;
}

/* The software profiles: "software" is one profile (a name, path or object) or a list of
 * them; default megatron-core. Each profile's mechanisms travel with the fixed parallel
 * options into its candidates; keys given under "parallel" win over every profile. */
static int parse_software(const struct ts_jnode *root, struct ts_sweep *sw, struct ts_err *err)
{
    struct ts_jnode c;
    int rc;
    if (!ts_jnode_child(root, "software", &c)) {
        struct ts_err ignored;
        sw->n_software = 1;
        if (ts_software_load("megatron-core", &sw->software[0], &ignored)) {
            ts_software_defaults(&sw->software[0]);
            ts_strlcpy(sw->software[0].name, "megatron-core", sizeof sw->software[0].name);
        }
    } else if (cJSON_IsArray(c.json)) {
        int n = cJSON_GetArraySize(c.json);
        if (n < 1 || n > TS_SWEEP_SOFTWARE_MAX)
            return ts_err_at(err, c.file, c.path, "give 1 to %d software profiles", TS_SWEEP_SOFTWARE_MAX);
        for (int i = 0; i < n; i++) {
            struct ts_jnode it = ts_jnode_item(&c, i);
            if ((rc = ts_software_parse_ref(&it, &sw->software[i], err)))
                return rc;
            for (int j = 0; j < i; j++)
                if (strcmp(sw->software[j].name, sw->software[i].name) == 0)
                    return ts_err_at(err, it.file, it.path, "software profile \"%s\" appears twice",
                                     sw->software[i].name);
        }
        sw->n_software = n;
    } else {
        if ((rc = ts_software_parse_ref(&c, &sw->software[0], err)))
            return rc;
        sw->n_software = 1;
    }
    for (int k = 0; k < sw->n_software; k++) {
        struct ts_parallel *p = &sw->fixed_by_software[k];
        *p = sw->fixed;
        ts_software_apply(&sw->software[k], p);
        /* The default bucket follows the gradient width the profile sets. */
        if (p->fp32_grads != sw->fixed.fp32_grads && p->bucket_bytes == 40e6 * (sw->fixed.fp32_grads ? 4.0 : 2.0))
            p->bucket_bytes = 40e6 * (p->fp32_grads ? 4.0 : 2.0);
    }
    /* A kernel the sweep names under "parallel.attention" that some listed system cannot run
     * is bad input. A profile's own kernel that a system lacks (FA3 off Hopper) rules out that
     * (system, profile) pair only: its layouts are rejected and counted; when no pair can
     * run, the sweep searches nothing and the first pair's message says why. */
    bool any = false;
    struct ts_err first;
    memset(&first, 0, sizeof first);
    int first_rc = TS_OK;
    for (int s = 0; s < sw->n_systems; s++)
        for (int k = 0; k < sw->n_software; k++) {
            const struct ts_parallel *p = &sw->fixed_by_software[k];
            struct ts_err e;
            rc = ts_attention_check(p, &sw->systems[s].accel, root->file, &e);
            sw->runs[s][k] = rc == TS_OK;
            any |= sw->runs[s][k];
            if (rc != TS_OK && p->attention != TS_ATTN_FLASH) {
                if (err)
                    *err = e;
                return rc;
            }
            if (rc != TS_OK && first_rc == TS_OK) {
                first = e;
                first_rc = rc;
            }
        }
    if (!any) {
        if (err)
            *err = first;
        return first_rc;
    }
    sw->fixed = sw->fixed_by_software[0];
    return TS_OK;
}

int ts_sweep_parse(const struct ts_jnode *root, struct ts_sweep *sw, struct ts_err *err)
{
    int rc;
    memset(sw, 0, sizeof *sw);
    ts_strlcpy(sw->file, root->file ? root->file : "", sizeof sw->file);
    if ((rc = ts_jnode_check_keys(root, sweep_keys, err)))
        return rc;
    if ((rc = ts_jnode_get_string(root, "name", TS_OPTIONAL, sw->name, sizeof sw->name, err)) ||
        (rc = ts_jnode_get_text(root, "description", TS_OPTIONAL, NULL, err)))
        return rc;
    struct ts_jnode c;
    if (!ts_jnode_child(root, "model", &c))
        return ts_err_at(err, root->file, c.path, "required key is missing (a model name, path or object)");
    if ((rc = ts_model_parse_ref(&c, &sw->model, err)))
        return rc;
    if ((rc = ts_jnode_get_quantity(root, "tokens", TS_REQUIRED, TS_DIM_NUMBER, 1.0, 1e17, &sw->tokens, err)))
        return rc;
    if (!ts_jnode_child(root, "global_batch", &c))
        return ts_err_at(err, root->file, c.path, "required key is missing (sequences per iteration)");
    if ((rc = parse_int_list(&c, 1, 1 << 26, &sw->global_batch, err)))
        return rc;

    if (!ts_jnode_child(root, "systems", &c))
        return ts_err_at(err, root->file, c.path, "required key is missing (a list of system names)");
    if ((rc = ts_jnode_expect_array(&c, err)))
        return rc;
    int ns = cJSON_GetArraySize(c.json);
    if (ns < 1 || ns > TS_SWEEP_SYSTEMS_MAX)
        return ts_err_at(err, c.file, c.path, "give 1 to %d systems", TS_SWEEP_SYSTEMS_MAX);
    for (int i = 0; i < ns; i++) {
        struct ts_jnode it = ts_jnode_item(&c, i);
        if ((rc = ts_system_parse_ref(&it, &sw->systems[i], err)))
            return rc;
        for (int j = 0; j < i; j++)
            if (strcmp(sw->systems[j].name, sw->systems[i].name) == 0)
                return ts_err_at(err, it.file, it.path, "system \"%s\" appears twice", sw->systems[i].name);
    }
    sw->n_systems = ns;

    if (!ts_jnode_child(root, "nodes", &c))
        return ts_err_at(err, root->file, c.path, "required key is missing (node counts: a list or a range)");
    if ((rc = parse_int_list(&c, 1, 1 << 20, &sw->nodes, err)))
        return rc;

    sw->n_pricing = 1;
    sw->pricing[0] = TS_PRICING_ON_DEMAND;
    if (ts_jnode_child(root, "pricing", &c)) {
        struct ts_int_list l;
        struct dim d = {"pricing", ts_pricing_names, TS_PRICING_COUNT, 0, 0, 0};
        if ((rc = parse_dim(&c, &d, &l, err)))
            return rc;
        if (l.is_auto) {
            for (int i = 0; i < TS_PRICING_COUNT; i++)
                sw->pricing[i] = (enum ts_pricing)i;
            sw->n_pricing = TS_PRICING_COUNT;
        } else {
            for (int i = 0; i < l.n; i++)
                sw->pricing[i] = (enum ts_pricing)l.v[i];
            sw->n_pricing = l.n;
        }
    }
    int prec = TS_PREC_BF16;
    if ((rc = ts_jnode_get_enum(root, "precision", TS_OPTIONAL, ts_precision_names, TS_PREC_COUNT, &prec, err)))
        return rc;
    sw->precision = (enum ts_precision)prec;

    if (ts_jnode_child(root, "parallel", &c)) {
        if ((rc = parse_parallel(&c, sw, err)))
            return rc;
    } else {
        struct ts_jnode autonode = c;
        cJSON *a = cJSON_CreateString("auto");
        autonode.json = a;
        rc = parse_parallel(&autonode, sw, err);
        cJSON_Delete(a);
        if (rc)
            return rc;
    }
    if ((rc = parse_software(root, sw, err)))
        return rc;

    /* Failures are always on; the default processes are filled per system (its fleet) when
     * each candidate is built (ts_sweep_layout_job). */
    ts_reliability_defaults(&sw->reliability);
    if (ts_jnode_child(root, "reliability", &c) &&
        (rc = ts_reliability_parse(&c, &sw->reliability, err)))
        return rc;
    sw->has_reliability = true;
    if (ts_jnode_child(root, "cost", &c) && (rc = parse_cost(&c, sw, err)))
        return rc;
    /* A pricing a system has no price for is not offered there (spot exists for some
     * instance types only); every system needs one listed pricing it offers, and every listed
     * pricing one system that offers it, else the file names something that cannot be bought. */
    for (int s = 0; s < sw->n_systems; s++)
        for (int i = 0; i < sw->n_pricing; i++) {
            enum ts_pricing pr = sw->pricing[i];
            sw->offered[s][pr] = !sw->has_cost || ts_cost_config_has_price(&sw->cost[s], pr);
        }
    for (int s = 0; s < sw->n_systems; s++) {
        bool any = false;
        for (int i = 0; i < sw->n_pricing; i++)
            any |= sw->offered[s][sw->pricing[i]];
        if (!any)
            return ts_err_at(err, root->file, "cost.gpu_hour",
                             "system %s has no price for any listed pricing (give cost.gpu_hour, or "
                             "per system in cost.by_system.%s)", sw->systems[s].name, sw->systems[s].name);
    }
    for (int i = 0; i < sw->n_pricing; i++) {
        bool any = false;
        for (int s = 0; s < sw->n_systems; s++)
            any |= sw->offered[s][sw->pricing[i]];
        if (!any)
            return ts_err_at(err, root->file, "pricing", "no system has a %s price (give "
                             "cost.gpu_hour.%s, or per system in cost.by_system)",
                             ts_pricing_names[sw->pricing[i]], ts_pricing_names[sw->pricing[i]]);
    }

    /* Without a constraint (or with an empty one) every configuration qualifies and the
     * sweep just optimises the objective ("the fastest layout on these 1,024 GPUs"). */
    if (ts_jnode_child(root, "constraint", &c) && (rc = parse_constraint(&c, sw, err)))
        return rc;
    int obj = TS_OBJECTIVE_COST;
    if ((rc = ts_jnode_get_enum(root, "objective", TS_OPTIONAL, ts_objective_names, TS_OBJECTIVE_COUNT, &obj, err)))
        return rc;
    sw->objective = (enum ts_objective)obj;
    if (sw->objective == TS_OBJECTIVE_COST && !sw->has_cost)
        return ts_err_at(err, root->file, "cost", "the objective \"cost\" needs a cost section "
                         "(prices per GPU-hour); or set \"objective\": \"time\"");
    sw->top = 10;
    if ((rc = ts_jnode_get_int(root, "top", TS_OPTIONAL, 1, 1000, &sw->top, err)))
        return rc;
    if (!sw->name[0])
        ts_strlcpy(sw->name, "sweep", sizeof sw->name);
    return TS_OK;
}

int ts_sweep_load(const char *file, struct ts_sweep *out, struct ts_err *err)
{
    cJSON *doc;
    int rc = ts_json_load(file, &doc, err);
    if (rc)
        return rc;
    rc = ts_sweep_load_doc(file, doc, out, err);
    cJSON_Delete(doc);
    return rc;
}

int ts_sweep_load_doc(const char *file, const cJSON *doc, struct ts_sweep *out, struct ts_err *err)
{
    /* Record the sweep document and every catalogue file its parse loads: the fingerprint
     * covers all of them (search.h). */
    struct ts_inputs *inputs = ts_xmalloc(sizeof *inputs);
    ts_inputs_init(inputs);
    ts_inputs_record(inputs, file, doc);
    struct ts_jnode root = ts_jnode_root(doc, file);
    root.inputs = inputs;
    int rc = ts_sweep_parse(&root, out, err);
    if (rc == TS_OK) {
        out->inputs = *inputs;
        out->fingerprint = ts_fnv1a64(inputs->hash, TS_VERSION, strlen(TS_VERSION));
    }
    free(inputs);
    return rc;
}
