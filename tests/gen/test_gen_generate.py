"""nbhbench generate: shipped campaigns, shuffling and seeds, --set, and the
one-line report of every configuration mistake."""
import csv
import os
import pathlib
import shlex
import shutil
import subprocess
import time

import pytest

from gen import registry
from gen.generate import generate
from gen.settings import PARSERS
from gen.workspace import Workspace

ROOT = pathlib.Path(__file__).resolve().parents[2]
REG = registry.load()
N_OPS, N_DESIGN = len(REG.operations), len(REG.design_parameters)
SHIPPED = {"demo": 30, "nbhcoll-jupiter": 3360, "nbhcoll-vsc3": 3360, "full-jupiter": 180,
           "full-rand-jupiter": 30, "full-tuned-jupiter": 60, "app-graphs": 72, "datatypes": 3480, "halo": 150,
           "transpose": 60, "arrival": 216}


@pytest.fixture(autouse=True)
def private_work(tmp_path, monkeypatch):
    monkeypatch.setenv("NBH_WORK", str(tmp_path / "work"))
    monkeypatch.setenv("NBH_ARCHIVES", str(tmp_path / "archives"))


def nbhbench(*args):
    return subprocess.run([str(ROOT / "nbhbench"), *args], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ))


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def test_nbhcoll_jupiter_generates_in_under_ten_seconds():
    start = time.monotonic()
    result = nbhbench("generate", "nbhcoll-jupiter", "--env", "slurm-openmpi")
    elapsed = time.monotonic() - start
    assert result.returncode == 0, result.stderr
    assert elapsed < 10, f"took {elapsed:.1f} s"
    workspace = Workspace(pathlib.Path(os.environ["NBH_WORK"]) / "nbhcoll-jupiter")
    assert len(workspace.experiments()) == 3360 and len(workspace.runs()) == 90
    assert len(list(workspace.inputs.glob("*.csv"))) == 90 and len(list(workspace.jobs.glob("*.sh"))) == 90
    print(f"nbhcoll-jupiter: generated in {elapsed:.2f} s")


@pytest.mark.parametrize("campaign", sorted(SHIPPED))
def test_shipped_campaigns_generate(campaign):
    workspace, _ = generate(campaign, "slurm-openmpi")
    assert len(workspace.experiments()) == SHIPPED[campaign]
    settings = workspace.info()["settings"]
    runs = len(settings["deployments"]) * len(settings["param_sets"]) * settings["nrun"]
    assert len(workspace.runs()) == runs
    assert (workspace.campaign / "assessment.conf").is_file()


def assessment_tags(workspace):
    return conf_tags(workspace.campaign / "assessment.conf")


def conf_tags(path):
    return {line.split(":")[0] for line in path.read_text().splitlines()
            if ":" in line and not line.startswith(("#", "[")) and "=" not in line.split(":")[0]}


