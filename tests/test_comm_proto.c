/*
 * Tests of NCCL's protocols in the comm module (sim/comm/comm.h, "Protocols"): which
 * (algorithm, protocol) pairs exist, the crossover sizes computed by hand from NCCL's
 * constants (NCCL 2.30.7 src/graph/tuning.cc) and the catalogue's alphas, collective time
 * non-decreasing in bytes, and large messages costing exactly what the Simple protocol
 * alone gives.
 */
#include <math.h>

#include "test_helpers.h"
#include "test_system.h"

#include "comm/comm.h"
#include "spec/spec.h"

#define MIB 1048576.0
#define GIB 1073741824.0

/* Systems of every kind in the catalogue: NVSwitch (A100, H100, B200, NVL72), NVLink mesh,
 * PCIe, Infinity Fabric. */
static const char *const systems[] = {"dgx-a100-80g", "dgx-h100",  "dgx-b200",   "gb200-nvl72",
                                      "gcp-a3-mega",  "h100-nvl-8", "a100-pcie-8", "mi300x-8"};

static void ll128_is_enabled_only_for_nvidia_gpus_on_nvlink(void **state)
{
    (void)state;
    /* tuning.cc: LL128 by default from SM80 on over NVLink (typeIntra <= PATH_NVB) */
    static const struct {
        const char *name;
        bool ll128;
    } cases[] = {{"dgx-a100-80g", true}, {"dgx-h100", true},    {"dgx-b200", true},
                 {"h100-nvl-8", true},   {"a100-pcie-8", false}, {"mi300x-8", false}};
    for (size_t i = 0; i < TS_ARRAY_LEN(cases); i++) {
        struct ts_system sys;
        load_system(cases[i].name, &sys);
        if (ts_comm_ll128_enabled(&sys) != cases[i].ll128) {
            print_error("%s: LL128 %s\n", cases[i].name, cases[i].ll128 ? "off" : "on");
            fail();
        }
    }
}

static void only_ring_tree_and_send_recv_have_the_ll_protocols(void **state)
{
    (void)state;
    struct ts_system sys;
    load_system("dgx-h100", &sys);
    struct ts_group node, two;
    ts_comm_group_strided(&sys, 8, 1, &node);
    ts_comm_group_strided(&sys, 16, 1, &two);
    struct ts_coll_cost c;
    assert_true(ts_comm_collective_proto(&sys, TS_COLL_ALLREDUCE, &node, MIB, TS_ALGO_RING,
                                         TS_PROTO_LL, &c));
    assert_int_equal(c.proto, TS_PROTO_LL);
    assert_true(ts_comm_collective_proto(&sys, TS_COLL_ALLREDUCE, &two, MIB, TS_ALGO_TREE,
                                         TS_PROTO_LL128, &c));
    assert_false(ts_comm_collective_proto(&sys, TS_COLL_ALLREDUCE, &node, MIB, TS_ALGO_NVLS,
                                          TS_PROTO_LL, &c));
    assert_false(ts_comm_collective_proto(&sys, TS_COLL_ALLREDUCE, &two, MIB,
                                          TS_ALGO_HIERARCHICAL, TS_PROTO_LL128, &c));
    assert_false(ts_comm_collective_proto(&sys, TS_COLL_SENDRECV, &two, MIB, TS_ALGO_DIRECT,
                                          TS_PROTO_LL128, &c));
    assert_false(ts_comm_collective_proto(&sys, TS_COLL_ALLTOALL, &two, MIB, TS_ALGO_DIRECT,
                                          TS_PROTO_LL, &c));
    /* ... and NCCL's send/recv, which picks LL by size (src/enqueue.cc) */
    assert_true(ts_comm_collective_proto(&sys, TS_COLL_SENDRECV, &two, MIB, TS_ALGO_DIRECT,
                                         TS_PROTO_LL, &c));
    /* Simple is the plain algorithm cost */
    struct ts_coll_cost s;
    assert_true(ts_comm_collective_proto(&sys, TS_COLL_ALLREDUCE, &two, MIB, TS_ALGO_TREE,
                                         TS_PROTO_SIMPLE, &c));
    assert_true(ts_comm_collective_algo(&sys, TS_COLL_ALLREDUCE, &two, MIB, TS_ALGO_TREE, &s));
    assert_true(c.time_s == s.time_s && c.latency_s == s.latency_s);
    /* no LL128 on PCIe */
    load_system("a100-pcie-8", &sys);
    ts_comm_group_strided(&sys, 8, 1, &node);
    assert_false(ts_comm_collective_proto(&sys, TS_COLL_ALLREDUCE, &node, MIB, TS_ALGO_RING,
                                          TS_PROTO_LL128, &c));
}

