#!/usr/bin/env bash
# Command-line tests of the Hugging Face import: `trainsim import hf` translates the verbatim
# config.json files in tests/data/hf (published values) into model files that load; the
# parameter count trainsim computes from them is within 0.5% of the published count and
# within 0.1% of an independent counter (tests/data/hf/count_params.py, Python, written from
# the transformers module shapes), and equal to it for the MoE files (Mixtral, Qwen3-235B,
# Llama 4) once its documented differences are taken out; "model": "hf:PATH" and {"hf": PATH,
# ...} in a job load the same model; unmodelled fields are one warning, not an error; a missing
# or malformed field is exit 2 naming the file and the field.
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
    mistral-7b-instruct-v0.3 mixtral-8x7b-v0.1 qwen3-235b-a22b; do
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

# exact NAME PARAMS ACTIVE QK: trainsim's total and per-token counts of a vendored file equal
# count_params.py's (text model of a multimodal file), less the per-head q/k RMSNorm weights
# trainsim does not model (QK = 1 for Qwen3; 2 x head_dim a layer, named in the warning).
exact() {
    python3 - "$tmp/$1.out" "$HF/count_params.py" "$HF/$2.json" "$3" <<'PY2'
import json, subprocess, sys
r = json.load(open(sys.argv[1]))
out = json.loads(subprocess.run([sys.executable, sys.argv[2], "--json", sys.argv[3]],
                                capture_output=True, text=True, check=True).stdout)
c = next(iter(out.values()))
qk = c["parts"].get("qk_norm", 0) if sys.argv[4] == "1" else 0
total = c.get("text_only", c["total"]) - qk
active = c["active"] - qk
got = (r["parameters"], r.get("moe", {}).get("active_parameters", r["parameters"]))
if got != (total, active):
    print(f"trainsim {got}, count_params.py {(total, active)}")
    sys.exit(1)
PY2
}

# Mixtral 8x7B (the shipped file: sliding_window null, rope_theta 1e6): eight experts of
# intermediate_size, top-2, in every layer, and no window; 46.7B total and 12.9B per token
# (published_params.json) within 0.5%, both equal to count_params.py's.
for key in '"experts": 8' '"top_k": 2' '"expert_ffn_hidden": 14336' '"kv_heads": 8' '"seq_len": 32768'; do
    expect_in "$tmp/mixtral-8x7b-v0.1.model.json" "$key" "Mixtral mapping"
done
if grep -q 'sliding_window' "$tmp/mixtral-8x7b-v0.1.model.json"; then fail "Mixtral: sliding_window null imported as a window"; fi
if grep -q warning "$tmp/imp_mixtral-8x7b-v0.1.err"; then fail "Mixtral: $(cat "$tmp/imp_mixtral-8x7b-v0.1.err")"; fi
python3 - "$tmp/run_mixtral-8x7b-v0.1.out" <<'PY2' || fail "Mixtral: not 12.9B active within 0.5%"
import json, sys
sys.exit(0 if abs(json.load(open(sys.argv[1]))["moe"]["active_parameters"] / 12.9e9 - 1) <= 0.005 else 1)
PY2
exact run_mixtral-8x7b-v0.1 mixtral-8x7b-v0.1 0 || fail "Mixtral: counts differ from count_params.py"

# Qwen3-235B-A22B: 94 layers, 128 experts top-8 of moe_intermediate_size in every layer
# (decoder_sparse_step 1, mlp_only_layers empty: no dense layer); 235B total (loop above) and
# 234B without the embeddings within 0.5%; the counts equal count_params.py's less the q/k norms.
for key in '"layers": 94' '"experts": 128' '"top_k": 8' '"expert_ffn_hidden": 1536' '"kv_heads": 4' \
    '"head_dim": 128'; do
    expect_in "$tmp/qwen3-235b-a22b.model.json" "$key" "Qwen3-235B mapping"
