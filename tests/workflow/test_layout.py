"""workflow/layout.py: a run's hosts against its deployment."""
from workflow import layout

RUN = {"nodes": "2", "ppn": "2", "nprocs": "4"}


def hosts(*spec):
    return [{"name": name, "ranks": ranks, "cores": cores} for name, ranks, cores in spec]


def test_rank_count():
    assert layout.rank_count("0-3,8") == 5 and layout.rank_count("7") == 1


def test_as_asked():
    placed = layout.check(RUN, [(1, {"hosts": hosts(("n1", "0-1", 2), ("n2", "2-3", 2))})])
    assert placed.columns() == {"layout": "ok", "layout_detail": "", "ranks_per_host": "n1:2;n2:2",
                                "cores_per_host": "n1:2;n2:2", "oversubscribed": "no"}


def test_all_ranks_on_one_node():
    placed = layout.check(RUN, [(1, {"hosts": hosts(("n1", "0-3", 2))})])
    assert placed.layout == "layout-mismatch" and placed.oversubscribed == "yes"
    assert placed.detail == ("asked 2x2 (2 nodes x 2 processes), got 1 host instead of 2 (n1:4); "
                             "more processes than cores on n1 (4 processes on 2 cores)")


def test_uneven_hosts_and_missing_processes():
    uneven = layout.check(RUN, [(1, {"hosts": hosts(("n1", "0-2", 4), ("n2", "3", 4))})])
    assert uneven.layout == "layout-mismatch" and "another number of processes than 2: n1 3, n2 1" in uneven.detail
    short = layout.check(RUN, [(1, {"hosts": hosts(("n1", "0", 4), ("n2", "1", 4))})])
    assert "2 processes instead of 4" in short.detail


def test_every_attempt_counts_and_unknown_cores():
    provs = [(1, {"hosts": [{"name": "n1", "ranks": "0-1"}, {"name": "n2", "ranks": "2-3"}]}),
             (2, {"hosts": hosts(("n3", "0-3", 8))})]
    placed = layout.check(RUN, provs)
    assert placed.layout == "layout-mismatch" and placed.detail.startswith("asked 2x2 (2 nodes x 2 processes), got "
                                                                          "attempt 2: 1 host instead of 2 (n3:4)")
    assert placed.ranks_per_host == "n1:2;n2:2 | n3:4" and placed.oversubscribed == ""


def test_no_hosts_recorded():
    assert layout.check(RUN, [(1, None), (2, {"status": "running"})]).columns() == dict.fromkeys(layout.COLUMNS, "")
