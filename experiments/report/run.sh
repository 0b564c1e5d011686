#!/usr/bin/env bash
# The report of the quick-start question: `trainsim sweep configs/quickstart-sweep.json
# --sensitivity --report`, its screenshot in headless Chromium, and the tornado, the
# finish-time CDF and the cost distribution of the page as pictures for the README.
#
# Usage: experiments/report/run.sh
# Environment: TRAINSIM (default build/sim/trainsim, built if missing).
# Writes out/ (the page, the sweep's JSON, the charts as SVG) and copies here: quickstart.html,
# sensitivity.txt, report.png, tornado.png, cdf.png, cost.png.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
. "$HERE/../common.sh"
start=$SECONDS
ensure chromium chromium
cd "$ROOT"
"$TRAINSIM" sweep configs/quickstart-sweep.json --sensitivity --no-progress \
    --report "$OUT/quickstart.html" --format json >"$OUT/quickstart.json"
"$TRAINSIM" sensitivity configs/quickstart-sweep.json --format table --no-progress >"$OUT/sensitivity.txt"
cp "$OUT/quickstart.html" "$OUT/sensitivity.txt" "$HERE/"

shot() {   # shot OUT.png WIDTH HEIGHT URL
    chromium --headless=new --disable-gpu --no-sandbox --no-first-run --hide-scrollbars \
        --user-data-dir="$OUT/chrome" --window-size="$2,$3" --screenshot="$1" "$4" >/dev/null 2>&1
}
shot "$HERE/report.png" 1000 1250 "file://$OUT/quickstart.html"
# Each chart alone: its inline SVG as a file (with the namespace a standalone SVG needs).
python3 - "$OUT" <<'PY'
import re, sys
out = sys.argv[1]
page = open(out + "/quickstart.html").read()
for name in ("tornado", "cdf", "cost"):
    m = re.search(r'<figure class="chart" data-chart="%s">(<svg.*?</svg>)' % name, page, re.S)
    svg = m.group(1).replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" '
                                        'xmlns:xlink="http://www.w3.org/1999/xlink" ', 1)
    w, h = re.search(r'width="(\d+)" height="(\d+)"', svg).groups()
    open("%s/%s.svg" % (out, name), "w").write(svg)
    open("%s/%s.size" % (out, name), "w").write("%s %s\n" % (w, h))
PY
for name in tornado cdf cost; do
    read -r w h <"$OUT/$name.size"
    shot "$HERE/$name.png" "$w" "$h" "file://$OUT/$name.svg"
done
ls -l "$HERE"/*.png
echo "done in $((SECONDS - start)) s"
