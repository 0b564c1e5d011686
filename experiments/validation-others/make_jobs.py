#!/usr/bin/env python3
"""Write the job files of the validation-others experiment from the published rows below.

Each row is one published training-throughput measurement of a software stack that had no
validation row before (pytorch-fsdp-compile, megatron-deepspeed, jax-maxtext), with its source
(file and commit, or paper section) and its configuration. Where the source leaves a detail
unstated the row says which default or assumption fills it ("assumed").

Usage: make_jobs.py [--out DIR]   (default: configs/validation/others of this repository)
Writes DIR/NAME.json per row and DIR/published.json (the rows, for results.py).
"""
import argparse
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

# ---- sources -------------------------------------------------------------------------------
TT_DOC = ("pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md (file at commit "
          "820504e20d1149fbf0b98c567af24c4b0433b22d; runs with torchtitan 9dec370, torch 1963fc8, "
          "2024-12-26)")
TT_CFG = ("train_configs/llama3_{m}.toml at torchtitan 9dec370ad26b5f8e9a7333a0e36165018262644b: "
          "seq_len 8192, FSDP2 param bf16 / reduce fp32, fused AdamW")
TT_HW = ("measured on Grand Teton H100 96GB HBM2e, 2.4 TB/s, 500 W power limit, 400 Gb/s RDMA per "
         "GPU (the benchmark file's 'Hardware'); simulated on grand-teton-h100-500w "
         "(h100-sxm-96g-500w: peaks interpolated between the SXM5 and NVL datasheets by board "
         "power, the benchmark's footnote puts its peak between SXM and NVL; unvalidated)")
ATP_DOC = ("pytorch/torchtitan benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md (commit "
           "2887250bbd9103d0bc997ea2efb3a525b5e5dbc0; torch 38410cf9 of 2025-06-14)")
TRAINY_DOC = ("pytorch/torchtitan benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md (commit "
              "4a61bd87d3c7e92bcfeb5d5464d9e6bd13ef440a; torchtitan e7c0cae of 2025-06-13): "
              "torchtitan/models/llama3/train_configs/llama3_8b.toml (seq_len 8192, selective op "
              "AC) with --training.local_batch_size=2 --training.compile float8 linears, "
              "float8 FSDP all-gather")
OLMO_DOC = ("allenai/OLMo-core README.md at 41400c46fcce82cf2f8c491e51d861b1ffef5798 (2024-11-01), "
            "throughput table 'measured on a cluster with NVIDIA H100 GPUs', tokens/s per device; "
            "src/scripts/train/{script} at the same commit: TransformerConfig.{cfg}(compile=True, "
            "FSDP param bf16 / reduce fp32), rank_microbatch_size {mb} x 4096 tokens, "
            "global_batch_size {gbs} x 4096 tokens, fused AdamW, {loss}, z_loss_multiplier 1e-5, "
            "no activation checkpointing; vocab = dolma2 tokenizer padded to 100352; "
            "src/olmo_core/internal/experiment.py at the same commit: launch default 1 node of 8 "
            "GPUs, and on more than one node FSDP over init_hybrid_shard_mesh() (HYBRID_SHARD: "
            "shards inside a node, replicas across nodes); Transformer.forward returns "
            "w_out(h).float(), float8 converts every linear but w_out (tensorwise dynamic "
            "scaling, float8 FSDP all-gather)")
OLMO_FUSED_LOSS = ("fused_loss True (olmo_core/triton/cross_entropy_loss.py, the z-loss inside "
                   "the kernel)")
OLMO_EAGER_LOSS = ("fused_loss unset, i.e. False (eager F.cross_entropy and z-loss "
                   "logsumexp(-1).pow(2) on the fp32 logits: "
                   "olmo_core/nn/functional/cross_entropy_loss.py)")
