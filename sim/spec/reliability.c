/*
 * The `reliability` section of a job: failure processes, checkpoint policy, restarts,
 * spares and repairs, spot capacity, and the Monte Carlo settings of the run simulation
 * (sim/run). Failures are always simulated: a job or sweep without the key gets the default
 * processes below; "reliability": "none" is the failure-free what-if (no failure process, no
 * checkpoint or restart cost; expected time = time_to_train_s, goodput 1; a sweep's spot rows
 * keep their preemptions, which belong to the pricing).
 *
 * JSON schema (every key optional; durations are seconds or strings like "10 min", "54 d";
 * bandwidths bytes/s or strings like "1 GB/s"; sizes bytes or strings like "2.3 TB"):
 *
 *   "reliability": "none" | {
 *     "failures": [                      default: the fleet's processes (see "fleet" and the
 *       {                                  table below); [] means no failures at all; at
 *                                          most 16 entries
 *         "component": "gpu" | "node" | "network" | "switch" | "software" | "job",
 *                                          required; gpu: one copy per GPU; node (host),
 *                                          network (NIC/link), switch (switch/cable): one
 *                                          per node, the failed node is replaced; software:
 *                                          one per node, fails only while the job runs, no
 *                                          node replaced; job: one for the whole job
 *         "mtbf": duration,                required, 1 s to 1e13 s: mean time between
 *                                          failures of ONE component (one GPU, one node,
 *                                          the job)
 *         "distribution": "exponential" | "weibull",         default "exponential"
 *         "hang_fraction": f,              share of its failures that are hangs, detected
 *                                          at recovery.hang_timeout, 0..1; default 0 (the
 *                                          default processes: GPU 0, host 0, NIC 1, switch 1,
 *                                          software 7/63; see mix[])
 *         "shape": k,                      Weibull shape, 0.1 <= k <= 1000, default 1 (k < 1:
 *                                          infant mortality, k > 1: wear-out; a very large
 *                                          k fails almost exactly at the mtbf); with
 *                                          "exponential" it must be 1 if given
 *         "name": "label"                  for reports, default the component name
 *       }, ...
 *     ],
 *     "fleet": "auto" | "h100" | "a100" | "a100-research",
 *                                          which default processes (only without
 *                                          "failures"); default "auto": ampere -> a100,
 *                                          hopper and blackwell -> h100, any other
 *                                          generation -> h100 (reported as assumed)
 *     "rate_scale": x,                     0 < x <= 1000, default 1: multiplies the rate of
 *                                          every failure process, default or given (2 = "my
 *                                          GPUs fail twice as often": every MTBF halves);
 *                                          spot preemptions are not scaled
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
 *     "restart_overhead": duration,        constant part of every restart (the reload at read
 *                                          bandwidth and the start-up come on top). Given
 *                                          without "recovery": a constant restart, no
 *                                          detection or diagnosis phase (Daly's setting).
 *                                          Default: 0 under the default recovery phases
 *                                          (below: Kokolis's u0 is the whole restart), 10 min
 *                                          when a "recovery" object is given
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
 *     "recovery", "fail_slow", "bad_nodes", "correlated", "rollback", "planned": below
 *     "replications": n,                   Monte Carlo replications, 1..1000000, default 1000
 *     "seed": n                            0..2^53, default 1
 *   }
 *
 * Default failure processes (issue 13; the data and derivations are in
 * experiments/failure-rework/published/README.md, D1-D3). Every measured rate scales with
 * the number of nodes (Kokolis et al. Figure 7 from 8 to 1,024 GPUs, Llama 3, OPT-175B,
 * BLOOM, B200); no source shows a size-independent process, so every default process is per
 * GPU or per node, software included (Llama 3 and Kokolis count software failures against
 * the job's nodes). Rates per 1,000 node-days of 8-GPU nodes; a gpu process is one per GPU
 * at 1/8 of the node rate:
 *
 *   fleet          gpu    host   NIC    switch  software  total  source of the total
 *   h100           2.423  0.416  0.063  0.316   0.570     3.789  Llama 3 Table 5: 419
 *                                                                 interruptions / (2,048
 *                                                                 nodes x 54 d)
 *   a100           4.158  0.714  0.109  0.543   0.977     6.50   Kokolis et al. RSC-1 r_f
 *   a100-research  14.27  2.449  0.373  1.863   3.354     22.31  Kokolis et al. Figure 7,
 *                                                                 all causes (D1)
 *
 * The split is Llama 3 Table 5 by counts (268 GPU, 46 host, 7 NIC, 35 switch/cable, 63
 * software of 419) for every fleet: Kokolis gives no per-component shares in the text read
 * (a proxy for A100). a100 reproduces Kokolis's projections (1.8 h at 16,384 GPUs) and its
 * "ETTR > 0.9 at 2048-4096 GPUs with hourly checkpoints"; a100-research reproduces Figure 7's
 * measured job MTTF (47.7 d at 8 GPUs, 7.9 h at 1,024) within 7%: failures of every cause in
 * a multi-tenant research cluster. Job MTBF = 1 / (nodes x total) for 8-GPU nodes.
 */
