"""Whether reorder = 1 renumbered any process in a run: the kernel writes,
for every reorder = 1 experiment, how many processes have another rank in
the topology communicator than in the communicator it was built from
(RUN.reorder.csv: id,ranks_changed; docs/kernel.md)."""
import csv

COLUMNS = ["reorder_experiments", "reorder_changed"]


def summary(path):
    """{reorder_experiments: the reorder = 1 experiments recorded, reorder_changed: those
    in which some process got another rank}; empty values without a record."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = [row for row in csv.DictReader(f) if (row.get("ranks_changed") or "").isdigit()]
    except OSError:
        return dict.fromkeys(COLUMNS, "")
    return {"reorder_experiments": len(rows),
            "reorder_changed": sum(int(row["ranks_changed"]) > 0 for row in rows)}
