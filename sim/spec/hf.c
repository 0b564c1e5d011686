/*
 * Hugging Face config.json import: translate a model's `config.json`, as shipped on the Hub,
 * into a trainsim model document, which the ordinary model parser then reads (so every check
 * and default of a model file applies to an imported one too).
 *
 * The mapping (README "Models from Hugging Face" repeats it as a table):
 *   layers      num_hidden_layers (GPT-2: n_layer)
 *   hidden      hidden_size (GPT-2: n_embd)
 *   heads       num_attention_heads (GPT-2: n_head)
 *   kv_heads    num_key_value_heads (default: heads)
 *   head_dim    head_dim when given (Gemma, Qwen3, GPT-OSS, Llama 4)
 *   ffn_hidden  intermediate_size (GPT-2: n_inner, default 4 n_embd; Llama 4: intermediate_size_mlp)
 *   ffn         "swiglu" for every gated MLP (SwiGLU: Llama, Mistral, Qwen, Phi-3, DeepSeek,
 *               GPT-OSS; GeGLU: Gemma - the same three matrices and FLOPs), "gelu" for GPT-2
 *               and GPT-NeoX
 *   vocab       vocab_size (architecture default when the file omits it: Gemma 3 262208)
 *   seq_len     the pre-training context: rope_scaling.original_max_position_embeddings,
 *               Phi-3's top-level original_max_position_embeddings or
 *               initial_context_length when given (the context before long-context
 *               extension: Llama 3.1 8192, GPT-OSS 4096), else max_position_embeddings
 *               (GPT-2: n_positions); a job overrides it with {"hf": PATH, "seq_len": N}
 *   tied_embeddings  tie_word_embeddings (architecture default when absent: true for GPT-2 and
 *               Gemma, false otherwise, as the transformers config classes set them)
 *   bias        true for GPT-2, GPT-NeoX and GPT-OSS (attention_bias); Qwen2's q/k/v-only
 *               bias (a few hundred thousand parameters) is not modelled and named in the
 *               warning
 *   position_embedding  "learned" for GPT-2, "rope" otherwise
 *   dropout     attention_dropout / resid_pdrop when non-zero
 *   moe         experts = num_local_experts | num_experts | n_routed_experts; top_k =
 *               num_experts_per_tok | experts_per_token; expert_ffn_hidden =
 *               moe_intermediate_size (Qwen MoE, DeepSeek) else intermediate_size (Mixtral,
 *               GPT-OSS, Llama 4); shared_experts = n_shared_experts (DeepSeek), 1 for Qwen2-MoE's
 *               shared_expert_intermediate_size and Llama 4; dense_layers = first_k_dense_replace;
 *               moe_every = moe_layer_freq | decoder_sparse_step | interleave_moe_layer_step;
 *               router "sigmoid" for scoring_func sigmoid; aux_loss_free for topk_method noaux_tc
 *   attention   DeepSeek MLA: {"kind": "mla", q_lora_rank, kv_lora_rank, qk_rope_head_dim,
 *               qk_nope_head_dim, v_head_dim}
 *   sliding_window, sliding_window_pattern  sliding_window when the architecture uses it
 *               (Qwen only with use_sliding_window); the pattern from layer_types (N - 1
 *               windowed layers then one full one), Gemma 2 alternating (2), Gemma 3's
 *               sliding_window_pattern (default 6)
 *   mtp_layers  num_nextn_predict_layers (DeepSeek-V3)
 * Nested configs (Gemma 3, Llama 4, Mistral 3 multimodal files) are read from text_config.
 * Fields that are neither mapped nor known to leave cost and memory unchanged (token ids,
 * dtypes, initialisation, norm epsilons, rope bases, the generation defaults a
 * config.to_dict() dump adds, ...) are listed in one warning, as are the architectural
 * fields trainsim reads but does not model (soft-capping, partial rotary, parallel residual,
 * chunked attention, no-rope layers, Qwen3 / Gemma 3 per-head q/k norms, ...); a field that is
 * null, false, 0 or empty is a feature switched off and not listed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "spec/spec_internal.h"

enum hf_arch {
    HF_LLAMA, HF_MISTRAL, HF_MIXTRAL, HF_QWEN2, HF_QWEN2_MOE, HF_QWEN3, HF_QWEN3_MOE,
    HF_GEMMA, HF_GEMMA2, HF_GEMMA3, HF_GPT2, HF_GPT_NEOX, HF_PHI3, HF_DEEPSEEK, HF_GPT_OSS,
    HF_LLAMA4, HF_ARCH_COUNT
};

/* model_type values (of the text model where the file nests one) per architecture. */
static const struct {
    const char *model_type;
    enum hf_arch arch;
} hf_types[] = {
    {"llama", HF_LLAMA},         {"mistral", HF_MISTRAL},       {"mixtral", HF_MIXTRAL},
    {"qwen2", HF_QWEN2},         {"qwen2_moe", HF_QWEN2_MOE},   {"qwen3", HF_QWEN3},
    {"qwen3_moe", HF_QWEN3_MOE}, {"gemma", HF_GEMMA},           {"gemma2", HF_GEMMA2},
    {"gemma3", HF_GEMMA3},       {"gemma3_text", HF_GEMMA3},    {"gpt2", HF_GPT2},
    {"gpt_neox", HF_GPT_NEOX},   {"phi3", HF_PHI3},             {"deepseek_v2", HF_DEEPSEEK},
    {"deepseek_v3", HF_DEEPSEEK}, {"gpt_oss", HF_GPT_OSS},      {"llama4", HF_LLAMA4},
    {"llama4_text", HF_LLAMA4},
};

