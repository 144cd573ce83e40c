"""Where a run's processes ran, against the deployment it asked for
(SPEC 7.4, docs/archive.md): every attempt's kernel records its hosts, the
ranks on each and the cores those ranks could use (RUN.prov.json "hosts").

    layout          ok: as many hosts as nodes, each with ppn ranks;
                    layout-mismatch: anything else, in any attempt;
                    empty: no attempt recorded its hosts (it never started)
    oversubscribed  yes: some host had more ranks than cores; no; empty: unknown
"""
import dataclasses

MISMATCH = "layout-mismatch"
COLUMNS = ["layout", "layout_detail", "ranks_per_host", "cores_per_host", "oversubscribed"]


def rank_count(ranks):
    """How many ranks "0-3,8" names (5)."""
    count = 0
    for part in str(ranks).split(","):
        first, _, last = part.partition("-")
        count += int(last or first) - int(first) + 1
    return count


@dataclasses.dataclass
class Layout:
    layout: str = ""
    detail: str = ""
    ranks_per_host: str = ""
    cores_per_host: str = ""
    oversubscribed: str = ""

    def columns(self):
        return dict(zip(COLUMNS, (self.layout, self.detail, self.ranks_per_host, self.cores_per_host,
                                  self.oversubscribed)))


def one_attempt(hosts, nodes, ppn, nprocs):
    """(what is wrong or "", ranks per host, cores per host, oversubscribed hosts or None if unknown)."""
    counts = [(h["name"], rank_count(h["ranks"])) for h in hosts]
    cores = [(h["name"], h.get("cores")) for h in hosts]
    ranks_text = ";".join(f"{name}:{n}" for name, n in counts)
    problems = []
    if sum(n for _, n in counts) != nprocs:
        problems.append(f"{sum(n for _, n in counts)} processes instead of {nprocs}")
    if len(counts) != nodes:
        problems.append(f"{len(counts)} host{'s' if len(counts) != 1 else ''} instead of {nodes}")
    uneven = [f"{name} {n}" for name, n in counts if n != ppn]
    if uneven and len(counts) == nodes:
        problems.append(f"hosts with another number of processes than {ppn}: {', '.join(uneven)}")
    known = all(isinstance(c, int) and c > 0 for _, c in cores)
    over = [f"{name} ({n} processes on {c} cores)" for (name, n), (_, c) in zip(counts, cores)
            if known and n > c] if known else None
    return "; ".join(problems), ranks_text, ";".join(f"{name}:{c}" for name, c in cores if c), over


def check(run, provs):
    """The Layout of RUN (a row of runs.csv) from the provenance of its attempts."""
    nodes, ppn, nprocs = int(run["nodes"]), int(run["ppn"]), int(run["nprocs"])
    attempts = [(number, p["hosts"]) for number, p in provs if p and p.get("hosts")]
    if not attempts:
        return Layout()
    wrong, ranks, cores, oversubscribed, unknown = [], [], [], [], False
    for number, hosts in attempts:
        problem, ranks_text, cores_text, over = one_attempt(hosts, nodes, ppn, nprocs)
        if problem:
            label = f"attempt {number}: " if len(attempts) > 1 else ""
            wrong.append(f"{label}{problem} ({ranks_text})")
        for text, seen in ((ranks_text, ranks), (cores_text, cores)):
            if text not in seen:
                seen.append(text)
        if over is None:
            unknown = True
        else:
            oversubscribed += [o for o in over if o not in oversubscribed]
    detail = (f"asked {nodes}x{ppn} ({nodes} node{'s' if nodes != 1 else ''} x {ppn} process{'es' if ppn != 1 else ''}), got "
              + "; ".join(wrong)) if wrong else ""
    if oversubscribed:
        detail = "; ".join(filter(None, [detail, "more processes than cores on " + ", ".join(oversubscribed)]))
    return Layout(layout=MISMATCH if wrong else "ok", detail=detail, ranks_per_host=" | ".join(ranks),
                  cores_per_host=" | ".join(cores),
                  oversubscribed="yes" if oversubscribed else ("" if unknown else "no"))
