"""tune's pure parts on hand-made inputs where the answer is known: the race's
decisions from tests.csv rows (tune/decide.py), the space from MPI_T's
listing and registry/tuning.csv (tune/space.py), the guideline and cells of
an analysis (tune/target.py), the campaigns' assessments
(tune/campaigns.py), the confirmation's verdict (tune/confirm.py) and the
deployable files (tune/deploy.py)."""
import csv
import json

import pytest

from gen.envfile import read_environment
from gen.errors import NbhError
from gen import power
from tune import campaigns, confirm, decide, deploy, race, relook, report, space, target

OPENMPI_ALGORITHM = {"name": "coll_tuned_alltoall_algorithm", "value": "ignore",
                     "choices": "0:ignore;1:linear;2:pairwise;3:modified_bruck;4:linear_sync;5:two_proc",
                     "description": "Which alltoall algorithm is used."}
MPICH_ALGORITHM = {"name": "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", "value": "0", "choices": "",
                   "description": "Variable to select alltoall algorithmauto - Internal algorithm selection (can be "
                                  "overridden with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)brucks                    - "
                                  "Force brucks algorithmnb                        - Force nonblocking algorithmpairwise"
                                  "                  - Force pairwise algorithmpairwise_sendrecv_replace - Force "
                                  "pairwise sendrecv replace algorithmscattered                 - Force scattered "
                                  "algorithm"}


def row(a, b, decision, ratio, msize="1024", method="launches", pairs=5):
    return {"guideline": f"{a},op=alltoall <= {b},op=alltoall", "decision": decision, "ratio": str(ratio),
            "msize": msize, "method": method, "pairs": str(pairs)}


def test_the_best_is_the_smallest_geometric_mean_of_the_ratios_to_the_default():
    tests = [row("a", "default", "open", 0.5, "1"), row("a", "default", "open", 2.0, "2"),
             row("b", "default", "open", 0.8, "1"), row("b", "default", "open", 0.9, "2")]
    ratios = decide.ratios_to_default(tests)
    assert ratios["a"] == pytest.approx(1.0) and ratios["b"] == pytest.approx((0.8 * 0.9) ** 0.5)
    assert decide.best_of(ratios, ["default", "a", "b"]) == "b"
    assert decide.best_of(ratios, ["default", "a"]) == "default", "ties go to the first alive"


def test_a_candidate_leaves_when_decided_slower_somewhere_and_ahead_nowhere():
    tests = [row("slow", "best", "violated", 1.4, "1"), row("slow", "best", "open", 1.1, "2"),
             row("mixed", "best", "violated", 1.3, "1"), row("mixed", "best", "open", 0.97, "2"),
             row("alike", "best", "holds", 1.01, "1"), row("alike", "best", "holds", 1.0, "2"),
             row("best", "slow", "violated", 0.7, "1")]   # not a race line: ignored
    found = decide.verdicts(tests, ["best", "slow", "mixed", "alike"], "best")
    assert found["slow"] == {"slower": 1, "ahead": 0, "holds": 0, "tests": 2, "alike": False, "method": "launches",
                             "pairs": 5}
    assert found["mixed"]["ahead"] == 1 and found["alike"]["alike"]
    assert decide.leaving(found) == ["slow"]
    assert decide.stop_reason(["best"], {}, 10, 20) == "one candidate left"
    assert decide.stop_reason(["best", "alike"], {"alike": found["alike"]}, 10, 20).startswith("every candidate left holds")
    assert decide.stop_reason(["best", "slow"], {"slow": found["slow"]}, 21, 20) == "the budget is spent"
    assert decide.stop_reason(["best", "slow"], {"slow": found["slow"]}, 20, 20) == ""


def test_the_race_shares_alpha_over_the_looks_it_can_make():
    plan = {"candidates": [{}] * 4, "first": 5, "step": 2, "budget": 36}
    assert race.looks_at_most(plan) == 1 + (36 - 20) // 4
    assert race.p_look(0.05, 5) == pytest.approx(0.01)


