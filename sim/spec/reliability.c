/*
 * The `reliability` section of a job: failure processes, checkpoint policy, restarts,
 * spares and repairs, spot capacity, and the Monte Carlo settings of the run simulation
 * (sim/run). Defaults come from published figures (shared reference reliability.md).
 *
 * JSON schema (every key optional; durations are seconds or strings like "10 min", "54 d";
 * bandwidths bytes/s or strings like "1 GB/s"; sizes bytes or strings like "2.3 TB"):
 *
 *   "reliability": {
 *     "failures": [                      default: the Llama 3 derived processes below;
 *       {                                  [] means no failures at all; at most 16 entries
 *         "component": "gpu" | "node" | "network" | "job",   required; gpu processes have
 *                                          one copy per GPU, node and network one per node,
 *                                          job one for the whole job (software)
 *         "mtbf": duration,                required, 1 s to 1e13 s: mean time between
 *                                          failures of ONE component (one GPU, one node,
 *                                          the job)
 *         "distribution": "exponential" | "weibull",         default "exponential"
 *         "shape": k,                      Weibull shape, 0.1 <= k <= 1000, default 1 (k < 1:
 *                                          infant mortality, k > 1: wear-out; a very large
 *                                          k fails almost exactly at the mtbf); with
 *                                          "exponential" it must be 1 if given
 *         "name": "label"                  for reports, default the component name
 *       }, ...
 *     ],
 *     "checkpoint": {
 *       "interval": "auto" | duration,     useful compute between checkpoints (Daly's tau);
 *                                          default "auto" = Daly's higher-order optimum
 *       "interval_iterations": n,          alternative to "interval" (not both), n >= 1
 *       "mode": "sync" | "async",          default "sync"
 *       "size": bytes,                     override of the checkpoint size (default: weights
 *                                          + optimizer state, derived from the job)
 *       "write_bandwidth": B/s,            aggregate storage write limit, default 0 = none
 *       "read_bandwidth": B/s,             aggregate storage read limit, default 0 = none
 *       "node_write_bandwidth": B/s,       per-node write limit, default 1 GB/s (0 = none)
 *       "node_read_bandwidth": B/s,        per-node read limit, default 2.5 GB/s (0 = none)
 *       "snapshot_bandwidth": B/s,         async: device-to-host copy per GPU, default 25 GB/s
 *       "keep": k                          checkpoints retained in storage, default 2
 *     },                                   (at least one write and one read limit must be set)
 *     "restart_overhead": duration,        detect + reschedule + initialize, default 10 min
 *                                          (the reload at read bandwidth comes on top)
 *     "spares": n,                         hot spare nodes, default 0
 *     "repair_time": duration,             time until a failed node is replaced when no hot
 *                                          spare is left, default 0: the scheduler swaps in a
 *                                          healthy node from the cluster's pool during the
 *                                          restart (how Llama 3 reached >90% effective time
 *                                          with 419 interruptions); set it for a cluster
 *                                          without free nodes
 *     "elastic": bool,                     continue with fewer data-parallel replicas while
 *                                          nodes are missing, default false
 *     "spot": {                            spot / preemptible capacity; absent = on-demand
 *       "preemption_mtbf": duration,       required: mean time between preemptions of one node
 *       "notice": duration,                warning before reclaim, default 120 s (AWS)
 *       "reacquire": duration              time to get the capacity back, default 10 min
 *     },
 *     "replications": n,                   Monte Carlo replications, 1..1000000, default 1000
 *     "seed": n                            0..2^53, default 1
 *   }
 */
#include <math.h>
#include <string.h>

#include "spec/spec.h"

/* ---------------------------------------------------------------- defaults */

