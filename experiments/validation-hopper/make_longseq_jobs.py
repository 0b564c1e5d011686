#!/usr/bin/env python3
"""Job files for NVIDIA NeMo's long-sequence (context-parallel) pre-training tables.

Source: NVIDIA/NeMo docs/source/performance/performance_long_sequence.md at v2.4.0 (commit
2381f42f6979, 2025-07-25), two tables of model TFLOP/s per GPU against sequence length, the
GPU count growing with the sequence (1K GPUs at 1M tokens):
  * LLAMA2-7B (FP8) - H100, container NeMo 24.03.01, DGX-H100: 4K-1M tokens on 4-1,024 GPUs;
  * LLAMA3-8B (FP8) - B200, container NeMo 25.04.rc2, DGX-B200: 8K-1M tokens on 8-1,024 GPUs.
Each row states GBS and the context-parallel layout (TP, PP, DP, CP) and its TFLOP/s per GPU
("With CP"); the "Without CP" column's layout is not stated, so only the CP layouts are run.
A row whose "without CP" figure is missing ("-1)", out of memory) is still run with CP.

TFLOP/s become tokens/s with the formula NeMo's figures use, Megatron-LM's
num_floating_point_operations: per token 12 l h^2 (1 + kv/heads + s/h + 1.5 ffn/h + V/(2 l h))
for SwiGLU models (attention counted without the causal half). It reproduces the paired
figures of NeMo 24.07's summary (LLAMA2-7B: 767 TFLOP/s = 16,634 tokens/s/GPU at 4,096
tokens; LLAMA3-8B: 688 = 11,883 at 8,192) within 0.1%.

Not stated, assumed: microbatch 1, no interleaving (PP is 1 but for one row), no
recomputation, the distributed optimizer (zero 1), sequence parallelism and TP overlap with
TP > 1, as the other NeMo jobs. The model is the catalogue's with seq_len set to the row's.

Usage: experiments/validation-hopper/make_longseq_jobs.py   (writes configs/validation/
nemo-longseq-*.json, prints the published.json rows)
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SRC = ("NVIDIA/NeMo docs/source/performance/performance_long_sequence.md at v2.4.0 "
       "(commit 2381f42f6979)")

# (seq K, GPUs, GBS, TP, PP, DP, CP, TFLOP/s per GPU with CP), as published
TABLES = {
    "h100": {
        "model": "llama2-7b", "system": "dgx-h100", "release": "24.03.01",
        "title": "LLAMA2-7B (FP8) - H100", "container": "NeMo24.03.01.framework",
        "rows": [(4, 4, 1024, 1, 1, 4, 1, 768), (8, 8, 512, 1, 2, 4, 1, 730),
                 (16, 16, 256, 2, 1, 8, 1, 660), (32, 32, 128, 2, 1, 8, 2, 610),
                 (64, 64, 64, 4, 1, 8, 2, 574), (128, 128, 32, 4, 1, 8, 4, 555),
                 (256, 256, 16, 4, 1, 8, 8, 549), (512, 512, 8, 8, 1, 4, 16, 549),
                 (1024, 1024, 4, 8, 1, 4, 32, 536)]},
    "b200": {
        "model": "llama3-8b", "system": "dgx-b200", "release": "25.04.rc2",
        "title": "LLAMA3-8B (FP8) - B200", "container": "NeMo25.04.rc2",
        "rows": [(8, 8, 512, 1, 1, 4, 2, 1671), (16, 16, 256, 1, 1, 4, 4, 1717),
                 (32, 32, 128, 1, 1, 4, 8, 1624), (64, 64, 64, 1, 1, 4, 16, 1600),
                 (128, 128, 32, 2, 1, 4, 16, 1588), (256, 256, 16, 4, 1, 4, 16, 1590),
                 (512, 512, 8, 4, 1, 4, 32, 1619), (1024, 1024, 4, 4, 1, 4, 64, 1608)]},
}


def flops_per_token(m, s):
    l, h = m["layers"], m["hidden"]
    kv = m.get("kv_heads", m["heads"]) / m["heads"]
    gated = 1.5 if m["ffn"] == "swiglu" else 1.0
    return 12.0 * l * h * h * (1 + kv + s / h + gated * m["ffn_hidden"] / h +
                               m["vocab"] / (2.0 * l * h))


def main():
    out = []
    for short, t in TABLES.items():
        base = json.load(open(os.path.join(ROOT, "models", t["model"] + ".json")))
        for (k, gpus, gbs, tp, pp, dp, cp, tflops) in t["rows"]:
            s = k * 1024
            assert tp * pp * dp * cp == gpus, (short, k)
            m = dict(base)
            m["name"] = "%s-%dk" % (t["model"], k)
            m["seq_len"] = s
            m["source"] = base["source"] + " Sequence length set to %d for this row." % s
            m.pop("notes", None)
            tok = tflops * 1e12 / flops_per_token(base, s)
            par = {"tp": tp, "pp": pp, "cp": cp, "microbatch": 1, "zero": 1}
            if tp > 1:
                par["sequence_parallel"] = True
                par["tp_comm_overlap"] = True
            name = "nemo-longseq-%s-%s-%dk" % (short, t["model"], k)
            desc = ("NVIDIA NeMo long-sequence performance, table '%s' (container %s, %s), "
                    "%dK tokens on %d GPUs, GBS %d, with CP: TP %d PP %d DP %d CP %d -> %g "
                    "model TFLOP/s per GPU published = %.1f tokens/s/GPU by Megatron-LM's "
                    "FLOP count (experiments/validation-hopper/make_longseq_jobs.py). Assumed, "
                    "not stated: microbatch 1, no recomputation, distributed optimizer, SP and "
                    "TP overlap with TP > 1." % (t["title"], t["container"], SRC, k, gpus, gbs,
                                                tp, pp, dp, cp, tflops, tok))
            job = {"name": name, "description": desc, "model": m, "system": t["system"],
                   "gpus": gpus, "global_batch": gbs, "precision": "fp8",
                   "software": "megatron-core", "parallel": par}
            with open(os.path.join(ROOT, "configs", "validation", name + ".json"), "w") as f:
                json.dump(job, f, indent=2)
                f.write("\n")
            out.append({"table": "nemo-longseq-%s-fp8-%s" % (short, t["release"]),
                        "label": "%s %dK on %d GPUs (CP %d)" % (t["model"], k, gpus, cp),
                        "config": "configs/validation/%s.json" % name,
                        "metric": "tokens_per_s_per_gpu", "published": round(tok, 1)})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
