/*
 * The `cost` section of a job: the prices of everything a training run pays for, and the
 * volumes the bill needs that the simulations do not produce (dataset size, log volume,
 * egress). sim/cost prices a run with them; this file only parses and validates.
 *
 * Prices are inputs. configs/prices/ ships dated, cited list prices (shared reference
 * prices.md) as editable defaults: put your contract prices in. A job names one with
 * "prices"; its own keys override the file's values, key by key.
 *
 * Units: money in USD; "GB" in a price means 2^30 bytes, as AWS bills storage and transfer
 * (the S3 FAQ's storage example divides byte-hours by 1,073,741,824); a month is 730 hours
 * (the average month cloud storage bills by). Sizes are bytes or strings like "2.3 TB";
 * durations seconds or strings like "30 d"; bandwidths bytes/s or strings like "1 GB/s".
 * Money values are plain numbers (or strings like "2M").
 *
 * JSON schema (every key optional unless marked):
 *
 *   "cost": {
 *     "prices": "NAME" | "path.json",    price file: configs/prices/NAME.json (under
 *                                          $TRAINSIM_HOME) or a path (relative to the job
 *                                          file, then to the working directory); its keys
 *                                          are the defaults of the keys below
 *     "pricing": "on_demand" | "reserved" | "spot",      how the job's GPUs are bought,
 *                                          default "on_demand"; its price must be given
 *                                          (here or in the price file)
 *     "gpu_hour": {"on_demand": USD, "reserved": USD, "spot": USD},   per GPU-hour
 *     "node_hour": {"on_demand": USD, "reserved": USD, "spot": USD},  per node-hour, the
 *                                          alternative to gpu_hour for one pricing (not both
 *                                          in one object; a job's gpu_hour.X replaces a price
 *                                          file's node_hour.X and vice versa); the bill divides
 *                                          it by the system's gpus_per_node
 *     "spare_pricing": "on_demand" | "reserved" | "spot", how hot spares (reliability.spares)
 *                                          are bought, default: the same as "pricing"
 *     "fixed_per_hour": USD,               per wall-clock hour: cluster management, head
 *                                          nodes, schedulers; default 0
 *     "budget": USD,                       flag runs whose expected or p90 bill exceeds it;
 *                                          default 0 = no budget
 *     "storage": {
 *       "price_gb_month": {"hot": USD, "warm": USD, "cold": USD},
 *                                          default hot 0.023 (S3 Standard), warm 0.0125
 *                                          (S3 Standard-IA), cold 0.0036 (S3 Glacier
 *                                          Flexible Retrieval): AWS us-east-1, prices.md
 *       "tier_after": {"warm": duration | "never", "cold": duration | "never"},
 *                                          age at which a checkpoint moves down to the tier;
 *                                          default warm 30 d, cold 90 d (S3 lifecycle rules
 *                                          move objects to Standard-IA at 30 days at the
 *                                          earliest; Glacier Flexible bills 90 days minimum);
 *                                          cold must not come before warm
 *       "dataset": {"size": bytes, "tier": "hot" | "warm" | "cold"},
 *                                          training data stored for the run; default 0,
 *                                          tier "hot"; a tier needs a size
 *       "checkpoint_retention": duration,  how long the last `keep` checkpoints stay after
 *                                          the run ends; default 0
 *       "logs": {
 *         "bytes_per_step_per_node": bytes, logs and metrics written per training step per
 *                                          node; default 0
 *         "retention": duration,           how long logs are kept; default 0 (needs
 *                                          bytes_per_step_per_node > 0)
 *         "tier": "hot" | "warm" | "cold"  default "hot"
 *       }
 *     },
 *     "network": {
 *       "inter_node_gb": USD,              per GB crossing nodes inside the cluster (0 in one
 *                                          availability zone; inter-AZ 0.01 each way)
 *       "egress": bytes,                   leaving the cloud (e.g. downloading the model)
 *       "egress_gb": USD,                  per GB of egress (AWS internet egress 0.09)
 *       "cross_region": bytes,             moved between regions (e.g. dataset replication)
 *       "cross_region_gb": USD             per GB across regions (AWS ~0.02)
 *     },                                   all default 0
 *     "data": {
 *       "bytes_per_token": bytes,          input bytes read per training token; 0 (default)
 *                                          = no loader model
 *       "loader_throughput": B/s,          what one loader host delivers; required with
 *                                          bytes_per_token
 *       "hosts": n | "auto",               loader hosts; default "auto" = as many as the
 *                                          GPUs need (no stall); fewer can cap the iteration
 *       "host_hour": USD                   per loader-host-hour; default 0
 *     },
 *     "monitoring": {
 *       "node_hour": USD,                  agents and metrics per node-hour (job nodes and
 *                                          hot spares); default 0
 *       "ingest_gb": USD                   per GB of logs ingested; default 0
 *     },
 *     "operations": {
 *       "hours_per_incident": h,           human hours per failure or preemption; default 0
 *       "hours_per_restart": h,            extra human hours per restart; default 0
 *       "hourly_rate": USD                 per human hour; default 0
 *     },
 *     "commitment": {                      reserved capacity as it is sold (parse_commitment);
 *                                          pricing is then "reserved"
 *       "term": duration,                  required: "1 y", "3 y" or a capacity block "14 d"
 *       "gpus": n | "nodes": n,            committed; default the job's GPUs. In a sweep
 *                                          "nodes" may be a list, a range or "auto" (the
 *                                          sweep's node counts): the base is searched and
 *                                          each reserved row keeps the cheapest (sim/search)
 *       "gpu_hour": USD,                   per committed GPU-hour; default gpu_hour.reserved
 *       "upfront": USD,                    paid once; default 0
 *       "other_use_value": 0..1,           of the idle term's price recovered by other work
 *       "burst_pricing": "on_demand" | "spot"   GPUs beyond it, time past it; default on_demand
 *     }
 *   }
 *
 * A price file has the same keys except "prices", plus "date" and "source" (both required:
 * every catalogue number cites its source) and optional "name" and "description". The bill
 * records "FILE (DATE, SOURCE)" in price_source so every output says which prices it used.
 *
 * A price of 0 is a price (free capacity, a sunk-cost what-if), for every price key; only a
 * gpu_hour / node_hour that is not given at all means "no price" (ts_cost_config_has_price).
 *
 * Errors (TS_ERR_INPUT, "FILE: JSON.PATH: what is wrong"): unknown keys, negative prices,
 * unknown pricing or tier names, a retention without a volume, a loader without a
 * throughput, and a pricing whose price is missing ("cost.gpu_hour.spot").
 */
