#!/usr/bin/env bash
# Command-line tests of `trainsim sweep` (DESIGN.md section 4): the same bytes of JSON for
# one and two threads, the same top-k and Pareto front with and without pruning, the
# contract keys, an unreachable deadline (exit 0, "best": null, the closest miss named),
# bad sweep files and bad options (exit 2, file and JSON path on stderr), the CSV dump
# (--csv: one row per screened layout, written atomically; exit 1 when it cannot be
# written), --format csv and --top.
#
# usage: bash tests/cli_sweep.sh path/to/trainsim   (ctest passes the built binary)
# Needs bash, coreutils, grep, sed and cmp/diff (no python, no jq).
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_sweep "$@"
DATA=$DATA/search
SMALL=$DATA/small-cost.json         # 2 pricings; top 5

# A JSON report without its elapsed_s line (the one value that depends on the machine).
without_elapsed() {
    grep -v '^  "elapsed_s":' "$1"
}

# A top-level number of a JSON report, e.g. json_number file evaluated.
json_number() {
    sed -n "s/^  \"$2\": *\\([0-9][0-9.e+]*\\).*/\\1/p" "$1"
}

# ---------------------------------------------------------------- thread count

# Same sweep on one and two threads: the same bytes (by --threads, and by OMP_NUM_THREADS).
OMP_NUM_THREADS=1 run t1 sweep "$SMALL" --format json --no-progress --threads 1
expect_rc t1 0
OMP_NUM_THREADS=2 run t2 sweep "$SMALL" --format json --no-progress --threads 2
expect_rc t2 0
OMP_NUM_THREADS=1 run o1 sweep "$SMALL" --format json --no-progress
expect_rc o1 0
OMP_NUM_THREADS=2 run o2 sweep "$SMALL" --format json --no-progress
expect_rc o2 0
without_elapsed "$tmp/t1.out" >"$tmp/t1.json"
without_elapsed "$tmp/t2.out" >"$tmp/t2.json"
without_elapsed "$tmp/o1.out" >"$tmp/o1.json"
without_elapsed "$tmp/o2.out" >"$tmp/o2.json"
[ -s "$tmp/t1.json" ] || fail "threads: empty JSON"
cmp -s "$tmp/t1.json" "$tmp/t2.json" || fail "threads: --threads 1 and --threads 2 give different JSON:
$(diff "$tmp/t1.json" "$tmp/t2.json" | head -20)"
cmp -s "$tmp/o1.json" "$tmp/o2.json" || fail "threads: OMP_NUM_THREADS=1 and 2 give different JSON"
cmp -s "$tmp/t1.json" "$tmp/o1.json" || fail "threads: --threads 1 and OMP_NUM_THREADS=1 differ"
# Only elapsed_s was removed.
[ "$(wc -l <"$tmp/t1.out")" -eq $(($(wc -l <"$tmp/t1.json") + 1)) ] || fail "threads: elapsed_s line not found"

# ---------------------------------------------------------------- pruning

# --exhaustive simulates every layout that fits: the same top-k and front, more simulations.
run ex sweep "$SMALL" --format json --no-progress --exhaustive
expect_rc ex 0
sed -n '/^  "top":/,/^  "enumerated":/p' "$tmp/t1.out" >"$tmp/t1.top"
sed -n '/^  "top":/,/^  "enumerated":/p' "$tmp/ex.out" >"$tmp/ex.top"
grep -q '"pareto"' "$tmp/t1.top" || fail "pruning: no top/pareto section found"
cmp -s "$tmp/t1.top" "$tmp/ex.top" || fail "pruning: top and pareto differ from --exhaustive:
$(diff "$tmp/t1.top" "$tmp/ex.top" | head -20)"
sim_pruned=$(json_number "$tmp/t1.out" simulated)
sim_ex=$(json_number "$tmp/ex.out" simulated)
[ -n "$sim_pruned" ] && [ -n "$sim_ex" ] && [ "$sim_pruned" -lt "$sim_ex" ] ||
    fail "pruning: simulated $sim_pruned with pruning, $sim_ex without"
grep -q '^    "pruned_by_bound":  *0,' "$tmp/ex.out" || fail "pruning: --exhaustive pruned something"

# ---------------------------------------------------------------- contract keys

for k in found best top pareto evaluated feasible rejected elapsed_s; do
    grep -q "^  \"$k\":" "$tmp/t1.out" || fail "contract: top-level key \"$k\" missing"
