#!/usr/bin/env python3
"""Failures, checkpoints, spot capacity and hot spares: what they cost as a cluster grows.

Usage: analyze.py --trainsim PATH --root REPO_ROOT --out OUT_DIR

Every job is configs/job.json (the template) with a few keys replaced, written to
OUT/jobs/NAME.json and run with `trainsim run --format json --threads 1` (two at a time);
each output is kept as OUT/runs/NAME.json. Four studies:
  1. scan:       8 ... 16,384 GPUs (powers of two), the cheapest of four tp x cp splits per
                 size; default failures (the H100 fleet: Llama 3 Table 5 per node), and
                 the same without the software process (hardware only), checkpoint
                 interval "auto".
  2. interval:   at 64, 1,024 and 16,384 GPUs, the checkpoint interval from 15 s to 8 h,
                 against "auto" (Daly's optimum).
  3. spot:       at 16, 128 and 1,024 nodes, spot pricing as the per-node preemption MTBF
                 varies, against on-demand; the crossover found by bisection.
  4. spares:     at 128 and 2,048 nodes with a 12 h repair time, 0 ... 16 hot spares,
                 against the default (a pool node swapped in during the restart).
Writes scan.csv, interval.csv, spot.csv, spares.csv, results.md and gnuplot data (*.dat).
Standard library only.
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

TEMPLATE = "experiments/failure-rework/configs/job.json"
SIZES = [8 * 2 ** k for k in range(12)]                 # 8 ... 16,384 GPUs
SPLITS = [(8, 1), (4, 2), (2, 4), (1, 8)]               # (tp, cp) inside one 8-GPU node
INTERVAL_SIZES = [64, 1024, 16384]
INTERVALS_S = [15, 30, 60, 120, 180, 300, 450, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200,
               10800, 14400, 21600, 28800]
SPOT_NODES = [16, 128, 1024]
SPOT_MTBF_H = [2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 3650, 10000, 30000]
SPOT_DEFAULT_H = 3650           # trainsim's sweep default: AWS Spot Advisor ">20%" band
SPARE_NODES = [128, 2048]
SPARES = [0, 1, 2, 3, 4, 6, 8, 12, 16]
REPAIR = "12 h"
DAY = 86400.0

# The hardware processes of trainsim's H100-fleet defaults (sim/spec/reliability.c, issue 13:
# Llama 3 Table 5 counts of 419 interruptions in 54 days on 2,048 nodes of 8 GPUs: GPU 268 per
# GPU, host 46, NIC 7, switch/cable 35 per node; the software process, 63 per node, is what
# the hardware-only variant leaves out), with the default processes' hang shares (NIC and
# switch/cable failures hang until the NCCL watchdog).
W = 54 * DAY
HARDWARE_ONLY = [
    {"component": "gpu", "mtbf": 16384 * W / 268, "name": "gpu"},
    {"component": "node", "mtbf": 2048 * W / 46, "name": "host"},
    {"component": "network", "mtbf": 2048 * W / 7, "name": "nic", "hang_fraction": 1.0},
    {"component": "switch", "mtbf": 2048 * W / 35, "name": "switch/cable", "hang_fraction": 1.0},
]


class Runner:
    """Writes jobs, runs trainsim on them (in parallel), caches the results by name."""

    def __init__(self, trainsim, root, out):
        self.trainsim, self.root, self.out = trainsim, root, out
        self.template = json.load(open(os.path.join(root, TEMPLATE)))
        os.makedirs(os.path.join(out, "jobs"), exist_ok=True)
        os.makedirs(os.path.join(out, "runs"), exist_ok=True)
        self.count = 0

    def job(self, gpus, tp, cp, reliability=None, pricing=None):
        j = copy.deepcopy(self.template)
        j["name"] = "failure-rework-generated"
        j.pop("description", None)
        j["gpus"] = gpus
        j["parallel"].update(tp=tp, cp=cp, sequence_parallel=tp > 1)
        for k, v in (reliability or {}).items():
            if k == "checkpoint":
                j["reliability"]["checkpoint"].update(v)
            else:
                j["reliability"][k] = v
        if pricing:
            j["cost"]["pricing"] = pricing
        return j

    def run(self, name, job):
        """trainsim's JSON for the job, or {"error": message} when trainsim refuses it."""
        path = os.path.join(self.out, "jobs", name + ".json")
        with open(path, "w") as f:
            json.dump(job, f, indent=1)
        # A path relative to the repository: messages quoted in the tables do not depend on
        # where the clone is.
        proc = subprocess.run([self.trainsim, "run", os.path.relpath(path, self.root), "--format",
                               "json", "--threads", "1"],
                              cwd=self.root, capture_output=True, text=True)
        self.count += 1
        if proc.returncode == 2:
            return {"error": proc.stderr.strip()}
        if proc.returncode != 0:
            sys.exit(f"trainsim run {path} failed ({proc.returncode}): {proc.stderr.strip()}")
        with open(os.path.join(self.out, "runs", name + ".json"), "w") as f:
            f.write(proc.stdout)
        return json.loads(proc.stdout)

    def many(self, items):
        """Run [(name, job)] two (or nproc) at a time; return {name: result}."""
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            res = list(ex.map(lambda it: self.run(*it), items))
        return {name: r for (name, _), r in zip(items, res)}


