#!/usr/bin/env bash
# `--report FILE.html` on run, sweep and sensitivity, and `trainsim sensitivity`: the page is
# written (after its path was checked, before the work), self-contained (no http(s)
# reference, no external src, stylesheet or import), has every section and chart (the cost
# distribution's p90 being the run's cost_p90), escapes
# what it prints, says so per chart when gnuplot is absent (and the command still succeeds),
# and renders in headless Chromium with no console message and every chart drawn.
# Without chromium the browser part cannot run: the script then exits 77, which ctest
# reports as skipped (SKIP_RETURN_CODE), after every other check.
. "$(dirname "$0")/cli.bash" cli_report "$@"

JOB=$DATA/report/tiny-job.json
SWEEP=$DATA/report/tiny-sweep.json
slow=1
[ "${TS_VALGRIND:-0}" = 1 ] && slow=0   # a sensitivity of a sweep is ~40 sweeps

# self_contained NAME PAGE: nothing the page would fetch.
self_contained() {
    if grep -qiE 'https?:' "$2"; then fail "$1: the page names a URL: $(grep -oiE '.{30}https?:.{30}' "$2" | head -2)"; fi
    if grep -qiE '<(script|img|iframe|audio|video|embed|source)[^>]* src=' "$2"; then fail "$1: an external src"; fi
    if grep -qiE '<link|@import|url\(' "$2"; then fail "$1: a stylesheet, import or url()"; fi
}

# has_charts NAME PAGE CHART...: each chart is present and drawn by gnuplot (an <svg> in it).
has_charts() {
    local name=$1 page=$2 c
    shift 2
    for c in "$@"; do
        if ! grep -q "<figure class=\"chart\" data-chart=\"$c\"><svg" "$page"; then
            fail "$name: chart $c missing or not drawn"
        fi
    done
    local n
    n=$(grep -o '<figure class="chart[^"]*" data-chart=' "$page" | wc -l)
    [ "$n" -eq "$#" ] || fail "$name: $n charts, expected $# ($*)"
}

sections="question answer assumptions bill pareto cdf tornado best-per-system timeline"
has_sections() {
    for s in $sections; do
        grep -q "<section id=\"$s\">" "$2" || fail "$1: no section $s"
    done
}

# ---------------------------------------------------------------- output path checks
run bad_dir run "$JOB" --report "$tmp/nowhere/r.html"
expect_rc bad_dir 2
expect_in "$tmp/bad_dir.err" "--report" "a report in a missing directory is refused"
[ -s "$tmp/bad_dir.out" ] && fail "bad_dir: the work ran before the path was refused"
run same_as_input sensitivity "$JOB" --report "$JOB"
expect_rc same_as_input 2
expect_in "$tmp/same_as_input.err" "same file" "a report over the input is refused"
run sweep_bad sweep "$SWEEP" --report "$tmp" --no-progress
expect_rc sweep_bad 2

# ---------------------------------------------------------------- bad input to sensitivity
run sens_missing sensitivity "$tmp/absent.json"
expect_rc sens_missing 2
expect_in "$tmp/sens_missing.err" "absent.json" "a missing file is named"
printf '{"model": "megatron-1.7b", "system": "dgx-h100", "nodes": 1, "global_batch": 8, "parallel": {"tp": 3}}\n' >"$tmp/badtp.json"
run sens_bad sensitivity "$tmp/badtp.json"
expect_rc sens_bad 2
expect_in "$tmp/sens_bad.err" "badtp.json: parallel" "a bad job names the file and the JSON path"
run sens_usage sensitivity "$JOB" --threads 0
expect_rc sens_usage 2
run sens_inputs sensitivity "$JOB" --inputs tokens,nope
expect_rc sens_inputs 2
expect_in "$tmp/sens_inputs.err" '"nope" is not an input' "an unknown input is named"
run sens_only sensitivity "$JOB" --inputs prices --format json --no-progress
expect_rc sens_only 0
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert [r['input'] for r in d['sensitivity']] == ['prices'], d['sensitivity']" \
    "$tmp/sens_only.out" || fail "sens_only: --inputs prices varies only the prices"

