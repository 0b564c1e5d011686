#!/usr/bin/env bash
# Command-line tests of sweeps that search several software profiles (--search-software): the answer's profile is the
# one whose job, run through `trainsim run`, is faster (same iteration times to the bit);
# with three profiles on two systems the answer is the same with and without pruning and the
# bytes are the same on one and two threads; a profile a system cannot run (FA3 on an A100)
# is rejected as software_unsupported, counted by layout, and refused (exit 2) only when no
# (system, profile) pair can run; an interrupted sweep resumes to the same answer; every entry, the top-k CSV and the --csv file name the
# profile (the CSV as the last column); the list form's errors name the file and the key.
#
# usage: bash tests/cli_sweep_software.sh path/to/trainsim   (ctest passes the built binary)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_sweep_software "$@"

# A top-level number of a JSON report, e.g. json_number file enumerated.
json_number() {
    sed -n "s/^  \"$2\": *\\([0-9][0-9.e+]*\\).*/\\1/p" "$1"
}

# ---------------------------------------------------------------- the answer's profile

# The same layout under two profiles: the sweep's answer must be the profile whose job runs
# faster in `trainsim run`, with the run's iteration time; the other profile is a layout of
# the same purchase, so it is no row of its own (the runner-up is another purchase) and the
# --csv file has it with the run's iteration time.
for s in megatron-core pytorch-fsdp; do
    cat >"$tmp/job-$s.json" <<EOF
{"model": "llama3-8b", "system": "dgx-h100", "gpus": 8, "global_batch": 16, "precision": "bf16",
 "software": "$s", "parallel": {"tp": 1, "pp": 1, "microbatch": 1, "recompute": "full", "zero": 3}}
EOF
    run "run-$s" run "$tmp/job-$s.json" --format json
    expect_rc "run-$s" 0
done
t_mc=$(json_number "$tmp/run-megatron-core.out" iteration_time_s)
t_fsdp=$(json_number "$tmp/run-pytorch-fsdp.out" iteration_time_s)
[ -n "$t_mc" ] && [ -n "$t_fsdp" ] || fail "runs: no iteration_time_s"
if awk -v a="$t_mc" -v b="$t_fsdp" 'BEGIN { exit !(a < b) }'; then
    fast=megatron-core t_fast=$t_mc slow=pytorch-fsdp t_slow=$t_fsdp
else
    fast=pytorch-fsdp t_fast=$t_fsdp slow=megatron-core t_slow=$t_mc
fi
# The slower-or-not profile is listed first, so that the answer is not the first listed by
# construction.
cat >"$tmp/two.json" <<EOF
{"model": "llama3-8b", "tokens": "10B", "global_batch": 16, "systems": ["dgx-h100"], "nodes": [1],
 "precision": "bf16", "software": ["$slow", "$fast"], "objective": "time",
 "constraint": {"min_tokens_per_s": 1},
 "parallel": {"tp": [1], "pp": [1], "cp": [1], "microbatch": [1], "recompute": ["full"], "zero": [3],
              "sequence_parallel": [false], "schedule": ["1f1b"]}}
EOF
run two sweep --search-software "$tmp/two.json" --format json --no-progress --csv "$tmp/two.csv"
expect_rc two 0
[ "$(json_number "$tmp/two.out" enumerated)" = 2 ] || fail "two profiles: not 2 layouts enumerated"
sed -n '/^  "top":/,/^  "pareto":/p' "$tmp/two.out" >"$tmp/two.top"
first_sw=$(sed -n 's/^      "software":  "\(.*\)",\{0,1\}$/\1/p' "$tmp/two.top" | sed -n 1p)
first_t=$(sed -n 's/^      "iteration_time_s":  \(.*\),$/\1/p' "$tmp/two.top" | sed -n 1p)
[ "$first_sw" = "$fast" ] || fail "two profiles: answer's profile is $first_sw, the runs say $fast"
[ "$first_t" = "$t_fast" ] || fail "two profiles: answer's iteration $first_t s, run says $t_fast s"
[ "$(grep -c '^      "equivalent_layouts"' "$tmp/two.top")" = 1 ] ||
    fail "two profiles: one purchase gave more than one top row"
# The run's JSON carries 15 significant digits and the CSV 17, so they agree to ~1e-15 relative,
# not always bit for bit.
awk -F, -v s="$slow" -v t="$t_slow" 'function abs(x) { return x < 0 ? -x : x }
    NR > 1 && $NF == s && $16 == "simulated" && abs($21 - t) <= 1e-13 * t { n++ }
    END { exit !(n == 1) }' "$tmp/two.csv" ||
    fail "two profiles: the --csv row of $slow does not have the run's iteration $t_slow s"
