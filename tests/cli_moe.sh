#!/usr/bin/env bash
# Command-line tests of mixture-of-experts models (README "Mixture of experts"): bad moe,
# attention and expert-parallel inputs exit 2 naming the file and the JSON path, with
# nothing on stdout; an MoE job runs end to end (run, JSON and table) and an MoE sweep
# searches ep and reports it.
#
# usage: bash tests/cli_moe.sh path/to/trainsim   (ctest passes the built binary)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_moe "$@"

# job MODEL_JSON PARALLEL_JSON: a small job file using an inline model.
job() {
    printf '{"model": %s, "system": "dgx-h100", "gpus": 8, "global_batch": 8, "parallel": %s, "training": {"tokens": "1B"}, "reliability": "none"}\n' \
        "$1" "$2" >"$tmp/job.json"
}
MODEL_HEAD='"name": "m", "layers": 4, "hidden": 1024, "heads": 8, "ffn": "swiglu", "vocab": 1024, "seq_len": 1024'

# bad NAME MODEL_EXTRA PARALLEL NEEDLE: the run exits 2, stdout empty, stderr has NEEDLE.
bad() {
    job "{$MODEL_HEAD$2}" "$3"
    run "$1" run "$tmp/job.json" --format json
    expect_rc "$1" 2
    if [ -s "$tmp/$1.out" ]; then fail "$1: something on stdout"; fi
    expect_in "$tmp/$1.err" "$4" "$1"
}

MOE=', "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden": 512}'
bad ep_divides_experts "$MOE" '{"ep": 3}' 'job.json: parallel.ep: 3 does not divide experts (8)'
bad ep_on_dense '' '{"ep": 2}' 'parallel.ep: 2, but model m has no experts'
bad top_k_over_experts ', "moe": {"experts": 4, "top_k": 8, "expert_ffn_hidden": 512}' '{}' \
    'model.moe.top_k: 8 exceeds experts (4)'
bad moe_unknown_key ', "moe": {"experts": 4, "top_k": 2, "expert_ffn_hidden": 512, "topk": 2}' '{}' \
    'model.moe'
bad moe_missing_experts ', "moe": {"top_k": 2, "expert_ffn_hidden": 512}' '{}' 'model.moe.experts'
bad capacity_not_a_number ', "moe": {"experts": 4, "top_k": 2, "expert_ffn_hidden": 512, "capacity_factor": "high"}' \
    '{}' 'model.moe.capacity_factor: "high" is not a capacity factor'
bad capacity_below_one ', "moe": {"experts": 4, "top_k": 2, "expert_ffn_hidden": 512, "capacity_factor": 0.5}' \
    '{}' 'model.moe.capacity_factor'
bad imbalance_below_one ', "moe": {"experts": 4, "top_k": 2, "expert_ffn_hidden": 512, "load_imbalance": 0.9}' \
    '{}' 'model.moe.load_imbalance'
bad dense_layers_all ', "moe": {"experts": 4, "top_k": 2, "expert_ffn_hidden": 512, "dense_layers": 4}' \
    '{}' 'model.moe.dense_layers: 4 leaves no MoE layer'
bad mla_missing_rank ', "attention": {"kind": "mla", "q_lora_rank": 256, "qk_rope_head_dim": 64, "qk_nope_head_dim": 64, "v_head_dim": 64}' \
    '{}' 'model.attention.kv_lora_rank'
bad attention_kind ', "attention": {"kind": "linear"}' '{}' 'model.attention.kind'
bad window_pattern_alone ', "sliding_window_pattern": 2' '{}' \
    'model.sliding_window_pattern: 2 needs sliding_window'
bad mtp_dense ', "mtp_layers": 1' '{}' 'model.mtp_layers: 1 multi-token-prediction modules need a moe section'
bad moe_tp_without_sp "$MOE" '{"tp": 2}' 'parallel.sequence_parallel'

# An MoE job end to end: feasible, with its expert layout in the JSON and the table.
run mixtral_json run "$ROOT/configs/mixtral-8x7b-h100.json" --format json
expect_rc mixtral_json 0
expect_in "$tmp/mixtral_json.out" '"feasible":  true' "mixtral run"
expect_in "$tmp/mixtral_json.out" '"ep":  8' "mixtral run ep"
expect_in "$tmp/mixtral_json.out" '"edp":  2' "mixtral run edp"
expect_in "$tmp/mixtral_json.out" '"parameters":  46702792704' "mixtral parameters"
run mixtral_table run "$ROOT/configs/mixtral-8x7b-h100.json" --format table
expect_rc mixtral_table 0

