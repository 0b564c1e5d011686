#!/usr/bin/env python3
"""Compare trainsim's whole-run model with published run outcomes (published/outcomes.csv).

Runs the jobs of configs/outcomes/ (and variants with keys replaced) through `trainsim run
--format json` and writes outcomes.md (the table) and outcomes.csv of the results. The
failure and recovery parameters are the cited ones written in each job; nothing is fitted to
the outcomes. See README.md, section "Against published outcomes".
"""
import argparse
import copy
import csv
import json
import os
import subprocess

DAY = 86400.0

# (label, job file, replaced keys, published outcome, what the outcome is, source)
CASES = [
    ("Llama 3 405B, 16,384 H100, automated", "llama3-405b-54d.json", {},
     0.90, "effective training time > 90%; 466 interruptions (419 unexpected + 47 planned) in 54 days",
     "llama3_2024 sec. 3.3.4"),
    ("OPT-175B, 992 A100, manual recovery", "opt-175b.json", {},
     0.59, "goodput 0.59 (33 of 56 days), ~90 restarts, ~6.1 h lost per restart",
     "opt175b_chron (D5)"),
    ("OPT-175B, 992 A100, automated recovery", "opt-175b.json",
     {"reliability.recovery.diagnose": "automated"},
     0.59, "as above (bracket: the run automated recovery only at its end)", "opt175b_chron (D5)"),
    ("BLOOM-176B, 384 A100", "bloom-176b.json", {},
     0.92, "iteration-time progress / wall time ~0.92", "bloom_chron (D6)"),
    ("Kokolis RSC-1, 2,048 A100, 1 h sync", "kokolis-rsc1.json", {},
     0.90, "average ETTR > 0.9 at 2048-4096 GPUs, 1 h checkpoints", "kokolis2025"),
    ("Kokolis RSC-1, 4,096 A100, 1 h sync", "kokolis-rsc1.json",
     {"gpus": 4096, "global_batch": 2048},
     0.90, "as above", "kokolis2025"),
    ("Kokolis RSC-1, 4,096 A100, 5 min async", "kokolis-rsc1.json",
     {"gpus": 4096, "global_batch": 2048, "reliability.checkpoint.interval": "5 min",
      "reliability.checkpoint.mode": "async"},
     0.93, "expected ETTR 0.93 with 5 min non-blocking checkpoints", "kokolis2025"),
    # The same histories with trainsim's default recovery (no restart_overhead, no recovery
    # key: automated diagnosis, start-up per node, watchdog hangs): what a user who gives
    # only the failure rate gets.
    ("OPT-175B, 992 A100, default recovery", "opt-175b.json",
     {"reliability.restart_overhead": None, "reliability.recovery": None},
     0.59, "as above", "opt175b_chron (D5)"),
    ("Llama 3 405B, 16,384 H100, default recovery", "llama3-405b-54d.json",
     {"reliability.restart_overhead": None, "reliability.recovery": None},
     0.90, "as above", "llama3_2024 sec. 3.3.4"),
]

# Kokolis et al. (arXiv 2410.21680), ETTR section: effective training time ratio vs job size
# and checkpoint interval. The paper's statements (outcomes.csv, quoted) are the published
# column; its first-order model, ETTR = 1 - (u0 + tau / 2) / MTTF with non-blocking
# checkpoints, u0 = 5-20 min and MTTF = 1 / (nodes x r_f) (published/README.md D13), is
# evaluated at every row ("model"); trainsim runs the kokolis-rsc1 job at each size with the
# same rate, the automated recovery (u0 as a lognormal, D10) and asynchronous checkpoints at
# the interval. (size, interval, r_f per 1,000 node-days, restart, published, statement)
KOKOLIS_RF = {"RSC-1": 6.50, "RSC-2": 2.34}
KOKOLIS = [
    (1024, "5 min", "RSC-1", None, None, ""),
    (1024, "1 h", "RSC-1", None, None, ""),
    (2048, "5 min", "RSC-1", None, 0.93, "expected ETTR 0.93 at 5 min, non-blocking (2048-4096)"),
    (2048, "1 h", "RSC-1", None, 0.90, "average ETTR > 0.9 at a 1 h interval (2048-4096)"),
    (4096, "5 min", "RSC-1", None, 0.93, "as above"),
    (4096, "1 h", "RSC-1", None, 0.90, "as above"),
    (8192, "5 min", "RSC-1", None, None, ""),
    (8192, "1 h", "RSC-1", None, None, ""),
    (16384, "5 min", "RSC-1", None, None, ""),
    (16384, "1 h", "RSC-1", None, None, ""),
    (100352, "2 min", "RSC-2", "2 min", 0.90,
     "ETTR 0.9 at 100,000 GPUs with an RSC-2-like rate needs ~2 min intervals and restarts"),
]


def seconds(q):
    n, u = q.split()
    return float(n) * {"min": 60.0, "h": 3600.0}[u]


