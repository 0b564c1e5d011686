# Shared by the command-line test scripts tests/cli_*.sh (source it with the script's name
# and its arguments: `. "$(dirname "$0")/cli.bash" cli_run "$@"`). Sets:
#   BIN    the trainsim binary (the script's first argument; ctest passes the built one)
#   ROOT   the repository (TRAINSIM_HOME, exported), DATA  the test data (TS_TEST_DATA)
#   tmp    a scratch directory removed on exit
# and defines fail, run, expect_rc, expect_in and expect_made_jobs; the script ends with
# `finish`.
cli_name=$1
BIN=${2:?usage: $cli_name.sh TRAINSIM_BINARY}
ROOT=${TRAINSIM_HOME:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
export TRAINSIM_HOME=$ROOT
DATA=${TS_TEST_DATA:-$ROOT/tests/data}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ts_$cli_name.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# run NAME ARGS...: run the binary; stdout in $tmp/NAME.out, stderr in $tmp/NAME.err,
# exit status in $rc.
run() {
    local name=$1
    shift
    "$BIN" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
}

# expect_rc NAME WANT: the last run exited WANT.
expect_rc() {
    if [ "$rc" -ne "$2" ]; then
        fail "$1: exit status $rc, expected $2; stderr: $(head -c 400 "$tmp/$1.err")"
    fi
}

# expect_in FILE TEXT WHAT: FILE contains the fixed string TEXT.
expect_in() {
    if ! grep -qF -- "$2" "$1"; then
        fail "$3: \"$2\" not in $(basename "$1"): $(head -c 400 "$1")"
    fi
}

# expect_made_jobs EXPERIMENT JOBS: experiments/EXPERIMENT/make_jobs.py writes exactly the
# jobs shipped in JOBS (a folder of the repository) and the shipped published.json, byte for
# byte. It runs on a copy of the experiment (it rewrites published.json beside itself) with
# models/ beside it. Sets shipped and made, the two lists of job files.
expect_made_jobs() {
    local exp=$1 dir=$2 copy=$tmp/exp/experiments/$1 f
    mkdir -p "$tmp/exp/experiments" "$tmp/exp/models"
    cp -r "$ROOT/experiments/$exp" "$copy"
    rm -rf "$copy/out"
    cp "$ROOT"/models/*.json "$tmp/exp/models/"
    python3 "$copy/make_jobs.py" --out "$tmp/jobs" >"$tmp/make.out" 2>&1 ||
        fail "make_jobs.py failed: $(cat "$tmp/make.out")"
    shipped=("$ROOT/$dir"/*.json)
    made=("$tmp"/jobs/*.json)
    [ "${#shipped[@]}" -eq "${#made[@]}" ] ||
        fail "${#shipped[@]} shipped jobs, make_jobs.py writes ${#made[@]}"
    for f in "${made[@]}"; do
        cmp -s "$f" "$ROOT/$dir/$(basename "$f")" ||
            fail "$dir/$(basename "$f") differs from what make_jobs.py writes"
    done
    cmp -s "$copy/published.json" "$ROOT/experiments/$exp/published.json" ||
        fail "experiments/$exp/published.json differs from what make_jobs.py writes"
}

# finish: the verdict line and exit status.
finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$cli_name: $failures failure(s)" >&2
        exit 1
    fi
    echo "$cli_name: all checks passed"
}
