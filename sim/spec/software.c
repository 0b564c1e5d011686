/*
 * Software profiles (configs/software/NAME.json) and the attention-kernel tables
 * (hardware/attention/NAME.json) they select.
 *
 * A profile file has these keys (unknown keys are errors):
 *   name, description, source        required strings: what stack, which versions, where
 *                                    every number below comes from
 *   notes                            optional free text
 *   attention                        the kernel "flash" means: one kernel name, or an object
 *                                    by device generation {"ampere": "fa2", "hopper": "fa3",
 *                                    ...}; generations not listed use "device" (the
 *                                    accelerator file's flash_attention figures)
 *   p2p_overlap, dp_overlap, tp_comm_overlap, fp32_grads, grad_accum_fusion
 *                                    defaults of the parallel switches of the same names (a
 *                                    job that gives one explicitly wins)
 *   tp_overlap                       "userbuffers" | "async_tp" | "none": how TP collectives
 *                                    are hidden when tp_comm_overlap is on
 *   async_tp_hidden                  fraction of TP collective time async TP hides (0..1)
 *   fused                            {"norm", "rotary", "bias_act", "swiglu",
 *                                    "dropout_residual", "cross_entropy": bool}; an op not
 *                                    fused costs the extra HBM passes and kernels that
 *                                    sim/compute derives from the layer's op list
 *   launch                           {"host_dispatch": "10 us", "kernel_latency": "3 us"}:
 *                                    CPU issue time per kernel (a pass lasts at least its
 *                                    kernels x this) and GPU-side cost per kernel (default:
 *                                    the accelerator's kernel_latency)
 *   comm_contention                  bool: overlapped collectives slow the compute beside
 *                                    them by the accelerator's overlap_slowdown
 *   optimizer                        "fused" | "foreach" | "per_tensor"
 *   tp_fp8_allgather                 bool (default false): under precision fp8 the TP
 *                                    (sequence-parallel) all-gathers of GEMM inputs move
 *                                    float8, 1 byte per element (torchtitan / torchao float8
 *                                    TP); reduce-scatters and all-reduces stay 16-bit
 *   fsdp2_copies                     bool (default false): with zero 3 every unit's
 *                                    all-gather is followed, on the compute stream, by
 *                                    FSDP2's copy-out of the gathered buffer into the
 *                                    parameters (read + write the unit, 2 x 16-bit bytes per
 *                                    parameter), and every backward unit by the copy-in of
 *                                    its 16-bit gradients into the reduce-scatter buffer in
 *                                    the reduce dtype, which the compute stream waits for
 *                                    (torch/distributed/_composable/fsdp/_fsdp_collectives.py:
 *                                    foreach_all_gather_copy_out, foreach_reduce_scatter)
 *   context_parallel                 {"rotate": "p2p" | "allgather", "repeat_kv": bool,
 *                                    "grad_dtype": "activations" | "fp32"}: how the ring
 *                                    attention of context parallelism moves K/V. Defaults
 *                                    (Megatron-Core / Transformer Engine P2P ring): one K/V
 *                                    hop per ring step at the model's K/V heads, dK/dV at the
 *                                    activations' width. "allgather": every rank's K/V in one
 *                                    all-gather issued with the first step (PyTorch
 *                                    context_parallel's default rotate method in torchtitan);
 *                                    repeat_kv: K/V carry the query heads (GQA heads repeated
 *                                    before SDPA); grad_dtype fp32: dK/dV accumulated and
 *                                    rotated in fp32 (PyTorch's convert_to_f32)
 *   zero3_blocking                   bool (default false): ZeRO-3 gathers each parameter
 *                                    tensor with its own all-gather after a device
 *                                    synchronization and reduces each tensor's gradient on
 *                                    the compute stream, with the memory passes around each,
 *                                    so none of it overlaps compute, and
 *                                    the backward re-gathers the tensors its reuse distance
 *                                    released (DeepSpeed ZeRO-3 of v0.3.13 .. v0.5.10; sim/step
 *                                    plan.c z3_blocking has the sources)
 *   zero3_grad_allreduce             bool (default false; needs zero3_blocking): the
 *                                    gradients are all-reduced whole, one all-reduce per
 *                                    5e8-element bucket in backward order, instead of
 *                                    reduce-scattered tensor by tensor (DeepSpeed v0.3.13 ..
 *                                    v0.4.2 defaults, contiguous_gradients false; sim/step
 *                                    plan.c z3_allreduce_grads has the sources)
 *   grad_reduce_dtype                "fp32" | "bf16" | "accumulation" (as fp32_grads)
 *   cross_entropy_kernel             "vocab_parallel" (default: Megatron-LM's loss in fp32:
 *                                    six passes forward (e + 40 bytes per logit), logits + fp32
 *                                    softmax held, e + 4 bytes per logit) | "xentropy" (a
 *                                    fused kernel in the logits' dtype, flash-attn
 *                                    CrossEntropyLoss: one pass each way, the logits and
 *                                    their gradient held, 2 e bytes per logit; fused, so
 *                                    fused.cross_entropy does not apply)
 *   logit_metrics                    integer 0..8 (default 0): training metrics the trainer
 *                                    computes on the logits after each microbatch's
 *                                    backward, each an eager fp32 cross-entropy over every
 *                                    logit (Composer's LanguageCrossEntropy and
 *                                    LanguagePerplexity: 2)
 *   master_weights                   "separate" (16-bit weights + fp32 master copy in the
 *                                    optimizer state; default) | "fp32_params" (parameters
 *                                    kept in fp32, cast to 16 bits on use)
 *   moe_dispatcher                   "alltoall" | "deepep" | "allgather": how MoE layers
 *                                    route tokens to their experts' ranks (Megatron-Core
 *                                    --moe-token-dispatcher-type: alltoall, flex with the
 *                                    DeepEP / HybridEP backend, allgather); default alltoall,
 *                                    Megatron-Core's default since core 0.8 (a job's
 *                                    parallel.moe_dispatcher wins)
 *   moe_a2a_overlap                  bool (default false): the dispatch / combine all-to-all
 *                                    runs behind another microbatch's compute (Megatron-Core
 *                                    overlap_moe_expert_parallel_comm, 1F1B-interleaved
 *                                    all-to-all overlap; DeepSeek-V3's DualPipe); off unless
 *                                    the stack states it (a job's parallel.moe_a2a_overlap
 *                                    wins)
 *   calibration                      {"note": text, "constants": [{"device", "compute_scale",
 *                                    "row"}]}: at most one fitted constant per device (a
 *                                    multiplier on its sustained_compute), with the one
 *                                    published row it was fitted on; a zero3_blocking
 *                                    profile may fit "zero3_comm_scale" (a multiplier on the
 *                                    bandwidth time of each ZeRO-3 collective) instead of
 *                                    compute_scale
 *   validation                       [{"device", "precision", "min_seq_len", "max_seq_len",
 *                                    "rows", "n_rows", "min_error", "max_error"}]: residual
 *                                    band of the profile's validation rows per device
 *                                    (optionally per precision and sequence-length range)
 *   max_published_mfu                [{"device", "precision", "mfu", "row"}]: the highest MFU
 *                                    published for the stack on a device, over the peak of
 *                                    that precision (a job of the same precision above it
 *                                    gets a plausibility warning)
 *
 * An attention file: name, description, source, notes, and "generations": {GEN: {"device",
 * "peak" (16-bit dense peak of the benchmark device), "seq_len" [ascending], "curves":
 * [{"head_dim", "causal", "fwd" [TFLOP/s per seq_len], "bwd" (optional)}], "notes"}}. A
 * curve without "bwd" takes the backward of the curve with the same head dim and the other
 * mask, scaled by the ratio of the two forwards (the FlashAttention-3 paper publishes
 * backward without a causal mask only).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "spec/spec_internal.h"

/* ---------------------------------------------------------------- defaults */

