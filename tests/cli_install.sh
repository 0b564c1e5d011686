#!/usr/bin/env bash
# Command-line tests of `cmake --install`: the installed binary finds the installed catalogue
# (PREFIX/share/trainsim) without TRAINSIM_HOME and from any directory, and runs a shipped job;
# TRAINSIM_HOME still overrides it; the man page generated from the help texts has a section
# for every subcommand `trainsim --help` lists; bash completion completes subcommands, options
# (from each subcommand's help) and list kinds.
#
# usage: bash tests/cli_install.sh path/to/build/sim/trainsim   (ctest passes the built binary)
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_install "$@"

build=$(cd "$(dirname "$BIN")/.." && pwd)
# Under tests/valgrind.sh BIN is a wrapper in the build directory itself.
[ -f "$(dirname "$BIN")/CMakeCache.txt" ] && build=$(cd "$(dirname "$BIN")" && pwd)
if [ ! -f "$build/CMakeCache.txt" ]; then
    echo "cli_install: $build is not a CMake build directory" >&2
    exit 1
fi
prefix=$tmp/prefix
if ! cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
    fail "cmake --install failed: $(tail -5 "$tmp/install.log")"
    finish
fi
IBIN=$prefix/bin/trainsim
share=$prefix/share/trainsim
for f in "$IBIN" "$share/models/llama3-70b.json" "$share/hardware/systems/dgx-h100.json" \
    "$share/configs/gpt3-175b-a100.json" "$share/configs/software/megatron-core.json" \
    "$prefix/share/man/man1/trainsim.1" "$prefix/share/bash-completion/completions/trainsim" \
    "$prefix/share/zsh/vendor-completions/_trainsim"; do
    if [ ! -e "$f" ]; then fail "not installed: ${f#"$prefix"/}"; fi
done

# The C library: header, pkg-config file, a program built against them, the Python module.
for f in "$prefix/include/trainsim.h" "$prefix/lib/pkgconfig/trainsim.pc" "$share/python/trainsim.py"; do
    if [ ! -e "$f" ]; then fail "not installed: ${f#"$prefix"/}"; fi
done
libdir=$(dirname "$(find "$prefix" -name 'libtrainsim.so' | head -1)")
if command -v pkg-config >/dev/null 2>&1 && [ -d "$libdir" ]; then
    cat >"$tmp/use.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <trainsim.h>
int main(void)
{
    struct trainsim_result r;
    int rc = trainsim_show("llama3-70b", &r);
    int ok = rc == TRAINSIM_OK && r.json && strstr(r.json, "\"ffn_hidden\":  28672");
    trainsim_result_free(&r);
    rc = trainsim_show("no-such-model", &r);
    ok = ok && rc == TRAINSIM_ERR_INPUT && strstr(r.messages, "no catalogue entry");
    trainsim_result_free(&r);
    printf("%s %s\n", trainsim_version(), ok ? "ok" : "FAILED");
    return !ok;
}
C
    san=""
    if ldd "$libdir/libtrainsim.so" | grep -q libasan; then san="-fsanitize=address,undefined"; fi
    # shellcheck disable=SC2046
    if ! cc $san "$tmp/use.c" -o "$tmp/use" $(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs trainsim) 2>"$tmp/cc.err"; then
        fail "a program does not build with pkg-config trainsim: $(head -3 "$tmp/cc.err")"
    elif ! (cd / && env -u TRAINSIM_HOME LD_LIBRARY_PATH="$libdir" ASAN_OPTIONS=detect_leaks=0 "$tmp/use") >"$tmp/use.out" 2>&1; then
        fail "the program linked against the installed library fails: $(head -3 "$tmp/use.out")"
    fi
fi

# The installed binary, without TRAINSIM_HOME, from another directory.
(cd / && env -u TRAINSIM_HOME "$IBIN" list models --format json) >"$tmp/il.out" 2>"$tmp/il.err"
rc=$?
expect_rc il 0
expect_in "$tmp/il.out" "\"directory\":  \"$share/models\"" "installed catalogue"
(cd / && env -u TRAINSIM_HOME "$IBIN" run "$share/configs/gpt3-175b-a100.json" --format json) \
    >"$tmp/ir.out" 2>"$tmp/ir.err"
rc=$?
expect_rc ir 0
expect_in "$tmp/ir.out" '"feasible":  true' "installed run"
# A name resolves in the installed catalogue.
printf '{"model": "llama3-8b", "system": "dgx-h100", "gpus": 8, "global_batch": 8, "precision": "bf16"}\n' >"$tmp/j.json"
(cd / && env -u TRAINSIM_HOME "$IBIN" run "$tmp/j.json" --format json) >"$tmp/in.out" 2>"$tmp/in.err"
rc=$?
expect_rc in 0
# TRAINSIM_HOME overrides it.
mkdir -p "$tmp/home/models"
TRAINSIM_HOME=$tmp/home "$IBIN" list models --format json >"$tmp/ih.out" 2>"$tmp/ih.err"
rc=$?
expect_rc ih 0
expect_in "$tmp/ih.out" "\"directory\":  \"$tmp/home/models\"" "TRAINSIM_HOME first"

# The man page: one section per subcommand of the help.
man=$prefix/share/man/man1/trainsim.1
if ! head -1 "$man" | grep -q '^\.TH TRAINSIM 1'; then fail "man page has no .TH header"; fi
for sub in $("$IBIN" --help | awk '/^subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'); do
    up=$(echo "$sub" | tr a-z A-Z)
    if ! grep -q "^\.SH \"TRAINSIM $up\"" "$man"; then fail "man page lacks a section for $sub"; fi
done
if command -v groff >/dev/null 2>&1; then
    if ! groff -man -Tutf8 -ww "$man" >"$tmp/man.txt" 2>"$tmp/man.err" || [ -s "$tmp/man.err" ]; then
        fail "groff warns on the man page: $(head -3 "$tmp/man.err")"
    fi
fi

# bash completion.
complete_words() {   # WORDS...: the completions of the last word
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _trainsim; printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$prefix/share/bash-completion/completions/trainsim" "$@"
}
if ! complete_words "$IBIN" sw | grep -qx sweep; then fail "bash completion: sw -> sweep"; fi
if ! complete_words "$IBIN" run --for | grep -qx -- --format; then fail "bash completion: run --for -> --format"; fi
if ! complete_words "$IBIN" list sys | grep -qx systems; then fail "bash completion: list sys -> systems"; fi
if command -v zsh >/dev/null 2>&1; then
    if ! zsh -n "$prefix/share/zsh/vendor-completions/_trainsim"; then fail "zsh completion: syntax"; fi
fi

finish
