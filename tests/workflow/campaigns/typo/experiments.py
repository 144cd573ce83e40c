"""typo: one small experiment."""
from gen.design import levels

EXPERIMENTS = levels(op="alltoall", topology="full", msize=64)
