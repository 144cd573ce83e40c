"""What the kernel writes reaches the disk before its name does
(docs/robustness.md): prov.json and cvars.csv, written under PATH.tmp, are
flushed (fsync) before they are renamed or linked to PATH, and their
directory after; the tables are flushed at the end of the run. Seen with
tests/sync_log.c preloaded into every process."""
import subprocess

from kernel_runner import BUILD, input_text, launch_command
from sync_log import SyncLog


def test_prov_json_and_cvars_reach_the_disk_before_their_names(library, tmp_path):
    sync = SyncLog(tmp_path / "sync")
    source = tmp_path / "in.csv"
    source.write_text(input_text([dict(id=1, op="neighbor_allgather", topology="cart", ndim=1, nfin=0, reorder=0,
                                       msize=8, nrep=4, seed=3)]))
    out = tmp_path / "out"
    out.mkdir()
    prefix = out / "run"
    # Given to the ranks as the environments' own preloads are (MPICH's launcher sets LD_PRELOAD for them).
    command, env = launch_command(library, 2, [str(BUILD / library / "nbh-kernel"), "-i", str(source),
                                               "-o", str(prefix)], [("LD_PRELOAD", str(sync.library))])
    done = subprocess.run(command, env=dict(env, NBH_TEST_SYNC_LOG=str(sync.log)), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    events = [e for e in sync.events() if str(out) in e[1]]
    for name in ("prov.json", "cvars.csv"):
        final, temporary = f"{prefix}.{name}", f"{prefix}.{name}.tmp"
        placed = [i for i, e in enumerate(events) if e[0] in ("rename", "link") and e[2] == final]
        assert placed, f"{final} was never put in place: {events}"
        for at in placed:  # prov.json is written at the start and again at the end
            synced = [i for i, e in enumerate(events[:at]) if e == ("fsync", temporary, None)]
            assert synced and events[synced[-1] + 1:at] == [], f"{temporary} is flushed right before {events[at]}"
            assert ("fsync", str(out), None) in events[at + 1:], f"{out} is flushed after {events[at]}"
    assert ("fsync", f"{prefix}.results.csv", None) in events
