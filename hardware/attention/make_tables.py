#!/usr/bin/env python3
"""Writes the attention-kernel tables (fa1, fa2, fa3, cudnn, triton, triton-2022, xla .json) from the
published benchmark bars, and derives the entries that were not published, as each file's
"source" states. Run from this folder: python3 make_tables.py"""
import json

SEQ = [512, 1024, 2048, 4096, 8192, 16384]
H_SRC = ("Shah et al. 2024, FlashAttention-3 (arXiv 2407.08608), Figure 5 (forward, BF16/FP16, with "
         "and without causal mask) and Figure 6 (backward, without causal mask) on H100 80GB SXM5: "
         "batch x seqlen = 16k tokens, hidden 2048 (head dim 64 or 128), TFLOP/s as labelled on the "
         "bars; FLOPs counted as the paper does (causal = half the square, backward = 2.5x forward).")

# H100 bars (TFLOP/s) at SEQ: f = forward without mask, b = backward without mask, c = causal forward.
H100 = {
    'fa2': {'f64': [282, 306, 318, 321, 322, 324], 'b64': [198, 238, 264, 279, 287, 291],
            'f128': [309, 350, 362, 368, 370, 370], 'b128': [214, 260, 291, 310, 318, 322],
            'c128': [191, 260, 298, 319, 333, 335]},
    'triton': {'f64': [340, 382, 396, 400, 401, 403], 'f128': [323, 372, 389, 389, 392, 395],
               'c128': [146, 273, 323, 353, 369, 378]},
    'cudnn': {'f64': [335, 373, 395, 408, 412, 413], 'b64': [266, 348, 395, 417, 432, 433],
              'f128': [497, 574, 617, 609, 600, 595], 'b128': [305, 408, 465, 499, 518, 516],
              'c128': [315, 410, 484, 518, 529, 539]},
    'fa3': {'f64': [333, 392, 460, 476, 496, 497], 'b64': [272, 363, 422, 453, 472, 474],
            'f128': [467, 565, 625, 638, 646, 648], 'b128': [316, 424, 501, 542, 559, 561],
            'c128': [292, 423, 521, 579, 602, 616]},
}
# Triton backward is not in Figure 6: FlashAttention-2 backward x (Triton / FA2 forward).
for hd in ('64', '128'):
    H100['triton']['b' + hd] = [b * t / f for b, t, f in
                                zip(H100['fa2']['b' + hd], H100['triton']['f' + hd], H100['fa2']['f' + hd])]


def scaled(d, s):
    return {k: [x * s for x in v] for k, v in d.items()}


def curves(d):
    r = lambda v: [round(x, 1) for x in v]
    return [
        {"head_dim": 64, "causal": False, "fwd": r(d['f64']), "bwd": r(d['b64'])},
        {"head_dim": 128, "causal": False, "fwd": r(d['f128']), "bwd": r(d['b128'])},
        {"head_dim": 128, "causal": True, "fwd": r(d['c128'])},
    ]


# A100 FlashAttention-2: the paper's stated maxima times FA2's own shape measured on H100.
fa2h = H100['fa2']
A100_FA2 = {k: [x * (0.73 * 312 / fa2h['f128'][-1] if k[0] in 'fc' else 0.63 * 312 / fa2h['b128'][-1])
                for x in v] for k, v in fa2h.items()}
A_SRC = ("Dao 2023, FlashAttention-2 (arXiv 2307.08691): on A100 80GB SXM4 the forward pass reaches up "
         "to 73% and the backward up to 63% of the 312 TFLOP/s peak (head dim 128, long sequences, no "
         "mask). The per-length bars of its Figures 4-6 are not transcribed here, so the A100 table is "
         "those maxima times FlashAttention-2's own shape over sequence length, head dim and mask as "
         "measured on H100 in the FlashAttention-3 paper (each value = 0.73 x 312 x H100 value / H100 "
         "value at head dim 128, 16k, no mask; backward with 0.63).")


