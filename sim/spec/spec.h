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
#define TS_SOURCE_MAX 3072

/* ---------------------------------------------------------------- enums and their names */

enum ts_ffn { TS_FFN_GELU, TS_FFN_SWIGLU, TS_FFN_SQUARED_RELU, TS_FFN_COUNT };
extern const char *const ts_ffn_names[TS_FFN_COUNT];    // "gelu", "swiglu", "squared_relu"

/* Whether the MLP is gated (SwiGLU: gate, up, down) rather than two GEMMs around an
 * element-wise activation (GeLU, squared ReLU). */
static inline bool ts_ffn_gated(enum ts_ffn f)
{
    return f == TS_FFN_SWIGLU;
}

enum ts_precision { TS_PREC_BF16, TS_PREC_FP16, TS_PREC_FP8, TS_PREC_FP32, TS_PREC_COUNT };
extern const char *const ts_precision_names[TS_PREC_COUNT];        // "bf16", "fp16", "fp8", "fp32"

enum ts_schedule { TS_SCHED_GPIPE, TS_SCHED_1F1B, TS_SCHED_INTERLEAVED, TS_SCHED_COUNT };
/* parallel.eager_loss: "off" (the profile's loss), "cross_entropy" (F.cross_entropy on
 * logits cast to fp32), "cross_entropy_z_loss" (the same plus a z-loss, logsumexp squared,
 * as eager ops). */
enum ts_eager_loss { TS_EAGER_LOSS_OFF, TS_EAGER_LOSS_CE, TS_EAGER_LOSS_CE_Z, TS_EAGER_LOSS_COUNT };
extern const char *const ts_eager_loss_names[TS_EAGER_LOSS_COUNT];
extern const char *const ts_schedule_names[TS_SCHED_COUNT];        // "gpipe", "1f1b", "interleaved"

enum ts_recompute { TS_RECOMPUTE_NONE, TS_RECOMPUTE_SELECTIVE, TS_RECOMPUTE_FULL, TS_RECOMPUTE_COUNT };
extern const char *const ts_recompute_names[TS_RECOMPUTE_COUNT];   // "none", "selective", "full"

/* The tensors a transformer layer can keep from its forward for its backward (the saveable
 * tensors of Korthikanti et al. 2022, sec. 4.1, named per op; sim/spec/recompute.c gives
 * each one's bytes and which backward op reads it; README "Recomputation"). proj_out and
 * mlp_out are outputs of the row-parallel GEMMs that backward does not read: saving them only
 * spares their recomputation (MaxText "out_proj" and "mlpwo"). */
enum ts_layer_tensor {
    TS_T_INPUT,             // layer input = input-norm input (always kept: the checkpoint input)
    TS_T_NORM1_OUT,         // input-norm output = QKV GEMM input
    TS_T_Q, TS_T_K, TS_T_V, // attention inputs (after rotary)
    TS_T_SOFTMAX,           // softmax output (unfused attention)
    TS_T_ATTN_DROPOUT_MASK, // attention-dropout mask (unfused attention with dropout)
    TS_T_ATTN_PROBS,        // dropout output = P of P V (unfused attention with dropout)
    TS_T_CORE_ATTN_OUT,     // attention output (context) = projection input; flash: + logsumexp
    TS_T_PROJ_OUT,          // output-projection GEMM output (backward does not read it)
    TS_T_PROJ_DROPOUT_MASK, // dropout mask after the projection
    TS_T_RESIDUAL1,         // residual after attention = second-norm input
    TS_T_NORM2_OUT,         // second-norm output = fc1 / gate+up GEMM input
    TS_T_MLP_GATE,          // SwiGLU gate GEMM output (absent in a GeLU MLP)
    TS_T_MLP_UP,            // fc1 output (GeLU input) / SwiGLU up GEMM output
    TS_T_MLP_ACT,           // activation output = fc2 / down GEMM input
    TS_T_MLP_OUT,           // fc2 / down GEMM output (backward does not read it)
    TS_T_MLP_DROPOUT_MASK,  // dropout mask after the MLP
    TS_T_COUNT
};
extern const char *const ts_layer_tensor_names[TS_T_COUNT];     // "input", "norm1_out", ...

#define TS_T_BIT(t) (1u << (t))
/* Every tensor backward reads (saving all of them is "none"). */
#define TS_T_ALL (((1u << TS_T_COUNT) - 1u) & ~(TS_T_BIT(TS_T_PROJ_OUT) | TS_T_BIT(TS_T_MLP_OUT)))

/* What a layer's recomputation re-runs. */
enum ts_rerun {
    TS_RERUN_NEEDED,            // only the ops that regenerate the unsaved tensors backward reads
                                //   (JAX remat; PyTorch non-reentrant checkpoint with early stop)
    TS_RERUN_ATTENTION,         // that, plus the whole attention core (Megatron's selective
                                //   recomputation checkpoints the core-attention function)
    TS_RERUN_LAYER,             // the whole layer forward (Megatron's full recomputation)
};

/* A named saved set ({"save": "NAME"}): "all" (= none), "selective", "full", the MaxText
 * remat policies and torchtitan's op-level selective AC (sim/spec/recompute.c cites each).
 * Returns false when the name is unknown. */
bool ts_recompute_named_set(const char *name, uint32_t *save, enum ts_rerun *rerun);

/* Recomputation policy beyond the three presets (the object forms of parallel.recompute). */
struct ts_recompute_policy {
    bool custom;                // an object form was given; false: parallel.recompute decides
    uint32_t save;              // tensors kept (TS_T_BIT of enum ts_layer_tensor); input always
    int full_every;             // every k-th layer of a stage recomputes its whole forward; 0 off
    char save_name[40];         // the named set given as {"save": "NAME"}, else ""
    enum ts_rerun rerun;        // what the recomputation re-runs
};

/* Attention kernel. "standard" is the unfused attention of Megatron-LM 2021-2022 (QK^T GEMM,
 * fused scale-mask-softmax, dropout, attention x V GEMM); every other name is a fused kernel
 * that never writes the s x s matrix to memory. "flash" means the software profile's kernel
 * for the device generation (struct ts_software.attention); the named kernels run at the
 * efficiency of their published benchmark tables (hardware/attention/NAME.json, by device
 * generation, interpolated in log(sequence length)). FA3 exists only for Hopper. */
