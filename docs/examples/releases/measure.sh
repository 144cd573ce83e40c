#!/usr/bin/env bash
# Measures the releases example: `nbhbench demo` under the five libraries
# nbhbench knows (their 50 runs in one interleaved sequence; the demo's own
# analysis goes to ROOT/analyses), then the demo campaign under MPICH 5 with
# its UCX netmod forced, a launch sequence of its own. Writes the commands'
# output, with the time and load average before and after each, to
# ROOT/campaign-log.txt (the example's campaign-log.txt); both hold
# /tmp/nbh-measure.lock. Then analyse with reanalyse.sh ROOT.
# Usage: docs/examples/releases/measure.sh ROOT
#   ROOT/work, ROOT/archives, ROOT/analyses: the five libraries';
#   ROOT/work-ucx, ROOT/archives-ucx: MPICH 5 with UCX forced
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
[ $# -eq 1 ] || { echo "usage: $0 ROOT" >&2; exit 2; }
root=$(realpath -m "$1")
[ ! -e "$root/archives" ] || { echo "$0: $root/archives exists: give a fresh ROOT" >&2; exit 1; }
mkdir -p "$root"

stamp() { # stamp start|end [SECONDS_SINCE]
    echo "# $1 $(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg) (uptime)${2:+; $(( $(date +%s) - $2 )) s}"
}

{
    echo "# nbhbench demo openmpi mpich openmpi5 mpich5 intelmpi, under flock /tmp/nbh-measure.lock"
    stamp start
    s=$(date +%s)
    NBH_WORK=$root/work NBH_ARCHIVES=$root/archives NBH_ANALYSES=$root/analyses \
        flock /tmp/nbh-measure.lock ./nbhbench demo openmpi mpich openmpi5 mpich5 intelmpi
    stamp end "$s"
    echo
    echo "# the UCX variant: MPICH 5 forced to its UCX netmod, one more archive after the five"
    stamp start
    s=$(date +%s)
    NBH_WORK=$root/work-ucx NBH_ARCHIVES=$root/archives-ucx \
        flock /tmp/nbh-measure.lock sh -c './nbhbench generate campaigns/demo --env local-mpich5 --set launch_env=MPIR_CVAR_CH4_NETMOD=ucx &&
               ./nbhbench submit demo --wait && ./nbhbench archive demo'
    stamp end "$s"
} >"$root/campaign-log.txt" 2>&1
tail -n 1 "$root/campaign-log.txt"
