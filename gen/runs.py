"""Runs (kernel launches): deployments x parameter sets x nrun, each with a
recorded seed and its own input file (the same experiments, shuffled)."""
import hashlib

import numpy as np


def run_id(nodes, ppn, param_set, run):
    """`<deployment>-<param_set>-r<NNN>`, e.g. 1x4-default-r003 (docs/archive.md)."""
    return f"{nodes}x{ppn}-{param_set}-r{run:03d}"


def run_seed(campaign_seed, deployment, param_set, run):
    """A 63-bit seed from the campaign seed and the run's coordinates: the
    first 8 bytes of sha256('seed/deployment/param_set/run'), top bit cleared."""
    text = f"{campaign_seed}/{deployment}/{param_set}/{run}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


def plan_runs(deployments, param_sets, nrun, campaign_seed, first=1, round_number=1):
    """One dict per run, in submission order: run number outermost, so that
    every round holds each deployment and parameter set once. Drift of the
    machine over the campaign (load, thermal state, a neighbor's job) then
    falls on every deployment and set alike instead of on whichever ran
    last; the experiments inside a run are shuffled for the same reason.
    Runs FIRST .. FIRST + NRUN - 1 of adaptive round ROUND_NUMBER (1: the
    campaign as generated; gen/rounds.py plans the later ones)."""
    runs = []
    for run in range(first, first + nrun):
        for nodes, ppn in deployments:
            for param_set in param_sets:
                deployment = f"{nodes}x{ppn}"
                runs.append({"run_id": run_id(nodes, ppn, param_set, run), "deployment": deployment,
                             "nodes": nodes, "ppn": ppn, "nprocs": nodes * ppn, "run": run,
                             "param_set": param_set,
                             "seed": run_seed(campaign_seed, deployment, param_set, run),
                             "round": round_number})
    return runs


def shuffle_order(count, seed):
    """The order a run's input lists COUNT experiments in: a permutation drawn
    with numpy's PCG64 generator seeded with the run seed."""
    return np.random.Generator(np.random.PCG64(seed)).permutation(count)


def csv_cell(value):
    return "" if value is None else str(value)


def experiment_lines(rows, columns):
    """Each experiment as one CSV line of COLUMNS (without the seed)."""
    return [",".join(csv_cell(row[c]) for c in columns) for row in rows]


def input_text(columns, lines, seed, comment):
    """A kernel input: LINES (columns + seed last) in the run's shuffled order."""
    order = shuffle_order(len(lines), seed)
    suffix = f",{seed}"
    body = "\n".join(lines[i] + suffix for i in order)
    return f"# {comment}\n{','.join(columns)},seed\n{body}\n"
