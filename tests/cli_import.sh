#!/usr/bin/env bash
# Command-line tests of the Hugging Face import: `trainsim import hf` translates the verbatim
# config.json files in tests/data/hf (published values) into model files that load; the
# parameter count trainsim computes from them is within 0.5% of the published count and
# within 0.1% of an independent counter (tests/data/hf/count_params.py, Python, written from
# the transformers module shapes); "model": "hf:PATH" and {"hf": PATH, ...} in a job load the
# same model; unmodelled fields are one warning, not an error; a missing or malformed field is
# exit 2 naming the file and the field.
#
# usage: bash tests/cli_import.sh path/to/trainsim   (ctest passes the built binary)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_import "$@"
HF=$DATA/hf

# job FILE MODEL_JSON: a one-node job around a model reference.
job() {
    cat >"$1" <<JOB
{"model": $2, "system": "dgx-h100", "gpus": 8, "global_batch": 8, "precision": "bf16",
 "parallel": {"tp": 1}}
JOB
}

# params FILE: the "parameters" of a run's JSON output.
params() {
    python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["parameters"]))' "$1"
}

# within A B TOL: |A/B - 1| <= TOL
within() {
    python3 -c 'import sys; a,b,t=map(float,sys.argv[1:]); sys.exit(0 if abs(a/b-1)<=t else 1)' "$@"
}

# published FILE KEY: the published count of a config in published_params.json.
published() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["files"][sys.argv[2]][sys.argv[3]])' \
        "$HF/published_params.json" "$1" "$2"
}

for cfg in llama-3.1-8b llama-3.1-70b-instruct qwen2.5-7b qwen3-8b qwen3-30b-a3b deepseek-v3 \
    gpt-oss-120b gemma-3-27b-it gpt2 gpt2-large gpt-neox-20b gemma-2-9b-it phi-4 \
    mistral-7b-instruct-v0.3; do
    run "imp_$cfg" import hf "$HF/$cfg.json" --out "$tmp/$cfg.model.json"
    expect_rc "imp_$cfg" 0
    job "$tmp/$cfg.job.json" "\"$tmp/$cfg.model.json\""
    run "run_$cfg" run "$tmp/$cfg.job.json" --format json
    expect_rc "run_$cfg" 0
    got=$(params "$tmp/run_$cfg.out")
    pub=$(published "$cfg.json" total)
    if ! within "$got" "$pub" 0.005; then fail "$cfg: $got parameters, published $pub (> 0.5% apart)"; fi
    counted=$(python3 "$HF/count_params.py" "$HF/$cfg.json")
    indep=$(echo "$counted" | sed -n 's/.*total \([0-9,]*\).*/\1/p' | tr -d ,)
    # A multimodal file: trainsim imports the text model (count_params.py's "text only").
    if echo "$counted" | grep -q 'text only'; then
        indep=$(echo "$counted" | sed -n 's/.*text only \([0-9.]*\)B.*/\1/p' | awk '{ printf "%.0f", $1 * 1e9 }')
    fi
    if ! within "$got" "$indep" 0.001; then fail "$cfg: $got parameters, count_params.py $indep"; fi
    # The same model referenced directly from the job.
    job "$tmp/$cfg.hfjob.json" "\"hf:$HF/$cfg.json\""
    run "hf_$cfg" run "$tmp/$cfg.hfjob.json" --format json
    expect_rc "hf_$cfg" 0
    if [ "$(params "$tmp/hf_$cfg.out")" != "$got" ]; then
        fail "$cfg: hf: reference gives $(params "$tmp/hf_$cfg.out") parameters, import $got"
    fi
done

# MoE, MLA and sliding-window fields arrive as trainsim keys.
expect_in "$tmp/deepseek-v3.model.json" '"kind": "mla"' "DeepSeek MLA"
expect_in "$tmp/deepseek-v3.model.json" '"dense_layers": 3' "DeepSeek first_k_dense_replace"
expect_in "$tmp/deepseek-v3.model.json" '"router": "sigmoid"' "DeepSeek router"
expect_in "$tmp/deepseek-v3.model.json" '"aux_loss_free": true' "DeepSeek noaux_tc"
expect_in "$tmp/deepseek-v3.model.json" '"mtp_layers": 1' "DeepSeek MTP"
expect_in "$tmp/qwen3-30b-a3b.model.json" '"experts": 128' "Qwen3 MoE experts"
expect_in "$tmp/gpt-oss-120b.model.json" '"sliding_window_pattern": 2' "GPT-OSS alternating layers"
expect_in "$tmp/gpt-oss-120b.model.json" '"seq_len": 4096' "GPT-OSS initial_context_length"
expect_in "$tmp/gemma-3-27b-it.model.json" '"vocab": 262208' "Gemma 3 text default vocabulary"
expect_in "$tmp/imp_gemma-3-27b-it.err" 'the vision tower: text model only' "Gemma 3 vision tower warned"

