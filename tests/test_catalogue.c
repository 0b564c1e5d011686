/*
 * Tests of the shipped hardware catalogue (hardware/accelerators, hardware/systems): every
 * file loads through the real parsers and is self-consistent, and the datasheet facts of the
 * rented variants (H100 NVL, H100 PCIe, H800, A100 PCIe, L40S and their systems) match the
 * numbers the vendors publish. Expected values are written here from the datasheets, not
 * read back from the files: dense peaks are the datasheets' "with sparsity" figures halved,
 * per-direction link rates the datasheets' bidirectional figures halved.
 *
 * Names resolve under TRAINSIM_HOME (ctest points it at the source tree).
 */
#include "test_helpers.h"
#include "test_system.h"

#include <dirent.h>

#include "comm/comm.h"
#include "spec/spec.h"

#define GIB 1073741824.0
#define TERA 1e12
#define NAMES_MAX 64

/* ---------------------------------------------------------------- fixtures */

static int compare_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* The stems of the *.json files in a catalogue directory, sorted. */
static int list_catalogue(const char *sub, char names[][TS_NAME_MAX])
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", ts_spec_home(), sub);
    DIR *d = opendir(dir);
    if (!d) {
        print_error("cannot open %s\n", dir);
        fail();
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        assert_true(n < NAMES_MAX);
        assert_true(len - 5 < TS_NAME_MAX);
        memcpy(names[n], e->d_name, len - 5);
        names[n][len - 5] = '\0';
        n++;
    }
    closedir(d);
    qsort(names, (size_t)n, TS_NAME_MAX, compare_names);
    return n;
}

static void load_accel(const char *name, struct ts_accel *a)
{
    struct ts_err err;
    ts_err_clear(&err);
    if (ts_accel_load(name, a, &err) != TS_OK) {
        print_error("accelerator %s does not load: %s\n", name, err.msg);
        fail();
    }
}