enum ts_attention {
    TS_ATTN_FLASH, TS_ATTN_STANDARD, TS_ATTN_FA1, TS_ATTN_FA2, TS_ATTN_FA3, TS_ATTN_CUDNN,
    TS_ATTN_TRITON, TS_ATTN_TRITON_2022, TS_ATTN_XLA, TS_ATTN_DEVICE, TS_ATTN_COUNT
};
/* "flash", "standard", "fa1", "fa2", "fa3", "cudnn", "triton", "triton-2022", "xla", "device"
 * ("triton" = the Triton fused-attention kernel of 2024; "triton-2022" = Tri Dao's 2022
 * FlashAttention in Triton (flash_attn_triton.py) that llm-foundry ran as attn_impl triton;
 * "device" =
 * the accelerator file's own flash_attention figures, a sequence-independent plateau; only a
 * software profile may name it). */
extern const char *const ts_attention_names[TS_ATTN_COUNT];

/* Accelerator generation: selects the attention-kernel tables and which kernels exist. */
enum ts_generation {
    TS_GEN_AMPERE, TS_GEN_HOPPER, TS_GEN_BLACKWELL, TS_GEN_CDNA3, TS_GEN_CPU, TS_GEN_UNKNOWN,
    TS_GEN_COUNT
};
extern const char *const ts_generation_names[TS_GEN_COUNT]; // "ampere", "hopper", "blackwell",
                                                             //   "cdna3", "cpu", "unknown"

/* How a stack hides tensor-parallel collectives behind GEMMs (parallel.tp_comm_overlap on). */
enum ts_tp_overlap { TS_TPO_USERBUFFERS, TS_TPO_ASYNC_TP, TS_TPO_NONE, TS_TPO_COUNT };
extern const char *const ts_tp_overlap_names[TS_TPO_COUNT]; // "userbuffers", "async_tp", "none"

/* How a stack routes an MoE layer's tokens to the ranks holding their experts (Megatron-Core
 * --moe-token-dispatcher-type; sim/comm ts_comm_moe_dispatch prices each): "alltoall" (NCCL
 * all-to-all of one copy per routed expert), "deepep" (DeepEP / HybridEP: one RDMA copy per
 * destination NVLink domain, forwarded over NVLink), "allgather" (every rank gathers all
 * tokens of the EP group and keeps its experts' ones). */
enum ts_moe_dispatcher { TS_MOE_ALLTOALL, TS_MOE_DEEPEP, TS_MOE_ALLGATHER, TS_MOE_DISPATCHER_COUNT };
extern const char *const ts_moe_dispatcher_names[TS_MOE_DISPATCHER_COUNT]; // "alltoall", "deepep",
                                                                          //   "allgather"

/* Element-wise ops a stack may fuse into a neighbouring kernel (sim/compute: extra HBM passes
 * and launches when unfused). */
enum ts_fuse {
    TS_FUSE_NORM, TS_FUSE_ROTARY, TS_FUSE_BIAS_ACT, TS_FUSE_SWIGLU, TS_FUSE_DROPOUT_RESIDUAL,
    TS_FUSE_CROSS_ENTROPY, TS_FUSE_COUNT
};
extern const char *const ts_fuse_names[TS_FUSE_COUNT];  // "norm", "rotary", "bias_act",
                                                        //   "swiglu", "dropout_residual",
                                                        //   "cross_entropy"

/* Optimizer implementation: one fused kernel over all tensors (apex / Transformer Engine /
 * torch fused=True), PyTorch's multi-tensor "foreach" (one kernel per op per tensor group),
 * or a per-tensor loop (one kernel per op per tensor). */
enum ts_optimizer_impl { TS_OPT_FUSED, TS_OPT_FOREACH, TS_OPT_PER_TENSOR, TS_OPT_COUNT };
extern const char *const ts_optimizer_impl_names[TS_OPT_COUNT]; // "fused", "foreach", "per_tensor"

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

enum ts_router { TS_ROUTER_SOFTMAX, TS_ROUTER_SIGMOID, TS_ROUTER_COUNT };
extern const char *const ts_router_names[TS_ROUTER_COUNT];         // "softmax", "sigmoid"

/* Mixture-of-experts layers (the model file's "moe" section; README "Mixture of experts").
 * Names follow the Hugging Face configs and Megatron-Core's --num-experts, --moe-router-topk,
 * --moe-ffn-hidden-size, --moe-shared-expert-intermediate-size, --moe-layer-freq. */
struct ts_moe {
    int experts;                // routed experts per MoE layer E, e.g. 256; 0 = dense model
    int top_k;                  // routed experts per token k, e.g. 8
    int expert_ffn_hidden;      // FFN width of one routed expert, e.g. 2048 (SwiGLU: 3 GEMMs)
    int shared_experts;         // always-active experts, default 0
    int shared_ffn_hidden;      // width of ONE shared expert; default expert_ffn_hidden
    int dense_layers;           // the first k layers are dense (model ffn_hidden); default 0
    int moe_every;              // every n-th layer after dense_layers is MoE; default 1
    enum ts_router router;      // gate score function; default softmax
    bool aux_loss_free;         // DeepSeek's bias-based balancing (a per-expert bias); default false
    double capacity_factor;     // tokens an expert may take / mean; 0 = dropless (default)
    double load_imbalance;      // busiest expert's tokens / mean tokens per expert, >= 1;
                                //   default 1 + MaxVio_global of Wang et al. 2024, Table 2,
                                //   1B: 1.72 aux loss, 1.04 loss-free (sim/spec/model.c)
    bool load_imbalance_given;  // the file stated load_imbalance
};

/* Multi-head latent attention (DeepSeek-V2/V3, arXiv 2405.04434 sec. 2.1): queries through a
 * low-rank q_lora_rank compression (or a plain projection), keys and values from a shared
 * kv_lora_rank latent plus one rope key of qk_rope_head_dim shared by all heads. */
