#!/usr/bin/env bash
# Validation of the pytorch-fsdp profile on every llm-foundry row (see README.md).
#
# Usage: experiments/validation-frameworks/run.sh [--baseline] [--write-bands]
#   (default)      the jobs as shipped (configs/validation/llm-foundry: "software":
#                  "pytorch-fsdp", the table's attention kernel) -> results.md, results.csv,
#                  parity.png, errors.png, outliers.md (the largest errors beside their
#                  published neighbours)
#   --baseline     the "before": jobs from make_jobs.sh --today (no profile, fused attention
#                  as "flash") -> baseline.md, baseline.csv
#   --write-bands  also write the per-device residual bands into
#                  configs/software/pytorch-fsdp.json ("validation")
# Environment: TRAINSIM (default build/sim/trainsim, built if missing).
# Exit status 3 when the set misses its targets (the artefacts are still written).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
baseline=0
bands=()
for arg in "$@"; do
    case $arg in
    --baseline) baseline=1 ;;
    --write-bands) bands=(--write-bands "$(cd "$HERE/../.." && pwd)/configs/software/pytorch-fsdp.json") ;;
    *) echo "usage: $0 [--baseline] [--write-bands]" >&2; exit 2 ;;
    esac
done
# shellcheck source=../common.sh
. "$HERE/../common.sh"
status=0
if [ "$baseline" = 1 ]; then
    "$HERE/make_jobs.sh" --today --out "$OUT/today" >/dev/null
    python3 "$HERE/results.py" --trainsim "$TRAINSIM" --root "$ROOT" --out "$OUT" \
        --jobs "$OUT/today" --name baseline || status=$?
    [ "$status" = 0 ] || [ "$status" = 3 ] || exit "$status"
    exit 0
fi
python3 "$HERE/results.py" --trainsim "$TRAINSIM" --root "$ROOT" --out "$OUT" \
    --jobs "$ROOT/configs/validation/llm-foundry" --name results "${bands[@]}" || status=$?
[ "$status" = 0 ] || [ "$status" = 3 ] || exit "$status"
python3 "$HERE/outliers.py" --out "$OUT"
plot "$HERE/parity.png $HERE/errors.png" -e "out='$OUT'; dest='$HERE'" "$HERE/plots.gp"
exit "$status"
