#!/usr/bin/env bash
# The validation set of the deepspeed-zero3 profile (experiments/validation-zero3): the shipped
# jobs and published.json are what make_jobs.py writes from the cited rows of Narayanan et al.
# SC21 Table 2, byte for byte; every job runs feasible (the 529.6B row on 640 GPUs too, as it
# ran); the fit row reproduces its published figure; the five other rows stay within the
# regression thresholds of thresholds.json (the errors measured when the rows were added plus
# 2 points); the profile's "validation" band is the one these rows give now and a run on
# A100 80GB reports it; the profile parser refuses a zero3_comm_scale it cannot apply.
# Needs python3 (in .ci/run and README's install line).
. "$(dirname "$0")/cli.bash" cli_validation_zero3 "$@"
X=$ROOT/experiments/validation-zero3
R=$ROOT/experiments/validation-others/results.py

# The jobs are generated from the cited rows.
expect_made_jobs validation-zero3 configs/validation/zero3
[ "${#shipped[@]}" -eq 6 ] || fail "${#shipped[@]} shipped jobs, Table 2 has 6 ZeRO-3 rows"
# The published figure is the table's teraFLOP/s over eq. (3) per token: 144 TFLOP/s on the
# 174.6B model (96 layers, hidden 12288, s 2048, V 51200) is 144e12 / (96 x 96 x 12288^2 x
# (1 + 2048 / 73728 + 51200 / 18874368)) = 100.418 tokens/s per GPU.
expect_in "$X/published.json" '"published_tokens_per_s_per_gpu": 100.418' "175B on 384 GPUs in tokens/s"

if [ "${TS_VALGRIND:-0}" = 1 ]; then
    # under valgrind: the largest job only (the accuracy checks repeat the same code paths)
    run big run "$ROOT/configs/validation/zero3/narayanan-z3-529.6b-g2240.json" --format json
    expect_rc big 0
    expect_in "$tmp/big.out" '"feasible":  true' "529.6B on 2240 GPUs runs"
else
    python3 "$R" --trainsim "$BIN" --root "$ROOT" --out "$tmp/res" --published "$X/published.json" \
        --experiment validation-zero3 --check "$X/thresholds.json" >"$tmp/res.out" 2>"$tmp/res.err"
    rc=$?
    [ "$rc" -eq 0 ] || fail "results.py exit $rc: $(cat "$tmp/res.err")"
    python3 - "$tmp/res/results.csv" "$ROOT/configs/software/deepspeed-zero3.json" >"$tmp/bands.out" 2>&1 <<'PY' ||
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 6, f"{len(rows)} rows"
bad = [r["name"] for r in rows if r["feasible"] != "True"]
assert not bad, f"infeasible: {bad}"
fits = [r for r in rows if r["fit_row"] == "True"]
assert [r["name"] for r in fits] == ["narayanan-z3-174.6b-g768"], f"fit rows: {[r['name'] for r in fits]}"
assert abs(float(fits[0]["error"])) <= 0.001, f"fit row error {fits[0]['error']}"
e = [float(r["error"]) for r in rows if r["fit_row"] != "True"]
doc = json.load(open(sys.argv[2]))
band = [b for b in doc["validation"] if b["device"] == "a100-sxm-80g"]
assert band and band[0]["n_rows"] == 5, f"band {band}"
for key, want in (("min_error", min(e)), ("max_error", max(e))):
    assert abs(band[0][key] - want) <= 0.0015, f"{key} {band[0][key]}, rows give {want:.4f}"
consts = doc["calibration"]["constants"]
assert len(consts) == 1 and consts[0]["device"] == "a100-sxm-80g" and "zero3_comm_scale" in consts[0], consts
PY
        fail "bands: $(cat "$tmp/bands.out")"
fi

# A run on the validated pair reports the band; the same job on another part does not.
run one run "$ROOT/configs/validation/zero3/narayanan-z3-174.6b-g384.json" --format json
expect_rc one 0
expect_in "$tmp/one.out" '"validated":  true' "deepspeed-zero3 on A100 80GB validated"
expect_in "$tmp/one.out" '"residual_band"' "deepspeed-zero3 on A100 80GB band"
sed 's/"system": "dgx-a100-80g"/"system": "dgx-h100"/' \
    "$ROOT/configs/validation/zero3/narayanan-z3-174.6b-g384.json" >"$tmp/h100.json"
run h100 run "$tmp/h100.json" --format json
expect_rc h100 0
expect_in "$tmp/h100.out" '"validated":  false' "deepspeed-zero3 on H100 not validated"

# The profile parser: zero3_comm_scale only on a zero3_blocking profile, and not beside a
# compute_scale (one constant per profile and device).
python3 - "$ROOT/configs/software/deepspeed-zero3.json" "$tmp" <<'PY' || fail "profile variants"
import json, sys
doc = json.load(open(sys.argv[1]))
a = dict(doc, zero3_blocking=False)
json.dump(a, open(sys.argv[2] + "/noblock.json", "w"))
b = json.loads(json.dumps(doc))
b["calibration"]["constants"][0]["compute_scale"] = 0.9
json.dump(b, open(sys.argv[2] + "/both.json", "w"))
c = dict(doc, zero3_blocking=False, zero3_grad_allreduce=True)
del c["calibration"]
json.dump(c, open(sys.argv[2] + "/noblockar.json", "w"))
PY
for v in noblock both noblockar; do
    sed "s|\"software\": \"deepspeed-zero3\"|\"software\": \"$tmp/$v.json\"|" \
        "$ROOT/configs/validation/zero3/narayanan-z3-174.6b-g384.json" >"$tmp/job-$v.json"
    run "$v" run "$tmp/job-$v.json" --format json
    expect_rc "$v" 2
done
expect_in "$tmp/noblock.err" 'calibration.constants[0]: zero3_comm_scale needs "zero3_blocking": true' "refuses a scale it cannot apply"
expect_in "$tmp/both.err" 'both compute_scale and zero3_comm_scale' "refuses two constants"
expect_in "$tmp/noblockar.err" 'zero3_grad_allreduce: zero3_grad_allreduce needs "zero3_blocking": true' "refuses a gradient all-reduce without the blocking path"
finish