# The Triton kernel of 2024 (the fused-attention tutorial kernel the FlashAttention-3 paper
# benchmarks) on Ampere: no A100 bars are published; assumed at its H100 ratio to
# FlashAttention-2 at each length, head dim and direction.
TRITON_A100 = {k: [a * t / f for a, t, f in zip(v, H100['triton'][k], fa2h[k])]
               for k, v in A100_FA2.items()}
# Tri Dao's 2022 FlashAttention in Triton (flash_attn_triton.py; llm-foundry's attn_impl
# "triton", on triton 2.0.0.dev20221202 / triton-pre-mlir): FlashAttention-2 / 1.4 forward and
# / 2 backward (Dao 2023, Sec. 4.1, A100). On Hopper the same ratios to FA2's H100 bars
# (assumption: the pre-MLIR Triton compiler emits no Hopper instructions (WGMMA, TMA), so the
# kernel stays an Ampere-style kernel there, as FlashAttention-2 does).
TRITON22 = {'ampere': {k: [x / (1.4 if k[0] in 'fc' else 2.0) for x in v] for k, v in A100_FA2.items()}}
# On Hopper the kernel is not simply FA2's ratio: per unit of work its time on A100 is FA2's time
# plus an extra (0.4x FA2's forward, 1.0x backward), and that extra is the work FA2 removed
# (Dao 2023, Sec. 3.1: the non-matmul FLOPs, rescaling and softmax bookkeeping on the FP32 CUDA
# cores; the tensor-core matmuls are the same). An Ampere-style kernel's matmuls run on H100 at
# FA2's H100 / A100 ratio (the bars above), but its FP32 non-matmul work runs at the CUDA-core
# ratio, 67 / 19.5 TFLOP/s (NVIDIA H100 SXM5 and A100 datasheets, FP32): time on H100 =
# 1 / fa2_hopper + (1 / triton22_ampere - 1 / fa2_ampere) x 19.5 / 67.
FP32_A100_OVER_H100 = 19.5 / 67.0
TRITON22['hopper'] = {k: [1.0 / (1.0 / h + (1.0 / t - 1.0 / a) * FP32_A100_OVER_H100)
                          for h, t, a in zip(fa2h[k], TRITON22['ampere'][k], A100_FA2[k])]
                      for k in fa2h}


def gen(dev, peak, d, notes):
    return {"device": dev, "peak": peak, "seq_len": SEQ, "curves": curves(d), "notes": notes}


# Blackwell cuDNN SDPA through the cuDNN frontend (no framework in the timed region): GB200,
# cuDNN 9.18.0, bf16, batch 1, 64 query / 8 key-value heads, head dim 128 (Llama 3.1 405B's
# attention), TFLOP/s at BW_SEQ, from NVIDIA/cudnn-frontend benchmark/sdpa_benchmark_training/
# results/gb200_918_only_cudnn/llama3.1_20260126_110503.csv. FLOPs counted as the FlashAttention-3
# paper does (the benchmark's flops(): 4 b s^2 h d, halved under the causal mask, backward 2.5x
# forward).
BW_SEQ = [2048, 4096, 8192, 16384, 32768]
BW_CUDNN = {'f128': [1232, 1569, 1675, 1746, 1756], 'b128': [1070, 1261, 1381, 1429, 1469],
            'c128': [1022, 1297, 1563, 1646, 1686], 'cb128': [824, 1105, 1279, 1371, 1441]}
B200_SRC = ("Blackwell: NVIDIA/cudnn-frontend, benchmark/sdpa_benchmark_training/results/"
            "gb200_918_only_cudnn/llama3.1_20260126_110503.csv (cuDNN 9.18.0 through the cuDNN "
            "frontend on GB200, 2500 TFLOP/s bf16; bf16, batch 1, 64 query / 8 key-value heads, head "
            "dim 128, 2048-32768 tokens, causal and no mask, forward and backward; FLOPs counted as "
            "above). Head dim 64 was not measured: it uses the head-dim-128 curves. The same "
            "repository's PyTorch-SDPA run on B200 (artifacts/sdpa_bf16_benchmark_results_NVIDIA_B200.csv, "
            "cuDNN 9.13, CUDA events around one framework call) is not used: its short-sequence "
            "points include the framework's dispatch (at 512 tokens its backward is faster than its "
            "forward).")