BLOOM_DOC = ("bigscience-workshop/bigscience train/tr11-176B-ml/README.md (commit "
             "39ed8110482e9eb87d0e094ede05e4d02c40e298), 'Important checkpoints': iteration 85376 "
             "log line, elapsed time per iteration 104.70 s, global batch size 2048, samples per "
             "second 19.561, TFLOPs 149.77 (hardware TFLOPs with activation recomputation, "
             "same README 'Throughput'); config train/tr11-176B-ml/tr11-176B-ml.slurm (same "
             "repository, 9e64ede): TP_SIZE 4, PP_SIZE 12, MICRO_BATCH_SIZE 2, "
             "GLOBAL_BATCH_SIZE 2048, SEQ_LEN 2048, NLAYERS 70, NHIDDEN 14336, NHEADS 112, "
             "--bf16, --checkpoint-activations, ZERO_STAGE 0 with the bf16 optimizer's own "
             "ZeRO-1 equivalent, ALiBi, --embed-layernorm, vocab padded to 250880; 384 A100 80GB "
             "(48 nodes; BLOOM paper arXiv 2211.05100 sec. 3.4: 4 x 100 Gb/s Omni-Path per node)")
MTNLG_DOC = ("Smith et al. 2022, 'Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B' "
             "(arXiv 2201.11990) sec. 2.4 (system throughput): global batch 1920 on 280, 350 and "
             "420 DGX A100 servers, iteration time 60.1, 50.2 and 44.4 s (126, 121 and 113 TFLOP/s "
             "per GPU); sec. 2: 8-way tensor (within a node) x 35-way pipeline per 280-GPU replica, "
             "ZeRO data parallelism, Selene DGX A100 80GB with HDR InfiniBand; sec. 3: sequence "
             "2048, 105 layers, hidden 20480, 128 heads, global batch 1920")
MAXTEXT_DOC = ("AI-Hypercomputer/maxtext MaxText/configs/a3/llama_2_7b/README.md at "
               "efb6d9e4a2856198f8272dcbfb7d9c91eda0728e (2024-04-09), 'Llama2-7B' table, "
               "TFLOP/sec/chip on N x A3 (h100-80gb-8); scripts {n}vm.sh at the same commit: "
               "dcn_data_parallelism={n} ici_fsdp_parallelism=8 per_device_batch_size=4 "
               "max_target_length=4096 attention=cudnn_flash_te remat_policy=minimal_flash "
               "scan_layers=false, bf16 activations (base.yml dtype), fp32 weights. Converted to "
               "tokens/s/GPU with MaxText's own count at that commit (MaxText/maxtext_utils.py "
               "calculate_tflops_training_per_device: 6 N + 6 L (heads x head_dim) s FLOPs per "
               "token, causal; N = 6,738,415,616 parameters of llama2-7b incl. both embeddings) "
               "= 43.6517e9 FLOPs per token")

GRAND_TETON = "grand-teton-h100-500w"   # system of the h100-sxm-96g-500w part
MAXTEXT_FLOPS_PER_TOKEN = 6 * 6738415616 + 6 * 32 * 4096 * 4096

BLOOM_MODEL = {
    "name": "bloom-176b", "layers": 70, "hidden": 14336, "heads": 112, "kv_heads": 112,
    "ffn_hidden": 57344, "ffn": "gelu", "vocab": 250880, "seq_len": 2048,
    "tied_embeddings": True, "bias": True, "dropout": 0,
    "source": "bigscience-workshop/bigscience train/tr11-176B-ml/tr11-176B-ml.slurm (9e64ede): "
              "NLAYERS 70, NHIDDEN 14336, NHEADS 112, SEQ_LEN 2048, --pad-vocab-size-to 250880, "
              "GeLU 4h MLP, tied input/output embedding, biases (Megatron GPT defaults); "
              "BLOOM paper (arXiv 2211.05100) sec. 3.2.",
    "notes": "ALiBi positions (no position table; the bias add inside the unfused softmax is not "
             "modelled separately) and the embedding LayerNorm (one extra norm) are not "
             "represented; both are element-wise and small against the 176B GEMMs.",
}
MTNLG_MODEL = {
    "name": "mt-nlg-530b", "layers": 105, "hidden": 20480, "heads": 128, "kv_heads": 128,
    "ffn_hidden": 81920, "ffn": "gelu", "vocab": 51200, "seq_len": 2048,
    "tied_embeddings": True, "bias": True, "dropout": 0.1,
    "source": "Smith et al. 2022 (arXiv 2201.11990) sec. 3 (model configuration): 105 layers, hidden "
              "20480, 128 heads, sequence 2048, GPT-2 BPE vocabulary (50257), padded by "
              "Megatron-LM to a multiple of make-vocab-size-divisible-by 128 x TP 8 = 51200 "
              "(as models/korthikanti-530b.json); GeLU 4h MLP, tied embeddings, biases, "
              "dropout 0.1: Megatron GPT defaults (assumed).",
}


