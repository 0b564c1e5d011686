#!/usr/bin/env bash
# Command-line tests of the input side (README "Input files"): every file trainsim reads is
# read with a size limit and without blocking (a FIFO nobody writes to, a directory, a
# 200 MB sparse file, /dev/zero), and every JSON document is checked whole (nesting depth,
# "\u0000" in a string, a key given twice anywhere, a number beyond the double range, a
# malformed number), and free-text keys such as "name" are strings. Each bad input exits 2
# with the file (and the JSON path or line and column) on stderr and nothing on stdout. A
# price of 0 is a price: free capacity costs $0 in a run and is offered in a sweep.
#
# usage: bash tests/cli_inputs.sh path/to/trainsim   (ctest passes the built binary)
# Needs bash, coreutils (timeout, truncate, mkfifo), grep and sed.
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_inputs "$@"
SWEEP=$DATA/search/small-cost.json

# A small job, one key per line so that sed can change one of them.
JOB=$tmp/job.json
cat >"$JOB" <<'EOF'
{
  "name": "inputs",
  "description": "a small job for tests/cli_inputs.sh",
  "model": "gpt2-124m",
  "system": "dgx-h100",
  "nodes": 1,
  "global_batch": 16,
  "parallel": {"tp": 2, "pp": 1, "microbatch": 1},
  "training": {"tokens": "1B"},
  "cost": {"gpu_hour": {"on_demand": 2.5}}
}
EOF

# refused NAME FILE_ARG... : `trainsim run|sweep ...` exits 2 within 20 s with nothing on
# stdout; the caller then checks the message.
refused() {
    local name=$1
    shift
    timeout 20 "$BIN" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    expect_rc "$name" 2
    [ -s "$tmp/$name.out" ] && fail "$name: printed a result on stdout"
}

# bad_job NAME SED MESSAGE: the job changed by SED is refused with "FILE: MESSAGE" (an empty
# MESSAGE: the caller checks the message, which names another file).
bad_job() {
    local f=$tmp/$1.json
    sed "$2" "$JOB" >"$f"
    if cmp -s "$f" "$JOB"; then
        fail "$1: the sed expression did not change the job"
        return
    fi
    refused "$1" run "$f" --format json
    [ -z "$3" ] || expect_in "$tmp/$1.err" "$f: $3" "$1"
}

# bad_sweep NAME SED MESSAGE: likewise for the test sweep.
bad_sweep() {
    local f=$tmp/$1.json
    sed "$2" "$SWEEP" >"$f"
    if cmp -s "$f" "$SWEEP"; then
        fail "$1: the sed expression did not change the sweep"
        return
    fi
    refused "$1" sweep "$f" --format json --no-progress
    expect_in "$tmp/$1.err" "$f: $3" "$1"
}

# The base files are fine.
run ok run "$JOB" --format json
expect_rc ok 0

# ---------------------------------------------------------------- files that are not files

# A FIFO nobody writes to: refused at once (opening does not wait for a writer).
mkfifo "$tmp/fifo"
refused fifo run "$tmp/fifo"
expect_in "$tmp/fifo.err" "$tmp/fifo: is a FIFO or pipe that delivered nothing" fifo
# ... also where a job names it as its model file.
bad_job fifo_model "s|\"model\": \"gpt2-124m\"|\"model\": \"$tmp/fifo\"|" ""
expect_in "$tmp/fifo_model.err" "$tmp/fifo: is a FIFO or pipe" fifo_model
# A pipe with a writer is read to its end (process substitution).
run pipe run <(cat "$JOB") --format json
expect_rc pipe 0
run pipe_sweep sweep <(cat "$SWEEP") --format json --no-progress
expect_rc pipe_sweep 0

# A directory.
mkdir "$tmp/dir.json"
refused dir run "$tmp/dir.json"
expect_in "$tmp/dir.err" "$tmp/dir.json: is a directory, not a file" dir
refused dir_sweep sweep "$tmp/dir.json"
expect_in "$tmp/dir_sweep.err" "$tmp/dir.json: is a directory" dir_sweep

