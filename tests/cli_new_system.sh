#!/usr/bin/env bash
# Command-line tests of `trainsim new system` and minimal system files: flags write a file
# that loads and runs; one 100 Gb/s NIC per 8-GPU node gives the same iteration as 12.5 Gb/s
# per GPU written out by hand; on a terminal the missing values are asked for (a pty from
# `script`); without one they are an error listing them; a part of your own gets a derived,
# flagged GEMM curve; README's minimal system file loads.
#
# usage: bash tests/cli_new_system.sh path/to/trainsim   (ctest passes the built binary)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_new_system "$@"

job() {   # FILE SYSTEM
    printf '{"model": "llama3-8b", "system": "%s", "nodes": 4, "global_batch": 64, "precision": "bf16", "parallel": {"tp": 8}}\n' "$2" >"$1"
}

run flags new system --name my-l40s --gpu l40s --gpus-per-node 8 --scale-up pcie4 --nics 1 \
    --nic-rate "100 Gb/s" --out "$tmp/l40s.json"
expect_rc flags 0
expect_in "$tmp/l40s.json" '"nics_per_node":  1' "per-node quote kept as given"
# The same cluster with the rate per GPU written by hand.
cat >"$tmp/l40s-hand.json" <<'J'
{"name": "hand", "accelerator": "l40s", "gpus_per_node": 8,
 "scale_up": {"bandwidth": "32 GB/s", "efficiency": 0.8},
 "scale_out": {"bandwidth": "12.5 Gb/s"}}
J
job "$tmp/j1.json" "$tmp/l40s.json"
job "$tmp/j2.json" "$tmp/l40s-hand.json"
run r1 run "$tmp/j1.json" --format json
expect_rc r1 0
run r2 run "$tmp/j2.json" --format json
expect_rc r2 0
python3 - "$tmp/r1.out" "$tmp/r2.out" <<'PY' || fail "1 x 100 Gb/s per node is not 12.5 Gb/s per GPU"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(0 if a["iteration_time_s"] == b["iteration_time_s"] else 1)
PY

# Missing values without a terminal: one error naming them.
run miss new system --name x --gpu h100-sxm </dev/null
expect_rc miss 2
expect_in "$tmp/miss.err" "missing --gpus-per-node, --scale-up, --nics and --nic-rate (or --per-gpu)" "missing flags"
run both new system --name x --gpu h100-sxm --gpus-per-node 8 --scale-up nvlink4 --nics 8 --nic-rate "400 Gb/s" --per-gpu "400 Gb/s"
expect_rc both 2
run badname new system --name "a b" --gpu h100-sxm --gpus-per-node 8 --scale-up nvlink4 --per-gpu "400 Gb/s"
expect_rc badname 2
run badrate new system --name x --gpu h100-sxm --gpus-per-node 8 --scale-up nvlink4 --nics 8 --nic-rate "fast"
expect_rc badrate 2
expect_in "$tmp/badrate.err" "nic_bandwidth" "bad rate names the key"
run nokind new
expect_rc nokind 2

# On a terminal the values are asked for.
if command -v script >/dev/null 2>&1; then
    printf 'asked\nh100-sxm\n8\nnvlink4\n8\n400 Gb/s\n' |
        script -qec "$BIN new system --out $tmp/asked.json" /dev/null >"$tmp/asked.log" 2>&1
    expect_in "$tmp/asked.log" "GPUs per node" "interactive prompt"
    expect_in "$tmp/asked.json" '"name":  "asked"' "interactive answers"
    expect_in "$tmp/asked.json" '"nic_bandwidth":  "400 Gb/s"' "interactive answers"
fi

# A part of your own: derived GEMM curve, flagged in the run output.
run own new system --name own --peak-bf16 "500 TFLOP/s" --memory "96 GiB" --memory-bandwidth "4 TB/s" \
    --gpus-per-node 8 --scale-up "200 GB/s" --per-gpu "400 Gb/s" --accelerator-out "$tmp/own-gpu.json" \
    --out "$tmp/own.json"
expect_rc own 0
job "$tmp/j3.json" "$tmp/own.json"
run r3 run "$tmp/j3.json" --format json
expect_rc r3 0
expect_in "$tmp/r3.out" '"gemm_curve":  "derived from peak (unvalidated)"' "derived curve flagged"
run r4 run "$tmp/j1.json" --format json
expect_in "$tmp/r4.out" '"gemm_curve":  "measured"' "measured curve"

# README's minimal system file loads (the block after the marker line).
awk '/^<!-- minimal system file -->$/ { on = 1; next } on && /^```json$/ { in_block = 1; next } in_block && /^```$/ { exit } in_block { print }' \
    "$ROOT/README.md" >"$tmp/readme-system.json"
if [ ! -s "$tmp/readme-system.json" ]; then fail "README has no minimal system file block"; fi
job "$tmp/j5.json" "$tmp/readme-system.json"
run r5 run "$tmp/j5.json" --format json
expect_rc r5 0

finish