def test_a_look_records_how_its_comparisons_were_made():
    tests = [row("a", "best", "open", 1.2, "1", pairs=5), row("a", "best", "open", 1.1, "2", pairs=4),
             row("b", "best", "open", 1.2, "1", method="unpaired", pairs="")]
    found = decide.verdicts(tests, ["best", "a", "b"], "best")
    assert (found["a"]["method"], found["a"]["pairs"]) == ("launches", 4), "the fewest pairs of its tests"
    assert (found["b"]["method"], found["b"]["pairs"]) == ("unpaired", None)
    paired = [{"verdicts": {"a": found["a"]}}]
    assert report.comparisons(paired).startswith("The comparisons with the best paired each candidate's launches")
    mixed = [{"verdicts": found}]
    assert "launches, unpaired" in report.comparisons(mixed) and "1 / C(2n, n)" in report.comparisons(mixed)
    rows = report.look_rows({"look": 1, "runs": 15, "alive": ["best", "a", "b"], "best": "best",
                             "ratios": {"best": 0.5, "a": 0.6, "b": 0.7}, "verdicts": found, "leaving": [],
                             "p_look": 0.05})
    assert [(r["candidate"], r["method"], r["pairs"]) for r in rows] == [("best", "", ""), ("a", "launches", 4),
                                                                         ("b", "unpaired", None)]


def test_the_first_look_needs_agreeing_launches_not_a_number_of_runs():
    """With the launch-paired test a look's p has no floor (the exact
    rank-sum of n run medians a side has 1 / C(2n, n)): what the first look
    needs is that the pairs' log ratios agree, t / sqrt(first) times their
    spread."""
    plan = {"candidates": [{}] * 6, "first": 4, "target": {"cells": [{}]}, "p_look": 0.025}
    need = race.first_look(plan)
    assert need["tests"] == 5 and need["holm_first"] == pytest.approx(0.005)
    assert power.t_upper(need["t"], 3) == pytest.approx(0.005, rel=1e-6)
    assert need["spreads"] == pytest.approx(need["t"] / 2) and need["t"] == pytest.approx(5.841, abs=0.001)
    line = race.first_look_line(plan)
    assert "5 tests, Holm's first threshold 0.005; each over 4 pairs of launches (3 degrees of freedom, t = 5.84)" in line
    assert "--first" not in line, "2.92 spreads: within power.WEAK_SPREADS"
    many = dict(plan, first=3, target={"cells": [{}] * 15}, p_look=0.05)
    need = race.first_look(many)
    assert need["tests"] == 75 and need["first_for_weak"] == power.runs_for_spreads(0.05 / 75)
    assert race.first_look_line(many).endswith(f"(--first {need['first_for_weak']}: 3 times)")


def measured_race(looks, candidates=("default", "a", "b", "c"), first=4, step=2, budget=40):
    """A finished race's plan: LOOKS as (alive, leaving) of each measured look."""
    return {"candidates": [{"name": n} for n in candidates], "first": first, "step": step, "budget": budget,
            "race": {"looks": [{"look": i, "archive": f"arch{i}", "alive": list(alive), "best": alive[0],
                                "leaving": list(leaving)} for i, (alive, leaving) in enumerate(looks, 1)]}}


def fake_look(leaves, holds=()):
    """decide_look that drops LEAVES[number] and finds HOLDS alike the best."""
    seen = []

    def decide_look(number, archive, alive):
        seen.append((number, archive, list(alive)))
        verdicts = {n: {"slower": int(n in leaves.get(number, ())), "ahead": 0, "holds": 0, "tests": 1,
                        "alike": n in holds} for n in alive if n != alive[0]}
        return {"alive": list(alive), "best": alive[0], "ratios": {n: 1.0 for n in alive}, "p_look": 0.01,
                "verdicts": verdicts, "leaving": list(leaves.get(number, ()))}
    return decide_look, seen


def test_a_relook_replays_the_race_on_the_archives_it_had():
    # The race dropped nothing in two looks; the replay drops b and c at look 1.
    plan = measured_race([(("default", "a", "b", "c"), ()), (("default", "a", "b", "c"), ())])
    decide_look, seen = fake_look({1: ("b", "c")})
    records, reason, winner = relook.replay(plan, decide_look)
    assert seen == [(1, "arch1", ["default", "a", "b", "c"]), (2, "arch2", ["default", "a"])]
    assert [r["runs"] for r in records] == [16, 20], "the replay's runs: 4 each, then 2 more of the two it kept"
    assert reason == "the measured race ends: no later look was measured" and winner == "default"
    # It stops where the race would have stopped: one candidate left.
    decide_look, seen = fake_look({1: ("a", "b", "c")})
    records, reason, _ = relook.replay(plan, decide_look)
    assert len(records) == 1 and reason == "one candidate left" and len(seen) == 1
    # The budget: 16 runs, then 4 x 2 more would be 24 > 20.
    records, reason, _ = relook.replay(dict(plan, budget=20), fake_look({})[0])
    assert len(records) == 1 and reason == "the budget is spent"