# Llama 3.1's pre-training context comes from rope_scaling.original_max_position_embeddings.
expect_in "$tmp/llama-3.1-8b.model.json" '"seq_len": 8192' "llama seq_len"
expect_in "$tmp/llama-3.1-8b.model.json" '"kv_heads": 8' "llama GQA"
expect_in "$tmp/qwen3-8b.model.json" '"head_dim": 128' "qwen3 head_dim"
# Qwen2.5 names no pre-training context: the warning says so and names the q/k/v biases.
expect_in "$tmp/imp_qwen2.5-7b.err" 'warning:' "qwen2.5 warning"
expect_in "$tmp/imp_qwen2.5-7b.err" 'q/k/v-only biases' "qwen2.5 warning"
expect_in "$tmp/imp_qwen2.5-7b.err" 'seq_len 131072' "qwen2.5 warning"

# GPT-2: n_layer / n_embd / n_head, n_positions as the context, learned positions, tied wte,
# biases, GELU MLP of 4 x n_embd (n_inner null).
for key in '"layers": 12' '"hidden": 768' '"heads": 12' '"seq_len": 1024' '"ffn_hidden": 3072' \
    '"ffn": "gelu"' '"position_embedding": "learned"' '"tied_embeddings": true' '"bias": true'; do
    expect_in "$tmp/gpt2.model.json" "$key" "GPT-2 mapping"
done
# GPT-NeoX: untied, GELU, biases; partial rotary and the parallel residual are in the warning.
for key in '"tied_embeddings": false' '"ffn": "gelu"' '"bias": true' '"position_embedding": "rope"'; do
    expect_in "$tmp/gpt-neox-20b.model.json" "$key" "GPT-NeoX mapping"
done
expect_in "$tmp/imp_gpt-neox-20b.err" 'rotary_pct' "NeoX partial rotary warned"
expect_in "$tmp/imp_gpt-neox-20b.err" 'use_parallel_residual, true by' "NeoX parallel residual warned"
# Gemma 2: head_dim, GQA, tied by default, sliding window on alternate layers; soft-capping and
# the query scale are named in the one warning.
for key in '"head_dim": 256' '"kv_heads": 8' '"tied_embeddings": true' '"sliding_window": 4096' \
    '"sliding_window_pattern": 2' '"ffn": "swiglu"'; do
    expect_in "$tmp/gemma-2-9b-it.model.json" "$key" "Gemma 2 mapping"
done
expect_in "$tmp/imp_gemma-2-9b-it.err" 'attn_logit_softcapping, final_logit_softcapping, query_pre_attn_scalar' "Gemma 2 warning"
if [ "$(grep -c warning "$tmp/imp_gemma-2-9b-it.err")" -ne 1 ]; then fail "Gemma 2: not one warning"; fi
# Phi-3 architecture (phi-4): GQA 40/10, the context from original_max_position_embeddings.
expect_in "$tmp/phi-4.model.json" '"kv_heads": 10' "Phi-3 GQA"
expect_in "$tmp/phi-4.model.json" '"seq_len": 16384' "Phi-3 context"
# A config.to_dict() dump (Mistral v0.3): PretrainedConfig's generation defaults are not warned.
expect_in "$tmp/mistral-7b-instruct-v0.3.model.json" '"vocab": 32768' "Mistral v0.3 vocabulary"
if grep -q warning "$tmp/imp_mistral-7b-instruct-v0.3.err"; then
    fail "Mistral to_dict dump: $(cat "$tmp/imp_mistral-7b-instruct-v0.3.err")"
fi
# Phi-3-mini-128k keeps its pre-training context (4096) at the top level beside a 131072
# max_position_embeddings, and windows attention (2047): a variant of the phi-4 file.
python3 - "$HF/phi-4.json" "$tmp/phi3-128k.json" <<'PY2'
import json, sys
c = json.load(open(sys.argv[1]))
c.update(max_position_embeddings=131072, original_max_position_embeddings=4096, sliding_window=2047)
json.dump(c, open(sys.argv[2], "w"))
PY2
run phi3 import hf "$tmp/phi3-128k.json" --out "$tmp/phi3.model.json"
expect_rc phi3 0
expect_in "$tmp/phi3.model.json" '"seq_len": 4096' "Phi-3 original_max_position_embeddings"
expect_in "$tmp/phi3.model.json" '"sliding_window": 2047' "Phi-3 sliding window"

