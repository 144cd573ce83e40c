"""A small file system for the full-disk tests (docs/robustness.md): a tmpfs
of a given size mounted on a private directory, filled on demand.

Needs root (mount); the tests run as root here and in CI. tmpfs counts
space in pages (4 KiB): fill(leave) leaves that much free, rounded down to
whole pages. The fixture `small_fs` (tests/conftest.py) mounts one per test
and unmounts it afterwards, whatever the test did.
"""
import errno
import os
import subprocess


class SmallFilesystem:
    def __init__(self, path, size="8m"):
        self.path = path
        self.filler = path / ".filler"
        path.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"cannot mount a tmpfs on {path} (the full-disk tests need root): "
                               f"{done.stderr.strip()}")

    def available(self):
        stat = os.statvfs(self.path)
        return stat.f_bavail * stat.f_frsize

    def fill(self, leave=0):
        """Leaves LEAVE bytes (whole pages) free: the filler takes the rest.
        A writer beside it (the run a test fills the disk under) can take
        space between the question and the allocation, which then fails
        with ENOSPC: it asks again, growing the filler from where it ends."""
        self.free()
        with open(self.filler, "wb") as f:
            for _ in range(1000):
                size = max(self.available() - leave, 0)
                if not size:
                    break
                try:
                    os.posix_fallocate(f.fileno(), os.fstat(f.fileno()).st_size, size)
                    break
                except OSError as e:
                    if e.errno != errno.ENOSPC:
                        raise
        return self.available()

    def free(self):
        if self.filler.exists():
            self.filler.unlink()

    def unmount(self):
        subprocess.run(["umount", "-l", str(self.path)], capture_output=True)

    def files(self):
        """Every path below the mount point but the filler, relative, sorted."""
        return sorted(str(p.relative_to(self.path)) for p in self.path.rglob("*") if p != self.filler)