def test_a_relook_cannot_go_where_the_race_never_ran():
    # The race dropped b at look 1; a replay that keeps b has no runs of b after it.
    plan = measured_race([(("default", "a", "b"), ("b",)), (("default", "a"), ())], candidates=("default", "a", "b"))
    records, reason, _ = relook.replay(plan, fake_look({})[0])
    assert len(records) == 1 and records[0]["measured"]["leaving"] == ["b"]
    assert reason == "the measured race ends: b left it before look 2, whose runs were never made"


class Env:
    library = "openmpi"

    def __init__(self, env_only=()):
        self.env_only = list(env_only)

    def is_env_only(self, name):
        return read_environment("local-intelmpi").is_env_only(name) if self.env_only else False


def test_choices_come_from_mpi_t_enumerations_and_from_mpich_descriptions():
    assert space.choices(OPENMPI_ALGORITHM) == ["ignore", "linear", "pairwise", "modified_bruck", "linear_sync",
                                                "two_proc"]
    assert space.choices(MPICH_ALGORITHM) == ["auto", "brucks", "nb", "pairwise", "pairwise_sendrecv_replace",
                                              "scattered"]


def test_the_space_is_the_default_then_each_listed_value_less_those_left_out():
    cvars = {"coll_tuned_alltoall_algorithm": OPENMPI_ALGORITHM,
             "coll_tuned_alltoall_intermediate_msg": {"name": "coll_tuned_alltoall_intermediate_msg", "value": "3000",
                                                      "choices": "", "description": ""}}
    found, left = space.space("openmpi", ["alltoall"], cvars, Env())
    names = [c.name for c in found]
    assert names == ["default", "alltoall_linear", "alltoall_pairwise", "alltoall_modified_bruck",
                     "alltoall_linear_sync", "alltoall_intermediate_msg_256", "alltoall_intermediate_msg_1024",
                     "alltoall_intermediate_msg_8192"]
    assert found[2].parameters == {"coll_tuned_use_dynamic_rules": "true", "coll_tuned_alltoall_algorithm": "pairwise"}
    assert {(p, v) for p, v, _ in left} == {("coll_tuned_alltoall_algorithm", "ignore"),
                                            ("coll_tuned_alltoall_algorithm", "two_proc")}
    assert dict(((p, v), why) for p, v, why in left)[("coll_tuned_alltoall_algorithm", "ignore")] == \
        "the library's own choice (the default) (registry/tuning.csv)"
    two, _ = space.space("openmpi5", ["alltoall"], cvars, Env())
    assert "alltoall_two_proc" not in [c.name for c in two], "left out: a setting for every deployment"
    assert space.rows("openmpi5") == space.rows("openmpi") and space.rows("mpich-4.2.3") == space.rows("mpich")


def test_a_parameter_the_library_does_not_know_is_one_line():
    cvars = {"coll_tuned_alltoall_algorithm": OPENMPI_ALGORITHM}
    with pytest.raises(NbhError) as e:
        space.space("openmpi", ["alltoall"], cvars, Env(), [("coll_tuned_alltoal_algorithm", ["2"])])
    assert str(e.value) == ("tune: --param coll_tuned_alltoal_algorithm: library parameter "
                            "coll_tuned_alltoal_algorithm is not known to openmpi (MPI_T lists 1 control "
                            "variables; the closest: coll_tuned_alltoall_algorithm)")
    with pytest.raises(NbhError, match="fastest is not one of its choices in MPI_T"):
        space.space("openmpi", ["alltoall"], cvars, Env(), [("coll_tuned_alltoall_algorithm", ["fastest"])])
    found, _ = space.space("openmpi", ["alltoall"], cvars, Env(), [("coll_tuned_alltoall_algorithm", ["5"])])
    assert found[-1].parameters["coll_tuned_alltoall_algorithm"] == "5" and found[-1].source == "--param"


