"""An archive as the history records it: its identity (the SHA-256 of its
MANIFEST.sha256, so a copy under another path is the same archive) and its
provenance (docs/archive.md): campaign, library, version and configure
line, parameter sets, environment, machine, date and nbhbench commit.
An archive is checked against its manifest first: a damaged one (a file
that differs or is missing) or a foreign directory is refused with one
line."""
import csv
import hashlib
import json
import re
from pathlib import Path

from gen.errors import NbhError
from history.keys import library_family

VERSION_NUMBER = re.compile(r"(\d+(?:\.\d+)+)")


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_csv_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def launches(directory, runs, manifest_sums):
    """What tells each launch (one attempt of one run) of the archive from
    every other, as analyze/input/check_archives.R's archive_launches does:
    [(run id, attempt or None, SHA-256 of the launch's key)]. An attempt's
    record (attempts/RUN.aN.json) names its run, number, prefix and the time
    it was submitted; a run without records is known by its library, id and
    the SHA-256 of its results (docs/archive.md)."""
    found, recorded = [], set()
    for path in sorted((directory / "attempts").glob("*.a*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(record, dict) or any(record.get(k) is None for k in ("run_id", "attempt", "prefix",
                                                                               "submitted")):
            continue
        key = f"attempt {record['run_id']} {record['attempt']} {record['prefix']} {record['submitted']}"
        found.append((record["run_id"], record["attempt"], hashlib.sha256(key.encode()).hexdigest()))
        recorded.add(record["run_id"])
    for run in runs:
        content = manifest_sums.get(f"results/{run['run_id']}.results.csv")
        if run["run_id"] not in recorded and content:
            key = f"content {run.get('library', '')} {run['run_id']} {content}"
            found.append((run["run_id"], None, hashlib.sha256(key.encode()).hexdigest()))
    return found


def verify_manifest(directory):
    """The manifest's SHA-256 and the SHA-256 of each file it lists
    ({name: digest}); refuses an archive whose files differ from it."""
    manifest = directory / "MANIFEST.sha256"
    if not manifest.is_file():
        raise NbhError(f"{directory}: no MANIFEST.sha256: the history knows an archive by its manifest "
                       "(nbhbench archive writes one)")
    lines = [line for line in manifest.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    bad, sums = [], {}
    for number, line in enumerate(lines, 1):
        match = re.fullmatch(r"([0-9a-f]{64}) [ *](.+)", line)
        if not match:
            raise NbhError(f"{manifest}:{number}: not a sha256sum line: damaged archive")
        digest, name = match.groups()
        sums[name] = digest
        path = directory / name
        if not path.is_file():
            bad.append(f"{name} (missing)")
        elif sha256_of(path) != digest:
            bad.append(name)
    if bad:
        raise NbhError(f"{directory}: damaged: {len(bad)} of {len(lines)} files differ from MANIFEST.sha256 "
                       f"(first: {bad[0]}; nbhbench archive --verify tells more)")
    return sha256_of(manifest), sums


def version_number(library_version):
    """The first dotted number of a library's version string ('4.1.4' of
    'Open MPI v4.1.4, package: ...'), or ''."""
    match = VERSION_NUMBER.search(library_version or "")
    return match.group(1) if match else ""


def configure_line(library_version_text):
    """The configure line of a full MPI_Get_library_version text (MPICH
    has one: 'MPICH configure: --with-device=...'), or ''."""
    for line in (library_version_text or "").splitlines():
        name, colon, value = line.partition(":")
        if colon and "configure" in name.lower():
            return value.strip()
    return ""


def first_provenance(directory, runs):
    """results/RUN.prov.json of the first run that has one, or {}."""
    for run in runs:
        path = directory / "results" / f"{run['run_id']}.prov.json"
        if path.is_file():
            try:
                value = json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError):
                continue
            if isinstance(value, dict):
                return value
    return {}


def param_sets(directory):
    """{set: {parameter: value}} of param_sets.csv."""
    path = directory / "param_sets.csv"
    sets = {}
    if path.is_file():
        for row in read_csv_rows(path):
            values = sets.setdefault(row.get("param_set", ""), {})
            if row.get("name"):
                values[row["name"]] = row.get("value", "")
    return sets


def read_archive(path):
    """The archive at PATH, checked: dict of its identity and provenance
    (the columns of the history's archives table) and its runs."""
    directory = Path(path)
    if not directory.is_dir():
        raise NbhError(f"{path}: no such archive directory")
    info_file = directory / "archive.json"
    if not info_file.is_file():
        raise NbhError(f"{path}: not an nbhbench archive (no archive.json)")
    try:
        info = json.loads(info_file.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise NbhError(f"{info_file}: not valid JSON ({e}): damaged archive") from None
    if not isinstance(info, dict) or not info.get("campaign"):
        raise NbhError(f"{info_file}: not an nbhbench archive's archive.json (no campaign)")
    manifest_sha256, sums = verify_manifest(directory)
    runs_file = directory / "runs.csv"
    if not runs_file.is_file():
        raise NbhError(f"{path}: not an nbhbench archive (no runs.csv)")
    runs = read_csv_rows(runs_file)
    missing = {"run_id", "library", "library_version"} - set(runs[0] if runs else {})
    if not runs or missing:
        raise NbhError(f"{runs_file}: {'no runs' if not runs else 'no column ' + sorted(missing)[0]}: damaged archive")
    versions = [r["library_version"] for r in runs if r.get("library_version")]
    library_version = versions[0] if versions else ""
    library = info.get("library") or runs[0].get("library", "")
    number = version_number(library_version)
    prov = first_provenance(directory, runs)
    hosts = sorted({h for r in runs for h in (r.get("hosts") or "").split(";") if h})
    machine = {"hosts": hosts,
               "cores_per_host": sorted({r["cores_per_host"] for r in runs if r.get("cores_per_host")}),
               "oversubscribed": sorted({r["oversubscribed"] for r in runs if r.get("oversubscribed")})}
    environment = {"env": info.get("env"), "launch_env": info.get("launch_env", []), "set": info.get("set", []),
                   "variables": prov.get("environment", {})}
    return {
        "manifest_sha256": manifest_sha256,
        "name": directory.resolve().name,
        "directory": str(directory.resolve()),
        "campaign": info.get("campaign", ""),
        "library": library,
        "library_version": library_version,
        "release": f"{library_family(library)} {number}".strip() if number else library,
        "version_number": number,
        "configure": configure_line(prov.get("library_version", "")),
        "param_sets": json.dumps(param_sets(directory), sort_keys=True),
        "environment": json.dumps(environment, sort_keys=True),
        "machine": json.dumps(machine, sort_keys=True),
        "scheduler": info.get("scheduler", ""),
        "created": info.get("created", ""),
        "nbhbench_commit": info.get("git_commit", ""),
        "runs": len(runs),
        "runs_done": sum(r.get("state") == "done" for r in runs),
        "run_ids": [r["run_id"] for r in runs],
        "launches": launches(directory, runs, sums),
    }
