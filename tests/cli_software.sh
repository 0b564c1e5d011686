#!/usr/bin/env bash
# Command-line tests of software profiles in `trainsim run`: the JSON report names the
# profile and carries the `validation` object (validated pair with its residual band, an
# unvalidated pair, a plausibility warning above the highest published MFU, bands per
# precision); the table prints the same; FA3 on an A100 and an unknown profile exit 2 naming
# the file and path; a sweep runs with one profile and refuses a parallel.attention of FA3
# when an A100 system is listed.
#
# usage: bash tests/cli_software.sh path/to/trainsim   (ctest passes the built binary)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_software "$@"

# A validated pair: megatron-lm-2021 on the A100 (Narayanan et al. Table 1 row).
run val run "$ROOT/configs/validation/narayanan-1t.json" --format json
expect_rc val 0
expect_in "$tmp/val.out" '"software":  "megatron-lm-2021"' "validated run"
expect_in "$tmp/val.out" '"validation":  {' "validated run"
expect_in "$tmp/val.out" '"validated":  true' "validated run"
expect_in "$tmp/val.out" '"min_error":  -0.077' "validated run"
expect_in "$tmp/val.out" '"attention_kernel":  "standard"' "validated run"

# The same job on pytorch-fsdp-compile (no validation rows): not validated; its table says so.
sed 's/"software": "megatron-lm-2021"/"software": "pytorch-fsdp-compile"/' \
    "$ROOT/configs/validation/narayanan-1.7b.json" >"$tmp/fsdp.json"
run fsdp run "$tmp/fsdp.json" --format json
expect_rc fsdp 0
expect_in "$tmp/fsdp.out" '"software":  "pytorch-fsdp-compile"' "unvalidated run"
expect_in "$tmp/fsdp.out" '"validated":  false' "unvalidated run"
grep -q '"residual_band"' "$tmp/fsdp.out" && fail "unvalidated run: a residual band is reported"
run fsdpt run "$tmp/fsdp.json" --format table
expect_rc fsdpt 0
expect_in "$tmp/fsdpt.out" "Software pytorch-fsdp-compile on a100-sxm-80g" "unvalidated table"
expect_in "$tmp/fsdpt.out" "not validated" "unvalidated table"

# pytorch-fsdp on the A100 80GB: validated on the llm-foundry rows, with their band (the
# profile's "validation" entry for a100-sxm-80g, written by run.sh --write-bands).
band=$(awk -F': ' '/"device":/ { dev = $2 } /"min_error":/ && dev ~ /"a100-sxm-80g"/ { sub(/,$/, "", $2); print $2 }' \
    "$ROOT/configs/software/pytorch-fsdp.json")
[ -n "$band" ] || fail "pytorch-fsdp has a validation band for a100-sxm-80g"
run pf run "$ROOT/configs/validation/llm-foundry/foundry-a100-80g-mpt-7b-s2048-g8.json" --format json
expect_rc pf 0
expect_in "$tmp/pf.out" '"validated":  true' "pytorch-fsdp on A100 80GB"
expect_in "$tmp/pf.out" "\"min_error\":  $band" "pytorch-fsdp on A100 80GB"
expect_in "$tmp/pf.out" '"attention_kernel":  "triton-2022"' "pytorch-fsdp on A100 80GB"

# A profile whose highest published A100 MFU is far below this job's: the warning.
cat >"$tmp/low.json" <<'EOF'
{"name": "low", "description": "test profile", "source": "test",
 "max_published_mfu": [{"device": "a100-sxm-80g", "precision": "fp16", "mfu": 0.05, "row": "a made-up row"}]}
EOF
sed "s|\"software\": \"megatron-lm-2021\"|\"software\": \"$tmp/low.json\"|" \
    "$ROOT/configs/validation/narayanan-1.7b.json" >"$tmp/warn.json"
run warn run "$tmp/warn.json" --format json
expect_rc warn 0
expect_in "$tmp/warn.out" '"mfu_above_published":  true' "plausibility warning"
run warnt run "$tmp/warn.json" --format table
expect_in "$tmp/warnt.out" "is above the highest published for low on a100-sxm-80g (5.0%, a made-up row)" \
    "plausibility warning in the table"

