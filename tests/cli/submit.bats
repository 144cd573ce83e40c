#!/usr/bin/env bats
# nbhbench submit CAMPAIGN [--wait] [--resume]

load workflow_helpers

setup() { workflow_setup; }

@test "submit --help prints the usage" {
    run "$NBH" submit --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"Usage: nbhbench submit CAMPAIGN [--wait] [--resume]"* ]]
}

@test "nbhbench help lists submit" {
    run "$NBH" help
    [[ "$output" == *"submit "*"run a generated campaign"* ]]
}

@test "submit runs local runs with a progress line and a log per run" {
    tiny_demo
    run "$NBH" submit demo --wait
    [ "$status" -eq 0 ]
    [[ "$output" == *"run 1/1 1x4-default-r001: 10/10 experiments | campaign 10/10 | elapsed "*" | ETA "*"-> done"* ]]
    [[ "${lines[-1]}" == "demo: 1 runs: 1 done" ]]
    grep -q "attempt 1 ends with exit code 0" "$NBH_WORK/demo/logs/1x4-default-r001.a1.log"
}

@test "submit again leaves submitted runs alone" {
    tiny_demo
    "$NBH" submit demo >/dev/null
    run "$NBH" submit demo --resume
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "demo: nothing to submit (0 pending or running, 1 done)" ]]
}

@test "submit exits 1 when a run fails, and --resume tries it again" {
    "$NBH" generate demo --env "$(failing_env)" --set nrun=1 >/dev/null
    run "$NBH" submit demo
    [ "$status" -eq 1 ]
    [[ "$output" == *"-> failed (the launcher exited with 1)"* ]]
    [ "${lines[-1]}" = "demo: 1 runs: 1 failed; the failed or timed-out runs' missing experiments go on with: nbhbench submit --resume demo" ]
    run "$NBH" submit demo
    [[ "$output" == *"1 failed or timed out: nbhbench submit --resume demo"* ]]
    run "$NBH" submit demo --resume
    [ "$status" -eq 1 ]
    [ -f "$NBH_WORK/demo/jobs/1x4-default-r001.a2.sh" ]
}

@test "submit of a campaign not generated fails with exit 2" {
    run "$NBH" submit demo
    [ "$status" -eq 2 ]
    [[ "$output" == "nbhbench: campaign demo has not been generated yet"* ]]
}

@test "submit without CAMPAIGN fails with exit 2" {
    run "$NBH" submit
    [ "$status" -eq 2 ]
    [[ "$output" == *"no CAMPAIGN given"* ]]
}

@test "submit with an unknown option fails with exit 2" {
    tiny_demo
    run "$NBH" submit demo --later
    [ "$status" -eq 2 ]
    [[ "$output" == *"unrecognized arguments: --later"* ]]
}

@test "submit without a built kernel fails with exit 4" {
    NBH_BUILD=$BATS_TEST_TMPDIR/nobuild tiny_demo
    run "$NBH" submit demo
    [ "$status" -eq 4 ]
    [[ "$output" == *"nobuild/openmpi/nbh-kernel is not built (run: nbhbench build --env local-openmpi)" ]]
}

@test "generate and submit name install-mpi for a release that is not installed" {
    sed -e 's|^mpicc = .*|mpicc = {root}/.mpi/openmpi-9.9.9/bin/mpicc|' -e 's/^library = .*/library = openmpi-9.9.9/' \
        "$NBH_REPO/env/local-openmpi5" >"$BATS_TEST_TMPDIR/local-9"
    run "$NBH" generate demo --env "$BATS_TEST_TMPDIR/local-9" --set nrun=1 --set nrep=3
    [ "$status" -eq 0 ]
    [[ "${lines[2]}" == *"(next: nbhbench install-mpi openmpi==9.9.9, nbhbench build --env local-9, then nbhbench submit demo)" ]]
    run "$NBH" submit demo
    [ "$status" -eq 4 ]
    [[ "$output" == *"/openmpi-9.9.9/nbh-kernel is not built: openmpi-9.9.9 is not installed (run: nbhbench install-mpi openmpi==9.9.9, then nbhbench build --env local-9)" ]]
}

@test "submit to Slurm without sbatch fails with exit 5" {
    tiny_demo slurm-openmpi
    mkdir "$BATS_TEST_TMPDIR/bin"
    for tool in bash env readlink dirname sed; do ln -s "$(command -v "$tool")" "$BATS_TEST_TMPDIR/bin/"; done
    PATH=$BATS_TEST_TMPDIR/bin run "$NBH" submit demo
    [ "$status" -eq 5 ]
    [[ "$output" == *"submits to Slurm, but there is no sbatch here"* ]]
}

@test "a second submit while one runs fails with exit 1" {
    "$NBH" generate "$NBH_REPO/tests/workflow/campaigns/slow" --set nrep=50 >/dev/null
    "$NBH" submit slow >/dev/null 2>&1 &
    first=$!
    for _ in $(seq 50); do [ -f "$NBH_WORK/slow/attempts/1x2-default-r001.a1.json" ] && break; sleep 0.1; done
    run "$NBH" submit slow
    kill -TERM "$first"
    wait "$first" || true
    [ "$status" -eq 1 ]
    [[ "$output" == "nbhbench: another nbhbench submit is running for slow; see nbhbench status slow" ]]
    run "$NBH" status slow
    [[ "${lines[2]}" == *"failed"*"interrupted" ]]
}
