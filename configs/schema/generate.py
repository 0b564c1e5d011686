#!/usr/bin/env python3
"""Generate the JSON Schema of every trainsim input kind from the parser itself.

The parsers hold one key table per JSON object (unknown keys are errors whose message lists
the allowed ones). This script asks the parser: it puts a probe key into a valid document at
every object path, runs trainsim, and reads back "PATH.__probe__: unknown key (allowed here:
a, b, c)"; each allowed key is then probed with an object value: a nested table answers with
its own allowed keys (recursed into), any other key with its type error ("expected an
integer, got an object"), which becomes the key's type and description. So the schemas are
the parser's key tables, and tests/cli_schema.sh regenerates them and fails on any drift.

usage: configs/schema/generate.py path/to/trainsim [OUTDIR]   (default OUTDIR: this folder)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROBE = "__probe__"
REFS = {"model": "model", "system": "system", "accelerator": "accelerator",
        "software": "software", "prices": "prices"}
UNKNOWN = re.compile(r": ([^\s:]*)" + PROBE + r": unknown key \(allowed here: ([^)]*)\)")


def load(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return json.load(f)


class Prober:
    def __init__(self, binary, tmp):
        self.binary, self.tmp, self.calls = binary, tmp, 0

    def error(self, kind, doc):
        """Run trainsim on `doc` of `kind`; the stderr text."""
        self.calls += 1
        path = os.path.join(self.tmp, "probe.json")
        job = {"model": "llama3-8b", "system": "dgx-h100", "gpus": 8, "global_batch": 8,
               "precision": "bf16"}
        cmd = "run"
        if kind == "job":
            job = doc
        elif kind == "sweep":
            job, cmd = doc, "sweep"
        else:
            with open(os.path.join(self.tmp, kind + ".json"), "w") as f:
                json.dump(doc, f)
            ref = os.path.join(self.tmp, kind + ".json")
            if kind == "model":
                job["model"] = ref
            elif kind == "system":
                job["system"] = ref
            elif kind == "accelerator":
                system = load("hardware/systems/dgx-h100.json")
                system["accelerator"] = ref
                with open(os.path.join(self.tmp, "sys.json"), "w") as f:
                    json.dump(system, f)
                job["system"] = os.path.join(self.tmp, "sys.json")
            elif kind == "software":
                job["software"] = ref
            elif kind == "prices":
                job["training"] = {"tokens": 1e9}
                job["cost"] = {"prices": ref, "pricing": "on_demand"}
        with open(path, "w") as f:
            json.dump(job, f)
        args = [self.binary, cmd, path, "--format", "json"]
        if cmd == "sweep":
            args.append("--no-progress")
        env = dict(os.environ, TRAINSIM_HOME=ROOT, ASAN_OPTIONS="detect_leaks=0")
        r = subprocess.run(args, capture_output=True, text=True, env=env, cwd=self.tmp)
        return r.returncode, r.stderr


def put(doc, path, value):
    d = json.loads(json.dumps(doc))
    cur = d
    for k in path[:-1]:
        if not isinstance(cur.get(k), dict):
            cur[k] = {}
        cur = cur[k]
    cur[path[-1]] = value
    return d


def leaf_type(message, key):
    """The schema of a leaf from the parser's type error for an object value."""
    e = re.search(re.escape(key) + r": an object is not one of ([^\n]*)", message)
    if e:
        values = re.findall(r'"([^"]*)"', e.group(1))
        return {"description": "one of " + ", ".join(values), "enum": values}
    m = re.search(re.escape(key) + r": (expected [^\n]*?), got an object", message)
    if not m:
        return {}
    text = m.group(1)
    s = {"description": text}
    if "true or false" in text:
        s["type"] = "boolean"
    elif "an integer" in text or "a whole number" in text:
        s["type"] = ["integer", "string"] if "string" in text else "integer"
    elif "a string" in text and "number" not in text:
        s["type"] = "string"
    elif "number" in text or "quantity" in text or "unit" in text:
        s["type"] = ["number", "string"]
    elif "an array" in text or "a list" in text:
        s["type"] = "array"
    return s