def olmo_llama8b():
    m = json.load(open(os.path.join(ROOT, "models", "llama3-8b.json")))
    m["name"] = "olmo-core-llama3-8b"
    m["vocab"] = 100352
    m["seq_len"] = 4096
    m["source"] = ("models/llama3-8b.json with OLMo-core's vocabulary (dolma2 tokenizer padded to "
                   "100352: TokenizerConfig.dolma2 padded_vocab_size) and sequence 4096 "
                   "(OLMo-core src/scripts/train/Llama-8B.py at 41400c4).")
    m.pop("notes", None)
    return m


# OLMo-core's OLMo-1124 configs at 41400c4 (src/olmo_core/nn/transformer/config.py:
# olmo_{1B,7B,13B} = llama2_{1B,7B,13B} with reordered norms, QK-norm, rope theta 5e5;
# llama_like: SwiGLU hidden int(8 d / 3) rounded up to a multiple of 256, no biases, untied
# output).
OLMO_SIZES = {"1B": (18, 2048, 16, 5632), "7B": (32, 4096, 32, 11008),
              "13B": (40, 5120, 40, 13824)}


def olmo_model(size):
    layers, d, heads, ffn = OLMO_SIZES[size]
    return {"name": f"olmo-1124-{size.lower()}", "layers": layers, "hidden": d, "heads": heads,
            "kv_heads": heads, "ffn_hidden": ffn, "ffn": "swiglu", "vocab": 100352,
            "seq_len": 4096, "tied_embeddings": False, "bias": False, "dropout": 0.0,
            "source": "allenai/OLMo-core src/olmo_core/nn/transformer/config.py at "
                      "41400c46fcce82cf2f8c491e51d861b1ffef5798: TransformerConfig.olmo_"
                      f"{size} -> llama2_{size}: d_model {d}, n_layers {layers}, n_heads "
                      f"{heads}; llama_like SwiGLU hidden int(8 d / 3) rounded up to 256 = "
                      f"{ffn}; vocab: dolma2 padded to 100352; sequence 4096 (the README's "
                      "context length).",
            "notes": "QK-norm (two RMSNorms over q and k) and the reordered norms are not "
                     "represented separately: element-wise, fused by torch.compile."}


def with_seq(model_name, seq):
    m = json.load(open(os.path.join(ROOT, "models", model_name + ".json")))
    m["name"] = f"{model_name}-s{seq}"
    m["seq_len"] = seq
    m["notes"] = f"models/{model_name}.json with the benchmark's sequence length {seq}."
    return m


JEAN_ZAY = {
    "name": "jean-zay-a100-80g",
    "accelerator": "a100-sxm-80g",
    "gpus_per_node": 8,
    "scale_up": {"bandwidth": "300 GB/s", "latency": "5 us", "domain_size": 8,
                 "topology": "switch", "efficiency": 0.78, "in_network_reduction": False},
    "scale_out": {"bandwidth": "50 Gb/s", "latency": "75 us", "topology": "fat_tree",
                  "oversubscription": 1, "efficiency": 0.955},
    "source": "BLOOM paper (arXiv 2211.05100) sec. 3.4 and bigscience tr11-176B-ml README "
              "(hardware): Jean Zay A100 partition, 8 x A100 SXM4 80GB per node on NVLink, "
              "4 x 100 Gb/s Omni-Path per node (= 50 Gb/s per GPU), non-blocking fat tree. "
              "NVLink and per-hop constants as hardware/systems/dgx-a100-80g.json (assumed: an "
              "NVSwitch HGX A100 8-GPU board; the paper says 4 NVLink GPU-to-GPU "
              "interconnects per node).",
}