ASSESSMENT = """# a comment
[global vs neighborhood]
parameter = op
varied = msize
GL8: alltoall,topology=full <= neighbor_alltoall,topology=full
GL4: neighbor_allgather <= neighbor_alltoall

[tuned vs default]
parameter = param_set
varied = msize
x,op=alltoall <= default,op=alltoall
"""


def test_the_assessment_is_read_enough_to_find_a_guideline_and_its_operations():
    sets = target.parse_assessment(ASSESSMENT, "a.conf")
    found = target.find_guideline(sets, "GL8", "a.conf")
    assert found.keys == {"parameter": "op", "varied": "msize"} and len(found.lines) == 1
    assert target.side_ops(found.lines[0][1], "op") == ["alltoall"]
    assert target.side_fixed(found.lines[0][1], "op") == {"op": "alltoall", "topology": "full"}
    with pytest.raises(NbhError, match=r"a.conf has no guideline GL9 \(it has: GL4, GL8\)"):
        target.find_guideline(sets, "GL9", "a.conf")
    text, measured = campaigns.confirmation_assessment(sets, ["alltoall"], "w", "msize")
    assert "GL8: alltoall,topology=full <= neighbor_alltoall,topology=full" in text and "GL4" not in text
    assert "[cost]\nparameter = param_set\nvaried = msize\nw <= default" in text
    assert measured == ["alltoall", "neighbor_alltoall"]


