#!/usr/bin/env bats
# nbhbench generate CAMPAIGN [--env ENV] [--set KEY=VALUE ...]
bats_require_minimum_version 1.5.0

load workflow_helpers

setup() { workflow_setup; }

@test "generate --help prints the usage" {
    run "$NBH" generate --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"Usage: nbhbench generate CAMPAIGN [--env ENV] [--set KEY=VALUE ...]"* ]]
}

@test "nbhbench help lists generate" {
    run "$NBH" help
    [[ "$output" == *"generate "*"per-run inputs and job scripts"* ]]
}

@test "generate writes the workspace and says what it made" {
    run "$NBH" generate demo --env local-openmpi --set nrun=3
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "demo: 30 experiments x 3 runs"* ]]
    [ -f "$NBH_WORK/demo/experiments.csv" ]
    [ -f "$NBH_WORK/demo/inputs/1x4-default-r003.csv" ]
    [ -x "$NBH_WORK/demo/jobs/1x4-default-r003.a1.sh" ]
}

@test "generate takes the campaign's env when --env is not given" {
    run "$NBH" generate demo
    [ "$status" -eq 0 ]
    [[ "$output" == *"environment local-openmpi"* ]]
}

@test "generate takes the path of a user's campaign directory" {
    cp -r "$NBH_REPO/campaigns/demo" "$BATS_TEST_TMPDIR/mine"
    run "$NBH" generate "$BATS_TEST_TMPDIR/mine" --set nrun=1
    [ "$status" -eq 0 ]
    [ -f "$NBH_WORK/mine/runs.csv" ]
}

@test "generate --set launch_env puts the variable into the job script" {
    run "$NBH" generate demo --set nrun=1 --set launch_env=MY_TOOL=on --set launch_env=OTHER=2
    [ "$status" -eq 0 ]
    grep -q -- "-x MY_TOOL=on -x OTHER=2" "$NBH_WORK/demo/jobs/1x4-default-r001.a1.sh"
}

@test "generate --set with an unknown key fails with exit 2" {
    run "$NBH" generate demo --set colour=red
    [ "$status" -eq 2 ]
    [[ "$output" == "nbhbench: --set colour=red: unknown key 'colour'"* ]]
    [ ! -e "$NBH_WORK/demo" ]
}

@test "generate --set without = fails with exit 2" {
    run "$NBH" generate demo --set nrun
    [ "$status" -eq 2 ]
    [[ "$output" == "nbhbench: --set nrun: expected KEY=VALUE" ]]
}

@test "generate --set with an impossible level fails with exit 2" {
    run "$NBH" generate demo --set ndim=3
    [ "$status" -eq 2 ]
    [[ "$output" == *"no experiment with ndim=3 (its levels: 2)"* ]]
}

@test "generate without CAMPAIGN fails with exit 2" {
    run "$NBH" generate
    [ "$status" -eq 2 ]
    [[ "$output" == *"no CAMPAIGN given"* ]]
}

@test "generate with a misspelt campaign names the closest shipped one" {
    run "$NBH" generate dmeo
    [ "$status" -eq 2 ]
    [[ "$output" == "nbhbench: unknown campaign 'dmeo' (did you mean demo? campaigns/ has: app-graphs, "* ]]
}

@test "generate with an unknown campaign lists the shipped ones" {
    run "$NBH" generate nope
    [ "$status" -eq 2 ]
    [[ "$output" == "nbhbench: unknown campaign 'nope' (campaigns/ has: app-graphs, arrival, datatypes, demo, "* ]]
}

@test "generate with an unknown environment fails with exit 2" {
    run "$NBH" generate demo --env nope
    [ "$status" -eq 2 ]
    [[ "$output" == "nbhbench: unknown environment 'nope'"* ]]
}

@test "generate with an unknown option fails with exit 2" {
    run "$NBH" generate demo --frobnicate
    [ "$status" -eq 2 ]
    [[ "$output" == *"unrecognized arguments: --frobnicate"* ]]
}

@test "generate with a malformed campaign.conf names file and line" {
    cp -r "$NBH_REPO/campaigns/demo" "$BATS_TEST_TMPDIR/mine"
    sed -i 's/^nrep = 30/nrep 30/' "$BATS_TEST_TMPDIR/mine/campaign.conf"
    run "$NBH" generate "$BATS_TEST_TMPDIR/mine"
    [ "$status" -eq 2 ]
    [[ "$output" == *"mine/campaign.conf:9: malformed line 'nrep 30'"* ]]
}

