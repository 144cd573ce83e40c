# The demo on this machine, again and again, into a history (sourced by
# bench/bench-history): demo_series NAME COUNT SLOW_FROM runs the demo
# campaign (Open MPI, 1x4, 10 runs) COUNT times, one archive after another,
# into $history_work/NAME/, and adds each to $history_work/NAME/history.db;
# from archive SLOW_FROM on (0: never) the PMPI tool of the tests
# (tests/workflow/pmpi_slowdown.c, build/openmpi/libnbh-slowdown.so) is
# the "new release": every MPI_Neighbor_alltoall of MPI_BYTE at 1024 bytes
# sleeps PLANT_US microseconds after the call. Archives already there are
# kept (the series goes on where it stopped).
# shellcheck shell=bash
history_work=build/bench/history
PLANT_US=${PLANT_US:-300}

demo_series() {
    local name=$1 count=$2 slow_from=$3 i dir archive
    local -a plant
    dir=$history_work/$name
    mkdir -p "$dir"
    for i in $(seq "$count"); do
        [ ! -f "$dir/archive-$i" ] || continue
        plant=()
        if [ "$slow_from" -gt 0 ] && [ "$i" -ge "$slow_from" ]; then
            plant=(--set "launch_env=LD_PRELOAD=$PWD/build/openmpi/libnbh-slowdown.so"
                   --set launch_env=NBH_SLOWDOWN_OP=neighbor_alltoall --set launch_env=NBH_SLOWDOWN_DATATYPE=byte
                   --set launch_env=NBH_SLOWDOWN_MSIZES=1024 --set "launch_env=NBH_SLOWDOWN_US=$PLANT_US")
        fi
        export NBH_WORK=$dir/work NBH_ARCHIVES=$dir/archives
        rm -rf "$NBH_WORK"
        ./nbhbench generate demo --env local-openmpi ${plant[@]+"${plant[@]}"} >"$dir/log-$i" 2>&1
        ./nbhbench submit demo --wait >>"$dir/log-$i" 2>&1
        archive=$(./nbhbench archive demo 2>>"$dir/log-$i" | tail -n 1)
        ./nbhbench history add --db "$dir/history.db" "$archive" >>"$dir/log-$i"
        echo "$archive" >"$dir/archive-$i"
        echo "  $name: archive $i of $count$([ ${#plant[@]} -eq 0 ] || echo ", planted") ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))"
    done
    unset NBH_WORK NBH_ARCHIVES
}