/* Llama 3 405B pretraining ("The Llama 3 Herd of Models", sec. 3.3.4, Table 5; shared
 * reference reliability.md): 419 unexpected interruptions in a 54-day snapshot on 16,384
 * H100 GPUs in 2,048 nodes, about 78% of them hardware. The categories are split into four
 * processes whose shares of the 419 add up to exactly 100%:
 *
 *   gpu      57.3% = faulty GPU 30.1 + HBM3 17.2 + SRAM 4.5 + GPU system processor 4.1
 *                    + silent data corruption 1.4                       (per GPU)
 *   node     12.3% = host maintenance 7.6 + NIC 1.7 + the remaining hardware share 3.0
 *                    (78.0 hardware - 57.3 gpu - 8.4 switch/cable - 7.6 - 1.7 = 3.0)  (per node)
 *   network  10.1% = switch/cable 8.4 + NCCL watchdog 1.7               (per node)
 *   job      20.3% = software bugs 12.9 + the remaining non-hardware share 7.4
 *                    (100 - 89.6 listed = 10.4 "others", of which 3.0 hardware)     (per job)
 *
 *   57.3 + 12.3 + 10.1 + 20.3 = 100.0, so at 16,384 GPUs / 2,048 nodes the job sees
 *   419 interruptions per 54 days (job MTTF 54 x 24 / 419 = 3.09 h). Each component's MTBF
 *   is (copies x 54 d) / (share x 419):
 *     gpu      16,384 x 54 d / 240.087 = 3,685 GPU-days (10.1 GPU-years)
 *     node      2,048 x 54 d / 51.537  = 2,146 node-days (5.9 node-years)
 *     network   2,048 x 54 d / 42.319  = 2,613 node-days (7.2 node-years)
 *     job               54 d / 85.057  = 15.2 h (software is per job, not per node)
 */
#define LLAMA3_WINDOW_S (54.0 * 86400.0)
#define LLAMA3_INTERRUPTIONS 419.0
#define LLAMA3_GPUS 16384.0
#define LLAMA3_NODES 2048.0

static const struct {
    enum ts_component component;
    double share;           // fraction of the 419 unexpected interruptions
    double copies;          // copies in the Llama 3 job
    const char *name;
} llama3_processes[] = {
    {TS_COMP_GPU, 0.573, LLAMA3_GPUS, "gpu hardware"},
    {TS_COMP_NODE, 0.123, LLAMA3_NODES, "node hardware"},
    {TS_COMP_NETWORK, 0.101, LLAMA3_NODES, "network"},
    {TS_COMP_JOB, 0.203, 1.0, "software"},
};

void ts_reliability_defaults(struct ts_reliability *r)
{
    memset(r, 0, sizeof *r);
    r->n_failures = (int)TS_ARRAY_LEN(llama3_processes);
    for (int i = 0; i < r->n_failures; i++) {
        struct ts_failure_process *f = &r->failures[i];
        f->component = llama3_processes[i].component;
        f->mtbf_s = llama3_processes[i].copies * LLAMA3_WINDOW_S /
                    (llama3_processes[i].share * LLAMA3_INTERRUPTIONS);
        f->distribution = TS_DIST_EXPONENTIAL;
        f->shape = 1.0;
        ts_strlcpy(f->name, llama3_processes[i].name, sizeof f->name);
    }

    struct ts_checkpoint *c = &r->checkpoint;
    c->interval_auto = true;
    c->interval_s = 0.0;
    c->interval_iterations = 0;
    c->mode = TS_CKPT_SYNC;
    c->size_bytes = 0.0;                // derived from the job
    c->write_bandwidth = 0.0;           // no aggregate limit unless given
    c->read_bandwidth = 0.0;
    /* Per-node storage bandwidth, from three published runs (reliability.md): BLOOM saved
     * 2.3 TB in ~40 s from 48 nodes (~1.2 GB/s per node); Megatron 1T saved 13.8 TB at
     * 273 GB/s and loaded at up to 1 TB/s on 384 nodes (~0.7 / 2.6 GB/s per node); Llama 3
     * sustained 2 TB/s on 2,048 nodes (~1 GB/s per node). */
    c->node_write_bandwidth = 1e9;
    c->node_read_bandwidth = 2.5e9;
    c->snapshot_bandwidth = 25e9;       // PCIe Gen4 x16 device-to-host, per GPU
    c->keep = 2;

    r->restart_overhead_s = 600.0;      // ByteDance: fail-stop, diagnose, reschedule > 10 min
    r->spares = 0;
    /* A replacement from the cluster's pool arrives within the restart (Llama 3 405B: 419
     * unexpected interruptions in 54 days at >90% effective training time, shared reference
     * reliability.md; a day-long wait per failure could not give that). */
    r->repair_time_s = 0.0;
    r->elastic = false;
    r->spot.enabled = false;
    r->spot.preemption_mtbf_s = 0.0;
    r->spot.notice_s = 120.0;           // AWS spot interruption notice: 2 minutes
    r->spot.reacquire_s = 600.0;        // assumption: capacity back within 10 minutes
    r->replications = 1000;
    r->seed = 1;
    /* Mechanisms: all off (memset), except the hang watchdog's value for when hangs are
     * given: PyTorch's ProcessGroupNCCL default timeout, 10 min (PR 110947; recovery.csv). */
    r->mech.recovery.hang_timeout_s = 600.0;
}

