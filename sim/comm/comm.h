/*
 * comm: where communication groups sit on the topology, and how long collectives take.
 * Pure functions; thread safe.
 *
 * Topology: two levels. The scale-up domain (NVLink/NVSwitch, Infinity Fabric; domain_size
 * GPUs) and the scale-out fabric (InfiniBand/RoCE/EFA; one NIC share per GPU, bandwidth
 * per GPU per direction). Bandwidths are multiplied by the level's measured efficiency
 * (nccl-tests bus bandwidth / link rate); scale-out bandwidth is divided by the fabric's
 * oversubscription once a group spans more nodes than one leaf switch serves.
 *
 * Placement: ranks are numbered with the parallel dimensions nested in the job's order
 * (default tp innermost, then cp, dp, pp: Megatron-LM's order), so a group of dimension X
 * has stride = product of the sizes of the dimensions inside X. From the stride follow the
 * group's members per scale-up domain (n_in) and the domains it spans (n_out). All groups of
 * one kind communicate at the same time (every DP group reduces its gradients together), and
 * each member drives its own NIC share, so the inter-domain bandwidth of a group is n_in NIC
 * shares per domain.
 *
 * Collectives (alpha-beta model per level, Thakur, Rabenseifner and Gropp, IJHPCA 2005;
 * Patarasuk and Yuan, JPDC 2009 for rings; NCCL's double binary trees): bytes S is the
 * all-reduce buffer, the all-gather output, the reduce-scatter input, the all-to-all buffer
 * of one rank, or the send/recv message.
 *   ring:          all-reduce 2(n-1) steps moving 2(n-1)/n S per GPU; RS/AG half of that.
 *                  The 2 (n_out - 1) steps that cross domains pay a network step, the others
 *                  the scale-up one (NCCL's tuning model). With n_in > 1 the network step is
 *                  NCCL's published ring step, 14 us (Simple), capped by the scale-out
 *                  latency and floored by the scale-up one, plus NCCL's 8.4 us ring base
 *                  latency once; with one rank per domain the latencies are fully exposed and
 *                  NCCL prices them with the tree's network step: the scale-out latency
 *                  (NCCL 2.30.7 tuning.cc). Bandwidth is the bottleneck of scale-up and n_in
 *                  NIC shares.
 *   tree:          all-reduce only, by double binary trees between domains and chains inside
 *                  (NCCL): latency 2 (ceil log2 n_out alpha_out + (n_in - 1) alpha_up); 2 S
 *                  per GPU over NVLink and L S / (2 n_in) through each NIC, pipelined, with L
 *                  the tree links of the busiest domain over both trees (each carries S/2
 *                  per link and direction): 2 at 2 domains (S per node: each node is the
 *                  other's only neighbour), 3 at 3, 4 from 4 on (NCCL src/graph/trees.cc;
 *                  its tuner prices trees on <= 2 nodes at twice the network rate).
 *   hierarchical:  NCCL's NVLS_TREE all-reduce: NVLink SHARP reduction inside each switched
 *                  domain with in-network reduction, a tree between domains on each GPU's
 *                  1/n_in share (L S / (2 n_in) through each NIC, L as for tree); latency 7.35 alpha_up + 2 ceil log2 n_out x 1.49 alpha_out
 *                  (NCCL's NVLS / NVLS_TREE hop costs over its ring-NVLink and tree-network
 *                  Simple steps: 25 / 3.4 and 20.9 / 14). Only
 *                  where the domain reduces in the switch: NCCL has no RS-inside /
 *                  AR-across / AG-inside algorithm otherwise (CollNet needs in-fabric
 *                  reduction, which the catalogue does not model).
 *   nvls:          in-network reduction inside one switched domain (NVLink SHARP):
 *                  all-reduce (S through the switch) and, NCCL 2.19+, all-gather /
 *                  reduce-scatter ((n-1)/n S), at reduction_efficiency x link rate, latency
 *                  25 / 3.4 alpha_up (one NVLS pass in ring-step units).
 *   pat:           NCCL 2.23+ PAT all-gather / reduce-scatter, only for one rank per node:
 *                  latency alpha (floor log2 n / 3.5 + 0.2 n) (NCCL's log and linear terms
 *                  in units of its network step), ring bytes at 0.75 of the ring bandwidth.
 *   direct:        send/recv: one step of the slowest level crossed, with LL up to
 *                  16 KiB (ts_comm_p2p_proto), Simple above. All-to-all (NCCL's
 *                  grouped send/recv to every peer): S/n to each of the n_in - 1 domain
 *                  peers over NVLink at the nccl-tests all-to-all rate (0.744 of link
 *                  rate on H100 against the ring's 0.82), (n - n_in)/n S through the rank's
 *                  own NIC, one step of latency (all peers at once); the NIC time grows by
 *                  the fabric's bisection: when a share of the inter-domain peers sits
 *                  under other leaf / rail switches, those bytes share the leaf's uplinks,
 *                  1 / oversubscription of its down-links. On a rail-optimized fabric NCCL's
 *                  PXN adds the NVLink hop onto the destination's rail.
 * Algorithms per collective follow NCCL 2.30 (src/graph/tuning.cc, ncclTopoTuneModel):
 * all-reduce ring / tree / nvls / hierarchical (NVLS_TREE); all-gather and reduce-scatter
 * ring / nvls / pat; all-to-all and send/recv direct. Broadcast and reduce are not used by
 * the simulator. One alpha per level stands for the Simple protocol's step, fitted so that the
 * fastest (algorithm, protocol) pair reproduces the measured nccl-tests points (8x A100
 * 4 MiB 72 GB/s by ring LL128: 8.7 us; 4x 8 B200 1 MiB 5.4 GB/s by ring LL: 159 us;
 * hardware/README.md); NCCL's tuner constants (LL / LL128 / Simple base and per-hop
 * latencies) rank algorithms but under-predict measured times, so they are used only as
 * ratios (PAT, NVLS, protocols), except for ring steps across the network, which no
 * measurement in the references covers: those take NCCL's absolute ring latency (the
 * fitted 159 us is a tree hop, which the ring's LL network step takes by NCCL's ratio).
 *
 * Protocols (NCCL 2.30.7 src/graph/tuning.cc, ncclTunerConstantsDefaults and
 * ncclTopoTuneModel; comm.c cites each constant): ring and tree run with LL, LL128 or
 * Simple; NVLS, hierarchical (NVLS_TREE), PAT and direct with Simple only. For each
 * applicable (algorithm, protocol) the time is the protocol's latency plus the bytes over
 * the levels' bandwidths times the protocol's efficiency, and the fastest pair is used, as
 * NCCL's tuner does (Simple keeps ties, so large messages cost exactly the Simple model).
 *   latency:    the Simple steps are the alphas as above; an LL / LL128 step is the alpha
 *               times NCCL's ratio hwLatencies[hw][algo][proto] / the Simple step the
 *               alpha stands for: NVLink ring 0.6 / 1.9 / 3.4 us (PCIe 1.0 / 2.5 / 5.7),
 *               NVLink tree 0.6 / 1.25 / 4.0, network tree 5.0 / 8.5 / 14, network ring
 *               2.7 / 4.0 (against the tree's 14: the fitted network alpha is the tree's
 *               Simple step, so a fabric measured slower than NCCL's constants is slower for
 *               every protocol); a ring across domains adds NCCL's base latency once, LL
 *               6.6, LL128 14, Simple 8.4 us.
 *   bandwidth:  ring LL 0.5 and LL128 0.92 of Simple; tree LL 1 / 3.8 and LL128 120 / 128;
 *               a tree all-reduce's bandwidth (LL's cap included) is further scaled by
 *               NCCL's medium-size tree correction (ts_comm_tree_correction: 0.4 to 1).
 *               LL's bus bandwidth is capped at NCCL's llMaxBw: in one node 87.7 (Ampere),
 *               141 (Hopper), 282 GB/s (Blackwell), else 39; across 2 nodes 39 and more
 *               nodes 20.4 GB/s (Intel / Arm hosts; AMD hosts, 22.5 / 19, are not told
 *               apart: ts_comm_ll_max_bus_bandwidth). A tree's bus bandwidth is twice its
 *               algorithm bandwidth in NCCL's terms (ratio .5).
 *   LL128:      only on NVIDIA Ampere / Hopper / Blackwell over NVLink (a scale-up level
 *               above PCIe 5.0 x16, 64 GB/s), as NCCL enables it by default.
 *   send/recv:  LL up to NCCL_P2P_LL_THRESHOLD (16 KiB, src/enqueue.cc), else Simple, as NCCL
 *               picks it by size (no tuner): LL steps by the ring-row ratio over NVLink /
 *               PCIe and the tree-row ratio across the network, half Simple's bandwidth.
 * Not modelled: NCCL's per-channel LL128 caps (not binding at NCCL's channel counts), the
 * ring "plateau" factor (x 1.4 on a multi-node Simple ring all-reduce's latency, tuning.cc
 * ncclTopoGetAlgoTime), NVLS_TREE's tree correction (NCCL applies it only on Blackwell with
 * x86 hosts; system files do not name the host), all-to-all's per-peer LL, the network
 * post overhead floor of a multi-node ring's intra-node steps (1 us, 3 us Simple), and a
 * deployment that
 * disables a protocol (NCCL_PROTO) or runs a tuner plugin.
 * The Simple steps are therefore long (8.7 us per NVLink step, 159 us per exposed network
 * step): a large message pays them in full (README.md, limitations).
 */
