#!/usr/bin/env bash
# `trainsim sweep` interrupted and resumed: Ctrl-C (SIGINT, and its deterministic stand-in
# TRAINSIM_TEST_STOP_AFTER_BATCHES) stops the sweep with exit status 130 and a marked partial
# file; --resume continues to the same answer as an uninterrupted run; a changed sweep file is
# refused with exit status 2; no temporary file is left behind.
# usage: tests/cli_sweep_resume.sh path/to/trainsim
set -uo pipefail
bin=${1:?usage: cli_sweep_resume.sh TRAINSIM}
here=$(cd "$(dirname "$0")" && pwd)
sweep="$here/data/sweep_resume/p90-sweep.json"
big="$here/../configs/gpt3-175b-layout-sweep.json"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0
check() {   # check NAME CONDITION...
    local name=$1
    shift
    if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; fails=$((fails + 1)); fi
}
no_json_elapsed() { grep -v '"elapsed_s"' "$1"; }

# The uninterrupted answer (exhaustive: 7 batches of 256 layouts).
"$bin" sweep "$sweep" --exhaustive --format json --no-progress >full.json
check "uninterrupted sweep succeeds" test $? -eq 0

# Stopped after 2 batches: exit 130, the default partial file, nothing else.
TRAINSIM_TEST_STOP_AFTER_BATCHES=2 "$bin" sweep "$sweep" --exhaustive --format json \
    --no-progress >out1.json 2>err1.txt
rc=$?
check "stopped sweep exits with 130" test $rc -eq 130
check "stopped sweep prints no answer" test ! -s out1.json
check "partial file has the default name" test -f p90-sweep.partial.json
check "partial file is marked" grep -q '"trainsim_partial_sweep": 2' p90-sweep.partial.json
check "stderr says where the work is and how to resume" \
    grep -q -- "--resume p90-sweep.partial.json" err1.txt
check "no temporary file is left" test -z "$(ls | grep '\.tmp\.')"

# Resumed (stopped once more on the way, to another partial file), then to the end.
TRAINSIM_TEST_STOP_AFTER_BATCHES=2 "$bin" sweep "$sweep" --exhaustive --no-progress \
    --resume p90-sweep.partial.json --partial second.json --threads 1 >/dev/null 2>&1
check "resumed sweep can be stopped again" test $? -eq 130
check "second partial file holds more work" \
    test "$(grep -c '"layout"' second.json)" -gt "$(grep -c '"layout"' p90-sweep.partial.json)"
"$bin" sweep "$sweep" --exhaustive --format json --no-progress --resume second.json >resumed.json
check "resumed sweep succeeds" test $? -eq 0
check "resumed answer equals the uninterrupted one" \
    cmp -s <(no_json_elapsed full.json) <(no_json_elapsed resumed.json)

# A changed sweep file is refused.
sed 's/"top": 4/"top": 3/' "$sweep" >changed.json
"$bin" sweep changed.json --exhaustive --no-progress --resume second.json >/dev/null 2>err2.txt
check "changed sweep is refused with exit 2" test $? -eq 2
check "the refusal says the sweep file changed" grep -q "the inputs changed since the partial was written (the sweep now reads changed.json where it read " err2.txt
"$bin" sweep "$sweep" --no-progress --resume missing.json >/dev/null 2>err3.txt
check "missing partial file is an input error" test $? -eq 2

# A real Ctrl-C: a sweep that runs for minutes, interrupted after 2 s.
"$bin" sweep "$big" --exhaustive --threads 1 --no-progress --partial big.json >/dev/null 2>err4.txt &
pid=$!
# Wait until the sweep catches SIGINT (bit 2 of SigCgt), then let it run a little; under
# valgrind (TS_VALGRIND=1), which catches every signal itself, give it time to start.
for _ in $(seq 100); do
    cgt=$(awk '/^SigCgt/ {print $2}' /proc/$pid/status 2>/dev/null)
    [ -n "$cgt" ] && [ $(( 0x$cgt & 2 )) -ne 0 ] && break
    sleep 0.1
done
if [ "${TS_VALGRIND:-0}" = 1 ]; then sleep 30; else sleep 1; fi
kill -INT "$pid"
wait "$pid"
rc=$?
check "SIGINT stops the sweep with exit 130" test $rc -eq 130
check "SIGINT leaves a marked partial file" grep -q '"trainsim_partial_sweep": 2' big.json
check "SIGINT leaves no temporary file" test -z "$(ls | grep '\.tmp\.')"
TRAINSIM_TEST_STOP_AFTER_BATCHES=1 "$bin" sweep "$big" --exhaustive --no-progress \
    --resume big.json --partial big2.json >/dev/null 2>&1
check "the SIGINT partial file resumes" test $? -eq 130

echo "$(( 18 - fails )) passed, $fails failed"
[ "$fails" -eq 0 ]
