"""Graphs from applications (gen/graphs/): the SpMV halo of hand-checkable
matrices, every source format, partition files, METIS determinism, the
geometric partition (recursive coordinate bisection) against a brute-force
one, and the one-line report of every bad input."""
import numpy as np
import pytest

from gen.errors import ConfigError, NbhError
from gen.graphs import edge_list, files, generators, halo, matrix_market, partition
from gen.graphs.matrix import Pattern
from gen.graphs.spec import SpecError, parse


def edges(source, dest, count):
    return list(zip(source.tolist(), dest.tolist(), count.tolist()))


def write(path, text):
    path.write_text(text)
    return path


def laplacian_1d(n):
    i = np.arange(n)
    row = np.concatenate([i, i[1:], i[:-1]])
    col = np.concatenate([i, i[:-1], i[1:]])
    return Pattern.of(n, row, col)


def test_1d_laplacian_in_four_parts_gives_the_hand_computed_halo():
    # rows 0-1 | 2-3 | 4-5 | 6-7: each part needs one entry from each neighboring part
    parts = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    got = edges(*halo.halo_edges(laplacian_1d(8), parts, 4))
    assert got == [(0, 1, 1), (1, 0, 1), (1, 2, 1), (2, 1, 1), (2, 3, 1), (3, 2, 1)]
    assert halo.edge_cut(laplacian_1d(8), parts) == 3