void ts_software_defaults(struct ts_software *sw)
{
    memset(sw, 0, sizeof *sw);
    sw->p2p_overlap = true;
    sw->dp_overlap = true;
    sw->tp_comm_overlap = false;
    sw->fp32_grads = true;
    sw->grad_accum_fusion = true;
    struct ts_sw_mech *m = &sw->mech;
    /* megatron-core's kernels: Transformer Engine prefers its cuDNN FusedAttention on sm90+
     * (configs/software/megatron-core.json); the other generations use the accelerator file's
     * flash_attention plateau. */
    for (int g = 0; g < TS_GEN_COUNT; g++)
        m->attention[g] = TS_ATTN_DEVICE;
    m->attention[TS_GEN_HOPPER] = TS_ATTN_CUDNN;
    m->tp_overlap = TS_TPO_USERBUFFERS;
    m->optimizer = TS_OPT_FUSED;
    for (int i = 0; i < TS_FUSE_COUNT; i++)
        m->fused[i] = true;
    m->contention = false;
    m->async_tp_hidden = 0.0;
    m->host_dispatch_s = 0.0;
    m->kernel_latency_s = -1.0;
    m->grad_reduce_bytes = 0;
}

/* ---------------------------------------------------------------- profile parser */

static const char *const sw_keys[] = {
    "name", "description", "source", "notes", "attention", "p2p_overlap", "dp_overlap",
    "tp_comm_overlap", "fp32_grads", "grad_accum_fusion", "tp_overlap", "async_tp_hidden",
    "fused", "launch", "comm_contention", "optimizer", "grad_reduce_dtype", "master_weights",
    "cross_entropy_kernel", "logit_metrics", "calibration", "moe_dispatcher", "moe_a2a_overlap",
    "validation", "max_published_mfu", "tp_fp8_allgather", "fsdp2_copies",
    "context_parallel", "zero3_blocking", "zero3_grad_allreduce", NULL,
};
static const char *const cp_keys[] = {"rotate", "repeat_kv", "grad_dtype", NULL};
static const char *const launch_keys[] = {"host_dispatch", "kernel_latency", NULL};
static const char *const cal_keys[] = {"note", "constants", NULL};
static const char *const const_keys[] = {"device", "compute_scale", "zero3_comm_scale", "row",
                                         NULL};
static const char *const band_keys[] = {"device", "precision", "min_seq_len", "max_seq_len",
                                        "rows", "n_rows", "min_error", "max_error", NULL};
static const char *const mfu_keys[] = {"device", "precision", "mfu", "row", NULL};

