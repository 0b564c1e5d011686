/*
 * compute: what one GPU computes for a transformer, and how long it takes, and how much
 * memory it holds. Pure functions of a job: no I/O, no globals, thread safe.
 *
 * Granularity: one pass (forward, backward or recomputation) of one transformer layer for
 * one microbatch on one GPU, i.e. on its tensor-parallel shard (t = tp) of its
 * context-parallel share of the sequence (s / cp). The pipeline simulation multiplies these
 * by layers per stage and schedules them; the communication module prices the TP/CP traffic
 * listed here.
 *
 * The op list follows Megatron-LM's GPT layer (Narayanan et al. SC21; Korthikanti et al.
 * 2022, sec. 4): norm, QKV GEMM (grouped-query attention: a query heads, g key/value
 * heads), attention core (fused flash attention, or QK^T, scale-mask-softmax, dropout and
 * attention x V), output projection, dropout + residual, norm, MLP (GeLU: 2 GEMMs; SwiGLU: 3
 * with the gate and up projections fused into one GEMM), dropout + residual. Backward runs
 * two GEMMs (data gradient, weight gradient) per forward GEMM.
 *
 * Times: a GEMM takes max(FLOPs / (peak x efficiency(FLOPs)), bytes / (HBM bandwidth x
 * memory efficiency)) + kernel latency, with the efficiency curve of the accelerator file
 * (a roofline with a measured shape efficiency). Element-wise kernels take bytes / (HBM
 * bandwidth x memory efficiency) + kernel latency. Flash attention runs at the accelerator's
 * measured flash efficiency (or its roofline, whichever is slower).
 *
 * The software profile (struct ts_parallel.sw, from configs/software/) sets: the attention
 * kernel (efficiency by sequence length, head dim and direction from the kernel tables of
 * the accelerator's generation, ts_attn_efficiency), which element-wise ops are fused (an
 * unfused op adds the extra HBM passes and kernels of its eager decomposition, counted in
 * ts_pass.unfused_bytes), the host dispatch cost (a pass lasts at least kernels x
 * host_dispatch: ts_pass.launch_s), the GPU-side kernel latency, the optimizer
 * implementation (fused / foreach / per-tensor: bytes and launches of the step) and one
 * fitted compute scale per device. megatron-core's settings reproduce the op list below
 * exactly. A job's parallel.attention_unpad adds, around a fused attention kernel, the
 * unpad / pad copies, kernels and host syncs of flash_attn.bert_padding (the path of
 * llm-foundry's attn_impl "flash"; ts_pass.sync_s). A job's parallel.eager_loss replaces
 * the profile's loss by eager ATen kernels over fp32 logits (OLMo-core with fused_loss off:
 * cast, contiguous slice, F.cross_entropy, optionally the z-loss), in ts_compute.output.
 *
 * Context parallelism (cp > 1) is ring attention under head-tail load balancing: cp flash
 * calls per pass (ts_compute_cp_step_blocks gives each rank's blocks per step) plus cp - 1
 * fp32 merges, and the K/V traffic of ts_layer_cost.cp_* that sim/step hides behind the
 * steps. The profile's context_parallel keys say how the ring moves K/V: a P2P hop per step
 * at the K/V heads (default, Megatron-Core / Transformer Engine) or one all-gather at the
 * first step (PyTorch context_parallel), K/V at the query heads (repeat_kv), dK/dV in fp32.
 *
 * FLOPs: only matrix multiplications are counted, the convention of the papers' formulas
 * (Narayanan eq. 3, Korthikanti eq. 7-8). Model FLOPs count forward + backward (3x forward)
 * of the full causal attention square without recomputation; hardware FLOPs add the
 * recomputed forward work.
 */
#ifndef TS_COMPUTE_H
#define TS_COMPUTE_H

#include "spec/spec.h"

/* Time and work of one pass on one GPU. */
struct ts_pass {
    double flops;       // matmul FLOPs executed
    double gemm_s;      // time in GEMM kernels (incl. the batched attention GEMMs)
    double attn_s;      // time in fused (flash) attention kernels
    double mem_s;       // time in element-wise (memory-bound) kernels
    double launch_s;    // GPU idle waiting for the host to issue kernels (eager stacks:
                        //   kernels x host_dispatch beyond the kernels' own time)
    double sync_s;      // GPU idle after host-device synchronizations inside the pass
                        //   (parallel.attention_unpad: torch.nonzero, .item()), each one
                        //   host dispatch + one kernel latency
    double time_s;      // gemm_s + attn_s + mem_s + launch_s + sync_s (communication
                        //   excluded)
    double kernels;     // kernel launches
    double unfused_bytes; // HBM bytes of the extra passes of unfused element-wise ops
};

