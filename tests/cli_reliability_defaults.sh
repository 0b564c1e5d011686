#!/usr/bin/env bash
# Command-line tests of always-on failures (issue 13): a job without a reliability key is
# simulated with the default processes of its accelerator's fleet and says so in an
# `assumptions` object and table section; "reliability": "none" is the failure-free what-if
# (expected time = time_to_train_s, goodput 1, no failures), in run and in sweep; rate_scale
# 2 halves the job MTBF; the sweep's JSON carries the assumptions of its answer; bad values
# exit 2 naming the key.
#
# usage: bash tests/cli_reliability_defaults.sh path/to/trainsim   (ctest passes the binary)
# Needs bash, coreutils, grep, sed (no python, no jq).
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_reliability_defaults "$@"

# json_value FILE KEY: the value of a top-level key of a pretty-printed report.
json_value() {
    sed -n "s/^  \"$2\": *\\(.*[^,]\\),\\{0,1\\}\$/\\1/p" "$1" | head -n 1
}
# assumption FILE KEY: the value of a key of the assumptions object (4 spaces in).
assumption() {
    sed -n "/^  \"assumptions\":/,/^  }/s/^    \"$2\": *\\(.*[^,]\\),\\{0,1\\}\$/\\1/p" "$1" | head -n 1
}

# job NAME SYSTEM NODES [RELIABILITY]: a small Llama 3 8B job; RELIABILITY is the value of
# the key, or absent.
job() {
    local rel=""
    [ $# -ge 4 ] && rel="\"reliability\": $4,"
    cat >"$tmp/$1.json" <<EOF
{"model": "llama3-8b", "system": "$2", "nodes": $3, "global_batch": 64, "precision": "bf16",
 "parallel": {"tp": 8, "pp": 1, "microbatch": 1, "recompute": "selective", "zero": 1},
 "training": {"tokens": "20B"}, $rel
 "cost": {"gpu_hour": {"on_demand": 4.0}}}
EOF
}

# ---------------------------------------------------------------- defaults without the key

job h100 dgx-h100 2
run h100 run "$tmp/h100.json" --format json --replications 200
expect_rc h100 0
for k in time_to_train_s expected_time_to_train_s p90_time_to_train_s goodput failures_expected; do
    [ -n "$(json_value "$tmp/h100.out" $k)" ] || fail "h100: no $k without a reliability key"
done
[ "$(assumption "$tmp/h100.out" source)" = '"default (Llama 3 Table 5 mix, H100 fleet)"' ] ||
    fail "h100: assumptions.source is $(assumption "$tmp/h100.out" source)"
[ "$(assumption "$tmp/h100.out" rate_scale)" = 1 ] || fail "h100: rate_scale is not 1"
for k in failure_processes job_mtbf_failures_s job_mtbf_s spot restart checkpoint; do
    grep -q "^    \"$k\":" "$tmp/h100.out" || fail "h100: assumptions.$k missing"
done
for c in gpu node network switch software; do
    grep -q "^        \"component\":  \"$c\"" "$tmp/h100.out" || fail "h100: no $c process"
done
grep -q '"component":  "job"' "$tmp/h100.out" && fail "h100: a size-independent default process"
# 2 nodes of the H100 fleet: 3.7887 failures per 1,000 node-days -> 1000 / (2 x 3.7887) days
mtbf=$(assumption "$tmp/h100.out" job_mtbf_failures_s)
awk -v m="$mtbf" 'BEGIN { w = 1000 / (2 * 419 / 110.592) * 86400; exit !(m > w * 0.999 && m < w * 1.001) }' ||
    fail "h100: job MTBF $mtbf s, expected 1000 / (2 x 3.789) days"
le() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -g -s | head -n 1)" = "$1" ]; }
le "$(json_value "$tmp/h100.out" time_to_train_s)" "$(json_value "$tmp/h100.out" expected_time_to_train_s)" ||
    fail "h100: expected time below the failure-free time"

run h100_table run "$tmp/h100.json" --format table --replications 50
expect_rc h100_table 0
expect_in "$tmp/h100_table.out" "Assumptions of the whole run (source: default (Llama 3 Table 5 mix, H100 fleet))" h100_table
expect_in "$tmp/h100_table.out" "checkpoint: every" h100_table

