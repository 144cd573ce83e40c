#!/usr/bin/env bats
# nbhbench build [--env ENV]

load workflow_helpers

setup() { workflow_setup; }

@test "build --help prints the usage" {
    run "$NBH" build --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"Usage: nbhbench build [--env ENV]"* ]]
}

@test "nbhbench help lists build" {
    run "$NBH" help
    [[ "$output" == *"build "*"compile the kernel"* ]]
}

@test "build --env ENV builds that environment's library" {
    run "$NBH" build --env local-mpich
    [ "$status" -eq 0 ]
    [[ "${lines[-1]}" == "built $NBH_REPO/build/mpich/nbh-kernel" ]]
    [ -x "$NBH_REPO/build/mpich/nbh-kernel" ]
}

@test "build without --env builds every library found" {
    run "$NBH" build
    [ "$status" -eq 0 ]
    [[ "$output" == *"built $NBH_REPO/build/openmpi/nbh-kernel"* ]]
    [[ "$output" == *"built $NBH_REPO/build/mpich/nbh-kernel"* ]]
}

@test "build --env with an unknown environment fails with exit 2" {
    run "$NBH" build --env nope
    [ "$status" -eq 2 ]
    [[ "$output" == "nbhbench: unknown environment 'nope'"* ]]
}

@test "build --env without a value fails with exit 2" {
    run "$NBH" build --env
    [ "$status" -eq 2 ]
    [[ "$output" == *"--env needs a value"* ]]
}

@test "build with an unknown argument fails with exit 2" {
    run "$NBH" build --frobnicate
    [ "$status" -eq 2 ]
    [[ "$output" == *"unknown argument '--frobnicate'"* ]]
}

@test "build with an mpicc that is not installed fails with exit 3" {
    sed 's/^mpicc = .*/mpicc = mpicc.nothere/' "$NBH_REPO/env/local-openmpi" >"$BATS_TEST_TMPDIR/env"
    run "$NBH" build --env "$BATS_TEST_TMPDIR/env"
    [ "$status" -eq 3 ]
    [[ "${lines[-1]}" == "nbhbench: build: mpicc.nothere not found"* ]]
}

@test "build for a release install-mpi installs, not installed: the line names install-mpi" {
    sed -e 's|^mpicc = .*|mpicc = {root}/.mpi/openmpi-9.9.9/bin/mpicc|' -e 's/^library = .*/library = openmpi-9.9.9/' \
        "$NBH_REPO/env/local-openmpi5" >"$BATS_TEST_TMPDIR/env"
    run "$NBH" build --env "$BATS_TEST_TMPDIR/env"
    [ "$status" -eq 3 ]
    [[ "${lines[-1]}" == "nbhbench: build: "*"/.mpi/openmpi-9.9.9/bin/mpicc not found (environment "*"/env): openmpi-9.9.9 is not installed (run: nbhbench install-mpi openmpi==9.9.9)" ]]
}

@test "build with a broken environment file names its line" {
    printf 'library = x\nmpicc\n' >"$BATS_TEST_TMPDIR/env"
    run "$NBH" build --env "$BATS_TEST_TMPDIR/env"
    [ "$status" -eq 2 ]
    [[ "$output" == *"env:2: malformed line 'mpicc'"* ]]
}
