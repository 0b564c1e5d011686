/*
 * Tests of the MoE communication model (sim/comm: all-to-all, ts_comm_moe_dispatch /
 * _combine, ts_comm_moe_copies): alpha-beta times by hand for small expert-parallel groups
 * inside one node and across nodes, the fabric's bisection under oversubscribed leaves,
 * nccl-tests' own bus-bandwidth formula for inter-node all-to-all, the DeepEP bytes across
 * nodes against NCCL's by the hypergeometric closed form, brute-force counts of destination
 * ranks, and the cases where the dispatchers must agree.
 */
#include "test_helpers.h"
#include "test_system.h"

#include "comm/comm.h"
#include "spec/spec.h"

#define MIB 1048576.0



/* 4 GPUs per node and per switched domain at 100 GB/s x 0.5 (ring efficiency), 2 us per
 * step; 10 GB/s NICs at 0.8, 10 us per step; fat tree with 2 nodes per leaf and
 * `OVERSUB`:1 above the leaves. */
#define SYNTH(OVERSUB, TOPO)                                                                    \
    "{\"name\": \"synth\", \"accelerator\": {\"name\": \"a\", \"peak_flops\": {\"bf16\": 1e14}, " \
    "\"memory\": \"16 GiB\", \"memory_bandwidth\": 1e12, \"gemm_efficiency\": [[1e9, 0.5]]}, "    \
    "\"gpus_per_node\": 4, "                                                                    \
    "\"scale_up\": {\"bandwidth\": 1e11, \"latency\": 2e-6, \"domain_size\": 4, "               \
    "\"topology\": \"switch\", \"efficiency\": 0.5}, "                                          \
    "\"scale_out\": {\"bandwidth\": 1e10, \"latency\": 1e-5, \"efficiency\": 0.8, "             \
    "\"topology\": \"" TOPO "\", \"oversubscription\": " #OVERSUB ", \"leaf_nodes\": 2}}"

#define UP_LINK 1e11
#define OUT_LINK 1e10
#define A_UP 2e-6
#define A_OUT 1e-5
/* nccl-tests all-to-all on 4x H100 in one node: busbw 334.9 of 450 GB/s (NVIDIA/nccl #2169)
 * against the DGX H100 ring efficiency 0.82: the all-to-all share of a ring rate. */
#define A2A_SHARE ((334.9 / 450.0) / 0.82)
#define UP_A2A (UP_LINK * 0.5 * A2A_SHARE)
#define OUT_BW (OUT_LINK * 0.8)
/* DeepEP's measured fractions of link rate (DeepEP docs/legacy.md, README). */
#define DEEPEP_UP (UP_LINK * 0.69)
#define DEEPEP_OUT (OUT_LINK * 0.88)

/* C(a, k) / C(b, k) by log-gamma: an independent route to the hypergeometric term. */
static double binom_ratio(int a, int b, int k)
{
    if (a < k)
        return 0.0;
    return exp(lgamma(a + 1.0) - lgamma(a - k + 1.0) - lgamma(b + 1.0) + lgamma(b - k + 1.0));
}

/* ---------------------------------------------------------------- NCCL all-to-all */

static void all_to_all_inside_one_domain_is_one_nvlink_step_and_n_minus_1_shares(void **state)
{
    (void)state;
    struct ts_system sys;
    parse_system(SYNTH(1, "fat_tree"), &sys);
    struct ts_group g;
    ts_comm_group_strided(&sys, 4, 1, &g);
    double S = 64 * MIB;
    struct ts_coll_cost c;
    ts_comm_collective(&sys, TS_COLL_ALLTOALL, &g, S, &c);
    assert_int_equal(c.algo, TS_ALGO_DIRECT);
    assert_close(c.up_bytes, 3.0 / 4 * S, 1e-12, 0);
    assert_true(c.out_bytes == 0.0);
    assert_close(c.time_s, A_UP + 3.0 / 4 * S / UP_A2A, 1e-12, 0);
    /* two ranks two apart: still one domain, one peer */
    ts_comm_group_strided(&sys, 2, 2, &g);
    ts_comm_collective(&sys, TS_COLL_ALLTOALL, &g, S, &c);
    assert_close(c.time_s, A_UP + 0.5 * S / UP_A2A, 1e-12, 0);
}

