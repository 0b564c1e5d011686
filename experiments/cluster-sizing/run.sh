#!/usr/bin/env bash
# Cluster sizing: which cluster trains Llama 3 70B on 2T tokens for the least money within a
# deadline? Runs configs/llama3-70b-sizing-sweep.json (with a CSV of every configuration), the
# same sweep per system x pricing for the cost/time fronts (the pricings each system offers,
# i.e. has a price for; the others are reported as not offered), per system for the bills,
# and at other deadlines. See README.md.
#
# Usage: experiments/cluster-sizing/run.sh
# Environment: TRAINSIM (default build/sim/trainsim, built if missing).
# Writes out/ (sweep outputs, generated sweep files, all.csv of every configuration (~150 MB),
# tables, plot data) and copies the artefacts the README shows here: results.md, fronts.csv,
# best-per-system.csv, bill.csv, deadlines.csv, per-nodes.csv, pareto.png, bill.png, deadline.png.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
. "$HERE/../common.sh"
start=$SECONDS
python3 "$HERE/analyze.py" --trainsim "$TRAINSIM" --root "$ROOT" --out "$OUT"
for f in results.md fronts.csv best-per-system.csv bill.csv deadlines.csv per-nodes.csv; do cp "$OUT/$f" "$HERE/"; done
plot "pareto.png bill.png deadline.png (in $HERE)" -e "out='$OUT'; dest='$HERE'" "$HERE/plots.gp"
echo "done in $((SECONDS - start)) s"