/* ---------------------------------------------------------------- parser */

/* Ranges (spec.h): durations up to TS_REL_DURATION_MAX_S (~32 years: longer is a unit
 * mistake); an MTBF from 1 s to ~300,000 years; bandwidths from 1 B/s to 10 PB/s; checkpoint
 * sizes from 1 B to 1 EB. Within them every derived quantity of the run model is a finite
 * double (rates <= 1e6 copies / 1 s, times <= 1e18 B / 1 B/s), so no value in range can make
 * the arithmetic overflow; the run model still rejects a job that cannot finish.
 *
 * The Weibull shape is at least 0.1. The scale is mtbf / Gamma(1 + 1/k), and at k = 0.1 the
 * median time to the first failure of a fresh component is already mtbf x 7e-9 (ln 2^(1/k)
 * / Gamma(11)): the process is almost all infant mortality, and smaller shapes only push
 * Gamma(1 + 1/k) towards overflow (k < 0.0058) without describing any hardware. Published
 * fits of HPC and GPU failure data give k of 0.5-0.8 (Schroeder and Gibson, "A large-scale
 * study of failures in high-performance computing systems", DSN 2006: 0.7-0.8). */
#define DURATION_MAX TS_REL_DURATION_MAX_S
#define BANDWIDTH_MAX TS_REL_BANDWIDTH_MAX

static const char *const reliability_keys[] = {
    "failures", "checkpoint", "restart_overhead", "spares", "repair_time", "elastic", "spot",
    "replications", "seed", "recovery", "fail_slow", "bad_nodes", "correlated", "rollback",
    "planned", NULL,
};
static const char *const failure_keys[] = {
    "component", "mtbf", "distribution", "shape", "name", NULL,
};
static const char *const checkpoint_keys[] = {
    "interval", "interval_iterations", "mode", "size", "write_bandwidth", "read_bandwidth",
    "node_write_bandwidth", "node_read_bandwidth", "snapshot_bandwidth", "keep", NULL,
};
static const char *const spot_keys[] = {"preemption_mtbf", "notice", "reacquire", NULL};

/* Read an optional (or required) quantity that must be > 0 and in [lo, hi]. */
static int get_positive(const struct ts_jnode *obj, const char *key, enum ts_need need,
                        enum ts_dim dim, double lo, double hi, double *out, struct ts_err *err)
{
    double v = *out;
    int rc = ts_jnode_get_quantity(obj, key, need, dim, 0.0, hi, &v, err);
    if (rc)
        return rc;
    struct ts_jnode c;
    if (ts_jnode_child(obj, key, &c)) {
        if (v <= 0.0)
            return ts_err_at(err, c.file, c.path, "must be greater than zero");
        if (v < lo) {
            char d[96], a[48], b[48];
            ts_jnode_describe(c.json, d, sizeof d);
            return ts_err_at(err, c.file, c.path, "%s is out of range (allowed %s to %s)", d,
                             ts_quantity_format(lo, dim, a, sizeof a),
                             ts_quantity_format(hi, dim, b, sizeof b));
        }
    }
    *out = v;
    return TS_OK;
}

/* Read an optional bandwidth limit: 0 (no limit) or in [TS_REL_BANDWIDTH_MIN, max]. */
static int get_limit(const struct ts_jnode *obj, const char *key, double *out, struct ts_err *err)
{
    double v = *out;
    int rc = ts_jnode_get_quantity(obj, key, TS_OPTIONAL, TS_DIM_BYTES_PER_S, 0.0, BANDWIDTH_MAX,
                                   &v, err);
    if (rc)
        return rc;
    struct ts_jnode c;
    if (v > 0.0 && v < TS_REL_BANDWIDTH_MIN && ts_jnode_child(obj, key, &c)) {
        char d[96], a[48], b[48];
        ts_jnode_describe(c.json, d, sizeof d);
        return ts_err_at(err, c.file, c.path, "%s is out of range (allowed 0 for no limit, or %s "
                         "to %s)", d, ts_quantity_format(TS_REL_BANDWIDTH_MIN, TS_DIM_BYTES_PER_S,
                                                         a, sizeof a),
                         ts_quantity_format(BANDWIDTH_MAX, TS_DIM_BYTES_PER_S, b, sizeof b));
    }
    *out = v;
    return TS_OK;
}

