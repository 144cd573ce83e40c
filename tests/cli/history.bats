#!/usr/bin/env bats
# nbhbench history add|list|trend|changes|page: usage and bad input (the
# commands' work is tested in tests/history/).

setup() {
    NBH="$BATS_TEST_DIRNAME/../../nbhbench"
    cd "$BATS_TEST_TMPDIR" || return 1
}

@test "history --help prints the usage of every subcommand" {
    run "$NBH" history --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"Usage: nbhbench history add [--db DB] ARCHIVE|ANALYSIS ..."* ]]
    for sub in list trend changes page; do
        [[ "$output" == *"nbhbench history $sub"* ]]
    done
}

@test "nbhbench help lists history" {
    run "$NBH" help
    [[ "$output" == *"history "*"results history"* ]]
}

@test "history without a subcommand, or an unknown one, is one line and exit 2" {
    run "$NBH" history
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == "nbhbench: usage: nbhbench history add|list|trend|changes|page"* ]]
    run "$NBH" history forget
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: history: unknown subcommand 'forget' (add, list, trend, changes, page)" ]
}

@test "history list of a history that is not there is one line" {
    run "$NBH" history list --db "$BATS_TEST_TMPDIR/none.db"
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: $BATS_TEST_TMPDIR/none.db: no such history (nbhbench history add creates one)" ]
    [ ! -e "$BATS_TEST_TMPDIR/none.db" ]
}

@test "NBH_HISTORY names the default history" {
    NBH_HISTORY="$BATS_TEST_TMPDIR/env.db" run "$NBH" history changes
    [ "$status" -eq 2 ]
    [[ "$output" == *"$BATS_TEST_TMPDIR/env.db: no such history"* ]]
}

@test "history add of a directory that is no archive nor analysis is one line" {
    mkdir plain
    run "$NBH" history add --db "$BATS_TEST_TMPDIR/h.db" plain
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: plain: neither an nbhbench archive (no archive.json) nor an analysis (no .nbhbench-analysis)" ]
    run "$NBH" history add --db "$BATS_TEST_TMPDIR/h.db"
    [ "$status" -eq 2 ]
    [[ "$output" == *"the following arguments are required: paths"* ]]
}

@test "history options with bad values are one line" {
    run "$NBH" history changes --db x.db --alpha 2
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: --alpha: 2.0 is not between 0 and 1" ]
    run "$NBH" history changes --db x.db --min-ratio 0.5
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: --min-ratio: 0.5 is below 1" ]
    run "$NBH" history list --db x.db --by size
    [ "$status" -eq 2 ]
    [[ "$output" == *"--by: invalid choice: 'size'"* ]]
    run "$NBH" history page --db x.db --max-cells -1
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: --max-cells: -1 is below 0 (0 draws no chart)" ]
}

@test "a database that cannot be reached is one line and exit 1, without its password" {
    run "$NBH" history list --db "postgresql://nobody:s3cret@127.0.0.1:1/none?password=s3cret"
    [ "$status" -eq 1 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == "nbhbench: postgresql://nobody:***@127.0.0.1:1/none?password=***: cannot connect"* ]]
    [[ "$output" != *s3cret* ]]
}

@test "the default history is history.db beside the archives" {
    NBH_ARCHIVES="$BATS_TEST_TMPDIR/archives" run "$NBH" history list
    [ "$status" -eq 2 ]
    [ "$output" = "nbhbench: $BATS_TEST_TMPDIR/archives/history.db: no such history (nbhbench history add creates one)" ]
}
