#!/usr/bin/env python3
"""Transcribe the pre-training tables of NVIDIA's Megatron-Bridge performance summary into CSV.

Usage: extract_tables.py OUT_MOE.csv OUT_DENSE.csv SOURCE...
  each SOURCE is  PATH_TO_MARKDOWN=REPO:PATH@COMMIT  (the markdown text of
  docs/performance-summary.md or docs/performance-summary-archive.md at that commit,
  e.g. from `git show COMMIT:docs/performance-summary.md`).

Every value is copied from the published cell; nothing is computed except the
separate `ga_derived` column (GBS / (MBS * #GPUs / (TP*PP*CP))), which is labelled as such.
A cell "a (b)" is published as two measurements: the row is written twice, once with
the values outside the parentheses (variant "primary") and once with the values inside
them (variant "parenthesized"); the table's own note says what the parentheses mean.
"""
import csv
import re
import sys

MOE_MODELS = ("deepseek", "qwen3_30b", "qwen3_235b", "gpt oss", "gpt-oss", "kimi",
              "nemotron_3", "mixtral", "llama4", "llama 4")

COLUMNS = ["release", "section", "table_heading", "model", "model_as_published", "moe",
           "system", "gpus", "precision", "precision_note", "gbs", "mbs", "seq_len",
           "fsdp", "tp", "pp", "cp", "vp", "ep", "etp", "ga", "ga_derived",
           "tokens_per_s_per_gpu", "model_tflops_per_gpu", "variant", "moe_token_policy", "mtp", "notes",
           "source_repo", "source_path", "source_commit", "raw_row"]

HEADER_MAP = {"system": "system", "model": "model", "#-gpus": "gpus", "precision": "precision",
              "gbs": "gbs", "mbs": "mbs", "sequence length": "seq_len", "fsdp": "fsdp",
              "tp": "tp", "pp": "pp", "cp": "cp", "vp": "vp", "ep": "ep", "ga": "ga",
              "tokens / sec / gpu": "tokens_per_s_per_gpu",
              "model tflop / sec / gpu": "model_tflops_per_gpu"}

PAREN = re.compile(r"^\s*(.*?)\s*\((.*?)\)\s*$")
FOOTREF = re.compile(r"\[\^([^\]]+)\]")


def split_cell(cell):
    """Return (primary, parenthesized-or-None, footnote-labels) of one published cell."""
    labels = FOOTREF.findall(cell)
    cell = FOOTREF.sub("", cell).strip()
    m = PAREN.match(cell)
    if m:
        return m.group(1).strip(), m.group(2).strip(), labels
    return cell, None, labels