static int parse_failure(const struct ts_jnode *node, struct ts_failure_process *f,
                         struct ts_err *err)
{
    int rc;
    if ((rc = ts_jnode_check_keys(node, failure_keys, err)))
        return rc;
    int comp = 0, dist = TS_DIST_EXPONENTIAL;
    f->mtbf_s = 0.0;
    f->shape = 1.0;
    if ((rc = ts_jnode_get_enum(node, "component", TS_REQUIRED, ts_component_names,
                                TS_COMP_COUNT, &comp, err)) ||
        (rc = get_positive(node, "mtbf", TS_REQUIRED, TS_DIM_SECONDS, TS_REL_MTBF_MIN_S,
                           TS_REL_MTBF_MAX_S, &f->mtbf_s, err)) ||
        (rc = ts_jnode_get_enum(node, "distribution", TS_OPTIONAL, ts_distribution_names,
                                TS_DIST_COUNT, &dist, err)) ||
        (rc = get_positive(node, "shape", TS_OPTIONAL, TS_DIM_NUMBER, TS_REL_SHAPE_MIN,
                           TS_REL_SHAPE_MAX, &f->shape, err)))
        return rc;
    f->component = (enum ts_component)comp;
    f->distribution = (enum ts_distribution)dist;
    struct ts_jnode c;
    if (f->distribution == TS_DIST_EXPONENTIAL && f->shape != 1.0 &&
        ts_jnode_child(node, "shape", &c))
        return ts_err_at(err, c.file, c.path,
                         "an exponential process has shape 1; use \"distribution\": \"weibull\" "
                         "for shape %g", f->shape);
    ts_strlcpy(f->name, ts_component_names[f->component], sizeof f->name);
    return ts_jnode_get_string(node, "name", TS_OPTIONAL, f->name, sizeof f->name, err);
}

static int parse_failures(const struct ts_jnode *node, struct ts_reliability *r, struct ts_err *err)
{
    int rc;
    if ((rc = ts_jnode_expect_array(node, err)))
        return rc;
    int n = cJSON_GetArraySize(node->json);
    if (n > TS_FAILURES_MAX)
        return ts_err_at(err, node->file, node->path,
                         "%d failure processes; at most %d are supported (merge processes of "
                         "the same component: their rates add)", n, TS_FAILURES_MAX);
    for (int i = 0; i < n; i++) {
        struct ts_jnode item = ts_jnode_item(node, i);
        if ((rc = parse_failure(&item, &r->failures[i], err)))
            return rc;
    }
    r->n_failures = n;
    return TS_OK;
}

/* At least one of an aggregate limit and a per-node limit must bound a transfer. */
static int require_a_limit(const struct ts_jnode *node, const char *aggregate_key,
                           const char *node_key, double aggregate, double per_node,
                           struct ts_err *err)
{
    if (aggregate > 0.0 || per_node > 0.0)
        return TS_OK;
    struct ts_jnode c;
    ts_jnode_child(node, node_key, &c);
    return ts_err_at(err, c.file, c.path,
                     "no bandwidth limit is left (%s and %s are both 0), so checkpoints would "
                     "take no time; give at least one of them", aggregate_key, node_key);
}