# ---------------------------------------------------------------- run --report
run run_report run "$JOB" --report "$tmp/run.html" --format json
expect_rc run_report 0
[ -s "$tmp/run.html" ] || fail "run_report: no page written"
self_contained run_report "$tmp/run.html"
has_sections run_report "$tmp/run.html"
has_charts run_report "$tmp/run.html" attribution cdf cost timeline
expect_in "$tmp/run.html" "A single job has no Pareto front" "a run says why it has no front"
ls "$tmp"/.run.html* >/dev/null 2>&1 && fail "run_report: a temporary file was left beside the page"
# The same inputs write the same bytes: no chart names the temporary data files it was drawn
# from (gnuplot titles an untitled plot with its file and columns).
grep -q "trainsim-plot" "$tmp/run.html" && fail "run_report: the page names a temporary plot file"
run run_report2 run "$JOB" --report "$tmp/run2.html" --format json
expect_rc run_report2 0
cmp -s "$tmp/run.html" "$tmp/run2.html" || fail "run_report: two runs of the same job wrote different pages"
# the page's answer is the JSON's
cost=$(python3 -c "import json,sys; print('\${:,.0f}'.format(json.load(open(sys.argv[1]))['cost_total']))" "$tmp/run_report.out" 2>/dev/null)
[ -n "$cost" ] && expect_in "$tmp/run.html" "expected cost $cost" "the page states the run's cost"
# The cost distribution is of the bills whose 90th percentile the run reports as cost_p90;
# its bars hold every replication (shares summing to 1).
p90=$(python3 -c "import json,sys; print('\${:,.0f}'.format(json.load(open(sys.argv[1]))['cost_p90']))" "$tmp/run_report.out" 2>/dev/null)
[ -n "$p90" ] && expect_in "$tmp/run.html" ", p90 $p90.</figcaption>" "the cost chart's p90 is the run's cost_p90"
# (a job whose replications spread: its p50 differs from the p90, which is the run's)
run spread run "$ROOT/configs/gpt3-175b-a100.json" --report "$tmp/spread.html" --format json
expect_rc spread 0
s90=$(python3 -c "import json,sys; print('\${:,.0f}'.format(json.load(open(sys.argv[1]))['cost_p90']))" "$tmp/spread.out" 2>/dev/null)
s50=$(grep -o 'wall time: p50 [^,]*,[^,]*,[^,]*, p90' "$tmp/spread.html" | sed 's/wall time: p50 //; s/, p90$//')
[ -n "$s90" ] && [ -n "$s50" ] && [ "$s50" != "$s90" ] || fail "spread: no spread of bills ($s50 .. $s90)"
expect_in "$tmp/spread.html" "p90 $s90.</figcaption>" "the cost chart's p90 is the run's cost_p90 (spread)"
has_charts spread "$tmp/spread.html" attribution cdf cost timeline
reps=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['model_uncertainty']['replications'])" "$tmp/run_report.out" 2>/dev/null)
expect_in "$tmp/run.html" "Cost distribution of the answer: the bill of each of the $reps replications" "the cost chart counts the run's replications"

# ---------------------------------------------------------------- escaping
esc="$tmp/a<b>&'q.json"
cp "$JOB" "$esc"
run escaped run "$esc" --report "$tmp/esc.html" --format json
expect_rc escaped 0
grep -qF "a<b>" "$tmp/esc.html" && fail "escaped: a file name was put into the page unescaped"
expect_in "$tmp/esc.html" "a&lt;b&gt;&amp;&#39;q.json" "the file name is escaped"

# ---------------------------------------------------------------- sensitivity of a job
run job_sens sensitivity "$JOB" --format csv --report "$tmp/sens.html" --no-progress
expect_rc job_sens 0
expect_in "$tmp/job_sens.out" "input,low,high,cost_low,cost_high,time_low,time_high,answer_low,answer_high,answer_changes" "the CSV header"
expect_in "$tmp/job_sens.out" "prices,0.8,1.2," "the prices row"
self_contained job_sens "$tmp/sens.html"
has_charts job_sens "$tmp/sens.html" attribution cdf cost tornado timeline
run job_sens_json sensitivity "$JOB" --format json --no-progress
expect_rc job_sens_json 0
python3 - "$tmp/job_sens_json.out" <<'EOF' || fail "job_sens_json: the JSON rows"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["sensitivity"]
keys = {"input", "low", "high", "cost_low", "cost_high", "time_low", "time_high", "answer_changes"}
assert all(keys <= set(r) for r in rows), rows[0].keys()
base = d["base"]["cost"]
p = [r for r in rows if r["input"] == "prices"][0]
assert abs(p["cost_low"] / base - 0.8) < 1e-12 and abs(p["cost_high"] / base - 1.2) < 1e-12, p
swing = [abs(r["cost_high"] - r["cost_low"]) for r in rows]
assert swing == sorted(swing, reverse=True), swing     # tornado order
EOF

# ---------------------------------------------------------------- sweep --sensitivity --report
if [ "$slow" = 1 ]; then
    run sweep_report sweep "$SWEEP" --sensitivity --report "$tmp/sweep.html" --format json --no-progress --threads 1
    expect_rc sweep_report 0
    self_contained sweep_report "$tmp/sweep.html"
    has_sections sweep_report "$tmp/sweep.html"
    has_charts sweep_report "$tmp/sweep.html" attribution pareto cdf cost tornado timeline
    expect_in "$tmp/sweep.html" "stays the answer" "the page states the break-evens"
    python3 - "$tmp/sweep_report.out" <<'EOF' || fail "sweep_report: sensitivity keys in the sweep JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["best"] is not None and len(d["sensitivity"]) >= 6, d.keys()
