#!/usr/bin/env bash
# The MoE validation jobs (configs/validation/moe-*.json) and experiments/validation-moe/
# published.json are what make_jobs.sh writes from the published CSV, byte for byte; each
# job states its source row and runs. The accuracy gate itself is tests/test_validation.c.
# Needs python3 (make_jobs.sh; in .ci/run and README's install line).
. "$(dirname "$0")/cli.bash" cli_validation_moe "$@"

"$ROOT/experiments/validation-moe/make_jobs.sh" --out "$tmp/jobs" >"$tmp/make.out" ||
    fail "make_jobs.sh failed: $(cat "$tmp/make.out")"
shipped=("$ROOT"/configs/validation/moe-*.json)
made=("$tmp"/jobs/moe-*.json)
[ "${#shipped[@]}" -eq "${#made[@]}" ] || fail "${#shipped[@]} shipped MoE jobs, make_jobs.sh writes ${#made[@]}"
for f in "${made[@]}"; do
    cmp -s "$f" "$ROOT/configs/validation/$(basename "$f")" ||
        fail "configs/validation/$(basename "$f") differs from what make_jobs.sh writes"
done
# published.json names the shipped jobs (its config paths are relative to the repository)
sed 's|"config": "[^"]*/moe-|"config": "configs/validation/moe-|' "$tmp/jobs/published.json" >"$tmp/published.json"
cmp -s "$tmp/published.json" "$ROOT/experiments/validation-moe/published.json" ||
    fail "experiments/validation-moe/published.json differs from what make_jobs.sh writes"
for f in "${shipped[@]}"; do
    grep -q '"description": ".*Source: NVIDIA-NeMo/Megatron-Bridge' "$f" ||
        fail "$(basename "$f") states its source row"
done
f=${shipped[0]}
run one run "$f" --format json
expect_rc one 0
expect_in "$tmp/one.out" '"feasible":  true' "$(basename "$f") runs"
finish
