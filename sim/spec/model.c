/*
 * Model files: the architecture of a decoder-only transformer.
 */
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "spec/spec_internal.h"

static const char *const model_keys[] = {
    "name", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "ffn", "vocab",
    "seq_len", "tied_embeddings", "bias", "dropout", "position_embedding", "moe", "attention",
    "sliding_window", "sliding_window_pattern", "mtp_layers", "source", "notes", NULL,
};

static const char *const moe_keys[] = {
    "experts", "top_k", "expert_ffn_hidden", "shared_experts", "shared_ffn_hidden",
    "dense_layers", "moe_every", "router", "aux_loss_free", "capacity_factor", "load_imbalance",
    "source", NULL,
};

static const char *const attention_keys[] = {
    "kind", "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
    NULL,
};

/* Default busiest-expert load over the mean when the file gives none. Wang et al. 2024,
 * "Auxiliary-Loss-Free Load Balancing Strategy for Mixture-of-Experts" (arXiv 2408.15664),
 * sec. 4.1 eq. 4: MaxVio_global = (max_i Load_i - mean Load) / mean Load, the expert loads
 * counted over the whole validation set; Table 2 (DeepSeekMoE models): 1B, auxiliary loss
 * (alpha 0.001) 0.72, loss-free (bias) balancing 0.04; 3B: 0.52 and 0.04. The default is
 * 1 + MaxVio of the matching scheme at 1B, the scale at which the paper tuned both schemes
 * (its 3B runs inherit the 1B settings). A validation-set count sums over many batches, and
 * the max of a sum is at most the sum of the maxima, so a step's busiest expert carries at
 * least this much on average (the paper's per-step measure, MaxVio_batch, is only plotted,
 * Fig. 3). Runs that force balanced routing
 * (Megatron-Core moe_router_force_load_balancing, as in NVIDIA's benchmark tables) state
 * load_imbalance 1. */
#define TS_MOE_IMBALANCE_AUX 1.72
#define TS_MOE_IMBALANCE_LOSS_FREE 1.04

bool ts_model_layer_is_moe(const struct ts_model *m, int layer)
{
    if (m->moe.experts <= 0)
        return false;
    if (layer >= m->layers)
        return true;                    /* MTP modules */
    if (layer < m->moe.dense_layers)
        return false;
    int every = m->moe.moe_every > 0 ? m->moe.moe_every : 1;
    return (layer - m->moe.dense_layers + 1) % every == 0;
}

int ts_model_moe_layers(const struct ts_model *m, int first, int count)
{
    if (m->moe.experts <= 0)
        return 0;
    int n = 0;
    for (int i = first; i < first + count; i++)
        n += ts_model_layer_is_moe(m, i);
    return n;
}

