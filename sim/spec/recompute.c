/*
 * parallel.recompute: which of a transformer layer's tensors are kept from the forward for
 * the backward, and what is recomputed instead.
 *
 * Forms:
 *   "none" | "selective" | "full"        the presets (enum ts_recompute; the sweep's values)
 *   {"save": ["q", "k", ...]}            keep these tensors, recompute the rest
 *   {"save": "NAME"}                     a named saved set (below)
 *   {"full_every": k}                    every k-th layer of a stage recomputes its whole
 *                                        forward, the others keep everything
 *   {"full_every": k, "save": ...}       the others keep the saved set
 *
 * The tensors (enum ts_layer_tensor, names below) are the stored activations of Korthikanti
 * et al. 2022 (arXiv 2205.05198) sec. 4.1, one per producing op; sim/compute/compute.c gives
 * their bytes and the op graph that regenerates them. The layer input is always kept: it is
 * the checkpoint's input (torch.utils.checkpoint, jax.checkpoint and Megatron's
 * CheckpointFunction all save the inputs of the checkpointed function).
 *
 * Named sets:
 *   "all"        every tensor backward reads: equals "none".
 *   "selective"  Megatron-LM --recompute-granularity selective (Korthikanti sec. 5): all but
 *                the s x s tensors of the attention core (softmax output, its dropout mask
 *                and output); the whole core-attention function is re-run (Megatron
 *                checkpoints that function, so attention x V, or the flash forward, runs again
 *                although its output is kept by the projection).
 *   "full"       Megatron-LM --recompute-granularity full: the layer input only; the whole
 *                layer forward is re-run (CheckpointFunction re-executes the layer).
 *   "nothing"    the layer input only, re-running only what backward needs (jax.checkpoint
 *                with policy nothing_saveable, MaxText remat_policy "full"; PyTorch
 *                non-reentrant checkpoint with early stop, as torchtitan's full AC).
 *   MaxText remat policies (MaxText/layers/decoders.py, AI-Hypercomputer/maxtext: "minimal" =
 *   jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims, i.e. every weight-GEMM
 *   output; the others save_only_these_names(...) of the named checkpoints query_proj,
 *   key_proj, value_proj, context, out_proj, mlpwi_0/mlpwi_1 (gate, up), mlpwo):
 *     "minimal"                            q, k, v, proj_out, mlp_gate, mlp_up, mlp_out
 *     "minimal_with_context"               the same + core_attn_out ("context")
 *     "save_dot_with_context_except_mlp"   q, k, v, core_attn_out, proj_out
 *     "save_dot_except_mlpwi"              q, k, v, proj_out, mlp_out
 *     "save_dot_except_mlp"                q, k, v, proj_out
 *     "save_qkv_proj"                      q, k, v
 *     "save_out_proj"                      proj_out
 *   (MaxText names the projections before rotary embedding; here q and k are kept after it, so
 *   the named sets spare the rotary kernel's recomputation too.)
 *   "torchtitan_op"  torchtitan's op-level selective AC (torchtitan/distributed/
 *                activation_checkpoint.py: save the outputs of flash / efficient SDPA and of
 *                every odd-numbered aten.mm in the layer, recompute the rest). A Llama layer
 *                runs wq, wk, wv, wo, w1, w3, w2 in that order (w2(silu(w1 x) * w3 x)), so
 *                q, v, w1 = mlp_gate and w2 = mlp_out are kept with core_attn_out; k, wo =
 *                proj_out and w3 = mlp_up are recomputed. (Its reduce-scatter outputs under
 *                tensor parallelism are not modelled: the set is for tp = 1, FSDP runs.)
 * Every named set but "selective" and "full" re-runs only what backward needs.
 *
 * full_every k: torchtitan --activation_checkpoint.mode selective
 * --activation_checkpoint.selective_ac_option k ("selective layer" AC) wraps every k-th
 * transformer block built on a process in a full checkpoint (a per-process counter:
 * counter % k == 0), the others not at all; the full layers here re-run the whole forward as
 * "full" does. Megatron-LM's --recompute-method block --recompute-num-layers N (the first N
 * layers of each stage fully recomputed) holds the same memory and does the same work as
 * full_every = layers per stage / N when N divides them (which layers differ, not how many).
 * Megatron's --recompute-method uniform (chunks of N layers checkpointed as one) is not this
 * form.
 */
#include <stdio.h>
#include <string.h>

#include "spec/spec.h"

const char *const ts_layer_tensor_names[TS_T_COUNT] = {
    "input", "norm1_out", "q", "k", "v", "softmax", "attn_dropout_mask", "attn_probs",
    "core_attn_out", "proj_out", "proj_dropout_mask", "residual1", "norm2_out", "mlp_gate",
    "mlp_up", "mlp_act", "mlp_out", "mlp_dropout_mask",
};
_Static_assert(TS_T_COUNT == 18, "update ts_layer_tensor_names");