def schema_of(prober, kind, base, path, depth=0):
    """The object schema at `path` of `base` (a valid document of `kind`)."""
    doc = put(base, path + [PROBE], 1) if path else dict(base, **{PROBE: 1})
    rc, err = prober.error(kind, doc)
    m = UNKNOWN.search(err)
    if not m:
        return None
    keys = [k.strip() for k in m.group(2).split(",") if k.strip()]
    props = {}
    for key in keys:
        here = path + [key]
        if depth == 0 and key in REFS and key != kind:
            forms = [{"type": "string", "description": "a catalogue name or a path"},
                     {"$ref": REFS[key] + ".schema.json"}]
            if kind == "sweep":
                forms.append({"type": "array", "description": "several, compared"})
            props[key] = {"anyOf": forms}
            continue
        sub = schema_of(prober, kind, base, here, depth + 1) if depth < 6 else None
        if sub is not None:
            # An object's keys are checked; many keys also take another form ("none",
            # a name, a list in a sweep), which the parser checks.
            props[key] = {"anyOf": [sub, {"not": {"type": "object"}}]}
            continue
        rc2, err2 = prober.error(kind, put(base, here, {PROBE: 1}))
        leaf = leaf_type(err2, ".".join(here) if len(here) > 1 else key)
        if kind == "sweep":
            # A sweep key also takes a list of values or "auto": only its description.
            leaf = {k: v for k, v in leaf.items() if k == "description"}
        props[key] = leaf
    # Keys a parser takes out before its table is checked (sim/search/sweep_spec.c: the
    # per-system prices of a sweep's cost section).
    if kind == "sweep" and path == ["cost"]:
        props["by_system"] = {"type": "object", "description": "per-system cost keys: "
                              "{SYSTEM: {gpu_hour: ..., prices: ...}}"}
    return {"type": "object", "properties": props, "additionalProperties": False}


# Several valid documents per kind: a key is typed by the first one in which its probe gets a
# type error (an optional section's keys need a document that has the section's required ones).
KINDS = [
    ("model", ["models/llama3-8b.json", "models/deepseek-v3.json", "models/gpt-oss-120b.json"]),
    ("accelerator", ["hardware/accelerators/h100-sxm.json"]),
    ("system", ["hardware/systems/dgx-h100.json", {"nics": True}]),
    ("software", ["configs/software/megatron-core.json"]),
    ("prices", ["configs/prices/aws-p5en-2026-08.json"]),
    ("job", ["configs/gpt3-175b-a100.json", {"commitment": True}]),
    ("sweep", ["configs/quickstart-sweep.json"]),
]


def base_doc(kind, spec, first):
    if isinstance(spec, str):
        return load(spec)
    d = json.loads(json.dumps(first))
    if spec.get("nics"):
        d["scale_out"] = {"nics_per_node": 8, "nic_bandwidth": "400 Gb/s"}
    if spec.get("commitment"):
        d["cost"] = {"gpu_hour": {"on_demand": 4.0, "reserved": 2.0},
                     "commitment": {"term": "1 y"}}
    return d


def merge(a, b):
    """Union of two object schemas of the same table: typed beats untyped, nested merged."""
    if a is None:
        return b
    if b is None:
        return a
    out = dict(a)
    props = dict(a.get("properties", {}))
    for k, v in b.get("properties", {}).items():
        if k not in props or not props[k]:
            props[k] = v
        elif "properties" in props[k] and "properties" in v:
            props[k] = merge(props[k], v)
    out["properties"] = props
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[1])
    out = argv[2] if len(argv) > 2 else HERE
    with tempfile.TemporaryDirectory() as tmp:
        prober = Prober(binary, tmp)
        for kind, specs in KINDS:
            first = load(specs[0])
            s = None
            for spec in specs:
                s = merge(s, schema_of(prober, kind, base_doc(kind, spec, first), []))
            if s is None:
                print("%s: the parser did not list its keys" % kind, file=sys.stderr)
                return 1
            s = dict({"$schema": "https://json-schema.org/draft/2020-12/schema",
                      "$id": kind + ".schema.json",
                      "title": "trainsim %s file" % kind,
                      "description": "Generated by configs/schema/generate.py from trainsim's "
                                     "key tables (every object's allowed keys and each leaf's "
                                     "type as the parser reports them); see README for meanings."},
                     **s)
            with open(os.path.join(out, kind + ".schema.json"), "w") as f:
                json.dump(s, f, indent=2, sort_keys=False)
                f.write("\n")
        print("%d probes" % prober.calls, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
