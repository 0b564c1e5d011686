#!/usr/bin/env bash
# Command-line tests of extreme but well-formed inputs: reliability and checkpoint values at
# and beyond the ends of their ranges (denormal and huge MTBFs, Weibull shapes, restart,
# repair and notice times, checkpoint sizes and bandwidths, spot rates, spare counts, token
# counts), through `trainsim run` and `trainsim sweep` in table, json and csv formats.
# Every case must end with exit 0 and finite numbers, or exit 2 with a message that names
# the file and the JSON key; never a crash, an abort inside GSL, a hang, or an "inf" or
# "nan" anywhere in stdout or stderr (case-insensitive, as whole words).
#
# usage: bash tests/cli_extremes.sh path/to/trainsim   (ctest passes the built binary)
# Monte Carlo runs use 20 replications so the script stays quick under valgrind, where each
# case runs in json only.
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_extremes "$@"

# no_nonfinite NAME: neither $tmp/NAME.out nor $tmp/NAME.err holds inf, nan or infinity.
no_nonfinite() {
    local f
    for f in "$tmp/$1.out" "$tmp/$1.err"; do
        if grep -qiwE 'nan|inf|infinity|-inf|-nan' "$f"; then
            fail "$1: non-finite value in $(basename "$f"): $(grep -iwE 'nan|inf|infinity' "$f" | head -3)"
        fi
    done
}

# job NAME RELIABILITY [TOKENS] [NODES]: a small job file with that reliability section.
job() {
    local tokens=${3:-'"10B"'}
    cat >"$tmp/$1.json" <<EOF
{"model": "gpt2-124m", "system": "dgx-a100-80g", "nodes": ${4:-2}, "global_batch": 64,
 "precision": "bf16", "parallel": {"tp": 1, "pp": 1, "microbatch": 4},
 "training": {"tokens": $tokens},
 "reliability": $2,
 "cost": {"prices": "aws-p4de-2024-09", "pricing": "on_demand"}}
EOF
}

# case_run NAME RC KEY FORMATS...: run the job NAME in each format; it must exit RC, and
# with RC 2 say "NAME.json: KEY" on stderr.
case_run() {
    local name=$1 want=$2 key=$3 fmt
    shift 3
    for fmt in "$@"; do
        run "$name.$fmt" run "$tmp/$name.json" --format "$fmt"
        expect_rc "$name.$fmt" "$want"
        no_nonfinite "$name.$fmt"
        if [ "$want" -eq 2 ]; then
            expect_in "$tmp/$name.$fmt.err" "$name.json: $key" "$name ($fmt) names the key"
        else
            [ -s "$tmp/$name.$fmt.out" ] || fail "$name ($fmt): no output"
        fi
    done
}

ALL=(table json csv)
# Under valgrind (tests/valgrind.sh sets TS_VALGRIND=1) every case runs once, in json: the
# formats share the numbers, and each run costs seconds there.
[ "${TS_VALGRIND:-0}" = 1 ] && ALL=(json)
R='"replications": 20'
GPU='"component": "gpu"'

# ---------------------------------------------------------------- failure processes

job mtbf_denormal "{\"failures\": [{$GPU, \"mtbf\": \"1e-320 s\"}], $R}"
case_run mtbf_denormal 2 'reliability.failures[0].mtbf: "1e-320 s" is out of range (allowed 1 s to' "${ALL[@]}"
job mtbf_tiny_number "{\"failures\": [{$GPU, \"mtbf\": 1e-300}], $R}"
case_run mtbf_tiny_number 2 'reliability.failures[0].mtbf: 1e-300 is out of range' json
job mtbf_min "{\"failures\": [{$GPU, \"mtbf\": \"1 s\"}], $R}"
case_run mtbf_min 2 'reliability: the job cannot finish in any useful time' "${ALL[@]}"
job mtbf_max "{\"failures\": [{$GPU, \"mtbf\": 1e13}, {\"component\": \"job\", \"mtbf\": 1e13}], $R}"
case_run mtbf_max 0 '' "${ALL[@]}"
job mtbf_huge "{\"failures\": [{$GPU, \"mtbf\": 1e300}], $R}"
case_run mtbf_huge 2 'reliability.failures[0].mtbf: 1e+300 is out of range' json
job no_failures "{\"failures\": [], $R}"
case_run no_failures 0 "" table json csv
# (the table wraps its prose at 100 columns: the phrase may span a line break)
tr -s " \n" "  " <"$tmp/no_failures.table.out" >"$tmp/no_failures.table.flat"
expect_in "$tmp/no_failures.table.flat" "no failure or preemption" "no failures: the table says why there is no interrupt time"

