"""Adaptive rounds (gen/rounds.py): the looks an adaptive campaign plans,
the runs of a later round (only the experiments open tests need, shuffled,
new run ids and seeds, within the budget), and the settings' mistakes."""
import csv
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from gen import rounds
from gen.envfile import read_environment
from gen.errors import NbhError
from gen.generate import command, generate
from gen.runs import run_seed, shuffle_order

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def private_work(tmp_path, monkeypatch):
    monkeypatch.setenv("NBH_WORK", str(tmp_path / "work"))
    monkeypatch.setenv("NBH_ARCHIVES", str(tmp_path / "archives"))


def nbhbench(*args):
    return subprocess.run([str(ROOT / "nbhbench"), *map(str, args)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ))


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def test_looks_and_the_first_looks_thresholds():
    assert rounds.looks_planned(10, 5, 30) == 5      # after 10, 15, 20, 25, 30 runs
    assert rounds.looks_planned(8, 4, 30) == 7       # 8, 12, ..., 28, then 30
    assert rounds.looks_planned(10, 5, 10) == 1      # a budget of one round: one look
    # Lan-DeMets spending at a third of the information (rpact 3.3.4: 1.20258e-08; Pocock-type 0.025 x
    # log(1 + (e - 1) / 3) of the intervals' 2.5 %); all of it at full information.
    assert rounds.spending("obrien-fleming", 0.001, 1 / 3) == pytest.approx(1.20258e-08, rel=1e-5)
    assert rounds.spending("pocock", 0.025, 1 / 3) == pytest.approx(0.025 * 0.4528324, rel=1e-6)
    assert rounds.spending("obrien-fleming", 0.001, 1) == pytest.approx(0.001)
    assert rounds.spending("pocock", 0.025, 1.5) == pytest.approx(0.025)
    with pytest.raises(NbhError, match="unknown rule 'bonferroni'"):
        rounds.spending("bonferroni", 0.001, 0.5)


def adaptive_demo(*more):
    workspace, _ = generate("demo", "local-openmpi", ["deployments=1x4,1x2", "adaptive=yes", "nrun=10",
                                                      "nrun_max=22", "nrun_step=5", *more])
    return workspace


def test_a_round_holds_only_what_open_tests_need_shuffled_in_new_runs():
    workspace = adaptive_demo()
    info = workspace.info()
    plan = read_json(workspace.path / "adaptive.json")
    assert (plan["looks_planned"], plan["rule"], plan["hold_rule"], plan["state"]) == \
        (4, "obrien-fleming", "pocock", "round 1")
    assert plan["p_first"] == pytest.approx(rounds.spending("obrien-fleming", 0.001, 10 / 22))
    assert plan["ci_level_first"] == pytest.approx(1 - 2 * rounds.spending("pocock", 0.025, 10 / 22))
    runs = workspace.runs()
    assert {r["round"] for r in runs} == {"1"} and len(runs) == 20
    needed = {("1x4", "default"): {3, 7, 12, 20}}   # 1x2 needs nothing: it gets no runs
    new = rounds.round_runs(runs, needed, 5, 22, info["settings"]["seed"], 2)
    assert [r["run_id"] for r in new] == [f"1x4-default-r{k:03d}" for k in range(11, 16)]
    assert all(r["seed"] == run_seed(info["settings"]["seed"], "1x4", "default", r["run"]) for r in new)
    env = read_environment(str(workspace.env / info["env"]))
    order = [int(e["id"]) for e in workspace.experiments()]
    rounds.write_round(workspace, info, env, new, order)

    table = workspace.runs()
    assert len(table) == 25 and [r["round"] for r in table[20:]] == ["2"] * 5
    assert {r["experiments_total"] for r in table[20:]} == {"4"} and table[0]["experiments_total"] == "30"
    first = {int(row["id"]): row for row in read(workspace.input("1x4-default-r001", 1))}
    orders = []
    for run in table[20:]:
        rows = read(workspace.input(run["run_id"], 1))
        ids = [int(row["id"]) for row in rows]
        assert sorted(ids) == [3, 7, 12, 20], "only the experiments open tests need"
        assert ids == [[3, 7, 12, 20][k] for k in shuffle_order(4, int(run["seed"]))], "shuffled with the run's seed"
        assert all(dict(row, seed="") == dict(first[int(row["id"])], seed="") for row in rows)
        assert {row["seed"] for row in rows} == {run["seed"]}
        job = workspace.job(run["run_id"], 1).read_text()
        assert str(workspace.input(run["run_id"], 1)) in job and os.access(workspace.job(run["run_id"], 1), os.X_OK)
        orders.append(ids)
    assert len({tuple(o) for o in orders}) > 1, "each run its own order"

    # The next round: the budget of 22 leaves 7 runs; 2 in round 4.
    third = rounds.round_runs(workspace.runs(), needed, 5, 22, info["settings"]["seed"], 3)
    assert [r["run"] for r in third] == [16, 17, 18, 19, 20]
    rounds.write_round(workspace, info, env, third, order)
    assert [r["run"] for r in rounds.round_runs(workspace.runs(), needed, 5, 22, 1, 4)] == [21, 22]
    assert rounds.runs_left(workspace.runs(), 22) == 2 + 12   # 1x4: 2 left; 1x2: 12 left
    assert rounds.round_runs(workspace.runs(), {}, 5, 22, 1, 4) == [], "nothing open: no round"