# The best carries the run's validation object for its profile on the H100.
sed -n '/^  "best":/,/^  "message":/p' "$tmp/two.out" >"$tmp/two.best"
expect_in "$tmp/two.best" "\"software\":  \"$fast\"" "best names its profile"
expect_in "$tmp/two.best" '"validation":  {' "best carries validation"
expect_in "$tmp/two.best" '"device":  "h100-sxm"' "best validation device"
sed -n '/"validation":  {/,/^    }/p' "$tmp/two.best" >"$tmp/two.val"
expect_in "$tmp/two.val" "\"software\":  \"$fast\"" "validation names the answer's profile"
sed -n '/"validation":  {/,/^  }/p' "$tmp/run-$fast.out" >"$tmp/run.val"
sed 's/^  //' "$tmp/two.val" | cmp -s - "$tmp/run.val" ||
    fail "best's validation differs from the run's: $(diff <(sed 's/^  //' "$tmp/two.val") "$tmp/run.val" | head -8)"
# The table shows the profile's validation under the answer, before the runner-up.
run twot sweep --search-software "$tmp/two.json" --format table --no-progress
expect_rc twot 0
sed -n '/^ANSWER:/,/^The chosen setup/p' "$tmp/twot.out" >"$tmp/twot.answer"
expect_in "$tmp/twot.answer" "Software $fast on h100-sxm" "table: validation under the answer"
grep -q '^runner-up:' "$tmp/twot.out" && fail "table: a runner-up from the same purchase"

# ---------------------------------------------------------------- three profiles, two systems

# megatron-fa3: megatron-core with FlashAttention-3 everywhere, which the A100 cannot run.
python3 - "$ROOT/configs/software/megatron-core.json" "$tmp/fa3.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["name"], d["attention"] = "megatron-fa3", "fa3"
json.dump(d, open(sys.argv[2], "w"), indent=2)
EOF
grep -q '"attention": "fa3"' "$tmp/fa3.json" || fail "setup: the FA3 profile was not made"
sweep_file() {   # sweep_file OUT SYSTEMS SOFTWARE
    cat >"$1" <<EOF
{"model": "llama3-8b", "tokens": "50B", "global_batch": 64, "systems": [$2],
 "nodes": [1, 2], "precision": "bf16", "software": [$3],
 "objective": "time", "constraint": {"min_tokens_per_s": 1}, "top": 3,
 "parallel": {"tp": [1, 2, 4], "pp": [1, 2], "cp": [1], "microbatch": [1, 2],
              "recompute": ["selective", "full"], "zero": [1, 3], "schedule": ["1f1b"]}}
EOF
}
sweep_file "$tmp/three.json" '"dgx-a100-80g", "dgx-h100"' '"megatron-core", "pytorch-fsdp", "fa3.json"'
OMP_NUM_THREADS=1 run t1 sweep --search-software "$tmp/three.json" --format json --no-progress --threads 1
expect_rc t1 0
OMP_NUM_THREADS=2 run t2 sweep --search-software "$tmp/three.json" --format json --no-progress --threads 2
expect_rc t2 0
grep -v '"elapsed_s"' "$tmp/t1.out" >"$tmp/t1.json"
grep -v '"elapsed_s"' "$tmp/t2.out" >"$tmp/t2.json"
[ -s "$tmp/t1.json" ] || fail "threads: empty JSON"
cmp -s "$tmp/t1.json" "$tmp/t2.json" || fail "threads: 1 and 2 threads differ:
$(diff "$tmp/t1.json" "$tmp/t2.json" | head -20)"

# Pruned and exhaustive: the same top-k and front.
run ex sweep --search-software "$tmp/three.json" --format json --no-progress --exhaustive
expect_rc ex 0
sed -n '/^  "top":/,/^  "enumerated":/p' "$tmp/t1.out" >"$tmp/t1.top"
sed -n '/^  "top":/,/^  "enumerated":/p' "$tmp/ex.out" >"$tmp/ex.top"
grep -q '"pareto"' "$tmp/t1.top" || fail "pruning: no top/pareto section found"
cmp -s "$tmp/t1.top" "$tmp/ex.top" || fail "pruning: top and pareto differ from --exhaustive:
$(diff "$tmp/t1.top" "$tmp/ex.top" | head -20)"
[ "$(json_number "$tmp/t1.out" simulated)" -lt "$(json_number "$tmp/ex.out" simulated)" ] ||
    fail "pruning: pruning simulated no fewer layouts than --exhaustive"

# Interrupted after one batch and resumed: the same answer as without the interruption (the
# partial file stores each candidate's profile with its layout).
TRAINSIM_TEST_STOP_AFTER_BATCHES=1 run int sweep --search-software "$tmp/three.json" --format json --no-progress \
    --exhaustive --partial "$tmp/three.partial.json"