/* A kernel name a profile may use for "flash" (any fused kernel or "standard"). */
static int parse_kernel(const struct ts_jnode *n, uint8_t *out, struct ts_err *err)
{
    if (!cJSON_IsString(n->json))
        return ts_err_at(err, n->file, n->path, "expected a kernel name (\"fa2\", \"fa3\", "
                         "\"cudnn\", \"triton\", \"triton-2022\", \"xla\", \"fa1\", "
                         "\"standard\", \"device\")");
    for (int i = 0; i < TS_ATTN_COUNT; i++)
        if (i != TS_ATTN_FLASH && strcmp(n->json->valuestring, ts_attention_names[i]) == 0) {
            *out = (uint8_t)i;
            return TS_OK;
        }
    return ts_err_at(err, n->file, n->path, "\"%s\" is not an attention kernel; use one of "
                     "\"standard\", \"fa1\", \"fa2\", \"fa3\", \"cudnn\", \"triton\", "
                     "\"triton-2022\", \"xla\", \"device\"", n->json->valuestring);
}

static int parse_attention(const struct ts_jnode *n, struct ts_sw_mech *m, struct ts_err *err)
{
    int rc;
    if (cJSON_IsString(n->json)) {
        uint8_t k;
        if ((rc = parse_kernel(n, &k, err)))
            return rc;
        for (int g = 0; g < TS_GEN_COUNT; g++)
            m->attention[g] = k;
        return TS_OK;
    }
    if (!cJSON_IsObject(n->json))
        return ts_err_at(err, n->file, n->path, "expected a kernel name or an object by "
                         "generation, e.g. {\"ampere\": \"fa2\", \"hopper\": \"fa3\"}");
    const char *keys[TS_GEN_COUNT + 1];
    for (int g = 0; g < TS_GEN_COUNT; g++)
        keys[g] = ts_generation_names[g];
    keys[TS_GEN_COUNT] = NULL;
    if ((rc = ts_jnode_check_keys(n, keys, err)))
        return rc;
    for (int g = 0; g < TS_GEN_COUNT; g++) {
        struct ts_jnode c;
        if (ts_jnode_child(n, ts_generation_names[g], &c) &&
            (rc = parse_kernel(&c, &m->attention[g], err)))
            return rc;
        if (m->attention[g] == TS_ATTN_FA3 && g != TS_GEN_HOPPER) {
            ts_jnode_child(n, ts_generation_names[g], &c);
            return ts_err_at(err, c.file, c.path, "FlashAttention-3 runs only on Hopper "
                             "(sm90); choose \"fa2\" or \"cudnn\" for %s",
                             ts_generation_names[g]);
        }
    }
    return TS_OK;
}

static int parse_string_item(const struct ts_jnode *n, const char *key, char *buf, size_t size,
                             struct ts_err *err)
{
    return ts_jnode_get_string(n, key, TS_REQUIRED, buf, size, err);
}

static int parse_list(const struct ts_jnode *parent, const char *key, int max, struct ts_err *err,
                      int (*item)(const struct ts_jnode *, int, void *, struct ts_err *), void *ctx,
                      int *count)
{
    struct ts_jnode n;
    *count = 0;
    if (!ts_jnode_child(parent, key, &n))
        return TS_OK;
    int rc = ts_jnode_expect_array(&n, err);
    if (rc)
        return rc;
    int len = cJSON_GetArraySize(n.json);
    if (len > max)
        return ts_err_at(err, n.file, n.path, "at most %d entries, got %d", max, len);
    for (int i = 0; i < len; i++) {
        struct ts_jnode it = ts_jnode_item(&n, i);
        if ((rc = ts_jnode_expect_object(&it, err)) || (rc = item(&it, i, ctx, err)))
            return rc;
    }
    *count = len;
    return TS_OK;
}

static int cal_item(const struct ts_jnode *it, int i, void *ctx, struct ts_err *err)
{
    struct ts_sw_mech *m = ctx;
    char row[TS_SW_ROW_MAX];
    int rc;
    m->cal_scale[i] = 1.0;
    m->cal_z3_scale[i] = 1.0;
    struct ts_jnode tmp;
    bool z3 = ts_jnode_child(it, "zero3_comm_scale", &tmp);
    if ((rc = ts_jnode_check_keys(it, const_keys, err)) ||
        (rc = parse_string_item(it, "device", m->cal_device[i], sizeof m->cal_device[i], err)) ||
        (rc = ts_jnode_get_quantity(it, "compute_scale", z3 ? TS_OPTIONAL : TS_REQUIRED,
                                    TS_DIM_NUMBER, 0.05, 2.0, &m->cal_scale[i], err)) ||
        (rc = ts_jnode_get_quantity(it, "zero3_comm_scale", TS_OPTIONAL, TS_DIM_NUMBER, 0.05,
                                    20.0, &m->cal_z3_scale[i], err)) ||
        (rc = parse_string_item(it, "row", row, sizeof row, err)))
        return rc;
    if (z3 && ts_jnode_child(it, "compute_scale", &tmp))
        return ts_err_at(err, it->file, it->path, "both compute_scale and zero3_comm_scale; at "
                         "most one fitted constant per (profile, device): keep one");
    if (z3 && !m->zero3_blocking)
        return ts_err_at(err, it->file, it->path, "zero3_comm_scale needs \"zero3_blocking\": "
                         "true in the profile (it scales those collectives only)");
    for (int j = 0; j < i; j++)
        if (strcmp(m->cal_device[j], m->cal_device[i]) == 0)
            return ts_err_at(err, it->file, it->path, "a second constant for %s; at most one "
                             "fitted constant per (profile, device)", m->cal_device[i]);
    return TS_OK;
}

