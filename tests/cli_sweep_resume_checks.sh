#!/usr/bin/env bash
# A resumed sweep refuses a partial file that does not apply, through the command line
# (README "Output files, interruptions and resumes"): a price, system or model file changed
# between the interruption and the resume is named in the refusal (exit 2); whitespace is no
# change, and with every file restored the partial resumes to the uninterrupted answer; a
# partial file edited (an outcome divided by 1000, -1e308, "nan", a counter, a layout, the
# format) or cut short is refused with the check that failed. A refused partial file is left
# as it was.
#
# usage: bash tests/cli_sweep_resume_checks.sh path/to/trainsim   (ctest passes the binary)
# Needs bash, coreutils, grep, sed, perl and cmp.
set -u

# shellcheck source=cli.bash
. "$(dirname "$0")/cli.bash" cli_sweep_resume_checks "$@"
RESUME=$DATA/sweep_resume/p90-sweep.json

# ---------------------------------------------------------------- resume: inputs changed

# A catalogue of our own, and a sweep that prices both systems from one price file.
home=$tmp/home
mkdir -p "$home/configs"
cp -r "$ROOT/models" "$ROOT/hardware" "$home/"
cp -r "$ROOT/configs/prices" "$home/configs/"
sed 's/"cost": {[^}]*}}/"cost": {"prices": "lambda-a100"}/; s/"pricing": \[[^]]*\]/"pricing": ["on_demand"]/' \
    "$RESUME" >"$tmp/priced.json"
grep -q '"prices": "lambda-a100"' "$tmp/priced.json" || fail "priced: the sweep was not rewritten"
price=$home/configs/prices/lambda-a100.json
cp "$price" "$tmp/price.orig"
cd "$tmp" || exit 1
TRAINSIM_HOME=$home "$BIN" sweep priced.json --exhaustive --format json --no-progress >priced_full.json 2>/dev/null
rc=$?
expect_rc priced_full 0
# resume_refused NAME TEXT: resuming priced.partial.json fails with TEXT; the partial stays.
resume_refused() {
    cp priced.partial.json kept.json
    TRAINSIM_HOME=$home "$BIN" sweep priced.json --exhaustive --no-progress --resume priced.partial.json \
        >"$1.out" 2>"$1.err"
    rc=$?
    expect_rc "$1" 2
    expect_in "$1.err" "$2" "$1"
    [ -s "$1.out" ] && fail "$1: printed an answer"
    cmp -s kept.json priced.partial.json || fail "$1: the partial file was changed"
}
TRAINSIM_TEST_STOP_AFTER_BATCHES=2 TRAINSIM_HOME=$home "$BIN" sweep priced.json --exhaustive \
    --no-progress >/dev/null 2>stop.err
rc=$?
expect_rc stop 130
# The price tripled between the interruption and the resume.
sed 's/"on_demand": 2.79/"on_demand": 8.37/' "$tmp/price.orig" >"$price"
cmp -s "$price" "$tmp/price.orig" && fail "price: the price file did not change"
resume_refused price_tripled "the inputs changed since the partial was written ($price changed)"
# A system file and a model file changed.
cp "$tmp/price.orig" "$price"
sys=$home/hardware/systems/dgx-h100.json
cp "$sys" sys.orig
sed -i 's/"gpus_per_node": 8/"gpus_per_node":  8/; s/"latency": "[^"]*"/"latency": "9 us"/' "$sys"
resume_refused system_changed "($sys changed)"
cp sys.orig "$sys"
model=$home/models/gpt2-124m.json
cp "$model" model.orig
sed -i 's/"layers": 12/"layers": 24/' "$model"
cmp -s "$model" model.orig && fail "model: the model file did not change"
resume_refused model_changed "($model changed)"
cp model.orig "$model"
# Whitespace alone is no change; with every file restored the partial resumes to the
# uninterrupted answer.
sed -i 's/"name"/  "name"/' "$sys"
TRAINSIM_HOME=$home "$BIN" sweep priced.json --exhaustive --format json --no-progress \
    --resume priced.partial.json >priced_resumed.json 2>resume.err
rc=$?
expect_rc resume_restored 0
cmp -s <(grep -v '"elapsed_s"' priced_full.json) <(grep -v '"elapsed_s"' priced_resumed.json) ||
    fail "resume_restored: the resumed answer differs from the uninterrupted one"

# ---------------------------------------------------------------- resume: partial edited

cp priced.partial.json good.json
# corrupt NAME PERL_EXPRESSION TEXT: the partial edited by perl is refused with TEXT.
corrupt() {
    perl -0pe "$2" good.json >priced.partial.json
    cmp -s good.json priced.partial.json && { fail "$1: the edit changed nothing"; return; }
    resume_refused "$1" "$3"
}
row='("outcomes": \[\["\w+", \w+, \w+, \w+, )'
corrupt divided "s/$row([0-9.e+-]+)/\$1.(\$2\/1000)/e" "checksum mismatch"
corrupt negative "s/$row([0-9.e+-]+)/\$1-1e308/" "checksum mismatch"
corrupt nan "s/$row([0-9.e+-]+), ([0-9.e+-]+)/\$1\"nan\", \"nan\"/" "checksum mismatch"
corrupt counter 's/"simulated": (\d+)/"\"simulated\": " . ($1 + 1)/e' "checksum mismatch"
corrupt layout 's/"layout": (\d+)/"\"layout\": " . ($1 + 1)/e' "checksum mismatch"
corrupt truncated 's/^(.{2000}).*/$1/s' "a truncated or damaged partial file cannot be resumed"
corrupt old_format 's/"trainsim_partial_sweep": 2/"trainsim_partial_sweep": 1/' "partial file format 1"
cp good.json priced.partial.json
cd - >/dev/null || exit 1

finish
