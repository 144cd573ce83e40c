#!/usr/bin/env bats
# The dispatcher, nbhbench dims, nbhbench deps, nbhbench demo, nbhbench list
# and make -j2.
bats_require_minimum_version 1.5.0

setup() {
    NBH_REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
    NBH=$NBH_REPO/nbhbench
}

@test "nbhbench help lists every command with its summary" {
    run "$NBH" help
    [ "$status" -eq 0 ]
    for command in analyze archive build deps demo dims generate history install-mpi list plan status submit tune; do
        [[ "$output" == *"  $command "* ]]
    done
    [[ "$output" == *"dims         the grid nbhbench uses for P processes in NDIM dimensions"* ]]
    [[ "$output" == *"install-mpi  install an MPI release (openmpi5, mpich5, intelmpi, or mpich==X.Y.Z) into .mpi/"* ]]
}

@test "nbhbench help COMMAND and COMMAND --help print the same usage" {
    run "$NBH" help dims
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "Usage: nbhbench dims [--compare] P NDIM" ]]
    help_output=$output
    run "$NBH" dims --help
    [ "$output" = "$help_output" ]
}

@test "an unknown command is one line and exit 2" {
    run "$NBH" frobnicate
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: no such command 'frobnicate' (see: nbhbench help)" ]
}

@test "a misspelt command gets the closest one (a swap of two letters too)" {
    run "$NBH" lsit
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: no such command 'lsit' (did you mean list? see: nbhbench help)" ]
    run "$NBH" analyse
    [ "$output" = "nbhbench: no such command 'analyse' (did you mean analyze? see: nbhbench help)" ]
}

@test "dims prints tuw_dims_create's grid" {
    run "$NBH" dims 12 2
    [ "$status" -eq 0 ]
    [ "$output" = "4 3" ]
    run "$NBH" dims 72 2
    [ "$output" = "9 8" ]
    run "$NBH" dims 100 3
    [ "$output" = "5 5 4" ]
}

@test "dims --compare shows each library's MPI_Dims_create beside it" {
    run "$NBH" dims --compare 72 2
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "tuw_dims_create: 9 8" ]
    [[ "$output" == *"openmpi MPI_Dims_create: 12 6"* ]]
    [[ "$output" == *"mpich MPI_Dims_create: 9 8"* ]]
    compared=$output
    run "$NBH" dims 72 2 --compare   # the option after P NDIM, as the README's line has it
    [ "$status" -eq 0 ]
    [ "$output" = "$compared" ]
}

@test "dims refuses bad arguments with one line and exit 2" {
    run "$NBH" dims 0 2
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: P: 0 is below 1" ]
    run "$NBH" dims 12 9
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: NDIM: 9 is above 8" ]
    run "$NBH" dims twelve 2
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: P: 'twelve' is not a non-negative integer" ]
    run "$NBH" dims 12
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: usage: nbhbench dims [--compare] P NDIM" ]
    run "$NBH" dims 12 2 --comapre
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: dims: unknown option '--comapre' (usage: nbhbench dims [--compare] P NDIM)" ]
}

@test "deps --check prints nothing when everything is installed" {
    run "$NBH" deps --check
    [ "$status" -eq 0 ]
    [ -z "$output" ]
}

@test "deps --check names what is missing, with its package, and exits 1" {
    # A PATH without shellcheck and Chromium, and a virtual environment that is not there.
    mkdir "$BATS_TEST_TMPDIR/bin"
    for tool in bash sed grep cut sort tr id cat dirname readlink gcc make git Rscript \
                mpicc.openmpi mpirun.openmpi mpicc.mpich mpirun.mpich sbatch slurmctld slurmd munged bats; do
        ln -s "$(command -v "$tool")" "$BATS_TEST_TMPDIR/bin/$tool"
    done
    ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$BATS_TEST_TMPDIR/bin/python3"
    PATH=$BATS_TEST_TMPDIR/bin NBH_VENV=$BATS_TEST_TMPDIR/venv run "$NBH" deps --check
    [ "$status" -eq 1 ]
    [[ "$output" == *"  shellcheck "*"shellcheck"* ]]
    [[ "$output" == *"Chromium, headless (chromium, chromedriver)"*"chromium chromium-driver"* ]]
    [[ "$output" == *"Python packages in $BATS_TEST_TMPDIR/venv"* ]]
    [[ "$output" != *"Open MPI"* ]]
}

