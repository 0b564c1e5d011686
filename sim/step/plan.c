/*
 * From a job to an iteration plan: per-chunk task times (compute + exposed TP/CP traffic),
 * pipeline messages, gradient buckets, optimizer and tail, priced with sim/compute and
 * sim/comm.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "step/step.h"

int ts_step_plan_init(struct ts_step_plan *plan, int p, int v)
{
    memset(plan, 0, sizeof *plan);
    plan->chunk = calloc((size_t)p * v, sizeof *plan->chunk);
    plan->optimizer_s = calloc((size_t)p, sizeof *plan->optimizer_s);
    plan->tail_s = calloc((size_t)p, sizeof *plan->tail_s);
    if (!plan->chunk || !plan->optimizer_s || !plan->tail_s) {
        ts_step_plan_free(plan);
        return -1;
    }
    plan->capacity_p = p;
    plan->capacity_v = v;
    plan->p = p;
    plan->v = v;
    return 0;
}

void ts_step_plan_free(struct ts_step_plan *plan)
{
    free(plan->chunk);
    free(plan->optimizer_s);
    free(plan->tail_s);
    memset(plan, 0, sizeof *plan);
}

static void plan_reserve(struct ts_step_plan *plan, int p, int v)
{
    if (p * v > plan->capacity_p * plan->capacity_v || p > plan->capacity_p) {
        int cp = p > plan->capacity_p ? p : plan->capacity_p;
        int cv = v > plan->capacity_v ? v : plan->capacity_v;
        plan->chunk = ts_xrealloc(plan->chunk, (size_t)cp * cv * sizeof *plan->chunk);
        plan->optimizer_s = ts_xrealloc(plan->optimizer_s, (size_t)cp * sizeof *plan->optimizer_s);
        plan->tail_s = ts_xrealloc(plan->tail_s, (size_t)cp * sizeof *plan->tail_s);
        plan->capacity_p = cp;
        plan->capacity_v = cv;
    }
}

/* Exposed time of a pass's TP collectives next to `gemm_s` of GEMMs. Without overlap all of
 * it; with overlap (Megatron-Core / Transformer Engine userbuffers: each GEMM is split in tp
 * chunks pipelined with the collective) the first chunk's share and whatever the GEMMs
 * cannot cover. The all-gathers that sequence-parallel backward repeats for the weight
 * gradient are issued asynchronously by Megatron-LM, but measured layer times show them
 * exposed: sequence parallelism saves 0.5 ms in the 22B layer's forward yet only 0.1 ms in
 * its backward (Korthikanti et al. 2022, Table 4), although it removes as much element-wise
 * work there. So they count in full unless tp_comm_overlap, which hides them behind the
 * data-gradient GEMMs (half the backward GEMM time). */
static double tp_exposed(const struct ts_system *sys, const struct ts_group *g,
                         const struct ts_tp_comm *tc, double gemm_s, bool overlap, int tp,
                         const struct ts_sw_mech *sw)
{
    if (g->size <= 1 || tc->bytes <= 0)
        return 0.0;
    struct ts_coll_cost ar, ag, rs, hag;
    ts_comm_collective(sys, TS_COLL_ALLREDUCE, g, tc->bytes, &ar);
    ts_comm_collective(sys, TS_COLL_ALLGATHER, g, tc->ag_bytes > 0 ? tc->ag_bytes : tc->bytes, &ag);
    ts_comm_collective(sys, TS_COLL_REDUCESCATTER, g, tc->bytes, &rs);
    ts_comm_collective(sys, TS_COLL_ALLGATHER, g,
                       tc->hidden_ag_bytes > 0 ? tc->hidden_ag_bytes : tc->bytes, &hag);
    double t = tc->allreduce * ar.time_s + tc->allgather * ag.time_s + tc->reducescatter * rs.time_s;
    double hidden = tc->hidden_allgather * hag.time_s;
    if (!overlap || sw->tp_overlap == TS_TPO_NONE)
        return t + hidden;
    double exposed = t / tp + fmax(0.0, t * (1.0 - 1.0 / tp) - gemm_s) + fmax(0.0, hidden - 0.5 * gemm_s);
    /* Async TP (PyTorch SymmetricMemory, XLA collective matmul) hides only the profile's
     * fraction of what userbuffers hides. */
    if (sw->tp_overlap == TS_TPO_ASYNC_TP)
        exposed += (1.0 - sw->async_tp_hidden) * (t + hidden - exposed);
    /* Contention: the GEMMs that hide the collective run slower while it runs beside them
     * (accelerator overlap_slowdown; Lee et al. 2025, arXiv 2507.03114). */
    if (sw->contention)
        exposed += sys->accel.overlap_slowdown * fmin(t + hidden - exposed, gemm_s);
    return exposed;
}

/* Exposed ring-attention traffic: cp - 1 transfers, each hidden behind one of the cp
 * blocks of attention work. */
static double cp_exposed(const struct ts_system *sys, const struct ts_group *g, double bytes,
                         int steps, double attn_s, double tail_bytes, double gather_bytes,
                         const struct ts_sw_mech *sw)
{
    if (steps <= 0 || (bytes <= 0 && gather_bytes <= 0 && tail_bytes <= 0))
        return 0.0;
    /* Each step every rank passes its KV block to the next rank of the ring, all at once: the
     * step lasts as long as the slowest hop, which crosses the scale-out network when the ring
     * spans domains (a pair at distance >= the domain size sits in two domains). A hop hides
     * behind one ring step's attention (steps + 1 equal calls, sim/compute ring_attention);
     * the hop that follows the last step (backward's dK/dV back to their owner) hides behind
     * nothing. */
    long distance = g->stride;
    if (g->domains > 1 && distance < sys->scale_up.domain_size)
        distance = sys->scale_up.domain_size;
    double step_s = attn_s / (steps + 1);
    struct ts_coll_cost c;
    double exposed = 0.0, hidden = 0.0;
    /* An all-gather of every rank's K/V (PyTorch context_parallel, rotate "allgather") is
     * issued with step 0 and waited for before step 1: only step 0 hides it (pytorch/pytorch
     * PR #132820, "[CP] Implement AllGather based context parallelism": the communication
     * overlaps "the first sharded kv computation"). */
    if (gather_bytes > 0) {
        ts_comm_collective(sys, TS_COLL_ALLGATHER, g, gather_bytes, &c);
        exposed += fmax(0.0, c.time_s - step_s);
        hidden += fmin(c.time_s, step_s);
    }
    if (bytes > 0) {
        ts_comm_p2p(sys, distance, bytes / steps, &c);
        exposed += steps * fmax(0.0, c.time_s - step_s);
        hidden += steps * fmin(c.time_s, step_s);
    }
    if (tail_bytes > 0) {
        ts_comm_p2p(sys, distance, tail_bytes, &c);
        exposed += c.time_s;
    }
    /* Contention: the attention that hides a transfer runs slower while it runs beside it
     * (accelerator overlap_slowdown; Lee et al. 2025, arXiv 2507.03114), as for TP. */
    if (sw->contention)
        exposed += sys->accel.overlap_slowdown * hidden;
    return exposed;
}

/* A collective priced as a flow on its bottleneck link: latency, then the bytes that make
 * the flow last exactly the collective's bandwidth time when the link is not shared. */
