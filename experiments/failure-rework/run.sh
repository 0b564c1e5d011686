#!/usr/bin/env bash
# Failure rework: goodput and cost vs cluster size (8 to 16,384 GPUs), the checkpoint interval
# against Daly's optimum, spot vs on-demand as the preemption rate varies, and the value of hot
# spares. About 220 `trainsim run`s of configs/job.json with keys replaced. See README.md.
#
# Usage: experiments/failure-rework/run.sh
# Environment: TRAINSIM (default build/sim/trainsim, built if missing).
# Writes out/ (every job and its output, tables, plot data) and copies the artefacts the README
# shows here: results.md, scan.csv, interval.csv, spot.csv, spares.csv, scan.png,
# interval.png, spot.png, spares.png.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
. "$HERE/../common.sh"
start=$SECONDS
python3 "$HERE/analyze.py" --trainsim "$TRAINSIM" --root "$ROOT" --out "$OUT"
for f in results.md scan.csv interval.csv spot.csv spares.csv; do cp "$OUT/$f" "$HERE/"; done
plot "scan.png interval.png spot.png spares.png (in $HERE)" -e "out='$OUT'; dest='$HERE'" "$HERE/plots.gp"
echo "done in $((SECONDS - start)) s"
