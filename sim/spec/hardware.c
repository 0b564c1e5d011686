/*
 * Accelerator and system files.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "spec/spec_internal.h"

/* ---------------------------------------------------------------- GEMM curves */

static const char *const point_keys[] = {"flops", "m", "n", "k", "efficiency", NULL};

/* One curve point: [flops, efficiency], {"flops", "efficiency"} or {"m","n","k","efficiency"}. */
static int parse_point(const struct ts_jnode *pt, double *flops, double *eff, struct ts_err *err)
{
    int rc;
    if (cJSON_IsArray(pt->json)) {
        if (cJSON_GetArraySize(pt->json) != 2)
            return ts_err_at(err, pt->file, pt->path,
                             "a curve point is [FLOPs, efficiency] (two numbers)");
        struct ts_jnode a = ts_jnode_item(pt, 0), b = ts_jnode_item(pt, 1);
        if ((rc = ts_jnode_to_quantity(&a, TS_DIM_NUMBER, 1.0, 1e21, flops, err)) ||
            (rc = ts_jnode_to_quantity(&b, TS_DIM_NUMBER, 1e-6, 1.0, eff, err)))
            return rc;
        return TS_OK;
    }
    if ((rc = ts_jnode_check_keys(pt, point_keys, err)))
        return rc;
    struct ts_jnode c;
    if ((rc = ts_jnode_get_quantity(pt, "efficiency", TS_REQUIRED, TS_DIM_NUMBER, 1e-6, 1.0, eff,
                                    err)))
        return rc;
    if (ts_jnode_child(pt, "flops", &c))
        return ts_jnode_to_quantity(&c, TS_DIM_NUMBER, 1.0, 1e21, flops, err);
    double m = 0, n = 0, k = 0;
    if ((rc = ts_jnode_get_quantity(pt, "m", TS_REQUIRED, TS_DIM_NUMBER, 1, 1e7, &m, err)) ||
        (rc = ts_jnode_get_quantity(pt, "n", TS_REQUIRED, TS_DIM_NUMBER, 1, 1e7, &n, err)) ||
        (rc = ts_jnode_get_quantity(pt, "k", TS_REQUIRED, TS_DIM_NUMBER, 1, 1e7, &k, err)))
        return rc;
    *flops = 2.0 * m * n * k;
    return TS_OK;
}

struct point {
    double flops, eff;
    int count;
};

static int cmp_point(const void *a, const void *b)
{
    double x = ((const struct point *)a)->flops, y = ((const struct point *)b)->flops;
    return (x > y) - (x < y);
}

static int parse_curve(const struct ts_jnode *node, struct ts_gemm_curve *c, struct ts_err *err)
{
    int rc = ts_jnode_expect_array(node, err);
    if (rc)
        return rc;
    int n = cJSON_GetArraySize(node->json);
    if (n < 1 || n > 4 * TS_CURVE_POINTS_MAX)
        return ts_err_at(err, node->file, node->path, "a curve needs 1 to %d points, got %d",
                         4 * TS_CURVE_POINTS_MAX, n);
    struct point pts[4 * TS_CURVE_POINTS_MAX];
    for (int i = 0; i < n; i++) {
        struct ts_jnode pt = ts_jnode_item(node, i);
        if ((rc = parse_point(&pt, &pts[i].flops, &pts[i].eff, err)))
            return rc;
        pts[i].count = 1;
    }
    qsort(pts, (size_t)n, sizeof pts[0], cmp_point);
    /* Points measured at the same size are averaged. */
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0 && pts[m - 1].flops == pts[i].flops) {
            pts[m - 1].eff += pts[i].eff;
            pts[m - 1].count++;
        } else
            pts[m++] = pts[i];
    }
    if (m > TS_CURVE_POINTS_MAX)
        return ts_err_at(err, node->file, node->path,
                         "a curve has at most %d distinct sizes, got %d", TS_CURVE_POINTS_MAX, m);
    memset(c, 0, sizeof *c);
    c->n = m;
    for (int i = 0; i < m; i++) {
        c->flops[i] = pts[i].flops;
        c->efficiency[i] = pts[i].eff / pts[i].count;
    }
    struct ts_err inner;
    if (ts_gemm_curve_fit(c, &inner))
        return ts_err_at(err, node->file, node->path, "%s", inner.msg);
    return TS_OK;
}

