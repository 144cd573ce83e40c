#!/usr/bin/env bash
# Analyses the releases example's archives into this folder: the five
# libraries together (five-libraries/, as nbhbench demo's step 5), Open MPI 5
# and MPICH 5 against their Debian predecessors (analyze NEW --baseline OLD:
# the five archives share one interleaved sequence, so each cell is paired
# by launch), and MPICH 5 with UCX forced against MPICH 4.0 (a launch
# sequence of its own: unpaired). Keeps the report, the tables and the PNG
# plots (not the PDFs, run_medians.csv, percentiles.csv, archives.csv,
# analysis.json), each archive's provenance, measured.csv (per archive:
# library, runs, oversubscribed runs, the interleaved sequence and its
# slots) and the measurement's campaign-log.txt. For the comparison with
# the 2026-11-27 publication: the five archives under --method rounds (that
# day's test: method-rounds/, tests.csv and summary.csv, and methods.csv,
# each test's decision under both tests), and each
# --baseline comparison's cells unpaired on the same run medians
# (unpaired.R: unpaired.csv beside regressions.csv).
# Usage: docs/examples/releases/reanalyse.sh ROOT
#   ROOT/archives: the five archives of `nbhbench demo openmpi mpich openmpi5
#   mpich5 intelmpi`; ROOT/archives-ucx: the one of MPICH 5 with UCX forced;
#   ROOT/campaign-log.txt: the measurement's output (README, "Reproduce")
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ $# -eq 1 ] || { echo "usage: $0 ROOT" >&2; exit 2; }
root=$(realpath "$1")
here=docs/examples/releases
one() { # the one archive the glob $1 names
    local found
    mapfile -t found < <(compgen -G "$1")
    if [ ${#found[@]} -ne 1 ] || [ ! -d "${found[0]}" ]; then
        echo "$0: not one archive: $1" >&2
        exit 1
    fi
    echo "${found[0]}"
}
# demo-mpich-2*: the date after the name, so that the glob does not take demo-mpich5-*
openmpi=$(one "$root/archives/demo-openmpi-2*")
mpich=$(one "$root/archives/demo-mpich-2*")
openmpi5=$(one "$root/archives/demo-openmpi5-*")
mpich5=$(one "$root/archives/demo-mpich5-*")
intelmpi=$(one "$root/archives/demo-intelmpi-*")
mpich5ucx=$(one "$root/archives-ucx/demo-mpich5-*")
[ -f "$root/campaign-log.txt" ] || { echo "$0: no $root/campaign-log.txt" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

./nbhbench analyze "$openmpi" "$mpich" "$openmpi5" "$mpich5" "$intelmpi" --out "$out/five-libraries"
./nbhbench analyze "$openmpi5" --baseline "$openmpi" --out "$out/openmpi5-vs-openmpi"
./nbhbench analyze "$mpich5" --baseline "$mpich" --out "$out/mpich5-vs-mpich"
./nbhbench analyze "$mpich5ucx" --baseline "$mpich" --out "$out/mpich5-ucx-vs-mpich"

tables=(report.md report.html tests.csv summary.csv violations.csv closest.csv cells.csv plan.csv
        heal.csv heal_sets.csv set_comparison.csv warnings.txt regressions.csv)
for analysis in five-libraries openmpi5-vs-openmpi mpich5-vs-mpich mpich5-ucx-vs-mpich; do
    rm -rf "${here:?}/$analysis"
    mkdir -p "$here/$analysis/plots"
    for file in "${tables[@]}"; do
        [ ! -f "$out/$analysis/$file" ] || cp "$out/$analysis/$file" "$here/$analysis/"
    done
    cp "$out/$analysis"/plots/*.png "$here/$analysis/plots/"
done

./nbhbench analyze "$openmpi" "$mpich" "$openmpi5" "$mpich5" "$intelmpi" --method rounds --no-plots \
    --out "$out/method-rounds"
rm -rf "${here:?}/method-rounds"
mkdir -p "$here/method-rounds"
cp "$out/method-rounds"/{tests.csv,summary.csv} "$here/method-rounds/"
# method-rounds/methods.csv: each test's decision, ratio, interval and p under
# the two-level test (decision, ...: five-libraries/tests.csv) and under
# --method rounds (..._rounds); a test is its guideline and parameters.
.venv/bin/python - "$here" <<'PY'
import pathlib, sys
import pandas as pd
here = pathlib.Path(sys.argv[1])
shown = ["decision", "ratio", "ratio_ci_low", "ratio_ci_high", "p_value"]
def read(path):
    t = pd.read_csv(path)
    columns = list(t.columns)
    key = ["guideline_no", "tag"] + [c for c in columns[columns.index("relation"):columns.index("b_params") + 1]
                                     if c != "method"]
    return key, t[key + shown]
key, paired = read(here / "five-libraries" / "tests.csv")
_, rounds = read(here / "method-rounds" / "tests.csv")
both = paired.merge(rounds, on=key, how="outer", suffixes=("", "_rounds"), validate="one_to_one")
both.dropna(axis=1, how="all").to_csv(here / "method-rounds" / "methods.csv", index=False)
PY
Rscript --vanilla "$here/unpaired.R" "$here/openmpi5-vs-openmpi/unpaired.csv" "$openmpi5" "$openmpi"
Rscript --vanilla "$here/unpaired.R" "$here/mpich5-vs-mpich/unpaired.csv" "$mpich5" "$mpich"

cp "$root/campaign-log.txt" "$here/campaign-log.txt"
rm -rf "${here:?}/provenance"
echo "archive,library,launch_env,created,runs,runs_done,oversubscribed,interleave,slots,library_version" >"$here/measured.csv"
for archive in "$openmpi" "$mpich" "$openmpi5" "$mpich5" "$intelmpi" "$mpich5ucx"; do
    name=${archive##*/}
    [ "$archive" != "$mpich5ucx" ] || name=$name-ucx
    mkdir -p "$here/provenance/$name"
    cp "$archive"/{archive.json,runs.csv,param_sets.csv,experiments.csv,MANIFEST.sha256} \
       "$archive"/results/1x4-default-r001.prov.json "$here/provenance/$name/"
    [ ! -f "$archive/interleave.json" ] || cp "$archive/interleave.json" "$here/provenance/$name/"
    .venv/bin/python - "$archive" "$name" >>"$here/measured.csv" <<'PY'
import csv, json, pathlib, sys
archive, name = pathlib.Path(sys.argv[1]), sys.argv[2]
about = json.loads((archive / "archive.json").read_text())
with open(archive / "runs.csv", newline="") as f:
    runs = list(csv.DictReader(f))
launch_env = ";".join("=".join(map(str, pair)) for pair in about.get("launch_env") or [])
row = [name, runs[0]["library"], launch_env, about.get("created", ""), len(runs),
       sum(r["state"] == "done" for r in runs), sum(r.get("oversubscribed") == "yes" for r in runs),
       ";".join(sorted({r.get("interleave") or "" for r in runs})), len({r.get("slot") for r in runs if r.get("slot")}),
       runs[0]["library_version"]]
csv.writer(sys.stdout, lineterminator="\n").writerow(row)
PY
done
