#!/usr/bin/env bash
# Command-line tests of bounded size and time: a job whose iteration would need more than the
# simulator's task budget (2^24 tasks) is refused by `run` with exit 2 naming global_batch,
# microbatch and virtual_stages and the limit (also where pp x 2 x m x v overflows 32 bits);
# in a sweep such layouts are a counted rejection ("too_many_tasks"); a sweep that enumerates
# more layouts than --max-configs (default 4,000,000) is refused up front with the count; a
# sweep stopped during the finalists' Monte Carlo resumes to the uninterrupted answer.
#
# usage: bash tests/cli_limits.sh path/to/trainsim   (ctest passes the built binary)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_limits "$@"

no_elapsed() { grep -v '"elapsed_s"' "$1"; }

# ---------------------------------------------------------------- run: task budget

# 2^26 sequences, one per microbatch, one pipeline: 2 x 2^26 = 2^27 tasks.
cat >"$tmp/big.json" <<'JSON'
{"model": "gpt3-175b", "system": "dgx-a100-80g", "nodes": 1, "global_batch": 67108864,
 "precision": "bf16", "parallel": {"tp": 8, "pp": 1, "microbatch": 1}}
JSON
run big run "$tmp/big.json" --format json
expect_rc big 2
expect_in "$tmp/big.err" "big.json: global_batch:" "run names the file and key"
expect_in "$tmp/big.err" "microbatch" "run names microbatch"
expect_in "$tmp/big.err" "virtual_stages" "run names virtual_stages"
expect_in "$tmp/big.err" "134217728 tasks, above its limit of 16777216 tasks" "run gives count and limit"

# Interleaved, v 64, 2^25 microbatches per pipeline: 2 x 2 x 2^25 x 64 = 2^33 tasks, beyond
# 32-bit arithmetic (no overflow: UBSan would say "runtime error").
cat >"$tmp/v64.json" <<'JSON'
{"model": {"name": "deep", "layers": 128, "hidden": 1024, "heads": 16, "vocab": 32000,
           "seq_len": 1024},
 "system": "dgx-a100-80g", "nodes": 1, "global_batch": 33554432, "precision": "bf16",
 "parallel": {"tp": 4, "pp": 2, "microbatch": 1, "schedule": "interleaved", "virtual_stages": 64}}
JSON
run v64 run "$tmp/v64.json" --format json
expect_rc v64 2
expect_in "$tmp/v64.err" "2 x 2 x 33554432 x 64 = 8589934592 tasks" "v 64 count in 64 bits"
if grep -q "runtime error" "$tmp/v64.err"; then fail "v64: sanitizer report: $(head -c 400 "$tmp/v64.err")"; fi

# ---------------------------------------------------------------- sweep: task budget

cat >"$tmp/tasks.json" <<'JSON'
{"name": "tasks", "model": "megatron-1.7b", "tokens": 1e6, "global_batch": [256, 67108864],
 "systems": ["dgx-h100"], "nodes": [1],
 "parallel": {"tp": [1, 8], "pp": 1, "cp": 1, "microbatch": [1, 16], "zero": 0,
              "recompute": "none", "schedule": "1f1b", "sequence_parallel": false},
 "constraint": {"min_tokens_per_s": 1}, "objective": "time", "top": 1}
JSON
run tasks sweep "$tmp/tasks.json" --format json --no-progress
expect_rc tasks 0
expect_in "$tmp/tasks.out" '"too_many_tasks":  1' "sweep counts the layout over the task budget"
expect_in "$tmp/tasks.out" '"global_batch":  256' "sweep still answers"

# ---------------------------------------------------------------- sweep: --max-configs

# Every option "auto", 4 systems, 21 node counts, 5 global batches: 6,555,768 layouts.
cat >"$tmp/auto21.json" <<'JSON'
{"name": "auto21", "model": "llama3-70b", "tokens": "2T",
 "global_batch": {"from": 256, "to": 4096, "powers_of_two": true},
 "systems": ["aws-p4de", "aws-p5", "aws-p5en", "dgx-b200"],
 "nodes": {"from": 8, "to": 168, "step": 8}, "precision": "bf16", "parallel": "auto",
 "constraint": {"deadline": "90 d"}, "objective": "time", "top": 5}