static void as_flow(const struct ts_system *sys, enum ts_coll coll, const struct ts_group *g,
                    double bytes, bool over_nic, double nic_bw, double up_bw, double *latency,
                    double *flow_bytes)
{
    struct ts_coll_cost c;
    ts_comm_collective(sys, coll, g, bytes, &c);
    *latency = c.latency_s;
    *flow_bytes = (c.time_s - c.latency_s) * (over_nic ? nic_bw : up_bw);
}

/* ---------------------------------------------------------------- MoE layers */

/* Exposed time of one pass's expert-parallel traffic in an MoE layer: `n` token exchanges
 * (dispatch and combine alternate) over the EP group by the job's dispatcher (sim/comm
 * ts_comm_moe_dispatch / _combine; NCCL's all-to-all sends a2a_bytes, one rank's top_k
 * copies at the busiest receiver's share), plus the expert-tensor-parallel all-gather
 * and reduce-scatter. Exposed in full unless the stack overlaps the all-to-all with another
 * microbatch's compute (moe_a2a_overlap: Megatron-Core's 1F1B-interleaved EP overlap,
 * DualPipe-like), which hides it behind the pass's `compute_s` and leaves the excess plus the
 * slowdown of the compute it hid behind. */
static double moe_exposed(const struct ts_job *job, const struct ts_group *g_ep,
                          const struct ts_group *g_etp, const struct ts_moe_comm *x, int n,
                          const struct ts_tp_comm *etp, double compute_s)
{
    const struct ts_system *sys = &job->system;
    const struct ts_parallel *par = &job->parallel;
    const struct ts_moe *e = &job->model.moe;
    double a2a = 0.0;
    if (n > 0 && g_ep->size > 1) {
        enum ts_moe_dispatcher d = (enum ts_moe_dispatcher)par->moe_dispatcher;
        struct ts_coll_cost disp, comb;
        /* the dispatcher's balanced bytes, stretched by the busiest receiver's share */
        double busy = x->tokens_bytes > 0 ? x->a2a_bytes / (e->top_k * x->tokens_bytes) : 1.0;
        ts_comm_moe_dispatch(sys, g_ep, x->tokens_bytes * busy, e->top_k, e->experts, par->ep, d,
                             &disp);
        ts_comm_moe_combine(sys, g_ep, x->tokens_bytes * busy, e->top_k, e->experts, par->ep, d,
                            &comb);
        for (int i = 0; i < n; i++)
            a2a += i % 2 == 0 ? disp.time_s : comb.time_s;
    }
    if (par->moe_a2a_overlap) {
        /* The hidden part is not free: the all-to-all kernels run on SMs beside the other
         * microbatch's compute, which slows by the accelerator's overlap_slowdown while they
         * run (Lee et al. 2025, arXiv 2507.03114, the slowdown the profiles' comm_contention
         * applies to the other overlapped collectives; DeepSeek-V3, arXiv 2412.19437 sec.
         * 3.2.2, gives 20 of the H800's 132 SMs to its overlapped all-to-all). Unlike those it
         * is charged whatever the profile says: this overlap hides a whole layer's token
         * exchange, not a bucketed tail, so leaving it free would price EP across nodes at
         * the cost of its excess alone. */
        double hidden = fmin(a2a, compute_s);
        a2a = fmax(0.0, a2a - compute_s) + sys->accel.overlap_slowdown * hidden;
    }
    double t_etp = 0.0;
    if (g_etp->size > 1 && etp->bytes > 0) {
        struct ts_coll_cost ag, rs;
        ts_comm_collective(sys, TS_COLL_ALLGATHER, g_etp, etp->bytes, &ag);
        ts_comm_collective(sys, TS_COLL_REDUCESCATTER, g_etp, etp->bytes, &rs);
        t_etp = etp->allgather * ag.time_s + etp->reducescatter * rs.time_s;
    }
    return a2a + t_etp;
}

/* ---------------------------------------------------------------- ZeRO-3 / FSDP units */

/* One unit of a task as ZeRO-3 / FSDP runs it. */
struct z3_unit {
    double compute_s;       // compute of one unit (the chunk's average)
    double gather_s;        // its weight all-gather (0: no gather)
    double scatter_s;       // its gradient reduce-scatter (backward only)
};

/* One task (a forward or a backward of one microbatch through one chunk) as FSDP runs it:
 * the chunk's n units are computed one after another on the compute stream, while one
 * communication stream all-gathers the units ahead (at most `depth` units ahead of the one
 * being computed: FSDP's forward / backward prefetch) and, in backward, reduce-scatters each
 * unit's gradient once the unit is done. The stream serves its operations in the order they
 * are issued (NCCL runs the operations of one stream in order). The first unit is gathered
 * before the task starts (the step simulation prefetches it during the previous task), so a
 * unit's compute starts when the previous one is done and its own all-gather has arrived: a
 * two-machine flow shop. `first_extra_s` / `last_extra_s` is compute the first / last unit
 * computed carries besides its layers (embedding, output layer), `last_scatter_extra_s` the
 * extra reduce-scatter of the last one. Returns the task's duration; *left_s gets the
 * communication still queued when the last unit's compute ends (its reduce-scatter). With
 * one unit the task lasts its compute, as ZeRO-3 at chunk granularity had it. `no_prefetch`
 * (backward only; FSDP backward_prefetch None): the next unit's all-gather is issued by
 * that unit's own pre-backward hook, after this unit's reduce-scatter was queued, so it waits
 * behind it on the one stream (Zhao et al. 2023, "PyTorch FSDP", arXiv 2304.11277, backward
 * prefetching: with one NCCL stream the all-gather would wait for the reduce-scatter, which
 * waits for the gradient computation; prefetching issues it before). */
static double z3_task(int n, const struct z3_unit *u, double first_extra_s, double last_extra_s,
                      double last_scatter_extra_s, int depth, bool backward, bool no_prefetch,
                      double *left_s)
{
    if (!backward)
        no_prefetch = false;
    if (no_prefetch)
        depth = depth > 0 ? 1 : 0;    /* one unit gathered at a time */
    double pending[TS_FSDP_PREFETCH_MAX + 1];  // all-gather ends of units issued ahead
    int ring = depth + 1;
    double link = 0.0;                         // when the communication stream is free
    double end = 0.0;                          // compute end of the previous unit
    int issued = 1;                            // units whose all-gather has been issued
    /* Units 1 .. depth are gathered as soon as the task starts (after the first unit
     * without prefetch). */
    for (; !no_prefetch && issued < n && issued <= depth; issued++) {
        link += u->gather_s;
        pending[issued % ring] = link;
    }
    for (int i = 0; i < n; i++) {
        double arrived = i > 0 && u->gather_s > 0 ? pending[i % ring] : 0.0;
        double start = fmax(end, arrived);
        /* The unit that starts frees a prefetch slot: issue the all-gather depth units on. */
        if (!no_prefetch && issued < n && issued <= i + depth) {
            link = fmax(link, start) + u->gather_s;
            pending[issued % ring] = link;
            issued++;
        }
        end = start + u->compute_s + (i == 0 ? first_extra_s : 0.0) +
              (i == n - 1 ? last_extra_s : 0.0);
        if (backward)
            link = fmax(link, end) + u->scatter_s + (i == n - 1 ? last_scatter_extra_s : 0.0);
        if (no_prefetch && depth > 0 && issued < n) {
            link += u->gather_s;
            pending[issued % ring] = link;
            issued++;
        }
    }
    *left_s = fmax(0.0, link - end);
    return end;
}

