#!/usr/bin/env bash
# Command-line tests of `trainsim list KIND` and `trainsim show NAME`: every catalogue file of
# a kind is listed (counted against the directory), key figures are the files' own values,
# CSV has one column count on every row, tables fit 100 columns, show prints one entry with its
# file, a name in two kinds must be qualified (KIND/NAME), unknown kinds and names exit 2.
#
# usage: bash tests/cli_list.sh path/to/trainsim   (ctest passes the built binary)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_list "$@"

check_kind() {   # KIND DIR
    run "l_$1" list "$1" --format json
    expect_rc "l_$1" 0
    want=$(find "$ROOT/$2" -maxdepth 1 -name '*.json' ! -name '.*' | wc -l)
    got=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["entries"]))' "$tmp/l_$1.out")
    if [ "$got" != "$want" ] || [ "$want" -eq 0 ]; then fail "list $1: $got entries, $want files in $2"; fi
    run "t_$1" list "$1" --format table
    expect_rc "t_$1" 0
    if awk 'length($0) > 100 { bad = 1 } END { exit !bad }' "$tmp/t_$1.out"; then
        fail "list $1: a table line is wider than 100 columns"
    fi
    run "c_$1" list "$1" --format=csv
    expect_rc "c_$1" 0
    python3 - "$tmp/c_$1.out" "$want" <<'PY' || fail "list $1: CSV rows differ in length or count"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
sys.exit(0 if len(rows) == int(sys.argv[2]) + 1 and len({len(r) for r in rows}) == 1 else 1)
PY
}
check_kind models models
check_kind accelerators hardware/accelerators
check_kind systems hardware/systems
check_kind software configs/software
check_kind prices configs/prices
check_kind attention hardware/attention

# Key figures are the files' values.
python3 - "$tmp/l_accelerators.out" "$ROOT/hardware/accelerators/h100-sxm.json" <<'PY' || fail "h100-sxm figures differ from its file"
import json, sys
l = {e["name"]: e for e in json.load(open(sys.argv[1]))["entries"]}
f = json.load(open(sys.argv[2]))
e = l["h100-sxm"]
ok = e["peak_flops.bf16"] == f["peak_flops"]["bf16"] and e["memory"] == f["memory"] and e["source"] == f["source"]
sys.exit(0 if ok else 1)
PY
python3 - "$tmp/l_prices.out" "$ROOT/configs/prices/aws-p5en-2026-08.json" <<'PY' || fail "aws-p5en prices differ from the file"
import json, sys
l = {e["name"]: e for e in json.load(open(sys.argv[1]))["entries"]}
f = json.load(open(sys.argv[2]))
e = l["aws-p5en-2026-08"]
sys.exit(0 if e["gpu_hour.spot"] == f["gpu_hour"]["spot"] and e["date"] == f["date"] else 1)
PY

# show: one entry with its file.
run show show llama3-70b --format json
expect_rc show 0
expect_in "$tmp/show.out" '"file":  "'"$ROOT"'/models/llama3-70b.json"' "show file"
expect_in "$tmp/show.out" '"ffn_hidden":  28672' "show entry"
run showt show models/llama3-70b --format table
expect_rc showt 0
expect_in "$tmp/showt.out" 'ffn_hidden' "show table"

# A name in two kinds (a scratch catalogue) must be qualified.
mkdir -p "$tmp/home/models" "$tmp/home/hardware/systems"
echo '{"name": "x", "source": "m"}' >"$tmp/home/models/x.json"
echo '{"name": "x", "source": "s"}' >"$tmp/home/hardware/systems/x.json"
TRAINSIM_HOME=$tmp/home "$BIN" show x >"$tmp/amb.out" 2>"$tmp/amb.err"
rc=$?
expect_rc amb 2
expect_in "$tmp/amb.err" 'is in several kinds' "ambiguous name"
TRAINSIM_HOME=$tmp/home "$BIN" show systems/x --format json >"$tmp/q.out" 2>"$tmp/q.err"
rc=$?
expect_rc q 0
expect_in "$tmp/q.out" '"source":  "s"' "qualified name"
# A broken file in the catalogue is named, and the listing fails with exit 2.
echo '{"name": ' >"$tmp/home/models/broken.json"
TRAINSIM_HOME=$tmp/home "$BIN" list models --format json >"$tmp/br.out" 2>"$tmp/br.err"
rc=$?
expect_rc br 2
expect_in "$tmp/br.err" 'broken.json' "broken catalogue file"

run nokind list
expect_rc nokind 2
run badkind list gpus
expect_rc badkind 2
expect_in "$tmp/badkind.err" 'unknown kind "gpus"' "unknown kind"
run noname show no-such-thing
expect_rc noname 2
expect_in "$tmp/noname.err" 'no catalogue entry "no-such-thing"' "unknown name"
run dots show ../models/llama3-70b
expect_rc dots 2

finish