done
grep -q '^  "found":  *true,' "$tmp/t1.out" || fail "contract: found is not true"
grep -q '^  "best":  *{' "$tmp/t1.out" || fail "contract: best is not an object"
sed -n '/^  "best":/,/^  }/p' "$tmp/t1.out" >"$tmp/best.json"
for k in feasible iteration_time_s tokens_per_s mfu memory_per_gpu_bytes time_to_train_s \
    expected_time_to_train_s p90_time_to_train_s goodput failures_expected cost_total cost_breakdown; do
    grep -q "^    \"$k\":" "$tmp/best.json" || fail "contract: best.$k missing"
done
sed -n '/^  "rejected":/,/^  }/p' "$tmp/t1.out" >"$tmp/rejected.json"
for k in divisibility memory constraint_unreachable pruned_by_bound misses_deadline_probability; do
    grep -q "^    \"$k\":  *[0-9]" "$tmp/rejected.json" || fail "contract: rejected.$k missing"
done

# ---------------------------------------------------------------- unreachable constraint

INF=$DATA/infeasible-deadline.json
run inf sweep "$INF" --format json --no-progress
expect_rc inf 0
grep -q '^  "found":  *false,' "$tmp/inf.out" || fail "infeasible: found is not false"
grep -q '^  "best":  *null,' "$tmp/inf.out" || fail "infeasible: best is not null"
expect_in "$tmp/inf.out" '"message":  "no configuration meets the constraint (done within 60 min (expected))' infeasible
expect_in "$tmp/inf.out" '(4 x dgx-h100 nodes)' infeasible
grep -q '^  "closest_miss":  *{' "$tmp/inf.out" || fail "infeasible: no closest_miss"
run inft sweep "$INF" --format table --no-progress
expect_rc inft 0
expect_in "$tmp/inft.out" 'no configuration meets the constraint' "infeasible table"
expect_in "$tmp/inft.out" '(4 x dgx-h100 nodes)' "infeasible table"

# ---------------------------------------------------------------- bad sweep files

# bad NAME SED_EXPRESSION EXPECTED_MESSAGE: a copy of the small sweep edited by sed must be
# refused with exit 2 and "FILE: MESSAGE" on stderr.
bad() {
    local f=$tmp/$1.json
    sed "$2" "$SMALL" >"$f"
    if cmp -s "$f" "$SMALL"; then
        fail "$1: the sed expression did not change the sweep"
        return
    fi
    run "$1" sweep "$f" --format json --no-progress
    expect_rc "$1" 2
    expect_in "$tmp/$1.err" "$f: $3" "$1"
    [ -s "$tmp/$1.out" ] && fail "$1: printed a result on stdout"
}
bad bad_key 's/"tokens":/"tokenz":/' 'tokenz: unknown key'
bad bad_dp 's/"cp": 1,/"cp": 1, "dp": 2,/' 'parallel: "dp" is derived for each configuration'
bad bad_empty 's/"nodes": \[1, 2, 4\]/"nodes": []/' 'nodes: an empty list searches nothing'
bad bad_pow2 's/"nodes": \[1, 2, 4\]/"nodes": {"from": 3, "to": 12, "powers_of_two": true}/' \
    'nodes: "from" (3) is not a power of two'
bad bad_range 's/"nodes": \[1, 2, 4\]/"nodes": {"from": 4, "to": 2}/' 'nodes: "to" (2) is below "from" (4)'
bad bad_both 's/"deadline": "20 d"/"deadline": "20 d", "min_tokens_per_s": 1e6/' \
    'constraint: give min_tokens_per_s or deadline, not both'
bad bad_prob 's/"deadline": "20 d"/"min_tokens_per_s": 1e6, "probability": 0.9/' \
    'constraint.probability: a probability applies to a deadline'
bad bad_system 's/"by_system": {"dgx-h100"/"by_system": {"dgx-b200"/' \
    "cost.by_system.dgx-b200: not one of the sweep's systems"
bad bad_price 's/"pricing": \["on_demand", "spot"\]/"pricing": ["on_demand", "reserved"]/' \
    'pricing: no system has a reserved price'
