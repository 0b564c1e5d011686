#!/usr/bin/env bash
# Speed of whole sweeps: runs each benchmark sweep REPEATS times (default 3) with --format json
# and prints, for the fastest repeat, the configurations assessed (`evaluated`), the layouts
# simulated, the wall time (`elapsed_s`), the CPU time (user + system, best repeat) and the
# rate; llama3-70b-sizing also at --top 5. Then the
# cost of searching software profiles: the two large sweeps as shipped (one profile) and with
# two profiles listed (copies in out/), CPU seconds on one thread (user + system, best of
# REPEATS; steadier than wall time on a shared host).
#
# usage: experiments/benchmarks/sweeps.sh [REPEATS]
# environment: TRAINSIM (default build/sim/trainsim, built if missing), THREADS (default: all
# cores).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
. "$HERE/../common.sh"
repeats=${1:-3}
threads=()
[ -n "${THREADS:-}" ] && threads=(--threads "$THREADS")

printf '| sweep | configurations assessed | layouts simulated | wall time (best of %d) | CPU time, user + sys (best of %d) | per second |\n' "$repeats" "$repeats"
printf '|---|---|---|---|---|---|\n'
for spec in gpt3-175b-layout-sweep llama3-70b-sizing-sweep "llama3-70b-sizing-sweep --top 5" quickstart-sweep; do
    read -r name extra <<<"$spec"
    # shellcheck disable=SC2086
    set -- $extra
    best=""; best_cpu=""
    for _ in $(seq "$repeats"); do
        cpu=$( { /usr/bin/time -f '%U %S' "$TRAINSIM" sweep "$ROOT/configs/$name.json" "$@" --format json \
                 --no-progress "${threads[@]}" >"$OUT/$name.json"; } 2>&1 | tail -1 | awk '{ print $1 + $2 }')
        line=$(python3 - "$OUT/$name.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["elapsed_s"], d["evaluated"], d["simulated"])
PY
)
        read -r t ev sim <<<"$line"
        if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
            best=$t; best_ev=$ev; best_sim=$sim
        fi
        if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN { exit !(a < b) }'; then
            best_cpu=$cpu
        fi
    done
    awk -v n="$spec" -v t="$best" -v c="$best_cpu" -v e="$best_ev" -v s="$best_sim" \
        'BEGIN { printf "| %s | %d | %d | %.2f s | %.2f s | %.0f |\n", n, e, s, t, c, e / t }'
done
echo
printf '| sweep | profiles | layouts enumerated | CPU s, 1 thread (best of %d) |\n' "$repeats"
printf '|---|---|---|---|\n'
for spec in "gpt3-175b-layout-sweep pytorch-fsdp" "llama3-70b-sizing-sweep pytorch-fsdp"; do
    read -r name other <<<"$spec"
    python3 - "$ROOT/configs/$name.json" "$OUT/$name-2sw.json" "$other" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["software"] = ["megatron-core", sys.argv[3]]
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
    for file in "$ROOT/configs/$name.json" "$OUT/$name-2sw.json"; do
        best=""
        for _ in $(seq "$repeats"); do
            cpu=$( { /usr/bin/time -f '%U %S' "$TRAINSIM" sweep "$file" --search-software --format json --no-progress \
                     --threads 1 >"$OUT/cpu.json"; } 2>&1 | tail -1 | awk '{ print $1 + $2 }')
            if [ -z "$best" ] || awk -v a="$cpu" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$cpu; fi
        done
        profiles=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1])).get("software", "megatron-core"); print(", ".join(s) if isinstance(s, list) else s)' "$file")
        en=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["enumerated"])' "$OUT/cpu.json")
        printf '| %s | %s | %s | %.2f s |\n' "$name" "$profiles" "$en" "$best"
    done
done
echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
