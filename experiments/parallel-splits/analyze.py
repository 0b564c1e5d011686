#!/usr/bin/env python3
"""MFU over tensor x pipeline parallel sizes (and microbatch) for GPT-3 175B on 1,024 A100.

Usage: analyze.py --trainsim PATH --root REPO_ROOT --out OUT_DIR

For every tp in TPS, pp in PPS and microbatch in MICROBATCHES, configs/job.json (the template)
is run with `trainsim run --format json` under plain 1F1B and under the interleaved schedule
with each virtual-stage count in VIRTUAL that divides the stage's layers; a cell shows the
best MFU among the variants that fit in memory. A cell is "OOM" when valid variants exist but
none fits (its label gives the smallest memory any of them needs), and blank when trainsim
refuses every variant (dp x microbatch does not divide the global batch, ...).
Jobs go to OUT/jobs/, outputs to OUT/runs/. Writes cells.csv, results.md and gnuplot data
(heat-*.dat, oom-*.dat, plotvars.gp). Standard library only.
"""
import argparse
import copy
import csv
import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

TEMPLATE = "experiments/parallel-splits/configs/job.json"
LAYOUT_SWEEP = "configs/gpt3-175b-layout-sweep.json"
TPS = [1, 2, 4, 8, 16]
PPS = [1, 2, 4, 8, 16, 32]
MICROBATCHES = [1, 2, 4]
VIRTUAL = [2, 3, 4, 6, 8, 12]