static bool names_contain(char names[][TS_NAME_MAX], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

/* Largest-GEMM efficiency of a curve (its last tabulated value). */
static double curve_top(const struct ts_gemm_curve *c)
{
    return c->table[TS_CURVE_TABLE - 1];
}

/* nccl-tests bus bandwidth of an 8-GPU ring all-reduce of 4 GiB inside one node. */
static double node_ring_busbw(const struct ts_system *s)
{
    struct ts_group g;
    ts_comm_group_strided(s, 8, 1, &g);
    struct ts_coll_cost c;
    assert_true(ts_comm_collective_algo(s, TS_COLL_ALLREDUCE, &g, 4.0 * GIB, TS_ALGO_RING, &c));
    return ts_comm_bus_bandwidth(TS_COLL_ALLREDUCE, 8, 4.0 * GIB, c.time_s);
}

/* ---------------------------------------------------------------- every file */

static void every_shipped_accelerator_loads_and_is_self_consistent(void **state)
{
    (void)state;
    char names[NAMES_MAX][TS_NAME_MAX];
    int n = list_catalogue("hardware/accelerators", names);
    assert_true(n >= 15);
    const char *added[] = {"h100-nvl", "h100-pcie", "h800-sxm", "a100-pcie-40g", "a100-pcie-80g",
                           "l40s", "h100-sxm-96g-500w"};
    for (size_t i = 0; i < sizeof added / sizeof added[0]; i++)
        assert_true(names_contain(names, n, added[i]));
    for (int i = 0; i < n; i++) {
        struct ts_accel a;
        load_accel(names[i], &a);
        print_message("  %-14s bf16 %7.1f TFLOP/s, %7.2f GiB, GEMM top %.3f\n", names[i],
                      a.peak_flops[TS_PREC_BF16] / TERA, a.memory_bytes / GIB,
                      curve_top(&a.gemm[TS_PREC_BF16]));
        assert_string_equal(a.name, names[i]);
        assert_true(strlen(a.source) > 100);
        assert_true(a.peak_flops[TS_PREC_BF16] > 0);
        assert_true(a.memory_reserved < a.memory_bytes);
        for (int p = 0; p < TS_PREC_COUNT; p++) {
            assert_true(a.gemm[p].n > 0);
            double top = curve_top(&a.gemm[p]);
            assert_true(top > 0.3 && top <= 1.0);
        }
        /* Flash attention never beats the largest GEMM of the same part. */
        assert_true(a.flash_fwd_efficiency <= curve_top(&a.gemm[TS_PREC_BF16]));
        assert_true(a.flash_bwd_efficiency < a.flash_fwd_efficiency);
        /* Dense figures only: an fp8 "with sparsity" number would be 4x the dense bf16. */
        if (a.peak_flops[TS_PREC_FP8] > 0)
            assert_true(a.peak_flops[TS_PREC_FP8] <= 2.05 * a.peak_flops[TS_PREC_BF16]);
    }
}

static void every_shipped_system_loads_with_its_accelerator(void **state)
{
    (void)state;
    char names[NAMES_MAX][TS_NAME_MAX];
    int n = list_catalogue("hardware/systems", names);
    assert_true(n >= 20);
    const char *added[] = {"aws-g6e", "l40s-8-100gbe", "h100-pcie-8", "h100-nvl-8", "hgx-h800",
                           "a100-pcie-8", "grand-teton-h100-500w"};
    for (size_t i = 0; i < sizeof added / sizeof added[0]; i++)
        assert_true(names_contain(names, n, added[i]));
    for (int i = 0; i < n; i++) {
        struct ts_system s;
        load_system(names[i], &s);
        assert_string_equal(s.name, names[i]);
        assert_true(strlen(s.source) > 100);
        assert_true(s.accel.peak_flops[TS_PREC_BF16] > 0);
        /* The scale-up level is faster per GPU than the NIC share on every shipped system. */
        assert_true(s.scale_up.bandwidth > s.scale_out.bandwidth);
        assert_true(s.scale_up.domain_size >= 1);
    }
}

/* ---------------------------------------------------------------- datasheet facts */

static void l40s_has_the_datasheet_dense_peaks_and_48_gb_of_gddr6(void **state)
{
    (void)state;
    struct ts_accel a;
    load_accel("l40s", &a);
    /* NVIDIA L40S datasheet: BF16 362.05 | 733* and FP8 733 | 1,466* TFLOPS (* sparsity). The
     * sheet's sparse BF16 is not exactly twice its dense figure (733 vs 724.1); the dense
     * figure as printed is the one to use, and it must not be the sparse one. */
    assert_close(a.peak_flops[TS_PREC_BF16], 362.05e12, 1e-9, 0);
    assert_true(a.peak_flops[TS_PREC_BF16] < 733e12 / 2.0);
    assert_close(a.peak_flops[TS_PREC_FP16], 362.05e12, 1e-9, 0);
    assert_close(a.peak_flops[TS_PREC_FP8], 1466e12 / 2.0, 1e-9, 0);
    assert_close(a.peak_flops[TS_PREC_FP32], 91.6e12, 1e-9, 0);
    assert_close(a.memory_bandwidth, 864e9, 1e-9, 0);
    /* 48 GB GDDR6 with ECC: the runtime sees 44.39 GiB, less than the 48 GiB of DRAM. */
    assert_close(a.memory_bytes, 44.39 * GIB, 1e-9, 0);
    assert_true(a.memory_bytes < 48.0 * GIB);
    /* Largest GEMM: 269.15 TFLOP/s measured by torch.matmul. */
    assert_close(curve_top(&a.gemm[TS_PREC_BF16]) * a.peak_flops[TS_PREC_BF16], 269.15e12, 0.002, 0);
}

static void h100_nvl_and_pcie_have_their_datasheet_peaks_memory_and_bandwidth(void **state)
{
    (void)state;
    struct ts_accel nvl, pcie, sxm;
    load_accel("h100-nvl", &nvl);
    load_accel("h100-pcie", &pcie);
    load_accel("h100-sxm", &sxm);
    /* H100 NVL: BF16 1,671* / FP8 3,341* TFLOPS, FP32 60, 94 GB HBM3 at 3.9 TB/s. */
    assert_close(nvl.peak_flops[TS_PREC_BF16], 1671e12 / 2.0, 1e-9, 0);
    assert_close(nvl.peak_flops[TS_PREC_FP8], 3341e12 / 2.0, 1e-9, 0);
    assert_close(nvl.peak_flops[TS_PREC_FP32], 60e12, 1e-9, 0);
    assert_close(nvl.memory_bandwidth, 3.9e12, 1e-9, 0);
    assert_true(nvl.memory_bytes > 93.0 * GIB && nvl.memory_bytes < 94.0 * GIB);
    /* H100 PCIe: BF16 1,513* / FP8 3,026* TFLOPS (dense 756.5 / 1513, listed as 756), FP32 51,
     * 80 GB HBM2e at 2.0 TB/s: a lower peak than the SXM5 part. */
    assert_close(pcie.peak_flops[TS_PREC_BF16], 1513e12 / 2.0, 0.001, 0);
    assert_close(pcie.peak_flops[TS_PREC_FP8], 3026e12 / 2.0, 1e-9, 0);
    assert_close(pcie.peak_flops[TS_PREC_FP32], 51e12, 1e-9, 0);
    assert_close(pcie.memory_bandwidth, 2.0e12, 1e-9, 0);
    assert_true(pcie.peak_flops[TS_PREC_BF16] < nvl.peak_flops[TS_PREC_BF16]);
    assert_true(nvl.peak_flops[TS_PREC_BF16] < sxm.peak_flops[TS_PREC_BF16]);
    /* Derived parts keep the h100-sxm MAMF fraction (no own measurement). */
    assert_close(curve_top(&nvl.gemm[TS_PREC_BF16]), curve_top(&sxm.gemm[TS_PREC_BF16]), 1e-3, 0);
    assert_close(curve_top(&pcie.gemm[TS_PREC_FP8]), curve_top(&sxm.gemm[TS_PREC_FP8]), 1e-3, 0);
}

static void h800_computes_exactly_like_h100_sxm(void **state)
{
    (void)state;
    struct ts_accel h800, h100;
    load_accel("h800-sxm", &h800);
    load_accel("h100-sxm", &h100);
    /* H800 SXM5 datasheet: FP32 67, BF16 1,979*, FP8 3,958*, 80 GB HBM3 at 3.35 TB/s. */
    assert_close(h800.peak_flops[TS_PREC_BF16], 1979e12 / 2.0, 0.001, 0);
    assert_close(h800.peak_flops[TS_PREC_FP8], 3958e12 / 2.0, 0.001, 0);
    assert_close(h800.memory_bandwidth, 3.35e12, 1e-9, 0);
    for (int p = 0; p < TS_PREC_COUNT; p++) {
        assert_true(h800.peak_flops[p] == h100.peak_flops[p]);
        assert_memory_equal(h800.gemm[p].table, h100.gemm[p].table, sizeof h100.gemm[p].table);
    }
    assert_true(h800.sustained_compute == h100.sustained_compute);
    assert_true(h800.memory_bytes == h100.memory_bytes);
}

static void a100_pcie_parts_have_the_sxm_peak_and_their_own_memory(void **state)
{
    (void)state;
    struct ts_accel p40, p80;
    load_accel("a100-pcie-40g", &p40);
    load_accel("a100-pcie-80g", &p80);
    /* A100 datasheet: BF16 312 (624*); PCIe 40GB HBM2 1,555 GB/s, PCIe 80GB HBM2e 1,935 GB/s. */
    assert_close(p40.peak_flops[TS_PREC_BF16], 624e12 / 2.0, 1e-9, 0);
    assert_close(p80.peak_flops[TS_PREC_BF16], 624e12 / 2.0, 1e-9, 0);
    assert_true(p40.peak_flops[TS_PREC_FP8] == 0);
    assert_close(p40.memory_bandwidth, 1.555e12, 1e-9, 0);
    assert_close(p80.memory_bandwidth, 1.935e12, 1e-9, 0);
    assert_close(p40.memory_bytes, 40536.0 * 1048576.0, 1e-5, 0);   // nvidia-smi: 40536 MiB
    /* Largest GEMM: MAMF 252.9 TFLOP/s on A100 PCIe. */
    assert_close(curve_top(&p80.gemm[TS_PREC_BF16]) * 312e12, 252.9e12, 0.002, 0);
}

static void h100_sxm_96g_500w_has_torchtitans_memory_and_a_peak_between_nvl_and_sxm(void **state)
{
    (void)state;
    struct ts_accel gt, nvl, sxm;
    load_accel("h100-sxm-96g-500w", &gt);
    load_accel("h100-nvl", &nvl);
    load_accel("h100-sxm", &sxm);
    /* torchtitan benchmarks/llama3_h100_202412_torchtitan.md: 96 GB HBM2e at 2.4 TB/s, 500 W;
     * 94 GiB as arXiv 2604.11391 reports the HBM2e H100; its own tables reach 84.5 GiB. */
    assert_close(gt.memory_bandwidth, 2.4e12, 1e-9, 0);
    assert_close(gt.memory_bytes, 94.0 * GIB, 1e-9, 0);
    assert_true(gt.memory_bytes > 84.5 * GIB);
    /* Peak: the datasheet points of the GH100 die, NVL at 400 W and SXM5 at 700 W, linear in
     * board power at 500 W: NVL + (SXM - NVL) x 100 / 300. */
    assert_close(gt.peak_flops[TS_PREC_BF16], (835.5 + (989.0 - 835.5) / 3.0) * TERA, 1e-4, 0);
    assert_close(gt.peak_flops[TS_PREC_FP8], (1670.5 + (1979.0 - 1670.5) / 3.0) * TERA, 1e-4, 0);
    assert_close(gt.peak_flops[TS_PREC_FP32], (60.0 + (67.0 - 60.0) / 3.0) * TERA, 1e-3, 0);
    assert_true(nvl.peak_flops[TS_PREC_BF16] < gt.peak_flops[TS_PREC_BF16]);
    assert_true(gt.peak_flops[TS_PREC_BF16] < sxm.peak_flops[TS_PREC_BF16]);
    /* Same die: Hopper kernels, the SXM5 constants that have no own measurement. */
    assert_int_equal(gt.generation, TS_GEN_HOPPER);
    assert_true(gt.sustained_compute == sxm.sustained_compute);
    assert_true(gt.overlap_slowdown == sxm.overlap_slowdown);
    struct ts_system s;
    load_system("grand-teton-h100-500w", &s);
    assert_string_equal(s.accel.name, "h100-sxm-96g-500w");
    assert_int_equal(s.gpus_per_node, 8);
    assert_close(s.scale_out.bandwidth, 400e9 / 8.0, 1e-9, 0);   // 400 Gb/s RDMA per GPU
}

/* Every variant derived from a sibling states its rule: curve moved by the peak ratio r in
 * FLOPs and scaled by the MAMF ratio c (hardware/README.md, "Sibling shift" and "Precision
 * shift"). Closed form: a GEMM of r F FLOPs on the variant takes the parent's time for F
 * FLOPs divided by c, at every size (launch-bound, ramp and top); so a GEMM of the same FLOPs
 * beyond both curves' last points takes (P_parent top_parent) / (P_variant top_variant) of the
 * parent's time. */
struct derived_part {
    const char *name, *parent;
    enum ts_precision prec;
    double peak_ratio, mamf_ratio;   // from the datasheets and MAMF table, not the files
};

static void every_derived_part_times_gemms_by_its_peak_and_mamf_ratio(void **state)
{
    (void)state;
    const double gt = 835.5 + (989.0 - 835.5) / 3.0, gt8 = 1670.5 + (1979.0 - 1670.5) / 3.0;
    const struct derived_part parts[] = {
        {"h100-nvl", "h100-sxm", TS_PREC_BF16, 835.5 / 989.0, 1.0},
        {"h100-nvl", "h100-sxm", TS_PREC_FP8, 1670.5 / 1979.0, 1.0},
        {"h100-pcie", "h100-sxm", TS_PREC_BF16, 756.0 / 989.0, 1.0},
        {"h100-pcie", "h100-sxm", TS_PREC_FP8, 1513.0 / 1979.0, 1.0},
        {"h100-sxm-96g-500w", "h100-sxm", TS_PREC_BF16, gt / 989.0, 1.0},
        {"h100-sxm-96g-500w", "h100-sxm", TS_PREC_FP8, gt8 / 1979.0, 1.0},
        {"h800-sxm", "h100-sxm", TS_PREC_BF16, 1.0, 1.0},
        {"h800-sxm", "h100-sxm", TS_PREC_FP8, 1.0, 1.0},
        {"h200-sxm", "h100-sxm", TS_PREC_BF16, 1.0, 1.0},
        {"h200-sxm", "h100-sxm", TS_PREC_FP8, 1.0, 0.734 / 0.709},
        {"a100-sxm-40g", "a100-sxm-80g", TS_PREC_BF16, 1.0, 1.0},
        {"a100-pcie-40g", "a100-sxm-80g", TS_PREC_BF16, 1.0, 0.811 / 0.869},
        {"a100-pcie-80g", "a100-sxm-80g", TS_PREC_BF16, 1.0, 0.811 / 0.869},
        {"l40s", "a100-sxm-80g", TS_PREC_BF16, 362.05 / 312.0, 0.743 / 0.869},
        {"mi300x", "h100-sxm", TS_PREC_BF16, 1300.0 / 989.0, 0.514 / 0.803},
        {"mi325x", "h100-sxm", TS_PREC_BF16, 1300.0 / 989.0, 0.604 / 0.803},
        {"gb200", "b200-sxm", TS_PREC_BF16, 2500.0 / 2250.0, 0.729 / 0.776},
        {"gb200", "b200-sxm", TS_PREC_FP8, 5000.0 / 4500.0, 0.723 / 0.763},
        {"b300-sxm", "b200-sxm", TS_PREC_BF16, 1.0, 0.786 / 0.776},
        {"b300-sxm", "b200-sxm", TS_PREC_FP8, 1.0, 0.745 / 0.763},
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        const struct derived_part *d = &parts[i];
        struct ts_accel v, p;
        load_accel(d->name, &v);
        load_accel(d->parent, &p);
        assert_close(v.peak_flops[d->prec] / p.peak_flops[d->prec], d->peak_ratio, 1e-3, 0);
        double worst = 0.0;
        for (double lf = 7.0; lf <= 12.5 + 1e-9; lf += 0.125) {
            double f = pow(10.0, lf);
            double t_parent = f / (p.peak_flops[d->prec] * ts_gemm_curve_eval(&p.gemm[d->prec], f));
            double fv = f * d->peak_ratio;
            double t_variant = fv / (v.peak_flops[d->prec] * ts_gemm_curve_eval(&v.gemm[d->prec], fv));
            worst = fmax(worst, fabs(t_variant * d->mamf_ratio / t_parent - 1.0));
        }
        print_message("  %-18s %-4s from %-12s: worst deviation %.2e\n", d->name,
                      ts_precision_names[d->prec], d->parent, worst);
        /* The files round FLOPs to 4 significant digits. */
        assert_true(worst < 3e-3);
        /* A large reference GEMM of the same FLOPs, 16384^3 (8.8e12 FLOPs): beyond the last
         * point of every curve, where both run at their MAMF fraction. */
        double f = 2.0 * 16384.0 * 16384.0 * 16384.0;
        assert_true(f > v.gemm[d->prec].flops[v.gemm[d->prec].n - 1]);
        double t_parent = f / (p.peak_flops[d->prec] * ts_gemm_curve_eval(&p.gemm[d->prec], f));
        double t_variant = f / (v.peak_flops[d->prec] * ts_gemm_curve_eval(&v.gemm[d->prec], f));
        assert_close(t_variant / t_parent, 1.0 / (d->peak_ratio * d->mamf_ratio), 3e-3, 0);
    }
}

/* The NVIDIA variants of a calibrated die run the same kernels as it: same generation (so the
 * same attention-kernel tables) and the same overlap contention. */
static void nvidia_variants_share_their_dies_generation_and_overlap_slowdown(void **state)
{
    (void)state;
    const char *hopper[] = {"h100-nvl", "h100-pcie", "h800-sxm", "h200-sxm", "h100-sxm-96g-500w"};
    const char *ampere[] = {"a100-pcie-40g", "a100-pcie-80g", "a100-sxm-40g"};
    struct ts_accel ref, a;
    load_accel("h100-sxm", &ref);
    for (size_t i = 0; i < sizeof hopper / sizeof hopper[0]; i++) {
        load_accel(hopper[i], &a);
        assert_int_equal(a.generation, TS_GEN_HOPPER);
        assert_true(a.overlap_slowdown == ref.overlap_slowdown);
        assert_true(a.overlap_slowdown > 0.0);
    }
    load_accel("a100-sxm-80g", &ref);
    for (size_t i = 0; i < sizeof ampere / sizeof ampere[0]; i++) {
        load_accel(ampere[i], &a);
        assert_int_equal(a.generation, TS_GEN_AMPERE);
        assert_true(a.overlap_slowdown == ref.overlap_slowdown);
    }
}

static void rented_systems_have_the_quoted_links(void **state)
{
    (void)state;
    struct ts_system s;
    /* AWS g6e.48xlarge: 8x L40S, 400 Gbps per instance; PCIe Gen4 x16 64 GB/s bidirectional. */
    load_system("aws-g6e", &s);
    assert_string_equal(s.accel.name, "l40s");
    assert_int_equal(s.gpus_per_node, 8);
    assert_close(s.scale_out.bandwidth * 8.0, 400e9 / 8.0, 1e-9, 0);
    assert_close(s.scale_up.bandwidth, 64e9 / 2.0, 1e-9, 0);
    assert_false(s.scale_up.in_network_reduction);
    /* HGX H800: NVLink 400 GB/s per GPU; 8x 400 Gb/s InfiniBand per node. */
    load_system("hgx-h800", &s);
    assert_string_equal(s.accel.name, "h800-sxm");
    assert_close(s.scale_up.bandwidth, 400e9 / 2.0, 1e-9, 0);
    assert_close(s.scale_out.bandwidth, 400e9 / 8.0, 1e-9, 0);
    /* 8x H100 NVL: NVLink bridge 600 GB/s between the two GPUs of a pair. */
    load_system("h100-nvl-8", &s);
    assert_int_equal(s.scale_up.domain_size, 2);
    assert_close(s.scale_up.bandwidth, 600e9 / 2.0, 1e-9, 0);
    /* 8x H100 PCIe (Gen5 x16, 128 GB/s) and 8x A100 PCIe (Gen4 x16, 64 GB/s). */
    load_system("h100-pcie-8", &s);
    assert_close(s.scale_up.bandwidth, 128e9 / 2.0, 1e-9, 0);
    assert_int_equal(s.scale_up.domain_size, 8);
    load_system("a100-pcie-8", &s);
    assert_close(s.scale_up.bandwidth, 64e9 / 2.0, 1e-9, 0);
}

static void h800_node_all_reduce_runs_at_deepseeks_160_gbps_nvlink_figure(void **state)
{
    (void)state;
    struct ts_system h800, h100, l40s;
    load_system("hgx-h800", &h800);
    load_system("dgx-h100", &h100);
    load_system("aws-g6e", &l40s);
    /* DeepSeek-V3 report: 160 GB/s usable NVLink per H800. A 4 GiB ring is bandwidth-bound,
     * so its bus bandwidth approaches link rate x efficiency. */
    double b800 = node_ring_busbw(&h800), b100 = node_ring_busbw(&h100), bl = node_ring_busbw(&l40s);
    print_message("  ring busbw: H800 %.1f, H100 %.1f, L40S PCIe %.1f GB/s\n", b800 / 1e9, b100 / 1e9,
                  bl / 1e9);
    assert_close(b800, 160e9, 0.01, 0);
    assert_close(b100, 450e9 * 0.82, 0.01, 0);
    /* PCIe Gen4: at most the 32 GB/s per direction. */
    assert_true(bl < 32e9 && bl > 20e9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_shipped_accelerator_loads_and_is_self_consistent),
        cmocka_unit_test(every_shipped_system_loads_with_its_accelerator),
        cmocka_unit_test(l40s_has_the_datasheet_dense_peaks_and_48_gb_of_gddr6),
        cmocka_unit_test(h100_nvl_and_pcie_have_their_datasheet_peaks_memory_and_bandwidth),
        cmocka_unit_test(h800_computes_exactly_like_h100_sxm),
        cmocka_unit_test(a100_pcie_parts_have_the_sxm_peak_and_their_own_memory),
        cmocka_unit_test(h100_sxm_96g_500w_has_torchtitans_memory_and_a_peak_between_nvl_and_sxm),
        cmocka_unit_test(every_derived_part_times_gemms_by_its_peak_and_mamf_ratio),
        cmocka_unit_test(nvidia_variants_share_their_dies_generation_and_overlap_slowdown),
        cmocka_unit_test(rented_systems_have_the_quoted_links),
        cmocka_unit_test(h800_node_all_reduce_runs_at_deepseeks_160_gbps_nvlink_figure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
