#!/usr/bin/env bash
# Host calibration: measure this CPU's SGEMMs and memory bandwidth with OpenBLAS
# (`trainsim calibrate`), then compare trainsim's prediction of one transformer layer's GEMM
# time with the time measured by executing those GEMMs. See README.md.
#
# Usage: experiments/host-calibration/run.sh
# Environment: MODEL (default gpt2-124m), CAL_SECONDS (calibration budget, default 20),
#   THREADS (default all cores), BUILD (build dir, default build), OPENBLAS_CORETYPE (passed
#   through to OpenBLAS, e.g. SkylakeX or Haswell), OUT (output dir, default out/ here).
# Writes here: results.md (the tables), points.csv (every measured SGEMM), curve.csv (the
# fitted curves), layer.csv (measured vs predicted per GEMM) and, with gnuplot,
# efficiency.png; with OPENBLAS_CORETYPE=X set, their names end in -x (results-skylakex.md).
# Raw outputs go to out/ (ignored by git): host.json and host-system.json (the accelerator
# and system files), the calibrate reports calibration.json, check-heldout.json,
# calibration-model.json, and job.json + run.json.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
TRAINSIM=${TRAINSIM:-$BUILD/sim/trainsim}
MODEL=${MODEL:-gpt2-124m}
CAL_SECONDS=${CAL_SECONDS:-20}
OUT=${OUT:-$HERE/out}
RESULTS=${RESULTS:-$HERE}
TAG=${OPENBLAS_CORETYPE:+-$(echo "$OPENBLAS_CORETYPE" | tr '[:upper:]' '[:lower:]')}
THREAD_OPT=()
[ -n "${THREADS:-}" ] && THREAD_OPT=(--threads "$THREADS")

if [ ! -x "$TRAINSIM" ]; then
    echo "building trainsim in $BUILD" >&2
    cmake -S "$ROOT" -B "$BUILD" >/dev/null
    cmake --build "$BUILD" -j --target trainsim >/dev/null
fi
mkdir -p "$OUT" "$RESULTS"

# Timings are only as good as the host is idle.
load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" 'BEGIN { exit !(l > 0.5) }'; then
    echo "warning: load average $load: other work on this host will slow the measurements" >&2
fi

# Run `trainsim calibrate ARGS --format json > FILE`; the report says which share of its
# cores the process had (BLAS threads busy-wait, so ~1 on an idle host). Other work on the
# host halves a 2-thread BLAS's speed, so retry (3 tries, 20 s apart) while it was < 0.85.
calibrate_json() {
    local file=$1; shift
    for try in 1 2 3; do
        "$TRAINSIM" calibrate "$@" --format json > "$file"
        if python3 - "$file" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
shares = [d[k] for k in ("cpu_share",) if k in d]
shares += [d["layer_check"]["cpu_share"]] if "layer_check" in d else []
sys.exit(0 if min(shares) >= 0.85 else 1)
PY
        then return 0; fi
        echo "host busy during the measurement (try $try of 3)" >&2
        [ "$try" -lt 3 ] && sleep 20
    done
    echo "warning: the host stayed busy; keeping the last measurement" >&2
}

# 1. Calibrate on the generic grid only (square and skinny shapes), so the layer check
#    below is held out: none of the layer's shapes or operand layouts are in the fit.
calibrate_json "$OUT/calibration.json" --out "$OUT/host.json" \
    --system-out "$OUT/host-system.json" --seconds "$CAL_SECONDS" "${THREAD_OPT[@]}"

# 2. Held-out check: execute one layer's forward + backward GEMMs, compare with trainsim.
calibrate_json "$OUT/check-heldout.json" --accel "$OUT/host.json" --model "$MODEL" \
    --seconds 10 "${THREAD_OPT[@]}"

# 3. In-sample: calibrate with the layer's shapes in the grid (what `--model` is for), check.
calibrate_json "$OUT/calibration-model.json" --model "$MODEL" --out "$OUT/host-model.json" \
    --seconds "$CAL_SECONDS" "${THREAD_OPT[@]}"

# 4. The host as a system in an ordinary job: one "GPU", fp32.
cat > "$OUT/job.json" <<JOB
{
  "model": "$MODEL",
  "system": "host-system.json",
  "gpus": 1,
  "global_batch": 8,
  "precision": "fp32",
  "parallel": {"microbatch": 1}
}
JOB
"$TRAINSIM" run "$OUT/job.json" --format json > "$OUT/run.json"

# 5. Tables, CSV, plot.
python3 - "$OUT" "$RESULTS" "$TAG" <<'PY'
import csv, json, os, sys
out, res, tag = sys.argv[1], sys.argv[2], sys.argv[3]
cal = json.load(open(os.path.join(out, "calibration.json")))
held = json.load(open(os.path.join(out, "check-heldout.json")))["layer_check"]
calm = json.load(open(os.path.join(out, "calibration-model.json")))
ins = calm["layer_check"]
run = json.load(open(os.path.join(out, "run.json")))

