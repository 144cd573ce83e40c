"""Bad input: one line naming file, line, column and reason; exit status 2;
every process ends (no hang); no output file is created."""
import re
import subprocess

import pytest

from kernel_runner import BUILD, launch_command

HEADER = "id,op,topology,constructor,ndim,nfin,radius,order,reorder,datatype,msize,nrep,work_us,seed\n"
GOOD = "1,neighbor_alltoall,cart,,2,0,,,0,,64,3,,1\n"
# work_factor may be left out of a header (above); with it:
WORK = "id,op,topology,constructor,ndim,nfin,radius,order,reorder,datatype,msize,nrep,work_us,work_factor,seed\n"

# the arrival pattern and the start (SPEC 8.2)
ARRIVAL = "id,op,topology,constructor,ndim,nfin,radius,order,reorder,datatype,msize,nrep,work_us,seed,arrival,arrival_us,late_rank,sync\n"

# interleaved rounds and A/A twins (SPEC 7.6)
ROUNDS = "id,op,topology,constructor,ndim,nfin,radius,order,reorder,datatype,msize,nrep,work_us,seed,blocks,warmup,twin,twin_of\n"

# (name, input, processes, the message after "nbh-kernel: <input>:")
CASES = [
    ("unknown op", HEADER + "1,neighbour_alltoall,cart,,2,0,,,0,,64,3,,1\n", 2,
     r"2: column op: unknown operation 'neighbour_alltoall' \(did you mean neighbor_alltoall\? all \d+: "
     r"nbhbench list op\)"),
    ("unknown topology", HEADER + "1,neighbor_alltoall,torus,,2,0,,,0,,64,3,,1\n", 2,
     r"2: column topology: unknown topology 'torus' \(known: cart, moore, vneum, full, graph\)"),
    ("unknown order", HEADER + GOOD + "2,neighbor_alltoall,moore,,2,0,1,ZMAJ,0,,64,3,,1\n", 2,
     r"3: column order: unknown order 'ZMAJ' \(did you mean FMAJ\? known: FMAJ, LMAJ, RAND\)"),
    ("order of another topology", HEADER + "1,neighbor_alltoall,moore,,2,0,1,LINEAR,0,,64,3,,1\n", 2,
     r"2: column order: LINEAR does not apply to topology moore \(it takes: FMAJ LMAJ RAND\)"),
    ("unknown datatype", HEADER + "1,neighbor_alltoall,cart,,2,0,,,0,float,64,3,,1\n", 2,
     r"2: column datatype: unknown datatype 'float' \(known: byte, int, double\)"),
    ("constructor of another topology", HEADER + "1,neighbor_alltoall,moore,cart_create,2,0,1,,0,,64,3,,1\n", 2,
     r"2: column constructor: cart_create cannot build topology moore \(it takes: dist_graph_adjacent dist_graph\)"),
    ("missing column", HEADER.replace(",work_us", "") + "1,neighbor_alltoall,cart,,2,0,,,0,,64,3,1\n", 2,
     r"1: column work_us: missing from the header"),
    ("extra column", HEADER.rstrip("\n") + ",colour\n" + GOOD.rstrip("\n") + ",red\n", 2,
     r"1: column colour: unknown column \(all \d+: nbhbench list parameters\)"),
    ("extra field", HEADER + GOOD.rstrip("\n") + ",5\n", 2,
     r"2: column \(extra\): the line has 15 fields, the header 14"),
    ("missing field", HEADER + "1,neighbor_alltoall,cart,,2,0,,,0,,64,3,\n", 2,
     r"2: column seed: the line has 13 fields, the header 14"),
    ("non-numeric value", HEADER + GOOD + "2,neighbor_alltoall,cart,,2,0,,,0,,lots,3,,1\n", 2,
     r"3: column msize: 'lots' is not an integer"),
    ("negative repetitions", HEADER + "1,neighbor_alltoall,cart,,2,0,,,0,,64,-3,,1\n", 2,
     r"2: column nrep: -3 is outside 1\.\.\d+"),
    ("negative work", HEADER + "1,neighbor_alltoall,cart,,2,0,,,0,,64,3,-5,1\n", 2,
     r"2: column work_us: -5 is negative"),
    ("negative work factor", WORK + "1,ineighbor_alltoall,cart,,2,0,,,0,,64,3,,-1,1\n", 2,
     r"2: column work_factor: -1 is negative"),
    ("work factor out of range", WORK + "1,ineighbor_alltoall,cart,,2,0,,,0,,64,3,,2000,1\n", 2,
     r"2: column work_factor: 2000 is outside 0\.\.1000 \(registry/parameters\.csv\)"),
    ("work factor and work_us", WORK + "1,ineighbor_alltoall,cart,,2,0,,,0,,64,3,50,2,1\n", 2,
     r"2: column work_factor: 2 given with work_us 50: give the busy work in microseconds or as a factor, not both"),
    ("work factor for create", WORK + "1,create,cart,,2,0,,,0,,,3,,1,1\n", 2,
     r"2: column work_factor: '1' given, but work_factor does not apply to op create \(leave it empty\)"),
    ("ndim impossible", HEADER + "1,neighbor_alltoall,vneum,,9,0,1,,0,,64,3,,1\n", 2,
     r"2: column ndim: 9 is outside 1\.\.8"),
    ("nfin above ndim", HEADER + "1,neighbor_alltoall,cart,,2,3,,,0,,64,3,,1\n", 2,
     r"2: column nfin: 3 is outside 0\.\.2"),
    ("radius with too many neighbors", HEADER + "1,neighbor_alltoall,moore,,8,0,20,,0,,64,3,,1\n", 2,
     r"2: column radius: this radius gives more than 1048576 neighbors per process"),
    ("radius impossible for the processes", HEADER + "1,neighbor_alltoall,moore,,2,2,1,,0,,64,3,,1\n", 1,
     r"2: column radius: radius 1 is impossible on 1 process\(es\): every dimension is finite and of extent 1, "
     r"so no process has a neighbor"),
    ("msize over the memory limit", HEADER + "1,alltoall,full,,,,,,0,,600000000,3,,1\n", 2,
     r"2: column msize: 600000000 bytes per neighbor need 2400000000 bytes of buffers per process .*over the limit of 1073741824 \(--max-memory\)"),
    ("msize not a multiple of the datatype", HEADER + "1,neighbor_alltoall,cart,,2,0,,,0,double,12,3,,1\n", 2,
     r"2: column msize: 12 is not a multiple of the double size \(8 bytes\)"),
    ("msize for create", HEADER + "1,create,cart,,2,0,,,0,,64,3,,1\n", 2,
     r"2: column msize: '64' given, but msize does not apply to op create \(leave it empty\)"),
    ("required cell empty", HEADER + "1,neighbor_alltoall,cart,,2,0,,,0,,64,,,1\n", 2,
     r"2: column nrep: empty, but required on every line"),
    ("duplicate id", HEADER + GOOD + GOOD, 2, r"3: column id: 1 already used on line 2"),
    ("empty file", "", 2, r"1: empty file; expected a header line naming the parameters"),
    ("header only", HEADER, 2, r"1: no experiments after the header"),
    ("binary garbage", HEADER.encode() + b"1,neighbor_alltoall,ca\x00\xff\x13rt,,2\n", 2,
     r"2: column topology: byte 0x00: binary data, not a CSV text file"),
    ("binary garbage before the header", b"\x7fELF\x02\x01\x01\x00\x00", 2,
     r"1: column 1: byte 0x7f: binary data, not a CSV text file"),
    ("CR-only line ends", (HEADER + GOOD).replace("\n", "\r"), 2,
     r"1: a carriage return \(CR, 0x0d\) inside the line: the file has CR-only line ends \(old Mac\); "
     r"write LF or CRLF line ends"),
    ("arrival_us without an arrival pattern", ARRIVAL + "1,bcast,cart,,1,0,,,0,,64,3,,1,none,50,,\n", 2,
     r"2: column arrival_us: '50' given, but arrival_us does not apply to arrival none \(leave it empty\)"),
    ("late_rank not a process", ARRIVAL + "1,neighbor_alltoall,cart,,1,0,,,0,,64,3,,1,one_late,50,2,\n", 2,
     r"2: column late_rank: 2 is not a process: the run has 2 process\(es\) \(ranks 0\.\.1\)"),
    ("sync=clock for create", ARRIVAL + "1,create,cart,,1,0,,,0,,,3,,1,,,,clock\n", 2,
     r"2: column sync: 'clock' given, but op create cannot run in windows of a global clock \(each repetition "
     r"builds and frees a communicator\): sync applies to operations that move data \(leave it empty\)"),
    ("more rounds than repetitions", ROUNDS + "1,neighbor_alltoall,cart,,2,0,,,0,,64,3,,1,4,,,\n", 2,
     r"2: column blocks: 4 rounds for nrep 3 repetitions: every round needs at least one repetition "
     r"\(blocks at most nrep\)"),
    ("a twin without its original", ROUNDS + "1,neighbor_alltoall,cart,,2,0,,,0,,64,3,,1,1,0,1,\n", 2,
     r"2: column twin_of: empty, but required for a twin \(the id of its original\)"),
    ("an original with twin_of", ROUNDS + "1,neighbor_alltoall,cart,,2,0,,,0,,64,3,,1,1,0,0,5\n", 2,
     r"2: column twin_of: '5' given, but twin_of does not apply to an original \(twin 0\) \(leave it empty\)"),
    ("a twin of no experiment", ROUNDS + "1,neighbor_alltoall,cart,,2,0,,,0,,64,3,,1,1,0,0,\n"
     "2,neighbor_alltoall,cart,,2,0,,,0,,64,3,,1,1,0,1,7\n", 2,
     r"3: column twin_of: 7 is no experiment of this file that is an original \(twin 0\)"),
    ("a twin of a twin", ROUNDS + "1,neighbor_alltoall,cart,,2,0,,,0,,64,3,,1,1,0,0,\n"
     "2,neighbor_alltoall,cart,,2,0,,,0,,64,3,,1,1,0,1,1\n3,neighbor_alltoall,cart,,2,0,,,0,,64,3,,1,1,0,1,2\n", 2,
     r"4: column twin_of: 2 is no experiment of this file that is an original \(twin 0\)"),
    ("work beyond its bound", HEADER + "1,neighbor_alltoall,cart,,2,0,,,0,,64,3,10000000000000,1\n", 2,
     r"2: column work_us: 10000000000000 is outside 0\.\.10000000 \(registry/parameters\.csv\)"),
]


