# The synthetic study-sized archive of make bench (sourced by bench-analyze
# and bench-adaptive): nbhcoll, 3360 experiments x 50 repetitions x 30 runs x
# 3 deployments (15.1 M measurements) with 1 % of the cells planted 1.2x
# slower, generated once into build/bench/analyze/nbhcoll-study and reused
# while tests/analyze/synthetic_archive.R is unchanged; and the same
# campaign in the paired design (SPEC 7.6): every run in 10 interleaved
# rounds of 5 repetitions (build/bench/analyze/nbhcoll-rounds), which the
# analysis pairs by default.
# shellcheck shell=bash
study_work=build/bench/analyze
study_archive=$study_work/nbhcoll-study
rounds_archive=$study_work/nbhcoll-rounds

# study_archive_ready: generates the archive unless it is there and current.
study_archive_ready() {
    synthetic_archive_ready "$study_archive"
}

# rounds_archive_ready: the same for the archive with rounds.
rounds_archive_ready() {
    synthetic_archive_ready "$rounds_archive" --blocks 10
}

# synthetic_archive_ready DIR [GENERATOR-OPTION...]
synthetic_archive_ready() {
    local generator=tests/analyze/synthetic_archive.R dir=$1 stamp start
    shift
    stamp=$(sha256sum "$generator" | cut -c1-16)
    [ "$(cat "$dir/.generator" 2>/dev/null || true)" != "$stamp" ] || return 0
    rm -rf "$dir"
    mkdir -p "$study_work"
    echo "generating the synthetic archive $(basename "$dir") (once) ..."
    start=$(date +%s.%N)
    Rscript --vanilla "$generator" --campaign nbhcoll --out "$dir" --deployments 10x16,20x16,35x16 \
        --nrun 30 --nrep 50 --plant-fraction 0.01 --seed 1 "$@" >/dev/null
    echo "$stamp" >"$dir/.generator"
    printf 'generated in %.1f s\n' "$(echo "$(date +%s.%N) - $start" | bc)"
}