expect_rc int 130
expect_in "$tmp/three.partial.json" '"software"' "partial file names the profile field"
run res sweep --search-software "$tmp/three.json" --format json --no-progress --exhaustive --resume "$tmp/three.partial.json"
expect_rc res 0
grep -v '"elapsed_s"' "$tmp/ex.out" >"$tmp/ex.json"
grep -v '"elapsed_s"' "$tmp/res.out" >"$tmp/res.json"
cmp -s "$tmp/ex.json" "$tmp/res.json" || fail "resume: the resumed answer differs:
$(diff "$tmp/ex.json" "$tmp/res.json" | head -20)"

# The (A100, megatron-fa3) pair is rejected, counted by layout: as many as one pair
# enumerates (the enumeration does not depend on the profile), which a one-pair sweep counts.
sweep_file "$tmp/one.json" '"dgx-a100-80g"' '"megatron-core"'
run one sweep --search-software "$tmp/one.json" --format json --no-progress
expect_rc one 0
pair=$(json_number "$tmp/one.out" enumerated)
[ -n "$pair" ] && [ "$pair" -gt 0 ] || fail "one pair: nothing enumerated"
[ "$(json_number "$tmp/t1.out" enumerated)" = $((6 * pair)) ] ||
    fail "three profiles: enumerated $(json_number "$tmp/t1.out" enumerated), expected 6 x $pair"
expect_in "$tmp/t1.out" "\"software_unsupported\":  $pair" "the unsupported pair's layouts are counted"
expect_in "$tmp/one.out" '"software_unsupported":  0' "no unsupported layouts with one runnable pair"
# No entry puts megatron-fa3 on the A100; every entry names one of the three profiles.
awk '/"system":/ { sys = $2 } /^      "software":/ { print sys, $2 }' "$tmp/t1.top" >"$tmp/pairs"
[ -s "$tmp/pairs" ] || fail "entries: no software key in top/pareto"
grep -q 'a100.*megatron-fa3' "$tmp/pairs" && fail "entries: megatron-fa3 on the A100 was ranked"
grep -vqE '"(megatron-core|pytorch-fsdp|megatron-fa3)",?$' "$tmp/pairs" && fail "entries: unknown profile"
# The top-k CSV and the --csv file end each row with the profile.
run csv sweep --search-software "$tmp/three.json" --format csv --no-progress --csv "$tmp/all.csv"
expect_rc csv 0
head -1 "$tmp/csv.out" | grep -q ',rank,software$' || fail "top-k CSV: software is not the last column"
head -1 "$tmp/all.csv" | grep -q ',meets,why,software$' || fail "--csv: software is not the last column"
[ "$(awk -F, 'NR > 1 && $1 == "dgx-a100-80g" && $NF == "megatron-fa3"' "$tmp/all.csv" | wc -l)" -eq 0 ] ||
    fail "--csv: a row for the unsupported pair"
for s in megatron-core pytorch-fsdp megatron-fa3; do
    awk -F, -v s="$s" 'NR > 1 && $NF == s { n++ } END { exit !(n > 0) }' "$tmp/all.csv" ||
        fail "--csv: no row for $s"
done

# Every pair impossible: exit 2 naming the file and key.
sweep_file "$tmp/none.json" '"dgx-a100-80g"' '"fa3.json"'
run none sweep --search-software "$tmp/none.json" --format json --no-progress
expect_rc none 2
expect_in "$tmp/none.err" "none.json: parallel.attention:" "no runnable pair"

# ---------------------------------------------------------------- list form errors

sed 's/"software": \["megatron-core", "pytorch-fsdp", "fa3.json"\]/"software": ["pytorch-fsdp", "pytorch-fsdp"]/' \
    "$tmp/three.json" >"$tmp/dup.json"
run dup sweep --search-software "$tmp/dup.json" --no-progress
expect_rc dup 2
expect_in "$tmp/dup.err" 'dup.json: software[1]: software profile "pytorch-fsdp" appears twice' "duplicate profile"
sed 's/"software": \["megatron-core", "pytorch-fsdp", "fa3.json"\]/"software": []/' \
    "$tmp/three.json" >"$tmp/empty.json"
run empty sweep --search-software "$tmp/empty.json" --no-progress
expect_rc empty 2
expect_in "$tmp/empty.err" "empty.json: software: give 1 to 8 software profiles" "empty profile list"
sed 's/"software": \["megatron-core", "pytorch-fsdp", "fa3.json"\]/"software": ["megatron-core", "no-such-stack"]/' \
    "$tmp/three.json" >"$tmp/unknown.json"
run unknown sweep --search-software "$tmp/unknown.json" --no-progress
expect_rc unknown 2
expect_in "$tmp/unknown.err" "unknown.json: software[1]:" "unknown profile in the list"

finish
