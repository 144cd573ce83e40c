"""What moves every cell of an entry together (docs/history.md#what-moves-every-cell):
the entry's common shift, and each cell's sensitivity to it.

On a shared machine a whole campaign runs faster or slower with the load
it met (this project's VM moved whole archives by up to 25 %), and not
every cell alike: small messages moved up to 1.5 times as much as the
common shift, large ones less. Left in, such a phase looks like a change
of every cell it touched; taken out as one shift per entry, it still
leaves steps in the cells that react more or less than the median. So
each cell's level is modelled as

    x_ce = a_c + beta_c g_e + r_ce

with g_e the entry's common shift (the median, over the cells of one
series identity -- campaign, library, distribution -- that the entry
measured, of their levels minus each cell's median level), beta_c the
cell's sensitivity to it (least squares over the cell's entries), and
r_ce what is the cell's own: the residual that change detection looks at
(segments.py offline; departure.py online, where the fit is a prediction
at the new entry's g). The common shifts form a series of their own per
identity (a change of every cell at once, a library slower everywhere or
a machine slower from some day on), searched like a cell's."""
import numpy as np

MIN_COMMON_CELLS = 5        # fewer cells in an entry: no common shift (0)
BETA_RANGE = (0.0, 3.0)     # a sensitivity outside is a fit to noise


def entry_shifts(series):
    """{entry id: common shift} of SERIES, (entry ids, levels) per cell of
    one identity: per entry, the median over its cells of their level
    minus the cell's median level; 0 where fewer than MIN_COMMON_CELLS
    cells measured the entry."""
    deviations = {}
    for entries, levels in series:
        if len(levels):
            centre = float(np.median(levels))
            for e, x in zip(entries, levels):
                deviations.setdefault(e, []).append(x - centre)
    return {e: float(np.median(v)) if len(v) >= MIN_COMMON_CELLS else 0.0 for e, v in deviations.items()}


def sensitivity(levels, shifts):
    """beta: the least-squares slope of LEVELS on SHIFTS (1 where the
    shifts do not vary), kept within BETA_RANGE."""
    g = np.asarray(shifts, dtype=float)
    x = np.asarray(levels, dtype=float)
    spread = float(((g - g.mean()) ** 2).sum())
    if len(g) < 3 or spread <= 1e-12:
        return 1.0
    return float(np.clip(((g - g.mean()) * (x - x.mean())).sum() / spread, *BETA_RANGE))


def residual_series(series, shifts):
    """Each cell's levels with its share of the common shifts taken out
    (x - beta g), and its beta."""
    out = []
    for entries, levels in series:
        g = np.array([shifts.get(e, 0.0) for e in entries])
        beta = sensitivity(levels, g)
        out.append((np.asarray(levels, dtype=float) - beta * g, beta))
    return out
