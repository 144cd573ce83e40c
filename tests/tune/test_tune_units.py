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
from tune import campaigns, confirm, decide, deploy, race, space, target

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


def row(a, b, decision, ratio, msize="1024"):
    return {"guideline": f"{a},op=alltoall <= {b},op=alltoall", "decision": decision, "ratio": str(ratio),
            "msize": msize}


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
    assert found["slow"] == {"slower": 1, "ahead": 0, "holds": 0, "tests": 2, "alike": False}
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