/* Time of ZeRO's gradient reduction of `bytes` over the shard group, plus, with hybrid
 * sharding, the all-reduce of the reduced shard (bytes / shard ranks) across the replicas
 * (FSDP HYBRID_SHARD, ZeRO++ hpZ). */
static void z3_reduce_cost(const struct ts_system *sys, enum ts_coll coll, const struct ts_group *shard,
                           const struct ts_group *replicas, double bytes, struct ts_coll_cost *out)
{
    ts_comm_collective(sys, coll, shard, bytes, out);
    if (replicas->size > 1) {
        struct ts_coll_cost ar;
        ts_comm_collective(sys, TS_COLL_ALLREDUCE, replicas, bytes / shard->size, &ar);
        out->time_s += ar.time_s;
        out->latency_s += ar.latency_s;
    }
}

/* A collective's cost as a flow on its bottleneck link (see as_flow). */
static void cost_as_flow(const struct ts_coll_cost *cost, bool over_nic, double nic_bw, double up_bw,
                         double *latency, double *flow_bytes)
{
    *latency = cost->latency_s;
    *flow_bytes = (cost->time_s - cost->latency_s) * (over_nic ? nic_bw : up_bw);
}

/* DeepSpeed's default stage3_max_reuse_distance (deepspeed/runtime/zero/constants.py,
 * ZERO_OPTIMIZATION_MAX_REUSE_DISTANCE_DEFAULT, v0.3.13 .. v0.5.10): a released sub-module's
 * parameters are kept for their next use when fewer elements are fetched in between. */
#define Z3_MAX_REUSE_DISTANCE 1e9

#define Z3_PERSISTENCE_THRESHOLD 1e5    /* ZERO_OPTIMIZATION_PARAM_PERSISTENCE_THRESHOLD_DEFAULT */

/* A collective's time with its bandwidth part multiplied by k. */
static double z3_time(const struct ts_coll_cost *cost, double k)
{
    return cost->latency_s + k * (cost->time_s - cost->latency_s);
}

/* The memory passes DeepSpeed v0.3.13 and PyTorch 1.8 add around one such collective of
 * `bytes` (the gathered tensor, or the gradient reduced), serialized with it by the device
 * synchronizations, at the accelerator's streaming HBM bandwidth. All-gather (3 passes):
 * Init._allgather_param zero-fills the gathered buffer (torch.zeros: a write) and hands
 * all_gather a list of world-size views; ProcessGroupNCCL::allgather
 * (torch/lib/c10d/ProcessGroupNCCL.cpp, 1.8) gathers into a flat buffer and copies it into
 * the list (copy_ per rank: a read and a write). Reduce-scatter (6 passes): the gradient is
 * copied into the reduction bucket (contiguous_gradients) and divided by the world size
 * (tensor.div_ in average_tensor), and ProcessGroupNCCL::reduce_scatter flattens the input
 * views into one buffer (flatten_for_scatter_gather), a read and a write each. The per-rank
 * copy kernels' issue cost is left out: the rows show no time growing with the rank count
 * (175B: the same step on 768 and 1536 GPUs). */
static double z3_copies(const struct ts_job *job, double bytes, bool gather)
{
    const struct ts_accel *a = &job->system.accel;
    double hbm = a->memory_bandwidth * (a->memory_efficiency > 0 ? a->memory_efficiency : 1.0);
    return (gather ? 3.0 : 6.0) * bytes / hbm;
}

/* DeepSpeed's default reduce_bucket_size, 5e8 elements (deepspeed/runtime/zero/constants.py,
 * ZERO_OPTIMIZATION_REDUCE_BUCKET_SIZE_DEFAULT, v0.3.13). */
#define Z3_REDUCE_BUCKET 5e8

/* The backward's gradient reduction of a zero3_blocking chunk under software
 * zero3_grad_allreduce: DeepSpeed v0.3.13 .. v0.4.2 (ZERO3_OPTIMIZATION_CONTIGUOUS_GRADIENTS_
 * DEFAULT False in deepspeed/runtime/zero/constants.py until v0.4.3, 2021-07-12) reduces
 * without contiguous gradients: stage3.py FP16_DeepSpeedZeroOptimizer_Stage3
 * reduce_independent_p_g_buckets_and_remove_grads appends each ready gradient to the bucket
 * and calls reduce_ipg_grads first when the bucket would pass reduce_bucket_size;
 * reduce_ipg_grads then takes buffered_reduce_fallback(None, ...) -> allreduce_no_retain ->
 * allreduce_and_copy -> allreduce_bucket, which flattens the bucket, divides it by the world
 * size and dist.all_reduce's it whole (allreduce_bucket forces rank = None), then copies it
 * back into the gradients (unflatten, copy_): one all-reduce per bucket (a ring moves 2(n-1)/n
 * of the bytes through each link, twice a reduce-scatter's) and 6 memory passes per reduced
 * byte (flatten, div_, copy back: a read and a write each, z3_copies). The buckets follow the
 * backward's order: the output layer, the layers from the last (each layer's tensors in
 * `sizes`, already in backward order), the embedding. Owning ranks then copy their partition
 * out (partition_previous_reduced_grads: 1/n of the bytes, left out). Returns the
 * reduction's time, serialized with everything else as the per-tensor path is. */
static double z3_allreduce_grads(const struct ts_job *job, const struct ts_group *shard,
                                 const struct ts_group *replicas, int layers, const double *sizes,
                                 int ns, double out_params, double embed_params, double g_bytes,
                                 double z3k)
{
    double t = 0.0, bucket = 0.0;
    int total = ns * layers + 2;
    for (int k = 0; k <= total; k++) {
        double e;
        if (k == 0)
            e = out_params;
        else if (k == total - 1)
            e = embed_params;
        else if (k == total)
            e = 0.0;                       /* end of the backward: the last bucket */
        else
            e = sizes[(k - 1) % ns];
        if (bucket > 0 && (k == total || bucket + e > Z3_REDUCE_BUCKET)) {
            struct ts_coll_cost ar;
            z3_reduce_cost(&job->system, TS_COLL_ALLREDUCE, shard, replicas, bucket * g_bytes, &ar);
            t += z3_time(&ar, z3k) + z3_copies(job, bucket * g_bytes, false);
            bucket = 0.0;
        }
        bucket += e;
    }
    return t;
}

/* ZeRO-3 as DeepSpeed v0.3.13 .. v0.5.10 (2021-03 .. 2022-01) runs it (software
 * zero3_blocking), for chunk x: every parameter tensor is gathered by its own all-gather
 * (Init._allgather_param in deepspeed/runtime/zero/partition_parameters.py, v0.3.13 12a53b4 to
 * v0.5.10: one torch.distributed.all_gather per parameter, preceded by
 * torch.cuda.synchronize(), so the gather waits for all queued compute and the compute after
 * it waits in fetch_sub_module's _synchronize_communication, another device synchronization),
 * and every tensor's gradient by its own reduce-scatter (_reduce_scatter_gradient), which the
 * next fetch's synchronization waits for. None of it overlaps compute: a task lasts its
 * compute plus each tensor's collective and its memory passes (z3_copies), in sequence. Each
 * sub-module (norm, QKV, projection, norm, MLP GEMMs; weight and bias separate tensors when
 * the model has biases) is fetched in the forward; under full recomputation the recomputed
 * forward fetches it again and the backward fetches those whose reuse distance (elements
 * fetched between the recomputation's use and the backward's: twice the layer's later
 * sub-modules) reaches Z3_MAX_REUSE_DISTANCE
 * (PartitionedParameterCoordinator._keep_for_later); without recomputation the backward
 * fetches every sub-module (its reuse distance is the rest of the model). Tensors under the
 * param_persistence_threshold default (1e5 elements: norms and biases) stay gathered
 * (ds_persist) and are only reduce-scattered. The embedding (first chunk) and an untied output
 * layer count as one tensor each. v0.6.0 (2022-03; PR #1453 of 2022-01-20) replaced this fetch
 * by coalesced all-gathers waited on by CUDA events: this path does not describe DeepSpeed
 * from then on.
 */
