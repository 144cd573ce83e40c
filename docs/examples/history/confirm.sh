#!/usr/bin/env bash
# The check of docs/examples/history's largest change (README.md there): the
# campaign run again on the release before the change and on the release
# where it begins, alternately (A B A B ...: the machine's load falls on
# both alike), into a history of its own, confirm.db; then the trend of
# each changed cell, by date, the change points of that history, and the
# release regression of the AFTER archives against the BEFORE ones
# (analyze --baseline: every cell, its runs pooled; confirm-regressions.csv).
# Uses the releases run.sh installed and built (build/history-example/).
#   docs/examples/history/confirm.sh [BEFORE AFTER [ROUNDS]]   (default: mpich-4.3.2 mpich-5.0.0 3)
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/examples/history
out=$PWD/build/history-example
export NBH_MPI_PREFIX=$out/mpi NBH_ARCHIVES=$out/archives
before=${1:-mpich-4.3.2}
after=${2:-mpich-5.0.0}
rounds=${3:-3}
db=$here/confirm.db
rm -f "$db"
declare -A archives=()
for round in $(seq "$rounds"); do
    for name in "$before" "$after"; do
        export NBH_WORK=$out/work/confirm-$name
        rm -rf "$NBH_WORK"
        ./nbhbench generate "$here/history-releases" --env "$NBH_MPI_PREFIX/$name/env/local-$name" >/dev/null 2>&1
        ./nbhbench submit history-releases --wait >/dev/null 2>&1
        archive=$(./nbhbench archive history-releases 2>/dev/null | tail -n 1)
        ./nbhbench history add --db "$db" "$archive" >/dev/null
        archives[$name]+="$archive"$'\n'
        echo "round $round: $name $(basename "$archive")"
    done
done
./nbhbench history list --db "$db" >"$here/confirm-list.txt"
./nbhbench history changes --db "$db" --csv "$here/confirm-changes.csv" >"$here/confirm-changes.txt"
for cell in op=neighbor_alltoall,topology=cart,msize=8 op=neighbor_allgather,topology=full,msize=1024 \
    op=allgather,topology=full,msize=8 op=allgather,topology=full,msize=1024 op=neighbor_alltoall,topology=cart,msize=65536; do
    ./nbhbench history trend --db "$db" --cell "library=mpich,$cell" --out "$here/confirm/${cell//[=,]/-}" >/dev/null
done
rm -f "$here"/confirm/*/trend.pdf
mapfile -t new < <(printf '%s' "${archives[$after]}")
mapfile -t old < <(printf '%s' "${archives[$before]}")
rm -rf "$out/confirm-regression"
./nbhbench analyze "${new[@]}" --baseline "${old[@]}" --no-plots --out "$out/confirm-regression" >/dev/null
cp "$out/confirm-regression/regressions.csv" "$here/confirm-regressions.csv"
echo "$here/confirm-changes.txt"
