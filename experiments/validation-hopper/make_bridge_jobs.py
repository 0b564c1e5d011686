#!/usr/bin/env python3
"""Job files for the dense pre-training rows of NVIDIA's later performance summaries.

Reads experiments/validation-moe/megatron-bridge-dense-rows.csv (every dense row of the NeMo
25.02-26.06 performance tables, extracted by experiments/validation-moe/extract_tables.py with
its source, commit and raw table line) and writes one job per configuration to
configs/validation/, printing the published.json rows for them.

Which rows: DGX-H100, DGX-B200 and DGX-GB200 (the systems trainsim has); precision FP8 or
FP8-CS as published (MXFP8 and NVFP4 are not trainsim precisions; a row without a stated
precision is left out); the primary figure of a cell, not the parenthesised variant; one row
per configuration (system, model, GPUs, batch, microbatch, layout), from the newest release that
published it. Rows that ran Megatron-FSDP (FSDP column non-zero) become ZeRO-3 jobs when the
release's recipe is known (FSDP_RECIPES: Megatron-FSDP "optim_grads_params", gradient
accumulation fusion off, the recipe's activation offload as parallel.offload_layers); the others are
listed by --examined only, with the reason.

What every job states, from the recipes (NVIDIA-NeMo/Megatron-Bridge at v0.2.0: scripts/
performance/configs/llama3/llama3_llm_pretrain.py, llama31/llama31_llm_pretrain.py;
NVIDIA/NeMo v2.2.0 scripts/llm/performance for the 25.02-25.07 rows):
  * gradients accumulated and reduced in bf16 (fp32_grads false): set_llama31_common_configs /
    the llama3 equivalents set grad_reduce_in_fp32 False, NeMo's performance scripts since
    commit 78f445f (2025-01-30); Megatron-Core's gradient buffer, into which main_grad
    accumulates, then takes the parameters' dtype (megatron/core/distributed/
    param_and_grad_buffer.py: grad_dtype = torch.float if grad_reduce_in_fp32 else
    param.dtype; local fp32 accumulation is opt-in only since 2026-03);
  * the distributed optimizer (use_distributed_optimizer True: zero 1);
  * with TP > 1, sequence parallelism and userbuffers TP overlap (the recipes' comm_overlap
    tp_comm_overlap_cfg userbuffers_*);
  * Llama 3.1 405B accounts for the embedding and the loss in the pipeline split
    (llama31_405b_pretrain_config: account_for_embedding_in_pipeline_split and
    account_for_loss_in_pipeline_split True): 126 + 2 layers over PP stages, the first and last
    one layer short;
  * no activation recomputation (none of these layouts' presets sets it).

Usage: experiments/validation-hopper/make_bridge_jobs.py [--examined]
"""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CSV = os.path.join(ROOT, "experiments", "validation-moe", "megatron-bridge-dense-rows.csv")

SYSTEMS = {"DGX-H100": ("dgx-h100", "h100"), "DGX-B200": ("dgx-b200", "b200"),
           "DGX-GB200": ("gb200-nvl72", "gb200")}
# One table per generation (B200 has a single row beside its calibration row).
TABLES = {"DGX-H100": "h100", "DGX-B200": "blackwell", "DGX-GB200": "blackwell"}
MODELS = {"LLAMA3_8B": "llama3-8b", "LLAMA3-8B": "llama3-8b", "LLAMA3_70B": "llama3-70b",
          "LLAMA3-70B": "llama3-70b", "LLAMA3.1_405B": "llama3-405b", "LLAMA3-405B": "llama3-405b",
          "LLAMA3.1-405B": "llama3-405b", "GPT3-175B": "gpt3-175b", "Nemotron-15B": "nemotron4-15b",
          "Nemotron-340B": "nemotron4-340b"}
LAYERS = {"llama3-405b": 126}
# The 25.02 container: its own profile (configs/software/nemo-2502.json).
PROFILE_2502 = "nemo-2502"


