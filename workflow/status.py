"""`nbhbench status`: every run of a campaign, its state and finished experiments."""
from workflow.attempts import run_statuses

COLUMNS = ("run", "state", "experiments", "attempts", "job", "exit", "note")


def rows(statuses):
    for s in statuses:
        record, state = (s.last[0], s.last[1]) if s.attempts else ({}, None)
        exit_code = "" if state is None or state.exit_code is None else str(state.exit_code)
        yield (s.run_id, s.state, f"{len(s.done)}/{s.total}", str(len(s.attempts)),
               record.get("job_id", ""), exit_code, s.detail)


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
    print("\n".join(table([COLUMNS] + list(rows(statuses)))))
    return 0
