#!/usr/bin/env bash
# Memory checking without sanitizers: every cmocka test and every CLI test script runs under
#   valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite
# on a plain build (build-valgrind). Any valgrind error or definite leak fails the run.
#
# usage: tests/valgrind.sh [TEST_NAME_REGEX]     (default: all tests)
# environment: BUILD=DIR (default build-valgrind), VALGRIND_TIMEOUT=seconds per test (1200),
#              VALGRIND_JOBS=N tests at a time (default: the number of cores)
#
# Tests see TS_VALGRIND=1 and may walk fewer random cases (test_properties does). The CLI
# scripts get a wrapper that runs trainsim under valgrind. test_calibrate's timing checks
# measure real GEMMs, meaningless at valgrind speed: it is skipped (the ASan run covers it).
# cli_sweep_signals, cli_whatif, cli_report and test_sensitivity are left to the sanitizer run
# unless named. Prints "N passed, N failed" and exits 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${BUILD:-build-valgrind}
filter=${1:-.}
limit=${VALGRIND_TIMEOUT:-1200}
skip='^test_calibrate$'
# Long under valgrind (they re-run whole sweeps dozens of times, or wait on signals and
# external programs) and run in full under the sanitizers, whose run covers the same code:
# the CI budget keeps them out of this pass. Run them here by name when their code changes.
skip_cli='^(cli_sweep_signals|cli_whatif|cli_report)$'

if ! command -v valgrind >/dev/null 2>&1; then
    echo "tests/valgrind.sh: valgrind is missing (apt-get install valgrind)" >&2
    exit 2
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTS_SANITIZE=OFF >/dev/null &&
    cmake --build "$build" -j"$(nproc)" >/dev/null || { echo "tests/valgrind.sh: build failed" >&2; exit 2; }
build=$(cd "$build" && pwd)
logs="$build/valgrind-logs"
rm -rf "$logs"
mkdir -p "$logs"
chmod 1777 "$logs"  # tests/cli_outputs.sh runs trainsim as an unprivileged user too

vg=(valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite
    --show-leak-kinds=definite --track-origins=yes --quiet)
wrapper="$build/trainsim-valgrind"
cat >"$wrapper" <<EOF
#!/usr/bin/env bash
exec ${vg[*]} --log-file="$logs/trainsim.%p.log" "$build/sim/trainsim" "\$@"
EOF
chmod +x "$wrapper"

export TRAINSIM_HOME="$root" TS_TEST_DATA="$root/tests/data" TRAINSIM_BIN="$wrapper" TS_VALGRIND=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
# Threads that spin while waiting only burn valgrind's one serialized core.
export OMP_WAIT_POLICY=passive OPENBLAS_NUM_THREADS=1
jobs=${VALGRIND_JOBS:-$(nproc)}
start=$(date +%s)
# run NAME COMMAND...: one test in the background; its verdict goes to $logs/NAME.verdict.
run() {
    local name=$1 t0 rc
    shift
    t0=$(date +%s)
    timeout "$limit" "$@" >"$logs/$name.out" 2>&1
    rc=$?
    echo "$rc $(( $(date +%s) - t0 ))" >"$logs/$name.verdict"
}
names=()
launch() {     # launch NAME COMMAND...: start it once fewer than $jobs run
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n 2>/dev/null || sleep 1
    done
    names+=("$1")
    run "$@" &
}

for exe in "$build"/tests/test_*; do
    name=$(basename "$exe")
    [[ -x $exe && $name =~ $filter ]] || continue
    if [[ $name =~ $skip ]]; then
        echo "skip  $name (timing checks of real GEMMs)"
        continue
    fi
    if [[ $name == test_sensitivity && $filter == . ]]; then
        echo "skip  $name (long under valgrind; the sanitizer run executes it)"
        continue
    fi
    launch "$name" "${vg[@]}" "$exe"
done
for script in tests/cli_*.sh; do
    name=$(basename "$script" .sh)
    [[ $name =~ $filter ]] || continue
    [ "$name" = cli_mpi ] && continue   # needs a build with -DTS_MPI=ON; this one has none
    if [[ $name =~ $skip_cli && $filter == . ]]; then
        echo "skip  $name (long under valgrind; the sanitizer run executes it)"
        continue
    fi
    launch "$name" bash "$script" "$wrapper"
done
wait
passed=0
failed=0
for name in "${names[@]}"; do
    read -r rc secs <"$logs/$name.verdict"
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        printf 'ok    %-28s %4d s\n' "$name" "$secs"
    else
        failed=$((failed + 1))
        printf 'FAIL  %-28s %4d s (exit %d; %s)\n' "$name" "$secs" "$rc" "$logs/$name.out"
        tail -30 "$logs/$name.out"
    fi
done
# The CLI scripts' trainsim runs log to files: any report there is a failure.
bad=$(grep -l -E 'ERROR SUMMARY: [1-9]|definitely lost: [1-9]|Invalid (read|write)|uninitialised' \
      "$logs"/trainsim.*.log 2>/dev/null | head -5)
if [ -n "$bad" ]; then
    failed=$((failed + 1))
    echo "FAIL  trainsim under the CLI scripts: valgrind reports in"
    echo "$bad"
    head -40 $bad
fi
# The process logs are empty when valgrind found nothing (--quiet).
nonempty=$(find "$logs" -name 'trainsim.*.log' -size +0 | head -5)
if [ -n "$nonempty" ] && [ -z "$bad" ]; then
    failed=$((failed + 1))
    echo "FAIL  valgrind wrote reports for trainsim:"
    head -40 $nonempty
fi
echo "valgrind: $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
