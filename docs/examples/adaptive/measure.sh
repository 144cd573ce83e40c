#!/usr/bin/env bash
# Measures the adaptive example's campaigns (the designs of its first two
# publications): the demo under Open MPI and MPICH fixed at 30 runs and
# adaptive (nrun 10, nrun_step 5, nrun_max 30) at hold ratio 1.03 and 1.2,
# and a progress rehearsal (Open MPI, 1x2, five message sizes) adaptive up
# to 20 runs and fixed at 20. Each campaign's generate, submit and archive
# run one after another, the submit holding /tmp/nbh-measure.lock; the
# time and load average (1 minute) at the start and end of every submit go
# to ROOT/load.csv (the example's provenance/load.csv), the commands'
# output to stdout (campaign-log.txt). Then analyse with reanalyse.sh.
# Usage: docs/examples/adaptive/measure.sh ROOT
#   ROOT/work/NAME (workspaces), ROOT/archives (archives), ROOT/load.csv
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ $# -eq 1 ] || { echo "usage: $0 ROOT" >&2; exit 2; }
root=$(realpath -m "$1")
export NBH_ARCHIVES=$root/archives
mkdir -p "$NBH_ARCHIVES"
load=$root/load.csv
[ -f "$load" ] || echo "campaign,archive,submit_start,submit_end,submit_seconds,load_start,load_end" >"$load"

# step NAME CAMPAIGN GENERATE-OPTION...: generate, submit (timed, with the
# load average before and after) and archive one campaign.
step() {
    local name=$1 campaign=$2 start end load_start load_end archive
    shift 2
    export NBH_WORK=$root/work/$name
    rm -rf "$NBH_WORK"
    echo "== $name: generate $campaign $*"
    ./nbhbench generate "$campaign" "$@"
    exec 9>/tmp/nbh-measure.lock
    flock 9
    load_start=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date -u +%s)
    echo "# submit start $(date -u -d "@$start" '+%Y-%m-%d %H:%M:%S') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    ./nbhbench submit "$campaign"
    end=$(date -u +%s)
    load_end=$(cut -d' ' -f1 /proc/loadavg)
    echo "# submit end $(date -u -d "@$end" '+%Y-%m-%d %H:%M:%S') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    flock -u 9
    archive=$(./nbhbench archive "$campaign" | tail -n 1)
    echo "$archive"
    echo "$name,$(basename "$archive"),$(date -u -d "@$start" +%H:%M:%S),$(date -u -d "@$end" +%H:%M:%S),$((end - start)),$load_start,$load_end" >>"$load"
}

AD=(--set adaptive=yes --set nrun_step=5 --set nrun_max=30)
for lib in openmpi mpich; do
    step "demo-$lib-fixed" demo --env "local-$lib" --set nrun=30
    step "demo-$lib-adaptive" demo --env "local-$lib" "${AD[@]}"
done
for lib in openmpi mpich; do
    step "demo-$lib-adaptive-hold1.2" demo --env "local-$lib" "${AD[@]}" --set hold_ratio=1.2
done
P=(--env local-openmpi --set deployments=1x2 --set "msize=256,1024,4096,16384,65536")
step progress-openmpi-adaptive progress "${P[@]}" --set adaptive=yes --set nrun_step=5 --set nrun_max=20
step progress-openmpi-fixed progress "${P[@]}" --set nrun=20
