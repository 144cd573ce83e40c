"""An analysis folder as the history reads it (docs/analyze.md, Outputs):
tests.csv (every test), cells.csv and run_medians.csv (every cell and its
run medians), archives.csv (the archives analysed) and analysis.json
(thresholds, assessment, version). Columns are read by name, and columns
this history does not know are kept in each test's `extra`."""
import json
from functools import cached_property
from pathlib import Path

import pandas as pd

from gen.errors import NbhError

MARKER = ".nbhbench-analysis"
NEEDED = ("tests.csv", "cells.csv", "run_medians.csv", "archives.csv", "analysis.json")
# cells.csv columns after the parameters.
CELL_VALUES = ("runs", "median_us", "p50_us", "p90_us", "p99_us")


def read_table(path, required, only=False):
    """The CSV table at PATH, every cell a string, with the columns REQUIRED
    (ONLY: those alone; the run medians' other columns are a third of a large file)."""
    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False,
                            usecols=(lambda name: name in required) if only else None)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise NbhError(f"{path}: not a CSV table ({str(e).splitlines()[0]}): damaged analysis") from None
    missing = [c for c in required if c not in table.columns]
    if missing:
        raise NbhError(f"{path}: no column {missing[0]}: damaged analysis")
    return table


class Analysis:
    """The tables of the analysis in DIRECTORY, each read (and checked)
    when first used: a rerun whose archives the history holds already
    reads archives.csv alone."""

    def __init__(self, directory, staged=False):
        self.directory = Path(directory)
        d = self.directory
        if not d.is_dir():
            raise NbhError(f"{directory}: no such analysis directory")
        if not staged and not (d / MARKER).is_file():
            raise NbhError(f"{directory}: neither an nbhbench archive (no archive.json) "
                           f"nor an analysis (no {MARKER})")
        missing = [name for name in NEEDED if not (d / name).is_file()]
        if missing:
            raise NbhError(f"{directory}: no {missing[0]}: an analysis made before the history "
                           "(analyse its archives again, or add the archives)")
        try:
            self.info = json.loads((d / "analysis.json").read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise NbhError(f"{d / 'analysis.json'}: not valid JSON ({e}): damaged analysis") from None
        self.archives = read_table(d / "archives.csv", ("archive", "directory"))
        if not len(self.archives):
            raise NbhError(f"{d / 'archives.csv'}: no archive: damaged analysis")

    @cached_property
    def cells(self):
        return read_table(self.directory / "cells.csv", ("cell", "runs", "median_us"))

    @cached_property
    def params(self):
        columns = list(self.cells.columns)
        return columns[1:columns.index("runs")]

    @cached_property
    def run_medians(self):
        return read_table(self.directory / "run_medians.csv", ("cell", "archive", "run_id", "median_us"), only=True)

    @cached_property
    def tests(self):
        return read_table(self.directory / "tests.csv", ("guideline", "ratio", "p_value", "decision"))