#include <math.h>
#include <string.h>

#include "spec/spec.h"

#define PRICE_MAX 1e9           // USD per unit: far above any real price, catches unit slips
#define MONEY_MAX 1e15          // USD in a budget
#define BYTES_MAX 1e21
#define DURATION_MAX 3.2e9      // about 100 years
#define HOURS_MAX 1e6
#define DAY_S 86400.0

/* ---------------------------------------------------------------- defaults */

void ts_cost_config_defaults(struct ts_cost_config *c)
{
    memset(c, 0, sizeof *c);
    c->pricing = TS_PRICING_ON_DEMAND;
    c->spare_pricing = TS_PRICING_ON_DEMAND;
    /* AWS us-east-1 S3 storage classes (shared reference prices.md), USD per GB-month. */
    c->storage_gb_month[TS_TIER_HOT] = 0.023;       // S3 Standard
    c->storage_gb_month[TS_TIER_WARM] = 0.0125;     // S3 Standard-IA
    c->storage_gb_month[TS_TIER_COLD] = 0.0036;     // S3 Glacier Flexible Retrieval
    /* S3 lifecycle transitions to Standard-IA need objects at least 30 days old; Glacier
     * Flexible Retrieval bills a 90-day minimum, so moving earlier saves nothing. */
    c->tier_after_s[TS_TIER_HOT] = 0.0;
    c->tier_after_s[TS_TIER_WARM] = 30.0 * DAY_S;
    c->tier_after_s[TS_TIER_COLD] = 90.0 * DAY_S;
    c->dataset_tier = TS_TIER_HOT;
    c->log_tier = TS_TIER_HOT;
    c->loader_hosts = 0;                            // auto
    /* A missing price is NAN, not 0: a zero is a price (free or sunk-cost capacity). */
    for (int p = 0; p < TS_PRICING_COUNT; p++)
        c->gpu_hour[p] = c->node_hour[p] = (double)NAN;
}