def cells_of(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse(text, repo, path, commit):
    urls = dict(re.findall(r"^Source (\S+): (\S+)$", text, re.M))
    footnotes = {}
    for m in re.finditer(r"^\[\^([^\]]+)\]:\s*(.*)$", text, re.M):
        footnotes[m.group(1)] = m.group(2).strip()
    rows = []
    release = section = heading = None
    header = None
    table_notes = []  # bullet notes that follow a table, attached to that release
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^## (\S+) NeMo Container", line)
        if m:
            release, section, heading = m.group(1), None, None
        elif line.startswith("### "):
            section = line[4:].strip()
        elif line.startswith("#### "):
            heading = line[5:].strip()
        elif line.startswith("|") and release and section and heading:
            header = [HEADER_MAP.get(h.lower(), h.lower()) for h in cells_of(line)]
            i += 2  # skip the |---| line
            while i < len(lines) and lines[i].startswith("|"):
                rows.append((release, section, heading, header, cells_of(lines[i]), lines[i].strip()))
                i += 1
            continue
        i += 1
    # bullet notes per release (lines starting with "- " after the release heading, not nomenclature)
    notes_by_release = {}
    rel = None
    for line in lines:
        m = re.match(r"^## (\S+) NeMo Container", line)
        if m:
            rel = m.group(1)
            continue
        if rel and re.match(r"^-\s+\S", line) and not line.startswith("- **"):
            notes_by_release.setdefault(rel, []).append(line.lstrip("- ").strip())
    out = []
    for release, section, heading, header, cells, raw in rows:
        if len(cells) != len(header):
            raise SystemExit(f"{path}@{commit}: {release} {heading}: row has {len(cells)} cells, header {len(header)}: {raw}")
        prim, par, labels = {}, {}, []
        has_paren = False
        for key, cell in zip(header, cells):
            if key == "model":  # "DeepSeekV3 (tokendrop)": a label, not two measurements
                prim[key] = par[key] = FOOTREF.sub("", cell).strip()
                continue
            a, b, lab = split_cell(cell)
            labels += lab
            prim[key] = a
            par[key] = b if b is not None else a
            has_paren |= b is not None
        variants = [("primary", prim)] + ([("parenthesized", par)] if has_paren else [])
        for vname, vals in variants:
            rec = {c: "unstated" for c in COLUMNS}
            rec.update({"release": release, "section": section,
                        "table_heading": f"{release} NeMo Container / {section} / {heading}",
                        "variant": vname, "source_repo": repo, "source_path": urls.get(release, path),
                        "source_commit": commit, "raw_row": raw})
            for k, v in vals.items():
                if k in rec:
                    rec[k] = v
            if heading.startswith("Model: "):
                rec["model_as_published"] = heading[len("Model: "):]
            elif heading.startswith("System: "):
                rec["model_as_published"] = vals.get("model", "unstated")
                rec["system"] = heading[len("System: "):]
            m = PAREN.match(rec["model_as_published"])
            rec["model"] = m.group(1) if m else rec["model_as_published"]
            qual = m.group(2).lower() if m else ""
            rec["moe_token_policy"] = ("token-dropping" if qual == "tokendrop" else
                                       "dropless" if qual == "dropless" else "unstated")
            rec["mtp"] = ("without MTP" if qual == "w/o mtp" else
                          "with MTP" if qual == "w/ mtp" else "unstated")
            low = rec["model"].lower()
            rec["moe"] = "yes" if any(k in low for k in MOE_MODELS) else "no"
            for k in ("tokens_per_s_per_gpu", "model_tflops_per_gpu"):
                if rec[k] == "truncated":
                    rec[k] = "unstated (cell truncated in the stored copy)"
            notes = [footnotes[l] for l in labels if l in footnotes]
            notes += [n for n in notes_by_release.get(release, [])
                      if "kimi" not in n.lower() or "kimi" in rec["model"].lower()]
            if "moe-training-note" in footnotes and rec["moe"] == "yes" and release not in ("25.09", "25.11"):
                notes.append(footnotes["moe-training-note"])
            joined = " ".join(notes).lower()
            if rec["moe"] == "yes" and rec["moe_token_policy"] == "unstated" and "token-dropless" in joined \
                    and "all benchmarks are token-dropless" in joined:
                rec["moe_token_policy"] = "dropless (forced balance)"
            if rec["moe"] == "yes" and rec["moe_token_policy"] == "dropless" and "force-balance" in joined:
                rec["moe_token_policy"] = "dropless (forced balance)"
            rec["notes"] = " | ".join(dict.fromkeys(notes)) or "none"
            if repo.startswith("docs.nvidia.com"):
                rec["precision_note"] = ("no precision column: precision from the page text above the table"
                                         + ("; the stored copy lacks the note that explains the parenthesized values"
                                            if vname == "parenthesized" else ""))
            elif "precision" not in header:
                rec["precision_note"] = "no precision column in this table; see notes"
            elif vname == "parenthesized" and prim.get("precision") == par.get("precision"):
                rec["precision_note"] = "same precision as primary; parentheses = other quantization granularity (see notes)"
            else:
                rec["precision_note"] = "as published"
            try:
                dp = int(rec["gpus"]) // (int(rec["tp"]) * int(rec["pp"]) * int(rec["cp"]))
                ga = int(rec["gbs"]) / (int(rec["mbs"]) * dp)
                rec["ga_derived"] = str(int(ga)) if ga == int(ga) else f"{ga:.3f}"
            except (ValueError, ZeroDivisionError):
                rec["ga_derived"] = "n/a"
            out.append(rec)
    return out


def main():
    moe_out, dense_out, sources = sys.argv[1], sys.argv[2], sys.argv[3:]
    recs = []
    for s in sources:
        fpath, origin = s.split("=", 1)
        repo, rest = origin.split(":", 1)
        path, commit = rest.split("@", 1)
        recs += parse(open(fpath, encoding="utf-8").read(), repo, path, commit)
    recs = [r for r in recs if r["section"] == "Pre-Training Performance"]
    for name, keep in ((moe_out, "yes"), (dense_out, "no")):
        with open(name, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
            w.writeheader()
            for r in recs:
                if r["moe"] == keep:
                    w.writerow(r)
        print(name, sum(1 for r in recs if r["moe"] == keep), "rows")


if __name__ == "__main__":
    main()
