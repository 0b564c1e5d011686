#!/usr/bin/env bash
# Output files through the command line (README "Output files, interruptions and resumes"):
# every kind of target: /dev/null and /dev/full (devices: written through, never replaced;
# /dev/full fails with "No space left on device" and exit 1), /dev/stdout (the open
# descriptor: `>>` appends), standard output on a full device, a FIFO with a reader, a
# symbolic link to a file (the link stays, its target gets the data), to a device, and to
# nothing (refused), a directory, a missing directory, a parent that is a file, an unwritable
# directory or file, an output that is an input or another output; a bad output path is
# refused (exit 2) before a minutes-long sweep starts; `trainsim run` ends at once on
# SIGTERM, leaving no file. (Resumes: cli_sweep_resume.sh, cli_sweep_resume_checks.sh and
# cli_sweep_signals.sh.)
# Never touches the real /dev beyond writing to /dev/null and /dev/full; the FIFO and the
# links are made in a scratch directory.
#
# usage: bash tests/cli_outputs.sh path/to/trainsim   (ctest passes the built binary)
# Needs bash, coreutils, grep, sed, cmp, mkfifo and, when run as root, setpriv.
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_outputs "$@"
SMALL=$DATA/search/small-cost.json
BIG=$ROOT/configs/gpt3-175b-layout-sweep.json

# listing DIR: the names in DIR (hidden ones too), sorted, each followed by a space.
listing() {
    find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort | tr '\n' ' '
}

# trace_ok FILE WHAT: FILE holds a whole Chrome trace.
trace_ok() {
    [ -s "$1" ] || { fail "$2: $1 is empty or missing"; return; }
    case $(tr -d ' \t\r\n' <"$1" | tail -c 1) in '}' | ']') ;; *) fail "$2: $1 is cut short" ;; esac
    grep -qE '"traceEvents"|"ph":' "$1" || fail "$2: $1 has no trace events"
}

devices_intact() {
    [ -c /dev/null ] || fail "$1: /dev/null is no longer a character device"
    [ -c /dev/full ] || fail "$1: /dev/full is no longer a character device"
}

# A job without a reliability section (one trace file) and one with it (two).
NOREL=$tmp/norel.json
cat >"$NOREL" <<'EOF'
{"name": "cli-outputs", "model": "llama3-8b", "system": "dgx-h100", "nodes": 2, "global_batch": 64,
 "precision": "bf16", "parallel": {"tp": 4, "pp": 2, "microbatch": 1, "zero": 1},
 "training": {"tokens": "10B"}, "reliability": "none", "cost": {"gpu_hour": {"on_demand": 4.0}}}
EOF
JOB=$tmp/job.json
sed 's/"reliability": "none"/"reliability": {"replications": 20, "seed": 3}/' "$NOREL" >"$JOB"
# ---------------------------------------------------------------- devices

run null run "$NOREL" --format json --trace /dev/null
expect_rc null 0
[ -s "$tmp/null.out" ] || fail "null: no report"
devices_intact "--trace /dev/null"
run null_run run "$JOB" --format json --run-trace /dev/null --trace /dev/null
expect_rc null_run 0
devices_intact "--run-trace /dev/null"
run csv_null sweep "$SMALL" --format json --no-progress --csv /dev/null --partial /dev/null
expect_rc csv_null 0
devices_intact "--csv /dev/null"

# A full device: the write fails with the system's reason, exit 1 (a runtime failure).
run full run "$NOREL" --format json --trace /dev/full
expect_rc full 1
expect_in "$tmp/full.err" "/dev/full: cannot write: No space left on device" full
[ -s "$tmp/full.out" ] && fail "full: printed a report although the trace was not written"
devices_intact "--trace /dev/full"
run csv_full sweep "$SMALL" --format json --no-progress --csv /dev/full
expect_rc csv_full 1
expect_in "$tmp/csv_full.err" "No space left on device" csv_full

# Standard output itself on a full device: the report's write fails with the reason.
"$BIN" run "$NOREL" --format json >/dev/full 2>"$tmp/stdout_full.err"
rc=$?
expect_rc stdout_full 1
expect_in "$tmp/stdout_full.err" "cannot write to standard output: No space left on device" stdout_full

# /dev/stdout is the open standard output: appended to when the shell appends.
echo "first line" >"$tmp/appended.txt"
"$BIN" sweep "$SMALL" --format json --no-progress --csv /dev/stdout >>"$tmp/appended.txt" 2>"$tmp/stdout.err"
rc=$?
expect_rc stdout 0
[ "$(head -n 1 "$tmp/appended.txt")" = "first line" ] ||
    fail "stdout: --csv /dev/stdout with >> did not append: $(head -c 200 "$tmp/appended.txt")"
