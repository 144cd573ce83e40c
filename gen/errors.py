"""Errors a user can fix: reported as one line, never a traceback."""
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


def display_path(path):
    """PATH relative to the current directory when it lies below it."""
    path = os.fspath(path)
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative
