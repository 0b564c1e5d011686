#!/usr/bin/env bash
# Weak scaling, 128 -> 512 H100: how much of the missing step growth could a fall of the rings'
# achieved bandwidth with the node count explain? A what-if, not a model change: the one
# measurement of ring bus bandwidth against node count found (NVIDIA/nccl issue #1229, H100,
# 8 GPUs per node: reduce-scatter busbw "360, 345, 320, 300, 280, 260" GB/s at 4, 8, 16, 32,
# 64, 128 nodes; message size and fabric not stated) is turned into a bandwidth factor f per
# node count, relative to the 16 nodes of the 128-GPU jobs, and the 256- and 512-GPU jobs run
# with the ring bandwidth of dgx-h100 multiplied by f (scale_up.efficiency and
# scale_out.efficiency both x f: the ring runs at min(NVLink, NIC shares), so both move).
#   residual 8G / 16G: f = (measured / trainsim) at N over the same at 16 nodes, trainsim being
#       today's ring (its latency included) at an 8 GiB or a 16 GiB message (nccl-tests' usual
#       largest sizes; the issue gives none). What the measurement shows beyond the latency
#       trainsim already has.
#   whole fall: f = measured(N) / measured(16): all of the measured fall taken as bandwidth, on
#       top of the modelled latency (double counting it: an upper bound).
#
# Usage: experiments/weak-scaling/bandwidth-bound.sh   (about 5 s)
# Environment: TRAINSIM (default build/sim/trainsim, built if missing).
# Writes bandwidth-bound.md here; scratch files in out/.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
. "$HERE/../common.sh"
FW=$ROOT/experiments/validation-frameworks
JOBS=$ROOT/configs/validation/llm-foundry

python3 - "$TRAINSIM" "$ROOT" "$FW" "$JOBS" "$HERE" "$OUT" <<'PY'
import collections
import csv
import json
import os
import statistics
import subprocess
import sys

trainsim, root, fw, jobs, here, out = sys.argv[1:7]
GIB = 1024.0 ** 3
# NVIDIA/nccl issue #1229 (2024-03-16): H100, reduce-scatter bus bandwidth by node count.
measured = {4: 360.0, 8: 345.0, 16: 320.0, 32: 300.0, 64: 280.0, 128: 260.0}

base = json.load(open(os.path.join(root, "hardware/systems/dgx-h100.json")))
G = base["gpus_per_node"]
up = base["scale_up"]
so = base["scale_out"]
assert up["bandwidth"] == "450 GB/s" and up["latency"] == "8.7 us" and so["bandwidth"] == "400 Gb/s"


def ring_rs_busbw(nodes, S):
    """trainsim's ring reduce-scatter on dgx-h100 (sim/comm/comm.h): 8.4 us once, 14 us per
    network step (nodes - 1 of them), the 8.7 us scale-up step for the other 7 x nodes, the
    (n - 1)/n S bytes at min(NVLink 450 x 0.82, 8 NICs x 50 x 0.955) GB/s; busbw =
    (n - 1)/n S / t (nccl-tests)."""
    n = G * nodes
    bw = min(450e9 * up["efficiency"], G * 50e9 * so["efficiency"])
    t = 8.4e-6 + (nodes - 1) * 14e-6 + (n - 1 - (nodes - 1)) * 5e-6 + (n - 1) / n * S / bw
    return (n - 1) / n * S / t / 1e9


variants = {
    "residual 8G": {N: (measured[N] / ring_rs_busbw(N, 8 * GIB)) /
                       (measured[16] / ring_rs_busbw(16, 8 * GIB)) for N in (32, 64)},
    "residual 16G": {N: (measured[N] / ring_rs_busbw(N, 16 * GIB)) /
                        (measured[16] / ring_rs_busbw(16, 16 * GIB)) for N in (32, 64)},
    "whole fall": {N: measured[N] / measured[16] for N in (32, 64)},
}


def run(name, f=None):
    job = json.load(open(os.path.join(jobs, name)))
    assert job["system"] == "dgx-h100", name
    if f is not None and f != 1.0:
        s = json.loads(json.dumps(base))
        s["scale_up"]["efficiency"] = up["efficiency"] * f
        s["scale_out"]["efficiency"] = so["efficiency"] * f
        s["name"] = f"dgx-h100-ring-x{f:.4f}"
        path = os.path.join(out, s["name"] + ".json")
        json.dump(s, open(path, "w"))
        job["system"] = path
    path = os.path.join(out, "job.json")
    json.dump(job, open(path, "w"))
    proc = subprocess.run([trainsim, "run", path, "--format", "json"], capture_output=True,
                          text=True, cwd=root)
    if proc.returncode != 0:
        sys.exit(f"{name}: trainsim failed ({proc.returncode}): {proc.stderr.strip()}")
    d = json.loads(proc.stdout)
    assert d["feasible"], name
    return d["iteration_time_s"]


