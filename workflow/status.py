"""`nbhbench status`: every run of a campaign, its state and finished experiments."""
from workflow import adaptive, layout
from workflow.attempts import prov, run_statuses

COLUMNS = ("run", "state", "experiments", "attempts", "job", "exit", "layout", "note")


def layout_cell(s):
    """ok, layout-mismatch, with ",oversubscribed" when a host had more processes
    than cores; empty before the kernel started (workflow/layout.py)."""
    placed = layout.check(s.run, [(record["attempt"], prov(record)) for record, _, _ in s.attempts])
    words = [w for w in (placed.layout, "oversubscribed" if placed.oversubscribed == "yes" else "") if w]
    note = placed.detail if placed.layout == layout.MISMATCH else ""
    return ",".join(words), note


def rows(statuses):
    for s in statuses:
        record, state = (s.last[0], s.last[1]) if s.attempts else ({}, None)
        exit_code = "" if state is None or state.exit_code is None else str(state.exit_code)
        placed, note = layout_cell(s)
        yield (s.run_id, s.state, f"{len(s.done)}/{s.total}", str(len(s.attempts)),
               record.get("job_id", ""), exit_code, placed, "; ".join(filter(None, [s.detail, note])))


def table(lines):
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines]


def status(workspace):
    info = workspace.info()
    statuses = run_statuses(workspace)
    counts = {}
    for s in statuses:
        counts[s.state] = counts.get(s.state, 0) + 1
    done = sum(len(s.done) for s in statuses)
    total = sum(s.total for s in statuses)
    print(f"{workspace.name}: {len(statuses)} runs ({', '.join(f'{n} {k}' for k, n in counts.items())}), "
          f"{done}/{total} experiments; environment {info['env']}, scheduler {info['scheduler']}")
    print("\n".join(table([COLUMNS] + list(rows(statuses))) + adaptive.status_lines(workspace)))
    return 0