static enum ts_proto best_proto(const struct ts_system *sys, const struct ts_group *g, double S)
{
    struct ts_coll_cost c;
    ts_comm_collective(sys, TS_COLL_ALLREDUCE, g, S, &c);
    assert_int_equal(c.algo, TS_ALGO_RING);
    return c.proto;
}

static void eight_a100_switch_from_ll_to_ll128_to_simple_at_the_hand_computed_sizes(void **state)
{
    (void)state;
    /* 8 x A100 in one NVSwitch domain, ring all-reduce (no NVLS on A100, no tree in one node):
     * 14 steps of the 8.7 us NVLink Simple step, scaled by NCCL's NVLink ring step ratios
     * 0.6 / 3.4 (LL) and 1.9 / 3.4 (LL128); 2 (n-1)/n S = 1.75 S at 0.78 x 300 GB/s, times
     * 0.5 (LL, capped at llMaxBw = 87.7 GB/s of bus bandwidth on one Ampere node) or 0.92
     * (LL128). */
    struct ts_system sys;
    load_system("dgx-a100-80g", &sys);
    struct ts_group g;
    ts_comm_group_strided(&sys, 8, 1, &g);
    double bw = 0.78 * 300e9;
    double lat_ll = 14 * 8.7e-6 * 0.6 / 3.4, lat_ll128 = 14 * 8.7e-6 * 1.9 / 3.4, lat_s = 14 * 8.7e-6;
    double beta_ll = 1.75 / fmin(0.5 * bw, 87.7e9), beta_ll128 = 1.75 / (0.92 * bw);
    double beta_s = 1.75 / bw;
    double s1 = (lat_ll128 - lat_ll) / (beta_ll - beta_ll128);     /* LL -> LL128, ~3.94 MB */
    double s2 = (lat_s - lat_ll128) / (beta_ll128 - beta_s);       /* LL128 -> Simple, ~82.6 MB */
    assert_true(s1 > 3.9e6 && s1 < 4.0e6 && s2 > 82e6 && s2 < 83e6);
    assert_int_equal(best_proto(&sys, &g, 8), TS_PROTO_LL);
    assert_int_equal(best_proto(&sys, &g, s1 * 0.999), TS_PROTO_LL);
    assert_int_equal(best_proto(&sys, &g, s1 * 1.001), TS_PROTO_LL128);
    assert_int_equal(best_proto(&sys, &g, s2 * 0.999), TS_PROTO_LL128);
    assert_int_equal(best_proto(&sys, &g, s2 * 1.001), TS_PROTO_SIMPLE);
    /* and the LL time itself, below the crossover */
    struct ts_coll_cost c;
    ts_comm_collective(&sys, TS_COLL_ALLREDUCE, &g, 64 * 1024, &c);
    assert_close(c.time_s, lat_ll + beta_ll * 64 * 1024, 1e-12, 0);
    assert_close(c.latency_s, lat_ll, 1e-12, 0);
}

static void two_a3_mega_nodes_run_small_all_reduces_as_ring_ll_under_nccls_cap(void **state)
{
    (void)state;
    /* 2 x 8 H100, 8 KiB all-reduce: the tree's LL steps are 5 / 14 of the 159 us network
     * step and 0.6 / 4 of the 8.7 us NVLink step: 2 (1 x 56.8 + 7 x 1.31) = 131.8 us, against
     * the ring's LL 2 network steps of 159 x 2.7 / 14 = 30.7 us, 28 NVLink steps of 1.54 us
     * and NCCL's 6.6 us LL base: 110.9 us; so the ring's LL wins. Its bandwidth part is
     * capped by llMaxBw at two nodes, 39 GB/s of bus bandwidth (1.875 S / 39 GB/s). */
    struct ts_system sys;
    load_system("gcp-a3-mega", &sys);
    struct ts_group g;
    ts_comm_group_strided(&sys, 16, 1, &g);
    double S = 8192;
    double ring_lat = 2 * 159e-6 * 2.7 / 14 + 28 * 8.7e-6 * 0.6 / 3.4 + 6.6e-6;
    double tree_lat = 2 * (159e-6 * 5.0 / 14 + 7 * 8.7e-6 * 0.6 / 4);
    assert_true(ring_lat < tree_lat);
    struct ts_coll_cost c;
    ts_comm_collective(&sys, TS_COLL_ALLREDUCE, &g, S, &c);
    assert_int_equal(c.algo, TS_ALGO_RING);
    assert_int_equal(c.proto, TS_PROTO_LL);
    assert_close(c.latency_s, ring_lat, 1e-12, 0);
    assert_close(c.time_s, ring_lat + 1.875 * S / 39e9, 1e-12, 0);
    assert_true(ts_comm_collective_proto(&sys, TS_COLL_ALLREDUCE, &g, S, TS_ALGO_TREE, TS_PROTO_LL,
                                         &c));
    assert_close(c.latency_s, tree_lat, 1e-12, 0);
    /* the tree's LL bandwidth part is capped at half of llMaxBw (NCCL's tree ratio .5), times
     * NCCL's tree correction at 8 KiB: treeCorrectionFactor[LL][log2(8192 / 64) = 7] = 0.7 */
    assert_close(c.time_s, tree_lat + S / (0.5 * 39e9 * 0.7), 1e-12, 0);
}

