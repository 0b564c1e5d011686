/*
 * spec: the inputs of trainsim as plain C structs, and the parsers that fill them from JSON.
 *
 * Four kinds of file (README "Describing your own model, hardware and prices" documents
 * every key; DESIGN section 4 is the stable contract):
 *   models/NAME.json                  struct ts_model
 *   hardware/accelerators/NAME.json   struct ts_accel
 *   hardware/systems/NAME.json        struct ts_system (embeds its accelerator)
 *   configs/NAME.json (a job)          struct ts_job (embeds model and system)
 *
 * A reference to another file ("model": "gpt3-175b") may be a catalogue name, a path
 * (anything containing '/' or ending in ".json"), or an inline object. Names resolve under
 * the catalogue root: $TRAINSIM_HOME if set, else the source tree trainsim was built from.
 *
 * Every parser validates everything it reads: unknown keys, wrong types, values out of
 * range and impossible combinations fail with TS_ERR_INPUT and a message
 * "FILE: JSON.PATH: what is wrong (how to fix)". Nothing is silently defaulted except the
 * optional keys whose defaults are documented on the struct fields below.
 *
 * Units inside the structs are SI base units: bytes, seconds, FLOP/s, bytes/s, USD.
 * The structs hold no pointers, so they can be copied freely (a sweep copies one per
 * configuration). Thread safety: parsers only read their inputs; safe to call concurrently.
 */
#ifndef TS_SPEC_H
#define TS_SPEC_H

#include <stdbool.h>
#include <stdint.h>

#include "util/util.h"

#define TS_NAME_MAX 64
#define TS_SOURCE_MAX 1536

/* ---------------------------------------------------------------- enums and their names */

enum ts_ffn { TS_FFN_GELU, TS_FFN_SWIGLU, TS_FFN_COUNT };
extern const char *const ts_ffn_names[TS_FFN_COUNT];               // "gelu", "swiglu"

enum ts_precision { TS_PREC_BF16, TS_PREC_FP16, TS_PREC_FP8, TS_PREC_FP32, TS_PREC_COUNT };
extern const char *const ts_precision_names[TS_PREC_COUNT];        // "bf16", "fp16", "fp8", "fp32"

enum ts_schedule { TS_SCHED_GPIPE, TS_SCHED_1F1B, TS_SCHED_INTERLEAVED, TS_SCHED_COUNT };
extern const char *const ts_schedule_names[TS_SCHED_COUNT];        // "gpipe", "1f1b", "interleaved"

enum ts_recompute { TS_RECOMPUTE_NONE, TS_RECOMPUTE_SELECTIVE, TS_RECOMPUTE_FULL, TS_RECOMPUTE_COUNT };
extern const char *const ts_recompute_names[TS_RECOMPUTE_COUNT];   // "none", "selective", "full"

/* Attention kernel: fused flash attention (no s x s matrix in memory; the default, as every
 * current framework uses it) or the unfused kernels of Megatron-LM 2021-2022 (QK^T GEMM,
 * fused scale-mask-softmax, dropout, attention x V GEMM). */
enum ts_attention { TS_ATTN_FLASH, TS_ATTN_STANDARD, TS_ATTN_COUNT };
extern const char *const ts_attention_names[TS_ATTN_COUNT];        // "flash", "standard"

/* Scale-up fabric inside a domain: a switch (NVSwitch: any pair at full per-GPU bandwidth),
 * a full mesh of point-to-point links (AMD Infinity Fabric: per-peer bandwidth is
 * bandwidth / (domain_size - 1)), or a ring / torus (each GPU has two / more neighbours). */
enum ts_up_topology { TS_UP_SWITCH, TS_UP_MESH, TS_UP_RING, TS_UP_TORUS, TS_UP_COUNT };
extern const char *const ts_up_topology_names[TS_UP_COUNT];        // "switch", "mesh", "ring", "torus"