JSON
run auto21 sweep "$tmp/auto21.json" --format json --no-progress
expect_rc auto21 2
expect_in "$tmp/auto21.err" "auto21.json: the sweep enumerates 6555768 configurations, above the limit of 4000000" "refusal gives the count and the limit"
expect_in "$tmp/auto21.err" "--max-configs 6555768" "refusal says how to raise the limit"
expect_in "$tmp/auto21.err" "narrow it" "refusal says how to narrow the sweep"

SMALL=$DATA/search/small-cost.json
run small sweep "$SMALL" --format json --no-progress
expect_rc small 0
count=$(sed -n 's/.*"enumerated": *\([0-9]*\).*/\1/p' "$tmp/small.out")
run small_under sweep "$SMALL" --format json --no-progress --max-configs $((count - 1))
expect_rc small_under 2
expect_in "$tmp/small_under.err" "enumerates $count configurations" "refusal at count - 1"
run small_at sweep "$SMALL" --format json --no-progress --max-configs "$count"
expect_rc small_at 0
if ! cmp -s <(no_elapsed "$tmp/small.out") <(no_elapsed "$tmp/small_at.out"); then
    fail "--max-configs at the count changes the answer"
fi
for bad in 0 -3 x 1e3; do
    run bad_max sweep "$SMALL" --max-configs "$bad"
    expect_rc bad_max 2
done

# ---------------------------------------------------------------- stop in the Monte Carlo

P90=$DATA/sweep_resume/p90-sweep.json
run p90 sweep "$P90" --format json --no-progress
expect_rc p90 0
TRAINSIM_TEST_STOP_AFTER_FINALISTS=2 run p90_stop sweep "$P90" --format json --no-progress \
    --partial "$tmp/mc.partial.json"
expect_rc p90_stop 130
if [ ! -f "$tmp/mc.partial.json" ]; then fail "no partial file after a stop in the Monte Carlo"; fi
# Outcomes are ["pricing", meets, monte_carlo, mc_failed, ...]: finished finalists are kept.
if ! grep -Eq '\["[a-z_]+", (true|false), true, ' "$tmp/mc.partial.json"; then
    fail "the partial file keeps no finalist's Monte Carlo"
fi
run p90_resume sweep "$P90" --format json --no-progress --resume "$tmp/mc.partial.json"
expect_rc p90_resume 0
if ! cmp -s <(no_elapsed "$tmp/p90.out") <(no_elapsed "$tmp/p90_resume.out"); then
    fail "resumed after a Monte Carlo stop: another answer"
fi

# ---------------------------------------------------------------- run: the event cap

# A node failing every 20 minutes for 5T tokens on one node: thousands of interruptions per
# replication. With the cap lowered to 100 events (TRAINSIM_MAX_EVENTS; it is checked every
# 4,096 events) the run is refused as reaching the event cap, naming the number and how to
# raise it; with the default cap the same job finishes.
cat >"$tmp/cap.json" <<'JSON'
{"model": "gpt2-124m", "system": "dgx-a100-80g", "nodes": 1, "global_batch": 64,
 "precision": "bf16", "training": {"tokens": "5T"},
 "reliability": {"failures": [{"component": "node", "mtbf": "20 min"}], "replications": 4,
                 "seed": 1}}
JSON
TRAINSIM_MAX_EVENTS=100 run cap run "$tmp/cap.json" --format json
expect_rc cap 2
expect_in "$tmp/cap.err" "cap.json: reliability: a simulated run reached the event cap of 100 events" "the event cap is named with its number"
expect_in "$tmp/cap.err" "TRAINSIM_MAX_EVENTS=N" "the message says how to raise the cap"
run cap_default run "$tmp/cap.json" --format json
expect_rc cap_default 0
expect_in "$tmp/cap_default.out" '"failures_expected"' "the default cap lets the job finish"

finish
