/*
 * Per-op FLOPs, bytes and times of a transformer layer on one GPU (see compute.h).
 */
#include <math.h>
#include <string.h>

#include "compute/compute.h"

/* ---------------------------------------------------------------- kernel timing */

/* What one GPU's kernels run at. */
struct kern {
    const struct ts_accel *acc;
    const struct ts_gemm_curve *curve;  // GEMM efficiency curve of the job's precision
    const struct ts_gemm_curve *attn_curve; // curve of the attention GEMMs (16-bit)
    bool fp8;                           // Transformer Engine fp8: casts before each GEMM
    double gemm_peak;                   // FLOP/s for GEMMs (the job's precision)
    double attn_peak;                   // FLOP/s for attention (16-bit even in fp8 jobs)
    double mem_bw;                      // achieved HBM bytes/s for streaming kernels
    double gemm_in_bytes;               // bytes per GEMM input element
    double latency;                     // per-kernel launch cost, s
    double dispatch;                    // host issue time per kernel, s (0: not host-bound)
    enum ts_attention attn_kind;        // resolved attention kernel (TS_ATTN_STANDARD: unfused)
    bool unpad;                         // fused attention behind unpad / pad copies
    const bool *fused;                  // [TS_FUSE_COUNT] element-wise ops fused
};

static void kern_init(struct kern *k, const struct ts_job *job)
{
    const struct ts_accel *a = &job->system.accel;
    enum ts_precision p = job->precision;
    k->acc = a;
    k->curve = &a->gemm[p];
    k->attn_curve = &a->gemm[p == TS_PREC_FP32 ? TS_PREC_FP32 : TS_PREC_BF16];
    k->fp8 = p == TS_PREC_FP8;
    k->gemm_peak = a->peak_flops[p];
    /* Attention runs in 16 bits in fp8 recipes (Transformer Engine keeps softmax and the
     * attention GEMMs in bf16 by default). */
    k->attn_peak = p == TS_PREC_FP8 || p == TS_PREC_FP32 ? a->peak_flops[TS_PREC_BF16] : k->gemm_peak;
    if (k->attn_peak <= 0)
        k->attn_peak = k->gemm_peak;
    /* The software profile's one fitted constant for this device, if any, scales the
     * sustained compute (configs/software: "calibration"). */
    const struct ts_sw_mech *sw = &job->parallel.sw;
    double scale = 1.0;
    for (int i = 0; i < sw->n_cal; i++)
        if (strcmp(sw->cal_device[i], a->name) == 0)
            scale = sw->cal_scale[i];
    k->gemm_peak *= a->sustained_compute * scale;
    k->attn_peak *= a->sustained_compute * scale;
    k->mem_bw = a->memory_bandwidth * a->memory_efficiency;
    k->gemm_in_bytes = p == TS_PREC_FP8 ? 1.0 : p == TS_PREC_FP32 ? 4.0 : 2.0;
    k->latency = sw->kernel_latency_s >= 0 ? sw->kernel_latency_s : a->kernel_latency;
    k->dispatch = sw->host_dispatch_s;
    k->attn_kind = ts_attention_resolve(&job->parallel, a->generation);
    k->unpad = job->parallel.attention_unpad;
    k->fused = sw->fused;
}

/* A GEMM (or a batch of `batch` equal GEMMs in one kernel) of M x K times K x N whose
 * output moves `out_bytes` per element (2 for a 16-bit store; 8 for the weight-gradient
 * GEMMs that accumulate into Megatron-LM's fp32 main_grad: read and write, beta = 1). The
 * main loop takes the longer of its shape-dependent compute time and its input traffic; the
 * epilogue's output traffic follows it (large-tile kernels run one CTA per SM, so a tile's
 * store does not overlap its own main loop). */
static double gemm_at(const struct kern *k, struct ts_pass *p, double m, double n, double kk,
                      double batch, double out_bytes, const struct ts_gemm_curve *curve,
                      double peak, double in_bytes)
{
    double flops = 2.0 * m * n * kk * batch;
    double eff = ts_gemm_curve_eval(curve, flops);
    double t_compute = flops / (peak * eff);
    double t_inputs = batch * in_bytes * (m * kk + kk * n) / k->mem_bw;
    double t_output = batch * out_bytes * m * n / k->mem_bw;
    double t = fmax(t_compute, t_inputs) + t_output + k->latency;
    p->flops += flops;
    p->gemm_s += t;
    p->kernels += 1;
    return t;
}

/* A GEMM in the job's precision. */
static double gemm(const struct kern *k, struct ts_pass *p, double m, double n, double kk,
                   double batch, double out_bytes)
{
    return gemm_at(k, p, m, n, kk, batch, out_bytes, k->curve, k->gemm_peak, k->gemm_in_bytes);
}

/* A linear layer's GEMM whose first operand (m x kk) is an activation or a gradient: in fp8
 * recipes Transformer Engine first casts it to fp8 and writes its transpose for the
 * weight-gradient GEMM (read 2 bytes, write 1 + 1). */
static double linear(const struct kern *k, struct ts_pass *p, double m, double n, double kk,
                     double out_bytes)
{
    double t = 0.0;
    if (k->fp8) {
        t += 4.0 * m * kk / k->mem_bw + k->latency;
        p->mem_s += t;
        p->kernels += 1;
    }
    return t + gemm(k, p, m, n, kk, 1, out_bytes);
}

/* The batched GEMMs of unfused attention, in 16 bits even in fp8 recipes. */
static double gemm_attn(const struct kern *k, struct ts_pass *p, double m, double n, double kk,
                        double batch, double out_bytes)
{
    return gemm_at(k, p, m, n, kk, batch, out_bytes, k->attn_curve, k->attn_peak, out_bytes);
}

/* An element-wise kernel moving `bytes` through HBM. */
static double stream(const struct kern *k, struct ts_pass *p, double bytes)
{
    double t = bytes / k->mem_bw + k->latency;
    p->mem_s += t;
    p->kernels += 1;
    return t;
}

/* A fused (flash) attention kernel: `conv_flops` FLOPs by the counting convention (full
 * square, backward = 2x forward), of which `exec_frac` are executed (causal masking skips
 * the upper triangle), at `eff` of peak; bounded below by its HBM traffic. */
static double flash(const struct kern *k, struct ts_pass *p, double conv_flops, double exec_frac,
                    double eff, double bytes)
{
    TS_ASSERT(eff > 0, "attention efficiency %g", eff);
    double t = fmax(conv_flops * exec_frac / (k->attn_peak * eff), bytes / k->mem_bw) + k->latency;
    p->flops += conv_flops;
    p->attn_s += t;
    p->kernels += 1;
    return t;
}

/* Extra HBM passes and kernels of an element-wise op the stack does not fuse. */
static void unfused(const struct kern *k, struct ts_pass *p, double bytes, double kernels)
{
    if (bytes <= 0 && kernels <= 0)
        return;
    p->mem_s += bytes / k->mem_bw + kernels * k->latency;
    p->kernels += kernels;
    p->unfused_bytes += bytes;
}

/* A pass lasts its kernels' time, or the host's time to issue them when that is longer (an
 * eager framework issues each kernel from Python; the GPU runs ahead only while the queue
 * holds work). */
static void pass_total_k(const struct kern *k, struct ts_pass *p)
{
    double gpu = p->gemm_s + p->attn_s + p->mem_s;
    p->launch_s = fmax(0.0, p->kernels * k->dispatch - gpu);
    p->time_s = gpu + p->launch_s + p->sync_s;
}

/* ---------------------------------------------------------------- shapes */

struct shape {
    double b;       // sequences per microbatch
    double s;       // local sequence length (s / cp)
    double s_kv;    // keys each query attends to (whole sequence)
    int cp;         // context-parallel size (ring steps of the attention core)
    double T;       // local tokens b s
    double Tn;      // tokens of norm / dropout / residual kernels (T / tp with sequence parallelism)
    double h, d, f; // hidden, head dim, MLP width (full)
    double a_l;     // query heads on this GPU
    double g_l;     // key/value heads on this GPU (replicated when kv_heads < tp)
    double g_ring;  // K/V heads that context parallelism moves and accumulates: g_l, or a_l
                    //   when the model repeats GQA heads before SDPA (profile
                    //   context_parallel.repeat_kv)
    double f_l;     // MLP width on this GPU
    double e;       // bytes per activation element
    double wgrad_out; // bytes per weight-gradient element moved by a wgrad GEMM: 8 when it
                      //   accumulates into fp32 main grads (read + write), else 2 e
    double wgrad_add; // bytes per element of the separate accumulation kernel (unfused: read
                      //   the 16-bit gradient, read and write the fp32 main grad), else 0
    double drop;    // 1 if dropout is on
    int t;          // tensor-parallel size
    bool sp;
    double d_attn;  // per-head width of the score and context GEMMs together, / 2 (MLA: the
                    //   mean of the query-key and value dims; else d)
    double d_v;     // per-head value width (output-projection input); d unless MLA
    const struct ts_mla *mla; // multi-head latent attention, or NULL
    /* MoE layers (moe true): the routed experts replace the MLP (sim/compute/moe notes in
     * build_moe_shape) */
    bool moe;
    bool route;     // router and token permutation run (more than one expert or top_k > 1)
    double n_local; // routed experts on this GPU, E / ep
    double m_mean;  // tokens per local expert on average
    double m_busy;  // tokens of the busiest expert (imbalance, capped by capacity)
    double m_tot;   // token copies this GPU's experts compute: (n_local - 1) m_mean + m_busy
    double fe_l;    // one routed expert's FFN width on this GPU, expert_ffn_hidden / etp
    double fs_l;    // the shared experts' FFN width on this GPU (all of them), / tp
    double experts; // routed experts E (router width)
    double topk;    // k
    double tr;      // tokens this GPU routes (Tn: its sequence-parallel share)
    int etp;        // expert-tensor-parallel size
    double e_ag;    // bytes per element of TP all-gathers of GEMM inputs (e, or 1 when the
                    //   stack gathers fp8 inputs in float8: tp_fp8_allgather)
};

static void shape_init(struct shape *sh, const struct ts_job *job)
{
    const struct ts_model *m = &job->model;
    const struct ts_parallel *p = &job->parallel;
    int t = p->tp;
    sh->t = t;
    sh->sp = p->sequence_parallel && t > 1;
    sh->b = p->microbatch;
    sh->s = (double)m->seq_len / p->cp;
    sh->s_kv = m->seq_len;
    sh->cp = p->cp;
    /* Sliding-window attention: a windowed query attends to at most w keys. The counting
     * convention takes the causal square at twice the work executed (s keys per query), so a
     * windowed layer counts twice its executed keys: the mean of min(i + 1, w) over the s
     * queries is w - w (w - 1) / (2 s), i.e. 2 w - w (w - 1) / s counted (s when w >= s).
     * With a pattern (every N-th layer full) the layer cost is the mean over the pattern. */
    if (m->sliding_window > 0 && m->sliding_window < m->seq_len) {
        double w = m->sliding_window, s = m->seq_len;
        double win = fmin(s, 2.0 * w - w * (w - 1.0) / s);
        double nwin = m->sliding_window_pattern > 0
                          ? (m->sliding_window_pattern - 1.0) / m->sliding_window_pattern
                          : 1.0;
        sh->s_kv = nwin * win + (1.0 - nwin) * s;
    }
    sh->T = sh->b * sh->s;
    sh->Tn = sh->sp ? sh->T / t : sh->T;
    sh->h = m->hidden;
    sh->d = m->head_dim;
    sh->f = m->ffn_hidden;
    sh->a_l = (double)m->heads / t;
    sh->g_l = m->kv_heads >= t ? (double)m->kv_heads / t : 1.0;
    sh->f_l = (double)m->ffn_hidden / t;
    /* torchtitan repeats the K/V heads to the query heads before SDPA (models/llama/model.py
     * at 9dec370: "repeat k/v heads if n_kv_heads < n_heads", then
     * F.scaled_dot_product_attention, which context_parallel intercepts), so its ring moves
     * and accumulates K/V of a_l heads. */
    sh->g_ring = p->sw.cp_repeat_kv ? sh->a_l : sh->g_l;
    sh->e = job->precision == TS_PREC_FP32 ? 4.0 : 2.0;
    /* torchtitan's float8 TP plan casts the inputs of the column- and row-parallel linears to
     * float8 before their sequence-parallel all-gather ("we support float8 all-gather ... for
     * TP (by default for Float8Linear)", pytorch/torchtitan docs/float8.md; torchao
     * Float8ColwiseParallel / Float8RowwiseParallel / PrepareFloat8ModuleInput in
     * torchao/float8/float8_tensor_parallel.py): 1 byte per element. The reduce-scatters
     * and all-reduces of the linears' bf16 outputs, and the backward all-gathers of output
     * gradients, stay at e. */
    sh->e_ag = job->precision == TS_PREC_FP8 && job->parallel.sw.tp_fp8_allgather ? 1.0 : sh->e;
    /* Megatron-LM's gradient-accumulation fusion: the weight-gradient GEMM adds into the
     * fp32 main_grad buffer in place (cublasGemmEx, beta = 1). */
    bool fp32_main = job->parallel.fp32_grads || job->precision == TS_PREC_FP32;
    bool fused = job->parallel.grad_accum_fusion;
    sh->wgrad_out = fp32_main && fused ? 8.0 : sh->e;
    sh->wgrad_add = fp32_main && !fused ? sh->e + 8.0 : 0.0;
    sh->drop = m->dropout > 0 ? 1.0 : 0.0;
    sh->d_attn = sh->d;
    sh->d_v = sh->d;
    sh->mla = NULL;
    if (m->mla.on) {
        sh->mla = &m->mla;
        sh->d_v = m->mla.v_head_dim;
        sh->d_attn = 0.5 * (m->mla.qk_nope_head_dim + m->mla.qk_rope_head_dim + sh->d_v);
    }
    sh->moe = false;
    sh->etp = 1;
}

