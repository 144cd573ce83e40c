#!/usr/bin/env bats
# nbhbench tune: its help, and each bad input one line on stderr with exit
# 2, before anything runs (no tune folder made).

load workflow_helpers

setup() {
    workflow_setup
    export NBH_TUNES=$BATS_TEST_TMPDIR/tunes
}

# An analysis folder whose GL8 tests are as given ("violated holds ...").
analysis() {
    local folder=$BATS_TEST_TMPDIR/analysis decision msize=256
    mkdir -p "$folder"
    echo "tag,guideline,library,param_set,deployment,op,topology,order,msize,decision,ratio" >"$folder/tests.csv"
    for decision in "$@"; do
        echo "GL8,alltoall <= neighbor_alltoall,openmpi,default,1x2,,full,LINEAR,$msize,$decision,1.3" >>"$folder/tests.csv"
        msize=$((msize * 2))
    done
    printf '{"assessment": "[g]\\nparameter = op\\nvaried = msize\\nGL8: alltoall <= neighbor_alltoall\\n"}\n' \
        >"$folder/analysis.json"
    echo "$folder"
}

one_line_before_anything_runs() {
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [ ! -e "$NBH_TUNES" ]
}

@test "tune --help prints the usage" {
    run "$NBH" tune --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"Usage: nbhbench tune ANALYSIS --guideline TAG"* ]]
}

@test "nbhbench help lists tune" {
    run "$NBH" help
    [[ "$output" == *"tune "*"from a violated guideline to a library setting"* ]]
}

@test "tune without a source or a guideline" {
    run "$NBH" tune
    [ "$status" -eq 2 ]
    [[ "$output" == "nbhbench: tune: no ANALYSIS or CAMPAIGN given (see: nbhbench tune --help)" ]]
    run "$NBH" tune "$(analysis violated)"
    one_line_before_anything_runs
    [[ "$output" == "nbhbench: tune: no --guideline TAG given (the guideline to heal, e.g. GL8)" ]]
}

@test "tune of a guideline with no violation to heal" {
    run "$NBH" tune "$(analysis holds open holds)" --guideline GL8 --campaign gl8 --env local-openmpi
    one_line_before_anything_runs
    [[ "$output" == "nbhbench: tune: guideline GL8 has no violated test to heal in "*"/tests.csv (3 tests: 2 hold, 1 open)" ]]
}

@test "tune of a guideline the assessment does not have" {
    run "$NBH" tune "$(analysis violated)" --guideline GL7 --campaign gl8 --env local-openmpi
    one_line_before_anything_runs
    [[ "$output" == "nbhbench: tune: the assessment of "*" has no guideline GL7 (it has: GL8)" ]]
}

@test "tune with a library parameter the library does not know" {
    run "$NBH" tune "$(analysis violated)" --guideline GL8 --campaign "$NBH_REPO/tests/tune/campaigns/gl8" \
        --env local-openmpi --param coll_tuned_alltoall_algoritm=2 --budget 100
    one_line_before_anything_runs
    [[ "$output" == "nbhbench: tune: --param coll_tuned_alltoall_algoritm: library parameter coll_tuned_alltoall_algoritm is not known to openmpi (MPI_T lists "*" control variables; the closest: coll_tuned_alltoall_algorithm)" ]]
}

@test "tune with a budget too small for one look" {
    run "$NBH" tune "$(analysis violated)" --guideline GL8 --campaign "$NBH_REPO/tests/tune/campaigns/gl8" \
        --env local-openmpi --budget 10
    one_line_before_anything_runs
    [[ "$output" == "nbhbench: tune: --budget 10 is too small for one look: the first round runs each of the "*" candidates 5 times ("*" runs; or fewer candidates, or --first)" ]]
}

@test "tune with one run a candidate before the first look" {
    run "$NBH" tune "$(analysis violated)" --guideline GL8 --campaign "$NBH_REPO/tests/tune/campaigns/gl8" \
        --env local-openmpi --first 1
    one_line_before_anything_runs
    [[ "$output" == "nbhbench: tune: --first 1: at least 2 runs (one pair of launches leaves the test across launches no degree of freedom)" ]]
}

@test "tune --list shows the space and runs nothing" {
    run "$NBH" tune "$(analysis violated violated)" --guideline GL8 --campaign "$NBH_REPO/tests/tune/campaigns/gl8" \
        --env local-openmpi --budget 100 --list
    [ "$status" -eq 0 ]
    [[ "$output" == *"alltoall_linear_sync"*"coll_tuned_alltoall_algorithm=linear_sync  [MPI_T]"* ]]
    [[ "$output" == *"left out: coll_tuned_alltoall_algorithm=ignore: the library's own choice (the default) (registry/tuning.csv)"* ]]
    [[ "$output" == *"in force by default (MPI_T): coll_tuned_alltoall_algorithm=ignore"* ]]
    # what the first look needs of the launch-paired test: 7 candidates but the best, 2 cells
    [[ "$output" == *"first look: 14 tests, Holm's first threshold "*"; each over 5 pairs of launches (4 degrees of freedom, t = "*"): a candidate leaves only where its pairs' mean log ratio to the best is "*" times their spread or more"* ]]
    [ ! -e "$NBH_TUNES" ]
}

@test "tune --resume of a tune that does not exist" {
    run "$NBH" tune --resume nothing-here
    one_line_before_anything_runs
    [[ "$output" == "nbhbench: tune: no tune nothing-here to go on with ("*"/tunes/nothing-here has no tune.json)" ]]
}

@test "tune --relook of a tune that does not exist" {
    run "$NBH" tune --relook nothing-here
    one_line_before_anything_runs
    [[ "$output" == "nbhbench: tune: no tune nothing-here to look at again ("*"/tunes/nothing-here has no tune.json)" ]]
}

@test "tune --relook of a tune whose race has not looked yet" {
    mkdir -p "$NBH_TUNES/young"
    echo '{"name": "young", "race": {"looks": []}}' >"$NBH_TUNES/young/tune.json"
    run "$NBH" tune --relook young
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == "nbhbench: tune: young has no look to make again (its race has not looked yet)" ]]
    [ ! -e "$NBH_TUNES/young/relook" ]
}