def gen_b200(notes):
    r = lambda v: [float(x) for x in v]
    return {"device": "GB200", "peak": "2500 TFLOP/s", "seq_len": BW_SEQ,
            "curves": [{"head_dim": 128, "causal": False, "fwd": r(BW_CUDNN['f128']), "bwd": r(BW_CUDNN['b128'])},
                       {"head_dim": 128, "causal": True, "fwd": r(BW_CUDNN['c128']), "bwd": r(BW_CUDNN['cb128'])}],
            "notes": notes}


def write(name, desc, src, gens, notes):
    doc = {"name": name, "description": desc, "source": src, "notes": notes, "generations": gens}
    with open(name + '.json', 'w') as f:
        f.write(json.dumps(doc, indent=2) + '\n')


CAUSAL_NOTE = ("The causal backward is derived by the loader: the no-mask backward times the "
               "causal / no-mask forward ratio at each length.")
write('fa2', 'FlashAttention-2 (flash-attn 2.x, CUDA sm80 kernels; on Hopper the same kernels run '
      'without Hopper-specific instructions).', A_SRC + ' Hopper: ' + H_SRC,
      {"ampere": gen("A100 80GB SXM4", "312 TFLOP/s", A100_FA2, "A100 maxima x H100 shape (see source)."),
       "hopper": gen("H100 80GB SXM5", "989 TFLOP/s", fa2h,
                     "FlashAttention-2 series: 34-37% of H100 peak at long sequences, an Ampere-style "
                     "kernel without TMA / WGMMA.")}, CAUSAL_NOTE)
write('fa1', 'FlashAttention (v1, 2022; flash-attn 1.x, CUDA).',
      "Dao 2023, FlashAttention-2 (arXiv 2307.08691), abstract: FlashAttention-2 is around 2x faster "
      "than FlashAttention, which reaches 25-40% of A100 peak; so FlashAttention = 0.5 x the "
      "FlashAttention-2 table (A100, 16k, head dim 128: 114 TFLOP/s = 37% of peak, inside the stated "
      "25-40%). No FlashAttention-1 figures on H100 are published; the same ratio there is an assumption.",
      {"ampere": gen("A100 80GB SXM4", "312 TFLOP/s", scaled(A100_FA2, 0.5), "0.5 x fa2 ampere."),
       "hopper": gen("H100 80GB SXM5", "989 TFLOP/s", scaled(fa2h, 0.5), "0.5 x fa2 hopper (assumption).")},
      CAUSAL_NOTE)
write('fa3', 'FlashAttention-3 (flash-attn 3 Hopper kernels: warp specialisation, TMA, WGMMA). Hopper only.',
      H_SRC, {"hopper": gen("H100 80GB SXM5", "989 TFLOP/s", H100['fa3'], "FlashAttention-3 series.")},
      "No other generation: FlashAttention-3 needs sm90 instructions; trainsim refuses it elsewhere. " + CAUSAL_NOTE)
write('cudnn', 'cuDNN fused flash attention (cuDNN 9 SDPA: Transformer Engine FusedAttention, the PyTorch '
      'SDPA cuDNN backend).',
      H_SRC + " cuDNN series. Ampere: no published cuDNN attention figures were found; Transformer Engine "
      "selects FlashAttention-2 on sm80, so the ampere block repeats the fa2 ampere table (assumption). "
      + B200_SRC,
      {"ampere": gen("A100 80GB SXM4", "312 TFLOP/s", A100_FA2, "= fa2 ampere (assumption)."),
       "hopper": gen("H100 80GB SXM5", "989 TFLOP/s", H100['cudnn'], "cuDNN series."),
       "blackwell": gen_b200("cuDNN 9.18 on GB200; the causal backward is measured, not derived.")}, CAUSAL_NOTE)
