#!/usr/bin/env bash
# Validation on Hopper and Blackwell: run every row of published.json (NVIDIA NeMo FP8
# performance summaries, DGX-H100 and DGX-B200) through `trainsim run --format json` and compare
# with the published tokens/s per GPU. The tools are shared with ../validation-a100
# (validate.py, plots.gp). See README.md.
#
# Usage: experiments/validation-hopper/run.sh
# Environment: TRAINSIM (default build/sim/trainsim, built if missing).
# Writes out/ (every run's JSON, results.csv, results.md, plot data) and copies the
# artefacts the README shows here: results.md, results.csv, errors.png, parity.png.
# Exit status 3 when a table misses its error thresholds (the artefacts are still written).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
. "$HERE/../common.sh"
NAME="H100 / B200 / GB200"
TOOLS=$HERE/../validation-a100
status=0
python3 "$TOOLS/validate.py" "$HERE/published.json" "$OUT" --trainsim "$TRAINSIM" --root "$ROOT" || status=$?
[ "$status" = 0 ] || [ "$status" = 3 ] || exit "$status"

cp "$OUT/results.md" "$OUT/results.csv" "$HERE/"
plot "$HERE/errors.png $HERE/parity.png" -e "out='$OUT'; dest='$HERE'; name='$NAME'" "$TOOLS/plots.gp"
exit "$status"