job a100 dgx-a100-80g 2
run a100 run "$tmp/a100.json" --format json --replications 50
expect_rc a100 0
case $(assumption "$tmp/a100.out" source) in
*"Kokolis"*"A100 fleet"*) ;;
*) fail "a100: assumptions.source is $(assumption "$tmp/a100.out" source)" ;;
esac
job mi300x mi300x-8 2
if [ -f "$ROOT/hardware/systems/mi300x-8.json" ]; then
    run mi300x run "$tmp/mi300x.json" --format json --replications 20
    expect_rc mi300x 0
    [ "$(assumption "$tmp/mi300x.out" fleet_assumed)" = true ] || fail "mi300x: H100 rates not flagged as assumed"
fi

# ---------------------------------------------------------------- rate_scale

job x2 dgx-h100 2 '{"rate_scale": 2, "replications": 20}'
run x2 run "$tmp/x2.json" --format json
expect_rc x2 0
awk -v a="$(assumption "$tmp/h100.out" job_mtbf_failures_s)" -v b="$(assumption "$tmp/x2.out" job_mtbf_failures_s)" \
    'BEGIN { exit !(b * 2 > a * (1 - 1e-12) && b * 2 < a * (1 + 1e-12)) }' ||
    fail "rate_scale 2: job MTBF $(assumption "$tmp/x2.out" job_mtbf_failures_s), expected half of $(assumption "$tmp/h100.out" job_mtbf_failures_s)"

# ---------------------------------------------------------------- "none"

job none dgx-h100 2 '"none"'
run none run "$tmp/none.json" --format json
expect_rc none 0
[ "$(json_value "$tmp/none.out" goodput)" = 1 ] || fail "none: goodput $(json_value "$tmp/none.out" goodput)"
[ "$(json_value "$tmp/none.out" failures_expected)" = 0 ] || fail "none: failures $(json_value "$tmp/none.out" failures_expected)"
[ "$(json_value "$tmp/none.out" expected_time_to_train_s)" = "$(json_value "$tmp/none.out" time_to_train_s)" ] ||
    fail "none: expected time is not the failure-free time"
[ "$(assumption "$tmp/none.out" source)" = '"none"' ] || fail "none: assumptions.source"
run none_table run "$tmp/none.json" --format table
expect_rc none_table 0
expect_in "$tmp/none_table.out" 'reliability "none"' none_table

# ---------------------------------------------------------------- bad values

bad() {
    local name=$1 rel=$2 key=$3
    job "$name" dgx-h100 2 "$rel"
    run "$name" run "$tmp/$name.json" --format json
    expect_rc "$name" 2
    expect_in "$tmp/$name.err" "$name.json: $key" "$name"
}
bad bad_word '"off"' 'reliability: "off" is not an object or "none"'
bad bad_scale0 '{"rate_scale": 0}' 'reliability.rate_scale: must be greater than zero'
bad bad_scale_neg '{"rate_scale": -1}' 'reliability.rate_scale:'
bad bad_scale_big '{"rate_scale": 5000}' 'reliability.rate_scale: 5000 is out of range'
bad bad_fleet '{"fleet": "tpu"}' 'reliability.fleet:'
bad bad_fleet_and_failures '{"fleet": "a100", "failures": []}' 'reliability.fleet:'
bad bad_component '{"failures": [{"component": "rack", "mtbf": "1 y"}]}' 'reliability.failures[0].component:'

# ---------------------------------------------------------------- recovery and mechanisms listed

# recov FILE KEY: a key of assumptions.recovery (6 spaces in).
recov() {
    sed -n "/^    \"recovery\":/,/^    }/s/^      \"$2\": *\\(.*[^,]\\),\\{0,1\\}\$/\\1/p" "$1" | head -n 1
}
# Without restart_overhead and recovery: the default phases (Kokolis u0 lognormal, NCCL
# watchdog hangs with each process's share: (7 NIC + 35 switch/cable + 7 watchdog) / 419).
[ "$(recov "$tmp/h100.out" mode)" = '"default"' ] || fail "h100: recovery.mode is $(recov "$tmp/h100.out" mode)"
h=$(recov "$tmp/h100.out" hang_fraction)
awk -v h="$h" 'BEGIN { w = 49 / 419; exit !(h > w - 1e-9 && h < w + 1e-9) }' ||
    fail "h100: recovery.hang_fraction $h, expected 49/419"
