#!/usr/bin/env bash
# Validation of the software profiles pytorch-fsdp-compile, megatron-deepspeed and jax-maxtext
# on published runs of those stacks (see README.md).
#
# Usage: experiments/validation-others/run.sh [--write-bands]
#   (default)      make_jobs.py checks the shipped jobs, then every job runs -> results.md,
#                  results.csv; exit 3 when a profile x device exceeds thresholds.json
#   --write-bands  also write each profile's per-device residual band ("validation") into
#                  configs/software/PROFILE.json
# Environment: TRAINSIM (default build/sim/trainsim, built if missing).
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
python3 "$HERE/make_jobs.py" --out "$OUT/jobs" >/dev/null
for f in "$OUT"/jobs/*.json; do
    cmp -s "$f" "$ROOT/configs/validation/others/$(basename "$f")" ||
        { echo "configs/validation/others/$(basename "$f") differs from make_jobs.py's" >&2; exit 1; }
done
status=0
python3 "$HERE/results.py" --trainsim "$TRAINSIM" --root "$ROOT" --out "$HERE" \
    --check "$HERE/thresholds.json" "${bands[@]}" || status=$?
[ "$status" = 0 ] || [ "$status" = 3 ] || exit "$status"
exit "$status"
