#!/usr/bin/env bash
# Command-line tests of calibration from measurements: `calibrate --nccl-tests` on a real
# two-node nccl-tests file writes a system file that loads and runs, with the fit stated in its
# source; `calibrate --gemm-csv` writes an accelerator file whose curve the job then uses (a
# GEMM table at half the catalogue's efficiency makes the same job slower); bad combinations
# and files exit 2 naming what is wrong.
#
# usage: bash tests/cli_calibrate_files.sh path/to/trainsim   (ctest passes the built binary)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_calibrate_files "$@"
NCCL=$DATA/nccl/gcp-a3-mega-2x8-all_reduce_perf.txt

run nccl calibrate --nccl-tests "$NCCL" --system gcp-a3-mega --name a3-mine --out "$tmp/a3.json"
expect_rc nccl 0
expect_in "$tmp/nccl.out" "allreduce, 16 ranks on 2 nodes, 31 sizes" "nccl report"
expect_in "$tmp/nccl.out" "scale-up   not measured (kept)" "nccl report"
expect_in "$tmp/a3.json" '"name":  "a3-mine"' "calibrated system name"
expect_in "$tmp/a3.json" 'Calibrated by trainsim calibrate --nccl-tests from' "calibrated source"
printf '{"model": "llama3-8b", "system": "%s", "gpus": 16, "global_batch": 32, "precision": "bf16", "parallel": {"tp": 1}}\n' \
    "$tmp/a3.json" >"$tmp/job.json"
run job run "$tmp/job.json" --format json
expect_rc job 0
# The JSON report and a KIND:FILE name.
cp "$NCCL" "$tmp/results.txt"
run nccl_json calibrate --nccl-tests "all_reduce:$tmp/results.txt" --system gcp-a3-mega --format json --out "$tmp/a3b.json"
expect_rc nccl_json 0
expect_in "$tmp/nccl_json.out" '"collective":  "allreduce"' "nccl json report"
expect_in "$tmp/nccl_json.out" '"ranks":  16' "nccl json report"

# A GEMM table at half of h100-sxm's bf16 curve: the job on it is slower.
printf 'm,n,k,dtype,tflops\n' >"$tmp/g.csv"
for s in 512 1024 2048 4096 8192 16384; do
    printf '%d,%d,%d,bf16,%s\n' "$s" "$s" "$s" 300 >>"$tmp/g.csv"
done
run gemm calibrate --gemm-csv "$tmp/g.csv" --accelerator h100-sxm --out "$tmp/h100.json"
expect_rc gemm 0
expect_in "$tmp/gemm.out" "bf16: 6 measurements, best 30.3% of 989 TFLOP/s" "gemm report"
sed "s|\"accelerator\": \"h100-sxm\"|\"accelerator\": \"$tmp/h100.json\"|" "$ROOT/hardware/systems/dgx-h100.json" >"$tmp/sys.json"
if ! grep -q "$tmp/h100.json" "$tmp/sys.json"; then fail "could not point a system at the calibrated file"; fi
for s in dgx-h100 "$tmp/sys.json"; do
    printf '{"model": "llama3-8b", "system": "%s", "gpus": 8, "global_batch": 8, "precision": "bf16", "parallel": {"tp": 1}}\n' "$s" >"$tmp/j.json"
    "$BIN" run "$tmp/j.json" --format json >"$tmp/j$(basename "$s" .json).out" 2>&1 || fail "run on $s"
done
python3 - "$tmp/jdgx-h100.out" "$tmp/jsys.out" <<'PY' || fail "the calibrated (slower) curve did not slow the job"
import json, sys
a, b = (json.load(open(f))["iteration_time_s"] for f in sys.argv[1:])
sys.exit(0 if b > 1.3 * a else 1)
PY

# Refusals.
run nosys calibrate --nccl-tests "$NCCL"
expect_rc nosys 2
expect_in "$tmp/nosys.err" "--nccl-tests needs --system" "no system"
run both calibrate --nccl-tests "$NCCL" --system dgx-h100 --gemm-csv "$tmp/g.csv"
expect_rc both 2
run noacc calibrate --gemm-csv "$tmp/g.csv"
expect_rc noacc 2
run fill calibrate --nccl-tests "$NCCL" --system dgx-a100-80g
expect_rc fill 0
run missing calibrate --nccl-tests "$tmp/none_all_reduce.txt" --system dgx-h100
expect_rc missing 2
expect_in "$tmp/missing.err" "none_all_reduce.txt" "missing file"
printf 'm,n,k,dtype,tflops\n8192,8192,8192,bf16,2000\n' >"$tmp/fast.csv"
run fast calibrate --gemm-csv "$tmp/fast.csv" --accelerator h100-sxm
expect_rc fast 2
expect_in "$tmp/fast.err" "fast.csv:2:" "faster than peak"
run badname calibrate --gemm-csv "$tmp/g.csv" --accelerator h100-sxm --name "../x"
expect_rc badname 2

finish