static void z3_blocking(const struct ts_job *job, const struct ts_compute *c,
                        struct ts_step_chunk *x, int layers, int full, bool has_embed, bool has_output,
                        const struct ts_group *shard, const struct ts_group *replicas,
                        double w_bytes, double g_bytes)
{
    const struct ts_system *sys = &job->system;
    const struct ts_model *m = &job->model;
    double h = m->hidden, f = m->ffn_hidden;
    double q = (double)m->heads * m->head_dim, kv = (double)m->kv_heads * m->head_dim;
    int b = m->bias ? 1 : 0;
    /* Sub-modules of one layer in forward order: weight elements, bias elements. */
    double w[6], bi[6];
    int n = 0;
    w[n] = h; bi[n++] = b * h;                          /* input norm */
    w[n] = h * (q + 2 * kv); bi[n++] = b * (q + 2 * kv);/* fused QKV */
    w[n] = q * h; bi[n++] = b * h;                      /* output projection */
    w[n] = h; bi[n++] = b * h;                          /* post-attention norm */
    if (ts_ffn_gated(m->ffn)) {
        w[n] = 2 * h * f; bi[n++] = 0;                  /* gate and up: two tensors, below */
    } else {
        w[n] = h * f; bi[n++] = b * f;                  /* first MLP GEMM */
    }
    w[n] = f * h; bi[n++] = b * h;                      /* second MLP GEMM */
    double total = 0.0;
    for (int i = 0; i < n; i++)
        total += w[i] + bi[i];
    /* Elements on this GPU's shard of the model per element of the sub-module list (TP
     * splits, MoE layers' average). */
    double embed_params = has_embed ? c->embed.params : 0.0;
    double out_params = has_output ? c->output.params : 0.0;
    double layer_params = c->moe && layers > 0 ? (x->params - embed_params - out_params) / layers
                                               : c->layer.params;
    double scale = layer_params / total;
    /* The profile's fitted constant for this device, if it is a ZeRO-3 one, multiplies the
     * bandwidth part of every collective here (configs/software: "calibration"). */
    double z3k = 1.0;
    for (int i = 0; i < job->parallel.sw.n_cal; i++)
        if (strcmp(job->parallel.sw.cal_device[i], sys->accel.name) == 0)
            z3k = job->parallel.sw.cal_z3_scale[i];
    double ag_layer = 0.0, reag_layer = 0.0, rs_layer = 0.0, later = 0.0;
    for (int i = n - 1; i >= 0; i--) {
        struct ts_coll_cost cw, cb, rw, rb;
        int split = (ts_ffn_gated(m->ffn) && i == n - 2) ? 2 : 1;
        ts_comm_collective(sys, TS_COLL_ALLGATHER, shard, w[i] / split * scale * w_bytes, &cw);
        z3_reduce_cost(sys, TS_COLL_REDUCESCATTER, shard, replicas, w[i] / split * scale * g_bytes,
                       &rw);
        double wb = w[i] / split * scale;   /* elements of one weight tensor on this GPU */
        double ag = wb >= Z3_PERSISTENCE_THRESHOLD
                        ? split * (z3_time(&cw, z3k) + z3_copies(job, wb * w_bytes, true))
                        : 0.0;
        double rs = split * (z3_time(&rw, z3k) + z3_copies(job, wb * g_bytes, false));
        if (bi[i] > 0) {
            ts_comm_collective(sys, TS_COLL_ALLGATHER, shard, bi[i] * scale * w_bytes, &cb);
            z3_reduce_cost(sys, TS_COLL_REDUCESCATTER, shard, replicas, bi[i] * scale * g_bytes,
                           &rb);
            double bb = bi[i] * scale;
            ag += bb >= Z3_PERSISTENCE_THRESHOLD
                      ? z3_time(&cb, z3k) + z3_copies(job, bb * w_bytes, true)
                      : 0.0;
            rs += z3_time(&rb, z3k) + z3_copies(job, bb * g_bytes, false);
        }
        ag_layer += ag;
        rs_layer += rs;
        if (2 * later >= Z3_MAX_REUSE_DISTANCE)
            reag_layer += ag;
        later += w[i] + bi[i];
    }
    double head_ag = 0.0, head_rs = 0.0;
    double head_params[2] = {embed_params, out_params};   /* output: 0 when tied, pp 1 */
    for (int i = 0; i < 2; i++) {
        if (head_params[i] <= 0)
            continue;
        struct ts_coll_cost ag, rs;
        ts_comm_collective(sys, TS_COLL_ALLGATHER, shard, head_params[i] * w_bytes, &ag);
        z3_reduce_cost(sys, TS_COLL_REDUCESCATTER, shard, replicas, head_params[i] * g_bytes, &rs);
        if (head_params[i] >= Z3_PERSISTENCE_THRESHOLD)
            head_ag += z3_time(&ag, z3k) + z3_copies(job, head_params[i] * w_bytes, true);
        head_rs += z3_time(&rs, z3k) + z3_copies(job, head_params[i] * g_bytes, false);
    }
    if (job->parallel.sw.zero3_grad_allreduce) {
        /* Bucketed all-reduce instead of the per-tensor reduce-scatters (z3_allreduce_grads). */
        double sizes[16];
        int ns = 0;
        for (int i = n - 1; i >= 0; i--) {
            int split = (ts_ffn_gated(m->ffn) && i == n - 2) ? 2 : 1;
            if (bi[i] > 0)
                sizes[ns++] = bi[i] * scale;
            for (int s = 0; s < split; s++)
                sizes[ns++] = w[i] / split * scale;
        }
        rs_layer = 0.0;
        head_rs = z3_allreduce_grads(job, shard, replicas, layers, sizes, ns, out_params,
                                     embed_params, g_bytes, z3k);
    }
    /* Layers whose whole forward the backward re-runs: the full_every picks, or all of them
     * under full recomputation. */
    int whole = full + (ts_recompute_rerun(&job->parallel) == TS_RERUN_LAYER ? layers - full : 0);
    x->fwd_z3_s = layers * ag_layer + head_ag;
    x->bwd_z3_s = layers * (ag_layer + rs_layer) + whole * reag_layer + head_ag + head_rs;
    x->fwd_s += x->fwd_z3_s;
    x->bwd_s += x->bwd_z3_s;
    x->z3_gather_latency_s = x->z3_gather_bytes = 0.0;
    x->z3_bgather_latency_s = x->z3_bgather_bytes = 0.0;
    x->z3_scatter_latency_s = x->z3_scatter_bytes = 0.0;
}