/* The shape of an MoE layer on one GPU (Megatron-Core MoE with parallel folding and
 * sequence parallelism: each GPU routes its Tn = T / tp tokens; the ep x etp ranks of an
 * expert-parallel x expert-tensor-parallel group exchange them, so an expert receives
 * etp ep Tn k / E token copies on average and each of its etp ranks computes them all on
 * its 1 / etp share of the FFN width). The busiest expert receives load_imbalance times
 * the mean (capped at capacity_factor times the mean when tokens are dropped); it sits on
 * the GPU that sets the pace, with its other experts at the mean. One expert with top-1
 * routes nothing: no router, no permutation, no imbalance. */
static void shape_moe(struct shape *sh, const struct ts_job *job)
{
    const struct ts_moe *e = &job->model.moe;
    const struct ts_parallel *p = &job->parallel;
    sh->moe = true;
    sh->experts = e->experts;
    sh->topk = e->top_k;
    sh->route = e->experts > 1 || e->top_k > 1;
    sh->n_local = (double)e->experts / p->ep;
    sh->tr = sh->Tn;
    sh->m_mean = (double)p->etp * p->ep * sh->tr * e->top_k / e->experts;
    double busy = sh->route ? e->load_imbalance : 1.0;
    if (e->capacity_factor > 0)
        busy = fmin(busy, e->capacity_factor);
    sh->m_busy = busy * sh->m_mean;
    sh->m_tot = (sh->n_local - 1.0) * sh->m_mean + sh->m_busy;
    sh->fe_l = (double)e->expert_ffn_hidden / p->etp;
    sh->fs_l = (double)e->shared_experts * e->shared_ffn_hidden / p->tp;
    sh->etp = p->etp;
}

/* A weight-gradient GEMM ((m x T) times (T x n)) and, without gradient-accumulation fusion,
 * the kernel that adds its 16-bit output into the fp32 main grads. */
static void wgrad(const struct kern *k, const struct shape *sh, struct ts_pass *p, double m,
                  double n, double tokens)
{
    gemm(k, p, m, n, tokens, 1, sh->wgrad_out);
    if (sh->wgrad_add > 0)
        stream(k, p, sh->wgrad_add * m * n);
}

static void tp_comm_set(struct ts_tp_comm *c, const struct shape *sh, int n, bool backward)
{
    memset(c, 0, sizeof *c);
    if (sh->t <= 1)
        return;
    c->bytes = sh->T * sh->h * sh->e;
    if (!sh->sp) {
        c->allreduce = n;
    } else {
        /* forward all-gathers gather GEMM inputs; backward ones output gradients (at e),
         * besides the re-gathered inputs (hidden_allgather) */
        if (!backward)
            c->ag_bytes = sh->T * sh->h * sh->e_ag;
        c->hidden_ag_bytes = sh->T * sh->h * sh->e_ag;
        c->allgather = n;
        c->reducescatter = n;
        /* Megatron-LM keeps only the sharded layer input under sequence parallelism and
         * all-gathers it again in backward for the weight gradient, overlapped with the
         * data-gradient GEMM (Korthikanti et al. sec. 4.2.2). */
        if (backward)
            c->hidden_allgather = n;
    }
}

/* ---------------------------------------------------------------- unfused element-wise ops */

/* Extra bytes per element and kernels of each op when a stack runs it as separate eager
 * kernels instead of one fused kernel (the fused costs are the ones in the op list below).
 * Counted from the eager decompositions:
 *   norm: RMSNorm as Hugging Face LlamaRMSNorm writes it: cast to fp32 (e + 4), pow (8),
 *     mean (4), multiply by rsqrt (8), cast back (4 + e), weight multiply (2 e) = 28 + 4 e
 *     bytes in 6 kernels, against 2 e in one: 28 + 2 e extra, 5 kernels. LayerNorm models
 *     use torch's native one-kernel layer_norm, so only RMSNorm (bias-free) models pay it.
 *   rotary: apply_rotary_pos_emb (q cos, rotate_half = two slices, a negation and a cat,
 *     times sin, add): about 9 e bytes per element in 5 kernels per tensor, against 2 e
 *     fused: 7 e extra, 4 kernels per tensor (q and k).
 *   bias_act: the bias added in its own pass before the activation: 2 e, 1 kernel.
 *   swiglu: silu(gate) then the product with up: 5 e in 2 kernels against 3 e: 2 e, 1.
 *   dropout_residual: with dropout, dropout (2 e + 1) then the residual add (3 e), against
 *     3 e + 1 fused: 2 e, 1 kernel; without dropout nothing (an eager add is one kernel).
 *   cross_entropy: eager F.cross_entropy upcasts the 16-bit logits first (e + 4 per logit,
 *     1 kernel) and casts the fp32 gradient back (4 + e, 1 kernel).
 * Backward of each (autograd of the same ops) is taken as twice the forward extra. */
struct unfused_cost {
    double bytes_per_elem, kernels;
};

static struct unfused_cost unfused_norm(const struct shape *sh)
{
    return (struct unfused_cost){28.0 + 2.0 * sh->e, 5.0};
}

/* ---------------------------------------------------------------- one layer */

/* Fused attention through FlashAttention's variable-length entry behind the unpad / pad
 * helpers of flash_attn.bert_padding (v2.4.2), as llm-foundry's flash_attn_fn calls it
 * (llmfoundry/models/layers/attention.py at 5e85bd6, attn_impl "flash"), with every token
 * kept. Forward: unpad_input on q, k and v, each a mask sum, a nonzero, a max read back with
 * .item(), a cumsum, a pad (tiny kernels on the b x s mask) and IndexFirstAxis, a gather
 * that reads and writes every element; pad_input on the output, zeros then index_put
 * (write; read + write). Backward: pad_input's gradient gathers (read + write), each
 * IndexFirstAxis gradient is zeros + scatter_ (write; read + write). No kernel of the
 * variable-length path replaces one of the padded path. torch.nonzero and Tensor.item
 * synchronize the host with the device (PyTorch docs, torch.nonzero: "causes host-device
 * synchronization"), two per unpad_input: the queue drains and the GPU idles until the host
 * has issued the next kernel, one host dispatch plus one kernel latency. Exact for
 * multi-head attention (llm-foundry's grouped-query path also repeats k and v). */
static void unpad_fwd(const struct kern *k, const struct shape *sh, struct ts_pass *p)
{
    double eq = sh->e * sh->T * sh->a_l * sh->d, ekv = sh->e * sh->T * sh->g_l * sh->d;
    double kernels = 3.0 * 6.0 + 2.0;
    p->mem_s += (2.0 * (eq + 2.0 * ekv) + 3.0 * eq) / k->mem_bw + kernels * k->latency;
    p->kernels += kernels;
    p->sync_s += 6.0 * (k->dispatch + k->latency);
}

static void unpad_bwd(const struct kern *k, const struct shape *sh, struct ts_pass *p)
{
    double eq = sh->e * sh->T * sh->a_l * sh->d, ekv = sh->e * sh->T * sh->g_l * sh->d;
    double kernels = 1.0 + 3.0 * 2.0;
    p->mem_s += (2.0 * eq + 3.0 * (eq + 2.0 * ekv)) / k->mem_bw + kernels * k->latency;
    p->kernels += kernels;
}

/* Ring attention (context parallelism, causal, load-balanced): the sequence is cut into 2 cp
 * chunks and rank r holds chunks r and 2 cp - 1 - r (Megatron-Core context parallelism docs;
 * Transformer Engine AttnFuncWithCPAndKVP2P; PyTorch context_parallel's head-tail load
 * balancing, _RoundRobinLoadBalancer). Its attention core is cp flash calls, one per ring
 * step (ts_compute_cp_step_blocks: each the same work on every rank, so no rank waits for
 * another): step 0 is the causal square of the local queries (s / cp of them) against the
 * local keys; each of the cp - 1 other steps is unmasked, either all local queries against
 * the first half of the arriving chunk pair or the second half of the queries against all of
 * it, i.e. an s / (2 cp) x s / cp rectangle (PyTorch's _templated_ring_attention runs these
 * with is_causal False). Each call runs at the kernel's efficiency at its own length (the
 * rectangle's shorter side), not the whole sequence's, and pays its own launch. The curve is
 * the causal one for every call: the unmasked curve would make the rectangles faster than
 * the same work in one causal call (FlashAttention-2 on H100 at 16k: 370 vs 335 TFLOP/s), a
 * gain the per-step copies of PyTorch's ring (contiguous K/V chunks, the concatenated K/V
 * buffer, partial-update concatenations), which trainsim does not price, eat at least part
 * of; keeping the causal figure is the conservative bound. Windowed layers (s_kv below the
 * sequence) keep one call: their ring steps are not equal. */
static int ring_steps(const struct shape *sh)
{
    return sh->cp > 1 && sh->s_kv >= sh->s * sh->cp ? sh->cp : 1;
}

double ts_compute_cp_step_blocks(int cp, int rank, int step, int *q_chunks, int *k_chunks)
{
    TS_ASSERT(cp >= 1 && rank >= 0 && rank < cp && step >= 0 && step < cp,
              "cp %d rank %d step %d", cp, rank, step);
    /* PyTorch _templated_ring_attention (torch/distributed/tensor/experimental/_attention.py,
     * 2024-12): step 0 the local pair against itself, causal; later steps the K/V of rank
     * (rank - step) mod cp, unmasked: all local queries against its first chunk when
     * step <= rank, else the second local chunk of queries against both of its chunks. */
    int q = 2, k = 2;
    if (step > 0) {
        if (step <= rank)
            k = 1;
        else
            q = 1;
    }
    if (q_chunks)
        *q_chunks = q;
    if (k_chunks)
        *k_chunks = k;
    return step == 0 ? 0.5 * q * k : (double)q * k;
}

/* The cp calls of the ring, `flops` and `bytes` the whole pass's (conventional FLOPs, half
 * executed: the causal square keeps half, the rectangle is half the square), each call's
 * share the slowest rank's blocks at that step over the 2 cp blocks each rank computes in
 * all (ts_compute_cp_step_blocks), plus the merges: forward rescales and adds each step's
 * partial output into the running result by its log-sum-exp (the blockwise online softmax of
 * Liu et al., Ring Attention, arXiv 2310.01889, Alg. 1; PyTorch's merger keeps the running
 * output in fp32), backward adds each step's partial dQ, dK and dV into fp32 accumulators
 * (Transformer Engine's CP backward; PyTorch's convert_to_f32): cp - 1 element-wise passes
 * that read the step's e-byte result and read and write the 4-byte accumulator. dK and dV
 * have the heads the ring moves (g_ring: the query heads when the model repeats K/V before
 * SDPA). */
static void ring_attention(const struct kern *k, const struct shape *sh, struct ts_pass *p,
                           double flops, double bytes, bool bwd)
{
    int n = sh->cp;
    double diag = ts_attn_efficiency(k->acc, k->attn_kind, sh->s, (int)sh->d, true, bwd);
    double off = ts_attn_efficiency(k->acc, k->attn_kind, 0.5 * sh->s, (int)sh->d, true, bwd);
    for (int i = 0; i < n; i++) {
        double blocks = 0.0;
        for (int r = 0; r < n; r++)
            blocks = fmax(blocks, ts_compute_cp_step_blocks(n, r, i, NULL, NULL));
        double share = blocks / (2.0 * n);
        flash(k, p, flops * share, 0.5, i == 0 ? diag : off, bytes * share);
    }
    double elems = sh->T * sh->a_l * sh->d;             // output (forward) or dQ
    if (bwd)
        elems += 2.0 * sh->T * sh->g_ring * sh->d;       // dK and dV
    double merge = (sh->e + 8.0) * elems;
    for (int i = 1; i < n; i++)
        stream(k, p, merge);
}

