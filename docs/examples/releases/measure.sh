#!/usr/bin/env bash
# Measures the releases example: the demo campaign under the five libraries
# nbhbench knows and under MPICH 5 with its UCX netmod forced, the six
# workspaces' 60 runs submitted as one interleaved sequence (nbhbench submit
# --interleave-with, as nbhbench demo does for its libraries), so that every
# --baseline comparison is paired by launch. Prints the commands' output
# with the time and load average before and after the submit (the
# example's campaign-log.txt); the measuring steps hold
# /tmp/nbh-measure.lock. Then analyse with reanalyse.sh.
# Usage: docs/examples/releases/measure.sh ROOT
#   ROOT/work/demo-LIBRARY (workspaces), ROOT/archives (the five archives),
#   ROOT/archives-ucx (MPICH 5 with UCX forced)
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ $# -eq 1 ] || { echo "usage: $0 ROOT" >&2; exit 2; }
root=$(realpath -m "$1")
libraries=(openmpi mpich openmpi5 mpich5 intelmpi)
mkdir -p "$root"

stamp() { echo "# $1 $(date -u '+%Y-%m-%d %H:%M:%S') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"; }

workspaces=()
for library in "${libraries[@]}" mpich5-ucx; do
    env=local-${library%-ucx}
    export NBH_WORK=$root/work/demo-$library
    rm -rf "$NBH_WORK"
    echo "== build and generate: demo, $library ($env)"
    ./nbhbench build --env "$env"
    if [ "$library" = mpich5-ucx ]; then
        ./nbhbench generate demo --env "$env" --set launch_env=MPIR_CVAR_CH4_NETMOD=ucx
    else
        ./nbhbench generate demo --env "$env"
    fi
    workspaces+=("$NBH_WORK/demo")
done

export NBH_WORK=$root/work/demo-${libraries[0]}
echo "== submit: the six workspaces' runs as one interleaved sequence"
exec 9>/tmp/nbh-measure.lock
flock 9
stamp "submit start"
./nbhbench submit demo --wait --interleave-with "${workspaces[@]:1}"
stamp "submit end"
flock -u 9

for library in "${libraries[@]}" mpich5-ucx; do
    export NBH_WORK=$root/work/demo-$library
    export NBH_ARCHIVES=$root/archives
    [ "$library" = mpich5-ucx ] && export NBH_ARCHIVES=$root/archives-ucx
    echo "== archive: $library"
    ./nbhbench archive demo
done