struct ts_mla {
    bool on;                    // "attention": {"kind": "mla", ...}
    int q_lora_rank;            // 0 = queries projected from the hidden state directly
    int kv_lora_rank;           // e.g. 512
    int qk_rope_head_dim;       // e.g. 64
    int qk_nope_head_dim;       // e.g. 128
    int v_head_dim;             // e.g. 128
};

struct ts_model {
    char name[TS_NAME_MAX];     // e.g. "gpt3-175b"
    int layers;                 // transformer layers L, e.g. 96
    int hidden;                 // model width h, e.g. 12288
    int heads;                  // attention (query) heads a, e.g. 96
    int kv_heads;               // key/value heads g (grouped-query attention); default heads
    int head_dim;               // per-head width d; default hidden / heads
    int ffn_hidden;             // MLP inner width f; default 4 * hidden
    enum ts_ffn ffn;            // "gelu": 2 GEMMs; "swiglu": 3 (gate, up, down); "squared_relu":
                                //   2 GEMMs around relu(x)^2 (Nemotron-4); default gelu
    int vocab;                  // vocabulary size V (unpadded), e.g. 50257
    int seq_len;                // training sequence length s, e.g. 2048
    bool tied_embeddings;       // output layer shares the input embedding; default false
    bool learned_positions;     // "position_embedding": "learned" (GPT: an s x h table) or
                                //   "rope" (rotary, no parameters); default learned for gelu
                                //   models, rope for swiglu models
    bool bias;                  // linear layers and norms carry biases (GPT); default true for gelu, false for swiglu
    double dropout;             // dropout probability on attention and hidden states; default 0
    struct ts_moe moe;          // mixture of experts ("moe" section); moe.experts 0 = dense
    struct ts_mla mla;          // multi-head latent attention ("attention": {"kind": "mla"})
    int sliding_window;         // keys a windowed layer's query attends to; 0 = full attention
    int sliding_window_pattern; // every N-th layer is full, the N - 1 before it windowed
                                //   (Gemma 3: 6, GPT-OSS: 2); 0 = every layer windowed
    int mtp_layers;             // multi-token-prediction modules (DeepSeek-V3: 1); default 0
    char source[TS_SOURCE_MAX]; // where the numbers come from (required in catalogue files)
};

/* Whether a model has mixture-of-experts layers. */
static inline bool ts_model_is_moe(const struct ts_model *m) { return m->moe.experts > 0; }

/* Whether layer `layer` (0-based) of the model is an MoE layer: after the first dense_layers,
 * every moe_every-th layer (Megatron-Core --moe-layer-freq; the last of each group of
 * moe_every, so moe_every 2 alternates dense, MoE as Mixtral-style interleaving does).
 * The MTP modules are MoE layers of their own (DeepSeek-V3 sec. 2.2). */
bool ts_model_layer_is_moe(const struct ts_model *m, int layer);

/* MoE layers among layers first .. first + count - 1. */
int ts_model_moe_layers(const struct ts_model *m, int first, int count);

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

#define TS_ATTN_SEQ_MAX 12
#define TS_ATTN_CURVES_MAX 6

/* A fused attention kernel's published throughput on one device generation: TFLOP/s by
 * sequence length for some (head dim, causal) settings, forward and backward, as the
 * FlashAttention papers count FLOPs (causal counts half the square; backward 2.5x forward).
 * ts_attn_efficiency turns it into trainsim's efficiency (fraction of peak). */
struct ts_attn_curve {
    int head_dim;                   // e.g. 128
    bool causal;
    bool has_bwd;                   // backward measured for this setting (else derived)
    double fwd[TS_ATTN_SEQ_MAX];    // TFLOP/s forward at seq[i]
    double bwd[TS_ATTN_SEQ_MAX];    // TFLOP/s backward at seq[i]
};

struct ts_attn_kernel {
    bool present;                   // a table exists for the accelerator's generation
    double peak_flops;              // 16-bit dense peak of the benchmark device, FLOP/s
    int n_seq;
    double seq[TS_ATTN_SEQ_MAX];    // ascending sequence lengths, e.g. 512 .. 16384
    double log_seq[TS_ATTN_SEQ_MAX];// log(seq[i]), for the lookups
    int n_curves;
    struct ts_attn_curve curves[TS_ATTN_CURVES_MAX];
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
    double step_time_cv;                        // coefficient of variation of one GPU's compute
                                                //   time per iteration across GPUs of the part
                                                //   (chip and power-management spread, jitter);
                                                //   the job waits for its slowest GPU
                                                //   (sim/step/scale.c); default 0.015 (assumed)
    struct ts_gemm_curve gemm[TS_PREC_COUNT];   // per precision; an absent one uses bf16's
    enum ts_generation generation;              // "generation" key; files without it are
                                                //   "unknown" (flagged in run output): named
                                                //   kernels then run at the flash_attention
                                                //   figures and fa3 is refused
    bool generation_given;                      // the file stated its generation
    bool gemm_derived;                          // no gemm_efficiency in the file: the curve is
                                                //   derived from the peak and its class's
                                                //   achievable fraction (unvalidated)
    double overlap_slowdown;                    // fractional slowdown of compute while an
                                                //   overlapped collective runs beside it (SMs
                                                //   and HBM taken by the collective); default 0
    struct ts_attn_kernel attn[TS_ATTN_COUNT];  // fused-kernel tables for this generation
                                                //   (loaded from hardware/attention/)
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
    double host_bandwidth;      // host_link: bytes/s per GPU per direction between the GPU and
                                //   its host's memory (PCIe, NVLink-C2C) when every GPU of the
                                //   node copies at once; 0 = not stated (no offload)
    double host_efficiency;     // achieved fraction of host_bandwidth for large pinned copies
    char source[TS_SOURCE_MAX];
};

/* ---------------------------------------------------------------- job */

#define TS_VIRTUAL_MAX 64

#define TS_FSDP_PREFETCH_MAX 8

/* What a software profile sets that the compute and step models read (copied with the
 * parallel layout, so a sweep's candidates carry it). Defaults (ts_parallel_defaults) are
 * the megatron-core profile's, i.e. the model before software profiles existed. */