# A 200 MB file (sparse: no disk used) is refused by its size before it is read, as the job,
# and as a price file the job names.
truncate -s 200M "$tmp/big.json"
refused big run "$tmp/big.json"
expect_in "$tmp/big.err" "$tmp/big.json: the file is 200 MiB, more than the 64 MiB limit for input files" big
bad_job big_prices "s|\"cost\": {|\"cost\": {\"prices\": \"$tmp/big.json\", |" ""
expect_in "$tmp/big_prices.err" "$tmp/big.json: the file is 200 MiB, more than the 64 MiB limit" big_prices

# An endless device stops at the limit.
refused zero run /dev/zero
expect_in "$tmp/zero.err" "/dev/zero: more than 64 MiB read; input files are limited to 64 MiB" zero

# An empty file.
: >"$tmp/empty.json"
refused empty run "$tmp/empty.json"
expect_in "$tmp/empty.err" "$tmp/empty.json: no JSON document (the file is empty)" empty

# ---------------------------------------------------------------- JSON documents

# Nesting beyond the limit is reported as such, with line and column (not "malformed"): the
# root object is level 1, so the 64th bracket of `  "description": [[[...` (the first at
# column 18) opens level 65, at column 81.
deep=$(printf '%.0s[' $(seq 70))$(printf '%.0s]' $(seq 70))
bad_job deep "s|\"description\": \"[^\"]*\"|\"description\": $deep|" \
    "nesting deeper than 64 levels at line 3, column 81"
# 2000 levels (beyond cJSON's own limit of 1000) too: level 65 opens 64 x 6 characters in.
deeper=$(printf '%.0s{"a": ' $(seq 2000))1$(printf '%.0s}' $(seq 2000))
printf '%s\n' "$deeper" >"$tmp/deeper.json"
refused deeper run "$tmp/deeper.json"
expect_in "$tmp/deeper.err" "$tmp/deeper.json: nesting deeper than 64 levels at line 1, column 385" deeper

# A key given twice, anywhere: top level, nested, in an inline object, in a sweep's
# searched dimensions and per-system prices.
bad_job dup_top 's|"nodes": 1,|"nodes": 1, "nodes": 2,|' "nodes: key appears twice"
bad_job dup_parallel 's|"tp": 2,|"tp": 2, "tp": 1,|' "parallel.tp: key appears twice"
bad_job dup_inline 's|"model": "gpt2-124m"|"model": {"name": "m", "layers": 2, "layers": 4, "hidden": 64, "heads": 4, "vocab": 100, "seq_len": 64}|' \
    "model.layers: key appears twice"
bad_job dup_cost 's|"on_demand": 2.5|"on_demand": 2.5, "on_demand": 0|' \
    "cost.gpu_hour.on_demand: key appears twice"
bad_sweep dup_sweep_tp 's|"tp": \[1, 2, 4, 8\],|"tp": [1, 2, 4, 8], "tp": [1],|' \
    "parallel.tp: key appears twice"
bad_sweep dup_by_system 's|"by_system": {|"by_system": {"dgx-h100": {}}, "by_system": {|' \
    "cost.by_system: key appears twice"
bad_sweep dup_by_system_key 's|"by_system": {"dgx-h100": {"gpu_hour": {"on_demand": 9.0,|"by_system": {"dgx-h100": {"gpu_hour": {"on_demand": 9.0, "on_demand": 1,|' \
    "cost.by_system.dgx-h100.gpu_hour.on_demand: key appears twice"
# ... and in a file the job names (the message names that file).
cat >"$tmp/prices.json" <<'EOF'
{"date": "2026-01", "source": "test", "gpu_hour": {"spot": 1, "spot": 2}}
EOF
bad_job dup_price_file "s|\"cost\": {|\"cost\": {\"prices\": \"$tmp/prices.json\", |" ""
expect_in "$tmp/dup_price_file.err" "$tmp/prices.json: gpu_hour.spot: key appears twice" dup_price_file

# "\u0000" would cut a string short: refused in a value and in a key, at its backslash.
bad_job nul_value 's|"name": "inputs"|"name": "in\\u0000puts"|' \
    '"\u0000" in a string at line 2, column 14'
