/*
 * step: one training iteration as a discrete-event simulation of the pipeline schedule.
 *
 * Input is a plan (struct ts_step_plan): per stage and model chunk, the forward and backward
 * time of one microbatch (compute plus the exposed part of the tensor- and context-parallel
 * communication inside the layers, from sim/compute and sim/comm), the pipeline messages,
 * the data-parallel gradient buckets and the end-of-iteration work. ts_step_plan_build makes
 * a plan from a job; tests build plans by hand.
 *
 * The simulation: every stage has a compute stream that runs its tasks (forward F or
 * backward B of a microbatch through one model chunk) in the schedule's order (GPipe,
 * 1F1B, or interleaved 1F1B, as Megatron-LM orders them). A task starts when the stream is
 * free and its input has arrived: F(k, j, c) needs the activation from F(k-1, j, c) (stage 0
 * of chunk c > 0 gets it from the last stage's chunk c - 1); B(k, j, c) needs the gradient
 * from B(k+1, j, c) (the last stage of the last chunk starts backward from its own F).
 * Messages are flows on the sender's link: its NIC share when the neighbour is in another
 * scale-up domain, else its scale-up link; flows on one link share its bandwidth equally
 * (a NIC carries pipeline messages and gradient buckets at once); a link carries at most
 * TS_DES_LINK_FLOWS_MAX flows at a time, later ones wait in FIFO order (only when transfers
 * fall far behind compute). Gradient buckets of a chunk become ready during that chunk's
 * last backward and are reduced in order on the stage's data-parallel stream (overlapped
 * with the remaining backward work when dp_overlap; otherwise after the stage's last
 * backward; with plan.overlap_slowdown > 0 the backward they overlap runs slower by that
 * fraction of the overlapped time: communication-compute contention). ZeRO-3 / FSDP all-gathers
 * a chunk's first unit before each of its tasks (prefetched one task ahead), the others inside
 * the task as a flow shop (their compute slowed by overlap_slowdown beside the collectives),
 * and reduce-scatters the gradients unit by unit; with the profile's fsdp2_copies each unit
 * also waits for FSDP2's copy-out after its gather and, in backward, for the copy-in of its
 * gradients (memory-bound passes counted in fwd_z3_s / bwd_z3_s), and with
 * parallel.fsdp_fp8_allgather an fp8 job gathers the layers at 1 byte per parameter. After its last backward and its gradient reduction a stage
 * runs the optimizer step and its tail (ZeRO parameter all-gather, tied-embedding
 * all-reduce). The iteration ends when the last stage finishes.
 *
 * Nothing here is a formula for the bubble: idle time emerges from the dependencies.
 * Determinism: the event engine orders ties FIFO; the result depends only on the plan.
 * Cost: O(m p v) events; no allocation in the event loop (a struct ts_step_sim holds the
 * workspace and is reused across calls; one per thread).
 */
#ifndef TS_STEP_H
#define TS_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include "compute/compute.h"
#include "comm/comm.h"
#include "spec/spec.h"

/* ---------------------------------------------------------------- plan */

/* Per stage and chunk (index k * v + c). */
struct ts_step_chunk {
    double fwd_s;           // forward of one microbatch, incl. exposed TP/CP communication
    double bwd_s;           // backward of one microbatch, incl. recomputation and exposed TP/CP
    double fwd_comm_s;      // part of fwd_s that is exposed TP/CP communication
    double bwd_comm_s;      // part of bwd_s that is exposed TP/CP communication
    double fwd_z3_s;        // part of fwd_s that is exposed ZeRO-3 / FSDP unit traffic
    double bwd_z3_s;        // part of bwd_s that is exposed ZeRO-3 / FSDP unit traffic
    double fwd_offload_s;   // part of fwd_s the compute waits for activation copies to the host
    double bwd_offload_s;   // part of bwd_s the compute waits for their reloads
    double params;          // parameters on one GPU of this chunk (gradient buckets, ZeRO-3)
    int buckets;            // gradient buckets of this chunk (>= 1 when dp > 1)
    double bucket_latency_s;// fixed part of one bucket's reduction
    double bucket_bytes;    // bytes of one bucket's reduction through the bottleneck link
    /* ZeRO-3 / FSDP, per unit of fsdp_unit_layers layers: the unit a task computes first is
     * all-gathered before the task starts (prefetched during the previous task); the other
     * units' all-gathers and reduce-scatters overlap the task's compute and whatever they
     * cannot hide is part of fwd_s / bwd_s (and fwd_comm_s / bwd_comm_s). What is still on
     * the link when a backward ends is reduced after it (z3_scatter). */
    double z3_gather_latency_s, z3_gather_bytes;   // first unit of a forward (the chunk's first)
    double z3_bgather_latency_s, z3_bgather_bytes; // first unit of a backward (the chunk's last)
    double z3_scatter_latency_s, z3_scatter_bytes; // link work left when a backward ends
};