/* The "moe" section. */
static int parse_moe(const struct ts_jnode *node, struct ts_model *m, struct ts_err *err)
{
    int rc;
    struct ts_moe *e = &m->moe;
    struct ts_jnode c;
    if ((rc = ts_jnode_expect_object(node, err)) || (rc = ts_jnode_check_keys(node, moe_keys, err)))
        return rc;
    int router = TS_ROUTER_SOFTMAX;
    e->moe_every = 1;
    if ((rc = ts_jnode_get_int(node, "experts", TS_REQUIRED, 1, 1 << 20, &e->experts, err)) ||
        (rc = ts_jnode_get_int(node, "top_k", TS_REQUIRED, 1, 1 << 20, &e->top_k, err)) ||
        (rc = ts_jnode_get_int(node, "expert_ffn_hidden", TS_REQUIRED, 1, 1 << 24,
                               &e->expert_ffn_hidden, err)) ||
        (rc = ts_jnode_get_int(node, "shared_experts", TS_OPTIONAL, 0, 1 << 10, &e->shared_experts,
                               err)))
        return rc;
    e->shared_ffn_hidden = e->expert_ffn_hidden;
    if ((rc = ts_jnode_get_int(node, "shared_ffn_hidden", TS_OPTIONAL, 1, 1 << 24,
                               &e->shared_ffn_hidden, err)) ||
        (rc = ts_jnode_get_int(node, "dense_layers", TS_OPTIONAL, 0, 100000, &e->dense_layers,
                               err)) ||
        (rc = ts_jnode_get_int(node, "moe_every", TS_OPTIONAL, 1, 100000, &e->moe_every, err)) ||
        (rc = ts_jnode_get_enum(node, "router", TS_OPTIONAL, ts_router_names, TS_ROUTER_COUNT,
                                &router, err)) ||
        (rc = ts_jnode_get_bool(node, "aux_loss_free", TS_OPTIONAL, &e->aux_loss_free, err)) ||
        (rc = ts_jnode_get_text(node, "source", TS_OPTIONAL, NULL, err)))
        return rc;
    e->router = (enum ts_router)router;
    if (e->top_k > e->experts) {
        ts_jnode_child(node, "top_k", &c);
        return ts_err_at(err, c.file, c.path,
                         "%d exceeds experts (%d): a token cannot pick more experts than there are",
                         e->top_k, e->experts);
    }
    if (e->dense_layers >= m->layers) {
        ts_jnode_child(node, "dense_layers", &c);
        return ts_err_at(err, c.file, c.path,
                         "%d leaves no MoE layer among the model's %d layers (give fewer dense "
                         "layers, or drop the moe section for a dense model)", e->dense_layers,
                         m->layers);
    }
    if (e->moe_every > m->layers - e->dense_layers) {
        ts_jnode_child(node, "moe_every", &c);
        return ts_err_at(err, c.file, c.path,
                         "%d exceeds the %d layers after dense_layers, so no layer would be MoE",
                         e->moe_every, m->layers - e->dense_layers);
    }
    /* capacity_factor: a number >= 1 ... or "dropless" (the default). */
    e->capacity_factor = 0.0;
    if (ts_jnode_child(node, "capacity_factor", &c)) {
        if (cJSON_IsString(c.json) && strcmp(c.json->valuestring, "dropless") == 0) {
            e->capacity_factor = 0.0;
        } else if (cJSON_IsNumber(c.json)) {
            if ((rc = ts_jnode_get_quantity(node, "capacity_factor", TS_REQUIRED, TS_DIM_NUMBER,
                                            1.0, 1000.0, &e->capacity_factor, err)))
                return rc;
        } else {
            char desc[96];
            ts_jnode_describe(c.json, desc, sizeof desc);
            return ts_err_at(err, c.file, c.path,
                             "%s is not a capacity factor; give a number >= 1 (e.g. 1.25) or "
                             "\"dropless\"", desc);
        }
    }
    e->load_imbalance = e->aux_loss_free ? TS_MOE_IMBALANCE_LOSS_FREE : TS_MOE_IMBALANCE_AUX;
    e->load_imbalance_given = cJSON_GetObjectItemCaseSensitive(node->json, "load_imbalance") != NULL;
    if ((rc = ts_jnode_get_quantity(node, "load_imbalance", TS_OPTIONAL, TS_DIM_NUMBER, 1.0,
                                    1e6, &e->load_imbalance, err)))
        return rc;
    /* The busiest expert holds at most all the tokens' copies: E / k times the mean. */
    double most = (double)e->experts / e->top_k;
    if (e->load_imbalance > most) {
        if (e->load_imbalance_given) {
            ts_jnode_child(node, "load_imbalance", &c);
            return ts_err_at(err, c.file, c.path,
                             "%g exceeds experts / top_k = %g, the share of an expert that "
                             "receives every token", e->load_imbalance, most);
        }
        e->load_imbalance = most;       /* one expert, top-1: no imbalance possible */
    }
    return TS_OK;
}

