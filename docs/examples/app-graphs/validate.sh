#!/bin/bash
# The app-graphs example's data check (validate.csv): each archive's r001
# job script of both deployments, run again from the archive (its own
# inputs and graph files) with the kernel's --validate, the kernel of this
# checkout (build/LIBRARY), and its output sent to work/validate-app-graphs/
# (timings not used); findings = rows of PREFIX.findings.csv. Usage:
# validate.sh [ARCHIVES_DIR] > validate.csv (default ARCHIVES_DIR:
# archives/examples, the README's commands); run it under the measuring lock.
set -u
cd "$(dirname "$0")/../../.." || exit 1
archives=${1:-$PWD/archives/examples}
out=$PWD/work/validate-app-graphs
mkdir -p "$out"
echo "library,deployment,archive,exit,findings,experiments_done"
for library in openmpi mpich; do
    archive=$(find "$archives" -maxdepth 1 -type d -name "app-graphs-$library-*" | sort | tail -n 1)
    [ -n "$archive" ] || { echo "validate.sh: no app-graphs-$library-* in $archives" >&2; exit 1; }
    ws=$(sed -n 's/^ *"workspace": *"\(.*\)",$/\1/p' "$archive/archive.json")
    for deployment in 1x4 1x8; do
        run=$deployment-default-r001.a1
        name=$library-$deployment
        sed -e "s|^kernel=.*|kernel=$PWD/build/$library/nbh-kernel|" \
            -e "s|LD_PRELOAD [^ ]*/build/$library/|LD_PRELOAD $PWD/build/$library/|g" \
            -e "s|$ws/inputs/|$archive/inputs/|g" \
            -e "s|-o $ws/results/$run|-o $out/$name --validate|g" \
            -e "s|$ws/attempts/$run.exit|$out/$name.exit|g" "$archive/jobs/$run.sh" > "$out/$name.sh"
        bash "$out/$name.sh" > "$out/$name.log" 2>&1
        findings=$(( $(wc -l < "$out/$name.findings.csv") - 1 ))
        done_rows=$(grep -o '"experiments_done": *[0-9]*' "$out/$name.prov.json" | grep -o '[0-9]*$')
        echo "$library,$deployment,$(basename "$archive"),$(cat "$out/$name.exit"),$findings,${done_rows:-}"
    done
done