static int band_item(const struct ts_jnode *it, int i, void *ctx, struct ts_err *err)
{
    struct ts_sw_band *b = &((struct ts_software *)ctx)->bands[i];
    int rc;
    b->precision = -1;
    if ((rc = ts_jnode_check_keys(it, band_keys, err)) ||
        (rc = parse_string_item(it, "device", b->device, sizeof b->device, err)) ||
        (rc = ts_jnode_get_enum(it, "precision", TS_OPTIONAL, ts_precision_names, TS_PREC_COUNT,
                                &b->precision, err)) ||
        (rc = ts_jnode_get_int(it, "min_seq_len", TS_OPTIONAL, 1, 1 << 30, &b->min_seq_len,
                               err)) ||
        (rc = ts_jnode_get_int(it, "max_seq_len", TS_OPTIONAL, 1, 1 << 30, &b->max_seq_len,
                               err)) ||
        (rc = parse_string_item(it, "rows", b->rows, sizeof b->rows, err)) ||
        (rc = ts_jnode_get_int(it, "n_rows", TS_REQUIRED, 1, 100000, &b->n_rows, err)) ||
        (rc = ts_jnode_get_quantity(it, "min_error", TS_REQUIRED, TS_DIM_NUMBER, -1.0, 10.0,
                                    &b->min_error, err)) ||
        (rc = ts_jnode_get_quantity(it, "max_error", TS_REQUIRED, TS_DIM_NUMBER, -1.0, 10.0,
                                    &b->max_error, err)))
        return rc;
    bool ranged = b->min_seq_len > 0 || b->max_seq_len > 0;
    if (ranged && b->max_seq_len == 0)
        b->max_seq_len = 1 << 30;
    if (ranged && b->max_seq_len < b->min_seq_len)
        return ts_err_at(err, it->file, it->path, "max_seq_len %d is below min_seq_len %d",
                         b->max_seq_len, b->min_seq_len);
    const struct ts_software *sw = ctx;
    for (int j = 0; j < i; j++) {
        const struct ts_sw_band *o = &sw->bands[j];
        bool o_ranged = o->max_seq_len > 0;
        /* two bands of one device and precision must not claim the same lengths: both
         * without a range, or with overlapping ranges */
        bool overlap = ranged == o_ranged &&
                       (!ranged || (b->min_seq_len <= o->max_seq_len &&
                                    o->min_seq_len <= b->max_seq_len));
        if (strcmp(o->device, b->device) == 0 && o->precision == b->precision && overlap)
            return ts_err_at(err, it->file, it->path, "a second band for %s%s%s%s; one per "
                             "device, precision and sequence-length range", b->device,
                             b->precision >= 0 ? " in " : "",
                             b->precision >= 0 ? ts_precision_names[b->precision] : "",
                             ranged ? " over an overlapping sequence-length range" : "");
    }
    if (b->max_error < b->min_error)
        return ts_err_at(err, it->file, it->path, "max_error %g is below min_error %g",
                         b->max_error, b->min_error);
    return TS_OK;
}

const struct ts_sw_band *ts_software_band(const struct ts_software *sw, const char *device,
                                          int precision, int seq_len)
{
    const struct ts_sw_band *best = NULL;
    int best_rank = -1;
    for (int i = 0; i < sw->n_bands; i++) {
        const struct ts_sw_band *b = &sw->bands[i];
        bool ranged = b->max_seq_len > 0;
        if (strcmp(b->device, device) != 0 || (b->precision >= 0 && b->precision != precision) ||
            (ranged && (seq_len < b->min_seq_len || seq_len > b->max_seq_len)))
            continue;
        int rank = (b->precision >= 0 ? 2 : 0) + (ranged ? 1 : 0);
        if (rank > best_rank) {
            best = b;
            best_rank = rank;
        }
    }
    return best;
}

static int mfu_item(const struct ts_jnode *it, int i, void *ctx, struct ts_err *err)
{
    struct ts_sw_mfu *f = &((struct ts_software *)ctx)->max_mfu[i];
    int rc;
    if ((rc = ts_jnode_check_keys(it, mfu_keys, err)) ||
        (rc = parse_string_item(it, "device", f->device, sizeof f->device, err)) ||
        (rc = ts_jnode_get_enum(it, "precision", TS_REQUIRED, ts_precision_names, TS_PREC_COUNT,
                                &f->precision, err)) ||
        (rc = ts_jnode_get_quantity(it, "mfu", TS_REQUIRED, TS_DIM_NUMBER, 0.001, 1.0, &f->mfu,
                                    err)) ||
        (rc = parse_string_item(it, "row", f->row, sizeof f->row, err)))
        return rc;
    return TS_OK;
}

