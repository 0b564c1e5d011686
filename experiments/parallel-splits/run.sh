#!/usr/bin/env bash
# Parallel splits: MFU of GPT-3 175B on 1,024 A100 over tensor x pipeline parallel sizes and
# microbatch, 1F1B vs interleaved, out-of-memory cells marked. About 400 `trainsim run`s of
# configs/job.json with the layout replaced. See README.md.
#
# Usage: experiments/parallel-splits/run.sh
# Environment: TRAINSIM (default build/sim/trainsim, built if missing).
# Writes out/ (every job and its output, tables, plot data) and copies the artefacts the README
# shows here: results.md, cells.csv, mfu.png, mfu-by-microbatch.png.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
. "$HERE/../common.sh"
start=$SECONDS
python3 "$HERE/analyze.py" --trainsim "$TRAINSIM" --root "$ROOT" --out "$OUT"
for f in results.md cells.csv; do cp "$OUT/$f" "$HERE/"; done
plot "mfu.png mfu-by-microbatch.png (in $HERE)" -e "out='$OUT'; dest='$HERE'" "$HERE/plots.gp"
echo "done in $((SECONDS - start)) s"
