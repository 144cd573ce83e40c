"""start_skew.csv: `nbh-kernel --sync-report` (docs/kernel.md) for each
library at 2 and 4 processes, TRIALS launches each, launched as the
shipped environment env/local-LIBRARY launches the kernel.

    .venv/bin/python docs/examples/arrival/start_skew.py openmpi5 intelmpi ... > start_skew.csv
"""
import csv
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
from sync_figures import skew  # noqa: E402

TRIALS = 3
PROCESSES = (2, 4)
# --sync-report's names -> the columns; a (median, p95) pair gives two.
PAIRS = {"barrier_skew_us": "barrier_skew", "clock_skew_us": "clock_skew", "model_lateness_us": "model_lateness"}
SINGLES = {"clock_late_percent": "clock_late_percent", "clock_estimate_ms": "clock_estimate_ms",
           "resolution_us": "resolution_us", "model_error_growth_us_per_s": "model_error_growth_us_per_s"}


def main(libraries):
    columns = ["library", "processes", "trial", "load_average"]
    for name in PAIRS.values():
        columns += [f"{name}_median_us", f"{name}_p95_us"]
    columns += list(SINGLES.values())
    out = csv.DictWriter(sys.stdout, columns)
    out.writeheader()
    for library in libraries:
        for processes in PROCESSES:
            for trial in range(1, TRIALS + 1):
                values = skew(library, processes)
                row = {"library": library, "processes": processes, "trial": trial,
                       "load_average": f"{os.getloadavg()[0]:.2f}"}
                for word, name in PAIRS.items():
                    row[f"{name}_median_us"], row[f"{name}_p95_us"] = values[word]
                for word, name in SINGLES.items():
                    row[name] = values[word]
                out.writerow(row)
                sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