def test_shipped_campaigns_cover_every_guideline():
    """guidelines-all: the study's GL1-GL12 and P2P; progress: GL13-GL16;
    datatypes: DT1-DT4 (halo and transpose: DT2-DT4); arrival: AR1, AR2 (and P2P); locality: LA;
    the demo's A/A twins (aa = 0.25): AA."""
    workspace, _ = generate("guidelines-all", "slurm-openmpi")
    guidelines = {row["id"] for row in read(ROOT / "registry" / "guidelines.csv")}
    study = {f"GL{i}" for i in range(1, 13)} | {"P2P"}
    assert assessment_tags(workspace) == study
    ops = {row["op"] for row in workspace.experiments()}
    assert {"create", "p2p_alltoall", "alltoallw", "ineighbor_alltoallw"} <= ops
    assert not {op for op in ops if op.endswith("_init")}, "the study's campaign stays without persistent ops"
    progress, _ = generate("progress", "slurm-openmpi")
    assert assessment_tags(progress) == {f"GL{i}" for i in range(13, 17)}
    datatypes, _ = generate("datatypes", "slurm-openmpi")
    assert assessment_tags(datatypes) == {f"DT{i}" for i in range(1, 5)}
    for campaign in ("halo", "transpose"):
        workspace, _ = generate(campaign, "slurm-openmpi")
        assert {"DT2", "DT3", "DT4"} <= assessment_tags(workspace), campaign
    arrival, _ = generate("arrival", "slurm-openmpi")
    assert assessment_tags(arrival) == {"AR1", "AR2", "P2P"}
    # locality generates graphs of 10^5-10^6 rows (test_workflow_shipped_campaigns cuts it): its file is enough
    locality = conf_tags(ROOT / "campaigns" / "locality" / "assessment.conf")
    assert {"LA", "P2P"} <= locality
    demo, _ = generate("demo", "local-openmpi")
    twins = [row for row in demo.experiments() if row["twin"] == "1"]
    assert len(twins) == 6 and len(demo.experiments()) == 30, "the demo measures twins of a quarter of its experiments"
    assert study | assessment_tags(progress) | assessment_tags(datatypes) | assessment_tags(arrival) | locality | \
        {"AA"} == guidelines
    patterns = {(row["op"], row["arrival"], row["sync"]) for row in arrival.experiments()}
    assert {("bcast", "uniform", "barrier"), ("neighbor_alltoall_init", "one_late", "clock"),
            ("p2p_alltoall", "none", "clock")} <= patterns
    ops = {row["op"] for row in progress.experiments()}
    assert {"neighbor_alltoallw", "ineighbor_alltoallw", "neighbor_alltoallw_init"} <= ops


def test_each_run_has_the_same_experiments_shuffled_with_its_seed():
    workspace, _ = generate("demo", "local-openmpi", ["nrun=4"])
    experiments = {row["id"]: row for row in workspace.experiments()}
    orders = []
    for run in workspace.runs():
        rows = read(workspace.input(run["run_id"], 1))
        assert {r["seed"] for r in rows} == {run["seed"]}
        assert {r["id"]: {k: v for k, v in r.items() if k != "seed"} for r in rows} == experiments
        orders.append([r["id"] for r in rows])
    assert len({tuple(o) for o in orders}) == 4, "every run has its own order"
    assert len({run["seed"] for run in workspace.runs()}) == 4


def test_generating_again_gives_the_same_files_and_another_seed_another_order():
    first, _ = generate("demo", "local-openmpi")
    text = first.input("1x4-default-r001", 1).read_text()
    shutil.rmtree(first.path)
    again, _ = generate("demo", "local-openmpi")
    assert again.input("1x4-default-r001", 1).read_text() == text
    shutil.rmtree(again.path)
    other, _ = generate("demo", "local-openmpi", ["seed=99"])
    assert other.input("1x4-default-r001", 1).read_text() != text


def test_set_keeps_levels_and_experiment_ids():
    full, _ = generate("nbhcoll-jupiter", "local-openmpi")
    ids = {(r["op"], r["topology"], r["order"], r["ndim"], r["nfin"], r["reorder"], r["msize"]): r["id"]
           for r in full.experiments()}
    shutil.rmtree(full.path)
    part, _ = generate("nbhcoll-jupiter", "local-openmpi",
                       ["deployments=1x4,2x8", "nrun=2", "nrep=5", "ndim=2", "msize=1024,16384",
                        "op=neighbor_alltoall", "order=FMAJ"])
    rows = part.experiments()
    assert {r["ndim"] for r in rows} == {"2"} and {r["msize"] for r in rows} == {"1024", "16384"}
    assert {r["op"] for r in rows} == {"neighbor_alltoall"} and {r["nrep"] for r in rows} == {"5"}
    assert {r["order"] for r in rows} == {"FMAJ", ""}, "Cartesian experiments (no order) are kept"
    for r in rows:
        assert ids[(r["op"], r["topology"], r["order"], r["ndim"], r["nfin"], r["reorder"], r["msize"])] == r["id"]
    assert [r["run_id"] for r in part.runs()] == ["1x4-default-r001", "2x8-default-r001",
                                                  "1x4-default-r002", "2x8-default-r002"]


