#!/usr/bin/env python3
"""Turn the MosaicML llm-foundry training benchmark tables into llm-foundry-rows.csv.

Usage (python3 standard library only):
  git -C LLM_FOUNDRY show 8c8dd48f72168c5d51e2f7b151595892a8fba43d:scripts/train/benchmarking/README.md > head.md
  git -C LLM_FOUNDRY show 9fa3ceb9a49cc28a91deee5e9166eab6b3122c8b:examples/llm/throughput/README.md > old.md
  extract_rows.py head.md old.md > llm-foundry-rows.csv

Every number in the CSV is copied from head.md. old.md (the April 2023 tables) is read only to
tell which rows of today's "A100 80GB" table were carried over from April 2023 (identical rows)
and so ran with that era's software; see README.md for the software of each era.
Checks made on every row (exit status 1 if one fails):
  - NumParams equals 12 L d^2 + 13 L d + 2 d + (50368 + seq_len) d for the model's yaml
    (learned positions, biases, tied embeddings: the MPT defaults of those yamls);
  - MFU equals (6 N + 12 L d s) * T / (gpus * peak) with the peak collect_results.py takes
    from Composer (A100 312, H100 bf16 989.5, H100 fp8 1979 TFLOP/s), within the rounding of
    the published throughput;
  - GradAccum equals ceil(GlobalBatchSize / gpus / MicroBatchSize) (collect_results.py).
"""
import csv
import math
import sys

REPO = "mosaicml/llm-foundry"
HEAD_COMMIT = "8c8dd48f72168c5d51e2f7b151595892a8fba43d"
PATH = "scripts/train/benchmarking/README.md"

# model: (d_model, n_heads, n_layers) from scripts/train/yamls/pretrain/mpt-SIZE.yaml
MODELS = {
    "125m": (768, 12, 12), "350m": (1024, 16, 24), "760m": (1536, 12, 24),
    "1b": (2048, 16, 24), "3b": (2560, 20, 32), "7b": (4096, 32, 32),
    "13b": (5120, 40, 40), "30b": (7168, 56, 48), "70b": (8192, 64, 80),
}
# Composer composer/callbacks/speed_monitor.py GPU_AVAILABLE_FLOPS (what collect_results.py
# divides by): a100 bf16 312e12; h100-sxm amp_bf16 1.979e15 / 2, amp_fp8 3.958e15 / 2.
PEAK = {("a100", "bf16"): 312e12, ("a100", "amp_bf16"): 312e12,
        ("h100", "amp_bf16"): 1.979e15 / 2, ("h100", "amp_fp8"): 3.958e15 / 2}

# Provenance of each table (git log -p of the README; see README.md "Where the rows come from")
ERA_2023_04 = ("2023-04-04", "9fa3ceb9a49cc28a91deee5e9166eab6b3122c8b")
ERA_2023_10 = ("2023-10-19", "b2a43a1477a45f40f4086a1c72f851b0ab42d0ac")
ERA_2024_01 = ("2024-01-06", "5e85bd62d4ec9e13353ca95877477602ab538e5b")
TABLES = {
    "H100 80GB BF16 (Large Scale, >= 128 GPUs)": ("h100-bf16-large", ERA_2024_01),
    "H100 80GB BF16": ("h100-bf16", ERA_2023_10),
    "H100 80GB FP8": ("h100-fp8", ERA_2023_10),
    "A100 80GB with 1600 Gbps node-node interconnect (RoCE)": ("a100-80g", ERA_2023_10),
    "A100 40GB with 1600 Gbps node-node interconnect (RoCE)": ("a100-40g", ERA_2023_04),
}
KEY = ["Model", "SeqLen (T)", "# GPUs", "GPU", "MFU", "HFU", "MicroBatchSize", "GradAccum",
       "GlobalBatchSize", "Throughput (T/s)", "Precision", "MP Mode", "Sharding Strategy",
       "Activation Checkpointing"]


def tables(text):
    out, head, cols = [], None, None
    for line in text.splitlines():
        if line.startswith("#"):
            head, cols = line.lstrip("#").strip(), None
            continue
        if not (line.startswith("|") and head):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "Model":
            cols = cells
        elif cols and not cells[0].startswith("---"):
            out.append((head, dict(zip(cols, cells))))
    return out


def attention(table_id, model):
    """MPT attn_impl and the kernel it ran (README.md, "Software of each era")."""
    if table_id == "h100-bf16-large" and model in ("1b", "3b", "7b", "70b"):
        return "flash", "fa2"        # sweep.py at 5e85bd6: --attn_impl flash, .[gpu-flash2]
    return "triton", "triton"        # submit_benchmarks.py default --attn_impl triton


def main():
    head = tables(open(sys.argv[1]).read())
    old = {tuple(d[k] for k in KEY) for _, d in tables(open(sys.argv[2]).read())}
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["table", "table_date", "row_commit", "model", "gpu", "n_gpus", "seq_len",
                "global_batch", "global_batch_tokens", "microbatch", "grad_accum", "precision",
                "fsdp_mixed_precision", "attention_impl", "attention_kernel",
                "activation_checkpointing", "activation_cpu_offload", "fsdp_sharding",
                "limit_all_gathers", "throughput_samples_per_s", "throughput_tokens_per_s",
                "throughput_tokens_per_s_per_gpu", "model_tflop_per_gpu", "mfu_percent",
                "hfu_percent", "num_params", "source_repo", "source_path", "source_commit",
                "table_heading"])
    bad = 0
    for heading, d in head:
        table_id, (date, commit) = TABLES[heading]
        if table_id == "a100-80g" and tuple(d[k] for k in KEY) in old:
            date, commit = ERA_2023_04
        m = d["Model"]
        dm, _, nl = MODELS[m]
        s, g = int(d["SeqLen (T)"]), int(d["# GPUs"])
        gb, mb, ga = int(d["GlobalBatchSize"]), int(d["MicroBatchSize"]), int(d["GradAccum"])
        n, tps = int(d["NumParams"]), int(d["Throughput (T/s)"])
        want_n = 12 * nl * dm * dm + 13 * nl * dm + 2 * dm + (50368 + s) * dm
        peak = PEAK[(d["GPU"][:4], d["Precision"])]
        per_tok = 6 * n + 12 * nl * dm * s
        mfu_lo, mfu_hi = (100 * per_tok * t / (g * peak) for t in (tps, tps + 1))
        mfu = float(d["MFU"])
        if n != want_n or not (mfu_lo - 0.006 <= mfu <= mfu_hi + 0.006) or \
                ga != math.ceil(gb / g / mb):
            print(f"check failed: {heading}: {d}", file=sys.stderr)
            bad += 1
        impl, kernel = attention(table_id, m)
        w.writerow([table_id, date, commit, f"mpt-{m}", d["GPU"], g, s, gb,
                    d["GlobalBatchSize (T)"], mb, ga, d["Precision"], d["MP Mode"], impl,
                    kernel, d["Activation Checkpointing"].lower(),
                    d["Activation CPUOffload"].lower(), d["Sharding Strategy"], "true",
                    d["Throughput (S/s)"], tps, d["Throughput (T/s/GPU)"], d["Model TFLOP"],
                    d["MFU"], d["HFU"], n, REPO, PATH, HEAD_COMMIT, heading])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