/* ---------------------------------------------------------------- accelerator */

/* A GEMM curve for a part without a measured one: e(F) = top F / (F + P t0), the best
 * achievable fraction `top` of the part's class approached as a GEMM of F FLOPs outgrows a
 * fixed cost t0 of P t0 FLOPs. top = the Maximum Achievable Matmul FLOPS fraction measured on
 * the class's reference part (stas00/ml-engineering compute/accelerator README, MAMF table, as
 * hardware/README.md lists it): Ampere A100 SXM 0.869, Hopper H100 SXM 0.803, Blackwell B200
 * 0.776, CDNA3 MI300X 0.514; parts of unknown class 0.75 (assumed, about the NVIDIA
 * median). t0 = 5 us: the H100 SXM curve's smallest point (256^3 at 0.68% of 989 TFLOP/s
 * takes 5.0 us; hardware/accelerators/h100-sxm.json). The same curve serves every precision.
 * The file is flagged (gemm_derived) and run output says the curve is unvalidated. */
static void derive_gemm_curve(struct ts_accel *a)
{
    static const double top_by_gen[TS_GEN_COUNT] = {
        [TS_GEN_AMPERE] = 0.869, [TS_GEN_HOPPER] = 0.803, [TS_GEN_BLACKWELL] = 0.776,
        [TS_GEN_CDNA3] = 0.514, [TS_GEN_CPU] = 0.75, [TS_GEN_UNKNOWN] = 0.75,
    };
    const double t0 = 5e-6;
    double top = top_by_gen[a->generation];
    double peak = a->peak_flops[TS_PREC_BF16] > 0 ? a->peak_flops[TS_PREC_BF16] : 0.0;
    for (int p = 0; peak == 0.0 && p < TS_PREC_COUNT; p++)
        peak = a->peak_flops[p];
    struct ts_gemm_curve *c = &a->gemm[TS_PREC_BF16];
    memset(c, 0, sizeof *c);
    for (double lf = 6.0; lf <= 14.0 + 1e-9; lf += 0.5) {
        double f = pow(10.0, lf);
        c->flops[c->n] = f;
        c->efficiency[c->n] = top * f / (f + peak * t0);
        c->n++;
    }
    struct ts_err inner;
    int rc = ts_gemm_curve_fit(c, &inner);
    TS_ASSERT(rc == TS_OK, "derived GEMM curve: %s", inner.msg);
    a->gemm_derived = true;
}

static const char *const accel_keys[] = {
    "name", "peak_flops", "memory", "memory_bandwidth", "gemm_efficiency", "source",
    "memory_efficiency", "memory_reserved", "kernel_latency", "flash_attention", "sustained_compute",
    "generation", "overlap_slowdown", "notes", "step_time_cv", NULL,
};
static const char *const prec_keys[] = {"bf16", "fp16", "fp8", "fp32", NULL};
static const char *const flash_keys[] = {"fwd", "bwd", NULL};