def test_parameter_sets_and_launch_env_reach_the_ranks():
    workspace, _ = generate("full-tuned-jupiter", "local-openmpi",
                            ["deployments=1x4", "nrun=1", "launch_env=LD_PRELOAD=/opt/tool/libprof.so"])
    tuned = workspace.job("1x4-intermediate256-r001", 1).read_text()
    assert "-x OMPI_MCA_coll_tuned_alltoall_intermediate_msg=256" in tuned
    assert "-x LD_PRELOAD=/opt/tool/libprof.so" in tuned
    assert "coll_tuned" not in workspace.job("1x4-default-r001", 1).read_text()
    assert read(workspace.path / "param_sets.csv") == [
        {"param_set": "default", "name": "", "value": ""},
        {"param_set": "intermediate256", "name": "coll_tuned_use_dynamic_rules", "value": "true"},
        {"param_set": "intermediate256", "name": "coll_tuned_alltoall_intermediate_msg", "value": "256"}]
    mpich, _ = generate("demo", "local-mpich", ["launch_env=LD_PRELOAD=/opt/tool/libprof.so"])
    # The launcher's words as the shell splits them (the yield preload beside
    # the kernel is quoted, or named $ORIGIN/... where the project's path holds a space).
    words = [shlex.split(line) for line in mpich.job("1x4-default-r001", 1).read_text().splitlines()
             if line.startswith("mpirun.mpich ")]
    [value] = [w[i + 2] for w in words for i in range(len(w) - 2) if w[i:i + 2] == ["-genv", "LD_PRELOAD"]]
    assert value.startswith("/opt/tool/libprof.so:") and value.endswith("/libnbh-yield.so")


def test_slurm_job_scripts_carry_the_allocation():
    workspace, _ = generate("demo", "slurm-openmpi", ["deployments=2x8", "time_limit=0:30:00"])
    job = workspace.job("2x8-default-r001", 1).read_text()
    for line in ("#SBATCH --nodes=2", "#SBATCH --ntasks=16", "#SBATCH --time=00:30:00",
                 "#SBATCH --overcommit", "#SBATCH --exclusive",
                 f"#SBATCH --output={workspace.log('2x8-default-r001', 1)}"):
        assert line in job
    assert "mpirun.openmpi -np 16 --map-by ppr:8:node" in job


# --- every mistake is one line naming where it is, and nothing is written ---

def user_campaign(tmp_path, conf=None, design=None):
    folder = tmp_path / "mine"
    shutil.copytree(ROOT / "campaigns" / "demo", folder)
    if conf:
        (folder / "campaign.conf").write_text((folder / "campaign.conf").read_text().replace(*conf))
    if design:
        (folder / "experiments.py").write_text(design)
    return folder


DESIGN = """from gen.design import cross, levels
EXPERIMENTS = cross(
    levels(op="neighbor_alltoall", topology="vneum"),
    levels(ndim=2, nfin=2),
    {line3},
)
"""


