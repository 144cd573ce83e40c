#!/usr/bin/env bash
# Analyses the adaptive example's archives (measure.sh) into this folder:
# each design's analysis (demo/, progress/: report.md and the tables),
# comparison.csv and disagreements.csv (compare.R), the rule replayed on
# the fixed archives (replay.txt, replay.csv: bench/adaptive/replay.R,
# replay_table.R), and provenance/ (each archive's archive.json, runs.csv,
# adaptive.json and manifest, and load.csv). With --bench, replay.txt
# also replays make bench's two synthetic study archives (generated once
# into build/bench/, as bench/bench-adaptive does; minutes).
# Usage: docs/examples/adaptive/reanalyse.sh ROOT [--bench]   (ROOT of measure.sh)
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ $# -ge 1 ] || { echo "usage: $0 ROOT [--bench]" >&2; exit 2; }
root=$(realpath "$1")
bench=${2:-}
here=docs/examples/adaptive
export NBH_ROOT=$PWD

# archive NAME: the archive measure.sh made for campaign NAME (load.csv)
archive() {
    local name
    name=$(awk -F, -v n="$1" '$1 == n { a = $2 } END { print a }' "$root/load.csv")
    if [ -z "$name" ] || [ ! -d "$root/archives/$name" ]; then
        echo "$0: no archive of $1 in $root/load.csv" >&2
        exit 1
    fi
    echo "$root/archives/$name"
}
of=$(archive demo-openmpi-fixed)
mf=$(archive demo-mpich-fixed)
oa=$(archive demo-openmpi-adaptive)
ma=$(archive demo-mpich-adaptive)
oh=$(archive demo-openmpi-adaptive-hold1.2)
mh=$(archive demo-mpich-adaptive-hold1.2)
pa=$(archive progress-openmpi-adaptive)
pf=$(archive progress-openmpi-fixed)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# analysis FOLDER ANALYZE-ARGUMENT...: one analysis into $here/FOLDER
analysis() {
    local folder=$1
    shift
    ./nbhbench analyze "$@" --out "$out/$folder" --no-plots
    rm -rf "${here:?}/$folder"
    mkdir -p "$here/$folder"
    cp "$out/$folder"/{report.md,summary.csv,tests.csv,violations.csv,plan.csv,warnings.txt} "$here/$folder/"
}
analysis demo/adaptive "$oa" "$ma"
analysis demo/adaptive-hold1.2 "$oh" "$mh"
analysis demo/fixed "$of" "$mf"
analysis demo/fixed-hold1.2 "$of" "$mf" --hold-ratio 1.2
analysis progress/adaptive "$pa"
analysis progress/fixed "$pf"

Rscript --vanilla "$here/compare.R" "$here/comparison.csv" \
    "demo adaptive, hold ratio 1.03" "$here/demo/adaptive" "$here/demo/fixed" "$oa" "$ma" -- \
    "demo fixed, 30 runs, hold ratio 1.03" "$here/demo/fixed" "$here/demo/fixed" "$of" "$mf" -- \
    "demo fixed, 30 runs, hold ratio 1.2" "$here/demo/fixed-hold1.2" "$here/demo/fixed-hold1.2" "$of" "$mf" -- \
    "demo adaptive, hold ratio 1.2" "$here/demo/adaptive-hold1.2" "$here/demo/fixed-hold1.2" "$oh" "$mh" -- \
    "progress adaptive, hold ratio 1.03" "$here/progress/adaptive" "$here/progress/fixed" "$pa" -- \
    "progress fixed, 20 runs, hold ratio 1.03" "$here/progress/fixed" "$here/progress/fixed" "$pf" >/dev/null

load() { echo "load $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"; }
{
    echo "# The adaptive rule replayed on complete archives (bench/adaptive/replay.R; make bench runs the first part): violated by O'Brien-Fleming-type, holds by Pocock-type error spending."
    if [ "$bench" = --bench ]; then
        source bench/analyze/study_archive.sh
        study_archive_ready >&2
        paired=build/bench/adaptive/nbhcoll-paired
        stamp=$(sha256sum tests/analyze/synthetic_archive.R | cut -c1-16)
        if [ "$(cat "$paired/.generator" 2>/dev/null || true)" != "$stamp" ]; then
            rm -rf "$paired"
            mkdir -p "$(dirname "$paired")"
            Rscript --vanilla tests/analyze/synthetic_archive.R --campaign nbhcoll --out "$paired" \
                --deployments 10x16,20x16,35x16 --nrun 30 --nrep 50 --plant-fraction 0.01 --seed 1 --blocks 5 \
                --phase-sd 0.1 >/dev/null
            echo "$stamp" >"$paired/.generator"
        fi
        echo "# make bench's synthetic archives (bench/bench-adaptive), $(load):"
        for archive in "$study_archive" "$paired"; do
            for design in "10 5" "8 4"; do
                read -r nrun step <<<"$design"
                Rscript --vanilla bench/adaptive/replay.R "$nrun" "$step" "$archive"
            done
        done
    fi
    echo "# the demo's fixed archives, $(load):"
    Rscript --vanilla bench/adaptive/replay.R 10 5 "$of" "$mf"
    Rscript --vanilla bench/adaptive/replay.R 10 5 --hold-ratio=1.2 "$of" "$mf"
    echo "# the progress rehearsal's fixed archive, $(load):"
    Rscript --vanilla bench/adaptive/replay.R 10 5 "$pf"
    Rscript --vanilla bench/adaptive/replay.R 10 5 --hold-ratio=1.2 "$pf"
} | sed "s|$root/archives/||g" >"$out/replay.txt"
cp "$out/replay.txt" "$here/replay.txt"
Rscript --vanilla "$here/replay_table.R" "$here/replay.txt" "$here/replay.csv" >/dev/null

rm -rf "$here/provenance"
mkdir -p "$here/provenance"
cp "$root/load.csv" "$here/provenance/"
for archive in "$of" "$mf" "$oa" "$ma" "$oh" "$mh" "$pa" "$pf"; do
    mkdir -p "$here/provenance/${archive##*/}"
    for file in archive.json runs.csv adaptive.json MANIFEST.sha256; do
        [ ! -f "$archive/$file" ] || cp "$archive/$file" "$here/provenance/${archive##*/}/"
    done
done