int ts_accel_parse(const struct ts_jnode *node, struct ts_accel *a, struct ts_err *err)
{
    int rc;
    memset(a, 0, sizeof *a);
    if ((rc = ts_jnode_check_keys(node, accel_keys, err)))
        return rc;
    if ((rc = ts_jnode_get_string(node, "name", TS_REQUIRED, a->name, sizeof a->name, err)) ||
        (rc = ts_jnode_get_quantity(node, "memory", TS_REQUIRED, TS_DIM_BYTES, 1e6, 1e15,
                                    &a->memory_bytes, err)) ||
        (rc = ts_jnode_get_quantity(node, "memory_bandwidth", TS_REQUIRED, TS_DIM_BYTES_PER_S, 1e6,
                                    1e15, &a->memory_bandwidth, err)))
        return rc;
    a->memory_efficiency = 0.8;
    a->sustained_compute = 1.0;
    /* Default for files that do not say: the spread the catalogue derives from Sinha et al.
     * (SC'22) for NVIDIA parts, an assumption for any other part (hardware/README.md). */
    a->step_time_cv = 0.015;
    if ((rc = ts_jnode_get_quantity(node, "memory_efficiency", TS_OPTIONAL, TS_DIM_NUMBER, 0.01,
                                    1.0, &a->memory_efficiency, err)) ||
        (rc = ts_jnode_get_quantity(node, "memory_reserved", TS_OPTIONAL, TS_DIM_BYTES, 0.0,
                                    a->memory_bytes, &a->memory_reserved, err)) ||
        (rc = ts_jnode_get_quantity(node, "kernel_latency", TS_OPTIONAL, TS_DIM_SECONDS, 0.0, 1e-2,
                                    &a->kernel_latency, err)) ||
        (rc = ts_jnode_get_quantity(node, "sustained_compute", TS_OPTIONAL, TS_DIM_NUMBER, 0.05, 1.0,
                                    &a->sustained_compute, err)) ||
        (rc = ts_jnode_get_quantity(node, "step_time_cv", TS_OPTIONAL, TS_DIM_NUMBER, 0.0, 0.5,
                                    &a->step_time_cv, err)) ||
        (rc = ts_jnode_get_string(node, "source", TS_OPTIONAL, a->source, sizeof a->source, err)) ||
        (rc = ts_jnode_get_text(node, "notes", TS_OPTIONAL, NULL, err)))
        return rc;

    struct ts_jnode pk;
    if (!ts_jnode_child(node, "peak_flops", &pk))
        return ts_err_at(err, node->file, pk.path, "required key is missing");
    if ((rc = ts_jnode_check_keys(&pk, prec_keys, err)))
        return rc;
    bool any = false;
    for (int p = 0; p < TS_PREC_COUNT; p++) {
        if ((rc = ts_jnode_get_quantity(&pk, ts_precision_names[p], TS_OPTIONAL,
                                        TS_DIM_FLOPS_PER_S, 1e6, 1e19, &a->peak_flops[p], err)))
            return rc;
        any |= a->peak_flops[p] > 0;
    }
    if (!any)
        return ts_err_at(err, pk.file, pk.path, "give at least one precision (bf16, fp16, fp8, fp32)");

    /* Generation first: a file without a measured GEMM curve gets one derived from its
     * class (below). */
    int gen = TS_GEN_UNKNOWN;
    a->generation_given = cJSON_GetObjectItemCaseSensitive(node->json, "generation") != NULL;
    if ((rc = ts_jnode_get_enum(node, "generation", TS_OPTIONAL, ts_generation_names,
                                TS_GEN_COUNT, &gen, err)))
        return rc;
    a->generation = (enum ts_generation)gen;

    struct ts_jnode ge;
    if (!ts_jnode_child(node, "gemm_efficiency", &ge)) {
        derive_gemm_curve(a);
    } else if (cJSON_IsArray(ge.json)) {
        if ((rc = parse_curve(&ge, &a->gemm[TS_PREC_BF16], err)))
            return rc;
    } else {
        if ((rc = ts_jnode_check_keys(&ge, prec_keys, err)))
            return rc;
        for (int p = 0; p < TS_PREC_COUNT; p++) {
            struct ts_jnode c;
            if (ts_jnode_child(&ge, ts_precision_names[p], &c) &&
                (rc = parse_curve(&c, &a->gemm[p], err)))
                return rc;
        }
        if (a->gemm[TS_PREC_BF16].n == 0) {
            /* bf16 and fp16 run on the same tensor cores at the same rate. */
            if (a->gemm[TS_PREC_FP16].n > 0)
                a->gemm[TS_PREC_BF16] = a->gemm[TS_PREC_FP16];
            else
                return ts_err_at(err, ge.file, ge.path,
                                 "give a bf16 (or fp16) curve; other precisions fall back to it");
        }
    }
    for (int p = 0; p < TS_PREC_COUNT; p++)
        if (a->gemm[p].n == 0)
            a->gemm[p] = a->gemm[TS_PREC_BF16];

    /* Flash attention defaults: 85% (forward) and 65% (backward) of the large-GEMM
     * efficiency, the ratios FlashAttention-2 reports on A100 (Dao 2023, fig. 4-6:
     * ~73% / ~55-63% of peak vs ~87% for cuBLAS GEMM). */
    const struct ts_gemm_curve *bf = &a->gemm[TS_PREC_BF16];
    double best = bf->table[TS_CURVE_TABLE - 1];
    a->flash_fwd_efficiency = 0.85 * best;
    a->flash_bwd_efficiency = 0.65 * best;
    struct ts_jnode fl;
    if (ts_jnode_child(node, "flash_attention", &fl)) {
        if ((rc = ts_jnode_check_keys(&fl, flash_keys, err)) ||
            (rc = ts_jnode_get_quantity(&fl, "fwd", TS_REQUIRED, TS_DIM_NUMBER, 0.01, 1.0,
                                        &a->flash_fwd_efficiency, err)) ||
            (rc = ts_jnode_get_quantity(&fl, "bwd", TS_REQUIRED, TS_DIM_NUMBER, 0.01, 1.0,
                                        &a->flash_bwd_efficiency, err)))
            return rc;
    }

    /* Generation: selects the attention-kernel tables. A file without it is "unknown": the
     * fused kernels then run at its flash_attention figures, FA3 is refused, and run output
     * flags the missing key. */
    if ((rc = ts_jnode_get_quantity(node, "overlap_slowdown", TS_OPTIONAL, TS_DIM_NUMBER, 0.0,
                                    1.0, &a->overlap_slowdown, err)))
        return rc;
    return ts__attention_tables_load(a, node->inputs, err);
}

