#!/usr/bin/env bats
# nbhbench status CAMPAIGN

load workflow_helpers

setup() { workflow_setup; }

@test "status --help prints the usage" {
    run "$NBH" status --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"Usage: nbhbench status CAMPAIGN"* ]]
}

@test "nbhbench help lists status" {
    run "$NBH" help
    [[ "$output" == *"status "*"show each run"* ]]
}

@test "status of a generated campaign shows every run pending" {
    "$NBH" generate demo --set nrun=2 >/dev/null
    run "$NBH" status demo
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "demo: 2 runs (2 pending), 0/60 experiments; environment local-openmpi, scheduler local" ]]
    [[ "${lines[1]}" == "run"*"state"*"experiments"*"attempts"*"job"*"exit"*"layout"*"note" ]]
    [[ "${lines[2]}" == "1x4-default-r001  pending  0/30"*"not submitted" ]]
}

@test "status shows done runs with their experiments" {
    tiny_demo
    "$NBH" submit demo >/dev/null
    run "$NBH" status demo
    [ "$status" -eq 0 ]
    # four processes on this machine's one host, as asked (oversubscribed with fewer than 4 cores)
    [[ "${lines[2]}" =~ ^1x4-default-r001\ +done\ +10/10\ +1\ +0\ +ok(,oversubscribed)?$ ]]
}

@test "status shows a failed run with its exit code" {
    "$NBH" generate demo --env "$(failing_env)" --set nrun=1 >/dev/null
    "$NBH" submit demo >/dev/null || true
    run "$NBH" status demo
    [[ "${lines[2]}" =~ ^1x4-default-r001\ +failed\ +0/30\ +1\ +1\ +the\ launcher\ exited\ with\ 1$ ]]
}

@test "status takes the campaign's path too" {
    "$NBH" generate demo --set nrun=1 >/dev/null
    run "$NBH" status "$NBH_REPO/campaigns/demo"
    [ "$status" -eq 0 ]
}

@test "status of a campaign not generated fails with exit 2" {
    run "$NBH" status demo
    [ "$status" -eq 2 ]
    [[ "$output" == *"has not been generated yet"* ]]
}

@test "status of a misspelt campaign names the generated one it was likely meant to be" {
    "$NBH" generate demo --set nrun=1 >/dev/null
    run "$NBH" status dmeo
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: campaign dmeo has not been generated (did you mean demo? generated: demo)" ]
}

@test "status without CAMPAIGN fails with exit 2" {
    run "$NBH" status
    [ "$status" -eq 2 ]
}

@test "status with two campaigns fails with exit 2" {
    run "$NBH" status demo other
    [ "$status" -eq 2 ]
    [[ "$output" == *"unrecognized arguments: other"* ]]
}
