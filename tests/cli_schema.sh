#!/usr/bin/env bash
# Tests of the JSON Schemas in configs/schema: regenerated from the parser's key tables
# (configs/schema/generate.py probes the built binary) they equal the committed files, so a
# key added to a parser without its schema fails here; every shipped catalogue and config file
# validates against its schema, and a typo'd key does not.
#
# usage: bash tests/cli_schema.sh path/to/trainsim   (ctest passes the built binary)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_schema "$@"

# The generator starts trainsim about 1,400 times: under valgrind (TS_VALGRIND=1) that part is
# left to the sanitizer run, which executes it in full; the validation below runs either way.
if [ "${TS_VALGRIND:-0}" != 1 ]; then
    mkdir -p "$tmp/schema"
    if ! python3 "$ROOT/configs/schema/generate.py" "$BIN" "$tmp/schema" 2>"$tmp/gen.err"; then
        fail "generate.py failed: $(tail -3 "$tmp/gen.err")"
    fi
    for f in "$ROOT"/configs/schema/*.schema.json; do
        if ! diff -u "$f" "$tmp/schema/$(basename "$f")" >"$tmp/diff.txt"; then
            fail "$(basename "$f") differs from the parser's key tables (rerun configs/schema/generate.py): $(head -20 "$tmp/diff.txt")"
        fi
    done
fi

python3 - "$ROOT" <<'PY' || fail "schema validation"
import glob, json, os, sys
root = sys.argv[1]
schemas = {os.path.basename(p)[:-len(".schema.json")]: json.load(open(p))
           for p in glob.glob(os.path.join(root, "configs/schema/*.schema.json"))}

def check(value, schema, path, errors):
    """The subset of JSON Schema the files use: type, enum, properties,
    additionalProperties false, anyOf, $ref to a sibling schema."""
    if not schema:
        return
    if "$ref" in schema:
        return check(value, schemas[schema["$ref"][:-len(".schema.json")]], path, errors)
    if "anyOf" in schema:
        trial = []
        for s in schema["anyOf"]:
            e = []
            check(value, s, path, e)
            if not e:
                return
            trial += e
        errors.append("%s: matches none of anyOf (%s)" % (path, trial[0]))
        return
    if "not" in schema:
        e = []
        check(value, schema["not"], path, e)
        if not e:
            errors.append("%s: must not match %s" % (path, schema["not"]))
        return
    t = schema.get("type")
    kinds = {"object": dict, "array": list, "string": str, "boolean": bool,
             "integer": int, "number": (int, float)}
    if t:
        ts = t if isinstance(t, list) else [t]
        ok = any(isinstance(value, kinds[k]) and not (k in ("integer", "number") and isinstance(value, bool))
                 for k in ts)
        if not ok:
            errors.append("%s: %r is not %s" % (path, value, t))
            return
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r not in %s" % (path, value, schema["enum"]))
    if isinstance(value, dict) and "properties" in schema:
        for k, v in value.items():
            if k not in schema["properties"]:
                if schema.get("additionalProperties") is False:
                    errors.append("%s.%s: unknown key" % (path, k))
                continue
            check(v, schema["properties"][k], path + "." + k, errors)

files = {"model": "models/*.json", "accelerator": "hardware/accelerators/*.json",
         "system": "hardware/systems/*.json", "software": "configs/software/*.json",
         "prices": "configs/prices/*.json"}
bad = 0
for kind, pattern in files.items():
    for p in sorted(glob.glob(os.path.join(root, pattern))):
        errors = []
        check(json.load(open(p)), schemas[kind], kind, errors)
        if errors:
            bad += 1
            print("%s: %s" % (p, errors[:3]), file=sys.stderr)
for p in sorted(glob.glob(os.path.join(root, "configs/*.json"))):
    doc = json.load(open(p))
    kind = "sweep" if "systems" in doc or p.endswith("-sweep.json") else "job"
    errors = []
    check(doc, schemas[kind], kind, errors)
    if errors:
        bad += 1
        print("%s: %s" % (p, errors[:3]), file=sys.stderr)
# A typo is caught.
job = json.load(open(os.path.join(root, "configs/gpt3-175b-a100.json")))
job["parallel"]["tensor_parallel"] = 8
errors = []
check(job, schemas["job"], "job", errors)
if not any("parallel.tensor_parallel: unknown key" in e for e in errors):
    print("a typo'd key validates", file=sys.stderr)
    bad += 1
sys.exit(1 if bad else 0)
PY

finish