bool ts_cost_config_has_price(const struct ts_cost_config *c, enum ts_pricing pricing)
{
    return !isnan(c->gpu_hour[pricing]) || !isnan(c->node_hour[pricing]);
}

/* ---------------------------------------------------------------- key lists */

#define COST_COMMON_KEYS                                                                     \
    "pricing", "gpu_hour", "node_hour", "spare_pricing", "fixed_per_hour", "budget", "storage", \
        "network", "data", "monitoring", "operations"

static const char *const cost_keys[] = {"prices", COST_COMMON_KEYS, "commitment", NULL};
static const char *const commitment_keys[] = {"term", "gpus", "nodes", "gpu_hour", "upfront",
                                              "other_use_value", "burst_pricing", NULL};
static const char *const price_file_keys[] = {"name", "description", "date", "source",
                                              COST_COMMON_KEYS, NULL};
static const char *const storage_keys[] = {"price_gb_month", "tier_after", "dataset",
                                           "checkpoint_retention", "logs", NULL};
static const char *const tier_after_keys[] = {"warm", "cold", NULL};
static const char *const dataset_keys[] = {"size", "tier", NULL};
static const char *const logs_keys[] = {"bytes_per_step_per_node", "retention", "tier", NULL};
static const char *const network_keys[] = {"inter_node_gb", "egress", "egress_gb",
                                           "cross_region", "cross_region_gb", NULL};
static const char *const data_keys[] = {"bytes_per_token", "loader_throughput", "hosts",
                                        "host_hour", NULL};
static const char *const monitoring_keys[] = {"node_hour", "ingest_gb", NULL};
static const char *const operations_keys[] = {"hours_per_incident", "hours_per_restart",
                                              "hourly_rate", NULL};

/* ---------------------------------------------------------------- pieces */

/* Read a non-negative price (USD per unit). */
static int get_price(const struct ts_jnode *obj, const char *key, double *out, struct ts_err *err)
{
    return ts_jnode_get_quantity(obj, key, TS_OPTIONAL, TS_DIM_NUMBER, 0.0, PRICE_MAX, out, err);
}

/* {"on_demand": USD, "reserved": USD, "spot": USD}: fills v[] and marks the given ones. */
static int parse_pricing_table(const struct ts_jnode *node, double v[TS_PRICING_COUNT],
                               bool given[TS_PRICING_COUNT], struct ts_err *err)
{
    static const char *const keys[] = {"on_demand", "reserved", "spot", NULL};
    _Static_assert(TS_PRICING_COUNT == 3, "update the pricing table keys");
    int rc = ts_jnode_check_keys(node, keys, err);
    if (rc)
        return rc;
    for (int p = 0; p < TS_PRICING_COUNT; p++) {
        struct ts_jnode c;
        given[p] = ts_jnode_child(node, ts_pricing_names[p], &c);
        if (given[p] && (rc = get_price(node, ts_pricing_names[p], &v[p], err)))
            return rc;
    }
    return TS_OK;
}

/* gpu_hour and node_hour of one object. A price stated one way replaces the same pricing's
 * price stated the other way (a job's gpu_hour.spot overrides a price file's node_hour.spot). */
static int parse_hour_prices(const struct ts_jnode *obj, struct ts_cost_config *c,
                             struct ts_err *err)
{
    double gpu[TS_PRICING_COUNT] = {0}, node[TS_PRICING_COUNT] = {0};
    bool gpu_given[TS_PRICING_COUNT] = {false}, node_given[TS_PRICING_COUNT] = {false};
    struct ts_jnode g, n;
    bool has_g = ts_jnode_child(obj, "gpu_hour", &g);
    bool has_n = ts_jnode_child(obj, "node_hour", &n);
    int rc;
    if ((has_g && (rc = parse_pricing_table(&g, gpu, gpu_given, err))) ||
        (has_n && (rc = parse_pricing_table(&n, node, node_given, err))))
        return rc;
    for (int p = 0; p < TS_PRICING_COUNT; p++) {
        if (gpu_given[p] && node_given[p]) {
            char path[TS_PATH_MAX];
            snprintf(path, sizeof path, "%s.%s", n.path, ts_pricing_names[p]);
            return ts_err_at(err, obj->file, path,
                             "%s is priced twice (gpu_hour.%s and node_hour.%s); give one",
                             ts_pricing_names[p], ts_pricing_names[p], ts_pricing_names[p]);
        }
        if (gpu_given[p]) {
            c->gpu_hour[p] = gpu[p];
            c->node_hour[p] = (double)NAN;
        } else if (node_given[p]) {
            c->node_hour[p] = node[p];
            c->gpu_hour[p] = (double)NAN;
        }
    }
    return TS_OK;
}

