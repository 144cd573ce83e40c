"""Application graphs end to end (issue 10): campaign app-graphs through
generate, submit (real MPICH), archive and analyze, and a bad graph source
reported as one line by generate."""
import csv
import shutil

from workflow_testing import ROOT, read_csv

GRAPH = "mtx file=lshape-p1.mtx"


def test_app_graphs_end_to_end_on_one_library(bench):
    bench.ok("generate", "app-graphs", "--env", "local-mpich", "--set", "deployments=1x4", "--set", "nrun=2",
             "--set", "nrep=3", "--set", f"graph={GRAPH}", "--set", "msize=8")
    workspace = bench.workspace("app-graphs")
    graphs = sorted(p.name for p in (workspace.inputs / "graphs").iterdir())
    assert len(graphs) == 2 and graphs[1].startswith("mtx-lshape-p1-") and graphs[1].endswith(".p4.s1.csv")
    inputs = read_csv(workspace.input("1x4-default-r001", 1))
    assert {row["graph"] for row in inputs} == {f"graphs/{graphs[1]}"}
    assert {row["graph"] for row in read_csv(workspace.path / "experiments.csv")} == {GRAPH}

    submitted = bench.ok("submit", "app-graphs")
    assert "app-graphs: 2 runs: 2 done" in submitted.stdout
    archive, _ = bench.archive("app-graphs")
    manifest = (archive / "MANIFEST.sha256").read_text()
    for name in graphs:
        assert (archive / "inputs" / "graphs" / name).is_file() and f"  inputs/graphs/{name}\n" in manifest
    bench.ok("archive", "--verify", archive)

    out = bench.work.parent / "analysis"
    analysed = bench.ok("analyze", archive, "--out", out, timeout=300)
    for tag in ("GL6", "P2P", "GL10", "GL11", "GL12"):  # every guideline has tests on the graph
        line = next(x for x in analysed.stdout.splitlines() if x.strip().startswith(tag))  # under its library
        assert " 0/0 tests" not in line, line
    with open(out / "graphs.csv", newline="") as f:
        (row,) = list(csv.DictReader(f))
    assert (row["graph"], row["p"], row["rows"], row["partition"]) == (GRAPH, "4", "1281", "metis")
    edges = read_csv(archive / "inputs" / "graphs" / graphs[1])
    assert int(row["edges"]) == len(edges) and int(row["entries_max"]) == max(
        sum(int(e["count"]) for e in edges if e["source"] == str(r)) for r in range(4))
    report = (out / "report.html").read_text()
    assert "<h2 id=\"process-graphs\">Process graphs</h2>" in report and "Communication volume: mtx file=lshape-p1.mtx, p = 4" in report
    assert (out / "plots" / f"graph-{graphs[1][:-4]}.png").is_file()


def test_a_bad_matrix_is_one_line_naming_file_and_line(bench, tmp_path):
    campaign = tmp_path / "mygraphs"
    shutil.copytree(ROOT / "campaigns" / "app-graphs", campaign)
    (campaign / "lshape-p1.mtx").write_text("%%MatrixMarket matrix coordinate pattern general\n4 4 2\n1 1\n5 1\n")
    result = bench("generate", campaign, "--env", "local-mpich", "--set", "deployments=1x4",
                   "--set", f"graph={GRAPH}")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"nbhbench: {campaign / 'lshape-p1.mtx'}:4: row index 5 is out of range 1..4"]
    assert not (bench.work / "mygraphs").exists()

    (campaign / "experiments.py").write_text((campaign / "experiments.py").read_text()
                                             .replace('"stencil3d n=24"', '"stencil3d n=24 points=9"'))
    result = bench("generate", campaign, "--env", "local-mpich")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "experiments.py:" in result.stderr and "points=9: stencil3d takes points=7 or points=27" in result.stderr


def test_generate_writes_a_geometric_graph_file_and_refuses_geometric_for_a_matrix_file(bench, tmp_path):
    campaign = tmp_path / "boxes"
    campaign.mkdir()
    (campaign / "campaign.conf").write_text("deployments = 1x8\nnrun = 1\nnrep = 2\ntime_limit = 1:00\nseed = 1\n")
    (campaign / "experiments.py").write_text(
        "from gen.design import levels\n"
        "EXPERIMENTS = levels(op='neighbor_alltoallv', topology='graph', graph='stencil3d n=8 partition=geometric', "
        "msize=8)\n")
    bench.ok("generate", campaign, "--env", "local-openmpi")
    folder = bench.workspace("boxes").inputs / "graphs"
    (graph,) = folder.glob("stencil3d-n8-points7-*.p8.s0.csv")
    # octants of 4^3: each sends its three face neighbours one 4 x 4 face
    edges = read_csv(graph)
    assert len(edges) == 24 and {e["count"] for e in edges} == {"16"}
    (about,) = read_csv(folder / graph.name.replace(".csv", ".about.csv"))
    assert (about["graph"], about["p"], about["partition"], about["partition_seed"], about["rows"],
            about["edge_cut"], about["degree_max"]) == ("stencil3d n=8 partition=geometric", "8", "geometric", "0",
                                                        "512", "192", "3")
    assert {row["graph"] for row in read_csv(bench.workspace("boxes").input("1x8-default-r001", 1))} == \
        {f"graphs/{graph.name}"}

    other = tmp_path / "mine"
    shutil.copytree(ROOT / "campaigns" / "app-graphs", other)
    (other / "experiments.py").write_text((other / "experiments.py").read_text()
                                          .replace(f'"{GRAPH}"', f'"{GRAPH} partition=geometric"'))
    result = bench("generate", other, "--env", "local-openmpi", "--set", "deployments=1x4")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "experiments.py:" in line and \
        f"graph '{GRAPH} partition=geometric': partition=geometric needs the rows' coordinates" in line
    assert not (bench.work / "mine").exists()
