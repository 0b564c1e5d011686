#!/usr/bin/env python3
"""Fit the pytorch-fsdp profile's one constant per device on one published llm-foundry row.

Usage: experiments/validation-frameworks/fit.py [--trainsim PATH] [--dry-run]

The calibration discipline (configs/software/*.json "calibration"): at most one fitted
constant per (profile, device), a multiplier on the accelerator's sustained compute
(`compute_scale`), fitted on ONE cited published row. The rows are fixed here, chosen before
any residual was looked at (README.md, "Calibration"):

  a100-sxm-80g  A100 80GB table (2023-10-19): MPT-3B, seq 2048, 8 GPUs, no activation
                checkpointing, 10,811 tokens/s/GPU
  h100-sxm      H100 80GB BF16 table (2023-10-19): MPT-7B, seq 2048, 8 GPUs, no activation
                checkpointing, 10,643 tokens/s/GPU

For each, the constant that makes trainsim's tokens/s per GPU equal the published value is
found by bisection (throughput rises monotonically with compute_scale): every trial writes a
copy of the profile with that constant into a temporary folder and runs the row's job against
it (`"software"` = the copy's path). The result (4 significant digits) is written into
configs/software/pytorch-fsdp.json with the row named; every other field stays as it is.
A100 40GB (a100-sxm-40g) is the same GA100 chip at the same clocks: it takes the A100 80GB
constant, written as its own entry with the same row. Deterministic; standard library only.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROFILE = os.path.join(ROOT, "configs", "software", "pytorch-fsdp.json")
JOBS = os.path.join(ROOT, "configs", "validation", "llm-foundry")
SRC = "llm-foundry scripts/train/benchmarking/README.md (8c8dd48; rows of 2023-10-19)"

# (device, job, published tokens/s per GPU, row text)
FITS = [
    ("a100-sxm-80g", "foundry-a100-80g-mpt-3b-s2048-g8", 10811,
     SRC + ", A100 80GB table: MPT-3B, seq 2048, 8 GPUs, batch 160, microbatch 10, no "
     "activation checkpointing: 10811 tokens/s/GPU"),
    ("h100-sxm", "foundry-h100-mpt-7b-s2048-g8", 10643,
     SRC + ", H100 80GB BF16 table: MPT-7B, seq 2048, 8 GPUs, batch 48, microbatch 6, no "
     "activation checkpointing: 10643 tokens/s/GPU"),
]
# Devices that take another device's constant (same chip and clocks): device -> source device.
SAME_CHIP = {"a100-sxm-40g": "a100-sxm-80g"}
LO, HI = 0.05, 2.0      # the range the profile parser accepts for compute_scale


def throughput(trainsim, tmp, profile, job_name, device, scale):
    """tokens/s per GPU of the job with `device`'s constant set to `scale`."""
    prof = dict(profile)
    prof["calibration"] = {"note": "trial", "constants": [
        {"device": device, "compute_scale": scale, "row": "trial"}]}
    ppath = os.path.join(tmp, "profile.json")
    with open(ppath, "w") as f:
        json.dump(prof, f)
    with open(os.path.join(JOBS, job_name + ".json")) as f:
        job = json.load(f)
    job["software"] = ppath
    jpath = os.path.join(tmp, "job.json")
    with open(jpath, "w") as f:
        json.dump(job, f)
    proc = subprocess.run([trainsim, "run", jpath, "--format", "json"], cwd=ROOT,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{job_name}: trainsim failed ({proc.returncode}): {proc.stderr.strip()}")
    d = json.loads(proc.stdout)
    if d["accelerator"] != device:
        sys.exit(f"{job_name}: runs on {d['accelerator']}, not {device}")
    return d["tokens_per_s"] / d["gpus"]


def fit(trainsim, tmp, profile, device, job_name, published):
    lo, hi = LO, HI
    t_lo = throughput(trainsim, tmp, profile, job_name, device, lo)
    t_hi = throughput(trainsim, tmp, profile, job_name, device, hi)
    if not t_lo <= published <= t_hi:
        sys.exit(f"{job_name}: {published} tokens/s/GPU is outside what compute_scale "
                 f"{LO}..{HI} reaches ({t_lo:.0f}..{t_hi:.0f})")
    while hi - lo > 1e-5:
        mid = 0.5 * (lo + hi)
        if throughput(trainsim, tmp, profile, job_name, device, mid) < published:
            lo = mid
        else:
            hi = mid
    scale = float(f"{0.5 * (lo + hi):.4g}")
    got = throughput(trainsim, tmp, profile, job_name, device, scale)
    return scale, got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trainsim", default=os.path.join(ROOT, "build", "sim", "trainsim"))
    ap.add_argument("--dry-run", action="store_true", help="print the constants, write nothing")
    a = ap.parse_args()
    with open(PROFILE) as f:
        profile = json.load(f)
    constants = []
    with tempfile.TemporaryDirectory() as tmp:
        for device, job_name, published, row in FITS:
            scale, got = fit(a.trainsim, tmp, profile, device, job_name, published)
            print(f"{device}: compute_scale {scale} ({job_name}: {got:.0f} tokens/s/GPU, "
                  f"published {published}, error {got / published - 1:+.2%})")
            constants.append({"device": device, "compute_scale": scale, "row": row})
    for dev, src in SAME_CHIP.items():
        c = next(c for c in constants if c["device"] == src)
        constants.append({"device": dev, "compute_scale": c["compute_scale"],
                          "row": c["row"] + f" (= {src}: same chip)"})
        print(f"{dev}: compute_scale {c['compute_scale']} (= {src})")
    profile["calibration"] = {
        "note": ("One compute_scale per device (a multiplier on sustained compute), fitted on the "
                 "row named with it by experiments/validation-frameworks/fit.py; a100-sxm-40g "
                 "takes the a100-sxm-80g value (same chip). Per device, not per precision: fp8 "
                 "jobs use it too. Every other llm-foundry row is validation."),
        "constants": constants,
    }
    if a.dry_run:
        return 0
    with open(PROFILE, "w") as f:
        f.write(json.dumps(profile, indent=2) + "\n")
    print(f"wrote {os.path.relpath(PROFILE, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