#ifndef TS_COMM_H
#define TS_COMM_H

#include "spec/spec.h"

enum ts_coll {
    TS_COLL_ALLREDUCE,
    TS_COLL_REDUCESCATTER,
    TS_COLL_ALLGATHER,
    TS_COLL_ALLTOALL,
    TS_COLL_SENDRECV,
    TS_COLL_COUNT
};
extern const char *const ts_coll_names[TS_COLL_COUNT];

enum ts_algo { TS_ALGO_RING, TS_ALGO_TREE, TS_ALGO_HIERARCHICAL, TS_ALGO_NVLS, TS_ALGO_PAT,
               TS_ALGO_DIRECT, TS_ALGO_COUNT };
extern const char *const ts_algo_names[TS_ALGO_COUNT];

/* NCCL's protocols (order as NCCL's NCCL_PROTO_*): LL stores 8 bytes of which 4 are data and
 * 4 a flag, LL128 128-byte lines of which 120 are data, Simple plain copies behind
 * fences (see "Protocols" in the header comment). */
enum ts_proto { TS_PROTO_LL, TS_PROTO_LL128, TS_PROTO_SIMPLE, TS_PROTO_COUNT };
extern const char *const ts_proto_names[TS_PROTO_COUNT];  // "ll", "ll128", "simple"

