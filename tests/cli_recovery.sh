#!/usr/bin/env bash
# Command-line tests of the recovery phases and incident mechanisms of `trainsim run`
# (reliability keys recovery, fail_slow, bad_nodes, correlated, rollback, planned): the JSON
# report carries the slow-node GPU-hours and the incident counts, the table names them, the
# run trace shows the recovery phases and the planned marks, and bad values are input errors
# (exit 2, file and JSON path on stderr).
#
# usage: bash tests/cli_recovery.sh path/to/trainsim
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_recovery "$@"

job() {   # job FILE RELIABILITY-JSON: a small job with that reliability section
    cat >"$1" <<JSON
{"name": "recovery", "model": "gpt2-124m", "system": "dgx-h100", "gpus": 8, "global_batch": 64,
 "precision": "bf16", "parallel": {"tp": 1}, "training": {"tokens": "20B"},
 "reliability": $2}
JSON
}

job "$tmp/all.json" '{"failures": [{"component": "node", "mtbf": "20 h"}],
  "checkpoint": {"interval": "1 h"}, "replications": 30, "seed": 3,
  "recovery": {"diagnose": "automated", "hang_fraction": 0.3, "queue": "2 min"},
  "fail_slow": {"gpu_mtbf": "400 h", "factor": 1.2, "detection": "1 h"},
  "bad_nodes": {"fraction": 0.5, "multiplier": 3, "evict_after": 2},
  "rollback": {"fraction": 0.2, "depth": 1}, "planned": {"node_mtbf": "30 h"}}'
run all run "$tmp/all.json" --format json --run-trace "$tmp/all.run.json"
expect_rc all 0
for key in '"slow_node":' '"incidents_expected":' '"hangs":' '"slow_episodes":' '"planned":' \
           '"rollbacks":' '"evictions":' '"correlated_events":' '"nodes_replaced":'; do
    expect_in "$tmp/all.out" "$key" "json report"
done
for span in '"detect"' '"diagnose"' '"queue"' '"slow"' '"planned"'; do
    expect_in "$tmp/all.run.json" "$span" "run trace"
done
run table run "$tmp/all.json" --format table
expect_rc table 0
expect_in "$tmp/table.out" "slow-node time" "table"
expect_in "$tmp/table.out" "incidents expected: hangs" "table"

job "$tmp/bad1.json" '{"recovery": {"diagnose": {"median": "1 h", "mean": "10 min"}}}'
run bad1 run "$tmp/bad1.json"
expect_rc bad1 2
expect_in "$tmp/bad1.err" "bad1.json: reliability.recovery.diagnose.mean:" "bad diagnose"
job "$tmp/bad2.json" '{"fail_slow": {"gpu_mtbf": "1 y", "detection": "1 h", "factor": 0.9}}'
run bad2 run "$tmp/bad2.json"
expect_rc bad2 2
expect_in "$tmp/bad2.err" "bad2.json: reliability.fail_slow.factor:" "bad factor"
job "$tmp/bad3.json" '{"bad_nodes": {"fraction": 2, "multiplier": 3}}'
run bad3 run "$tmp/bad3.json"
expect_rc bad3 2
expect_in "$tmp/bad3.err" "bad3.json: reliability.bad_nodes.fraction:" "bad fraction"

finish
