#!/usr/bin/env bash
# Analyses the demo's two archives (measure.sh) into this folder, as
# nbhbench demo's step 5 does, and keeps what the example publishes: the
# report, the tables and the PNG plots (not the PDFs, run_medians.csv,
# percentiles.csv, archives.csv, analysis.json), the archives' provenance,
# a screenshot of the report's top for the project's README, and the same
# archives analysed with the tests before the two-level one (method-rounds/:
# --method rounds, the pooled signed-rank test of every round; method-study/:
# --method study, the 2017 rank-sum test of run medians; tests.csv and
# summary.csv).
# Usage: docs/examples/demo/reanalyse.sh ROOT   (ROOT of measure.sh)
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ $# -eq 1 ] || { echo "usage: $0 ROOT" >&2; exit 2; }
root=$(realpath "$1")
here=docs/examples/demo
archives=("$root"/archives/demo-openmpi-2* "$root"/archives/demo-mpich-2*)
if [ ${#archives[@]} -ne 2 ] || [ ! -d "${archives[0]}" ] || [ ! -d "${archives[1]}" ]; then
    echo "$0: $root/archives must hold one demo-openmpi-* and one demo-mpich-* archive" >&2
    exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
./nbhbench analyze "${archives[@]}" --out "$out/analysis"
tables=(report.md report.html tests.csv summary.csv violations.csv closest.csv cells.csv plan.csv
        heal.csv heal_sets.csv set_comparison.csv warnings.txt)
rm -rf "${tables[@]/#/$here/}" "$here/plots" "$here/provenance"
for file in "${tables[@]}"; do
    cp "$out/analysis/$file" "$here/"
done
mkdir -p "$here/plots"
cp "$out"/analysis/plots/*.png "$here/plots/"
for archive in "${archives[@]}"; do
    mkdir -p "$here/provenance/${archive##*/}"
    cp "$archive"/{archive.json,runs.csv,param_sets.csv,experiments.csv,MANIFEST.sha256} \
       "$archive"/results/1x4-default-r001.prov.json "$here/provenance/${archive##*/}/"
    [ ! -f "$archive/interleave.json" ] || cp "$archive/interleave.json" "$here/provenance/${archive##*/}/"
done
for method in rounds study; do
    ./nbhbench analyze "${archives[@]}" --method "$method" --no-plots --out "$out/method-$method"
    rm -rf "$here/method-$method"
    mkdir -p "$here/method-$method"
    cp "$out/method-$method"/{tests.csv,summary.csv} "$here/method-$method/"
done
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,857 \
    --screenshot="$PWD/docs/images/report.png" "file://$PWD/$here/report.html" 2>/dev/null
