#!/usr/bin/env bash
# Peak memory of a sweep against the number of layouts it enumerates. Each size is the same
# sweep (Llama 3 70B, 64 global batches, every parallel option "auto") over more systems and
# node counts; its throughput target (1e12 tokens/s) is out of reach, so every layout is
# enumerated, validated and screened (memory verdict, lower bound) and none is simulated:
# the work and the memory of the enumeration alone. Prints, per size, the layouts enumerated,
# the peak resident set (/usr/bin/time -v "Maximum resident set size") and the wall time.
#
# usage: experiments/benchmarks/sweep_memory.sh [SIZE...]   SIZE: 1m 8m 34m 100m (default 1m 8m)
# environment: TRAINSIM (default build/sim/trainsim, built if missing), THREADS (default: all
# cores). 100m takes a few minutes on two cores.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
. "$HERE/../common.sh"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1m 8m)
threads=()
[ -n "${THREADS:-}" ] && threads=(--threads "$THREADS")
[ -x /usr/bin/time ] || ensure /usr/bin/time time
mkdir -p "$OUT"
# Builds without the layout limit (before it existed) take no --max-configs.
limit=()
"$TRAINSIM" sweep --help 2>&1 | grep -q -- --max-configs && limit=(--max-configs 1000000000)

# systems and node counts per size (8 GPUs per node each): sets $systems and $nodes
spec() {
    nodes='{"from": 1, "to": 16}'
    case $1 in
    1m) systems='["aws-p4de"]'; nodes='[1, 2, 3]' ;;
    8m) systems='["aws-p4de"]' ;;
    34m) systems='["aws-p4de", "aws-p4d", "dgx-a100-80g", "dgx-a100-40g"]' ;;
    100m) systems='["aws-p4de", "aws-p4d", "dgx-a100-80g", "dgx-a100-40g", "dgx-h100", "aws-p5",
                    "gcp-a3-high", "gcp-a3-mega", "hgx-h200", "aws-p5en", "mi300x-8", "dgx-b200"]' ;;
    *) echo "unknown size $1 (1m, 8m, 34m, 100m)" >&2; exit 2 ;;
    esac
}

printf '| size | layouts enumerated | peak RSS | wall time |\n|---|---|---|---|\n'
for size in "${sizes[@]}"; do
    spec "$size"
    file=$OUT/memory-$size.json
    cat >"$file" <<JSON
{"name": "memory-$size", "model": "llama3-70b", "tokens": "2T",
 "global_batch": {"from": 128, "to": 8192, "step": 128},
 "systems": $systems, "nodes": $nodes, "precision": "bf16", "parallel": "auto",
 "constraint": {"min_tokens_per_s": 1e12}, "objective": "time", "top": 5}
JSON
    /usr/bin/time -v "$TRAINSIM" sweep "$file" --format json --no-progress "${limit[@]}" \
        "${threads[@]}" >"$OUT/memory-$size.out" 2>"$OUT/memory-$size.time" || {
        echo "sweep $size failed: $(tail -3 "$OUT/memory-$size.time")" >&2; exit 1; }
    enumerated=$(sed -n 's/^  "enumerated": *\([0-9]*\).*/\1/p' "$OUT/memory-$size.out")
    rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$OUT/memory-$size.time")
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): *//p' "$OUT/memory-$size.time")
    awk -v s="$size" -v e="$enumerated" -v r="$rss_kb" -v w="$wall" \
        'BEGIN { printf "| %s | %d | %.1f MiB | %s |\n", s, e, r / 1024, w }'
done
echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