/* A tier age: a duration or "never" (the data never moves to that tier). */
static int get_tier_age(const struct ts_jnode *obj, const char *key, double *out,
                        struct ts_err *err)
{
    struct ts_jnode c;
    if (!ts_jnode_child(obj, key, &c))
        return TS_OK;
    if (cJSON_IsString(c.json) && strcmp(c.json->valuestring, "never") == 0) {
        *out = (double)INFINITY;
        return TS_OK;
    }
    return ts_jnode_to_quantity(&c, TS_DIM_SECONDS, 0.0, DURATION_MAX, out, err);
}

static int parse_storage(const struct ts_jnode *node, struct ts_cost_config *c, struct ts_err *err)
{
    static const char *const tier_keys[] = {"hot", "warm", "cold", NULL};
    _Static_assert(TS_TIER_COUNT == 3, "update the tier keys");
    int rc;
    if ((rc = ts_jnode_check_keys(node, storage_keys, err)))
        return rc;
    struct ts_jnode sub;
    if (ts_jnode_child(node, "price_gb_month", &sub)) {
        if ((rc = ts_jnode_check_keys(&sub, tier_keys, err)))
            return rc;
        for (int t = 0; t < TS_TIER_COUNT; t++)
            if ((rc = get_price(&sub, ts_tier_names[t], &c->storage_gb_month[t], err)))
                return rc;
    }
    if (ts_jnode_child(node, "tier_after", &sub)) {
        if ((rc = ts_jnode_check_keys(&sub, tier_after_keys, err)) ||
            (rc = get_tier_age(&sub, "warm", &c->tier_after_s[TS_TIER_WARM], err)) ||
            (rc = get_tier_age(&sub, "cold", &c->tier_after_s[TS_TIER_COLD], err)))
            return rc;
    }
    if (ts_jnode_child(node, "dataset", &sub)) {
        int tier = (int)c->dataset_tier;
        if ((rc = ts_jnode_check_keys(&sub, dataset_keys, err)) ||
            (rc = ts_jnode_get_quantity(&sub, "size", TS_OPTIONAL, TS_DIM_BYTES, 0.0, BYTES_MAX,
                                        &c->dataset_bytes, err)) ||
            (rc = ts_jnode_get_enum(&sub, "tier", TS_OPTIONAL, ts_tier_names, TS_TIER_COUNT,
                                    &tier, err)))
            return rc;
        c->dataset_tier = (enum ts_tier)tier;
        struct ts_jnode t;
        if (ts_jnode_child(&sub, "tier", &t) && c->dataset_bytes <= 0.0)
            return ts_err_at(err, t.file, t.path,
                             "\"%s\" is given but the dataset has no size; give "
                             "dataset.size (e.g. \"2 TB\")", ts_tier_names[tier]);
    }
    if ((rc = ts_jnode_get_quantity(node, "checkpoint_retention", TS_OPTIONAL, TS_DIM_SECONDS,
                                    0.0, DURATION_MAX, &c->checkpoint_retention_s, err)))
        return rc;
    if (ts_jnode_child(node, "logs", &sub)) {
        int tier = (int)c->log_tier;
        if ((rc = ts_jnode_check_keys(&sub, logs_keys, err)) ||
            (rc = ts_jnode_get_quantity(&sub, "bytes_per_step_per_node", TS_OPTIONAL,
                                        TS_DIM_BYTES, 0.0, BYTES_MAX, &c->log_bytes_per_step_node,
                                        err)) ||
            (rc = ts_jnode_get_quantity(&sub, "retention", TS_OPTIONAL, TS_DIM_SECONDS, 0.0,
                                        DURATION_MAX, &c->log_retention_s, err)) ||
            (rc = ts_jnode_get_enum(&sub, "tier", TS_OPTIONAL, ts_tier_names, TS_TIER_COUNT,
                                    &tier, err)))
            return rc;
        c->log_tier = (enum ts_tier)tier;
    }
    return TS_OK;
}