rows = list(csv.DictReader(open(os.path.join(fw, "llm-foundry-rows.csv"))))
pub = json.load(open(os.path.join(fw, "published.json")))["rows"]
groups = collections.defaultdict(list)
for r, p in zip(rows, pub):
    if r["table"] != "h100-bf16-large":
        continue
    key = (r["model"], r["seq_len"], r["microbatch"], r["grad_accum"])
    groups[key].append((int(r["n_gpus"]), float(r["throughput_tokens_per_s_per_gpu"]),
                        os.path.basename(p["config"])))

pairs = []
for key, members in groups.items():
    members.sort()
    n0, tps0, name0 = members[0]
    assert n0 == 128, key
    t0 = run(name0)
    for n, tps, name in members[1:]:
        nodes = n // G
        row = dict(model=key[0], gpus=f"{n0} -> {n}", published=tps0 / tps - 1,
                   today=run(name) / t0 - 1)
        for v, f in variants.items():
            row[v] = run(name, f[nodes]) / t0 - 1
        pairs.append(row)

cols = ["today"] + list(variants)
L = ["# Weak scaling 128 -> 512 H100: what a ring-bandwidth fall with the node count adds", "",
     "Written by bandwidth-bound.sh (see its header). Measured ring reduce-scatter bus bandwidth",
     "(NVIDIA/nccl issue #1229; H100, 8 GPUs per node; size and fabric not stated) against",
     "trainsim's ring on dgx-h100 at 8 and 16 GiB (GB/s):", "",
     "| nodes | measured | trainsim 8 GiB | trainsim 16 GiB |", "|---:|---:|---:|---:|"]
for N, m in measured.items():
    L.append(f"| {N} | {m:.0f} | {ring_rs_busbw(N, 8 * GIB):.1f} | {ring_rs_busbw(N, 16 * GIB):.1f} |")
L += ["", "Ring bandwidth factor f applied to the larger jobs (relative to 16 nodes = 128 GPUs):", "",
      "| variant | 32 nodes (256 GPUs) | 64 nodes (512 GPUs) |", "|---|---:|---:|"]
for v, f in variants.items():
    L.append(f"| {v} | {f[32]:.3f} | {f[64]:.3f} |")
L += ["", "Step-time growth (fixed work per GPU; published = tokens/s per GPU at 128 over the larger",
      "count, minus 1; trainsim with the slowest-GPU wait, as results.md's \"after\"):", "",
      "| model | GPUs | published | " + " | ".join(f"trainsim {c}" for c in cols) + " |",
      "|---|---|---:|" + "---:|" * len(cols)]
for p in pairs:
    L.append(f"| {p['model']} | {p['gpus']} | {100 * p['published']:+.1f}% | " +
             " | ".join(f"{100 * p[c]:+.2f}%" for c in cols) + " |")
mean = {c: statistics.mean(p[c] for p in pairs) for c in ["published"] + cols}
L.append(f"| mean | {len(pairs)} pairs | {100 * mean['published']:+.2f}% | " +
         " | ".join(f"{100 * mean[c]:+.2f}%" for c in cols) + " |")
big = [p for p in pairs if p["model"] in ("mpt-13b", "mpt-30b", "mpt-70b") and p["gpus"].endswith("512")]
L.append("")
L.append("13B-70B at 512 GPUs, missing growth (published - trainsim today) and the share of it each "
         "variant adds:")
L.append("")
L.append("| model | missing | " + " | ".join(f"{v} adds" for v in variants) + " |")
L.append("|---|---:|" + "---:|" * len(variants))
for p in big:
    miss = p["published"] - p["today"]
    L.append(f"| {p['model']} | {100 * miss:+.2f} pts | " +
             " | ".join(f"{100 * (p[v] - p['today']):+.2f} pts ({(p[v] - p['today']) / miss:.0%})"
                        for v in variants) + " |")
# The factor that would close each gap on its own: bisection on f (growth falls as f grows).
L += ["", "Ring bandwidth factor at 64 nodes that alone would reproduce the published growth (bisection,",
      "8 steps on [0.1, 1]; the same fabric at the same node counts for all three models):", "",
      "| model | published | f needed |", "|---|---:|---:|"]
name_of = {k[0]: m for k, m in groups.items()}
for p in big:
    members = name_of[p["model"]]
    t0 = run(members[0][2])
    name512 = [m[2] for m in members if m[0] == 512][0]
    lo, hi = 0.1, 1.0
    for _ in range(8):
        mid = 0.5 * (lo + hi)
        if run(name512, mid) / t0 - 1 > p["published"]:
            lo = mid
        else:
            hi = mid
    L.append(f"| {p['model']} | {100 * p['published']:+.1f}% | {0.5 * (lo + hi):.2f} |")
open(os.path.join(here, "bandwidth-bound.md"), "w").write("\n".join(L) + "\n")
print("\n".join(L[-(2 * len(big) + 9):]))
PY
echo "table: $HERE/bandwidth-bound.md"