bad_job nul_key 's|"name": "inputs"|"na\\u0000me": "inputs"|' '"\u0000" in a string at line 2, column 6'

# Free text must be text: a non-string name or description, in every kind of file.
bad_job name_number 's|"name": "inputs"|"name": 5|' "name: expected a string, got 5"
bad_job description_array 's|"description": "[^"]*"|"description": ["a"]|' \
    "description: expected a string, got an array"
bad_job name_inline_model 's|"model": "gpt2-124m"|"model": {"name": 5, "layers": 2, "hidden": 64, "heads": 4, "vocab": 100, "seq_len": 64}|' \
    "model.name: expected a string, got 5"
bad_sweep name_sweep 's|"name": "small-cost"|"name": 5|' "name: expected a string, got 5"
cat >"$tmp/named-prices.json" <<'EOF'
{"name": 5, "date": "2026-01", "source": "test", "gpu_hour": {"on_demand": 1}}
EOF
bad_job name_price_file "s|\"cost\": {|\"cost\": {\"prices\": \"$tmp/named-prices.json\", |" ""
expect_in "$tmp/name_price_file.err" "$tmp/named-prices.json: name: expected a string, got 5" name_price_file

# Numbers beyond the double range say so (not "null is not a finite number"), in every
# numeric key and in quantity strings.
bad_job huge_gpus 's|"nodes": 1,|"gpus": 1e999,|' "gpus: 1e999 is out of range (a finite number is needed)"
bad_job huge_negative 's|"global_batch": 16|"global_batch": -1e999|' \
    "global_batch: -1e999 is out of range (a finite number is needed)"
bad_job huge_price 's|"on_demand": 2.5|"on_demand": 1E+400|' \
    "cost.gpu_hour.on_demand: 1E+400 is out of range (a finite number is needed)"
bad_job huge_string 's|"tokens": "1B"|"tokens": "1e999"|' \
    'training.tokens: "1e999" is out of range (a finite number is needed)'
bad_sweep huge_quantity 's|"deadline": "20 d"|"deadline": "1e999 d"|' \
    'constraint.deadline: "1e999 d" is out of range (a finite number is needed)'
for out in huge_gpus huge_string; do
    grep -q 'null' "$tmp/$out.err" && fail "$out: the message says null: $(cat "$tmp/$out.err")"
done

# Numbers JSON does not allow (cJSON reads them anyway).
bad_job leading_zero 's|"nodes": 1,|"nodes": 01,|' "malformed number 01 at line 6, column 12"

# ---------------------------------------------------------------- zero prices

# A zero GPU-hour price is free capacity: the run is priced, its compute costs $0.
sed 's|"on_demand": 2.5|"on_demand": 0|' "$JOB" >"$tmp/free.json"
run free run "$tmp/free.json" --format json
expect_rc free 0
expect_in "$tmp/free.out" '"compute":  0,' free
# A missing price is still refused, naming the key.
bad_job no_price 's|"gpu_hour": {"on_demand": 2.5}|"gpu_hour": {"spot": 0}|' \
    "cost.gpu_hour.on_demand: no price"
# In a sweep, a zero spot price is offered (and, being free, it is the cheapest).
sed 's|"gpu_hour": {"on_demand": 4.0, "spot": 1.6}|"gpu_hour": {"on_demand": 4.0, "spot": 0}|' \
    "$SWEEP" >"$tmp/free-sweep.json"
run free_sweep sweep "$tmp/free-sweep.json" --format json --no-progress
expect_rc free_sweep 0
best=$(sed -n '/"best":/,/"top":/p' "$tmp/free_sweep.out")
grep -q '"pricing":  "spot"' <<<"$best" || fail "free_sweep: the best is not spot: $(grep pricing <<<"$best")"
grep -q '"system":  "dgx-a100-80g"' <<<"$best" || fail "free_sweep: the best is not on the free system"
grep -q '"compute":  0,' <<<"$best" || fail "free_sweep: the best's compute does not cost 0"

finish
