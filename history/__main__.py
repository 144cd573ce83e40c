"""python -m history COMMAND ...: `nbhbench history` (libexec/nbhbench-history)
and the analyzer's `--history` (fragment)."""
from gen.cli import main
from history.cli import dispatch

main(dispatch)