/* Scale-out fabric between domains. Rail-optimized: GPU i of every node sits on rail switch
 * i, so same-index GPUs (the usual DP and PP peers) talk through one switch hop. */
enum ts_out_topology { TS_OUT_FAT_TREE, TS_OUT_RAIL_OPTIMIZED, TS_OUT_TORUS, TS_OUT_COUNT };
extern const char *const ts_out_topology_names[TS_OUT_COUNT];      // "fat_tree", "rail_optimized", "torus"

/* Parallel dimensions, in the order used by placement strings. */
enum ts_pdim { TS_PDIM_TP, TS_PDIM_CP, TS_PDIM_DP, TS_PDIM_PP, TS_PDIM_COUNT };
extern const char *const ts_pdim_names[TS_PDIM_COUNT];             // "tp", "cp", "dp", "pp"

/* ---------------------------------------------------------------- model */

struct ts_model {
    char name[TS_NAME_MAX];     // e.g. "gpt3-175b"
    int layers;                 // transformer layers L, e.g. 96
    int hidden;                 // model width h, e.g. 12288
    int heads;                  // attention (query) heads a, e.g. 96
    int kv_heads;               // key/value heads g (grouped-query attention); default heads
    int head_dim;               // per-head width d; default hidden / heads
    int ffn_hidden;             // MLP inner width f; default 4 * hidden
    enum ts_ffn ffn;            // "gelu": 2 GEMMs; "swiglu": 3 (gate, up, down); default gelu
    int vocab;                  // vocabulary size V (unpadded), e.g. 50257
    int seq_len;                // training sequence length s, e.g. 2048
    bool tied_embeddings;       // output layer shares the input embedding; default false
    bool learned_positions;     // "position_embedding": "learned" (GPT: an s x h table) or
                                //   "rope" (rotary, no parameters); default learned for gelu
                                //   models, rope for swiglu models
    bool bias;                  // linear layers and norms carry biases (GPT); default true for gelu, false for swiglu
    double dropout;             // dropout probability on attention and hidden states; default 0
    char source[TS_SOURCE_MAX]; // where the numbers come from (required in catalogue files)
};

/* ---------------------------------------------------------------- accelerator */

#define TS_CURVE_POINTS_MAX 64
#define TS_CURVE_TABLE 128

/* GEMM efficiency (achieved / peak FLOP/s) as a function of one GEMM's size in FLOPs
 * (2 M N K). The file gives measured points; the loader fits a monotone (Steffen) GSL
 * interpolant in log10(FLOPs) and tabulates it, so lookups are cheap and thread safe. */
struct ts_gemm_curve {
    int n;                                  // measured points; 0 = curve absent
    double flops[TS_CURVE_POINTS_MAX];      // ascending, FLOPs of one GEMM
    double efficiency[TS_CURVE_POINTS_MAX]; // in (0, 1]
    double log_lo, log_hi;                  // log10 of first / last point's FLOPs
    double table[TS_CURVE_TABLE];           // efficiency at log_lo + i (log_hi - log_lo) / (TABLE - 1)
};

struct ts_accel {
    char name[TS_NAME_MAX];                     // e.g. "h100-sxm"
    double peak_flops[TS_PREC_COUNT];           // dense peak FLOP/s by precision; 0 = not supported
    double memory_bytes;                        // HBM capacity, e.g. 80 GiB
    double memory_bandwidth;                    // HBM bytes/s, e.g. 3.35e12
    double memory_efficiency;                   // achieved fraction of HBM bandwidth by streaming
                                                //   (element-wise) kernels; default 0.8
    double memory_reserved;                     // bytes not usable by the model: CUDA context,
                                                //   NCCL buffers, allocator fragmentation; default 0
    double kernel_latency;                      // fixed cost per kernel launch in seconds; default 0
    double flash_fwd_efficiency;                // flash attention forward, fraction of peak
    double flash_bwd_efficiency;                // flash attention backward (counted as 2x forward
                                                //   FLOPs), fraction of peak
    double sustained_compute;                   // fraction of their benchmark throughput that
                                                //   compute-bound kernels (GEMM, flash attention)
                                                //   sustain inside a training step (power-capped
                                                //   clocks, launch gaps); default 1
    struct ts_gemm_curve gemm[TS_PREC_COUNT];   // per precision; an absent one uses bf16's
    char source[TS_SOURCE_MAX];
};