expect_in "$tmp/h100.out" '"preset":  "automated"' h100
expect_in "$tmp/h100.out" '"median_s":  600' h100
# phases: hangs x 10 min + the lognormal's mean 600 exp(0.541^2 / 2)
ph=$(recov "$tmp/h100.out" phases_mean_s)
awk -v p="$ph" 'BEGIN { w = 49 / 419 * 600 + 600 * exp(0.541^2 / 2); exit !(p > w - 1e-6 && p < w + 1e-6) }' ||
    fail "h100: recovery.phases_mean_s $ph"
for k in fail_slow bad_nodes correlated rollback planned; do
    grep -q "^      \"$k\":  {" "$tmp/h100.out" || fail "h100: assumptions.mechanisms.$k missing"
done
expect_in "$tmp/h100.out" '"startup_s":  0.1,' h100     # restart.startup_s: 0.05 s x 2 nodes
# restart_overhead alone: a constant restart (Daly's setting), no hangs, no diagnosis.
job constant dgx-h100 2 '{"restart_overhead": "10 min"}'
run constant run "$tmp/constant.json" --format json --replications 50
expect_rc constant 0
[ "$(recov "$tmp/constant.out" mode)" = '"constant"' ] || fail "constant: recovery.mode"
[ "$(recov "$tmp/constant.out" hang_fraction)" = 0 ] || fail "constant: hangs in a constant restart"
grep -A1 '"diagnose":  {' "$tmp/constant.out" | grep -q '"distribution":  "none"' || fail "constant: a diagnosis phase"
# A recovery object: its phases; the mechanisms given are listed with their parameters.
job given dgx-h100 2 '{"recovery": {"diagnose": "manual", "queue": "5 min"}, "rollback": {"fraction": 0.02}, "planned": {}}'
run given run "$tmp/given.json" --format json --replications 50
expect_rc given 0
[ "$(recov "$tmp/given.out" mode)" = '"given"' ] || fail "given: recovery.mode"
[ "$(recov "$tmp/given.out" queue_s)" = 300 ] || fail "given: recovery.queue_s"
expect_in "$tmp/given.out" '"preset":  "manual"' given
grep -A3 '"rollback":  {' "$tmp/given.out" | grep -q '"fraction":  0.02' || fail "given: rollback not listed"
grep -A2 '"planned":  {' "$tmp/given.out" | grep -q '"enabled":  true' || fail "given: planned not listed"
run given_t run "$tmp/given.json" --format table --wide --replications 50
expect_in "$tmp/given_t.out" "recovery (given): crash detection immediate" given_t
expect_in "$tmp/given_t.out" "(manual); queue 5 min" given_t
expect_in "$tmp/given_t.out" "rollback 2% of failures, 1 back; planned one per" given_t
bad bad_hang '{"failures": [{"component": "node", "mtbf": "1 y", "hang_fraction": 2}]}' 'reliability.failures[0].hang_fraction:'

# ---------------------------------------------------------------- sweep

sweep() {
    cat >"$tmp/$1.json" <<EOF
{"name": "$1", "model": "megatron-1.7b", "tokens": "5B", "global_batch": 256,
 "systems": ["dgx-h100"], "nodes": [1, 2], "pricing": ["on_demand", "spot"],
 "parallel": {"tp": [1, 2], "pp": 1, "cp": 1, "microbatch": [1, 2], "zero": [0, 1]},
 $2
 "cost": {"gpu_hour": {"on_demand": 4.0, "spot": 1.6}},
 "constraint": {"deadline": "30 d"}, "objective": "cost", "top": 3}
EOF
}
sweep sw_default '"reliability": {"replications": 20},'
run sw_default sweep "$tmp/sw_default.json" --format json
expect_rc sw_default 0
grep -q '^  "assumptions":  {' "$tmp/sw_default.out" || fail "sweep: no top-level assumptions"
grep -q '^    "assumptions":  {' "$tmp/sw_default.out" || fail "sweep: best carries no assumptions"
expect_in "$tmp/sw_default.out" '"source":  "default (Llama 3 Table 5 mix, H100 fleet)"' sw_default
sweep sw_none '"reliability": "none",'
run sw_none sweep "$tmp/sw_none.json" --format json
expect_rc sw_none 0
expect_in "$tmp/sw_none.out" '"source":  "none"' sw_none
sweep sw_bad '"reliability": {"rate_scale": "x"},'
run sw_bad sweep "$tmp/sw_bad.json" --format json
expect_rc sw_bad 2
expect_in "$tmp/sw_bad.err" "sw_bad.json: reliability.rate_scale:" sw_bad

finish
