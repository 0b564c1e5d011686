#!/usr/bin/env bash
# Command-line tests of `trainsim import skypilot`: a SkyPilot catalogue file (real Lambda, AWS,
# Google Cloud and Azure rows, and AWS-format rows, tests/data/skypilot) lists its GPU instance
# types with the price per GPU-hour = instance price / GPU count (a Google Cloud VM row plus the
# GPU row of its zone; an AWS instance with no on-demand Price priced by spot only); a price file
# written for one type has those prices (spot from the cheapest zone, named), loads in a job's
# cost section and bills at that rate; bad files and unknown types exit 2.
#
# usage: bash tests/cli_import_skypilot.sh path/to/trainsim   (ctest passes the built binary)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_import_skypilot "$@"
SKY=$DATA/skypilot

run list import skypilot "$SKY/lambda-vms.csv"
expect_rc list 0
expect_in "$tmp/list.out" "gpu_8x_h100_sxm5             H100             8          3.990" "8x H100: 31.92 / 8"
expect_in "$tmp/list.out" "gpu_8x_b200_sxm6             B200             8          6.690" "8x B200: 53.52 / 8"
if grep -q cpu_4x_general "$tmp/list.out"; then fail "a CPU instance is listed"; fi

run h100 import skypilot "$SKY/lambda-vms.csv" --instance gpu_8x_h100_sxm5 --region us-east-1 \
    --date 2026-11 --name lambda-h100-test --out "$tmp/lambda-h100-test.json"
expect_rc h100 0
expect_in "$tmp/lambda-h100-test.json" '"on_demand":  3.99' "on-demand per GPU-hour"
expect_in "$tmp/lambda-h100-test.json" '"date":  "2026-11"' "date"
if grep -q '"spot"' "$tmp/lambda-h100-test.json"; then fail "Lambda lists no spot price, but the file has one"; fi

run p4d import skypilot "$SKY/aws-p4d-vms.csv" --instance p4d.24xlarge --out "$tmp/p4d.json"
expect_rc p4d 0
expect_in "$tmp/p4d.json" '"on_demand":  4.0966' "p4d on-demand 32.773 / 8"
expect_in "$tmp/p4d.json" '"spot":  1.1599' "p4d spot: the cheapest zone, 9.279 / 8"
expect_in "$tmp/p4d.json" 'the catalogue states no date' "no --date"