@test "deps refuses an unknown option" {
    run "$NBH" deps --frobnicate
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: unknown option '--frobnicate' (usage: nbhbench deps [--check])" ]
}

@test "demo with a library that has no environment is one line and exit 2" {
    run "$NBH" demo now
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: demo: no environment env/local-now for library 'now' (libraries: openmpi mpich openmpi5 mpich5 intelmpi)" ]
}

@test "list names every shipped campaign and environment with its description" {
    run "$NBH" list
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "Campaigns (campaigns/NAME; nbhbench generate NAME --env ENV):" ]
    for campaign in "$NBH_REPO"/campaigns/*/; do
        campaign=$(basename "$campaign")
        [[ "$output" == *"  $campaign "* ]] || { echo "missing $campaign"; return 1; }
    done
    [[ "$output" == *"  demo "*"1x4"*"nrun 10"*"local-openmpi   A few minutes at 4 ranks on 2 cores"* ]]
    [[ "$output" == *"Environments (env/NAME; --env NAME):"* ]]
    [[ "$output" == *"  slurm-mpich     mpich     slurm  MPICH 4.0"* ]]
    run "$NBH" list environments
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "Environments (env/NAME; --env NAME):" ]
    [ "${#lines[@]}" -eq "$(($(ls "$NBH_REPO/env" | wc -l) + 1))" ]
    run --separate-stderr "$NBH" list everything
    [ "$status" -eq 2 ]
    [ "$stderr" = "nbhbench: list: unknown list 'everything' (all 24: nbhbench list --help)" ]
    run --separate-stderr "$NBH" list oprations
    [ "$status" -eq 2 ]
    [[ "$stderr" == "nbhbench: list: unknown list 'oprations' (did you mean operations? "* ]]
}

@test "list names every operation, topology, constructor, order, datatype, arrival pattern, start and parameter of the registry" {
    run "$NBH" list
    [ "$status" -eq 0 ]
    for table in operations topologies constructors orders datatypes arrivals syncs parameters; do
        [[ "$output" == *"registry/$table.csv):"* ]] || { echo "no $table"; return 1; }
        for name in $(tail -n +2 "$NBH_REPO/registry/$table.csv" | cut -d, -f1); do
            [[ "$output" == *$'\n'"  $name "* ]] || { echo "missing $table $name"; return 1; }
        done
    done
    run "$NBH" list op
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "Operations (op = NAME; registry/operations.csv):" ]
    [ "${#lines[@]}" -eq "$(wc -l <"$NBH_REPO/registry/operations.csv")" ]  # a heading and a line per row
    [[ "${lines[3]}" == "  neighbor_alltoall "*"MPI_Neighbor_alltoall "*"every process sends a distinct block"* ]]
    run "$NBH" list orders
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "Orders (order = NAME, as the topology allows; registry/orders.csv):" ]
}

@test "make -j2 builds a library's kernel and tools into an empty build folder" {
    build=$BATS_TEST_TMPDIR/build
    run make -C "$NBH_REPO" -j2 kernel LIBRARY=openmpi MPICC=mpicc.openmpi BUILD="$build"
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    for f in nbh-kernel nbh-mpi-dims libnbh-yield.so libnbh-slowdown.so libnbh-reorder.so unit-tests; do
        [ -f "$build/openmpi/$f" ] || { echo "missing $f"; return 1; }
    done
}