# Mixtral 8x7B: no shipped config.json was found to vendor (tests/data/hf/README.md), so the
# test writes its architecture fields from the published values (the Mixtral-8x7B-v0.1
# config.json as restated in huggingface/candle candle-transformers/src/models/mixtral.rs
# Config::v0_1_8x7b, with the shipped file's names): 46.7B total and 12.9B used per token
# (Mistral AI's description, "Mixtral has 46.7B total parameters but only uses 12.9B
# parameters per token", as in Azure/azureml-assets
# assets/models/system/mistralai-Mixtral-8x7B-Instruct-v01/description.md), checked within
# 0.5%, and exactly against count_params.py.
cat >"$tmp/mixtral.json" <<'JSON'
{"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 4096,
 "intermediate_size": 14336, "max_position_embeddings": 32768, "num_attention_heads": 32,
 "num_experts_per_tok": 2, "num_hidden_layers": 32, "num_key_value_heads": 8,
 "num_local_experts": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "sliding_window": null,
 "tie_word_embeddings": false, "vocab_size": 32000}
JSON
run mixtral import hf "$tmp/mixtral.json" --out "$tmp/mixtral.model.json"
expect_rc mixtral 0
for key in '"experts": 8' '"top_k": 2' '"expert_ffn_hidden": 14336' '"kv_heads": 8'; do
    expect_in "$tmp/mixtral.model.json" "$key" "Mixtral mapping"
done
job "$tmp/mixtral.job.json" "\"$tmp/mixtral.model.json\""
run mixtral_run run "$tmp/mixtral.job.json" --format json
expect_rc mixtral_run 0
python3 - "$tmp/mixtral_run.out" "$HF/count_params.py" "$tmp/mixtral.json" <<'PY2' || fail "Mixtral parameters"
import json, subprocess, sys
r = json.load(open(sys.argv[1]))
out = json.loads(subprocess.run([sys.executable, sys.argv[2], "--json", sys.argv[3]],
                                capture_output=True, text=True, check=True).stdout)
c = next(iter(out.values()))
ok = abs(r["parameters"] / 46.7e9 - 1) <= 0.005 and abs(r["moe"]["active_parameters"] / 12.9e9 - 1) <= 0.005
ok = ok and r["parameters"] == c["total"] and r["moe"]["active_parameters"] == c["active"]
if not ok:
    print(r["parameters"], r["moe"]["active_parameters"], c["total"], c["active"])
sys.exit(0 if ok else 1)
PY2

# Llama 4's layout on a small config (no shipped Llama 4 file was found): text_config nested in
# a multimodal file, dense layers of intermediate_size_mlp, every 2nd layer MoE
# (interleave_moe_layer_step, the last of each pair as Llama4TextModel's moe_layers) with 4
# routed experts of intermediate_size and one shared expert of the same size, top-1. Hand count:
# attention 64x64 + 2 x 64x32 + 64x64 = 12288 and norms 2 x 64 a layer; a dense layer adds
# 3 x 64 x 96 = 18432, a MoE layer 4 x 3 x 64 x 32 + 3 x 64 x 32 + a 64 x 4 router = 30976;
# 2 x 30848 + 2 x 43392 + untied embedding and head 2 x 1000 x 64 + final norm 64 = 276544.
cat >"$tmp/llama4.json" <<'JSON'
{"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
 "text_config": {"model_type": "llama4_text", "hidden_size": 64, "num_hidden_layers": 4,
  "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 32,
  "intermediate_size_mlp": 96, "num_local_experts": 4, "num_experts_per_tok": 1,
  "interleave_moe_layer_step": 2, "vocab_size": 1000, "max_position_embeddings": 4096,
  "attention_chunk_size": 1024, "no_rope_layers": [1, 1, 1, 0], "use_qk_norm": true},
 "vision_config": {"hidden_size": 32}, "tie_word_embeddings": false}
JSON
run llama4 import hf "$tmp/llama4.json" --out "$tmp/llama4.model.json"
expect_rc llama4 0
for key in '"ffn_hidden": 96' '"experts": 4' '"expert_ffn_hidden": 32' '"shared_experts": 1' \
    '"moe_every": 2' '"top_k": 1' '"head_dim": 16'; do
    expect_in "$tmp/llama4.model.json" "$key" "Llama 4 mapping"
