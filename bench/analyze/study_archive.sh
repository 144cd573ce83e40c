# The synthetic study-sized archive of make bench (sourced by bench-analyze
# and bench-adaptive): nbhcoll, 3360 experiments x 50 repetitions x 30 runs x
# 3 deployments (15.1 M measurements) with 1 % of the cells planted 1.2x
# slower, generated once into build/bench/analyze/nbhcoll-study and reused
# while tests/analyze/synthetic_archive.R is unchanged.
# shellcheck shell=bash
study_work=build/bench/analyze
study_archive=$study_work/nbhcoll-study

# study_archive_ready: generates the archive unless it is there and current.
study_archive_ready() {
    local generator=tests/analyze/synthetic_archive.R stamp start
    stamp=$(sha256sum "$generator" | cut -c1-16)
    [ "$(cat "$study_archive/.generator" 2>/dev/null || true)" != "$stamp" ] || return 0
    rm -rf "$study_archive"
    mkdir -p "$study_work"
    echo "generating the synthetic archive (once) ..."
    start=$(date +%s.%N)
    Rscript --vanilla "$generator" --campaign nbhcoll --out "$study_archive" --deployments 10x16,20x16,35x16 \
        --nrun 30 --nrep 50 --plant-fraction 0.01 --seed 1 >/dev/null
    echo "$stamp" >"$study_archive/.generator"
    printf 'generated in %.1f s\n' "$(echo "$(date +%s.%N) - $start" | bc)"
}