bad bad_tp 's/"tp": \[1, 2, 4, 8\]/"tp": [1, 2, 2]/' 'parallel.tp[2]: value 2 appears twice'
bad bad_sched 's/"schedule": "auto"/"schedule": "zigzag"/' 'parallel.schedule: "zigzag" is not one of'
bad bad_json 's/"top": 5/"top": 5,,/' ''
sed 's/"cost": {"gpu_hour": {"on_demand": 3.0}},//' "$INF" >"$tmp/bad_nocost.json"
run bad_nocost sweep "$tmp/bad_nocost.json" --no-progress
expect_rc bad_nocost 2
expect_in "$tmp/bad_nocost.err" "$tmp/bad_nocost.json: cost: the objective \"cost\" needs a cost section" bad_nocost

# ---------------------------------------------------------------- bad options

# badopt NAME ARGS...: refused with exit 2 and a message on stderr.
badopt() {
    local name=$1
    shift
    run "$name" sweep "$@"
    expect_rc "$name" 2
    [ -s "$tmp/$name.err" ] || fail "$name: no message on stderr"
}
badopt opt_threads0 "$SMALL" --threads 0
badopt opt_threadsx "$SMALL" --threads two
badopt opt_top0 "$SMALL" --top 0
badopt opt_unknown "$SMALL" --bogus
badopt opt_format "$SMALL" --format xml
badopt opt_csv_value "$SMALL" --csv
badopt opt_missing_file "$tmp/no-such-sweep.json"
expect_in "$tmp/opt_missing_file.err" "$tmp/no-such-sweep.json" opt_missing_file
badopt opt_no_file --format json
badopt opt_two_files "$SMALL" "$INF"
run help sweep --help
expect_rc help 0
expect_in "$tmp/help.out" 'usage: trainsim sweep FILE' help

# ---------------------------------------------------------------- CSV

mkdir "$tmp/csv"
run csv sweep "$SMALL" --format json --no-progress --csv "$tmp/csv/all.csv"
expect_rc csv 0
without_elapsed "$tmp/csv.out" >"$tmp/csv.json"
cmp -s "$tmp/csv.json" "$tmp/t1.json" || fail "csv: --csv changed the report"
header='system,nodes,gpus,global_batch,tp,pp,dp,cp,microbatch,schedule,virtual_stages,sequence_parallel,recompute,zero,tp_comm_overlap,status,memory_gib,bound_time_s,bound_cost_usd,pricing,iteration_s,tokens_per_s,mfu,time_to_train_s,estimated_time_to_train_s,cost_usd,meets,why,software'
[ "$(head -n 1 "$tmp/csv/all.csv")" = "$header" ] || fail "csv: header is $(head -n 1 "$tmp/csv/all.csv")"
evaluated=$(json_number "$tmp/csv.out" evaluated)
simulated=$(json_number "$tmp/csv.out" simulated)
# Two pricings: each screened layout once, plus a second row per simulated layout.
want_rows=$((evaluated / 2 + simulated))
rows=$(($(wc -l <"$tmp/csv/all.csv") - 1))
[ "$rows" -eq "$want_rows" ] || fail "csv: $rows rows, expected $want_rows (evaluated $evaluated, simulated $simulated)"
sim_rows=$(grep -c ',simulated,' "$tmp/csv/all.csv")
[ "$sim_rows" -eq $((2 * simulated)) ] || fail "csv: $sim_rows simulated rows, expected $((2 * simulated))"
[ "$(ls -A "$tmp/csv")" = "all.csv" ] || fail "csv: leftover files: $(ls -A "$tmp/csv")"
run csv_unwritable sweep "$SMALL" --format json --no-progress --csv "$tmp/no-such-dir/all.csv"
expect_rc csv_unwritable 2
expect_in "$tmp/csv_unwritable.err" "--csv: $tmp/no-such-dir/all.csv: the directory" csv_unwritable
[ -s "$tmp/csv_unwritable.out" ] && fail "csv_unwritable: the sweep ran although --csv was refused"

# --format csv: the top K, one row each after a header; --top overrides the file's top.
run fcsv sweep "$SMALL" --format csv --no-progress --top 2
expect_rc fcsv 0
[ "$(wc -l <"$tmp/fcsv.out")" -eq 3 ] || fail "format csv --top 2: $(wc -l <"$tmp/fcsv.out") lines, expected 3"
head -n 1 "$tmp/fcsv.out" | grep -q '^system,nodes,gpus,pricing,' || fail "format csv: bad header"
sed -n 2p "$tmp/fcsv.out" | grep -q ',1,megatron-core$' || fail "format csv: first row is not rank 1 (then the profile)"

finish