static void all_to_all_across_nodes_is_bounded_by_each_ranks_own_nic(void **state)
{
    (void)state;
    struct ts_system sys;
    parse_system(SYNTH(1, "fat_tree"), &sys);
    struct ts_group g;
    /* 8 ranks on 2 nodes under one leaf: 3/8 S by NVLink, 4/8 S by the NIC */
    ts_comm_group_strided(&sys, 8, 1, &g);
    double S = 64 * MIB;
    struct ts_coll_cost c;
    ts_comm_collective(&sys, TS_COLL_ALLTOALL, &g, S, &c);
    assert_close(c.up_bytes, 3.0 / 8 * S, 1e-12, 0);
    assert_close(c.out_bytes, 4.0 / 8 * S, 1e-12, 0);
    assert_close(c.latency_s, A_OUT, 1e-12, 0);
    assert_close(c.time_s, A_OUT + fmax(3.0 / 8 * S / UP_A2A, 4.0 / 8 * S / OUT_BW), 1e-12, 0);
    /* one rank per node (stride 4), 2 nodes: everything but the own share by the NIC */
    ts_comm_group_strided(&sys, 2, 4, &g);
    ts_comm_collective(&sys, TS_COLL_ALLTOALL, &g, S, &c);
    assert_true(c.up_bytes == 0.0);
    assert_close(c.time_s, A_OUT + 0.5 * S / OUT_BW, 1e-12, 0);
}

static void oversubscribed_leaves_slow_the_share_of_peers_under_other_leaves(void **state)
{
    (void)state;
    struct ts_system sys;
    parse_system(SYNTH(4, "fat_tree"), &sys);
    double S = 64 * MIB;
    struct ts_group g;
    struct ts_coll_cost c;
    /* 2 nodes = one leaf: no uplink crossed, oversubscription irrelevant */
    ts_comm_group_strided(&sys, 8, 1, &g);
    ts_comm_collective(&sys, TS_COLL_ALLTOALL, &g, S, &c);
    assert_close(c.time_s, A_OUT + 4.0 / 8 * S / OUT_BW, 1e-12, 0);
    /* 32 ranks on 8 nodes = 4 leaves of 8 ranks: of the 28 inter-domain peers 24 sit under
     * other leaves; their bytes share uplinks of 1/4 the down-link rate */
    ts_comm_group_strided(&sys, 32, 1, &g);
    ts_comm_collective(&sys, TS_COLL_ALLTOALL, &g, S, &c);
    double out = 28.0 / 32 * S;
    assert_close(c.out_bytes, out, 1e-12, 0);
    assert_close(c.time_s, A_OUT + out * (24.0 / 28 * 4) / OUT_BW, 1e-12, 0);
    /* 2:1 instead: 24/28 x 2 = 1.71 */
    parse_system(SYNTH(2, "fat_tree"), &sys);
    ts_comm_collective(&sys, TS_COLL_ALLTOALL, &g, S, &c);
    assert_close(c.time_s, A_OUT + out * (24.0 / 28 * 2) / OUT_BW, 1e-12, 0);
    /* a 1.1:1 fabric: the uplinks keep up (24/28 x 1.1 < 1): the NIC bounds */
    struct ts_system light = sys;
    light.scale_out.oversubscription = 1.1;
    ts_comm_collective(&light, TS_COLL_ALLTOALL, &g, S, &c);
    assert_close(c.time_s, A_OUT + out / OUT_BW, 1e-12, 0);
}

static void rail_optimized_fabrics_add_the_pxn_nvlink_hop(void **state)
{
    (void)state;
    struct ts_system sys;
    parse_system(SYNTH(1, "rail_optimized"), &sys);
    struct ts_group g;
    ts_comm_group_strided(&sys, 8, 1, &g);
    double S = 64 * MIB;
    struct ts_coll_cost c;
    ts_comm_collective(&sys, TS_COLL_ALLTOALL, &g, S, &c);
    /* 3/8 S to domain peers + 3/4 of the 4/8 S network bytes to the right rail first */
    assert_close(c.up_bytes, 3.0 / 8 * S + 0.75 * 0.5 * S, 1e-12, 0);
    assert_close(c.out_bytes, 0.5 * S, 1e-12, 0);
}