def kokolis(a):
    rows = []
    for gpus, interval, cluster, restart, published, what in KOKOLIS:
        with open(os.path.join(a.here, "configs", "outcomes", "kokolis-rsc1.json")) as f:
            doc = json.load(f)
        rf = KOKOLIS_RF[cluster]
        dp = gpus // 32                                   # tp 8 x pp 4
        doc["gpus"] = gpus
        doc["global_batch"] = max(1024, dp) if gpus < 100000 else dp
        rel = doc["reliability"]
        rel["failures"][0]["mtbf"] = "%.6g d" % (1000.0 / rf)
        rel["checkpoint"] = {"interval": interval, "mode": "async"}
        if restart:
            rel["restart_overhead"] = restart
            rel["recovery"] = {"diagnose": "none"}
        path = os.path.join(a.out, "outcomes", "kokolis-%d-%s.json" % (gpus, interval.replace(" ", "")))
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)
        res = json.loads(subprocess.run([a.trainsim, "run", path, "--format", "json"], check=True,
                                        capture_output=True, text=True).stdout)
        M = DAY / ((gpus / 8) * rf / 1000.0)
        tau = seconds(interval)
        u0 = [seconds(restart)] * 2 if restart else [300.0, 1200.0]
        model = [1.0 - (u + tau / 2) / M for u in u0]
        rows.append({"gpus": gpus, "interval": interval, "cluster": cluster,
                     "job_mttf_h": M / 3600.0, "model_lo": min(model), "model_hi": max(model),
                     "published": published if published is not None else "",
                     "trainsim": res["goodput"], "failures": res["failures_expected"],
                     "statement": what})
    with open(os.path.join(a.out, "kokolis.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.4g" % v if isinstance(v, float) else v) for k, v in r.items()})
    with open(os.path.join(a.out, "kokolis.md"), "w") as f:
        f.write("| GPUs | interval | rate | job MTTF | Kokolis model (u0 5-20 min) | published | "
                "trainsim | trainsim - published | failures per run | statement |\n")
        f.write("|---:|---:|---|---:|---:|---:|---:|---:|---:|---|\n")
        for r in rows:
            pub = r["published"]
            lo, hi = r["model_lo"], r["model_hi"]
            model = "%.3f" % lo if abs(hi - lo) < 5e-4 else "%.3f - %.3f" % (lo, hi)
            f.write("| %s | %s | %s | %.1f h | %s | %s | %.3f | %s | %.0f | %s |\n" % (
                "{:,}".format(r["gpus"]), r["interval"], r["cluster"], r["job_mttf_h"], model,
                ("%.2f" % pub) if pub != "" else "-", r["trainsim"],
                ("%+.3f" % (r["trainsim"] - pub)) if pub != "" else "-", r["failures"],
                r["statement"] or "-"))


def put(doc, dotted, value):
    """Set a dotted key; None removes it."""
    keys = dotted.split(".")
    for k in keys[:-1]:
        doc = doc.setdefault(k, {})
    if value is None:
        doc.pop(keys[-1], None)
    else:
        doc[keys[-1]] = value


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trainsim", required=True)
    ap.add_argument("--here", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(os.path.join(a.out, "outcomes"), exist_ok=True)
    rows = []
    for i, (label, job, repl, published, what, src) in enumerate(CASES):
        with open(os.path.join(a.here, "configs", "outcomes", job)) as f:
            doc = json.load(f)
        doc = copy.deepcopy(doc)
        for k, v in repl.items():
            put(doc, k, v)
        path = os.path.join(a.out, "outcomes", "case%d-%s" % (i, job))
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)
        res = json.loads(subprocess.run([a.trainsim, "run", path, "--format", "json"], check=True,
                                        capture_output=True, text=True).stdout)
        wall = res["expected_time_to_train_s"]
        inc = res.get("incidents_expected", {})
        per54 = 54 * DAY / wall
        lost = res["gpu_hours_lost"]
        rows.append({
            "case": label,
            "published": published,
            "trainsim_goodput": res["goodput"],
            "residual": res["goodput"] - published,
            "failure_free_days": res["time_to_train_s"] / DAY,
            "wall_days": wall / DAY,
            "failures": res["failures_expected"],
            "failures_per_54d": res["failures_expected"] * per54,
            "planned_per_54d": inc.get("planned", 0.0) * per54,
            "lost_h_per_failure": (wall - res["time_to_train_s"]) / 3600.0 /
                                  max(res["failures_expected"], 1e-9),
            "restart_gpu_h": lost["restart"], "rework_gpu_h": lost["rework"],
            "outcome": what, "source": src,
        })
    with open(os.path.join(a.out, "outcomes.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.4g" % v if isinstance(v, float) else v) for k, v in r.items()})
    with open(os.path.join(a.out, "outcomes.md"), "w") as f:
        f.write("| case | published | trainsim goodput | residual | failure-free d | wall d | "
                "failures (per 54 d) | planned per 54 d | h lost per failure | published outcome |\n")
        f.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
        for r in rows:
            f.write("| %s | %.2f | %.3f | %+.3f | %.1f | %.1f | %.0f (%.0f) | %.0f | %.2f | %s (%s) |\n" % (
                r["case"], r["published"], r["trainsim_goodput"], r["residual"],
                r["failure_free_days"], r["wall_days"], r["failures"], r["failures_per_54d"],
                r["planned_per_54d"], r["lost_h_per_failure"], r["outcome"], r["source"]))
    kokolis(a)


if __name__ == "__main__":
    main()
