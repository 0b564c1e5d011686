#!/usr/bin/env bash
# Command-line tests of `trainsim run` (DESIGN.md section 4): the contract keys of
# --format json with training, reliability and cost sections (no nan/inf, values that hang
# together); the same bytes for one and two threads and a different Monte Carlo for another
# seed; --format table and csv; --method; the iteration and run traces (--trace,
# --run-trace; written atomically, nothing left behind); an infeasible job (exit 0,
# "feasible": false); bad job files and bad options (exit 2, file and JSON path on stderr);
# an output that cannot be written (exit 1).
#
# usage: bash tests/cli_run.sh path/to/trainsim   (ctest passes the built binary)
# Needs bash, coreutils, grep, sed and cmp/diff (no python, no jq). Monte Carlo runs use at
# most 50 replications so that the script stays quick when the binary is a valgrind wrapper
# (tests/valgrind.sh).
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_run "$@"

# finite FILE WHAT: no nan or inf (any spelling) anywhere in FILE.
finite() {
    if grep -qiwE 'nan|inf|infinity' "$1"; then
        fail "$2: non-finite value: $(grep -iwE 'nan|inf|infinity' "$1" | head -3)"
    fi
}

# A top-level value of a JSON report, e.g. json_value file mfu (numbers, true/false/null,
# or a string with its quotes).
json_value() {
    sed -n "s/^  \"$2\": *\\(.*[^,]\\),\\{0,1\\}\$/\\1/p" "$1" | head -n 1
}

# le A B: the number A is at most the number B (sort -g reads 1e+18 and friends).
le() {
    [ -n "$1" ] && [ -n "$2" ] &&
        [ "$(printf '%s\n%s\n' "$1" "$2" | sort -g -s | head -n 1)" = "$1" ]
}

# expect_le NAME A_KEY B_KEY: in the report $tmp/NAME.out, value A_KEY <= value B_KEY
# (a key may be a literal number instead).
expect_le() {
    local a b
    case $2 in [0-9]*) a=$2 ;; *) a=$(json_value "$tmp/$1.out" "$2") ;; esac
    case $3 in [0-9]*) b=$3 ;; *) b=$(json_value "$tmp/$1.out" "$3") ;; esac
    le "$a" "$b" || fail "$1: expected $2 ($a) <= $3 ($b)"
}

# Keys every run report has, and those the optional sections add.
BASE_KEYS=(feasible iteration_time_s tokens_per_s model_flops_per_iteration
hardware_flops_per_iteration model_tflops_per_gpu hardware_tflops_per_gpu mfu hfu
bubble_fraction memory_per_gpu_bytes memory_capacity_bytes)
SECTION_KEYS=(time_to_train_s expected_time_to_train_s p90_time_to_train_s goodput
failures_expected cost_total cost_breakdown)

# contract NAME KEYS...: the JSON report $tmp/NAME.out is one object with these top-level
# keys, numeric where they are numbers.
contract() {
    local name=$1 f=$tmp/$1.out k v
    shift
    [ "$(head -c 1 "$f")" = "{" ] || fail "$name: report does not start with {: $(head -c 100 "$f")"
    [ "$(tail -n 1 "$f")" = "}" ] || fail "$name: report does not end with }"
    for k in "$@"; do
        v=$(json_value "$f" "$k")
        if [ -z "$v" ]; then
            fail "$name: contract key \"$k\" missing"
            continue
        fi
        case $k in
        feasible) [ "$v" = true ] || [ "$v" = false ] || fail "$name: feasible is $v" ;;
        cost_breakdown) [ "$v" = "{" ] || fail "$name: cost_breakdown is not an object: $v" ;;
        *) printf '%s' "$v" | grep -qE '^-?[0-9][0-9.]*([eE][-+]?[0-9]+)?$' ||
            fail "$name: $k is not a number: $v" ;;
        esac
    done
    finite "$f" "$name"
}

# ---------------------------------------------------------------- job files

