#!/usr/bin/env python3
"""Job files for the NeMo 24.07 performance-summary rows whose configuration no later table has.

Source: NVIDIA/NeMo docs/source/performance/performance_summary.md at v2.0.0 (commit
e938df327c6d), "Pretraining", FP8 (Transformer Engine), container NeMo 24.07, DGX-H100. Of its
12 rows, LLAMA2-7B is the H100 calibration configuration (fitted on its 24.12 figure) and GPT3-
175B, LLAMA2-13B, LLAMA2-70B, LLAMA3-8B and LLAMA3-70B were published again, same layout, in
24.12 (table nemo-h100-fp8): by the newest-release rule those stay 24.12's. The five others
are written here: GPT3-5B, GPT3-20B, Nemotron-8B, Nemotron-22B and Nemotron-340B.

As for the 24.12 jobs (same Megatron-Core defaults): distributed optimizer (zero 1), sequence
parallelism and TP communication overlap with TP > 1, the interleaved schedule with VP > 1.
Unlike them, gradients are held and reduced in bf16 (fp32_grads false): the 24.07 table ran
NeMo-Framework-Launcher's recipes, whose optimizers set grad_sync_dtype bf16 with a contiguous
grad buffer (launcher_scripts/conf/training/nemotron/nemotron_340b.yaml at 3be81fc10dfe:
mcore_distributed_optim; gpt3/5b_fp8_performance.yaml at 1e46ac6c166e: distributed_fused_adam).
The summary states GBS, MBS, sequence, TP, PP, CP, VP and tokens/s/GPU.

Usage: experiments/validation-hopper/make_nemo2407_jobs.py   (writes configs/validation/
nemo2407-h100-*.json, prints the published.json rows)
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SRC = ("NVIDIA/NeMo docs/source/performance/performance_summary.md at v2.0.0 (commit "
       "e938df327c6d), container NeMo 24.07, DGX-H100, FP8")

# (as published, trainsim model, GPUs, GBS, MBS, seq, TP, PP, CP, VP, tokens/s/GPU, TFLOP/s)
ROWS = [("GPT3-5B", "gpt3-5b", 64, 2048, 4, 2048, 1, 1, 1, 1, 23574, 770),
        ("GPT3-20B", "gpt3-20b", 64, 256, 2, 2048, 2, 1, 1, 1, 5894, 755),
        ("Nemotron-8B", "nemotron3-8b", 64, 256, 4, 4096, 2, 1, 1, 1, 12507, 643),
        ("Nemotron-22B", "nemotron4-22b", 64, 256, 2, 4096, 2, 4, 1, 10, 4289, 559),
        ("Nemotron-340B", "nemotron4-340b", 128, 32, 1, 4096, 8, 8, 1, 12, 328, 691)]


def main():
    out = []
    for (pub, model, gpus, gbs, mbs, seq, tp, pp, cp, vp, tok, tflops) in ROWS:
        m = json.load(open(os.path.join(ROOT, "models", model + ".json")))
        assert m["seq_len"] == seq, (model, m["seq_len"], seq)
        par = {"tp": tp, "pp": pp, "cp": cp, "microbatch": mbs, "zero": 1, "fp32_grads": False,
               "sequence_parallel": tp > 1, "tp_comm_overlap": tp > 1}
        if vp > 1:
            par["schedule"] = "interleaved"
            par["virtual_stages"] = vp
        name = "nemo2407-h100-%s-%dgpu" % (model, gpus)
        desc = ("%s: %s on %d GPUs, GBS %d, MBS %d, seq %d, TP %d PP %d CP %d VP %d -> %d "
                "tokens/s/GPU (%d model TFLOP/s) published. Megatron-Core defaults as for the "
                "24.12 jobs: distributed optimizer (zero 1), sequence parallelism and TP "
                "communication overlap with TP, flash attention; gradients in bf16 (the "
                "launcher recipes' grad_sync_dtype bf16) "
                "(experiments/validation-hopper/make_nemo2407_jobs.py)."
                % (SRC, pub, gpus, gbs, mbs, seq, tp, pp, cp, vp, tok, tflops))
        job = {"name": name, "description": desc, "model": model, "system": "dgx-h100",
               "gpus": gpus, "global_batch": gbs, "precision": "fp8",
               "software": "megatron-core", "parallel": par}
        with open(os.path.join(ROOT, "configs", "validation", name + ".json"), "w") as f:
            json.dump(job, f, indent=2)
            f.write("\n")
        out.append({"table": "nemo-h100-fp8-24.07",
                    "label": "%s %d GPUs" % (model, gpus),
                    "config": "configs/validation/%s.json" % name,
                    "metric": "tokens_per_s_per_gpu", "published": tok})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