job shape_tiny "{\"failures\": [{$GPU, \"mtbf\": \"1000 h\", \"distribution\": \"weibull\", \"shape\": 0.005}], $R}"
case_run shape_tiny 2 'reliability.failures[0].shape: 0.005 is out of range (allowed 0.1 to 1000)' "${ALL[@]}"
job shape_denormal "{\"failures\": [{$GPU, \"mtbf\": \"1000 h\", \"distribution\": \"weibull\", \"shape\": 1e-320}], $R}"
case_run shape_denormal 2 'reliability.failures[0].shape:' json
job shape_min "{\"failures\": [{$GPU, \"mtbf\": \"1000 h\", \"distribution\": \"weibull\", \"shape\": 0.1}], $R}"
case_run shape_min 2 'reliability: the job cannot finish in any useful time: a simulated run was interrupted more than 100000 times' json
job shape_min_rare "{\"failures\": [{$GPU, \"mtbf\": 1e13, \"distribution\": \"weibull\", \"shape\": 0.1}], $R}"
case_run shape_min_rare 0 '' json csv
job shape_max "{\"failures\": [{$GPU, \"mtbf\": \"100 h\", \"distribution\": \"weibull\", \"shape\": 1000}], $R}"
case_run shape_max 0 '' "${ALL[@]}"

# ---------------------------------------------------------------- restarts and repairs

job restart_huge "{\"restart_overhead\": \"1e9 s\", $R}"
case_run restart_huge 2 'reliability: the job cannot finish in any useful time' "${ALL[@]}"
job restart_huge_nofail "{\"failures\": [], \"restart_overhead\": \"1e9 s\", $R}"
case_run restart_huge_nofail 0 '' json
job restart_denormal "{\"restart_overhead\": \"1e-320 s\", $R}"
case_run restart_denormal 0 '' json csv
job restart_over "{\"restart_overhead\": \"1e10 s\", $R}"
case_run restart_over 2 'reliability.restart_overhead:' json
job repair_huge "{\"repair_time\": \"1e9 s\", $R}"
case_run repair_huge 2 'reliability: the job cannot finish in any useful time' "${ALL[@]}"
job repair_huge_spares "{\"repair_time\": \"1e9 s\", \"spares\": 1000000, $R}"
case_run repair_huge_spares 0 '' "${ALL[@]}"
job repair_elastic "{\"repair_time\": \"1e9 s\", \"elastic\": true, $R}"
case_run repair_elastic 0 '' json

# ---------------------------------------------------------------- checkpoints

job size_denormal "{\"checkpoint\": {\"size\": 1e-320}, $R}"
case_run size_denormal 2 'reliability.checkpoint.size: ' json
job size_huge "{\"checkpoint\": {\"size\": 1e18}, $R}"
case_run size_huge 2 'reliability: the job cannot finish in any useful time' "${ALL[@]}"
job size_huge_nofail "{\"failures\": [], \"checkpoint\": {\"size\": 1e18, \"interval\": \"auto\"}, $R}"
case_run size_huge_nofail 2 'reliability: the job cannot finish in any useful time' json
job size_one "{\"checkpoint\": {\"size\": \"1 B\"}, $R}"
case_run size_one 0 '' "${ALL[@]}"
job bw_denormal "{\"checkpoint\": {\"write_bandwidth\": 1e-320}, $R}"
case_run bw_denormal 2 'reliability.checkpoint.write_bandwidth: ' json
job bw_one "{\"checkpoint\": {\"node_write_bandwidth\": \"1 B/s\"}, $R}"
case_run bw_one 2 'reliability: the job cannot finish in any useful time' "${ALL[@]}"
job bw_max "{\"checkpoint\": {\"write_bandwidth\": 1e16, \"read_bandwidth\": 1e16, \"node_write_bandwidth\": 0, \"node_read_bandwidth\": 0}, $R}"
case_run bw_max 0 '' "${ALL[@]}"
job snap_denormal "{\"checkpoint\": {\"mode\": \"async\", \"snapshot_bandwidth\": 1e-320}, $R}"
case_run snap_denormal 2 'reliability.checkpoint.snapshot_bandwidth: ' json
job snap_one "{\"checkpoint\": {\"mode\": \"async\", \"snapshot_bandwidth\": 1}, $R}"
case_run snap_one 2 'reliability: the job cannot finish in any useful time' json
job interval_denormal "{\"checkpoint\": {\"interval\": \"1e-320 s\"}, $R}"
case_run interval_denormal 2 'reliability.checkpoint.interval:' json
job interval_huge "{\"checkpoint\": {\"interval\": \"1e9 s\"}, $R}"
case_run interval_huge 0 '' "${ALL[@]}"
job interval_iters_max "{\"checkpoint\": {\"interval_iterations\": 1000000000}, $R}"
case_run interval_iters_max 0 '' json

# ---------------------------------------------------------------- spot capacity

