#!/usr/bin/env python3
"""Write the job files of the validation-zero3 experiment from the published rows below.

The rows: Narayanan et al., 'Efficient Large-Scale Language Model Training on GPU Clusters
Using Megatron-LM', SC21 (arXiv 2104.04473), sec. 5.2 'Comparison to ZeRO-3' and Table 2,
the six 'ZeRO-3 without Model Parallelism' rows: DeepSpeed ZeRO stage 3 integrated into the
Megatron-LM codebase ("We integrated ZeRO into our codebase using the DeepSpeed Python
library"), no tensor or pipeline parallelism, the same global batch at every GPU count, on
Selene (DGX A100 80 GB, 8 x HDR InfiniBand per node, sec. 5: 'Hardware'). The table gives
the parameters, batch, GPUs, microbatch and achieved teraFLOP/s per GPU; the FLOPs are the
paper's eq. (3), F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) per iteration (which counts the
recomputed forward), so tokens/s per GPU = X / (96 l h^2 (1 + s/(6h) + V/(16 l h))). The
table's 'Training time for 300B tokens' column is checked against that figure (300e9 / (tokens/s
per GPU x GPUs), within one day). Batch = GPUs x microbatch in every row: one microbatch per
GPU per iteration (no gradient accumulation).

Stated by the paper: model (174.6B = GPT-3 175B: 96 layers, hidden 12288, 96 heads; 529.6B:
Table 1, 105 layers, hidden 20480, 128 heads), sequence 2048 and vocabulary 51,200 (sec. 5.1),
GPUs, batch, microbatch, no model parallelism. Assumed (the section does not say; the same
codebase and cluster as its Table 1): fp16 mixed precision and full activation recomputation
(eq. 3 'assumes activation recomputation'), Megatron-LM's unfused attention with its fused
softmax (parallel.attention "standard"), DeepSpeed of the paper's time (v1 of the paper: 2021-04;
DeepSpeed v0.3.13, 2021-03-16, released ZeRO-3) with its ZeRO-3 defaults.

Usage: make_jobs.py [--out DIR]   (default: configs/validation/zero3 of this repository)
Writes DIR/NAME.json per row and published.json beside this script (the rows, for results.py).
Standard library only; deterministic.
"""
import argparse
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

SOURCE = ("Narayanan et al. SC21 (arXiv 2104.04473v5) sec. 5.2 and Table 2, 'ZeRO-3 without "
          "Model Parallelism' rows (Megatron-LM codebase with DeepSpeed ZeRO-3, Selene DGX A100 "
          "80GB, 8 x HDR InfiniBand per node)")
TABLE = "Narayanan et al. SC21 Table 2 (ZeRO-3)"

# Table 2: parameters (billion), model file, batch, GPUs, microbatch, teraFLOP/s per GPU,
# training days for 300B tokens. The 640-GPU row is the table's starred one: "The
# 530-billion-parameter GPT model did not fit on 560 GPUs when using a microbatch size of 4
# with ZeRO-3, so we increased the number of GPUs used to 640 and global batch size to 2560".
ROWS = [
    (174.6, "korthikanti-175b", 1536, 384, 4, 144, 90),
    (174.6, "korthikanti-175b", 1536, 768, 2, 88, 74),
    (174.6, "korthikanti-175b", 1536, 1536, 1, 44, 74),
    (529.6, "megatron-529.6b", 2560, 640, 4, 138, 169),
    (529.6, "megatron-529.6b", 2240, 1120, 2, 98, 137),
    (529.6, "megatron-529.6b", 2240, 2240, 1, 48, 140),
]
# Architecture by size (Table 1 / sec. 5.2; sequence 2048, vocabulary 51,200 for both).
ARCH = {174.6: (96, 12288, 96), 529.6: (105, 20480, 128)}
SEQ, VOCAB = 2048, 51200


def eq3_flops_per_token(layers, hidden):
    """Narayanan et al. eq. (3) divided by B s: FLOPs per token, recomputation included."""
    return 96.0 * layers * hidden ** 2 * (1 + SEQ / (6.0 * hidden) + VOCAB / (16.0 * layers * hidden))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "configs", "validation", "zero3"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for size, model, batch, gpus, micro, tflops, days in ROWS:
        layers, hidden, heads = ARCH[size]
        tok = tflops * 1e12 / eq3_flops_per_token(layers, hidden)
        got_days = 300e9 / (tok * gpus) / 86400
        assert abs(got_days - days) < 1.0, f"{size}B on {gpus}: {got_days:.1f} d, table {days}"
        assert batch == gpus * micro, f"{size}B on {gpus}: batch {batch} != gpus x microbatch"
        name = f"narayanan-z3-{size:g}b-g{gpus}"
        desc = (f"Published: {tok:.2f} tokens/s/GPU. Source: {SOURCE}: {size:g}B parameters "
                f"({layers} layers, hidden {hidden}, {heads} heads, sequence {SEQ}, vocabulary "
                f"{VOCAB}), {gpus} GPUs, batch {batch}{'*' if batch == 2560 else ''}, microbatch "
                f"{micro}, model-parallel size 1, {tflops} teraFLOP/s per GPU by eq. (3) "
                f"(= {tok:.2f} tokens/s/GPU), {days} days for 300B tokens. Configuration: ZeRO-3 "
                f"over all {gpus} GPUs, no TP / PP, one microbatch per GPU per iteration. "
                "Assumed (not stated in sec. 5.2; the codebase and cluster of Table 1): fp16, full "
                "activation recomputation (eq. 3 counts it), Megatron-LM's unfused attention "
                "(attention standard), DeepSpeed ZeRO-3 of 2021 (v0.3.13+) defaults.")
        job = {
            "name": name,
            "description": desc,
            "model": model,
            "system": "dgx-a100-80g",
            "gpus": gpus,
            "global_batch": batch,
            "precision": "fp16",
            "software": "deepspeed-zero3",
            "parallel": {"tp": 1, "pp": 1, "microbatch": micro, "recompute": "full", "zero": 3,
                         "attention": "standard"},
        }
        with open(os.path.join(a.out, name + ".json"), "w") as f:
            json.dump(job, f, indent=2, ensure_ascii=False)
            f.write("\n")
        rows.append({"name": name, "profile": "deepspeed-zero3", "system": "dgx-a100-80g",
                     "table": TABLE, "config": f"configs/validation/zero3/{name}.json",
                     "published_tokens_per_s_per_gpu": round(tok, 3),
                     "source": f"{SOURCE}, {size:g}B on {gpus} GPUs: {tflops} teraFLOP/s per GPU"})
    with open(os.path.join(HERE, "published.json"), "w") as f:
        json.dump({"note": "Generated by make_jobs.py from its rows; do not edit.", "rows": rows},
                  f, indent=1, ensure_ascii=False)
        f.write("\n")
    for r in rows:
        print(r["name"], r["published_tokens_per_s_per_gpu"])


if __name__ == "__main__":
    main()
