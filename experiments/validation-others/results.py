#!/usr/bin/env python3
"""Run every job of published.json, compare with the published tokens/s/GPU, tabulate.

error = predicted / published - 1 (tokens/s per GPU). Per profile x device: rows, mean |error|,
max |error|, min and max error, share of rows with the sign of the majority.

Usage: results.py --trainsim BIN --root REPO [--out DIR] [--write-bands]
  --out DIR       results.md and results.csv go there (default: this folder)
  --published F   the rows (default: published.json of this folder; other experiments, e.g.
                  validation-zero3, pass theirs)
  --experiment N  the experiment's folder name, quoted in the bands and results.md
                  (default: validation-others)
  --write-bands   write the per-device residual bands into each profile's "validation"
  --check FILE    compare with the thresholds in FILE (JSON: {profile: {device:
                  {"mean_abs": x, "max_abs": y}}}); exit 3 when one is exceeded
"""
import argparse
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def device_of(root, system):
    path = os.path.join(root, "hardware", "systems", system + ".json")
    if os.path.exists(path):
        return json.load(open(path))["accelerator"]
    return None


def fit_rows(root, profiles):
    """Names of the rows a profile's calibration constant was fitted on (the job's name appears
    in the constant's "row", same device): reported, but kept out of the groups' errors, bands
    and thresholds, which are over validation rows only."""
    fitted = set()
    for prof in profiles:
        doc = json.load(open(os.path.join(root, "configs", "software", prof + ".json")))
        for c in doc.get("calibration", {}).get("constants", []):
            fitted.add((prof, c["device"], c["row"]))
    return fitted


def is_fit(fitted, x):
    return any(p == x["profile"] and d == x["device"] and f"/{x['name']}.json" in r
               for p, d, r in fitted)


