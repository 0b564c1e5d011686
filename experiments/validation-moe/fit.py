#!/usr/bin/env python3
"""Fit the one compute_scale per (device, software profile) of the MoE profiles, each on the
one published row named in FIT, and write it into configs/software/PROFILE.json.

compute_scale multiplies the accelerator's sustained_compute for jobs on that profile
(sim/spec/software.c "calibration"). The predicted tokens/s/GPU rises monotonically with it, so
bisection finds the value that reproduces the row. Every other row of published.json is
validation. Usage: experiments/validation-moe/fit.py [--trainsim PATH]
Standard library only; deterministic (fixed bisection steps, values rounded to 4 digits).
"""
import argparse
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from validation_common import ROOT, bisect, load, predict, write_calibration  # noqa: E402

# (profile, device): the job of the fit row, one per pair, each a row whose release's recipe ran
# what the profile describes (README.md "Dispatcher of each row"), the most recent such release.
# alltoall: 26.04.01 (Megatron-Bridge v0.4.2: GPT-OSS alltoall on all three systems). flex-eager:
# the 26.04 GPT-OSS B200 / GB200 rows (v0.4.0: HybridEP, no CUDA graphs), the only ones. flex:
# DeepSeek-V3 (the only other flex row, Qwen3-235B, is validation). No row: flex and flex-eager
# on H100 and flex on B200 (unvalidated).
FIT = [
    ("megatron-bridge-alltoall", "h100-sxm", "configs/validation/moe-h100-gpt-oss-120b-bf16-g64-260401.json"),
    ("megatron-bridge-alltoall", "b200-sxm", "configs/validation/moe-b200-gpt-oss-120b-bf16-g64-260401.json"),
    ("megatron-bridge-alltoall", "gb200", "configs/validation/moe-gb200-gpt-oss-120b-bf16-g64-260401.json"),
    ("megatron-bridge-flex-eager", "b200-sxm", "configs/validation/moe-b200-gpt-oss-120b-bf16-g64-2604.json"),
    ("megatron-bridge-flex-eager", "gb200", "configs/validation/moe-gb200-gpt-oss-120b-bf16-g64-2604.json"),
    ("megatron-bridge-flex", "gb200", "configs/validation/moe-gb200-deepseek-v3-bf16-g256-2511.json"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trainsim", default=os.path.join(ROOT, "build/sim/trainsim"))
    args = ap.parse_args()
    published = {r["config"]: r for r in load("experiments/validation-moe/published.json")["rows"]}
    fitted = collections.defaultdict(list)
    for profile, device, config in FIT:
        target = published[config]["published"]
        job = load(config)
        scale = bisect(
            lambda v: predict(args.trainsim, job, profile, device, "compute_scale", v),
            target, 0.05, 2.0, rising=True)
        row = "%s (%s): %.0f tokens/s/GPU" % (
            load(config)["description"].split(": ")[0], config, target)
        print("%-26s %-9s compute_scale %.4f  <- %s" % (profile, device, scale, row))
        fitted[profile].append(collections.OrderedDict([
            ("device", device), ("compute_scale", scale), ("row", row)]))
    # H200 is the H100's GH100 chip with more and faster HBM: it takes the H100 value.
    for profile, consts in list(fitted.items()):
        for c in list(consts):
            if c["device"] == "h100-sxm":
                consts.append(collections.OrderedDict([
                    ("device", "h200-sxm"), ("compute_scale", c["compute_scale"]),
                    ("row", c["row"] + " (= h100-sxm: same GH100 chip)")]))
    for profile, consts in fitted.items():
        write_calibration(profile, (
            "One compute_scale per device (a multiplier on sustained compute), fitted by "
            "experiments/validation-moe/fit.py on the one Megatron-Bridge row named with it; "
            "every other row of experiments/validation-moe/published.json is validation."),
            consts)


if __name__ == "__main__":
    main()