static int parse_network(const struct ts_jnode *node, struct ts_cost_config *c, struct ts_err *err)
{
    int rc;
    if ((rc = ts_jnode_check_keys(node, network_keys, err)) ||
        (rc = get_price(node, "inter_node_gb", &c->inter_node_gb, err)) ||
        (rc = ts_jnode_get_quantity(node, "egress", TS_OPTIONAL, TS_DIM_BYTES, 0.0, BYTES_MAX,
                                    &c->egress_bytes, err)) ||
        (rc = get_price(node, "egress_gb", &c->egress_gb, err)) ||
        (rc = ts_jnode_get_quantity(node, "cross_region", TS_OPTIONAL, TS_DIM_BYTES, 0.0,
                                    BYTES_MAX, &c->cross_region_bytes, err)) ||
        (rc = get_price(node, "cross_region_gb", &c->cross_region_gb, err)))
        return rc;
    return TS_OK;
}

static int parse_data(const struct ts_jnode *node, struct ts_cost_config *c, struct ts_err *err)
{
    int rc;
    if ((rc = ts_jnode_check_keys(node, data_keys, err)) ||
        (rc = ts_jnode_get_quantity(node, "bytes_per_token", TS_OPTIONAL, TS_DIM_BYTES, 0.0,
                                    1e12, &c->data_bytes_per_token, err)) ||
        (rc = ts_jnode_get_quantity(node, "loader_throughput", TS_OPTIONAL, TS_DIM_BYTES_PER_S,
                                    0.0, 1e15, &c->loader_bytes_per_s, err)) ||
        (rc = get_price(node, "host_hour", &c->loader_host_hour, err)))
        return rc;
    struct ts_jnode h;
    if (ts_jnode_child(node, "hosts", &h)) {
        if (cJSON_IsString(h.json) && strcmp(h.json->valuestring, "auto") == 0) {
            c->loader_hosts = 0;
        } else {
            long n = 0;
            if ((rc = ts_jnode_to_long(&h, 1, 1000000, &n, err)))
                return rc;
            c->loader_hosts = (int)n;
        }
    }
    return TS_OK;
}

static int parse_monitoring(const struct ts_jnode *node, struct ts_cost_config *c,
                            struct ts_err *err)
{
    int rc;
    if ((rc = ts_jnode_check_keys(node, monitoring_keys, err)) ||
        (rc = get_price(node, "node_hour", &c->monitoring_node_hour, err)) ||
        (rc = get_price(node, "ingest_gb", &c->log_ingest_gb, err)))
        return rc;
    return TS_OK;
}

static int parse_operations(const struct ts_jnode *node, struct ts_cost_config *c,
                            struct ts_err *err)
{
    int rc;
    if ((rc = ts_jnode_check_keys(node, operations_keys, err)) ||
        (rc = ts_jnode_get_quantity(node, "hours_per_incident", TS_OPTIONAL, TS_DIM_NUMBER, 0.0,
                                    HOURS_MAX, &c->ops_hours_per_incident, err)) ||
        (rc = ts_jnode_get_quantity(node, "hours_per_restart", TS_OPTIONAL, TS_DIM_NUMBER, 0.0,
                                    HOURS_MAX, &c->ops_hours_per_restart, err)) ||
        (rc = get_price(node, "hourly_rate", &c->ops_hourly_rate, err)))
        return rc;
    return TS_OK;
}

/* The keys a job's cost object and a price file share, applied over *c. `spare_given` is
 * set when the object states spare_pricing. */