#include <math.h>
#include <string.h>

#include "spec/spec.h"

/* ---------------------------------------------------------------- defaults */

/* Llama 3 405B pretraining ("The Llama 3 Herd of Models", arXiv 2407.21783, sec. 3.3.4,
 * Table 5): 419 unexpected interruptions in a 54-day snapshot on 16,384 H100 GPUs in 2,048
 * nodes of 8. Table 5's rows grouped by component (counts; the printed percentages of the
 * first row are inconsistent, the counts sum to 419: published/README.md D4). */
#define LLAMA3_DAYS 54.0
#define LLAMA3_INTERRUPTIONS 419.0
#define LLAMA3_NODES 2048.0
#define LLAMA3_GPUS_PER_NODE 8.0
#define DAY_S 86400.0

/* Hang share per process (issue 13: a hang pays the detection timeout, a crash is seen at
 * once). A GPU fault (Xid, HBM, SRAM) or a host failure kills the process or the node, which
 * the job's launcher sees immediately (BLOOM's GPU deaths: "most of the time the SLURM job
 * auto-restarts", recovery.csv); a failed NIC, switch or cable leaves the peers waiting in a
 * collective until the NCCL watchdog fires (Kokolis et al. sec. on the failure taxonomy:
 * "A NCCL timeout occurs whenever a rank observes that a collective operation ... has not
 * completed within a several minutes", network failures having the largest blast radius;
 * MegaScale sec. 6.3 on NIC flapping hitting the NCCL timeout); of the 63 software
 * interruptions of Llama 3 Table 5, the 7 "NCCL watchdog timeouts" are hangs. Overall
 * (7 + 35 + 7) / 419 = 11.7% of interruptions are hangs, against 9.9% job hangs measured by
 * ByteRobust (arXiv 2509.16293, Table 1; recovery.csv) and 1.7% explicit watchdog rows in
 * Llama 3. */
static const struct {
    enum ts_component component;
    double count;           // interruptions of the 419 (Table 5)
    double hang_fraction;   // share of them that are hangs (above)
    const char *name;
    const char *rows;       // the Table 5 rows summed
} mix[] = {
    {TS_COMP_GPU, 268.0, 0.0, "gpu",
     "faulty GPU 148 + HBM3 72 + SRAM 19 + GPU system processor 17 + SDC 6 + thermal 6"},
    {TS_COMP_NODE, 46.0, 0.0, "host",
     "unplanned host maintenance 32 + SSD 3 + PSU 3 + chassis 2 + IO board 2 + CPU 2 + memory 2"},
    {TS_COMP_NETWORK, 7.0, 1.0, "nic", "NIC 7"},
    {TS_COMP_SWITCH, 35.0, 1.0, "switch/cable", "network switch/cable 35"},
    {TS_COMP_SOFTWARE, 63.0, 7.0 / 63.0, "software",
     "software bug 54 + dependency 2 + NCCL watchdog 7"},
};
#define MIX_LEN ((int)TS_ARRAY_LEN(mix))

/* The diagnosis presets: derivations D10 and D11 (published/README.md). */
#define DIAG_AUTO_MEDIAN_S 600.0
#define DIAG_AUTO_SIGMA 0.541
#define DIAG_MANUAL_MEDIAN_S (10.6 * 3600.0)
#define DIAG_MANUAL_SIGMA 0.55
_Static_assert(TS_ARRAY_LEN(mix) <= TS_FAILURES_MAX, "default processes fit");