# ---- rows ----------------------------------------------------------------------------------
# (name, profile, system, gpus, model, precision, global_batch, parallel, published tok/s/GPU,
#  source text, stated configuration text)
ROWS = []


def row(name, profile, system, gpus, model, precision, gbs, parallel, tps, source, config,
        table):
    # torchtitan's own benchmarks ran on Grand Teton H100s (96 GB HBM2e, 500 W) and are
    # simulated on that part (hardware/accelerators/h100-sxm-96g-500w.json): they form its band.
    if source.startswith((TT_DOC, ATP_DOC)):
        assert system == GRAND_TETON, name
    measured_on = None
    ROWS.append(dict(name=name, profile=profile, system=system, gpus=gpus, model=model,
                     precision=precision, global_batch=gbs, parallel=parallel,
                     published_tokens_per_s_per_gpu=tps, source=source, config=config,
                     table=table, measured_on=measured_on))


SAC_OP = {"save": "torchtitan_op"}
# torchtitan Table 1 / Table 3: FSDP2 + torch.compile (+ float8), Llama 3.1 8B, local batch 2,
# selective op AC (llama3_8b.toml).
for gpus, tbl, bf, f8 in ((8, "torchtitan 2024-12 Table 1", 6667, 8532),
                          (128, "torchtitan 2024-12 Table 3", 6514, 8380)):
    for prec, tps, tag in (("bf16", bf, "compile"), ("fp8", f8, "compile-float8")):
        row(f"titan-h100-llama3-8b-{tag}-g{gpus}", "pytorch-fsdp-compile", GRAND_TETON, gpus,
            "llama3-8b", prec, 2 * gpus,
            {"tp": 1, "pp": 1, "zero": 3, "microbatch": 2, "recompute": SAC_OP},
            tps, f"{TT_DOC}, {tbl.split()[-2]} {tbl.split()[-1]} 'FSDP + torch.compile{' + Float8' if prec == 'fp8' else ''}'",
            f"Llama 3.1 8B, {gpus} GPUs, FSDP {gpus} (FULL_SHARD), local batch 2, global "
            f"{2 * gpus}, seq 8192, selective op AC, torch.compile"
            f"{', float8 linears (torchao; attention bf16)' if prec == 'fp8' else ', bf16'}; "
            f"{TT_CFG.format(m='8b')}; {TT_HW}", tbl)
# Table 2: FSDP + CP + compile + float8, 8 GPUs, local batch 1, full AC.
for seq, fsdp, cp, tps in ((32768, 8, 1, 3890), (65536, 4, 2, 2540), (131072, 2, 4, 1071),
                           (262144, 1, 8, 548)):
    row(f"titan-h100-llama3-8b-cp{cp}-s{seq}-g8", "pytorch-fsdp-compile", GRAND_TETON, 8,
        with_seq("llama3-8b", seq), "fp8", fsdp,
        {"tp": 1, "pp": 1, "cp": cp, "zero": 3, "microbatch": 1, "recompute": "full"},
        tps, f"{TT_DOC}, Table 2 'FSDP {fsdp}, CP {cp}', sequence {seq}",
        f"Llama 3.1 8B, 8 GPUs, FSDP {fsdp} x CP {cp} (parameters sharded over FSDP x CP, "
        f"torchtitan's dp_shard_cp mesh), local batch 1, global {fsdp}, seq {seq}, full AC, "
        f"torch.compile, float8 linears; {TT_HW}", "torchtitan 2024-12 Table 2")
# Table 4: 70B 2D, 256 GPUs FSDP 32 TP 8, local batch 16, full AC, compile + float8.
for atp, tps in ((False, 829), (True, 876)):
    row(f"titan-h100-llama3-70b-tp8{'-asynctp' if atp else ''}-g256", "pytorch-fsdp-compile",
        GRAND_TETON, 256, "llama3-70b", "fp8", 512,
        {"tp": 8, "pp": 1, "zero": 3, "microbatch": 16, "sequence_parallel": True,
         "tp_comm_overlap": atp, "recompute": "full"},
        tps, f"{TT_DOC}, Table 4 '{'2D + AsyncTP' if atp else '2D'}'",
        "Llama 3.1 70B, 256 GPUs, FSDP 32 x TP 8 (torchtitan TP shards norms' activations: "
        "sequence parallel), local batch 16, global 512, seq 8192, full AC, torch.compile, "
        f"float8 linears{', async TP' if atp else ''}; {TT_CFG.format(m='70b')}; {TT_HW}",
        "torchtitan 2024-12 Table 4")
# Table 5: 405B 3D, 512 GPUs FSDP 8 TP 8 PP 8, local batch 32, global 256.
for sched, v, tps in (("1f1b", 1, 100), ("interleaved", 2, 128)):
    # torchtitan's generate_split_points (torchtitan/parallelisms/pipelining_utils.py at
    # 9dec370): 126 layers over 8 (16) stages give the first and last stage 15 (7) layers and
    # the others 16 (8), i.e. 15 layers on the first and last rank, 16 on the others.
    # With PP, torchtitan's FSDP2 does not reshard after forward (parallelize_llama.py at
    # 9dec370: "For PP, do not reshard after forward to avoid per-microbatch all-gathers"):
    # SHARD_GRAD_OP semantics, i.e. trainsim's zero 2 (weights held gathered per stage,
    # gradients and optimizer state sharded).
    par = {"tp": 8, "pp": 8, "zero": 2, "microbatch": 4, "sequence_parallel": True,
           "tp_comm_overlap": True, "recompute": "full", "schedule": sched,
           "first_stage_layers": 15, "last_stage_layers": 15}
    if v > 1:
        par["virtual_stages"] = v
    row(f"titan-h100-llama3-405b-pp8-{sched}-g512", "pytorch-fsdp-compile", GRAND_TETON, 512,
        "llama3-405b", "fp8", 256, par, tps,
        f"{TT_DOC}, Table 5 '{'Interleaved 1F1B' if v > 1 else '1F1B'}'",
        "Llama 3.1 405B, 512 GPUs, FSDP 8 x TP 8 x PP 8, local batch 32, global 256, seq 8192, "
        "full AC, torch.compile, float8 linears, async TP; FSDP without resharding after "
        "forward under PP (torchtitan's rule): zero 2; assumed: 8 microbatches of 4 "
        "(torchtitan's default pipeline_parallel_microbatches = pp degree at 9dec370) and, for "
        f"the interleaved schedule, 2 stages per rank (its default split); {TT_HW}", "torchtitan 2024-12 Table 5")
# Table 6: 405B 4D, 512 GPUs TP 8 x PP 8 x FSDP x CP, local batch 8, 1F1B, full AC, compile,
# float8, async TP; split and microbatch count as Table 5 (8 microbatches of 1).
for seq, fsdp, cp, tps in ((32768, 8, 1, 76), (65536, 4, 2, 47), (131072, 2, 4, 31),
                           (262144, 1, 8, 16)):
    row(f"titan-h100-llama3-405b-pp8-cp{cp}-s{seq}-g512", "pytorch-fsdp-compile", GRAND_TETON,
        512, with_seq("llama3-405b", seq), "fp8", 8 * fsdp,
        {"tp": 8, "pp": 8, "cp": cp, "zero": 2, "microbatch": 1, "sequence_parallel": True,
         "tp_comm_overlap": True, "recompute": "full", "schedule": "1f1b",
         "first_stage_layers": 15, "last_stage_layers": 15},
        tps, f"{TT_DOC}, Table 6 'FSDP {fsdp}, CP {cp}', sequence {seq}",
        f"Llama 3.1 405B, 512 GPUs, TP 8 x PP 8 x FSDP {fsdp} x CP {cp}, local batch 8, global "
        f"{8 * fsdp}, seq {seq}, 1F1B, full AC, torch.compile, float8 linears, async TP; FSDP "
        "without resharding after forward under PP (torchtitan's rule): zero 2; "
        "assumed: 8 microbatches of 1 (torchtitan's default pipeline_parallel_microbatches = "
        f"pp degree at 9dec370), layers split 15 / 16 x 6 / 15 as Table 5; {TT_HW}",
        "torchtitan 2024-12 Table 6")
