# The demo on this machine, again and again, into a history (sourced by
# bench/bench-history): demo_series NAME COUNT runs the demo campaign
# (Open MPI, 1x4, --set nrun=30 --set nrep=10: more launches, fewer
# repetitions) COUNT times, one archive after another, into
# $history_work/NAME/, and adds each to $history_work/NAME/history.db.
# Archives already there are kept (the series goes on where it stopped).
# shellcheck shell=bash
history_work=build/bench/history

demo_series() {
    local name=$1 count=$2 i dir archive
    dir=$history_work/$name
    mkdir -p "$dir"
    for i in $(seq "$count"); do
        [ ! -f "$dir/archive-$i" ] || continue
        export NBH_WORK=$dir/work NBH_ARCHIVES=$dir/archives
        rm -rf "$NBH_WORK"
        ./nbhbench generate demo --env local-openmpi --set nrun=30 --set nrep=10 >"$dir/log-$i" 2>&1
        ./nbhbench submit demo --wait >>"$dir/log-$i" 2>&1
        archive=$(./nbhbench archive demo 2>>"$dir/log-$i" | tail -n 1)
        ./nbhbench history add --db "$dir/history.db" "$archive" >>"$dir/log-$i"
        echo "$archive" >"$dir/archive-$i"
        echo "  $name: archive $i of $count ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))"
    done
    unset NBH_WORK NBH_ARCHIVES
}
