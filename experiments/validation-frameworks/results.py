#!/usr/bin/env python3
"""trainsim against every llm-foundry row: tables, statistics and plot data.

Usage: results.py --trainsim PATH --root REPO --out OUT_DIR --jobs DIR --name results|baseline
                  [--write-bands PROFILE_JSON]

Runs `trainsim run JOB --format json` for each row of published.json (the job of the same
file name in DIR), compares tokens/s per GPU with the published value (error = predicted /
published - 1) and writes, next to this script, NAME.md and NAME.csv: per table and overall
mean |error|, max |error|, rows too fast / too slow, the largest share of one sign, rows judged
out of memory (they ran, so trainsim's verdict is wrong; their throughput is still counted),
the same by sequence-length band and device, and every row. OUT_DIR gets runs/ (each run's
JSON) and parity.dat / seqlen.dat (gnuplot input, see plots.gp). --write-bands replaces the
profile's "validation" bands (one per device: the rows, their count, min and max error).
Exit status 0 when the set meets its targets (mean |error| <= 8%, max <= 20%, at most 65% of
rows with one sign, no row judged out of memory), 3 when not; 1 when a row fails to run.
Standard library only; deterministic.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET_MEAN, TARGET_MAX, TARGET_SIGN = 0.08, 0.20, 0.65
DEVICE = {"a100_40gb": "a100-sxm-40g", "a100_80gb": "a100-sxm-80g", "h100_80gb": "h100-sxm"}
DEVICE_TEXT = {"a100_40gb": "A100 40GB", "a100_80gb": "A100 80GB", "h100_80gb": "H100"}
BANDS = [("512-2048", 0, 2048), ("4096-8192", 2049, 8192), ("16384-65536", 8193, 1 << 30)]


def run(trainsim, root, out, job):
    proc = subprocess.run([trainsim, "run", job, "--format", "json"], cwd=root,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{job}: trainsim failed ({proc.returncode}): {proc.stderr.strip()}")
    with open(os.path.join(out, "runs", os.path.basename(job)), "w") as f:
        f.write(proc.stdout)
    return json.loads(proc.stdout)


def stats(sel):
    errs = [x["error"] for x in sel]
    n = len(errs)
    pos = sum(1 for e in errs if e > 0)
    neg = sum(1 for e in errs if e < 0)
    return {"n": n, "mean": sum(abs(e) for e in errs) / n, "max": max(abs(e) for e in errs),
            "min_err": min(errs), "max_err": max(errs), "pos": pos, "neg": neg,
            "sign": max(pos, neg) / n, "oom": sum(1 for x in sel if not x["feasible"])}


def line(label, s):
    return (f"| {label} | {s['n']} | {s['mean']:.1%} | {s['max']:.1%} | {s['min_err']:+.1%} .. "
            f"{s['max_err']:+.1%} | {s['pos']} | {s['neg']} | {s['sign']:.0%} | {s['oom']} |")


HEAD = ["| rows | n | mean \\|error\\| | max \\|error\\| | band | too fast | too slow | "
        "largest sign share | judged out of memory |", "|---|---:|---:|---:|---|---:|---:|---:|---:|"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trainsim", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", required=True)
    ap.add_argument("--name", required=True, choices=["results", "baseline"])
    ap.add_argument("--write-bands")
    a = ap.parse_args()
    os.makedirs(os.path.join(a.out, "runs"), exist_ok=True)
    rows = list(csv.DictReader(open(os.path.join(HERE, "llm-foundry-rows.csv"))))
    pub = json.load(open(os.path.join(HERE, "published.json")))["rows"]
    assert len(pub) == len(rows)
    jobs = [os.path.join(a.jobs, os.path.basename(p["config"])) for p in pub]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        outs = list(ex.map(lambda j: run(a.trainsim, a.root, a.out, j), jobs))
    recs = []
    for r, p, d in zip(rows, pub, outs):
        pred = d["tokens_per_s"] / d["gpus"]
        recs.append({"table": r["table"], "job": os.path.basename(p["config"])[:-5],
                     "label": p["label"], "gpu": r["gpu"], "seq": int(r["seq_len"]),
                     "published": p["published"], "predicted": pred,
                     "error": pred / p["published"] - 1, "feasible": d["feasible"],
                     "mfu_pub": float(r["mfu_percent"]),
                     "mfu_pred": float(r["mfu_percent"]) * pred / p["published"],
                     "kernel": d["layout"]["attention_kernel"]})

    with open(os.path.join(HERE, a.name + ".csv"), "w") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["table", "job", "seq_len", "attention_kernel", "published_tokens_per_s_per_gpu",
                    "predicted_tokens_per_s_per_gpu", "error", "published_mfu_percent",
                    "predicted_mfu_percent_llm_foundry_formula", "feasible"])
        for x in recs:
            w.writerow([x["table"], x["job"], x["seq"], x["kernel"], x["published"],
                        f"{x['predicted']:.1f}", f"{x['error']:+.4f}", x["mfu_pub"],
                        f"{x['mfu_pred']:.2f}", str(x["feasible"]).lower()])

    tables = list(dict.fromkeys(x["table"] for x in recs))
    total = stats(recs)
    ok = (total["mean"] <= TARGET_MEAN and total["max"] <= TARGET_MAX and
          total["sign"] <= TARGET_SIGN and total["oom"] == 0)
    what = ("jobs as shipped (`\"software\": \"pytorch-fsdp\"`, the table's attention kernel)"
            if a.name == "results" else
            "jobs from `make_jobs.sh --today`: no software profile, fused attention as `flash`")
    L = [f"# {'Validation' if a.name == 'results' else 'Baseline'}: trainsim vs the llm-foundry rows",
         "", f"Generated by `run.sh{' --baseline' if a.name == 'baseline' else ''}` ({what}). "
         "Error = predicted / published tokens/s per GPU - 1 (positive: trainsim too fast). "
         "Judged out of memory = rows that ran but trainsim calls infeasible (their throughput "
         "is still predicted and counted).", "",
         f"Targets: mean |error| <= {TARGET_MEAN:.0%}, max |error| <= {TARGET_MAX:.0%}, at most "
         f"{TARGET_SIGN:.0%} of rows with one sign, no row judged out of memory: "
         f"**{'met' if ok else 'missed'}** (mean {total['mean']:.1%}, max {total['max']:.1%}, "
         f"largest sign share {total['sign']:.0%}, out of memory {total['oom']}).", "",
         "## By table", ""] + HEAD
    for t in tables:
        L.append(line(t, stats([x for x in recs if x["table"] == t])))
    L.append(line("**all**", total))
    L += ["", "## By device and sequence length", ""] + HEAD
    for g in DEVICE:
        for bname, lo, hi in BANDS:
            sel = [x for x in recs if x["gpu"] == g and lo <= x["seq"] <= hi]
            if sel:
                L.append(line(f"{DEVICE_TEXT[g]}, {bname} tokens", stats(sel)))
        L.append(line(f"**{DEVICE_TEXT[g]}**", stats([x for x in recs if x["gpu"] == g])))
    worst = sorted(recs, key=lambda x: -abs(x["error"]))[:15]
    L += ["", "## The 15 largest errors", "", "| table | job | published | predicted | error |",
          "|---|---|---:|---:|---:|"]
    L += [f"| {x['table']} | {x['job']} | {x['published']} | {x['predicted']:.0f} | "
          f"{x['error']:+.1%} |" for x in worst]
    L += ["", "## Every row", "",
          "| table | job | kernel | published | predicted | error | MFU published | MFU predicted* | fits |",
          "|---|---|---|---:|---:|---:|---:|---:|---|"]
    L += [f"| {x['table']} | {x['job']} | {x['kernel']} | {x['published']} | {x['predicted']:.0f} | "
          f"{x['error']:+.1%} | {x['mfu_pub']} | {x['mfu_pred']:.1f} | "
          f"{'yes' if x['feasible'] else 'no'} |" for x in recs]
    L += ["", "\\* llm-foundry's MFU formula applied to the predicted throughput."]
    with open(os.path.join(HERE, a.name + ".md"), "w") as f:
        f.write("\n".join(L) + "\n")

    # gnuplot input: one block per table (index i), x = published, y = predicted.
    with open(os.path.join(a.out, "parity.dat"), "w") as f:
        for t in tables:
            f.write(f"# {t}\n")
            for x in recs:
                if x["table"] == t:
                    f.write(f"{x['published']} {x['predicted']:.1f}\n")
            f.write("\n\n")
    with open(os.path.join(a.out, "seqlen.dat"), "w") as f:
        for t in tables:
            f.write(f"# {t}\n")
            for x in recs:
                if x["table"] == t:
                    f.write(f"{x['seq']} {100 * x['error']:.3f}\n")
            f.write("\n\n")
    with open(os.path.join(a.out, "plotvars.gp"), "w") as f:
        f.write(f"ntables = {len(tables)}\n")
        for i, t in enumerate(tables):
            f.write(f'tname{i} = "{t}"\n')

    if a.write_bands:
        with open(a.write_bands) as f:
            prof = json.load(f)
        bands = []
        for g, dev in DEVICE.items():
            sel = [x for x in recs if x["gpu"] == g]
            s = stats(sel)
            tabs = ", ".join(t for t in tables if any(x["table"] == t for x in sel))
            bands.append({"device": dev,
                          "rows": f"llm-foundry {DEVICE_TEXT[g]} ({tabs}): {s['n']} rows, mean "
                                  f"|error| {s['mean']:.1%}",
                          "n_rows": s["n"], "min_error": round(s["min_err"], 3),
                          "max_error": round(s["max_err"], 3)})
        prof["validation"] = bands
        with open(a.write_bands, "w") as f:
            f.write(json.dumps(prof, indent=2) + "\n")

    print("\n".join(L[:L.index("## By device and sequence length")]))
    return 0 if ok else 3


if __name__ == "__main__":
    sys.exit(main())
