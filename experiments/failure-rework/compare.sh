#!/usr/bin/env bash
# Failure rework against published outcomes: trainsim's goodput for Llama 3 405B, OPT-175B,
# BLOOM-176B and Kokolis et al.'s RSC-1 jobs, with the cited failure and recovery parameters
# of configs/outcomes/ (nothing fitted). Writes out/outcomes/ and copies outcomes.md and
# outcomes-compare.csv here. See README.md, "Against published outcomes".
#
# Usage: experiments/failure-rework/compare.sh
# Environment: TRAINSIM (default build/sim/trainsim, built if missing).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
. "$HERE/../common.sh"
start=$SECONDS
python3 "$HERE/compare.py" --trainsim "$TRAINSIM" --here "$HERE" --out "$OUT"
cp "$OUT/outcomes.md" "$HERE/outcomes.md"
cp "$OUT/outcomes.csv" "$HERE/outcomes-compare.csv"
cp "$OUT/kokolis.md" "$HERE/kokolis.md"
cp "$OUT/kokolis.csv" "$HERE/kokolis.csv"
cat "$HERE/outcomes.md" "$HERE/kokolis.md"
echo "done in $((SECONDS - start)) s"