/* The ZeRO-3 / FSDP part of chunk x (layers layers, one microbatch's forward layer_f and
 * backward layer_b per layer, the embedding on the first chunk and the output layer on the
 * last): units of fsdp_unit_layers layers, the first unit of each task gathered before it
 * (as a flow in the step simulation), the others overlapped inside the task (z3_task), the
 * backward's leftover reduce-scatters reduced after it. FULL_SHARD: every forward and every
 * backward gathers each unit again (weights are resharded after use), as FSDP and
 * DeepSpeed ZeRO-3 do per microbatch under gradient accumulation. */
static void z3_chunk(const struct ts_job *job, const struct ts_compute *c, struct ts_step_chunk *x,
                     int layers, double layer_f, double layer_b, bool has_embed, bool has_output,
                     const struct ts_group *shard, const struct ts_group *replicas, double w_bytes,
                     double g_bytes, const struct ts_step_plan *plan)
{
    const struct ts_system *sys = &job->system;
    const struct ts_parallel *par = &job->parallel;
    int per_unit = par->fsdp_unit_layers < layers ? par->fsdp_unit_layers : layers;
    int n = (layers + per_unit - 1) / per_unit;
    double embed_params = has_embed ? c->embed.params : 0.0;
    double out_params = has_output ? c->output.params : 0.0;
    /* MoE chunks mix dense and MoE layers: their units hold the chunk's average layer */
    double unit_params = c->moe ? (x->params - embed_params - out_params) / n
                                : c->layer.params * layers / n;
    bool nic = plan->dp_over_nic;

    /* Float8 all-gather (parallel.fsdp_fp8_allgather, fp8 jobs): the layers' weights travel
     * and are copied out at 1 byte per parameter (torchao casts each shard to float8 before
     * the gather, WeightWithDynamicFloat8CastTensor's fsdp_pre_all_gather); the embedding and
     * output layer are not float8 linears and stay at w_bytes. */
    double w_unit = par->fsdp_fp8_allgather && job->precision == TS_PREC_FP8 ? 1.0 : w_bytes;
    struct ts_coll_cost ag, rs, ag_first, ag_last, rs_extra;
    ts_comm_collective(sys, TS_COLL_ALLGATHER, shard, unit_params * w_unit, &ag);
    z3_reduce_cost(sys, TS_COLL_REDUCESCATTER, shard, replicas, unit_params * g_bytes, &rs);
    /* The chunk's first unit holds the embedding, its last the output layer (one unit holds
     * both). */
    double first_params = unit_params + embed_params + (n == 1 ? out_params : 0.0);
    double last_params = unit_params + out_params + (n == 1 ? embed_params : 0.0);
    ts_comm_collective(sys, TS_COLL_ALLGATHER, shard,
                       unit_params * w_unit + (first_params - unit_params) * w_bytes, &ag_first);
    ts_comm_collective(sys, TS_COLL_ALLGATHER, shard,
                       unit_params * w_unit + (last_params - unit_params) * w_bytes, &ag_last);
    z3_reduce_cost(sys, TS_COLL_REDUCESCATTER, shard, replicas, first_params * g_bytes, &rs_extra);
    cost_as_flow(&ag_first, nic, plan->nic_bandwidth, plan->up_bandwidth, &x->z3_gather_latency_s,
                 &x->z3_gather_bytes);
    cost_as_flow(&ag_last, nic, plan->nic_bandwidth, plan->up_bandwidth, &x->z3_bgather_latency_s,
                 &x->z3_bgather_bytes);

    /* Forward: the chunk's first unit first; backward: its last unit first, the embedding's
     * reduce-scatter (first chunk) last. */
    struct z3_unit uf = {layer_f * layers / n, ag.time_s, 0.0};
    struct z3_unit ub = {layer_b * layers / n, ag.time_s, rs.time_s};
    /* FSDP2 (torch fully_shard; profile fsdp2_copies) gathers a unit into one flat buffer and
     * then, on the compute stream once the all-gather's event has fired, copies it out into
     * the unsharded parameters (foreach_all_gather_copy_out: torch.split_with_sizes_copy,
     * read + write of the unit); in backward it copies the unit's 16-bit gradients into the
     * reduce-scatter buffer in the reduce dtype (foreach_reduce_scatter_copy_in, on the
     * reduce-scatter stream) and the compute stream waits for that copy before it frees the
     * gradients (current_stream.wait_event(copy_in_event)); pytorch/pytorch
     * torch/distributed/_composable/fsdp/_fsdp_collectives.py at 01d66d2. Each is one
     * memory-bound pass the unit's compute waits for: per parameter 2 w_bytes after every
     * gather, w_bytes + g_bytes after every backward. The embedding and output weights ride
     * with the chunk's first and last units, as their gathers do. */
    double copy_f_first = 0.0, copy_f_last = 0.0, copy_b_first = 0.0, copy_b_last = 0.0;
    if (par->sw.fsdp2_copies) {
        double bw = sys->accel.memory_bandwidth * sys->accel.memory_efficiency;
        double lat = par->sw.kernel_latency_s >= 0 ? par->sw.kernel_latency_s
                                                   : sys->accel.kernel_latency;
        double out_b = 2.0 * w_bytes / bw, in_b = (w_bytes + g_bytes) / bw;
        double out_unit = 2.0 * w_unit / bw;
        uf.compute_s += unit_params * out_unit + lat;
        ub.compute_s += unit_params * (out_unit + in_b) + 2.0 * lat;
        copy_f_first = embed_params * out_b;
        copy_f_last = out_params * out_b;
        copy_b_first = out_params * (out_b + in_b);
        copy_b_last = embed_params * (out_b + in_b);
    }
    /* Contention: each unit's compute runs beside the communication stream's work for it
     * (the all-gather prefetched during it, in backward also the reduce-scatter of the unit
     * before), whose kernels hold SMs and HBM bandwidth for their whole duration, latency
     * included; the overlapped part slows by overlap_slowdown (Lee et al. 2025, arXiv
     * 2507.03114), first order as for the bucketed reductions (the stream's timing is not
     * re-solved). Off unless the profile sets comm_contention. */
    uf.compute_s += plan->overlap_slowdown * fmin(uf.compute_s, uf.gather_s);
    ub.compute_s += plan->overlap_slowdown * fmin(ub.compute_s, ub.gather_s + ub.scatter_s);
    double left_f, left_b;   /* a forward leaves nothing: its gathers end before their units */
    double fwd_extra_first = x->fwd_s - layers * layer_f;   /* embedding / output compute */
    double bwd_extra = x->bwd_s - layers * layer_b;
    double f_first = has_embed ? c->embed.fwd.time_s : 0.0;
    double b_last = has_embed ? c->embed.bwd.time_s : 0.0;
    double tf = z3_task(n, &uf, f_first + copy_f_first, fwd_extra_first - f_first + copy_f_last,
                        0.0, par->fsdp_prefetch, false, false, &left_f);
    double tb = z3_task(n, &ub, bwd_extra - b_last + copy_b_first, b_last + copy_b_last,
                        has_embed ? rs_extra.time_s - rs.time_s : 0.0, par->fsdp_prefetch, true,
                        par->fsdp_no_backward_prefetch, &left_b);
    /* What the units' communication adds to the tasks is exposed data-parallel traffic (with
     * fsdp2_copies it includes FSDP2's copies, which exist only because of the sharding). */
    x->fwd_z3_s = tf - x->fwd_s;
    x->bwd_z3_s = tb - x->bwd_s;
    x->fwd_s = tf;
    x->bwd_s = tb;
    if (n == 1) {
        /* The one unit's reduce-scatter starts when the backward ends: all of it is left. */
        cost_as_flow(&rs_extra, nic, plan->nic_bandwidth, plan->up_bandwidth,
                     &x->z3_scatter_latency_s, &x->z3_scatter_bytes);
    } else {
        x->z3_scatter_latency_s = 0.0;
        x->z3_scatter_bytes = left_b * (nic ? plan->nic_bandwidth : plan->up_bandwidth);
    }
}