#define B(t) TS_T_BIT(TS_T_##t)
#define QKV (B(Q) | B(K) | B(V))

/* Names that stand for several tensors in a save list. */
static const struct {
    const char *name;
    uint32_t bits;
} groups[] = {
    {"qkv", QKV},
    {"dropout_masks", B(ATTN_DROPOUT_MASK) | B(PROJ_DROPOUT_MASK) | B(MLP_DROPOUT_MASK)},
};

static const struct {
    const char *name;
    uint32_t save;
    enum ts_rerun rerun;
} named[] = {
    {"all", TS_T_ALL, TS_RERUN_NEEDED},
    {"selective", TS_T_ALL & ~(B(SOFTMAX) | B(ATTN_DROPOUT_MASK) | B(ATTN_PROBS)), TS_RERUN_ATTENTION},
    {"full", B(INPUT), TS_RERUN_LAYER},
    {"nothing", B(INPUT), TS_RERUN_NEEDED},
    {"minimal", B(INPUT) | QKV | B(PROJ_OUT) | B(MLP_GATE) | B(MLP_UP) | B(MLP_OUT), TS_RERUN_NEEDED},
    {"minimal_with_context",
     B(INPUT) | QKV | B(CORE_ATTN_OUT) | B(PROJ_OUT) | B(MLP_GATE) | B(MLP_UP) | B(MLP_OUT),
     TS_RERUN_NEEDED},
    {"save_dot_with_context_except_mlp", B(INPUT) | QKV | B(CORE_ATTN_OUT) | B(PROJ_OUT),
     TS_RERUN_NEEDED},
    {"save_dot_except_mlpwi", B(INPUT) | QKV | B(PROJ_OUT) | B(MLP_OUT), TS_RERUN_NEEDED},
    {"save_dot_except_mlp", B(INPUT) | QKV | B(PROJ_OUT), TS_RERUN_NEEDED},
    {"save_qkv_proj", B(INPUT) | QKV, TS_RERUN_NEEDED},
    {"save_out_proj", B(INPUT) | B(PROJ_OUT), TS_RERUN_NEEDED},
    {"torchtitan_op", B(INPUT) | B(Q) | B(V) | B(CORE_ATTN_OUT) | B(MLP_GATE) | B(MLP_OUT),
     TS_RERUN_NEEDED},
};

bool ts_recompute_named_set(const char *name, uint32_t *save, enum ts_rerun *rerun)
{
    for (size_t i = 0; i < TS_ARRAY_LEN(named); i++)
        if (strcmp(name, named[i].name) == 0) {
            *save = named[i].save;
            *rerun = named[i].rerun;
            return true;
        }
    return false;
}

uint32_t ts_recompute_saved(const struct ts_parallel *p)
{
    if (p->recompute_policy.custom)
        return p->recompute_policy.save | B(INPUT);
    uint32_t save = TS_T_ALL;
    enum ts_rerun rerun;
    if (p->recompute != TS_RECOMPUTE_NONE)
        ts_recompute_named_set(ts_recompute_names[p->recompute], &save, &rerun);
    return save;
}

enum ts_rerun ts_recompute_rerun(const struct ts_parallel *p)
{
    if (p->recompute_policy.custom)
        return p->recompute_policy.rerun;
    return p->recompute == TS_RECOMPUTE_SELECTIVE ? TS_RERUN_ATTENTION
           : p->recompute == TS_RECOMPUTE_FULL    ? TS_RERUN_LAYER
                                                  : TS_RERUN_NEEDED;
}

int ts_recompute_full_layers(const struct ts_parallel *p, int local_first, int count)
{
    int k = p->recompute_policy.custom ? p->recompute_policy.full_every : 0;
    if (count <= 0 || k <= 0)
        return 0;
    /* 1-based counter values local_first + 1 .. local_first + count divisible by k */
    return (local_first + count) / k - local_first / k;
}

void ts_recompute_describe(const struct ts_parallel *p, char *buf, size_t n)
{
    const struct ts_recompute_policy *r = &p->recompute_policy;
    if (!r->custom) {
        snprintf(buf, n, "%s", ts_recompute_names[p->recompute]);
        return;
    }
    size_t used = 0;
    int w;
#define PUT(...)                                                                        \
    do {                                                                                \
        w = snprintf(buf + used, n > used ? n - used : 0, __VA_ARGS__);                 \
        if (w > 0)                                                                      \
            used = used + (size_t)w < n ? used + (size_t)w : n;                         \
    } while (0)
    buf[0] = '\0';
    if (r->full_every > 0)
        PUT("full_every %d", r->full_every);
    if (r->save_name[0]) {
        PUT("%ssave %s", used ? ", " : "", r->save_name);
    } else if (r->full_every <= 0 || r->save != TS_T_ALL) {
        PUT("%ssave [", used ? ", " : "");
        int k = 0;
        for (int t = 0; t < TS_T_COUNT; t++)
            if (r->save & TS_T_BIT(t))
                PUT("%s%s", k++ ? ", " : "", ts_layer_tensor_names[t]);
        PUT("]");
    }
#undef PUT
}