# A small job referring to catalogue names, with training, reliability and cost sections.
JOB=$tmp/job.json
cat >"$JOB" <<'EOF'
{
  "name": "cli-run-test",
  "model": "llama3-8b",
  "system": "dgx-h100",
  "nodes": 2,
  "global_batch": 64,
  "precision": "bf16",
  "parallel": {"tp": 4, "pp": 2, "microbatch": 1, "schedule": "1f1b", "recompute": "selective",
               "sequence_parallel": true, "zero": 1},
  "training": {"tokens": "10B"},
  "reliability": {"replications": 20, "seed": 11, "rate_scale": 100},
  "cost": {"gpu_hour": {"on_demand": 4.0}}
}
EOF
# The same job without training and reliability sections: no whole run (traces: no run
# timeline). Failures are on by default; the whole run needs tokens to train.
NOREL=$tmp/norel.json
sed '/"reliability":/d; /"training":/d' "$JOB" >"$NOREL"
# 405 B parameters, unsharded, on one GPU: far out of memory.
HUGE=$tmp/huge.json
cat >"$HUGE" <<'EOF'
{"model": "llama3-405b", "system": "dgx-h100", "gpus": 1, "global_batch": 8, "precision": "bf16",
 "parallel": {"tp": 1, "pp": 1, "microbatch": 1},
 "training": {"tokens": "1B"}, "reliability": {"replications": 5},
 "cost": {"gpu_hour": {"on_demand": 4.0}}}
EOF

# ---------------------------------------------------------------- contract keys

run full run "$JOB" --format json --replications 20
expect_rc full 0
contract full "${BASE_KEYS[@]}" "${SECTION_KEYS[@]}"
[ "$(json_value "$tmp/full.out" feasible)" = true ] || fail "full: the job is not feasible"
[ "$(json_value "$tmp/full.out" replications)" = 20 ] || fail "full: --replications 20 not applied"
grep -q '^    "compute":  *[0-9]' "$tmp/full.out" || fail "full: cost_breakdown has no compute"
# Values that hang together.
expect_le full 0 mfu
expect_le full mfu hfu
expect_le full hfu 1
expect_le full model_flops_per_iteration hardware_flops_per_iteration
expect_le full 0 bubble_fraction
expect_le full bubble_fraction 1
expect_le full memory_per_gpu_bytes memory_capacity_bytes
expect_le full time_to_train_s expected_time_to_train_s
expect_le full 0 goodput
expect_le full goodput 1
expect_le full 0 failures_expected
expect_le full 0 cost_total

# A shipped example (a price file, the interleaved schedule) meets the contract too.
EXAMPLE=$ROOT/configs/gpt3-175b-a100.json
run example run "$EXAMPLE" --format json --replications 10
expect_rc example 0
contract example "${BASE_KEYS[@]}" "${SECTION_KEYS[@]}"

# A job with none of the optional sections (files found relative to the job file).
run basic run "$DATA/spec/job_files.json" --format json
expect_rc basic 0
contract basic "${BASE_KEYS[@]}"

# Not on a terminal the default format is JSON.
run default run "$JOB" --replications 20
expect_rc default 0
cmp -s "$tmp/default.out" "$tmp/full.out" || fail "default: output without --format is not the JSON report"

# ---------------------------------------------------------------- determinism

# The report has no line that depends on the machine (no timing): compare whole files.
OMP_NUM_THREADS=1 run t1 run "$JOB" --format json --replications 50 --seed 5 --threads 1
expect_rc t1 0
OMP_NUM_THREADS=1 run t2 run "$JOB" --format json --replications 50 --seed 5 --threads 2
expect_rc t2 0
OMP_NUM_THREADS=2 run o2 run "$JOB" --format json --replications 50 --seed 5
expect_rc o2 0
[ -s "$tmp/t1.out" ] || fail "threads: empty JSON"
cmp -s "$tmp/t1.out" "$tmp/t2.out" || fail "threads: --threads 1 and --threads 2 give different JSON:
$(diff "$tmp/t1.out" "$tmp/t2.out" | head -20)"
cmp -s "$tmp/t1.out" "$tmp/o2.out" || fail "threads: --threads 1 and OMP_NUM_THREADS=2 give different JSON"
# Another seed: another Monte Carlo, the same iteration.
run s6 run "$JOB" --format json --replications 50 --seed 6 --threads 2
expect_rc s6 0
for k in expected_time_to_train_s p90_time_to_train_s; do
    [ "$(json_value "$tmp/t1.out" $k)" != "$(json_value "$tmp/s6.out" $k)" ] ||
        fail "seed: --seed 5 and --seed 6 give the same $k"
done
for k in iteration_time_s time_to_train_s memory_per_gpu_bytes; do
    [ "$(json_value "$tmp/t1.out" $k)" = "$(json_value "$tmp/s6.out" $k)" ] ||
        fail "seed: $k depends on the seed"