/* Kokolis et al., "Revisiting Reliability in Large-Scale Machine Learning Research Clusters",
 * HPCA 2025, arXiv 2410.21680: RSC-1 (16k A100) infrastructure failure rate r_f = 6.50 per
 * 1,000 node-days (the rate its projections use: 1.8 h at 16,384 GPUs; D2), and Figure 7's
 * measured job MTTF, 47.7 days at 8 GPUs (1 node) and 7.9 h at 1,024 GPUs (128 nodes): per
 * node 20.96 and 23.73 per 1,000 node-days, one per-node rate within 13%; their geometric
 * mean (D1) fits both within 7%. */
#define KOKOLIS_RF_RSC1 6.50
#define KOKOLIS_MTTF_8_DAYS 47.7
#define KOKOLIS_MTTF_1024_DAYS (7.9 / 24.0)

/* Failures per 1,000 node-days of the whole mix for a fleet. */
static double fleet_total(enum ts_fleet f)
{
    switch (f) {
    case TS_FLEET_A100:
        return KOKOLIS_RF_RSC1;
    case TS_FLEET_A100_RESEARCH: {
        double r8 = 1000.0 / (1.0 * KOKOLIS_MTTF_8_DAYS);
        double r1024 = 1000.0 / (128.0 * KOKOLIS_MTTF_1024_DAYS);
        return sqrt(r8 * r1024);
    }
    case TS_FLEET_H100:
    case TS_FLEET_AUTO:
    case TS_FLEET_COUNT:
        break;
    }
    return 1000.0 * LLAMA3_INTERRUPTIONS / (LLAMA3_NODES * LLAMA3_DAYS);
}

static const char *fleet_label(enum ts_fleet f)
{
    switch (f) {
    case TS_FLEET_A100:
        return "Kokolis et al. RSC-1 rate 6.50 per 1,000 node-days, Llama 3 Table 5 mix, A100 fleet";
    case TS_FLEET_A100_RESEARCH:
        return "Kokolis et al. Figure 7 all-cause rate 22.3 per 1,000 node-days, Llama 3 Table 5 "
               "mix, A100 research cluster";
    case TS_FLEET_H100:
    case TS_FLEET_AUTO:
    case TS_FLEET_COUNT:
        break;
    }
    return "Llama 3 Table 5 mix, H100 fleet";
}

bool ts_component_takes_node(enum ts_component c)
{
    return c == TS_COMP_GPU || c == TS_COMP_NODE || c == TS_COMP_NETWORK || c == TS_COMP_SWITCH;
}

/* Fill the default processes of fleet f (not auto). */
static void fill_fleet(struct ts_reliability *r, enum ts_fleet f)
{
    double total = fleet_total(f);     // per 1,000 node-days
    r->n_failures = MIX_LEN;
    for (int i = 0; i < MIX_LEN; i++) {
        struct ts_failure_process *p = &r->failures[i];
        double per_node = total * mix[i].count / LLAMA3_INTERRUPTIONS / 1000.0;   // per node-day
        double per_unit = mix[i].component == TS_COMP_GPU ? per_node / LLAMA3_GPUS_PER_NODE
                                                          : per_node;
        p->component = mix[i].component;
        p->mtbf_s = DAY_S / per_unit;
        p->distribution = TS_DIST_EXPONENTIAL;
        p->shape = 1.0;
        p->hang_fraction = 0.0;     // set with the default recovery (apply_recovery_defaults)
        ts_strlcpy(p->name, mix[i].name, sizeof p->name);
    }
    r->fleet_used = f;
}