static void the_ll_cap_follows_the_gpu_generation_even_on_identical_levels(void **state)
{
    (void)state;
    /* One node: llMaxBw is 87.7 GB/s on Ampere, 141 on Hopper (tuning.cc). The same A100
     * levels called Hopper run LL at its 0.5 x 0.78 x 300 = 117 GB/s instead (the memo of
     * repeated calls must not return the Ampere answer). */
    struct ts_system a100, hop;
    load_system("dgx-a100-80g", &a100);
    hop = a100;
    hop.accel.generation = TS_GEN_HOPPER;
    struct ts_group g;
    ts_comm_group_strided(&a100, 8, 1, &g);
    double S = 64 * 1024, lat = 14 * 8.7e-6 * 0.6 / 3.4;
    struct ts_coll_cost c;
    ts_comm_collective(&a100, TS_COLL_ALLREDUCE, &g, S, &c);
    assert_int_equal(c.proto, TS_PROTO_LL);
    assert_close(c.time_s, lat + 1.75 * S / 87.7e9, 1e-12, 0);
    ts_comm_collective(&hop, TS_COLL_ALLREDUCE, &g, S, &c);
    assert_int_equal(c.proto, TS_PROTO_LL);
    assert_close(c.time_s, lat + 1.75 * S / (0.5 * 0.78 * 300e9), 1e-12, 0);
}

static void collective_time_never_decreases_with_bytes(void **state)
{
    (void)state;
    static const enum ts_coll colls[] = {TS_COLL_ALLREDUCE, TS_COLL_ALLGATHER,
                                         TS_COLL_REDUCESCATTER, TS_COLL_ALLTOALL,
                                         TS_COLL_SENDRECV};
    static const struct {
        int ranks;
        long stride;
    } groups[] = {{2, 1}, {8, 1}, {16, 1}, {64, 1}, {512, 1}, {8, 8}, {4, 2}, {32, 8}};
    for (size_t s = 0; s < TS_ARRAY_LEN(systems); s++) {
        struct ts_system sys;
        load_system(systems[s], &sys);
        for (size_t k = 0; k < TS_ARRAY_LEN(groups); k++) {
            struct ts_group g;
            ts_comm_group_strided(&sys, groups[k].ranks, groups[k].stride, &g);
            for (size_t c = 0; c < TS_ARRAY_LEN(colls); c++) {
                double prev = 0.0;
                /* 1 B to 64 GiB in steps of 2^(1/8) */
                for (int i = 0; i <= 36 * 8; i++) {
                    double S = pow(2.0, i / 8.0);
                    struct ts_coll_cost cost;
                    ts_comm_collective(&sys, colls[c], &g, S, &cost);
                    if (cost.time_s < prev) {
                        print_error("%s, %d ranks stride %ld, %s: %.9g s at %.0f B after %.9g\n",
                                    systems[s], g.size, g.stride, ts_coll_names[colls[c]],
                                    cost.time_s, S, prev);
                        fail();
                    }
                    prev = cost.time_s;
                }
            }
        }
    }
}