done
# The file's seed (11) is the seed when --seed is not given.
run s11 run "$JOB" --format json --replications 20 --seed 11
expect_rc s11 0
cmp -s "$tmp/s11.out" "$tmp/full.out" || fail "seed: --seed 11 differs from the job's own seed 11"

# ---------------------------------------------------------------- table and CSV

run table run "$JOB" --format table --replications 20
expect_rc table 0
[ -s "$tmp/table.out" ] || fail "table: empty output"
expect_in "$tmp/table.out" llama3-8b table
finite "$tmp/table.out" table

run csv run "$JOB" --format csv --replications 20
expect_rc csv 0
[ "$(wc -l <"$tmp/csv.out")" -eq 2 ] || fail "csv: $(wc -l <"$tmp/csv.out") lines, expected a header and one row"
# Commas outside quoted fields (a quoted field may hold commas).
commas() {
    sed -n "${1}p" "$tmp/csv.out" | sed 's/"[^"]*"//g' | tr -cd , | wc -c
}
hc=$(commas 1)
dc=$(commas 2)
if [ "$hc" -eq 0 ] || [ "$hc" -ne "$dc" ]; then fail "csv: header has $hc commas, data line $dc"; fi
for k in feasible iteration_time_s tokens_per_s mfu memory_per_gpu_bytes expected_time_to_train_s cost_total; do
    head -n 1 "$tmp/csv.out" | tr , '\n' | grep -qx "$k" || fail "csv: no column $k"
done
finite "$tmp/csv.out" csv

# ---------------------------------------------------------------- effects of scale

# 16 GPUs wait for their slowest (step_time_cv, sim/step/scale.c): the table has the row, the
# JSON the key, the GPU-hours the attribution; a negative cv in an accelerator file is refused.
expect_in "$tmp/table.out" "waiting for the slowest GPU" scale_table
expect_in "$tmp/full.out" '"sync_wait_s":' scale_json
expect_in "$tmp/full.out" '"straggler_wait":' scale_gpu_hours
sed 's/"step_time_cv": 0.015/"step_time_cv": -0.1/' "$ROOT/hardware/accelerators/h100-sxm.json" \
    >"$tmp/badgpu.json"
sed "s|\"accelerator\": \"h100-sxm\"|\"accelerator\": \"$tmp/badgpu.json\"|" \
    "$ROOT/hardware/systems/dgx-h100.json" >"$tmp/badsys.json"
sed "s|\"system\": \"dgx-h100\"|\"system\": \"$tmp/badsys.json\"|" "$JOB" >"$tmp/badcv.json"
run bad_cv run "$tmp/badcv.json" --format json
expect_rc bad_cv 2
expect_in "$tmp/bad_cv.err" "$tmp/badgpu.json: step_time_cv: -0.1 must not be negative" bad_cv

# ---------------------------------------------------------------- --method

run cf run "$JOB" --format json --replications 20 --method closed-form
expect_rc cf 0
contract cf "${BASE_KEYS[@]}" "${SECTION_KEYS[@]}"
grep -qE '^  "method":  *"closed[-_]form"' "$tmp/cf.out" ||
    fail "method: closed-form run says $(grep '"method"' "$tmp/cf.out")"
grep -qE '^  "method":  *"discrete[-_]event"' "$tmp/full.out" ||
    fail "method: default run says $(grep '"method"' "$tmp/full.out")"
run de run "$JOB" --format json --replications 20 --method discrete-event
expect_rc de 0
cmp -s "$tmp/de.out" "$tmp/full.out" || fail "method: --method discrete-event is not the default"
run bad_method run "$JOB" --method bogus
expect_rc bad_method 2
expect_in "$tmp/bad_method.err" --method bad_method
run cf_trace run "$JOB" --method closed-form --trace "$tmp/cf_trace.json"
expect_rc cf_trace 2
[ -e "$tmp/cf_trace.json" ] && fail "cf_trace: wrote a trace although it was refused"

# ---------------------------------------------------------------- traces

# listing DIR: the names in DIR (hidden ones too), sorted, each followed by a space.
listing() {
    find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort | tr '\n' ' '
}

# trace_file FILE WHAT: a Chrome trace: JSON object or array with events.
trace_file() {
    if [ ! -s "$1" ]; then
        fail "$2: $(basename "$1") not written"
        return
    fi
    case $(head -c 1 "$1") in '{' | '[') ;; *) fail "$2: $(basename "$1") does not start with { or [" ;; esac
    case $(tr -d ' \t\r\n' <"$1" | tail -c 1) in '}' | ']') ;; *) fail "$2: $(basename "$1") is cut short" ;; esac
    grep -qE '"traceEvents"|"ph":' "$1" || fail "$2: $(basename "$1") has no trace events"
    finite "$1" "$2"
}