/* The "attention" object (multi-head latent attention). */
static int parse_attention(const struct ts_jnode *node, struct ts_model *m, struct ts_err *err)
{
    int rc;
    struct ts_mla *a = &m->mla;
    if ((rc = ts_jnode_expect_object(node, err)) ||
        (rc = ts_jnode_check_keys(node, attention_keys, err)))
        return rc;
    static const char *const kinds[] = {"mha", "mla"};
    int kind = 0;
    if ((rc = ts_jnode_get_enum(node, "kind", TS_REQUIRED, kinds, 2, &kind, err)))
        return rc;
    if (kind == 0) {
        if (cJSON_GetArraySize(node->json) > 1) {
            struct ts_jnode c;
            ts_jnode_child(node, "kind", &c);
            return ts_err_at(err, c.file, c.path,
                             "\"mha\" takes no other keys (the MLA ranks belong to \"mla\")");
        }
        return TS_OK;
    }
    a->on = true;
    struct ts_jnode c;
    /* q_lora_rank may be null: queries projected directly (DeepSeek-V2-Lite). */
    if (ts_jnode_child(node, "q_lora_rank", &c) && !cJSON_IsNull(c.json) &&
        (rc = ts_jnode_get_int(node, "q_lora_rank", TS_REQUIRED, 1, 1 << 20, &a->q_lora_rank, err)))
        return rc;
    if ((rc = ts_jnode_get_int(node, "kv_lora_rank", TS_REQUIRED, 1, 1 << 20, &a->kv_lora_rank,
                               err)) ||
        (rc = ts_jnode_get_int(node, "qk_rope_head_dim", TS_REQUIRED, 0, 1 << 16,
                               &a->qk_rope_head_dim, err)) ||
        (rc = ts_jnode_get_int(node, "qk_nope_head_dim", TS_REQUIRED, 1, 1 << 16,
                               &a->qk_nope_head_dim, err)) ||
        (rc = ts_jnode_get_int(node, "v_head_dim", TS_REQUIRED, 1, 1 << 16, &a->v_head_dim, err)))
        return rc;
    return TS_OK;
}