# async TP benchmark (June 2025): 70B bf16 and float8 tensorwise; 8B on 64 GPUs.
for prec, van, atp in (("bf16", 597.3, 652.4), ("fp8", 809.8, 942.4)):
    for on, tps in ((False, van), (True, atp)):
        row(f"titan25-h100-llama3-70b-{prec}-tp8{'-asynctp' if on else ''}-g256",
            "pytorch-fsdp-compile", GRAND_TETON, 256, "llama3-70b", prec, 512,
            {"tp": 8, "pp": 1, "zero": 3, "microbatch": 16, "sequence_parallel": True,
             "tp_comm_overlap": on, "recompute": "full"}, tps,
            f"{ATP_DOC}, 'Llama3 70b on 256 H100s' {'None (bfloat16)' if prec == 'bf16' else 'float8 tensorwise'}, "
            f"{'Async TP' if on else 'Vanilla TP'} tokens/sec",
            "Llama 3 70B, 256 GPUs, FSDP 32 x TP 8, local batch 16, global 512, full AC, "
            f"torch.compile, {'bf16' if prec == 'bf16' else 'float8 tensorwise linears'}"
            f"{', async TP' if on else ''}; assumed seq 8192 (llama3_70b.toml default); {TT_HW}",
            "torchtitan async TP 2025-06")
for prec, van, atp in (("bf16", 4378, 4809.4), ("fp8", 5078.1, 5570.1)):
    for on, tps in ((False, van), (True, atp)):
        row(f"titan25-h100-llama3-8b-{prec}-tp8{'-asynctp' if on else ''}-g64",
            "pytorch-fsdp-compile", GRAND_TETON, 64, "llama3-8b", prec, 96,
            {"tp": 8, "pp": 1, "zero": 3, "microbatch": 12, "sequence_parallel": True,
             "tp_comm_overlap": on, "recompute": SAC_OP}, tps,
            f"{ATP_DOC}, 'Llama3 8b on 64 H100s' {'None (bfloat16)' if prec == 'bf16' else 'float8 tensorwise'}, "
            f"{'Async TP' if on else 'Vanilla TP'} tokens/sec",
            "Llama 3 8B, 64 GPUs, FSDP 8 x TP 8, local batch 12, global 96, per-op SAC, "
            f"torch.compile, {'bf16' if prec == 'bf16' else 'float8 tensorwise linears'}"
            f"{', async TP' if on else ''}; assumed seq 8192 (llama3_8b.toml default); {TT_HW}",
            "torchtitan async TP 2025-06")
# Trainy on WhiteFiber H200, torchtitan e7c0cae: 8B float8, local batch 2, 4 and 8 nodes.
for nodes, tps in ((4, 10938), (8, 10753)):
    row(f"titan-h200-llama3-8b-compile-float8-g{8 * nodes}", "pytorch-fsdp-compile",
        "hgx-h200", 8 * nodes, "llama3-8b", "fp8", 16 * nodes,
        {"tp": 1, "pp": 1, "zero": 3, "microbatch": 2, "recompute": SAC_OP}, tps,
        f"{TRAINY_DOC}, NUM_NODES {nodes}",
        f"Llama 3.1 8B, {8 * nodes} H200, FSDP {8 * nodes}, local batch 2, global "
        f"{16 * nodes}, seq 8192, selective op AC, torch.compile, float8 linears with float8 "
        "all-gather (the all-gather's halved bytes are not modelled: bf16 gathers)",
        "torchtitan Trainy H200 2025-06")
# The README does not state the GPU count; the launch default is one node of 8 GPUs, and the
# jobs assume 8 nodes, on which OLMo-core shards inside each node (HYBRID_SHARD).
OLMO_GPUS = ("assumed: 64 GPUs (8 nodes; the README does not state the GPU count, the scripts' "
             "launch default is 1 node) on DGX H100-class nodes")