/* Attention core forward (scores, softmax, dropout, context) into *p. Returns its time. */
static double attention_fwd(const struct kern *k, const struct shape *sh, bool flash_attn,
                            struct ts_pass *p)
{
    double t0 = p->gemm_s + p->attn_s + p->mem_s;
    double batch = sh->b * sh->a_l;
    if (flash_attn) {
        /* 4 b a s s_kv d: QK^T and PV, full square by convention; causal skips half. With
         * context parallelism the load-balanced chunks keep the half on every rank. */
        double flops = 4.0 * batch * sh->s * sh->s_kv * sh->d_attn;
        double bytes = sh->e * sh->T * (2.0 * sh->a_l + 2.0 * sh->g_l) * sh->d;
        if (ring_steps(sh) > 1)
            ring_attention(k, sh, p, flops, bytes, false);
        else
            flash(k, p, flops, 0.5,
                  ts_attn_efficiency(k->acc, k->attn_kind, sh->s, (int)sh->d, true, false), bytes);
        if (k->unpad)
            unpad_fwd(k, sh, p);
    } else {
        double elems = batch * sh->s * sh->s_kv;
        gemm_attn(k, p, sh->s, sh->s_kv, sh->d_attn, batch, sh->e);     // Q K^T
        stream(k, p, 2.0 * sh->e * elems);                         // fused scale-mask-softmax
        if (sh->drop > 0)
            stream(k, p, (2.0 * sh->e + 1.0) * elems);             // dropout (+ 1-byte mask)
        gemm_attn(k, p, sh->s, sh->d_attn, sh->s_kv, batch, sh->e);     // probabilities x V
    }
    return p->gemm_s + p->attn_s + p->mem_s - t0;
}

static double attention_bwd(const struct kern *k, const struct shape *sh, bool flash_attn,
                            struct ts_pass *p)
{
    double t0 = p->gemm_s + p->attn_s + p->mem_s;
    double batch = sh->b * sh->a_l;
    if (flash_attn) {
        double flops = 8.0 * batch * sh->s * sh->s_kv * sh->d_attn;
        double bytes = sh->e * sh->T * (4.0 * sh->a_l + 4.0 * sh->g_l) * sh->d;
        if (ring_steps(sh) > 1)
            ring_attention(k, sh, p, flops, bytes, true);
        else
            flash(k, p, flops, 0.5,
                  ts_attn_efficiency(k->acc, k->attn_kind, sh->s, (int)sh->d, true, true), bytes);
        if (k->unpad)
            unpad_bwd(k, sh, p);
    } else {
        double elems = batch * sh->s * sh->s_kv;
        gemm_attn(k, p, sh->s, sh->s_kv, sh->d_attn, batch, sh->e);     // dP = dO V^T
        gemm_attn(k, p, sh->s_kv, sh->d_attn, sh->s, batch, sh->e);     // dV = P^T dO
        if (sh->drop > 0)
            stream(k, p, (2.0 * sh->e + 1.0) * elems);             // dropout backward
        stream(k, p, 3.0 * sh->e * elems);                         // softmax backward
        gemm_attn(k, p, sh->s, sh->d_attn, sh->s_kv, batch, sh->e);     // dQ = dS K
        gemm_attn(k, p, sh->s_kv, sh->d_attn, sh->s, batch, sh->e);     // dK = dS^T Q
    }
    return p->gemm_s + p->attn_s + p->mem_s - t0;
}

static void unfused_layer_norm(const struct kern *k, const struct shape *sh,
                               const struct ts_model *m, struct ts_pass *p, double w)
{
    if (k->fused[TS_FUSE_NORM] || m->bias)
        return;
    struct unfused_cost c = unfused_norm(sh);
    unfused(k, p, w * c.bytes_per_elem * sh->Tn * sh->h, w * c.kernels);
}

static void unfused_rotary(const struct kern *k, const struct shape *sh, struct ts_pass *p,
                           double w)
{
    if (k->fused[TS_FUSE_ROTARY])
        return;
    unfused(k, p, w * 7.0 * sh->e * sh->T * (sh->a_l + sh->g_l) * sh->d, w * 8.0);
}

static void unfused_residual(const struct kern *k, const struct shape *sh, struct ts_pass *p,
                             double w)
{
    if (k->fused[TS_FUSE_DROPOUT_RESIDUAL] || sh->drop <= 0)
        return;
    unfused(k, p, w * 2.0 * sh->e * sh->Tn * sh->h, w);
}



/* The forward ops of a layer, in program order, as the recomputation graph names them
 * (sim/spec/recompute.c lists the tensors each produces). */
enum layer_op {
    OP_NORM1,   // input -> norm1_out
    OP_QKV,     // norm1_out -> q, k, v (GEMM + rotary; SP: all-gather before)
    OP_ATTN,    // q, k, v -> softmax, attn_dropout_mask, attn_probs, core_attn_out
    OP_PROJ,    // core_attn_out -> proj_out (TP: all-reduce / SP: reduce-scatter after)
    OP_ADD1,    // input, proj_out -> proj_dropout_mask, residual1
    OP_NORM2,   // residual1 -> norm2_out
    OP_FC1,     // norm2_out -> mlp_gate, mlp_up (SP: all-gather before)
    OP_ACT,     // mlp_gate, mlp_up -> mlp_act
    OP_FC2,     // mlp_act -> mlp_out (TP: all-reduce / SP: reduce-scatter after)
    OP_ADD2,    // residual1, mlp_out -> mlp_dropout_mask (and the layer output)
    OP_COUNT
};
#define OP_BIT(o) (1u << (o))
#define OPS_ALL ((1u << OP_COUNT) - 1u)

/* ---------------------------------------------------------------- MoE block */

/* One group of a grouped GEMM (M x K times K x N): its time without the launch, as gemm_at
 * prices a GEMM in the job's precision, and its FLOPs. */
static double group_time(const struct kern *k, double m, double n, double kk, double out_bytes,
                         double *flops)
{
    double f = 2.0 * m * n * kk * 1.0;
    double eff = ts_gemm_curve_eval(k->curve, f);
    double t_compute = f / (k->gemm_peak * eff);
    double t_inputs = 1.0 * k->gemm_in_bytes * (m * kk + kk * n) / k->mem_bw;
    double t_output = 1.0 * out_bytes * m * n / k->mem_bw;
    *flops = f;
    return fmax(t_compute, t_inputs) + t_output;
}

/* The routed experts' grouped GEMM on one GPU (one kernel: Megatron-Core --moe-grouped-gemm,
 * Transformer Engine / CUTLASS grouped GEMM): n_local - 1 experts with m_mean tokens and the
 * busiest with m_busy, each group at the efficiency the accelerator's GEMM curve gives its
 * own size (small per-expert M runs far below peak, as a dense GEMM of that M would). The
 * token count is the M dimension (tok_m: forward and data gradient, N = d1, K = d2) or the K
 * dimension (weight gradient: M = d1, N = d2). In fp8 recipes the token operand is cast
 * first, as `linear` does. */
static void grouped(const struct kern *k, const struct shape *sh, struct ts_pass *p, bool tok_m,
                    double d1, double d2, double out_bytes)
{
    double fm = 0.0, fb = 0.0, tm, tb;
    if (tok_m) {
        if (k->fp8) {
            double c = 4.0 * sh->m_tot * d2 / k->mem_bw + k->latency;
            p->mem_s += c;
            p->kernels += 1;
        }
        tm = group_time(k, sh->m_mean, d1, d2, out_bytes, &fm);
        tb = group_time(k, sh->m_busy, d1, d2, out_bytes, &fb);
    } else {
        tm = group_time(k, d1, d2, sh->m_mean, out_bytes, &fm);
        tb = group_time(k, d1, d2, sh->m_busy, out_bytes, &fb);
    }
    /* Time is the busiest GPU's; FLOPs the mean GPU's (hardware FLOPs sum over all GPUs). */
    (void)fb;
    p->flops += sh->n_local * fm;
    p->gemm_s += (sh->n_local - 1.0) * tm + tb + k->latency;
    p->kernels += 1;
}

/* The router: a GEMM of the routed tokens against the E expert columns (kept in 16 bits, as
 * Megatron-Core runs it outside the fp8 region), then the score function and top-k over
 * fp32 logits (read the logits, write the scores, read them for top-k: 12 bytes a logit). */
static void router_fwd(const struct kern *k, const struct shape *sh, struct ts_pass *p)
{
    gemm_at(k, p, sh->tr, sh->experts, sh->h, 1, sh->e, k->attn_curve, k->attn_peak, sh->e);
    stream(k, p, 12.0 * sh->tr * sh->experts);
}

/* Token permutation (gather each token's k copies into expert order, Megatron-Core
 * moe_utils.permute) and its inverse (scatter back with the routing weights): memory-bound,
 * reading one side and writing the other, e (Tn h + k Tn h) bytes each. With several local
 * experts fed by several ranks the received tokens are sorted again by local expert
 * (sort_chunks_by_idxs), 2 e bytes per received element. */
static void permute_pass(const struct kern *k, const struct shape *sh, struct ts_pass *p,
                         bool sort_first)
{
    double e = sh->e, h = sh->h;
    double sort = sh->n_local > 1 && sh->m_tot > 0 && sh->experts > sh->n_local;
    if (sort_first && sort)
        stream(k, p, 2.0 * e * sh->m_tot * h / 1.0);
    stream(k, p, e * sh->tr * h + e * sh->topk * sh->tr * h);
    if (!sort_first && sort)
        stream(k, p, 2.0 * e * sh->m_tot * h / 1.0);
}

/* Squared ReLU as NeMo runs it: nemo/collections/llm/fn/activation.py squared_relu =
 * torch.pow(F.relu(x), 2), which megatron/core/transformer/mlp.py applies as activation_func
 * outside bias_activation_fusion (that fuses GeLU and SwiGLU only). Two element-wise kernels
 * where the activation's streamed cost counts one: forward relu then pow, one more read and
 * write of the activations (`act_bytes`); backward PowBackward (gradient and saved relu
 * output in, gradient out) and ThresholdBackward (the same three), one more pass of three.
 * Stacks that compile the MLP (torch.compile) would fuse them; trainsim charges the two
 * kernels on every stack (an overestimate of one pass there). */
static void squared_relu_extra(const struct kern *k, const struct ts_model *m, struct ts_pass *p,
                               double act_bytes, bool bwd)
{
    if (m->ffn != TS_FFN_SQUARED_RELU)
        return;
    unfused(k, p, (bwd ? 3.0 : 2.0) * act_bytes, 1.0);
}

/* Forward of the MoE block's ops (fc1: router, permutation, expert and shared fc1; act;
 * fc2: expert and shared fc2, unpermutation). The all-to-alls and the expert-tensor-parallel
 * collectives between them are priced by the step plan. */
static void moe_fwd(const struct kern *k, const struct shape *sh, const struct ts_model *m,
                    unsigned ops, struct ts_pass *p, double w)
{
    double e = sh->e, T = sh->T, h = sh->h;
    double gate = ts_ffn_gated(m->ffn) ? 2.0 : 1.0;
    if (ops & OP_BIT(OP_FC1)) {
        if (sh->route) {
            router_fwd(k, sh, p);
            permute_pass(k, sh, p, false);
        }
        grouped(k, sh, p, true, gate * sh->fe_l, h, e);             // experts fc1 (gate + up)
        if (sh->fs_l > 0)
            linear(k, p, T, gate * sh->fs_l, h, e);                // shared experts fc1
    }
    if (ops & OP_BIT(OP_ACT)) {
        double per = ts_ffn_gated(m->ffn) ? 3.0 : 2.0;
        stream(k, p, per * e * sh->m_tot * sh->fe_l);              // activation
        if (ts_ffn_gated(m->ffn) && !k->fused[TS_FUSE_SWIGLU])
            unfused(k, p, w * 2.0 * e * sh->m_tot * sh->fe_l, w);
        squared_relu_extra(k, m, p, e * sh->m_tot * sh->fe_l, false);
        if (sh->fs_l > 0) {
            stream(k, p, per * e * T * sh->fs_l);
            squared_relu_extra(k, m, p, e * T * sh->fs_l, false);
        }
    }
    if (ops & OP_BIT(OP_FC2)) {
        grouped(k, sh, p, true, h, sh->fe_l, e);                    // experts fc2 (down)
        if (sh->fs_l > 0)
            linear(k, p, T, h, sh->fs_l, e);                       // shared experts fc2
        if (sh->route)
            permute_pass(k, sh, p, true);                           // unpermute
    }
}