done
if grep -q 'dense_layers\|moe_every' "$tmp/qwen3-235b-a22b.model.json"; then fail "Qwen3-235B: dense layers imported"; fi
expect_in "$tmp/imp_qwen3-235b-a22b.err" 'per-head q/k RMSNorms' "Qwen3 q/k norms warned"
python3 - "$tmp/run_qwen3-235b-a22b.out" <<'PY2' || fail "Qwen3-235B: not 234B non-embedding within 0.5%"
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if abs((r["parameters"] - 2 * 151936 * 4096) / 234e9 - 1) <= 0.005 else 1)
PY2
exact run_qwen3-235b-a22b qwen3-235b-a22b 1 || fail "Qwen3-235B: counts differ from count_params.py"

# Llama 4 Scout and Maverick (abridged copies, tests/data/hf/README.md): text_config nested in
# a multimodal file; Scout MoE in every layer (interleave_moe_layer_step 1), Maverick in every
# 2nd, its other layers dense of intermediate_size_mlp; 16 / 128 routed experts of
# intermediate_size, top-1, plus one shared expert. trainsim imports the text model, whose
# counts equal count_params.py's; count_params.py's total with the vision encoder is within
# 0.5% of the published 109B / 400B.
for m in llama-4-scout-17b-16e-instruct llama-4-maverick-17b-128e-instruct; do
    run "imp_$m" import hf "$HF/$m.json" --out "$tmp/$m.model.json"
    expect_rc "imp_$m" 0
    for key in '"layers": 48' '"hidden": 5120' '"kv_heads": 8' '"head_dim": 128' '"ffn_hidden": 16384' \
        '"expert_ffn_hidden": 8192' '"shared_experts": 1' '"shared_ffn_hidden": 8192' '"top_k": 1' \
        '"vocab": 202048' '"tied_embeddings": false'; do
        expect_in "$tmp/$m.model.json" "$key" "$m mapping"
    done
    expect_in "$tmp/imp_$m.err" 'text_config.attention_chunk_size' "$m chunked attention warned"
    expect_in "$tmp/imp_$m.err" 'no_rope_layers absent: Llama4TextConfig makes one layer in 4' "$m default no-rope layers warned"
    expect_in "$tmp/imp_$m.err" 'the vision tower: text model only' "$m vision tower warned"
    if [ "$(grep -c warning "$tmp/imp_$m.err")" -ne 1 ]; then fail "$m: not one warning"; fi
    # image preprocessing settings change nothing in training the model
    if grep -q image_processor_config "$tmp/imp_$m.err"; then fail "$m: image_processor_config warned"; fi
    job "$tmp/$m.job.json" "{\"hf\": \"$HF/$m.json\", \"seq_len\": 8192}"
    run "run_$m" run "$tmp/$m.job.json" --format json
    expect_rc "run_$m" 0
    exact "run_$m" "$m" 0 || fail "$m: counts differ from count_params.py"
    python3 - "$HF/count_params.py" "$HF/$m.json" "$(published "$m.json" total)" <<'PY2' || fail "$m: count_params.py total not within 0.5% of the published"
import json, subprocess, sys
out = json.loads(subprocess.run([sys.executable, sys.argv[1], "--json", sys.argv[2]],
                                capture_output=True, text=True, check=True).stdout)
