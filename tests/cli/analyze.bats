#!/usr/bin/env bats
# nbhbench analyze: options, outputs, exit codes, one-line errors.
bats_require_minimum_version 1.5.0

setup_file() {
    export NBH_ROOT="$BATS_TEST_DIRNAME/../.."
    export ARCHIVES="$BATS_FILE_TMPDIR/archives"
    local gen="$NBH_ROOT/tests/analyze/synthetic_archive.R"
    Rscript --vanilla "$gen" --campaign small --out "$ARCHIVES/planted" --deployments 1x4 \
        --nrun 8 --nrep 10 --plant-fraction 0.05 --seed 3 >/dev/null
    Rscript --vanilla "$gen" --campaign small --out "$ARCHIVES/clean" --deployments 1x4 \
        --nrun 8 --nrep 10 --plant-fraction 0 --seed 4 >/dev/null
    Rscript --vanilla "$gen" --campaign small --out "$ARCHIVES/mpich" --deployments 1x4 \
        --nrun 8 --nrep 10 --plant-fraction 0 --seed 5 --library mpich >/dev/null
    Rscript --vanilla "$gen" --campaign small --out "$ARCHIVES/tuning" --deployments 1x4 \
        --nrun 8 --nrep 10 --plant-fraction 0.05 --seed 6 --param-sets default,tuned >/dev/null
}

setup() {
    OUT="$BATS_TEST_TMPDIR/out"
}

nbhbench() {
    "$NBH_ROOT/nbhbench" "$@"
}

# The error case: exit status $1, exactly one line on stderr matching $2, no R traceback.
assert_one_line_error() {
    [ "$status" -eq "$1" ] || { echo "status $status, expected $1: $stderr"; return 1; }
    [ "${#stderr_lines[@]}" -eq 1 ] || { echo "stderr has ${#stderr_lines[@]} lines: $stderr"; return 1; }
    [[ ${stderr_lines[0]} =~ $2 ]] || { echo "stderr: $stderr"; return 1; }
    [[ $stderr != *"Error in"* && $stderr != *"Backtrace"* && $stderr != *"Execution halted"* ]]
}

@test "analyze --help prints the usage; help lists analyze" {
    run nbhbench analyze --help
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "Usage: nbhbench analyze ARCHIVE [ARCHIVE ...] [--assess FILE] [--out DIR]" ]]
    [[ $output == *"--fail-on-violation"* ]]
    [[ $output != *"Summary:"* ]]
    run nbhbench help
    [[ $output == *"analyze      check the guidelines on archives"* ]]
}

@test "usage errors: one line, exit 2" {
    run --separate-stderr nbhbench analyze
    assert_one_line_error 2 "^nbhbench: usage: nbhbench analyze ARCHIVE"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --colour red
    assert_one_line_error 2 "^nbhbench: unknown option '--colour'"
    run --separate-stderr nbhbench analyze "$ARCHIVES/nowhere"
    assert_one_line_error 2 "^nbhbench: .*/nowhere: no such archive directory$"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --p-thres 0
    assert_one_line_error 2 "^nbhbench: --p-thres: 0 is outside 1e-12..1 \(registry/limits.csv: p_thres\)$"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --v-thres 0.5
    assert_one_line_error 2 "^nbhbench: --v-thres: 0.5 is outside 1..100 \(registry/limits.csv: v_thres\)$"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --hold-ratio 0.9
    assert_one_line_error 2 "^nbhbench: --hold-ratio: 0.9 is outside 1..100 \(registry/limits.csv: hold_ratio\)$"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --out "$OUT" --hold-ratio 1.01
    assert_one_line_error 2 "^nbhbench: --hold-ratio: 1.01 is below the ratio threshold 1.03: "
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --max-plots 100001
    assert_one_line_error 2 "^nbhbench: --max-plots: 100001 is above 100000$"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --v-thres much
    assert_one_line_error 2 "^nbhbench: --v-thres: 'much' is not a number$"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --max-plots -1
    assert_one_line_error 2 "^nbhbench: --max-plots: '-1' is not a non-negative integer$"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --out
    assert_one_line_error 2 "^nbhbench: --out needs a value"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --assess /no/such.conf
    assert_one_line_error 2 "^nbhbench: --assess: /no/such.conf is not a file$"
}