static int parse_accel_any(const struct ts_jnode *n, void *out, struct ts_err *err)
{
    return ts_accel_parse(n, out, err);
}

int ts_accel_load(const char *ref, struct ts_accel *out, struct ts_err *err)
{
    return ts__spec_load_ref(TS_CAT_ACCEL, ref, parse_accel_any, out, err);
}

int ts_accel_parse_ref(const struct ts_jnode *node, struct ts_accel *out, struct ts_err *err)
{
    return ts__spec_parse_ref(node, TS_CAT_ACCEL, parse_accel_any, out, err);
}

/* ---------------------------------------------------------------- system */

static const char *const system_keys[] = {
    "name", "accelerator", "gpus_per_node", "scale_up", "scale_out", "host_link", "source", "notes",
    NULL,
};
static const char *const host_keys[] = {"bandwidth", "efficiency", NULL};
static const char *const up_keys[] = {
    "bandwidth", "latency", "domain_size", "topology", "efficiency", "in_network_reduction",
    "reduction_efficiency", NULL,
};
static const char *const out_keys[] = {
    "bandwidth", "latency", "topology", "oversubscription", "efficiency", "leaf_nodes",
    "in_network_reduction", "reduction_efficiency", "nics_per_node", "nic_bandwidth", NULL,
};

/* Defaults of a minimal system file (README "Your own cluster"): the catalogue's fitted
 * per-step latencies (hardware/README.md: scale-up 8.7 us from the 8x A100 all-reduce at 4 MiB,
 * scale-out 159 us from the 4 x 8 B200 all-reduce at 1 MiB, both with the fastest protocol) and the rule-of-thumb
 * efficiency 0.8 (large messages reach ~80% of link rate: shared reference hardware.md). */
#define TS_UP_LATENCY_DEFAULT 8.7e-6
#define TS_OUT_LATENCY_DEFAULT 159e-6
/* No NIC serves one GPU faster than this today (800 Gb/s ConnectX-8, one per GPU on B300 and
 * GB300 nodes: shared reference hardware.md); a larger per-GPU figure is likely a node's. */
#define TS_NIC_PER_GPU_MAX (800e9 / 8)