write('triton', 'Triton fused attention of 2024: the Triton fused-attention tutorial kernel the '
      'FlashAttention-3 paper benchmarks (for the 2022 FlashAttention-in-Triton kernel see triton-2022).',
      H_SRC + " Triton series for the forward. Its backward is not in Figure 6: the hopper backward is "
      "FlashAttention-2 backward x (Triton / FlashAttention-2 forward) at each length and head dim. "
      "Ampere: no published A100 figures for this kernel; the ampere table is fa2 ampere x (Triton / "
      "FlashAttention-2 on H100) at each length, head dim and direction (assumption).",
      {"ampere": gen("A100 80GB SXM4", "312 TFLOP/s", TRITON_A100,
                     "fa2 ampere x the H100 Triton / FA2 ratio (assumption)."),
       "hopper": gen("H100 80GB SXM5", "989 TFLOP/s", H100['triton'], "Triton forward; backward derived.")},
      CAUSAL_NOTE)
write('triton-2022', 'FlashAttention in Triton of 2022 (Tri Dao\'s flash_attn_triton.py, the kernel of '
      'MosaicML llm-foundry attn_impl "triton", run on triton 2.0.0.dev20221202 / triton-pre-mlir).',
      "Dao 2023, FlashAttention-2 (arXiv 2307.08691), Sec. 4.1 and Figures 4-6 (A100 80GB SXM4): "
      "FlashAttention-2 is around 1.3-1.5x faster than FlashAttention in Triton in the forward pass and "
      "around 2x faster in the backward pass; so this table is the fa2 table / 1.4 forward and / 2 "
      "backward. Ampere: fa2 ampere (" + A_SRC + "). Hopper: the pre-MLIR Triton compiler the kernel "
      "ran on (llm-foundry v0.3.0 installs triton-pre-mlir, branch triton_pre_mlir_sm90) emits no "
      "Hopper instructions (WGMMA, TMA), so, like FlashAttention-2, it stays an Ampere-style kernel on "
      "H100: per unit of work its time is FA2's H100 time (FlashAttention-2 bars on H100 SXM5 in "
      + H_SRC + ") plus its extra time over FA2 on A100 (0.4x FA2's forward, 1.0x backward) scaled "
      "by the FP32 CUDA-core throughput A100 / H100 = 19.5 / 67 TFLOP/s (NVIDIA A100 and H100 SXM5 "
      "datasheets): that extra is the non-matmul work FA2 removed (Dao 2023, Sec. 3.1), which runs on "
      "the CUDA cores while the matmuls run on the tensor cores at FA2's H100 / A100 ratio. Result: "
      "0.84x FA2 hopper forward, 0.68x backward (was fa2 / 1.4 and / 2). If part of the extra is "
      "shared-memory traffic (Sec. 3.3), which scales like FA2 itself, the kernel is slower than "
      "this, down to fa2 / 1.4 and / 2.",
      {"ampere": gen("A100 80GB SXM4", "312 TFLOP/s", TRITON22['ampere'],
                     "fa2 ampere / 1.4 (forward), / 2 (backward)."),
       "hopper": gen("H100 80GB SXM5", "989 TFLOP/s", TRITON22['hopper'],
                     "fa2 hopper time + the A100 extra over fa2 x 19.5 / 67 (FP32 A100 / H100), see source.")},
      CAUSAL_NOTE)
write('xla', 'XLA fused attention on NVIDIA GPUs: XLA lowers fused attention to cuDNN flash attention '
      '(jax.nn.dot_product_attention implementation="cudnn"; MaxText attention "cudnn_flash_te").',
      "JAX documentation of jax.nn.dot_product_attention (implementation 'cudnn' calls cuDNN's fused "
      "flash attention) and MaxText GPU configs (attention: cudnn_flash_te). Numbers = cudnn.json: " + H_SRC
      + " " + B200_SRC,
      {"ampere": gen("A100 80GB SXM4", "312 TFLOP/s", A100_FA2, "= cudnn ampere."),
       "hopper": gen("H100 80GB SXM5", "989 TFLOP/s", H100['cudnn'], "= cudnn hopper."),
       "blackwell": gen_b200("= cudnn blackwell.")}, CAUSAL_NOTE)
