#!/usr/bin/env bash
# Scaling of a sweep (or of a sensitivity analysis) over MPI ranks: runs
# `mpirun -np N trainsim COMMAND SWEEP` for N in RANKS (default "1 2 4"), each rank pinned to
# THREADS OpenMP threads (default 1: OMP_NUM_THREADS and --threads, so N ranks use N cores),
# plus one process of 1 rank x 2 threads for comparison; checks that every run gives the
# bytes of the first (elapsed_s aside), and prints per run: wall time, speedup, efficiency
# T1 / (N x TN) (N: the cores asked for, ranks x threads), the CPU time (user + system) of
# each rank, and the CPU of all ranks against the first run (the work sharding adds:
# replicated steps, exchanges, waiting in collectives). Runs that ask for more cores than the
# machine has are marked oversubscribed: their efficiency measures sharing, not scaling.
# Timings are figures to read, never pass/fail checks.
#
# usage: experiments/benchmarks/mpi-scaling.sh
# environment: TRAINSIM (default build-mpi/sim/trainsim, built with -DTS_MPI=ON if missing),
#              COMMAND (sweep | sensitivity | "sweep --sensitivity"; default sweep),
#              SWEEP (default mpi-scaling-sweep.json beside this script: 10.5 M configurations),
#              RANKS, THREADS, THREADS_LINE (default 1: the 1 rank x 2 threads run; 0: none),
#              YIELD (default 1), MPIRUN_FLAGS (extra mpirun options)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TRAINSIM=${TRAINSIM:-$ROOT/build-mpi/sim/trainsim}
SWEEP=${SWEEP:-$HERE/mpi-scaling-sweep.json}
COMMAND=${COMMAND:-sweep}
RANKS=${RANKS:-1 2 4}
THREADS=${THREADS:-1}
THREADS_LINE=${THREADS_LINE:-1}
OUT=$HERE/out/mpi-scaling
mkdir -p "$OUT"
if [ ! -x "$TRAINSIM" ]; then
    cmake -S "$ROOT" -B "$ROOT/build-mpi" -DCMAKE_BUILD_TYPE=Release -DTS_MPI=ON >/dev/null
    cmake --build "$ROOT/build-mpi" -j"$(nproc)" >/dev/null
fi
command -v mpirun >/dev/null || { echo "mpirun not found: sudo apt-get install openmpi-bin libopenmpi-dev" >&2; exit 1; }
# One machine: shared memory, no remote launcher; ranks may outnumber cores (oversubscribed),
# and are not bound to cores so that THREADS > 1 can use more than one. A rank waiting in a
# collective yields its core (by default Open MPI spins, which on a shared or oversubscribed
# machine takes the core from the rank being waited for); YIELD=0 measures the default.
export OMPI_MCA_btl=self,vader OMPI_MCA_plm=isolated OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_mpi_yield_when_idle=${YIELD:-1}
flags=(--oversubscribe --bind-to none)
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
# shellcheck disable=SC2206
flags+=(${MPIRUN_FLAGS:-})
export OMP_WAIT_POLICY=passive OPENBLAS_NUM_THREADS=1
cores=$(nproc)

# shellcheck disable=SC2206
cmd=($COMMAND)
extra=()
[ "${cmd[0]}" = sweep ] && extra=(--max-configs 100000000)
configs=$("$TRAINSIM" sweep "$SWEEP" --max-configs 1 2>&1 | grep -o 'enumerates [0-9]*' | grep -o '[0-9]*' || true)
echo "trainsim ${cmd[*]} $(basename "$SWEEP"): ${configs:-?} configurations; $cores cores," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg) before"
printf '| ranks x threads | wall time | speedup | efficiency T1/(N x TN) | CPU per rank (user + sys) | CPU all ranks vs first | note |\n'
printf '|---|---|---|---|---|---|---|\n'
runs=()
for n in $RANKS; do runs+=("$n $THREADS"); done
[ "$THREADS_LINE" = 1 ] && runs+=("1 2")
t1="" c1="" first=""
for r in "${runs[@]}"; do
    read -r n t <<<"$r"
    tag="${n}x$t"
    rm -f "$OUT/cpu-$tag".*
    # Each rank under /usr/bin/time, its file named by its rank.
    start=$(date +%s.%N)
    OMP_NUM_THREADS=$t mpirun "${flags[@]}" -x OMP_NUM_THREADS -np "$n" \
        sh -c 'exec /usr/bin/time -f "%U %S" -o "$0.${OMPI_COMM_WORLD_RANK:-0}" "$@"' "$OUT/cpu-$tag" \
        "$TRAINSIM" "${cmd[@]}" "$SWEEP" "${extra[@]}" --threads "$t" --format json --no-progress \
        >"$OUT/$tag.json" 2>"$OUT/$tag.err"
    wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    grep -v '^ *"elapsed_s":' "$OUT/$tag.json" >"$OUT/$tag.stable.json"
    if [ -z "$first" ]; then
        first=$tag
    elif ! cmp -s "$OUT/$first.stable.json" "$OUT/$tag.stable.json"; then
        echo "$tag: output differs from $first" >&2
        exit 1
    fi
    per=$(for k in $(seq 0 $((n - 1))); do awk '{ printf "%.1f", $1 + $2 }' "$OUT/cpu-$tag.$k"; echo; done | paste -sd/ -)
    cpu=$(cat "$OUT/cpu-$tag".* | awk '{ s += $1 + $2 } END { print s }')
    [ -z "$t1" ] && { t1=$wall; c1=$cpu; }
    note=""
    [ $((n * t)) -gt "$cores" ] && note="oversubscribed: $((n * t)) threads on $cores cores"
    awk -v n="$n" -v t="$t" -v w="$wall" -v t1="$t1" -v c="$cpu" -v c1="$c1" -v per="$per" -v note="$note" 'BEGIN {
        sp = t1 / w; printf "| %d x %d | %.1f s | %.2f | %.0f%% | %s s | %.2f | %s |\n",
                            n, t, w, sp, 100 * sp / (n * t), per, c / c1, note }'
done
echo "outputs identical (elapsed_s aside); load average $(cut -d' ' -f1-3 /proc/loadavg) after; files in $OUT"