@pytest.mark.parametrize("name,text,processes,message", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_exit_2(kernel, library, name, text, processes, message):
    run = kernel(library, processes, text, timeout=60)
    assert run.returncode == 2
    lines = [line for line in run.stderr.splitlines() if line.startswith("nbh-kernel:")]
    assert len(lines) == 1, run.stderr
    path = re.escape(str(run.prefix.parent / "input.csv"))
    assert re.fullmatch(rf"nbh-kernel: {path}:{message}", lines[0]), lines[0]
    assert not list(run.prefix.parent.glob("out.*")), "nothing may be written for bad input"


def test_crlf_line_ends_are_fine(kernel):
    run = kernel("openmpi", 2, (HEADER + GOOD).replace("\n", "\r\n"), timeout=60)
    assert run.returncode == 0, run.stderr
    assert len(run.results) == 3


def test_missing_input_file(library, tmp_path):
    missing = tmp_path / "nowhere.csv"
    command, env = launch_command(library, 2, [str(BUILD / library / "nbh-kernel"), "-i", str(missing),
                                               "-o", str(tmp_path / "o")])
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"nbh-kernel: {missing}: cannot open: No such file or directory" in done.stderr.splitlines()


@pytest.mark.parametrize("args,message", [
    (["--max-memory", "lots"], "--max-memory: 'lots' is not a number of bytes"),
    (["--max-memory", "1e300"], "--max-memory: 1e300 is outside 1..1125899906842624 bytes "
                                "(registry/limits.csv: max_memory)"),
    (["--countdown-rate", "-1"], "--countdown-rate: -1 is outside 0.001..1e+06 steps per us "
                                 "(registry/limits.csv: countdown_rate)"),
    (["--countdown-rate", "x"], "--countdown-rate: 'x' is not a number"),
    (["--frobnicate"], "unknown or incomplete option '--frobnicate' (see --help)"),
])
def test_bad_options(kernel, library, args, message):
    run = kernel(library, 2, HEADER + GOOD, *args, timeout=60)
    assert run.returncode == 2
    assert f"nbh-kernel: {message}" in run.stderr.splitlines()
