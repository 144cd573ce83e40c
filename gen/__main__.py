"""python -m gen CAMPAIGN ...: the same as `nbhbench generate`."""
from gen.cli import main
from gen.generate import command

main(command)