static int parse_checkpoint(const struct ts_jnode *node, struct ts_checkpoint *c, struct ts_err *err)
{
    int rc;
    if ((rc = ts_jnode_check_keys(node, checkpoint_keys, err)))
        return rc;
    struct ts_jnode iv, it;
    bool has_interval = ts_jnode_child(node, "interval", &iv);
    bool has_iterations = ts_jnode_child(node, "interval_iterations", &it);
    if (has_interval && has_iterations)
        return ts_err_at(err, it.file, it.path,
                         "give either \"interval\" or \"interval_iterations\", not both");
    if (has_interval) {
        if (cJSON_IsString(iv.json) && strcmp(iv.json->valuestring, "auto") == 0) {
            c->interval_auto = true;
            c->interval_iterations = 0;
        } else {
            double v = 0.0;
            struct ts_err inner;
            ts_err_clear(&inner);
            if (ts_jnode_to_quantity(&iv, TS_DIM_SECONDS, 0.0, DURATION_MAX, &v, &inner)) {
                // inner.msg is "FILE: PATH: detail"; say that "auto" is the other choice.
                size_t prefix = strlen(iv.file ? iv.file : "<input>") + 2 + strlen(iv.path) + 2;
                const char *detail = strlen(inner.msg) > prefix ? inner.msg + prefix : inner.msg;
                return ts_err_at(err, iv.file, iv.path, "%s (or \"auto\" for Daly's optimum)",
                                 detail);
            }
            if (v <= 0.0)
                return ts_err_at(err, iv.file, iv.path,
                                 "must be greater than zero (or \"auto\" for Daly's optimum)");
            c->interval_auto = false;
            c->interval_s = v;
            c->interval_iterations = 0;
        }
    }
    if (has_iterations) {
        long n = 0;
        if ((rc = ts_jnode_to_long(&it, 1, 1000000000L, &n, err)))
            return rc;
        c->interval_auto = false;
        c->interval_iterations = n;
        c->interval_s = 0.0;
    }
    int mode = (int)c->mode;
    if ((rc = ts_jnode_get_enum(node, "mode", TS_OPTIONAL, ts_ckpt_mode_names, TS_CKPT_COUNT,
                                &mode, err)) ||
        (rc = get_positive(node, "size", TS_OPTIONAL, TS_DIM_BYTES, TS_REL_SIZE_MIN_BYTES,
                           TS_REL_SIZE_MAX_BYTES, &c->size_bytes, err)) ||
        (rc = get_limit(node, "write_bandwidth", &c->write_bandwidth, err)) ||
        (rc = get_limit(node, "read_bandwidth", &c->read_bandwidth, err)) ||
        (rc = get_limit(node, "node_write_bandwidth", &c->node_write_bandwidth, err)) ||
        (rc = get_limit(node, "node_read_bandwidth", &c->node_read_bandwidth, err)) ||
        (rc = get_positive(node, "snapshot_bandwidth", TS_OPTIONAL, TS_DIM_BYTES_PER_S,
                           TS_REL_BANDWIDTH_MIN, BANDWIDTH_MAX, &c->snapshot_bandwidth, err)) ||
        (rc = ts_jnode_get_int(node, "keep", TS_OPTIONAL, 1, 1000000, &c->keep, err)))
        return rc;
    c->mode = (enum ts_ckpt_mode)mode;
    if ((rc = require_a_limit(node, "write_bandwidth", "node_write_bandwidth", c->write_bandwidth,
                              c->node_write_bandwidth, err)) ||
        (rc = require_a_limit(node, "read_bandwidth", "node_read_bandwidth", c->read_bandwidth,
                              c->node_read_bandwidth, err)))
        return rc;
    return TS_OK;
}

static int parse_spot(const struct ts_jnode *node, struct ts_spot *s, struct ts_err *err)
{
    int rc;
    if ((rc = ts_jnode_check_keys(node, spot_keys, err)) ||
        (rc = get_positive(node, "preemption_mtbf", TS_REQUIRED, TS_DIM_SECONDS,
                           TS_REL_MTBF_MIN_S, TS_REL_MTBF_MAX_S, &s->preemption_mtbf_s, err)) ||
        (rc = ts_jnode_get_quantity(node, "notice", TS_OPTIONAL, TS_DIM_SECONDS, 0.0,
                                    DURATION_MAX, &s->notice_s, err)) ||
        (rc = ts_jnode_get_quantity(node, "reacquire", TS_OPTIONAL, TS_DIM_SECONDS, 0.0,
                                    DURATION_MAX, &s->reacquire_s, err)))
        return rc;
    s->enabled = true;
    return TS_OK;
}

/* ---------------------------------------------------------------- recovery and incidents */