# Real AWS, Google Cloud and Azure catalogue rows (tests/data/skypilot/README.md). Per GPU-hour
# by hand from the rows: instance Price / AcceleratorCount; spot from the cheapest zone; a
# Google Cloud VM row plus the GPU row of its zone.
python3 - "$BIN" "$SKY" "$tmp" <<'PY' || fail "a catalogue price differs from the rows' hand computation"
import json, subprocess, sys
bin, sky, tmp = sys.argv[1:]
bad = []
def listing(csv):
    out = subprocess.run([bin, "import", "skypilot", "%s/%s" % (sky, csv)], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    return {l.split()[0]: l.split() for l in out[1:]}
def near(what, got, want, tol):
    if want is None:
        if got is not None:
            bad.append("%s: %r, want no price" % (what, got))
    elif got is None or abs(got - want) > tol:
        bad.append("%s: %r, want %.7f" % (what, got, want))
def num(s):
    return None if s == "-" else float(s)
# instance: (on-demand, spot) per GPU-hour, the listing's minimum over the file's offers
want = {
    "aws-v8-vms.csv": {
        "p5.48xlarge": (55.04 / 8, 17.6289 / 8),
        "p5e.48xlarge": (None, 18.7359 / 8),          # Price empty in every row
        "p5en.48xlarge": (63.296 / 8, 16.5551 / 8),
        "p6-b200.48xlarge": (113.9328 / 8, 13.0338 / 8)},
    "gcp-v8-vms.csv": {
        "a3-highgpu-8g": ((9.46006 + 33.60609) / 8, (2.15966 + 17.8848) / 8),
        "a3-megagpu-8g": ((9.46006 + 82.75421) / 8, (2.88933 + 25.2808) / 8),
        "a3-ultragpu-8g": ((12.266 + 74.49392) / 8, (3.74713 + 37.2472) / 8),
        "a4-highgpu-8g": ((0.0 + 90.216) / 8, (0.0 + 32.6064) / 8)},
    "azure-v8-vms.csv": {
        "Standard_NC40ads_H100_v5": (6.98, 6.98),
        "Standard_ND96amsr_A100_v4": (32.77 / 8, 3.6047 / 8),
        "Standard_ND96isr_H100_v5": (98.32 / 12, 98.32 / 12)},   # the row says 12 GPUs
}
for csv, rows in want.items():
    got = listing(csv)
    if sorted(got) != sorted(rows):
        bad.append("%s lists %s, want %s" % (csv, sorted(got), sorted(rows)))
        continue
    for inst, (od, sp) in rows.items():
        near("%s %s on-demand" % (csv, inst), num(got[inst][3]), od, 5e-4)
        near("%s %s spot" % (csv, inst), num(got[inst][4]), sp, 5e-4)
# Price files for one region: 4 decimals, the spot zone named.
def price_file(csv, inst, region):
    out = "%s/%s.json" % (tmp, inst)
    subprocess.run([bin, "import", "skypilot", "%s/%s" % (sky, csv), "--instance", inst,
                    "--region", region, "--date", "2026-12", "--out", out], check=True)
    return json.load(open(out))
for csv, inst, region, od, sp, zone in [
        ("aws-v8-vms.csv", "p5e.48xlarge", "us-east-2", None, 18.7359 / 8, "use2-az3"),
        ("aws-v8-vms.csv", "p6-b200.48xlarge", "us-east-1", 113.9328 / 8, 13.0338 / 8,
         "use1-atl2-az1"),
        ("gcp-v8-vms.csv", "a3-highgpu-8g", "us-east4", (9.46006 + 78.37241) / 8,
         (2.15966 + 17.8848) / 8, "us-east4-a"),
        ("azure-v8-vms.csv", "Standard_ND96amsr_A100_v4", "eastus2", 32.77 / 8, 3.611254 / 8, "")]:
    f = price_file(csv, inst, region)
    g = f["gpu_hour"]
    near("%s on_demand" % inst, g.get("on_demand"), od, 5e-5)
    near("%s spot" % inst, g.get("spot"), sp, 5e-5)
    if ("cheapest zone: %s %s" % (region, zone)).strip() + ")" not in f["source"]:
        bad.append("%s: source does not name the spot zone %s %s: %s" % (inst, region, zone, f["source"]))
    if csv.startswith("gcp") and "VM row + its GPU row" not in f["source"]:
        bad.append("%s: source does not say the price is the VM and GPU rows' sum" % inst)
    if od is None and "no on-demand price" not in f["source"]:
        bad.append("%s: source does not say there is no on-demand price" % inst)
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# A spot-only price file loads in a job that buys spot, and refuses the default on-demand.
"$BIN" import skypilot "$SKY/aws-v8-vms.csv" --instance p5e.48xlarge --region us-east-2 \
    --date 2026-12 --out "$tmp/p5e.json" 2>"$tmp/p5e.err" || fail "p5e price file"
for pricing in spot on_demand; do
    cat >"$tmp/job-p5e-$pricing.json" <<J
{"model": "llama3-8b", "system": "aws-p5en", "nodes": 1, "global_batch": 64, "precision": "bf16",
 "parallel": {"tp": 8}, "training": {"tokens": "1B"}, "reliability": "none",
 "cost": {"prices": "$tmp/p5e.json", "pricing": "$pricing"}}
J
    run "job-p5e-$pricing" run "$tmp/job-p5e-$pricing.json" --format json
    if [ "$pricing" = spot ]; then expect_rc job-p5e-spot 0; else expect_rc job-p5e-on_demand 2; fi
done
expect_in "$tmp/job-p5e-on_demand.err" 'gpu_hour.on_demand: no price' "no on-demand price"

# The price file bills: the same job on a file with twice the price costs twice the compute.
sed 's/"on_demand":  3.99/"on_demand":  7.98/' "$tmp/lambda-h100-test.json" >"$tmp/double.json"
for f in lambda-h100-test double; do
    cat >"$tmp/job-$f.json" <<J
{"model": "llama3-8b", "system": "dgx-h100", "nodes": 1, "global_batch": 64, "precision": "bf16",
 "parallel": {"tp": 8}, "training": {"tokens": "1B"}, "reliability": "none",
 "cost": {"prices": "$tmp/$f.json", "pricing": "on_demand"}}
J
    run "job-$f" run "$tmp/job-$f.json" --format json
    expect_rc "job-$f" 0
done
python3 - "$tmp/job-lambda-h100-test.out" "$tmp/job-double.out" <<'PY' || fail "twice the price did not bill twice the compute"
import json, sys
a, b = (json.load(open(f))["cost_breakdown"]["compute"] for f in sys.argv[1:])
sys.exit(0 if a > 0 and abs(b / a - 2) < 1e-9 else 1)
PY

# Refusals.
run unknown import skypilot "$SKY/lambda-vms.csv" --instance gpu_8x_tpu
expect_rc unknown 2
expect_in "$tmp/unknown.err" 'no GPU instance "gpu_8x_tpu"' "unknown type"
run region import skypilot "$SKY/lambda-vms.csv" --instance gpu_8x_h100_sxm5 --region mars-1
expect_rc region 2
printf 'a,b,c\n1,2,3\n' >"$tmp/other.csv"
run other import skypilot "$tmp/other.csv"
expect_rc other 2
expect_in "$tmp/other.err" "no InstanceType column" "not a catalogue"
head -2 "$SKY/lambda-vms.csv" >"$tmp/ragged.csv"
echo 'gpu_x,H100,8.0,1' >>"$tmp/ragged.csv"
run ragged import skypilot "$tmp/ragged.csv"
expect_rc ragged 2
expect_in "$tmp/ragged.err" "ragged.csv:3:" "ragged row"
run noout import skypilot "$SKY/lambda-vms.csv" --out "$tmp/x.json"
expect_rc noout 2
run nofile import skypilot
expect_rc nofile 2

finish
