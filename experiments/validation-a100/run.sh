#!/usr/bin/env bash
# Validation on A100: run every row of published.json (Korthikanti et al. 2022 Table 5,
# Narayanan et al. SC21 Table 1) through `trainsim run --format json` and compare with the
# published number. See README.md.
#
# Usage: experiments/validation-a100/run.sh
# Environment: TRAINSIM (default build/sim/trainsim, built if missing).
# Writes out/ (every run's JSON, results.csv, results.md, plot data) and copies the
# artefacts the README shows here: results.md, results.csv, errors.png, parity.png.
# Exit status 3 when a table misses its error thresholds (the artefacts are still written).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
. "$HERE/../common.sh"
NAME=A100
TOOLS=$HERE
status=0
python3 "$TOOLS/validate.py" "$HERE/published.json" "$OUT" --trainsim "$TRAINSIM" --root "$ROOT" || status=$?
[ "$status" = 0 ] || [ "$status" = 3 ] || exit "$status"

cp "$OUT/results.md" "$OUT/results.csv" "$HERE/"
plot "$HERE/errors.png $HERE/parity.png" -e "out='$OUT'; dest='$HERE'; name='$NAME'" "$TOOLS/plots.gp"
exit "$status"
