#!/usr/bin/env bash
# Command-line tests of the purchase decision (README "The answer as a purchase decision"):
# top rows are distinct purchases whose listed layouts are within the tie tolerance; the
# closest miss is the best configuration evaluated on the constraint's criterion (brute
# force over --csv); the model's own error is off exactly with --no-model-uncertainty and
# widens a failure-free run's p90 by the closed-form amount; the progress bar ends its line
# on a terminal; tables fit 100 columns; every CSV parses with python3's csv module with one
# column count; --format=json and "-" for stdin.
#
# usage: bash tests/cli_decide.sh path/to/trainsim   (ctest passes the built binary)
# Needs bash, coreutils, grep, awk, python3 and script (util-linux).
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_decide "$@"
QUICK=$ROOT/configs/quickstart-sweep.json

# ---------------------------------------------------------------- distinct purchases

run top sweep "$QUICK" --format json --no-progress --top 8
expect_rc top 0
python3 - "$tmp/top.out" <<'EOF' || fail "top: rows are not distinct purchases with layouts within the tolerance"
import json, sys
d = json.load(open(sys.argv[1]))
tol = d["tie_tolerance"]
assert tol == 0.005, tol
seen = set()
for row in d["top"] + d["pareto"]:
    key = (row["system"], row["nodes"], row["pricing"])
    lays = row["layouts"]
    assert row["equivalent_layouts"] == len(lays) >= 1
    for l in lays:
        assert (l["system"], l["nodes"], l["pricing"]) == key, (l, key)
for kind in ("top", "pareto", "best_per_system"):
    keys = [(r["system"], r["nodes"], r["pricing"]) for r in d[kind]]
    assert len(keys) == len(set(keys)), (kind, keys)
for row in d["top"]:
    best = row["layouts"][0]["cost_total"]
    assert best == row["cost_total"]
    for l in row["layouts"]:
        assert best <= l["cost_total"] <= best * (1 + tol), (best, l["cost_total"])
# best_per_system: one row per system x pricing that has an answer, each no dearer than
# any top row of the same system and pricing
for b in d["best_per_system"]:
    for row in d["top"]:
        if (row["system"], row["pricing"]) == (b["system"], b["pricing"]):
            assert b["cost_total"] <= row["cost_total"]
assert "decision" in d and isinstance(d["decision"]["tie"], bool)
EOF

# ---------------------------------------------------------------- the deadline with the model's error

# The search checks a probabilistic deadline on the failures alone; the answer also says
# where the quantile with the model's own error falls: the top-level combined quantile at
# the deadline's probability (0.90 here, so p90), compared with the deadline. Off with
# --no-model-uncertainty (nothing to add then).
run dl sweep "$QUICK" --format json --no-progress
expect_rc dl 0
python3 - "$tmp/dl.out" <<'EOF' || fail "dl: deadline_check is not the combined quantile against the deadline"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["deadline_check"]
assert c["deadline_s"] == 30 * 86400 and c["probability"] == 0.9, c
assert c["checked_on"] == "failures alone"
assert abs(c["with_model_error_s"] - d["time_quantiles"]["p90"]) <= 1e-6 * c["with_model_error_s"], c
assert c["holds_with_model_error"] == (c["with_model_error_s"] <= c["deadline_s"])
EOF
run dl_t sweep "$QUICK" --format table --no-progress
expect_rc dl_t 0
expect_in "$tmp/dl_t.out" "deadline 30 d at probability 0.90: met on failures alone" "the table states the deadline check"
run dl_off sweep "$QUICK" --format json --no-progress --no-model-uncertainty
expect_rc dl_off 0
grep -q '"deadline_check"' "$tmp/dl_off.out" && fail "dl_off: a deadline check without the model's error"

# ---------------------------------------------------------------- closest miss