/* ---------------------------------------------------------------- system */

/* One level of the interconnect. Bandwidths are per GPU and per direction. */
struct ts_level {
    double bandwidth;           // bytes/s per GPU per direction (link rate)
    double latency;             // seconds per algorithm step (alpha of the alpha-beta model)
    double efficiency;          // achieved fraction of bandwidth for large messages (bus
                                //   bandwidth / link rate measured by nccl-tests); default 0.8
    int domain_size;            // scale-up only: GPUs in one scale-up domain (8, 72, ...)
    int topology;               // enum ts_up_topology or enum ts_out_topology
    double oversubscription;    // scale-out only: >= 1; bandwidth divides by it once traffic
                                //   leaves a leaf switch; default 1
    int leaf_nodes;             // scale-out only: nodes under one leaf (or rail) switch; default 32
    bool in_network_reduction;  // switch reduces in the network (NVLS / SHARP); default false
    double reduction_efficiency;// all-reduce algorithm bandwidth with in-network reduction as a
                                //   fraction of link rate; default 0.6
};

struct ts_system {
    char name[TS_NAME_MAX];     // e.g. "dgx-h100"
    struct ts_accel accel;      // the accelerator (resolved from its name)
    int gpus_per_node;          // GPUs per node (billing and failure unit), e.g. 8
    struct ts_level scale_up;   // NVLink / Infinity Fabric domain
    struct ts_level scale_out;  // InfiniBand / RoCE / EFA fabric
    char source[TS_SOURCE_MAX];
};

/* ---------------------------------------------------------------- job */

#define TS_VIRTUAL_MAX 64

struct ts_parallel {
    int tp;                     // tensor-parallel size t, default 1
    int pp;                     // pipeline-parallel size p, default 1
    int dp;                     // data-parallel size d; derived as gpus / (tp cp pp) if absent
    int cp;                     // context-parallel size, default 1
    int microbatch;             // sequences per microbatch b, default 1
    enum ts_schedule schedule;  // default 1f1b ("interleaved" needs virtual_stages > 1)
    int virtual_stages;         // model chunks per stage v (interleaved 1F1B), default 1
    bool sequence_parallel;     // Megatron sequence parallelism with TP, default false
    enum ts_recompute recompute;// default none
    int zero;                   // 0 none, 1 optimizer state sharded over DP (Megatron's
                                //   distributed optimizer), 2 + gradients, 3 + weights (FSDP)
    bool dp_overlap;            // overlap DP gradient reduction with backward, default true
    bool tp_comm_overlap;       // overlap TP collectives with GEMMs, default false
    bool p2p_overlap;           // pipeline sends run alongside compute (Megatron-Core's
                                //   overlap_p2p_comm); false: the sender waits for delivery,
                                //   as Megatron-LM's synchronous p2p did; default true
    /* Extensions (documented in README) */
    enum ts_attention attention;// default flash
    bool scatter_gather;        // PP scatter/gather optimization (Narayanan et al. sec. 4.1),
                                //   default true when tp > 1
    int first_stage_layers;     // layers on the first stage for uneven splits; 0 = even split
    int last_stage_layers;      // layers on the last stage for uneven splits; 0 = even split
    int order[TS_PDIM_COUNT];   // placement, innermost first; default tp, cp, dp, pp
    double bucket_bytes;        // DP gradient bucket size; default 40e6 parameters' worth
    bool fp32_grads;            // gradients accumulated and reduced in fp32 (Megatron's
                                //   main_grad), default true
    bool grad_accum_fusion;     // weight-gradient GEMMs add straight into the fp32 main grads
                                //   (Megatron-LM --gradient-accumulation-fusion, since late
                                //   2021); false: a 16-bit gradient plus a separate add kernel;
                                //   default true
};

