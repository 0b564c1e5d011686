#!/usr/bin/env bash
# Command-line tests of committed capacity (cost.commitment): the term is billed whether used
# or not, the idle part as its own category net of its other-use value, GPUs beyond the
# commitment and time past its term at the burst price - each checked against the closed form
# with the run's own time; a sweep searching the committed base (the buy plan) keeps the
# cheapest of the hand-computed bills; refusals name the JSON path.
#
# usage: bash tests/cli_commitment.sh path/to/trainsim   (ctest passes the built binary)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_commitment "$@"

job() {   # FILE NODES TOKENS COST_JSON
    cat >"$1" <<J
{"model": "llama3-8b", "system": "dgx-h100", "nodes": $2, "global_batch": 64, "precision": "bf16",
 "parallel": {"tp": 8}, "training": {"tokens": "$3"}, "reliability": "none", "cost": $4}
J
}

# check OUT EXPR: python expression over d (the run JSON), W (hours), c (cost_breakdown).
check() {
    python3 - "$1" "$2" <<'PY' || fail "$3"
import json, sys
d = json.load(open(sys.argv[1]))
W = d["time_to_train_s"] / 3600.0
c = d["cost_breakdown"]
ok = eval(sys.argv[2])
if not ok:
    print("W =", W, "breakdown", c, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}
close() { echo "abs(($1) - ($2)) <= 1e-9 * max(1.0, abs($2))"; }

# 8 GPUs committed for 30 days at $2, a run of ~2 days: used 8 W at $2, idle (720 - W) x 8 at
# $2 x (1 - 0.25).
job "$tmp/a.json" 1 10B '{"gpu_hour": {"on_demand": 4.0, "reserved": 2.0}, "commitment": {"term": "30 d", "other_use_value": 0.25}}'
run a run "$tmp/a.json" --format json
expect_rc a 0
check "$tmp/a.out" "$(close 'c["compute"]' '8 * W * 2.0') and $(close 'c["commitment_unused"]' '(8 * 720 - 8 * W) * 2.0 * 0.75')" "idle term"
check "$tmp/a.out" "$(close 'd["cost_total"]' 'sum(c.values())')" "categories sum to the total"

# 16 GPUs on a commitment of 8 (commitment.gpu_hour $1.5, upfront $100): 8 burst on demand.
job "$tmp/b.json" 2 10B '{"gpu_hour": {"on_demand": 4.0}, "commitment": {"term": "30 d", "gpus": 8, "gpu_hour": 1.5, "upfront": 100}}'
run b run "$tmp/b.json" --format json
expect_rc b 0
check "$tmp/b.out" "$(close 'c["compute"]' '8 * W * 1.5 + 100 + 8 * W * 4.0') and $(close 'c["commitment_unused"]' '(8 * 720 - 8 * W) * 1.5')" "burst beyond the commitment"

# A run longer than its capacity block (2 days): the rest on demand, nothing idle.
job "$tmp/c.json" 1 30B '{"gpu_hour": {"on_demand": 4.0, "reserved": 2.0}, "commitment": {"term": "2 d", "nodes": 1}}'
run c run "$tmp/c.json" --format json
expect_rc c 0
check "$tmp/c.out" "W > 48 and $(close 'c["compute"]' '8 * 48 * 2.0 + 8 * (W - 48) * 4.0') and c['commitment_unused'] == 0" "time past the term"

# Without a commitment reserved pricing is a rate while running (unchanged), nothing idle.
job "$tmp/d.json" 1 10B '{"gpu_hour": {"reserved": 2.0}, "pricing": "reserved"}'
run d run "$tmp/d.json" --format json
expect_rc d 0
check "$tmp/d.out" "$(close 'c["compute"]' '8 * W * 2.0') and c['commitment_unused'] == 0" "reserved rate without a commitment"

# A buy plan in a sweep: 2 nodes committed for 30 days (reserved $5.41), more nodes burst on
# demand ($7.91; configs/prices/aws-p5en-2026-08). The best of 2 nodes pays the whole term; a
# sweep held to 4 nodes pays the term plus 16 burst GPUs for its run.
for n in 2 4; do
    python3 - "$ROOT/configs/quickstart-sweep.json" "$tmp/buy$n.json" "$n" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["systems"] = ["aws-p5en"]
d["nodes"] = [int(sys.argv[3])]
d["pricing"] = ["reserved"]
d["cost"] = {"by_system": {"aws-p5en": {"prices": "aws-p5en-2026-08"}},
             "commitment": {"term": "30 d", "nodes": 2}}
json.dump(d, open(sys.argv[2], "w"))
PY
    run "buy$n" sweep "$tmp/buy$n.json" --format json --no-progress
    expect_rc "buy$n" 0
    python3 - "$tmp/buy$n.out" "$n" <<'PY' || fail "buy plan with $n nodes: term + burst"
import json, sys
b = json.load(open(sys.argv[1]))["best"]
n = int(sys.argv[2])
W = b["expected_time_to_train_s"] / 3600.0
c = b["cost_breakdown"]
want = 16 * 720 * 5.41 + (8 * n - 16) * W * 7.91
got = c["compute"] + c["commitment_unused"]
sys.exit(0 if b["nodes"] == n and abs(got / want - 1) < 1e-9 else 1)
PY
done

# A searched buy plan: cost.commitment.nodes as a list of bases. Every reserved row is
# priced at each base plus burst and keeps the cheapest. Hand-computed bill of a run on G
# GPUs for W hours with a base of C = 8 B GPUs (term T hours, reserved p = 5.41, burst
# b = 7.91 per GPU-hour, configs/prices/aws-p5en-2026-08):
#   used = min(C, G), covered = min(W, T)
#   compute + commitment_unused = C T p + (G - used) W b + used max(0, W - T) b
# It is linear in C below G, so the cheapest base is a corner: the smallest when the term
# costs more than the burst it replaces (T p > W b: a 30-day term for a ~10-day run), the
# whole run's size when it costs less (a 2-day block).
buy_sweep() {   # OUT NODES_JSON BASES_JSON TERM
    python3 - "$ROOT/configs/quickstart-sweep.json" "$1" "$2" "$3" "$4" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["systems"] = ["aws-p5en"]
d["nodes"] = json.loads(sys.argv[3])
d["pricing"] = ["reserved"]
d["cost"] = {"by_system": {"aws-p5en": {"prices": "aws-p5en-2026-08"}},
             "commitment": {"term": sys.argv[5], "nodes": json.loads(sys.argv[4])}}
json.dump(d, open(sys.argv[2], "w"))
PY
}
check_bases() {   # OUT BASES_CSV TERM_H WANT_BASE
    python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bases = [int(x) for x in sys.argv[2].split(",")]
T, want = float(sys.argv[3]), int(sys.argv[4])
p, b = 5.41, 7.91
best = d["best"]
G = best["gpus"]
W = best["expected_time_to_train_s"] / 3600.0
def bill(B):
    C = 8 * B
    used, covered = min(C, G), min(W, T)
    return C * T * p + (G - used) * W * b + used * max(0.0, W - T) * b
bills = {B: bill(B) for B in bases}
cheapest = min(bases, key=lambda B: bills[B])
c = best["cost_breakdown"]
got = c["compute"] + c["commitment_unused"]
ok = (cheapest == want and best["commitment_nodes"] == want and
      d["top"][0]["commitment_nodes"] == want and abs(got / bills[want] - 1) < 1e-9)
if not ok:
    print("W", W, "bills", bills, "got", got, "base", best.get("commitment_nodes"), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}
buy_sweep "$tmp/bases30.json" '[4]' '[4, 1, 2]' "30 d"
run bases30 sweep "$tmp/bases30.json" --format json --no-progress
expect_rc bases30 0
check_bases "$tmp/bases30.out" 4,1,2 720 1 || fail "30-day term: the smallest base is cheapest"
buy_sweep "$tmp/bases2.json" '[4]' '[1, 2, 4, 8]' "2 d"
run bases2 sweep "$tmp/bases2.json" --format json --no-progress
expect_rc bases2 0
check_bases "$tmp/bases2.out" 1,2,4,8 48 4 || fail "2-day block: the run's own size is cheapest"
# "auto" searches the sweep's node counts: each purchase commits its own size for a 2-day
# block (a larger base would sit idle, a smaller one burst at the higher price).
buy_sweep "$tmp/basesauto.json" '[2, 4]' '"auto"' "2 d"
run basesauto sweep "$tmp/basesauto.json" --format json --no-progress --emit job "$tmp/basesauto-job.json"
expect_rc basesauto 0
python3 - "$tmp/basesauto.out" <<'PY' || fail "auto bases: each purchase commits its own size"
import json, sys
top = json.load(open(sys.argv[1]))["top"]
sys.exit(0 if len(top) >= 2 and all(r["commitment_nodes"] == r["nodes"] for r in top) else 1)
PY
# The emitted job commits the chosen base and reproduces the sweep's bill.
python3 - "$tmp/basesauto-job.json" "$tmp/basesauto.out" <<'PY' || fail "emitted job commits the chosen base"
import json, sys
j = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))["best"]
sys.exit(0 if j["cost"]["commitment"]["nodes"] == b["commitment_nodes"] == b["nodes"] else 1)
PY
run basesjob run "$tmp/basesauto-job.json" --format json
expect_rc basesjob 0
python3 - "$tmp/basesjob.out" "$tmp/basesauto.out" <<'PY' || fail "emitted job's bill is the sweep's"
import json, sys
r = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))["best"]
sys.exit(0 if abs(r["cost_total"] / b["cost_total"] - 1) < 1e-12 else 1)
PY

