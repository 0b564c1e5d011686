#!/usr/bin/env python3
"""Job files for Megatron-Core r0.8.0's weak-scaling table on H100 (BF16).

Source: NVIDIA/Megatron-LM README.md, "Performance Benchmarking", and its images/model_table.png
(added by commit f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, 2024-07-15, "New scaling figures on
H100 GPUs"; the weak-scaling figure's legend says Megatron-Core r0.8.0). The table (transcribed
below) gives each model's attention heads, hidden size, layers, TP, PP, DP, GPUs, batch size,
per-GPU teraFLOP/s and MFU; the README says: GPT models, vocabulary 131,072, sequence length
4096, `--overlap-grad-reduce --overlap-param-gather`, `--tp-comm-overlap`, pipeline p2p
overlap "enabled by default", throughputs end to end.

Published metric: teraFLOP/s per GPU counted by Megatron-LM's num_floating_point_operations
(megatron/training/training.py at core_r0.8.0): 12 l h^2 (6 + s / h + V / (2 l h)) FLOPs per
token for this architecture (MHA, 4h GeLU MLP; full s^2 attention, no recomputation counted).
The rows are compared as tokens/s per GPU = TFLOP/s / that count, so trainsim's own FLOP
convention does not enter.

What the source does not state, and what the jobs assume (each job says so):
  * precision bf16: MFU = teraFLOP/s / 989, the H100 SXM dense BF16 peak (465.9 -> 47%);
  * microbatch 1; no interleaved schedule (Megatron's default without
    --num-layers-per-virtual-pipeline-stage), and so no p2p overlap (core_r0.8.0 arguments.py
    turns overlap_p2p_comm off for the non-interleaved schedule); no activation
    recomputation (the default);
  * what the stated flags imply: sequence parallelism with TP (--tp-comm-overlap asserts
    --sequence-parallel), the distributed optimizer (--overlap-param-gather asserts
    --use-distributed-optimizer: zero 1), gradients accumulated and reduced in fp32 (bf16 sets
    accumulate_allreduce_grads_in_fp32);
  * Megatron's GPT defaults: learned absolute positions, LayerNorm, biases, tied embeddings;
  * the system dgx-h100 (DGX H100, 8 x 400 Gb/s per node; the cluster is not named).
Not modelled: cross-entropy fusion is opt-in at core_r0.8.0 (--cross-entropy-loss-fusion) and
not among the stated flags, where the megatron-core profile fuses it.

Usage: experiments/validation-hopper/make_mcore_scaling_jobs.py   (writes the jobs, prints rows)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SRC = ("NVIDIA/Megatron-LM README.md 'Performance Benchmarking' and images/model_table.png "
       "(commit f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, 2024-07-15; Megatron-Core r0.8.0)")
VOCAB, SEQ = 131072, 4096
# (model size, attention heads, hidden, layers, TP, PP, DP, GPUs, batch, TFLOP/s per GPU, MFU %)
TABLE = [
    ("1.7B", 16, 2048, 24, 1, 1, 48, 48, 192, 408.8, 41),
    ("7.1B", 32, 4096, 30, 2, 1, 48, 96, 192, 465.9, 47),
    ("16B", 48, 6144, 32, 4, 1, 48, 192, 192, 489.1, 49),
    ("32B", 56, 7168, 48, 8, 1, 48, 384, 192, 459.6, 46),
    ("70B", 64, 8192, 84, 8, 2, 48, 768, 384, 419.7, 42),
    ("119B", 80, 10240, 92, 8, 4, 48, 1536, 768, 420.5, 43),
    ("177B", 96, 12288, 96, 8, 6, 48, 2304, 1152, 432.8, 44),
    ("314B", 128, 16384, 96, 8, 8, 48, 3072, 1536, 474.4, 48),
    ("462B", 144, 18432, 112, 8, 16, 48, 6144, 3072, 459.9, 47),
]


def flops_per_token(layers, hidden):
    return 12.0 * layers * hidden * hidden * (6.0 + SEQ / hidden + VOCAB / (2.0 * layers * hidden))


def main():
    out = []
    for size, heads, h, l, tp, pp, dp, gpus, batch, tflops, mfu in TABLE:
        assert tp * pp * dp == gpus
        tps = tflops * 1e12 / flops_per_token(l, h)
        name = "mcore-h100-gpt-%s-%dgpu" % (size.lower().replace(".", "p"), gpus)
        par = {"tp": tp, "pp": pp, "microbatch": 1, "zero": 1}
        if tp > 1:
            par["sequence_parallel"] = True
            par["tp_comm_overlap"] = True
        if pp > 1:
            par["p2p_overlap"] = False
        model = {"name": "mcore-gpt-" + size.lower(), "layers": l, "hidden": h, "heads": heads,
                 "kv_heads": heads, "ffn_hidden": 4 * h, "ffn": "gelu", "vocab": VOCAB,
                 "seq_len": SEQ, "position_embedding": "learned", "tied_embeddings": True,
                 "bias": True, "dropout": 0.0,
                 "source": "%s: the %s row (%d heads, hidden %d, %d layers); vocabulary 131,072 "
                           "and sequence 4096 from the README; 4h GeLU MLP, learned positions, "
                           "biases and tied embeddings are Megatron's GPT defaults" %
                           (SRC, size, heads, h, l)}
        desc = ("Megatron-Core r0.8.0 weak scaling on H100, %s: the %s GPT row (TP %d, PP %d, DP %d, "
                "%d GPUs, batch %d) -> %.1f teraFLOP/s per GPU (MFU %d%%), %.1f tokens/s/GPU by "
                "Megatron-LM's FLOP count (num_floating_point_operations at core_r0.8.0: 12 l h^2 "
                "(6 + s/h + V/(2 l h)) per token). Stated: --overlap-grad-reduce, "
                "--overlap-param-gather (so the distributed optimizer), --tp-comm-overlap (so "
                "sequence parallelism). Assumed, not stated: bf16 (MFU over the 989 TFLOP/s BF16 "
                "peak), microbatch 1, no interleaving (so no p2p overlap), no recomputation, "
                "fp32 gradient reduction (Megatron's bf16 default), system dgx-h100; the source's "
                "default unfused cross entropy is not modelled (megatron-core fuses it). "
                "Written by experiments/validation-hopper/make_mcore_scaling_jobs.py."
                % (SRC, size, tp, pp, dp, gpus, batch, tflops, mfu, tps))
        job = {"name": name, "description": desc, "model": model, "system": "dgx-h100",
               "gpus": gpus, "global_batch": batch, "precision": "bf16",
               "software": "megatron-core", "parallel": par}
        path = os.path.join(ROOT, "configs", "validation", name + ".json")
        with open(path, "w") as f:
            json.dump(job, f, indent=2)
            f.write("\n")
        out.append({"table": "mcore-r0.8-h100-bf16", "label": "GPT %s %d GPUs" % (size, gpus),
                    "config": "configs/validation/%s.json" % name,
                    "metric": "tokens_per_s_per_gpu", "published": round(tps, 1)})
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
