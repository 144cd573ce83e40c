"""A real PostgreSQL server for the tests, on this machine: Debian's
postgresql (make deps installs it), a cluster made by initdb in a private
directory owned by the `postgres` user (the server refuses to run as
root), listening on a free port of the loopback and on a socket in that
directory, trusting local connections. stop() ends it with pg_ctl (the
PID in its postmaster.pid) and removes the directory.

    server = PostgresServer().start()
    server.url("history")     # postgresql://postgres@127.0.0.1:PORT/history (created)
    ...
    server.stop()

Run by hand: python tests/history/postgresql_server.py  (starts, waits for Enter, stops)
"""
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile

USER = "postgres"


def server_binaries():
    """The folder of Debian's initdb and pg_ctl (/usr/lib/postgresql/VERSION/bin), the newest."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if not found:
        raise RuntimeError("PostgreSQL's server is not installed (make deps installs postgresql)")
    return os.path.dirname(found[-1])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    def __init__(self):
        self.bin = server_binaries()
        self.dir = tempfile.mkdtemp(prefix="nbh-postgres-")
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        self.started = False
        user = pwd.getpwnam(USER)
        os.chown(self.dir, user.pw_uid, user.pw_gid)
        os.chmod(self.dir, 0o700)

    def as_postgres(self, *args, timeout=120):
        """Runs ARGS as the postgres user (runuser; the tests run as root)."""
        done = subprocess.run(["runuser", "-u", USER, "--", *args], capture_output=True, text=True,
                              timeout=timeout, cwd=self.dir)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed: {done.stderr.strip() or done.stdout.strip()}")
        return done.stdout

    def start(self):
        self.as_postgres(f"{self.bin}/initdb", "-D", self.data, "-U", USER, "--auth=trust", "--no-sync",
                         "-E", "UTF8", "--locale=C")
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.as_postgres(f"{self.bin}/pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "server.log"),
                         "-o", options, "-w", "-t", "60", "start")
        self.started = True
        return self

    def create_database(self, name):
        self.as_postgres(f"{self.bin}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, name)

    def url(self, name):
        """A new database NAME's URL."""
        self.create_database(name)
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{name}"

    def stop(self):
        try:
            if self.started:
                self.as_postgres(f"{self.bin}/pg_ctl", "-D", self.data, "-m", "fast", "-w", "-t", "60", "stop")
                self.started = False
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


if __name__ == "__main__":
    server = PostgresServer().start()
    print(server.url("history"))
    try:
        input("Enter stops the server ")
    finally:
        server.stop()