/* Where one group of a parallel dimension sits. */
struct ts_group {
    int size;           // ranks n
    long stride;        // rank distance between consecutive members
    int per_domain;     // members inside one scale-up domain (n_in)
    int domains;        // scale-up domains spanned (n_out)
    int per_node;       // members inside one node
    int nodes;          // nodes holding members
    bool crosses_leaf;  // members sit under more than one leaf switch
};

/* Group of dimension `dim` under the job's placement order. */
void ts_comm_group(const struct ts_system *sys, const struct ts_parallel *par, enum ts_pdim dim,
                   struct ts_group *out);

/* A group of `size` ranks with the given stride (for tests and custom groups). */
void ts_comm_group_strided(const struct ts_system *sys, int size, long stride, struct ts_group *out);

/* Effective (efficiency-scaled) bandwidths of the two levels for a group, bytes/s per GPU. */
double ts_comm_up_bandwidth(const struct ts_system *sys, const struct ts_group *g);
double ts_comm_out_bandwidth(const struct ts_system *sys, const struct ts_group *g);

struct ts_coll_cost {
    double time_s;      // total
    enum ts_algo algo;  // fastest algorithm
    enum ts_proto proto;// its protocol, e.g. TS_PROTO_LL for a 4 KiB all-reduce
    double latency_s;   // the alpha part of time_s
    double up_bytes;    // bytes each GPU sends over the scale-up level
    double out_bytes;   // bytes each GPU sends through its NIC share
    double up_s;        // bandwidth time on scale-up
    double out_s;       // bandwidth time on scale-out
};

/* Cost of one collective of `bytes` bytes on group g with the fastest algorithm. A group of
 * one rank costs nothing. */
void ts_comm_collective(const struct ts_system *sys, enum ts_coll coll, const struct ts_group *g,
                        double bytes, struct ts_coll_cost *out);

/* Cost with a given algorithm and the Simple protocol (the alpha-beta model as fitted);
 * returns false if the algorithm does not apply to this group (then *out is untouched). */
bool ts_comm_collective_algo(const struct ts_system *sys, enum ts_coll coll,
                             const struct ts_group *g, double bytes, enum ts_algo algo,
                             struct ts_coll_cost *out);

/* Cost with a given algorithm and protocol; returns false if the pair does not apply (LL
 * and LL128 exist for ring and tree only, LL128 only where ts_comm_ll128_enabled). With
 * TS_PROTO_SIMPLE it is ts_comm_collective_algo. */
bool ts_comm_collective_proto(const struct ts_system *sys, enum ts_coll coll,
                              const struct ts_group *g, double bytes, enum ts_algo algo,
                              enum ts_proto proto, struct ts_coll_cost *out);

/* NCCL enables LL128 by default on this system (NVIDIA Ampere, Hopper or Blackwell GPUs on an
 * NVLink scale-up level). */
bool ts_comm_ll128_enabled(const struct ts_system *sys);

/* NCCL's cap on the LL protocol's bus bandwidth for a group spanning `nodes` nodes, bytes/s
 * (tuning.cc llMaxBws): one node by GPU generation, two and more nodes by host CPU. */