# An MoE sweep: ep searched, the answer names its ep.
run sweep_json sweep "$ROOT/configs/mixtral-8x7b-ep-sweep.json" --format json
expect_rc sweep_json 0
expect_in "$tmp/sweep_json.out" '"found":  true' "moe sweep"
expect_in "$tmp/sweep_json.out" '"ep":  ' "moe sweep ep"
run sweep_csv sweep "$ROOT/configs/mixtral-8x7b-ep-sweep.json" --format json --csv "$tmp/s.csv"
expect_rc sweep_csv 0
head -1 "$tmp/s.csv" | grep -q ',software,ep,etp$' || fail "moe sweep csv: no ep, etp columns"

# A listed ep that does not divide the experts is a counted divisibility rejection, not an
# error: ep [3, 8] on one node count, one pp and recompute give two layouts, one rejected.
sed 's/"ep": "auto"/"ep": [3, 8]/; s/"nodes": \[8, 16, 32\]/"nodes": [8]/; s/"pp": \[2, 4, 8\]/"pp": [4]/; s/"recompute": \["selective", "full"\]/"recompute": ["selective"]/' \
    "$ROOT/configs/mixtral-8x7b-ep-sweep.json" >"$tmp/ep-sweep.json"
run sweep_reject sweep "$tmp/ep-sweep.json" --format json
expect_rc sweep_reject 0
expect_in "$tmp/sweep_reject.out" '"divisibility":  1' "ep 3 counted as a divisibility rejection"
expect_in "$tmp/sweep_reject.out" '"feasible":  1,' "ep 8 feasible"

# Uneven pipeline splits in a sweep: a 7-layer MoE on 8 GPUs with pp auto tries pp 1 (a
# divisor) and the powers of two 2 and 4 with their balanced uneven splits (4 + 3, 2 + 2 + 2 +
# 1); pp 7 does not fit 8 GPUs. Only pp 1 was searched when pp had to divide the layers.
cat >"$tmp/uneven.json" <<'EOF'
{"name": "uneven", "model": {"name": "m7", "layers": 7, "hidden": 1024, "heads": 8, "ffn": "swiglu",
   "vocab": 1024, "seq_len": 1024, "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden": 512}},
 "tokens": "1B", "global_batch": 64, "systems": ["dgx-h100"], "nodes": [1], "precision": "bf16",
 "parallel": {"tp": 1, "pp": "auto", "cp": 1, "ep": [2], "etp": 1, "microbatch": 1,
   "recompute": ["none"], "zero": 1, "schedule": ["1f1b"], "sequence_parallel": false,
   "tp_comm_overlap": false},
 "reliability": "none", "constraint": {"min_tokens_per_s": 1}, "objective": "time", "top": 5}
EOF
run uneven_auto sweep "$tmp/uneven.json" --format json
expect_rc uneven_auto 0
expect_in "$tmp/uneven_auto.out" '"evaluated":  3,' "pp auto: 1, 2 and 4 evaluated"
sed 's/"pp": "auto"/"pp": [2]/' "$tmp/uneven.json" >"$tmp/uneven2.json"
run uneven_2 sweep "$tmp/uneven2.json" --format json
expect_rc uneven_2 0
expect_in "$tmp/uneven_2.out" '"first_stage_layers":  4,' "pp 2 split 4 + 3 (first)"
expect_in "$tmp/uneven_2.out" '"last_stage_layers":  3,' "pp 2 split 4 + 3 (last)"
# The best of pp 4 written as a job carries its split and ep, and `run` reproduces the sweep.
sed 's/"pp": "auto"/"pp": [4]/' "$tmp/uneven.json" >"$tmp/uneven4.json"
run uneven_emit sweep "$tmp/uneven4.json" --format json --emit job "$tmp/best.json"
expect_rc uneven_emit 0
expect_in "$tmp/best.json" '"first_stage_layers":  2,' "emitted job: first stage 2 layers"
expect_in "$tmp/best.json" '"last_stage_layers":  1,' "emitted job: last stage 1 layer"
expect_in "$tmp/best.json" '"ep":  2,' "emitted job: ep a number, not the sweep's list"
run uneven_best run "$tmp/best.json" --format json
expect_rc uneven_best 0
sweep_tps=$(grep -m1 '"tokens_per_s":' "$tmp/uneven_emit.out" | sed 's/^ *//')
[ -n "$sweep_tps" ] || fail "the sweep reports no tokens_per_s"
expect_in "$tmp/uneven_best.out" "$sweep_tps" "the emitted job runs at the sweep's tokens/s"

finish