/* Tensor-parallel (and sequence-parallel) collectives of one pass of one layer. All move
 * tensors of `bytes` bytes (the full activation, tokens x hidden x element size); ring cost
 * depends on the kind. */
struct ts_tp_comm {
    int allreduce;      // without sequence parallelism: 2 per pass
    int allgather;      // with sequence parallelism
    int reducescatter;  // with sequence parallelism
    int hidden_allgather; // all-gathers that Megatron overlaps with computation (SP backward
                          //   re-gathers the layer input for the weight gradient)
    double bytes;       // size of each tensor, bytes
    double ag_bytes;    // size of each all-gathered tensor when the stack gathers GEMM
                        //   inputs in another dtype (float8 TP: profile tp_fp8_allgather);
                        //   0 = bytes
    double hidden_ag_bytes; // the same for hidden_allgather; 0 = bytes
};

/* The recomputation of one layer for one microbatch under a saved set (sim/spec/recompute.c):
 * the forward ops that regenerate the unsaved tensors backward reads, from the nearest saved
 * ones (compute.c draws the op graph), and the bytes the saved tensors hold. */
struct ts_layer_recompute {
    struct ts_pass pass;        // forward work repeated during backward
    struct ts_tp_comm tp;       // TP collectives of the repeated ops
    double gemm_s;              // their GEMM time (overlap budget of tp)
    bool attention;             // the attention core runs again (CP ring passes repeat)
    unsigned ops;               // the forward ops re-run (bit i: op i of compute.c's layer_op)
    double activation_bytes;    // saved tensors' bytes
    double regen_bytes;         // bytes of the tensors it regenerates (held while this layer's
                                //   backward runs)
};

/* The expert-parallel traffic of one MoE layer on one GPU for one microbatch (zero in a
 * dense layer). Megatron-Core's all-to-all token dispatcher: forward dispatches the token
 * copies to their experts' ranks and combines the outputs back (two all-to-alls over the EP
 * group); backward sends their gradients the same two ways; with etp > 1 the received
 * tokens are all-gathered over the ETP group before the experts and reduce-scattered after. */
struct ts_moe_comm {
    double a2a_bytes;           // one rank's send buffer of one all-to-all: Tn top_k h e, times
                                //   the busiest rank's receive share over the mean (its
                                //   imbalance: the all-to-all lasts as long as its largest
                                //   receiver)
    double tokens_bytes;        // the rank's routed tokens before the top_k copies, Tn h e
    int a2a_fwd, a2a_bwd;       // all-to-alls per pass: 2 and 2 (0 when nothing routes)
    int a2a_recompute;          // repeated by the recomputation (2 when it re-runs the MoE block)
    struct ts_tp_comm etp_fwd, etp_bwd, etp_recompute; // ETP all-gather / reduce-scatter
    double dropped_fraction;    // share of the routed token copies the capacity drops (a lower
                                //   bound: the busiest expert's overflow only)
};

/* One transformer layer on one GPU for one microbatch. */
struct ts_layer_cost {
    struct ts_pass fwd;         // forward
    struct ts_pass bwd;         // backward (without recomputation)
    struct ts_pass recompute;   // forward work repeated during backward (the job's saved set)
    struct ts_tp_comm tp_fwd, tp_bwd, tp_recompute;
    double tp_recompute_gemm_s; // GEMM time of the recomputation (overlap budget)
    bool recompute_attention;   // the recomputation re-runs the attention core
    double recompute_regen_bytes; // tensors the recomputation regenerates, bytes
    double tp_fwd_gemm_s;       // forward GEMM time next to the TP collectives (overlap budget)
    double tp_bwd_gemm_s;       // same for backward
    double cp_fwd_bytes;        // context-parallel K/V bytes sent per GPU (ring), forward
    double cp_bwd_bytes;        // backward (K/V again plus their gradients)
    double cp_bwd_tail_bytes;   // backward's last dK/dV hop to their owner after the last
                                //   ring step's compute (nothing left to hide it)
    double cp_gather_bytes;     // all-gather output of every rank's K/V issued with the first
                                //   ring step, per pass (forward; backward again); 0 = P2P
                                //   ring (profile context_parallel.rotate)
    int cp_steps;               // ring steps (cp - 1)
    double cp_buffer_bytes;     // ring buffers alive while the layer's attention backward runs
                                //   (gathered K/V, fp32 dQ/dK/dV accumulators, dK/dV send and
                                //   receive buffers); counted for the all-gather rotation only
    double attn_fwd_s;          // attention core time, forward (hides CP traffic); with cp > 1
                                //   the cp ring calls and their cp - 1 fp32 merges
    double attn_bwd_s;          // attention core time, backward
    double model_flops;         // 3x forward matmul FLOPs (model FLOPs convention)
    double params;              // parameters on this GPU
    double expert_params;       // of which routed-expert parameters (sharded over ep x etp,
                                //   reduced over the expert-data-parallel group); 0 if dense
    struct ts_moe_comm moe;     // expert-parallel traffic (MoE layers)
    double activation_bytes;    // activations stored until backward (the job's saved set)
    struct ts_layer_recompute full; // a fully recomputed layer ({"full_every": k} picks
                                    //   ts_recompute_full_layers of a stage's layers)
};

