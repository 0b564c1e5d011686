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
# The steps are experiments/profile_validation.sh (shared with validation-zero3).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../profile_validation.sh
. "$HERE/../profile_validation.sh" configs/validation/others "$@"
