#!/usr/bin/env bash
# Validation of the software profile deepspeed-zero3 on the published ZeRO-3 rows of
# Narayanan et al. SC21 Table 2 (see README.md).
#
# Usage: experiments/validation-zero3/run.sh [--write-bands]
#   (default)      make_jobs.py checks the shipped jobs, then every job runs -> results.md,
#                  results.csv; exit 3 when the profile x device exceeds thresholds.json
#   --write-bands  also write the profile's per-device residual band ("validation") and
#                  highest published MFU into configs/software/deepspeed-zero3.json
# Environment: TRAINSIM (default build/sim/trainsim, built if missing).
# The tabulation is experiments/validation-others/results.py (one copy for both experiments).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bands=()
for arg in "$@"; do
    case $arg in
    --write-bands) bands=(--write-bands) ;;
    *) echo "usage: $0 [--write-bands]" >&2; exit 2 ;;
    esac
done
# shellcheck source=../common.sh
. "$HERE/../common.sh"
cp "$HERE/published.json" "$OUT/published.json"
python3 "$HERE/make_jobs.py" --out "$OUT/jobs" >/dev/null
cmp -s "$HERE/published.json" "$OUT/published.json" ||
    { cp "$OUT/published.json" "$HERE/published.json"; echo "published.json differed from make_jobs.py's" >&2; exit 1; }
for f in "$OUT"/jobs/*.json; do
    cmp -s "$f" "$ROOT/configs/validation/zero3/$(basename "$f")" ||
        { echo "configs/validation/zero3/$(basename "$f") differs from make_jobs.py's" >&2; exit 1; }
done
status=0
python3 "$HERE/../validation-others/results.py" --trainsim "$TRAINSIM" --root "$ROOT" --out "$HERE" \
    --published "$HERE/published.json" --experiment validation-zero3 \
    --check "$HERE/thresholds.json" "${bands[@]}" || status=$?
[ "$status" = 0 ] || [ "$status" = 3 ] || exit "$status"
exit "$status"
