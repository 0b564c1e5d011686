#!/usr/bin/env python3
"""Calibrate the accelerators' two kernel-throughput constants, once per device, from cited
measurements that are NOT the validation rows.

The constants (hardware/accelerators/*.json):
  memory_efficiency  - achieved fraction of HBM bandwidth of the element-wise kernels of a
                       training step (softmax, dropout, norms, residuals, fp8 casts)
  sustained_compute  - fraction of their benchmark throughput (GEMM curve, flash attention)
                       that compute-bound kernels sustain inside a training step (power-capped
                       clocks, launch gaps)

Sources and method:
  A100  Korthikanti et al. 2022, Table 4: one 22B transformer layer (tp 8, microbatch 4,
        seq 2048, fp16) timed on Selene under five settings (ten numbers). Both constants by
        grid search. This is a kernel-level measurement; the iteration-level tables of the
        same papers are the held-out validation (experiments/validation-a100).
  all   Element-wise kernels run at the fraction of device-copy bandwidth the A100 fit finds
        (its memory_efficiency / its measured copy efficiency 0.84), applied to each device's
        own measured copy efficiency (hardware/README.md). A100 is the only device with a
        kernel-level layer measurement in the references.
  H100  sustained_compute by bisection on ONE end-to-end row: NVIDIA NeMo 24.12 performance
        summary, DGX-H100, FP8, LLAMA2-7B on 8 GPUs (GBS 128, MBS 1, seq 4096, TP 1, PP 1):
        16,934 tokens/s/GPU. A single node with data parallelism only: the closest row to a
        kernel-throughput measurement. The other rows of that table are validation
        (experiments/validation-hopper). H200 (same GH100 die, 700 W) takes H100's value,
        and so do H800, H100 NVL and H100 PCIe (no published training row; unvalidated).
  B200  The same on the NeMo 25.11 container (Megatron-Bridge v0.2.0), DGX-B200, FP8-CS,
        LLAMA3_8B on 8 GPUs (GBS 128, MBS 2, seq 8192, TP 1; gradients reduced in bf16, as the
        performance recipes set them): 30,624 tokens/s/GPU (Megatron-Bridge docs/performance-
        summary-archive.md). GB200 and B300 take B200's value. The current release, not the
        first Blackwell one: the same job ran at 26,006 tokens/s/GPU in NeMo 25.02 and at
        29,994 in 25.09, so the 25.02 rows are validated under their own profile, nemo-2502,
        whose one constant (compute_scale on b200-sxm) is fitted below on that 25.02 row.
  A100 PCIe and L40S take the A100 constants (L40S: sustained 1, element-wise by the ratio).
  AMD   no measurement: sustained_compute stays 1 (their GEMM curves top at the measured
        MAMF, which is already low), element-wise by the transferred ratio.

Usage: experiments/calibration/calibrate.py [--trainsim PATH] [--write]
Prints every fitted constant and the error tables; --write stores them in the catalogue.
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ACC = os.path.join("hardware", "accelerators")

# Device-copy bandwidth fractions (hardware/README.md gives the measurement behind each).
# The PCIe/NVL Hopper parts, H800 and the 500 W HBM2e H100 use the H100 NVL BabelStream copy
# (same GH100 memory system); the A100 PCIe parts the A100 copy; L40S (GDDR6) has no
# measurement: 0.85 assumed.
COPY_EFFICIENCY = {"a100-sxm-80g": 0.84, "a100-sxm-40g": 0.84, "h100-sxm": 0.85, "h200-sxm": 0.85,
                   "b200-sxm": 0.85, "gb200": 0.85, "b300-sxm": 0.85, "mi300x": 0.81, "mi325x": 0.80,
                   "a100-pcie-40g": 0.84, "a100-pcie-80g": 0.84, "h100-nvl": 0.85, "h100-pcie": 0.85,
                   "h800-sxm": 0.85, "l40s": 0.85, "h100-sxm-96g-500w": 0.85}
# Devices without a row of their own take the sustained_compute of their closest calibrated part.
SUSTAINED_FROM = {"h200-sxm": "h100-sxm", "gb200": "b200-sxm", "b300-sxm": "b200-sxm",
                  "h100-nvl": "h100-sxm", "h100-pcie": "h100-sxm", "h800-sxm": "h100-sxm",
                  "h100-sxm-96g-500w": "h100-sxm"}
# A100 variants take both A100 constants (same GA100 chip and HBM2/HBM2e memory system).
A100_FAMILY = ("a100-sxm-80g", "a100-sxm-40g", "a100-pcie-40g", "a100-pcie-80g")

# (label, parallel settings, published forward ms, published backward ms incl. recompute)
TABLE4 = [
    ("baseline, no recompute", {}, 7.7, 11.9),
    ("sequence parallel", {"sequence_parallel": True}, 7.2, 11.8),
    ("full recompute", {"recompute": "full"}, 7.7, 19.5),
    ("selective recompute", {"recompute": "selective"}, 7.7, 13.2),
    ("selective + sequence", {"recompute": "selective", "sequence_parallel": True}, 7.2, 13.1),
]

# One end-to-end row per device family: accelerator, system, model, seq, gpus, gbs, mbs,
# parallel, published tokens/s/GPU, citation.
ROWS = {
    "h100-sxm": ("dgx-h100", "llama2-7b", 4096, 8, 128, 1, {"tp": 1, "pp": 1}, 16934,
                 "NVIDIA NeMo 24.12 performance summary, DGX-H100 FP8, LLAMA2-7B, 8 GPUs"),
    # NeMo 2.2.0 (the 25.02 container) performance scripts reduce FP8 runs' gradients in bf16
    # (grad_reduce_in_fp32 False: NVIDIA/NeMo v2.2.0 scripts/llm/performance/pretrain_llama3_8b.py,
    # commit 78f445f, 2025-01-30); the 24.12 container's NeMo 2.1.0 predates it (fp32).
    # Megatron-Bridge v0.2.0 (the 25.11 container) reduces gradients in bf16 too
    # (scripts/performance/configs/llama3/llama3_llm_pretrain.py: grad_reduce_in_fp32 False).
    # With grad_reduce_in_fp32 False Megatron-Core also accumulates them in bf16: its gradient
    # buffer (main_grad) takes the parameters' dtype (megatron/core/distributed/
    # param_and_grad_buffer.py), so fp32_grads is false.
    "b200-sxm": ("dgx-b200", "llama3-8b", 8192, 8, 128, 2,
                 {"tp": 1, "pp": 1, "fp32_grads": False, "grad_reduce_dtype": "bf16"}, 30624,
                 "NVIDIA NeMo 25.11 performance summary (Megatron-Bridge docs/performance-summary-"
                 "archive.md at 067f987df03b), DGX-B200 FP8-CS, LLAMA3_8B, 8 GPUs"),
}

# Profiles of older releases: one compute_scale per device, on that release's row of the
# device's calibration job. NeMo 2.2.0 (the 25.02 container) performance scripts reduce FP8
# runs' gradients in bf16 (commit 78f445f, 2025-01-30).
PROFILE_ROWS = {
    ("nemo-2502", "b200-sxm"): (
        ("dgx-b200", "llama3-8b", 8192, 8, 128, 2,
         {"tp": 1, "pp": 1, "fp32_grads": False, "grad_reduce_dtype": "bf16"},
         26006, "NVIDIA NeMo 25.02 performance summary, DGX-B200 FP8, LLAMA3-8B, 8 GPUs "
         "(configs/validation/nemo-b200-* name this profile)")),
}


def run(trainsim, home, tmp, job, name="job"):
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(job, f)
    r = subprocess.run([trainsim, "run", path, "--format", "json"], capture_output=True, text=True,
                       env=dict(os.environ, TRAINSIM_HOME=home))
    if r.returncode:
        sys.exit("trainsim failed: " + r.stderr)
    return json.loads(r.stdout)


def table4_job(parallel):
    p = {"tp": 8, "pp": 1, "microbatch": 4, "attention": "standard"}
    p.update(parallel)
    return {"model": "korthikanti-22b", "system": "dgx-a100-80g", "gpus": 8, "global_batch": 4,
            "precision": "fp16", "parallel": p}


def table4_errors(trainsim, home, tmp):
    out = []
    for i, (label, par, f, b) in enumerate(TABLE4):
        d = run(trainsim, home, tmp, table4_job(par), "t4-%d" % i)["layer"]
        pf, pb = 1e3 * d["forward_s"], 1e3 * (d["backward_s"] + d["recompute_s"])
        out.append((label, f, pf, b, pb))
    return out


def set_constants(home, name, sustained, memory):
    path = os.path.join(home, ACC, name + ".json")
    d = json.load(open(path))
    d["sustained_compute"] = round(sustained, 3)
    d["memory_efficiency"] = round(memory, 3)
    json.dump(d, open(path, "w"), indent=2)


def row_job(row, software=None):
    system, model, seq, gpus, gbs, mbs, par, _, _ = row
    m = json.load(open(os.path.join(ROOT, "models", model + ".json")))
    m["seq_len"] = seq
    p = dict(par, microbatch=mbs, zero=1)
    job = {"model": m, "system": system, "gpus": gpus, "global_batch": gbs, "precision": "fp8",
           "parallel": p}
    if software:
        job["software"] = software
    return job


def set_profile_scale(home, profile, device, scale, row=None):
    """The profile file (in home, or the repository when row is given) with one
    compute_scale for device; returns its path."""
    base = ROOT if row else home
    path = os.path.join(base, "configs", "software", profile + ".json")
    d = json.load(open(path))
    consts = [c for c in d["calibration"]["constants"] if c["device"] != device]
    c = {"device": device, "compute_scale": round(scale, 4), "row": row or "being fitted"}
    consts.append(c)
    d["calibration"]["constants"] = consts
    with open(path, "w") as f:
        json.dump(d, f, indent=2)
        f.write("\n")
    return path


def restate(source, path, sus, mem, ratio):
    """The source text with the written values: every 'sustained_compute X' and
    'memory_efficiency X' it states, and the transferred element-wise/copy ratio."""
    for key, value in (("sustained_compute", sus), ("memory_efficiency", mem)):
        source, n = re.subn(r"\b%s \d+(\.\d+)?\b" % key, "%s %.3f" % (key, value), source)
        if n == 0:
            sys.exit("%s: source: does not state %s (add the value and its row)" % (path, key))
    return re.sub(r"x \d\.\d{3}, the element-wise/copy ratio",
                  "x %.3f, the element-wise/copy ratio" % ratio, source)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trainsim", default=os.path.join(ROOT, "build", "sim", "trainsim"))
    ap.add_argument("--write", action="store_true", help="store the constants in hardware/")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ts-cal-")
    try:
        home = os.path.join(tmp, "home")
        shutil.copytree(os.path.join(ROOT, "models"), os.path.join(home, "models"))
        shutil.copytree(os.path.join(ROOT, "hardware"), os.path.join(home, "hardware"))
        # The fit rows run on the shipped megatron-core profile (its attention kernels).
        shutil.copytree(os.path.join(ROOT, "configs", "software"),
                        os.path.join(home, "configs", "software"))

        # A100: grid over both constants on Korthikanti Table 4.
        best = None
        for g100 in range(80, 101):
            for m100 in range(50, 91, 2):
                set_constants(home, "a100-sxm-80g", g100 / 100, m100 / 100)
                e = table4_errors(args.trainsim, home, tmp)
                errs = [pf / f - 1 for _, f, pf, _, _ in e] + [pb / b - 1 for _, _, _, b, pb in e]
                rms = (sum(x * x for x in errs) / len(errs)) ** 0.5
                if best is None or rms < best[0]:
                    best = (rms, g100 / 100, m100 / 100)
        _, a_sus, a_mem = best
        set_constants(home, "a100-sxm-80g", a_sus, a_mem)
        print("A100 (Korthikanti Table 4): sustained_compute %.2f, memory_efficiency %.2f" % (a_sus, a_mem))
        print("| Table 4 row | fwd ms | predicted | error | bwd ms | predicted | error |")
        print("|---|---|---|---|---|---|---|")
        errs = []
        for label, f, pf, b, pb in table4_errors(args.trainsim, home, tmp):
            errs += [pf / f - 1, pb / b - 1]
            print("| %s | %.1f | %.2f | %+.1f%% | %.1f | %.2f | %+.1f%% |"
                  % (label, f, pf, 100 * (pf / f - 1), b, pb, 100 * (pb / b - 1)))
        print("mean |error| %.1f%%, max %.1f%%\n" % (100 * sum(map(abs, errs)) / len(errs),
                                                   100 * max(map(abs, errs))))

        ratio = a_mem / COPY_EFFICIENCY["a100-sxm-80g"]
        print("element-wise / copy bandwidth ratio (from A100): %.3f\n" % ratio)
        constants = {name: (a_sus, a_mem) for name in A100_FAMILY}
        for name, copy in COPY_EFFICIENCY.items():
            if name in A100_FAMILY:
                continue
            constants[name] = (1.0, copy * ratio)
            set_constants(home, name, 1.0, copy * ratio)

        # Hopper / Blackwell: bisection of sustained_compute on one row each.
        for name, row in ROWS.items():
            lo, hi = 0.5, 1.0
            published = row[7]
            for _ in range(30):
                mid = (lo + hi) / 2
                set_constants(home, name, mid, constants[name][1])
                d = run(args.trainsim, home, tmp, row_job(row), "row")
                tps = d["tokens_per_s"] / row[3]
                if tps > published:
                    hi = mid
                else:
                    lo = mid
            sus = (lo + hi) / 2
            constants[name] = (sus, constants[name][1])
            set_constants(home, name, sus, constants[name][1])
            d = run(args.trainsim, home, tmp, row_job(row), "row")
            print("%s: sustained_compute %.3f from %s: %d tokens/s/GPU published, %.0f predicted"
                  % (name, sus, row[8], published, d["tokens_per_s"] / row[3]))
        for name, src in SUSTAINED_FROM.items():
            constants[name] = (constants[src][0], constants[name][1])
            set_constants(home, name, constants[name][0], constants[name][1])

        # Older releases: bisection of the profile's compute_scale on its row.
        scales = {}
        for (profile, name), row in PROFILE_ROWS.items():
            lo, hi = 0.5, 1.5
            for _ in range(30):
                mid = (lo + hi) / 2
                set_profile_scale(home, profile, name, mid)
                d = run(args.trainsim, home, tmp, row_job(row, profile), "row")
                if d["tokens_per_s"] / row[3] > row[7]:
                    hi = mid
                else:
                    lo = mid
            scales[(profile, name)] = (lo + hi) / 2
            set_profile_scale(home, profile, name, scales[(profile, name)])
            d = run(args.trainsim, home, tmp, row_job(row, profile), "row")
            print("%s on %s: compute_scale %.4f from %s: %d tokens/s/GPU published, %.0f predicted"
                  % (profile, name, scales[(profile, name)], row[8], row[7],
                     d["tokens_per_s"] / row[3]))

        print("\n| accelerator | sustained_compute | memory_efficiency |")
        print("|---|---|---|")
        for name in sorted(constants):
            print("| %s | %.3f | %.3f |" % (name, constants[name][0], constants[name][1]))

        if args.write:
            for name, (sus, mem) in constants.items():
                path = os.path.join(ROOT, ACC, name + ".json")
                d = json.load(open(path))
                d["sustained_compute"] = round(sus, 3)
                d["memory_efficiency"] = round(mem, 3)
                d["source"] = restate(d["source"], path, sus, mem, ratio)
                with open(path, "w") as f:
                    json.dump(d, f, indent=2)
                    f.write("\n")
            for (profile, name), scale in scales.items():
                row = PROFILE_ROWS[(profile, name)]
                set_profile_scale(home, profile, name, scale,
                                  "%s: %d tokens/s/GPU" % (row[8], row[7]))
            print("\nwrote the constants to %s and configs/software" % os.path.join(ROOT, ACC))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())