/* The recovery phases and incident mechanisms of the run simulation (issue 13). Every key is
 * optional and every mechanism is off unless its object is given; sources are in
 * experiments/failure-rework/published (recovery.csv, fail-slow.csv, correlated-and-lemons.csv,
 * Derivations D8, D10, D11 of its README).
 *
 *   "recovery": {                       phases after every unplanned failure, on top of
 *                                       restart_overhead + reload (which keep their meaning)
 *     "crash_detection": duration,      default 0: a crash is seen at once
 *     "hang_fraction": f,               share of failures that are hangs, 0..1, default 0
 *     "hang_timeout": duration,         hang detection, default 10 min: the PyTorch
 *                                       ProcessGroupNCCL default since PR 110947 (30 min
 *                                       before; NVRx heartbeat 45 min)
 *     "diagnose": "automated" | "manual" | {"median": d, "mean": d} | {"median": d, "sigma": s},
 *                                       diagnosis + node replacement, lognormal; "automated":
 *                                       median 10 min, sigma 0.541 (mean 11.6 min; Kokolis u0
 *                                       5-20 min as 10th/90th percentiles, D10); "manual":
 *                                       median 10.6 h, sigma 0.55 (mean 12.3 h; BLOOM's manual
 *                                       incidents, D11); default: no such phase. The
 *                                       presets are whole recoveries (detection, repair and
 *                                       restart as measured), so a job that uses one should
 *                                       set restart_overhead to 0 to count the restart once
 *     "queue": duration,                waiting for capacity before the restart, default 0
 *     "startup": duration,              framework start-up, fixed part, default 0
 *     "startup_per_node": duration      and its part per node of the job (an assumption: no
 *                                       size law was found, only MegaScale's "within 15 min"
 *                                       at > 10,000 GPUs), default 0
 *   },
 *   "fail_slow": {                      a degraded GPU slows every step until detected
 *     "gpu_mtbf": duration,             required: mean time between onsets of one GPU
 *     "factor": x,                      step time multiplier, 1 < x <= 100, default 1.1
 *                                       (MegaScale: ~10% longer forward computation)
 *     "detection": duration             required: onset to detection; the slow GPU is then
 *                                       drained with a checkpoint and a restart (no work lost)
 *   },
 *   "bad_nodes": {                      lemons: they fail more often and come back after a
 *                                       naive repair (OPT: "the same bad machine again")
 *     "fraction": f,                    required, 0..1: share of the job's nodes
 *     "multiplier": m,                  required, >= 1: lemon rate / healthy node rate
 *     "evict_after": k,                 evict a node after k failures in the window and
 *                                       replace it with a healthy one, default 0 = never
 *     "window": duration                default unbounded (k failures ever)
 *   },
 *   "correlated": {                     a switch or power domain takes several nodes at once
 *     "domain_mtbf": duration,          required: mean time between events of one domain
 *     "domain_nodes": n                 required: nodes per domain (the blast radius)
 *   },
 *   "rollback": {                       incidents that force an older checkpoint
 *     "fraction": f,                    required, 0..1: share of unplanned failures
 *     "depth": k                        checkpoints back beyond the latest, default 1; needs
 *                                       checkpoint.keep >= k + 1, else the run restarts from
 *                                       the start
 *   },
 *   "planned": {                        maintenance: a save and a restart, no lost work
 *     "node_mtbf": duration             per node, default 2,048 x 54 d / 47 (Llama 3: 47
 *                                       planned in 54 days at 2,048 nodes, D8; scaling with
 *                                       the nodes held is an assumption)
 *   }
 */
static const char *const recovery_keys[] = {
    "crash_detection", "hang_fraction", "hang_timeout", "diagnose", "queue", "startup",
    "startup_per_node", NULL,
};
static const char *const diagnose_keys[] = {"median", "mean", "sigma", NULL};
static const char *const fail_slow_keys[] = {"gpu_mtbf", "factor", "detection", NULL};
static const char *const bad_node_keys[] = {"fraction", "multiplier", "evict_after", "window",
                                            NULL};
static const char *const correlated_keys[] = {"domain_mtbf", "domain_nodes", NULL};
static const char *const rollback_keys[] = {"fraction", "depth", NULL};
static const char *const planned_keys[] = {"node_mtbf", NULL};

/* Derivations D10 and D11 (published/README.md). */
#define DIAG_AUTO_MEDIAN_S 600.0
#define DIAG_AUTO_SIGMA 0.541
#define DIAG_MANUAL_MEDIAN_S (10.6 * 3600.0)
#define DIAG_MANUAL_SIGMA 0.55
/* Llama 3 sec. 3.3.4: 47 planned interruptions in 54 days on 2,048 nodes (D8). */
#define PLANNED_NODE_MTBF_S (2048.0 * 54.0 * 86400.0 / 47.0)

static int get_duration(const struct ts_jnode *o, const char *key, double *out, struct ts_err *err)
{
    return ts_jnode_get_quantity(o, key, TS_OPTIONAL, TS_DIM_SECONDS, 0.0, DURATION_MAX, out, err);
}

static int get_fraction(const struct ts_jnode *o, const char *key, enum ts_need need, double *out,
                        struct ts_err *err)
{
    return ts_jnode_get_quantity(o, key, need, TS_DIM_NUMBER, 0.0, 1.0, out, err);
}