static int parse_common(const struct ts_jnode *obj, struct ts_cost_config *c, bool *spare_given,
                        struct ts_err *err)
{
    int rc;
    int pricing = (int)c->pricing, spare = (int)c->spare_pricing;
    if ((rc = ts_jnode_get_enum(obj, "pricing", TS_OPTIONAL, ts_pricing_names, TS_PRICING_COUNT,
                                &pricing, err)) ||
        (rc = ts_jnode_get_enum(obj, "spare_pricing", TS_OPTIONAL, ts_pricing_names,
                                TS_PRICING_COUNT, &spare, err)) ||
        (rc = parse_hour_prices(obj, c, err)) ||
        (rc = get_price(obj, "fixed_per_hour", &c->fixed_per_hour, err)) ||
        (rc = ts_jnode_get_quantity(obj, "budget", TS_OPTIONAL, TS_DIM_NUMBER, 0.0, MONEY_MAX,
                                    &c->budget, err)))
        return rc;
    c->pricing = (enum ts_pricing)pricing;
    c->spare_pricing = (enum ts_pricing)spare;
    struct ts_jnode sub;
    if (ts_jnode_child(obj, "spare_pricing", &sub))
        *spare_given = true;
    if ((ts_jnode_child(obj, "storage", &sub) && (rc = parse_storage(&sub, c, err))) ||
        (ts_jnode_child(obj, "network", &sub) && (rc = parse_network(&sub, c, err))) ||
        (ts_jnode_child(obj, "data", &sub) && (rc = parse_data(&sub, c, err))) ||
        (ts_jnode_child(obj, "monitoring", &sub) && (rc = parse_monitoring(&sub, c, err))) ||
        (ts_jnode_child(obj, "operations", &sub) && (rc = parse_operations(&sub, c, err))))
        return rc;
    return TS_OK;
}

/* ---------------------------------------------------------------- price files */

/* Load the price file that `ref` names (relative to the job file) over *c and record where the
 * prices came from. */
static int load_price_file(const struct ts_jnode *ref, struct ts_cost_config *c,
                           bool *spare_given, struct ts_err *err)
{
    if (!cJSON_IsString(ref->json)) {
        char d[96];
        ts_jnode_describe(ref->json, d, sizeof d);
        return ts_err_at(err, ref->file, ref->path,
                         "expected a price file name (configs/prices/NAME.json) or a path, got %s",
                         d);
    }
    const char *name = ref->json->valuestring;
    char path[2048];
    struct ts_err inner;
    ts_err_clear(&inner);
    if (ts_spec_resolve(TS_CAT_PRICES, name, ref->file, path, sizeof path, &inner))
        return ts_err_at(err, ref->file, ref->path, "%s", inner.msg);
    cJSON *doc;
    int rc = ts_json_load(path, &doc, err);
    if (rc)
        return rc;
    struct ts_jnode root = ts_jnode_root(doc, path);
    root.inputs = ref->inputs;
    ts_inputs_record(ref->inputs, path, doc);
    char date[128] = "", source[TS_SOURCE_MAX] = "";
    if ((rc = ts_jnode_check_keys(&root, price_file_keys, err)) ||
        (rc = ts_jnode_get_string(&root, "date", TS_REQUIRED, date, sizeof date, err)) ||
        (rc = ts_jnode_get_string(&root, "source", TS_REQUIRED, source, sizeof source, err)) ||
        (rc = ts_jnode_get_text(&root, "name", TS_OPTIONAL, NULL, err)) ||
        (rc = ts_jnode_get_text(&root, "description", TS_OPTIONAL, NULL, err)) ||
        (rc = parse_common(&root, c, spare_given, err))) {
        cJSON_Delete(doc);
        return rc;
    }
    cJSON_Delete(doc);
    /* Say the file the way the user would find it: configs/prices/NAME.json for a name. */
    size_t len = strlen(name);
    bool is_name = !strchr(name, '/') && !(len > 5 && strcmp(name + len - 5, ".json") == 0);
    char shown[512];
    if (is_name)
        snprintf(shown, sizeof shown, "configs/prices/%s.json", name);
    else
        snprintf(shown, sizeof shown, "%s", name);
    char full[sizeof shown + sizeof date + sizeof source + 8];
    snprintf(full, sizeof full, "%s (%s, %s)", shown, date, source);
    size_t n = sizeof c->price_source;
    if (strlen(full) >= n)
        memcpy(full + n - 5, "...)", 5);    // a long source is cut, visibly
    ts_strlcpy(c->price_source, full, n);
    return TS_OK;
}

/* ---------------------------------------------------------------- commitments */

/* "commitment": {"term": "1 y" | "3 y" | "14 d", "gpus": N | "nodes": N, "gpu_hour": USD,
 * "upfront": USD, "other_use_value": 0..1, "burst_pricing": "on_demand" | "spot"}: reserved
 * capacity as it is sold (a 1- or 3-year reservation, or a capacity block of N days) billed
 * for its whole term whether the run uses it or not; GPUs beyond it, and time past its term,
 * are bought at burst_pricing (the "buy plan": a reserved base with on-demand burst). */