@pytest.mark.parametrize("conf, design, args, message", [
    (("nrun = 10", "nrun: 10"), None, [], "campaign.conf:8: malformed line 'nrun: 10'"),
    (("nrun = 10", "nruns = 10"), None, [], "campaign.conf:8: unknown setting 'nruns'"),
    (("nrep = 30", "nrep = many"), None, [], "campaign.conf:9: nrep: 'many' is not an integer"),
    (("deployments = 1x4", "deployments = 1x4x2"), None, [], "campaign.conf:7: deployments: '1x4x2' is not a deployment"),
    (None, DESIGN.format(line3="levels(msise=[64])"), [], "experiments.py:5: unknown parameter 'msise' "
     f"(did you mean msize? all {N_DESIGN}: nbhbench list parameters)"),
    (None, DESIGN.format(line3="levels(msize=[64])").replace('"neighbor_alltoall"', '"neighbor_altoall"'), [],
     f"experiments.py:3: unknown op 'neighbor_altoall' (did you mean neighbor_alltoall? all {N_OPS}: nbhbench list op)\n"),
    (None, DESIGN.format(line3="levels(msize=[64], order='LINEAR')"), [],
     "experiments.py:5: LINEAR does not apply to topology vneum"),
    (None, DESIGN.format(line3="levels(msize=[6], datatype='int')"), [],
     "experiments.py:5: 6 is not a multiple of the int size"),
    (None, DESIGN.format(line3="levels(msize=[64]])"), [], "experiments.py:5: syntax error"),
    (None, DESIGN.format(line3="levels(msize=240, datatype='int', layout='tiled', unit=3, stride=3)"), [],
     "experiments.py:5: stride 3 is not larger than unit 3 (layout tiled needs B > A)"),
    (None, DESIGN.replace("neighbor_alltoall", "neighbor_alltoallw").format(line3="levels(layout='halo', halo_n=8)"),
     [], "experiments.py:5: layout halo needs topology cart for op neighbor_alltoallw, not vneum"),
    (None, DESIGN.replace("neighbor_alltoall", "create").format(line3="levels(packing='mpi_pack')"), [],
     "experiments.py:5: packing does not apply to op create"),
    (None, DESIGN.replace('"neighbor_alltoall", topology="vneum"', '"alltoall", topology="full"').replace(
        "levels(ndim=2, nfin=2)", "levels(datatype='double')").format(line3="levels(layout='transpose', matrix_n=6)"),
     [], "deployment 1x4 is impossible for experiment 1 (op=alltoall topology=full"),
    (None, DESIGN.format(line3="levels(msize=[64], arrival_us=50)"), [],
     "experiments.py:5: arrival_us does not apply to arrival none (leave it out)"),
    (None, DESIGN.format(line3="levels(msize=[64], arrival='one_late', arrival_us=50, late_rank=4)"), [],
     "campaign.conf:7: deployment 1x4 is impossible for experiment 1 (op=neighbor_alltoall topology=vneum"),
    (None, DESIGN.format(line3="levels(msize=[64], arrival='one_late', arrival_us=50, late_rank=4)"), [],
     "late_rank 4 is not a process: the run has 4 (ranks 0..3)"),
    (None, DESIGN.replace('op="neighbor_alltoall"', 'op="create"').format(line3="levels(sync='clock')"), [],
     "experiments.py:5: sync=clock: op create cannot run in windows of a global clock"),
    (None, DESIGN.format(line3="levels(msize=undefined)"), [], "experiments.py:5: NameError"),
    (None, "x = 1\n", [], "experiments.py: defines no EXPERIMENTS"),
    (None, DESIGN.format(line3="levels(msize=[64])"), ["--set", "deployments=1x1"],
     "--set deployments: deployment 1x1 is impossible for experiment 1"),
    (("deployments = 1x4", "deployments = 1x1"), DESIGN.format(line3="levels(msize=[64])"), [],
     "campaign.conf:7: deployment 1x1 is impossible"),
    (None, None, ["--env", "nope"], "unknown environment 'nope'"),
    (None, None, ["--set", "colour=red"], "--set colour=red: unknown key 'colour'"),
    (None, None, ["--set", "nrn=3"], "--set nrn=3: unknown key 'nrn' (did you mean nrun? "
     f"all {len(PARSERS) + 2 + N_DESIGN}: nbhbench generate --help, nbhbench list parameters)\n"),
    (None, None, ["--set", "op=neighbour_alltoall"], "--set op=neighbour_alltoall: unknown op 'neighbour_alltoall' "
     f"(did you mean neighbor_alltoall? all {N_OPS}: nbhbench list op)\n"),
    (None, None, ["--set", "msize=100"], "--set msize: the campaign has no experiment with msize=100"),
    (None, None, ["--set", "param_set=tuned"], "the campaign has no parameter set tuned"),
])
def test_config_mistakes_are_one_line_with_file_and_line(tmp_path, conf, design, args, message):
    folder = user_campaign(tmp_path, conf, design)
    result = nbhbench("generate", str(folder), *args)
    assert result.returncode == 2, result.stdout
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("nbhbench: "), result.stderr
    assert message in result.stderr
    assert not (pathlib.Path(os.environ["NBH_WORK"]) / "mine").exists()


def test_environment_file_mistake_names_its_line(tmp_path):
    env = tmp_path / "site-env"
    env.write_text((ROOT / "env" / "local-openmpi").read_text().replace("scheduler = local", "scheduler = lsf"))
    result = nbhbench("generate", "demo", "--env", str(env))
    assert result.returncode == 2
    assert f"{env}:6: scheduler: 'lsf' is not one of local, slurm" in result.stderr