/* Embedding (first stage) or output layer + loss (last stage) on one GPU, one microbatch. */
struct ts_head_cost {
    struct ts_pass fwd, bwd;
    struct ts_tp_comm tp_fwd, tp_bwd;
    double model_flops;
    double params;
    double activation_bytes;    // held while the microbatch is in flight
};

struct ts_compute {
    struct ts_layer_cost layer;     // a dense layer (every layer of a dense model)
    struct ts_layer_cost moe_layer; // an MoE layer (models with a moe section; else zeros)
    bool moe;                       // the model has MoE layers
    struct ts_head_cost embed;      // input embedding (first stage)
    struct ts_head_cost output;     // final norm, logits, cross-entropy (last stage)
    int vocab_padded;               // vocabulary padded to a multiple of 128 x tp (Megatron-LM)
    double optimizer_bytes_per_param; // HBM traffic of the optimizer step per local parameter
    double tokens_per_microbatch;   // sequences x sequence length (whole sequence)
    int micro_per_pipeline;         // microbatches per iteration m
    double layer_params_full;       // parameters of one layer, unsharded
    double embed_params_full;       // word (+ position) embedding, unsharded
    double output_params_full;      // output projection (0 if tied and pp == 1) + final norm
    double moe_layer_params_full;   // one MoE layer, unsharded (all experts)
    double moe_layer_active_full;   // one MoE layer's parameters a token activates (top_k
                                    //   routed + shared experts, router, attention, norms)
    double mtp_extra_params_full;   // per multi-token-prediction module beyond its MoE layer:
                                    //   the 2h x h projection and its two input norms + final norm
    struct ts_head_cost mtp_proj;   // one multi-token-prediction module's 2h -> h projection
                                    //   (Megatron-Core eh_proj, column-parallel over tp):
                                    //   forward GEMM, backward dgrad + wgrad; zeros without MTP
};

/* Global index of the first layer of chunk `chunk` of stage `stage`: stages hold consecutive
 * layers; with interleaving chunk c of stage k holds the (c p + k)-th block of layers
 * (Megatron-LM's virtual pipeline order). */
int ts_compute_chunk_first_layer(const struct ts_job *job, int stage, int chunk);

/* MoE layers held by a chunk / a stage (its chunks together); the last stage's last chunk
 * also holds the mtp_layers multi-token-prediction modules (Megatron-Core places MTP on the
 * last pipeline stage), counted here. */
int ts_compute_chunk_moe_layers(const struct ts_job *job, int stage, int chunk, int layers);
int ts_compute_stage_moe_layers(const struct ts_job *job, int stage);

/* Parameters a token activates: total less the routed experts it does not use (the
 * convention of DeepSeek-V3's "37B activated" and Mixtral's "12.9B active": every
 * non-expert weight, including both embeddings, plus top_k routed experts per MoE layer;
 * multi-token-prediction modules excluded, as in the 671B / 37B figures). */
double ts_compute_active_param_count(const struct ts_job *job, const struct ts_compute *c);

/* Routed-expert parameters held by one GPU of a stage (part of ts_compute_stage_params). */
double ts_compute_stage_expert_params(const struct ts_job *job, const struct ts_compute *c,
                                      int stage);

/* Build the per-GPU costs of a validated job. */
void ts_compute_build(const struct ts_job *job, struct ts_compute *out);

/* Time of one GEMM, M x K times K x N, on one GPU of the job (its accelerator, precision and
 * sustained_compute), whose epilogue moves `out_bytes` bytes per output element (the
 * precision's element size for a plain store; 8 for a weight gradient accumulated into fp32
 * main grads): the formula every GEMM in ts_compute_build uses, kernel latency included.
 * For tools that time GEMMs one at a time (trainsim calibrate's measured-vs-predicted check). */
double ts_compute_gemm_time(const struct ts_job *job, double m, double n, double k,
                            double out_bytes);

/* Context-parallel ring attention under head-tail load balancing (the sequence in 2 cp chunks,
 * rank r holding chunks r and 2 cp - 1 - r): the attention blocks rank `rank` computes at ring
 * step `step` (0 .. cp - 1), in units of one chunk's square with the diagonal pair of a causal
 * call counting half; *q_chunks and *k_chunks (may be NULL) get the call's query and key
 * lengths in chunks (PyTorch _templated_ring_attention's call shapes). Every rank and step
 * does 2 units, 2 cp in all. */
