#!/usr/bin/env python3
"""Fit the one compute_scale of (megatron-deepspeed, a100-sxm-80g) and of
(pytorch-fsdp-compile, h100-sxm-96g-500w), each on the one published row named for it, and
write them into the profiles' "calibration".

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

pytorch-fsdp-compile on torchtitan's Grand Teton H100 (96 GB HBM2e, 500 W): the part has no
datasheet, and its peaks are derived by interpolating NVIDIA's SXM5 (700 W) and NVL (400 W)
figures in board power (hardware/accelerators/h100-sxm-96g-500w.json), so nothing measured says
what it sustains. Once the H100 device constant rose from 0.887 to 0.932 (megatron-core's
cuDNN attention tables on Hopper, experiments/calibration), 22 of its 24 rows ran fast, by
+9.4% on average. The row: torchtitan 2024-12 Table 1, Llama 3 8B on 8 GPUs in bf16 (FSDP and
torch.compile only: no TP, PP, CP or float8). The other 23 rows of that part stay validation;
OLMo-core (h100-sxm) and Trainy (h200-sxm) keep compute_scale 1.

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
TITAN_PROFILE, TITAN_DEVICE = "pytorch-fsdp-compile", "h100-sxm-96g-500w"
TITAN_FIT = "titan-h100-llama3-8b-compile-g8"


def fit(trainsim, published, name, profile, device):
    target = published[name]["published_tokens_per_s_per_gpu"]
    job = load("configs/validation/others/%s.json" % name)
    scale = bisect(lambda v: predict(trainsim, job, profile, device, "compute_scale", v),
                   target, 0.05, 2.0, rising=True)
    return target, scale


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trainsim", default=os.path.join(ROOT, "build/sim/trainsim"))
    args = ap.parse_args()
    published = {r["name"]: r for r in load("experiments/validation-others/published.json")["rows"]}

    target, scale = fit(args.trainsim, published, FIT, PROFILE, DEVICE)
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

    target, scale = fit(args.trainsim, published, TITAN_FIT, TITAN_PROFILE, TITAN_DEVICE)
    row = ("torchtitan 2024-12 Table 1 (configs/validation/others/%s.json; pytorch/torchtitan "
           "benchmarks/llama3_h100_202412_torchtitan.md at 820504e, Llama 3 8B, 8 GPUs, bf16, "
           "FSDP + torch.compile): %.0f tokens/s/GPU" % (TITAN_FIT, target))
    print("%s %s compute_scale %.4f  <- %s" % (TITAN_PROFILE, TITAN_DEVICE, scale, row))
    write_calibration(TITAN_PROFILE, (
        "One compute_scale on h100-sxm-96g-500w, fitted by experiments/validation-others/"
        "fit.py on the row named with it: the part's peaks are interpolated, not measured. "
        "The other 23 torchtitan rows on it are validation; h100-sxm and h200-sxm: 1."),
        [collections.OrderedDict([("device", TITAN_DEVICE), ("compute_scale", scale),
                                  ("row", row)])])


if __name__ == "__main__":
    main()
