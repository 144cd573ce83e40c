"""The A/A self-check (SPEC 7.6; campaign.conf aa): a twin of every
experiment, or of a share of them, measured under its own id like any
other and interleaved with the rest, so that the analyzer can test each
twin against its original (guideline AA, twin ~ original). Twin and
original differ in no parameter; the kernel gives a twin its own draws,
under its own id (RAND orders, uniform arrival delays, buffer places, a
work_factor's reference: docs/kernel.md), as an independent launch would,
so that what a launch fixes does not cancel between them. How often the
analysis finds a twin "violated" is the false-violation rate of the whole
chain (machine, kernel, statistics) on the user's own cluster."""
import numpy as np


def originals_with_twin(count, share, seed):
    """Which of COUNT experiments get a twin (positions, ascending): all for
    share 1, else round(share x count) of them (at least one), drawn with
    numpy's PCG64 seeded with the campaign seed."""
    if share >= 1:
        return list(range(count))
    chosen = max(1, round(share * count))
    drawn = np.random.Generator(np.random.PCG64(seed)).choice(count, size=chosen, replace=False)
    return sorted(int(i) for i in drawn)


def with_twins(rows, share, seed):
    """ROWS, each an original (twin 0), followed by the twins of the chosen
    ones: the same parameters, ids after the largest, twin 1, twin_of the
    original's id. share 0: no twins."""
    rows = [dict(row, twin=0, twin_of=None) for row in rows]
    if not share or not rows:
        return rows
    next_id = max(row["id"] for row in rows) + 1
    twins = [dict(rows[i], id=next_id + k, twin=1, twin_of=rows[i]["id"])
             for k, i in enumerate(originals_with_twin(len(rows), share, seed))]
    return rows + twins
