# Shared set-up of the workflow commands' bats tests (build, generate,
# submit, status, archive): a private work and archive folder per test.
# shellcheck shell=bash

NBH_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export NBH_ROOT=$NBH_REPO
NBH=$NBH_REPO/nbhbench

workflow_setup() {
    export NBH_WORK=$BATS_TEST_TMPDIR/work
    export NBH_ARCHIVES=$BATS_TEST_TMPDIR/archives
    export NBH_POLL_SECONDS=0.5
}

# An environment file like local-openmpi whose launcher always fails.
failing_env() {
    sed 's/^launcher = .*/launcher = false {nprocs}/' "$NBH_REPO/env/local-openmpi" >"$BATS_TEST_TMPDIR/failing-env"
    echo "$BATS_TEST_TMPDIR/failing-env"
}

# A tiny local campaign: demo with one run of two repetitions.
tiny_demo() {
    "$NBH" generate demo --env "${1:-local-openmpi}" --set nrun=1 --set nrep=2 --set msize=64 >/dev/null
}
