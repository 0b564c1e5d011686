#!/bin/sh
# Regenerate the two CSVs from the published markdown.
# Usage: experiments/validation-moe/regenerate.sh MEGATRON_BRIDGE_GIT_DIR [COMMIT]
# MEGATRON_BRIDGE_GIT_DIR: a clone of https://github.com/NVIDIA-NeMo/Megatron-Bridge
set -eu
here=$(cd "$(dirname "$0")" && pwd)
git_dir=$1
commit=${2:-067f987df03b8355b03192d88d70f1709fedf51a}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git --git-dir="$git_dir" show "$commit:docs/performance-summary.md" >"$tmp/summary.md"
git --git-dir="$git_dir" show "$commit:docs/performance-summary-archive.md" >"$tmp/archive.md"
python3 "$here/extract_tables.py" "$here/megatron-bridge-rows.csv" "$here/megatron-bridge-dense-rows.csv" \
    "$tmp/summary.md=NVIDIA-NeMo/Megatron-Bridge:docs/performance-summary.md@$commit" \
    "$tmp/archive.md=NVIDIA-NeMo/Megatron-Bridge:docs/performance-summary-archive.md@$commit" \
    "$here/nemo-docs-excerpts.md=docs.nvidia.com/nemo-framework:user-guide@stored copy (see README)"
