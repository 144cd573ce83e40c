"""Small real analyses for the history's tests: series of synthetic
archives (synthetic_series.R), each sealed as `nbhbench archive` seals
one (its date, its release, a MANIFEST.sha256), analysed by the real
analyzer."""
import csv
import hashlib
import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NBHBENCH = ROOT / "nbhbench"


def run(*args, check=True, env=None, timeout=600):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "NBH_ROOT": str(ROOT), **(env or {})})
    if check and done.returncode != 0:
        raise AssertionError(f"{args} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def nbhbench(*args, **kwargs):
    return run(NBHBENCH, *args, **kwargs)


def seal(archive, created, version):
    """Dates the archive, names its library's version, writes MANIFEST.sha256."""
    info = json.loads((archive / "archive.json").read_text())
    info["created"] = created
    (archive / "archive.json").write_text(json.dumps(info, indent=1))
    with open(archive / "runs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row["library_version"] = version
    with open(archive / "runs.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = []
    for path in sorted(p for p in archive.rglob("*") if p.is_file() and p.name != "MANIFEST.sha256"):
        lines.append(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.relative_to(archive)}")
    (archive / "MANIFEST.sha256").write_text("\n".join(lines) + "\n")


def synthetic_series(out, count, slow_from=0, factor=1.5, nrun=8, dates=None):
    """COUNT sealed archives in OUT (a01, a02, ...): archive i dated
    2026-01-(10+i) (or DATES[i-1]), release `Open MPI v5.0.i`; from
    SLOW_FROM on (0: never) one cell FACTOR times slower (synthetic_series.R)."""
    run("Rscript", "--vanilla", ROOT / "tests" / "history" / "synthetic_series.R", out, count, slow_from, factor, nrun)
    archives = []
    for i in range(1, count + 1):
        archive = Path(out) / f"a{i:02d}"
        seal(archive, dates[i - 1] if dates else f"2026-01-{10 + i:02d}T12:00:00Z", f"Open MPI v5.0.{i}, synthetic")
        archives.append(archive)
    return archives