static int parse_commitment(const struct ts_jnode *node, struct ts_cost_config *c,
                            struct ts_err *err)
{
    int rc;
    if ((rc = ts_jnode_check_keys(node, commitment_keys, err)))
        return rc;
    struct ts_jnode nn;
    if (ts_jnode_child(node, "nodes", &nn) &&
        (cJSON_IsArray(nn.json) || cJSON_IsObject(nn.json) || cJSON_IsString(nn.json))) {
        bool words = cJSON_IsString(nn.json) && strcmp(nn.json->valuestring, "auto") != 0;
        if (!words)
            return ts_err_at(err, nn.file, nn.path,
                             "a job commits one number of nodes; a list, a range or \"auto\" "
                             "is searched by a sweep (trainsim sweep: the cheapest base + "
                             "burst)");
    }
    c->commit = true;
    c->commit_gpu_hour = NAN;
    c->burst_pricing = TS_PRICING_ON_DEMAND;
    int burst = (int)c->burst_pricing;
    if ((rc = ts_jnode_get_quantity(node, "term", TS_REQUIRED, TS_DIM_SECONDS, 3600.0,
                                    10 * 31557600.0, &c->commit_term_s, err)) ||
        (rc = ts_jnode_get_quantity(node, "gpus", TS_OPTIONAL, TS_DIM_NUMBER, 1, 1e7,
                                    &c->commit_gpus, err)) ||
        (rc = ts_jnode_get_quantity(node, "nodes", TS_OPTIONAL, TS_DIM_NUMBER, 1, 1e6,
                                    &c->commit_nodes, err)) ||
        (rc = get_price(node, "gpu_hour", &c->commit_gpu_hour, err)) ||
        (rc = get_price(node, "upfront", &c->commit_upfront, err)) ||
        (rc = ts_jnode_get_quantity(node, "other_use_value", TS_OPTIONAL, TS_DIM_NUMBER, 0.0,
                                    1.0, &c->commit_other_use, err)) ||
        (rc = ts_jnode_get_enum(node, "burst_pricing", TS_OPTIONAL, ts_pricing_names,
                                TS_PRICING_COUNT, &burst, err)))
        return rc;
    struct ts_jnode a, b;
    if (ts_jnode_child(node, "gpus", &a) && ts_jnode_child(node, "nodes", &b))
        return ts_err_at(err, b.file, b.path, "give gpus or nodes committed, not both");
    if (c->commit_gpus != floor(c->commit_gpus) || c->commit_nodes != floor(c->commit_nodes)) {
        ts_jnode_child(node, c->commit_gpus != floor(c->commit_gpus) ? "gpus" : "nodes", &a);
        return ts_err_at(err, a.file, a.path, "must be a whole number");
    }
    c->burst_pricing = (enum ts_pricing)burst;
    if (c->burst_pricing == TS_PRICING_RESERVED) {
        ts_jnode_child(node, "burst_pricing", &a);
        return ts_err_at(err, a.file, a.path, "burst capacity is bought on_demand or spot");
    }
    if (isnan(c->commit_upfront))
        c->commit_upfront = 0.0;
    return TS_OK;
}

/* ---------------------------------------------------------------- the cost object */

/* Location of key `rel` under the cost object, for messages about merged values. */
static void cost_path(const struct ts_jnode *node, const char *rel, char *out, size_t n)
{
    if (node->path[0])
        snprintf(out, n, "%s.%s", node->path, rel);
    else
        snprintf(out, n, "%s", rel);
}