@test "an analysis writes every output and prints the report path last" {
    run --separate-stderr nbhbench analyze "$ARCHIVES/planted" --out "$OUT" --pdf
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "$(cd "$OUT" && pwd)/report.html" ]
    [[ $output == *"GL4   neighbor_allgather <= neighbor_alltoall: "*" tests violated ("*" groups)"* ]]
    for f in summary.csv violations.csv tests.csv warnings.txt report.md report.html; do
        [ -s "$OUT/$f" ] || [ "$f" = warnings.txt ]
    done
    [ "$(head -n1 "$OUT/summary.csv")" = "set,tag,guideline,library,param_set,deployment,nprocs,n_vio_tests,n_tests,n_vio_groups,n_groups,n_holds_tests,n_open_tests,min_p_value,min_p_adjusted,smallest_p,power" ]
    [ "$(wc -l <"$OUT/violations.csv")" -gt 1 ]
    ls "$OUT"/plots/overview-*.png "$OUT"/plots/overview-*.pdf "$OUT"/plots/focus-*.png "$OUT"/plots/focus-*.pdf >/dev/null
    ! grep -q 'src="plots/' "$OUT/report.html"
}

@test "--fail-on-violation: exit 3 with violations (outputs written), 0 without" {
    run nbhbench analyze "$ARCHIVES/planted" --out "$OUT" --no-plots --fail-on-violation
    [ "$status" -eq 3 ]
    [ -s "$OUT/report.html" ]
    run nbhbench analyze "$ARCHIVES/clean" --out "$OUT/clean" --no-plots --fail-on-violation
    [ "$status" -eq 0 ]
    [[ $output == *"0 of 320 tests violated"* || $output == *"0 of 160 tests violated"* ]]
}

@test "--hold-ratio: a test holds once its interval is below it, else it is open" {
    run nbhbench analyze "$ARCHIVES/clean" --out "$OUT/a" --no-plots
    [ "$status" -eq 0 ]
    [[ ${lines[-2]} =~ ^0\ of\ 160\ tests\ violated,\ ([0-9]+)\ hold,\ ([0-9]+)\ open ]]
    local holds=${BASH_REMATCH[1]} open=${BASH_REMATCH[2]}
    [ $((holds + open)) -eq 160 ] && [ "$open" -gt 0 ]
    run nbhbench analyze "$ARCHIVES/clean" --out "$OUT/b" --no-plots --hold-ratio=1.5
    [[ ${lines[-2]} == "0 of 160 tests violated, 160 hold, 0 open; report:" ]]
    grep -q '^\*\*Decided: 0 violated, 160 hold, 0 open\*\*' "$OUT/b/report.md"
}

@test "--v-thres and --p-thres are the thresholds (also as --opt=value)" {
    run nbhbench analyze "$ARCHIVES/planted" --out "$OUT" --no-plots --fail-on-violation --v-thres 1.5
    [ "$status" -eq 0 ]
    run nbhbench analyze "$ARCHIVES/planted" --out="$OUT" --no-plots --p-thres=1e-6
    [ "$status" -eq 0 ]
    [[ $output == *"0 of 160 tests violated"* ]]
    # ... and 8 runs a side cannot reach p <= 1e-6 at all: --fail-on-violation fails on that too.
    run nbhbench analyze "$ARCHIVES/planted" --out="$OUT" --no-plots --fail-on-violation --p-thres=1e-6
    [ "$status" -eq 3 ]
    [[ $output == *"CANNOT DETECT"* ]]
    run nbhbench analyze "$ARCHIVES/planted" --out "$OUT" --no-plots --fail-on-violation --v-thres=1.1
    [ "$status" -eq 3 ]
}

@test "an assessment naming an unknown parameter or level: exit 2, one line naming it" {
    printf '[s]\nparameter = op\nvaried = msize\nneighbor_allgather <= neighbor_alltoall,colour=red\n' >"$BATS_TEST_TMPDIR/a.conf"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --out "$OUT" --assess "$BATS_TEST_TMPDIR/a.conf"
    assert_one_line_error 2 "^nbhbench: .*a.conf:4: 'colour' is not a parameter of the archives"
    printf '[s]\nparameter = op\nvaried = msize\nneighbor_allgather <= alltoall\n' >"$BATS_TEST_TMPDIR/b.conf"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --out "$OUT" --assess "$BATS_TEST_TMPDIR/b.conf"
    assert_one_line_error 2 "b.conf:4: level 'alltoall' of parameter op is not in the archives"
}