#define TS_SW_CAL_MAX 8
struct ts_sw_mech {
    uint8_t attention[TS_GEN_COUNT];    // enum ts_attention that "flash" means per generation
    uint8_t tp_overlap;                 // enum ts_tp_overlap used when tp_comm_overlap is on
    uint8_t optimizer;                  // enum ts_optimizer_impl
    bool fused[TS_FUSE_COUNT];          // element-wise ops fused (true: no extra passes)
    bool contention;                    // overlapped collectives slow the compute beside them
                                        //   by the accelerator's overlap_slowdown
    double async_tp_hidden;             // fraction of TP collective time async TP hides
    double host_dispatch_s;             // CPU time to issue one kernel (eager frameworks);
                                        //   a pass lasts at least kernels x this; 0 = off
    double kernel_latency_s;            // GPU-side cost per kernel; < 0: the accelerator's
    int grad_reduce_bytes;              // bytes per gradient element in DP reductions;
                                        //   0 = as accumulated (fp32_grads)
    bool fp32_params;                   // parameters live in fp32 and are cast to 16 bits on
                                        //   use (FSDP MixedPrecision, MaxText weight_dtype
                                        //   float32): no separate 16-bit working copy, no
                                        //   master copy in the optimizer state; false: 16-bit
                                        //   weights + fp32 master (Megatron, DeepSpeed)
    bool xentropy;                      // cross-entropy by a fused kernel in the logits' dtype
                                        //   (flash-attn CrossEntropyLoss): one pass each way,
                                        //   logits + their gradient held (2 e per logit);
                                        //   false: Megatron-LM's fp32 vocab-parallel loss
    int logit_metrics;                  // eager cross-entropies the trainer evaluates on the
                                        //   logits each microbatch besides the loss (Composer
                                        //   train metrics); 0 = none
    bool tp_fp8_allgather;              // under precision fp8 the TP all-gathers of GEMM
                                        //   inputs move float8 (1 byte per element):
                                        //   torchtitan / torchao float8 TP; false: at the
                                        //   activations' 16 bits (Megatron-Core + TE)
    bool fsdp2_copies;                  // ZeRO-3 units pay FSDP2's copies on the compute
                                        //   stream: each all-gather's copy-out into the
                                        //   parameters (read + write the gathered unit) and
                                        //   each reduce-scatter's copy-in of the 16-bit
                                        //   gradients into the reduce-dtype buffer
                                        //   (torch fully_shard); false: gathered in place
    bool cp_allgather;                  // context parallelism gathers every rank's K/V in one
                                        //   all-gather at the first ring step (PyTorch
                                        //   context_parallel, rotate method "allgather",
                                        //   torchtitan's default); false: one K/V hop per step
                                        //   (Megatron-Core / Transformer Engine P2P ring)
    bool cp_repeat_kv;                  // the K/V that context parallelism moves have the query
                                        //   heads (the model repeats GQA K/V heads before SDPA:
                                        //   torchtitan's repeat_kv); false: the K/V heads
    int cp_grad_bytes;                  // bytes per dK/dV element accumulated and rotated by
                                        //   the context-parallel backward; 0 = the activations'
                                        //   (PyTorch context_parallel: 4, fp32)
    bool zero3_blocking;                // ZeRO-3 fetches every parameter tensor by its own
                                        //   all-gather after a device synchronization, and
                                        //   reduce-scatters each tensor's gradient on the compute
                                        //   stream, with the copies around each (DeepSpeed
                                        //   v0.3.13 .. v0.5.10, 2021: no
                                        //   overlap, one collective per tensor, backward
                                        //   re-gathers what its reuse distance released);
                                        //   false: per-unit prefetch as FSDP (sim/step plan.c)
    bool zero3_grad_allreduce;          // zero3_blocking reduces the gradients by one all-reduce
                                        //   per 5e8-element bucket instead of a reduce-scatter
                                        //   per tensor (DeepSpeed v0.3.13 .. v0.4.2 defaults:
                                        //   contiguous_gradients false)
    int n_cal;                          // per-device fitted compute scale (one constant)
    char cal_device[TS_SW_CAL_MAX][TS_NAME_MAX];
    double cal_scale[TS_SW_CAL_MAX];    // multiplies the accelerator's sustained_compute
    double cal_z3_scale[TS_SW_CAL_MAX]; // multiplies the bandwidth time of every ZeRO-3
                                        //   collective (zero3_blocking profiles only); 1 =
                                        //   unfitted
};

/* Keys of `parallel` that a software profile also sets: bit i set in ts_parallel.given when
 * the job (or sweep) gave the key, which then wins over the profile. */
enum ts_pkey {
    TS_PKEY_ATTENTION, TS_PKEY_P2P_OVERLAP, TS_PKEY_DP_OVERLAP, TS_PKEY_TP_COMM_OVERLAP,
    TS_PKEY_FP32_GRADS, TS_PKEY_GRAD_ACCUM_FUSION, TS_PKEY_MOE_DISPATCHER,
    TS_PKEY_MOE_A2A_OVERLAP, TS_PKEY_GRAD_REDUCE_DTYPE, TS_PKEY_COUNT
};