def test_runs_are_planned_in_slots_of_every_set_in_a_random_order_drawn_from_the_seed():
    """Run number outermost, then the deployments; each slot holds one run
    of every set of a deployment, in an order drawn from the campaign seed:
    drift over the campaign falls on every set alike, and no set always
    runs first."""
    from gen.runs import plan_runs
    sets = ["default", "tuned", "other"]
    runs = plan_runs([(1, 4), (2, 8)], sets, 8, 7, interleave="c-1")
    assert [r["run"] for r in runs] == [n for n in range(1, 9) for _ in range(6)]
    assert [r["slot"] for r in runs] == [k for k in range(1, 17) for _ in range(3)]
    for slot in range(1, 17):
        block = [r for r in runs if r["slot"] == slot]
        assert sorted(r["param_set"] for r in block) == sorted(sets)
        assert len({(r["deployment"], r["run"]) for r in block}) == 1
    assert [r["deployment"] for r in runs[::3]] == ["1x4", "2x8"] * 8
    assert {r["interleave"] for r in runs} == {"c-1"}
    orders = {tuple(r["param_set"] for r in runs if r["slot"] == slot) for slot in range(1, 17)}
    assert len(orders) > 1, "the order within a slot is drawn, not fixed"
    firsts = {runs[3 * k]["param_set"] for k in range(16)}
    assert len(firsts) > 1, "no set always goes first"
    assert plan_runs([(1, 4), (2, 8)], sets, 8, 7, interleave="c-1") == runs, "the same seed, the same order"
    assert plan_runs([(1, 4), (2, 8)], sets, 8, 8, interleave="c-1") != runs
    alone = plan_runs([(1, 4)], ["default"], 3, 7, interleave="c-1")
    assert [(r["interleave"], r["slot"]) for r in alone] == [("", "")] * 3, "one set: nothing to interleave"


def test_generate_writes_runs_csv_in_submission_order_with_its_sequence(tmp_path):
    campaign = tmp_path / "two-sets"
    shutil.copytree(ROOT / "campaigns" / "demo", campaign)
    with open(campaign / "campaign.conf", "a") as f:
        f.write("\n[param_set default]\n\n[param_set dynamic]\ncoll_tuned_use_dynamic_rules = true\n")
    workspace, summary = generate(str(campaign), "local-openmpi", ["nrun=4"])
    runs = workspace.runs()
    assert [r["slot"] for r in runs] == ["1", "1", "2", "2", "3", "3", "4", "4"]
    ident = runs[0]["interleave"]
    assert ident.startswith("two-sets-") and {r["interleave"] for r in runs} == {ident}
    assert f"submitted interleaved: 4 slots of one run of each parameter set in a random order (sequence {ident})" \
        in "\n".join(summary)
    again, _ = generate(str(campaign), "local-openmpi", ["nrun=4"])
    assert [r["run_id"] for r in again.runs()] == [r["run_id"] for r in runs], "the order comes from the seed"
    assert again.runs()[0]["interleave"] != ident, "every generate is a sequence of its own"


def test_every_experiment_gets_its_rounds_and_warm_up_and_twins_copy_their_original():
    workspace, summary = generate("demo", "local-openmpi")
    rows = workspace.experiments()
    assert {(r["nrep"], r["blocks"], r["warmup"]) for r in rows} == {("30", "7", "1")}, "nrep 30: 7 rounds of 4 or 5"
    assert "nrep 30 in 7 interleaved rounds after 1 warm-up; A/A twins of 6 experiments" in summary[0]
    originals = {r["id"]: r for r in rows if r["twin"] == "0"}
    twins = [r for r in rows if r["twin"] == "1"]
    assert min(int(t["id"]) for t in twins) > max(int(i) for i in originals)
    measured = [k for k in rows[0] if k not in ("id", "twin", "twin_of")]
    for twin in twins:
        original = originals[twin["twin_of"]]
        assert {k: twin[k] for k in measured} == {k: original[k] for k in measured}
    assert all(r["twin_of"] == "" for r in originals.values())
    header, *lines = [line for line in (workspace.inputs / "1x4-default-r001.csv").read_text().splitlines()
                      if not line.startswith("#")]
    assert {"blocks", "warmup", "twin", "twin_of"} <= set(header.split(",")) and len(lines) == 30
    chosen = sorted(t["twin_of"] for t in twins)
    again, _ = generate("demo", "local-openmpi")
    assert sorted(r["twin_of"] for r in again.experiments() if r["twin"] == "1") == chosen, "drawn with the seed"
    other, _ = generate("demo", "local-openmpi", ["seed=5", "blocks=3", "warmup=0", "aa=yes"])
    assert {(r["blocks"], r["warmup"]) for r in other.experiments()} == {("3", "0")}
    assert len(other.experiments()) == 48