void ts_step_plan_build(const struct ts_job *job, const struct ts_compute *c,
                        struct ts_step_plan *plan)
{
    const struct ts_system *sys = &job->system;
    const struct ts_parallel *par = &job->parallel;
    int p = par->pp, v = par->virtual_stages;
    plan_reserve(plan, p, v);
    plan->p = p;
    plan->v = v;
    plan->m = c->micro_per_pipeline;
    plan->schedule = par->schedule;
    plan->dp_overlap = par->dp_overlap;
    plan->overlap_slowdown = par->sw.contention ? sys->accel.overlap_slowdown : 0.0;
    plan->zero3 = par->zero >= 3 && par->dp * par->cp > 1;

    struct ts_group g_tp, g_cp, g_dp, g_pp;
    ts_comm_group(sys, par, TS_PDIM_TP, &g_tp);
    ts_comm_group(sys, par, TS_PDIM_CP, &g_cp);
    ts_comm_group(sys, par, TS_PDIM_DP, &g_dp);
    ts_comm_group(sys, par, TS_PDIM_PP, &g_pp);
    /* Gradients are reduced over data-parallel x context-parallel ranks (Megatron-LM). */
    struct ts_group g_grad = g_dp;
    if (par->cp > 1) {
        long stride = g_cp.stride < g_dp.stride ? g_cp.stride : g_dp.stride;
        ts_comm_group_strided(sys, par->dp * par->cp, stride, &g_grad);
    }

    /* ZeRO's sharded state lives on a shard group: all dp x cp gradient ranks, or with
     * hybrid sharding (zero_group) groups of that many consecutive ones, replicated across
     * the others. */
    struct ts_group g_shard = g_grad, g_replicas;
    int shard_ranks = ts_job_shard_ranks(job);
    ts_comm_group_strided(sys, 1, 1, &g_replicas);
    if (shard_ranks < g_grad.size) {
        ts_comm_group_strided(sys, shard_ranks, g_grad.stride, &g_shard);
        ts_comm_group_strided(sys, g_grad.size / shard_ranks, g_grad.stride * shard_ranks,
                              &g_replicas);
    }

    const struct ts_layer_cost *L = &c->layer;
    /* TP communication overlap (userbuffers) moves data through NVLink peer memory: a TP
     * group that leaves the scale-up domain gets no overlap. */
    bool ov = par->tp_comm_overlap && g_tp.domains == 1;
    int tp = par->tp;
    double tp_f = tp_exposed(sys, &g_tp, &L->tp_fwd, L->tp_fwd_gemm_s, ov, tp, &par->sw);
    double tp_b = tp_exposed(sys, &g_tp, &L->tp_bwd, L->tp_bwd_gemm_s, ov, tp, &par->sw);
    double tp_r =
        tp_exposed(sys, &g_tp, &L->tp_recompute, L->tp_recompute_gemm_s, ov, tp, &par->sw);
    double cp_f = cp_exposed(sys, &g_cp, L->cp_fwd_bytes, L->cp_steps, L->attn_fwd_s, 0.0,
                             L->cp_gather_bytes, &par->sw);
    double cp_b = cp_exposed(sys, &g_cp, L->cp_bwd_bytes, L->cp_steps, L->attn_bwd_s,
                             L->cp_bwd_tail_bytes, L->cp_gather_bytes, &par->sw);
    double cp_r = L->recompute_attention ? cp_f : 0.0;
    /* Layers that {"full_every": k} recomputes whole (ts_recompute_full_layers). */
    bool mixed = par->recompute_policy.custom && par->recompute_policy.full_every > 0;
    double tp_rf = mixed ? tp_exposed(sys, &g_tp, &L->full.tp, L->full.gemm_s, ov, tp, &par->sw) : 0.0;
    double cp_rf = L->full.attention ? cp_f : 0.0;
    double emb_tp = tp_exposed(sys, &g_tp, &c->embed.tp_fwd, 0.0, false, tp, &par->sw);
    double out_tp_f = tp_exposed(sys, &g_tp, &c->output.tp_fwd, 0.0, false, tp, &par->sw);
    double out_tp_b = tp_exposed(sys, &g_tp, &c->output.tp_bwd, 0.0, false, tp, &par->sw);

    double layer_f = L->fwd.time_s + tp_f + cp_f;
    double layer_b = L->bwd.time_s + L->recompute.time_s + tp_b + tp_r + cp_b + cp_r;
    plan->layer_fwd_s = layer_f;
    plan->layer_bwd_s = L->bwd.time_s + tp_b + cp_b;
    plan->layer_recompute_s = L->recompute.time_s + tp_r + cp_r;
    double layer_b_full = L->bwd.time_s + L->full.pass.time_s + tp_b + tp_rf + cp_b + cp_rf;
    if (mixed) {
        /* per-layer average over the first stage */
        int n = ts_job_stage_layers(job, 0), nf = ts_recompute_full_layers(par, 0, n);
        plan->layer_recompute_s = ((n - nf) * plan->layer_recompute_s +
                                   nf * (L->full.pass.time_s + tp_rf + cp_rf)) / n;
    }

    /* MoE layers (Megatron-Core MoE parallel folding: the ranks of a stage, tp x cp x dp of
     * them, hold the experts as etp x ep x edp with etp innermost, so an EP group has stride
     * etp and the expert-data-parallel group stride ep x etp; whether EP stays inside an
     * NVLink domain follows from that placement). */
    const struct ts_layer_cost *M = &c->moe_layer;
    struct ts_group g_ep, g_etp, g_edp;
    ts_comm_group_strided(sys, par->ep, par->etp, &g_ep);
    ts_comm_group_strided(sys, par->etp, 1, &g_etp);
    ts_comm_group_strided(sys, c->moe ? ts_job_edp(job) : 1, (long)par->ep * par->etp, &g_edp);
    double moe_f = 0.0, moe_b = 0.0, moe_bf = 0.0, mcomm_f = 0.0, mcomm_b = 0.0, mcomm_bf = 0.0;
    if (c->moe) {
        double mtp_f = tp_exposed(sys, &g_tp, &M->tp_fwd, M->tp_fwd_gemm_s, ov, tp, &par->sw);
        double mtp_b = tp_exposed(sys, &g_tp, &M->tp_bwd, M->tp_bwd_gemm_s, ov, tp, &par->sw);
        double mtp_r =
            tp_exposed(sys, &g_tp, &M->tp_recompute, M->tp_recompute_gemm_s, ov, tp, &par->sw);
        double mtp_rf =
            mixed ? tp_exposed(sys, &g_tp, &M->full.tp, M->full.gemm_s, ov, tp, &par->sw) : 0.0;
        double mcp_f = cp_exposed(sys, &g_cp, M->cp_fwd_bytes, M->cp_steps, M->attn_fwd_s, 0.0,
                                  M->cp_gather_bytes, &par->sw);
        double mcp_b = cp_exposed(sys, &g_cp, M->cp_bwd_bytes, M->cp_steps, M->attn_bwd_s,
                                  M->cp_bwd_tail_bytes, M->cp_gather_bytes, &par->sw);
        double mcp_r = M->recompute_attention ? mcp_f : 0.0;
        double mcp_rf = M->full.attention ? mcp_f : 0.0;
        double ep_f = moe_exposed(job, &g_ep, &g_etp, &M->moe, M->moe.a2a_fwd, &M->moe.etp_fwd,
                                  M->fwd.time_s);
        double ep_b = moe_exposed(job, &g_ep, &g_etp, &M->moe, M->moe.a2a_bwd, &M->moe.etp_bwd,
                                  M->bwd.time_s);
        double ep_r = moe_exposed(job, &g_ep, &g_etp, &M->moe, M->moe.a2a_recompute,
                                  &M->moe.etp_recompute, M->recompute.time_s);
        double ep_rf = mixed ? moe_exposed(job, &g_ep, &g_etp, &M->moe, M->moe.a2a_fwd,
                                           &M->moe.etp_fwd, M->full.pass.time_s)
                             : 0.0;
        mcomm_f = (mtp_f + ep_f) + mcp_f;
        mcomm_b = (mtp_b + mtp_r + ep_b + ep_r) + mcp_b + mcp_r;
        mcomm_bf = (mtp_b + mtp_rf + ep_b + ep_rf) + mcp_b + mcp_rf;
        moe_f = M->fwd.time_s + (mtp_f + ep_f) + mcp_f;
        moe_b = M->bwd.time_s + M->recompute.time_s + (mtp_b + ep_b) + (mtp_r + ep_r) + mcp_b + mcp_r;
        moe_bf = M->bwd.time_s + M->full.pass.time_s + (mtp_b + ep_b) + (mtp_rf + ep_rf) + mcp_b +
                 mcp_rf;
    }