static void moe_bwd(const struct kern *k, const struct shape *sh, const struct ts_model *m,
                    struct ts_pass *p)
{
    double e = sh->e, T = sh->T, h = sh->h, w = 2.0;
    double gate = ts_ffn_gated(m->ffn) ? 2.0 : 1.0;
    if (sh->route)
        permute_pass(k, sh, p, false);                              // unpermute backward
    grouped(k, sh, p, true, sh->fe_l, h, e);                        // experts fc2 dgrad
    grouped(k, sh, p, false, sh->fe_l, h, sh->wgrad_out);           // experts fc2 wgrad
    if (sh->wgrad_add > 0)
        stream(k, p, sh->wgrad_add * sh->fe_l * h * sh->n_local);
    if (sh->fs_l > 0) {
        linear(k, p, T, sh->fs_l, h, e);
        wgrad(k, sh, p, sh->fs_l, h, T);
    }
    double per = ts_ffn_gated(m->ffn) ? 5.0 : 3.0;
    stream(k, p, per * e * sh->m_tot * sh->fe_l);                   // activation backward
    if (ts_ffn_gated(m->ffn) && !k->fused[TS_FUSE_SWIGLU])
        unfused(k, p, w * 2.0 * e * sh->m_tot * sh->fe_l, w);
    squared_relu_extra(k, m, p, e * sh->m_tot * sh->fe_l, true);
    if (sh->fs_l > 0) {
        stream(k, p, per * e * T * sh->fs_l);
        squared_relu_extra(k, m, p, e * T * sh->fs_l, true);
    }
    grouped(k, sh, p, true, h, gate * sh->fe_l, e);                 // experts fc1 dgrad
    grouped(k, sh, p, false, h, gate * sh->fe_l, sh->wgrad_out);    // experts fc1 wgrad
    if (sh->wgrad_add > 0)
        stream(k, p, sh->wgrad_add * h * (gate * sh->fe_l) * sh->n_local);
    if (sh->fs_l > 0) {
        linear(k, p, T, h, gate * sh->fs_l, e);
        wgrad(k, sh, p, h, gate * sh->fs_l, T);
    }
    if (sh->route) {
        permute_pass(k, sh, p, true);                               // permute backward
        stream(k, p, 12.0 * sh->tr * sh->experts);                  // score backward
        gemm_at(k, p, sh->tr, sh->h, sh->experts, 1, sh->e, k->attn_curve, k->attn_peak, sh->e);
        gemm_at(k, p, sh->h, sh->experts, sh->tr, 1, 4.0, k->attn_curve, k->attn_peak, sh->e);
    }
}

/* ---------------------------------------------------------------- multi-head latent attention */

/* The MLA projections (DeepSeek-V2 sec. 2.1.2-2.1.3; Megatron-Core MLASelfAttention): the
 * down projections to the query latent (q_lora_rank) and to the key-value latent
 * (kv_lora_rank) plus the shared rope key are replicated over TP; the up projections to the
 * heads' nope + rope queries and nope keys + values are column-parallel. Each GEMM is
 * (M, N, K) = (T, out, in). */
struct mla_gemm { double n, kk; };

static int mla_gemms(const struct shape *sh, struct mla_gemm g[4])
{
    const struct ts_mla *a = sh->mla;
    double qk = a->qk_nope_head_dim + a->qk_rope_head_dim;
    int n = 0;
    double q_in = sh->h;
    if (a->q_lora_rank > 0) {
        g[n++] = (struct mla_gemm){a->q_lora_rank, sh->h};
        q_in = a->q_lora_rank;
    }
    g[n++] = (struct mla_gemm){(double)a->kv_lora_rank + a->qk_rope_head_dim, sh->h};
    g[n++] = (struct mla_gemm){sh->a_l * qk, q_in};
    g[n++] = (struct mla_gemm){sh->a_l * ((double)a->qk_nope_head_dim + a->v_head_dim),
                               a->kv_lora_rank};
    return n;
}

static void mla_fwd(const struct kern *k, const struct shape *sh, struct ts_pass *p)
{
    const struct ts_mla *a = sh->mla;
    struct mla_gemm g[4];
    int n = mla_gemms(sh, g);
    for (int i = 0; i < n; i++)
        linear(k, p, sh->T, g[i].n, g[i].kk, sh->e);
    stream(k, p, 2.0 * sh->e * sh->T * ((double)a->q_lora_rank + a->kv_lora_rank)); // latent norms
    stream(k, p, 2.0 * sh->e * sh->T * (sh->a_l + 1.0) * a->qk_rope_head_dim);       // rotary
}

static void mla_bwd(const struct kern *k, const struct shape *sh, struct ts_pass *p)
{
    const struct ts_mla *a = sh->mla;
    struct mla_gemm g[4];
    int n = mla_gemms(sh, g);
    stream(k, p, 2.0 * sh->e * sh->T * (sh->a_l + 1.0) * a->qk_rope_head_dim);
    stream(k, p, 3.0 * sh->e * sh->T * ((double)a->q_lora_rank + a->kv_lora_rank));
    for (int i = n - 1; i >= 0; i--) {
        linear(k, p, sh->T, g[i].kk, g[i].n, sh->e);
        wgrad(k, sh, p, g[i].kk, g[i].n, sh->T);
    }
}

/* Attention parameters of one layer on a GPU with `a` query heads (MLA: down projections
 * and latent norms whole, up projections and output split). */
static double mla_params(const struct ts_model *m, double a)
{
    const struct ts_mla *x = &m->mla;
    double h = m->hidden, q = x->q_lora_rank, kv = x->kv_lora_rank;
    double qk = (double)x->qk_nope_head_dim + x->qk_rope_head_dim;
    double down = (q > 0 ? h * q + q : 0.0) + h * (kv + x->qk_rope_head_dim) + kv;
    double up = (q > 0 ? q : h) * a * qk + kv * a * ((double)x->qk_nope_head_dim + x->v_head_dim);
    return down + up + a * x->v_head_dim * h;
}

/* Which ops of layer_fwd run, and which of their outputs are wanted (a fused GEMM whose
 * outputs are only partly wanted runs only those columns: the q, k, v and gate, up
 * projections, as the frameworks that run them as separate GEMMs do). */
struct layer_run {
    unsigned ops;       // OP_BIT of enum layer_op
    uint32_t outs;      // TS_T_BIT of enum ts_layer_tensor
};

static const struct layer_run run_forward = {OPS_ALL, 0xffffffffu};

/* Forward of the layer's ops `r` into *p; returns the GEMM time (the TP overlap budget). */
static double layer_fwd(const struct kern *k, const struct shape *sh, const struct ts_model *m,
                        bool flash_attn, const struct layer_run *r, struct ts_pass *p,
                        double *attn_s)
{
    double e = sh->e, T = sh->T, Tn = sh->Tn, h = sh->h;
    double qkv_n = (sh->a_l + 2.0 * sh->g_l) * sh->d;
    double rope_n = (sh->a_l + sh->g_l) * sh->d;
    uint32_t qkv_out = r->outs & (TS_T_BIT(TS_T_Q) | TS_T_BIT(TS_T_K) | TS_T_BIT(TS_T_V));
    if (qkv_out != (TS_T_BIT(TS_T_Q) | TS_T_BIT(TS_T_K) | TS_T_BIT(TS_T_V))) {
        bool q = qkv_out & TS_T_BIT(TS_T_Q), kk = qkv_out & TS_T_BIT(TS_T_K);
        bool v = qkv_out & TS_T_BIT(TS_T_V);
        qkv_n = ((q ? sh->a_l : 0.0) + (kk ? sh->g_l : 0.0) + (v ? sh->g_l : 0.0)) * sh->d;
        rope_n = ((q ? sh->a_l : 0.0) + (kk ? sh->g_l : 0.0)) * sh->d;
    }
    double fc1_n = ts_ffn_gated(m->ffn) ? 2.0 * sh->f_l : sh->f_l;
    if (ts_ffn_gated(m->ffn) &&
        !((r->outs & TS_T_BIT(TS_T_MLP_GATE)) && (r->outs & TS_T_BIT(TS_T_MLP_UP))))
        fc1_n = sh->f_l;
    unsigned ops = r->ops;
    double g0 = p->gemm_s, attn_gemm = 0.0;
    double w = 1.0;                                                 // forward weight of extras
    *attn_s = 0.0;
    if (ops & OP_BIT(OP_NORM1)) {
        stream(k, p, 2.0 * e * Tn * h);                             // input norm
        unfused_layer_norm(k, sh, m, p, w);
    }
    if ((ops & OP_BIT(OP_QKV)) && sh->mla) {
        mla_fwd(k, sh, p);                                         // MLA projections
    } else if (ops & OP_BIT(OP_QKV)) {
        linear(k, p, T, qkv_n, h, e);                              // QKV projection
        if (!m->learned_positions && rope_n > 0) {
            stream(k, p, 2.0 * e * T * rope_n);                     // rotary embedding on q, k
            unfused_rotary(k, sh, p, w * rope_n / ((sh->a_l + sh->g_l) * sh->d));
        }
    }
    if (ops & OP_BIT(OP_ATTN)) {
        double ga = p->gemm_s;
        *attn_s = attention_fwd(k, sh, flash_attn, p);
        attn_gemm = p->gemm_s - ga;
    }
    if (ops & OP_BIT(OP_PROJ))
        linear(k, p, T, h, sh->a_l * sh->d_v, e);                  // output projection
    if (ops & OP_BIT(OP_ADD1)) {
        stream(k, p, (3.0 * e + sh->drop) * Tn * h);                // bias-dropout-add
        unfused_residual(k, sh, p, w);
    }
    if (ops & OP_BIT(OP_NORM2)) {
        stream(k, p, 2.0 * e * Tn * h);                             // post-attention norm
        unfused_layer_norm(k, sh, m, p, w);
    }
    if (sh->moe) {
        moe_fwd(k, sh, m, ops, p, w);                              // routed + shared experts
    } else if (!ts_ffn_gated(m->ffn)) {
        if (ops & OP_BIT(OP_FC1))
            linear(k, p, T, sh->f_l, h, e);                        // fc1
        if (ops & OP_BIT(OP_ACT)) {
            stream(k, p, 2.0 * e * T * sh->f_l);                    // bias + GeLU, relu^2
            if (m->bias && !k->fused[TS_FUSE_BIAS_ACT])
                unfused(k, p, w * 2.0 * e * T * sh->f_l, w);
            squared_relu_extra(k, m, p, e * T * sh->f_l, false);
        }
    } else {
        if (ops & OP_BIT(OP_FC1))
            linear(k, p, T, fc1_n, h, e);                          // gate + up (fused)
        if (ops & OP_BIT(OP_ACT)) {
            stream(k, p, 3.0 * e * T * sh->f_l);                    // SiLU(gate) * up
            if (!k->fused[TS_FUSE_SWIGLU])
                unfused(k, p, w * 2.0 * e * T * sh->f_l, w);
        }
    }
    if ((ops & OP_BIT(OP_FC2)) && !sh->moe)
        linear(k, p, T, h, sh->f_l, e);                            // fc2 / down
    if (ops & OP_BIT(OP_ADD2)) {
        stream(k, p, (3.0 * e + sh->drop) * Tn * h);                // bias-dropout-add
        unfused_residual(k, sh, p, w);
    }
    pass_total_k(k, p);
    return p->gemm_s - g0 - attn_gemm;
}

