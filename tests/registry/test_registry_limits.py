"""registry/limits.csv, the one list of numeric bounds, is complete and
read alike by every language (docs/robustness.md)."""
import csv
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def limits():
    return list(csv.DictReader(open(ROOT / "registry" / "limits.csv", newline="")))


def number(text):
    return float(text) if text else None


def test_every_bound_is_a_range_with_its_place_and_meaning():
    for row in limits():
        low, high, default = number(row["min"]), number(row["max"]), number(row["default"])
        assert high is not None, f"{row['name']}: every bound has a maximum"
        assert low is None or low <= high, row["name"]
        assert default is None or ((low is None or low <= default) and default <= high), row["name"]
        assert row["given_in"] and row["description"], row["name"]


def test_every_numeric_kernel_parameter_has_a_maximum():
    for row in csv.DictReader(open(ROOT / "registry" / "parameters.csv", newline="")):
        if row["type"] in ("integer", "number"):
            assert row["min"] and row["max"], f"parameters.csv: {row['name']} needs min and max"


def test_the_kernel_the_generator_the_analyzer_and_the_shell_read_the_same_bounds(tmp_path):
    from gen import registry
    header = tmp_path / "registry.h"
    subprocess.run(["python3", str(ROOT / "registry" / "c_header.py"), str(header)], check=True)
    text = header.read_text()
    reg = registry.load()
    for row in limits():
        name = row["name"]
        assert f"#define NBH_LIMIT_{name.upper()}_MAX " in text, name
        assert reg.bounds[name].high == number(row["max"]), name
        shell = subprocess.run(["bash", "-c", f'source lib/nbhbench.sh && nbh_limit {name} max'], cwd=ROOT,
                               capture_output=True, text=True)
        assert shell.stdout.strip() == row["max"], name
    r = subprocess.run(["Rscript", "--vanilla", "-e",
                        'source("analyze/conditions.R"); suppressMessages(library(data.table)); source("analyze/registry.R");'
                        ' l <- read_registry(".")$limits; cat(paste(l$name, l$max), sep = "\\n")'],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.stdout.split("\n")[:-1] == [f"{row['name']} {row['max']}" for row in limits()], r.stderr