int ts_software_parse(const struct ts_jnode *node, struct ts_software *sw, struct ts_err *err)
{
    int rc;
    ts_software_defaults(sw);
    struct ts_sw_mech *m = &sw->mech;
    if ((rc = ts_jnode_expect_object(node, err)) || (rc = ts_jnode_check_keys(node, sw_keys, err)))
        return rc;
    if ((rc = ts_jnode_get_string(node, "name", TS_REQUIRED, sw->name, sizeof sw->name, err)) ||
        (rc = ts_jnode_get_string(node, "description", TS_REQUIRED, sw->description,
                                  sizeof sw->description, err)) ||
        (rc = ts_jnode_get_string(node, "source", TS_REQUIRED, sw->source, sizeof sw->source,
                                  err)) ||
        (rc = ts_jnode_get_bool(node, "p2p_overlap", TS_OPTIONAL, &sw->p2p_overlap, err)) ||
        (rc = ts_jnode_get_bool(node, "dp_overlap", TS_OPTIONAL, &sw->dp_overlap, err)) ||
        (rc = ts_jnode_get_bool(node, "tp_comm_overlap", TS_OPTIONAL, &sw->tp_comm_overlap, err)) ||
        (rc = ts_jnode_get_bool(node, "fp32_grads", TS_OPTIONAL, &sw->fp32_grads, err)) ||
        (rc = ts_jnode_get_bool(node, "grad_accum_fusion", TS_OPTIONAL, &sw->grad_accum_fusion,
                                err)) ||
        (rc = ts_jnode_get_bool(node, "comm_contention", TS_OPTIONAL, &m->contention, err)) ||
        (rc = ts_jnode_get_bool(node, "tp_fp8_allgather", TS_OPTIONAL, &m->tp_fp8_allgather,
                                err)) ||
        (rc = ts_jnode_get_bool(node, "fsdp2_copies", TS_OPTIONAL, &m->fsdp2_copies, err)) ||
        (rc = ts_jnode_get_bool(node, "zero3_blocking", TS_OPTIONAL, &m->zero3_blocking,
                                err)) ||
        (rc = ts_jnode_get_bool(node, "zero3_grad_allreduce", TS_OPTIONAL,
                                &m->zero3_grad_allreduce, err)) ||
        (rc = ts_jnode_get_quantity(node, "async_tp_hidden", TS_OPTIONAL, TS_DIM_NUMBER, 0.0, 1.0,
                                    &m->async_tp_hidden, err)) ||
        (rc = ts_jnode_get_int(node, "logit_metrics", TS_OPTIONAL, 0, 8, &m->logit_metrics, err)) ||
        (rc = ts_jnode_get_bool(node, "moe_a2a_overlap", TS_OPTIONAL, &sw->moe_a2a_overlap, err)))
        return rc;
    struct ts_jnode z3ar;
    if (m->zero3_grad_allreduce && !m->zero3_blocking &&
        ts_jnode_child(node, "zero3_grad_allreduce", &z3ar))
        return ts_err_at(err, z3ar.file, z3ar.path, "zero3_grad_allreduce needs "
                         "\"zero3_blocking\": true (it changes that path's gradient reduction "
                         "only)");
    int disp = sw->moe_dispatcher;
    if ((rc = ts_jnode_get_enum(node, "moe_dispatcher", TS_OPTIONAL, ts_moe_dispatcher_names,
                                TS_MOE_DISPATCHER_COUNT, &disp, err)))
        return rc;
    sw->moe_dispatcher = (uint8_t)disp;
    int tpo = m->tp_overlap, opt = m->optimizer, red = 2, master = 0, ce = 0;
    static const char *const red_names[] = {"fp32", "bf16", "accumulation"};
    static const char *const master_names[] = {"separate", "fp32_params"};
    static const char *const ce_names[] = {"vocab_parallel", "xentropy"};
    if ((rc = ts_jnode_get_enum(node, "tp_overlap", TS_OPTIONAL, ts_tp_overlap_names,
                                TS_TPO_COUNT, &tpo, err)) ||
        (rc = ts_jnode_get_enum(node, "optimizer", TS_OPTIONAL, ts_optimizer_impl_names,
                                TS_OPT_COUNT, &opt, err)) ||
        (rc = ts_jnode_get_enum(node, "grad_reduce_dtype", TS_OPTIONAL, red_names, 3, &red, err)) ||
        (rc = ts_jnode_get_enum(node, "master_weights", TS_OPTIONAL, master_names, 2, &master, err)) ||
        (rc = ts_jnode_get_enum(node, "cross_entropy_kernel", TS_OPTIONAL, ce_names, 2, &ce, err)))
        return rc;
    m->xentropy = ce == 1;
    m->fp32_params = master == 1;
    m->tp_overlap = (uint8_t)tpo;
    m->optimizer = (uint8_t)opt;
    m->grad_reduce_bytes = red == 0 ? 4 : red == 1 ? 2 : 0;

    struct ts_jnode c;
    if (ts_jnode_child(node, "attention", &c) && (rc = parse_attention(&c, m, err)))
        return rc;
    if (ts_jnode_child(node, "fused", &c)) {
        const char *keys[TS_FUSE_COUNT + 1];
        for (int i = 0; i < TS_FUSE_COUNT; i++)
            keys[i] = ts_fuse_names[i];
        keys[TS_FUSE_COUNT] = NULL;
        if ((rc = ts_jnode_expect_object(&c, err)) || (rc = ts_jnode_check_keys(&c, keys, err)))
            return rc;
        for (int i = 0; i < TS_FUSE_COUNT; i++)
            if ((rc = ts_jnode_get_bool(&c, ts_fuse_names[i], TS_OPTIONAL, &m->fused[i], err)))
                return rc;
    }
    if (ts_jnode_child(node, "context_parallel", &c)) {
        static const char *const rotate_names[] = {"p2p", "allgather"};
        static const char *const grad_names[] = {"activations", "fp32"};
        int rot = 0, grad = 0;
        if ((rc = ts_jnode_expect_object(&c, err)) || (rc = ts_jnode_check_keys(&c, cp_keys, err)) ||
            (rc = ts_jnode_get_enum(&c, "rotate", TS_OPTIONAL, rotate_names, 2, &rot, err)) ||
            (rc = ts_jnode_get_bool(&c, "repeat_kv", TS_OPTIONAL, &m->cp_repeat_kv, err)) ||
            (rc = ts_jnode_get_enum(&c, "grad_dtype", TS_OPTIONAL, grad_names, 2, &grad, err)))
            return rc;
        m->cp_allgather = rot == 1;
        m->cp_grad_bytes = grad == 1 ? 4 : 0;
    }
    if (ts_jnode_child(node, "launch", &c)) {
        if ((rc = ts_jnode_expect_object(&c, err)) || (rc = ts_jnode_check_keys(&c, launch_keys, err)) ||
            (rc = ts_jnode_get_quantity(&c, "host_dispatch", TS_OPTIONAL, TS_DIM_SECONDS, 0.0,
                                        1e-3, &m->host_dispatch_s, err)) ||
            (rc = ts_jnode_get_quantity(&c, "kernel_latency", TS_OPTIONAL, TS_DIM_SECONDS, 0.0,
                                        1e-3, &m->kernel_latency_s, err)))
            return rc;
    }
    if (ts_jnode_child(node, "calibration", &c)) {
        if ((rc = ts_jnode_expect_object(&c, err)) || (rc = ts_jnode_check_keys(&c, cal_keys, err)) ||
            (rc = ts_jnode_get_string(&c, "note", TS_REQUIRED, sw->calibration_note,
                                      sizeof sw->calibration_note, err)) ||
            (rc = parse_list(&c, "constants", TS_SW_CAL_MAX, err, cal_item, m, &m->n_cal)))
            return rc;
    }
    if ((rc = parse_list(node, "validation", TS_SW_BANDS_MAX, err, band_item, sw, &sw->n_bands)) ||
        (rc = parse_list(node, "max_published_mfu", TS_SW_BANDS_MAX, err, mfu_item, sw, &sw->n_mfu)))
        return rc;
    return TS_OK;
}