static int parse_diagnose(const struct ts_jnode *node, struct ts_recovery *rc_out,
                          struct ts_err *err)
{
    if (cJSON_IsString(node->json)) {
        const char *v = node->json->valuestring;
        if (strcmp(v, "automated") == 0) {
            rc_out->diagnose_median_s = DIAG_AUTO_MEDIAN_S;
            rc_out->diagnose_sigma = DIAG_AUTO_SIGMA;
            return TS_OK;
        }
        if (strcmp(v, "manual") == 0) {
            rc_out->diagnose_median_s = DIAG_MANUAL_MEDIAN_S;
            rc_out->diagnose_sigma = DIAG_MANUAL_SIGMA;
            return TS_OK;
        }
        return ts_err_at(err, node->file, node->path, "\"%s\" is not a diagnosis preset (use "
                         "\"automated\", \"manual\" or {\"median\": ..., \"mean\": ...})", v);
    }
    int rc;
    if ((rc = ts_jnode_check_keys(node, diagnose_keys, err)))
        return rc;
    double median = 0.0, mean = 0.0, sigma = 0.0;
    if ((rc = get_positive(node, "median", TS_REQUIRED, TS_DIM_SECONDS, 1e-3, DURATION_MAX,
                           &median, err)) ||
        (rc = get_positive(node, "mean", TS_OPTIONAL, TS_DIM_SECONDS, 1e-3, DURATION_MAX, &mean,
                           err)) ||
        (rc = ts_jnode_get_quantity(node, "sigma", TS_OPTIONAL, TS_DIM_NUMBER, 0.0, 5.0, &sigma,
                                    err)))
        return rc;
    struct ts_jnode c;
    bool has_mean = ts_jnode_child(node, "mean", &c), has_sigma = ts_jnode_child(node, "sigma", &c);
    if (has_mean == has_sigma)
        return ts_err_at(err, node->file, node->path, "give the median and either \"mean\" or "
                         "\"sigma\" (the log-sd) of the lognormal");
    if (has_mean) {
        ts_jnode_child(node, "mean", &c);
        if (mean < median)
            return ts_err_at(err, c.file, c.path, "a lognormal's mean is at least its median "
                             "(mean = median x exp(sigma^2 / 2))");
        sigma = sqrt(2.0 * log(mean / median));
        if (sigma > 5.0)
            return ts_err_at(err, c.file, c.path, "mean / median gives sigma %.3g; at most 5",
                             sigma);
    }
    rc_out->diagnose_median_s = median;
    rc_out->diagnose_sigma = sigma;
    return TS_OK;
}

static int parse_recovery(const struct ts_jnode *node, struct ts_recovery *r, struct ts_err *err)
{
    int rc;
    struct ts_jnode c;
    if ((rc = ts_jnode_check_keys(node, recovery_keys, err)) ||
        (rc = get_duration(node, "crash_detection", &r->crash_detect_s, err)) ||
        (rc = get_fraction(node, "hang_fraction", TS_OPTIONAL, &r->hang_fraction, err)) ||
        (rc = get_duration(node, "hang_timeout", &r->hang_timeout_s, err)) ||
        (rc = get_duration(node, "queue", &r->queue_s, err)) ||
        (rc = get_duration(node, "startup", &r->startup_s, err)) ||
        (rc = get_duration(node, "startup_per_node", &r->startup_per_node_s, err)))
        return rc;
    if (ts_jnode_child(node, "diagnose", &c) && (rc = parse_diagnose(&c, r, err)))
        return rc;
    return TS_OK;
}

