"""campaign.conf, environment files and --set (gen/settings.py, gen/envfile.py)."""
import shlex

import pytest

from gen import envfile, jobscript, settings
from gen.registry import ROOT
from gen.errors import ConfigError, NbhError

GOOD = """\
# a comment
description = test   # trailing comment
deployments = 1x4, 2x8
nrun = 3
nrep = 5
time_limit = 1:30:00
seed = 42
env = local-openmpi

[param_set default]

[param_set tuned]
coll_tuned_use_dynamic_rules = true
"""


def write(tmp_path, text, name="campaign.conf"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_complete_settings_file(tmp_path):
    s = settings.read_settings(write(tmp_path, GOOD))
    assert s.deployments == [(1, 4), (2, 8)] and (s.nrun, s.nrep, s.seed) == (3, 5, 42)
    assert s.time_limit == 5400 and s.env == "local-openmpi"
    assert s.param_sets == {"default": {}, "tuned": {"coll_tuned_use_dynamic_rules": "true"}}


def test_without_parameter_sets_there_is_default(tmp_path):
    s = settings.read_settings(write(tmp_path, GOOD.split("[param_set")[0]))
    assert s.param_sets == {"default": {}}


@pytest.mark.parametrize("change, line, message", [
    (("nrun = 3", "nrun 3"), 4, "malformed line 'nrun 3'"),
    (("nrun = 3", "nruns = 3"), 4, "unknown setting 'nruns'"),
    (("nrun = 3", "nrun = three"), 4, "nrun: 'three' is not an integer"),
    (("deployments = 1x4, 2x8", "deployments = 1x4, 2y8"), 3, "'2y8' is not a deployment"),
    (("deployments = 1x4, 2x8", "deployments = 0x4"), 3, "at least 1"),
    (("time_limit = 1:30:00", "time_limit = soon"), 6, "'soon' is not a time limit"),
    (("seed = 42", "seed = 42\nseed = 43"), 8, "seed is given twice (first on line 7)"),
    (("[param_set tuned]", "[param_sets tuned]"), 12, "unknown section [param_sets tuned]"),
    (("[param_set tuned]", "[param_set default]"), 12, "parameter set default is defined twice"),
    (("coll_tuned_use_dynamic_rules = true", "coll-tuned = true"), 13, "not a library parameter name"),
])
def test_mistakes_name_file_and_line(tmp_path, change, line, message):
    path = write(tmp_path, GOOD.replace(*change))
    with pytest.raises(ConfigError) as error:
        settings.read_settings(path)
    assert error.value.line == line and message in str(error.value)
    assert str(error.value).startswith(f"{path}:{line}: ") or f"campaign.conf:{line}: " in str(error.value)


def test_missing_settings_are_named(tmp_path):
    with pytest.raises(ConfigError, match="missing settings: nrun, time_limit"):
        settings.read_settings(write(tmp_path, "deployments = 1x4\nnrep = 3\n"))


@pytest.mark.parametrize("text, seconds", [("10", 600), ("0:30", 30), ("2:00:00", 7200),
                                           ("1-00", 86400), ("1-2:03:04", 93784)])
def test_slurm_time_formats(text, seconds):
    assert settings.parse_time_limit(text) == seconds
    assert settings.parse_time_limit(settings.format_time_limit(seconds)) == seconds


def test_set_sorts_settings_levels_and_launch_env():
    o = settings.parse_overrides(["nrun=3", "deployments=1x4,2x8", "ndim=2", "msize=1024,16384",
                                  "op=neighbor_alltoall", "launch_env=LD_PRELOAD=/x/tool.so",
                                  "launch_env=A=b=c", "param_set=default"])
    assert o.settings == {"nrun": "3", "deployments": "1x4,2x8"}
    assert o.levels == {"ndim": [2], "msize": [1024, 16384], "op": ["neighbor_alltoall"]}
    assert o.launch_env == [("LD_PRELOAD", "/x/tool.so"), ("A", "b=c")]
    assert o.param_sets == ["default"]


@pytest.mark.parametrize("item, message", [
    ("foo=1", "--set foo=1: unknown key 'foo'"),
    ("nrun", "--set nrun: expected KEY=VALUE"),
    ("nrun=0", "--set nrun=0: 0 is outside 1.."),
    ("op=neighbour_alltoall", "unknown op 'neighbour_alltoall'"),
    ("ndim=two", "'two' is not an integer"),
    ("launch_env=novalue", "'novalue' is not VAR=value"),
    ("deployments=4", "'4' is not a deployment"),
])
def test_set_mistakes(item, message):
    with pytest.raises(NbhError, match=message.replace("(", r"\(").replace(")", r"\)")):
        settings.parse_overrides([item])


def test_shipped_environments_read():
    for name in ("local-openmpi", "local-mpich", "slurm-openmpi", "slurm-mpich"):
        env = envfile.read_environment(name)
        assert env.library in ("openmpi", "mpich") and env.scheduler in ("local", "slurm")
        assert "{nprocs}" in env.launcher


@pytest.mark.parametrize("library", ["openmpi5", "mpich5", "intelmpi"])
def test_release_environments_use_their_own_launcher_relative_to_the_project(library):
    """The pip-wheel releases (nbhbench install-mpi): paths through {root},
    never absolute; each launches with its own mpirun/mpiexec.hydra."""
    for scheduler in ("local", "slurm"):
        env = envfile.read_environment(f"{scheduler}-{library}")
        assert (env.library, env.scheduler) == (library, scheduler)
        assert env.mpicc == f"{{root}}/.mpi/{library}/bin/mpicc"
        assert env.launcher.startswith(f"{{root}}/.mpi/{library}/bin/mpi")
        assert "/work" not in envfile.find(f"{scheduler}-{library}").read_text()
    # a shell word (nbhbench-build runs it): the project's path quoted where it holds a space
    assert shlex.split(envfile.build_info(f"local-{library}")[1]) == [f"{ROOT}/.mpi/{library}/bin/mpicc"]
    launcher = envfile.read_environment(f"local-{library}").launcher
    if library == "openmpi5":
        assert "--bind-to core:overload-allowed" in launcher and "OVERSUBSCRIBE" in launcher
    if library == "intelmpi":
        assert "/bin/mpiexec.hydra " in launcher, "never bin/mpirun: it runs whichever mpiexec.hydra is on PATH"
        assert envfile.read_environment("local-intelmpi").is_env_only("I_MPI_ADJUST_ALLTOALL")
        assert not envfile.read_environment("local-intelmpi").is_env_only("I_MPI_FABRICS")


def test_env_only_parameters_are_expected_in_the_environment(tmp_path):
    text = ("library = x\nmpicc = cc\nscheduler = local\nlauncher = run -n {nprocs}\n"
            "param_env = OMPI_MCA_{name}\nenv_only = my_knob_*\n")
    env = envfile.read_environment(str(write(tmp_path, text, "e")))
    run = {"run_id": "1x2-s-r001", "nodes": 1, "ppn": 2, "nprocs": 2, "param_set": "s"}
    job = jobscript.job_script(env=env, env_name="e", campaign="c", run=run, attempt=1,
                               param_set={"my_knob_a": "3", "coll_x": "1"}, launch_env=[], time_limit="1:00",
                               kernel="k", input_path="i", prefix="p", log="l", exit_file="x", root="/r", build="/b")
    assert "--expect-env OMPI_MCA_my_knob_a=3" in job and "--expect-cvar coll_x=1" in job
    assert "--expect-cvar my_knob_a" not in job
    bad = write(tmp_path, text.replace("env_only = my_knob_*", "env_only = my-knob"), "f")
    with pytest.raises(ConfigError, match="env_only: 'my-knob' is not a parameter name or a pattern"):
        envfile.read_environment(str(bad))


@pytest.mark.parametrize("change, line, message", [
    (("scheduler = local", "scheduler = pbs"), 3, "'pbs' is not one of local, slurm"),
    (("scheduler = local", "schedule = local"), 3, "unknown key 'schedule'"),
    (("launcher = mpirun -np {nprocs}", "launcher = mpirun -np {nproc}"), 4, "unknown placeholder {nproc}"),
    (("launcher = mpirun -np {nprocs}", "launcher = mpirun -np 4"), 4, "must contain {nprocs}"),
    (("export = A=1", "export = A"), 5, "'A' is not VAR=value"),
    (("export = A=1", "[section]"), 5, "no sections"),
])
def test_environment_mistakes_name_file_and_line(tmp_path, change, line, message):
    text = "library = openmpi\nmpicc = mpicc.openmpi\nscheduler = local\nlauncher = mpirun -np {nprocs}\nexport = A=1\n"
    path = write(tmp_path, text.replace(*change), "my-env")
    with pytest.raises(ConfigError) as error:
        envfile.read_environment(str(path))
    assert error.value.line == line and message in str(error.value)


def test_unknown_environment_lists_the_known_ones():
    with pytest.raises(NbhError, match="unknown environment 'nope' .*local-openmpi"):
        envfile.find("nope")


def fenced_block_after(path, marker):
    """The fenced code block of a Markdown file that contains MARKER."""
    blocks = path.read_text().split("```")[1::2]
    return next(block.split("\n", 1)[1] for block in blocks if marker in block)


def test_the_documented_examples_read(tmp_path):
    docs = envfile.ROOT / "docs"
    site = write(tmp_path, fenced_block_after(docs / "environments.md", "env/vsc-intelmpi"), "vsc-intelmpi")
    env = envfile.read_environment(str(site))
    assert (env.library, env.scheduler, env.partition) == ("intelmpi", "slurm", "skylake")
    assert env.ntasks_per_node and "--constraint=ib" in env.sbatch and len(env.setup) == 2
    conf = write(tmp_path, fenced_block_after(docs / "campaigns.md", "[param_set intermediate256]"))
    s = settings.read_settings(conf)
    assert s.deployments == [(10, 16), (20, 16), (35, 16)] and list(s.param_sets) == ["default", "intermediate256"]


def test_a_parameter_set_may_be_for_one_library(tmp_path):
    s = settings.read_settings(write(tmp_path, GOOD + "\n[param_set async]\nlibrary = mpich\n"
                                               "MPIR_CVAR_ASYNC_PROGRESS = 1\n"))
    assert s.param_sets["async"] == {"MPIR_CVAR_ASYNC_PROGRESS": "1"}, "library is not a library parameter"
    assert s.param_set_library == {"async": "mpich"}
    kept = settings.Settings(path="x", param_sets=dict(s.param_sets), param_set_library=s.param_set_library)
    assert settings.sets_for_library(kept, "openmpi") == ["async"]
    assert list(kept.param_sets) == ["default", "tuned"]
    with pytest.raises(NbhError, match="parameter set async is for mpich, not openmpi"):
        settings.sets_for_library(settings.Settings(path="x", param_sets={"async": {}},
                                                    param_set_library={"async": "mpich"}), "openmpi", True)
    with pytest.raises(NbhError, match="every parameter set of the campaign is for another library than openmpi"):
        settings.sets_for_library(settings.Settings(path="x", param_sets={"async": {}},
                                                    param_set_library={"async": "mpich"}), "openmpi")
    with pytest.raises(ConfigError, match=r"campaign.conf:16: library: 'mp ich' is not a library name"):
        settings.read_settings(write(tmp_path, GOOD + "\n[param_set async]\nlibrary = mp ich\n"))