@test "bad archives: exit 2, one line; an output directory that is not an analysis: exit 6, at once" {
    mkdir -p "$BATS_TEST_TMPDIR/empty"
    run --separate-stderr nbhbench analyze "$BATS_TEST_TMPDIR/empty" --out "$OUT"
    assert_one_line_error 2 "empty: not an archive \(experiments.csv is missing\)$"
    cp -r "$ARCHIVES/clean" "$BATS_TEST_TMPDIR/broken"
    sed -i '2s/,256,/,big,/' "$BATS_TEST_TMPDIR/broken/experiments.csv"
    run --separate-stderr nbhbench analyze "$BATS_TEST_TMPDIR/broken" --out "$OUT"
    assert_one_line_error 2 "broken/experiments.csv:2: column msize: 'big' is not an integer$"
    mkdir -p "$BATS_TEST_TMPDIR/mine" && touch "$BATS_TEST_TMPDIR/mine/thesis.tex"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --out "$BATS_TEST_TMPDIR/mine"
    assert_one_line_error 6 "mine exists and is not an earlier nbhbench analysis \(no .nbhbench-analysis\); nothing there is replaced: choose another --out$"
    [ -f "$BATS_TEST_TMPDIR/mine/thesis.tex" ]
    [ "$(ls -A "$BATS_TEST_TMPDIR/mine")" = thesis.tex ]
}