/* Fields that change neither the FLOPs, the parameters nor the memory of training. */
static const char *const hf_harmless[] = {
    "architectures", "model_type", "transformers_version", "torch_dtype", "dtype",
    "_name_or_path", "bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id",
    "sep_token_id", "decoder_start_token_id", "initializer_range", "initializer_factor",
    "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "norm_eps", "use_cache",
    "rope_theta", "rope_scaling", "rope_parameters", "rotary_emb_base", "rope_interleave",
    "output_router_logits", "router_aux_loss_coef", "router_z_loss_coef", "aux_loss_alpha",
    "seq_aux", "norm_topk_prob", "routed_scaling_factor", "ep_size", "num_experts_per_token",
    "quantization_config", "attention_dropout", "hidden_dropout", "resid_pdrop", "embd_pdrop",
    "attn_pdrop", "summary_activation", "summary_first_dropout", "summary_proj_to_labels",
    "summary_type", "summary_use_proj", "task_specific_params", "n_ctx", "max_window_layers",
    "use_sliding_window", "use_mrope", "mlp_only_layers", "tie_word_embeddings",
    "hidden_act", "hidden_activation", "activation_function",
    "head_dim", "sliding_window", "sliding_window_pattern", "layer_types", "vocab_size",
    "max_position_embeddings", "initial_context_length", "num_hidden_layers", "hidden_size",
    "num_attention_heads", "num_key_value_heads", "intermediate_size", "moe_intermediate_size",
    "num_local_experts", "num_experts", "n_routed_experts", "num_experts_per_tok",
    "experts_per_token", "n_shared_experts", "shared_expert_intermediate_size",
    "first_k_dense_replace", "moe_layer_freq", "decoder_sparse_step",
    "interleave_moe_layer_step", "scoring_func", "topk_method", "q_lora_rank", "kv_lora_rank",
    "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "num_nextn_predict_layers",
    "n_layer", "n_embd", "n_head", "n_inner", "n_positions", "intermediate_size_mlp",
    "text_config", "vision_config", "image_processor_config", "image_token_index", "boi_token_index",
    "eoi_token_index", "mm_tokens_per_image", "vision_feature_layer",
    "vision_feature_select_strategy", "projector_hidden_act", "multimodal_projector_bias",
    "spatial_merge_size", "image_token_id", "boi_token_id", "eoi_token_id", "scale_embedding",
    "bos_token", "eos_token", "reorder_and_upcast_attn", "scale_attn_by_inverse_layer_idx",
    "scale_attn_weights", "use_return_dict", "return_dict", "output_attentions",
    "output_hidden_states", "torchscript", "pretraining_tp", "auto_map", "id2label",
    "label2id", "is_encoder_decoder", "tokenizer_class", "prefix", "problem_type",
    "classifier_dropout", "topk_group", "n_group", "moe_router_enable_expert_bias",
    "router_jitter_noise", "embedding_multiplier", "use_qk_norm", "torch_dtype_str",
    "qk_layernorm", "final_logit_softcapping", "attn_logit_softcapping",
    "query_pre_attn_scalar", "cache_implementation", "rope_local_base_freq",
    "use_parallel_residual", "rotary_pct", "no_rope_layers", "attention_chunk_size",
    "nope_layer_interval", "no_rope_layer_interval", "attn_temperature_tuning", "floor_scale", "attn_scale",
    "swiglu_limit", "resid_dropout", "embed_dropout", "original_max_position_embeddings",
    "attention_probs_dropout_prob", "hidden_dropout_prob", "sliding_window_size",
    /* PretrainedConfig's generic attributes, which a config.to_dict() dump writes out
     * (transformers configuration_utils.py): generation defaults and bookkeeping. */
    "max_length", "min_length", "do_sample", "early_stopping", "num_beams", "num_beam_groups",
    "diversity_penalty", "temperature", "top_k", "top_p", "typical_p", "repetition_penalty",
    "length_penalty", "no_repeat_ngram_size", "encoder_no_repeat_ngram_size", "bad_words_ids",
    "num_return_sequences", "output_scores", "return_dict_in_generate", "forced_bos_token_id",
    "forced_eos_token_id", "remove_invalid_values", "exponential_decay_length_penalty",
    "suppress_tokens", "begin_suppress_tokens", "pruned_heads", "chunk_size_feed_forward",
    "is_decoder", "cross_attention_hidden_size", "add_cross_attention", "tie_encoder_decoder",
    "finetuning_task", "use_bfloat16", "tf_legacy_loss", "_attn_implementation_autoset",
    NULL,
};