struct ts_parallel {
    int tp;                     // tensor-parallel size t, default 1
    int pp;                     // pipeline-parallel size p, default 1
    int dp;                     // data-parallel size d; derived as gpus / (tp cp pp) if absent
    int cp;                     // context-parallel size, default 1
    int ep;                     // expert-parallel size (routed experts split over ep ranks),
                                //   default 1; MoE models only
    int etp;                    // expert-tensor-parallel size (each expert's FFN split over
                                //   etp ranks), default 1. Experts fold over the same ranks
                                //   as attention (Megatron-Core MoE parallel folding): expert
                                //   data parallel edp = gpus / (ep etp pp)
    int microbatch;             // sequences per microbatch b, default 1
    enum ts_schedule schedule;  // default 1f1b ("interleaved" needs virtual_stages > 1)
    int virtual_stages;         // model chunks per stage v (interleaved 1F1B), default 1
    bool sequence_parallel;     // Megatron sequence parallelism with TP, default false
    enum ts_recompute recompute;// named preset; default none (the sweep enumerates and sets
                                //   only this). With an object form it holds the nearest
                                //   preset (none when nothing is recomputed, full for
                                //   {"save": "full"}, else selective); the compute model reads
                                //   ts_recompute_saved / _rerun / _full_layers instead
    struct ts_recompute_policy recompute_policy; // object forms; .custom false = the preset
    int zero;                   // 0 none, 1 optimizer state sharded over DP (Megatron's
                                //   distributed optimizer), 2 + gradients, 3 + weights (FSDP)
    int zero_group;             // shard within groups of this many data-parallel ranks and
                                //   replicate across groups (FSDP HYBRID_SHARD, ZeRO++ hpZ,
                                //   MiCS, Megatron's distributed-optimizer instances); 0 = one
                                //   group of dp x cp ranks (the default)
    int fsdp_unit_layers;       // ZeRO-3 / FSDP: transformer layers per unit (one all-gather
                                //   and one reduce-scatter each), default 1 (FSDP's transformer
                                //   auto-wrap policy, Megatron-Core FSDP); a unit never spans
                                //   model chunks
    int fsdp_prefetch;          // ZeRO-3 / FSDP: units whose all-gather may run ahead of the
                                //   unit being computed, default 1 (FSDP's backward_prefetch /
                                //   forward prefetch of one unit; at most TS_FSDP_PREFETCH_MAX)
    bool fsdp_no_backward_prefetch; // ZeRO-3 / FSDP backward without prefetch (FSDP
                                //   backward_prefetch None): each unit's all-gather is issued
                                //   by its own pre-backward hook, behind the previous unit's
                                //   reduce-scatter; default false (BACKWARD_PRE / _POST: the
                                //   next all-gather is issued before the unit's reduce-scatter)
    bool fsdp_fp8_allgather;    // ZeRO-3 / FSDP under precision fp8: the transformer layers'
                                //   weights are cast to float8 on their shards and gathered at
                                //   1 byte per parameter (torchao enable_fsdp_float8_all_gather,
                                //   OLMo-core's Float8Config default); embeddings and the
                                //   output layer stay 16-bit; default false
    bool dp_overlap;            // overlap DP gradient reduction with backward, default true
    bool tp_comm_overlap;       // overlap TP collectives with GEMMs, default false
    bool p2p_overlap;           // pipeline sends run alongside compute (Megatron-Core's
                                //   overlap_p2p_comm); false: the sender waits for delivery,
                                //   as Megatron-LM's synchronous p2p did; default true
    /* Extensions (documented in README) */
    enum ts_attention attention;// default flash
    bool attention_unpad;       // fused attention called through FlashAttention's
                                //   variable-length API behind unpad / pad copies
                                //   (flash_attn.bert_padding, as llm-foundry's attn_impl
                                //   "flash" calls it): per layer and
                                //   microbatch, q, k, v gathered and the output scattered
                                //   back (and the reverse in backward), six host syncs in
                                //   forward (torch.nonzero, .item()); default false
    uint8_t eager_loss;         // enum ts_eager_loss: the trainer computes the loss outside
                                //   the compiled / fused region as eager PyTorch ops on fp32
                                //   logits (OLMo-core fused_loss False); replaces the
                                //   profile's cross-entropy cost; default TS_EAGER_LOSS_OFF
    bool scatter_gather;        // PP scatter/gather optimization (Narayanan et al. sec. 4.1),
                                //   default true when tp > 1
    int first_stage_layers;     // layers on the first stage for uneven splits; 0 = even split
    int last_stage_layers;      // layers on the last stage for uneven splits; 0 = even split
    int order[TS_PDIM_COUNT];   // placement, innermost first; default tp, cp, dp, pp
    double bucket_bytes;        // DP gradient bucket size; default 40e6 parameters' worth
    bool fp32_grads;            // gradients accumulated and reduced in fp32 (Megatron's
                                //   main_grad), default true
    int grad_reduce_bytes;      // parallel.grad_reduce_dtype as bytes per gradient element in
                                //   DP reductions (4 fp32, 2 bf16, 0 as accumulated), kept
                                //   only when the job gives it: it then replaces the
                                //   profile's grad_reduce_dtype (e.g. FSDP mixed precision
                                //   PURE reduces in bf16 on a stack whose DEFAULT is fp32)
    bool grad_accum_fusion;     // weight-gradient GEMMs add straight into the fp32 main grads
                                //   (Megatron-LM --gradient-accumulation-fusion, since late
                                //   2021); false: a 16-bit gradient plus a separate add kernel;
                                //   default true
    uint8_t moe_dispatcher;     // enum ts_moe_dispatcher of MoE layers; default the software
                                //   profile's (megatron-core: alltoall)
    bool moe_a2a_overlap;       // MoE dispatch / combine all-to-all hidden behind another
                                //   microbatch's compute (Megatron-Core 1F1B-interleaved
                                //   overlap_moe_expert_parallel_comm, DualPipe-like); default
                                //   the profile's (megatron-core: false)
    int offload_layers;         // activations of the first this many transformer layers
                                //   copied to host memory after their forward and back before
                                //   their backward (Megatron-Core cpu_offloading_num_layers,
                                //   Transformer Engine's double-buffered group offload);
                                //   pp 1, no recomputation, fewer than the model's layers;
                                //   needs the system's host_link; default 0
    unsigned given;             // bit (1 << enum ts_pkey): key given explicitly
    struct ts_sw_mech sw;       // mechanisms of the software profile
};

/* ---------------------------------------------------------------- software profile */

#define TS_SW_BANDS_MAX 8
#define TS_SW_ROW_MAX 320

/* Residual band of a profile's published validation rows on one device. */
struct ts_sw_band {
    char device[TS_NAME_MAX];   // accelerator name, e.g. "a100-sxm-80g"
    int precision;              // enum ts_precision its rows ran in, or -1: any precision
    int min_seq_len;            // the sequence lengths its rows ran at, min_seq_len ..
    int max_seq_len;            //   max_seq_len; 0 .. 0: any length (the band then covers
                                //   the lengths no band with a range claims)
    char rows[TS_SW_ROW_MAX];   // which rows, e.g. "Narayanan et al. SC21 Table 1, 10 rows"
    int n_rows;
    double min_error, max_error;// predicted / published - 1, e.g. -0.06 .. 0.09
};