struct ts_step_plan {
    int p, v, m;                    // stages, chunks per stage, microbatches
    enum ts_schedule schedule;
    struct ts_step_chunk *chunk;    // [p * v]
    double *optimizer_s;            // [p] optimizer step
    double *tail_s;                 // [p] exposed end-of-iteration communication
    double msg_bytes;               // pipeline message (activation or gradient) bytes per GPU
    double msg_latency_s;           // its latency (folded into the flow as latency x bandwidth)
    double msg_recv_s;              // receiver-side all-gather of scatter/gather messages
    bool msg_over_nic;              // neighbours sit in different scale-up domains
    bool msg_blocking;              // the sender's stream waits until its message is delivered
                                    //   (p2p without overlap, Megatron-LM's synchronous
                                    //   batch_isend_irecv + wait); else sends run alongside
    double layer_fwd_s;             // one layer, one microbatch: forward incl. exposed TP/CP
    double layer_bwd_s;             // backward incl. exposed TP/CP, without recomputation
    double layer_recompute_s;       // recomputation incl. its exposed TP/CP
    double nic_bandwidth;           // bytes/s of a GPU's NIC share (efficiency applied)
    double up_bandwidth;            // bytes/s of a GPU's scale-up link
    bool dp_over_nic;               // data-parallel traffic crosses domains
    bool dp_overlap;                // reduce buckets during backward (false: after the last
                                    //   backward; with ZeRO-3 hybrid sharding the buckets are
                                    //   the all-reduce across the replicas)
    double overlap_slowdown;        // fractional slowdown of a backward task while the gradient
                                    //   reduction overlaps it, and of each ZeRO-3 / FSDP unit's
                                    //   compute while its gathers / scatters run beside it
                                    //   (comm/compute contention); 0 = none
    bool zero3;                     // per-task weight gathers / gradient scatters
    int capacity_p, capacity_v;     // allocated sizes
};

/* Allocate a plan for up to p stages of v chunks. Returns 0, or -1 on out of memory. */
int ts_step_plan_init(struct ts_step_plan *plan, int p, int v);
void ts_step_plan_free(struct ts_step_plan *plan);

/* Build the plan of a validated job (grows the plan's arrays if needed). */
void ts_step_plan_build(const struct ts_job *job, const struct ts_compute *c,
                        struct ts_step_plan *plan);

/* ---------------------------------------------------------------- schedule */

enum ts_task_kind { TS_TASK_F, TS_TASK_B };

struct ts_task {
    uint8_t kind;       // enum ts_task_kind
    uint8_t chunk;      // model chunk c in [0, v)
    int32_t micro;      // microbatch j in [0, m)
};

/* Fill order[0 .. 2 m v) with the task order of stage `stage`. Megatron-LM's schedules:
 * GPipe runs all forwards then all backwards; 1F1B runs min(p - k - 1, m) warm-up
 * forwards, then alternates one forward and one backward, then the remaining backwards;
 * interleaved 1F1B does the same over m v chunk-microbatches with 2 (p - k - 1) + (v - 1) p
 * warm-up forwards (all m v when m == p, as Megatron-LM's all_warmup_microbatches), chunks
 * taken in groups of p microbatches. */