/* ---------------------------------------------------------------- reliability */

enum ts_component { TS_COMP_GPU, TS_COMP_NODE, TS_COMP_NETWORK, TS_COMP_JOB, TS_COMP_COUNT };
extern const char *const ts_component_names[TS_COMP_COUNT];    // "gpu", "node", "network", "job"

enum ts_distribution { TS_DIST_EXPONENTIAL, TS_DIST_WEIBULL, TS_DIST_COUNT };
extern const char *const ts_distribution_names[TS_DIST_COUNT]; // "exponential", "weibull"

#define TS_FAILURES_MAX 16

/* One failure process. gpu and node (and network, counted per node) processes are per
 * component: the job sees gpus (or nodes) independent copies, so its rate scales with its
 * size; a job process is one for the whole job (software, fabric-wide events). */
struct ts_failure_process {
    enum ts_component component;
    double mtbf_s;                  // mean time between failures of one component, e.g. 5.8 GPU-years
    enum ts_distribution distribution;
    double shape;                   // Weibull shape k (1 for exponential); scale from mtbf
    char name[32];                  // label for reports, e.g. "gpu hardware"
};

enum ts_ckpt_mode { TS_CKPT_SYNC, TS_CKPT_ASYNC, TS_CKPT_COUNT };
extern const char *const ts_ckpt_mode_names[TS_CKPT_COUNT];    // "sync", "async"

struct ts_checkpoint {
    bool interval_auto;             // Daly's higher-order optimum (default)
    double interval_s;              // useful compute time between checkpoints (Daly's tau)
    long interval_iterations;       // alternatively in iterations (0 = not given)
    enum ts_ckpt_mode mode;         // default sync
    double size_bytes;              // 0 = weights + optimizer state (derived from the job)
    double write_bandwidth;         // aggregate storage write bytes/s (0 = no aggregate limit)
    double read_bandwidth;          // aggregate storage read bytes/s (0 = no aggregate limit)
    double node_write_bandwidth;    // per-node write limit, bytes/s
    double node_read_bandwidth;     // per-node read limit, bytes/s
    double snapshot_bandwidth;      // async: device-to-host copy per GPU, bytes/s
    int keep;                       // checkpoints retained in storage, default 2
};

struct ts_spot {
    bool enabled;
    double preemption_mtbf_s;       // mean time between preemptions of one node
    double notice_s;                // warning before reclaim (AWS 120 s)
    double reacquire_s;             // time to get the capacity back
};

struct ts_reliability {
    int n_failures;
    struct ts_failure_process failures[TS_FAILURES_MAX];
    struct ts_checkpoint checkpoint;
    double restart_overhead_s;      // detect + reschedule + initialize (the reload is separate:
                                    //   size / read bandwidth)
    int spares;                     // hot spare nodes
    double repair_time_s;           // time to repair or replace a failed node
    bool elastic;                   // continue with fewer DP replicas instead of waiting
    struct ts_spot spot;
    int replications;               // Monte Carlo replications, default 1000
    uint64_t seed;                  // default 1
};

/* Defaults: failure processes derived from the Llama 3 405B statistics (shared reference
 * reliability.md), checkpoints every Daly-optimal interval, synchronous. */
void ts_reliability_defaults(struct ts_reliability *r);

/* Parse a job's `reliability` object into *out (which holds the defaults on entry). */
int ts_reliability_parse(const struct ts_jnode *node, struct ts_reliability *out, struct ts_err *err);

/* ---------------------------------------------------------------- cost */

enum ts_pricing { TS_PRICING_ON_DEMAND, TS_PRICING_RESERVED, TS_PRICING_SPOT, TS_PRICING_COUNT };
extern const char *const ts_pricing_names[TS_PRICING_COUNT];  // "on_demand", "reserved", "spot"

