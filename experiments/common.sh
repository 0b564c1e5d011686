# Shared by the experiments' run.sh scripts (source it after setting HERE):
#   ROOT       the repository
#   TRAINSIM   the binary (default build/sim/trainsim; built there if missing)
#   OUT        the experiment's scratch folder out/ (ignored by git), emptied
#   ensure CMD PACKAGE   install a Debian package when CMD is missing (as root with apt-get)
#   have_gnuplot         1 when gnuplot is there (installed if possible), else 0
#   plot WHAT ARGS...    gnuplot ARGS and "plots: WHAT" when have_gnuplot is 1, else a note
ROOT=$(cd "$HERE/../.." && pwd)
TRAINSIM=${TRAINSIM:-$ROOT/build/sim/trainsim}
OUT=$HERE/out

ensure() {
    local cmd=$1 pkg=$2
    command -v "$cmd" >/dev/null && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get install -y -qq "$pkg" >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "$pkg" >/dev/null 2>&1; } || true
    fi
    command -v "$cmd" >/dev/null || { echo "$cmd not found: install it with: sudo apt-get install $pkg" >&2; return 1; }
}

plot() {
    local what=$1
    shift
    if [ "$have_gnuplot" = 1 ]; then
        gnuplot "$@"
        echo "plots: $what"
    else
        echo "no gnuplot: tables written, plots skipped" >&2
    fi
}

if [ ! -x "$TRAINSIM" ]; then
    echo "building trainsim in $ROOT/build" >&2
    cmake -S "$ROOT" -B "$ROOT/build" >/dev/null
    cmake --build "$ROOT/build" -j"$(nproc)" >/dev/null
    TRAINSIM=$ROOT/build/sim/trainsim
fi
ensure python3 python3
have_gnuplot=1
ensure gnuplot gnuplot-nox || have_gnuplot=0

rm -rf "$OUT"
mkdir -p "$OUT"