# olmo_core/float8.py at 41400c4: Float8Config.enable_fsdp_float8_all_gather defaults True.
OLMO_FP8_AG = {"bf16": {}, "fp8": {"fsdp_fp8_allgather": True}}
# OLMo-core README (2024-11), Llama 8B.
for prec, tps in (("bf16", 9500), ("fp8", 12500)):
    row(f"olmocore-h100-llama-8b-{prec}", "pytorch-fsdp-compile", "dgx-h100", 64,
        olmo_llama8b(), prec, 1024,
        {"tp": 1, "pp": 1, "zero": 3, "zero_group": 8, "microbatch": 2, "recompute": "none",
         **OLMO_FP8_AG[prec]}, tps, f"{OLMO_DOC.format(script='Llama-8B.py', cfg='llama3_8B', mb=2, gbs=1024, loss=OLMO_FUSED_LOSS)}, "
        f"row '8B Llama 4096 {'BF16' if prec == 'bf16' else 'BF16/FP8'}'",
        "Llama 3 8B with the dolma2 vocabulary, seq 4096, FSDP HYBRID_SHARD (8 shards per node, "
        "zero_group 8), microbatch 2, global 1024, no AC, torch.compile, "
        f"{'bf16' if prec == 'bf16' else 'float8 linears, float8 FSDP all-gather'}, fused loss; "
        f"{OLMO_GPUS}",
        "OLMo-core README 2024-11")
# OLMo-core README (2024-11), OLMo-1124 1B / 7B / 13B (src/scripts/train/OLMo-{1B,7B,13B}.py):
# compile, FSDP param bf16 / reduce fp32, fused AdamW, no activation checkpointing.
for size, tps_bf, tps_f8, mbs, gbs in (("1B", 44000, 51000, 4, 1024), ("7B", 10000, 13000, 2, 1024),
                                       ("13B", 4600, 5500, 1, 2048)):
    # OLMo-1B.py at 41400c4 leaves fused_loss unset (False): the loss runs as eager ops.
    eager = size == "1B"
    for prec, tps in (("bf16", tps_bf), ("fp8", tps_f8)):
        par = {"tp": 1, "pp": 1, "zero": 3, "zero_group": 8, "microbatch": mbs,
               "recompute": "none"}
        if eager:
            par["eager_loss"] = "cross_entropy_z_loss"
        par.update(OLMO_FP8_AG[prec])
        doc = OLMO_DOC.format(script=f"OLMo-{size}.py", cfg=f"olmo_{size}", mb=mbs, gbs=gbs,
                              loss=OLMO_EAGER_LOSS if eager else OLMO_FUSED_LOSS)
        row(f"olmocore-h100-olmo-{size.lower()}-{prec}", "pytorch-fsdp-compile", "dgx-h100", 64,
            olmo_model(size), prec, gbs, par, tps,
            f"{doc}, row '{size} OLMo-1124 4096 {'BF16' if prec == 'bf16' else 'BF16/FP8'}'",
            f"OLMo-1124 {size}, seq 4096, FSDP HYBRID_SHARD (8 shards per node, zero_group 8), "
            f"microbatch {mbs}, global {gbs}, no AC, torch.compile, "
            f"{'bf16' if prec == 'bf16' else 'float8 linears, float8 FSDP all-gather'}, "
            f"{'eager cross-entropy + z-loss on fp32 logits' if eager else 'fused loss'}; "
            f"{OLMO_GPUS}", "OLMo-core README 2024-11")
# BLOOM-176B.
row("bloom-a100-176b-g384", "megatron-deepspeed", JEAN_ZAY, 384, BLOOM_MODEL, "bf16", 2048,
    # --pp-partition-method 'type:transformer|embedding': the two embeddings count as layers,
    # 72 over 12 stages, so the first and last stage hold 5 transformer layers, the others 6.
    {"tp": 4, "pp": 12, "zero": 1, "microbatch": 2, "recompute": "full", "schedule": "1f1b",
     "first_stage_layers": 5, "last_stage_layers": 5},
    round(2048 * 2048 / 104.70 / 384, 2), BLOOM_DOC,
    "BLOOM 176B, 384 A100 80GB, TP 4 x PP 12 x DP 8, microbatch 2, global 2048, seq 2048, "
    "bf16, full activation checkpointing, ZeRO-1 (bf16 optimizer); DeepSpeed 1F1B pipeline "
    "(its only schedule)", "BLOOM tr11")