def test_rounds_interleave_the_deployments_that_need_runs():
    workspace = adaptive_demo()
    runs = workspace.runs()
    new = rounds.round_runs(runs, {("1x4", "default"): {1}, ("1x2", "default"): {2, 3}}, 2, 22, 1, 2)
    assert [r["run_id"] for r in new] == ["1x4-default-r011", "1x2-default-r011", "1x4-default-r012",
                                          "1x2-default-r012"]
    assert [r["ids"] for r in new] == [[1], [2, 3], [1], [2, 3]]


def test_a_later_round_of_several_sets_is_interleaved_in_slots_after_the_last(tmp_path):
    campaign = tmp_path / "two-sets"
    shutil.copytree(ROOT / "campaigns" / "demo", campaign)
    with open(campaign / "campaign.conf", "a") as f:
        f.write("\n[param_set default]\n\n[param_set dynamic]\ncoll_tuned_use_dynamic_rules = true\n")
    workspace, _ = generate(str(campaign), "local-openmpi", ["adaptive=yes", "nrun=10", "nrun_max=22",
                                                              "nrun_step=3"])
    info = workspace.info()
    runs = workspace.runs()
    assert max(int(r["slot"]) for r in runs) == 10
    needed = {("1x4", "default"): {1, 2}, ("1x4", "dynamic"): {2}}
    new = rounds.round_runs(runs, needed, 3, 22, info["settings"]["seed"], 2)
    assert [r["slot"] for r in new] == [11, 11, 12, 12, 13, 13]
    assert all(sorted(r["param_set"] for r in new if r["slot"] == k) == ["default", "dynamic"] for k in (11, 12, 13))
    assert {r["interleave"] for r in new} == {runs[0]["interleave"]}
    assert len({tuple(r["param_set"] for r in new if r["slot"] == k) for k in (11, 12, 13)}) > 1 or \
        len({tuple(r["param_set"] for r in runs if r["slot"] == str(k)) for k in range(1, 11)}) > 1
    env = read_environment(str(workspace.env / info["env"]))
    rounds.write_round(workspace, info, env, new, [int(e["id"]) for e in workspace.experiments()])
    assert [r["slot"] for r in workspace.runs()[20:]] == ["11", "11", "12", "12", "13", "13"]
    one = rounds.round_runs(workspace.runs(), {("1x4", "dynamic"): {2}}, 3, 22, info["settings"]["seed"], 3)
    assert [(r["interleave"], r["slot"]) for r in one] == [("", "")] * 3, "a slot of one set is no interleave"


def test_never_more_rounds_than_looks_planned_whatever_each_round_needs():
    # 1x4 and 1x2 need runs in turn: each round brings a deployment that sat rounds out to the
    # round's planned count (10, 15, 20, 22), and none gets runs after round 4, the last of 4 looks
    # (without that, 1x2 would go on to round 5, 1x4 and 1x2 each taking 5 runs a round: round 6).
    workspace = adaptive_demo()
    info = workspace.info()
    env = read_environment(str(workspace.env / info["env"]))
    order = [int(e["id"]) for e in workspace.experiments()]
    wanted = [("1x4", "default"), ("1x2", "default")]
    counts = []
    number = 2
    while True:
        key = wanted[number % 2]
        new = rounds.round_runs(workspace.runs(), {key: {1, 2}}, 5, 22, info["settings"]["seed"], number)
        if not new:
            break
        rounds.write_round(workspace, info, env, new, order)
        counts.append((number, key[0], len(new)))
        number += 1
    assert counts == [(2, "1x4", 5), (3, "1x2", 10), (4, "1x4", 7)]
    last = number - 1
    assert last <= 4 == rounds.looks_planned(10, 5, 22)
    runs = workspace.runs()
    assert max(int(r["run"]) for r in runs if r["deployment"] == "1x4") == 22
    assert max(int(r["run"]) for r in runs if r["deployment"] == "1x2") == 20
    # Round 5 would be past the plan: no deployment gets runs in it, whatever it needs and has left.
    assert rounds.round_runs(runs, {key: {1, 2} for key in wanted}, 5, 22, 1, 5) == []
    assert [r["run"] for r in rounds.round_runs(runs, {("1x2", "default"): {1}}, 5, 22, 1, 4)] == [21, 22]


