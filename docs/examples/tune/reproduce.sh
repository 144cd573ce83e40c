#!/usr/bin/env bash
# The measurements of docs/examples/tune: three violations of full-jupiter
# that the published sweeps decided, each measured afresh (a source
# campaign, analysed), then healed with nbhbench tune. Usage:
#   docs/examples/tune/reproduce.sh [OUT]      (default: build/tune-example)
# OUT holds the workspaces, archives, analyses and tunes; the write-up's
# files are copied from OUT/tunes/NAME and OUT/analyses/NAME. Run again, it
# keeps the analyses it has and goes on with each tune (--resume).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/build/tune-example}
nbh=$root/nbhbench
export NBH_ARCHIVES=$out/archives NBH_TUNES=$out/tunes
mkdir -p "$out"

# stamp STEP: the time and the load averages, printed and kept in OUT/steps.log
# (collect.py writes steps.csv from it).
stamp() { echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) load $(cut -d' ' -f1-3 /proc/loadavg): $*" | tee -a "$out/steps.log"; }

# tune NAME ARGS...: nbhbench tune ARGS --name NAME, or --resume NAME where
# it ran before.
tune() {
    local name=$1
    shift
    stamp "tune $name"
    if [ -f "$NBH_TUNES/$name/tune.json" ]; then
        "$nbh" tune --resume "$name"
    else
        "$nbh" tune "$@" --name "$name"
    fi || stamp "tune $name failed"
}

# measure NAME LIBRARY DEPLOYMENT OPS MSIZES GUIDELINE: full-jupiter's cells
# of OPS at DEPLOYMENT (LINEAR order, reorder 0, 10 runs), archived and
# analysed with the guideline alone (gl8.conf, gl7.conf beside this script).
measure() {
    local name=$1 library=$2 deployment=$3 ops=$4 msizes=$5 guideline=$6 archive
    [ ! -f "$out/analyses/$name/tests.csv" ] || return 0   # measured before (a rerun of this script)
    stamp "source $name: full-jupiter, $library, $deployment, $ops"
    export NBH_WORK=$out/work/$name
    "$nbh" generate full-jupiter --env "local-$library" --set "deployments=$deployment" --set nrun=10 \
        --set "op=$ops" --set order=LINEAR --set reorder=0 --set "msize=$msizes"
    "$nbh" submit full-jupiter --wait
    archive=$("$nbh" archive full-jupiter | tail -n 1)
    "$nbh" analyze "$archive" --assess "$here/$guideline.conf" --out "$out/analyses/$name" --no-plots
}

all=256,362,512,724,1024,1448,2048,2896,4096,5792,8192,11585,16384,23170,32768

# 1. MPICH, GL8 at 1x2 (the sweep: MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=pairwise
#    removes 6 of 6; 8 sets x 7 runs = 56 runs at 1x2; half: 28).
measure mpich-gl8 mpich 1x2 alltoall,neighbor_alltoall "$all" gl8
tune mpich-gl8-1x2 "$out/analyses/mpich-gl8" --guideline GL8 --sweep-runs 7 --budget 28 --first 4 \
    --confirm-deployments 1x2,1x4,1x8

# 2. Open MPI, GL7 at 1x4 (the sweep: no allgather algorithm removes it;
#    6 sets x 7 runs = 42 at 1x4; half: 21).
measure openmpi-gl7 openmpi 1x4 allgather,neighbor_allgather "$all" gl7
tune openmpi-gl7-1x4 "$out/analyses/openmpi-gl7" --guideline GL7 --sweep-runs 7 --budget 21 --first 3 \
    --confirm-deployments 1x2,1x4

# 3. Open MPI, GL8 at 1x16 (the sweep: linear_sync removes the 4 violations
#    at 256 and 362 B; 8 sets x 7 runs = 56 at 1x16; half: 28). The five
#    smallest sizes only: 16 processes on 2 cores take long.
measure openmpi-gl8 openmpi 1x16 alltoall,neighbor_alltoall 256,362,512,724,1024 gl8
tune openmpi-gl8-1x16 "$out/analyses/openmpi-gl8" --guideline GL8 --sweep-runs 7 --budget 28 --first 3 \
    --confirm-deployments 1x4,1x16
# 4. The first case again with the sweep's whole budget (56 runs at 1x2),
#    6 runs of each candidate before the first look (6 pairs of launches a
#    comparison), at the cost of more than half the sweep.
tune mpich-gl8-1x2-full "$out/analyses/mpich-gl8" --guideline GL8 --sweep-runs 7 --budget 56 --first 6 \
    --confirm-deployments 1x2,1x4
stamp "done"
