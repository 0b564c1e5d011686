#!/usr/bin/env bash
# Weak scaling: the same model and the same work per GPU at several GPU counts. Published step
# times grow with the job's size; this compares that growth with trainsim's, with the wait for
# the slowest GPU (time_breakdown.sync_wait_s, sim/step/scale.c) and without it ("before" =
# the simulated step alone, what trainsim predicted before the effect was modelled).
#
# Usage: experiments/weak-scaling/run.sh
# Environment: TRAINSIM (default build/sim/trainsim, built if missing).
# Rows: the llm-foundry benchmark tables (experiments/validation-frameworks), grouped by table,
# model, sequence length, microbatch and gradient accumulation; every group with two or more
# GPU counts, all of them feasible in trainsim. Jobs: configs/validation/llm-foundry (software
# profile pytorch-fsdp, per-unit FSDP collectives). Writes results.md and results.csv here.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
. "$HERE/../common.sh"
FW=$ROOT/experiments/validation-frameworks
JOBS=$ROOT/configs/validation/llm-foundry

python3 - "$TRAINSIM" "$ROOT" "$FW" "$JOBS" "$HERE" <<'PY'
import collections
import csv
import json
import os
import statistics
import subprocess
import sys

trainsim, root, fw, jobs, here = sys.argv[1:6]
rows = list(csv.DictReader(open(os.path.join(fw, "llm-foundry-rows.csv"))))
pub = json.load(open(os.path.join(fw, "published.json")))["rows"]
assert len(rows) == len(pub)
groups = collections.defaultdict(list)
for r, p in zip(rows, pub):
    key = (r["table"], r["model"], r["seq_len"], r["microbatch"], r["grad_accum"])
    groups[key].append((int(r["n_gpus"]), float(r["throughput_tokens_per_s_per_gpu"]),
                        os.path.basename(p["config"])))

pairs = []
for key, members in groups.items():
    members.sort()
    if len(members) < 2:
        continue
    runs = []
    for n, tps, name in members:
        proc = subprocess.run([trainsim, "run", os.path.join(jobs, name), "--format", "json"],
                              capture_output=True, text=True, cwd=root)
        if proc.returncode != 0:
            sys.exit(f"{name}: trainsim failed ({proc.returncode}): {proc.stderr.strip()}")
        d = json.loads(proc.stdout)
        if not d["feasible"]:
            runs = []
            break
        t = d["iteration_time_s"]
        b = d["time_breakdown"]
        runs.append((n, tps, t, t - b["sync_wait_s"], b))
    if not runs:
        continue
    n0, tps0, t0, s0, b0 = runs[0]
    for n, tps, t, s, b in runs[1:]:
        # Fixed work per GPU: step time ratio = inverse ratio of tokens/s per GPU.
        # The growth's parts, each as a share of the smaller job's step: compute (the units'
        # compute, slowed by contention beside longer collectives), exposed data-parallel
        # traffic (first gathers, last reduce-scatters, the rings' latency), the wait for the
        # slowest GPU, the (sharded) optimizer step; the rest is what these leave.
        parts = {k: (b.get(k, 0.0) - b0.get(k, 0.0)) / t0
                 for k in ("compute_s", "exposed_dp_s", "sync_wait_s", "optimizer_s")}
        pairs.append(dict(table=key[0], model=key[1], gpus_from=n0, gpus_to=n,
                          published=tps0 / tps - 1, before=s / s0 - 1, after=t / t0 - 1,
                          d_compute=parts["compute_s"], d_exposed_dp=parts["exposed_dp_s"],
                          d_sync_wait=parts["sync_wait_s"], d_optimizer=parts["optimizer_s"]))

with open(os.path.join(here, "results.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(pairs[0].keys()))
    w.writeheader()
    for p in pairs:
        w.writerow({k: (f"{v:.5f}" if isinstance(v, float) else v) for k, v in p.items()})

lines = ["# Weak scaling: step-time growth with the GPU count at fixed work per GPU", "",
         "Published = llm-foundry tokens/s per GPU at the smaller count over the larger, minus 1.",
         "Before = trainsim's simulated step alone; after = with the wait for the slowest GPU.",
         "The last four columns split trainsim's growth (after) into its parts, each as a share of",
         "the smaller job's step: compute (with ZeRO-1/2, slowed by contention beside the bucketed",
         "reductions), exposed data-parallel traffic (with ZeRO-3 it includes the units' contention),",
         "the wait for the slowest GPU, the sharded optimizer step.", "",
         "| table | model | GPUs | published | trainsim before | trainsim after "
         "| compute | exposed DP | slowest GPU | optimizer |",
         "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
for p in pairs:
    lines.append(f"| {p['table']} | {p['model']} | {p['gpus_from']} -> {p['gpus_to']} | "
                 f"{100 * p['published']:+.1f}% | {100 * p['before']:+.1f}% | {100 * p['after']:+.1f}% | "
                 f"{100 * p['d_compute']:+.2f}% | {100 * p['d_exposed_dp']:+.2f}% | "
                 f"{100 * p['d_sync_wait']:+.2f}% | {100 * p['d_optimizer']:+.2f}% |")
lines += ["", "| table | pairs | mean published | mean before | mean after |", "|---|---:|---:|---:|---:|"]
for table in sorted({p["table"] for p in pairs}):
    s = [p for p in pairs if p["table"] == table]
    lines.append(f"| {table} | {len(s)} | {100 * statistics.mean(p['published'] for p in s):+.2f}% | "
                 f"{100 * statistics.mean(p['before'] for p in s):+.2f}% | "
                 f"{100 * statistics.mean(p['after'] for p in s):+.2f}% |")
open(os.path.join(here, "results.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines[-(len({p['table'] for p in pairs}) + 2):]))
PY
echo "tables: $HERE/results.md, $HERE/results.csv"