# Deadlines no configuration meets, one so tight that no layout passes screening: the
# closest miss must be the earliest expected finish over every row the CSV has a simulated
# time for, and the sweep must have simulated layouts rejected at their bound to find it.
for dl in "0.5 d" "28 h"; do
    name=miss-${dl// /}
    sed -e "s/\"deadline\": \"30 d\"/\"deadline\": \"$dl\"/" -e 's/"probability": 0.9//' \
        -e 's/"deadline": "\([^"]*\)",/"deadline": "\1"/' "$QUICK" >"$tmp/$name.json"
    run "$name" sweep "$tmp/$name.json" --format json --no-progress --csv "$tmp/$name.csv"
    expect_rc "$name" 0
    python3 - "$tmp/$name.out" "$tmp/$name.csv" <<'EOF' || fail "$name: the closest miss is not the best evaluated"
import csv, json, sys
d = json.load(open(sys.argv[1]))
assert d["found"] is False and d["best"] is None
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
times = [float(r["estimated_time_to_train_s"]) for r in rows if r["estimated_time_to_train_s"]]
assert times, "no simulated row"
got = d["closest_miss"]["estimated_time_to_train_s"]
assert got == min(times), (got, min(times))
assert any(r["status"] == "constraint_unreachable" and r["estimated_time_to_train_s"] for r in rows)
assert all(r["why"] for r in rows), "a row without its reason"
EOF
done

# ---------------------------------------------------------------- model uncertainty

# Off: the distribution's quantiles are the failure Monte Carlo's own numbers, exactly.
run off run "$ROOT/configs/gpt3-175b-a100.json" --format json --no-model-uncertainty
expect_rc off 0
python3 - "$tmp/off.out" <<'EOF' || fail "off: time_quantiles/cost_quantiles differ from the Monte Carlo's"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["model_uncertainty"]["applied"] is False
assert d["time_quantiles"]["p50"] == d["p50_time_to_train_s"]
assert d["time_quantiles"]["p90"] == d["p90_time_to_train_s"]
assert d["time_quantiles"]["p99"] == d["p99_time_to_train_s"]
assert d["cost_quantiles"]["p90"] == d["cost_p90"]
EOF
# On, failure free ("reliability": "none": every replication is the failure-free time T):
# replication k of n takes T (1 + a + (b - a)(k + 1/2) / n) on the band [a, b], so the p90
# (linear between order statistics at 0.9 (n - 1)) is T (1 + a + (b - a)(0.9 (n - 1) + 1/2) / n).
python3 - "$ROOT/configs/gpt3-175b-a100.json" "$tmp/ff.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
j["reliability"] = "none"
json.dump(j, open(sys.argv[2], "w"))
EOF
run ff run "$tmp/ff.json" --format json --replications 1000
expect_rc ff 0
python3 - "$tmp/ff.out" <<'EOF' || fail "on: the failure-free p90 is not the closed form"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["model_uncertainty"]
assert m["applied"] is True and m["validated"] is False
a, b, n = m["min_error"], m["max_error"], m["replications"]
assert (a, b, n) == (-0.20, 0.38, 1000), (a, b, n)
T = d["time_to_train_s"]
want = T * (1 + a + (b - a) * (0.9 * (n - 1) + 0.5) / n)
got = d["time_quantiles"]["p90"]
assert abs(got / want - 1) < 1e-12, (got, want)
assert d["p90_time_to_train_s"] == T          # the contract key stays failure-only
EOF

# ---------------------------------------------------------------- terminal

# On a terminal (script(1) gives stderr a pty) the progress output ends with a newline.
if command -v script >/dev/null; then
    script -qec "$BIN sweep $QUICK --format json >$tmp/pty.json" "$tmp/pty.log" >/dev/null 2>&1
    grep -q 'simulate' "$tmp/pty.log" || fail "pty: no progress bar on a terminal"
    [ "$(tail -c 1 "$tmp/pty.log" | od -An -c | tr -d ' ')" = '\n' ] ||
        fail "pty: the progress output does not end its line: $(tail -c 120 "$tmp/pty.log" | od -c | tail -3)"
else
    fail "script(1) is missing (util-linux)"
fi

# Tables fit 100 columns: every row of the sweep's tables (header to blank line).
run tab sweep "$QUICK" --format table --no-progress
expect_rc tab 0
awk '/^ +# +system/ { t = 1 } /^$/ { t = 0 } t && length > 100 { print; bad = 1 } END { exit bad }' \
    "$tmp/tab.out" >"$tmp/tab.long" || fail "tables: rows wider than 100 columns: $(head -3 "$tmp/tab.long")"
grep -q '^Best per system and pricing' "$tmp/tab.out" || fail "tables: no best-per-system table"
run wide sweep "$QUICK" --format table --no-progress --wide
grep -q 'recompute' "$tmp/wide.out" || fail "--wide: no recompute column"

# ---------------------------------------------------------------- CSV and options

run csv1 sweep "$QUICK" --format=csv --no-progress --csv "$tmp/all.csv"
expect_rc csv1 0
run csv2 run "$ROOT/configs/gpt3-175b-a100.json" --format=csv
expect_rc csv2 0
for f in "$tmp/all.csv" "$tmp/csv1.out" "$tmp/csv2.out"; do
    python3 - "$f" <<'EOF' || fail "csv: $(basename "$f") does not parse with one column count"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert len(rows) >= 2
assert len({len(r) for r in rows}) == 1, {len(r) for r in rows}
EOF
done
head -1 "$tmp/csv2.out" | grep -q 'time_quantiles.p90' || fail "csv: run CSV without time_quantiles"
grep -q ',"[^"]*,[^"]*",' "$tmp/all.csv" && fail "csv: a --csv reason needs quoting (the sweep's readers split on commas)"
# "-" reads the file from the standard input, for run and sweep alike.
"$BIN" run - --format=json <"$ROOT/configs/gpt3-175b-a100.json" >"$tmp/stdin-run.json" 2>"$tmp/stdin-run.err" ||
    fail "run -: $(head -c 300 "$tmp/stdin-run.err")"
grep -q '"iteration_time_s"' "$tmp/stdin-run.json" || fail "run -: no result"
"$BIN" sweep - --format=json --no-progress <"$QUICK" >"$tmp/stdin-sweep.json" 2>"$tmp/stdin-sweep.err" ||
    fail "sweep -: $(head -c 300 "$tmp/stdin-sweep.err")"
grep -q '"best_per_system"' "$tmp/stdin-sweep.json" || fail "sweep -: no result"

finish
