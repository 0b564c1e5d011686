#!/usr/bin/env python3
"""Count the parameters of a Hugging Face causal-LM config.json from its shapes alone.

Usage: count_params.py [--json] CONFIG.json...
       count_params.py --check [published_params.json]   (compare every listed file)

Prints, per file, the total parameter count and (for mixture-of-experts models) the
parameters active per token, with a breakdown by part. Python 3 standard library only.

Conventions (each matches how the model's own implementation in Hugging Face
transformers builds its weights; see README.md for the per-architecture notes):
  * embeddings: vocab_size x hidden; the output head is a second vocab x hidden matrix
    unless tie_word_embeddings is true (then it is not counted again);
  * attention: q, k, v, o projections with grouped-query K/V (num_key_value_heads) and
    head_dim (explicit, or hidden / heads); biases where the architecture has them
    (Qwen2: q, k, v only; GPT-OSS, GPT-2, GPT-NeoX: all four); per-head q/k RMSNorm
    (Qwen3, Gemma 3); attention sinks (GPT-OSS, one per head);
  * DeepSeek-V3 multi-head latent attention: q_a (hidden x q_lora_rank), its RMSNorm,
    q_b (q_lora_rank x heads*(nope+rope)), kv_a (hidden x (kv_lora_rank+rope)), its RMSNorm,
    kv_b (kv_lora_rank x heads*(nope+v)), o (heads*v x hidden);
  * MLP: gated (SwiGLU / GeGLU) = 3 x hidden x ffn; GPT-2 / GPT-NeoX: 2 matrices + biases;
  * MoE: routed experts x expert MLP + shared experts + router (hidden x experts, plus
    its bias where present: GPT-OSS router bias, DeepSeek-V3 e_score_correction_bias);
  * norms: RMSNorm = hidden weights; LayerNorm = weights + biases.
  * active per token: everything except the routed experts, plus top_k routed experts.
    Publishers differ on the input embedding (a lookup, no FLOPs): DeepSeek-V3 and
    GPT-OSS leave it out of their active counts, Qwen3 keeps it in; both are printed
    (`active` includes it, `active_excl_embedding` does not).
  * DeepSeek-V3: `main` excludes the multi-token-prediction (MTP) module, as the
    published 671B does; the MTP module (num_nextn_predict_layers) is reported apart.
"""
import json
import sys


def _get(cfg, key, default=None, required=True):
    if key in cfg and cfg[key] is not None:
        return cfg[key]
    if required and default is None:
        raise KeyError(key)
    return default


class Count:
    def __init__(self):
        self.parts = {}       # name -> parameters
        self.active = {}      # name -> parameters active per token

    def add(self, name, n, active=None):
        self.parts[name] = self.parts.get(name, 0) + n
        self.active[name] = self.active.get(name, 0) + (n if active is None else active)

    def total(self):
        return sum(self.parts.values())

    def total_active(self):
        return sum(self.active.values())


def rms(h):
    return h


def layernorm(h):
    return 2 * h


def embeddings(c, cfg, v, h, tied):
    c.add("embedding", v * h)
    if not tied:
        c.add("output_head", v * h)