/* The default recovery (issue 13: recovery as it really happens), for a job that gives
 * neither "restart_overhead" nor "recovery". A managed cluster with automated detection and
 * replacement of the failed node from the cluster's pool, no hot spares held by the job:
 *   - detection: a crash at once (the launcher sees the process or node die); a hang at the
 *     PyTorch ProcessGroupNCCL default watchdog timeout, 10 min (PR 110947; recovery.csv),
 *     with each default process's hang share (mix[] above);
 *   - diagnosis + replacement + rescheduling: lognormal, median 10 min, sigma 0.541, mean
 *     11.6 min: Kokolis et al.'s restart time u0 "~5-20 mins" on RSC-1/RSC-2 (Meta's managed
 *     research clusters: health checks every 5 min, failed nodes removed and jobs rescheduled
 *     on healthy ones) read as its 10th/90th percentiles (published/README.md D10; MegaScale
 *     sec. 6.3: detection + diagnostics under 10 min on average at > 10,000 GPUs). Chosen over
 *     "manual" (BLOOM's hangs found by a person, median 10.6 h, D11) because a cluster rented
 *     or run for training today automates this (Llama 3: 3 of 419 interruptions needed manual
 *     intervention); a 2021-style manual cluster (OPT-175B) sets "diagnose": "manual";
 *   - queue: 0 (the pool has a node; no measured queueing delay was found, recovery.csv);
 *   - framework start-up growing with the job: 0.05 s per node on top of u0 (which holds the
 *     start-up of Kokolis's 2,048-4,096-GPU jobs); an assumption: no size law was published,
 *     and it is bounded by Llama 3's < 16.7 min lost per interruption at 2,048 nodes (D12)
 *     and MegaScale's catch-up "within 15 minutes" at > 10,000 GPUs: 1.7 min at 2,048 nodes;
 *   - reload: checkpoint size / read bandwidth (ts_run_params_compute), as before;
 *   - restart_overhead 0: u0 is the whole restart. */
#define DEFAULT_STARTUP_PER_NODE_S 0.05

static void apply_recovery_defaults(struct ts_reliability *r)
{
    if (r->none)
        return;
    struct ts_recovery *rc = &r->mech.recovery;
    if (r->recovery_given)
        r->recovery_mode = TS_RECOVERY_GIVEN;
    else if (r->restart_overhead_given)
        r->recovery_mode = TS_RECOVERY_CONSTANT;
    else if (r->recovery_mode != TS_RECOVERY_DEFAULT) {
        r->recovery_mode = TS_RECOVERY_DEFAULT;
        r->restart_overhead_s = 0.0;
        rc->crash_detect_s = 0.0;
        rc->hang_timeout_s = 600.0;
        rc->diagnose_median_s = DIAG_AUTO_MEDIAN_S;
        rc->diagnose_sigma = DIAG_AUTO_SIGMA;
        ts_strlcpy(rc->diagnose_preset, "automated", sizeof rc->diagnose_preset);
        rc->queue_s = 0.0;
        rc->startup_s = 0.0;
        rc->startup_per_node_s = DEFAULT_STARTUP_PER_NODE_S;
    }
    /* The default processes carry their hang shares wherever hangs are detected by a
     * timeout (default or given phases); a constant restart keeps Daly's setting. A share
     * given in "recovery" applies to every process. */
    for (int i = 0; i < r->n_failures; i++) {
        struct ts_failure_process *p = &r->failures[i];
        if (r->hang_fraction_given)
            p->hang_fraction = rc->hang_fraction;
        else if (r->failures_default && i < MIX_LEN && r->recovery_mode != TS_RECOVERY_CONSTANT)
            p->hang_fraction = mix[i].hang_fraction;
    }
}

void ts_reliability_apply_defaults(struct ts_reliability *r, enum ts_generation gen)
{
    if (r->none)
        return;
    if (!r->failures_default) {
        apply_recovery_defaults(r);
        return;
    }
    enum ts_fleet f = r->fleet;
    r->fleet_assumed = false;
    if (f == TS_FLEET_AUTO) {
        if (gen == TS_GEN_AMPERE) {
            f = TS_FLEET_A100;
        } else {
            f = TS_FLEET_H100;
            r->fleet_assumed = gen != TS_GEN_HOPPER && gen != TS_GEN_BLACKWELL;
        }
    }
    fill_fleet(r, f);
    apply_recovery_defaults(r);
}

const char *ts_reliability_source(const struct ts_reliability *r, char *buf, size_t n)
{
    if (r->none)
        snprintf(buf, n, "none");
    else if (!r->failures_default)
        snprintf(buf, n, "file");
    else
        snprintf(buf, n, "default (%s%s)", fleet_label(r->fleet_used),
                 r->fleet_assumed ? "; assumed: no published rates for this generation" : "");
    return buf;
}