# The on-demand rows of a buy-plan sweep buy no commitment: 32 GPUs x W hours at $7.91 (the
# checkpoint storage adds ~$1.5, under 1e-4 of it), no committed base.
python3 - "$tmp/bases30.json" "$tmp/mixed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["pricing"] = ["on_demand", "reserved"]
json.dump(d, open(sys.argv[2], "w"))
PY
run mixed sweep "$tmp/mixed.json" --format json --no-progress
expect_rc mixed 0
python3 - "$tmp/mixed.out" <<'PY' || fail "on-demand rows of a buy plan buy no commitment"
import json, sys
rows = {r["pricing"]: r for r in json.load(open(sys.argv[1]))["top"]}
od, rs = rows["on_demand"], rows["reserved"]
W = od["estimated_time_to_train_s"] / 3600.0
ok = ("commitment_nodes" not in od and rs["commitment_nodes"] == 1 and
      abs(od["cost_total"] / (32 * W * 7.91) - 1) < 1e-4)
sys.exit(0 if ok else 1)
PY

# Refusals.
job "$tmp/k.json" 1 10B '{"gpu_hour": {"reserved": 2.0}, "commitment": {"term": "1 y", "nodes": [1, 2]}}'
run k run "$tmp/k.json"
expect_rc k 2
expect_in "$tmp/k.err" "cost.commitment.nodes: a job commits one number of nodes" "a list of bases in a job"
buy_sweep "$tmp/l.json" '[4]' '[]' "2 d"
run l sweep "$tmp/l.json" --no-progress
expect_rc l 2
expect_in "$tmp/l.err" "commitment.nodes: an empty list searches nothing" "an empty list of bases"
job "$tmp/e.json" 1 10B '{"gpu_hour": {"spot": 1.0, "reserved": 2.0}, "pricing": "spot", "commitment": {"term": "1 y"}}'
run e run "$tmp/e.json"
expect_rc e 2
expect_in "$tmp/e.err" "cost.pricing: \"spot\" with a commitment" "pricing with a commitment"
job "$tmp/f.json" 1 10B '{"gpu_hour": {"on_demand": 4.0}, "commitment": {"term": "1 y"}}'
run f run "$tmp/f.json"
expect_rc f 2
expect_in "$tmp/f.err" "cost.commitment.gpu_hour: the committed price" "no committed price"
job "$tmp/g.json" 1 10B '{"gpu_hour": {"reserved": 2.0}, "commitment": {"term": "1 y", "gpus": 8, "nodes": 1}}'
run g run "$tmp/g.json"
expect_rc g 2
expect_in "$tmp/g.err" "cost.commitment.nodes: give gpus or nodes committed, not both" "gpus and nodes"
job "$tmp/h.json" 2 10B '{"gpu_hour": {"reserved": 2.0}, "commitment": {"term": "30 d", "gpus": 8}}'
run h run "$tmp/h.json"
expect_rc h 2
expect_in "$tmp/h.err" "burst_pricing" "burst without a price"
job "$tmp/i.json" 1 10B '{"gpu_hour": {"reserved": 2.0}, "commitment": {"term": "1 y", "other_use_value": 1.5}}'
run i run "$tmp/i.json"
expect_rc i 2
expect_in "$tmp/i.err" "cost.commitment.other_use_value" "other use above 1"
job "$tmp/j.json" 1 10B '{"gpu_hour": {"reserved": 2.0}, "commitment": {"gpus": 8}}'
run j run "$tmp/j.json"
expect_rc j 2
expect_in "$tmp/j.err" "cost.commitment.term" "no term"

finish
