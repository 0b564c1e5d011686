#!/usr/bin/env python3
"""Predicted vs published: run every row of a published.json through `trainsim run`.

Usage: validate.py PUBLISHED_JSON OUT_DIR --trainsim PATH --root REPO_ROOT

published.json holds "thresholds" {table: {"mean_abs", "max_abs"}} (fractions) and "rows"
[{"table", "label", "config" (relative to the repository root), "metric", "published"}].
The metric is a key of `trainsim run --format json`, or "tokens_per_s_per_gpu"
(tokens_per_s / gpus), the unit NVIDIA's NeMo tables publish.

Writes to OUT_DIR: runs/<config>.json (trainsim's output per row), results.csv, results.md
(one markdown table per published table with a summary line), errors.dat and parity-*.dat
and plotvars.gp (gnuplot input). Exit status 0 when every table meets its thresholds, 3 when
one misses them; a row that fails to run is a fatal error (exit 1).
Standard library only.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

METRIC_TEXT = {
    "iteration_time_s": "seconds per iteration",
    "hardware_tflops_per_gpu": "hardware TFLOP/s per GPU",
    "tokens_per_s_per_gpu": "tokens/s per GPU",
}


def run_row(trainsim, root, out, row):
    """Run one row's config; return trainsim's JSON output (also saved under runs/)."""
    name = os.path.splitext(os.path.basename(row["config"]))[0]
    proc = subprocess.run([trainsim, "run", row["config"], "--format", "json"], cwd=root,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"trainsim run {row['config']} failed ({proc.returncode}): {proc.stderr.strip()}")
    with open(os.path.join(out, "runs", name + ".json"), "w") as f:
        f.write(proc.stdout)
    return json.loads(proc.stdout)


def metric_value(result, metric):
    if metric == "tokens_per_s_per_gpu":
        return result["tokens_per_s"] / result["gpus"]
    return result[metric]


def layout_text(result):
    lay = result["layout"]
    parts = [f"TP{lay['tp']}", f"PP{lay['pp']}"]
    if lay["cp"] > 1:
        parts.append(f"CP{lay['cp']}")
    parts.append(f"DP{lay['dp']}")
    if lay["schedule"] == "interleaved":
        parts.append(f"VP{lay['virtual_stages']}")
    parts.append(f"mb{lay['microbatch']}")
    return " ".join(parts)


def fmt(x):
    """Published-style number: two decimals below 100, one below 1000, else none."""
    return f"{x:.2f}" if abs(x) < 100 else f"{x:.1f}" if abs(x) < 1000 else f"{x:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("published")
    ap.add_argument("out")
    ap.add_argument("--trainsim", required=True)
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    os.makedirs(os.path.join(a.out, "runs"), exist_ok=True)
    pub = json.load(open(a.published))
    rows = pub["rows"]

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        results = list(ex.map(lambda r: run_row(a.trainsim, a.root, a.out, r), rows))

    recs = []
    for row, res in zip(rows, results):
        pred = metric_value(res, row["metric"])
        recs.append({
            "table": row["table"], "label": row["label"], "config": row["config"],
            "system": res["system"], "gpus": res["gpus"], "precision": res["precision"],
            "layout": layout_text(res), "metric": row["metric"], "published": row["published"],
            "predicted": pred, "error": pred / row["published"] - 1.0,
            "feasible": res["feasible"], "mfu": res["mfu"],
        })

    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        keys = ["table", "label", "config", "system", "gpus", "precision", "layout", "metric",
                "published", "predicted", "error", "feasible", "mfu"]
        w.writerow(keys)
        for r in recs:
            w.writerow([f"{r[k]:.6g}" if isinstance(r[k], float) else r[k] for k in keys])

    tables = list(dict.fromkeys(r["table"] for r in recs))
    lines = []
    P = lines.append
    P(f"Source: {pub['source']}")
    P("")
    summary = []
    all_pass = True
    for t in tables:
        tr = [r for r in recs if r["table"] == t]
        errs = [abs(r["error"]) for r in tr]
        mean_abs, max_abs = sum(errs) / len(errs), max(errs)
        th = pub["thresholds"].get(t, {})
        ok = mean_abs <= th.get("mean_abs", 1.0) and max_abs <= th.get("max_abs", 1.0)
        all_pass &= ok
        metric = METRIC_TEXT.get(tr[0]["metric"], tr[0]["metric"])
        P(f"### {t} ({metric})")
        P("")
        P("| row | system | GPUs | layout | published | predicted | error |")
        P("|---|---|---:|---|---:|---:|---:|")
        for r in tr:
            feas = "" if r["feasible"] else " (does not fit)"
            P(f"| {r['label']} | {r['system']} | {r['gpus']} | {r['layout']} | "
              f"{fmt(r['published'])} | {fmt(r['predicted'])}{feas} | {100 * r['error']:+.1f}% |")
        P("")
        limits = []
        if th.get("mean_abs", 1.0) < 1.0:
            limits.append(f"mean <= {100 * th['mean_abs']:.0f}%")
        if th.get("max_abs", 1.0) < 1.0:
            limits.append(f"every row <= {100 * th['max_abs']:.0f}%")
        line = (f"**{t}**: {len(tr)} rows, mean |error| {100 * mean_abs:.1f}%, "
                f"max |error| {100 * max_abs:.1f}% (target: {', '.join(limits) or 'none'}): "
                f"{'PASS' if ok else 'FAIL'}")
        P(line)
        P("")
        summary.append(line)
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write("\n".join(lines))

    # gnuplot input: one bar per row (top to bottom in file order), and parity points by table.
    with open(os.path.join(a.out, "errors.dat"), "w") as f:
        f.write("# y label error_pct table_index threshold_pct\n")
        n = len(recs)
        for i, r in enumerate(recs):
            ti = tables.index(r["table"])
            thr = 100 * pub["thresholds"].get(r["table"], {}).get("max_abs", 0)
            label = f"{r['table']}: {r['label']}"
            f.write(f"{n - i} \"{label}\" {100 * r['error']:.4f} {ti} {thr:g}\n")
    for ti, t in enumerate(tables):
        with open(os.path.join(a.out, f"parity-{ti}.dat"), "w") as f:
            f.write(f"# {t}: published predicted label\n")
            for r in recs:
                if r["table"] == t:
                    f.write(f"{r['published']:.6g} {r['predicted']:.6g} \"{r['label']}\"\n")
    # Plot settings gnuplot reads (variables by table index: tname1, lo1, ...).
    with open(os.path.join(a.out, "plotvars.gp"), "w") as f:
        f.write(f"ntables = {len(tables)}\nnrows = {len(recs)}\n")
        # The error axis: +-16% unless a row lies outside it (in percent, to the next 4).
        worst = max([abs(100 * r["error"]) for r in recs if r.get("error") is not None] + [0])
        f.write(f"emax = {max(16, 4 * int(worst / 4 + 2))}\n")
        for ti, t in enumerate(tables, 1):
            tr = [r for r in recs if r["table"] == t]
            vals = [v for r in tr for v in (r["published"], r["predicted"])]
            lo, hi = min(vals), max(vals)
            log = hi / lo > 3
            lo, hi = (lo / 1.3, hi * 1.3) if log else (lo - 0.12 * (hi - lo), hi + 0.12 * (hi - lo))
            thr = 100 * pub["thresholds"].get(t, {}).get("max_abs", 0)
            f.write(f'tname{ti} = "{t}"\ntmetric{ti} = "{METRIC_TEXT.get(tr[0]["metric"], tr[0]["metric"])}"\n'
                    f"lo{ti} = {lo:.6g}\nhi{ti} = {hi:.6g}\nlog{ti} = {int(log)}\nthr{ti} = {thr:g}\n")

    print("\n".join(summary))
    return 0 if all_pass else 3


if __name__ == "__main__":
    sys.exit(main())
