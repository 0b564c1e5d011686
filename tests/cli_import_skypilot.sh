#!/usr/bin/env bash
# Command-line tests of `trainsim import skypilot`: a SkyPilot catalogue file (real Lambda rows
# and AWS-format rows, tests/data/skypilot) lists its GPU instance types with the price per
# GPU-hour = instance price / GPU count; a price file written for one type has those prices
# (spot from the cheapest zone), loads in a job's cost section and bills at that rate; bad files
# and unknown types exit 2.
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
