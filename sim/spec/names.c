/*
 * Name tables of the spec enums, checked against the enums' _COUNT members.
 */
#include "spec/spec.h"

const char *const ts_ffn_names[TS_FFN_COUNT] = {"gelu", "swiglu", "squared_relu"};
const char *const ts_precision_names[TS_PREC_COUNT] = {"bf16", "fp16", "fp8", "fp32"};
const char *const ts_schedule_names[TS_SCHED_COUNT] = {"gpipe", "1f1b", "interleaved"};
const char *const ts_eager_loss_names[TS_EAGER_LOSS_COUNT] = {"off", "cross_entropy",
                                                             "cross_entropy_z_loss"};
const char *const ts_recompute_names[TS_RECOMPUTE_COUNT] = {"none", "selective", "full"};
const char *const ts_attention_names[TS_ATTN_COUNT] = {
    "flash", "standard", "fa1", "fa2", "fa3", "cudnn", "triton", "triton-2022", "xla",
    "device"};
const char *const ts_generation_names[TS_GEN_COUNT] = {"ampere", "hopper", "blackwell", "cdna3",
                                                       "cpu", "unknown"};
const char *const ts_tp_overlap_names[TS_TPO_COUNT] = {"userbuffers", "async_tp", "none"};
const char *const ts_fuse_names[TS_FUSE_COUNT] = {"norm", "rotary", "bias_act", "swiglu",
                                                  "dropout_residual", "cross_entropy"};
const char *const ts_moe_dispatcher_names[TS_MOE_DISPATCHER_COUNT] = {"alltoall", "deepep",
                                                                     "allgather"};
const char *const ts_optimizer_impl_names[TS_OPT_COUNT] = {"fused", "foreach", "per_tensor"};
const char *const ts_up_topology_names[TS_UP_COUNT] = {"switch", "mesh", "ring", "torus"};
const char *const ts_out_topology_names[TS_OUT_COUNT] = {"fat_tree", "rail_optimized", "torus"};
const char *const ts_pdim_names[TS_PDIM_COUNT] = {"tp", "cp", "dp", "pp"};
const char *const ts_router_names[TS_ROUTER_COUNT] = {"softmax", "sigmoid"};
_Static_assert(TS_ROUTER_COUNT == 2, "update ts_router_names");

_Static_assert(TS_FFN_COUNT == 3, "update ts_ffn_names");
_Static_assert(TS_PREC_COUNT == 4, "update ts_precision_names");
_Static_assert(TS_SCHED_COUNT == 3, "update ts_schedule_names");
_Static_assert(TS_RECOMPUTE_COUNT == 3, "update ts_recompute_names");
_Static_assert(TS_ATTN_COUNT == 10, "update ts_attention_names");
_Static_assert(TS_GEN_COUNT == 6, "update ts_generation_names");
_Static_assert(TS_TPO_COUNT == 3, "update ts_tp_overlap_names");
_Static_assert(TS_FUSE_COUNT == 6, "update ts_fuse_names");
_Static_assert(TS_MOE_DISPATCHER_COUNT == 3, "update ts_moe_dispatcher_names");
_Static_assert(TS_OPT_COUNT == 3, "update ts_optimizer_impl_names");
_Static_assert(TS_UP_COUNT == 4, "update ts_up_topology_names");
_Static_assert(TS_OUT_COUNT == 3, "update ts_out_topology_names");
_Static_assert(TS_PDIM_COUNT == 4, "update ts_pdim_names");

const char *const ts_component_names[TS_COMP_COUNT] = {"gpu", "node", "network", "job",
                                                       "switch", "software"};
const char *const ts_distribution_names[TS_DIST_COUNT] = {"exponential", "weibull"};
const char *const ts_fleet_names[TS_FLEET_COUNT] = {"auto", "h100", "a100", "a100-research"};
_Static_assert(TS_FLEET_COUNT == 4, "update ts_fleet_names");
const char *const ts_recovery_mode_names[TS_RECOVERY_MODE_COUNT] = {"constant", "default",
                                                                    "given"};
_Static_assert(TS_RECOVERY_MODE_COUNT == 3, "update ts_recovery_mode_names");
const char *const ts_ckpt_mode_names[TS_CKPT_COUNT] = {"sync", "async"};

_Static_assert(TS_COMP_COUNT == 6, "update ts_component_names");
_Static_assert(TS_DIST_COUNT == 2, "update ts_distribution_names");
_Static_assert(TS_CKPT_COUNT == 2, "update ts_ckpt_mode_names");

const char *const ts_pricing_names[TS_PRICING_COUNT] = {"on_demand", "reserved", "spot"};
const char *const ts_tier_names[TS_TIER_COUNT] = {"hot", "warm", "cold"};

_Static_assert(TS_PRICING_COUNT == 3, "update ts_pricing_names");
_Static_assert(TS_TIER_COUNT == 3, "update ts_tier_names");