double ts_compute_cp_step_blocks(int cp, int rank, int step, int *q_chunks, int *k_chunks);

/* Model FLOPs of one iteration, all GPUs together (no recomputation; causal attention counted
 * as the full square, as the published MFU formulas do). */
double ts_compute_model_flops(const struct ts_job *job, const struct ts_compute *c);

/* Hardware FLOPs of one iteration, all GPUs together (with recomputation). */
double ts_compute_hardware_flops(const struct ts_job *job, const struct ts_compute *c);

/* Total parameters of the model (unsharded, embeddings counted once if tied). */
double ts_compute_param_count(const struct ts_job *job, const struct ts_compute *c);

/* Time of the optimizer step on one GPU of stage `stage` (memory-bound over the local shard):
 * local parameters x optimizer_bytes_per_param over the achievable HBM bandwidth, plus the
 * kernels of a foreach / per-tensor step (10 per tensor or tensor group: 8 update passes, the
 * clipping norm and scale), at least their host dispatch. Under FSDP (zero >= 2) a rank steps
 * only the tensors with elements in its shard: 1 + (T - 1) / shard of each unit's T. */
double ts_compute_optimizer_time(const struct ts_job *job, const struct ts_compute *c, int stage);

/* Parameters held by one GPU of a stage (before any ZeRO sharding). */
double ts_compute_stage_params(const struct ts_job *job, const struct ts_compute *c, int stage);

/* Bytes of one checkpoint of the whole model: the fp32 master weights and both Adam moments
 * (12 bytes per parameter) plus the 16-bit working weights (2), i.e. 14 bytes per parameter
 * (shared reference reliability.md: mixed-precision Adam state, ZeRO paper); fp32 training
 * keeps no separate master copy (12). */
double ts_compute_checkpoint_bytes(const struct ts_job *job, const struct ts_compute *c);

/* ---------------------------------------------------------------- memory */

struct ts_memory {
    double weights_bytes;       // 16-bit (or fp32) weights, after ZeRO-3 sharding
    double grads_bytes;         // gradient buffers (fp32 main grads by default)
    double optimizer_bytes;     // fp32 master + Adam moments, after ZeRO-1 sharding
    double activation_bytes;    // stored activations of the microbatches in flight
    double output_bytes;        // logits + fp32 softmax of the last stage
    double buffer_bytes;        // ZeRO-3 gathered-parameter buffers, MoE all-to-all buffers,
                                //   context-parallel ring buffers of the layer being computed
    double recompute_bytes;     // the regenerated tensors of the one layer whose backward runs
    double reserved_bytes;      // context, NCCL and allocator reserve (accelerator file)
    double total_bytes;
    double inflight;            // microbatches (layer-chunks) whose activations are held
    double offloaded_bytes;     // activations held in host memory (parallel.offload_layers);
                                //   not part of total_bytes
};

/* Activation offload as Transformer Engine schedules it (AsyncDoubleBufferGroupOffloadHandler,
 * transformer_engine/pytorch/cpu_offload.py): the first n of a stage's `layers` layers are
 * copied out one group (layer) at a time on a side stream; group i's copy must be done when
 * layer window(i) = (layers / n)(i + 1) - 1 (+ a share of layers % n) ends, and only then is
 * group i + 1's copy issued; the backward reloads in the reverse order against the same
 * windows. ts_offload_resident_layers: the most layers' activations on the GPU at once (the
 * not offloaded layers so far plus the offloaded ones not yet copied out, or already
 * reloaded); ts_offload_stall: the time the compute stream waits per pass, for per-layer
 * compute layer_s and per-layer copy copy_s. n = 0: layers and 0. */
int ts_offload_window(int layers, int n, int i);
int ts_offload_resident_layers(int layers, int n);
double ts_offload_stall(int layers, int n, double layer_s, double copy_s);

/* Microbatches held in flight by stage `stage` under the job's schedule, in units of one
 * full stage's activations (interleaving: chunk-microbatches / v). From Megatron-LM's
 * warm-up counts: 1F1B holds min(p - stage, m); interleaved holds
 * min(2 (p - stage - 1) + (v - 1) p + 1, m v) chunks (all m v when m == p, where Megatron-LM
 * runs every forward first); GPipe holds m. */
double ts_memory_inflight(const struct ts_job *job, int stage);

/* Memory of one GPU of stage `stage`. */
void ts_memory_stage(const struct ts_job *job, const struct ts_compute *c, int stage,
                     struct ts_memory *out);

/* Worst stage: fills *out and returns its index. */
int ts_memory_worst(const struct ts_job *job, const struct ts_compute *c, struct ts_memory *out);

#endif
