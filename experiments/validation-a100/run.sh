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
ROOT=$(cd "$HERE/../.." && pwd)
TRAINSIM=${TRAINSIM:-$ROOT/build/sim/trainsim}
OUT=$HERE/out
NAME=A100
TOOLS=$HERE

# Install a Debian package when its command is missing (as root with apt-get only).
ensure() {
    local cmd=$1 pkg=$2
    command -v "$cmd" >/dev/null && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get install -y -qq "$pkg" >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "$pkg" >/dev/null 2>&1; } || true
    fi
    command -v "$cmd" >/dev/null || { echo "$cmd not found: install it with: sudo apt-get install $pkg" >&2; return 1; }
}

if [ ! -x "$TRAINSIM" ]; then
    echo "building trainsim in $ROOT/build" >&2
    cmake -S "$ROOT" -B "$ROOT/build" >/dev/null
    cmake --build "$ROOT/build" -j"$(nproc)" >/dev/null
    TRAINSIM=$ROOT/build/sim/trainsim
fi
ensure python3 python3
have_gnuplot=1
ensure gnuplot gnuplot-nox || have_gnuplot=0

rm -rf "$OUT"
mkdir -p "$OUT"
status=0
python3 "$TOOLS/validate.py" "$HERE/published.json" "$OUT" --trainsim "$TRAINSIM" --root "$ROOT" || status=$?
[ "$status" = 0 ] || [ "$status" = 3 ] || exit "$status"

cp "$OUT/results.md" "$OUT/results.csv" "$HERE/"
if [ "$have_gnuplot" = 1 ]; then
    gnuplot -e "out='$OUT'; dest='$HERE'; name='$NAME'" "$TOOLS/plots.gp"
    echo "plots: $HERE/errors.png $HERE/parity.png"
else
    echo "no gnuplot: tables written, plots skipped" >&2
fi
exit "$status"
