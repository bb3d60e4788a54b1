"""See a walk: its trace folded into a tree of directories, signposts and verdicts, rendered for a terminal.

``load_walk`` reads a ``--trace`` JSON-lines file or ``okf navigate|ask --json`` output; ``fold`` turns the
events into a :class:`WalkTree`; ``render_tree`` draws it as text (the HTML page is in :mod:`okf.report`).
See docs/navigate.md, "Seeing the walk".
"""

from __future__ import annotations

from okf.trace.load import WalkRecord, load_walk, parse_walk
from okf.trace.text import render_tree
from okf.trace.tree import (
    GRADES,
    Choice,
    ConceptNode,
    Counts,
    DirectoryNode,
    Judged,
    LinkStep,
    WalkTree,
    fold,
)

__all__ = [
    "GRADES",
    "Choice",
    "ConceptNode",
    "Counts",
    "DirectoryNode",
    "Judged",
    "LinkStep",
    "WalkRecord",
    "WalkTree",
    "fold",
    "load_walk",
    "parse_walk",
    "render_tree",
]
