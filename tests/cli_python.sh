#!/usr/bin/env bash
# Tests of the C library through the Python module (sim/python/trainsim.py, stdlib ctypes):
# run, sweep, list and show return exactly the JSON the commands print; --set overrides and a
# job given as a dict work; bad input raises TrainsimError with status 2 and the message
# naming the JSON path; the version is the binary's.
#
# usage: bash tests/cli_python.sh path/to/trainsim   (ctest passes the built binary; the
# library is libtrainsim.so beside it)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_python "$@"

LIB=$(dirname "$BIN")/libtrainsim.so
# Under tests/valgrind.sh BIN is a wrapper in the build directory; the library is in sim/.
[ -e "$LIB" ] || LIB=$(dirname "$BIN")/sim/libtrainsim.so
if [ ! -e "$LIB" ]; then
    echo "cli_python: $LIB not built" >&2
    exit 1
fi
export TRAINSIM_LIB=$LIB
export PYTHONPATH=$ROOT/sim/python
# A sanitizer build: Python itself is not instrumented, so the runtimes load first.
if ldd "$LIB" | grep -q libasan; then
    export LD_PRELOAD="$(cc -print-file-name=libasan.so):$(cc -print-file-name=libubsan.so)"
    export ASAN_OPTIONS=detect_leaks=0
fi

JOB=$ROOT/configs/gpt3-175b-a100.json
"$BIN" run "$JOB" --format json >"$tmp/cli_run.json" || fail "cli run"
"$BIN" run "$JOB" --format json --set parallel.tp=4 --set parallel.pp=16 >"$tmp/cli_set.json" || fail "cli run --set"
"$BIN" list systems --format json >"$tmp/cli_list.json" || fail "cli list"
"$BIN" show h100-sxm --format json >"$tmp/cli_show.json" || fail "cli show"
SWEEP=$DATA/search/small-cost.json
"$BIN" sweep "$SWEEP" --format json --no-progress >"$tmp/cli_sweep.json" 2>/dev/null || fail "cli sweep"
"$BIN" --version >"$tmp/version.txt"

python3 - "$tmp" "$JOB" "$SWEEP" <<'PY' || fail "python checks"
import json, sys
import trainsim
tmp, job, sweep = sys.argv[1:]
load = lambda name: json.load(open(tmp + "/" + name))
failures = []
def check(cond, what):
    if not cond:
        failures.append(what)

check(trainsim.run(job) == load("cli_run.json"), "run equals the command's JSON")
check(trainsim.run(job, set={"parallel.tp": 4, "parallel.pp": 16}) == load("cli_set.json"),
      "run with set equals --set")
as_dict = json.load(open(job))
as_dict["model"] = "gpt3-175b"
r = trainsim.run(as_dict)
check(r["iteration_time_s"] == load("cli_run.json")["iteration_time_s"], "a job as a dict")
check(trainsim.list("systems") == load("cli_list.json"), "list equals the command's JSON")
check(trainsim.show("h100-sxm") == load("cli_show.json"), "show equals the command's JSON")
s = trainsim.sweep(sweep)
c = load("cli_sweep.json")
for d in (s, c):
    d.pop("elapsed_s", None)
check(s == c, "sweep equals the command's JSON (elapsed time aside)")
try:
    trainsim.run(job, set={"parallel.tp": 3})
    failures.append("a bad tp did not raise")
except trainsim.TrainsimError as e:
    check(e.status == 2, "bad input is status 2")
    check("parallel.tp" in e.message, "the message names the JSON path: " + e.message)
try:
    trainsim.list("gpus")
    failures.append("an unknown kind did not raise")
except trainsim.TrainsimError as e:
    check(e.status == 2 and 'unknown kind "gpus"' in e.message, "unknown kind")
check(trainsim.version() in open(tmp + "/version.txt").read(), "version")
# After an error the next call works (standard error restored, no state left).
check(trainsim.run(job) == load("cli_run.json"), "a call after an error")
if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
PY

finish