# Bands are per precision: megatron-core's Blackwell rows are FP8, so the same job in FP8 is
# validated (its band named "in fp8") and in BF16 is not, with no published MFU to compare.
cp "$ROOT/configs/validation/nemo-gb200-nemotron4-15b-64gpu-2504.json" "$tmp/b8.json"
sed 's/"precision": "fp8"/"precision": "bf16"/' "$tmp/b8.json" >"$tmp/b16.json"
run b8 run "$tmp/b8.json" --format json
expect_rc b8 0
expect_in "$tmp/b8.out" '"validated":  true' "megatron-core on GB200 in fp8"
grep -A6 '"residual_band"' "$tmp/b8.out" >"$tmp/b8.band"
expect_in "$tmp/b8.band" '"precision":  "fp8"' "megatron-core on GB200 in fp8: the band's precision"
run b8t run "$tmp/b8.json" --format table
expect_in "$tmp/b8t.out" "validated: gb200 in fp8" "megatron-core on GB200 in fp8 (table)"
run b16 run "$tmp/b16.json" --format json
expect_rc b16 0
expect_in "$tmp/b16.out" '"validated":  false' "megatron-core on GB200 in bf16"
grep -q '"residual_band"' "$tmp/b16.out" && fail "megatron-core on GB200 in bf16: a band is reported"
run b16t run "$tmp/b16.json" --format table
expect_in "$tmp/b16t.out" "no published megatron-core row on gb200 in bf16" "GB200 bf16 (table)"
expect_in "$tmp/b16t.out" "no published bf16 MFU of megatron-core on gb200 to compare" "GB200 bf16 MFU"

# FA3 on an A100: exit 2 with the file and path.
sed 's/"software": "megatron-lm-2021"/"software": "megatron-core"/; s/"recompute": "full",/"recompute": "full", "attention": "fa3",/' \
    "$ROOT/configs/validation/narayanan-1.7b.json" >"$tmp/fa3.json"
run fa3 run "$tmp/fa3.json"
expect_rc fa3 2
expect_in "$tmp/fa3.err" "fa3.json: parallel.attention:" "fa3 on A100"

# An unknown profile name: exit 2 listing the known ones.
sed 's/"software": "megatron-lm-2021"/"software": "megatron-lm-1999"/' \
    "$ROOT/configs/validation/narayanan-1.7b.json" >"$tmp/unknown.json"
run unknown run "$tmp/unknown.json"
expect_rc unknown 2
expect_in "$tmp/unknown.err" "unknown.json: software: unknown software profile \"megatron-lm-1999\"" "unknown profile"
expect_in "$tmp/unknown.err" "pytorch-fsdp-compile" "unknown profile lists the catalogue"

# A sweep with one software profile; FA3 given under parallel.attention with an A100 system
# listed is bad input (exit 2). Lists of profiles: tests/cli_sweep_software.sh.
cat >"$tmp/sweep.json" <<'EOF'
{"model": "llama3-8b", "tokens": "10B", "global_batch": 64, "systems": ["aws-p4d", "aws-p5en"],
 "nodes": [2], "precision": "bf16", "software": "pytorch-fsdp", "objective": "time",
 "constraint": {"min_tokens_per_s": 1},
 "parallel": {"tp": [1, 2], "pp": [1], "zero": [3], "recompute": ["full"]}}
EOF
run sweep sweep "$tmp/sweep.json" --format json --no-progress
expect_rc sweep 0
expect_in "$tmp/sweep.out" '"best"' "sweep with a software profile"
sed 's/"recompute": \["full"\]/"recompute": ["full"], "attention": "fa3"/' "$tmp/sweep.json" >"$tmp/sweep-fa3.json"
run sweepfa3 sweep "$tmp/sweep-fa3.json" --format json --no-progress
expect_rc sweepfa3 2
expect_in "$tmp/sweepfa3.err" "sweep-fa3.json: parallel.attention:" "sweep with fa3 on an A100 system"

finish
