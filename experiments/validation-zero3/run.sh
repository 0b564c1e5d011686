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
# The steps are experiments/profile_validation.sh (shared with validation-others).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../profile_validation.sh
. "$HERE/../profile_validation.sh" configs/validation/zero3 "$@"