int ts_model_parse(const struct ts_jnode *node, struct ts_model *m, struct ts_err *err)
{
    int rc;
    memset(m, 0, sizeof *m);
    if ((rc = ts_jnode_check_keys(node, model_keys, err)))
        return rc;
    int ffn = TS_FFN_GELU;
    if ((rc = ts_jnode_get_string(node, "name", TS_REQUIRED, m->name, sizeof m->name, err)) ||
        (rc = ts_jnode_get_int(node, "layers", TS_REQUIRED, 1, 100000, &m->layers, err)) ||
        (rc = ts_jnode_get_int(node, "hidden", TS_REQUIRED, 1, 1 << 22, &m->hidden, err)) ||
        (rc = ts_jnode_get_int(node, "heads", TS_REQUIRED, 1, 1 << 20, &m->heads, err)) ||
        (rc = ts_jnode_get_enum(node, "ffn", TS_OPTIONAL, ts_ffn_names, TS_FFN_COUNT, &ffn, err)) ||
        (rc = ts_jnode_get_int(node, "vocab", TS_REQUIRED, 1, 1 << 28, &m->vocab, err)) ||
        (rc = ts_jnode_get_int(node, "seq_len", TS_REQUIRED, 1, 1 << 26, &m->seq_len, err)))
        return rc;
    m->ffn = (enum ts_ffn)ffn;
    m->kv_heads = m->heads;
    m->ffn_hidden = 4 * m->hidden;
    m->bias = m->ffn == TS_FFN_GELU;
    m->head_dim = 0;
    static const char *const pos_names[] = {"learned", "rope"};
    int pos = m->ffn == TS_FFN_GELU ? 0 : 1;
    if ((rc = ts_jnode_get_enum(node, "position_embedding", TS_OPTIONAL, pos_names, 2, &pos, err)))
        return rc;
    m->learned_positions = pos == 0;
    if ((rc = ts_jnode_get_int(node, "kv_heads", TS_OPTIONAL, 1, m->heads, &m->kv_heads, err)) ||
        (rc = ts_jnode_get_int(node, "head_dim", TS_OPTIONAL, 1, 1 << 16, &m->head_dim, err)) ||
        (rc = ts_jnode_get_int(node, "ffn_hidden", TS_OPTIONAL, 1, 1 << 24, &m->ffn_hidden, err)) ||
        (rc = ts_jnode_get_bool(node, "tied_embeddings", TS_OPTIONAL, &m->tied_embeddings, err)) ||
        (rc = ts_jnode_get_bool(node, "bias", TS_OPTIONAL, &m->bias, err)) ||
        (rc = ts_jnode_get_quantity(node, "dropout", TS_OPTIONAL, TS_DIM_NUMBER, 0.0, 0.99,
                                    &m->dropout, err)) ||
        (rc = ts_jnode_get_string(node, "source", TS_OPTIONAL, m->source, sizeof m->source, err)) ||
        (rc = ts_jnode_get_text(node, "notes", TS_OPTIONAL, NULL, err)))
        return rc;
    struct ts_jnode c;
    if ((rc = ts_jnode_get_int(node, "sliding_window", TS_OPTIONAL, 1, 1 << 26, &m->sliding_window,
                               err)) ||
        (rc = ts_jnode_get_int(node, "sliding_window_pattern", TS_OPTIONAL, 1, 100000,
                               &m->sliding_window_pattern, err)) ||
        (rc = ts_jnode_get_int(node, "mtp_layers", TS_OPTIONAL, 0, 64, &m->mtp_layers, err)))
        return rc;
    if (m->sliding_window_pattern && !m->sliding_window) {
        ts_jnode_child(node, "sliding_window_pattern", &c);
        return ts_err_at(err, c.file, c.path,
                         "%d needs sliding_window (the window of the windowed layers)",
                         m->sliding_window_pattern);
    }
    if (ts_jnode_child(node, "moe", &c) && (rc = parse_moe(&c, m, err)))
        return rc;
    if (m->mtp_layers && !ts_model_is_moe(m)) {
        ts_jnode_child(node, "mtp_layers", &c);
        return ts_err_at(err, c.file, c.path,
                         "%d multi-token-prediction modules need a moe section (they are "
                         "modelled as DeepSeek-V3's, one MoE layer each)", m->mtp_layers);
    }
    if (ts_jnode_child(node, "attention", &c) && (rc = parse_attention(&c, m, err)))
        return rc;
    if (m->mla.on) {
        /* MLA's per-head dims replace head_dim; keep it as the query-key width for the
         * attention kernel tables. */
        if (cJSON_GetObjectItemCaseSensitive(node->json, "kv_heads") &&
            m->kv_heads != m->heads) {
            ts_jnode_child(node, "kv_heads", &c);
            return ts_err_at(err, c.file, c.path,
                             "%d: multi-head latent attention has one key and value per query "
                             "head (drop kv_heads)", m->kv_heads);
        }
        m->head_dim = m->mla.qk_nope_head_dim + m->mla.qk_rope_head_dim;
    }
    if (m->head_dim == 0) {
        if (m->hidden % m->heads != 0) {
            ts_jnode_child(node, "heads", &c);
            return ts_err_at(err, c.file, c.path,
                             "%d does not divide hidden (%d); give head_dim explicitly", m->heads,
                             m->hidden);
        }
        m->head_dim = m->hidden / m->heads;
    }
    if (m->heads % m->kv_heads != 0) {
        ts_jnode_child(node, "kv_heads", &c);
        return ts_err_at(err, c.file, c.path, "%d does not divide heads (%d)", m->kv_heads,
                         m->heads);
    }
    return TS_OK;
}

static int parse_model_any(const struct ts_jnode *n, void *out, struct ts_err *err)
{
    return ts_model_parse(n, out, err);
}

int ts_model_load(const char *ref, struct ts_model *out, struct ts_err *err)
{
    return ts__spec_load_ref(TS_CAT_MODEL, ref, parse_model_any, out, err);
}

int ts_model_parse_ref(const struct ts_jnode *node, struct ts_model *out, struct ts_err *err)
{
    return ts__spec_parse_ref(node, TS_CAT_MODEL, parse_model_any, out, err);
}
