/*
 * Placement of parallel groups and alpha-beta costs of collectives (see comm.h).
 */
#include <math.h>
#include <string.h>

#include "comm/comm.h"

const char *const ts_coll_names[TS_COLL_COUNT] = {"allreduce", "reducescatter", "allgather",
                                                  "alltoall", "sendrecv"};
const char *const ts_algo_names[TS_ALGO_COUNT] = {"ring", "tree", "hierarchical", "nvls", "pat",
                                                  "direct"};
const char *const ts_proto_names[TS_PROTO_COUNT] = {"ll", "ll128", "simple"};
_Static_assert(TS_COLL_COUNT == 5, "update ts_coll_names");
_Static_assert(TS_PROTO_COUNT == 3, "update ts_proto_names");
_Static_assert(TS_ALGO_COUNT == 6, "update ts_algo_names");

/* PAT (NCCL 2.23+, src/graph/tuning.cc, unchanged through 2.30.7): latency
 * log2i(nNodes) x interLat / 3.5 + 2.8 us x nRanks, with interLat the network Simple
 * step hwLat[NET][TREE][SIMPLE] = 14 us; bus bandwidth 0.75 of the ring's (2.30.7; 0.85 in
 * 2.23). The linear term is kept as NCCL's ratio 2.8 / 14 of a network step, so that it
 * scales with this catalogue's fitted network step. */
#define PAT_LOG_DIVISOR 3.5
#define PAT_LINEAR_PER_RANK (2.8 / 14.0)
#define PAT_BANDWIDTH_FACTOR 0.75
/* NVLS latencies relative to the steps the catalogue's alphas stand for (the same
 * tuning.cc tables): an NVLS pass costs hwLat[NVLINK][NVLS][SIMPLE] 25 us against a ring
 * step's hwLat[NVLINK][RING][SIMPLE] 3.4 us, and an NVLS_TREE network hop 20.9 us against
 * the tree's hwLat[NET][TREE][SIMPLE] 14 us. */
#define NVLS_PASS_IN_UP_STEPS (25.0 / 3.4)
#define NVLS_TREE_HOP_IN_OUT_STEPS (20.9 / 14.0)
/* Ring steps across the network with several ranks per domain: NCCL's own latency model of
 * a ring (2.30.7 src/graph/tuning.cc, ncclTunerConstantsDefaults and ncclTopoTuneModel,
 * Simple protocol, the one NCCL runs for the multi-MiB buckets of training): a base latency
 * baseLatencies[RING][SIMPLE] = 8.4 us per collective plus hwLatencies[NET][RING][SIMPLE] =
 * 14 us per network step (interLat; the intra-node steps cost max(NVLink ring step, 3 x 1 us
 * network post overhead), which the catalogue's fitted scale-up step already exceeds). The
 * catalogue's scale_out.latency (159 us on InfiniBand) is the double binary tree's network
 * step fitted on one measured 1 MiB all-reduce, where every hop is exposed in turn; NCCL's
 * tuner prices that point at 65 us (LL128) to 120 us (Simple) where 376 us was measured,
 * and no multi-node ring measurement is in the references, so the ring takes NCCL's model
 * as published. With one
 * rank per domain NCCL itself says the ring's latencies are fully exposed and prices them
 * with the tree's network step (tuning.cc: "With ppn=1 latencies are fully exposed, use the
 * Tree network latency"): there the fitted step stays. A fabric declared faster than NCCL's
 * step keeps its own; the scale-up step is a floor. */
#define NCCL_RING_BASE_S 8.4e-6
#define NCCL_RING_NET_STEP_S 14e-6

/* ---------------------------------------------------------------- protocols */

/* NCCL 2.30.7 src/graph/tuning.cc (commit 5067397c2676d5aed50042fc39e5c8ee96eb0027),
 * ncclTunerConstantsDefaults: per-step hardware latencies hwLatencies[hw][algo][proto] in us,
 * protocols LL, LL128, Simple, for the two algorithms that have all three (tree, ring). The
 * catalogue's alphas are fitted Simple steps; LL and LL128 steps are those alphas times
 * NCCL's ratio of the protocol's step to the Simple step the alpha stands for. */
enum { HW_NVLINK, HW_PCI, HW_NET, HW_COUNT };
enum { LAT_TREE, LAT_RING, LAT_ALGOS };
static const double nccl_hw_latency_us[HW_COUNT][LAT_ALGOS][TS_PROTO_COUNT] = {
    [HW_NVLINK] = {[LAT_TREE] = {0.6, 1.25, 4.0}, [LAT_RING] = {0.6, 1.9, 3.4}},
    [HW_PCI] = {[LAT_TREE] = {1.0, 1.9, 4.0}, [LAT_RING] = {1.0, 2.5, 5.7}},
    [HW_NET] = {[LAT_TREE] = {5.0, 8.5, 14.0}, [LAT_RING] = {2.7, 4.0, 14.0}},
};
/* baseLatencies[RING][proto], us, paid once per collective that crosses domains (as the
 * Simple ring's NCCL_RING_BASE_S). */
static const double nccl_ring_base_us[TS_PROTO_COUNT] = {6.6, 14.0, 8.4};
/* Bandwidth of a protocol as a fraction of Simple's (ncclTopoTuneModel, "Various model
 * refinements"): ring LL busBw x 0.5, ring LL128 x 0.92 (the comment there: 120/128); tree
 * all-reduce x 0.92 for every protocol, then LL x 1/3.8 and, across nodes, LL128 x 120/128.
 * The tree here always spans domains (ts_comm_collective_proto), so its LL128 factor is the
 * multi-node one. */
