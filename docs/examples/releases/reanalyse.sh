#!/usr/bin/env bash
# Analyses the releases example's archives (measure.sh) into this folder:
# the five libraries together (five-libraries/, nbhbench demo's step 5),
# and Open MPI 5 and MPICH 5 (with its default netmod and with UCX forced)
# against their Debian predecessors (analyze NEW --baseline OLD; the
# releases' launches were interleaved, so each cell is paired by launch).
# Keeps the report, the tables and the PNG plots (not the PDFs,
# run_medians.csv, percentiles.csv, archives.csv, analysis.json), each
# archive's provenance, and measured.csv (per archive: library, runs,
# oversubscribed runs, the interleaved sequence) and load.csv (the load
# average at the submit's start and end, from campaign-log.txt).
# Usage: docs/examples/releases/reanalyse.sh ROOT   (ROOT of measure.sh)
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ $# -eq 1 ] || { echo "usage: $0 ROOT" >&2; exit 2; }
root=$(realpath "$1")
here=docs/examples/releases
A=$root/archives
U=$root/archives-ucx
one() { # the one archive the glob $1 names
    local found
    mapfile -t found < <(compgen -G "$1")
    if [ ${#found[@]} -ne 1 ] || [ ! -d "${found[0]}" ]; then
        echo "$0: not one archive: $1" >&2
        exit 1
    fi
    echo "${found[0]}"
}
openmpi=$(one "$A/demo-openmpi-2*")
mpich=$(one "$A/demo-mpich-2*")
openmpi5=$(one "$A/demo-openmpi5-*")
mpich5=$(one "$A/demo-mpich5-*")
intelmpi=$(one "$A/demo-intelmpi-*")
mpich5ucx=$(one "$U/demo-mpich5-*")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

./nbhbench analyze "$openmpi" "$mpich" "$openmpi5" "$mpich5" "$intelmpi" --out "$out/five-libraries"
./nbhbench analyze "$openmpi5" --baseline "$openmpi" --out "$out/openmpi5-vs-openmpi"
./nbhbench analyze "$mpich5" --baseline "$mpich" --out "$out/mpich5-vs-mpich"
./nbhbench analyze "$mpich5ucx" --baseline "$mpich" --out "$out/mpich5-ucx-vs-mpich"

tables=(report.md report.html tests.csv summary.csv violations.csv closest.csv cells.csv plan.csv
        heal.csv heal_sets.csv set_comparison.csv warnings.txt)
for analysis in five-libraries openmpi5-vs-openmpi mpich5-vs-mpich mpich5-ucx-vs-mpich; do
    rm -rf "${here:?}/$analysis"
    mkdir -p "$here/$analysis/plots"
    for file in "${tables[@]}" regressions.csv; do
        [ ! -f "$out/$analysis/$file" ] || cp "$out/$analysis/$file" "$here/$analysis/"
    done
    cp "$out/$analysis"/plots/*.png "$here/$analysis/plots/"
done

rm -rf "$here/provenance"
echo "archive,library,launch_env,created,runs,runs_done,oversubscribed,interleave,slots,library_version" >"$here/measured.csv"
for archive in "$openmpi" "$mpich" "$openmpi5" "$mpich5" "$intelmpi" "$mpich5ucx"; do
    name=${archive##*/}
    [ "$archive" != "$mpich5ucx" ] || name=$name-ucx
    mkdir -p "$here/provenance/$name"
    cp "$archive"/{archive.json,runs.csv,param_sets.csv,experiments.csv,MANIFEST.sha256} \
       "$archive"/results/1x4-default-r001.prov.json "$here/provenance/$name/"
    .venv/bin/python - "$archive" "$name" >>"$here/measured.csv" <<'PY'
import csv, json, pathlib, sys
archive, name = pathlib.Path(sys.argv[1]), sys.argv[2]
about = json.loads((archive / "archive.json").read_text())
runs = list(csv.DictReader(open(archive / "runs.csv")))
launch_env = about.get("launch_env") or []
launch_env = ";".join(launch_env) if isinstance(launch_env, list) else str(launch_env)
row = [name, runs[0]["library"], launch_env, about.get("created", ""), len(runs),
       sum(r["state"] == "done" for r in runs), sum(r["oversubscribed"] == "yes" for r in runs),
       ";".join(sorted({r["interleave"] for r in runs})), len({r["slot"] for r in runs}),
       runs[0]["library_version"]]
csv.writer(sys.stdout).writerow(row)
PY
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