const char *ts_reliability_default_cite(const struct ts_reliability *r, int i, char *buf,
                                        size_t n)
{
    if (r->none || !r->failures_default || i < 0 || i >= MIX_LEN || r->n_failures != MIX_LEN)
        return NULL;
    switch (r->fleet_used) {
    case TS_FLEET_A100:
        snprintf(buf, n, "Kokolis et al. (arXiv 2410.21680) RSC-1 r_f 6.50 per 1,000 node-days x "
                 "%.0f/419 of Llama 3 Table 5 (%s)", mix[i].count, mix[i].rows);
        break;
    case TS_FLEET_A100_RESEARCH:
        snprintf(buf, n, "Kokolis et al. (arXiv 2410.21680) Figure 7 all-cause rate %.2f per 1,000 "
                 "node-days x %.0f/419 of Llama 3 Table 5 (%s)", fleet_total(TS_FLEET_A100_RESEARCH),
                 mix[i].count, mix[i].rows);
        break;
    case TS_FLEET_H100:
    case TS_FLEET_AUTO:
    case TS_FLEET_COUNT:
        snprintf(buf, n, "Llama 3 (arXiv 2407.21783) Table 5: %s = %.0f of 419 interruptions in "
                 "54 d on 2,048 nodes", mix[i].rows, mix[i].count);
        break;
    }
    return buf;
}

void ts_reliability_defaults(struct ts_reliability *r)
{
    memset(r, 0, sizeof *r);
    r->none = false;
    r->section_given = false;
    r->failures_default = true;
    r->fleet = TS_FLEET_AUTO;
    r->rate_scale = 1.0;
    fill_fleet(r, TS_FLEET_H100);       // until the generation is known (apply_defaults)

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
    "planned",
    "fleet", "rate_scale",      // always-on defaults (parse_defaults_keys)
    NULL,
};
static const char *const failure_keys[] = {
    "component", "mtbf", "distribution", "shape", "hang_fraction", "name", NULL,
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
    f->hang_fraction = 0.0;
    if ((rc = ts_jnode_get_enum(node, "component", TS_REQUIRED, ts_component_names,
                                TS_COMP_COUNT, &comp, err)) ||
        (rc = get_positive(node, "mtbf", TS_REQUIRED, TS_DIM_SECONDS, TS_REL_MTBF_MIN_S,
                           TS_REL_MTBF_MAX_S, &f->mtbf_s, err)) ||
        (rc = ts_jnode_get_enum(node, "distribution", TS_OPTIONAL, ts_distribution_names,
                                TS_DIST_COUNT, &dist, err)) ||
        (rc = get_positive(node, "shape", TS_OPTIONAL, TS_DIM_NUMBER, TS_REL_SHAPE_MIN,
                           TS_REL_SHAPE_MAX, &f->shape, err)) ||
        (rc = ts_jnode_get_quantity(node, "hang_fraction", TS_OPTIONAL, TS_DIM_NUMBER, 0.0, 1.0,
                                    &f->hang_fraction, err)))
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
 * optional and every incident mechanism is off unless its object is given. The recovery
 * phases have a default (apply_recovery_defaults: automated diagnosis, NCCL-watchdog hangs
 * per process, start-up per node) when neither "restart_overhead" nor "recovery" is given;
 * "restart_overhead" alone is a constant restart (Daly's setting); a "recovery" object gives
 * the phases itself (those it does not name are off). Sources are in
 * experiments/failure-rework/published (recovery.csv, fail-slow.csv, correlated-and-lemons.csv,
 * Derivations D8, D10, D11 of its README).
 *
 *   "recovery": {                       phases after every unplanned failure, on top of
 *                                       restart_overhead + reload (which keep their meaning)
 *     "crash_detection": duration,      default 0: a crash is seen at once
 *     "hang_fraction": f,               share of ALL failures that are hangs, 0..1; default:
 *                                       each process's own share (failures[].hang_fraction;
 *                                       the default processes carry a cited one)
 *     "hang_timeout": duration,         hang detection, default 10 min: the PyTorch
 *                                       ProcessGroupNCCL default since PR 110947 (30 min
 *                                       before; NVRx heartbeat 45 min)
 *     "diagnose": "automated" | "manual" | {"median": d, "mean": d} | {"median": d, "sigma": s},
 *                                       diagnosis + node replacement, lognormal; "automated":
 *                                       median 10 min, sigma 0.541 (mean 11.6 min; Kokolis u0
 *                                       5-20 min as 10th/90th percentiles, D10); "manual":
 *                                       median 10.6 h, sigma 0.55 (mean 12.3 h; BLOOM's manual
 *                                       incidents, D11); "none": no such phase;
 *                                       default (in a recovery object): none. The
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
        } else if (strcmp(v, "manual") == 0) {
            rc_out->diagnose_median_s = DIAG_MANUAL_MEDIAN_S;
            rc_out->diagnose_sigma = DIAG_MANUAL_SIGMA;
        } else if (strcmp(v, "none") == 0) {
            rc_out->diagnose_median_s = 0.0;
            rc_out->diagnose_sigma = 0.0;
            rc_out->diagnose_preset[0] = '\0';
            return TS_OK;
        } else {
            return ts_err_at(err, node->file, node->path, "\"%s\" is not a diagnosis preset "
                             "(use \"automated\", \"manual\", \"none\" or {\"median\": ..., "
                             "\"mean\": ...})", v);
        }
        ts_strlcpy(rc_out->diagnose_preset, v, sizeof rc_out->diagnose_preset);
        return TS_OK;
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
    ts_strlcpy(rc_out->diagnose_preset, "given", sizeof rc_out->diagnose_preset);
    return TS_OK;
}