static void inter_node_all_to_all_matches_the_nccl_tests_bus_bandwidth_formula(void **state)
{
    (void)state;
    /* nccl-tests issue #130 (sjeaugey): across N nodes the all-to-all bus bandwidth is
     * N / (N - 1) x the network bandwidth per GPU, the network being the bottleneck.
     * Exactly: busbw = (n - 1)/n S / t with t = (n - 8)/n S / B, i.e. (n - 1)/(n - 8) B. */
    struct ts_system sys;
    load_system("dgx-h100", &sys);
    double B = sys.scale_out.bandwidth * sys.scale_out.efficiency;
    double S = 4096 * MIB;
    for (int N = 2; N <= 16; N *= 2) {
        int n = 8 * N;
        struct ts_group g;
        ts_comm_group_strided(&sys, n, 1, &g);
        struct ts_coll_cost c;
        ts_comm_collective(&sys, TS_COLL_ALLTOALL, &g, S, &c);
        double busbw = ts_comm_bus_bandwidth(TS_COLL_ALLTOALL, n, S, c.time_s - c.latency_s);
        assert_close(busbw, (double)(n - 1) / (n - 8) * B, 1e-9, 0);
        assert_close(busbw, (double)N / (N - 1) * B, 0.07, 0);
    }
}

static void four_h100_all_to_all_reproduces_the_measured_nccl_tests_busbw(void **state)
{
    (void)state;
    /* nccl-tests alltoall_perf, 4x H100 SXM in one node, 500 MiB: busbw 334.9 GB/s (NVIDIA/nccl
     * issue #2169, 1174 us); the constant was taken from the bus bandwidth, so the one 8.7 us
     * NVLink step on top leaves the prediction 0.7% below it */
    struct ts_system sys;
    load_system("dgx-h100", &sys);
    struct ts_group g;
    ts_comm_group_strided(&sys, 4, 1, &g);
    double S = 524288000.0;
    struct ts_coll_cost c;
    ts_comm_collective(&sys, TS_COLL_ALLTOALL, &g, S, &c);
    assert_close(ts_comm_bus_bandwidth(TS_COLL_ALLTOALL, 4, S, c.time_s), 334.9e9, 0.01, 0);
}

/* ---------------------------------------------------------------- dispatchers */

static void destination_counts_match_a_brute_force_enumeration(void **state)
{
    (void)state;
    /* 8 experts in `parts` equal shares, every pair (top-2) and triple (top-3) equally likely */
    for (int parts = 1; parts <= 8; parts *= 2) {
        int per = 8 / parts;
        double pairs = 0, distinct2 = 0, triples = 0, distinct3 = 0;
        for (int a = 0; a < 8; a++)
            for (int b = a + 1; b < 8; b++) {
                pairs++;
                distinct2 += a / per == b / per ? 1 : 2;
                for (int d = b + 1; d < 8; d++) {
                    int pa = a / per, pb = b / per, pd = d / per;
                    triples++;
                    distinct3 += 1 + (pb != pa) + (pd != pa && pd != pb);
                }
            }
        assert_close(ts_comm_moe_copies(8, 2, parts), distinct2 / pairs, 1e-12, 0);
        assert_close(ts_comm_moe_copies(8, 3, parts), distinct3 / triples, 1e-12, 0);
    }
    /* top-k = all experts: every share */
    assert_close(ts_comm_moe_copies(16, 16, 4), 4.0, 1e-12, 0);
}

static void alltoall_dispatch_sends_top_k_copies_plus_a_count_exchange(void **state)
{
    (void)state;
    struct ts_system sys;
    parse_system(SYNTH(1, "fat_tree"), &sys);
    struct ts_group g;
    ts_comm_group_strided(&sys, 4, 1, &g);
    double T = 16 * MIB;
    struct ts_coll_cost c, comb;
    ts_comm_moe_dispatch(&sys, &g, T, 2, 8, 4, TS_MOE_ALLTOALL, &c);
    /* 2T buffer: 3/4 of it to the 3 peers; two NVLink steps (counts, tokens) */
    assert_close(c.up_bytes, 0.75 * 2 * T, 1e-12, 0);
    assert_close(c.time_s, 2 * A_UP + 0.75 * 2 * T / UP_A2A, 1e-12, 0);
    ts_comm_moe_combine(&sys, &g, T, 2, 8, 4, TS_MOE_ALLTOALL, &comb);
    assert_close(comb.time_s, c.time_s, 1e-15, 0);
    /* across the 2 nodes of one leaf, 8 ranks, top-4 of 16 experts */
    ts_comm_group_strided(&sys, 8, 1, &g);
    ts_comm_moe_dispatch(&sys, &g, T, 4, 16, 8, TS_MOE_ALLTOALL, &c);
    assert_close(c.out_bytes, 0.5 * 4 * T, 1e-12, 0);
    assert_close(c.time_s, 2 * A_OUT + fmax(3.0 / 8 * 4 * T / UP_A2A, 0.5 * 4 * T / OUT_BW),
                 1e-12, 0);
}