# --trace with a reliability section: the iteration and OUT.run.json; the report unchanged.
mkdir "$tmp/tr1"
run tr1 run "$JOB" --format json --replications 20 --trace "$tmp/tr1/it.json"
expect_rc tr1 0
cmp -s "$tmp/tr1.out" "$tmp/full.out" || fail "trace: --trace changed the report"
trace_file "$tmp/tr1/it.json" trace
trace_file "$tmp/tr1/it.run.json" "trace (run)"
[ "$(listing "$tmp/tr1")" = "it.json it.run.json " ] ||
    fail "trace: files left: $(listing "$tmp/tr1")"

# --run-trace names the run timeline's file.
mkdir "$tmp/tr2"
run tr2 run "$JOB" --format json --replications 20 --trace "$tmp/tr2/a.json" --run-trace "$tmp/tr2/other.json"
expect_rc tr2 0
trace_file "$tmp/tr2/a.json" run-trace
trace_file "$tmp/tr2/other.json" "run-trace (run)"
[ "$(listing "$tmp/tr2")" = "a.json other.json " ] ||
    fail "run-trace: files left: $(listing "$tmp/tr2")"

# Without a training section: only the iteration; an existing file is replaced.
mkdir "$tmp/tr3"
echo 'not a trace' >"$tmp/tr3/it.json"
run tr3 run "$NOREL" --format json --trace "$tmp/tr3/it.json"
expect_rc tr3 0
trace_file "$tmp/tr3/it.json" "trace (no reliability)"
[ "$(listing "$tmp/tr3")" = "it.json " ] ||
    fail "trace (no reliability): files left: $(listing "$tmp/tr3")"
run tr3_run run "$NOREL" --format json --run-trace "$tmp/tr3/run.json"
expect_rc tr3_run 2
expect_in "$tmp/tr3_run.err" "training section" tr3_run

# The name is a directory: refused before the simulation (exit 2), nothing written.
mkdir -p "$tmp/tr4/isdir"
run tr4 run "$NOREL" --format json --trace "$tmp/tr4/isdir"
expect_rc tr4 2
expect_in "$tmp/tr4.err" "$tmp/tr4/isdir: is a directory" tr4
[ -s "$tmp/tr4.out" ] && fail "tr4: printed a report although the trace path was refused"
[ "$(listing "$tmp/tr4")" = "isdir " ] || fail "tr4: files left: $(listing "$tmp/tr4")"
[ -z "$(listing "$tmp/tr4/isdir")" ] || fail "tr4: files left in the directory: $(listing "$tmp/tr4/isdir")"

# ---------------------------------------------------------------- infeasible

run huge run "$HUGE" --format json
expect_rc huge 0
contract huge "${BASE_KEYS[@]}"
[ "$(json_value "$tmp/huge.out" feasible)" = false ] || fail "huge: feasible is not false"
reason=$(json_value "$tmp/huge.out" reason)
case $reason in \"*memory*\") ;; *) fail "huge: reason is $reason, expected a string about memory" ;; esac
expect_le huge memory_capacity_bytes memory_per_gpu_bytes
# A job that does not fit never runs: no Monte Carlo, no bill (the keys are null), no timeline.
for k in expected_time_to_train_s p90_time_to_train_s goodput failures_expected cost_total cost_breakdown; do
    [ "$(json_value "$tmp/huge.out" "$k")" = null ] || fail "huge: $k is $(json_value "$tmp/huge.out" "$k"), expected null"
done
run huge_table run "$HUGE" --format table
expect_rc huge_table 0
[ -s "$tmp/huge_table.out" ] || fail "huge_table: empty output"
expect_in "$tmp/huge_table.out" "not simulated (the job does not fit in memory)" huge_table
mkdir -p "$tmp/tr5"
run huge_trace run "$HUGE" --format json --trace "$tmp/tr5/it.json"
expect_rc huge_trace 0
[ "$(listing "$tmp/tr5")" = "it.json " ] || fail "huge_trace: expected only the iteration trace, got: $(listing "$tmp/tr5")"

# ---------------------------------------------------------------- bad job files

