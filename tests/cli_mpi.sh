#!/usr/bin/env bash
# `mpirun -np N trainsim sweep` and `trainsim sensitivity`: the same bytes as one process for
# N = 1, 2, 3 (table, JSON, CSV and the --csv file; only the elapsed time and the rate
# computed from it may differ),
# one message and one exit status on every error, and interruption and resume across rank
# counts. Registered only in builds with -DTS_MPI=ON; the reference is a build without MPI
# when TS_SERIAL_BIN names one (CI: the sanitized build), else this binary as one process.
# usage: tests/cli_mpi.sh path/to/trainsim
. "$(dirname "$0")/cli.bash" cli_mpi "$@"
SERIAL=${TS_SERIAL_BIN:-$BIN}

# Open MPI on one machine, in a container: shared memory only, no remote launcher, more
# ranks than cores allowed, no cross-memory attach (often denied to containers), and ranks
# that yield their core while they wait (on a busy test machine spinning slows everything).
export OMPI_MCA_btl=self,vader OMPI_MCA_plm=isolated OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_mpi_yield_when_idle=1
mpi_flags=(--oversubscribe --bind-to none)
if [ "$(id -u)" -eq 0 ]; then mpi_flags+=(--allow-run-as-root); fi
command -v mpirun >/dev/null || { echo "cli_mpi: mpirun not found (apt-get install openmpi-bin)" >&2; exit 1; }

# mpi NAME N ARGS...: mpirun -np N trainsim ARGS; stdout, stderr and $rc as `run`.
mpi() {
    local name=$1 n=$2
    shift 2
    mpirun "${mpi_flags[@]}" -np "$n" "$BIN" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
}
serial() {
    local name=$1
    shift
    "$SERIAL" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
}
# The bytes that must agree: everything but the elapsed time (JSON keys, also of each
# combination; table line 2).
stable() {
    sed -e '/^ *"elapsed_s":/d' -e 's/^\(searched [0-9]* configurations\) in .*: /\1: /' "$1"
}
same() {    # same WHAT FILE_A FILE_B
    [ -s "$2" ] || { fail "$1: $(basename "$2") is empty"; return; }
    cmp -s <(stable "$2") <(stable "$3") ||
        fail "$1: differs from one process: $(diff <(stable "$2") <(stable "$3") | head -8)"
}

QUICK="$ROOT/configs/quickstart-sweep.json"
P90="$DATA/sweep_resume/p90-sweep.json"          # finalists that miss the deadline probability
SOFT="$ROOT/configs/llama3-8b-software-sweep.json"
MISS="$DATA/search/infeasible-deadline.json"     # nothing meets: the closest miss
COST="$DATA/search/small-cost.json"

# ---------------------------------------------------------------- same bytes for any N

cd "$tmp" || exit 1
serial q_table sweep "$QUICK" --format table --no-progress
serial q_json sweep "$QUICK" --format json --no-progress --csv "$tmp/q_all.csv"
serial q_csv sweep "$QUICK" --format csv --no-progress
serial p_json sweep "$P90" --format json --no-progress --csv "$tmp/p_all.csv"
serial s_json sweep "$SOFT" --format json --no-progress
serial m_json sweep "$MISS" --format json --no-progress
serial c_ex sweep "$COST" --format json --no-progress --exhaustive
# (the count depends on the ranking; what matters is that finalists were replaced)
grep -Eq '"misses_deadline_probability":  [1-9][0-9]*' "$tmp/p_json.out" ||
    fail "the p90 sweep replaces finalists: no finalist missed the deadline probability"
expect_in "$tmp/m_json.out" '"closest_miss"' "the infeasible sweep reports a closest miss"
grep -q '"simulated":  256' "$tmp/q_json.out" || fail "the quickstart sweep prunes (256 simulated)"

