#!/usr/bin/env bash
# SIGTERM and SIGHUP (what timeout, Slurm and Kubernetes send, or a closed session) stop a
# sweep as Ctrl-C does: exit 143 and 129, the partial file and how to resume named on
# stderr, no temporary file left, and the partial file resumes. (SIGINT and the resumed
# answer: cli_sweep_resume.sh.)
#
# usage: bash tests/cli_sweep_signals.sh path/to/trainsim   (ctest passes the built binary)
# Needs bash, coreutils, grep and awk.
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_sweep_signals "$@"
BIG=$ROOT/configs/gpt3-175b-layout-sweep.json

# listing DIR: the names in DIR (hidden ones too), sorted, each followed by a space.
listing() {
    find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort | tr '\n' ' '
}

# ---------------------------------------------------------------- signals

# Both signals are tried at once (under valgrind each leg takes about a minute).
# start SIG BIT: a minutes-long sweep in $tmp/sig_SIG, sent SIG once it handles it (bit BIT
# of SigCgt; under valgrind, which handles every signal itself, after 30 s).
start() {
    local sig=$1 bit=$2 dir=$tmp/sig_$1 pid cgt
    mkdir "$dir"
    (cd "$dir" && exec "$BIN" sweep "$BIG" --exhaustive --threads 1 --no-progress --partial p.json \
        >out.txt 2>err.txt) &
    pid=$!
    echo "$pid" >"$dir.pid"
    for _ in $(seq 100); do
        cgt=$(awk '/^SigCgt/ {print $2}' /proc/$pid/status 2>/dev/null)
        [ -n "$cgt" ] && [ $((0x$cgt >> (bit - 1) & 1)) -ne 0 ] && break
        sleep 0.1
    done
}
start TERM 15
start HUP 1
if [ "${TS_VALGRIND:-0}" = 1 ]; then sleep 30; else sleep 1; fi
kill -TERM "$(cat "$tmp/sig_TERM.pid")"
kill -HUP "$(cat "$tmp/sig_HUP.pid")"

# stopped SIG CODE: the sweep exited CODE, named the signal, the partial file and how to
# resume, printed no answer and left no temporary file; the partial file resumes (in the
# background: resumed SIG checks it).
stopped() {
    local sig=$1 want=$2 dir=$tmp/sig_$1
    wait "$(cat "$dir.pid")"
    rc=$?
    [ "$rc" -eq "$want" ] || fail "SIG$sig: exit status $rc, expected $want; $(head -c 300 "$dir/err.txt")"
    grep -q "interrupted by SIG$sig" "$dir/err.txt" || fail "SIG$sig: stderr does not name the signal"
    grep -q -- "the finished work is in p.json" "$dir/err.txt" || fail "SIG$sig: stderr does not name the partial"
    grep -q -- "--resume p.json" "$dir/err.txt" || fail "SIG$sig: stderr does not say how to resume"
    [ -s "$dir/out.txt" ] && fail "SIG$sig: printed an answer"
    grep -q '"checksum": "fnv1a64:' "$dir/p.json" || fail "SIG$sig: the partial file has no checksum"
    [ "$(listing "$dir")" = "err.txt out.txt p.json " ] || fail "SIG$sig: files left: $(listing "$dir")"
    (cd "$dir" && TRAINSIM_TEST_STOP_AFTER_BATCHES=1 exec "$BIN" sweep "$BIG" --exhaustive --threads 1 \
        --no-progress --resume p.json --partial p2.json >/dev/null 2>resume.err) &
    echo "$!" >"$dir.pid"
}
resumed() {
    local sig=$1 dir=$tmp/sig_$1
    wait "$(cat "$dir.pid")"
    rc=$?
    [ "$rc" -eq 130 ] || fail "SIG$sig: the partial file does not resume: $(head -c 300 "$dir/resume.err")"
}
stopped TERM 143
stopped HUP 129
resumed TERM
resumed HUP

finish