double ts_comm_ll_max_bus_bandwidth(const struct ts_system *sys, int nodes);

/* MoE token dispatch over the expert-parallel group g (ep ranks, `experts` routed experts
 * spread evenly, each token routed to top_k distinct experts uniformly at random, i.e.
 * balanced): cost of one dispatch of `tokens_bytes` (one rank's tokens entering the layer,
 * tokens x hidden x bytes per element) with `dispatcher`:
 *   alltoall   Megatron-Core's alltoall dispatcher: one copy per (token, routed expert) by
 *              NCCL all-to-all (ts_comm_collective, S = top_k x tokens_bytes), plus one
 *              step for the per-expert count exchange that precedes it;
 *   deepep     DeepEP normal kernels / HybridEP (DeepSeek-V3 report sec. 3.2.2): one RDMA
 *              copy per destination NVLink domain, then NVLink forwarding once per
 *              destination rank; expected bytes by the hypergeometric closed form
 *              (ts_comm_moe_copies), at DeepEP's measured fractions of link rate (0.69 NVLink,
 *              0.88 RDMA, DeepEP README / docs/legacy.md), two steps of latency;
 *   allgather  Megatron-Core's allgather dispatcher: all-gather of the group's tokens
 *              (ts_comm_collective, output ep x tokens_bytes).
 * Across domains both the NCCL and the DeepEP bytes pay the fabric's bisection (see direct
 * above). ep must equal g->size and divide experts (a bug otherwise). A group of one rank
 * costs nothing. up_bytes / out_bytes are what one GPU sends per level. */
void ts_comm_moe_dispatch(const struct ts_system *sys, const struct ts_group *g,
                          double tokens_bytes, int top_k, int experts, int ep,
                          enum ts_moe_dispatcher dispatcher, struct ts_coll_cost *out);

/* The matching combine (expert outputs back to their tokens' ranks): the same bytes as the
 * dispatch for alltoall and deepep; a reduce-scatter of the gathered buffer for allgather. */
void ts_comm_moe_combine(const struct ts_system *sys, const struct ts_group *g,
                         double tokens_bytes, int top_k, int experts, int ep,
                         enum ts_moe_dispatcher dispatcher, struct ts_coll_cost *out);

/* Expected number of the `parts` equal shares of `experts` experts that hold at least one of
 * a token's top_k distinct experts drawn uniformly: parts (1 - C(E - E/parts, k) / C(E, k)).
 * parts = ep: destination ranks per token; parts = domains: destination domains. */
double ts_comm_moe_copies(int experts, int top_k, int parts);

/* NCCL's tree correction factor for a tree all-reduce of `bytes` with protocol proto: the
 * multiplier on its bandwidth (LL's cap included), treeCorrectionFactor[proto][log2(bytes /
 * 64)] of NCCL 2.30.7 src/graph/tuning.cc at powers of two from 64 B to 256 MiB, linear in
 * log2 bytes between them (so time still grows with bytes), 1 below 64 B and from 512 MiB. */
double ts_comm_tree_correction(enum ts_proto proto, double bytes);

/* NCCL_P2P_LL_THRESHOLD's default (NCCL 2.30.7 src/enqueue.cc, addP2pToPlan): a send/recv
 * runs LL while its bytes per channel are at most 16 KiB. A message up to the minimum part
 * size (P2P chunk 512 KiB / 8 in a node, 128 KiB / 2 across nodes: 64 KiB, src/init.cc)
 * takes one channel, and larger ones enough channels that each carries at least 32 KiB, so
 * with NCCL's default chunk sizes LL is used up to 16 KiB and Simple above (on PCIe, chunk
 * 128 KiB / 8 = 16 KiB, LL could stretch to several channels' 16 KiB; not modelled). */
#define TS_NCCL_P2P_LL_THRESHOLD 16384.0

/* Protocol NCCL uses for a send/recv of `bytes`: LL up to TS_NCCL_P2P_LL_THRESHOLD, else
 * Simple. */
enum ts_proto ts_comm_p2p_proto(double bytes);

/* Time of a point-to-point message between two ranks `distance` apart in rank order. */
void ts_comm_p2p(const struct ts_system *sys, long distance, double bytes, struct ts_coll_cost *out);

/* nccl-tests bus bandwidth of a collective that took `time_s` on n ranks for `bytes`:
 * algbw x 2(n-1)/n for all-reduce, x (n-1)/n for all-gather / reduce-scatter. */
double ts_comm_bus_bandwidth(enum ts_coll coll, int n, double bytes, double time_s);

#endif