static void tree_correction_is_nccls_table_at_powers_of_two_and_log_linear_between(void **state)
{
    (void)state;
    /* NCCL 2.30.7 src/graph/tuning.cc treeCorrectionFactor, entry log2(bytes / 64): 64 B
     * entry 0, 1 MiB entry 14, 256 KiB entry 12, 128 MiB entry 21, 256 MiB entry 22 */
    assert_close(ts_comm_tree_correction(TS_PROTO_LL, 64), 1.0, 0, 0);
    assert_close(ts_comm_tree_correction(TS_PROTO_SIMPLE, 64), 0.9, 0, 0);
    assert_close(ts_comm_tree_correction(TS_PROTO_LL, 256 * 1024), 0.4, 1e-15, 0);
    assert_close(ts_comm_tree_correction(TS_PROTO_LL, MIB), 0.5, 1e-15, 0);
    assert_close(ts_comm_tree_correction(TS_PROTO_LL128, MIB), 0.6, 1e-15, 0);
    assert_close(ts_comm_tree_correction(TS_PROTO_SIMPLE, MIB), 0.5, 1e-15, 0);
    assert_close(ts_comm_tree_correction(TS_PROTO_LL128, 128 * MIB), 1.0, 1e-15, 0);
    assert_close(ts_comm_tree_correction(TS_PROTO_SIMPLE, 256 * MIB), 0.9, 1e-15, 0);
    /* uncorrected below 64 B and from 512 MiB on (NCCL: logSize < 0 or >= 23) */
    assert_close(ts_comm_tree_correction(TS_PROTO_SIMPLE, 32), 1.0, 0, 0);
    assert_close(ts_comm_tree_correction(TS_PROTO_SIMPLE, 512 * MIB), 1.0, 0, 0);
    assert_close(ts_comm_tree_correction(TS_PROTO_SIMPLE, 4 * GIB), 1.0, 0, 0);
    /* between powers of two, linear in log2 bytes: 1.5 MiB = 2^(14 + log2 1.5) x 64, LL
     * entries 14 and 15 are 0.5 and 0.6; 384 MiB lies between Simple's 0.9 and 1 */
    assert_close(ts_comm_tree_correction(TS_PROTO_LL, 1.5 * MIB), 0.5 + 0.1 * log2(1.5), 1e-15,
                 0);
    assert_close(ts_comm_tree_correction(TS_PROTO_SIMPLE, 384 * MIB), 0.9 + 0.1 * log2(1.5),
                 1e-15, 0);
    /* a tree all-reduce's bandwidth part is divided by it: 2 x 8 H100, 1.5 MiB, Simple tree */
    struct ts_system sys;
    load_system("dgx-h100", &sys);
    struct ts_group g;
    ts_comm_group_strided(&sys, 16, 1, &g);
    struct ts_coll_cost c;
    double S = 1.5 * MIB;
    assert_true(ts_comm_collective_algo(&sys, TS_COLL_ALLREDUCE, &g, S, TS_ALGO_TREE, &c));
    double up = 2 * S / (450e9 * 0.82), out = 2 * 0.5 * S / 8 / (50e9 * 0.955);
    double f = 0.5 + (0.6 - 0.5) * log2(1.5);   /* Simple entries 14 and 15: 0.5, 0.6 */
    assert_close(c.time_s, 2 * (1 * 159e-6 + 7 * 8.7e-6) + fmax(up, out) / f, 1e-12, 0);
}

static void every_tree_protocol_alone_takes_longer_for_more_bytes(void **state)
{
    (void)state;
    /* NCCL's correction steps at powers of two (LL 0.4 -> 0.5 at 1 MiB would make 1 MiB
     * faster than 1 MiB - 1 B); interpolated, each tree protocol's time never falls */
    static const char *const names[] = {"dgx-h100", "dgx-b200", "gcp-a3-mega"};
    for (size_t s = 0; s < TS_ARRAY_LEN(names); s++) {
        struct ts_system sys;
        load_system(names[s], &sys);
        struct ts_group g;
        ts_comm_group_strided(&sys, 32, 1, &g);
        for (int p = 0; p < TS_PROTO_COUNT; p++) {
            double prev = 0.0;
            for (int i = 0; i <= 33 * 16; i++) {
                double S = pow(2.0, i / 16.0);
                struct ts_coll_cost c;
                assert_true(ts_comm_collective_proto(&sys, TS_COLL_ALLREDUCE, &g, S,
                                                     TS_ALGO_TREE, (enum ts_proto)p, &c));
                if (c.time_s < prev) {
                    print_error("%s tree %s: %.9g s at %.0f B after %.9g\n", names[s],
                                ts_proto_names[p], c.time_s, S, prev);
                    fail();
                }
                prev = c.time_s;
            }
        }
    }
}