def gqa_shape(cfg):
    """hidden, layers, vocabulary, heads, KV heads (default: heads) and head_dim (default:
    hidden / heads) of a GQA model's config."""
    h, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    return (h, cfg["num_hidden_layers"], cfg["vocab_size"], nh,
            _get(cfg, "num_key_value_heads", nh), _get(cfg, "head_dim", h // nh))


def gqa_attention(h, nh, nkv, hd, qkv_bias=False, o_bias=False):
    n = h * nh * hd + 2 * h * nkv * hd + nh * hd * h
    if qkv_bias:
        n += nh * hd + 2 * nkv * hd
    if o_bias:
        n += h
    return n


def count_llama_like(cfg, qkv_bias=False, qk_norm=False):
    """Llama 3.x, Mistral, Qwen2 (qkv_bias), Qwen3 (qk_norm), Phi-3 (fused, same count)."""
    c = Count()
    h, L, v, nh, nkv, hd = gqa_shape(cfg)
    ff = cfg["intermediate_size"]
    bias = bool(cfg.get("attention_bias", False))
    embeddings(c, cfg, v, h, bool(cfg.get("tie_word_embeddings", False)))
    c.add("attention", L * gqa_attention(h, nh, nkv, hd, qkv_bias or bias, bias))
    if qk_norm:
        c.add("qk_norm", L * 2 * hd)
    c.add("mlp", L * 3 * h * ff + (L * (2 * ff + h) if cfg.get("mlp_bias") else 0))
    c.add("norms", L * 2 * rms(h) + rms(h))
    return c


def count_qwen3_moe(cfg):
    c = Count()
    h, L, v, nh, nkv, hd = gqa_shape(cfg)
    e, k = cfg["num_experts"], cfg["num_experts_per_tok"]
    eff, ff = cfg["moe_intermediate_size"], cfg["intermediate_size"]
    step = _get(cfg, "decoder_sparse_step", 1)
    dense_only = set(_get(cfg, "mlp_only_layers", [], required=False))
    moe_layers = [i for i in range(L) if i not in dense_only and (i + 1) % step == 0]
    nmoe = len(moe_layers)
    embeddings(c, cfg, v, h, bool(cfg.get("tie_word_embeddings", False)))
    c.add("attention", L * gqa_attention(h, nh, nkv, hd, cfg.get("attention_bias", False),
                                         cfg.get("attention_bias", False)))
    c.add("qk_norm", L * 2 * hd)
    c.add("dense_mlp", (L - nmoe) * 3 * h * ff)
    c.add("routed_experts", nmoe * e * 3 * h * eff, nmoe * k * 3 * h * eff)
    c.add("router", nmoe * h * e)
    c.add("norms", L * 2 * h + h)
    return c


def count_mixtral(cfg):
    c = Count()
    h, L, v, nh, nkv, hd = gqa_shape(cfg)
    e, k, ff = cfg["num_local_experts"], cfg["num_experts_per_tok"], cfg["intermediate_size"]
    embeddings(c, cfg, v, h, bool(cfg.get("tie_word_embeddings", False)))
    c.add("attention", L * gqa_attention(h, nh, nkv, hd))
    c.add("routed_experts", L * e * 3 * h * ff, L * k * 3 * h * ff)
    c.add("router", L * h * e)
    c.add("norms", L * 2 * h + h)
    return c


def _mla(cfg):
    h, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    ql, kvl = cfg["q_lora_rank"], cfg["kv_lora_rank"]
    nope, rope, vd = cfg["qk_nope_head_dim"], cfg["qk_rope_head_dim"], cfg["v_head_dim"]
    n = h * ql + ql + ql * nh * (nope + rope)          # q_a, q_a_layernorm, q_b
    n += h * (kvl + rope) + kvl + kvl * nh * (nope + vd)  # kv_a (with MQA rope key), norm, kv_b
    n += nh * vd * h                                    # o
    return n


def count_deepseek_v3(cfg):
    """Returns (main, mtp): main = 61 decoder layers + embeddings + head; mtp = the MTP module(s)."""
    c = Count()
    h, L, v = cfg["hidden_size"], cfg["num_hidden_layers"], cfg["vocab_size"]
    e, k = cfg["n_routed_experts"], cfg["num_experts_per_tok"]
    ns, eff, ff = cfg["n_shared_experts"], cfg["moe_intermediate_size"], cfg["intermediate_size"]
    kd = cfg["first_k_dense_replace"]
    freq = _get(cfg, "moe_layer_freq", 1)
    moe = [i for i in range(L) if i >= kd and i % freq == 0]
    nmoe, ndense = len(moe), L - len(moe)
    corr_bias = e if cfg.get("topk_method") == "noaux_tc" else 0
    embeddings(c, cfg, v, h, bool(cfg.get("tie_word_embeddings", False)))
    c.add("attention_mla", L * _mla(cfg))
    c.add("dense_mlp", ndense * 3 * h * ff)
    c.add("shared_experts", nmoe * ns * 3 * h * eff)
    c.add("routed_experts", nmoe * e * 3 * h * eff, nmoe * k * 3 * h * eff)
    c.add("router", nmoe * (h * e + corr_bias))
    c.add("norms", L * 2 * h + h)
    # MTP module: embedding and output head shared with the main model (DeepSeek-V3
    # README_WEIGHTS.md); its own parts are enorm, hnorm, eh_proj (2h x h), one MoE
    # decoder layer and the shared_head norm.
    m = Count()
    nm = _get(cfg, "num_nextn_predict_layers", 0, required=False)
    if nm:
        m.add("mtp_norms_and_proj", nm * (2 * h + 2 * h * h + h))
        m.add("mtp_layer_attention_mla", nm * _mla(cfg))
        m.add("mtp_layer_shared_experts", nm * ns * 3 * h * eff)
        m.add("mtp_layer_routed_experts", nm * e * 3 * h * eff, nm * k * 3 * h * eff)
        m.add("mtp_layer_router", nm * (h * e + corr_bias))
        m.add("mtp_layer_norms", nm * 2 * h)
    return c, m


def count_gpt_oss(cfg):
    c = Count()
    h, L, v = cfg["hidden_size"], cfg["num_hidden_layers"], cfg["vocab_size"]
    nh, nkv, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    e = cfg["num_local_experts"]
    k = _get(cfg, "num_experts_per_tok", cfg.get("experts_per_token"))
    ff = cfg["intermediate_size"]
    bias = bool(cfg.get("attention_bias", False))
    embeddings(c, cfg, v, h, bool(cfg.get("tie_word_embeddings", False)))
    c.add("attention", L * gqa_attention(h, nh, nkv, hd, bias, bias))
    c.add("attention_sinks", L * nh)
    # experts: gate_up_proj (h x 2ff) + bias (2ff), down_proj (ff x h) + bias (h)
    per_expert = h * 2 * ff + 2 * ff + ff * h + h
    c.add("routed_experts", L * e * per_expert, L * k * per_expert)
    c.add("router", L * (h * e + e))
    c.add("norms", L * 2 * h + h)
    return c


def count_gemma3(cfg):
    """Gemma 3 (Gemma3ForConditionalGeneration): text_config plus the SigLIP vision tower."""
    t = dict(cfg["text_config"])
    # Keys the shipped config leaves to Gemma3TextConfig's defaults (transformers
    # src/transformers/models/gemma3/configuration_gemma3.py): vocab_size=262208,
    # tie_word_embeddings=True.
    t.setdefault("vocab_size", 262208)
    t.setdefault("tie_word_embeddings", True)
    c = Count()
    h, L, v = t["hidden_size"], t["num_hidden_layers"], t["vocab_size"]
    nh, nkv, hd, ff = t["num_attention_heads"], t["num_key_value_heads"], t["head_dim"], t["intermediate_size"]
    embeddings(c, t, v, h, bool(t["tie_word_embeddings"]))
    c.add("attention", L * gqa_attention(h, nh, nkv, hd))
    c.add("qk_norm", L * 2 * hd)
    c.add("mlp", L * 3 * h * ff)
    c.add("norms", L * 4 * h + h)
    vc = cfg.get("vision_config")
    if vc:
        vh, vl, vff = vc["hidden_size"], vc["num_hidden_layers"], vc["intermediate_size"]
        p, img = vc["patch_size"], vc["image_size"]
        npatch = (img // p) ** 2
        n = 3 * p * p * vh + vh + npatch * vh                   # patch conv + bias, position embedding
        n += vl * (4 * (vh * vh + vh) + 2 * layernorm(vh) + vh * vff + vff + vff * vh + vh)
        n += layernorm(vh)                                      # post_layernorm
        c.add("vision_tower", n, 0)
        c.add("multimodal_projector", vh + vh * h, 0)           # soft-embedding RMSNorm + projection
    return c


def count_gemma2(cfg):
    """Gemma 2: GQA with head_dim, GeGLU MLP, four RMSNorms per layer (input, post-attention,
    pre- and post-feed-forward), tied embeddings unless the file says otherwise."""
    c = Count()
    h, L, v = cfg["hidden_size"], cfg["num_hidden_layers"], cfg["vocab_size"]
    nh, nkv, hd, ff = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"], cfg["intermediate_size"]
    embeddings(c, cfg, v, h, bool(cfg.get("tie_word_embeddings", True)))
    c.add("attention", L * gqa_attention(h, nh, nkv, hd))
    c.add("mlp", L * 3 * h * ff)
    c.add("norms", L * 4 * h + h)
    return c


def count_gpt2(cfg):
    c = Count()
    h, L, v, p = cfg["n_embd"], cfg["n_layer"], cfg["vocab_size"], cfg["n_positions"]
    inner = cfg.get("n_inner") or 4 * h
    c.add("embedding", v * h)
    c.add("position_embedding", p * h)
    c.add("attention", L * (h * 3 * h + 3 * h + h * h + h))
    c.add("mlp", L * (h * inner + inner + inner * h + h))
    c.add("norms", L * 2 * layernorm(h) + layernorm(h))
    return c


def count_gpt_neox(cfg):
    c = Count()
    h, L, v, ff = cfg["hidden_size"], cfg["num_hidden_layers"], cfg["vocab_size"], cfg["intermediate_size"]
    c.add("embedding", v * h)
    if not cfg.get("tie_word_embeddings", False):
        c.add("output_head", v * h)
    c.add("attention", L * (h * 3 * h + 3 * h + h * h + h))
    c.add("mlp", L * (h * ff + ff + ff * h + h))
    c.add("norms", L * 2 * layernorm(h) + layernorm(h))
    return c


def count_llama4(cfg):
    """Llama 4 (Llama4ForConditionalGeneration): text_config plus the vision encoder.

    Text (transformers models/llama4/modeling_llama4.py): GQA attention with head_dim, the
    q/k L2 norm of use_qk_norm has no weights; MoE layers are every
    interleave_moe_layer_step-th layer (moe_layers = step-1, 2*step-1, ...): routed experts
    of intermediate_size (gate_up 2*ff and down), one shared expert of intermediate_size,
    router hidden x experts, no bias; the other layers are dense MLPs of
    intermediate_size_mlp. Vision (Llama4VisionModel): unfold-conv patch embedding
    (3*patch^2 x width, no bias), class embedding, positional embedding for patches + 1,
    pre and post LayerNorms, layers of q/k/v/o and fc1/fc2 with biases and two LayerNorms,
    the pixel-shuffle adapter MLP (width/ratio^2 x projector_input_dim, then
    projector_input_dim x projector_output_dim, no biases) and the projector
    (vision_output_dim x text hidden, bias only with multi_modal_projector_bias).
    """
    t = cfg.get("text_config", cfg)
    c = Count()
    h, L, v, nh, nkv, hd = gqa_shape(t)
    e, k = t["num_local_experts"], t["num_experts_per_tok"]
    eff, dff = t["intermediate_size"], t["intermediate_size_mlp"]
    step = _get(t, "interleave_moe_layer_step", 1)
    moe_layers = list(range(step - 1, L, step))
    nmoe = len(moe_layers)
    tied = bool(cfg.get("tie_word_embeddings", t.get("tie_word_embeddings", False)))
    embeddings(c, t, v, h, tied)
    bias = bool(t.get("attention_bias", False))
    c.add("attention", L * gqa_attention(h, nh, nkv, hd, bias, bias))
    c.add("dense_mlp", (L - nmoe) * 3 * h * dff)
    c.add("routed_experts", nmoe * e * 3 * h * eff, nmoe * k * 3 * h * eff)
    c.add("shared_experts", nmoe * 3 * h * eff)
    c.add("router", nmoe * h * e)
    c.add("norms", L * 2 * h + h)
    vc = cfg.get("vision_config") if "text_config" in cfg else None
    if vc:
        w, vl, vff = vc["hidden_size"], vc["num_hidden_layers"], vc["intermediate_size"]
        p, img = vc["patch_size"], vc["image_size"]
        npatch = (img // p) ** 2
        n = vc.get("num_channels", 3) * p * p * w + w + (npatch + 1) * w   # patch, class, positions
        n += 2 * layernorm(w)                                             # layernorm_pre / _post
        n += vl * (4 * (w * w + w) + w * vff + vff + vff * w + w + 2 * layernorm(w))
        r = vc["pixel_shuffle_ratio"]
        shuffled = int(round(w / (r * r)))
        pin, pout = vc["projector_input_dim"], vc["projector_output_dim"]
        n += shuffled * pin + pin * pout                                  # vision_adapter MLP
        c.add("vision_tower", n, 0)
        pb = h if vc.get("multi_modal_projector_bias") else 0
        c.add("multimodal_projector", vc["vision_output_dim"] * h + pb, 0)
    return c


def count(cfg):
    arch = (cfg.get("architectures") or [""])[0]
    mt = cfg.get("model_type", "")
    if mt in ("llama", "mistral", "phi3"):
        return count_llama_like(cfg), None
    if mt == "qwen2":
        return count_llama_like(cfg, qkv_bias=True), None
    if mt == "qwen3":
        return count_llama_like(cfg, qk_norm=True), None
    if mt == "qwen3_moe":
        return count_qwen3_moe(cfg), None
    if mt == "mixtral":
        return count_mixtral(cfg), None
    if mt == "deepseek_v3":
        return count_deepseek_v3(cfg)
    if mt == "gpt_oss":
        return count_gpt_oss(cfg), None
    if mt == "gemma3":
        return count_gemma3(cfg), None
    if mt in ("llama4", "llama4_text"):
        return count_llama4(cfg), None
    if mt == "gemma2":
        return count_gemma2(cfg), None
    if mt == "gpt2":
        return count_gpt2(cfg), None
    if mt == "gpt_neox":
        return count_gpt_neox(cfg), None
    raise SystemExit(f"unsupported architecture {arch!r} (model_type {mt!r})")


def check(pub_path):
    """Print computed vs published counts for every file listed in published_params.json."""
    import os
    base = os.path.dirname(os.path.abspath(pub_path))
    pub = json.load(open(pub_path, encoding="utf-8"))["files"]
    print(f"{'file':40} {'quantity':22} {'computed':>16} {'published':>12} {'diff':>8}")
    for f, p in pub.items():
        cfg = json.load(open(os.path.join(base, f), encoding="utf-8"))
        c, mtp = count(cfg)
        emb = c.parts["embedding"]
        vision = c.parts.get("vision_tower", 0) + c.parts.get("multimodal_projector", 0)
        rows = [("total", c.total(), p.get("total"))]
        if "non_embedding" in p:
            rows.append(("non_embedding", c.total() - emb - c.parts.get("output_head", 0) - vision,
                         p["non_embedding"]))
        if "active" in p:
            a = c.total_active()
            if p.get("convention", "").startswith("excludes"):
                a -= emb
            rows.append(("active (" + ("excl" if p.get("convention", "").startswith("excludes") else "incl")
                         + " embedding)", a, p["active"]))
        if "mtp_module_unique" in p and mtp is not None:
            rows.append(("mtp_module", mtp.total(), p["mtp_module_unique"]))
        for name, got, want in rows:
            d = (got - want) / want * 100
            print(f"{f:40} {name:22} {got:16,d} {want / 1e9:11.2f}B {d:+7.2f}%")


def main(argv):
    if argv and argv[0] == "--check":
        check(argv[1] if len(argv) > 1 else __file__.replace("count_params.py", "published_params.json"))
        return
    as_json = "--json" in argv
    files = [a for a in argv if a != "--json"]
    out = {}
    for f in files:
        cfg = json.load(open(f, encoding="utf-8"))
        if "model_type" not in cfg:  # e.g. published_params.json next to the configs
            print(f"{f}: skipped (no model_type: not a Hugging Face config)", file=sys.stderr)
            continue
        c, mtp = count(cfg)
        rec = {"total": c.total(), "active": c.total_active(),
               "active_excl_embedding": c.total_active() - c.parts["embedding"], "parts": c.parts}
        if mtp is not None and mtp.total():
            rec["mtp_module"] = mtp.total()
            rec["mtp_module_active"] = mtp.total_active()
            rec["total_with_mtp"] = c.total() + mtp.total()
        if "vision_tower" in c.parts:
            rec["text_only"] = c.total() - c.parts["vision_tower"] - c.parts["multimodal_projector"]
            rec["text_non_embedding"] = rec["text_only"] - c.parts["embedding"]
        out[f] = rec
    if as_json:
        print(json.dumps(out, indent=2, sort_keys=True))
        return
    for f, r in out.items():
        line = f"{f}: total {r['total']:,} ({r['total'] / 1e9:.3f}B)"
        if r["active"] != r["total"]:
            line += (f", active {r['active']:,} ({r['active'] / 1e9:.3f}B; "
                     f"{r['active_excl_embedding'] / 1e9:.3f}B without the input embedding)")
        if "mtp_module" in r:
            line += f", MTP module {r['mtp_module']:,} (with MTP {r['total_with_mtp'] / 1e9:.3f}B)"
        if "text_only" in r:
            line += f", text only {r['text_only'] / 1e9:.3f}B"
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