/* Architectural fields that are read but not modelled (named in the warning even though the
 * importer knows them: they change numerics or a small part of the cost). */
static const char *const hf_unmodelled[] = {
    "final_logit_softcapping", "attn_logit_softcapping", "query_pre_attn_scalar",
    "use_parallel_residual", "rotary_pct", "no_rope_layers", "attention_chunk_size",
    "nope_layer_interval", "swiglu_limit", "use_qk_norm", "qk_layernorm", "topk_group",
    "n_group", NULL,
};

static bool in_list(const char *const list[], const char *s)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

/* One source object the fields are read from: the text config where nested, else the root,
 * with the root as a fallback for fields a nested file keeps outside (tie_word_embeddings). */
struct hf_src {
    const char *file;
    const cJSON *root;
    const cJSON *text;      // text_config or root
    const char *text_path;  // "text_config." or ""
    enum hf_arch arch;
};

static const cJSON *hf_get(const struct hf_src *s, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(s->text, key);
    if (!v && s->text != s->root)
        v = cJSON_GetObjectItemCaseSensitive(s->root, key);
    return v && !cJSON_IsNull(v) ? v : NULL;
}

/* An integer field: returns true and sets *out when present; a present non-integer is an
 * error (rc set). */
static bool hf_int(const struct hf_src *s, const char *key, long *out, int *rc, struct ts_err *err)
{
    const cJSON *v = hf_get(s, key);
    if (!v)
        return false;
    char path[128];
    snprintf(path, sizeof path, "%s%s", s->text_path, key);
    /* The range first: casting a double beyond long's range is undefined. */
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1e12) ||
        v->valuedouble != (double)(long)v->valuedouble) {
        char d[96];
        ts_jnode_describe(v, d, sizeof d);
        *rc = ts_err_at(err, s->file, path, "expected a non-negative integer, got %s", d);
        return false;
    }
    *out = (long)v->valuedouble;
    return true;
}

/* A required integer: the first present of `keys` (NULL-terminated). */
static int hf_need(const struct hf_src *s, const char *const keys[], const char *what, long *out,
                   struct ts_err *err)
{
    int rc = TS_OK;
    for (int i = 0; keys[i]; i++) {
        if (hf_int(s, keys[i], out, &rc, err))
            return TS_OK;
        if (rc)
            return rc;
    }
    char path[128];
    snprintf(path, sizeof path, "%s%s", s->text_path, keys[0]);
    return ts_err_at(err, s->file, path, "missing (needed for trainsim's %s)", what);
}

static const char *hf_string(const struct hf_src *s, const char *key)
{
    const cJSON *v = hf_get(s, key);
    return v && cJSON_IsString(v) ? v->valuestring : NULL;
}

static int hf_bool(const struct hf_src *s, const char *key, int dflt)
{
    const cJSON *v = hf_get(s, key);
    if (v && cJSON_IsBool(v))
        return cJSON_IsTrue(v);
    return dflt;
}

static void add_int(cJSON *o, const char *key, long v)
{
    cJSON_AddItemToObject(o, key, cJSON_CreateNumber((double)v));
}

/* The number of layers before the first full-attention layer in `layer_types`, plus one: the
 * sliding_window_pattern (N - 1 windowed layers then a full one); 0 when all layers are windowed;
 * -1 when the list is not such a repeating pattern. */