void ts_step_schedule(enum ts_schedule sched, int p, int v, int m, int stage, struct ts_task *order);

/* ---------------------------------------------------------------- simulation */

struct ts_step_result {
    double iteration_s;     // iteration time
    double pipeline_s;      // time the last backward ends
    double bubble_fraction; // mean over stages of idle compute time before pipeline_s, / iteration_s
    double compute_s;       // worst stage's busy compute time (excl. exposed comm)
    double exposed_tp_s;    // exposed TP/CP communication on the critical stage
    double exposed_pp_s;    // compute-stream waits caused by pipeline message transfer (critical stage)
    double exposed_dp_s;    // gradient reduction after the last backward, plus ZeRO-3 / FSDP
                            //   gathers and reductions not hidden (critical stage)
    double exposed_offload_s; // waits for activation offload copies (critical stage)
    double optimizer_s;     // optimizer step of the critical stage
    double tail_s;          // end-of-iteration communication of the critical stage
    int critical_stage;     // stage that finishes last
    uint64_t events;        // events simulated
    double nic_bytes;       // bytes sent over NIC links per iteration, summed over one pipeline's GPUs
    double up_bytes;        // bytes sent over scale-up links, same scope
};

/* Per-stage details (optional output arrays of length p, may be NULL). */
struct ts_step_stages {
    double *busy_s;         // compute busy time
    double *idle_s;         // idle before the stage's end
    double *end_s;          // when the stage finishes the iteration
};

/* A recorded span for the Chrome trace. */
struct ts_trace_span {
    int stage;              // pipeline stage (Perfetto process)
    int track;              // 0 compute, 1 send, 2 data-parallel
    int kind;               // task kind or message kind
    int micro, chunk;
    double start_s, end_s;
};

struct ts_trace {
    struct ts_trace_span *spans;
    size_t len, cap;
};

struct ts_step_sim;     // workspace; opaque

struct ts_step_sim *ts_step_sim_new(void);
void ts_step_sim_free(struct ts_step_sim *sim);

/* Simulate one iteration of `plan`. `stages` and `trace` may be NULL. */
void ts_step_simulate(struct ts_step_sim *sim, const struct ts_step_plan *plan,
                      struct ts_step_result *out, struct ts_step_stages *stages,
                      struct ts_trace *trace);

/* A cheap closed-form estimate of the same plan (for screening): the slowest stage's
 * m (f + b) plus the pipeline fill (sum of the other stages' chunk times / v), plus
 * exposed gradient reduction, optimizer and tail. */
double ts_step_closed_form(const struct ts_step_plan *plan);

/* A lower bound on ts_step_simulate's iteration time (never above it; used to prune
 * sweeps). */
double ts_step_lower_bound(const struct ts_step_plan *plan);

void ts_trace_init(struct ts_trace *t);
void ts_trace_free(struct ts_trace *t);

/* ---------------------------------------------------------------- effects of scale */

/* E[max of n independent standard normal samples] (exact, by quadrature; 0 for n = 1):
 * 0.5642 for 2, 1.5388 for 10, 2.5076 for 100, 3.2414 for 1000. Thread safe. */
double ts_step_normal_max_mean(long n);

/* Expected time per iteration that a synchronous job of `ranks` GPUs waits for its slowest
 * GPU, when one GPU's compute time is compute_s (1 + cv Z), Z ~ N(0, 1) independent across
 * GPUs: compute_s x cv x ts_step_normal_max_mean(ranks). The model and its source are in
 * sim/step/scale.c. */
double ts_step_sync_wait(double compute_s, double cv, long ranks);

/* ---------------------------------------------------------------- evaluation of a job */

enum ts_method { TS_METHOD_DISCRETE_EVENT, TS_METHOD_CLOSED_FORM, TS_METHOD_COUNT };
extern const char *const ts_method_names[TS_METHOD_COUNT];   // "discrete_event", "closed_form"

