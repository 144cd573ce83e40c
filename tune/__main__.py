"""python -m tune ...: `nbhbench tune` (libexec/nbhbench-tune)."""
from gen.cli import main
from tune.cli import command

main(command)