for n in 1 2 3; do
    mpi q_table$n $n sweep "$QUICK" --format table --no-progress
    expect_rc q_table$n 0
    same "table, $n ranks" "$tmp/q_table.out" "$tmp/q_table$n.out"
    mpi q_json$n $n sweep "$QUICK" --format json --no-progress --csv "$tmp/q_all$n.csv"
    expect_rc q_json$n 0
    same "JSON, $n ranks" "$tmp/q_json.out" "$tmp/q_json$n.out"
    cmp -s "$tmp/q_all.csv" "$tmp/q_all$n.csv" || fail "--csv file, $n ranks: differs"
    mpi q_csv$n $n sweep "$QUICK" --format csv --no-progress
    same "CSV, $n ranks" "$tmp/q_csv.out" "$tmp/q_csv$n.out"
    [ ! -s "$tmp/q_json$n.err" ] ||
        fail "a successful sweep on $n ranks writes to stderr: $(head -c 300 "$tmp/q_json$n.err")"
    mpi p_json$n $n sweep "$P90" --format json --no-progress --csv "$tmp/p_all$n.csv"
    expect_rc p_json$n 0
    same "deadline probability, $n ranks" "$tmp/p_json.out" "$tmp/p_json$n.out"
    cmp -s "$tmp/p_all.csv" "$tmp/p_all$n.csv" || fail "p90 --csv file, $n ranks: differs"
done
for n in 2 3; do
    mpi s_json$n $n sweep "$SOFT" --format json --no-progress
    same "software profiles, $n ranks" "$tmp/s_json.out" "$tmp/s_json$n.out"
    mpi m_json$n $n sweep "$MISS" --format json --no-progress
    same "closest miss, $n ranks" "$tmp/m_json.out" "$tmp/m_json$n.out"
    mpi c_ex$n $n sweep "$COST" --format json --no-progress --exhaustive
    same "exhaustive, $n ranks" "$tmp/c_ex.out" "$tmp/c_ex$n.out"
done
# `trainsim sensitivity` (and `sweep --sensitivity`) shares its perturbed points out by index:
# the same tornado, break-evens and evaluation count (JSON, table, the --csv file) for a sweep
# and for a job on 1, 2, 3 ranks.
SENS_SWEEP="$DATA/report/tiny-sweep.json"
SENS_JOB="$DATA/report/tiny-job.json"
serial se_json sensitivity "$SENS_SWEEP" --format json --no-progress --csv "$tmp/se.csv"
expect_rc se_json 0
grep -Eq '"evaluations":  [1-9][0-9]+' "$tmp/se_json.out" || fail "sweep sensitivity: fewer than 10 points"
serial se_table sensitivity "$SENS_SWEEP" --format table --no-progress
serial sj_json sensitivity "$SENS_JOB" --format json --no-progress
expect_rc sj_json 0
serial ss_json sweep "$SENS_SWEEP" --sensitivity --format json --no-progress
expect_rc ss_json 0
for n in 1 2 3; do
    mpi se_json$n $n sensitivity "$SENS_SWEEP" --format json --no-progress --csv "$tmp/se$n.csv"
    expect_rc se_json$n 0
    same "sweep sensitivity, $n ranks" "$tmp/se_json.out" "$tmp/se_json$n.out"
    cmp -s "$tmp/se.csv" "$tmp/se$n.csv" || fail "sensitivity --csv file, $n ranks: differs"
    [ ! -s "$tmp/se_json$n.err" ] || fail "sensitivity on $n ranks writes to stderr: $(head -c 300 "$tmp/se_json$n.err")"
    mpi se_table$n $n sensitivity "$SENS_SWEEP" --format table --no-progress
    same "sensitivity table, $n ranks" "$tmp/se_table.out" "$tmp/se_table$n.out"
    mpi sj_json$n $n sensitivity "$SENS_JOB" --format json --no-progress
    expect_rc sj_json$n 0
    same "job sensitivity, $n ranks" "$tmp/sj_json.out" "$tmp/sj_json$n.out"
    mpi ss_json$n $n sweep "$SENS_SWEEP" --sensitivity --format json --no-progress
    expect_rc ss_json$n 0
    same "sweep --sensitivity, $n ranks" "$tmp/ss_json.out" "$tmp/ss_json$n.out"
done
mpi se_bad3 3 sensitivity "$tmp/no-such-file.json" --no-progress
expect_rc se_bad3 2
[ "$(grep -c 'no-such-file.json' "$tmp/se_bad3.err")" -eq 1 ] || fail "sensitivity error on 3 ranks: not one message"

# A temporary file of rank 0's atomic writes, or a file written by another rank, would show.
[ -z "$(ls "$tmp" | grep '\.tmp\.')" ] || fail "temporary files left: $(ls "$tmp" | grep '\.tmp\.')"

# ---------------------------------------------------------------- errors: one message, one status

printf '{"name": "bad", "model": "no-such-model"}\n' >"$tmp/bad.json"
serial bad sweep "$tmp/bad.json" --no-progress
want=$rc
mpi bad3 3 sweep "$tmp/bad.json" --no-progress
[ "$want" -eq 2 ] || fail "a bad sweep file exits 2 in one process (got $want)"
expect_rc bad3 2
[ "$(grep -c '^trainsim' "$tmp/bad3.err")" -eq 1 ] ||
    fail "a bad sweep file on 3 ranks: not exactly one message: $(head -c 400 "$tmp/bad3.err")"
grep -qF "$(head -1 "$tmp/bad.err")" "$tmp/bad3.err" || fail "a bad sweep file: another message on 3 ranks"
mpi badcsv 2 sweep "$QUICK" --no-progress --csv "$tmp/no/such/dir/all.csv"
expect_rc badcsv 2
[ "$(grep -c -- '--csv' "$tmp/badcsv.err")" -eq 1 ] || fail "an unwritable --csv on 2 ranks: not one message"

# A rank that cannot read its input (here, by mpirun's MPMD syntax, ranks 1 and 2 are given
# a missing file): every rank stops before the sweep with rank 1's status, rank 0 says why.
mpirun "${mpi_flags[@]}" -np 1 "$BIN" sweep "$QUICK" --no-progress : -np 2 "$BIN" sweep \
    "$tmp/missing.json" --no-progress >"$tmp/asym.out" 2>"$tmp/asym.err"
rc=$?
expect_rc asym 2
expect_in "$tmp/asym.err" "another MPI rank could not set up the sweep (status 2)" "input missing on some ranks"
[ ! -s "$tmp/asym.out" ] || fail "input missing on some ranks: an answer was printed"

# ---------------------------------------------------------------- interruption and resume

serial full sweep "$P90" --exhaustive --format json --no-progress
# Stopped after 2 batches on 3 ranks: 130 from every rank, one partial file from rank 0.
TRAINSIM_TEST_STOP_AFTER_BATCHES=2 mpi stop3 3 sweep "$P90" --exhaustive --format json --no-progress
expect_rc stop3 130
[ ! -s "$tmp/stop3.out" ] || fail "a stopped sweep on 3 ranks prints an answer"
expect_in "$tmp/p90-sweep.partial.json" '"trainsim_partial_sweep": 2' "3-rank partial file is marked"
[ "$(grep -c 'interrupted by' "$tmp/stop3.err")" -eq 1 ] || fail "a stopped sweep: not one message"
[ "$(grep -c '"layout"' "$tmp/p90-sweep.partial.json")" -eq 512 ] ||
    fail "the 3-rank partial file does not hold every rank's 2 x 256 simulated layouts"
# Resumed on 2 ranks (stopped once more on the way), then on 1 and in one process.
TRAINSIM_TEST_STOP_AFTER_BATCHES=2 mpi stop2 2 sweep "$P90" --exhaustive --no-progress \
    --resume p90-sweep.partial.json --partial second.json
expect_rc stop2 130
[ "$(grep -c '"layout"' second.json)" -eq 1024 ] || fail "the resumed 2-rank partial file holds 1024 layouts"
mpi res1 1 sweep "$P90" --exhaustive --format json --no-progress --resume second.json
expect_rc res1 0
same "resumed on 1 rank after 3 then 2" "$tmp/full.out" "$tmp/res1.out"
mpi res3 3 sweep "$P90" --exhaustive --format json --no-progress --resume p90-sweep.partial.json
same "resumed on 3 ranks" "$tmp/full.out" "$tmp/res3.out"
serial res0 sweep "$P90" --exhaustive --format json --no-progress --resume second.json
same "an MPI partial file resumed in one process" "$tmp/full.out" "$tmp/res0.out"
# Stopped in the finalists' Monte Carlo (after 3 of them) on 2 ranks, resumed on 3.
TRAINSIM_TEST_STOP_AFTER_FINALISTS=3 mpi fin2 2 sweep "$P90" --format json --no-progress --partial fin.json
expect_rc fin2 130
# Outcomes are ["pricing", meets, monte_carlo, mc_failed, ...] in the partial file.
mc_runs() { grep -oE '\["[a-z_-]+", (true|false), true,' "$1" | wc -l; }
[ "$(mc_runs fin.json)" -eq 3 ] ||
    fail "a stop after 3 finalists on 2 ranks keeps 3 Monte Carlo runs, not $(mc_runs fin.json)"
serial pfull sweep "$P90" --format json --no-progress
mpi fin3 3 sweep "$P90" --format json --no-progress --resume fin.json
same "resumed after the finalists' stop" "$tmp/pfull.out" "$tmp/fin3.out"

# A real signal to mpirun (which forwards SIGTERM to every rank): rank 0 saves every rank's
# work. mpirun itself then exits non-zero with a status of its own choosing. The ranks get
# 5 s (not the default 1 s) to save it before mpirun kills them, for slow test machines.
BIG="$ROOT/configs/gpt3-175b-layout-sweep.json"
OMPI_MCA_odls_base_sigkill_timeout=5 mpirun "${mpi_flags[@]}" -np 2 "$BIN" sweep "$BIG" --exhaustive --threads 1 --no-progress \
    --partial big.json >/dev/null 2>"$tmp/sig.err" &
pid=$!
# Until both ranks catch SIGTERM (bit 15 of SigCgt: the sweep has started), then a little.
catching() {
    local n=0 c
    for child in $(pgrep -P "$pid" trainsim); do
        c=$(awk '/^SigCgt/ {print $2}' "/proc/$child/status" 2>/dev/null)
        [ -n "$c" ] && [ $(( 0x$c & 0x4000 )) -ne 0 ] && n=$((n + 1))
    done
    [ "$n" -ge 2 ]
}
for _ in $(seq 600); do
    catching && break
    sleep 0.1
done
sleep 2
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -ne 0 ] || fail "SIGTERM to mpirun: exit status 0"
expect_in "$tmp/sig.err" "interrupted by SIGTERM" "SIGTERM to mpirun: the ranks stop"
expect_in "$tmp/big.json" '"trainsim_partial_sweep": 2' "SIGTERM to mpirun: a marked partial file"
[ -z "$(ls "$tmp" | grep '\.tmp\.')" ] || fail "SIGTERM to mpirun leaves a temporary file"
TRAINSIM_TEST_STOP_AFTER_BATCHES=1 mpi sigres 3 sweep "$BIG" --exhaustive --no-progress \
    --resume big.json --partial big2.json
expect_rc sigres 130
[ "$(grep -c '"layout"' big2.json)" -gt "$(grep -c '"layout"' big.json)" ] ||
    fail "the SIGTERM partial file resumes on 3 ranks and grows"

finish
