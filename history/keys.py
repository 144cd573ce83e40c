"""A cell's and a test's identity across analyses: the same parameters
(and for a test the same guideline and sides) are the same series in
every entry, whatever the experiment ids or the order of the columns.
A parameter that does not apply (empty) is left out of the key, so a
parameter added to nbhbench later (empty in older analyses) keeps the
keys of the cells it does not apply to."""
import json
import re

# `install-mpi mpich==4.2.3` names its library mpich-4.2.3.
VERSIONED = re.compile(r"^(.+)-\d+(\.\d+)*(\.post\d+)?$")


def library_family(name):
    """The series a library's cells belong to: a release that install-mpi
    installed by version (mpich-4.2.3) is its package's (mpich), so that
    every release of it is one series, ordered by release; any other name
    is its own."""
    match = VERSIONED.match(name or "")
    return match.group(1) if match else (name or "")


def params_of(row, names):
    """{name: value} of ROW's non-empty NAMES, in NAMES' order; the library
    as its family (library_family)."""
    params = {n: row[n] for n in names if row.get(n, "") != ""}
    if "library" in params:
        params["library"] = library_family(params["library"])
    return params


def params_text(params):
    return ",".join(f"{k}={v}" for k, v in params.items())


def cell_key(params):
    return params_text(params)


def test_key(row, params):
    """guideline | statistic | shared parameters | a side | b side."""
    tag = row.get("tag", "")
    return "|".join([f"{tag}: {row['guideline']}" if tag else row["guideline"], row.get("statistic", "") or "median",
                     params_text(params), row.get("a_params", ""), row.get("b_params", "")])


def as_json(params):
    return json.dumps(params, separators=(",", ":"))