with open(os.path.join(res, f"points{tag}.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["calibration", "label", "m", "n", "k", "flops", "seconds", "gflops_per_s", "efficiency"])
    for name, c in (("grid", cal), ("grid+layer", calm)):
        for p in c["points"]:
            w.writerow([name, p["label"], p["m"], p["n"], p["k"], p["flops"], p["seconds"],
                        p["flops_per_s"] / 1e9, p["efficiency"]])
with open(os.path.join(res, f"curve{tag}.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["calibration", "flops", "efficiency"])
    for name, c in (("grid", cal), ("grid+layer", calm)):
        for fl, e in c["curve"]:
            w.writerow([name, fl, e])
with open(os.path.join(res, f"layer{tag}.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["check", "gemm", "m", "n", "k", "flops", "measured_s", "predicted_s", "ratio"])
    for name, L in (("held-out", held), ("in-sample", ins)):
        for g in L["gemms"]:
            w.writerow([name, g["label"], g["m"], g["n"], g["k"], g["flops"], g["measured_s"],
                        g["predicted_s"], g["ratio"]])
        w.writerow([name, "total", "", "", "", L["flops"], L["measured_s"], L["predicted_s"], L["ratio"]])

lines = []
P = lines.append
P(f"host {cal['host']}: {cal['cpu']}, {cal['threads']} threads, {cal['blas']}, {cal['date']}")
P("")
P("| calibration | peak fp32 GFLOP/s | best raw GFLOP/s | triad GB/s | copy GB/s | 8x8x8 call us | shapes (skipped) | curve points | CPU share |")
P("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for name, c in (("grid only", cal), ("grid + layer", calm)):
    P(f"| {name} | {c['peak_flops']/1e9:.2f} | {c['best_flops_per_s']/1e9:.2f} | "
      f"{c['memory_bandwidth']/1e9:.2f} | {c['copy_bandwidth']/1e9:.2f} | "
      f"{c['kernel_latency_s']*1e6:.3f} | {len(c['points'])} ({c['skipped']}) | {len(c['curve'])} | "
      f"{c['cpu_share']:.2f} |")
P("")
P("Fitted curve (grid only): " + ", ".join(f"[{fl:.3g}, {e:.3f}]" for fl, e in cal["curve"]))
P("")
for name, L in (("held-out (grid-only calibration)", held), ("in-sample (layer shapes in the grid)", ins)):
    P(f"Layer check, {name}: {L['model']}, tp {L['tp']}, microbatch {L['microbatch']}, "
      f"seq {L['seq']}, median of {L['passes']} passes, CPU share {L['cpu_share']:.2f}")
    P("")
    P("| GEMM | M | N | K | GFLOP | measured ms | predicted ms | predicted/measured |")
    P("|---|---:|---:|---:|---:|---:|---:|---:|")
    for g in L["gemms"]:
        P(f"| {g['label']} | {g['m']} | {g['n']} | {g['k']} | {g['flops']/1e9:.3f} | "
          f"{g['measured_s']*1e3:.2f} | {g['predicted_s']*1e3:.2f} | {g['ratio']:.3f} |")
    P(f"| **total** | | | | {L['flops']/1e9:.2f} | {L['measured_s']*1e3:.1f} | "
      f"{L['predicted_s']*1e3:.1f} | **{L['ratio']:.3f}** ({100*L['error']:+.1f}%) |")
    P("")
P(f"`trainsim run` of {run['model']} on {run['system']} (1 \"GPU\", fp32, global batch "
  f"{run['global_batch']}): iteration {run['iteration_time_s']:.3f} s, "
  f"{run['tokens_per_s']:.0f} tokens/s, MFU {run['mfu']:.3f}")
# The check that used to be a unit test: on an idle host (cpu_share >= 0.85 in both
# measurements) the in-sample prediction of the layer is within a factor of 2 of the
# measurement. Timing depends on the host, so it is judged here, not in ctest.
idle = min(calm["cpu_share"], ins["cpu_share"]) >= 0.85
ok = 0.5 <= ins["ratio"] <= 2.0
verdict = ("in-sample layer prediction within 2x of the measurement: " +
           ("yes" if ok else "NO") + f" (ratio {ins['ratio']:.3f}" +
           ("" if idle else ", host busy: not judged") + ")")
P(verdict)
text = "\n".join(lines) + "\n"
open(os.path.join(res, f"results{tag}.md"), "w").write(text)
print(text, end="")
sys.exit(1 if idle and not ok else 0)
PY

if ! command -v gnuplot >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -qq gnuplot-nox >/dev/null 2>&1 || true
fi
if command -v gnuplot >/dev/null; then
    gnuplot <<GP
set terminal pngcairo size 900,560
set output "$RESULTS/efficiency$TAG.png"
set datafile separator ","
set logscale x
set format x "10^{%L}"
set xlabel "GEMM size (FLOPs = 2 M N K)"
set ylabel "efficiency (main-loop rate / fitted peak)"
set yrange [0:1.1]
set key bottom right
set title "SGEMM efficiency on this host (OpenBLAS), measured and fitted"
plot "< awk -F, '\$1==\"grid\"' $RESULTS/curve$TAG.csv" using 2:3 with lines lw 2 lc rgb "#999999" title "fitted curve (grid only: bin medians)", \
     "< awk -F, '\$1==\"grid\" && \$2==\"square\"' $RESULTS/points$TAG.csv" using 6:9 with points pt 7 ps 1.2 title "square (grid)", \
     "< awk -F, '\$1==\"grid\" && \$2==\"skinny\"' $RESULTS/points$TAG.csv" using 6:9 with points pt 5 title "skinny (grid)", \
     "< awk -F, '\$1==\"grid+layer\" && \$2!=\"square\" && \$2!=\"skinny\"' $RESULTS/points$TAG.csv" using 6:9 with points pt 9 ps 1.2 title "layer GEMMs (grid + layer run)"
GP
    echo "plot: $RESULTS/efficiency$TAG.png"
else
    echo "gnuplot not installed: no plot (apt-get install gnuplot-nox)" >&2
fi
