#!/usr/bin/env bats
# nbhbench plan: what more launches or more rounds would give, from an
# analysis's plan.csv; bad input is one line.
bats_require_minimum_version 1.5.0

setup_file() {
    export NBH_ROOT="$BATS_TEST_DIRNAME/../.."
    export ARCHIVES="$BATS_FILE_TMPDIR/archives" ANALYSES="$BATS_FILE_TMPDIR/analyses"
    local gen="$NBH_ROOT/tests/analyze/synthetic_archive.R"
    Rscript --vanilla "$gen" --campaign small --out "$ARCHIVES/rounds" --deployments 1x4 \
        --nrun 8 --nrep 20 --blocks 5 --phase-sd 0.2 --plant-fraction 0 --seed 8 >/dev/null
    Rscript --vanilla "$gen" --campaign small --out "$ARCHIVES/plain" --deployments 1x4 \
        --nrun 8 --nrep 10 --plant-fraction 0 --seed 9 >/dev/null
    "$NBH_ROOT/nbhbench" analyze "$ARCHIVES/rounds" --out "$ANALYSES/rounds" --no-plots >/dev/null 2>&1
    "$NBH_ROOT/nbhbench" analyze "$ARCHIVES/plain" --out "$ANALYSES/plain" --no-plots >/dev/null 2>&1
}

nbhbench() {
    "$NBH_ROOT/nbhbench" "$@"
}

assert_one_line_error() {
    [ "$status" -eq "$1" ] || { echo "status $status, expected $1: $stderr"; return 1; }
    [ "${#stderr_lines[@]}" -eq 1 ] || { echo "stderr has ${#stderr_lines[@]} lines: $stderr"; return 1; }
    [[ ${stderr_lines[0]} =~ $2 ]] || { echo "stderr: ${stderr_lines[0]}"; return 1; }
}

@test "analyze writes plan.csv and the report's section; plan prints it for the hold ratio" {
    [ -f "$ANALYSES/rounds/plan.csv" ]
    head -n1 "$ANALYSES/rounds/plan.csv" | grep -q '^guideline_no,tag,guideline,library,param_set,deployment,nprocs,tests,runs,rounds,var_launch,var_round,launch_share,half_width,target,runs_needed,rounds_needed,best_rounds,runs_at_best,'
    grep -q '^## Where the next hour goes$' "$ANALYSES/rounds/report.md"
    run --separate-stderr nbhbench plan "$ANALYSES/rounds"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "target: +/-3 % (the interval's half-width; the analysis's hold ratio)" ]]
    [[ $output == *"8 x 5"* ]]
    [[ $output == *"more launches: "* || $output == *"more rounds: "* || $output == *"already within"* ]]
}

@test "plan --target: a wider target needs no more runs than a narrower one" {
    run --separate-stderr nbhbench plan "$ANALYSES/rounds" --target 1.001
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "target: +/-0.1 % (the interval's half-width; --target)" ]]
    [[ $output == *"more launches: "* ]]
    run --separate-stderr nbhbench plan "$ANALYSES/rounds" --target=1.5
    [ "$status" -eq 0 ]
    [[ $output == *"already within +/-50 %"* ]]
}

@test "plan bad input: no analysis, no plan, a target that is no ratio above 1, an unknown option" {
    run --separate-stderr nbhbench plan
    assert_one_line_error 2 "^nbhbench: usage: nbhbench plan ANALYSIS"
    run --separate-stderr nbhbench plan "$BATS_TEST_TMPDIR/nowhere"
    assert_one_line_error 2 "is not a directory"
    run --separate-stderr nbhbench plan "$ARCHIVES/rounds"
    assert_one_line_error 2 "not an analysis \(no tests.csv\); run nbhbench analyze first$"
    run --separate-stderr nbhbench plan "$ANALYSES/plain"
    assert_one_line_error 2 "plan.csv: no plan: the analysis has no two-level test"
    run --separate-stderr nbhbench plan "$ANALYSES/rounds" --target 0.9
    assert_one_line_error 2 "^nbhbench: --target: '0.9' is not a ratio above 1"
    run --separate-stderr nbhbench plan "$ANALYSES/rounds" --fast
    assert_one_line_error 2 "^nbhbench: unknown option '--fast'"
}
