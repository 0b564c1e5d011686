# shellcheck shell=bash
# Shared by the run.sh of the experiments that validate software profiles on rows their
# make_jobs.py writes (validation-others, validation-zero3). A run.sh sets HERE and sources it
# with the folder of its shipped jobs and its own arguments:
#   . "$HERE/../profile_validation.sh" configs/validation/NAME "$@"
# Arguments: none, or --write-bands (usage and exit 2 otherwise). It sources common.sh, runs
# make_jobs.py into out/jobs and exits 1 unless the shipped jobs and published.json are what it
# writes, byte for byte (published.json restored), then tabulates the rows with
# validation-others/results.py (one copy for every such experiment) into HERE/results.md and
# results.csv, --write-bands also into the profiles' "validation" bands, and exits with its
# status: 3 when a profile x device exceeds thresholds.json.
jobs_dir=$1
shift
bands=()
for arg in "$@"; do
    case $arg in
    --write-bands) bands=(--write-bands) ;;
    *) echo "usage: $0 [--write-bands]" >&2; exit 2 ;;
    esac
done
# shellcheck source=common.sh
. "$HERE/../common.sh"
cp "$HERE/published.json" "$OUT/published.json"
python3 "$HERE/make_jobs.py" --out "$OUT/jobs" >/dev/null
cmp -s "$HERE/published.json" "$OUT/published.json" ||
    { cp "$OUT/published.json" "$HERE/published.json"; echo "published.json differed from make_jobs.py's" >&2; exit 1; }
for f in "$OUT"/jobs/*.json; do
    cmp -s "$f" "$ROOT/$jobs_dir/$(basename "$f")" ||
        { echo "$jobs_dir/$(basename "$f") differs from make_jobs.py's" >&2; exit 1; }
done
status=0
python3 "$HERE/../validation-others/results.py" --trainsim "$TRAINSIM" --root "$ROOT" --out "$HERE" \
    --published "$HERE/published.json" --experiment "$(basename "$HERE")" \
    --check "$HERE/thresholds.json" "${bands[@]}" || status=$?
exit "$status"