static int parse_level(const struct ts_jnode *node, bool up, struct ts_level *l, struct ts_err *err)
{
    int rc;
    memset(l, 0, sizeof *l);
    if ((rc = ts_jnode_check_keys(node, up ? up_keys : out_keys, err)))
        return rc;
    l->efficiency = 0.8;
    l->oversubscription = 1.0;
    l->leaf_nodes = 32;
    l->reduction_efficiency = 0.6;
    int topo = 0;
    l->latency = up ? TS_UP_LATENCY_DEFAULT : TS_OUT_LATENCY_DEFAULT;
    bool per_node = !up && (cJSON_GetObjectItemCaseSensitive(node->json, "nics_per_node") ||
                            cJSON_GetObjectItemCaseSensitive(node->json, "nic_bandwidth"));
    if (per_node) {
        /* As vendors quote it: NICs x rate per node; per GPU = that / gpus_per_node (set by
         * the caller, which knows gpus_per_node). */
        struct ts_jnode b;
        if (ts_jnode_child(node, "bandwidth", &b))
            return ts_err_at(err, b.file, b.path,
                             "give either bandwidth (per GPU) or nics_per_node and "
                             "nic_bandwidth (per node), not both");
        int nics = 0;
        double rate = 0.0;
        if ((rc = ts_jnode_get_int(node, "nics_per_node", TS_REQUIRED, 1, 1 << 12, &nics, err)) ||
            (rc = ts_jnode_get_quantity(node, "nic_bandwidth", TS_REQUIRED, TS_DIM_BYTES_PER_S,
                                        1e3, 1e15, &rate, err)))
            return rc;
        l->bandwidth = -(double)nics * rate;   /* a node's total until divided */
    } else if ((rc = ts_jnode_get_quantity(node, "bandwidth", TS_REQUIRED, TS_DIM_BYTES_PER_S, 1e3,
                                           1e15, &l->bandwidth, err))) {
        if (!up && !cJSON_GetObjectItemCaseSensitive(node->json, "bandwidth"))
            return ts_err_at(err, node->file, node->path,
                             "give the network rate: bandwidth (per GPU, e.g. \"400 Gb/s\") or "
                             "nics_per_node and nic_bandwidth (e.g. 8 and \"400 Gb/s\")");
        return rc;
    }
    if ((rc = ts_jnode_get_quantity(node, "latency", TS_OPTIONAL, TS_DIM_SECONDS, 0.0, 1.0,
                                    &l->latency, err)) ||
        (rc = ts_jnode_get_quantity(node, "efficiency", TS_OPTIONAL, TS_DIM_NUMBER, 0.01, 1.0,
                                    &l->efficiency, err)) ||
        (rc = ts_jnode_get_bool(node, "in_network_reduction", TS_OPTIONAL,
                                &l->in_network_reduction, err)) ||
        (rc = ts_jnode_get_quantity(node, "reduction_efficiency", TS_OPTIONAL, TS_DIM_NUMBER, 0.01,
                                    2.0, &l->reduction_efficiency, err)))
        return rc;
    if (up) {
        l->domain_size = 0;     /* default: the node (set by the caller) */
        if ((rc = ts_jnode_get_int(node, "domain_size", TS_OPTIONAL, 1, 1 << 20, &l->domain_size,
                                   err)) ||
            (rc = ts_jnode_get_enum(node, "topology", TS_OPTIONAL, ts_up_topology_names,
                                    TS_UP_COUNT, &topo, err)))
            return rc;
    } else {
        topo = TS_OUT_FAT_TREE;
        if ((rc = ts_jnode_get_enum(node, "topology", TS_OPTIONAL, ts_out_topology_names,
                                    TS_OUT_COUNT, &topo, err)) ||
            (rc = ts_jnode_get_quantity(node, "oversubscription", TS_OPTIONAL, TS_DIM_NUMBER, 1.0,
                                        64.0, &l->oversubscription, err)) ||
            (rc = ts_jnode_get_int(node, "leaf_nodes", TS_OPTIONAL, 1, 1 << 20, &l->leaf_nodes,
                                   err)))
            return rc;
    }
    l->topology = topo;
    return TS_OK;
}