sys.exit(0 if abs(next(iter(out.values()))["total"] / float(sys.argv[3]) - 1) <= 0.005 else 1)
PY2
done
expect_in "$tmp/llama-4-scout-17b-16e-instruct.model.json" '"experts": 16' "Scout experts"
expect_in "$tmp/llama-4-scout-17b-16e-instruct.model.json" '"seq_len": 8192' "Scout rope_scaling context"
expect_in "$tmp/imp_llama-4-scout-17b-16e-instruct.err" 'text_config.use_qk_norm' "Scout q/k norm warned"
if grep -q moe_every "$tmp/llama-4-scout-17b-16e-instruct.model.json"; then fail "Scout: MoE not in every layer"; fi
expect_in "$tmp/llama-4-maverick-17b-128e-instruct.model.json" '"experts": 128' "Maverick experts"
expect_in "$tmp/llama-4-maverick-17b-128e-instruct.model.json" '"moe_every": 2' "Maverick interleaving"
if grep -q use_qk_norm "$tmp/imp_llama-4-maverick-17b-128e-instruct.err"; then fail "Maverick: use_qk_norm false warned"; fi
# An explicit no_rope_layers list is named as a field instead of the default's note.
python3 - "$HF/llama-4-scout-17b-16e-instruct.json" "$tmp/scout-nope.json" <<'PY2'
import json, sys
c = json.load(open(sys.argv[1]))
c["text_config"]["no_rope_layers"] = [int((i + 1) % 4 != 0) for i in range(48)]
json.dump(c, open(sys.argv[2], "w"))
PY2
run scout_nope import hf "$tmp/scout-nope.json"
expect_rc scout_nope 0
expect_in "$tmp/scout_nope.err" 'text_config.no_rope_layers' "explicit no_rope_layers warned"
if grep -q 'no_rope_layers absent' "$tmp/scout_nope.err"; then fail "explicit no_rope_layers called absent"; fi
python3 - "$HF/llama-4-scout-17b-16e-instruct.json" "$tmp/scout-badnope.json" <<'PY2'
import json, sys
c = json.load(open(sys.argv[1])); c["text_config"]["no_rope_layer_interval"] = "four"
json.dump(c, open(sys.argv[2], "w"))
PY2
run scout_badnope import hf "$tmp/scout-badnope.json"
expect_rc scout_badnope 2
expect_in "$tmp/scout_badnope.err" 'scout-badnope.json: text_config.no_rope_layer_interval: expected a non-negative integer' "bad no_rope_layer_interval"

# Phi-3 mini: no shipped file was found (tests/data/hf/README.md), so the test writes Phi3Config's
# defaults, which are microsoft/Phi-3-mini-4k-instruct's shapes (transformers
# configuration_phi3.py, sliding_window None), into a copy of phi-4.json (fused qkv / gate_up):
# 32 layers of width 3072, 32 heads without GQA, MLP 8192, vocabulary 32064, untied; the count is
# exactly keras-hub's published 3,821,079,552 (published_params.json) and count_params.py's.
python3 - "$HF/phi-4.json" "$tmp/phi3-mini.json" <<'PY2'
import json, sys
c = json.load(open(sys.argv[1]))
c.update(hidden_size=3072, intermediate_size=8192, num_hidden_layers=32, num_attention_heads=32,
         num_key_value_heads=32, vocab_size=32064, max_position_embeddings=4096,
         original_max_position_embeddings=4096, rope_scaling=None, sliding_window=None)
json.dump(c, open(sys.argv[2], "w"))
PY2
run phi3mini import hf "$tmp/phi3-mini.json" --out "$tmp/phi3-mini.model.json"
expect_rc phi3mini 0
expect_in "$tmp/phi3-mini.model.json" '"seq_len": 4096' "Phi-3 mini context"
job "$tmp/phi3-mini.job.json" "\"$tmp/phi3-mini.model.json\""
run phi3mini_run run "$tmp/phi3-mini.job.json" --format json
expect_rc phi3mini_run 0
pub=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["phi3_mini_written_variant"]["total"])' "$HF/published_params.json")
indep=$(python3 "$HF/count_params.py" --json "$tmp/phi3-mini.json" | python3 -c 'import json,sys; print(next(iter(json.load(sys.stdin).values()))["total"])')
if [ "$(params "$tmp/phi3mini_run.out")" != "$pub" ] || [ "$indep" != "$pub" ]; then
    fail "Phi-3 mini: trainsim $(params "$tmp/phi3mini_run.out"), count_params.py $indep, published $pub"
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