@test "analyze prints a line per phase with the time since it began, on stdout" {
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --out "$OUT"
    [ "$status" -eq 0 ]
    phases=$(printf '%s\n' "${lines[@]}" | sed -n 's/^analyze: [0-9]*\.[0-9] s: //p' | sed 's/[0-9][0-9]*/N/g')
    # as many runs as the reader had time for while R started: a line where it had any
    ahead='N of the N runs were read ahead while R started'
    [ "$(printf '%s\n' "$phases" | grep -vx "$ahead" | grep -c "read ahead")" -eq 0 ]
    phases=$(printf '%s\n' "$phases" | grep -vx "$ahead")
    [ "$phases" = "reading N archive
reducing N runs to their medians (N cells)
assessing N guidelines
writing the tables and drawing the plots of N tests
writing the report" ]
    # the times never go back
    printf '%s\n' "${lines[@]}" | sed -n 's/^analyze: \([0-9]*\.[0-9]\) s: .*/\1/p' | sort -c -g
    [ "${lines[-1]}" = "$OUT/report.html" ]
}

@test "an earlier analysis in --out is replaced, and analyze says so" {
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --out "$OUT" --no-plots
    [ "$status" -eq 0 ]
    [[ $output != *"replaced"* ]]
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --out "$OUT" --no-plots
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" | grep -qx "$OUT: the earlier analysis there was replaced by this one"
}

@test "missing and truncated results: warnings naming the runs, the analysis goes on" {
    cp -r "$ARCHIVES/clean" "$BATS_TEST_TMPDIR/partial"
    rm "$BATS_TEST_TMPDIR/partial/results/1x4-default-r002.results.csv"
    truncate -s -5 "$BATS_TEST_TMPDIR/partial/results/1x4-default-r005.results.csv"
    run --separate-stderr nbhbench analyze "$BATS_TEST_TMPDIR/partial" --out "$OUT" --no-plots
    [ "$status" -eq 0 ]
    [[ $stderr == *"nbhbench: warning: run 1x4-default-r002: no results file"* ]]
    [[ $stderr == *"nbhbench: warning: run 1x4-default-r005: results file"*"ends in a cut line"* ]]
    grep -q "run 1x4-default-r002: no results file" "$OUT/warnings.txt"
    grep -q "run 1x4-default-r002: no results file" "$OUT/report.md"
}

@test "two archives together: a summary row per library; openmpi ~ mpich compares them" {
    run nbhbench analyze "$ARCHIVES/clean" "$ARCHIVES/mpich" --out "$OUT" --no-plots
    [ "$status" -eq 0 ]
    [ "$(grep -c ',openmpi,default,1x4,' "$OUT/summary.csv")" -eq 4 ]
    [ "$(grep -c ',mpich,default,1x4,' "$OUT/summary.csv")" -eq 4 ]
    # the terminal's summary: each library's guidelines under its name, the archives' order
    summary=$(printf '%s\n' "${lines[@]}" | grep -v '^analyze: ' | sed -n '/:$/,$p' | grep -v 'report:$' | sed '$d')
    [ "$(grep -c '^  GL' <<<"$summary")" -eq 8 ]
    [ "$(grep -v '^  ' <<<"$summary")" = "openmpi:
mpich:" ]
    [ "$(sed -n 2p <<<"$summary" | cut -c1-8)" = "  GL4   " ]
    printf '[libraries]\nparameter = library\nvaried = msize\nopenmpi ~ mpich\n' >"$BATS_TEST_TMPDIR/lib.conf"
    run nbhbench analyze "$ARCHIVES/clean" "$ARCHIVES/mpich" --out "$OUT" --no-plots --assess "$BATS_TEST_TMPDIR/lib.conf"
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" | grep -qx 'libraries compared:'
    printf '%s\n' "${lines[@]}" | grep -q '^        openmpi ~ mpich: 0/96 tests violated (0/24 groups)' 
    [[ "$(sed -n 2p "$OUT/summary.csv")" == "libraries,,openmpi ~ mpich,,default,1x4,4,0,96,0,24,"*",ok" ]]
}

@test "the default output directory is analyses/NAME, then NAME_2; never overwritten" {
    run nbhbench analyze "$ARCHIVES/clean" --no-plots
    [ "$status" -eq 0 ]
    first=${lines[-1]%/report.html}
    run nbhbench analyze "$ARCHIVES/clean" --no-plots
    [ "$status" -eq 0 ]
    second=${lines[-1]%/report.html}
    rm -rf "$first" "$second"
    [ "$first" = "$(cd "$NBH_ROOT" && pwd)/analyses/clean" ]
    [ "$second" = "$(cd "$NBH_ROOT" && pwd)/analyses/clean_2" ]
}

@test "several archives: the folder names their campaign, their libraries and the latest archive time" {
    # copy_as SYNTHETIC NAME LIBRARY: the synthetic archive as nbhbench archive names it
    copy_as() {
        cp -r "$ARCHIVES/$1" "$BATS_TEST_TMPDIR/$2"
        printf '{\n "format": 1,\n "campaign": "demo",\n "library": "%s"\n}\n' "$3" >"$BATS_TEST_TMPDIR/$2/archive.json"
    }
    copy_as clean demo-openmpi-20261127-101500 openmpi
    copy_as mpich demo-mpich-20261125-101500 mpich
    run nbhbench analyze "$BATS_TEST_TMPDIR/demo-openmpi-20261127-101500" "$BATS_TEST_TMPDIR/demo-mpich-20261125-101500" --no-plots
    [ "$status" -eq 0 ]
    rm -rf "${lines[-1]%/report.html}"
    [ "${lines[-1]}" = "$(cd "$NBH_ROOT" && pwd)/analyses/demo-openmpi-mpich-20261127-101500/report.html" ]
}

@test "a campaign's workspace is not an archive: analyze says to archive it first" {
    mkdir -p "$BATS_TEST_TMPDIR/work/halo"
    echo '{}' >"$BATS_TEST_TMPDIR/work/halo/campaign.json"
    run --separate-stderr nbhbench analyze "$BATS_TEST_TMPDIR/work/halo"
    [ "$status" -eq 2 ]
    [ "$stderr" = "nbhbench: $BATS_TEST_TMPDIR/work/halo: this is a workspace, not an archive: run \`nbhbench archive halo\` first, then analyze the archive it prints" ]
}

@test "several parameter sets: what heals what against --reference-set; an unknown set is one line, exit 2" {
    run --separate-stderr nbhbench analyze "$ARCHIVES/tuning" --out "$OUT" --no-plots --reference-set tuned
    [ "$status" -eq 0 ]
    [ "$(head -n1 "$OUT/heal_sets.csv")" = "reference,param_set,library,deployment,nprocs,ref_violations,removed,no_longer_significant,kept,not_measured,added,cells,cells_slower,cells_faster,max_ratio,min_ratio" ]
    [ "$(sed -n 2p "$OUT/heal_sets.csv" | cut -d, -f1-4,12)" = "tuned,default,openmpi,1x4,96" ]
    [[ $(head -n1 "$OUT/heal.csv") == reference,param_set,status,guideline_no,* ]]
    [ "$(wc -l <"$OUT/set_comparison.csv")" -eq 97 ]
    grep -q '^- parameter sets: `default`, `tuned`; reference: `tuned`$' "$OUT/report.md"
    grep -q '^## Parameter sets: what heals what$' "$OUT/report.md"
    run --separate-stderr nbhbench analyze "$ARCHIVES/tuning" --out "$OUT" --reference-set=fast
    assert_one_line_error 2 "^nbhbench: --reference-set: 'fast' is not a parameter set of the archives \(sets: default, tuned\)$"
    run --separate-stderr nbhbench analyze "$ARCHIVES/tuning" --out "$OUT" --reference-set
    assert_one_line_error 2 "^nbhbench: --reference-set needs a value"
}

@test "no violations: the report shows the closest calls, with plots captioned as such" {
    run nbhbench analyze "$ARCHIVES/clean" --out "$OUT"
    [ "$status" -eq 0 ]
    [[ $output == *"0 of 160 tests violated"* ]]
    [ "$(find "$OUT/plots" -name 'closest-*.png' | wc -l)" -eq 4 ]
    [ "$(find "$OUT/plots" -name 'overview-*' | wc -l)" -eq 0 ]
    [ "$(wc -l <"$OUT/closest.csv")" -eq 5 ]
    [ "$(grep -c '^!\[Closest call (not violated): ' "$OUT/report.md")" -eq 4 ]
    run nbhbench analyze "$ARCHIVES/clean" --out "$OUT" --max-plots 1
    [ "$(find "$OUT/plots" -name 'closest-*.png' | wc -l)" -eq 1 ]
    grep -q '^3 plots left out (--max-plots 1)\.$' "$OUT/report.md"
}

@test "--adjust: holm and bh give adjusted p-values in every table; an unknown method is one line" {
    run --separate-stderr nbhbench analyze "$ARCHIVES/planted" --adjust fdr
    assert_one_line_error 2 "^nbhbench: --adjust: unknown method 'fdr' \\(none, holm, bh\\)$"
    run --separate-stderr nbhbench analyze "$ARCHIVES/planted" --adjust
    assert_one_line_error 2 "^nbhbench: --adjust needs a value"
    run nbhbench analyze "$ARCHIVES/planted" --out "$OUT" --no-plots --adjust bh
    [ "$status" -eq 0 ]
    head -n1 "$OUT/tests.csv" | grep -q ',ratio,ratio_ci_low,ratio_ci_high,p_value,p_reverse,p_adjusted,var_launch,var_round,launch_share,slower,'
    head -n1 "$OUT/violations.csv" | grep -q ",p_value,p_reverse,p_adjusted,"
    head -n1 "$OUT/summary.csv" | grep -q ',min_p_value,min_p_adjusted,smallest_p,power$'
    grep -q "p-values adjusted by Benjamini-Hochberg (--adjust bh)" "$OUT/report.md"
    grep -q '| p bh |' "$OUT/report.md"
    # 8 runs a side: the best p, 1 / C(16, 8) = 7.8e-5, times 160 tests is above 0.001: Holm can find nothing.
    run nbhbench analyze "$ARCHIVES/planted" --out "$OUT" --no-plots --adjust=holm --fail-on-violation
    [ "$status" -eq 3 ]
    [[ $output == *"0 of 160 tests violated"* && $output == *"CANNOT DETECT"* ]]
    grep -q "times the number of tests with --adjust holm" "$OUT/report.md"
}

@test "the report states what chance alone would give, and every ratio's interval" {
    run nbhbench analyze "$ARCHIVES/planted" --out "$OUT" --no-plots
    [ "$status" -eq 0 ]
    grep -q "^Chance alone: were no guideline ever broken, about 0.16 of these 160 tests would still have p <= 0.001" "$OUT/report.md"
    grep -q "| ratio | 95% CI | p |" "$OUT/report.md"
    grep -q "every ratio with its 95% confidence interval (paired and launch pairs: the t interval over the runs; rounds: the signed-rank test.s Walsh averages; unpaired: the rank-sum test.s interval of the shift, Moses" "$OUT/report.md"
}

@test "too few runs: 'cannot detect' in summary.csv and at the top of the report; --fail-on-violation fails" {
    Rscript --vanilla "$NBH_ROOT/tests/analyze/synthetic_archive.R" --campaign small --out "$BATS_TEST_TMPDIR/six" \
        --deployments 1x4 --nrun 6 --nrep 10 --plant-fraction 0 --seed 9 >/dev/null
    run --separate-stderr nbhbench analyze "$BATS_TEST_TMPDIR/six" --out "$OUT" --no-plots --fail-on-violation
    [ "$status" -eq 3 ]
    [[ $output == *"GL4   neighbor_allgather <= neighbor_alltoall: 0/"*"CANNOT DETECT"* ]]
    [[ $stderr == *"guideline(s) cannot detect a violation with these runs"* ]]
    [ "$(awk -F, '{ print $NF }' "$OUT/summary.csv" | sort -u)" = "$(printf 'cannot detect\npower')" ]
    first=$(grep -n '^\*\*Cannot detect.\*\*' "$OUT/report.md" | cut -d: -f1)
    verdict=$(grep -n '^## Verdict' "$OUT/report.md" | cut -d: -f1)
    [ -n "$first" ] && [ "$first" -lt "$verdict" ]
    grep -q "1 / C(2n, n) (n = 6: 0.00108)" "$OUT/report.md"
}

@test "R leaves no Rplots.pdf behind, wherever it runs" {
    cd "$BATS_TEST_TMPDIR"
    run nbhbench analyze "$ARCHIVES/planted" --out "$OUT" --max-plots 1
    [ "$status" -eq 0 ]
    ls "$OUT"/plots/focus-*.png >/dev/null
    Rscript --vanilla -e 'source(file.path(Sys.getenv("NBH_ROOT"), "analyze", "load.R")); plot(1:3)'
    [ ! -e Rplots.pdf ]
    [ ! -e "$NBH_ROOT/Rplots.pdf" ]
    [ -z "$(git -C "$NBH_ROOT" ls-files Rplots.pdf)" ]
}

# The experiment ids of the cells regressions.csv ($1) calls $2, joined
# through the archive's experiments.csv ($3), sorted, one per line.
regression_ids() {
    Rscript --vanilla -e 'suppressMessages(library(data.table)); a <- commandArgs(TRUE)
        r <- fread(a[1])[verdict == a[2]]; e <- fread(a[3])
        on <- intersect(setdiff(names(e), c("id", "nrep", "seed")), names(r))
        cat(sort(e[r, on = on, nomatch = NULL]$id), sep = "\n")' "$@"
}

# The distinct values of columns NAME... of the CSV file $1 (no header),
# comma-separated, sorted, space-joined.
distinct_columns() {
    awk -F, -v want="${*:2}" 'NR == 1 { n = split(want, w, " "); for (i = 1; i <= NF; i++) col[$i] = i; next }
        { line = ""; for (k = 1; k <= n; k++) line = line (k > 1 ? "," : "") $(col[w[k]]); print line }' "$1" |
        sort -u | tr '\n' ' '
}

@test "--baseline: two archives of one library, exactly the planted cells are slower; exit 3 when failing" {
    run --separate-stderr nbhbench analyze "$ARCHIVES/planted" --baseline "$ARCHIVES/clean" --out "$OUT" --max-plots 0 \
        --fail-on-violation
    [ "$status" -eq 3 ] || { echo "$output $stderr"; return 1; }
    [ "${lines[-1]}" = "$(cd "$OUT" && pwd)/report.html" ]
    [[ $output == *"regression against the baseline: "*" of 96 matched cells slower, 0 faster, 0 cannot detect; 0 new only, 0 baseline only"* ]]
    [ "$(head -n1 "$OUT/regressions.csv")" = "library,param_set,deployment,nprocs,op,topology,constructor,ndim,nfin,radius,order,reorder,datatype,msize,work_us,work_factor,graph,weights,layout,type_constructor,packing,unit,unit2,stride,stride2,halo_n,matrix_n,arrival,arrival_us,late_rank,sync,twin,library_baseline,param_set_baseline,runs_new,runs_baseline,median_new_us,median_baseline_us,ratio,ratio_ci_low,ratio_ci_high,p_slower,p_faster,min_p,method,pairs,df,verdict" ]
    [ "$(regression_ids "$OUT/regressions.csv" slower "$ARCHIVES/planted/experiments.csv")" = \
        "$(tail -n +2 "$ARCHIVES/planted/planted.csv" | cut -d, -f1 | sort -n)" ]
    ls "$OUT/plots/regression-01.png" >/dev/null
    [ ! -e "$OUT/plots/regression-01.pdf" ]   # PDF only with --pdf
    grep -q "<h2 id=\"release-regression\">Release regression</h2>" "$OUT/report.html"
    grep -q "baseline: \`clean\`" "$OUT/report.md"
    # two archives of separate launches: every cell unpaired, and the report says so
    [ "$(distinct_columns "$OUT/regressions.csv" method)" = "unpaired " ]
    grep -q "cells \*\*unpaired\*\* (\`unpaired\`: the releases' launches were not interleaved" "$OUT/report.md"
    # The other way round the same cells are faster, and nothing is slower: exit 0.
    run nbhbench analyze "$ARCHIVES/clean" --baseline="$ARCHIVES/planted" --out "$OUT/back" --no-plots \
        --fail-on-violation
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    [ "$(regression_ids "$OUT/back/regressions.csv" faster "$ARCHIVES/planted/experiments.csv")" = \
        "$(tail -n +2 "$ARCHIVES/planted/planted.csv" | cut -d, -f1 | sort -n)" ]
    [ ! -e "$OUT/back/plots/regression-01.png" ]
}

@test "--baseline across libraries: cells matched without the library" {
    run nbhbench analyze "$ARCHIVES/clean" --baseline "$ARCHIVES/mpich" --out "$OUT" --no-plots
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    [[ $output == *"0 of 96 matched cells slower"* ]]
    grep -q 'cells matched on every analysis parameter but `library` (every new cell against the baseline.s one library, `mpich`)' "$OUT/report.md"
    [ "$(distinct_columns "$OUT/regressions.csv" library library_baseline)" = "openmpi,mpich " ]
    grep -q '^openmpi,default,.*,mpich,default,' "$OUT/regressions.csv"
}

@test "--baseline across parameter sets: every set of the new archive against the baseline's one" {
    run nbhbench analyze "$ARCHIVES/tuning" --baseline "$ARCHIVES/clean" --out "$OUT" --no-plots
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    [[ $output == *" of 192 matched cells slower"* ]]
    grep -q 'but `param_set` (every new cell against the baseline.s one param_set, `default`)' "$OUT/report.md"
    [ "$(distinct_columns "$OUT/regressions.csv" param_set param_set_baseline)" = "default,default tuned,default " ]
    # The planted cells are slower under both sets, and nothing else.
    planted=$(tail -n +2 "$ARCHIVES/tuning/planted.csv" | cut -d, -f1 | sort -n)
    [ "$(regression_ids "$OUT/regressions.csv" slower "$ARCHIVES/tuning/experiments.csv" | uniq -c | awk '{print $1}' | sort -u)" = 2 ]
    [ "$(regression_ids "$OUT/regressions.csv" slower "$ARCHIVES/tuning/experiments.csv" | uniq)" = "$planted" ]
}

@test "--baseline bad input: no archive, no directory, another campaign, the same archive: one line, exit 2" {
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --baseline
    assert_one_line_error 2 "^nbhbench: --baseline needs a value"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --baseline --out "$OUT"
    assert_one_line_error 2 "^nbhbench: --baseline needs at least one archive"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --baseline "$ARCHIVES/nowhere"
    assert_one_line_error 2 "^nbhbench: --baseline: .*/nowhere: no such archive directory$"
    cp -r "$ARCHIVES/mpich" "$BATS_TEST_TMPDIR/other"
    sed -i 's/"campaign": "synthetic-small"/"campaign": "elsewhere"/' "$BATS_TEST_TMPDIR/other/archive.json"
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --baseline "$BATS_TEST_TMPDIR/other" --out "$OUT" --no-plots
    assert_one_line_error 2 "^nbhbench: --baseline: the baseline is of campaign elsewhere, the new archives of synthetic-small; "
    run --separate-stderr nbhbench analyze "$ARCHIVES/clean" --baseline "$ARCHIVES/clean" --out "$OUT" --no-plots
    assert_one_line_error 2 "given twice"
    [ ! -e "$OUT" ]
}