static int parse_recovery(const struct ts_jnode *node, struct ts_recovery *r, bool *hang_given,
                          struct ts_err *err)
{
    int rc;
    struct ts_jnode c;
    *hang_given = ts_jnode_child(node, "hang_fraction", &c);
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
                            bool *hang_given, struct ts_err *err)
{
    int rc;
    struct ts_jnode c;
    if (ts_jnode_child(node, "recovery", &c) &&
        (rc = parse_recovery(&c, &m->recovery, hang_given, err)))
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

/* ---------------------------------------------------------------- always-on defaults */

/* "reliability": "none", the fleet of the default processes and rate_scale (issue 13). */
static int parse_none(const struct ts_jnode *node, struct ts_reliability *r, struct ts_err *err)
{
    if (!cJSON_IsString(node->json) || strcmp(node->json->valuestring, "none") != 0) {
        char d[96];
        ts_jnode_describe(node->json, d, sizeof d);
        return ts_err_at(err, node->file, node->path,
                         "%s is not an object or \"none\" (give the reliability settings as an "
                         "object, or \"none\" for a failure-free what-if)", d);
    }
    r->none = true;
    r->failures_default = false;
    r->n_failures = 0;
    r->spot.enabled = false;
    return TS_OK;
}

static int parse_defaults_keys(const struct ts_jnode *node, struct ts_reliability *r,
                               struct ts_err *err)
{
    int rc;
    struct ts_jnode c;
    if (ts_jnode_child(node, "failures", &c))
        r->failures_default = false;
    if (ts_jnode_child(node, "fleet", &c)) {
        if (!r->failures_default)
            return ts_err_at(err, c.file, c.path,
                             "\"fleet\" picks the default failure processes, but \"failures\" "
                             "gives them; remove one of the two");
        int fleet = (int)r->fleet;
        if ((rc = ts_jnode_get_enum(node, "fleet", TS_OPTIONAL, ts_fleet_names, TS_FLEET_COUNT,
                                    &fleet, err)))
            return rc;
        r->fleet = (enum ts_fleet)fleet;
    }
    return get_positive(node, "rate_scale", TS_OPTIONAL, TS_DIM_NUMBER, TS_REL_RATE_SCALE_MIN,
                        TS_REL_RATE_SCALE_MAX, &r->rate_scale, err);
}

int ts_reliability_parse(const struct ts_jnode *node, struct ts_reliability *r, struct ts_err *err)
{
    int rc;
    r->section_given = true;
    if (!cJSON_IsObject(node->json))
        return parse_none(node, r, err);
    if ((rc = ts_jnode_check_keys(node, reliability_keys, err)) ||
        (rc = parse_defaults_keys(node, r, err)))
        return rc;
    struct ts_jnode c;
    if (ts_jnode_child(node, "failures", &c) && (rc = parse_failures(&c, r, err)))
        return rc;
    if (ts_jnode_child(node, "checkpoint", &c) && (rc = parse_checkpoint(&c, &r->checkpoint, err)))
        return rc;
    long seed = (long)r->seed;
    r->restart_overhead_given = ts_jnode_child(node, "restart_overhead", &c);
    r->recovery_given = ts_jnode_child(node, "recovery", &c);
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
    return parse_mechanisms(node, &r->mech, &r->hang_fraction_given, err);
}