static void send_recv_runs_ll_up_to_16_kib_and_simple_above(void **state)
{
    (void)state;
    /* NCCL_P2P_LL_THRESHOLD = 16384 (src/enqueue.cc, 2.30.7) */
    assert_int_equal(ts_comm_p2p_proto(16384), TS_PROTO_LL);
    assert_int_equal(ts_comm_p2p_proto(16385), TS_PROTO_SIMPLE);
    struct ts_system sys;
    load_system("dgx-h100", &sys);
    struct ts_coll_cost c;
    /* inside a node (ranks 1 apart): NVLink LL step 8.7 x 0.6 / 3.4 us, half of Simple's
     * 450 x 0.82 GB/s */
    double bw = 450e9 * 0.82;
    ts_comm_p2p(&sys, 1, 16384, &c);
    assert_int_equal(c.proto, TS_PROTO_LL);
    assert_close(c.time_s, 8.7e-6 * 0.6 / 3.4 + 16384 / (0.5 * bw), 1e-12, 0);
    ts_comm_p2p(&sys, 1, 16385, &c);
    assert_int_equal(c.proto, TS_PROTO_SIMPLE);
    assert_close(c.time_s, 8.7e-6 + 16385 / bw, 1e-12, 0);
    /* across nodes (ranks 8 apart): the network's LL step 159 x 5 / 14 us (tree row, one rank
     * per domain), half of one NIC share 50 x 0.955 GB/s */
    double nic = 50e9 * 0.955;
    ts_comm_p2p(&sys, 8, 4096, &c);
    assert_int_equal(c.proto, TS_PROTO_LL);
    assert_close(c.time_s, 159e-6 * 5.0 / 14 + 4096 / (0.5 * nic), 1e-12, 0);
    ts_comm_p2p(&sys, 8, 1 * MIB, &c);
    assert_int_equal(c.proto, TS_PROTO_SIMPLE);
    assert_close(c.time_s, 159e-6 + MIB / nic, 1e-12, 0);
}

static void large_messages_cost_exactly_the_simple_protocol(void **state)
{
    (void)state;
    /* From 4 GiB on, the other protocols' lower bandwidth (LL128 0.92 of Simple) outweighs
     * their shorter steps on groups up to 64 ranks: the cost is the minimum over the
     * algorithms of the Simple model, bit for bit. */
    static const enum ts_coll colls[] = {TS_COLL_ALLREDUCE, TS_COLL_ALLGATHER,
                                         TS_COLL_REDUCESCATTER};
    static const int ranks[] = {2, 4, 8, 16, 32, 64};
    for (size_t s = 0; s < TS_ARRAY_LEN(systems); s++) {
        struct ts_system sys;
        load_system(systems[s], &sys);
        for (size_t k = 0; k < TS_ARRAY_LEN(ranks); k++) {
            struct ts_group g;
            ts_comm_group_strided(&sys, ranks[k], 1, &g);
            for (size_t c = 0; c < TS_ARRAY_LEN(colls); c++)
                for (double S = 4 * GIB; S <= 64 * GIB; S *= 4) {
                    struct ts_coll_cost best, simple = {0};
                    bool found = false;
                    for (int a = 0; a < TS_ALGO_COUNT; a++) {
                        struct ts_coll_cost x;
                        if (ts_comm_collective_algo(&sys, colls[c], &g, S, (enum ts_algo)a, &x) &&
                            (!found || x.time_s < simple.time_s)) {
                            simple = x;
                            found = true;
                        }
                    }
                    assert_true(found);
                    ts_comm_collective(&sys, colls[c], &g, S, &best);
                    if (best.proto != TS_PROTO_SIMPLE || best.time_s != simple.time_s ||
                        best.algo != simple.algo) {
                        print_error("%s, %d ranks, %s at %.0f B: %s/%s %.17g s, "
                                    "Simple %s %.17g s\n",
                                    systems[s], g.size, ts_coll_names[colls[c]], S,
                                    ts_algo_names[best.algo], ts_proto_names[best.proto],
                                    best.time_s, ts_algo_names[simple.algo], simple.time_s);
                        fail();
                    }
                }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ll128_is_enabled_only_for_nvidia_gpus_on_nvlink),
        cmocka_unit_test(only_ring_tree_and_send_recv_have_the_ll_protocols),
        cmocka_unit_test(eight_a100_switch_from_ll_to_ll128_to_simple_at_the_hand_computed_sizes),
        cmocka_unit_test(two_a3_mega_nodes_run_small_all_reduces_as_ring_ll_under_nccls_cap),
        cmocka_unit_test(the_ll_cap_follows_the_gpu_generation_even_on_identical_levels),
        cmocka_unit_test(collective_time_never_decreases_with_bytes),
        cmocka_unit_test(large_messages_cost_exactly_the_simple_protocol),
        cmocka_unit_test(tree_correction_is_nccls_table_at_powers_of_two_and_log_linear_between),
        cmocka_unit_test(every_tree_protocol_alone_takes_longer_for_more_bytes),
        cmocka_unit_test(send_recv_runs_ll_up_to_16_kib_and_simple_above),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