static double layer_bwd(const struct kern *k, const struct shape *sh, const struct ts_model *m,
                        bool flash_attn, struct ts_pass *p, double *attn_s)
{
    double e = sh->e, T = sh->T, Tn = sh->Tn, h = sh->h;
    double qkv_n = (sh->a_l + 2.0 * sh->g_l) * sh->d;
    double g0 = p->gemm_s;
    /* Reverse order; each forward GEMM (M x K) (K x N) has a data-gradient GEMM
     * (M x N)(N x K) and a weight-gradient GEMM (K x M)(M x N). */
    double w = 2.0;                                                 // backward: twice the forward extra
    stream(k, p, (3.0 * e + sh->drop) * Tn * h);                    // residual + dropout grad
    unfused_residual(k, sh, p, w);
    if (sh->moe) {
        moe_bwd(k, sh, m, p);
    } else {
    linear(k, p, T, sh->f_l, h, e);                                // fc2 dgrad
    wgrad(k, sh, p, sh->f_l, h, T);                               // fc2 wgrad
    if (!ts_ffn_gated(m->ffn)) {
        stream(k, p, 3.0 * e * T * sh->f_l);                        // GeLU / relu^2 backward
        if (m->bias && !k->fused[TS_FUSE_BIAS_ACT])
            unfused(k, p, w * 2.0 * e * T * sh->f_l, w);
        squared_relu_extra(k, m, p, e * T * sh->f_l, true);
        linear(k, p, T, h, sh->f_l, e);                            // fc1 dgrad
        wgrad(k, sh, p, h, sh->f_l, T);                           // fc1 wgrad
    } else {
        stream(k, p, 5.0 * e * T * sh->f_l);                        // SwiGLU backward
        if (!k->fused[TS_FUSE_SWIGLU])
            unfused(k, p, w * 2.0 * e * T * sh->f_l, w);
        linear(k, p, T, h, 2.0 * sh->f_l, e);                      // gate+up dgrad
        wgrad(k, sh, p, h, 2.0 * sh->f_l, T);                     // gate+up wgrad
    }
    }
    stream(k, p, 3.0 * e * Tn * h);                                 // norm backward
    unfused_layer_norm(k, sh, m, p, w);
    stream(k, p, (3.0 * e + sh->drop) * Tn * h);                    // residual + dropout grad
    unfused_residual(k, sh, p, w);
    linear(k, p, T, sh->a_l * sh->d_v, h, e);                      // projection dgrad
    wgrad(k, sh, p, sh->a_l * sh->d_v, h, T);                     // projection wgrad
    double ga = p->gemm_s;
    *attn_s = attention_bwd(k, sh, flash_attn, p);
    double attn_gemm = p->gemm_s - ga;
    if (sh->mla) {
        mla_bwd(k, sh, p);
    } else {
        if (!m->learned_positions) {
            stream(k, p, 2.0 * e * T * (sh->a_l + sh->g_l) * sh->d);   // rotary backward
            unfused_rotary(k, sh, p, w);
        }
        linear(k, p, T, h, qkv_n, e);                                  // QKV dgrad
        wgrad(k, sh, p, h, qkv_n, T);                                 // QKV wgrad
    }
    stream(k, p, 3.0 * e * Tn * h);                                 // norm backward
    unfused_layer_norm(k, sh, m, p, w);
    pass_total_k(k, p);
    return p->gemm_s - g0 - attn_gemm;
}

/* Parameters of one layer on a GPU holding `a` query heads, `g` KV heads and MLP width `f`. */
static double mla_params(const struct ts_model *m, double a);

static double layer_params(const struct ts_model *m, double a, double g, double f)
{
    double h = m->hidden, d = m->head_dim;
    double attn = m->mla.on ? mla_params(m, a) : h * (a + 2.0 * g) * d + a * d * h;
    double mlp = (ts_ffn_gated(m->ffn) ? 3.0 : 2.0) * h * f;
    double bias = m->bias ? (a + 2.0 * g) * d + h + f + h : 0.0;
    double norms = 2.0 * h * (m->bias ? 2.0 : 1.0);
    return attn + mlp + bias + norms;
}

/* Routed-expert parameters of one MoE layer on a GPU holding n experts of width f (SwiGLU:
 * gate, up, down; GeLU: fc1, fc2; with biases when the model has them: one per output of
 * each, as GPT-OSS's gate_up_proj_bias (2 f) and down_proj_bias (h)). */
static double expert_params(const struct ts_model *m, double n, double f)
{
    double h = m->hidden;
    double per = (ts_ffn_gated(m->ffn) ? 3.0 : 2.0) * h * f +
                 (m->bias ? (ts_ffn_gated(m->ffn) ? 2.0 * f : f) + h : 0.0);
    return n * per;
}

/* Parameters of one MoE layer on a GPU with `a` query heads, `g` KV heads, n local experts of
 * width f, shared experts of total width fs (all of them): attention, norms, the router
 * (h E, replicated; plus the E balancing biases of aux-loss-free routing, DeepSeek-V3's
 * e_score_correction_bias), shared and routed experts. One expert with top-1 has no router. */
static double moe_layer_params(const struct ts_model *m, double a, double g, double n, double f,
                               double fs)
{
    const struct ts_moe *e = &m->moe;
    double h = m->hidden, d = m->head_dim;
    double attn = m->mla.on ? mla_params(m, a) : h * (a + 2.0 * g) * d + a * d * h;
    double mlp = (ts_ffn_gated(m->ffn) ? 3.0 : 2.0) * h * fs + expert_params(m, n, f);
    double bias = m->bias ? (a + 2.0 * g) * d + h + (fs > 0 ? fs + h : 0.0) : 0.0;
    double norms = 2.0 * h * (m->bias ? 2.0 : 1.0);
    bool route = e->experts > 1 || e->top_k > 1;
    /* the router's own bias in models with biases (GPT-OSS), the balancing bias of
     * aux-loss-free routing (DeepSeek-V3) */
    double router = route ? h * e->experts + (m->bias ? e->experts : 0.0) +
                                (e->aux_loss_free ? e->experts : 0.0)
                          : 0.0;
    return attn + mlp + bias + norms + router;
}

/* ---------------------------------------------------------------- recomputation */

/* Bytes per layer per microbatch on this GPU of each tensor the layer can keep for backward
 * (Korthikanti et al. 2022, sec. 4.1 "activations memory per layer", generalised to GQA,
 * SwiGLU, flash attention and no dropout; replicated tensors divide by tp only under sequence
 * parallelism: Tn = T / t there). With e bytes per element (2 in 16-bit recipes), T = b s / cp
 * local tokens, a_l = heads / t, g_l = kv_heads / t (1 when replicated), d = head_dim,
 * f_l = ffn_hidden / t, s_kv = s:
 *   input, residual1                 e Tn h
 *   norm1_out, norm2_out             ein Tn h  (GEMM inputs kept for the weight gradient are
 *                                    the fp8 copies in fp8 recipes, ein = 1; else e)
 *   q / k / v                        e T a_l d / e T g_l d / e T g_l d
 *   softmax (unfused)                e b a_l s s_kv
 *   attn_dropout_mask (unfused)      1 b a_l s s_kv   (with dropout)
 *   attn_probs (unfused)             e b a_l s s_kv   (with dropout)
 *   core_attn_out                    ein T a_l d  (+ flash: 4 b a_l s, fp32 logsumexp)
 *   proj_out, mlp_out                e Tn h    (not read by backward)
 *   proj/mlp_dropout_mask            1 Tn h    (with dropout)
 *   mlp_gate (SwiGLU)                e T f_l
 *   mlp_up                           e T f_l   (GeLU input / SwiGLU up)
 *   mlp_act                          ein T f_l
 * Their sum over "all" is Korthikanti's s b h (34 + 5 a s / h) with dropout, GeLU, 16 bits,
 * t = 1 (the tests check the tensor- and sequence-parallel forms). 0 = not in this layer. */
static double tensor_bytes(const struct shape *sh, const struct ts_job *job, bool fl, int t)
{
    const struct ts_model *m = &job->model;
    double e = sh->e, T = sh->T, Tn = sh->Tn, h = sh->h, d = sh->d;
    double ein = job->precision == TS_PREC_FP8 ? 1.0 : e;
    double ss = sh->b * sh->a_l * sh->s * sh->s_kv;
    switch ((enum ts_layer_tensor)t) {
    case TS_T_INPUT:
    case TS_T_RESIDUAL1:
        return e * Tn * h;
    case TS_T_NORM1_OUT:
        /* MLA: the latents are the up projections' inputs, kept for their weight gradient */
        return ein * Tn * h +
               (sh->mla ? ein * T * ((double)sh->mla->q_lora_rank + sh->mla->kv_lora_rank) : 0.0);
    case TS_T_NORM2_OUT:
        /* MoE: the permuted token copies are the grouped fc1's input (its weight gradient);
         * with etp > 1 they are kept as gathered over ETP (Megatron-Core's dispatcher gathers
         * them before the GroupedMLP, which saves its input: no re-gather in backward) */
        return ein * Tn * h +
               (sh->moe && (sh->route || sh->etp > 1) ? ein * sh->m_tot * h : 0.0);
    case TS_T_Q:
        return e * T * sh->a_l * d;
    case TS_T_K:
        return e * T * sh->g_l * d;
    case TS_T_V:
        return e * T * sh->g_l * sh->d_v;
    case TS_T_SOFTMAX:
        return fl ? 0.0 : e * ss;
    case TS_T_ATTN_DROPOUT_MASK:
        return fl ? 0.0 : sh->drop * ss;
    case TS_T_ATTN_PROBS:
        return fl ? 0.0 : sh->drop * e * ss;
    case TS_T_CORE_ATTN_OUT:
        return ein * T * sh->a_l * sh->d_v + (fl ? 4.0 * sh->b * sh->a_l * sh->s : 0.0);
    case TS_T_PROJ_OUT:
    case TS_T_MLP_OUT:
        return e * Tn * h;
    case TS_T_PROJ_DROPOUT_MASK:
    case TS_T_MLP_DROPOUT_MASK:
        return sh->drop * Tn * h;
    case TS_T_MLP_GATE:
        if (sh->moe)
            return ts_ffn_gated(m->ffn) ? e * (sh->m_tot * sh->fe_l + T * sh->fs_l) : 0.0;
        return ts_ffn_gated(m->ffn) ? e * T * sh->f_l : 0.0;
    case TS_T_MLP_UP:
        if (sh->moe)
            return e * (sh->m_tot * sh->fe_l + T * sh->fs_l);
        return e * T * sh->f_l;
    case TS_T_MLP_ACT:
        if (sh->moe)
            return ein * (sh->m_tot * sh->fe_l + T * sh->fs_l);
        return ein * T * sh->f_l;
    case TS_T_COUNT:
        break;
    }
    return 0.0;
}

/* The op graph: what each forward op reads and writes (tensor bits). */
static uint32_t op_inputs(enum layer_op o)
{
    switch (o) {
    case OP_NORM1: return TS_T_BIT(TS_T_INPUT);
    case OP_QKV:   return TS_T_BIT(TS_T_NORM1_OUT);
    case OP_ATTN:  return TS_T_BIT(TS_T_Q) | TS_T_BIT(TS_T_K) | TS_T_BIT(TS_T_V);
    case OP_PROJ:  return TS_T_BIT(TS_T_CORE_ATTN_OUT);
    case OP_ADD1:  return TS_T_BIT(TS_T_INPUT) | TS_T_BIT(TS_T_PROJ_OUT);
    case OP_NORM2: return TS_T_BIT(TS_T_RESIDUAL1);
    case OP_FC1:   return TS_T_BIT(TS_T_NORM2_OUT);
    case OP_ACT:   return TS_T_BIT(TS_T_MLP_GATE) | TS_T_BIT(TS_T_MLP_UP);
    case OP_FC2:   return TS_T_BIT(TS_T_MLP_ACT);
    case OP_ADD2:  return TS_T_BIT(TS_T_RESIDUAL1) | TS_T_BIT(TS_T_MLP_OUT);
    case OP_COUNT: break;
    }
    return 0;
}

static uint32_t op_outputs(enum layer_op o)
{
    switch (o) {
    case OP_NORM1: return TS_T_BIT(TS_T_NORM1_OUT);
    case OP_QKV:   return TS_T_BIT(TS_T_Q) | TS_T_BIT(TS_T_K) | TS_T_BIT(TS_T_V);
    case OP_ATTN:  return TS_T_BIT(TS_T_SOFTMAX) | TS_T_BIT(TS_T_ATTN_DROPOUT_MASK) |
                          TS_T_BIT(TS_T_ATTN_PROBS) | TS_T_BIT(TS_T_CORE_ATTN_OUT);
    case OP_PROJ:  return TS_T_BIT(TS_T_PROJ_OUT);
    case OP_ADD1:  return TS_T_BIT(TS_T_PROJ_DROPOUT_MASK) | TS_T_BIT(TS_T_RESIDUAL1);
    case OP_NORM2: return TS_T_BIT(TS_T_NORM2_OUT);
    case OP_FC1:   return TS_T_BIT(TS_T_MLP_GATE) | TS_T_BIT(TS_T_MLP_UP);
    case OP_ACT:   return TS_T_BIT(TS_T_MLP_ACT);
    case OP_FC2:   return TS_T_BIT(TS_T_MLP_OUT);
    case OP_ADD2:  return TS_T_BIT(TS_T_MLP_DROPOUT_MASK);
    case OP_COUNT: break;
    }
    return 0;
}

