#!/usr/bin/env bash
# Validation of trainsim's MoE model on the Megatron-Bridge rows (see README.md): regenerate
# the jobs (make_jobs.sh), optionally refit the profile constants (--fit: fit.py), run every
# row and write results.md and out/results.csv.
#
# Usage: experiments/validation-moe/run.sh [--fit] [--write-bands]
#   --fit          refit the profiles' constants (fit.py) before running
#   --write-bands  write each profile's per-device residual band into its file
# Environment: TRAINSIM (default build/sim/trainsim, built if missing).
# Exit status 3 when the set misses its limits (the artefacts are still written).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
refit=0
bands=()
for arg in "$@"; do
    case $arg in
    --fit) refit=1 ;;
    --write-bands) bands=(--write-bands) ;;
    *) echo "usage: $0 [--fit] [--write-bands]" >&2; exit 2 ;;
    esac
done
# shellcheck source=../common.sh
. "$HERE/../common.sh"
"$HERE/make_jobs.sh"
if [ "$refit" = 1 ]; then
    python3 "$HERE/fit.py" --trainsim "$TRAINSIM"
fi
status=0
PYTHONPATH=$HERE python3 "$HERE/results.py" --trainsim "$TRAINSIM" --root "$ROOT" --out "$OUT" "${bands[@]}" ||
    status=$?
exit "$status"
