"""How an analysis is put in place (analyze/output/output_files.R,
docs/robustness.md): the staged tree is flushed to the disk (its file
system's syncfs) before the staging folder takes DIR's name, and the parent after
(tests/sync_log.c); a seccomp filter that refuses renameat2 (EPERM, as
container runtimes' profiles that predate it do) falls back to two renames
like a kernel without it (ENOSYS); and the analyzer's library compiles
where the C library predates renameat2 (glibc before 2.28)."""
import ctypes
import os
import pathlib
import platform
import struct
import subprocess

import pytest

from sync_log import SyncLog

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENV = dict(os.environ, NBH_ROOT=str(ROOT))

# An analysis of two files put into DIR (the first argument) twice: the
# first publish renames, the second replaces the first.
PUBLISH = """
source(file.path(Sys.getenv("NBH_ROOT"), "analyze", "load.R"))
dir <- commandArgs(TRUE)[1]
for (k in 1:2) with_output_directory(dir, function(staged) {
  dir.create(file.path(staged, "plots"))
  write_text_file(c("report", k), file.path(staged, "report.md"))
  write_text_file("a plot", file.path(staged, "plots", "one.txt"))
})
cat(readLines(file.path(dir, "report.md"))[2], "\\n")
"""


@pytest.fixture(scope="module", autouse=True)
def native_library_built():
    """The analyzer's library compiled before a test watches or filters calls."""
    subprocess.run(["Rscript", "--vanilla", "-e", 'source("analyze/load.R"); stopifnot(!is.null(native_library()))'],
                   check=True, cwd=ROOT, env=ENV, capture_output=True, timeout=600)


def publish(out, env=ENV, preexec_fn=None):
    return subprocess.run(["Rscript", "--vanilla", "-e", PUBLISH, str(out)], capture_output=True, text=True,
                          env=env, timeout=300, preexec_fn=preexec_fn)


def test_the_analysis_reaches_the_disk_before_it_takes_its_name(tmp_path):
    sync = SyncLog(tmp_path / "sync")
    out = tmp_path / "analyses" / "demo"
    done = publish(out, env=sync.env(ENV))
    assert done.returncode == 0 and done.stdout.strip() == "2", done.stderr
    events = [e for e in sync.events() if str(out.parent) in e[1]]
    moves = [i for i, e in enumerate(events) if e[0] == "rename" and ".demo.partial-" in e[1] and e[2] == str(out)]
    assert len(moves) == 2, events
    for before, at in zip([-1] + moves, moves):   # each publish: its files written, flushed, then moved
        staged = events[at][1]
        assert ("syncfs", staged, None) in events[before + 1:at], f"the staged tree is flushed first: {events}"
        assert ("fsync", str(out.parent), None) in events[at + 1:], "the parent is flushed after the swap"


RENAMEAT2 = {"x86_64": 316, "aarch64": 276}
EPERM, ENOSYS = 1, 38


def refusing_renameat2(errno):
    """A preexec_fn that installs a seccomp filter: renameat2 fails with ERRNO."""
    number = RENAMEAT2[platform.machine()]
    # BPF: load the system call number; if renameat2, return ERRNO, else allow.
    program = [(0x20, 0, 0, 0),                       # ld [0] (seccomp_data.nr)
               (0x15, 0, 1, number),                  # jeq #number, 0, 1
               (0x06, 0, 0, 0x00050000 | errno),      # ret SECCOMP_RET_ERRNO | errno
               (0x06, 0, 0, 0x7fff0000)]              # ret SECCOMP_RET_ALLOW
    code = b"".join(struct.pack("HBBI", *op) for op in program)

    def install():
        libc = ctypes.CDLL(None, use_errno=True)
        buffer = ctypes.create_string_buffer(code)

        class Program(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
        prog = Program(len(program), ctypes.addressof(buffer))
        if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:  # NO_NEW_PRIVS, SECCOMP
            raise OSError(ctypes.get_errno(), "seccomp")
    return install


@pytest.mark.skipif(platform.machine() not in RENAMEAT2, reason="renameat2's number is known for x86_64 and aarch64")
@pytest.mark.parametrize("errno", [EPERM, ENOSYS], ids=["EPERM", "ENOSYS"])
def test_renameat2_refused_by_seccomp_falls_back_to_two_renames(tmp_path, errno):
    out = tmp_path / "analyses" / "demo"
    done = publish(out, preexec_fn=refusing_renameat2(errno))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2", "the second analysis replaced the first"
    assert sorted(p.name for p in out.parent.iterdir()) == ["demo"], "no staging or old folder is left"


# Headers of a C library older than renameat2: glibc before 2.28 declares
# neither it nor RENAME_EXCHANGE in <stdio.h>; without the system call's
# number too (a C library that has none), the swap reports ENOSYS and the
# caller renames twice.
STDIO_SHIM = "#include_next <stdio.h>\n#undef RENAME_EXCHANGE\n"
SYSCALL_SHIM = "#include_next <sys/syscall.h>\n#undef SYS_renameat2\n"


@pytest.mark.parametrize("number", [True, False], ids=["old-glibc", "no-syscall-number"])
def test_the_swap_compiles_without_renameat2_in_the_c_library(tmp_path, number):
    shim = tmp_path / "include"
    (shim / "sys").mkdir(parents=True)
    (shim / "stdio.h").write_text(STDIO_SHIM)
    if not number:
        (shim / "sys" / "syscall.h").write_text(SYSCALL_SHIM)
    work = tmp_path / "src"
    work.mkdir()
    for name in ("exchange_paths.c", "nbh_analyze.h"):
        (work / name).write_bytes((ROOT / "analyze" / "native" / name).read_bytes())
    library = tmp_path / "exchange.so"
    built = subprocess.run(["R", "CMD", "SHLIB", "-o", str(library), "exchange_paths.c"],
                           capture_output=True, text=True, cwd=work, timeout=300,
                           env=dict(ENV, PKG_CPPFLAGS=f"-I{shim}", PKG_CFLAGS="-Wall -Wextra -Werror"))
    assert built.returncode == 0, built.stdout + built.stderr
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "which").write_text(side)
    said = subprocess.run(["Rscript", "--vanilla", "-e", 'a <- commandArgs(TRUE); dyn.load(a[1]); '
                           'cat(.Call("nbh_exchange_paths", a[2], a[3]))',
                           str(library), str(tmp_path / "a"), str(tmp_path / "b")],
                          capture_output=True, text=True, timeout=120)
    assert said.returncode == 0 and said.stdout == ("TRUE" if number else "FALSE"), said.stderr
    assert (tmp_path / "a" / "which").read_text() == ("b" if number else "a")
