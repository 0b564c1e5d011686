#!/usr/bin/env bash
# The llm-foundry validation jobs (configs/validation/llm-foundry, written by
# experiments/validation-frameworks/make_jobs.sh): one per published row, each naming the
# pytorch-fsdp profile and its table's attention kernel, and each a job trainsim also runs with
# those two keys taken out (the form of the baseline, make_jobs.sh --today). The jobs as
# shipped are run by tests/test_validation.c.
. "$(dirname "$0")/cli.bash" cli_validation_jobs "$@"

jobs_dir=$ROOT/configs/validation/llm-foundry
rows_csv=$ROOT/experiments/validation-frameworks/llm-foundry-rows.csv

# One job per published row (the CSV has a header line).
rows=$(($(wc -l <"$rows_csv") - 1))
files=("$jobs_dir"/foundry-*.json)
[ "${#files[@]}" -eq "$rows" ] || fail "there are ${#files[@]} llm-foundry jobs for $rows published rows"
[ "$rows" -eq 216 ] || fail "the llm-foundry tables have 216 rows, the CSV $rows"

# Every job names the profile, a kernel of its table, and itself.
for f in $(grep -L '"software": "pytorch-fsdp",' "${files[@]}"); do
    fail "$(basename "$f") names the pytorch-fsdp profile"
done
for f in $(grep -LE '"attention": "(triton-2022|fa2)"' "${files[@]}"); do
    fail "$(basename "$f") names the triton-2022 or fa2 attention kernel"
done
while IFS= read -r line; do
    f=${line%%:*}
    base=$(basename "$f" .json)
    [ "${line#*:}" = "  \"name\": \"$base\"," ] || fail "$base is named after its file: ${line#*:}"
done < <(grep -H -m1 '"name": ' "${files[@]}")

# A sample runs without the profile and the kernel name: every 6th row (every 36th under valgrind)
# and the extremes (65,536 tokens, 512 GPUs, FP8, SHARD_GRAD_OP with flash-attn 2).
step=6
[ "${TS_VALGRIND:-0}" = 1 ] && step=36
sample=()
for ((i = 0; i < ${#files[@]}; i += step)); do sample+=("${files[$i]}"); done
sample+=("$jobs_dir/foundry-h100-mpt-7b-s65536-g8.json" "$jobs_dir/foundry-h100-mpt-70b-s2048-g512.json"
         "$jobs_dir/foundry-h100-fp8-mpt-3b-s32768-g8.json" "$jobs_dir/foundry-h100-mpt-1b-s2048-g512.json")
for f in "${sample[@]}"; do
    base=$(basename "$f" .json)
    sed -e '/"software": "pytorch-fsdp",/d' -e 's/"attention": "\(triton-2022\|fa2\)"/"attention": "flash"/' \
        "$f" >"$tmp/$base.json"
    run "$base" run "$tmp/$base.json" --format json
    expect_rc "$base" 0
    expect_in "$tmp/$base.out" '"tokens_per_s": ' "$base runs with today's keys"
done

finish