/* The tensors of this layer (those with bytes), and the bytes a saved set keeps. */
static uint32_t tensors_present(const struct shape *sh, const struct ts_job *job, bool fl)
{
    uint32_t present = 0;
    for (int t = 0; t < TS_T_COUNT; t++)
        if (tensor_bytes(sh, job, fl, t) > 0)
            present |= TS_T_BIT(t);
    return present;
}

static double saved_bytes(const struct shape *sh, const struct ts_job *job, bool fl, uint32_t save)
{
    double bytes = 0.0;
    for (int t = 0; t < TS_T_COUNT; t++)
        if (save & TS_T_BIT(t))
            bytes += tensor_bytes(sh, job, fl, t);
    return bytes;
}

/* What the recomputation runs for a saved set: every tensor backward reads (TS_T_ALL present
 * in the layer) that is not saved is regenerated by its producing op, whose unsaved inputs are
 * regenerated in turn back to saved tensors (one pass in reverse program order: producers
 * precede consumers). `rerun` adds Megatron's checkpointed regions, which re-run whole. */
static struct layer_run recompute_run(const struct shape *sh, const struct ts_job *job, bool fl,
                                      uint32_t save, enum ts_rerun rerun)
{
    uint32_t present = tensors_present(sh, job, fl) | TS_T_BIT(TS_T_INPUT);
    save = (save | TS_T_BIT(TS_T_INPUT)) & present;
    unsigned forced = rerun == TS_RERUN_LAYER ? OPS_ALL
                      : rerun == TS_RERUN_ATTENTION ? OP_BIT(OP_ATTN) : 0u;
    uint32_t need = TS_T_ALL & present & ~save;
    struct layer_run r = {0u, 0u};
    for (int o = OP_COUNT - 1; o >= 0; o--) {
        uint32_t outs = op_outputs((enum layer_op)o) & present;
        bool run = (forced & OP_BIT(o)) || (outs & need);
        if (!run)
            continue;
        r.ops |= OP_BIT(o);
        r.outs |= forced & OP_BIT(o) ? outs : outs & need;
        need |= op_inputs((enum layer_op)o) & present & ~save;
    }
    return r;
}

/* The TP collectives of the ops `r` re-runs: the all-gather before the QKV and fc1 GEMMs
 * under sequence parallelism, the all-reduce (reduce-scatter under sequence parallelism)
 * after the projection and fc2 (Korthikanti et al. Fig. 5: g and g-bar). */
static void tp_comm_recompute(struct ts_tp_comm *c, const struct shape *sh, unsigned ops)
{
    memset(c, 0, sizeof *c);
    if (sh->t <= 1)
        return;
    int before = ((ops & OP_BIT(OP_QKV)) != 0) + ((ops & OP_BIT(OP_FC1)) != 0);
    int after = ((ops & OP_BIT(OP_PROJ)) != 0) + ((ops & OP_BIT(OP_FC2)) != 0);
    if (after + (sh->sp ? before : 0) == 0)
        return;
    c->bytes = sh->T * sh->h * sh->e;
    if (!sh->sp) {
        c->allreduce = after;
    } else {
        c->ag_bytes = sh->T * sh->h * sh->e_ag;   /* the repeated forward's input gathers */
        c->allgather = before;
        c->reducescatter = after;
    }
}

/* One layer's recomputation for a saved set. */
static void recompute_build(const struct kern *k, const struct shape *sh, const struct ts_job *job,
                            bool fl, uint32_t save, enum ts_rerun rerun,
                            struct ts_layer_recompute *R)
{
    memset(R, 0, sizeof *R);
    struct layer_run r = recompute_run(sh, job, fl, save, rerun);
    double attn_s;
    R->ops = r.ops;
    if (r.ops)
        R->gemm_s = layer_fwd(k, sh, &job->model, fl, &r, &R->pass, &attn_s);
    tp_comm_recompute(&R->tp, sh, r.ops);
    R->attention = (r.ops & OP_BIT(OP_ATTN)) != 0;
    R->activation_bytes = saved_bytes(sh, job, fl, save | TS_T_BIT(TS_T_INPUT));
    R->regen_bytes = saved_bytes(sh, job, fl, r.outs & TS_T_ALL);
}

/* Matmul FLOPs per token of one layer's forward by the model-FLOPs convention (Narayanan
 * et al. SC21 eq. 3 generalised as Megatron-LM's num_floating_point_operations does: GQA,
 * SwiGLU, MLA projections, MoE counted with the top_k routed experts and the shared
 * experts a token runs through, no router; the causal square counted whole, `s_kv` keys per
 * query: seq_len, or fewer for sliding windows). */
static double layer_flops_token(const struct ts_model *m, bool moe, double s_kv)
{
    double h = m->hidden, d = m->head_dim;
    double attn;
    if (m->mla.on) {
        const struct ts_mla *a = &m->mla;
        double qk = (double)a->qk_nope_head_dim + a->qk_rope_head_dim, q = a->q_lora_rank;
        double proj = (q > 0 ? h * q + q * m->heads * qk : h * m->heads * qk) +
                      h * ((double)a->kv_lora_rank + a->qk_rope_head_dim) +
                      a->kv_lora_rank * m->heads * ((double)a->qk_nope_head_dim + a->v_head_dim);
        attn = 2.0 * proj + 2.0 * s_kv * m->heads * (qk + a->v_head_dim) +
               2.0 * m->heads * a->v_head_dim * h;
    } else {
        attn = 2.0 * h * (m->heads + 2.0 * m->kv_heads) * d   // QKV
               + 4.0 * s_kv * m->heads * d                     // scores + context
               + 2.0 * m->heads * d * h;                       // projection
    }
    double per = ts_ffn_gated(m->ffn) ? 6.0 : 4.0;
    if (!moe)
        return attn + per * h * m->ffn_hidden;
    const struct ts_moe *e = &m->moe;
    return attn + per * h * ((double)e->top_k * e->expert_ffn_hidden +
                             (double)e->shared_experts * e->shared_ffn_hidden);
}

static void build_layer(const struct kern *k, const struct shape *sh, const struct ts_job *job,
                        struct ts_layer_cost *L)
{
    const struct ts_model *m = &job->model;
    const struct ts_parallel *par = &job->parallel;
    bool fl = k->attn_kind != TS_ATTN_STANDARD;
    memset(L, 0, sizeof *L);

    L->tp_fwd_gemm_s = layer_fwd(k, sh, m, fl, &run_forward, &L->fwd, &L->attn_fwd_s);
    L->tp_bwd_gemm_s = layer_bwd(k, sh, m, fl, &L->bwd, &L->attn_bwd_s);
    /* TP collectives around the attention and the MLP; an MoE layer has them around its
     * shared experts only (the routed experts' tokens stay sequence-split, exchanged over
     * EP and gathered over ETP instead). */
    int tp_n = sh->moe ? 1 + (sh->fs_l > 0) : 2;
    tp_comm_set(&L->tp_fwd, sh, tp_n, false);
    tp_comm_set(&L->tp_bwd, sh, tp_n, true);

    /* Recomputation follows the saved set (sim/spec/recompute.c); layers that full_every
     * picks recompute as "full" does. */
    struct ts_layer_recompute saved;
    recompute_build(k, sh, job, fl, ts_recompute_saved(par), ts_recompute_rerun(par), &saved);
    if (par->recompute_policy.custom && par->recompute_policy.full_every > 0)
        recompute_build(k, sh, job, fl, TS_T_BIT(TS_T_INPUT), TS_RERUN_LAYER, &L->full);
    L->recompute = saved.pass;
    L->tp_recompute = saved.tp;
    L->tp_recompute_gemm_s = saved.gemm_s;
    L->recompute_attention = saved.attention;
    L->activation_bytes = saved.activation_bytes;
    L->recompute_regen_bytes = saved.regen_bytes;
    if (sh->moe) {
        if (saved.ops & OP_BIT(OP_FC1)) {
            /* tp_comm_recompute counted the shared-expert / MLP pair; the MoE block's own
             * traffic repeats with it */
            L->moe.a2a_recompute = sh->route ? 2 : 0;
        }
        if (!(sh->fs_l > 0) && (saved.ops & (OP_BIT(OP_FC1) | OP_BIT(OP_FC2))) && sh->t > 1) {
            /* no shared experts: no TP pair around the MLP */
            struct ts_tp_comm *c = &L->tp_recompute;
            if (sh->sp) {
                c->allgather -= (saved.ops & OP_BIT(OP_FC1)) != 0;
                c->reducescatter -= (saved.ops & OP_BIT(OP_FC2)) != 0;
            } else {
                c->allreduce -= (saved.ops & OP_BIT(OP_FC2)) != 0;
            }
        }
    }

    /* Ring attention (context parallelism): each of the cp - 1 steps passes the local K and
     * V chunk to the next rank; backward passes K, V and their gradients, and the gradients
     * make one more hop after the last step to reach the rank that owns those K and V
     * (Megatron-Core / Transformer Engine P2P ring: dK/dV travel with K/V and are received
     * back by the owner; Liu et al., arXiv 2310.01889, sec. 3). PyTorch's context_parallel
     * with rotate method "allgather" (torchtitan's default, --experimental.
     * context_parallel_rotate_method at 9dec370; _AllGatherRotater in torch/distributed/
     * tensor/experimental/_attention.py) gathers every rank's K/V in one all-gather issued at
     * step 0 and waited for at step 1, forward and again in backward; its backward rotates
     * the dK/dV accumulators one hop per step by all-to-all (dkv_rotater, ALL_TO_ALL) in fp32
     * (convert_to_f32), the last hop waited for after the loop. */
    int cp = par->cp;
    if (cp > 1) {
        const struct ts_sw_mech *sw = &par->sw;
        double kv = 2.0 * sh->e * sh->T * sh->g_ring * sh->d;
        double dkv = sw->cp_grad_bytes > 0 ? kv * sw->cp_grad_bytes / sh->e : kv;
        L->cp_steps = cp - 1;
        if (sw->cp_allgather) {
            L->cp_gather_bytes = kv * cp;
            L->cp_fwd_bytes = 0.0;
            L->cp_bwd_bytes = dkv * (cp - 1);
        } else {
            L->cp_fwd_bytes = kv * (cp - 1);
            L->cp_bwd_bytes = (kv + dkv) * (cp - 1);
        }
        L->cp_bwd_tail_bytes = dkv;
        /* PyTorch's ring backward holds, besides the layer's own tensors, the gathered K/V
         * of all cp ranks (the rotater's aggregated buffer), fp32 accumulators of dQ, dK and
         * dV (torch.zeros_like(..., dtype=accum_dtype)) and the dK/dV buffer it sends and
         * the one it receives (torch.cat of the accumulators; the permuted output). The
         * P2P ring's double buffers are not counted. */
        if (sw->cp_allgather) {
            double gb = sw->cp_grad_bytes > 0 ? sw->cp_grad_bytes : sh->e;
            L->cp_buffer_bytes = L->cp_gather_bytes +
                                 gb * sh->T * (sh->a_l + 2.0 * sh->g_ring) * sh->d + 2.0 * dkv;
        }
    }

    if (sh->moe) {
        L->params = moe_layer_params(m, sh->a_l, sh->g_l, sh->n_local, sh->fe_l, sh->fs_l);
        L->expert_params = expert_params(m, sh->n_local, sh->fe_l);
        struct ts_moe_comm *x = &L->moe;
        if (sh->route) {
            /* The busiest rank receives m_tot / etp copies against n_local m_mean / etp on
             * average. */
            double busy = sh->m_tot / (sh->n_local * sh->m_mean);
            x->tokens_bytes = sh->tr * sh->h * sh->e;
            x->a2a_bytes = sh->topk * x->tokens_bytes * busy;
            x->a2a_fwd = x->a2a_bwd = 2;
        }
        int etp = par->etp;
        if (etp > 1) {
            /* all-gather of the received tokens before the experts, reduce-scatter of their
             * outputs after; backward the reverse (one each way) */
            x->etp_fwd.bytes = x->etp_bwd.bytes = sh->m_tot * sh->h * sh->e;
            x->etp_fwd.allgather = x->etp_fwd.reducescatter = 1;
            x->etp_bwd.allgather = x->etp_bwd.reducescatter = 1;
            if (saved.ops & OP_BIT(OP_FC1))
                x->etp_recompute = x->etp_fwd;
        }
        const struct ts_moe *e = &m->moe;
        if (e->capacity_factor > 0 && sh->route && e->load_imbalance > e->capacity_factor)
            x->dropped_fraction = (e->load_imbalance - e->capacity_factor) / e->experts;
    } else {
        L->params = layer_params(m, sh->a_l, sh->g_l, sh->f_l);
    }