assert any(b["input"] == "spot_price" and b["found"] for b in d["break_even"]), d["break_even"]
EOF
    # the same bytes for another thread count
    run sens_t1 sensitivity "$SWEEP" --format json --threads 1 --no-progress
    run sens_t2 sensitivity "$SWEEP" --format json --threads 2 --no-progress
    cmp -s "$tmp/sens_t1.out" "$tmp/sens_t2.out" || fail "sensitivity: output differs between 1 and 2 threads"
fi

# ---------------------------------------------------------------- without gnuplot
mkdir -p "$tmp/path"
# what the binary (or tests/valgrind.sh's wrapper around it) needs, and no gnuplot; scripts,
# not links: Debian's valgrind is a script that runs $0.bin
for p in bash env valgrind; do
    q=$(command -v "$p") && printf '#!/bin/sh\nexec %s "$@"\n' "$q" >"$tmp/path/$p" && chmod +x "$tmp/path/$p"
done
PATH="$tmp/path" "$BIN" run "$JOB" --report "$tmp/nognuplot.html" --format json >"$tmp/nog.out" 2>"$tmp/nog.err"
rc=$?
[ "$rc" -eq 0 ] || fail "no gnuplot: exit $rc (the report must still be written): $(head -c 300 "$tmp/nog.err")"
expect_in "$tmp/nog.err" "warning: --report: 4 charts not drawn (gnuplot is not installed" "the warning"
expect_in "$tmp/nognuplot.html" "Chart not drawn: gnuplot is not installed" "the page says so per chart"
n=$(grep -c 'class="chart missing"' "$tmp/nognuplot.html")
[ "$n" -eq 4 ] || fail "no gnuplot: $n charts marked missing, expected 4"
grep -q "<svg" "$tmp/nognuplot.html" && fail "no gnuplot: an SVG appeared anyway"
self_contained nognuplot "$tmp/nognuplot.html"

# ---------------------------------------------------------------- in a browser
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    echo "SKIP: chromium is not installed (apt-get install chromium): the browser check of the" \
         "report did not run; every other check ran" >&2
    [ "$failures" -ne 0 ] && finish
    exit 77
fi
# browse NAME PAGE: the DOM after scripts ran in $tmp/NAME.dom, console messages in .console.
browse() {
    timeout 120 "$chromium" --headless=new --disable-gpu --no-sandbox --no-first-run \
        --user-data-dir="$tmp/chrome-$1" --enable-logging=stderr --v=0 --dump-dom \
        "file://$2" >"$tmp/$1.dom" 2>"$tmp/$1.log"
    grep -F ':CONSOLE' "$tmp/$1.log" >"$tmp/$1.console"
}
# drawn NAME PAGE N: N charts, all drawn, no console message.
drawn() {
    browse "$1" "$2"
    [ -s "$tmp/$1.console" ] && fail "$1: console messages: $(head -c 300 "$tmp/$1.console")"
    grep -q "data-charts=\"$3\" data-drawn=\"$3\"" "$tmp/$1.dom" ||
        fail "$1: not all $3 charts drawn: $(grep -o '<p id="render-check"[^<]*' "$tmp/$1.dom")"
}
# The checks can fail: a console error is caught, a page without drawn charts is caught.
printf '<!DOCTYPE html><html><body><script>console.error("x"); missingFunction();</script></body></html>\n' >"$tmp/bad.html"
browse control_console "$tmp/bad.html"
[ -s "$tmp/control_console.console" ] || fail "control: a console error went unseen (the console capture does not work)"
browse control_missing "$tmp/nognuplot.html"
grep -q 'data-charts="4" data-drawn="0"' "$tmp/control_missing.dom" ||
    fail "control: a page without drawn charts was not caught: $(grep -o '<p id="render-check"[^<]*' "$tmp/control_missing.dom")"

drawn browser_run "$tmp/run.html" 4
drawn browser_sens "$tmp/sens.html" 5
if [ "$slow" = 1 ]; then
    drawn browser_sweep "$tmp/sweep.html" 6
    timeout 120 "$chromium" --headless=new --disable-gpu --no-sandbox --no-first-run \
        --user-data-dir="$tmp/chrome-shot" --window-size=1000,1400 \
        --screenshot="$tmp/shot.png" "file://$tmp/sweep.html" >/dev/null 2>&1
    [ "$(head -c 8 "$tmp/shot.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        fail "screenshot: no PNG written"
fi
finish
