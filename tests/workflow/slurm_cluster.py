"""A real multi-node Slurm for the tests, on this one machine: munged (as
user munge, private key and socket), slurmctld, and one slurmd per
simulated node, each in its own UTS and mount namespace with its own host
name (../shared/ENVIRONMENT.md, "Several Slurm nodes on one machine").
Configuration, state, logs and sockets live under a private directory, on
free ports; node names carry a tag of this cluster (e.g. s41235n1), so two
clusters started by parallel test runs never share a host name. stop() ends
every daemon by the PID in its pid file.

    cluster = SlurmCluster(nodes=4).start()   # cluster.env: {"SLURM_CONF": ...}
    cluster.node_names                        # ["s41235n1", ..., "s41235n4"]
    ...
    cluster.stop()

Ranks on the same node share memory; across nodes they talk TCP over the
loopback. Every node has the machine's cores (CPUs=cores per node), so the
simulated cluster has nodes x cores CPUs on a machine with `cores`.

Run by hand: python tests/workflow/slurm_cluster.py DIR [NODES]  (starts, waits for Enter, stops)
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
SlurmdSpoolDir={dir}/spool/%n
SlurmctldPidFile={dir}/run/slurmctld.pid
SlurmdPidFile={dir}/run/slurmd.%n.pid
SlurmctldLogFile={dir}/log/slurmctld.log
SlurmdLogFile={dir}/log/slurmd.%n.log
ReturnToService=2
KillWait=2
MinJobAge=3600
SchedulerParameters=sched_interval=2
{nodes}
PartitionName={partition} Nodes={node_list} Default=YES MaxTime={max_time} State=UP OverSubscribe=YES
"""
NODE = ("NodeName={name} NodeHostname={name} NodeAddr=127.0.0.1 Port={port} CPUs={cpus} Boards=1 "
        "SocketsPerBoard=1 CoresPerSocket={cpus} ThreadsPerCore=1 RealMemory=2000")


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


def process_alive(pid):
    """Whether PID runs (a zombie does not: it has ended, its parent just has not reaped it)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


class SlurmCluster:
    def __init__(self, directory=None, nodes=4, partition="sim", max_time="INFINITE"):
        self.dir = pathlib.Path(directory or tempfile.mkdtemp(prefix="nbh-slurm-"))
        self.conf = self.dir / "slurm.conf"
        # The node names resolve nowhere: MPICH's Hydra must use the loopback
        # (sbatch hands the submitting environment on to the job).
        self.env = {"SLURM_CONF": str(self.conf), "HYDRA_IFACE": "lo"}
        self.host = socket.gethostname().split(".")[0]
        self.nodes = nodes
        self.partition = partition
        self.max_time = max_time
        self.cpus = os.cpu_count() or 2
        self.ctld_port = free_port()
        self.node_names = [f"s{self.ctld_port}n{i}" for i in range(1, nodes + 1)]

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

    def write_config(self):
        nodes = "\n".join(NODE.format(name=name, port=free_port(), cpus=self.cpus) for name in self.node_names)
        self.conf.write_text(CONFIG.format(host=self.host, dir=self.dir, ctld_port=self.ctld_port, nodes=nodes,
                                           node_list=",".join(self.node_names), partition=self.partition,
                                           max_time=self.max_time))

    def start_node(self, name):
        """slurmd -N NAME in a UTS namespace whose host name is NAME: what the
        job's processes see of their node (gethostname, MPI_Get_processor_name)."""
        slurmd = shutil.which("slurmd") or "/usr/sbin/slurmd"
        subprocess.run(["unshare", "--uts", "--mount", "--propagation", "private", "--",
                        "sh", "-c", 'hostname "$1" && exec "$2" -N "$1" -f "$3"', "sh", name, slurmd,
                        str(self.conf)],
                       env=dict(os.environ, **self.env), check=True, timeout=30)

    def start(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        self.dir.chmod(0o755)
        for folder in ("state", "spool", "log", "run"):
            (self.dir / folder).mkdir()
        self.start_munge()
        self.write_config()
        subprocess.run([shutil.which("slurmctld") or "/usr/sbin/slurmctld", "-f", str(self.conf)],
                       env=dict(os.environ, **self.env), check=True, timeout=30)
        for name in self.node_names:
            self.start_node(name)
        wait_for(lambda: self.idle_nodes() == self.nodes, 60, f"{self.nodes} idle nodes")
        return self

    def idle_nodes(self):
        states = self.run("sinfo", "-h", "-N", "-o", "%N %T").stdout.split("\n")
        return sum(1 for line in states if line.split()[-1:] == ["idle"])

    def pid_files(self):
        run = self.dir / "run"
        return {"slurmctld": [run / "slurmctld.pid"],
                "slurmd": [run / f"slurmd.{name}.pid" for name in self.node_names],
                "munged": [self.dir / "munge" / "munged.pid"]}

    @staticmethod
    def read_pid(path):
        try:
            return int(path.read_text().strip())
        except (OSError, ValueError):
            return None

    def pids(self, daemon):
        return [pid for pid in map(self.read_pid, self.pid_files()[daemon]) if pid]

    def stop(self):
        """Cancels what is left, then ends the slurmds and slurmctld, then munged, by PID."""
        if self.pids("slurmctld"):
            self.run("scancel", "--full", "--user=root")
        for daemons in (("slurmd", "slurmctld"), ("munged",)):
            pids = [pid for daemon in daemons for pid in self.pids(daemon)]
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            try:
                wait_for(lambda: not any(process_alive(pid) for pid in pids), 15, f"{' and '.join(daemons)} ending")
            except RuntimeError:
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


if __name__ == "__main__":
    cluster = SlurmCluster(sys.argv[1] if len(sys.argv) > 1 else None,
                           nodes=int(sys.argv[2]) if len(sys.argv) > 2 else 4).start()
    print(f"export SLURM_CONF={cluster.conf}   (nodes {', '.join(cluster.node_names)}; Enter stops the cluster)")
    try:
        input()
    finally:
        cluster.stop()