enum ts_tier { TS_TIER_HOT, TS_TIER_WARM, TS_TIER_COLD, TS_TIER_COUNT };
extern const char *const ts_tier_names[TS_TIER_COUNT];        // "hot", "warm", "cold"

/* Money inputs of a job (the `cost` object). All prices in USD. A month is 730 hours (the
 * average month cloud storage bills by). */
struct ts_cost_config {
    char price_source[1024];        // where the prices came from (price file name, date, source)
    enum ts_pricing pricing;        // how the job's GPUs are bought
    double gpu_hour[TS_PRICING_COUNT]; // USD per GPU-hour by pricing model; NAN = not given
                                       //   (0 is a price: free or sunk-cost capacity)
    double node_hour[TS_PRICING_COUNT];// USD per node-hour, the alternative way to state a price
                                       //   (NAN = not given); the bill divides it by the system's
                                       //   gpus_per_node (ts_cost_gpu_hour_price), so a sweep
                                       //   over systems prices each one right
    enum ts_pricing spare_pricing;  // how hot spares are bought (default: same as pricing)
    double fixed_per_hour;          // cluster management, schedulers, head nodes: USD/h
    double budget;                  // limit in USD; 0 = none
    /* storage, USD per GB-month by tier; age at which data moves down a tier */
    double storage_gb_month[TS_TIER_COUNT];
    double tier_after_s[TS_TIER_COUNT];     // checkpoints move to tier t at this age ([hot] = 0)
    double dataset_bytes;                   // training data kept in storage during the run
    enum ts_tier dataset_tier;
    double checkpoint_retention_s;  // the last `keep` checkpoints are kept this long after the run
    double log_bytes_per_step_node; // logs and metrics per training step per node
    double log_retention_s;         // logs are kept this long (from when written)
    enum ts_tier log_tier;
    /* network */
    double inter_node_gb;           // USD per GB crossing nodes inside the cluster (often 0)
    double egress_bytes;            // bytes leaving the cloud (e.g. final checkpoint download)
    double egress_gb;               // USD per GB of egress
    double cross_region_bytes;      // bytes moved between regions (e.g. dataset replication)
    double cross_region_gb;         // USD per GB across regions
    /* data pipeline */
    double data_bytes_per_token;    // input bytes read per training token (0 = no loader model)
    double loader_bytes_per_s;      // throughput of one loader host
    int loader_hosts;               // 0 = as many as the GPUs need
    double loader_host_hour;        // USD per loader-host-hour
    /* logging and monitoring */
    double monitoring_node_hour;    // USD per node-hour of monitoring agents
    double log_ingest_gb;           // USD per GB of logs and metrics ingested
    /* operations */
    double ops_hours_per_incident;  // human hours per failure or preemption handled
    double ops_hours_per_restart;   // extra human hours per restart that needs a person
    double ops_hourly_rate;         // USD per human hour
};

/* Whether the config prices `pricing` (by gpu_hour or node_hour; a price of 0 counts). */
bool ts_cost_config_has_price(const struct ts_cost_config *c, enum ts_pricing pricing);

/* Defaults: on-demand pricing, no prices (gpu_hour and node_hour NAN: a cost section must
 * state gpu_hour for the chosen pricing), S3-like storage prices of shared reference prices.md (hot 0.023... see README),
 * everything else 0 or off. */
void ts_cost_config_defaults(struct ts_cost_config *c);

/* Parse a job's `cost` object into *out, which holds the defaults on entry (a "prices" key
 * may name a price file under configs/prices/ or a path; its values are the defaults the
 * other keys override). sim/spec/cost.c documents every key. */
int ts_cost_config_parse(const struct ts_jnode *node, struct ts_cost_config *out, struct ts_err *err);

struct ts_training {
    double tokens;              // tokens to train on, e.g. 2e12
};