# MT-NLG 530B.
for nodes, it in ((280, 60.1), (350, 50.2), (420, 44.4)):
    g = 8 * nodes
    row(f"mtnlg-a100-530b-g{g}", "megatron-deepspeed", "dgx-a100-80g", g, MTNLG_MODEL,
        "bf16", 1920,
        {"tp": 8, "pp": 35, "zero": 1, "microbatch": 2, "recompute": "full",
         "schedule": "1f1b"},
        round(1920 * 2048 / it / g, 2), f"{MTNLG_DOC}; {nodes} servers: {it} s",
        f"MT-NLG 530B, {g} A100 80GB ({nodes} DGX A100), TP 8 x PP 35 x DP {g // 280}, global "
        "1920, seq 2048; assumed: microbatch 2 (not published; inferred from the published "
        "scaling: 1F1B's busy share m / (m + p - 1) with p 35 and m = 1920 / (2 DP) gives "
        "(80 / 114) / (120 / 154) = 0.901 from 280 to 420 servers against the published "
        "113 / 126 = 0.897, microbatch 1 gives 0.942), full activation checkpointing (the published "
        "126 TFLOP/s at 60.1 s equals 4 passes of 2 x 530B x tokens, i.e. Megatron's FLOP "
        "count with recomputation), mixed precision as bf16 (A100 fp16 and bf16 peaks are "
        "equal), ZeRO-1", "MT-NLG sec. 2.4")
# MaxText Llama2-7B on A3.
for n, tf in ((1, 492), (2, 422), (4, 407), (8, 409), (16, 375)):
    row(f"maxtext-a3-llama2-7b-g{8 * n}", "jax-maxtext", "gcp-a3-high", 8 * n, "llama2-7b",
        "bf16", 32 * n,
        {"tp": 1, "pp": 1, "zero": 3, "zero_group": 8, "microbatch": 4,
         "recompute": {"save": "minimal_with_context"}},
        round(tf * 1e12 / MAXTEXT_FLOPS_PER_TOKEN, 1),
        f"{MAXTEXT_DOC.format(n=n)}; {n}x A3: {tf} TFLOP/sec/chip",
        f"Llama2-7B, {8 * n} H100 80GB ({n} A3 VMs), FSDP 8 inside each VM x data parallel "
        f"{n} across VMs (zero_group 8), per-device batch 4 (microbatch 4, global {32 * n}), "
        "seq 4096, remat minimal_flash (MaxText/layers/models.py at efb6d9e: "
        "checkpoint_dots_with_no_batch_dims + save_only_these_names('context') = trainsim's "
        "minimal_with_context), cuDNN flash attention, bf16", "MaxText A3")


def job(r):
    j = {"name": r["name"],
         "description": f"Published: {r['published_tokens_per_s_per_gpu']} tokens/s/GPU. "
                        f"Source: {r['source']}. Configuration: {r['config']}.",
         "software": r["profile"], "model": r["model"], "system": r["system"],
         "gpus": r["gpus"], "global_batch": r["global_batch"], "precision": r["precision"],
         "parallel": r["parallel"]}
    return j


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "configs", "validation", "others"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    pub = []
    for r in ROWS:
        path = os.path.join(a.out, r["name"] + ".json")
        with open(path, "w") as f:
            json.dump(job(r), f, indent=2)
            f.write("\n")
        sysname = r["system"] if isinstance(r["system"], str) else r["system"]["name"]
        pub.append({"name": r["name"], "profile": r["profile"], "system": sysname,
                    "table": r["table"], "config": f"configs/validation/others/{r['name']}.json",
                    "published_tokens_per_s_per_gpu": r["published_tokens_per_s_per_gpu"],
                    **({"measured_on": r["measured_on"]} if r["measured_on"] else {}),
                    "source": r["source"]})
    with open(os.path.join(HERE, "published.json"), "w") as f:
        json.dump({"rows": pub}, f, indent=2)
        f.write("\n")
    print(f"{len(ROWS)} jobs in {a.out}")


if __name__ == "__main__":
    main()