def lost_usd(r):
    a = r["cost_attribution"]
    return a["checkpoint"] + a["rework"] + a["restart"] + a["repair_wait"] + a["idle_spares"]


def money(x):
    return f"${x:,.0f}"


def days(s):
    return f"{s / DAY:.3g}" if s / DAY < 10 else f"{s / DAY:.1f}"


def dur(s):
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trainsim", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    out = a.out
    R = Runner(a.trainsim, a.root, out)
    price = None
    L = []
    P = L.append

    # ------------------------------------------------------------ 1. scan
    print("scan: sizes x splits", file=sys.stderr)
    items = [(f"scan-{g}-tp{tp}cp{cp}", R.job(g, tp, cp)) for g in SIZES for tp, cp in SPLITS]
    res = R.many(items)
    chosen = {}
    for g in SIZES:
        cands = [(res[f"scan-{g}-tp{tp}cp{cp}"], tp, cp) for tp, cp in SPLITS]
        cands = [c for c in cands if "error" not in c[0] and c[0]["feasible"]]
        r, tp, cp = min(cands, key=lambda c: c[0]["cost_total"])
        chosen[g] = (tp, cp, r)
    hw = R.many([(f"scan-{g}-hardware-only", R.job(g, *chosen[g][:2], {"failures": HARDWARE_ONLY}))
                 for g in SIZES])
    nofail = R.many([(f"scan-{g}-no-failures", R.job(g, *chosen[g][:2], {"failures": []}))
                     for g in SIZES])
    price = chosen[SIZES[0]][2]["price_source"]
    with open(os.path.join(out, "scan.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["gpus", "nodes", "tp", "cp", "dp", "mfu", "failure_free_days", "expected_days",
                    "p90_days", "goodput", "goodput_hardware_only", "failures", "job_mtbf_h",
                    "checkpoint_interval_s", "checkpoint_write_s", "restart_s", "cost_usd",
                    "cost_failure_free_usd", "cost_lost_usd", "cost_hardware_only_usd"])
        for g in SIZES:
            tp, cp, r = chosen[g]
            h, z = hw[f"scan-{g}-hardware-only"], nofail[f"scan-{g}-no-failures"]
            w.writerow([g, r["nodes"], tp, cp, r["layout"]["dp"], f"{r['mfu']:.4f}",
                        f"{r['time_to_train_s'] / DAY:.3f}", f"{r['expected_time_to_train_s'] / DAY:.3f}",
                        f"{r['p90_time_to_train_s'] / DAY:.3f}", f"{r['goodput']:.4f}",
                        f"{h['goodput']:.4f}", f"{r['failures_expected']:.1f}",
                        f"{r['job_mtbf_s'] / 3600:.2f}", f"{r['checkpoint_interval_s']:.1f}",
                        f"{r['checkpoint_write_s']:.3f}", f"{r['restart_s']:.0f}",
                        f"{r['cost_total']:.0f}", f"{z['cost_total']:.0f}", f"{lost_usd(r):.0f}",
                        f"{h['cost_total']:.0f}"])
    with open(os.path.join(out, "scan.dat"), "w") as f:
        f.write("# gpus goodput goodput_hw cost_musd cost_nofail_musd lost_pct mfu expected_days\n")
        for g in SIZES:
            tp, cp, r = chosen[g]
            h, z = hw[f"scan-{g}-hardware-only"], nofail[f"scan-{g}-no-failures"]
            f.write(f"{g} {r['goodput']:.5f} {h['goodput']:.5f} {r['cost_total'] / 1e6:.5f} "
                    f"{z['cost_total'] / 1e6:.5f} {100 * lost_usd(r) / r['cost_total']:.3f} "
                    f"{r['mfu']:.4f} {r['expected_time_to_train_s'] / DAY:.4f}\n")
    t = chosen[SIZES[0]][2]
    P(f"Job: {t['model']} on {t['tokens']:.3g} tokens, {t['system']} ({t['accelerator']}), "
      f"global batch {t['global_batch']} x 8192 tokens, {t['precision']}, selective recompute, "
      f"ZeRO 1; failures: trainsim's defaults (H100 fleet: Llama 3 Table 5 per node, 3.79 per 1,000 node-days); {t['replications']} "
      f"Monte Carlo replications, seed {json.load(open(os.path.join(a.root, TEMPLATE)))['reliability']['seed']}; "
      f"prices: {price}.")
    P("")
    P("### 1. Goodput and cost vs cluster size (checkpoint interval auto = Daly's optimum)")
    P("")
    P("| GPUs | split | MFU | failure-free | expected | p90 | goodput | goodput, hardware only | "
      "failures | job MTBF | checkpoint every | write | expected cost | lost to failures | "
      "failure-free cost |")
    P("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for g in SIZES:
        tp, cp, r = chosen[g]
        h, z = hw[f"scan-{g}-hardware-only"], nofail[f"scan-{g}-no-failures"]
        P(f"| {g:,} | TP{tp} CP{cp} DP{r['layout']['dp']} | {100 * r['mfu']:.1f}% | "
          f"{days(r['time_to_train_s'])} d | {days(r['expected_time_to_train_s'])} d | "
          f"{days(r['p90_time_to_train_s'])} d | {100 * r['goodput']:.1f}% | "
          f"{100 * h['goodput']:.1f}% | {r['failures_expected']:.0f} | "
          f"{r['job_mtbf_s'] / 3600:.1f} h | {dur(r['checkpoint_interval_s'])} | "
          f"{r['checkpoint_write_s']:.3g} s | {money(r['cost_total'])} | "
          f"{100 * lost_usd(r) / r['cost_total']:.1f}% | {money(z['cost_total'])} |")
    P("")

    # ------------------------------------------------------------ 2. checkpoint interval
    print("interval", file=sys.stderr)
    items = []
    for g in INTERVAL_SIZES:
        tp, cp, _ = chosen[g]
        for iv in INTERVALS_S:
            items.append((f"interval-{g}-{iv}s", R.job(g, tp, cp, {"checkpoint": {"interval": f"{iv} s"}})))
    res = R.many(items)
    with open(os.path.join(out, "interval.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["gpus", "interval_s", "expected_days", "overhead_pct", "daly_overhead_pct",
                    "stderr_pct", "cost_usd", "note"])
        for g in INTERVAL_SIZES:
            auto = chosen[g][2]
            ts = auto["time_to_train_s"]
            rows = [(iv, res[f"interval-{g}-{iv}s"]) for iv in INTERVALS_S]
            with open(os.path.join(out, f"interval-{g}.dat"), "w") as d:
                d.write("# interval_s overhead_pct daly_overhead_pct\n")
                for iv, r in rows:
                    if "error" in r:
                        w.writerow([g, iv, "", "", "", "", "", r["error"].split(": ", 1)[-1]])
                        continue
                    ov = 100 * (r["expected_time_to_train_s"] / ts - 1)
                    dov = 100 * (r["daly_expected_time_to_train_s"] / ts - 1)
                    w.writerow([g, iv, f"{r['expected_time_to_train_s'] / DAY:.4f}", f"{ov:.3f}",
                                f"{dov:.3f}", f"{100 * r['time_to_train_stderr_s'] / ts:.3f}",
                                f"{r['cost_total']:.0f}", ""])
                    d.write(f"{iv} {ov:.4f} {dov:.4f}\n")
            with open(os.path.join(out, f"interval-{g}-auto.dat"), "w") as d:
                d.write(f"{auto['checkpoint_interval_s']:.3f} "
                        f"{100 * (auto['expected_time_to_train_s'] / ts - 1):.4f} \"{g} GPUs\"\n")
            w.writerow([g, f"{auto['checkpoint_interval_s']:.1f}",
                        f"{auto['expected_time_to_train_s'] / DAY:.4f}",
                        f"{100 * (auto['expected_time_to_train_s'] / ts - 1):.3f}",
                        f"{100 * (auto['daly_expected_time_to_train_s'] / ts - 1):.3f}",
                        f"{100 * auto['time_to_train_stderr_s'] / ts:.3f}",
                        f"{auto['cost_total']:.0f}", "auto (Daly)"])
    P("### 2. Checkpoint interval (expected time over the failure-free time)")
    P("")
    P("| GPUs | Daly's optimum (auto) | overhead at auto | best grid interval | its overhead | "
      "at 1/4 x auto | at 4 x auto | at 1 h | at 4 h |")
    P("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for g in INTERVAL_SIZES:
        auto = chosen[g][2]
        ts = auto["time_to_train_s"]
        tau = auto["checkpoint_interval_s"]
        ok = [(iv, res[f"interval-{g}-{iv}s"]) for iv in INTERVALS_S if "error" not in res[f"interval-{g}-{iv}s"]]
        ovh = {iv: 100 * (r["expected_time_to_train_s"] / ts - 1) for iv, r in ok}
        bi = min(ovh, key=ovh.get)
        near = lambda x: min(ovh, key=lambda iv: abs(math.log(iv / x)))
        extra = {}
        for x in (tau / 4, tau * 4):
            iv = near(x)
            extra[x] = f"{ovh[iv]:.2f}% ({dur(iv)})"
        P(f"| {g:,} | {dur(tau)} | {100 * (auto['expected_time_to_train_s'] / ts - 1):.2f}% | "
          f"{dur(bi)} | {ovh[bi]:.2f}% | {extra[tau / 4]} | {extra[tau * 4]} | "
          f"{ovh.get(3600, float('nan')):.2f}% | {ovh.get(14400, float('nan')):.2f}% |")
    P("")
    P("(Grid intervals shorter than one iteration are refused by trainsim and left out.)")
    P("")

    # ------------------------------------------------------------ 3. spot vs on-demand
    print("spot", file=sys.stderr)

    def spot_rel(mtbf_h):
        return {"spot": {"preemption_mtbf": f"{mtbf_h:.6g} h", "notice": "120 s", "reacquire": "10 min"}}

    def gpus_of(nodes):
        return nodes * 8

    items = []
    for n in SPOT_NODES:
        tp, cp, _ = chosen[gpus_of(n)]
        for m in SPOT_MTBF_H:
            items.append((f"spot-{n}n-{m}h", R.job(gpus_of(n), tp, cp, spot_rel(m), "spot")))
    res = R.many(items)
    cross = {}
    with open(os.path.join(out, "spot.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["nodes", "gpus", "preemption_mtbf_h", "job_preemption_interval_h",
                    "expected_days", "preemptions", "cost_usd", "on_demand_cost_usd", "ratio", "note"])
        for n in SPOT_NODES:
            tp, cp, od = chosen[gpus_of(n)]
            with open(os.path.join(out, f"spot-{n}.dat"), "w") as d:
                d.write("# mtbf_h ratio_to_on_demand\n")
                for m in SPOT_MTBF_H:
                    r = res[f"spot-{n}n-{m}h"]
                    if "error" in r:
                        w.writerow([n, gpus_of(n), m, f"{m / n:.4g}", "", "", "", f"{od['cost_total']:.0f}",
                                    "", r["error"].split(": ", 1)[-1]])
                        continue
                    ratio = r["cost_total"] / od["cost_total"]
                    w.writerow([n, gpus_of(n), m, f"{m / n:.4g}", f"{r['expected_time_to_train_s'] / DAY:.3f}",
                                f"{r['preemptions_expected']:.1f}", f"{r['cost_total']:.0f}",
                                f"{od['cost_total']:.0f}", f"{ratio:.4f}", ""])
                    d.write(f"{m} {ratio:.5f}\n")
            # Bisection on log(MTBF) between the last grid point where spot loses and the
            # first where it wins (spot's cost falls as preemptions get rarer).
            grid = [(m, res[f"spot-{n}n-{m}h"]) for m in SPOT_MTBF_H]
            lose = [m for m, r in grid if "error" in r or r["cost_total"] > od["cost_total"]]
            win = [m for m, r in grid if "error" not in r and r["cost_total"] <= od["cost_total"]]
            if not lose or not win:
                cross[n] = None
                continue
            lo, hi = max(lose), min(m for m in win if m > max(lose))
            for it in range(10):
                mid = math.sqrt(lo * hi)
                r = R.run(f"spot-{n}n-bisect{it}", R.job(gpus_of(n), tp, cp, spot_rel(mid), "spot"))
                if "error" in r or r["cost_total"] > od["cost_total"]:
                    lo = mid
                else:
                    hi = mid
            mid = math.sqrt(lo * hi)
            r = R.run(f"spot-{n}n-crossover", R.job(gpus_of(n), tp, cp, spot_rel(mid), "spot"))
            cross[n] = (mid, r, od)
            with open(os.path.join(out, f"spot-{n}-cross.dat"), "w") as d:
                d.write(f"{mid:.4f} 1.0 \"{mid:.0f} h\"\n")
    sp = chosen[gpus_of(SPOT_NODES[0])][2]
    P("### 3. Spot vs on-demand as the preemption rate varies")
    P("")
    P(f"Prices: on-demand ${sp['cost_per_hour'] / sp['gpus']:.2f} per GPU-hour; spot price from the "
      f"same file; notice 120 s, capacity back after 10 min, then the usual restart.")
    P("")
    P("| nodes | on-demand cost | spot cost at the default MTBF (3,650 h per node) | crossover: per-node preemption MTBF | = one preemption of the job every | spot goodput there | on-demand goodput |")
    P("|---:|---:|---:|---:|---:|---:|---:|")
    for n in SPOT_NODES:
        od = chosen[gpus_of(n)][2]
        dflt = res[f"spot-{n}n-{SPOT_DEFAULT_H}h"]
        c = cross[n]
        if not c:
            P(f"| {n} | {money(od['cost_total'])} | {money(dflt['cost_total'])} | none in the grid | | | |")
            continue
        mid, r, _ = c
        P(f"| {n:,} | {money(od['cost_total'])} | {money(dflt['cost_total'])} "
          f"({100 * (dflt['cost_total'] / od['cost_total'] - 1):+.0f}%) | {mid:,.0f} h | "
          f"{dur(mid * 3600 / n)} | {100 * r['goodput']:.1f}% | {100 * od['goodput']:.1f}% |")
    P("")

    # ------------------------------------------------------------ 4. hot spares
    print("spares", file=sys.stderr)
    items = []
    for n in SPARE_NODES:
        tp, cp, _ = chosen[gpus_of(n)]
        for k in SPARES:
            items.append((f"spares-{n}n-{k}", R.job(gpus_of(n), tp, cp, {"repair_time": REPAIR, "spares": k})))
    res = R.many(items)
    P(f"### 4. Hot spares with a {REPAIR} repair time (spares billed on demand for the whole run)")
    P("")
    with open(os.path.join(out, "spares.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["nodes", "spares", "expected_days", "p90_days", "goodput", "repair_wait_gpu_h",
                    "idle_spares_gpu_h", "cost_usd", "cost_spares_usd", "baseline_days", "baseline_cost_usd"])
        for n in SPARE_NODES:
            base = chosen[gpus_of(n)][2]
            P(f"**{n:,} nodes ({gpus_of(n):,} GPUs)**; without the repair wait (trainsim's default, "
              f"a pool node swapped in during the restart): {days(base['expected_time_to_train_s'])} d, "
              f"{money(base['cost_total'])}.")
            P("")
            P("| spares | expected | p90 | goodput | waiting for repairs (GPU-h) | idle spares (GPU-h) | expected cost | vs no spares |")
            P("|---:|---:|---:|---:|---:|---:|---:|---:|")
            r0 = res[f"spares-{n}n-0"]
            with open(os.path.join(out, f"spares-{n}.dat"), "w") as d:
                d.write("# spares expected_days cost_musd base_days base_cost_musd\n")
                for k in SPARES:
                    r = res[f"spares-{n}n-{k}"]
                    if "error" in r:
                        P(f"| {k} | refused: {r['error'].split(': ', 1)[-1]} | | | | | | |")
                        continue
                    gh = r["gpu_hours"]
                    w.writerow([n, k, f"{r['expected_time_to_train_s'] / DAY:.4f}",
                                f"{r['p90_time_to_train_s'] / DAY:.4f}", f"{r['goodput']:.4f}",
                                f"{gh['repair_wait']:.0f}", f"{gh['idle_spares']:.0f}",
                                f"{r['cost_total']:.0f}", f"{r['cost_breakdown']['spares']:.0f}",
                                f"{base['expected_time_to_train_s'] / DAY:.4f}", f"{base['cost_total']:.0f}"])
                    d.write(f"{k} {r['expected_time_to_train_s'] / DAY:.5f} {r['cost_total'] / 1e6:.5f} "
                            f"{base['expected_time_to_train_s'] / DAY:.5f} {base['cost_total'] / 1e6:.5f}\n")
                    vs = "" if "error" in r0 else f"{100 * (r['cost_total'] / r0['cost_total'] - 1):+.1f}%"
                    P(f"| {k} | {days(r['expected_time_to_train_s'])} d | {days(r['p90_time_to_train_s'])} d | "
                      f"{100 * r['goodput']:.1f}% | {gh['repair_wait']:,.0f} | {gh['idle_spares']:,.0f} | "
                      f"{money(r['cost_total'])} | {vs} |")
            P("")
            ok = [(k, res[f"spares-{n}n-{k}"]) for k in SPARES if "error" not in res[f"spares-{n}n-{k}"]]
            k, r = min(ok, key=lambda x: x[1]["cost_total"])
            with open(os.path.join(out, f"spares-{n}-best.dat"), "w") as d:
                d.write(f'{k} {r["cost_total"] / 1e6:.5f} "cheapest: {k}"\n')
            P(f"Cheapest: {k} spare{'s' if k != 1 else ''}, {money(r['cost_total'])} "
              f"({100 * (r['cost_total'] / base['cost_total'] - 1):+.1f}% over no repair wait).")
            P("")

    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(L))
    print("\n".join(L))
    print(f"{R.count} trainsim runs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
