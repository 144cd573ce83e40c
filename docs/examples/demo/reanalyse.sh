#!/usr/bin/env bash
# Analyses the demo's two archives (measure.sh) into this folder, as
# nbhbench demo's step 5 does, and keeps what the example publishes: the
# report, the tables and the PNG plots (not the PDFs, run_medians.csv,
# percentiles.csv, archives.csv, analysis.json), the archives' provenance,
# a screenshot of the report's top for the project's README, and the same
# archives analysed with the tests before the two-level one (method-rounds/:
# --method rounds, the pooled signed-rank test of every round; method-study/:
# --method study, the 2017 rank-sum test of run medians; tests.csv and
# summary.csv), run_estimates.csv (each run's estimate in each test:
# run_estimates.R), methods.csv (each test's decision under the three
# methods) and load.csv (the load average at the submit's start and end,
# from campaign-log.txt).
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
# load.csv: the submit's start and end (UTC) and the load average (1 minute)
# then, from the "# submit start/end" lines of campaign-log.txt.
.venv/bin/python - "$here/campaign-log.txt" >"$here/load.csv" <<'PY'
import datetime, re, sys
stamps = {}
for line in open(sys.argv[1]):
    m = re.match(r"# submit (start|end) (\S+ \S+) UTC, load average (\S+)", line)
    if m:
        stamps[m.group(1)] = (datetime.datetime.fromisoformat(m.group(2)), m.group(3))
(start, load_start), (end, load_end) = stamps["start"], stamps["end"]
print("submit_start,submit_end,submit_seconds,load_start,load_end")
print(f"{start:%H:%M:%S},{end:%H:%M:%S},{(end - start).seconds},{load_start},{load_end}")
PY

Rscript --vanilla "$here/run_estimates.R" "$here/run_estimates.csv" "${archives[@]}"
for method in rounds study; do
    ./nbhbench analyze "${archives[@]}" --method "$method" --no-plots --out "$out/method-$method"
    rm -rf "$here/method-$method"
    mkdir -p "$here/method-$method"
    cp "$out/method-$method"/{tests.csv,summary.csv} "$here/method-$method/"
done
# methods.csv: each test's decision, ratio and p under the three methods
# (`decision`: the two-level test's, as in tests.csv)
# (a test is its guideline and its parameters: tests.csv's columns from
# relation to b_params, but method).
.venv/bin/python - "$here" <<'PY'
import pathlib, sys
import pandas as pd
here = pathlib.Path(sys.argv[1])
def read(folder, name):
    t = pd.read_csv(here / folder / "tests.csv")
    key = [c for c in ["guideline_no", "tag"] + list(t.columns[t.columns.get_loc("relation"):t.columns.get_loc("b_params") + 1]) if c != "method"]
    shown = t[key + ["decision", "ratio", "ratio_ci_low", "ratio_ci_high", "p_value"]]
    return key, shown.rename(columns={c: f"{c}_{name}" for c in ("decision", "ratio", "ratio_ci_low",
                                                                   "ratio_ci_high", "p_value")})
key, out = read(".", "paired")
for folder, name in (("method-rounds", "rounds"), ("method-study", "study")):
    out = out.merge(read(folder, name)[1], on=key, how="outer", validate="one_to_one")
out = out.dropna(axis=1, how="all").rename(columns={"decision_paired": "decision"})
out.to_csv(here / "methods.csv", index=False)
PY
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,857 \
    --screenshot="$PWD/docs/images/report.png" "file://$PWD/$here/report.html" 2>/dev/null
