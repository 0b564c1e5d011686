#!/usr/bin/env bash
# Scaling of a sweep over MPI ranks: runs `mpirun -np N trainsim sweep` for N in RANKS
# (default "1 2 4") on SWEEP (default mpi-scaling-sweep.json beside this script: 10.5 M
# configurations), each rank with THREADS OpenMP threads (default 1), checks that every N
# gives the bytes of N = 1 (elapsed_s aside), and prints per N: wall time, speedup and
# parallel efficiency T1 / (N x TN), and the CPU time of all ranks together (user + system)
# with its ratio to N = 1 (the work the sharding adds: replicated steps, exchanges, waiting
# in collectives that spins). Timings are figures to read, never pass/fail checks.
#
# usage: experiments/benchmarks/mpi-scaling.sh
# environment: TRAINSIM (default build-mpi/sim/trainsim, built with -DTS_MPI=ON if missing),
#              RANKS, THREADS, SWEEP, YIELD (default 1), MPIRUN_FLAGS (extra mpirun options)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TRAINSIM=${TRAINSIM:-$ROOT/build-mpi/sim/trainsim}
SWEEP=${SWEEP:-$HERE/mpi-scaling-sweep.json}
RANKS=${RANKS:-1 2 4}
THREADS=${THREADS:-1}
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

configs=$("$TRAINSIM" sweep "$SWEEP" --max-configs 1 2>&1 | grep -o 'enumerates [0-9]*' | grep -o '[0-9]*' || true)
echo "sweep: $(basename "$SWEEP"), ${configs:-?} configurations; $THREADS thread(s) per rank;" \
     "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| ranks | wall time | speedup | efficiency | CPU time, all ranks | CPU vs 1 rank |\n'
printf '|---|---|---|---|---|---|\n'
TIMEFORMAT='%R %U %S'
t1=""
c1=""
for n in $RANKS; do
    times=$( { time mpirun "${flags[@]}" -np "$n" "$TRAINSIM" sweep "$SWEEP" --max-configs 100000000 \
                 --threads "$THREADS" --format json --no-progress >"$OUT/ranks$n.json" 2>"$OUT/ranks$n.err"; } 2>&1 )
    read -r wall user sys <<<"$times"
    grep -v '^  "elapsed_s":' "$OUT/ranks$n.json" >"$OUT/ranks$n.stable.json"
    if [ -z "$t1" ]; then
        t1=$wall
        c1=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
        first=$n
    elif ! cmp -s "$OUT/ranks$first.stable.json" "$OUT/ranks$n.stable.json"; then
        echo "$n ranks: output differs from $first rank(s)" >&2
        exit 1
    fi
    awk -v n="$n" -v w="$wall" -v u="$user" -v s="$sys" -v t1="$t1" -v c1="$c1" -v f="$first" 'BEGIN {
        sp = t1 / w * f; c = u + s
        printf "| %d | %.1f s | %.2f | %.0f%% | %.1f s | %.2f |\n", n, w, sp, 100 * sp / n, c, c / c1 }'
done
echo "outputs identical for ranks: $RANKS (elapsed_s aside); files in $OUT"