done
expect_in "$tmp/llama4.err" 'text_config.attention_chunk_size, text_config.no_rope_layers, text_config.use_qk_norm' "Llama 4 unmodelled fields"
expect_in "$tmp/llama4.err" 'the vision tower: text model only' "Llama 4 vision tower"
job "$tmp/llama4.job.json" "\"$tmp/llama4.model.json\""
run llama4_run run "$tmp/llama4.job.json" --format json
expect_rc llama4_run 0
if [ "$(params "$tmp/llama4_run.out")" != 276544 ]; then
    fail "Llama 4 layout: $(params "$tmp/llama4_run.out") parameters, hand count 276544"
fi

# An override of the translated keys: seq_len 4096 halves the tokens of an iteration, so the
# iteration is shorter; an invalid override is the model parser's error.
job "$tmp/ovr.json" "{\"hf\": \"$HF/llama-3.1-8b.json\", \"seq_len\": 4096}"
run ovr run "$tmp/ovr.json" --format json
expect_rc ovr 0
python3 - "$tmp/ovr.out" "$tmp/hf_llama-3.1-8b.out" <<'PY' || fail "seq_len override: iteration not shorter"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(0 if a["iteration_time_s"] < b["iteration_time_s"] and a["parameters"] == b["parameters"] else 1)
PY
job "$tmp/ovr0.json" "{\"hf\": \"$HF/llama-3.1-8b.json\", \"seq_len\": 0}"
run ovr0 run "$tmp/ovr0.json"
expect_rc ovr0 2
expect_in "$tmp/ovr0.err" 'seq_len' "bad override"

# Unknown fields: one warning listing them, exit 0.
python3 - "$HF/llama-3.1-8b.json" "$tmp/extra.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["frobnicate_heads"] = 3; c["attn_logit_softcapping"] = 50.0
json.dump(c, open(sys.argv[2], "w"))
PY
run extra import hf "$tmp/extra.json"
expect_rc extra 0
expect_in "$tmp/extra.err" 'frobnicate_heads, attn_logit_softcapping' "unknown fields warning"
if [ "$(grep -c warning "$tmp/extra.err")" -ne 1 ]; then fail "unknown fields: not one warning"; fi

# A missing required field names the field; a malformed one names its path.
python3 - "$HF/qwen3-8b.json" "$tmp" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
d = dict(c); del d["num_hidden_layers"]; json.dump(d, open(sys.argv[2] + "/nolayers.json", "w"))
d = dict(c); d["hidden_size"] = 4096.5; json.dump(d, open(sys.argv[2] + "/badhidden.json", "w"))
d = dict(c); d["model_type"] = "bert"; json.dump(d, open(sys.argv[2] + "/bert.json", "w"))
d = dict(c); del d["model_type"]; json.dump(d, open(sys.argv[2] + "/notype.json", "w"))
PY
run nolayers import hf "$tmp/nolayers.json"
expect_rc nolayers 2
expect_in "$tmp/nolayers.err" "nolayers.json: num_hidden_layers: missing" "missing field"
run badhidden import hf "$tmp/badhidden.json"
expect_rc badhidden 2
expect_in "$tmp/badhidden.err" "badhidden.json: hidden_size: expected a non-negative integer, got 4096.5" "bad field"
run bert import hf "$tmp/bert.json"
expect_rc bert 2
expect_in "$tmp/bert.err" '"bert" is not an architecture trainsim imports' "unknown architecture"
run notype import hf "$tmp/notype.json"
expect_rc notype 2
expect_in "$tmp/notype.err" "notype.json: model_type: missing" "no model_type"
job "$tmp/missing.json" "\"hf:$tmp/nothere/config.json\""
run missing run "$tmp/missing.json"
expect_rc missing 2
expect_in "$tmp/missing.err" "missing.json: model: Hugging Face config \"$tmp/nothere/config.json\" not found" "missing file"
job "$tmp/hfnum.json" '{"hf": 3}'
run hfnum run "$tmp/hfnum.json"
expect_rc hfnum 2
expect_in "$tmp/hfnum.err" "hfnum.json: model.hf: expected the path" "hf not a string"
# Within a job, errors of the imported file name the imported file.
job "$tmp/badjob.json" "\"hf:$tmp/badhidden.json\""
run badjob run "$tmp/badjob.json"
expect_rc badjob 2
expect_in "$tmp/badjob.err" "badhidden.json: hidden_size" "error inside a job"

# Usage errors.
run nokind import
expect_rc nokind 2
run wrongkind import onnx "$HF/qwen3-8b.json"
expect_rc wrongkind 2
expect_in "$tmp/wrongkind.err" 'the formats are "hf"' "wrong kind"
run samefile import hf "$HF/qwen3-8b.json" --out "$HF/qwen3-8b.json"
expect_rc samefile 2

finish