static void deepep_sends_a_token_once_per_destination_node_by_hand(void **state)
{
    (void)state;
    struct ts_system sys;
    parse_system(SYNTH(1, "fat_tree"), &sys);
    struct ts_group g;
    ts_comm_group_strided(&sys, 8, 1, &g);   /* 2 nodes x 4 ranks */
    double T = 16 * MIB;
    struct ts_coll_cost c;
    /* top-2 of 8 experts, one per rank: the remote node (4 experts) is missed with
     * C(4,2)/C(8,2) = 6/28; destination ranks 8 (1 - C(7,2)/C(8,2)) = 8 x 7/28 = 2 */
    ts_comm_moe_dispatch(&sys, &g, T, 2, 8, 8, TS_MOE_DEEPEP, &c);
    double remote = 1.0 - 6.0 / 28;
    assert_close(c.out_bytes, T * remote, 1e-12, 0);
    assert_close(c.up_bytes, T * 2.0 * 3 / 4, 1e-12, 0);
    assert_close(c.time_s, 2 * A_OUT + fmax(c.up_bytes / DEEPEP_UP, T * remote / DEEPEP_OUT),
                 1e-12, 0);
    /* NCCL's all-to-all would send 2 copies x 1/2 of them off the node = T */
    struct ts_coll_cost a;
    ts_comm_moe_dispatch(&sys, &g, T, 2, 8, 8, TS_MOE_ALLTOALL, &a);
    assert_close(a.out_bytes, T, 1e-12, 0);
    assert_true(c.out_bytes < a.out_bytes);
}

static void deepep_bytes_across_nodes_follow_the_closed_form_against_nccl(void **state)
{
    (void)state;
    /* DeepSeek-V3 (256 routed experts, top-8) on DGX H100 nodes: a token crosses to each
     * remote node holding one of its experts once (DeepEP) instead of once per expert (NCCL):
     * ratio = (N - 1)(1 - C(E - E/N, k)/C(E, k)) / (k (N - 1)/N). */
    struct ts_system sys;
    load_system("dgx-h100", &sys);
    double T = 4096 * 7168.0;   /* one rank's 4096 tokens x hidden 7168 in FP8 */
    int E = 256, k = 8;
    for (int N = 2; N <= 32; N *= 2) {
        int ep = 8 * N;
        struct ts_group g;
        ts_comm_group_strided(&sys, ep, 1, &g);
        assert_int_equal(g.domains, N);
        struct ts_coll_cost d, a;
        ts_comm_moe_dispatch(&sys, &g, T, k, E, ep, TS_MOE_DEEPEP, &d);
        ts_comm_moe_dispatch(&sys, &g, T, k, E, ep, TS_MOE_ALLTOALL, &a);
        double hit = 1.0 - binom_ratio(E - E / N, E, k);
        assert_close(d.out_bytes, T * (N - 1) * hit, 1e-9, 0);
        assert_close(a.out_bytes, T * k * (N - 1.0) / N, 1e-12, 0);
        assert_close(d.out_bytes / a.out_bytes, N * hit / k, 1e-9, 0);
        assert_true(d.out_bytes < a.out_bytes);
    }
    /* 8 nodes: hit = 1 - C(224,8)/C(256,8) = 0.6618, ratio 0.6618 */
    struct ts_group g;
    ts_comm_group_strided(&sys, 64, 1, &g);
    struct ts_coll_cost d, a;
    ts_comm_moe_dispatch(&sys, &g, T, k, E, 64, TS_MOE_DEEPEP, &d);
    ts_comm_moe_dispatch(&sys, &g, T, k, E, 64, TS_MOE_ALLTOALL, &a);
    assert_close(d.out_bytes / a.out_bytes, 0.6618, 0.001, 0);
}

static void top_1_with_one_expert_per_rank_moves_the_same_bytes_either_way(void **state)
{
    (void)state;
    /* one copy per token either way: DeepEP's dedup has nothing to merge */
    struct ts_system sys;
    load_system("dgx-h100", &sys);
    struct ts_group g;
    ts_comm_group_strided(&sys, 32, 1, &g);
    double T = 8 * MIB;
    struct ts_coll_cost d, a;
    ts_comm_moe_dispatch(&sys, &g, T, 1, 32, 32, TS_MOE_DEEPEP, &d);
    ts_comm_moe_dispatch(&sys, &g, T, 1, 32, 32, TS_MOE_ALLTOALL, &a);
    assert_close(d.out_bytes, a.out_bytes, 1e-12, 0);
    assert_close(d.out_bytes, T * 24.0 / 32, 1e-12, 0);
}

