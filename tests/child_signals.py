"""What a child process started by a test needs of signals."""
import signal


def default_sigint():
    """preexec_fn: Ctrl-C (SIGINT) reaches the child even where the tests'
    caller ignores it (a background job of a non-interactive shell,
    `bash -c 'make test &'`, passes SIG_IGN on, and Python then keeps
    ignoring it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
