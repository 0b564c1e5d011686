/*
 * Memory per GPU of each pipeline stage: weights, gradients and optimizer state by precision
 * and ZeRO stage (Rajbhandari et al., "ZeRO", SC20, sec. 3-5), activations by the
 * Korthikanti et al. 2022 accounting times the microbatches the schedule keeps in flight,
 * the output layer's logits, and the accelerator's reserve.
 */
#include <math.h>
#include <string.h>

#include "compute/compute.h"

int ts_offload_window(int layers, int n, int i)
{
    int r = layers % n;
    return layers / n * (i + 1) - 1 + (i < r ? i + 1 : r);
}

int ts_offload_resident_layers(int layers, int n)
{
    if (n <= 0)
        return layers;
    int peak = 0;
    for (int l = 0; l < layers; l++) {
        /* at the end of layer l's forward (and, mirrored, during its backward) */
        int held = l >= n ? l - n + 1 : 0;
        for (int j = 0; j < n && j <= l; j++)
            held += l <= ts_offload_window(layers, n, j);
        peak = held > peak ? held : peak;
    }
    return peak;
}

double ts_offload_stall(int layers, int n, double layer_s, double copy_s)
{
    double stall = 0.0;
    int prev = 0;
    for (int i = 0; i < n; i++) {
        /* copy i overlaps the layers between its issue and its window */
        int w = ts_offload_window(layers, n, i);
        stall += fmax(0.0, copy_s - (w - prev) * layer_s);
        prev = w;
    }
    return stall;
}

double ts_memory_inflight(const struct ts_job *job, int stage)
{
    const struct ts_parallel *par = &job->parallel;
    int p = par->pp, v = par->virtual_stages;
    long m = job->global_batch / ((long)par->dp * par->microbatch);
    switch (par->schedule) {
    case TS_SCHED_GPIPE:
        return (double)m;
    case TS_SCHED_1F1B:
        return (double)(p - stage < m ? p - stage : m);
    case TS_SCHED_INTERLEAVED: {
        /* Megatron-LM schedules.py: warm-up forwards of rank r are
         * 2 (p - r - 1) + (v - 1) p; one more forward runs before the first backward. */
        long chunks = 2L * (p - stage - 1) + (long)(v - 1) * p + 1;
        if (m == p)
            chunks = m * v;     /* all forwards, then all backwards (all_warmup_microbatches) */
        if (chunks > m * v)
            chunks = m * v;
        return (double)chunks / v;
    }
    case TS_SCHED_COUNT:
        break;
    }
    return 1.0;
}

void ts_memory_stage(const struct ts_job *job, const struct ts_compute *c, int stage,
                     struct ts_memory *out)
{
    const struct ts_parallel *par = &job->parallel;
    memset(out, 0, sizeof *out);
    double shard = ts_job_shard_ranks(job);     /* dp x cp, or the hybrid shard group */
    double params = ts_compute_stage_params(job, c, stage);
    bool fp32 = job->precision == TS_PREC_FP32;
    double w_bytes = fp32 ? 4.0 : 2.0;
    double g_bytes = par->fp32_grads || fp32 ? 4.0 : 2.0;
    double o_bytes = fp32 ? 8.0 : 12.0;         /* (fp32 master +) Adam m and v */
    /* Stacks that keep the parameters in fp32 hold no 16-bit copy and no separate master
     * (FSDP MixedPrecision casts on use). */
    if (par->sw.fp32_params && !fp32) {
        w_bytes = 4.0;
        o_bytes = 8.0;
    }

    /* Routed experts are sharded over ep x etp already; ZeRO shards their state over the
     * expert-data-parallel ranks (Megatron-Core's expert distributed optimizer), the rest
     * over the dense shard group. */
    double experts = ts_compute_stage_expert_params(job, c, stage);
    double dense = params - experts;
    double eshard = ts_job_edp(job);
    if (par->zero_group && eshard > par->zero_group && (long)eshard % par->zero_group == 0)
        eshard = par->zero_group;
    out->weights_bytes = dense * w_bytes / (par->zero >= 3 ? shard : 1.0) +
                         experts * w_bytes / (par->zero >= 3 ? eshard : 1.0);
    out->grads_bytes = dense * g_bytes / (par->zero >= 2 ? shard : 1.0) +
                       experts * g_bytes / (par->zero >= 2 ? eshard : 1.0);
    out->optimizer_bytes = dense * o_bytes / (par->zero >= 1 ? shard : 1.0) +
                           experts * o_bytes / (par->zero >= 1 ? eshard : 1.0);
    /* ZeRO-3 / FSDP: the unit being computed and the prefetched ones are held gathered, and in
     * backward the unsharded gradients, in the compute precision, of the unit being produced
     * and of the one being reduce-scattered (accumulation happens in the sharded buffer). */
    if (par->zero >= 3) {
        double layer = c->moe ? fmax(c->layer.params, c->moe_layer.params) : c->layer.params;
        double unit = fmin(par->fsdp_unit_layers, ts_job_stage_layers(job, stage)) * layer;
        double e = fp32 ? 4.0 : 2.0;    /* gathered and differentiated in the compute dtype */
        out->buffer_bytes = (1.0 + par->fsdp_prefetch) * unit * e + 2.0 * unit * e;
        if (par->sw.zero3_blocking) {
            /* DeepSpeed ZeRO-3 (zero3_blocking) gathers tensor by tensor: at most the
             * stage3_max_live_parameters default (1e9 elements, deepspeed/runtime/zero/
             * constants.py v0.3.13 .. v0.5.10) live gathered, at least the sub-module being
             * computed (here its largest, an MLP GEMM: ffn_hidden x hidden x 2 with SwiGLU's
             * gate and up); in backward that sub-module's unsharded gradient and the gradient
             * bucket (reduce_bucket_size default 5e8 elements). Sharded as the layer is. */
            const struct ts_model *m = &job->model;
            double big = (double)m->ffn_hidden * m->hidden * (ts_ffn_gated(m->ffn) ? 2 : 1);
            double full_layer = c->layer_params_full > 0 ? c->layer_params_full : 1.0;
            double share = layer / full_layer;
            out->buffer_bytes = (fmax(big, fmin(1e9, full_layer)) + big + 5e8) * share * e;
        }
    }