/* Everything `trainsim run` reports about one iteration of a job. */
struct ts_iteration {
    bool feasible;                  // fits in memory
    char reason[256];               // why not, e.g. "stage 0 needs 93.1 GiB per GPU, 80 GiB available"
    enum ts_method method;
    double iteration_s;             // seconds per iteration (incl. sync_wait_s, data_stall_s)
    double data_stall_s;            // seconds per iteration waiting for a data loader slower
                                    //   than the step (cost.data with fixed hosts:
                                    //   ts_cost_loader_time); 0 when the loader keeps up.
                                    //   iteration_s = max(step, loader); step.iteration_s and
                                    //   bubble_fraction stay the step's own
    double sync_wait_s;             // seconds per iteration the job waits for its slowest GPU
                                    //   (ts_step_sync_wait over all gpus, the accelerator's
                                    //   step_time_cv); included in iteration_s, not in
                                    //   step.iteration_s; 0 on one GPU or with cv 0
    double tokens_per_s;            // global_batch x seq_len / iteration_s
    double model_flops;             // per iteration, all GPUs
    double hardware_flops;          // per iteration, all GPUs (with recomputation)
    double model_tflops_per_gpu;    // model_flops / iteration_s / gpus / 1e12
    double hardware_tflops_per_gpu;
    double mfu, hfu;                // over the peak of the job's precision
    double bubble_fraction;
    double params;                  // model parameters
    double active_params;           // of which a token activates (MoE: top_k routed experts
                                    //   per layer; = params for a dense model)
    double moe_dropped_fraction;    // routed token copies dropped by the capacity factor
    int memory_stage;               // stage with the most memory per GPU
    struct ts_memory memory;        // its breakdown
    double memory_capacity_bytes;
    double layer_fwd_s;             // one layer, one microbatch, incl. exposed TP/CP traffic
    double layer_bwd_s;             // (Korthikanti et al. Table 4 reports these)
    double layer_recompute_s;
    struct ts_step_result step;     // details of the simulation (zeros for closed form,
                                    //   except iteration_s)
    /* with a training section */
    double iterations;              // ceil(tokens / tokens per iteration)
    double time_to_train_s;         // failure-free
};

/* Reusable per-thread scratch for evaluations. */
struct ts_eval_scratch {
    struct ts_step_sim *sim;
    struct ts_step_plan plan;
    struct ts_compute compute;
};

int ts_eval_scratch_init(struct ts_eval_scratch *s);
void ts_eval_scratch_free(struct ts_eval_scratch *s);

/* Size budget of the iteration simulation: at most TS_STEP_TASKS_MAX tasks per iteration
 * (pp x 2 x microbatches x virtual_stages, a forward and a backward per microbatch and model
 * chunk). The simulator keeps about 40 bytes per task (order, index, dependencies, arrival
 * times, link queue entries; ZeRO-3 adds two 40-byte queue jobs per task, a trace two spans),
 * so the budget holds its task storage near 1 GiB in the worst case. */
#define TS_STEP_TASKS_MAX (1L << 24)

/* Number of tasks the iteration simulation of `job` would hold (pp x 2 x m x v, m =
 * global_batch / (dp x microbatch)), computed in 64 bits; -1 when a factor is not positive
 * or the product does not fit in 62 bits. */
int64_t ts_step_task_count(const struct ts_job *job);

/* TS_OK when the job's iteration fits the size budget; otherwise TS_ERR_INPUT with a message
 * "FILE: global_batch: ..." naming global_batch, microbatch and virtual_stages, the task
 * count and the limit (and how to get under it). Called by ts_job_validate, so every
 * command refuses such a job before anything is allocated. */
int ts_step_check_size(const struct ts_job *job, const char *file, struct ts_err *err);

/* Evaluate a validated job. `stages` and `trace` are optional (discrete-event only). */
void ts_step_evaluate(const struct ts_job *job, enum ts_method method, struct ts_eval_scratch *s,
                      struct ts_iteration *out, struct ts_step_stages *stages,
                      struct ts_trace *trace);

#endif
