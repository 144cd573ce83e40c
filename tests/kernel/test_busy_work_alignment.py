"""The busy countdown (kernel/busy_work.h) is a two-instruction loop
inlined in several places: the calibration's copies (busy_work.c) and the
timing loop's. Where its jump lies decides its speed on some x86 cores (a
jump on a 32-byte boundary leaves the micro-op cache), so every copy must
start on a 32-byte boundary: unaligned, the timing loop's copy once ran at
half the calibrated rate (20 ms of work took 37-74 ms). Read from the
built kernel's machine code, not timed."""
import platform
import re
import subprocess

import pytest

from kernel_runner import BUILD, LIBRARIES

LOOP = {"x86_64": (r"dec\s+%r\w+", r"jne"), "aarch64": (r"subs\s+x\d+, x\d+, #0x1", r"b\.ne")}


def countdown_loops(binary):
    """Addresses of every countdown loop in BINARY: a decrement followed by
    a conditional jump back to it."""
    decrement, jump = LOOP[platform.machine()]
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(binary)], capture_output=True, text=True,
                          check=True).stdout
    lines = [line.strip() for line in text.splitlines() if re.match(r"\s+[0-9a-f]+:", line)]
    loops = []
    for first, second in zip(lines, lines[1:]):
        at, code = first.split(":", 1)
        if re.fullmatch(decrement, code.strip()) and re.match(rf"[0-9a-f]+:\s+{jump}\s+{at}\b", second):
            loops.append(int(at, 16))
    return loops


@pytest.mark.parametrize("library", LIBRARIES)
def test_every_countdown_loop_starts_on_a_32_byte_boundary(library):
    loops = countdown_loops(BUILD / library / "nbh-kernel")
    assert len(loops) >= 3, "the calibration's copies and the timing loop's"
    assert [hex(a) for a in loops if a % 32] == []