/* One entry of a save list: a tensor or a group name. */
static int save_item(const struct ts_jnode *item, uint32_t *save, struct ts_err *err)
{
    if (cJSON_IsString(item->json)) {
        const char *s = item->json->valuestring;
        for (int t = 0; t < TS_T_COUNT; t++)
            if (strcmp(s, ts_layer_tensor_names[t]) == 0) {
                *save |= TS_T_BIT(t);
                return TS_OK;
            }
        for (size_t i = 0; i < TS_ARRAY_LEN(groups); i++)
            if (strcmp(s, groups[i].name) == 0) {
                *save |= groups[i].bits;
                return TS_OK;
            }
    }
    char d[96], list[512] = "";
    size_t used = 0;
    for (int t = 0; t < TS_T_COUNT; t++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", t ? ", " : "",
                         ts_layer_tensor_names[t]);
        if (w > 0 && (size_t)w < sizeof list - used)
            used += (size_t)w;
    }
    ts_jnode_describe(item->json, d, sizeof d);
    return ts_err_at(err, item->file, item->path,
                     "%s is not a layer tensor; name one of %s (or the groups qkv, "
                     "dropout_masks)", d, list);
}

static int parse_save(const struct ts_jnode *node, struct ts_recompute_policy *r, struct ts_err *err)
{
    if (cJSON_IsString(node->json)) {
        const char *s = node->json->valuestring;
        if (!ts_recompute_named_set(s, &r->save, &r->rerun)) {
            char list[512] = "";
            size_t used = 0;
            for (size_t i = 0; i < TS_ARRAY_LEN(named); i++) {
                int w = snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? " | " : "",
                                 named[i].name);
                if (w > 0 && (size_t)w < sizeof list - used)
                    used += (size_t)w;
            }
            char d[96];
            ts_jnode_describe(node->json, d, sizeof d);
            return ts_err_at(err, node->file, node->path,
                             "%s is not a named saved set; use one of %s, or a list of tensor "
                             "names", d, list);
        }
        ts_strlcpy(r->save_name, s, sizeof r->save_name);
        return TS_OK;
    }
    int rc = ts_jnode_expect_array(node, err);
    if (rc)
        return rc;
    r->save = B(INPUT);
    r->rerun = TS_RERUN_NEEDED;
    int count = cJSON_GetArraySize(node->json);
    for (int i = 0; i < count; i++) {
        struct ts_jnode item = ts_jnode_item(node, i);
        if ((rc = save_item(&item, &r->save, err)))
            return rc;
    }
    return TS_OK;
}

static const char *const policy_keys[] = {"save", "full_every", NULL};

int ts_recompute_parse(const struct ts_jnode *node, struct ts_parallel *p, struct ts_err *err)
{
    struct ts_recompute_policy *r = &p->recompute_policy;
    if (!cJSON_IsObject(node->json)) {
        /* A preset: "none" | "selective" | "full". */
        for (int i = 0; cJSON_IsString(node->json) && i < TS_RECOMPUTE_COUNT; i++)
            if (strcmp(node->json->valuestring, ts_recompute_names[i]) == 0) {
                p->recompute = (enum ts_recompute)i;
                memset(r, 0, sizeof *r);
                return TS_OK;
            }
        char d[96];
        ts_jnode_describe(node->json, d, sizeof d);
        return ts_err_at(err, node->file, node->path,
                         "%s is not one of \"none\" | \"selective\" | \"full\" (or an object "
                         "{\"save\": [tensor names]} and/or {\"full_every\": k})", d);
    }
    int rc = ts_jnode_check_keys(node, policy_keys, err);
    if (rc)
        return rc;
    struct ts_jnode c;
    bool has_save = ts_jnode_child(node, "save", &c);
    bool has_every = cJSON_GetObjectItemCaseSensitive(node->json, "full_every") != NULL;
    if (!has_save && !has_every)
        return ts_err_at(err, node->file, node->path,
                         "an empty policy; give \"save\": [tensor names] and/or \"full_every\": k");
    memset(r, 0, sizeof *r);
    r->custom = true;
    r->save = TS_T_ALL;
    r->rerun = TS_RERUN_NEEDED;
    if (has_save && (rc = parse_save(&c, r, err)))
        return rc;
    r->save |= B(INPUT);
    if ((rc = ts_jnode_get_int(node, "full_every", TS_OPTIONAL, 1, 1 << 20, &r->full_every, err)))
        return rc;
    /* The preset the policy's saved set equals, for code that only knows the three. */
    p->recompute = r->save == TS_T_ALL && r->rerun == TS_RERUN_NEEDED && !r->full_every
                       ? TS_RECOMPUTE_NONE
                   : r->rerun == TS_RERUN_LAYER ? TS_RECOMPUTE_FULL
                                                : TS_RECOMPUTE_SELECTIVE;
    return TS_OK;
}