    /* Model FLOPs on this GPU: 3x forward, unsharded work divided by tp x cp. */
    double s = m->seq_len;
    L->model_flops = 3.0 * layer_flops_token(m, sh->moe, sh->s_kv) * sh->b * s /
                     ((double)par->tp * cp);
}

/* ---------------------------------------------------------------- embedding and output */

static void build_embed(const struct kern *k, const struct shape *sh, const struct ts_job *job,
                        int vocab_padded, struct ts_head_cost *H)
{
    const struct ts_model *m = &job->model;
    double e = sh->e, T = sh->T, h = sh->h;
    memset(H, 0, sizeof *H);
    stream(k, &H->fwd, 2.0 * e * T * h);                            // row gather
    if (m->learned_positions)
        stream(k, &H->fwd, 3.0 * e * T * h);                        // + position embedding
    if (sh->drop > 0)
        stream(k, &H->fwd, (2.0 * e + 1.0) * sh->Tn * h);           // embedding dropout
    pass_total_k(k, &H->fwd);
    stream(k, &H->bwd, (e + 8.0) * T * h);                          // scatter-add into fp32 grads
    if (m->learned_positions)
        stream(k, &H->bwd, (e + 8.0) * T * h);
    pass_total_k(k, &H->bwd);
    /* Vocabulary-parallel embedding: partial rows are summed over TP (all-reduce, or
     * reduce-scatter under sequence parallelism). */
    if (sh->t > 1) {
        H->tp_fwd.bytes = T * h * e;
        if (sh->sp)
            H->tp_fwd.reducescatter = 1;
        else
            H->tp_fwd.allreduce = 1;
    }
    H->params = (double)vocab_padded / sh->t * h + (m->learned_positions ? m->seq_len * h : 0.0);
    H->activation_bytes = sh->drop * sh->Tn * h;
}

static void build_output(const struct kern *k_job, const struct shape *sh, const struct ts_job *job,
                         int vocab_padded, struct ts_head_cost *H)
{
    const struct ts_model *m = &job->model;
    /* The output layer stays in 16 bits in fp8 recipes (Megatron-Core applies fp8 to the
     * transformer layers only). */
    struct kern k16 = *k_job;
    if (k16.fp8) {
        k16.fp8 = false;
        k16.curve = k16.attn_curve;
        k16.gemm_peak = k16.attn_peak;
        k16.gemm_in_bytes = 2.0;
    }
    const struct kern *k = &k16;
    double e = sh->e, T = sh->T, h = sh->h, V_l = (double)vocab_padded / sh->t;
    memset(H, 0, sizeof *H);
    stream(k, &H->fwd, 2.0 * e * sh->Tn * h);                       // final norm
    unfused_layer_norm(k, sh, m, &H->fwd, 1.0);
    linear(k, &H->fwd, T, V_l, h, e);                              // logits
    enum ts_eager_loss eager = (enum ts_eager_loss)job->parallel.eager_loss;
    if (eager != TS_EAGER_LOSS_OFF) {
        /* The loss as eager PyTorch ops outside the compiled blocks (OLMo-core at 41400c4:
         * Transformer.forward returns self.w_out(h).float(); Trainer.get_losses slices
         * logits[..., :-1, :].contiguous() and, with fused_loss False, calls
         * olmo_core/nn/functional/cross_entropy_loss.py: F.cross_entropy, plus with
         * z_loss_multiplier set logits.logsumexp(-1).pow(2)). Bytes per logit, fp32 after the
         * cast, from ATen's kernels: forward: cast (e + 4), contiguous copy (8), log_softmax
         * over a row too long for shared memory (max, sum and write passes: 16), nll gather
         * (per row); logsumexp = amax (4), subtract (8), exp_ (8), sum (4) = 24. Backward:
         * logsumexp_backward grad * (self - result).exp() (three kernels, 24), nll_loss
         * backward's zero-filled gradient (4), log_softmax backward (sum, then grad - exp(out)
         * x sum: 16), the two gradients summed (12), the slice's backward (zeros, copy: 12),
         * the cast back (4 + e). */
        bool z = eager == TS_EAGER_LOSS_CE_Z;
        stream(k, &H->fwd, (e + 4.0) * T * V_l);
        stream(k, &H->fwd, 8.0 * T * V_l);
        stream(k, &H->fwd, 16.0 * T * V_l);
        if (z) {
            stream(k, &H->fwd, 4.0 * T * V_l);
            stream(k, &H->fwd, 8.0 * T * V_l);
            stream(k, &H->fwd, 8.0 * T * V_l);
            stream(k, &H->fwd, 4.0 * T * V_l);
        }
        pass_total_k(k, &H->fwd);
        if (z) {
            stream(k, &H->bwd, 8.0 * T * V_l);
            stream(k, &H->bwd, 8.0 * T * V_l);
            stream(k, &H->bwd, 8.0 * T * V_l);
        }
        stream(k, &H->bwd, 4.0 * T * V_l);
        stream(k, &H->bwd, 16.0 * T * V_l);
        if (z)
            stream(k, &H->bwd, 12.0 * T * V_l);
        stream(k, &H->bwd, 12.0 * T * V_l);
        stream(k, &H->bwd, (4.0 + e) * T * V_l);
    } else if (job->parallel.sw.xentropy) {
        /* A fused cross-entropy kernel (flash-attn CrossEntropyLoss, xentropy CUDA / Triton:
         * flash_attn/losses/cross_entropy.py): forward reads the logits once and writes one
         * fp32 log-sum-exp and loss per row; backward reads the logits and writes their
         * gradient in the same dtype. */
        stream(k, &H->fwd, e * T * V_l);
        pass_total_k(k, &H->fwd);
        stream(k, &H->bwd, 2.0 * e * T * V_l);
    } else {
        if (!k->fused[TS_FUSE_CROSS_ENTROPY])
            unfused(k, &H->fwd, (e + 4.0) * T * V_l, 1.0);         // eager upcast of the logits
        /* Vocabulary-parallel cross-entropy in fp32 (Megatron-LM): cast, max, subtract, exp,
         * sum, normalise: e + 40 bytes per logit over six kernels. */
        stream(k, &H->fwd, (e + 8.0) * T * V_l);
        stream(k, &H->fwd, 4.0 * T * V_l);
        stream(k, &H->fwd, 8.0 * T * V_l);
        stream(k, &H->fwd, 8.0 * T * V_l);
        stream(k, &H->fwd, 4.0 * T * V_l);
        stream(k, &H->fwd, 8.0 * T * V_l);
        pass_total_k(k, &H->fwd);
        stream(k, &H->bwd, (4.0 + e) * T * V_l);                    // softmax - one-hot
        if (!k->fused[TS_FUSE_CROSS_ENTROPY])
            unfused(k, &H->bwd, (4.0 + e) * T * V_l, 1.0);         // fp32 gradient cast back
    }
    linear(k, &H->bwd, T, h, V_l, e);                              // logits dgrad
    wgrad(k, sh, &H->bwd, V_l, h, T);                             // logits wgrad
    stream(k, &H->bwd, 3.0 * e * sh->Tn * h);                       // final norm backward
    unfused_layer_norm(k, sh, m, &H->bwd, 2.0);
    /* Training metrics on the logits after the backward (Composer's _train_microbatch
     * updates its train metrics with the microbatch outputs; LanguageCrossEntropy and
     * LanguagePerplexity each run torch.nn.CrossEntropyLoss over every logit under autocast,
     * composer/metrics/nlp.py): per metric a cast to fp32 (e + 4 bytes per logit), a
     * log-softmax reading and writing fp32 (8) and the loss gather: three kernels. */
    for (int i = 0; i < job->parallel.sw.logit_metrics; i++)
        unfused(k, &H->bwd, (e + 12.0) * T * V_l, 3.0);
    pass_total_k(k, &H->bwd);
    if (sh->t > 1) {
        H->tp_fwd.bytes = H->tp_bwd.bytes = T * h * e;
        if (sh->sp) {
            H->tp_fwd.allgather = 1;        // gather the sequence before the logits GEMM
            H->tp_bwd.reducescatter = 1;
        } else {
            H->tp_bwd.allreduce = 1;        // column-parallel input gradient
        }
    }
    H->model_flops = 3.0 * 2.0 * T * h * m->vocab / sh->t;
    bool own_weights = !m->tied_embeddings || job->parallel.pp > 1;
    H->params = (own_weights ? V_l * h : 0.0) + h * (m->bias ? 2.0 : 1.0);
    /* Held at the loss: the logits and the fp32 softmax kept for backward (Megatron-LM), or
     * the logits and, while the fused kernel's backward runs, their gradient (xentropy). */
    H->activation_bytes = (job->parallel.sw.xentropy ? 2.0 * e : e + 4.0) * T * V_l;
    /* Eager loss: the fp32 logits (the trainer keeps them), their contiguous slice and the
     * log-softmax output autograd saves: 12 bytes per logit. */
    if (eager != TS_EAGER_LOSS_OFF)
        H->activation_bytes = 12.0 * T * V_l;
}

/* A multi-token-prediction module's projection of [embedding; hidden state] (2h) back to h
 * (DeepSeek-V3 report sec. 2.2, M_k; Megatron-Core's eh_proj, a column-parallel linear): the
 * one GEMM of the module beside its transformer layer and its logits, which both model and
 * hardware FLOPs count (4 h^2 per token forward). */
static void build_mtp_projection(const struct kern *k, const struct shape *sh,
                                 struct ts_head_cost *H)
{
    double e = sh->e, T = sh->T, h = sh->h, o = h / sh->t;
    memset(H, 0, sizeof *H);
    linear(k, &H->fwd, T, o, 2.0 * h, e);
    pass_total_k(k, &H->fwd);
    linear(k, &H->bwd, T, 2.0 * h, o, e);                          // dgrad
    wgrad(k, sh, &H->bwd, o, 2.0 * h, T);                         // wgrad
    pass_total_k(k, &H->bwd);
}

/* ---------------------------------------------------------------- public */

void ts_compute_build(const struct ts_job *job, struct ts_compute *c)
{
    struct kern k;
    struct shape sh;
    memset(c, 0, sizeof *c);
    kern_init(&k, job);
    shape_init(&sh, job);
    const struct ts_model *m = &job->model;
    const struct ts_parallel *par = &job->parallel;

    /* Megatron-LM pads the vocabulary to a multiple of 128 x tp
     * (--make-vocab-size-divisible-by 128). */
    long mult = 128L * par->tp;
    c->vocab_padded = (int)(((long)m->vocab + mult - 1) / mult * mult);
    c->tokens_per_microbatch = (double)par->microbatch * m->seq_len;
    c->micro_per_pipeline = job->global_batch / (par->dp * par->microbatch);

    build_layer(&k, &sh, job, &c->layer);
    if (ts_model_is_moe(m)) {
        struct shape shm = sh;
        shape_moe(&shm, job);
        build_layer(&k, &shm, job, &c->moe_layer);
        c->moe = true;
        const struct ts_moe *e = &m->moe;
        double fs = (double)e->shared_experts * e->shared_ffn_hidden;
        c->moe_layer_params_full = moe_layer_params(m, m->heads, m->kv_heads, e->experts,
                                                    e->expert_ffn_hidden, fs);
        c->moe_layer_active_full = moe_layer_params(m, m->heads, m->kv_heads, e->top_k,
                                                    e->expert_ffn_hidden, fs);
        c->mtp_extra_params_full = 2.0 * m->hidden * m->hidden + 3.0 * m->hidden;
        if (m->mtp_layers > 0)
            build_mtp_projection(&k, &sh, &c->mtp_proj);
    }
    build_embed(&k, &sh, job, c->vocab_padded, &c->embed);
    build_output(&k, &sh, job, c->vocab_padded, &c->output);

    c->layer_params_full = layer_params(m, m->heads, m->kv_heads, m->ffn_hidden);
    c->embed_params_full = (double)m->vocab * m->hidden +
                           (m->learned_positions ? (double)m->seq_len * m->hidden : 0.0);
    c->output_params_full = (m->tied_embeddings ? 0.0 : (double)m->vocab * m->hidden) +
                            m->hidden * (m->bias ? 2.0 : 1.0);

    /* Optimizer step (Adam, mixed precision), HBM bytes per local parameter: read the
     * gradient, read+write the fp32 master weight and both moments, write the working
     * weight; plus a gradient-norm pass and zeroing the gradient buffer. */
    double g = par->fp32_grads || job->precision == TS_PREC_FP32 ? 4.0 : 2.0;
    double master = job->precision == TS_PREC_FP32 ? 0.0 : 8.0;
    double w = job->precision == TS_PREC_FP32 ? 8.0 : 2.0;
    if (par->sw.fp32_params && job->precision != TS_PREC_FP32)
        w = 0.0;                /* the fp32 parameters are the master: no 16-bit copy to write */
    c->optimizer_bytes_per_param = g + master + 16.0 + w + g + g;
    if (par->sw.optimizer != TS_OPT_FUSED) {
        /* Eager PyTorch AdamW, one pass per op over the fp32 state (g counted once where an
         * op reads the gradient twice, as addcmul(g, g) does: the same thread reads the same
         * address). torch.optim.AdamW foreach (torch/optim/adamw.py _multi_tensor_adamw):
         * weight decay p *= 1 - lr wd (8), lerp m toward g (8 + g), v *= beta2 (8),
         * v += (1 - beta2) g^2 (8 + g), sqrt(v) into a temporary (8), divide it (8), add eps
         * (8), p -= lr m / t (16). Composer's DecoupledAdamW, the per-tensor loop llm-foundry
         * runs (composer/optim/decoupled_weight_decay.py, DecoupledAdamW.adamw, v0.13.3 to
         * v0.17.2): m.mul_(beta1) (8), m.add_(g) (8 + g), v.mul_(beta2) (8),
         * v.addcmul_(g, g) (8 + g), v.sqrt() (8), / sqrt(bc2) out of place (8), add_(eps)
         * (8), p.addcdiv_(m, denom) (16), and p.mul_ only when weight_decay != 0 (0.0 in
         * every llm-foundry pretrain yaml). Both: 72 + 2 g. Then the working-weight copy (w)
         * and gradient-norm clipping (torch.nn.utils.clip_grad_norm_ and
         * FullyShardedDataParallel.clip_grad_norm_: one norm pass over the gradients, g, then
         * every gradient multiplied by the clamped coefficient, "avoids the host-device sync
         * that would result from `if clip_coef < 1`": read + write, 2 g). No zeroing pass:
         * zero_grad(set_to_none=True), PyTorch's default since 2.0 and what Composer's
         * trainer calls, frees the gradients instead of writing zeros. */
        c->optimizer_bytes_per_param = 72.0 + 2.0 * g + w + 3.0 * g;
    }
}