/* Highest published MFU of a stack on one device, and the row it comes from. */
struct ts_sw_mfu {
    char device[TS_NAME_MAX];
    int precision;              // enum ts_precision of the row (MFU is over that peak)
    double mfu;
    char row[TS_SW_ROW_MAX];
};

/* A software stack (configs/software/NAME.json; sim/spec/software.c documents every key):
 * the per-op mechanisms it sets (struct ts_sw_mech, plus the defaults of the parallel
 * switches it implies) and what is known of its accuracy. */
struct ts_software {
    char name[TS_NAME_MAX];             // e.g. "megatron-core"
    char description[512];
    char source[TS_SOURCE_MAX];
    bool p2p_overlap, dp_overlap, tp_comm_overlap, fp32_grads, grad_accum_fusion;
    uint8_t moe_dispatcher;             // enum ts_moe_dispatcher (default alltoall)
    bool moe_a2a_overlap;               // default false
    struct ts_sw_mech mech;
    char calibration_note[TS_SW_ROW_MAX]; // the row each fitted constant was fitted on, or why none
    int n_bands;
    struct ts_sw_band bands[TS_SW_BANDS_MAX];
    int n_mfu;
    struct ts_sw_mfu max_mfu[TS_SW_BANDS_MAX];
};

/* The profile's residual band for a run on `device` in `precision` at sequence length
 * `seq_len`: among the device's bands whose precision is the run's or unstated and whose
 * sequence range holds seq_len (or that state none), the one stated for the precision first,
 * then the one stated for the length; NULL when none (not validated there). */
const struct ts_sw_band *ts_software_band(const struct ts_software *sw, const char *device,
                                          int precision, int seq_len);

/* The built-in defaults (the megatron-core mechanisms; no name, no bands). */
void ts_software_defaults(struct ts_software *sw);

/* Parse a profile object / reference (name, path or inline object). */
int ts_software_parse(const struct ts_jnode *node, struct ts_software *out, struct ts_err *err);
int ts_software_parse_ref(const struct ts_jnode *node, struct ts_software *out, struct ts_err *err);
int ts_software_load(const char *ref, struct ts_software *out, struct ts_err *err);

/* Apply a profile to a parsed `parallel`: the mechanisms, and the switches the job did not
 * give (ts_parallel.given). */
void ts_software_apply(const struct ts_software *sw, struct ts_parallel *p);

/* The kernel a job's attention setting means on `gen` (resolves "flash" through the
 * profile); TS_ATTN_STANDARD stays unfused. */
enum ts_attention ts_attention_resolve(const struct ts_parallel *p, enum ts_generation gen);

/* Efficiency (fraction of `peak_flops`, the job's 16-bit peak) of fused attention kernel
 * `kind` on accelerator `a` for sequence length `seq`, head dim `head_dim`, causal or not,
 * forward (bwd false) or backward (bwd true; by trainsim's convention backward = 2x forward
 * FLOPs, the tables' 2.5x is converted). Interpolates the table linearly in log(seq) and in
 * head dim, clamps outside the measured range; without a table for the generation, the
 * accelerator's flash_attention figures. */
double ts_attn_efficiency(const struct ts_accel *a, enum ts_attention kind, double seq,
                          int head_dim, bool causal, bool bwd);

/* Check the resolved kernel exists on the job's device: fills err ("parallel.attention: ...")
 * and returns TS_ERR_INPUT otherwise. */
int ts_attention_check(const struct ts_parallel *p, const struct ts_accel *a, const char *file,
                       struct ts_err *err);

/* ---------------------------------------------------------------- reliability */

/* gpu: one copy per GPU; node (host), network (NIC/link) and switch (switch/cable): one per
 * node, and the failed node must be replaced; software: one per node, fails only while the
 * job runs and takes no node out (the job restarts on the same nodes); job: one for the
 * whole job (a size-independent process, for users who want one). */
enum ts_component { TS_COMP_GPU, TS_COMP_NODE, TS_COMP_NETWORK, TS_COMP_JOB, TS_COMP_SWITCH,
                    TS_COMP_SOFTWARE, TS_COMP_COUNT };
extern const char *const ts_component_names[TS_COMP_COUNT];    // "gpu", "node", "network", "job",
                                                                //   "switch", "software"

/* Whether a failure of this component takes a node out of the job (it must be replaced):
 * gpu, node, network, switch. */
bool ts_component_takes_node(enum ts_component c);

enum ts_distribution { TS_DIST_EXPONENTIAL, TS_DIST_WEIBULL, TS_DIST_COUNT };
extern const char *const ts_distribution_names[TS_DIST_COUNT]; // "exponential", "weibull"

#define TS_FAILURES_MAX 16

/* Valid ranges of the reliability inputs: the parser (reliability.c) rejects values outside
 * them with the range in the message, and the run model (sim/run) checks them again, since
 * its arithmetic depends on them and callers may fill the structs themselves. */
#define TS_REL_MTBF_MIN_S 1.0           // per component or node (failures[].mtbf,
                                        //   spot.preemption_mtbf); shorter is a unit mistake
#define TS_REL_MTBF_MAX_S 1e13          // ~300,000 years
#define TS_REL_SHAPE_MIN 0.1            // Weibull shape (see reliability.c for why)
#define TS_REL_SHAPE_MAX 1000.0
#define TS_REL_DURATION_MAX_S 1e9       // ~32 years: restart, repair, notice, reacquire, interval
#define TS_REL_SIZE_MIN_BYTES 1.0       // checkpoint size
#define TS_REL_SIZE_MAX_BYTES 1e18
#define TS_REL_BANDWIDTH_MIN 1.0        // bytes/s, for a bandwidth that is given (0 = no limit
#define TS_REL_BANDWIDTH_MAX 1e16       //   where the key allows it); 10 PB/s at most
#define TS_REL_RATE_SCALE_MIN 1e-6      // rate_scale: a factor on every failure rate
#define TS_REL_RATE_SCALE_MAX 1000.0

