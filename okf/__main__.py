"""``python -m okf``: the okf command line."""

from okf.cli import run

run()
