#!/bin/bash
# The locality example's data check (validate.txt): each library's r001
# job script of both deployments, run again with the kernel's --validate
# and its output sent to work/validate/ (timings not used). Needs the
# workspaces work/loc7-LIBRARY of the README's commands and SLURM_CONF of
# the simulated cluster; run it under the measuring lock.
set -u
cd "$(dirname "$0")/../../.." || exit 1
out=$PWD/work/validate
mkdir -p "$out"
for library in openmpi mpich openmpi5; do
    for deployment in 2x2 4x2; do
        ws=$PWD/work/loc7-$library/locality
        run=$deployment-default-r001.a1
        name=$library-$deployment
        sed -e "s|-o $ws/results/$run|-o $out/$name --validate|" \
            -e "s|$ws/attempts/$run.exit|$out/$name.exit|g" \
            -e "s|--output=$ws/logs/$run.log|--output=$out/$name.log|" \
            -e "s|--job-name=nbh-locality|--job-name=nbh-validate|" "$ws/jobs/$run.sh" > "$out/$name.sh"
        sbatch --wait "$out/$name.sh" > /dev/null
        findings=$(( $(wc -l < "$out/$name.findings.csv") - 1 ))
        done_rows=$(grep -o '"experiments_done": *[0-9]*' "$out/$name.prov.json" | grep -o '[0-9]*$')
        nodes=$(grep -o '"shared_memory_nodes": *[0-9]*' "$out/$name.prov.json" | grep -o '[0-9]*$')
        echo "$library $deployment: exit $(cat "$out/$name.exit"), findings $findings," \
             "experiments done ${done_rows:-?}, shared_memory_nodes $nodes"
    done
done
