"""Persistent operations, busy work as measured and work_factor, with the
real kernel under both libraries: the _init call timed apart, the work of
every repetition written beside the operation's time, and a work_factor
that gives the work it records, which the measured work agrees with."""
import pandas as pd
import pytest

pytestmark = pytest.mark.quiet   # timings decide: run alone (tests/run)


def experiment(id_, op, **values):
    e = dict(id=id_, op=op, topology="cart", ndim=1, nfin=1, reorder=0, msize=65536, nrep=20, seed=3, blocks=5)
    e.update(values)
    return e


def preparation(run, round_number=1):
    """PREFIX.preparation.csv by id (a row per round: the ROUND_NUMBER's), empty cells as NaN."""
    table = pd.read_csv(run.file("preparation.csv"))
    return table[table["round"] == round_number].set_index("id")


def progress_experiments():
    return [
        experiment(1, "neighbor_alltoall"),
        experiment(2, "neighbor_alltoall_init"),
        experiment(3, "neighbor_allgatherv_init", topology="full", ndim=None, nfin=None, order="RAND", msize=1024),
        # 1 MiB: work of some hundred microseconds, well above the timer's and the scheduler's noise
        experiment(4, "ineighbor_alltoall", work_factor=1, msize=1 << 20),
        experiment(5, "ineighbor_alltoall", work_factor=2, msize=1 << 20),
        experiment(6, "neighbor_alltoall", work_factor=2, msize=1 << 20),
        experiment(7, "neighbor_alltoallw_init", work_factor=1, msize=1 << 20),
        experiment(8, "neighbor_alltoall", work_us=300),
    ]


@pytest.fixture(params=["openmpi", "mpich"])
def progress_run(request, kernel):
    """One kernel run of 2 processes per library, shared by the tests below
    (no duplicate edges: both libraries deliver every block right)."""
    run = kernel(request.param, 2, progress_experiments(), "--validate")
    assert run.returncode == 0, run.stderr
    run.library = request.param
    return run


def test_persistent_init_is_timed_apart_and_work_is_measured_per_repetition(progress_run):
    results = progress_run.results
    assert list(results.columns) == ["id", "rep", "round", "seconds", "work_seconds"]
    assert results.groupby("id").size().to_dict() == {i: 20 for i in range(1, 9)}
    assert results.groupby("id")["round"].nunique().to_dict() == {i: 5 for i in range(1, 9)}, "5 rounds of 4"
    work = results.groupby("id")["work_seconds"]
    assert (work.max()[[1, 2, 3]] == 0).all(), "without work nothing is timed"
    assert (work.min()[[4, 5, 6, 7, 8]] > 0).all()
    # The work runs inside the timed region: never longer than the repetition.
    assert (results["work_seconds"] <= results["seconds"]).all()
    prepared = preparation(progress_run)
    assert sorted(prepared.index) == [2, 3, 4, 5, 6, 7], "persistent operations and work_factor only"
    init = prepared["init_seconds"]
    assert (init[[2, 3, 7]] > 0).all() and init[[4, 5, 6]].isna().all()
    later = preparation(progress_run, 5)
    assert sorted(later.index) == [2, 3, 4, 5, 6, 7] and (later.loc[[2, 3, 7], "init_seconds"] > 0).all(), \
        "every round calls _init anew"
    assert later["work_us"].sort_index().equals(prepared["work_us"].sort_index()), \
        "the work a factor gives is kept across the rounds"
    assert not progress_run.file("findings.csv").read_text().strip().split("\n")[1:], "every block arrived right"


def test_work_factor_records_the_work_it_gives_the_same_for_every_form(progress_run):
    factored = preparation(progress_run).loc[[4, 5, 6, 7]]
    assert list(factored["work_reference"]) == ["ineighbor_alltoall"] * 3 + ["ineighbor_alltoallw"]
    assert list(factored["work_factor"]) == [1, 2, 2, 1]
    reference = factored["work_reference_seconds"] * 1e6
    assert factored["work_us"].tolist() == pytest.approx((factored["work_factor"] * reference).tolist(), abs=1e-3)
    # One exchange, one reference time per run: timed in the first of its
    # experiments, so the forms with the same factor get the same work.
    assert factored.loc[4, "work_reference_id"] == 4
    assert list(factored.loc[[5, 6], "work_reference_id"]) == [4, 4]
    assert reference[4] == reference[5] == reference[6]
    assert factored.loc[5, "work_us"] == factored.loc[6, "work_us"]
    assert factored.loc[5, "work_us"] == pytest.approx(2 * factored.loc[4, "work_us"], abs=2e-3)
    assert factored.loc[7, "work_reference_id"] == 7


def test_measured_work_agrees_with_the_nominal_within_its_spread(progress_run, kernel):
    """The measured work is the nominal (work_factor's record, or work_us)
    up to the drift of the calibrated countdown, which on a shared 2-core
    machine goes both ways: longer under load (20-30 %, more when the
    other hyperthread of the core is busy), shorter when the calibration
    ran while it was busy (seen here: 5.2 us measured for 7.2 nominal).
    Hence the analyzer's use of the measured work. Under a load of a few
    spinning processes the countdown gets a third of a core and runs 8x its
    nominal (386 ms measured for 48 ms once). What must hold: the median
    within 0.1 .. 20 of the nominal (a unit mistake, 1000x, is far
    outside: this bound is not a timing claim), and, compared where both
    are measured alike, work_factor 2 measures about twice work_factor 1 of
    the same exchange. The host of this VM also changes its speed by 3-4x
    for seconds (once work_factor 2 measured the same as 1 in a run without
    rounds): the two factors are compared round by round, each round's
    measurements seconds apart (the kernel's interleaved rounds), by their
    shortest: another process that takes the core only ever lengthens a
    countdown (by a whole time slice: once a round's median of work_factor 2
    was 3.5x work_factor 1's while the tests ran in two lanes), so the
    shortest of a round's 8 (4 repetitions on 2 processes) is the least
    disturbed."""
    assert work_problem(progress_run) is None


def work_problem(run):
    """What of the measured work disagrees with the nominal in RUN, or None."""
    nominal = preparation(run)["work_us"].dropna().to_dict()
    nominal[8] = 300.0
    work = run.results.groupby("id")["work_seconds"]
    for id_ in (4, 5, 6, 7, 8):
        measured = work.get_group(id_).median() * 1e6
        if not 0.1 * nominal[id_] <= measured <= 20 * nominal[id_]:
            return f"experiment {id_}: {measured:.1f} us measured for {nominal[id_]:.1f} nominal"
    per_round = run.results.groupby(["id", "round"])["work_seconds"].min().unstack(0)
    ratio = (per_round[5] / per_round[4]).median()
    if not 1.3 <= ratio <= 3.5:
        return f"work_factor 2 measured {ratio:.3f} times work_factor 1 (the median over rounds of their shortest)"
    return None