static const double proto_ring_bw[TS_PROTO_COUNT] = {0.5, 0.92, 1.0};
static const double proto_tree_bw[TS_PROTO_COUNT] = {1.0 / 3.8, 120.0 / 128.0, 1.0};
/* NCCL's tree correction (2.30.7 src/graph/tuning.cc, treeCorrectionFactor and
 * ncclTopoGetAlgoTime, tag v2.30.7-1, commit 73cf112295c33aee2b895f329f592f2a9b4b0f97): "Trees
 * are not perfectly sticking to the model for medium sizes", so the tree all-reduce's bandwidth
 * (after the LL cap) is multiplied by treeCorrectionFactor[proto][log2(nBytes / 64)] for
 * nBytes from 64 B (entry 0) to just under 512 MiB (entry 22 from 256 MiB); smaller and
 * larger messages are not corrected (factor 1). Entries are per power of two; NCCL's step
 * at each power makes its time drop where the factor rises (tree LL just below 1 MiB at
 * 0.4, at 1 MiB 0.5: 20% faster with more bytes), so here the factor is interpolated linearly in log2 size between the powers of
 * two, where it equals NCCL's entry (and 1 at 512 MiB, the first uncorrected power). Each rise
 * between neighbours is below a factor 2 (at most 0.6 -> 0.8), so bytes / factor still grows
 * with bytes. */
