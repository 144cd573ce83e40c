"""Reads a Matrix Market file (https://math.nist.gov/MatrixMarket/formats.html):
coordinate format; field pattern, integer or real; symmetry general or
symmetric (the stored triangle is mirrored). The values are checked to be
numbers and otherwise ignored: only the pattern defines the halo.

The entries are read in one vectorised pass; only when that pass finds a
problem are the lines scanned one by one, to name the first bad one
(FILE:LINE: what, why)."""
import numpy as np

from gen.errors import ConfigError, file_error
from gen.graphs.matrix import Pattern

FIELDS = {"pattern": 2, "integer": 3, "real": 3}
SYMMETRIES = ("general", "symmetric")


def read(path):
    """The Pattern of the .mtx file PATH; ConfigError names file and line."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise file_error(e, path) from None
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        line = data[:data.find(bytes([b for b in data if b > 127][:1]))].count(b"\n") + 1
        raise ConfigError(path, line, "not a Matrix Market file: a non-ASCII byte") from None
    lines = text.split("\n")
    field, symmetry = banner(path, lines[0] if lines else "")
    size_at = 1
    while size_at < len(lines) and (lines[size_at].startswith("%") or not lines[size_at].strip()):
        size_at += 1
    if size_at >= len(lines):
        raise ConfigError(path, size_at, "truncated: no size line 'ROWS COLUMNS ENTRIES'")
    size = lines[size_at].split()
    if len(size) != 3 or not all(w.isdigit() for w in size):
        raise ConfigError(path, size_at + 1, f"size line '{lines[size_at].strip()}' is not 'ROWS COLUMNS ENTRIES' "
                          "(three integers; only the coordinate format is read)")
    rows, columns, entries = (int(w) for w in size)
    if rows != columns:
        raise ConfigError(path, size_at + 1, f"the matrix is {rows} x {columns}, not square "
                          "(a halo needs the rows and the vector entries to be the same unknowns)")
    if rows == 0:
        raise ConfigError(path, size_at + 1, "the matrix has no rows")
    width = FIELDS[field]
    body = lines[size_at + 1:]
    tokens = " ".join(body).split()
    if len(tokens) == entries * width:
        try:
            numbers = np.array(tokens, dtype=np.float64).reshape(entries, width) if entries else np.zeros((0, width))
            index = numbers[:, :2]
            good = (np.all(index == np.floor(index)) and np.all(np.isfinite(numbers))
                    and (entries == 0 or (index.min() >= 1 and index.max() <= rows)))
        except ValueError:
            good = False
        if good:
            row = index[:, 0].astype(np.int64) - 1
            col = index[:, 1].astype(np.int64) - 1
            if symmetry == "symmetric":
                row, col = np.concatenate([row, col]), np.concatenate([col, row])
            return Pattern.of(rows, row, col)
    locate(path, body, size_at + 2, entries, width, rows, field)
    raise ConfigError(path, size_at + 1, "cannot read the entries")  # locate always finds the fault


def banner(path, first):
    words = first.split()
    if len(words) != 5 or words[0] != "%%MatrixMarket" or words[1].lower() != "matrix":
        raise ConfigError(path, 1, "not a Matrix Market file: the first line must be "
                          "'%%MatrixMarket matrix coordinate FIELD SYMMETRY'")
    layout, field, symmetry = (w.lower() for w in words[2:])
    if layout != "coordinate":
        raise ConfigError(path, 1, f"format '{words[2]}' is not supported (only 'coordinate': a sparse matrix)")
    if field not in FIELDS:
        raise ConfigError(path, 1, f"field '{words[3]}' is not supported (pattern, integer or real)")
    if symmetry not in SYMMETRIES:
        raise ConfigError(path, 1, f"symmetry '{words[4]}' is not supported (general or symmetric)")
    return field, symmetry


def locate(path, body, first_line, entries, width, rows, field):
    """Raises ConfigError at the first bad entry line of BODY (line FIRST_LINE on)."""
    found, last = 0, first_line - 1
    for number, line in enumerate(body, first_line):
        words = line.split()
        if not words:
            continue
        last = number
        if line.lstrip().startswith("%"):
            raise ConfigError(path, number, "a comment among the entries (comments belong before the size line)")
        if found == entries:
            raise ConfigError(path, number, f"more entries than the {entries} the size line announces")
        if len(words) != width:
            raise ConfigError(path, number, f"{len(words)} fields, a {field} entry has {width} "
                              f"('ROW COLUMN{'' if width == 2 else ' VALUE'}')")
        for name, word in zip(("row", "column"), words[:2]):
            if not word.isdigit():
                raise ConfigError(path, number, f"{name} index '{word}' is not a positive integer")
            if not 1 <= int(word) <= rows:
                raise ConfigError(path, number, f"{name} index {word} is out of range 1..{rows}")
        if width == 3:
            try:
                value = float(words[2]) if field == "real" else int(words[2])
            except ValueError:
                value = None
            if value is None or not np.isfinite(value):
                raise ConfigError(path, number, f"value '{words[2]}' is not a finite {field} number")
        found += 1
    if found < entries:
        raise ConfigError(path, last, f"truncated: {found} of the {entries} entries "
                          "the size line announces")
