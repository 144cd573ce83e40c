"""Runs (kernel launches): deployments x parameter sets x nrun, each with a
recorded seed and its own input file (the same experiments, shuffled)."""
import hashlib
import secrets

import numpy as np


def run_id(nodes, ppn, param_set, run):
    """`<deployment>-<param_set>-r<NNN>`, e.g. 1x4-default-r003 (docs/archive.md)."""
    return f"{nodes}x{ppn}-{param_set}-r{run:03d}"


def run_seed(campaign_seed, deployment, param_set, run):
    """A 63-bit seed from the campaign seed and the run's coordinates: the
    first 8 bytes of sha256('seed/deployment/param_set/run'), top bit cleared."""
    text = f"{campaign_seed}/{deployment}/{param_set}/{run}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


def block_order(campaign_seed, deployment, run, count):
    """The order in which the COUNT launches of one block (the parameter sets
    of DEPLOYMENT in run number RUN) are submitted: a permutation drawn with
    numpy's PCG64 seeded from the campaign seed and the block's coordinates
    (run_seed with the set '*'), so the same campaign seed gives the same order."""
    seed = run_seed(campaign_seed, deployment, "*", run)
    return [int(k) for k in np.random.Generator(np.random.PCG64(seed)).permutation(count)]


def interleave_id(name, when):
    """A new interleaved sequence's id: NAME, the time WHEN (UTC, as now_utc
    writes it) and a random token, so that two sequences never share one."""
    return f"{name}-{when.replace('-', '').replace(':', '')}-{secrets.token_hex(3)}"


def plan_runs(deployments, param_sets, nrun, campaign_seed, first=1, round_number=1, interleave="",
              first_slot=1):
    """One dict per run, in submission order, in blocks: run number
    outermost, then each deployment in the campaign's order, and within that
    block ("slot") one launch of every parameter set, in a random order
    (block_order). Drift of the machine over the campaign (load, thermal
    state, a neighbor's job) then falls on every set alike instead of on
    whichever ran last, and the sets' launches of one slot, started back to
    back, can be paired by the analysis. With more than one set the runs
    carry INTERLEAVE (the sequence's id) and their slot, numbered from
    FIRST_SLOT; with one set there is nothing to interleave and both are
    empty. Runs FIRST .. FIRST + NRUN - 1 of adaptive round ROUND_NUMBER
    (1: the campaign as generated; gen/rounds.py plans the later ones).
    The experiments inside a run are shuffled for the same reason."""
    param_sets = list(param_sets)
    interleaved = bool(interleave) and len(param_sets) > 1
    runs, slot = [], first_slot
    for run in range(first, first + nrun):
        for nodes, ppn in deployments:
            deployment = f"{nodes}x{ppn}"
            for k in block_order(campaign_seed, deployment, run, len(param_sets)):
                param_set = param_sets[k]
                runs.append({"run_id": run_id(nodes, ppn, param_set, run), "deployment": deployment,
                             "nodes": nodes, "ppn": ppn, "nprocs": nodes * ppn, "run": run,
                             "param_set": param_set,
                             "seed": run_seed(campaign_seed, deployment, param_set, run),
                             "round": round_number, "interleave": interleave if interleaved else "",
                             "slot": slot if interleaved else ""})
            slot += 1
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