def variants(template, tp, pp, mb):
    """(name, job) for 1F1B and every interleaved depth that splits the stage's layers."""
    out = []
    layers = 96  # gpt3-175b; a variant whose split is invalid is refused by trainsim anyway
    scheds = [("1f1b", 1)] + [("interleaved", v) for v in VIRTUAL if pp > 1 and (layers // pp) % v == 0]
    for sched, v in scheds:
        j = copy.deepcopy(template)
        j["name"] = "parallel-splits-generated"
        j.pop("description", None)
        j["parallel"].update(tp=tp, pp=pp, microbatch=mb, schedule=sched, sequence_parallel=tp > 1)
        if sched == "interleaved":
            j["parallel"]["virtual_stages"] = v
        else:
            j["parallel"].pop("virtual_stages", None)
        tag = "1f1b" if sched == "1f1b" else f"v{v}"
        out.append((f"tp{tp}-pp{pp}-mb{mb}-{tag}", j))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trainsim", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    out = a.out
    for d in ("jobs", "runs"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    template = json.load(open(os.path.join(a.root, TEMPLATE)))

    def run(item):
        name, job = item
        path = os.path.join(out, "jobs", name + ".json")
        with open(path, "w") as f:
            json.dump(job, f, indent=1)
        p = subprocess.run([a.trainsim, "run", path, "--format", "json"], cwd=a.root,
                           capture_output=True, text=True)
        if p.returncode == 2:
            return {"error": p.stderr.strip().split(": ", 2)[-1]}
        if p.returncode != 0:
            sys.exit(f"trainsim run {path} failed ({p.returncode}): {p.stderr.strip()}")
        with open(os.path.join(out, "runs", name + ".json"), "w") as f:
            f.write(p.stdout)
        return json.loads(p.stdout)

    cells = {}
    items = [(tp, pp, mb, v) for tp in TPS for pp in PPS for mb in MICROBATCHES
             for v in variants(template, tp, pp, mb)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        results = list(ex.map(lambda it: run(it[3]), items))
    for (tp, pp, mb, (name, _)), r in zip(items, results):
        cells.setdefault((tp, pp, mb), []).append((name.rsplit("-", 1)[1], r))

    def summarise(vs):
        valid = [(t, r) for t, r in vs if "error" not in r]
        fit = [(t, r) for t, r in valid if r["feasible"]]
        base = next((r for t, r in valid if t == "1f1b" and r["feasible"]), None)
        if fit:
            t, r = max(fit, key=lambda x: x[1]["mfu"])
            return {"status": "ok", "variant": t, "r": r, "mfu": r["mfu"],
                    "mfu_1f1b": base["mfu"] if base else None,
                    "mem": r["memory_per_gpu_bytes"] / 2**30}
        if valid:
            t, r = min(valid, key=lambda x: x[1]["memory_per_gpu_bytes"])
            return {"status": "oom", "variant": t, "r": r, "mfu": None, "mfu_1f1b": None,
                    "mem": r["memory_per_gpu_bytes"] / 2**30, "cap": r["memory_capacity_bytes"] / 2**30}
        return {"status": "invalid", "reason": vs[0][1]["error"], "mfu": None, "mfu_1f1b": None}

    S = {k: summarise(v) for k, v in cells.items()}
    best_mb = {}
    for tp in TPS:
        for pp in PPS:
            opts = [(mb, S[(tp, pp, mb)]) for mb in MICROBATCHES]
            ok = [(mb, s) for mb, s in opts if s["status"] == "ok"]
            if ok:
                best_mb[(tp, pp)] = max(ok, key=lambda x: x[1]["mfu"])
            elif any(s["status"] == "oom" for _, s in opts):
                best_mb[(tp, pp)] = min(((mb, s) for mb, s in opts if s["status"] == "oom"),
                                        key=lambda x: x[1]["mem"])
            else:
                best_mb[(tp, pp)] = (None, opts[0][1])

    # The same with plain 1F1B only (what interleaving adds).
    S1 = {k: summarise([(t, r) for t, r in v if t == "1f1b"]) for k, v in cells.items()}
    best_1f1b = {}
    for tp in TPS:
        for pp in PPS:
            opts = [(mb, S1[(tp, pp, mb)]) for mb in MICROBATCHES]
            ok = [(mb, s) for mb, s in opts if s["status"] == "ok"]
            oom = [(mb, s) for mb, s in opts if s["status"] == "oom"]
            best_1f1b[(tp, pp)] = (max(ok, key=lambda x: x[1]["mfu"]) if ok else
                                   min(oom, key=lambda x: x[1]["mem"]) if oom else (None, opts[0][1]))

    with open(os.path.join(out, "cells.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["tp", "pp", "microbatch", "dp", "status", "schedule", "virtual_stages", "mfu",
                    "mfu_1f1b", "iteration_s", "bubble_fraction", "memory_gib", "note"])
        for (tp, pp, mb), s in sorted(S.items()):
            dp = 1024 // (tp * pp)
            if s["status"] == "invalid":
                w.writerow([tp, pp, mb, dp, "invalid", "", "", "", "", "", "", "", s["reason"]])
                continue
            r = s["r"]
            sched = "1f1b" if s["variant"] == "1f1b" else "interleaved"
            v = 1 if s["variant"] == "1f1b" else int(s["variant"][1:])
            w.writerow([tp, pp, mb, dp, s["status"], sched, v,
                        f"{s['mfu']:.4f}" if s["mfu"] else "",
                        f"{s['mfu_1f1b']:.4f}" if s["mfu_1f1b"] else "",
                        f"{r['iteration_time_s']:.3f}", f"{r['bubble_fraction']:.4f}",
                        f"{s['mem']:.1f}", r["reason"] or ""])

    # gnuplot data: per panel (mb1, mb2, mb4, best), a matrix of MFU % (NaN = no colour),
    # the OOM cells, and labels.
    panels = [(f"mb{mb}", {(tp, pp): (mb, S[(tp, pp, mb)]) for tp in TPS for pp in PPS})
              for mb in MICROBATCHES] + [("best", best_mb), ("best1f1b", best_1f1b)]
    vals = [s["mfu"] for s in S.values() if s["mfu"]]
    # The colour range gnuplot uses (plots.gp rounds to 5%).
    lo = math.floor(20 * min(vals)) / 20
    hi = math.ceil(20 * max(vals)) / 20
    for tag, P_ in panels:
        with open(os.path.join(out, f"heat-{tag}.dat"), "w") as f, \
             open(os.path.join(out, f"oom-{tag}.dat"), "w") as g, \
             open(os.path.join(out, f"label-{tag}.dat"), "w") as h:
            f.write("# x(pp index) y(tp index) mfu_pct\n")
            for yi, tp in enumerate(TPS):
                for xi, pp in enumerate(PPS):
                    mb, s = P_[(tp, pp)]
                    f.write(f"{xi} {yi} {100 * s['mfu']:.3f}\n" if s["status"] == "ok" else f"{xi} {yi} NaN\n")
                    if s["status"] == "oom":
                        g.write(f"{xi} {yi}\n")
                        extra = f"\\nmb{mb}" if tag.startswith("best") else ""
                        h.write(f'{xi} {yi} "OOM\\n{s["mem"]:.0f} GiB{extra}" 0x000000\n')
                    elif s["status"] == "ok":
                        sub = "1F1B" if s["variant"] == "1f1b" else f"VP{s['variant'][1:]}"
                        if tag == "best":
                            sub = f"mb{mb} {sub}"
                        elif tag == "best1f1b":
                            sub = f"mb{mb}"
                        # White text on the dark end of the palette.
                        ink = "0xffffff" if s["mfu"] < lo + 0.45 * (hi - lo) else "0x000000"
                        h.write(f'{xi} {yi} "{100 * s["mfu"]:.1f}\\n{sub}" {ink}\n')
                f.write("\n")
    with open(os.path.join(out, "plotvars.gp"), "w") as f:
        f.write(f"mfu_lo = {100 * min(vals):.1f}\nmfu_hi = {100 * max(vals):.1f}\n")
        f.write('tps = "' + " ".join(map(str, TPS)) + '"\npps = "' + " ".join(map(str, PPS)) + '"\n')

    # results.md
    L = []
    P = L.append
    t = next(s["r"] for s in S.values() if s["status"] == "ok")
    cap = t["memory_capacity_bytes"] / 2**30
    P(f"Job: {t['model']} on {t['gpus']} x {t['accelerator']} ({t['nodes']} x {t['system']}), "
      f"global batch {t['global_batch']}, {t['precision']}, selective recompute, ZeRO 1, sequence "
      f"parallel when tp > 1, flash attention; memory per GPU usable {cap:.1f} GiB. Each cell: the "
      f"best of 1F1B and interleaved (VP = virtual stages per GPU from {VIRTUAL}) that fits.")
    P("")
    n_runs = len(items)
    n_inv = sum(1 for r in results if "error" in r)
    P(f"{n_runs} variants run ({n_inv} refused as invalid layouts).")
    P("")
    for tag, P_ in panels:
        title = (f"microbatch {tag[2:]}" if tag.startswith("mb") else "best over microbatch 1, 2, 4"
                 if tag == "best" else "plain 1F1B only, best over microbatch 1, 2, 4")
        P(f"### MFU (%), {title}")
        P("")
        P("| tp \\ pp | " + " | ".join(map(str, PPS)) + " |")
        P("|---:|" + "---:|" * len(PPS))
        for tp in TPS:
            row = []
            for pp in PPS:
                mb, s = P_[(tp, pp)]
                if s["status"] == "ok":
                    sub = "1F1B" if s["variant"] == "1f1b" else f"VP{s['variant'][1:]}"
                    if tag == "best":
                        sub = f"mb{mb} {sub}"
                    elif tag == "best1f1b":
                        sub = f"mb{mb}"
                    row.append(f"{100 * s['mfu']:.1f} ({sub})")
                elif s["status"] == "oom":
                    row.append(f"OOM ({s['mem']:.0f} GiB)")
                else:
                    row.append("-")
            P(f"| **{tp}** | " + " | ".join(row) + " |")
        P("")
    ok = [(k, s) for k, s in S.items() if s["status"] == "ok"]
    (tp, pp, mb), s = max(ok, key=lambda x: x[1]["mfu"])
    r = s["r"]
    P(f"Best cell: TP{tp} PP{pp} DP{1024 // (tp * pp)} microbatch {mb} "
      f"{'1F1B' if s['variant'] == '1f1b' else 'interleaved VP' + s['variant'][1:]}: "
      f"MFU {100 * s['mfu']:.1f}%, iteration {r['iteration_time_s']:.2f} s, bubble "
      f"{100 * r['bubble_fraction']:.1f}%, {s['mem']:.1f} GiB per GPU.")
    gains = [(k, s["mfu"] / s["mfu_1f1b"] - 1) for k, s in ok if s["mfu_1f1b"]]
    if gains:
        k, g = max(gains, key=lambda x: x[1])
        P(f"Largest gain of interleaving over plain 1F1B: TP{k[0]} PP{k[1]} mb{k[2]}, {100 * g:+.1f}% MFU "
          f"(relative); cells where interleaving fits but 1F1B does not: "
          f"{sum(1 for _, s in ok if s['mfu_1f1b'] is None)}.")
    # For context: trainsim's full layout search on the same job (every option searched).
    p = subprocess.run([a.trainsim, "sweep", LAYOUT_SWEEP, "--format", "json", "--no-progress"],
                       cwd=a.root, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"trainsim sweep {LAYOUT_SWEEP} failed ({p.returncode}): {p.stderr.strip()}")
    with open(os.path.join(out, "layout-sweep.json"), "w") as f:
        f.write(p.stdout)
    sb = json.loads(p.stdout)["best"]
    lay = sb["layout"]
    P(f"For context, the full search `{LAYOUT_SWEEP}` (also cp, recompute none/selective/full, "
      f"ZeRO 0-3, TP communication overlap) finds TP{lay['tp']} PP{lay['pp']} CP{lay['cp']} "
      f"DP{lay['dp']} microbatch {lay['microbatch']} {lay['schedule']}"
      f"{' VP' + str(lay['virtual_stages']) if lay['schedule'] == 'interleaved' else ''}, recompute "
      f"{lay['recompute']}, ZeRO {lay['zero']}, TP overlap {'on' if lay['tp_comm_overlap'] else 'off'}: "
      f"MFU {100 * sb['mfu']:.1f}%, {sb['memory_per_gpu_bytes'] / 2**30:.1f} GiB per GPU.")
    counts = {st: sum(1 for s in S.values() if s["status"] == st) for st in ("ok", "oom", "invalid")}
    P(f"Cells (tp x pp x microbatch = {len(S)}): {counts['ok']} fit, {counts['oom']} out of memory, "
      f"{counts['invalid']} invalid.")
    P("")
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(L))
    print("\n".join(L))
    return 0


if __name__ == "__main__":
    sys.exit(main())