/* Parameter tensors of one layer (weights, plus biases and norm shifts with bias): the unit
 * a foreach or per-tensor optimizer launches kernels over. */
static double layer_tensors(const struct ts_model *m)
{
    double weights = 4.0 + (ts_ffn_gated(m->ffn) ? 3.0 : 2.0) + 2.0;   // q k v o, MLP, 2 norms
    return m->bias ? 2.0 * weights : weights;
}

double ts_compute_gemm_time(const struct ts_job *job, double m, double n, double k,
                            double out_bytes)
{
    struct kern kn;
    struct ts_pass p;
    memset(&p, 0, sizeof p);
    kern_init(&kn, job);
    return gemm(&kn, &p, m, n, k, 1, out_bytes);
}

/* Model FLOPs count only the parameters a token activates (Megatron-LM
 * num_floating_point_operations for MoE: top_k routed experts plus the shared experts, no
 * router; the convention behind the model TFLOP/s of Megatron-Bridge's performance summary
 * and DeepSeek-V3's 37B-activated accounting), plus, with multi-token prediction, each
 * module's MoE layer, its 2h x h projection and its own logits (as Megatron-LM adds
 * mtp_num_layers). */
double ts_compute_model_flops(const struct ts_job *job, const struct ts_compute *c)
{
    const struct ts_model *m = &job->model;
    double h = m->hidden, s = m->seq_len;
    struct shape sh;
    shape_init(&sh, job);
    double per_token;
    if (!ts_model_is_moe(m)) {
        per_token = m->layers * layer_flops_token(m, false, sh.s_kv) + 2.0 * h * m->vocab;
    } else {
        int moe = ts_model_moe_layers(m, 0, m->layers);
        per_token = (m->layers - moe) * layer_flops_token(m, false, sh.s_kv) +
                    moe * layer_flops_token(m, true, sh.s_kv) + 2.0 * h * m->vocab;
        per_token += m->mtp_layers * (layer_flops_token(m, true, sh.s_kv) + 2.0 * 2.0 * h * h +
                                      2.0 * h * m->vocab);
    }
    (void)c;
    return 3.0 * per_token * (double)job->global_batch * s;
}

/* Matmul FLOPs one GPU of `stage` executes per microbatch. */
static double stage_hw_flops(const struct ts_job *job, const struct ts_compute *c, int stage)
{
    const struct ts_layer_cost *L = &c->layer;
    int n = ts_job_stage_layers(job, stage), full = ts_recompute_full_layers(&job->parallel, 0, n);
    int nm = ts_compute_stage_moe_layers(job, stage);
    int mtp = stage == job->parallel.pp - 1 ? job->model.mtp_layers : 0;
    double f = (n - (nm - mtp)) * (L->fwd.flops + L->bwd.flops + L->recompute.flops);
    if (full)
        f += full * (L->full.pass.flops - L->recompute.flops);
    if (nm > 0) {
        const struct ts_layer_cost *M = &c->moe_layer;
        f += nm * (M->fwd.flops + M->bwd.flops + M->recompute.flops);
    }
    if (stage == job->parallel.pp - 1)
        f += (1 + mtp) * (c->output.fwd.flops + c->output.bwd.flops) +
             mtp * (c->mtp_proj.fwd.flops + c->mtp_proj.bwd.flops);
    return f;
}

double ts_compute_hardware_flops(const struct ts_job *job, const struct ts_compute *c)
{
    const struct ts_parallel *p = &job->parallel;
    double per_pipeline = 0.0;
    for (int st = 0; st < p->pp; st++)
        per_pipeline += stage_hw_flops(job, c, st);
    return per_pipeline * c->micro_per_pipeline * (double)p->tp * p->cp * p->dp;
}

double ts_compute_param_count(const struct ts_job *job, const struct ts_compute *c)
{
    const struct ts_model *m = &job->model;
    if (!c->moe)
        return m->layers * c->layer_params_full + c->embed_params_full + c->output_params_full;
    int moe = ts_model_moe_layers(m, 0, m->layers);
    return (m->layers - moe) * c->layer_params_full + moe * c->moe_layer_params_full +
           c->embed_params_full + c->output_params_full;
}

double ts_compute_active_param_count(const struct ts_job *job, const struct ts_compute *c)
{
    const struct ts_model *m = &job->model;
    if (!c->moe)
        return ts_compute_param_count(job, c);
    int moe = ts_model_moe_layers(m, 0, m->layers);
    return (m->layers - moe) * c->layer_params_full + moe * c->moe_layer_active_full +
           c->embed_params_full + c->output_params_full;
}

int ts_compute_chunk_first_layer(const struct ts_job *job, int stage, int chunk)
{
    const struct ts_parallel *p = &job->parallel;
    int v = p->virtual_stages;
    bool uneven = p->first_stage_layers || p->last_stage_layers;
    if (v > 1 && !uneven) {
        int per_chunk = job->model.layers / (p->pp * v);
        return (chunk * p->pp + stage) * per_chunk;
    }
    int first = 0;
    for (int k = 0; k < stage; k++)
        first += ts_job_stage_layers(job, k);
    int n = ts_job_stage_layers(job, stage);
    for (int ch = 0; ch < chunk; ch++)
        first += n / v + (ch < n % v ? 1 : 0);
    return first;
}

int ts_compute_chunk_moe_layers(const struct ts_job *job, int stage, int chunk, int layers)
{
    const struct ts_model *m = &job->model;
    if (!ts_model_is_moe(m))
        return 0;
    int n = ts_model_moe_layers(m, ts_compute_chunk_first_layer(job, stage, chunk), layers);
    if (stage == job->parallel.pp - 1 && chunk == job->parallel.virtual_stages - 1)
        n += m->mtp_layers;
    return n;
}

int ts_compute_stage_moe_layers(const struct ts_job *job, int stage)
{
    int v = job->parallel.virtual_stages, n = ts_job_stage_layers(job, stage), total = 0;
    for (int ch = 0; ch < v; ch++)
        total += ts_compute_chunk_moe_layers(job, stage, ch, n / v + (ch < n % v ? 1 : 0));
    return total;
}

double ts_compute_stage_expert_params(const struct ts_job *job, const struct ts_compute *c,
                                      int stage)
{
    return ts_compute_stage_moe_layers(job, stage) * c->moe_layer.expert_params;
}

double ts_compute_stage_params(const struct ts_job *job, const struct ts_compute *c, int stage)
{
    int nm = ts_compute_stage_moe_layers(job, stage);
    int mtp = stage == job->parallel.pp - 1 ? job->model.mtp_layers : 0;
    double p = (ts_job_stage_layers(job, stage) - (nm - mtp)) * c->layer.params;
    if (nm > 0)
        p += nm * c->moe_layer.params + mtp * c->mtp_extra_params_full / job->parallel.tp;
    if (stage == 0)
        p += c->embed.params;
    if (stage == job->parallel.pp - 1)
        p += c->output.params;
    return p;
}

/* Parameter tensors one rank's optimizer steps under FSDP (zero 3 = FULL_SHARD, zero 2 =
 * SHARD_GRAD_OP: both shard the parameters and their state per unit). FSDP flattens each unit's
 * parameters into one buffer and gives each of the shard ranks a contiguous 1/shard of it;
 * with use_orig_params (Composer's default from v0.16, PyTorch >= 2.0) the optimizer sees the
 * original parameters, and those with no element in the rank's range have no gradient and
 * are skipped (torch FlatParamHandle._use_sharded_grad_views sets their grad to None). Of a
 * unit's T tensors laid end to end, each of the T - 1 boundaries falls inside one rank's
 * range, so a rank's range meets 1 + (T - 1) / shard tensors on average. The root unit holds
 * the embedding (and learned positions) on the first stage, the final norm (and an untied
 * output projection) on the last. */
static double fsdp_local_tensors(const struct ts_job *job, int stage)
{
    const struct ts_parallel *par = &job->parallel;
    double shard = ts_job_shard_ranks(job);
    int layers = ts_job_stage_layers(job, stage);
    int per_unit = par->fsdp_unit_layers > 0 ? par->fsdp_unit_layers : layers;
    if (per_unit > layers)
        per_unit = layers;
    double units = per_unit > 0 ? ceil((double)layers / per_unit) : 0.0;
    double unit_tensors = per_unit * layer_tensors(&job->model);
    double root = (stage == 0 ? 1.0 + (job->model.learned_positions ? 1.0 : 0.0) : 0.0) +
                  (stage == par->pp - 1 ? (job->model.bias ? 2.0 : 1.0) +
                                              (job->model.tied_embeddings ? 0.0 : 1.0) : 0.0);
    double t = units * (1.0 + (unit_tensors - 1.0) / shard);
    if (root > 0)
        t += 1.0 + (root - 1.0) / shard;
    return t;
}

double ts_compute_optimizer_time(const struct ts_job *job, const struct ts_compute *c, int stage)
{
    const struct ts_accel *a = &job->system.accel;
    double local = ts_compute_stage_params(job, c, stage);
    if (job->parallel.zero >= 1) {
        /* routed experts shard over the expert-data-parallel ranks (memory.c) */
        double experts = ts_compute_stage_expert_params(job, c, stage);
        local = (local - experts) / ts_job_shard_ranks(job) + experts / ts_job_edp(job);
    }
    const struct ts_sw_mech *sw = &job->parallel.sw;
    double latency = sw->kernel_latency_s >= 0 ? sw->kernel_latency_s : a->kernel_latency;
    double t = local * c->optimizer_bytes_per_param / (a->memory_bandwidth * a->memory_efficiency);
    if (sw->optimizer == TS_OPT_FUSED)
        return t + 4.0 * latency;                /* fused multi-tensor Adam: a handful of kernels */
    /* 10 ops (8 update ops, the clipping norm and scale); foreach launches each over groups
     * of up to 48 tensors (PyTorch MultiTensorApply depth_to_max_tensors for 3-list ops),
     * per_tensor once per tensor. A host-bound stack cannot issue them faster than its
     * dispatch cost. */
    double tensors = ts_job_stage_layers(job, stage) * layer_tensors(&job->model) +
                     (stage == 0 ? 1.0 : 0.0) + (stage == job->parallel.pp - 1 ? 2.0 : 0.0);
    if (job->parallel.zero >= 2)
        tensors = fsdp_local_tensors(job, stage);
    double kernels = sw->optimizer == TS_OPT_FOREACH ? 10.0 * ceil(tensors / 48.0) : 10.0 * tensors;
    return fmax(t + kernels * latency, kernels * sw->host_dispatch_s);
}