static int parse_mechanisms(const struct ts_jnode *node, struct ts_mechanisms *m,
                            struct ts_err *err)
{
    int rc;
    struct ts_jnode c;
    if (ts_jnode_child(node, "recovery", &c) && (rc = parse_recovery(&c, &m->recovery, err)))
        return rc;
    if (ts_jnode_child(node, "fail_slow", &c)) {
        struct ts_fail_slow *f = &m->fail_slow;
        f->factor = 1.1;    // MegaScale sec. 6.3: ~10% longer forward computation
        if ((rc = ts_jnode_check_keys(&c, fail_slow_keys, err)) ||
            (rc = get_positive(&c, "gpu_mtbf", TS_REQUIRED, TS_DIM_SECONDS, TS_REL_MTBF_MIN_S,
                               TS_REL_MTBF_MAX_S, &f->gpu_mtbf_s, err)) ||
            (rc = get_positive(&c, "factor", TS_OPTIONAL, TS_DIM_NUMBER, 1.0, 100.0, &f->factor,
                               err)) ||
            (rc = ts_jnode_get_quantity(&c, "detection", TS_REQUIRED, TS_DIM_SECONDS, 0.0,
                                        DURATION_MAX, &f->detect_s, err)))
            return rc;
    }
    if (ts_jnode_child(node, "bad_nodes", &c)) {
        struct ts_bad_nodes *b = &m->bad_nodes;
        b->evict_window_s = DURATION_MAX;
        if ((rc = ts_jnode_check_keys(&c, bad_node_keys, err)) ||
            (rc = get_fraction(&c, "fraction", TS_REQUIRED, &b->fraction, err)) ||
            (rc = ts_jnode_get_quantity(&c, "multiplier", TS_REQUIRED, TS_DIM_NUMBER, 1.0, 1e6,
                                        &b->multiplier, err)) ||
            (rc = ts_jnode_get_int(&c, "evict_after", TS_OPTIONAL, 0, 100, &b->evict_after,
                                   err)) ||
            (rc = get_positive(&c, "window", TS_OPTIONAL, TS_DIM_SECONDS, 1.0, DURATION_MAX,
                               &b->evict_window_s, err)))
            return rc;
    }
    if (ts_jnode_child(node, "correlated", &c)) {
        struct ts_correlated *k = &m->correlated;
        if ((rc = ts_jnode_check_keys(&c, correlated_keys, err)) ||
            (rc = get_positive(&c, "domain_mtbf", TS_REQUIRED, TS_DIM_SECONDS, TS_REL_MTBF_MIN_S,
                               TS_REL_MTBF_MAX_S, &k->domain_mtbf_s, err)) ||
            (rc = ts_jnode_get_int(&c, "domain_nodes", TS_REQUIRED, 1, 1000000, &k->domain_nodes,
                                   err)))
            return rc;
    }
    if (ts_jnode_child(node, "rollback", &c)) {
        struct ts_rollback *b = &m->rollback;
        b->depth = 1;
        if ((rc = ts_jnode_check_keys(&c, rollback_keys, err)) ||
            (rc = get_fraction(&c, "fraction", TS_REQUIRED, &b->fraction, err)) ||
            (rc = ts_jnode_get_int(&c, "depth", TS_OPTIONAL, 0, 1000, &b->depth, err)))
            return rc;
    }
    if (ts_jnode_child(node, "planned", &c)) {
        m->planned.node_mtbf_s = PLANNED_NODE_MTBF_S;
        if ((rc = ts_jnode_check_keys(&c, planned_keys, err)) ||
            (rc = get_positive(&c, "node_mtbf", TS_OPTIONAL, TS_DIM_SECONDS, TS_REL_MTBF_MIN_S,
                               TS_REL_MTBF_MAX_S, &m->planned.node_mtbf_s, err)))
            return rc;
    }
    return TS_OK;
}

int ts_reliability_parse(const struct ts_jnode *node, struct ts_reliability *r, struct ts_err *err)
{
    int rc;
    if ((rc = ts_jnode_check_keys(node, reliability_keys, err)))
        return rc;
    struct ts_jnode c;
    if (ts_jnode_child(node, "failures", &c) && (rc = parse_failures(&c, r, err)))
        return rc;
    if (ts_jnode_child(node, "checkpoint", &c) && (rc = parse_checkpoint(&c, &r->checkpoint, err)))
        return rc;
    long seed = (long)r->seed;
    if ((rc = ts_jnode_get_quantity(node, "restart_overhead", TS_OPTIONAL, TS_DIM_SECONDS, 0.0,
                                    DURATION_MAX, &r->restart_overhead_s, err)) ||
        (rc = ts_jnode_get_int(node, "spares", TS_OPTIONAL, 0, 1000000, &r->spares, err)) ||
        (rc = ts_jnode_get_quantity(node, "repair_time", TS_OPTIONAL, TS_DIM_SECONDS, 0.0,
                                    DURATION_MAX, &r->repair_time_s, err)) ||
        (rc = ts_jnode_get_bool(node, "elastic", TS_OPTIONAL, &r->elastic, err)) ||
        (rc = ts_jnode_get_int(node, "replications", TS_OPTIONAL, 1, 1000000, &r->replications,
                               err)) ||
        (rc = ts_jnode_get_long(node, "seed", TS_OPTIONAL, 0, 9007199254740992L, &seed, err)))
        return rc;
    r->seed = (uint64_t)seed;
    if (ts_jnode_child(node, "spot", &c) && (rc = parse_spot(&c, &r->spot, err)))
        return rc;
    return parse_mechanisms(node, &r->mech, err);
}
