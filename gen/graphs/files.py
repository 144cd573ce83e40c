"""Every graph file of a workspace: for each graph spec of the design and
each process count of the deployments, the graph file and its description
in inputs/graphs/ (docs/workflow.md), written whole.

    inputs/graphs/<key>.p<P>.s<seed>.csv        source,dest,count (docs/kernel.md "Graph files")
    inputs/graphs/<key>.p<P>.s<seed>.about.csv  its description (docs/archive.md "inputs/graphs/")

A run's input names its graph file as graphs/<file> (relative to the input)."""
import os
import pathlib

import numpy as np

from gen import whole_files
from gen.errors import NbhError, display_path
from gen.graphs import buffers, describe, edge_list, generators, halo, matrix_market, partition
from gen.graphs.spec import SpecError, parse

FOLDER = "graphs"
HEADER = "source,dest,count"


def about_name(file_name):
    return file_name[:-len(".csv")] + ".about.csv"


def resolve(campaign, path):
    """PATH (a spec's file=, partition=) relative to the campaign directory, or absolute."""
    return pathlib.Path(path) if os.path.isabs(path) else pathlib.Path(campaign) / path


def load_matrix(spec, campaign):
    kind = spec.kind
    if kind == "stencil2d":
        return generators.stencil(int(spec.get("n")), 2, 5)
    if kind == "stencil3d":
        return generators.stencil(int(spec.get("n")), 3, int(spec.get("points")))
    if kind == "rgg":
        return generators.random_geometric(int(spec.get("n")), float(spec.get("radius")),
                                           int(spec.get("dim")), int(spec.get("seed")))
    return matrix_market.read(existing(resolve(campaign, spec.get("file")), spec, "file"))


def existing(path, spec, key):
    if not path.is_file():
        raise NbhError(f"graph '{spec.text}': {key} {display_path(path)} does not exist "
                       "(a relative path is taken from the campaign directory)")
    return path


def graph_of(spec, campaign, nprocs, matrix):
    """(source, dest, count, pattern or None, edge cut or None) of SPEC on NPROCS processes."""
    if spec.kind == "edges":
        path = existing(resolve(campaign, spec.get("file")), spec, "file")
        source, dest, count = edge_list.read(path)
        edge_list.check_processes(path, source, dest, nprocs)
        order = np.argsort(source, kind="stable")  # by source; within a source in file order
        return source[order], dest[order], count[order], None, None
    if matrix.n < nprocs:
        where = f" ({display_path(resolve(campaign, spec.get('file')))})" if spec.kind == "mtx" else ""
        raise NbhError(f"graph '{spec.text}'{where}: {matrix.n} rows cannot be split among {nprocs} processes "
                       "(a graph needs at least one row per process)")
    if spec.uses_metis:
        parts = partition.metis(matrix, nprocs, spec.partition_seed)
    elif spec.uses_partition_file:
        path = existing(resolve(campaign, spec.partition_file(nprocs)), spec, "partition")
        parts = partition.read(path, matrix.n, nprocs)
    else:  # geometric: the spec allows it only where the generator gives coordinates
        parts = partition.geometric(matrix.coordinates(), nprocs)
    source, dest, count = halo.halo_edges(matrix, parts, nprocs)
    return source, dest, count, matrix, halo.edge_cut(matrix, parts)


def graph_text(source, dest, count):
    body = "".join(f"{s},{d},{c}\n" for s, d, c in zip(source.tolist(), dest.tolist(), count.tolist()))
    return f"{HEADER}\n{body}"


def write_graphs(specs, nprocs_list, campaign, folder):
    """Writes the graph files of SPECS (graph texts) for each process count
    into FOLDER; returns {(text, nprocs): 'graphs/<file>'}, the descriptions
    and {(text, nprocs): buffers.Loads}."""
    names, descriptions, loads = {}, [], {}
    if not specs:
        return names, descriptions, loads
    whole_files.make_directory(folder, exist_ok=True)
    for text in specs:
        try:
            spec = parse(text)
        except SpecError as e:
            raise NbhError(str(e)) from None
        matrix = None if spec.kind == "edges" else load_matrix(spec, campaign)
        for nprocs in sorted(set(nprocs_list)):
            source, dest, count, pattern, cut = graph_of(spec, campaign, nprocs, matrix)
            name = spec.file_name(nprocs)
            whole_files.write_text(pathlib.Path(folder) / name, graph_text(source, dest, count))
            row = describe.describe(spec, name, nprocs, source, dest, count, pattern, cut)
            whole_files.write_csv(pathlib.Path(folder) / about_name(name), describe.COLUMNS, [row])
            names[text, nprocs] = f"{FOLDER}/{name}"
            descriptions.append(row)
            loads[text, nprocs] = buffers.Loads(source, dest, count, nprocs)
    return names, descriptions, loads