/* One failure process. gpu and node (and network, counted per node) processes are per
 * component: the job sees gpus (or nodes) independent copies, so its rate scales with its
 * size; a job process is one for the whole job (software, fabric-wide events). */
struct ts_failure_process {
    enum ts_component component;
    double mtbf_s;                  // mean time between failures of one component, e.g. 5.8 GPU-years
    enum ts_distribution distribution;
    double shape;                   // Weibull shape k (1 for exponential); scale from mtbf
    char name[32];                  // label for reports, e.g. "gpu hardware"
    double hang_fraction;           // share of its failures that are hangs (detected only at
                                    //   the hang timeout), 0..1; default processes carry a
                                    //   cited share (reliability.c), given ones 0 unless set
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

/* Recovery and incident mechanisms of the run simulation (reliability.c, "recovery",
 * "fail_slow", "bad_nodes", "correlated", "rollback", "planned"). In the struct every part is
 * off (zero rates, zero phases: ts_reliability_defaults), so a caller that fills the struct
 * gets a constant restart; a parsed job or sweep row without "restart_overhead" and
 * "recovery" gets the default recovery phases (ts_reliability_apply_defaults, recovery_mode
 * TS_RECOVERY_DEFAULT). restart_overhead stays the constant part of every recovery. */
struct ts_recovery {
    double crash_detect_s;          // detection of a crash, default 0 (immediate)
    double hang_fraction;           // share of ALL failures that are hangs (overrides the
                                    //   processes' own shares when > 0), default 0
    double hang_timeout_s;          // hang detection = the watchdog timeout, default 10 min
    double diagnose_median_s;       // diagnose + replace: lognormal median (0 = no phase)
    double diagnose_sigma;          //   and log-sd
    double queue_s;                 // rescheduling / queueing for capacity, default 0
    double startup_s;               // framework start-up, fixed part, default 0
    double startup_per_node_s;      // framework start-up per node of the job, default 0
    char diagnose_preset[16];       // "automated", "manual", "given" or "" (no phase)
};

/* How the recovery after a failure was chosen: the cited default phases (neither
 * "restart_overhead" nor "recovery" given), a constant restart ("restart_overhead" alone: the
 * Daly setting), or the phases the "recovery" object gives. */
enum ts_recovery_mode { TS_RECOVERY_CONSTANT, TS_RECOVERY_DEFAULT, TS_RECOVERY_GIVEN,
                        TS_RECOVERY_MODE_COUNT };
extern const char *const ts_recovery_mode_names[TS_RECOVERY_MODE_COUNT]; // "constant",
                                                                          //   "default", "given"

struct ts_fail_slow {
    double gpu_mtbf_s;              // mean time between fail-slow onsets of one GPU (0 = off)
    double factor;                  // step time multiplier while a GPU is slow
    double detect_s;                // onset to detection; then drained by a save and a restart
};

struct ts_bad_nodes {
    double fraction;                // share of the job's nodes that are lemons (0 = off)
    double multiplier;              // lemon failure rate / healthy rate (node-scoped processes)
    int evict_after;                // evict after this many failures in the window (0 = never)
    double evict_window_s;          // the window
};

struct ts_correlated {
    double domain_mtbf_s;           // mean time between events of one domain (0 = off)
    int domain_nodes;               // nodes per domain = blast radius
};

struct ts_rollback {
    double fraction;                // share of failures that force an older checkpoint (0 = off)
    int depth;                      // k: checkpoints back beyond the latest
};

struct ts_planned {
    double node_mtbf_s;             // mean time between planned interruptions per node (0 = off)
};

struct ts_mechanisms {
    struct ts_recovery recovery;
    struct ts_fail_slow fail_slow;
    struct ts_bad_nodes bad_nodes;
    struct ts_correlated correlated;
    struct ts_rollback rollback;
    struct ts_planned planned;
};

/* Which published fleet the default failure processes come from (reliability.c cites each):
 * AUTO picks by the accelerator's generation (ampere: A100; hopper, blackwell: H100; any
 * other: H100, flagged as assumed). */
enum ts_fleet { TS_FLEET_AUTO, TS_FLEET_H100, TS_FLEET_A100, TS_FLEET_A100_RESEARCH,
                TS_FLEET_COUNT };
extern const char *const ts_fleet_names[TS_FLEET_COUNT]; // "auto", "h100", "a100", "a100-research"

struct ts_reliability {
    /* Always-on failures (issue 13): a job without a reliability key gets the defaults;
     * "reliability": "none" is the failure-free what-if. */
    bool none;                      // "reliability": "none": no failure process, no checkpoint
                                    //   or restart cost (a sweep's spot rows keep their
                                    //   preemptions: they belong to the pricing)
    bool section_given;             // the input had a reliability key (object or "none")
    bool failures_default;          // "failures" not given: the fleet's default processes
    enum ts_fleet fleet;            // the fleet asked for ("fleet" key; default auto)
    enum ts_fleet fleet_used;       // the fleet the default processes were taken from (set by
                                    //   ts_reliability_apply_defaults; never auto)
    bool fleet_assumed;             // auto on a generation no source covers: H100 rates assumed
    double rate_scale;              // multiplies every failure process's rate (not spot
                                    //   preemption); default 1; the run model applies it
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
    struct ts_mechanisms mech;      // recovery phases and incident mechanisms (off by default)
    enum ts_recovery_mode recovery_mode; // set by parse / apply_defaults; CONSTANT in the struct
                                    //   defaults
    bool restart_overhead_given;    // the input gave "restart_overhead"
    bool recovery_given;            // the input gave "recovery"
    bool hang_fraction_given;       // the input gave "recovery.hang_fraction"
};

/* Defaults: the H100-fleet failure processes (Llama 3 405B, Table 5 counts per 1,000
 * node-days), checkpoints every Daly-optimal interval, synchronous; failures_default set. */
void ts_reliability_defaults(struct ts_reliability *r);

/* Fill the default failure processes for a job on accelerators of generation `gen`, when the
 * input gave none (failures_default): the fleet asked for, or under auto the fleet of the
 * generation. Sets fleet_used and fleet_assumed. Idempotent; nothing to do for "none" or for
 * processes given in the file. */
void ts_reliability_apply_defaults(struct ts_reliability *r, enum ts_generation gen);

/* Where the failure processes came from, for reports: "file", "none", or e.g. "default
 * (Llama 3 Table 5 mix, H100 fleet)". */
const char *ts_reliability_source(const struct ts_reliability *r, char *buf, size_t n);

/* The citation of default process i of the fleet in use, written to buf (NULL when the
 * processes came from the file). */
const char *ts_reliability_default_cite(const struct ts_reliability *r, int i, char *buf,
                                        size_t n);

/* Parse a job's `reliability` value into *out (which holds the defaults on entry): an object,
 * or the string "none". */
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
    /* committed capacity (cost.commitment): a term paid whether used or not */
    bool commit;                    // a commitment is given (pricing is then "reserved")
    double commit_term_s;           // its length: 1 or 3 years, or a capacity block of N days
    double commit_gpus;             // GPUs committed; 0 = the job's GPUs
    double commit_nodes;            // or nodes committed (x gpus_per_node); 0 = not given
    double commit_gpu_hour;         // USD per committed GPU-hour; NAN = gpu_hour.reserved
    double commit_upfront;          // USD paid once at signing
    double commit_other_use;        // fraction of the committed price recovered by other work
                                    //   on the committed GPUs the run leaves idle; default 0
    enum ts_pricing burst_pricing;  // GPUs beyond the commitment, and time after its term
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
    struct ts_software software;// the stack ("software"; default megatron-core)
    bool has_training;
    struct ts_training training;
    bool has_reliability;       // the whole run is simulated (always true from ts_job_parse:
                                //   failures are on by default; reliability.none is the
                                //   failure-free what-if); false only for jobs built by hand
    struct ts_reliability reliability;
    bool has_cost;
    struct ts_cost_config cost;
};

