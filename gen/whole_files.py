"""Whole or nothing: every file the Python commands (gen/, workflow/) write
goes through here (docs/robustness.md).

A reader never sees half a file, whatever stops the writer: a full disk,
a quota, a kill. Each file is written under a temporary name in its own
directory (so on the same file system) and renamed over its final name
when complete; on any error the temporary file is removed and FileError
("PATH: No space left on device", exit 74) names the final path.

    write_text(path, text)          the whole file, replacing PATH
    write_json(path, data)          the same, JSON
    write_csv(path, columns, rows)  the same, CSV
    create_text(path, text)         the same, but never over an existing PATH
    copy_file(source, target)       a whole copy (mode bits kept)
    copy_tree(source, target)       a directory copy (each file whole)
    append_text(path, text)         appended whole, or the file cut back to where it was
    staged_directory(final)         a directory built aside and renamed into place at
                                    the end; removed, with all it holds, on an error

Files are not fsynced: the promise is against full disks and killed
processes, not against losing power (the kernel's documents and the
analyses are flushed: docs/robustness.md "Power loss").
"""
import contextlib
import csv
import io
import json
import os
import pathlib
import shutil

from gen.errors import FileError

_TEMPORARY = ".partial-"


def _temporary(path):
    path = pathlib.Path(path)
    return path.with_name(f".{path.name}{_TEMPORARY}{os.getpid()}")


def _publish(path, write, exclusive=False, mode=None):
    """Runs WRITE(file object) on a temporary file and renames it to PATH."""
    path = pathlib.Path(path)
    tmp = _temporary(path)
    try:
        with open(tmp, "wb") as f:
            write(f)
        if mode is not None:
            os.chmod(tmp, mode)
        if exclusive:
            os.link(tmp, path)  # fails if PATH exists: never replaces it
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise FileError(path, e) from None
        raise


def write_bytes(path, data, mode=None):
    _publish(path, lambda f: f.write(data), mode=mode)


def write_text(path, text, mode=None):
    write_bytes(path, text.encode("utf-8"), mode=mode)


def create_text(path, text, mode=None):
    """Writes PATH whole; FileError (File exists) if PATH is already there."""
    _publish(path, lambda f: f.write(text.encode("utf-8")), exclusive=True, mode=mode)


def write_json(path, data):
    write_text(path, json.dumps(data, indent=2) + "\n")


def csv_text(columns, rows):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row.get(c) is None else row[c] for c in columns])
    return out.getvalue()


def write_csv(path, columns, rows):
    write_text(path, csv_text(columns, rows))


def copy_file(source, target):
    """TARGET becomes a whole copy of SOURCE (with its mode bits)."""
    def copy(f):
        try:
            s = open(source, "rb")
        except OSError as e:  # the source's fault: name the source
            raise FileError(source, e) from None
        with s:
            while True:
                try:
                    block = s.read(1 << 20)
                except OSError as e:
                    raise FileError(source, e) from None
                if not block:
                    return
                f.write(block)  # a failure here is the target's: _publish names it
    try:
        mode = os.stat(source).st_mode & 0o777
    except OSError as e:
        raise FileError(source, e) from None
    _publish(target, copy, mode=mode)


def copy_tree(source, target, skip=("__pycache__",), skip_suffixes=(".pyc",)):
    """TARGET (new) becomes a copy of the directory SOURCE, each file whole."""
    source, target = pathlib.Path(source), pathlib.Path(target)
    make_directory(target)
    for entry in sorted(source.iterdir()):
        if entry.name in skip or entry.suffix in skip_suffixes:
            continue
        if entry.is_dir():
            copy_tree(entry, target / entry.name, skip, skip_suffixes)
        elif entry.is_file():
            copy_file(entry, target / entry.name)


def make_directory(path, exist_ok=False):
    try:
        pathlib.Path(path).mkdir(parents=True, exist_ok=exist_ok)
    except OSError as e:
        raise FileError(path, e) from None


def append_text(path, text):
    """Appends TEXT to PATH whole: after a short write the file is cut back
    to its old size, so it never ends in half a line."""
    data = text.encode("utf-8")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as e:
        raise FileError(path, e) from None
    try:
        size = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        except OSError as e:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise FileError(path, e) from None
    finally:
        os.close(fd)


def remove_tree(path):
    """Removes PATH and what it holds, even read-only files; never fails."""
    def writable_then_retry(function, name, _):
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), 0o755)
            function(name)
    shutil.rmtree(path, onerror=writable_then_retry)


@contextlib.contextmanager
def staged_directory(final):
    """Yields a new directory next to FINAL (.NAME.partial-PID) to build in;
    the caller renames it into place (publish_directory) when complete. On
    any error it is removed with everything in it, so no half-made
    directory is ever left under a real name."""
    final = pathlib.Path(final)
    make_directory(final.parent, exist_ok=True)
    staged = _temporary(final)
    if staged.exists():
        remove_tree(staged)
    make_directory(staged)
    try:
        yield staged
    finally:
        if staged.exists():
            remove_tree(staged)


def is_partial(name):
    """Whether NAME is a temporary name of this module (a leftover of a kill)."""
    return name.startswith(".") and _TEMPORARY in name


def publish_directory(staged, final):
    """Renames the complete directory STAGED to FINAL; FINAL must not exist
    (FileError otherwise; a directory rename never merges)."""
    try:
        if pathlib.Path(final).exists():
            raise FileExistsError(17, "File exists")
        os.rename(staged, final)
    except OSError as e:
        raise FileError(final, e) from None