static int parse_software_any(const struct ts_jnode *n, void *out, struct ts_err *err)
{
    return ts_software_parse(n, out, err);
}

int ts_software_parse_ref(const struct ts_jnode *node, struct ts_software *out, struct ts_err *err)
{
    return ts__spec_parse_ref(node, TS_CAT_SOFTWARE, parse_software_any, out, err);
}

int ts_software_load(const char *ref, struct ts_software *out, struct ts_err *err)
{
    return ts__spec_load_ref(TS_CAT_SOFTWARE, ref, parse_software_any, out, err);
}

void ts_software_apply(const struct ts_software *sw, struct ts_parallel *p)
{
    p->sw = sw->mech;
    if (!(p->given & (1u << TS_PKEY_P2P_OVERLAP)))
        p->p2p_overlap = sw->p2p_overlap;
    if (!(p->given & (1u << TS_PKEY_DP_OVERLAP)))
        p->dp_overlap = sw->dp_overlap;
    if (!(p->given & (1u << TS_PKEY_TP_COMM_OVERLAP)))
        p->tp_comm_overlap = sw->tp_comm_overlap;
    if (!(p->given & (1u << TS_PKEY_FP32_GRADS)))
        p->fp32_grads = sw->fp32_grads;
    if (!(p->given & (1u << TS_PKEY_GRAD_ACCUM_FUSION)))
        p->grad_accum_fusion = sw->grad_accum_fusion;
    if (!(p->given & (1u << TS_PKEY_MOE_DISPATCHER)))
        p->moe_dispatcher = sw->moe_dispatcher;
    if (!(p->given & (1u << TS_PKEY_MOE_A2A_OVERLAP)))
        p->moe_a2a_overlap = sw->moe_a2a_overlap;
    if (p->given & (1u << TS_PKEY_GRAD_REDUCE_DTYPE))
        p->sw.grad_reduce_bytes = p->grad_reduce_bytes;
    /* An attention setting the job did not give means the profile's kernel. */
    if (!(p->given & (1u << TS_PKEY_ATTENTION)))
        p->attention = TS_ATTN_FLASH;
}

enum ts_attention ts_attention_resolve(const struct ts_parallel *p, enum ts_generation gen)
{
    if (p->attention == TS_ATTN_FLASH)
        return (enum ts_attention)p->sw.attention[gen];
    return p->attention;
}