# Megatron-FSDP rows: (release, system, model as published, GPUs, MBS, GBS) -> the recipe of that
# release; FSDP_NOT_RUN: why the other Megatron-FSDP rows are not run.
FSDP_RECIPES = {
    ("25.07", "DGX-GB200", "LLAMA3-70B", "64", "1", "128"): {
        "offload_layers": 0, "recompute_layers": 0,
        "source": "NVIDIA/NeMo v2.4.0 (commit 2381f42f6979, 2025-07-25, the 25.07 container's "
                  "NeMo) scripts/performance/recommended_model_configs/model_configs_gb200.csv, "
                  "row pre_train llama3 70b gb200 fp8: TP 1 PP 1 CP 1 MBS 1 GBS 128, "
                  "use_mcore_fsdp 1, recompute_layers 0, activation_offload_layers 0; "
                  "scripts/performance/helpers.py set_mcore_fsdp_configs: "
                  "data_parallel_sharding_strategy optim_grads_params (ZeRO-3), "
                  "gradient_accumulation_fusion False"},
    ("25.11", "DGX-H100", "LLAMA3_8B", "8", "1", "128"): {
        "offload_layers": 0, "recompute_layers": 0,
        "source": "the table's own columns (FSDP 8, TP 1 PP 1 CP 1, MBS 1, GBS 128) are NeMo's "
                  "H100 recipe of the 25.07-25.09 containers, NVIDIA/NeMo v2.5.0rc0 (commit "
                  "date 2025-08-01) scripts/performance/recommended_model_configs/"
                  "model_configs_h100.csv, row pre_train llama3 8b h100 fp8: use_mcore_fsdp 1, "
                  "recompute_layers 0, activation_offload_layers 0 (the same in v2.4.0); "
                  "Megatron-Bridge v0.2.0's LLAMA3_8B_H100_FP8_CS_BASE_CONFIG (no FSDP, 5 layers "
                  "recomputed) does not match the published columns and is not used"},
    ("26.04.01", "DGX-GB200", "LLAMA3_70B", "64", "2", "256"): {
        "offload_layers": 40, "recompute_layers": 0,
        "source": "NVIDIA-NeMo/Megatron-Bridge v0.4.0 (commit 0fbfe7d3e970, 2026-04-16, the 26.04 "
                  "containers' Bridge) scripts/performance/configs/llama/"
                  "llama3_workload_base_configs.py LLAMA3_70B_PRETRAIN_CONFIG_GB200_FP8_CS_V2: "
                  "GBS 256, MBS 2, use_megatron_fsdp True, cpu_offloading_num_layers 40; the same "
                  "at 067f987df03b (src/megatron/bridge/perf_recipes/llama/gb200/llama3.py "
                  "llama3_70b_pretrain_64gpu_gb200_fp8cs_config: optim_grads_params, "
                  "gradient_accumulation_fusion False, cpu_offloading_weights False)"},
}
FSDP_NOT_RUN = {
    ("25.07", "DGX-GB200", "LLAMA3.1-405B", "128", "1", "64"):
        "NeMo v2.4.0 model_configs_gb200.csv runs it with GBS 256, not the published 64, and "
        "offloads the activations of 95 of 126 layers (activation_offload_layers 95)",
}


def fsdp_key(x):
    return (x["release"], x["system"], x["model"], x["gpus"], x["mbs"], x["gbs"])


def release_key(r):
    p = [int(t) for t in r.split(".")]
    return tuple(p + [0] * (3 - len(p)))


def num(v, default):
    return default if v in ("n/a", "unstated", "") else int(v)


def skip(x):
    """The 25.02 DGX-B200 rows are the nemo-b200-* jobs already (table nemo-b200-fp8), and the
    25.11 DGX-B200 Llama 3 8B row is the B200 calibration row (experiments/calibration)."""
    if x["system"] == "DGX-B200" and x["release"] == "25.02":
        return True
    return x["system"] == "DGX-B200" and x["release"] == "25.11" and MODELS[x["model"]] == "llama3-8b"


def select(rows):
    """Newest release per configuration; returns (kept, examined)."""
    best = {}
    for x in rows:
        if x["system"] not in SYSTEMS or x["model"] not in MODELS:
            continue
        if x["precision"] not in ("FP8", "FP8-CS") or x["variant"] != "primary":
            continue
        fsdp = x["fsdp"] not in ("0", "unstated")
        key = (x["system"], MODELS[x["model"]], x["gpus"], x["gbs"], x["mbs"], fsdp, x["tp"],
               x["pp"], x["cp"], num(x["vp"], 1))
        if key not in best or release_key(x["release"]) > release_key(best[key]["release"]):
            best[key] = x
    kept = [x for k, x in sorted(best.items())
            if (not k[5] or FSDP_RECIPES.get(fsdp_key(x))) and not skip(x)]
    examined = [x for k, x in sorted(best.items()) if k[5] and not FSDP_RECIPES.get(fsdp_key(x))]
    return kept, examined


