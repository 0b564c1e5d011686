#!/usr/bin/env bash
# Command-line tests of `trainsim calibrate --gpu`: without a CUDA runtime it stops with
# "no CUDA runtime found", naming every library it tried, exit status 1; with the test tree's
# stand-in for the CUDA driver (tests/cuda_standin: a deterministic time model, no GPU) the
# loader, the timing loop and the fit write the efficiency curve that model implies, through
# the same path as `calibrate --gemm-csv` (the table it writes with --csv-out gives the same
# curve back); bad options and device failures are clear errors.
#
# usage: bash tests/cli_calibrate_gpu.sh path/to/trainsim   (ctest passes the built binary
#        and TS_CUDA_STANDIN, the folder of the stand-in libraries)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_calibrate_gpu "$@"
standin=${TS_CUDA_STANDIN:-}
if [ -z "$standin" ]; then  # tests/valgrind.sh runs the scripts outside ctest
    for d in "$(dirname "$BIN")/../tests/cuda-standin" "$(dirname "$BIN")/tests/cuda-standin"; do
        [ -e "$d/libcudart.so.12" ] && standin=$d && break
    done
fi
if [ ! -e "$standin/libcudart.so.12" ] || [ ! -e "$standin/libcublas.so.12" ]; then
    echo "cli_calibrate_gpu: the CUDA stand-in libraries are not built (TS_CUDA_STANDIN)" >&2
    exit 1
fi

# No runtime where TRAINSIM_CUDA_PATH points: exit 1, every name tried.
mkdir -p "$tmp/empty"
TRAINSIM_CUDA_PATH=$tmp/empty run nocuda calibrate --gpu --accelerator h100-sxm --out "$tmp/x.json"
expect_rc nocuda 1
expect_in "$tmp/nocuda.err" "no CUDA runtime found: tried $tmp/empty/libcudart.so.13, $tmp/empty/libcudart.so.12, $tmp/empty/libcudart.so.11.0, $tmp/empty/libcudart.so (in TRAINSIM_CUDA_PATH)" "no runtime"
if [ -e "$tmp/x.json" ]; then fail "nocuda: an accelerator file was written"; fi
# A runtime without cuBLAS.
mkdir -p "$tmp/rtonly"
ln -s "$standin/libcudart.so.12" "$tmp/rtonly/libcudart.so.12"
TRAINSIM_CUDA_PATH=$tmp/rtonly run noblas calibrate --gpu --accelerator h100-sxm
expect_rc noblas 1
expect_in "$tmp/noblas.err" "no cuBLAS found for the CUDA runtime libcudart.so.12: tried $tmp/rtonly/libcublas.so.12" "no cuBLAS"

export TRAINSIM_CUDA_PATH=$standin
run gpu calibrate --gpu --accelerator h100-sxm --max-dim 4096 --name h100-measured \
    --csv-out "$tmp/gemms.csv" --out "$tmp/gpu.json" --format json
expect_rc gpu 0
expect_in "$tmp/gpu.err" "45 GEMMs on CUDA device 0 (libcudart.so.12 + libcublas.so.12)" "progress"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["measured"].startswith("cuBLAS on CUDA device 0") and r["precisions"]["bf16"]["rows"] == 15 else 1)' \
    "$tmp/gpu.out" || fail "report: $(head -c 300 "$tmp/gpu.out")"

# The curve is the one the stand-in's time model implies: t = F / (R F / (F + 2e9)) + 4 us,
# R = 600, 500, 40 TFLOP/s for bf16, fp16, fp32; efficiency = F / t / h100-sxm's peak (989,
# 989, 67 TFLOP/s), rounded to 1e-4 as the accelerator file stores it. The grid: squares
# 256..4096 in steps of sqrt(2) (multiples of 64) and the skinny 256/1024 x 4096 x 4096
# shapes, per precision.
python3 - "$tmp/gpu.json" "$tmp/gemms.csv" <<'PY' || fail "curve or table differs from the stand-in's model"
import csv, json, math, sys
doc = json.load(open(sys.argv[1]))
rate = {"bf16": 600e12, "fp16": 500e12, "fp32": 40e12}
peak = {"bf16": 989e12, "fp16": 989e12, "fp32": 67e12}
def model_s(m, n, k, p):
    f = 2.0 * m * n * k
    return f / (rate[p] * f / (f + 2e9)) + 4e-6