int ts_attention_check(const struct ts_parallel *p, const struct ts_accel *a, const char *file,
                       struct ts_err *err)
{
    enum ts_attention k = ts_attention_resolve(p, a->generation);
    if (k == TS_ATTN_FA3 && a->generation != TS_GEN_HOPPER) {
        const char *why = a->generation_given ? ts_generation_names[a->generation]
                                              : "of unknown generation (its file has no "
                                                "\"generation\")";
        if (p->attention == TS_ATTN_FLASH)
            return ts_err_at(err, file, "parallel.attention",
                             "the software profile's kernel is FlashAttention-3, which runs only "
                             "on Hopper, and %s is %s; give \"attention\": \"fa2\" or \"cudnn\"",
                             a->name, why);
        return ts_err_at(err, file, "parallel.attention",
                         "\"fa3\" (FlashAttention-3) runs only on Hopper GPUs, and %s is %s; use "
                         "\"fa2\", \"cudnn\" or \"flash\"", a->name, why);
    }
    return TS_OK;
}

/* ---------------------------------------------------------------- attention tables */

static const char *const attn_file_keys[] = {"name", "description", "source", "notes",
                                             "generations", NULL};
static const char *const gen_keys[] = {"device", "peak", "seq_len", "curves", "notes", NULL};
static const char *const curve_keys[] = {"head_dim", "causal", "fwd", "bwd", NULL};

static int number_array(const struct ts_jnode *parent, const char *key, int want, double lo,
                        double hi, double *out, struct ts_err *err)
{
    struct ts_jnode n;
    if (!ts_jnode_child(parent, key, &n))
        return ts_err_at(err, parent->file, n.path, "required key is missing");
    int rc = ts_jnode_expect_array(&n, err);
    if (rc)
        return rc;
    int len = cJSON_GetArraySize(n.json);
    if (len != want)
        return ts_err_at(err, n.file, n.path, "expected %d numbers (one per seq_len), got %d",
                         want, len);
    for (int i = 0; i < len; i++) {
        struct ts_jnode it = ts_jnode_item(&n, i);
        if ((rc = ts_jnode_to_quantity(&it, TS_DIM_NUMBER, lo, hi, &out[i], err)))
            return rc;
    }
    return TS_OK;
}

/* Parse the block of generation `gen` of an attention file into *k (absent: not present). */
static int parse_attn_generation(const struct ts_jnode *root, enum ts_generation gen,
                                 struct ts_attn_kernel *k, struct ts_err *err)
{
    int rc;
    memset(k, 0, sizeof *k);
    if ((rc = ts_jnode_check_keys(root, attn_file_keys, err)))
        return rc;
    struct ts_jnode gens, g;
    if (!ts_jnode_child(root, "generations", &gens))
        return ts_err_at(err, root->file, gens.path, "required key is missing");
    const char *keys[TS_GEN_COUNT + 1];
    for (int i = 0; i < TS_GEN_COUNT; i++)
        keys[i] = ts_generation_names[i];
    keys[TS_GEN_COUNT] = NULL;
    if ((rc = ts_jnode_expect_object(&gens, err)) || (rc = ts_jnode_check_keys(&gens, keys, err)))
        return rc;
    if (!ts_jnode_child(&gens, ts_generation_names[gen], &g))
        return TS_OK;
    if ((rc = ts_jnode_check_keys(&g, gen_keys, err)) ||
        (rc = ts_jnode_get_quantity(&g, "peak", TS_REQUIRED, TS_DIM_FLOPS_PER_S, 1e9, 1e19,
                                    &k->peak_flops, err)))
        return rc;
    struct ts_jnode sl, cv;
    if (!ts_jnode_child(&g, "seq_len", &sl))
        return ts_err_at(err, g.file, sl.path, "required key is missing");
    if ((rc = ts_jnode_expect_array(&sl, err)))
        return rc;
    k->n_seq = cJSON_GetArraySize(sl.json);
    if (k->n_seq < 1 || k->n_seq > TS_ATTN_SEQ_MAX)
        return ts_err_at(err, sl.file, sl.path, "1 to %d sequence lengths, got %d",
                         TS_ATTN_SEQ_MAX, k->n_seq);
    if ((rc = number_array(&g, "seq_len", k->n_seq, 1.0, 1e8, k->seq, err)))
        return rc;
    for (int i = 1; i < k->n_seq; i++)
        if (k->seq[i] <= k->seq[i - 1])
            return ts_err_at(err, sl.file, sl.path, "sequence lengths must ascend");
    for (int i = 0; i < k->n_seq; i++)
        k->log_seq[i] = log(k->seq[i]);
    if (!ts_jnode_child(&g, "curves", &cv))
        return ts_err_at(err, g.file, cv.path, "required key is missing");
    if ((rc = ts_jnode_expect_array(&cv, err)))
        return rc;
    k->n_curves = cJSON_GetArraySize(cv.json);
    if (k->n_curves < 1 || k->n_curves > TS_ATTN_CURVES_MAX)
        return ts_err_at(err, cv.file, cv.path, "1 to %d curves, got %d", TS_ATTN_CURVES_MAX,
                         k->n_curves);
    for (int i = 0; i < k->n_curves; i++) {
        struct ts_jnode it = ts_jnode_item(&cv, i);
        struct ts_attn_curve *c = &k->curves[i];
        if ((rc = ts_jnode_expect_object(&it, err)) || (rc = ts_jnode_check_keys(&it, curve_keys, err)) ||
            (rc = ts_jnode_get_int(&it, "head_dim", TS_REQUIRED, 1, 1024, &c->head_dim, err)) ||
            (rc = ts_jnode_get_bool(&it, "causal", TS_REQUIRED, &c->causal, err)) ||
            (rc = number_array(&it, "fwd", k->n_seq, 0.01, 1e5, c->fwd, err)))
            return rc;
        c->has_bwd = cJSON_GetObjectItemCaseSensitive(it.json, "bwd") != NULL;
        if (c->has_bwd && (rc = number_array(&it, "bwd", k->n_seq, 0.01, 1e5, c->bwd, err)))
            return rc;
        for (int j = 0; j < i; j++)
            if (k->curves[j].head_dim == c->head_dim && k->curves[j].causal == c->causal)
                return ts_err_at(err, it.file, it.path, "a second curve for head_dim %d, causal %s",
                                 c->head_dim, c->causal ? "true" : "false");
    }
    /* Backward of a setting without one: the other mask's backward times the forward ratio. */
    for (int i = 0; i < k->n_curves; i++) {
        struct ts_attn_curve *c = &k->curves[i];
        if (c->has_bwd)
            continue;
        const struct ts_attn_curve *o = NULL;
        for (int j = 0; j < k->n_curves; j++)
            if (j != i && k->curves[j].has_bwd && k->curves[j].head_dim == c->head_dim)
                o = &k->curves[j];
        if (!o) {
            struct ts_jnode it = ts_jnode_item(&cv, i);
            return ts_err_at(err, it.file, it.path, "no \"bwd\", and no curve of head_dim %d with "
                             "one to derive it from", c->head_dim);
        }
        for (int s = 0; s < k->n_seq; s++)
            c->bwd[s] = o->bwd[s] * c->fwd[s] / o->fwd[s];
    }
    k->present = true;
    return TS_OK;
}