def write_analysis(folder, rows, assessment=ASSESSMENT):
    folder.mkdir()
    columns = ["tag", "guideline", "library", "param_set", "deployment", "op", "topology", "order", "msize",
               "decision", "ratio"]
    with open(folder / "tests.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        writer.writerows(rows)
    (folder / "analysis.json").write_text(json.dumps({"assessment": assessment}))


def test_an_analysis_gives_the_violated_cells_or_one_line_why_not(tmp_path):
    def test(decision, msize, deployment="1x2", library="mpich"):
        return {"tag": "GL8", "guideline": "alltoall <= neighbor_alltoall", "library": library, "param_set": "default",
                "deployment": deployment, "op": "", "topology": "full", "order": "LINEAR", "msize": msize,
                "decision": decision, "ratio": "1.4"}
    write_analysis(tmp_path / "a", [test("violated", "8192"), test("violated", "16384"), test("holds", "256")])
    goal = target.from_analysis(tmp_path / "a", "GL8", campaign="mpich-coll-sweep", env="local-mpich")
    assert goal.ops == ["alltoall"] and goal.deployment == "1x2" and len(goal.cells) == 2
    assert sorted(goal.race_set) == ["msize=8192,16384", "op=alltoall", "order=LINEAR", "topology=full"]
    write_analysis(tmp_path / "b", [test("holds", "8192"), test("open", "256")])
    with pytest.raises(NbhError) as e:
        target.from_analysis(tmp_path / "b", "GL8", campaign="mpich-coll-sweep", env="local-mpich")
    assert str(e.value).startswith("tune: guideline GL8 has no violated test to heal in ") and \
        str(e.value).endswith("(2 tests: 1 hold, 1 open)")
    write_analysis(tmp_path / "c", [test("violated", "8192"), test("violated", "8192", "1x4")])
    with pytest.raises(NbhError, match=r"violated under several deployments \(1x2, 1x4\); choose one with --deployment"):
        target.from_analysis(tmp_path / "c", "GL8", campaign="mpich-coll-sweep", env="local-mpich")


def test_the_confirmation_calls_a_fix_only_what_heals_every_cell_and_costs_nothing():
    cells = [{"op": "alltoall", "msize": "8192"}, {"op": "alltoall", "msize": "16384"}]

    def gl8(param_set, msize, decision, deployment="1x2"):
        return {"set": "g", "tag": "GL8", "guideline": "alltoall <= neighbor_alltoall", "param_set": param_set,
                "deployment": deployment, "op": "", "msize": msize, "decision": decision, "ratio": "1"}

    def cost(decision, deployment, msize="8192"):
        return {"set": "cost", "tag": "", "guideline": "w <= default", "param_set": "", "deployment": deployment,
                "op": "alltoall", "msize": msize, "decision": decision, "ratio": "1.3"}
    healed = [gl8("default", "8192", "violated"), gl8("default", "16384", "violated"),
              gl8("w", "8192", "holds"), gl8("w", "16384", "holds"), cost("open", "1x2"),
              gl8("default", "8192", "holds", "1x8"), gl8("w", "8192", "holds", "1x8"), cost("holds", "1x8")]
    found = confirm.verdict(healed, "GL8", "w", "1x2", cells, ["1x2", "1x8"])
    assert found["fix"] and found["summary"] == "a fix: heals 2 of 2 cells at 1x2, costs nothing decided"
    costly = healed[:-3] + [gl8("default", "8192", "holds", "1x8"), gl8("w", "8192", "violated", "1x8"),
                            cost("violated", "1x8")]
    found = confirm.verdict(costly, "GL8", "w", "1x2", cells, ["1x2", "1x8"])
    assert not found["fix"]
    assert found["summary"] == "not a fix: heals 2 of 2 cells at 1x2; at 1x8: 1 cells slower, 1 new violations"
    open_only = [gl8("default", "8192", "violated"), gl8("default", "16384", "violated"),
                 gl8("w", "8192", "holds"), gl8("w", "16384", "open")]
    found = confirm.verdict(open_only, "GL8", "w", "1x2", cells, ["1x2"])
    assert not found["fix"] and found["summary"] == "not a fix: heals 1 of 2 cells at 1x2", \
        "no longer significant is not healed"


def test_the_confirmation_matches_the_winners_tests_to_the_defaults_whatever_their_statistics():
    # The two-level test writes df, p_reverse, var_launch, var_round and
    # launch_share, which differ between the default's and the winner's
    # test of one cell: a test is known by its identity (set, context,
    # parameters), so a cell violated under both is no new violation.
    cells = [{"op": "alltoall", "msize": "8192"}]

    def gl8(param_set, msize, decision, deployment, share):
        return {"set": "g", "tag": "GL8", "relation": "<=", "guideline": "alltoall <= neighbor_alltoall",
                "param_set": param_set, "deployment": deployment, "nprocs": deployment[2:], "op": "",
                "msize": msize, "decision": decision, "ratio": "1.2", "df": "9", "p_reverse": "1",
                "var_launch": share, "var_round": "0.01", "launch_share": share, "method": "paired"}
    tests = [gl8("default", "8192", "violated", "1x2", "0.1"), gl8("w", "8192", "holds", "1x2", "0.3"),
             gl8("default", "1024", "violated", "1x4", "0.2"), gl8("w", "1024", "violated", "1x4", "0.6")]
    found = confirm.verdict(tests, "GL8", "w", "1x2", cells, ["1x2", "1x4"])
    assert found["fix"] and found["summary"] == "a fix: heals 1 of 1 cells at 1x2, costs nothing decided", found
    tests[2]["decision"] = "holds"
    found = confirm.verdict(tests, "GL8", "w", "1x2", cells, ["1x2", "1x4"])
    assert found["summary"] == "not a fix: heals 1 of 1 cells at 1x2; at 1x4: 0 cells slower, 1 new violations", found


def test_deployable_files_for_each_library(tmp_path):
    written = deploy.write(tmp_path / "o", "openmpi", {"coll_tuned_use_dynamic_rules": "true",
                                                       "coll_tuned_alltoall_algorithm": "pairwise"}, "c",
                           nprocs=2, from_bytes=8192, choices={"coll_tuned_alltoall_algorithm": OPENMPI_ALGORITHM["choices"]})
    assert [name for name, _ in written] == ["mca-params.conf", "coll-tuned-rules.conf", "mca-params-rules.conf"]
    numbers = [line.split("#")[0].split() for line in (tmp_path / "o" / "coll-tuned-rules.conf").read_text().splitlines()]
    assert [n for n in numbers if n] == [["1"], ["3"], ["1"], ["2"], ["2"], ["0", "0", "0", "0"], ["16384", "2", "0", "0"]]
    assert deploy.write(tmp_path / "m", "mpich5", {"MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM": "pairwise"}, "c")[0][0] == "cvars.env"
    assert "export MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=pairwise\n" in (tmp_path / "m" / "cvars.env").read_text()
    assert deploy.write(tmp_path / "i", "intelmpi", {"I_MPI_ADJUST_ALLTOALL": "3"}, "c")[0][0] == "impi.env"
    only = deploy.write(tmp_path / "s", "openmpi", {"coll_tuned_use_dynamic_rules": "true",
                                                    "coll_tuned_alltoall_intermediate_msg": "256"}, "c", nprocs=2)
    assert [name for name, _ in only] == ["mca-params.conf"], "a switch point: no rules file"