    /* Links of a GPU: its NIC share and its scale-up bandwidth toward pipeline peers. */
    plan->nic_bandwidth = ts_comm_out_bandwidth(sys, &g_pp);
    struct ts_group pair;
    ts_comm_group_strided(sys, 2, g_pp.stride, &pair);
    plan->up_bandwidth = ts_comm_up_bandwidth(sys, &pair);
    if (plan->up_bandwidth <= 0)
        plan->up_bandwidth = sys->scale_up.bandwidth * sys->scale_up.efficiency;
    plan->dp_over_nic = g_grad.domains > 1;
    double grad_up_bw = ts_comm_up_bandwidth(sys, &g_grad);
    if (grad_up_bw > 0 && !plan->dp_over_nic)
        plan->up_bandwidth = fmin(plan->up_bandwidth, grad_up_bw);

    /* Pipeline messages: one microbatch's activations (or their gradients) per GPU; with
     * scatter/gather each TP rank sends 1/tp and the receiver all-gathers over NVLink
     * (Narayanan et al. sec. 4.1). */
    double act = c->tokens_per_microbatch / par->cp * job->model.hidden *
                 (job->precision == TS_PREC_FP32 ? 4.0 : 2.0);
    bool sg = par->scatter_gather && tp > 1 && !par->sequence_parallel;
    plan->msg_over_nic = g_pp.domains > 1;
    plan->msg_blocking = !par->p2p_overlap;
    plan->msg_bytes = p > 1 ? (sg ? act / tp : (par->sequence_parallel ? act / tp : act)) : 0.0;
    plan->msg_latency_s = p > 1 ? (plan->msg_over_nic ? sys->scale_out.latency : sys->scale_up.latency) : 0.0;
    plan->msg_recv_s = 0.0;
    if (p > 1 && sg) {
        struct ts_coll_cost ag;
        ts_comm_collective(sys, TS_COLL_ALLGATHER, &g_tp, act, &ag);
        plan->msg_recv_s = ag.time_s;
    }

    double w_bytes = job->precision == TS_PREC_FP32 ? 4.0 : 2.0;
    double g_bytes = par->fp32_grads || job->precision == TS_PREC_FP32 ? 4.0 : 2.0;
    /* A stack may reduce gradients in another dtype than it accumulates them in. */
    if (par->sw.grad_reduce_bytes > 0)
        g_bytes = par->sw.grad_reduce_bytes;
    enum ts_coll grad_coll = par->zero >= 1 ? TS_COLL_REDUCESCATTER : TS_COLL_ALLREDUCE;
    bool dp_nic = plan->dp_over_nic;

