"""A full disk while the kernel writes (docs/robustness.md): every finished
experiment is kept whole and no part of one is left, the run ends on every
process with one line naming the file and "No space left on device" and
exit status 4; a disk full from the start leaves no file at all."""
import json
import subprocess

from kernel_runner import BUILD, input_text, launch_command

PAGE = 4096
NREP = 60
COUNT = 40


def experiments():
    return [dict(id=i, op="neighbor_allgather", topology="cart", ndim=2, nfin=0, reorder=0, msize=64, nrep=NREP,
                 seed=3) for i in range(1, COUNT + 1)]


def run_kernel(library, input_path, prefix):
    command, env = launch_command(library, 2, [str(BUILD / library / "nbh-kernel"), "-i", str(input_path),
                                               "-o", str(prefix)])
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def kernel_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("nbh-kernel:")]


def pages(path):
    return -(-path.stat().st_size // PAGE)


def test_a_disk_full_mid_run_keeps_every_finished_experiment_whole(library, small_fs, tmp_path):
    source = tmp_path / "in.csv"
    source.write_text(input_text(experiments()))
    # What a run writes before its first experiment (control variables,
    # provenance, the results header), measured on this library.
    probe = run_kernel(library, source, small_fs.path / "probe")
    assert probe.returncode == 0, probe.stderr
    before = sum(pages(small_fs.path / f"probe.{s}") for s in ("cvars.csv", "prov.json")) + 2
    for path in small_fs.path.glob("probe.*"):
        path.unlink()
    small_fs.fill((before + 2) * PAGE)  # room for about two pages of results

    prefix = small_fs.path / "out"
    done = run_kernel(library, source, prefix)

    assert done.returncode == 4, done.stderr
    assert kernel_lines(done.stderr) == [f"nbh-kernel: {prefix}.results.csv: cannot write: No space left on device"]
    lines = (small_fs.path / "out.results.csv").read_text().split("\n")
    assert lines[0] == "id,rep,round,seconds,work_seconds" and lines[-1] == "", "the file ends with a whole row"
    reps = {}
    for line in lines[1:-1]:
        ident, rep, round_number, seconds, work = line.split(",")
        assert round_number == "1"
        reps.setdefault(int(ident), []).append(int(rep))
        assert float(seconds) > 0
    assert 0 < len(reps) < COUNT, "the disk filled up in the middle of the run"
    assert all(r == list(range(NREP)) for r in reps.values()), "every experiment in the file is whole"
    provenance = json.loads((small_fs.path / "out.prov.json").read_text())
    assert provenance["status"] in ("running", "stopped")
    assert not list(small_fs.path.glob("*.tmp")), "no temporary file is left"


def test_a_disk_full_from_the_start_leaves_nothing(library, small_fs, tmp_path):
    source = tmp_path / "in.csv"
    source.write_text(input_text(experiments()[:2]))
    small_fs.fill(0)
    done = run_kernel(library, source, small_fs.path / "out")
    assert done.returncode == 4, done.stderr
    lines = kernel_lines(done.stderr)
    assert len(lines) == 1 and lines[0].startswith(f"nbh-kernel: {small_fs.path}/out.")
    assert lines[0].endswith(": No space left on device")
    assert small_fs.files() == [], "no output and no temporary file is left"