def test_2d_4x4_grid_in_four_blocks_gives_the_hand_computed_halo():
    # unknown r*4+c; blocks of 2x2: part (r//2)*2 + c//2. Block 0 needs (0,2),(1,2) from
    # block 1 and (2,0),(2,1) from block 2: two entries per face, none across the corner.
    grid = generators.stencil(4, 2, 5)
    r, c = np.divmod(np.arange(16), 4)
    parts = (r // 2) * 2 + c // 2
    got = edges(*halo.halo_edges(grid, parts, 4))
    assert got == [(0, 1, 2), (0, 2, 2), (1, 0, 2), (1, 3, 2), (2, 0, 2), (2, 3, 2), (3, 1, 2), (3, 2, 2)]
    assert halo.edge_cut(grid, parts) == 8


def test_halo_counts_distinct_entries_once_and_includes_corners_for_27_points():
    # 3x3x3 grid, parts by first coordinate: plane 0 | 1 | 2. Process 1 needs all 9
    # entries of plane 0 and of plane 2 (the 27-point stencil still needs each entry once).
    cube = generators.stencil(3, 3, 27)
    parts = np.arange(27) // 9
    got = edges(*halo.halo_edges(cube, parts, 3))
    assert got == [(0, 1, 9), (1, 0, 9), (1, 2, 9), (2, 1, 9)]


def test_stencils_have_the_textbook_number_of_nonzeros():
    n = 5
    assert generators.stencil(n, 2, 5).nonzeros == n * n + 4 * n * (n - 1)
    assert generators.stencil(n, 3, 7).nonzeros == n ** 3 + 6 * n * n * (n - 1)
    assert generators.stencil(n, 3, 27).nonzeros == (3 * n - 2) ** 3


def brute_force_stencil(n, ndim, points):
    """Every (row, column) of the stencil from each unknown's coordinates, one by one."""
    pairs = []
    for index in range(n ** ndim):
        here = np.unravel_index(index, (n,) * ndim)
        for there in np.ndindex(*(3,) * ndim):
            step = np.array(there) - 1
            if points in (5, 7) and np.abs(step).sum() > 1:
                continue
            other = np.array(here) + step
            if np.all((other >= 0) & (other < n)):
                pairs.append((index, int(np.ravel_multi_index(other, (n,) * ndim))))
    return Pattern.of(n ** ndim, *np.array(pairs).T)


@pytest.mark.parametrize("n,ndim,points", [(1, 3, 7), (2, 2, 5), (4, 2, 5), (5, 3, 7), (4, 3, 27)])
def test_stencils_made_without_a_sort_equal_the_brute_force_ones(n, ndim, points):
    # In order and symmetric by construction: the same rows and columns, in the
    # same order, as sorting every unknown's neighbors; its adjacency and edge
    # cut taken as symmetric equal the general way's (A + A^T, sorted).
    fast, slow = generators.stencil(n, ndim, points), brute_force_stencil(n, ndim, points)
    assert fast.symmetric and not slow.symmetric
    assert np.array_equal(fast.row, slow.row) and np.array_equal(fast.col, slow.col)
    for mine, theirs in zip(fast.symmetric_adjacency(), slow.symmetric_adjacency()):
        assert np.array_equal(mine, theirs)
    parts = np.arange(n ** ndim) * 3 // max(n ** ndim, 1)
    assert halo.edge_cut(fast, parts) == halo.edge_cut(slow, parts)
    for mine, theirs in zip(halo.halo_edges(fast, parts, 3), halo.halo_edges(slow, parts, 3)):
        assert np.array_equal(mine, theirs)


def test_random_geometric_graph_equals_the_brute_force_one_and_is_seeded():
    pattern = generators.random_geometric(600, 0.08, 2, 7)
    points = np.random.Generator(np.random.PCG64(7)).random((600, 2))
    near = ((points[:, None, :] - points[None, :, :]) ** 2).sum(-1) <= 0.08 ** 2
    row, col = np.nonzero(near)
    assert np.array_equal(pattern.row, row) and np.array_equal(pattern.col, col)
    other = generators.random_geometric(600, 0.08, 2, 8)
    assert other.nonzeros != pattern.nonzeros or not np.array_equal(other.col, pattern.col)


def test_symmetric_mtx_is_expanded_like_the_general_file(tmp_path):
    lower = write(tmp_path / "s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n% a comment\n"
                  "4 4 7\n1 1 2.0\n2 1 -1\n2 2 2\n3 2 -1\n3 3 2\n4 3 -1\n4 4 2\n")
    general = write(tmp_path / "g.mtx", "%%MatrixMarket matrix coordinate pattern general\n4 4 10\n"
                    "1 1\n1 2\n2 1\n2 2\n2 3\n3 2\n3 3\n3 4\n4 3\n4 4\n")
    a, b = matrix_market.read(lower), matrix_market.read(general)
    assert a.n == b.n == 4 and a.nonzeros == b.nonzeros == 10
    assert np.array_equal(a.row, b.row) and np.array_equal(a.col, b.col)
    integer = write(tmp_path / "i.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 5\n2 1 -3\n")
    assert matrix_market.read(integer).nonzeros == 2


@pytest.mark.parametrize("text, line, reason", [
    ("hello\n", 1, "not a Matrix Market file"),
    ("%%MatrixMarket matrix array real general\n2 2\n", 1, "only 'coordinate'"),
    ("%%MatrixMarket matrix coordinate complex general\n", 1, "field 'complex'"),
    ("%%MatrixMarket matrix coordinate real hermitian\n", 1, "symmetry 'hermitian'"),
    ("%%MatrixMarket matrix coordinate real general\n3 4 1\n1 1 1\n", 2, "3 x 4, not square"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n3 4 1\n", 4, "column index 4 is out of range 1..3"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 1\n", 4, "truncated: 2 of the 3"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 x\n", 3, "value 'x'"),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1\n2 2\n", 4, "more entries than the 1"),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n0 2\n", 4, "row index 0 is out of range"),
    ("%%MatrixMarket matrix coordinate real general\n", 2, "no size line"),
])
def test_bad_mtx_names_file_line_and_reason(tmp_path, text, line, reason):
    path = write(tmp_path / "bad.mtx", text)
    with pytest.raises(ConfigError) as error:
        matrix_market.read(path)
    assert error.value.line == line and reason in error.value.reason, str(error.value)


def test_edge_list_round_trips_unchanged_into_the_graph_file(tmp_path):
    text = "source,dest,bytes\n0,1,800\n0,3,8\n1,0,800\n2,3,16\n3,2,16\n3,0,8\n"
    write(tmp_path / "halo.csv", text)
    names, (about,), _ = files.write_graphs(["edges file=halo.csv"], [4], tmp_path, tmp_path / "graphs")
    written = (tmp_path / names["edges file=halo.csv", 4]).read_text()
    assert written == text.replace("bytes", "count")
    assert (about["edges"], about["degree_min"], about["degree_max"], about["entries_max"]) == (6, 1, 2, 808)
    assert about["rows"] is None and about["partition"] == "given"


def test_edge_list_naming_a_process_beyond_p_is_refused_at_its_line(tmp_path):
    write(tmp_path / "halo.csv", "source,dest,bytes\n0,1,8\n\n1,7,8\n")
    with pytest.raises(ConfigError) as error:
        files.write_graphs(["edges file=halo.csv"], [4], tmp_path, tmp_path / "graphs")
    assert error.value.line == 4 and "names process 7" in error.value.reason


@pytest.mark.parametrize("text, line, reason", [
    ("src,dst,bytes\n", 1, "header"),
    ("source,dest\n0,1\n", 1, "given without their sizes: every edge needs its bytes"),
    ("source,dest,bytes\n0,1\n", 2, "is not SOURCE,DEST,BYTES"),
    ("source,dest,bytes\n1,1,8\n", 2, "sends to itself"),
    ("source,dest,bytes\n0,1,0\n", 2, "at least 1"),
    ("source,dest,bytes\n0,1,8\n0,1,9\n", 3, "given twice (also line 2)"),
])
def test_bad_edge_lists_name_file_line_and_reason(tmp_path, text, line, reason):
    with pytest.raises(ConfigError) as error:
        edge_list.read(write(tmp_path / "e.csv", text))
    assert error.value.line == line and reason in error.value.reason


def test_partition_file_is_used_and_checked(tmp_path):
    write(tmp_path / "mat.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n8 8 15\n"
          + "".join(f"{i} {i}\n" for i in range(1, 9)) + "".join(f"{i + 1} {i}\n" for i in range(1, 8)))
    write(tmp_path / "parts.4.txt", "0\n0\n1\n1\n2\n2\n3\n3\n")
    spec = "mtx file=mat.mtx partition=parts.{p}.txt"
    names, (about,), _ = files.write_graphs([spec], [4], tmp_path, tmp_path / "graphs")
    assert names[spec, 4].endswith(".p4.s0.csv")
    assert (tmp_path / names[spec, 4]).read_text() == "source,dest,count\n0,1,1\n1,0,1\n1,2,1\n2,1,1\n2,3,1\n3,2,1\n"
    assert (about["rows"], about["nonzeros"], about["edges"], about["edge_cut"]) == (8, 22, 6, 3)
    with pytest.raises(ConfigError, match=r"parts.4.txt:3: part 5 does not exist"):
        write(tmp_path / "parts.4.txt", "0\n0\n5\n")
        files.write_graphs([spec], [4], tmp_path, tmp_path / "graphs")
    with pytest.raises(ConfigError, match=r"3 part ids for a matrix of 8 rows"):
        write(tmp_path / "parts.4.txt", "0\n0\n1\n")
        files.write_graphs([spec], [4], tmp_path, tmp_path / "graphs")
    with pytest.raises(ConfigError, match=r"parts.4.txt:2: 'x' is not a part id"):
        write(tmp_path / "parts.4.txt", "0\nx\n")
        partition.read(tmp_path / "parts.4.txt", 8, 4)


def test_metis_partition_is_deterministic_with_its_seed_and_balanced():
    pattern = generators.stencil(12, 3, 7)
    first = partition.metis(pattern, 8, 3)
    assert np.array_equal(first, partition.metis(pattern, 8, 3))
    sizes = np.bincount(first, minlength=8)
    assert sizes.min() > 0 and sizes.max() <= 1.1 * pattern.n / 8


def test_graph_files_are_named_by_spec_p_and_seed_and_described(tmp_path):
    spec = "stencil3d n=6 points=27 partition_seed=5"
    names, about, _ = files.write_graphs([spec], [2, 4], tmp_path, tmp_path / "graphs")
    assert names[spec, 2].startswith("graphs/stencil3d-n6-points27-") and names[spec, 2].endswith(".p2.s5.csv")
    assert [a["p"] for a in about] == [2, 4] and about[0]["rows"] == 216 and about[0]["nonzeros"] == 16 ** 3
    described = (tmp_path / names[spec, 4].replace(".csv", ".about.csv")).read_text().splitlines()
    assert described[0].startswith("graph,file,p,partition,partition_seed,rows,nonzeros,edges,degree_min")
    again, _, _ = files.write_graphs([spec], [4], tmp_path, tmp_path / "again")
    assert (tmp_path / names[spec, 4]).read_bytes() == (tmp_path / again[spec, 4].replace("graphs", "again")).read_bytes()


def test_fewer_rows_than_processes_is_refused(tmp_path):
    with pytest.raises(NbhError, match="n=2 partition_seed=1': 4 rows cannot be split among 16 processes"):
        files.write_graphs(["stencil2d n=2 partition_seed=1", "stencil3d n=2"], [16], tmp_path, tmp_path / "g")


def test_missing_source_file_is_named(tmp_path):
    with pytest.raises(NbhError, match=r"nope.mtx does not exist .*campaign directory"):
        files.write_graphs(["mtx file=nope.mtx"], [2], tmp_path, tmp_path / "g")


@pytest.mark.parametrize("text, reason", [
    ("", "an empty spec"),
    ("torus n=3", "unknown kind 'torus'"),
    ("stencil3d", "stencil3d needs n=..."),
    ("stencil3d n=0", "n=0 is not an integer in 1..464"),
    ("stencil3d n=4 points=9", "points=9: stencil3d takes points=7 or points=27"),
    ("stencil2d n=4 points=9", "stencil2d has points=5 only"),
    ("rgg n=100 radius=2", "radius=2 is not a number in (0, 1]"),
    ("rgg n=100 radius=0.1 dim=4", "dim=4"),
    ("rgg n=100 radius=0.1 color=red", "rgg takes no 'color'"),
    ("stencil2d n=4 n=5", "n given twice"),
    ("stencil2d n", "'n' is not KEY=VALUE"),
    ("edges file=a.csv partition=metis", "edges takes no 'partition'"),
    ("mtx file=a.mtx partition=p.txt partition_seed=3", "partition_seed applies to partition=metis only"),
    ("stencil3d n=8 partition=geometric partition_seed=3", "partition_seed applies to partition=metis only"),
    ("mtx file=a.mtx partition=geometric", "graph 'mtx file=a.mtx partition=geometric': partition=geometric needs "
     "the rows' coordinates, which mtx has not (only stencil2d, stencil3d, rgg); use partition=metis or a "
     "partition file"),
    ("edges file=a.csv partition=geometric", "graph 'edges file=a.csv partition=geometric': edges takes no "
     "'partition'"),
    ("stencil2d n=4,5", "commas"),
])
def test_bad_specs_say_what_is_wrong(text, reason):
    with pytest.raises(SpecError) as error:
        parse(text)
    assert reason in str(error.value) and "\n" not in str(error.value)


def edge_campaign(tmp_path, op, msize):
    folder = tmp_path / "edgecampaign"
    folder.mkdir(parents=True)
    (folder / "campaign.conf").write_text("deployments = 1x4\nnrun = 1\nnrep = 1\ntime_limit = 1:00\nseed = 1\n")
    (folder / "experiments.py").write_text(
        "from gen.design import levels\n"
        f"EXPERIMENTS = levels(op={op!r}, topology='graph', graph='edges file=halo.csv', msize={msize})\n")
    (folder / "halo.csv").write_text("source,dest,bytes\n0,1,3\n1,0,5\n")
    return folder


def test_buffers_are_checked_against_the_graph_file_not_p_minus_1_neighbors(tmp_path, monkeypatch):
    from gen.generate import generate
    monkeypatch.setenv("NBH_WORK", str(tmp_path / "work"))
    # regular alltoall on 4 processes: (p-1) neighbors would need 6 x 2^28 bytes, over 1 GiB;
    # the graph gives every process at most one neighbor each way: 2 x 2^28 fits
    workspace, _ = generate(str(edge_campaign(tmp_path, "neighbor_alltoall", 2 ** 28)), "local-openmpi")
    assert len(workspace.experiments()) == 1
    # alltoallv carries the counts: process 0 receives 5 and sends 3 entries of 2^28 bytes: 2 GiB
    with pytest.raises(NbhError, match=r"deployment 1x4 is impossible for experiment 1 \(.*\): msize 268435456 "
                                       r"needs 2147483648 bytes of buffers on process 0 of graph file "
                                       r"graphs/edges-halo-[0-9a-f]{8}\.p4\.s0\.csv, over the kernel's 1073741824"):
        generate(str(edge_campaign(tmp_path / "v", "neighbor_alltoallv", 2 ** 28)), "local-openmpi")


def brute_force_bisection(coordinates, nprocs):
    """Recursive coordinate bisection as its definition reads (gen/graphs/
    partition.py), one box at a time with a full sort: the box's rows sorted
    by (coordinate along the longest extent, row), the first share to the
    ceil(k/2) parts below, part j's share of the rows floor(j n / p)."""
    n = len(coordinates[0])
    parts = np.empty(n, dtype=np.int64)

    def cut(rows, first, k):
        if k == 1:
            parts[rows] = first
            return
        extents = [np.ptp(axis[rows]) for axis in coordinates]
        axis = extents.index(max(extents))
        ordered = rows[np.lexsort((rows, coordinates[axis][rows]))]
        low = (first + (k + 1) // 2) * n // nprocs - first * n // nprocs
        cut(ordered[:low], first, (k + 1) // 2)
        cut(ordered[low:], first + (k + 1) // 2, k // 2)

    cut(np.arange(n), 0, nprocs)
    return parts


GEOMETRIC_CASES = [(2, 7, p) for p in (1, 2, 3, 4, 5, 7, 8, 13, 24, 49)] + \
    [(3, 4, p) for p in (2, 3, 6, 7, 8, 16, 27, 64)] + [(2, 1, 1), (3, 5, 125)]


@pytest.mark.parametrize("ndim, n, nprocs", GEOMETRIC_CASES)
def test_geometric_partition_equals_the_brute_force_bisection_and_is_balanced(ndim, n, nprocs):
    coordinates = generators.grid_coordinates(n, ndim)
    parts = partition.geometric(coordinates, nprocs)
    assert np.array_equal(parts, brute_force_bisection(coordinates, nprocs))
    sizes = np.bincount(parts, minlength=nprocs)
    assert len(sizes) == nprocs and sizes.max() - sizes.min() <= (1 if n ** ndim % nprocs else 0)
    assert np.array_equal(parts, partition.geometric(coordinates, nprocs))  # deterministic


def test_geometric_partition_of_a_grid_into_a_fitting_product_is_its_boxes():
    r, c = np.divmod(np.arange(16), 4)
    assert np.array_equal(partition.geometric(generators.grid_coordinates(4, 2), 4), (r // 2) * 2 + c // 2)
    r, c = np.divmod(np.arange(36), 6)  # 6 = 2 x 3 parts: boxes of 3 x 2
    assert np.array_equal(partition.geometric(generators.grid_coordinates(6, 2), 6), (r // 3) * 3 + c // 2)
    x, y, z = np.unravel_index(np.arange(512), (8, 8, 8))  # octants of 4^3
    assert np.array_equal(partition.geometric(generators.grid_coordinates(8, 3), 8), x // 4 * 4 + y // 4 * 2 + z // 4)


def test_geometric_partition_into_as_many_parts_as_rows_gives_each_row_its_own():
    parts = partition.geometric(generators.grid_coordinates(5, 3), 125)
    assert sorted(parts.tolist()) == list(range(125))
    assert np.array_equal(partition.geometric([np.array([0.5, 0.25, 0.75])], 3), [1, 0, 2])


def test_geometric_partition_of_a_random_geometric_graph_bisects_its_own_points():
    pattern = generators.random_geometric(600, 0.08, 2, 7)
    points = np.random.Generator(np.random.PCG64(7)).random((600, 2))
    assert all(np.array_equal(mine, theirs) for mine, theirs in zip(pattern.coordinates(), points.T))
    for nprocs in (3, 7, 16):
        parts = partition.geometric(pattern.coordinates(), nprocs)
        assert np.array_equal(parts, brute_force_bisection(list(points.T), nprocs))
        sizes = np.bincount(parts, minlength=nprocs)
        assert sizes.max() - sizes.min() <= 1
    # the first cut is across the longer extent of the points (x on a tie): parts
    # 0..7 (ceil(15/2) = 8) hold the 8 * 600 // 15 = 320 points of least coordinate
    parts = partition.geometric(pattern.coordinates(), 15)
    axis = 0 if np.ptp(points[:, 0]) >= np.ptp(points[:, 1]) else 1
    assert points[parts < 8, axis].max() < points[parts >= 8, axis].min() and np.count_nonzero(parts < 8) == 320


def test_a_geometric_graph_file_is_seed_0_described_as_geometric_and_its_halo_is_the_boxes(tmp_path):
    spec = "stencil2d n=4 partition=geometric"
    names, (about,), _ = files.write_graphs([spec], [4], tmp_path, tmp_path / "graphs")
    assert names[spec, 4].startswith("graphs/stencil2d-n4-points5-") and names[spec, 4].endswith(".p4.s0.csv")
    assert (about["partition"], about["partition_seed"], about["edge_cut"]) == ("geometric", 0, 8)
    # the quadrants' halo: two entries per face, none across the corner (as the hand-made blocks above)
    assert (tmp_path / names[spec, 4]).read_text() == \
        "source,dest,count\n0,1,2\n0,2,2\n1,0,2\n1,3,2\n2,0,2\n2,3,2\n3,1,2\n3,2,2\n"
    metis, _, _ = files.write_graphs(["stencil2d n=4"], [4], tmp_path, tmp_path / "graphs")
    assert metis["stencil2d n=4", 4].endswith(".p4.s1.csv") and metis["stencil2d n=4", 4][:-10] != names[spec, 4][:-10]
    names, (about,), _ = files.write_graphs(["rgg n=500 radius=0.1 partition=geometric"], [7], tmp_path, tmp_path / "g")
    assert (about["rows"], about["p"], about["partition"]) == (500, 7, "geometric") and about["edges"] > 0


def test_geometric_partition_into_more_processes_than_rows_is_refused(tmp_path):
    with pytest.raises(NbhError, match="'stencil2d n=2 partition=geometric': 4 rows cannot be split among 5 processes"):
        files.write_graphs(["stencil2d n=2 partition=geometric"], [4, 5], tmp_path, tmp_path / "g")


def test_halo_and_edge_cut_read_in_chunks_equal_them_read_at_once(monkeypatch):
    # a general (not symmetric) pattern and a stencil, each cut across several chunks
    for pattern in (generators.random_geometric(500, 0.1, 2, 3), generators.stencil(9, 3, 27)):
        parts = partition.geometric(pattern.coordinates(), 6)
        whole = halo.halo_edges(pattern, parts, 6), halo.edge_cut(pattern, parts)
        monkeypatch.setattr(halo, "CHUNK", 7)
        chunked = halo.halo_edges(pattern, parts, 6), halo.edge_cut(pattern, parts)
        monkeypatch.undo()
        assert all(np.array_equal(a, b) for a, b in zip(whole[0], chunked[0])) and whole[1] == chunked[1]
        assert whole[1] == brute_force_edge_cut(pattern, parts)


def brute_force_edge_cut(pattern, parts):
    pairs = {(min(r, c), max(r, c)) for r, c in zip(pattern.row.tolist(), pattern.col.tolist()) if r != c}
    return sum(parts[a] != parts[b] for a, b in pairs)