grep -q '^system,' "$tmp/appended.txt" || fail "stdout: no CSV header in the output"
grep -q '"found"' "$tmp/appended.txt" || fail "stdout: no JSON report after the CSV"
"$BIN" run "$NOREL" --format json --trace /dev/stdout 2>"$tmp/pipe.err" | cat >"$tmp/pipe.out"
grep -q '"traceEvents"\|"ph":' "$tmp/pipe.out" || fail "stdout: --trace /dev/stdout into a pipe wrote no trace"

# ---------------------------------------------------------------- FIFO

mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.got" &
reader=$!
run fifo run "$NOREL" --format json --trace "$tmp/fifo"
expect_rc fifo 0
kill "$reader" 2>/dev/null     # only if trainsim never opened the FIFO
wait "$reader" 2>/dev/null
trace_ok "$tmp/fifo.got" fifo
[ -p "$tmp/fifo" ] || fail "fifo: $tmp/fifo is no longer a FIFO"
[ -z "$(ls "$tmp" | grep '^fifo\.tmp\.')" ] || fail "fifo: a temporary file was made beside the FIFO"

# ---------------------------------------------------------------- symbolic links

# A link to a regular file in another directory: the link stays; the file gets the trace;
# the temporary file was made beside the file and is gone.
mkdir "$tmp/links" "$tmp/real"
echo "old" >"$tmp/real/it.json"
chmod 640 "$tmp/real/it.json"
ln -s ../real/it.json "$tmp/links/it.json"
run link run "$NOREL" --format json --trace "$tmp/links/it.json" --run-trace "$tmp/real/it.run.json"
expect_rc link 0
[ -L "$tmp/links/it.json" ] || fail "link: the symbolic link was replaced"
trace_ok "$tmp/real/it.json" link
[ "$(stat -c %a "$tmp/real/it.json")" = 640 ] || fail "link: the file's permissions changed to $(stat -c %a "$tmp/real/it.json")"
[ "$(listing "$tmp/links")" = "it.json " ] || fail "link: files left beside the link: $(listing "$tmp/links")"
[ "$(listing "$tmp/real")" = "it.json it.run.json " ] || fail "link: files left beside the file: $(listing "$tmp/real")"

# A link to a device: written through.
ln -s /dev/null "$tmp/links/null"
run link_null run "$NOREL" --format json --trace "$tmp/links/null"
expect_rc link_null 0
[ "$(readlink "$tmp/links/null")" = /dev/null ] || fail "link_null: the link was replaced"
devices_intact "a link to /dev/null"

# A link to nothing: refused before the work; nothing created through it.
ln -s "$tmp/real/nowhere.json" "$tmp/links/dangling.json"
run dangling run "$NOREL" --format json --trace "$tmp/links/dangling.json"
expect_rc dangling 2
expect_in "$tmp/dangling.err" "$tmp/links/dangling.json: a symbolic link to a file that does not exist" dangling
[ -e "$tmp/real/nowhere.json" ] && fail "dangling: created the link's target"
[ -L "$tmp/links/dangling.json" ] || fail "dangling: the link was removed"
[ -s "$tmp/dangling.out" ] && fail "dangling: printed a report"

# ---------------------------------------------------------------- bad paths, before the work

# refused NAME TEXT ARGS...: exit 2 with TEXT on stderr, nothing on stdout.
refused() {
    local name=$1 text=$2
    shift 2
    run "$name" "$@"
    expect_rc "$name" 2
    expect_in "$tmp/$name.err" "$text" "$name"
    [ -s "$tmp/$name.out" ] && fail "$name: printed a result although an output was refused"
}
mkdir "$tmp/adir"
echo "a file" >"$tmp/afile"
refused dir_trace "$tmp/adir: is a directory" run "$NOREL" --format json --trace "$tmp/adir"
refused dir_runtrace "--run-trace: $tmp/adir: is a directory" run "$JOB" --format json --run-trace "$tmp/adir"
refused implicit_runtrace "--run-trace: $tmp/adir: is a directory" run "$JOB" --format json --trace "$tmp/adir.json" --run-trace "$tmp/adir"
refused nodir_csv "the directory $tmp/nodir does not exist" sweep "$SMALL" --no-progress --csv "$tmp/nodir/all.csv"
refused notdir_partial "$tmp/afile is not a directory" sweep "$SMALL" --no-progress --partial "$tmp/afile/p.json"
refused dir_partial "--partial: $tmp/adir: is a directory" sweep "$SMALL" --no-progress --partial "$tmp/adir"
# An output that names an input, or another output, as the same file.
cp "$SMALL" "$tmp/sweep-copy.json"
cp "$NOREL" "$tmp/norel.keep"
refused same_job "--trace: $NOREL is the same file as $NOREL" run "$NOREL" --format json --trace "$NOREL"
cmp -s "$NOREL" "$tmp/norel.keep" || fail "same_job: the job file was overwritten"
ln -s norel.json "$tmp/norel-link.json"
refused same_job_link "is the same file as $NOREL" run "$NOREL" --format json --trace "$tmp/norel-link.json"
refused same_traces "--run-trace: $tmp/t.json is the same file as" run "$JOB" --format json --trace "$tmp/t.json" --run-trace "$tmp/t.json"
refused csv_is_sweep "--csv: $tmp/sweep-copy.json is the same file" sweep "$tmp/sweep-copy.json" --no-progress --csv "$tmp/sweep-copy.json"
refused csv_is_partial "--csv: $tmp/p.json is the same file" sweep "$tmp/sweep-copy.json" --no-progress --csv "$tmp/p.json" --partial "$tmp/p.json"
cmp -s "$SMALL" "$tmp/sweep-copy.json" || fail "csv_is_sweep: the sweep file was overwritten"
[ "$(listing "$tmp/adir")" = "" ] || fail "bad paths: files left in $tmp/adir: $(listing "$tmp/adir")"
[ -e "$tmp/nodir" ] && fail "bad paths: created $tmp/nodir"