static int layer_types_pattern(const cJSON *types, int layers)
{
    int n = cJSON_GetArraySize(types);
    if (n != layers || n == 0)
        return -1;
    int period = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *t = cJSON_GetArrayItem(types, i);
        if (!cJSON_IsString(t))
            return -1;
        if (strcmp(t->valuestring, "full_attention") == 0) {
            period = i + 1;
            break;
        }
    }
    if (period == 0)
        return 0;
    for (int i = 0; i < n; i++) {
        const char *t = cJSON_GetArrayItem(types, i)->valuestring;
        bool full = (i + 1) % period == 0;
        if (strcmp(t, full ? "full_attention" : "sliding_attention") != 0)
            return -1;
    }
    return period;
}

/* The name of an imported model: _name_or_path's last part, else the directory holding the
 * file, else "hf-MODEL_TYPE". Only catalogue-name characters are kept. */
static void hf_name(const char *file, const cJSON *root, const char *model_type, char *out,
                    size_t n)
{
    const cJSON *np = cJSON_GetObjectItemCaseSensitive(root, "_name_or_path");
    char raw[256] = "";
    if (np && cJSON_IsString(np) && np->valuestring[0]) {
        const char *slash = strrchr(np->valuestring, '/');
        ts_strlcpy(raw, slash ? slash + 1 : np->valuestring, sizeof raw);
    } else {
        const char *slash = strrchr(file, '/');
        const char *base = slash ? slash + 1 : file;
        if (slash && strcmp(base, "config.json") == 0) {
            const char *start = slash;
            while (start > file && start[-1] != '/')
                start--;
            snprintf(raw, sizeof raw, "%.*s", (int)(slash - start), start);
        } else {
            snprintf(raw, sizeof raw, "%s", base);
            size_t len = strlen(raw);
            if (len > 5 && strcmp(raw + len - 5, ".json") == 0)
                raw[len - 5] = '\0';
        }
    }
    size_t j = 0;
    for (const char *p = raw; *p && j + 1 < n; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || c == '.';
        if (ok && !(j == 0 && c == '.'))
            out[j++] = c;
    }
    out[j] = '\0';
    if (j == 0)
        snprintf(out, n, "hf-%s", model_type);
}