squares = [256, 384, 512, 704, 1024, 1472, 2048, 2880, 4096]
grid = [(d, d, d) for d in squares]
for s in (256, 1024):
    grid += [(s, 4096, 4096), (4096, s, 4096), (4096, 4096, s)]
bad = 0
ge = doc["gemm_efficiency"]
for p in ("bf16", "fp16", "fp32"):
    pts = ge[p]
    shapes = [(q["m"], q["n"], q["k"]) for q in pts]
    if shapes != grid:
        print(p, "shapes", shapes, "expected", grid); bad += 1
    for q in pts:
        f = 2.0 * q["m"] * q["n"] * q["k"]
        want = f / model_s(q["m"], q["n"], q["k"], p) / peak[p]
        if abs(q["efficiency"] - want) > 1.5e-4:
            print(p, q, "expected", want); bad += 1
rows = list(csv.DictReader(l for l in open(sys.argv[2]) if not l.startswith("#")))
if len(rows) != 3 * len(grid):
    print("rows", len(rows)); bad += 1
for r in rows:
    want = model_s(int(r["m"]), int(r["n"]), int(r["k"]), r["dtype"]) * 1e6
    if abs(float(r["time_us"]) / want - 1) > 1e-5:
        print(r, "expected", want); bad += 1
if doc["name"] != "h100-measured" or "calibrated by trainsim calibrate --gpu" not in doc["source"]:
    print("name/source", doc["name"], doc["source"][:200]); bad += 1
sys.exit(1 if bad else 0)
PY

# The table it wrote, read back by --gemm-csv, gives the same curve: one fitting path.
unset TRAINSIM_CUDA_PATH
run csv calibrate --gemm-csv "$tmp/gemms.csv" --accelerator h100-sxm --name h100-measured \
    --out "$tmp/csv.json"
expect_rc csv 0
python3 - "$tmp/gpu.json" "$tmp/csv.json" <<'PY' || fail "--gemm-csv of the --csv-out table gives another curve"
import json, sys
a, b = (json.load(open(f))["gemm_efficiency"] for f in sys.argv[1:])
sys.exit(0 if a == b else 1)
PY
export TRAINSIM_CUDA_PATH=$standin

# One precision only: the other curves stay the base file's.
run fp32 calibrate --gpu --accelerator h100-sxm --max-dim 1024 --precision fp32 --out "$tmp/fp32.json"
expect_rc fp32 0
python3 - "$tmp/fp32.json" "$ROOT/hardware/accelerators/h100-sxm.json" <<'PY' || fail "--precision fp32 changed other curves"
import json, sys
a, b = (json.load(open(f))["gemm_efficiency"] for f in sys.argv[1:])
ok = a["bf16"] == b["bf16"] and len(a["fp32"]) == 5 and a["fp32"] != b.get("fp32")
sys.exit(0 if ok else 1)
PY

# Errors: a device the runtime does not have (2), the device out of memory (1), fp8 (2),
# no accelerator (2), GPU options without --gpu (2).
run dev calibrate --gpu --accelerator h100-sxm --device 1 --max-dim 512
expect_rc dev 2
expect_in "$tmp/dev.err" "--device 1: the CUDA runtime sees 1 device" "device"
TS_STANDIN_MEMORY=1000000 run oom calibrate --gpu --accelerator h100-sxm --max-dim 1024
expect_rc oom 1
expect_in "$tmp/oom.err" "cudaMalloc of 2 MiB for the bf16 operands failed: the GPU is out of memory (a smaller --max-dim needs less)" "oom"
run fp8 calibrate --gpu --accelerator h100-sxm --precision fp8
expect_rc fp8 2
expect_in "$tmp/fp8.err" "fp8 GEMMs need cublasLt" "fp8"
run noacc calibrate --gpu
expect_rc noacc 2
expect_in "$tmp/noacc.err" "--gpu needs --accelerator NAME" "no accelerator"
run stray calibrate --gemm-csv "$tmp/gemms.csv" --accelerator h100-sxm --device 0
expect_rc stray 2
expect_in "$tmp/stray.err" "go with --gpu" "gpu options alone"
run both calibrate --gpu --gemm-csv "$tmp/gemms.csv" --accelerator h100-sxm
expect_rc both 2

finish