# bad NAME SED_EXPRESSION EXPECTED_MESSAGE: a copy of the job edited by sed must be
# refused with exit 2, "FILE: MESSAGE" on stderr and nothing on stdout.
bad() {
    local f=$tmp/$1.json
    sed "$2" "$JOB" >"$f"
    if cmp -s "$f" "$JOB"; then
        fail "$1: the sed expression did not change the job"
        return
    fi
    run "$1" run "$f" --format json
    expect_rc "$1" 2
    expect_in "$tmp/$1.err" "$f: $3" "$1"
    [ -s "$tmp/$1.out" ] && fail "$1: printed a result on stdout"
}
bad bad_json 's/"nodes": 2,/"nodes": 2,,/' 'malformed JSON'
bad bad_key 's/"zero": 1}/"zero": 1, "zeroo": 2}/' 'parallel.zeroo: unknown key'
bad bad_top_key 's/"global_batch"/"global_bach"/' 'global_bach: unknown key'
bad bad_cost_key 's/"gpu_hour"/"gpu_hours"/' 'cost.gpu_hours: unknown key'
# 24 GPUs, tp 3: divides the GPUs but not llama3-8b's 32 heads.
bad bad_tp 's/"nodes": 2/"gpus": 24/; s/"tp": 4, "pp": 2/"tp": 3, "pp": 1/' \
    'parallel.tp: 3 does not divide heads (32)'
bad bad_tp_type 's/"tp": 4/"tp": "four"/' 'parallel.tp: '
bad bad_recompute_tensor 's/"recompute": "selective"/"recompute": {"save": ["q", "scores"]}/' \
    'parallel.recompute.save[1]: "scores" is not a layer tensor'
bad bad_full_every 's/"recompute": "selective"/"recompute": {"full_every": 0}/' \
    'parallel.recompute.full_every: '
# an object form runs, and the result says which policy it ran
sed 's/"recompute": "selective"/"recompute": {"full_every": 2, "save": "minimal"}/' "$JOB" >"$tmp/rc.json"
run rc_policy run "$tmp/rc.json" --format json
expect_rc rc_policy 0
expect_in "$tmp/rc_policy.out" '"full_every 2, save minimal"' rc_policy
run missing run "$tmp/no-such-job.json" --format json
expect_rc missing 2
expect_in "$tmp/missing.err" "$tmp/no-such-job.json" missing
[ -s "$tmp/missing.out" ] && fail "missing: printed a result on stdout"

# ---------------------------------------------------------------- bad options

# badopt NAME TEXT ARGS...: refused with exit 2 and a message on stderr containing TEXT.
badopt() {
    local name=$1 text=$2
    shift 2
    run "$name" run "$@"
    expect_rc "$name" 2
    if [ -s "$tmp/$name.err" ]; then
        [ -n "$text" ] && expect_in "$tmp/$name.err" "$text" "$name"
    else
        fail "$name: no message on stderr"
    fi
    [ -s "$tmp/$name.out" ] && fail "$name: printed a result on stdout"
}
badopt opt_seed_x --seed "$JOB" --seed x
badopt opt_seed_neg --seed "$JOB" --seed -1
badopt opt_seed_novalue --seed "$JOB" --seed
badopt opt_reps0 --replications "$JOB" --replications 0
badopt opt_threads0 --threads "$JOB" --threads 0
badopt opt_format --format "$JOB" --format xml
badopt opt_unknown --bogus "$JOB" --bogus
badopt opt_two_files "" "$JOB" "$HUGE"
badopt opt_no_file "" --format json
run help run --help
expect_rc help 0
grep -qi usage "$tmp/help.out" || fail "help: no usage on stdout: $(head -c 200 "$tmp/help.out")"

# ---------------------------------------------------------------- unwritable outputs

# A trace path in a missing directory is refused before the simulation: exit 2, no report.
# (tests/cli_outputs.sh tries every kind of output target.)
for c in "nowrite $JOB --trace x.json" "nowrite_norel $NOREL --trace x.json" \
         "nowrite_run $JOB --run-trace r.json"; do
    set -- $c
    run "$1" run "$2" --format json --replications 20 "$3" "$tmp/no-such-dir/$4"
    expect_rc "$1" 2
    expect_in "$tmp/$1.err" "$tmp/no-such-dir/$4: the directory $tmp/no-such-dir does not exist" "$1"
    [ -s "$tmp/$1.out" ] && fail "$1: printed a report although the output path was refused"
done
[ -e "$tmp/no-such-dir" ] && fail "nowrite: created $tmp/no-such-dir"

finish