job spot_denormal "{\"spot\": {\"preemption_mtbf\": \"1e-320 s\"}, $R}"
case_run spot_denormal 2 'reliability.spot.preemption_mtbf: "1e-320 s" is out of range (allowed 1 s to' json
job spot_min "{\"spot\": {\"preemption_mtbf\": \"1 s\"}, $R}"
case_run spot_min 2 'reliability: the job cannot finish in any useful time' "${ALL[@]}"
job spot_notice_huge "{\"spot\": {\"preemption_mtbf\": \"1000 h\", \"notice\": \"1e9 s\"}, $R}"
case_run spot_notice_huge 0 '' "${ALL[@]}"
job spot_reacquire_huge "{\"spot\": {\"preemption_mtbf\": \"1000 h\", \"reacquire\": \"1e9 s\"}, $R}"
case_run spot_reacquire_huge 0 '' "${ALL[@]}"
job spot_zero_notice "{\"spot\": {\"preemption_mtbf\": \"100 h\", \"notice\": 0, \"reacquire\": 0}, $R}"
case_run spot_zero_notice 0 '' json

# ---------------------------------------------------------------- tokens and spares

job tokens_1e30 "{$R}" 1e30
case_run tokens_1e30 2 'training.tokens: 1e+30 is out of range' json
job tokens_max "{\"rate_scale\": 100, $R}" 1e17
case_run tokens_max 2 'reliability: the job cannot finish in any useful time' "${ALL[@]}"
job tokens_max_nofail "{\"failures\": [], $R}" 1e17
case_run tokens_max_nofail 0 '' "${ALL[@]}"
job tokens_one "{$R}" 1
case_run tokens_one 0 '' "${ALL[@]}"
job spares_max "{\"spares\": 1000000, $R}"
case_run spares_max 0 '' "${ALL[@]}"

# ---------------------------------------------------------------- sweeps

# sweep NAME RELIABILITY [TOKENS] [CONSTRAINT]: a small sweep over two node counts.
sweep() {
    local tokens=${3:-'"10B"'} constraint=${4:-'{"deadline": "30 d"}'}
    cat >"$tmp/$1.json" <<EOF
{"name": "$1", "model": "gpt2-124m", "tokens": $tokens, "global_batch": 64,
 "systems": ["dgx-a100-80g"], "nodes": [1, 2], "pricing": ["on_demand", "spot"],
 "precision": "bf16",
 "parallel": {"tp": [1, 2], "pp": 1, "cp": 1, "microbatch": [2, 4], "recompute": ["none"],
              "zero": [1], "schedule": ["1f1b"]},
 "reliability": $2,
 "cost": {"gpu_hour": {"on_demand": 4.0, "spot": 1.6}},
 "constraint": $constraint,
 "objective": "cost", "top": 3}
EOF
}

# sweep_run NAME RC KEY: the sweep in every format, with --csv too.
sweep_run() {
    local name=$1 want=$2 key=$3 fmt
    for fmt in "${ALL[@]}"; do
        run "$name.$fmt" sweep "$tmp/$name.json" --format "$fmt" --no-progress \
            --csv "$tmp/$name.$fmt.csv"
        expect_rc "$name.$fmt" "$want"
        no_nonfinite "$name.$fmt"
        if [ "$want" -eq 2 ]; then
            expect_in "$tmp/$name.$fmt.err" "$name.json: $key" "$name ($fmt) names the key"
        elif grep -qiwE 'nan|inf|infinity' "$tmp/$name.$fmt.csv"; then
            fail "$name ($fmt): non-finite value in the --csv file"
        fi
    done
}

sweep sw_base "{$R}"
sweep_run sw_base 0 ''
sweep sw_no_failures "{\"failures\": [], $R}"
sweep_run sw_no_failures 0 ''
sweep sw_mtbf_denormal "{\"failures\": [{$GPU, \"mtbf\": \"1e-320 s\"}], $R}"
sweep_run sw_mtbf_denormal 2 'reliability.failures[0].mtbf'
sweep sw_shape_tiny "{\"failures\": [{$GPU, \"mtbf\": \"1000 h\", \"distribution\": \"weibull\", \"shape\": 0.001}], $R}"
sweep_run sw_shape_tiny 2 'reliability.failures[0].shape'
# Every configuration fails to finish: the sweep finds nothing and says why, in words.
sweep sw_cannot_finish "{\"failures\": [{$GPU, \"mtbf\": \"1 s\"}], $R}"
sweep_run sw_cannot_finish 0 ''
expect_in "$tmp/sw_cannot_finish.json.out" "none has an expected time" "cannot finish: the sweep says why"
sweep sw_restart_huge "{\"restart_overhead\": \"1e9 s\", $R}"
sweep_run sw_restart_huge 0 ''
sweep sw_tokens_max "{$R}" 1e17
sweep_run sw_tokens_max 0 ''
sweep sw_deadline_tiny "{$R}" '"10B"' '{"deadline": "1 s"}'
sweep_run sw_deadline_tiny 0 ''
sweep sw_spot_extreme "{\"spot\": {\"preemption_mtbf\": \"1 s\"}, $R}"
sweep_run sw_spot_extreme 0 ''

finish
