"""The workspace's bookkeeping, checked when read (docs/robustness.md).

campaign.json, runs.csv, experiments.csv, attempts/RUN.aN.json and .exit,
archived.json: nbhbench writes each whole (gen/whole_files.py), so a record
that does not parse or lacks what it must hold was cut or changed by
something else. Reading one is never a silent skip: RecordError is one line
naming the file and what is wrong with it.
"""
import csv
import json

from gen.errors import FileError, NbhError, display_path


class RecordError(NbhError):
    """A damaged workspace record: "PATH: damaged RECORD (why)"."""

    def __init__(self, path, what, why):
        super().__init__(f"{display_path(path)}: damaged {what} ({why}; nbhbench writes it whole, "
                         "so something else cut or changed it)")
        self.path = path


def read_json(path, what):
    """The JSON value in PATH; RecordError if it does not parse."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError:
        raise RecordError(path, what, "not UTF-8 text") from None
    except OSError as e:
        raise FileError(path, e) from None
    if not text.strip():
        raise RecordError(path, what, "empty file")
    try:
        return json.loads(text)
    except ValueError as e:
        raise RecordError(path, what, f"not valid JSON: {e}") from None


def check_fields(path, what, data, fields):
    """DATA (a dict) has every key of FIELDS with a value of its type(s)."""
    if not isinstance(data, dict):
        raise RecordError(path, what, f"a JSON object expected, found {type(data).__name__}")
    for key, types in fields.items():
        if key not in data:
            raise RecordError(path, what, f"no '{key}'")
        if not isinstance(data[key], types) or (isinstance(data[key], bool) and bool not in _tuple(types)):
            raise RecordError(path, what, f"'{key}' is {data[key]!r}")
    return data


def _tuple(types):
    return types if isinstance(types, tuple) else (types,)


def read_object(path, what, fields):
    return check_fields(path, what, read_json(path, what), fields)


def read_table(path, what, required=(), integers=()):
    """Rows of the CSV file PATH (dicts); every REQUIRED column present and
    every INTEGERS cell an integer, else RecordError at its line."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            columns = reader.fieldnames or []
    except UnicodeDecodeError:
        raise RecordError(path, what, "not UTF-8 text") from None
    except csv.Error as e:
        raise RecordError(path, what, str(e)) from None
    except OSError as e:
        raise FileError(path, e) from None
    missing = [c for c in required if c not in columns]
    if missing:
        raise RecordError(path, what, f"no column {missing[0]}")
    for number, row in enumerate(rows, start=2):
        if None in row or None in row.values():
            raise RecordError(path, what, f"line {number} has {'more' if None in row else 'fewer'} "
                              "fields than the header")
        for column in integers:
            if not row[column].lstrip("-").isdigit():
                raise RecordError(path, what, f"line {number}: {column} '{row[column]}' is not an integer")
    return rows


def read_exit_code(path):
    """The exit code a job script wrote into PATH; None while there is none
    (no file yet, or an empty one: the job is writing it, or the disk was
    full); RecordError if it holds something else."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read().strip()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise FileError(path, e) from None
    if not text:
        return None
    if not text.lstrip("-").isdigit():
        raise RecordError(path, "exit file", f"'{text[:40]}' is not an exit code")
    return int(text)