static void allgather_dispatch_gathers_the_whole_group_and_combines_by_reduce_scatter(void **state)
{
    (void)state;
    struct ts_system sys;
    load_system("dgx-h100", &sys);
    struct ts_group g;
    ts_comm_group_strided(&sys, 16, 1, &g);
    double T = 8 * MIB;
    struct ts_coll_cost d, c, ag, rs;
    ts_comm_moe_dispatch(&sys, &g, T, 8, 64, 16, TS_MOE_ALLGATHER, &d);
    ts_comm_moe_combine(&sys, &g, T, 8, 64, 16, TS_MOE_ALLGATHER, &c);
    ts_comm_collective(&sys, TS_COLL_ALLGATHER, &g, 16 * T, &ag);
    ts_comm_collective(&sys, TS_COLL_REDUCESCATTER, &g, 16 * T, &rs);
    assert_close(d.time_s, ag.time_s, 1e-15, 0);
    assert_close(c.time_s, rs.time_s, 1e-15, 0);
}

static void an_expert_group_of_one_rank_costs_nothing(void **state)
{
    (void)state;
    struct ts_system sys;
    load_system("dgx-h100", &sys);
    struct ts_group g;
    ts_comm_group_strided(&sys, 1, 1, &g);
    for (int d = 0; d < TS_MOE_DISPATCHER_COUNT; d++) {
        struct ts_coll_cost c;
        ts_comm_moe_dispatch(&sys, &g, 8 * MIB, 8, 64, 1, (enum ts_moe_dispatcher)d, &c);
        assert_true(c.time_s == 0.0 && c.up_bytes == 0.0 && c.out_bytes == 0.0);
        ts_comm_moe_combine(&sys, &g, 8 * MIB, 8, 64, 1, (enum ts_moe_dispatcher)d, &c);
        assert_true(c.time_s == 0.0);
    }
}

static void an_nvl72_domain_keeps_ep64_off_the_nics(void **state)
{
    (void)state;
    /* GB200 NVL72: EP 64 inside one 72-GPU NVLink domain never touches InfiniBand, while
     * on DGX B200 (8-GPU domains) the same group sends 56/64 of its bytes by the NIC */
    struct ts_system nvl, dgx;
    load_system("gb200-nvl72", &nvl);
    load_system("dgx-b200", &dgx);
    struct ts_group gn, gd;
    ts_comm_group_strided(&nvl, 64, 1, &gn);
    ts_comm_group_strided(&dgx, 64, 1, &gd);
    double T = 4096 * 2880 * 2.0;
    for (int d = 0; d < 2; d++) {
        struct ts_coll_cost cn, cd;
        ts_comm_moe_dispatch(&nvl, &gn, T, 4, 128, 64, (enum ts_moe_dispatcher)d, &cn);
        ts_comm_moe_dispatch(&dgx, &gd, T, 4, 128, 64, (enum ts_moe_dispatcher)d, &cd);
        assert_true(cn.out_bytes == 0.0);
        assert_true(cd.out_bytes > 0.0);
        assert_true(cn.time_s < cd.time_s / 3);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_to_all_inside_one_domain_is_one_nvlink_step_and_n_minus_1_shares),
        cmocka_unit_test(all_to_all_across_nodes_is_bounded_by_each_ranks_own_nic),
        cmocka_unit_test(oversubscribed_leaves_slow_the_share_of_peers_under_other_leaves),
        cmocka_unit_test(rail_optimized_fabrics_add_the_pxn_nvlink_hop),
        cmocka_unit_test(inter_node_all_to_all_matches_the_nccl_tests_bus_bandwidth_formula),
        cmocka_unit_test(four_h100_all_to_all_reproduces_the_measured_nccl_tests_busbw),
        cmocka_unit_test(destination_counts_match_a_brute_force_enumeration),
        cmocka_unit_test(alltoall_dispatch_sends_top_k_copies_plus_a_count_exchange),
        cmocka_unit_test(deepep_sends_a_token_once_per_destination_node_by_hand),
        cmocka_unit_test(deepep_bytes_across_nodes_follow_the_closed_form_against_nccl),
        cmocka_unit_test(top_1_with_one_expert_per_rank_moves_the_same_bytes_either_way),
        cmocka_unit_test(allgather_dispatch_gathers_the_whole_group_and_combines_by_reduce_scatter),
        cmocka_unit_test(an_expert_group_of_one_rank_costs_nothing),
        cmocka_unit_test(an_nvl72_domain_keeps_ep64_off_the_nics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
