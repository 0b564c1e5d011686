#!/usr/bin/env bash
# The MoE validation jobs (configs/validation/moe-*.json) and experiments/validation-moe/
# published.json are what make_jobs.sh writes from the published CSV, byte for byte; each
# job states its source row and runs. The accuracy gate itself is tests/test_validation.c.
# Needs python3 (make_jobs.sh; in .ci/run and README's install line).
. "$(dirname "$0")/cli.bash" cli_validation_moe "$@"

"$ROOT/experiments/validation-moe/make_jobs.sh" --out "$tmp/jobs" >"$tmp/make.out" ||
    fail "make_jobs.sh failed: $(cat "$tmp/make.out")"
shipped=("$ROOT"/configs/validation/moe-*.json)
made=("$tmp"/jobs/moe-*.json)
[ "${#shipped[@]}" -eq "${#made[@]}" ] || fail "${#shipped[@]} shipped MoE jobs, make_jobs.sh writes ${#made[@]}"
for f in "${made[@]}"; do
    cmp -s "$f" "$ROOT/configs/validation/$(basename "$f")" ||
        fail "configs/validation/$(basename "$f") differs from what make_jobs.sh writes"
done
# published.json names the shipped jobs (its config paths are relative to the repository)
sed 's|"config": "[^"]*/moe-|"config": "configs/validation/moe-|' "$tmp/jobs/published.json" >"$tmp/published.json"
cmp -s "$tmp/published.json" "$ROOT/experiments/validation-moe/published.json" ||
    fail "experiments/validation-moe/published.json differs from what make_jobs.sh writes"
for f in "${shipped[@]}"; do
    grep -q '"description": ".*Source: NVIDIA-NeMo/Megatron-Bridge' "$f" ||
        fail "$(basename "$f") states its source row"
done
# Calibration discipline: every job runs the profile of the dispatcher its recipe ran (the
# profile's moe_dispatcher is the job's), each (profile, device) pair of fit.py has one fit row,
# and that row's job runs that profile on that device.
python3 - "$ROOT" >"$tmp/discipline.out" 2>&1 <<'PY' || fail "calibration discipline: $(cat "$tmp/discipline.out")"
import glob, json, os, sys
root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "experiments/validation-moe"))
import fit
accel = {"dgx-h100": "h100-sxm", "dgx-b200": "b200-sxm", "gb200-nvl72": "gb200"}
for path in sorted(glob.glob(os.path.join(root, "configs/validation/moe-*.json"))):
    job = json.load(open(path))
    sw = json.load(open(os.path.join(root, "configs/software", job["software"] + ".json")))
    if sw["moe_dispatcher"] != job["parallel"]["moe_dispatcher"]:
        sys.exit("%s: dispatcher %s on profile %s (%s)" % (os.path.basename(path),
                 job["parallel"]["moe_dispatcher"], job["software"], sw["moe_dispatcher"]))
pairs = [(p, d) for p, d, _ in fit.FIT]
if len(pairs) != len(set(pairs)):
    sys.exit("a (profile, device) pair has two fit rows")
for profile, device, config in fit.FIT:
    job = json.load(open(os.path.join(root, config)))
    if job["software"] != profile or accel[job["system"]] != device:
        sys.exit("%s: fit row of (%s, %s) runs %s on %s" % (config, profile, device,
                 job["software"], job["system"]))
PY
f=${shipped[0]}
run one run "$f" --format json
expect_rc one 0
expect_in "$tmp/one.out" '"feasible":  true' "$(basename "$f") runs"
finish