    for (int k = 0; k < p; k++) {
        int stage_layers = ts_job_stage_layers(job, k);
        double stage_params = 0.0;
        int first_layer = 0;    /* of the chunk, counted over the stage's chunks */
        for (int ch = 0; ch < v; ch++) {
            /* Chunks of an uneven stage differ by at most one layer; the first take more. */
            int layers = stage_layers / v + (ch < stage_layers % v ? 1 : 0);
            int full = ts_recompute_full_layers(par, first_layer, layers);
            first_layer += layers;
            struct ts_step_chunk *x = &plan->chunk[k * v + ch];
            memset(x, 0, sizeof *x);
            /* MoE layers of the chunk (with the MTP modules on the last one) */
            int nm = c->moe ? ts_compute_chunk_moe_layers(job, k, ch, layers) : 0;
            int mtp = c->moe && k == p - 1 && ch == v - 1 ? job->model.mtp_layers : 0;
            int nd = layers - (nm - mtp);
            if (nm == 0) {
                x->fwd_s = layers * layer_f;
                x->bwd_s = (layers - full) * layer_b + full * layer_b_full;
                x->fwd_comm_s = layers * (tp_f + cp_f);
                x->bwd_comm_s = (layers - full) * (tp_b + tp_r + cp_b + cp_r) +
                                full * (tp_b + tp_rf + cp_b + cp_rf);
                x->params = layers * L->params;
            } else {
                /* full_every picks layers by position; share them out in proportion */
                int full_m = (int)((double)full * (nm - mtp) / layers + 0.5);
                int full_d = full - full_m;
                x->fwd_s = nd * layer_f + nm * moe_f;
                x->bwd_s = (nd - full_d) * layer_b + full_d * layer_b_full + (nm - full_m) * moe_b +
                           full_m * moe_bf;
                x->fwd_comm_s = nd * (tp_f + cp_f) + nm * mcomm_f;
                x->bwd_comm_s = (nd - full_d) * (tp_b + tp_r + cp_b + cp_r) +
                                full_d * (tp_b + tp_rf + cp_b + cp_rf) + (nm - full_m) * mcomm_b +
                                full_m * mcomm_bf;
                x->params = nd * L->params + nm * M->params;
                if (mtp) {
                    /* each MTP module also runs its 2h -> h projection and the output layer
                     * on its own predictions */
                    x->fwd_s += mtp * (c->mtp_proj.fwd.time_s + c->output.fwd.time_s + out_tp_f);
                    x->bwd_s += mtp * (c->mtp_proj.bwd.time_s + c->output.bwd.time_s + out_tp_b);
                    x->fwd_comm_s += mtp * out_tp_f;
                    x->bwd_comm_s += mtp * out_tp_b;
                    x->params += mtp * c->mtp_extra_params_full / tp;
                }
            }
            if (par->offload_layers > 0) {
                /* Activation offload (pp 1, v 1): each offloaded layer's tensors cross the
                 * host link once each way per microbatch, hidden behind the layers of its
                 * window (ts_offload_stall); the copy engines' HBM traffic (a few % of HBM
                 * bandwidth) is not charged to the compute. */
                struct ts_memory mem;
                ts_memory_stage(job, c, k, &mem);
                double copy_s = mem.offloaded_bytes / par->offload_layers /
                                (sys->host_bandwidth * sys->host_efficiency);
                x->fwd_offload_s = ts_offload_stall(layers, par->offload_layers,
                                                    x->fwd_s / layers, copy_s);
                x->bwd_offload_s = ts_offload_stall(layers, par->offload_layers,
                                                    x->bwd_s / layers, copy_s);
                x->fwd_s += x->fwd_offload_s;
                x->bwd_s += x->bwd_offload_s;
            }
            double x_experts = nm * M->expert_params;
            if (k == 0 && ch == 0) {
                x->fwd_s += c->embed.fwd.time_s + emb_tp;
                x->bwd_s += c->embed.bwd.time_s;
                x->fwd_comm_s += emb_tp;
                x->params += c->embed.params;
            }
            if (k == p - 1 && ch == v - 1) {
                x->fwd_s += c->output.fwd.time_s + out_tp_f;
                x->bwd_s += c->output.bwd.time_s + out_tp_b;
                x->fwd_comm_s += out_tp_f;
                x->bwd_comm_s += out_tp_b;
                x->params += c->output.params;
            }
            stage_params += x->params;
            /* Expert gradients are reduced over the expert-data-parallel group; when it is the
             * dense gradients' group (same ranks) they share its buckets. */
            bool own_experts = x_experts > 0 &&
                               (g_edp.size != g_grad.size || g_edp.stride != g_grad.stride);
            if (own_experts && !plan->zero3 && (g_grad.size > 1 || g_edp.size > 1)) {
                TS_ASSERT(par->bucket_bytes > 0, "bucket_bytes %g: the job parser sets the default",
                          par->bucket_bytes);
                double lat[2] = {0.0, 0.0}, fb[2] = {0.0, 0.0};
                int nb[2] = {0, 0};
                double part[2] = {(x->params - x_experts) * g_bytes, x_experts * g_bytes};
                const struct ts_group *grp[2] = {&g_grad, &g_edp};
                for (int i = 0; i < 2; i++) {
                    if (grp[i]->size <= 1 || part[i] <= 0)
                        continue;
                    nb[i] = (int)ceil(part[i] / par->bucket_bytes);
                    nb[i] = nb[i] < 1 ? 1 : nb[i];
                    as_flow(sys, grad_coll, grp[i], part[i] / nb[i], dp_nic, plan->nic_bandwidth,
                            plan->up_bandwidth, &lat[i], &fb[i]);
                }
                x->buckets = nb[0] + nb[1];
                if (x->buckets > 0) {
                    x->bucket_latency_s = (nb[0] * lat[0] + nb[1] * lat[1]) / x->buckets;
                    x->bucket_bytes = (nb[0] * fb[0] + nb[1] * fb[1]) / x->buckets;
                }
            } else if (g_grad.size > 1 && !plan->zero3) {
                TS_ASSERT(par->bucket_bytes > 0, "bucket_bytes %g: the job parser sets the default",
                          par->bucket_bytes);
                double bytes = x->params * g_bytes;
                int nb = (int)ceil(bytes / par->bucket_bytes);
                x->buckets = nb < 1 ? 1 : nb;
                if (par->zero >= 1 && g_replicas.size > 1) {
                    struct ts_coll_cost rc;
                    z3_reduce_cost(sys, grad_coll, &g_shard, &g_replicas, bytes / x->buckets, &rc);
                    cost_as_flow(&rc, dp_nic, plan->nic_bandwidth, plan->up_bandwidth,
                                 &x->bucket_latency_s, &x->bucket_bytes);
                } else {
                    as_flow(sys, grad_coll, &g_grad, bytes / x->buckets, dp_nic, plan->nic_bandwidth,
                            plan->up_bandwidth, &x->bucket_latency_s, &x->bucket_bytes);
                }
            }
            if (plan->zero3) {
                /* Hybrid sharding without dp_overlap: the all-reduce of the reduced shard
                 * across the replicas is not issued unit by unit during the backward (FSDP
                 * HYBRID_SHARD's post-backward hook) but after the last backward, in
                 * buckets, fully exposed: XLA's latency-hiding scheduler leaves most of the
                 * weight-gradient all-reduce exposed (openxla/xla issue #1539, 2023) and
                 * MaxText runs pure data parallelism across slices (dcn_data_parallelism)
                 * with FSDP inside them. The units then reduce-scatter inside the shard
                 * group only. */
                bool after = g_replicas.size > 1 && !par->dp_overlap;
                struct ts_group none;
                ts_comm_group_strided(sys, 1, 1, &none);
                if (par->sw.zero3_blocking) {
                    z3_blocking(job, c, x, layers, full, k == 0 && ch == 0,
                                k == p - 1 && ch == v - 1, &g_shard, after ? &none : &g_replicas,
                                w_bytes, g_bytes);
                } else {
                    z3_chunk(job, c, x, layers, layer_f,
                             ((layers - full) * layer_b + full * layer_b_full) / layers,
                             k == 0 && ch == 0, k == p - 1 && ch == v - 1, &g_shard,
                             after ? &none : &g_replicas, w_bytes, g_bytes, plan);
                }
                if (after) {
                    TS_ASSERT(par->bucket_bytes > 0, "bucket_bytes %g: the job parser sets the "
                              "default", par->bucket_bytes);
                    double shard_bytes = x->params * g_bytes / g_shard.size;
                    int nb = (int)ceil(shard_bytes / par->bucket_bytes);
                    x->buckets = nb < 1 ? 1 : nb;
                    as_flow(sys, TS_COLL_ALLREDUCE, &g_replicas, shard_bytes / x->buckets, dp_nic,
                            plan->nic_bandwidth, plan->up_bandwidth, &x->bucket_latency_s,
                            &x->bucket_bytes);
                }
            }
        }
        plan->optimizer_s[k] = ts_compute_optimizer_time(job, c, k);

        /* Tail: ZeRO-1/2 gather the updated 16-bit weights (with dp_overlap only the first
         * bucket is exposed, the rest overlaps the next iteration's forward, as Megatron's
         * --overlap-param-gather does); tied embeddings all-reduce their gradient between
         * the first and last stage. */
        double tail = 0.0;
        if (par->zero >= 1 && par->zero <= 2 && g_grad.size > 1) {
            double bytes = stage_params * w_bytes;
            struct ts_coll_cost ag;
            if (par->dp_overlap) {
                double first = fmin(bytes, par->bucket_bytes / g_bytes * w_bytes);
                ts_comm_collective(sys, TS_COLL_ALLGATHER, &g_shard, first, &ag);
            } else {
                ts_comm_collective(sys, TS_COLL_ALLGATHER, &g_shard, bytes, &ag);
            }
            tail += ag.time_s;
        }
        if (job->model.tied_embeddings && p > 1 && (k == 0 || k == p - 1)) {
            struct ts_coll_cost ar;
            struct ts_group ends;
            ts_comm_group_strided(sys, 2, g_pp.stride * (p - 1), &ends);
            ts_comm_collective(sys, TS_COLL_ALLREDUCE, &ends, c->embed.params * g_bytes, &ar);
            tail += ar.time_s;
        }
        plan->tail_s[k] = tail;
    }
}
