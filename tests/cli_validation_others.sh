#!/usr/bin/env bash
# The validation set of the profiles pytorch-fsdp-compile, megatron-deepspeed and jax-maxtext
# (experiments/validation-others): the shipped jobs and published.json are what make_jobs.py
# writes from its cited rows, byte for byte; every job runs feasible; the errors against the
# published tokens/s per GPU stay within the regression thresholds of thresholds.json (the
# errors measured when the rows were added plus 2 points, so a regression fails); each
# profile's "validation" band is the one these rows give now (a fit row, which carries a
# calibration constant, reproduces its published figure and stays out of the bands); a
# validated run reports the band.
# Needs python3 (in .ci/run and README's install line).
. "$(dirname "$0")/cli.bash" cli_validation_others "$@"
X=$ROOT/experiments/validation-others

# The jobs are generated from the cited rows.
expect_made_jobs validation-others configs/validation/others
for f in "${shipped[@]}"; do
    grep -q '"description": "Published: [0-9.]* tokens/s/GPU. Source: ' "$f" ||
        fail "$(basename "$f") states its published figure and source"
done

# Accuracy: within the regression thresholds (results.py exits 3 when one is exceeded);
# every job feasible; the profiles' bands equal the rows' errors now (run.sh --write-bands).
# Under valgrind (tests/valgrind.sh sets TS_VALGRIND=1) the 43 runs take minutes and repeat
# the same code paths: the sanitizer run checks accuracy, valgrind runs the largest job (MT-NLG
# on 3,360 GPUs, the most events) and the two runs below.
check_accuracy() {
    python3 "$X/results.py" --trainsim "$BIN" --root "$ROOT" --out "$tmp/res" \
        --check "$X/thresholds.json" >"$tmp/res.out" 2>"$tmp/res.err"
    rc=$?
    [ "$rc" -eq 0 ] || fail "results.py exit $rc: $(cat "$tmp/res.err")"

    python3 - "$tmp/res/results.csv" "$ROOT/configs/software" >"$tmp/bands.out" 2>&1 <<'PY' ||
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = [r["name"] for r in rows if r["feasible"] != "True"]
assert not bad, f"infeasible: {bad}"
# a calibration constant reproduces the published row it was fitted on (fit.py bisects to
# 4 digits), and only the rows the profiles name are fit rows
fits = [r for r in rows if r["fit_row"] == "True"]
assert sorted(r["name"] for r in fits) == ["bloom-a100-176b-g384", "titan-h100-llama3-8b-compile-g8"], \
    f"fit rows: {[r['name'] for r in fits]}"
for r in fits:
    assert abs(float(r["error"])) <= 0.001, f"fit row {r['name']}: error {r['error']}"
groups = {}
for r in rows:
    # rows measured on a part outside the catalogue, and a calibration constant's fit row:
    # no band
    if r["group"] == r["device"] and r["fit_row"] != "True":
        groups.setdefault((r["profile"], r["device"]), []).append(float(r["error"]))
for (prof, dev), e in groups.items():
    doc = json.load(open(f"{sys.argv[2]}/{prof}.json"))
    band = [b for b in doc["validation"] if b["device"] == dev]
    assert band, f"{prof}.json has no validation entry for {dev}"
    b = band[0]
    assert b["n_rows"] == len(e), f"{prof} x {dev}: n_rows {b['n_rows']}, {len(e)} rows"
    for key, want in (("min_error", min(e)), ("max_error", max(e))):
        assert abs(b[key] - want) <= 0.0015, f"{prof} x {dev}: {key} {b[key]}, rows give {want:.4f}"
PY
        fail "bands: $(cat "$tmp/bands.out")"
}
if [ "${TS_VALGRIND:-0}" = 1 ]; then
    run big run "$ROOT/configs/validation/others/mtnlg-a100-530b-g3360.json" --format json
    expect_rc big 0
    expect_in "$tmp/big.out" '"feasible":  true' "MT-NLG 3360 GPUs runs"
else
    check_accuracy
fi

# The README's argument that DeepSpeed's parity-step pipeline schedule costs what 1F1B costs
# (so the megatron-deepspeed gap is stage work, absorbed by its fitted constant): the
# step-by-step timing equals (m + p - 1) (t_F + t_B).
python3 "$X/ds_schedule.py" >"$tmp/ds.out" 2>&1 || fail "ds_schedule.py: $(cat "$tmp/ds.out")"

# A run on a validated pair reports the band; deepspeed-zero3 has no rows and says so.
run one run "$ROOT/configs/validation/others/maxtext-a3-llama2-7b-g8.json" --format json
expect_rc one 0
expect_in "$tmp/one.out" '"validated":  true' "jax-maxtext on H100 validated"
expect_in "$tmp/one.out" '"residual_band"' "jax-maxtext on H100 band"
sed 's/"software": "jax-maxtext"/"software": "deepspeed-zero3"/' \
    "$ROOT/configs/validation/others/maxtext-a3-llama2-7b-g8.json" >"$tmp/z3.json"
run z3 run "$tmp/z3.json" --format json
expect_rc z3 0
expect_in "$tmp/z3.out" '"validated":  false' "deepspeed-zero3 not validated"
finish