struct attn_ctx {
    enum ts_generation gen;
    struct ts_attn_kernel *k;
};

static int parse_attn_any(const struct ts_jnode *n, void *out, struct ts_err *err)
{
    struct attn_ctx *c = out;
    return parse_attn_generation(n, c->gen, c->k, err);
}

/* Load the tables of every fused kernel for the accelerator's generation. Kernels without a
 * file in the catalogue (or without a block for the generation) stay absent. */
int ts__attention_tables_load(struct ts_accel *a, struct ts_inputs *inputs, struct ts_err *err)
{
    memset(a->attn, 0, sizeof a->attn);
    if (a->generation == TS_GEN_UNKNOWN || a->generation == TS_GEN_CPU)
        return TS_OK;
    for (int k = TS_ATTN_FA1; k <= TS_ATTN_XLA; k++) {
        char path[2048];
        struct ts_err inner;
        if (ts_spec_resolve(TS_CAT_ATTENTION, ts_attention_names[k], NULL, path, sizeof path,
                            &inner))
            continue;
        struct attn_ctx c = {a->generation, &a->attn[k]};
        int rc = ts__spec_load_file(path, inputs, parse_attn_any, &c, err);
        if (rc)
            return rc;
    }
    return TS_OK;
}

/* Linear interpolation of y over x at v, clamped to the ends. */
static double interp(const double *x, const double *y, int n, double v)
{
    if (n == 1 || v <= x[0])
        return y[0];
    if (v >= x[n - 1])
        return y[n - 1];
    int i = 1;
    while (x[i] < v)
        i++;
    double t = (v - x[i - 1]) / (x[i] - x[i - 1]);
    return y[i - 1] + t * (y[i] - y[i - 1]);
}

/* TFLOP/s of one curve at `seq` (linear in log seq). */
static double curve_at(const struct ts_attn_kernel *k, const struct ts_attn_curve *c, double seq,
                       bool bwd)
{
    return interp(k->log_seq, bwd ? c->bwd : c->fwd, k->n_seq, log(seq));
}

double ts_attn_efficiency(const struct ts_accel *a, enum ts_attention kind, double seq,
                          int head_dim, bool causal, bool bwd)
{
    const struct ts_attn_kernel *k = kind >= 0 && kind < TS_ATTN_COUNT ? &a->attn[kind] : NULL;
    if (!k || !k->present || kind == TS_ATTN_DEVICE)
        return bwd ? a->flash_bwd_efficiency : a->flash_fwd_efficiency;
    /* Curves with the wanted mask (else all), bracketing the head dim. */
    const struct ts_attn_curve *lo = NULL, *hi = NULL;
    for (int pass = 0; pass < 2 && !lo && !hi; pass++)
        for (int i = 0; i < k->n_curves; i++) {
            const struct ts_attn_curve *c = &k->curves[i];
            if (pass == 0 && c->causal != causal)
                continue;
            if (c->head_dim <= head_dim && (!lo || c->head_dim > lo->head_dim))
                lo = c;
            if (c->head_dim >= head_dim && (!hi || c->head_dim < hi->head_dim))
                hi = c;
        }
    if (!lo)
        lo = hi;
    if (!hi)
        hi = lo;
    double t_lo = curve_at(k, lo, seq, bwd), t_hi = curve_at(k, hi, seq, bwd);
    double tf = t_lo;
    if (hi->head_dim != lo->head_dim)
        tf = t_lo + (t_hi - t_lo) * (head_dim - lo->head_dim) / (double)(hi->head_dim - lo->head_dim);
    double eff = tf * 1e12 / k->peak_flops;
    /* The tables count backward as 2.5x forward FLOPs (5 matmuls to 2); trainsim as 2x. */
    if (bwd)
        eff *= 2.0 / 2.5;
    return fmin(eff, 1.0);
}