def read_json(path):
    return json.loads(path.read_text())


@pytest.mark.parametrize("items, message", [
    (["adaptive=yes", "nrun_max=5"], "nrun_max 5 is below nrun 10 (nrun_max from --set, nrun from "),
    (["adaptive=yes", "nrun_max=20", "nrun_step=0"], "--set nrun_step=0: 0 is outside 1..10000 runs "
                                                     "(registry/limits.csv: nrun_step)"),
    (["adaptive=yes"], "adaptive = yes (adaptive from --set) needs nrun_max"),
    (["adaptive=maybe"], "--set adaptive=maybe: 'maybe' is neither yes nor no"),
    (["hold_ratio=1.01"], "hold_ratio 1.01 (hold_ratio from --set) is below the ratio threshold 1.03"),
])
def test_adaptive_settings_mistakes_write_nothing(tmp_path, items, message):
    with pytest.raises(NbhError, match=re.escape(message)):
        generate("demo", "local-openmpi", items)
    assert not (tmp_path / "work" / "demo").exists()


def test_nrun_max_below_nrun_in_campaign_conf_is_one_line_naming_its_line(tmp_path):
    campaign = tmp_path / "mine"
    campaign.mkdir()
    for name in ("experiments.py", "assessment.conf"):
        (campaign / name).write_text((ROOT / "campaigns" / "demo" / name).read_text())
    (campaign / "campaign.conf").write_text("deployments = 1x4\nnrun = 10\nnrep = 5\ntime_limit = 5\n"
                                            "adaptive = yes\nnrun_max = 8\n")
    result = nbhbench("generate", campaign, "--env", "local-openmpi")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "nrun_max 8 is below nrun 10 (nrun_max from" in result.stderr
    assert "mine/campaign.conf:6, nrun from" in result.stderr and "campaign.conf:2)" in result.stderr
    assert not (tmp_path / "work" / "mine").exists()
    (campaign / "assessment.conf").unlink()
    (campaign / "campaign.conf").write_text("deployments = 1x4\nnrun = 10\nnrep = 5\ntime_limit = 5\n"
                                            "adaptive = yes\nnrun_max = 20\n")
    with pytest.raises(NbhError, match=r"adaptive = yes \(.*campaign.conf:5\) needs the campaign's assessment, "
                                       r"but .* has no assessment.conf"):
        generate(str(campaign), "local-openmpi")
    assert not (tmp_path / "work" / "mine").exists()


def test_generate_warns_when_the_first_round_cannot_reach_the_first_looks_threshold(capsys):
    # O'Brien-Fleming-type spending of 0.001 allows the first look, at 8 / 27 of the information,
    # 2 (1 - Phi(3.2905 / sqrt(8 / 27))) = 1.5e-9: the two-level test over 8 runs (t = 36.6 with 7
    # degrees of freedom) needs their mean 12.9 spreads above 0; 17 runs reach 3 spreads.
    command(["demo", "--env", "local-openmpi", "--set", "adaptive=yes", "--set", "nrun=8", "--set", "nrun_max=27",
             "--set", "nrun_step=1", "--set", "blocks=1"])
    said = capsys.readouterr()
    assert "at most 20 looks; each test's looks spend p_thres 0.001 by obrien-fleming spending on its runs / " \
           "nrun_max (the first look at p <= 1.49e-09) and the intervals' 2.5 % by pocock spending" in said.out
    assert "nrun=8 can show a violation in the first round (its look's share 1.49e-09 of the p threshold 0.001" \
        in said.err
    assert "use nrun >= 17" in said.err
    # More rounds do not help: the launches are the unit.
    command(["demo", "--env", "local-openmpi", "--set", "adaptive=yes", "--set", "nrun=8", "--set", "nrun_max=27",
             "--set", "nrun_step=1", "--set", "blocks=4"])
    assert "use nrun >= 17" in capsys.readouterr().err
    command(["demo", "--env", "local-openmpi", "--set", "adaptive=yes", "--set", "nrun=17", "--set", "nrun_max=27",
             "--set", "nrun_step=1", "--set", "blocks=1"])
    assert "warning" not in capsys.readouterr().err