#define TREE_CORR_ENTRIES 23
static const double tree_correction[TS_PROTO_COUNT][TREE_CORR_ENTRIES] = {
    [TS_PROTO_LL] = {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5,
                     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    [TS_PROTO_LL128] = {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6,
                        .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0},
    [TS_PROTO_SIMPLE] = {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
                         .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
};

double ts_comm_tree_correction(enum ts_proto proto, double bytes)
{
    if (bytes < 64.0 || proto < 0 || proto >= TS_PROTO_COUNT)
        return 1.0;
    double x = log2(bytes / 64.0);
    if (x >= TREE_CORR_ENTRIES)
        return 1.0;
    int i = (int)floor(x);
    double lo = tree_correction[proto][i];
    double hi = i + 1 < TREE_CORR_ENTRIES ? tree_correction[proto][i + 1] : 1.0;
    return lo + (hi - lo) * (x - i);
}

/* A scale-up level faster than PCIe 5.0 x16 (64 GB/s per direction) is a GPU fabric
 * (NVLink, Infinity Fabric): NCCL's NVLINK latency row and LL128 where the generation has
 * it; slower ones are PCIe, the PCI row (tuning.cc intraHw: typeIntra == LINK_NVL). */
#define PCIE_MAX_BYTES_PER_S 64e9

static bool up_is_gpu_fabric(const struct ts_system *sys)
{
    return sys->scale_up.bandwidth > PCIE_MAX_BYTES_PER_S;
}

bool ts_comm_ll128_enabled(const struct ts_system *sys)
{
    /* tuning.cc: LL128 is on by default for compute capability >= 9.0 up to PXN network
     * paths, below that up to PXB (the NIC under the GPU's PCIe switch, as in DGX A100 and
     * its cloud twins), and only where the intra-node path is NVLink (typeIntra <= NVB);
     * never below SM70. AMD (RCCL) and hosts are not NCCL: left out. */
    enum ts_generation gen = sys->accel.generation;
    bool nvidia = gen == TS_GEN_AMPERE || gen == TS_GEN_HOPPER || gen == TS_GEN_BLACKWELL;
    return nvidia && up_is_gpu_fabric(sys);
}

double ts_comm_ll_max_bus_bandwidth(const struct ts_system *sys, int nodes)
{
    /* tuning.cc llMaxBws, GB/s of bus bandwidth: inside one node by GPU generation (Volta 39,
     * Ampere 87.7, Hopper 141, Blackwell 282); across nodes by host CPU: Intel 39 at two
     * nodes and 20.4 beyond, AMD hosts 22.5 and 19, every other host (Arm: Grace) the Intel
     * row. System files do not name the host CPU: the Intel row is used (DGX H100 / B200 and
     * GB200 hosts take it; DGX A100's AMD EPYC hosts would cap LL 42% / 7% lower).
     * Generations NCCL does not know take its lowest one-node figure (Volta's 39). */
    if (nodes >= 3)
        return 20.4e9;
    if (nodes == 2)
        return 39.0e9;
    switch (sys->accel.generation) {
    case TS_GEN_AMPERE:
        return 87.7e9;
    case TS_GEN_HOPPER:
        return 141.0e9;
    case TS_GEN_BLACKWELL:
        return 282.0e9;
    default:
        return 39.0e9;
    }
}

/* A step of algorithm row `a` on hardware `hw` with protocol p, from the Simple step
 * `simple_s` of row (hw_ref, a_ref) that a fitted alpha stands for. */
static double proto_step(double simple_s, int hw_ref, int a_ref, int hw, int a, enum ts_proto p)
{
    return simple_s * nccl_hw_latency_us[hw][a][p] /
           nccl_hw_latency_us[hw_ref][a_ref][TS_PROTO_SIMPLE];
}

/* ---------------------------------------------------------------- placement */

void ts_comm_group_strided(const struct ts_system *sys, int size, long stride, struct ts_group *g)
{
    long D = sys->scale_up.domain_size, G = sys->gpus_per_node;
    memset(g, 0, sizeof *g);
    g->size = size;
    g->stride = stride;
    /* Members i * stride; those sharing floor(i * stride / D) share a domain. With a stride
     * below the domain size the members cover the domains from the first to the last one
     * (a stride that does not divide D still leaves none empty); the busiest domain holds
     * ceil(D / stride) of them. */
    long last = (long)(size - 1) * stride;
    g->domains = stride >= D ? size : (int)(last / D + 1);
    long in = stride >= D ? 1 : (D + stride - 1) / stride;
    g->per_domain = (int)(in < size ? in : size);
    g->nodes = stride >= G ? size : (int)(last / G + 1);
    long pn = stride >= G ? 1 : (G + stride - 1) / stride;
    g->per_node = (int)(pn < size ? pn : size);
    /* Nodes between the first and the last member, all of which the traffic may cross. */
    long spread = ((long)(size - 1) * stride) / G + 1;
    g->crosses_leaf = spread > sys->scale_out.leaf_nodes;
}

void ts_comm_group(const struct ts_system *sys, const struct ts_parallel *par, enum ts_pdim dim,
                   struct ts_group *out)
{
    int sizes[TS_PDIM_COUNT];
    sizes[TS_PDIM_TP] = par->tp;
    sizes[TS_PDIM_CP] = par->cp;
    sizes[TS_PDIM_DP] = par->dp;
    sizes[TS_PDIM_PP] = par->pp;
    long stride = 1;
    for (int i = 0; i < TS_PDIM_COUNT && par->order[i] != (int)dim; i++)
        stride *= sizes[par->order[i]];
    ts_comm_group_strided(sys, sizes[dim], stride, out);
}

/* ---------------------------------------------------------------- bandwidths */

double ts_comm_up_bandwidth(const struct ts_system *sys, const struct ts_group *g)
{
    const struct ts_level *u = &sys->scale_up;
    double bw = u->bandwidth * u->efficiency;
    /* A full mesh gives each peer pair one link of bandwidth / (D - 1): a group uses the
     * links to its own members only. */
    if (u->topology == TS_UP_MESH && u->domain_size > 1 && g->per_domain < u->domain_size)
        bw *= (double)(g->per_domain - 1) / (u->domain_size - 1);
    return bw;
}

double ts_comm_out_bandwidth(const struct ts_system *sys, const struct ts_group *g)
{
    const struct ts_level *o = &sys->scale_out;
    double bw = o->bandwidth * o->efficiency;
    if (g->crosses_leaf)
        bw /= o->oversubscription;
    return bw;
}

static int floor_log2(int n)
{
    int k = 0;
    while ((2 << k) <= n)
        k++;
    return k;
}

static int ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

/* ---------------------------------------------------------------- algorithms */

/* Network links of the busiest node in NCCL's double binary tree over n nodes (both trees
 * together): each tree carries half the buffer, and a node sends (and receives) S/2 over
 * every tree link it has - to its parent in the reduce, to each child in the broadcast - so
 * its NIC bytes per direction are links x S/2. The trees (NCCL src/graph/trees.cc,
 * ncclGetDtree: a bit-pattern binary tree rooted at 0 with the root having one child, and
 * its mirror, or its shift by one for odd n) give 2 links at 2 nodes (each node is the
 * other's only neighbour in both trees), 3 at 3 nodes, and 4 from 4 nodes on (a node
 * inside one tree with a parent and two children is a leaf of the other); tests/test_comm.c
 * builds the trees by brute force for n up to 4096. NCCL's tuner says the same: it prices
 * trees on <= 2 nodes with the graph's intra-node bandwidth, which its search lets grow to
 * twice the network one ("increase bwIntra for trees (2 nodes or collnet)",
 * src/graph/search.cc; tuning.cc: bw = nNodes <= 2 ? bwIntra : bwInter), and doubles the
 * network bandwidth of NVLS_TREE on 2 nodes ("Handle 2 node case of NVLSTree"). */
static double dtree_links(int nodes)
{
    return nodes <= 1 ? 0.0 : nodes == 2 ? 2.0 : nodes == 3 ? 3.0 : 4.0;
}

static void finish(struct ts_coll_cost *c, double up_bw, double out_bw, bool pipelined)
{
    c->up_s = c->up_bytes > 0 ? c->up_bytes / up_bw : 0.0;
    c->out_s = c->out_bytes > 0 ? c->out_bytes / out_bw : 0.0;
    c->time_s = c->latency_s + (pipelined ? fmax(c->up_s, c->out_s) : c->up_s + c->out_s);
}

/* LL's bandwidth cap: the bandwidth part of c lasts at least min_s. */
static void ll_cap(struct ts_coll_cost *c, double min_s)
{
    double bw_s = c->time_s - c->latency_s;
    if (min_s > bw_s)
        c->time_s = c->latency_s + min_s;
}

/* ---------------------------------------------------------------- all-to-all */

/* NCCL's direct all-to-all on NVLink reaches 0.744 of link rate: nccl-tests alltoall_perf on
 * 4x H100 SXM in one node, 500 MiB, busbw 334.9 GB/s of 450 GB/s (NVIDIA/nccl issue #2169,
 * NCCL 2.30.4, Simple protocol). The catalogue's scale-up efficiencies are ring bus
 * bandwidths (DGX H100: 0.82), so all-to-all runs at 0.744 / 0.82 of a system's ring rate. */
#define A2A_UP_OF_RING ((334.9 / 450.0) / 0.82)
/* DeepEP's normal (high-throughput) kernels, V1 on H800 (NVLink 200 GB/s per direction, CX7
 * 400 Gb/s = 50 GB/s), DeepSeek-V3 setting (4096 tokens, hidden 7168, top-8, top-4 groups):
 * intranode EP8 dispatch 153 GB/s NVLink, internode EP32 58 GB/s and EP64 51 GB/s RDMA
 * (github.com/deepseek-ai/DeepEP docs/legacy.md "Normal kernels"). The test that prints them
 * (tests/legacy/test_internode.py) counts a token once per destination node including its
 * own, and NVLink receives including its own rank, so the bytes that leave the GPU are
 * 7/8 of the NVLink figure and, for uniform top-8 routing, 2.70 / 3.60 (EP32, 4 nodes) and
 * 3.06 / 3.50 (EP64, 8 nodes under the top-4-node limit: 4 nodes of which 7/8 remote) of
 * the RDMA ones: NVLink 153 x 7/8 / 200 = 0.67 (V2 on B200, README: 726 GB/s logical x 7/8
 * / 900 = 0.71), RDMA 58 x 0.75 / 50 = 0.87 and 51 x 0.875 / 50 = 0.89. Fractions of link
 * rate: */
#define DEEPEP_UP_EFFICIENCY 0.69    /* mean of 0.67 (H800) and 0.71 (B200) */
#define DEEPEP_OUT_EFFICIENCY 0.88   /* mean of EP32 and EP64 */

/* Members of group g under the busiest leaf (or rail) switch: a leaf serves leaf_nodes
 * nodes, i.e. leaf_nodes x gpus_per_node consecutive ranks. */
static int members_per_leaf(const struct ts_system *sys, const struct ts_group *g)
{
    long span = (long)sys->scale_out.leaf_nodes * sys->gpus_per_node;
    long m = g->stride >= span ? 1 : (span + g->stride - 1) / g->stride;
    return (int)(m < g->size ? m : g->size);
}

/* Multiplier on a member's NIC time when `share` of its inter-domain bytes leave its leaf:
 * every GPU under a leaf sends alike (all groups of a kind communicate together), so the
 * leaf's uplinks, 1 / oversubscription of its down-links, carry share x the down-link
 * traffic: time = max(bytes / B, share x bytes / (B / oversubscription)). This is the
 * fabric's bisection for a uniform exchange (a full fat tree has 1:1). With a
 * rail-optimized fabric NCCL's PXN (2.12+) first moves a message over NVLink to the GPU on
 * the destination's rail, so it stays on one rail switch up to leaf_nodes nodes (NVIDIA
 * blog "Doubling all2all performance with NCCL 2.12", 2022); DeepEP's RDMA goes to the
 * same-index GPU of the remote node, the same rail. */
static double bisection_factor(const struct ts_system *sys, const struct ts_group *g)
{
    if (g->size <= g->per_domain)
        return 1.0;
    int m_leaf = members_per_leaf(sys, g);
    double share = (double)(g->size - m_leaf) / (g->size - g->per_domain);
    return fmax(1.0, share * sys->scale_out.oversubscription);
}

/* NCCL all-to-all (nccl-tests src/alltoall.cu: one ncclSend and ncclRecv of S/n per peer
 * inside a group call): S/n stays on the rank, S/n goes to each of the n_in - 1 domain
 * peers over NVLink and to each of the n - n_in others through the rank's own NIC (NCCL
 * does not spread one GPU's all-to-all over other NICs: nccl-tests issue #267). All peers
 * progress at once over NCCL's channels, so the latency is one step of the slowest level
 * crossed, not one per peer. Bus bandwidth check (nccl-tests issue #130): across N nodes
 * of n_in GPUs, busbw = (n - 1) / n x S / t = (n - 1) / (n - n_in) x B_nic ~ N / (N - 1)
 * B_nic. On a rail-optimized fabric PXN adds the NVLink hop to the destination's rail for
 * the (per_node - 1) / per_node of the network bytes that leave from another GPU's rail. */
static void alltoall_direct(const struct ts_system *sys, const struct ts_group *g, double S,
                            struct ts_coll_cost *c)
{
    const struct ts_level *up = &sys->scale_up, *so = &sys->scale_out;
    int n = g->size, n_in = g->per_domain, n_out = g->domains;
    c->latency_s = n_out > 1 ? fmax(up->latency, so->latency) : up->latency;
    c->up_bytes = (double)(n_in - 1) / n * S;
    c->out_bytes = (double)(n - n_in) / n * S;
    if (so->topology == TS_OUT_RAIL_OPTIMIZED && g->per_node > 1 && n_out > 1)
        c->up_bytes += c->out_bytes * (g->per_node - 1) / g->per_node;
    double up_bw = ts_comm_up_bandwidth(sys, g) * A2A_UP_OF_RING;
    double out_bw = so->bandwidth * so->efficiency / bisection_factor(sys, g);
    finish(c, up_bw, out_bw, true);
}

/* Probability that none of a token's k distinct experts (drawn uniformly from E) falls among
 * m given ones: C(E - m, k) / C(E, k) = prod_{j<k} (E - m - j) / (E - j) (hypergeometric). */
static double miss_probability(int E, int m, int k)
{
    double p = 1.0;
    for (int j = 0; j < k; j++) {
        if (E - m - j <= 0)
            return 0.0;
        p *= (double)(E - m - j) / (E - j);
    }
    return p;
}

double ts_comm_moe_copies(int experts, int top_k, int parts)
{
    TS_ASSERT(parts >= 1 && experts >= parts && top_k >= 1 && top_k <= experts,
              "bad MoE layout: %d experts, top-%d, %d parts", experts, top_k, parts);
    return parts * (1.0 - miss_probability(experts, experts / parts, top_k));
}

void ts_comm_moe_dispatch(const struct ts_system *sys, const struct ts_group *g,
                          double tokens_bytes, int top_k, int experts, int ep,
                          enum ts_moe_dispatcher dispatcher, struct ts_coll_cost *out)
{
    TS_ASSERT(ep == g->size, "EP group of %d ranks for ep = %d", g->size, ep);
    TS_ASSERT(top_k >= 1 && experts >= ep && experts % ep == 0 && top_k <= experts,
              "bad MoE layout: %d experts, top-%d, ep %d", experts, top_k, ep);
    memset(out, 0, sizeof *out);
    out->algo = TS_ALGO_DIRECT;
    out->proto = TS_PROTO_SIMPLE;
    if (ep <= 1 || tokens_bytes <= 0)
        return;
    const struct ts_level *up = &sys->scale_up, *so = &sys->scale_out;
    int n = g->size, n_in = g->per_domain, n_out = g->domains;
    double a_max = n_out > 1 ? fmax(up->latency, so->latency) : up->latency;
    switch (dispatcher) {
    case TS_MOE_ALLTOALL:
        /* Megatron-Core MoEAlltoAllTokenDispatcher: permute one copy per (token, routed
         * expert), exchange the per-expert counts (one small all-to-all), then the tokens. */
        ts_comm_collective(sys, TS_COLL_ALLTOALL, g, tokens_bytes * top_k, out);
        out->latency_s += a_max;
        out->time_s += a_max;
        break;
    case TS_MOE_ALLGATHER:
        /* MoEAllGatherTokenDispatcher: all-gather the EP group's tokens (output n x the
         * rank's tokens); each rank keeps those routed to its experts. */
        ts_comm_collective(sys, TS_COLL_ALLGATHER, g, tokens_bytes * n, out);
        break;
    case TS_MOE_DEEPEP: {
        /* DeepEP normal kernels (DeepSeek-V3 tech report sec. 3.2.2; DeepEP README): a token
         * crosses the scale-out fabric once per destination NVLink domain holding one of its
         * experts (RDMA to the same-index GPU there), then NVLink forwards it once per
         * destination rank, not once per expert. With experts spread evenly, the expected
         * destination domains of a token are n_out (1 - C(E - E/n_out, k) / C(E, k)), of which
         * the own domain is one with its probability; forwarded copies land on another GPU
         * with probability (n_in - 1) / n_in. Uniform routing, no node limit (DeepSeek-V3
         * caps a token at 4 nodes, which only lowers these bytes). Layout notification and
         * data are two steps; RDMA and NVLink forwarding are pipelined. */
        double own = 1.0 - miss_probability(experts, experts / n_out, top_k);
        double domains = ts_comm_moe_copies(experts, top_k, n_out);
        double ranks = ts_comm_moe_copies(experts, top_k, n);
        out->latency_s = 2.0 * a_max;
        out->out_bytes = n_out > 1 ? tokens_bytes * (domains - own) : 0.0;
        out->up_bytes = n_in > 1 ? tokens_bytes * ranks * (n_in - 1) / n_in : 0.0;
        double up_bw = up->bandwidth * DEEPEP_UP_EFFICIENCY;
        if (up->topology == TS_UP_MESH && up->domain_size > 1 && n_in < up->domain_size)
            up_bw *= (double)(n_in - 1) / (up->domain_size - 1);
        double out_bw = so->bandwidth * DEEPEP_OUT_EFFICIENCY / bisection_factor(sys, g);
        finish(out, up_bw, out_bw, true);
        break;
    }
    case TS_MOE_DISPATCHER_COUNT:
        TS_ASSERT(false, "dispatcher %d", (int)dispatcher);
    }
}

void ts_comm_moe_combine(const struct ts_system *sys, const struct ts_group *g,
                         double tokens_bytes, int top_k, int experts, int ep,
                         enum ts_moe_dispatcher dispatcher, struct ts_coll_cost *out)
{
    if (dispatcher != TS_MOE_ALLGATHER) {
        /* all-to-all and DeepEP combine send back what dispatch brought (reversed). */
        ts_comm_moe_dispatch(sys, g, tokens_bytes, top_k, experts, ep, dispatcher, out);
        return;
    }
    TS_ASSERT(ep == g->size, "EP group of %d ranks for ep = %d", g->size, ep);
    memset(out, 0, sizeof *out);
    out->algo = TS_ALGO_RING;
    out->proto = TS_PROTO_SIMPLE;
    if (ep <= 1 || tokens_bytes <= 0)
        return;
    /* The all-gather dispatcher combines by a reduce-scatter of the gathered buffer. */
    ts_comm_collective(sys, TS_COLL_REDUCESCATTER, g, tokens_bytes * g->size, out);
}

bool ts_comm_collective_proto(const struct ts_system *sys, enum ts_coll coll,
                              const struct ts_group *g, double S, enum ts_algo algo,
                              enum ts_proto proto, struct ts_coll_cost *out)
{
    const struct ts_level *up = &sys->scale_up, *so = &sys->scale_out;
    int n = g->size, n_in = g->per_domain, n_out = g->domains;
    double a_up = up->latency, a_out = so->latency;
    double a_max = n_out > 1 ? fmax(a_up, a_out) : a_up;
    double up_bw = ts_comm_up_bandwidth(sys, g), out_bw = ts_comm_out_bandwidth(sys, g);
    struct ts_coll_cost c;
    memset(&c, 0, sizeof c);
    c.algo = algo;
    c.proto = proto;
    if (n <= 1 || S <= 0) {
        *out = c;
        return algo == TS_ALGO_RING && proto == TS_PROTO_SIMPLE;
    }
    bool ar = coll == TS_COLL_ALLREDUCE;
    bool rs_ag = coll == TS_COLL_REDUCESCATTER || coll == TS_COLL_ALLGATHER;
    bool simple = proto == TS_PROTO_SIMPLE;
    /* LL and LL128 run on NCCL's ring and tree only (tuning.cc: NVLS, NVLS_TREE, PAT and
     * CollNet are Simple); LL128 where NCCL enables it. */
    bool p2p_ll = coll == TS_COLL_SENDRECV && algo == TS_ALGO_DIRECT && proto == TS_PROTO_LL;
    if (!simple && algo != TS_ALGO_RING && algo != TS_ALGO_TREE && !p2p_ll)
        return false;
    if (proto == TS_PROTO_LL128 && !ts_comm_ll128_enabled(sys))
        return false;
    int hw_up = up_is_gpu_fabric(sys) ? HW_NVLINK : HW_PCI;
    switch (algo) {
    case TS_ALGO_RING: {
        if (!ar && !rs_ag)
            return false;
        /* Only the steps that cross domains pay the scale-out latency (NCCL tuning.cc:
         * nInterSteps = 2 (nNodes - 1) of the 2 (nRanks - 1) all-reduce steps). */
        double k = ar ? 2.0 : 1.0;
        double frac = k * (n - 1) / n;
        double inter = k * (n_out - 1), steps = k * (n - 1);
        double a_net = n_in == 1 ? a_max : fmax(a_up, fmin(a_out, NCCL_RING_NET_STEP_S));
        double a_in = a_up;
        if (!simple) {
            /* The scale-up alpha is the NVLink (or PCIe) ring Simple step; the scale-out one
             * the tree's network Simple step, which NCCL also charges a ring with one rank
             * per domain. LL / LL128 network steps of a ring with several ranks per domain
             * are the fitted network step times NCCL's ring-to-tree ratio, not NCCL's
             * absolute ring step: a fabric measured slower than NCCL's constants (GPUDirect-
             * TCPXO, tests/data/nccl) is slower for every protocol. */
            a_in = proto_step(a_up, hw_up, LAT_RING, hw_up, LAT_RING, proto);
            a_net = n_in == 1 ? proto_step(a_max, HW_NET, LAT_TREE, HW_NET, LAT_TREE, proto)
                              : fmax(a_in, proto_step(a_out, HW_NET, LAT_TREE, HW_NET, LAT_RING,
                                                      proto));
        }
        c.latency_s = inter * a_net + (steps - inter) * a_in;
        if (n_out > 1)
            c.latency_s += simple ? NCCL_RING_BASE_S : nccl_ring_base_us[proto] * 1e-6;
        c.up_bytes = n_in > 1 ? frac * S : 0.0;
        c.out_bytes = n_out > 1 ? frac * S / n_in : 0.0;
        finish(&c, up_bw * proto_ring_bw[proto], out_bw * proto_ring_bw[proto], true);
        /* NCCL caps LL's bus bandwidth (frac x S / time for a ring) at llMaxBw */
        if (proto == TS_PROTO_LL)
            ll_cap(&c, frac * S / ts_comm_ll_max_bus_bandwidth(sys, g->nodes));
        break;
    }
    case TS_ALGO_TREE: {
        /* NCCL's double binary tree serves all-reduce only (tuning.cc: AllGather and
         * ReduceScatter take ring, NVLS, CollNet-direct and PAT, never tree). */
        if (!ar || n_out < 2)
            return false;
        double t_out = a_out, t_up = a_up;
        if (!simple) {
            t_out = proto_step(a_out, HW_NET, LAT_TREE, HW_NET, LAT_TREE, proto);
            t_up = proto_step(a_up, hw_up, LAT_TREE, hw_up, LAT_TREE, proto);
        }
        c.latency_s = 2.0 * (ceil_log2(n_out) * t_out + (n_in - 1) * t_up);
        c.up_bytes = n_in > 1 ? 2.0 * S : 0.0;
        /* The node's tree links x S/2, spread over its n_in NIC shares (dtree_links). */
        c.out_bytes = dtree_links(n_out) * 0.5 * S / n_in;
        /* NCCL scales the tree's bandwidth, LL's cap included, by its medium-size
         * correction (ts_comm_tree_correction). */
        double corr = ts_comm_tree_correction(proto, S);
        finish(&c, up_bw * proto_tree_bw[proto] * corr, out_bw * proto_tree_bw[proto] * corr,
               true);
        /* NCCL's tree algorithm bandwidth is half its bus bandwidth (tuning.cc: ratio .5),
         * so LL's cap is S / (llMaxBw / 2) */
        if (proto == TS_PROTO_LL)
            ll_cap(&c, S / (0.5 * ts_comm_ll_max_bus_bandwidth(sys, g->nodes) * corr));
        break;
    }
    case TS_ALGO_HIERARCHICAL: {
        /* NCCL's NVLS_TREE all-reduce (2.17+): reduction in the NVLink switch inside each
         * domain, a tree between domains on each GPU's 1/n_in share, multicast back; latency
         * intraLat + 2 log2(nNodes) interLat (tuning.cc), with NVLS's own hop costs. Needs a switched domain with
         * in-network reduction; NCCL has no RS-inside / AR-across / AG-inside algorithm
         * without it (CollNet needs in-network reduction in the fabric, not modelled). */
        if (!ar || n_in < 2 || n_out < 2 || !up->in_network_reduction ||
            up->topology != TS_UP_SWITCH)
            return false;
        c.latency_s = NVLS_PASS_IN_UP_STEPS * a_up +
                      2.0 * ceil_log2(n_out) * NVLS_TREE_HOP_IN_OUT_STEPS * a_out;
        c.up_bytes = S;
        c.out_bytes = dtree_links(n_out) * 0.5 * S / n_in;
        finish(&c, up->bandwidth * up->reduction_efficiency, out_bw, true);
        break;
    }
    case TS_ALGO_NVLS: {
        /* NVLink SHARP inside one switched domain: all-reduce (NCCL 2.17+), all-gather and
         * reduce-scatter (2.19+, tuning.cc). Without in-fabric reduction NCCL disables NVLS
         * for AllGather/ReduceScatter across nodes. */
        if ((!ar && !rs_ag) || n_out != 1 || !up->in_network_reduction ||
            up->topology != TS_UP_SWITCH)
            return false;
        c.latency_s = NVLS_PASS_IN_UP_STEPS * a_up;
        /* All-reduce: each GPU pushes S into the switch, which reduces and multicasts S
         * back. All-gather: each GPU pushes its S/n share and receives the other (n-1)/n S
         * by multicast (reduce-scatter the mirror image); NCCL prices both with one NVLS
         * efficiency. */
        c.up_bytes = ar ? S : (double)(n - 1) / n * S;
        finish(&c, up->bandwidth * up->reduction_efficiency, out_bw, true);
        break;
    }
    case TS_ALGO_PAT: {
        /* NCCL's PAT all-gather / reduce-scatter: only one rank per node (ncclPatEnable:
         * nNodes == nRanks) and never all-reduce. */
        if (!rs_ag || g->per_node != 1 || g->nodes != n)
            return false;
        c.latency_s = a_max * (floor_log2(g->nodes) / PAT_LOG_DIVISOR + PAT_LINEAR_PER_RANK * n);
        double frac = (double)(n - 1) / n;
        c.up_bytes = n_in > 1 ? frac * S : 0.0;
        c.out_bytes = n_out > 1 ? frac * S / n_in : 0.0;
        finish(&c, up_bw * PAT_BANDWIDTH_FACTOR, out_bw * PAT_BANDWIDTH_FACTOR, true);
        break;
    }
    case TS_ALGO_DIRECT: {
        if (coll != TS_COLL_ALLTOALL && coll != TS_COLL_SENDRECV)
            return false;
        if (coll == TS_COLL_SENDRECV) {
            c.latency_s = a_max;
            if (!simple) {
                /* LL send/recv (ts_comm_p2p_proto): one LL step of the slowest level crossed,
                 * NVLink (or PCIe) by NCCL's ring-row ratio, the network by the tree row the
                 * fitted network step stands for (a pair has one rank per domain, whose
                 * latencies NCCL calls fully exposed); LL carries 4 data bytes in each
                 * 8-byte line, half Simple's bandwidth (ring LL busBw x 0.5, tuning.cc). */
                c.latency_s = n_out > 1 ? fmax(proto_step(a_up, hw_up, LAT_RING, hw_up,
                                                          LAT_RING, proto),
                                               proto_step(a_out, HW_NET, LAT_TREE, HW_NET,
                                                          LAT_TREE, proto))
                                        : proto_step(a_up, hw_up, LAT_RING, hw_up, LAT_RING,
                                                     proto);
            }
            if (n_out > 1)
                c.out_bytes = S;
            else
                c.up_bytes = S;
            finish(&c, up_bw * proto_ring_bw[proto], out_bw * proto_ring_bw[proto], true);
        } else {
            alltoall_direct(sys, g, S, &c);
        }
        break;
    }
    case TS_ALGO_COUNT:
        return false;
    }
    *out = c;
    return true;
}

bool ts_comm_collective_algo(const struct ts_system *sys, enum ts_coll coll,
                             const struct ts_group *g, double bytes, enum ts_algo algo,
                             struct ts_coll_cost *out)
{
    return ts_comm_collective_proto(sys, coll, g, bytes, algo, TS_PROTO_SIMPLE, out);
}

/* A plan asks for the same collective on the same group many times (every layer, every
 * unit, every microbatch): a small per-thread memo of exact arguments (the two levels, the
 * accelerator generation, the group, the bytes) returns the same cost, so results do not
 * depend on it. */
#define COLL_MEMO 16
struct coll_memo {
    struct ts_level up, out;
    struct ts_group g;
    double bytes;
    int coll;
    int generation;     // the accelerator's: LL's cap and LL128 depend on it
    bool set;
    struct ts_coll_cost cost;
};
static _Thread_local struct coll_memo coll_memo[COLL_MEMO];
static _Thread_local int coll_memo_next;

/* Field by field (struct padding holds no values to compare). */
static bool level_same(const struct ts_level *a, const struct ts_level *b)
{
    return a->bandwidth == b->bandwidth && a->latency == b->latency &&
           a->efficiency == b->efficiency && a->domain_size == b->domain_size &&
           a->topology == b->topology && a->oversubscription == b->oversubscription &&
           a->leaf_nodes == b->leaf_nodes && a->in_network_reduction == b->in_network_reduction &&
           a->reduction_efficiency == b->reduction_efficiency;
}

static bool group_same(const struct ts_group *a, const struct ts_group *b)
{
    return a->size == b->size && a->stride == b->stride && a->per_domain == b->per_domain &&
           a->domains == b->domains && a->per_node == b->per_node && a->nodes == b->nodes &&
           a->crosses_leaf == b->crosses_leaf;
}

static bool memo_match(const struct coll_memo *m, const struct ts_system *sys, int coll,
                       const struct ts_group *g, double bytes)
{
    return m->set && m->coll == coll && m->bytes == bytes &&
           m->generation == (int)sys->accel.generation && group_same(&m->g, g) &&
           level_same(&m->up, &sys->scale_up) && level_same(&m->out, &sys->scale_out);
}

void ts_comm_collective(const struct ts_system *sys, enum ts_coll coll, const struct ts_group *g,
                        double bytes, struct ts_coll_cost *out)
{
    for (int m = 0; m < COLL_MEMO; m++)
        if (memo_match(&coll_memo[m], sys, (int)coll, g, bytes)) {
            *out = coll_memo[m].cost;
            return;
        }
    bool found = false;
    if (coll == TS_COLL_SENDRECV && g->size > 1 && bytes > 0) {
        /* NCCL picks send/recv's protocol by size, not by its tuner (ts_comm_p2p_proto). */
        found = ts_comm_collective_proto(sys, coll, g, bytes, TS_ALGO_DIRECT,
                                         ts_comm_p2p_proto(bytes), out);
        TS_ASSERT(found, "no send/recv on %d ranks", g->size);
        goto remember;
    }
    /* Simple first, so that it keeps ties (and large messages, where the other protocols'
     * lower bandwidth loses, keep exactly the Simple cost). */
    static const enum ts_proto order[TS_PROTO_COUNT] = {TS_PROTO_SIMPLE, TS_PROTO_LL128,
                                                        TS_PROTO_LL};
    /* A protocol with bandwidth fraction f of Simple's takes at least B / f where Simple
     * takes L + B (B its bandwidth part): it cannot win once B (1 / f - 1) >= L, so it is
     * not evaluated (largest f over ring and tree: LL128 120/128, LL 0.5). */
    static const double min_extra[TS_PROTO_COUNT] = {
        [TS_PROTO_LL] = 1.0 / 0.5 - 1.0, [TS_PROTO_LL128] = 128.0 / 120.0 - 1.0,
        [TS_PROTO_SIMPLE] = 0.0};
    for (int a = 0; a < TS_ALGO_COUNT; a++) {
        struct ts_coll_cost simple = {0};
        bool has_simple = false;
        for (int k = 0; k < TS_PROTO_COUNT; k++) {
            enum ts_proto p = order[k];
            if (p != TS_PROTO_SIMPLE && has_simple &&
                (simple.time_s - simple.latency_s) * min_extra[p] >= simple.latency_s)
                continue;
            struct ts_coll_cost c;
            if (!ts_comm_collective_proto(sys, coll, g, bytes, (enum ts_algo)a, p, &c))
                continue;
            if (p == TS_PROTO_SIMPLE) {
                simple = c;
                has_simple = true;
            }
            if (!found || c.time_s < out->time_s) {
                *out = c;
                found = true;
            }
        }
    }
    TS_ASSERT(found, "no algorithm for %s on %d ranks", ts_coll_names[coll], g->size);
remember:;
    struct coll_memo *m = &coll_memo[coll_memo_next];
    m->up = sys->scale_up;
    m->out = sys->scale_out;
    m->g = *g;
    m->bytes = bytes;
    m->coll = (int)coll;
    m->generation = (int)sys->accel.generation;
    m->cost = *out;
    m->set = true;
    coll_memo_next = (coll_memo_next + 1) % COLL_MEMO;
}

enum ts_proto ts_comm_p2p_proto(double bytes)
{
    return bytes <= TS_NCCL_P2P_LL_THRESHOLD ? TS_PROTO_LL : TS_PROTO_SIMPLE;
}

void ts_comm_p2p(const struct ts_system *sys, long distance, double bytes, struct ts_coll_cost *out)
{
    struct ts_group g;
    ts_comm_group_strided(sys, 2, distance, &g);
    ts_comm_collective(sys, TS_COLL_SENDRECV, &g, bytes, out);
}

double ts_comm_bus_bandwidth(enum ts_coll coll, int n, double bytes, double time_s)
{
    double algbw = bytes / time_s;
    switch (coll) {
    case TS_COLL_ALLREDUCE:
        return algbw * 2.0 * (n - 1) / n;
    case TS_COLL_REDUCESCATTER:
    case TS_COLL_ALLGATHER:
    case TS_COLL_ALLTOALL:
        return algbw * (n - 1) / n;
    case TS_COLL_SENDRECV:
    case TS_COLL_COUNT:
        break;
    }
    return algbw;
}