def job_for(x):
    system, short = SYSTEMS[x["system"]]
    model = MODELS[x["model"]]
    gpus, gbs, mbs = int(x["gpus"]), int(x["gbs"]), int(x["mbs"])
    tp, pp, cp, vp = int(x["tp"]), int(x["pp"]), int(x["cp"]), num(x["vp"], 1)
    rel = x["release"]
    name = "nemo-%s-%s-%dgpu-%s" % (short, model, gpus, rel.replace(".", ""))
    fsdp = FSDP_RECIPES.get(fsdp_key(x))
    par = {"tp": tp, "pp": pp, "cp": cp, "microbatch": mbs, "zero": 3 if fsdp else 1,
           "fp32_grads": False, "grad_reduce_dtype": "bf16"}
    if fsdp:
        par["grad_accum_fusion"] = False
        if fsdp["offload_layers"]:
            par["offload_layers"] = fsdp["offload_layers"]
        assert fsdp["recompute_layers"] == 0
    if tp > 1:
        par["sequence_parallel"] = True
        par["tp_comm_overlap"] = True
    if vp > 1:
        par["schedule"] = "interleaved"
        par["virtual_stages"] = vp
    split = ""
    if model in LAYERS and pp > 1:
        per = (LAYERS[model] + 2) // pp
        par["first_stage_layers"] = par["last_stage_layers"] = per - 1
        split = (" %d layers over %d stages with the embedding and the loss counted: the first "
                 "and last stage hold %d." % (LAYERS[model], pp, per - 1))
    where = ("%s %s (commit %s)" % (x["source_repo"], x["source_path"], x["source_commit"][:12])
             if x["source_repo"].startswith("NVIDIA") else
             "%s (%s)" % (x["source_path"], x["source_commit"]))
    prec = x["precision"] + ("" if x["precision_note"] == "as published" else
                             " (" + x["precision_note"] + ")")
    desc = ("NVIDIA %s performance summary, section '%s', pre-training: %s on %d GPUs, %s, GBS %d, "
            "MBS %d, seq %s, TP %d PP %d CP %d VP %s -> %s tokens/s/GPU published. Source: %s, "
            "row: %s Recipe settings (experiments/validation-hopper/make_bridge_jobs.py): "
            "%s, gradients accumulated and reduced in bf16 (grad_reduce_in_fp32 "
            "False)%s, no activation recomputation.%s"
            % (rel, x["table_heading"], x["model_as_published"], gpus, prec, gbs, mbs,
               x["seq_len"], tp, pp, cp, x["vp"], x["tokens_per_s_per_gpu"], where,
               x["raw_row"].strip(),
               ("Megatron-FSDP (zero 3, no gradient accumulation fusion, %s; %s)"
                % ("activations of the first %d layers offloaded to host memory"
                   % fsdp["offload_layers"] if fsdp["offload_layers"] else "no activation offload",
                   fsdp["source"])) if fsdp else "distributed optimizer (zero 1)",
               ", sequence parallelism and userbuffers TP overlap" if tp > 1 else "", split))
    job = {"name": name, "description": desc, "model": model, "system": system, "gpus": gpus,
           "global_batch": gbs, "precision": "fp8",
           "software": PROFILE_2502 if rel == "25.02" else "megatron-core", "parallel": par}
    return name, job


def main():
    rows = list(csv.DictReader(open(CSV)))
    kept, examined = select(rows)
    if "--examined" in sys.argv:
        for x in examined:
            print(x["release"], x["system"], x["model"], x["gpus"], "FSDP", x["fsdp"],
                  x["tokens_per_s_per_gpu"], "--", FSDP_NOT_RUN.get(fsdp_key(x), "no recipe read"))
        return
    out = []
    span = {}
    for x in kept:
        s = span.setdefault(TABLES[x["system"]], [x["release"], x["release"]])
        s[0] = min(s[0], x["release"], key=release_key)
        s[1] = max(s[1], x["release"], key=release_key)
    for x in kept:
        name, job = job_for(x)
        path = os.path.join(ROOT, "configs", "validation", name + ".json")
        with open(path, "w") as f:
            json.dump(job, f, indent=2)
            f.write("\n")
        lo, hi = span[TABLES[x["system"]]]
        out.append({"table": "nemo-%s-fp8-%s" % (TABLES[x["system"]],
                                                 lo if lo == hi else lo + "-" + hi),
                    "label": "%s %s GPUs (%s)" % (job["model"], x["gpus"], x["release"]),
                    "config": "configs/validation/%s.json" % name,
                    "metric": "tokens_per_s_per_gpu",
                    "published": int(x["tokens_per_s_per_gpu"])})
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
