"""What reaches the disk, in what order (tests of docs/robustness.md's
durability): sync_log.c, preloaded, logs every fsync, syncfs, rename and link of a
process. SyncLog(folder) compiles it; .env(environ) preloads it, logging
to .log; .events() reads what was logged: [(call, path, second path)]."""
import os
import subprocess


class SyncLog:
    def __init__(self, folder):
        folder.mkdir(parents=True, exist_ok=True)
        self.library = folder / "sync_log.so"
        self.log = folder / "sync.log"
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sync_log.c")
        subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-Wall", "-Wextra", "-Werror", "-o", str(self.library),
                        source, "-ldl"], check=True, capture_output=True, text=True)

    def env(self, environ):
        preload = " ".join(p for p in (str(self.library), environ.get("LD_PRELOAD", "")) if p)
        return dict(environ, LD_PRELOAD=preload, NBH_TEST_SYNC_LOG=str(self.log))

    def events(self):
        if not self.log.exists():
            return []
        return [tuple(line.split(" ", 2)) if line.count(" ") >= 2 else (*line.split(" ", 1), None)
                for line in self.log.read_text().splitlines()]