    /* Context parallelism: the ring buffers of the one layer being computed. */
    out->buffer_bytes += c->moe ? fmax(c->layer.cp_buffer_bytes, c->moe_layer.cp_buffer_bytes)
                                : c->layer.cp_buffer_bytes;

    double inflight = ts_memory_inflight(job, stage);
    out->inflight = inflight;
    /* Layers that {"full_every": k} recomputes whole keep only their input. */
    int layers = ts_job_stage_layers(job, stage), full = ts_recompute_full_layers(par, 0, layers);
    out->activation_bytes = inflight * ((layers - full) * c->layer.activation_bytes +
                                        full * c->layer.full.activation_bytes);
    /* MoE layers hold their routed token copies (top_k of each token, at the busiest rank's
     * share) instead of the dense MLP's tensors; the all-to-all send and receive buffers of
     * the layer being computed live beside them. */
    int moe = ts_compute_stage_moe_layers(job, stage);
    if (moe > 0) {
        int mtp = stage == par->pp - 1 ? job->model.mtp_layers : 0;
        int moe_main = moe - mtp;
        double dense_act = (layers - full) * c->layer.activation_bytes +
                           full * c->layer.full.activation_bytes;
        double frac_full = layers > 0 ? (double)full / layers : 0.0;
        double per_moe = (1.0 - frac_full) * c->moe_layer.activation_bytes +
                         frac_full * c->moe_layer.full.activation_bytes;
        double per_dense = layers > 0 ? dense_act / layers : 0.0;
        out->activation_bytes = inflight * ((layers - moe_main) * per_dense + moe * per_moe);
        if (layers == moe_main && full == 0)
            out->activation_bytes = inflight * (moe * c->moe_layer.activation_bytes);
        out->buffer_bytes += 2.0 * c->moe_layer.moe.a2a_bytes;
    }
    /* Activation offload (pp 1, no recomputation: the job parser checks): the offloaded
     * layers' tensors leave the GPU, but not all at once (ts_offload_resident_layers). */
    if (par->offload_layers > 0 && layers > 0) {
        double per_layer = out->activation_bytes / layers;
        out->offloaded_bytes = per_layer * par->offload_layers;
        out->activation_bytes = per_layer * ts_offload_resident_layers(layers, par->offload_layers);
    }
    /* While a layer's backward runs, the tensors its recomputation regenerated live too (one
     * layer at a time per GPU): the largest such set among the stage's layers. */
    if (layers > full)
        out->recompute_bytes = c->layer.recompute_regen_bytes;
    if (full)
        out->recompute_bytes = fmax(out->recompute_bytes, c->layer.full.regen_bytes);
    if (stage == 0)
        out->activation_bytes += inflight * c->embed.activation_bytes;
    if (stage == par->pp - 1) {
        /* GPipe runs every forward before any backward, so the last stage holds all logits. */
        double held = par->schedule == TS_SCHED_GPIPE ? inflight : 1.0;
        out->output_bytes = held * c->output.activation_bytes;
    }
    out->reserved_bytes = job->system.accel.memory_reserved;
    out->total_bytes = out->weights_bytes + out->grads_bytes + out->optimizer_bytes +
                       out->buffer_bytes + out->activation_bytes + out->recompute_bytes +
                       out->output_bytes +
                       out->reserved_bytes;
}

int ts_memory_worst(const struct ts_job *job, const struct ts_compute *c, struct ts_memory *out)
{
    int worst = 0;
    ts_memory_stage(job, c, 0, out);
    for (int st = 1; st < job->parallel.pp; st++) {
        struct ts_memory m;
        ts_memory_stage(job, c, st, &m);
        if (m.total_bytes > out->total_bytes) {
            *out = m;
            worst = st;
        }
    }
    return worst;
}
