#!/usr/bin/env python3
"""Fit the one compute_scale of (megatron-deepspeed, a100-sxm-80g) on the one published row
named in FIT and write it into configs/software/megatron-deepspeed.json.

Why a constant: the profile already sets what the runs are documented to have used (DeepSpeed
1F1B pipeline with blocking, partitioned p2p, gradient reduction after the flush, full
activation checkpointing, no sequence parallelism, fused Megatron kernels, fp32 gradient
accumulation without fusion; see the profile's "source"), and the rows stay 22-29% faster than
published, a per-microbatch compute gap (MT-NLG's 2021 stack ran 0.219 s per pipeline slot on
the Selene layout where Korthikanti's 2022 Megatron-LM ran 0.168 s; README "Diagnosis"). The
calibration rule allows ONE fitted constant per (profile, device) on ONE stated row.

The row: BLOOM tr11 (the one row whose whole configuration is published: the launch script
gives layout, microbatch, recompute and precision, the log line the iteration time). The three
MT-NLG rows (microbatch unstated, assumed 1) stay validation.

compute_scale multiplies the accelerator's sustained_compute for jobs on the profile
(sim/spec/software.c "calibration"); predicted tokens/s/GPU rises monotonically with it, so
bisection finds the value that reproduces the row. Usage: fit.py [--trainsim PATH]
Standard library only; deterministic (fixed bisection steps, value rounded to 4 digits).
"""
import argparse
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from validation_common import ROOT, bisect, load, predict, write_calibration  # noqa: E402

PROFILE, DEVICE = "megatron-deepspeed", "a100-sxm-80g"
FIT = "bloom-a100-176b-g384"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trainsim", default=os.path.join(ROOT, "build/sim/trainsim"))
    args = ap.parse_args()
    published = {r["name"]: r for r in load("experiments/validation-others/published.json")["rows"]}
    target = published[FIT]["published_tokens_per_s_per_gpu"]
    job = load("configs/validation/others/%s.json" % FIT)
    scale = bisect(lambda v: predict(args.trainsim, job, PROFILE, DEVICE, "compute_scale", v),
                   target, 0.05, 2.0, rising=True)
    row = ("BLOOM tr11 (configs/validation/others/%s.json; bigscience tr11-176B-ml README "
           "iteration 85376: 104.70 s for 2048 x 2048 tokens on 384 GPUs): %.2f tokens/s/GPU"
           % (FIT, target))
    print("%s %s compute_scale %.4f  <- %s" % (PROFILE, DEVICE, scale, row))
    write_calibration(PROFILE, (
        "One compute_scale on a100-sxm-80g (multiplies sustained compute), fitted by "
        "experiments/validation-others/fit.py on the BLOOM row named with it: the "
        "per-microbatch compute gap left after the mechanisms above. MT-NLG rows are "
        "validation; other devices 1."),
        [collections.OrderedDict([("device", DEVICE), ("compute_scale", scale), ("row", row)])])


if __name__ == "__main__":
    main()