int ts_system_parse(const struct ts_jnode *node, struct ts_system *s, struct ts_err *err)
{
    int rc;
    memset(s, 0, sizeof *s);
    if ((rc = ts_jnode_check_keys(node, system_keys, err)))
        return rc;
    if ((rc = ts_jnode_get_string(node, "name", TS_REQUIRED, s->name, sizeof s->name, err)) ||
        (rc = ts_jnode_get_int(node, "gpus_per_node", TS_REQUIRED, 1, 4096, &s->gpus_per_node,
                               err)) ||
        (rc = ts_jnode_get_string(node, "source", TS_OPTIONAL, s->source, sizeof s->source, err)) ||
        (rc = ts_jnode_get_text(node, "notes", TS_OPTIONAL, NULL, err)))
        return rc;
    struct ts_jnode c;
    if (!ts_jnode_child(node, "accelerator", &c))
        return ts_err_at(err, node->file, c.path, "required key is missing");
    if ((rc = ts_accel_parse_ref(&c, &s->accel, err)))
        return rc;
    if (!ts_jnode_child(node, "scale_up", &c))
        return ts_err_at(err, node->file, c.path, "required key is missing");
    if ((rc = parse_level(&c, true, &s->scale_up, err)))
        return rc;
    if (s->scale_up.domain_size == 0)
        s->scale_up.domain_size = s->gpus_per_node;
    if (s->scale_up.domain_size < s->gpus_per_node && s->scale_up.domain_size > 1 &&
        s->gpus_per_node % s->scale_up.domain_size != 0) {
        struct ts_jnode ds;     /* not &c: the child's path is built from the parent's */
        ts_jnode_child(&c, "domain_size", &ds);
        return ts_err_at(err, ds.file, ds.path, "%d must divide gpus_per_node (%d) or be a multiple of it",
                         s->scale_up.domain_size, s->gpus_per_node);
    }
    if (s->scale_up.domain_size > s->gpus_per_node &&
        s->scale_up.domain_size % s->gpus_per_node != 0) {
        struct ts_jnode ds;
        ts_jnode_child(&c, "domain_size", &ds);
        return ts_err_at(err, ds.file, ds.path, "%d must be a multiple of gpus_per_node (%d)",
                         s->scale_up.domain_size, s->gpus_per_node);
    }
    if (!ts_jnode_child(node, "scale_out", &c))
        return ts_err_at(err, node->file, c.path, "required key is missing");
    if ((rc = parse_level(&c, false, &s->scale_out, err)))
        return rc;
    /* host_link, optional: the GPU-host copy path of activation offload. Efficiency defaults
     * to the rule of thumb of the other links (large transfers reach ~80% of link rate). */
    s->host_efficiency = 0.8;
    struct ts_jnode h;
    if (ts_jnode_child(node, "host_link", &h) &&
        ((rc = ts_jnode_check_keys(&h, host_keys, err)) ||
         (rc = ts_jnode_get_quantity(&h, "bandwidth", TS_REQUIRED, TS_DIM_BYTES_PER_S, 1e6, 1e14,
                                     &s->host_bandwidth, err)) ||
         (rc = ts_jnode_get_quantity(&h, "efficiency", TS_OPTIONAL, TS_DIM_NUMBER, 0.01, 1.0,
                                     &s->host_efficiency, err))))
        return rc;
    if (s->scale_out.bandwidth < 0)
        s->scale_out.bandwidth = -s->scale_out.bandwidth / s->gpus_per_node;
    else if (s->scale_out.bandwidth > TS_NIC_PER_GPU_MAX) {
        char w[TS_PATH_MAX + 400];
        snprintf(w, sizeof w,
                 "%s: %s.bandwidth: %.0f Gb/s per GPU is more than any NIC gives one GPU (800 "
                 "Gb/s): if it is the node's total, give nics_per_node and nic_bandwidth instead",
                 c.file, c.path, s->scale_out.bandwidth * 8 / 1e9);
        ts_warning_add(w);
    }
    return TS_OK;
}

static int parse_system_any(const struct ts_jnode *n, void *out, struct ts_err *err)
{
    return ts_system_parse(n, out, err);
}

int ts_system_load(const char *ref, struct ts_system *out, struct ts_err *err)
{
    return ts__spec_load_ref(TS_CAT_SYSTEM, ref, parse_system_any, out, err);
}

int ts_system_parse_ref(const struct ts_jnode *node, struct ts_system *out, struct ts_err *err)
{
    return ts__spec_parse_ref(node, TS_CAT_SYSTEM, parse_system_any, out, err);
}