int ts_cost_config_parse(const struct ts_jnode *node, struct ts_cost_config *out,
                         struct ts_err *err)
{
    int rc;
    if ((rc = ts_jnode_check_keys(node, cost_keys, err)))
        return rc;
    bool spare_given = false;
    snprintf(out->price_source, sizeof out->price_source, "%s (prices given in the job)",
             node->file ? node->file : "<input>");
    struct ts_jnode ref;
    if (ts_jnode_child(node, "prices", &ref) &&
        (rc = load_price_file(&ref, out, &spare_given, err)))
        return rc;
    if ((rc = parse_common(node, out, &spare_given, err)))
        return rc;
    struct ts_jnode cm;
    if (ts_jnode_child(node, "commitment", &cm)) {
        if ((rc = parse_commitment(&cm, out, err)))
            return rc;
        struct ts_jnode pr;
        if (ts_jnode_child(node, "pricing", &pr) && out->pricing != TS_PRICING_RESERVED)
            return ts_err_at(err, pr.file, pr.path,
                             "\"%s\" with a commitment: committed capacity is reserved "
                             "(say \"reserved\" or leave pricing out)",
                             ts_pricing_names[out->pricing]);
        out->pricing = TS_PRICING_RESERVED;
        /* NAN stays: the bill takes the reserved price (gpu_hour or node_hour). */
        if (isnan(out->commit_gpu_hour) && !ts_cost_config_has_price(out, TS_PRICING_RESERVED)) {
            char path[TS_PATH_MAX];
            cost_path(node, "commitment.gpu_hour", path, sizeof path);
            return ts_err_at(err, node->file, path,
                             "the committed price: give commitment.gpu_hour (USD per GPU-hour "
                             "of the term) or gpu_hour.reserved");
        }
    }
    if (!spare_given)   /* hot spares beyond a commitment are burst capacity */
        out->spare_pricing = out->commit ? out->burst_pricing : out->pricing;

    /* Checks on the merged values (a price file and the job together). */
    char path[TS_PATH_MAX], rel[64];
    const char *file = node->file;
    enum ts_pricing used[2] = {out->pricing, out->spare_pricing};
    for (int i = 0; i < 2; i++) {
        enum ts_pricing p = used[i];
        if (ts_cost_config_has_price(out, p) ||
            (i == 0 && out->commit && !isnan(out->commit_gpu_hour)) ||
            (i == 1 && out->commit && !spare_given))
            continue;   /* a commitment with its own price needs no reserved rate; its spares
                         * are burst capacity, priced when there are any (sim/cost) */
        snprintf(rel, sizeof rel, "gpu_hour.%s", ts_pricing_names[p]);
        cost_path(node, rel, path, sizeof path);
        return ts_err_at(err, file, path,
                         "no price for %s \"%s\": give gpu_hour.%s (USD per GPU-hour) or "
                         "node_hour.%s, or a \"prices\" file that has it",
                         i == 0 ? "\"pricing\":" : "\"spare_pricing\":", ts_pricing_names[p],
                         ts_pricing_names[p], ts_pricing_names[p]);
    }
    if (out->tier_after_s[TS_TIER_COLD] < out->tier_after_s[TS_TIER_WARM]) {
        char a[48], b[48];
        ts_quantity_format(out->tier_after_s[TS_TIER_COLD], TS_DIM_SECONDS, a, sizeof a);
        ts_quantity_format(out->tier_after_s[TS_TIER_WARM], TS_DIM_SECONDS, b, sizeof b);
        cost_path(node, "storage.tier_after.cold", path, sizeof path);
        return ts_err_at(err, file, path,
                         "%s comes before tier_after.warm (%s); data moves hot -> warm -> cold "
                         "(use \"never\" for a tier you do not use)", a, b);
    }
    if (out->log_retention_s > 0.0 && out->log_bytes_per_step_node <= 0.0) {
        char a[48];
        ts_quantity_format(out->log_retention_s, TS_DIM_SECONDS, a, sizeof a);
        cost_path(node, "storage.logs.retention", path, sizeof path);
        return ts_err_at(err, file, path,
                         "logs are kept %s but storage.logs.bytes_per_step_per_node is 0; give "
                         "the log volume per step and node (e.g. \"1 MB\")", a);
    }
    if (out->data_bytes_per_token > 0.0 && out->loader_bytes_per_s <= 0.0) {
        cost_path(node, "data.loader_throughput", path, sizeof path);
        return ts_err_at(err, file, path,
                         "required with data.bytes_per_token: what one loader host delivers "
                         "(e.g. \"2 GB/s\")");
    }
    if (out->loader_hosts > 0 && out->data_bytes_per_token <= 0.0) {
        cost_path(node, "data.hosts", path, sizeof path);
        return ts_err_at(err, file, path,
                         "%d loader hosts but data.bytes_per_token is 0; give the input bytes "
                         "per training token", out->loader_hosts);
    }
    return TS_OK;
}