/* ---------------------------------------------------------------- resolution */

/* Catalogue root, searched in this order: $TRAINSIM_HOME; PREFIX/share/trainsim when the
 * running binary is an installed PREFIX/bin/trainsim; the source tree the binary was built
 * from; the configured install prefix's share/trainsim (a library used after the source tree
 * was removed). Looked up once per process. */
const char *ts_spec_home(void);

/* Kind of catalogue entry a name resolves under. */
enum ts_catalog {
    TS_CAT_MODEL, TS_CAT_ACCEL, TS_CAT_SYSTEM, TS_CAT_PRICES, TS_CAT_SOFTWARE, TS_CAT_ATTENTION,
    TS_CAT_COUNT
};

/* Resolve a reference string to a file path: a name -> HOME/models/NAME.json (and so on:
 * hardware/accelerators, hardware/systems, configs/prices, configs/software,
 * hardware/attention); a
 * path (contains '/' or ends in ".json") relative to the directory of the referring file
 * `from_file` first, then to the working directory. Fails if no file exists. */
int ts_spec_resolve(enum ts_catalog cat, const char *ref, const char *from_file, char *out,
                    size_t n, struct ts_err *err);

/* Resolve a file path like ts_spec_resolve does for paths (relative to the directory of
 * `from_file` first, then to the working directory). Returns TS_OK or TS_ERR_INPUT. */
/* Whether `name` is a catalogue name: letters, digits, '-', '_', '.', not starting with '.'. */
bool ts_spec_name_valid(const char *name);

int ts_spec_resolve_path(const char *ref, const char *from_file, char *out, size_t n);

/* Hugging Face import (sim/spec/hf.c; mapping table in its header comment and README): the
 * trainsim model document (a cJSON object the caller deletes) translated from the
 * config.json at `path`. `warning` (n bytes, may be NULL) receives "" or one line naming
 * the fields that are not modelled. A model reference "hf:PATH" or {"hf": PATH, KEY:
 * override, ...} loads a model this way. */
int ts_hf_model_doc(const char *path, cJSON **out, char *warning, size_t n, struct ts_err *err);

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

/* Parse `parallel.recompute` (a preset name or an object form) into p->recompute and
 * p->recompute_policy. */
int ts_recompute_parse(const struct ts_jnode *node, struct ts_parallel *p, struct ts_err *err);

/* The tensors a layer of the job keeps for backward (the preset's set, or the object form's).
 * Layers chosen by full_every keep only TS_T_INPUT instead (ts_recompute_full_layers). */
uint32_t ts_recompute_saved(const struct ts_parallel *p);

/* What the recomputation of the job's (not fully recomputed) layers re-runs. */
enum ts_rerun ts_recompute_rerun(const struct ts_parallel *p);

/* Of a stage's layers local_first .. local_first + count - 1 (0-based, counted over the
 * stage's chunks in order), how many full_every picks to recompute their whole forward (the
 * others follow ts_recompute_saved): every k-th, by torchtitan's per-process counter (local
 * index + 1 divisible by k); 0 without full_every ("full" is a saved set, not a mix). */
int ts_recompute_full_layers(const struct ts_parallel *p, int local_first, int count);

/* The policy in words for reports: "none", "selective", "full", "save NAME", "save [a, b]",
 * "full_every 4" or "full_every 4, save ...". */
void ts_recompute_describe(const struct ts_parallel *p, char *buf, size_t n);

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

/* Expert-data-parallel size: gpus / (ep x etp x pp) (1 for a dense model's layout). */
int ts_job_edp(const struct ts_job *job);

/* Ranks that share one copy of the ZeRO-sharded state: parallel.zero_group when given, else
 * dp x cp (Megatron shards the distributed optimizer over data- and context-parallel ranks). */
int ts_job_shard_ranks(const struct ts_job *job);

/* ---------------------------------------------------------------- curves */

/* Fit the interpolation table of a curve from its points (GSL Steffen interpolation in
 * log10 FLOPs; linear for two points; constant for one). */
int ts_gemm_curve_fit(struct ts_gemm_curve *c, struct ts_err *err);

/* Efficiency of a GEMM of `flops` FLOPs. Below the first point the GEMM takes as long as
 * the first point's GEMM (launch-bound); above the last, the last efficiency holds. */
double ts_gemm_curve_eval(const struct ts_gemm_curve *c, double flops);

#endif
