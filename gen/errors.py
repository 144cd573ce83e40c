"""Errors a user can fix: reported as one line, never a traceback."""
import errno
import os


class NbhError(Exception):
    """A problem reported as one line on stderr; `code` is the exit status."""

    code = 2

    def __init__(self, message, code=None):
        super().__init__(message)
        if code is not None:
            self.code = code


class ConfigError(NbhError):
    """A mistake in a file the user wrote, reported as FILE:LINE: message."""

    def __init__(self, path, line, message):
        where = display_path(path) + (f":{line}" if line else "")
        super().__init__(f"{where}: {message}")
        self.path, self.line, self.reason = path, line, message


class FileError(NbhError):
    """A file that cannot be read or written (full disk, permissions):
    "PATH: No space left on device". The path is the file the user knows
    (never a temporary name); `errno` is the OSError's."""

    code = 74  # EX_IOERR of sysexits.h

    def __init__(self, path, error, note=""):
        reason = error.strerror or str(error) if isinstance(error, OSError) else str(error)
        super().__init__(f"{display_path(path)}: {reason}{f' ({note})' if note else ''}")
        self.path, self.errno, self.reason = path, getattr(error, "errno", None), reason

    def with_note(self, note, staged=None, final=None):
        """The same error with NOTE (what was kept, what to do) in parentheses;
        a path inside the directory STAGED is named as inside FINAL."""
        path = os.fspath(self.path)
        if staged is not None and path.startswith(os.fspath(staged) + os.sep):
            path = os.path.join(os.fspath(final), os.path.relpath(path, staged))
        return FileError(path, OSError(self.errno, self.reason), note)

    @property
    def out_of_space(self):
        return self.errno in (errno.ENOSPC, errno.EDQUOT)


def file_error(error, path=None):
    """An OSError as a FileError naming PATH (else the error's own file name)."""
    return FileError(path or error.filename or "(unknown file)", error)


def display_path(path):
    """PATH relative to the current directory when it lies below it."""
    path = os.fspath(path)
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative
