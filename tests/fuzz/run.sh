#!/usr/bin/env bash
# Fuzz every input entry point of trainsim with libFuzzer for a fixed time each, then print a
# table: harness, executions, crashes/timeouts found, corpus size.
#
# usage: tests/fuzz/run.sh [SECONDS_PER_HARNESS] [HARNESS...]
#   SECONDS_PER_HARNESS  default 60
#   HARNESS              model accel system job sweep units cli hf skypilot nccl gemmcsv
#                        software prices new (default: all)
# environment:
#   JOBS=N        harnesses run N at a time (default 1)
#   BUILD=DIR     build directory (default build-fuzz)
#   FUZZ_ARGS     extra libFuzzer flags
#
# Builds with clang (installs Debian's clang when missing and running as root) into build-fuzz
# with -DTS_FUZZ=ON (libFuzzer + ASan + UBSan). Seeds: the committed tests/fuzz/corpus/<harness>
# plus the catalogue (models/, hardware/, configs/) and tests/data/hf; the corpus each run grows is kept in
# BUILD/corpus/<harness> and reused by the next run. Findings land in BUILD/findings/<harness>
# (crash-*, timeout-*, leak-*, oom-*): reproduce one with BUILD/tests/fuzz/fuzz_<harness> FILE,
# then save it under tests/data/fuzz/<harness>/ so tests/test_fuzz_regressions.c replays it.
# Exit status: 0 when no harness found anything, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

seconds=${1:-60}
shift || true
all=(model accel system job sweep units cli hf skypilot nccl gemmcsv software prices new)
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all[@]}")
build=${BUILD:-build-fuzz}
jobs=${JOBS:-1}

if ! command -v clang >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null
    else
        echo "tests/fuzz/run.sh: clang is missing (apt-get install clang)" >&2
        exit 2
    fi
fi

mkdir -p "$build"
build=$(cd "$build" && pwd)     # absolute: the cli target changes directory while it runs
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DTS_FUZZ=ON -DTS_TESTS=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/cmake.log" 2>&1 ||
    { cat "$build/cmake.log" >&2; exit 2; }
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >"$build/build.log" 2>&1 ||
    { tail -50 "$build/build.log" >&2; exit 2; }

# Seeds from the catalogue for each JSON harness (read-only corpus directories).
seeds_for() {
    case $1 in
    model) echo "models" ;;
    accel) echo "hardware/accelerators" ;;
    system) echo "hardware/systems" ;;
    job) echo "configs configs/validation" ;;
    sweep) echo "configs" ;;
    hf) echo "tests/data/hf" ;;
    software) echo "configs/software" ;;
    prices) echo "configs/prices" ;;
    *) echo "" ;;
    esac
}

fuzz_one() {
    local h=$1
    local work="$build/corpus/$h" findings="$build/findings/$h" log="$build/logs/$h.log"
    mkdir -p "$work" "$findings" "$build/logs"
    local dirs=("$work" "tests/fuzz/corpus/$h")
    for d in $(seeds_for "$h"); do dirs+=("$d"); done
    local exe="$build/tests/fuzz/fuzz_$h"
    # -close_fd_mask=2: the target's own stderr (error messages of bad inputs) is dropped;
    # libFuzzer and the sanitizers still report on a copy of stderr.
    # shellcheck disable=SC2086
    "$exe" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=16384 \
        -close_fd_mask=2 -print_final_stats=1 -dict=tests/fuzz/trainsim.dict \
        -artifact_prefix="$findings/" ${FUZZ_ARGS:-} "${dirs[@]}" >"$log" 2>&1 || true
}

start=$(date +%s)
marker="$build/.fuzz-start"
touch "$marker"     # findings newer than this are this run's
running=0
for h in "${harnesses[@]}"; do
    fuzz_one "$h" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait

status=0
printf '%-8s %14s %8s %8s %8s %7s  %s\n' harness executions crashes timeouts other corpus notes
for h in "${harnesses[@]}"; do
    log="$build/logs/$h.log"
    findings="$build/findings/$h"
    execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' | tail -1)
    [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    crashes=$(find "$findings" -name 'crash-*' -newer "$marker" | wc -l)
    timeouts=$(find "$findings" -name 'timeout-*' -newer "$marker" | wc -l)
    other=$(find "$findings" \( -name 'leak-*' -o -name 'oom-*' \) -newer "$marker" | wc -l)
    corpus=$(find "$build/corpus/$h" -type f | wc -l)
    notes=""
    if grep -q 'ERROR: libFuzzer\|ERROR: AddressSanitizer\|runtime error:\|fuzz invariant broken' "$log"; then
        notes="see $log"
    fi
    if [ $((crashes + timeouts + other)) -gt 0 ] || [ -n "$notes" ]; then status=1; fi
    printf '%-8s %14s %8d %8d %8d %7d  %s\n' "$h" "${execs:-0}" "$crashes" "$timeouts" "$other" "$corpus" "$notes"
done
echo "fuzzed ${#harnesses[@]} harness(es) for ${seconds} s each in $(( $(date +%s) - start )) s (findings under $build/findings)"
exit $status