struct ts_job {
    struct ts_model model;
    struct ts_system system;
    int gpus;                   // total GPUs (= nodes * gpus_per_node when nodes given)
    int nodes;                  // nodes, ceil(gpus / gpus_per_node)
    int global_batch;           // sequences per iteration
    enum ts_precision precision;// default bf16
    struct ts_parallel parallel;
    bool has_training;
    struct ts_training training;
    bool has_reliability;
    struct ts_reliability reliability;
    bool has_cost;
    struct ts_cost_config cost;
};

/* ---------------------------------------------------------------- resolution */

/* Catalogue root: $TRAINSIM_HOME, else the source directory compiled in. */
const char *ts_spec_home(void);

/* Kind of catalogue entry a name resolves under. */
enum ts_catalog { TS_CAT_MODEL, TS_CAT_ACCEL, TS_CAT_SYSTEM, TS_CAT_PRICES, TS_CAT_COUNT };

/* Resolve a reference string to a file path: a name -> HOME/models/NAME.json (and so on:
 * hardware/accelerators, hardware/systems, configs/prices); a
 * path (contains '/' or ends in ".json") relative to the directory of the referring file
 * `from_file` first, then to the working directory. Fails if no file exists. */
int ts_spec_resolve(enum ts_catalog cat, const char *ref, const char *from_file, char *out,
                    size_t n, struct ts_err *err);

/* ---------------------------------------------------------------- parsers */

/* Parse from a JSON node (object). Each validates the whole object. */
int ts_model_parse(const struct ts_jnode *node, struct ts_model *out, struct ts_err *err);
int ts_accel_parse(const struct ts_jnode *node, struct ts_accel *out, struct ts_err *err);
int ts_system_parse(const struct ts_jnode *node, struct ts_system *out, struct ts_err *err);

/* Parse a node that may be a reference string or an inline object. */
int ts_model_parse_ref(const struct ts_jnode *node, struct ts_model *out, struct ts_err *err);
int ts_accel_parse_ref(const struct ts_jnode *node, struct ts_accel *out, struct ts_err *err);
int ts_system_parse_ref(const struct ts_jnode *node, struct ts_system *out, struct ts_err *err);

/* Load by catalogue name or path. */
int ts_model_load(const char *ref, struct ts_model *out, struct ts_err *err);
int ts_accel_load(const char *ref, struct ts_accel *out, struct ts_err *err);
int ts_system_load(const char *ref, struct ts_system *out, struct ts_err *err);

/* Parse the `parallel` object into *out, which holds the defaults on entry. */
int ts_parallel_parse(const struct ts_jnode *node, struct ts_parallel *out, struct ts_err *err);
void ts_parallel_defaults(struct ts_parallel *p);

/* Parse a job document (root object), including its optional training, reliability and
 * cost sections. Keys other than the ones the job knows may be passed in `extra_keys`
 * (NULL-terminated; e.g. "sweep") for the caller to parse; they are then accepted here and
 * ignored (a known section named there, e.g. "cost", is left to the caller too). */
int ts_job_parse(const struct ts_jnode *root, const char *const extra_keys[], struct ts_job *out,
                 struct ts_err *err);

/* Cross-field validation of a job (divisibility, sizes). `file`/`path` locate messages;
 * `path` is the prefix of the parallel keys (normally "parallel"). Called by ts_job_parse
 * and by the sweep for each candidate. */
int ts_job_validate(const struct ts_job *job, const char *file, struct ts_err *err);

/* Layers held by pipeline stage `stage` (0-based). */
int ts_job_stage_layers(const struct ts_job *job, int stage);

/* ---------------------------------------------------------------- curves */

/* Fit the interpolation table of a curve from its points (GSL Steffen interpolation in
 * log10 FLOPs; linear for two points; constant for one). */
int ts_gemm_curve_fit(struct ts_gemm_curve *c, struct ts_err *err);

/* Efficiency of a GEMM of `flops` FLOPs. Below the first point the GEMM takes as long as
 * the first point's GEMM (launch-bound); above the last, the last efficiency holds. */
double ts_gemm_curve_eval(const struct ts_gemm_curve *c, double flops);

#endif