@test "generate refuses to replace unarchived results (exit 3)" {
    tiny_demo
    "$NBH" submit demo >/dev/null
    run "$NBH" generate demo
    [ "$status" -eq 3 ]
    [[ "$output" == *"holds results that are not archived"* ]]
    [ -f "$NBH_WORK/demo/results/1x4-default-r001.a1.results.csv" ]
}

@test "generate warns when nrun is too few launches for the two-level test: at 3 runs, not at 6, whatever the rounds" {
    run --separate-stderr "$NBH" generate demo --env local-openmpi --set nrun=3 --set blocks=10
    [ "$status" -eq 0 ]
    [ "${#stderr_lines[@]}" -eq 1 ]
    [[ "${stderr_lines[0]}" == "nbhbench: warning: nrun=3 can show a violation only where the runs agree closely: "*"(2 degrees of freedom, t = 22.3 at p = 0.001)"*"use nrun >= 6"* ]]
    [ -f "$NBH_WORK/demo/inputs/1x4-default-r003.csv" ]
    run --separate-stderr "$NBH" generate demo --env local-openmpi --set nrun=1 --set blocks=10
    [ "$status" -eq 0 ]
    [[ "${stderr_lines[0]}" == "nbhbench: warning: nrun=1 cannot show a violation: the two-level test compares launches"* ]]
    run --separate-stderr "$NBH" generate demo --env local-openmpi --set nrun=6 --set blocks=1
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
}

@test "generate refuses more rounds than repetitions, and an aa that is no share, in one line" {
    run --separate-stderr "$NBH" generate demo --env local-openmpi --set blocks=31
    [ "$status" -eq 2 ]
    [ "${#stderr_lines[@]}" -eq 1 ]
    [[ "${stderr_lines[0]}" == "nbhbench: blocks 31 is more than nrep 30 (blocks from --set, nrep from "*"): every round needs at least one repetition of every experiment; use blocks <= nrep" ]]
    run --separate-stderr "$NBH" generate demo --env local-openmpi --set aa=maybe
    [ "$status" -eq 2 ]
    [[ "${stderr_lines[0]}" == "nbhbench: --set aa=maybe: 'maybe' is not yes, no or a share of the experiments (0 < share <= 1)" ]]
    run --separate-stderr "$NBH" generate demo --env local-openmpi --set aa=1.5
    [ "$status" -eq 2 ]
    [[ "${stderr_lines[0]}" == "nbhbench: --set aa=1.5: 1.5 is not a share of the experiments (0 < share <= 1)" ]]
}

@test "generate leaves out the parameter sets of another library, one line on stderr" {
    run "$NBH" generate progress-tuning --env local-mpich --set nrun=1
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "nbhbench: generate: parameter sets tcp, tcp_progress_thread are for another library than mpich (openmpi); left out" ]]
    [[ "$output" == *"progress-tuning: 108 experiments x 2 runs"* ]]
    [ "$(cut -d, -f1 "$NBH_WORK/progress-tuning/param_sets.csv" | sort -u | tr '\n' ' ')" = "async_progress default param_set " ]
}

@test "generate refuses a parameter set of another library chosen with --set" {
    run "$NBH" generate progress-tuning --env local-openmpi --set param_set=async_progress
    [ "$status" -eq 2 ]
    [[ "$output" == "nbhbench: --set param_set: parameter set async_progress is for mpich, not openmpi" ]]
}

@test "generate of a campaign with persistent operations needs the kernel built" {
    NBH_BUILD=$BATS_TEST_TMPDIR/empty run "$NBH" generate progress --env local-openmpi
    [ "$status" -eq 2 ]
    [[ "$output" == "nbhbench: the campaign has operations that not every MPI library has (neighbor_allgather_init, "*"); build the kernel first so that generate knows whether openmpi has them (nbhbench build --env local-openmpi)" ]]
}

@test "generate refuses a work_factor with work_us in one experiment" {
    cp -r "$NBH_REPO/campaigns/demo" "$BATS_TEST_TMPDIR/both"
    sed -i 's/levels(msize=\[64, 1024, 16384\])/levels(msize=64, work_us=10, work_factor=1)/' "$BATS_TEST_TMPDIR/both/experiments.py"
    run "$NBH" generate "$BATS_TEST_TMPDIR/both"
    [ "$status" -eq 2 ]
    [[ "$output" == *"experiments.py:"*": work_factor 1 given with work_us 10: give the busy work in microseconds or as a factor, not both"* ]]
}
