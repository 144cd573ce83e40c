#!/usr/bin/env bash
# Measures the demo as `make demo` runs it (libexec/nbhbench-demo): the
# demo campaign under Debian's Open MPI and MPICH, their 20 runs submitted
# as one interleaved sequence, the two archives analysed together. The
# steps are nbhbench demo's, written out so that the time and load average
# before and after the submit are printed (the example's campaign-log.txt);
# the submit holds /tmp/nbh-measure.lock. Then analyse with reanalyse.sh.
# Usage: docs/examples/demo/measure.sh ROOT
#   ROOT/work/demo-LIBRARY (workspaces), ROOT/archives
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ $# -eq 1 ] || { echo "usage: $0 ROOT" >&2; exit 2; }
root=$(realpath -m "$1")
libraries=(openmpi mpich)
export NBH_ARCHIVES=$root/archives
mkdir -p "$NBH_ARCHIVES"

stamp() { echo "# $1 $(date -u '+%Y-%m-%d %H:%M:%S') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"; }

workspaces=()
for library in "${libraries[@]}"; do
    export NBH_WORK=$root/work/demo-$library
    rm -rf "$NBH_WORK"
    echo "== build and generate: demo, $library"
    ./nbhbench build --env "local-$library"
    ./nbhbench generate demo --env "local-$library"
    workspaces+=("$NBH_WORK/demo")
done

export NBH_WORK=$root/work/demo-${libraries[0]}
echo "== submit: 10 runs at 4 processes per library, the libraries' runs interleaved"
exec 9>/tmp/nbh-measure.lock
flock 9
stamp "submit start"
./nbhbench submit demo --wait --interleave-with "${workspaces[@]:1}"
stamp "submit end"
flock -u 9

for library in "${libraries[@]}"; do
    export NBH_WORK=$root/work/demo-$library
    echo "== archive: $library"
    ./nbhbench archive demo
done