# A minutes-long sweep with a bad --csv or --partial never starts: it ends at once with exit
# 2 (a generous limit: the sweep itself takes minutes), no answer and no partial file.
for opt in --csv --partial; do
    (cd "$tmp" && timeout 120 "$BIN" sweep "$BIG" --exhaustive --no-progress "$opt" "$tmp/nodir/x" \
        >"$tmp/big_bad.out" 2>"$tmp/big_bad.err")
    rc=$?
    expect_rc big_bad 2
    expect_in "$tmp/big_bad.err" "$opt: $tmp/nodir/x: the directory $tmp/nodir does not exist" "big sweep $opt"
    [ -s "$tmp/big_bad.out" ] && fail "big sweep $opt: printed an answer"
    ls "$tmp"/*.partial.json >/dev/null 2>&1 && fail "big sweep $opt: wrote a partial file"
done

# An unwritable directory, checked as an unprivileged user (root may write anywhere).
mkdir "$tmp/ro"
chmod 555 "$tmp/ro"
chmod 755 "$tmp"
if [ "$(id -u)" -eq 0 ]; then
    as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
    as_user() { "$@"; }
fi
as_user "$BIN" run "$NOREL" --format json --trace "$tmp/ro/it.json" >"$tmp/ro.out" 2>"$tmp/ro.err"
rc=$?
expect_rc ro 2
expect_in "$tmp/ro.err" "cannot create files in the directory $tmp/ro: Permission denied" ro
[ -s "$tmp/ro.out" ] && fail "ro: printed a report"
touch "$tmp/readonly.json"
chmod 444 "$tmp/readonly.json"
as_user "$BIN" run "$NOREL" --format json --trace "$tmp/readonly.json" >"$tmp/rofile.out" 2>"$tmp/rofile.err"
rc=$?
expect_rc rofile 2
expect_in "$tmp/rofile.err" "$tmp/readonly.json: not writable: Permission denied" rofile
# The default partial file only matters on an interruption: a read-only working directory
# gets a warning, and the sweep runs.
(cd "$tmp/ro" && as_user "$BIN" sweep "$SMALL" --format json --no-progress >"$tmp/rocwd.out" 2>"$tmp/rocwd.err")
rc=$?
expect_rc rocwd 0
expect_in "$tmp/rocwd.err" "warning: an interrupted sweep could not save its work: small-cost.partial.json" rocwd
grep -q '"found"' "$tmp/rocwd.out" || fail "rocwd: no answer"
chmod 755 "$tmp/ro"
# `trainsim run` on SIGTERM ends at once (killed by the signal: the shell says 143) and
# leaves neither trace nor temporary file (a million replications take minutes). Not under
# valgrind (tests/valgrind.sh): a process killed mid-computation has its in-flight buffers
# reported as leaks there; the sanitizer run checks this case.
if [ "${TS_VALGRIND:-}" != 1 ]; then
    mkdir "$tmp/run_sig"
    "$BIN" run "$JOB" --format json --threads 1 --replications 1000000 --trace "$tmp/run_sig/it.json" \
        >"$tmp/run_sig.out" 2>"$tmp/run_sig.err" &
    pid=$!
    sleep 1
    kill -TERM "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" -eq 143 ] || fail "run SIGTERM: exit status $rc, expected 143"
    [ "$(listing "$tmp/run_sig")" = "" ] || fail "run SIGTERM: files left: $(listing "$tmp/run_sig")"
fi

finish