def write_bands(root, rows, summary, experiment="validation-others"):
    """Each profile's "validation" (residual band per device) and "max_published_mfu" (per
    device and precision: published tokens/s x trainsim's model FLOPs per token / dense peak,
    i.e. predicted MFU x published / predicted) from the rows measured on that device."""
    for prof in sorted({p for p, _ in summary}):
        path = os.path.join(root, "configs", "software", prof + ".json")
        doc = json.load(open(path))
        bands, mfus = [], {}
        for (p2, group), s in summary.items():
            # every published row of the group, the fit row too (the MFU is the row's)
            mine = [x for x in rows if x["profile"] == p2 and x["group"] == group]
            if p2 != prof or mine[0]["device"] != group:
                continue
            tables = []
            for x in mine:
                if x["table"] not in tables and not x["fit"]:
                    tables.append(x["table"])
                mfu = x["mfu"] * x["published"] / x["predicted"]
                key = (group, x["precision"])
                if key not in mfus or mfu > mfus[key][0]:
                    mfus[key] = (mfu, x)
            # rows simulated on this device but measured on another part: named, not banded
            other = [f"{g2}: {o['n']} rows, {o['min']:+.1%} .. {o['max']:+.1%}"
                     for (p3, g2), o in summary.items()
                     if p3 == prof and g2 != group and any(
                         x["device"] == group for x in rows
                         if x["profile"] == p3 and x["group"] == g2)]
            fits = [x["name"] for x in mine if x["fit"]]
            note = (f"; not in this band, simulated on it but measured on another part: "
                    f"{'; '.join(other)}" if other else "")
            bands.append({"device": group,
                          "rows": f"{', '.join(tables)} (experiments/{experiment}): "
                                  f"{s['n']} rows, mean |error| {100 * s['mean_abs']:.1f}%"
                                  f"{note}"
                                  + (f"; fit row, not in it: {', '.join(fits)}" if fits else ""),
                          "n_rows": s["n"], "min_error": round(s["min"], 3),
                          "max_error": round(s["max"], 3)})
        doc["validation"] = bands
        doc["max_published_mfu"] = [
            {"device": dev, "precision": prec, "mfu": round(m, 3),
             "row": f"{x['table']}: {x['name']} ({os.path.dirname(x['config'])}), "
                    f"{x['published']:g} tokens/s/GPU; MFU = published tokens/s per GPU x "
                    "trainsim's model FLOPs per token / dense peak"
                    + (" (fp8 peak)" if prec == "fp8" else "")}
            for (dev, prec), (m, x) in sorted(mfus.items())]
        with open(path, "w") as f:
            json.dump(doc, f, indent=2, ensure_ascii=False)
            f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trainsim", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--write-bands", action="store_true")
    ap.add_argument("--check")
    ap.add_argument("--published", default=os.path.join(HERE, "published.json"))
    ap.add_argument("--experiment", default="validation-others")
    a = ap.parse_args()
    pub = json.load(open(a.published))["rows"]
    rows = []
    for r in pub:
        cfg = os.path.join(a.root, r["config"])
        p = subprocess.run([a.trainsim, "run", cfg, "--format", "json"], capture_output=True,
                           text=True)
        if p.returncode != 0:
            print(f"{r['config']}: trainsim failed ({p.returncode}): {p.stderr.strip()}",
                  file=sys.stderr)
            return 1
        d = json.loads(p.stdout)
        job = json.load(open(cfg))
        dev = d["validation"]["device"]
        pred = d["tokens_per_s"] / job["gpus"]
        pubv = r["published_tokens_per_s_per_gpu"]
        # group: the part the row was measured on; a part outside the catalogue (measured_on)
        # gets its own group, reported and checked but not written into the profile's bands.
        rows.append(dict(name=r["name"], config=r["config"], profile=r["profile"], device=dev,
                         group=r.get("measured_on", dev), table=r["table"],
                         gpus=job["gpus"], precision=job["precision"], published=pubv,
                         predicted=pred, error=pred / pubv - 1, mfu=d["mfu"],
                         feasible=d["feasible"], bubble=d.get("bubble_fraction", 0.0)))
    fitted = fit_rows(a.root, sorted({x["profile"] for x in rows}))
    for x in rows:
        x["fit"] = is_fit(fitted, x)
    groups = {}
    for x in rows:
        if x["fit"]:
            continue
        groups.setdefault((x["profile"], x["group"]), []).append(x)
    summary = {}
    for (prof, dev), xs in sorted(groups.items()):
        e = [x["error"] for x in xs]
        pos = sum(1 for v in e if v > 0)
        summary[(prof, dev)] = dict(n=len(e), mean_abs=sum(abs(v) for v in e) / len(e),
                                    max_abs=max(abs(v) for v in e), min=min(e), max=max(e),
                                    mean=sum(e) / len(e),
                                    same_sign=max(pos, len(e) - pos) / len(e), pos=pos)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["name", "profile", "device", "group", "table", "gpus", "precision",
                    "published_tokens_per_s_per_gpu", "predicted_tokens_per_s_per_gpu",
                    "error", "predicted_mfu", "feasible", "fit_row"])
        for x in rows:
            w.writerow([x["name"], x["profile"], x["device"], x["group"], x["table"], x["gpus"],
                        x["precision"], x["published"], f"{x['predicted']:.1f}",
                        f"{x['error']:.4f}", f"{x['mfu']:.4f}", x["feasible"], x["fit"]])
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write(f"# {a.experiment}: results (generated by run.sh; do not edit)\n\n")
        f.write("error = predicted / published - 1, tokens/s per GPU.\n\n")
        f.write("Group: the part the rows were measured on"
                + (" (h100-sxm-96g-500w: torchtitan's Grand Teton H100, 96 GB HBM2e at 500 W)."
                   if any(x["group"] == "h100-sxm-96g-500w" for x in rows) else "."))
        outside = sorted({x["group"] for x in rows if x["group"] != x["device"]})
        if outside:
            f.write(" Parts outside the catalogue, simulated on another and kept out of the "
                    f"profile's bands: {', '.join(outside)}.")
        f.write("\n\n")
        f.write("Rows marked '(fit row)' carry a profile's calibration constant (fit.py) and are "
                "left out of the groups, bands and thresholds.\n\n")
        f.write("| profile | group | rows | mean error | mean abs error | max abs error | "
                "band | rows with the majority's sign |\n|---|---|---:|---:|---:|---:|---|---:|\n")
        for (prof, dev), s in summary.items():
            f.write(f"| {prof} | {dev} | {s['n']} | {s['mean']:+.1%} | {s['mean_abs']:.1%} | "
                    f"{s['max_abs']:.1%} | {s['min']:+.1%} .. {s['max']:+.1%} | "
                    f"{s['same_sign']:.0%} |\n")
        f.write("\n| job | group | table | GPUs | precision | published | predicted | error | "
                "predicted MFU | feasible |\n|---|---|---|---:|---|---:|---:|---:|---:|---|\n")
        for x in rows:
            f.write(f"| {x['name']} | {x['group']} | {x['table']} | {x['gpus']} | {x['precision']} | "
                    f"{x['published']:.1f} | {x['predicted']:.1f} | {x['error']:+.1%}"
                    f"{' (fit row)' if x['fit'] else ''} | "
                    f"{x['mfu']:.3f} | {'yes' if x['feasible'] else 'NO'} |\n")
    for (prof, dev), s in summary.items():
        print(f"{prof:22s} {dev:14s} n={s['n']:2d} mean={s['mean']:+.3f} "
              f"mean|e|={s['mean_abs']:.3f} max|e|={s['max_abs']:.3f} "
              f"band={s['min']:+.3f}..{s['max']:+.3f} same-sign={s['same_sign']:.2f}")
    if a.write_bands:
        write_bands(a.root, rows, summary, a.experiment)
    if a.check:
        lim = {k: v for k, v in json.load(open(a.check)).items() if k != "note"}
        bad = 0
        for (prof, dev), s in summary.items():
            t = lim.get(prof, {}).get(dev)
            if t is None:
                print(f"no threshold for {prof} x {dev}", file=sys.stderr)
                bad += 1
                continue
            for k in ("mean_abs", "max_abs"):
                if s[k] > t[k]:
                    print(f"{prof} x {dev}: {k} {s[k]:.3f} exceeds {t[k]}", file=sys.stderr)
                    bad += 1
        if bad:
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