def test_generate_estimates_the_campaign_s_time_and_says_how():
    """runs x (start + experiments x (setup + repetitions x a repetition)),
    the repetitions nrep and a warm-up per round (gen/estimate.py)."""
    from gen import estimate
    done = nbhbench("generate", "halo", "--env", "local-openmpi", "--set", "deployments=1x2")
    assert done.returncode == 0, done.stderr
    line = done.stdout.splitlines()[3]
    expected = 8 * (estimate.START_SECONDS + 150 * (estimate.SETUP_SECONDS + (30 + 7) * estimate.REPETITION_SECONDS))
    assert line == (f"  estimated time: about {estimate.spoken(expected)} one run after another (8 runs x (1 s to "
                    "start + 150 experiments x 37 repetitions x 4 ms)): a guess from counts, not a measurement; "
                    "a large message, many processes or a loaded machine take longer"), line
    assert [estimate.spoken(s) for s in (0.2, 89, 600, 9000)] == ["1 s", "89 s", "10 min", "2.5 h"]


def test_the_next_step_names_build_and_install_mpi_where_they_are_due(tmp_path, monkeypatch):
    monkeypatch.setenv("NBH_BUILD", str(tmp_path / "nobuild"))
    done = nbhbench("generate", "demo", "--env", "local-openmpi", "--set", "nrun=1")
    assert done.stdout.splitlines()[2].endswith("(next: nbhbench build --env local-openmpi, then nbhbench submit demo)")
    monkeypatch.delenv("NBH_BUILD")
    done = nbhbench("generate", "demo", "--env", "local-openmpi", "--set", "nrun=1")
    assert done.stdout.splitlines()[2].endswith("(next: nbhbench submit demo)")


def test_a_setting_given_as_two_words_says_the_one_word_it_means():
    done = nbhbench("generate", "demo", "--set", "nrun", "3", "--env", "local-openmpi")
    assert done.returncode == 2 and done.stderr == (
        "nbhbench: generate: --set nrun 3: a setting is one word KEY=VALUE: --set nrun=3\n"), done.stderr
    done = nbhbench("generate", "demo", "--set", "nrun")   # no value after it: the settings' own line
    assert done.stderr == "nbhbench: --set nrun: expected KEY=VALUE\n"


def test_a_local_deployment_of_many_processes_per_core_is_said():
    from gen.generate import oversubscription_warning
    assert oversubscription_warning("local", ["1x64"], cores=2) == (
        "deployment 1x64 runs 64 processes on this machine's 2 cores (32 per core): oversubscribed runs wait for "
        "the scheduler, and their times measure it as much as the library (archive marks them oversubscribed; "
        "docs/environments.md)")
    assert oversubscription_warning("local", ["1x4"], cores=2) == "", "the demo's 2 a core is not said"
    assert oversubscription_warning("local", ["1x2", "2x4"], cores=2).startswith("deployment 2x4 runs 8 processes")
    assert oversubscription_warning("slurm", ["1x64"], cores=2) == ""
    cores = len(os.sched_getaffinity(0))
    done = nbhbench("generate", "demo", "--env", "local-openmpi", "--set", f"deployments=1x{8 * cores}",
                    "--set", "nrun=1")
    assert done.returncode == 0 and (f"nbhbench: warning: deployment 1x{8 * cores} runs {8 * cores} processes on "
                                     f"this machine's {cores} cores (8 per core)") in done.stderr, done.stderr
