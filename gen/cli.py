"""What every nbhbench Python command shares: one-line errors, exit codes."""
import argparse
import os
import sys
import traceback

from gen.errors import NbhError, file_error


class Parser(argparse.ArgumentParser):
    """argparse that fails with one line (the help is the libexec script's header)."""

    def __init__(self, command, **kwargs):
        super().__init__(prog=f"nbhbench {command}", add_help=False, **kwargs)
        self.command = command

    def error(self, message):
        raise NbhError(f"{self.command}: {message} (see: nbhbench {self.command} --help)")


def main(function, argv=None):
    """Runs FUNCTION(argv); a user's mistake ends as one line on stderr."""
    try:
        code = function(sys.argv[1:] if argv is None else argv)
    except NbhError as e:
        print(f"nbhbench: {e}", file=sys.stderr)
        code = e.code
    except KeyboardInterrupt:
        print("nbhbench: interrupted", file=sys.stderr)
        code = 130
    except BrokenPipeError:
        code = 0
    except OSError as e:  # a file that cannot be read or written: its name and why, one line
        if os.environ.get("NBH_DEBUG"):
            traceback.print_exc()
        error = file_error(e)
        print(f"nbhbench: {error}", file=sys.stderr)
        code = error.code
    except Exception as e:  # a bug: still one line, the traceback on request
        if os.environ.get("NBH_DEBUG"):
            traceback.print_exc()
        print(f"nbhbench: internal error: {type(e).__name__}: {e} "
              "(NBH_DEBUG=1 shows the traceback; please report it)", file=sys.stderr)
        code = 70
    sys.stdout.flush()
    sys.exit(code or 0)