static int hf_moe(const struct hf_src *s, long layers, cJSON *doc, struct ts_err *err)
{
    int rc = TS_OK;
    long experts = 0, top_k = 0, effn = 0, v;
    if (!hf_int(s, "num_local_experts", &experts, &rc, err) && !rc &&
        !hf_int(s, "num_experts", &experts, &rc, err) && !rc &&
        !hf_int(s, "n_routed_experts", &experts, &rc, err) && !rc) {
        if (s->arch == HF_MIXTRAL)
            experts = 8;    /* MixtralConfig default */
    }
    if (rc)
        return rc;
    if (experts <= 1 && s->arch != HF_MIXTRAL && s->arch != HF_QWEN2_MOE &&
        s->arch != HF_QWEN3_MOE && s->arch != HF_DEEPSEEK && s->arch != HF_GPT_OSS &&
        s->arch != HF_LLAMA4)
        return TS_OK;
    if (experts == 0) {
        char path[128];
        snprintf(path, sizeof path, "%snum_experts", s->text_path);
        return ts_err_at(err, s->file, path, "missing (needed for trainsim's moe.experts)");
    }
    static const char *const k_topk[] = {"num_experts_per_tok", "experts_per_token", NULL};
    if (s->arch == HF_MIXTRAL && !hf_get(s, "num_experts_per_tok") && !hf_get(s, "experts_per_token"))
        top_k = 2;  /* MixtralConfig default */
    else if ((rc = hf_need(s, k_topk, "moe.top_k", &top_k, err)))
        return rc;
    static const char *const k_moeffn[] = {"moe_intermediate_size", NULL};
    static const char *const k_ffn[] = {"intermediate_size", NULL};
    bool own = s->arch == HF_QWEN2_MOE || s->arch == HF_QWEN3_MOE || s->arch == HF_DEEPSEEK;
    if ((rc = hf_need(s, own ? k_moeffn : k_ffn, "moe.expert_ffn_hidden", &effn, err)))
        return rc;
    cJSON *moe = cJSON_AddObjectToObject(doc, "moe");
    add_int(moe, "experts", experts);
    add_int(moe, "top_k", top_k);
    add_int(moe, "expert_ffn_hidden", effn);
    if (s->arch == HF_DEEPSEEK) {
        if (hf_int(s, "n_shared_experts", &v, &rc, err) && v > 0) {
            add_int(moe, "shared_experts", v);
            add_int(moe, "shared_ffn_hidden", effn);
        }
        if (rc)
            return rc;
        if (hf_int(s, "first_k_dense_replace", &v, &rc, err) && v > 0)
            add_int(moe, "dense_layers", v < layers ? v : layers);
        if (rc)
            return rc;
        if (hf_int(s, "moe_layer_freq", &v, &rc, err) && v > 1)
            add_int(moe, "moe_every", v);
        if (rc)
            return rc;
        const char *score = hf_string(s, "scoring_func");
        cJSON_AddStringToObject(moe, "router", score && strcmp(score, "sigmoid") == 0 ? "sigmoid"
                                                                                     : "softmax");
        const char *topk = hf_string(s, "topk_method");
        cJSON_AddBoolToObject(moe, "aux_loss_free", topk && strcmp(topk, "noaux_tc") == 0);
    } else if (s->arch == HF_QWEN2_MOE) {
        if (hf_int(s, "shared_expert_intermediate_size", &v, &rc, err) && v > 0) {
            add_int(moe, "shared_experts", 1);
            add_int(moe, "shared_ffn_hidden", v);
        }
        if (rc)
            return rc;
    } else if (s->arch == HF_LLAMA4) {
        /* Llama 4's MoE layers add one shared expert of the routed experts' size
         * (transformers Llama4TextMoe: shared_expert = Llama4TextMLP(intermediate_size)). */
        add_int(moe, "shared_experts", 1);
        add_int(moe, "shared_ffn_hidden", effn);
        cJSON_AddStringToObject(moe, "router", "sigmoid");
        if (hf_int(s, "interleave_moe_layer_step", &v, &rc, err) && v > 1)
            add_int(moe, "moe_every", v);
        if (rc)
            return rc;
    }
    if (s->arch == HF_QWEN2_MOE || s->arch == HF_QWEN3_MOE) {
        if (hf_int(s, "decoder_sparse_step", &v, &rc, err) && v > 1)
            add_int(moe, "moe_every", v);
        if (rc)
            return rc;
        const cJSON *mlp_only = hf_get(s, "mlp_only_layers");
        if (mlp_only && cJSON_IsArray(mlp_only) && cJSON_GetArraySize(mlp_only) > 0) {
            /* Only a leading run of dense layers is expressible (dense_layers). */
            int n = cJSON_GetArraySize(mlp_only);
            for (int i = 0; i < n; i++) {
                const cJSON *it = cJSON_GetArrayItem(mlp_only, i);
                if (!cJSON_IsNumber(it) || it->valuedouble != (double)i) {
                    char path[128];
                    snprintf(path, sizeof path, "%smlp_only_layers", s->text_path);
                    return ts_err_at(err, s->file, path,
                                     "dense layers other than the first k are not modelled "
                                     "(trainsim's moe.dense_layers takes a leading run)");
                }
            }
            add_int(moe, "dense_layers", n);
        }
    }
    return TS_OK;
}

int ts_hf_model_doc(const char *path, cJSON **out, char *warning, size_t wn, struct ts_err *err)
{
    *out = NULL;
    if (warning && wn)
        warning[0] = '\0';
    cJSON *root;
    int rc = ts_json_load(path, &root, err);
    if (rc)
        return rc;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return ts_err_set(err, TS_ERR_INPUT, "%s: a Hugging Face config.json is a JSON object",
                          path);
    }
    struct hf_src s = {.file = path, .root = root, .text = root, .text_path = ""};
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(root, "text_config");
    if (tc && cJSON_IsObject(tc)) {
        s.text = tc;
        s.text_path = "text_config.";
    }
    const char *mt = hf_string(&s, "model_type");
    const cJSON *root_mt = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (!mt && root_mt && cJSON_IsString(root_mt))
        mt = root_mt->valuestring;
    if (!mt) {
        cJSON_Delete(root);
        return ts_err_at(err, path, "model_type",
                         "missing: the file does not say its architecture (a Hugging Face "
                         "config.json names it in model_type)");
    }
    int found = -1;
    for (size_t i = 0; i < TS_ARRAY_LEN(hf_types); i++)
        if (strcmp(hf_types[i].model_type, mt) == 0)
            found = (int)i;
    if (found < 0) {
        char list[600] = "";
        size_t used = 0;
        for (size_t i = 0; i < TS_ARRAY_LEN(hf_types) && used < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                     hf_types[i].model_type);
        rc = ts_err_at(err, path, s.text != root ? "text_config.model_type" : "model_type",
                       "\"%s\" is not an architecture trainsim imports (supported: %s); "
                       "write a trainsim model file instead (README, model keys)", mt, list);
        cJSON_Delete(root);
        return rc;
    }
    s.arch = hf_types[found].arch;
    bool gpt2 = s.arch == HF_GPT2;

    cJSON *doc = cJSON_CreateObject();
    TS_ASSERT(doc != NULL, "out of memory");
    long layers, hidden, heads, kv = 0, v;
    static const char *const k_layers[] = {"num_hidden_layers", "n_layer", NULL};
    static const char *const k_hidden[] = {"hidden_size", "n_embd", NULL};
    static const char *const k_heads[] = {"num_attention_heads", "n_head", NULL};
    static const char *const k_vocab[] = {"vocab_size", NULL};
    if ((rc = hf_need(&s, k_layers, "layers", &layers, err)) ||
        (rc = hf_need(&s, k_hidden, "hidden", &hidden, err)) ||
        (rc = hf_need(&s, k_heads, "heads", &heads, err)))
        goto fail;
    char name[TS_NAME_MAX];
    hf_name(path, root, mt, name, sizeof name);
    cJSON_AddStringToObject(doc, "name", name);
    add_int(doc, "layers", layers);
    add_int(doc, "hidden", hidden);
    add_int(doc, "heads", heads);
    if (hf_int(&s, "num_key_value_heads", &kv, &rc, err) && kv > 0)
        add_int(doc, "kv_heads", kv);
    if (rc)
        goto fail;
    if (hf_int(&s, "head_dim", &v, &rc, err) && v > 0)
        add_int(doc, "head_dim", v);
    if (rc)
        goto fail;

    /* The MLP. */
    long ffn = 0;
    if (gpt2) {
        if (!hf_int(&s, "n_inner", &ffn, &rc, err))
            ffn = 4 * hidden;   /* GPT2Config: n_inner None = 4 x n_embd */
    } else if (s.arch == HF_LLAMA4) {
        static const char *const k[] = {"intermediate_size_mlp", "intermediate_size", NULL};
        rc = hf_need(&s, k, "ffn_hidden", &ffn, err);
    } else {
        static const char *const k[] = {"intermediate_size", NULL};
        rc = hf_need(&s, k, "ffn_hidden", &ffn, err);
    }
    if (rc)
        goto fail;
    add_int(doc, "ffn_hidden", ffn);
    bool gelu = gpt2 || s.arch == HF_GPT_NEOX;
    cJSON_AddStringToObject(doc, "ffn", gelu ? "gelu" : "swiglu");

    /* Vocabulary: Gemma 3's text config may leave it to Gemma3TextConfig's default. */
    if (s.arch == HF_GEMMA3 && !hf_get(&s, "vocab_size"))
        v = 262208;
    else if ((rc = hf_need(&s, k_vocab, "vocab", &v, err)))
        goto fail;
    add_int(doc, "vocab", v);

    /* The pre-training context. */
    long seq = 0;
    bool seq_from_max = false;
    const cJSON *rs = hf_get(&s, "rope_scaling");
    const cJSON *orig = rs && cJSON_IsObject(rs)
                            ? cJSON_GetObjectItemCaseSensitive(rs, "original_max_position_embeddings")
                            : NULL;
    /* Phi-3 keeps its pre-training context at the top level (Phi3Config
     * original_max_position_embeddings: 4096 for Phi-3-mini-128k). */
    const cJSON *orig_top = s.arch == HF_PHI3 ? hf_get(&s, "original_max_position_embeddings")
                                              : NULL;
    if (orig && cJSON_IsNumber(orig) && orig->valuedouble >= 1)
        seq = (long)orig->valuedouble;
    else if (orig_top && cJSON_IsNumber(orig_top) && orig_top->valuedouble >= 1)
        seq = (long)orig_top->valuedouble;
    else if (!hf_int(&s, "initial_context_length", &seq, &rc, err) && !rc) {
        static const char *const k_seq[] = {"max_position_embeddings", "n_positions", NULL};
        if (s.arch == HF_GEMMA3 && !hf_get(&s, "max_position_embeddings"))
            seq = 131072;   /* Gemma3TextConfig default */
        else
            rc = hf_need(&s, k_seq, "seq_len", &seq, err);
        seq_from_max = true;
    }
    if (rc)
        goto fail;
    add_int(doc, "seq_len", seq);

    bool tie_default = gpt2 || s.arch == HF_GEMMA || s.arch == HF_GEMMA2 || s.arch == HF_GEMMA3;
    cJSON_AddBoolToObject(doc, "tied_embeddings", hf_bool(&s, "tie_word_embeddings", tie_default));
    bool bias = gpt2 || s.arch == HF_GPT_NEOX ||
                (s.arch == HF_GPT_OSS && hf_bool(&s, "attention_bias", 1));
    cJSON_AddBoolToObject(doc, "bias", bias);
    cJSON_AddStringToObject(doc, "position_embedding", gpt2 ? "learned" : "rope");

    /* Attention variants. */
    if (s.arch == HF_DEEPSEEK) {
        cJSON *att = cJSON_AddObjectToObject(doc, "attention");
        cJSON_AddStringToObject(att, "kind", "mla");
        static const char *const mla[] = {"q_lora_rank", "kv_lora_rank", "qk_rope_head_dim",
                                          "qk_nope_head_dim", "v_head_dim"};
        for (size_t i = 0; i < TS_ARRAY_LEN(mla); i++) {
            if (i == 0 && !hf_get(&s, mla[0])) {
                cJSON_AddNullToObject(att, mla[0]);     /* DeepSeek-V2-Lite: no q compression */
                continue;
            }
            const char *one[] = {mla[i], NULL};
            if ((rc = hf_need(&s, one, "attention (MLA)", &v, err)))
                goto fail;
            add_int(att, mla[i], v);
        }
        if (hf_int(&s, "num_nextn_predict_layers", &v, &rc, err) && v > 0)
            add_int(doc, "mtp_layers", v);
        if (rc)
            goto fail;
    }
    long window = 0;
    bool windowed_arch = s.arch == HF_MISTRAL || s.arch == HF_MIXTRAL || s.arch == HF_PHI3 ||
                         s.arch == HF_GEMMA2 || s.arch == HF_GEMMA3 || s.arch == HF_GPT_OSS ||
                         ((s.arch == HF_QWEN2 || s.arch == HF_QWEN2_MOE || s.arch == HF_QWEN3 ||
                           s.arch == HF_QWEN3_MOE) &&
                          hf_bool(&s, "use_sliding_window", 0));
    if (windowed_arch && hf_int(&s, "sliding_window", &window, &rc, err) && window > 0 &&
        window < seq) {
        add_int(doc, "sliding_window", window);
        const cJSON *types = hf_get(&s, "layer_types");
        int pattern = 0;
        if (types && cJSON_IsArray(types)) {
            pattern = layer_types_pattern(types, (int)layers);
            if (pattern < 0) {
                char p[128];
                snprintf(p, sizeof p, "%slayer_types", s.text_path);
                rc = ts_err_at(err, path, p,
                               "not a repeating pattern of sliding_attention layers ending in "
                               "one full_attention layer (trainsim's sliding_window_pattern)");
                goto fail;
            }
        } else if (s.arch == HF_GEMMA2) {
            pattern = 2;    /* Gemma 2 alternates local and global layers (Gemma 2 report) */
        } else if (s.arch == HF_GEMMA3) {
            pattern = 6;    /* Gemma3TextConfig sliding_window_pattern default: 5 local : 1 global */
            if (hf_int(&s, "sliding_window_pattern", &v, &rc, err) && v > 0)
                pattern = (int)v;
        }
        if (rc)
            goto fail;
        if (pattern > 1)
            add_int(doc, "sliding_window_pattern", pattern);
    }
    if (rc)
        goto fail;

    if ((rc = hf_moe(&s, layers, doc, err)))
        goto fail;

    /* One warning for what is not modelled. */
    char notmod[1024] = "";
    size_t used = 0;
    const cJSON *objs[2] = {root, s.text != root ? s.text : NULL};
    for (int o = 0; o < 2; o++) {
        if (!objs[o])
            continue;
        for (const cJSON *it = objs[o]->child; it; it = it->next) {
            if (in_list(hf_harmless, it->string) && !in_list(hf_unmodelled, it->string))
                continue;
            if (cJSON_IsNull(it) || cJSON_IsFalse(it) ||
                (cJSON_IsNumber(it) && it->valuedouble == 0.0) ||
                ((cJSON_IsObject(it) || cJSON_IsArray(it)) && it->child == NULL))
                continue;   /* an absent, zero or switched-off feature */
            if (s.arch == HF_GPT_OSS && strcmp(it->string, "attention_bias") == 0)
                continue;   /* mapped to bias */
            if (used < sizeof notmod)
                used += (size_t)snprintf(notmod + used, sizeof notmod - used, "%s%s%s",
                                         used ? ", " : "", o ? "text_config." : "", it->string);
        }
    }
    if (seq_from_max && seq > 32768 && used < sizeof notmod)
        used += (size_t)snprintf(notmod + used, sizeof notmod - used,
                                 "%s(seq_len %ld is the longest context the model serves, the "
                                 "file names no pre-training context: give one with {\"hf\": "
                                 "PATH, \"seq_len\": N})", used ? ", " : "", seq);
    if (s.arch == HF_GPT_NEOX && !hf_get(&s, "use_parallel_residual") && used < sizeof notmod)
        used += (size_t)snprintf(notmod + used, sizeof notmod - used,
                                 "%s(use_parallel_residual, true by GPTNeoXConfig's default: "
                                 "attention and MLP read the same input; same FLOPs)",
                                 used ? ", " : "");
    if ((s.arch == HF_GEMMA2 || s.arch == HF_GEMMA3) && used < sizeof notmod)
        used += (size_t)snprintf(notmod + used, sizeof notmod - used,
                                 "%s(the pre/post feed-forward RMSNorms: 2 x hidden parameters a "
                                 "layer)", used ? ", " : "");
    /* Qwen3 and Gemma 3 normalise each head's queries and keys with an RMSNorm of head_dim
     * weights (transformers Qwen3Attention / Gemma3Attention q_norm, k_norm), which the file
     * names in no key; Llama 4's use_qk_norm is a weightless L2 norm. */
    if ((s.arch == HF_QWEN3 || s.arch == HF_QWEN3_MOE || s.arch == HF_GEMMA3) &&
        used < sizeof notmod)
        used += (size_t)snprintf(notmod + used, sizeof notmod - used,
                                 "%s(the per-head q/k RMSNorms: 2 x head_dim parameters a layer)",
                                 used ? ", " : "");
    /* Llama4TextConfig expands an absent or empty no_rope_layers to every
     * no_rope_layer_interval-th layer (default 4) without RoPE: numerics, not cost. */
    if (s.arch == HF_LLAMA4 && used < sizeof notmod) {
        const cJSON *nr = hf_get(&s, "no_rope_layers");
        long every = 4;     /* Llama4TextConfig no_rope_layer_interval default */
        if ((!hf_int(&s, "no_rope_layer_interval", &every, &rc, err) && rc) || every < 1) {
            if (!rc) {
                char p[128];
                snprintf(p, sizeof p, "%sno_rope_layer_interval", s.text_path);
                rc = ts_err_at(err, path, p, "expected a positive integer, got 0");
            }
            goto fail;
        }
        if (!nr || (cJSON_IsArray(nr) && cJSON_GetArraySize(nr) == 0))
            used += (size_t)snprintf(notmod + used, sizeof notmod - used,
                                     "%s(no_rope_layers %s: Llama4TextConfig makes one layer in "
                                     "%ld a layer without RoPE)", used ? ", " : "",
                                     nr ? "empty" : "absent", every);
    }
    if (s.arch == HF_QWEN2 || s.arch == HF_QWEN2_MOE)
        if (used < sizeof notmod)
            used += (size_t)snprintf(notmod + used, sizeof notmod - used,
                                     "%s(q/k/v-only biases)", used ? ", " : "");
    if (s.text != root) {
        const cJSON *vc = cJSON_GetObjectItemCaseSensitive(root, "vision_config");
        if (vc && used < sizeof notmod)
            used += (size_t)snprintf(notmod + used, sizeof notmod - used,
                                     "%s(the vision tower: text model only)", used ? ", " : "");
    }
    char src[TS_SOURCE_MAX];
    snprintf(src, sizeof src,
             "Hugging Face config.json %s (model_type %s), imported by trainsim: values as "
             "published, mapping in README (Models from Hugging Face)", path, mt);
    cJSON_AddStringToObject(doc, "source", src);
    if (used) {
        char note[1200];
        snprintf(note, sizeof note, "not modelled: %s", notmod);
        cJSON_AddStringToObject(doc, "notes", note);
        if (warning && wn)
            snprintf(warning, wn, "%s: fields not modelled (cost unaffected or approximated): %s",
                     path, notmod);
    }
    cJSON_Delete(root);
    *out = doc;
    return TS_OK;
fail:
    cJSON_Delete(doc);
    cJSON_Delete(root);
    return rc;
}
