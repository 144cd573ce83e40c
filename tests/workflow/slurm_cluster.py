"""A real single-node Slurm for the tests: munged (as user munge, private
key and socket), slurmctld and slurmd with a configuration under a private
directory, on free ports. Nothing outside that directory is touched, and
stop() ends the daemons by the PIDs in their pid files.

    cluster = SlurmCluster().start()   # cluster.env: {"SLURM_CONF": ...}
    ...
    cluster.stop()

Run by hand: python tests/workflow/slurm_cluster.py DIR  (starts, waits for Enter, stops)
"""
import os
import pathlib
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

CONFIG = """\
ClusterName=nbhtest
SlurmctldHost={host}
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket={dir}/munge/munge.socket
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc={dir}/jobcomp.txt
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/log/slurmctld.log
SlurmdLogFile={dir}/log/slurmd.log
ReturnToService=2
KillWait=2
MinJobAge=3600
NodeName={host} CPUs={cpus} Boards=1 SocketsPerBoard=1 CoresPerSocket={cpus} ThreadsPerCore=1 RealMemory=2000
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise RuntimeError(f"slurm_cluster: {what} did not happen within {seconds} s")


class SlurmCluster:
    def __init__(self, directory=None):
        self.dir = pathlib.Path(directory or tempfile.mkdtemp(prefix="nbh-slurm-"))
        self.conf = self.dir / "slurm.conf"
        self.env = {"SLURM_CONF": str(self.conf)}
        self.host = socket.gethostname().split(".")[0]

    def run(self, *args, **kwargs):
        return subprocess.run(list(args), env=dict(os.environ, **self.env), capture_output=True,
                              text=True, timeout=60, **kwargs)

    def start_munge(self):
        munge = pwd.getpwnam("munge")
        folder = self.dir / "munge"
        folder.mkdir()
        key = folder / "munge.key"
        key.write_bytes(os.urandom(1024))
        for path in (folder, key):
            os.chown(path, munge.pw_uid, munge.pw_gid)
        key.chmod(0o400)
        folder.chmod(0o755)  # munged wants others to reach its socket
        subprocess.run(["runuser", "-u", "munge", "--", shutil.which("munged") or "/usr/sbin/munged",
                        f"--socket={folder}/munge.socket", f"--key-file={key}",
                        f"--pid-file={folder}/munged.pid", f"--log-file={folder}/munged.log",
                        f"--seed-file={folder}/munged.seed"], check=True, timeout=30)
        wait_for(lambda: (folder / "munge.socket").exists(), 10, "munged's socket")

    def start(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        self.dir.chmod(0o755)
        for folder in ("state", "spool", "log"):
            (self.dir / folder).mkdir()
        self.start_munge()
        self.conf.write_text(CONFIG.format(host=self.host, dir=self.dir, ctld_port=free_port(),
                                           d_port=free_port(), cpus=os.cpu_count() or 2))
        for daemon in ("slurmctld", "slurmd"):
            subprocess.run([shutil.which(daemon) or f"/usr/sbin/{daemon}", "-f", str(self.conf)],
                           env=dict(os.environ, **self.env), check=True, timeout=30)
        wait_for(lambda: "idle" in self.run("sinfo", "-h", "-o", "%T").stdout, 30, "an idle node")
        return self

    def pid(self, name):
        for path in (self.dir / f"{name}.pid", self.dir / "munge" / f"{name}.pid"):
            try:
                return int(path.read_text().strip())
            except (OSError, ValueError):
                continue
        return None

    def stop(self):
        """Cancels what is left, then ends slurmd and slurmctld, then munged, by PID."""
        if self.pid("slurmctld"):
            self.run("scancel", "--full", "--user=root")
        for names in (("slurmd", "slurmctld"), ("munged",)):
            pids = [pid for pid in map(self.pid, names) if pid]
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            try:
                wait_for(lambda: not any(os.path.exists(f"/proc/{pid}") for pid in pids), 15,
                         f"{' and '.join(names)} ending")
            except RuntimeError:
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


if __name__ == "__main__":
    cluster = SlurmCluster(sys.argv[1] if len(sys.argv) > 1 else None).start()
    print(f"export SLURM_CONF={cluster.conf}   (Enter stops the cluster)")
    try:
        input()
    finally:
        cluster.stop()
