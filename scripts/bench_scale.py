"""How okf's cost grows with the bundle: check, navigate and compile at 1k, 10k, 100k and 300k concepts.

Every size is the same shape grown wider: three directory levels of ``f`` directories (``f`` the cube root
of the leaf count), ten concepts per leaf directory, an ``index.md`` everywhere, one cross-link per concept.
Each directory has its own made-up name, so a question naming one leaf's three names makes the same walk at
every size (four directories opened, the leaf's ten bodies and one linked body judged); the walk's figures
are printed per size so that can be seen. Bundles are generated under ``--out`` (default
``/tmp/okf-scale``, never the repository) and reused when present.

Per size, each measure runs in a fresh child process (so peak RSS and CPU are that measure's own) and
prints wall time, CPU time (user + system, children included) and peak RSS, then the growth factor per
decade of concepts (the ratio between sizes scaled to a 10x step: 1.0 means flat, 10.0 means linear):

- ``check``: ``okf check`` of the bundle (no manifest: the generated bundle has none);
- ``navigate-offline``: the walk with the offline reader, the bundle opened fresh in the process, without a
  compile manifest (``cold``: the corpus-id cache emptied first; ``warm``: second run) and with one;
- ``navigate-loopback``: the same question through ``LLMReader`` against the loopback model server at a
  fixed latency per call (``--latency``), with wall time against the walk's critical path;
- ``compile``: ``okf compile`` of generated markdown sources making the same number of concepts.

Usage: python scripts/bench_scale.py [--sizes 1000,10000,100000,300000] [--measures check,navigate,compile]
       [--latency 0.2] [--out /tmp/okf-scale] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CONCEPTS_PER_LEAF = 10
TOPICS = ["refund", "warranty", "shipping", "invoice", "payroll", "pension", "vacation", "training", "security",
          "audit"]
FILLER = ("This note records how the matter is handled day to day, who signs off, and where the records are "
          "kept. Exceptions go to the owner named below.")
_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"
_LEVEL_ROOTS = ["har", "cop", "fal"]  # words of different levels never collide
MANIFEST_TEXT = '{"generator": "bench_scale", "note": "stands in for a compile manifest"}\n'


def name(level: int, i: int) -> str:
    """A made-up word, unique per (level, index): ``har`` + two syllables per base-70 digit."""
    syllables = [c + v for c in _CONSONANTS for v in _VOWELS]
    digits = ""
    while True:
        digits = syllables[i % len(syllables)] + digits
        i //= len(syllables)
        if not i:
            return _LEVEL_ROOTS[level] + digits


def shape(concepts: int) -> int:
    """Directories per level: the cube root of the leaf directories needed, rounded up."""
    leaves = -(-concepts // CONCEPTS_PER_LEAF)
    return max(2, math.ceil(round(leaves ** (1 / 3), 6)))


def leaf_names(concepts: int) -> list[tuple[str, str, str]]:
    fan = shape(concepts)
    leaves = -(-concepts // CONCEPTS_PER_LEAF)
    out = []
    for leaf in range(leaves):
        a, rest = divmod(leaf, fan * fan)
        b, c = divmod(rest, fan)
        out.append((name(0, a), name(1, b), name(2, c)))
    return out


def question(concepts: int) -> str:
    """The bench question: one topic of the first leaf, named by its three directory names."""
    w1, w2, w3 = leaf_names(concepts)[0]
    return f"Which refund rules apply to the {w1} {w2} {w3} office?"


def generate(root: Path, concepts: int) -> None:
    """Write the bundle (no manifest); a finished bundle has ``.okf-bench-complete``."""
    if (root / ".okf-bench-complete").exists():
        return
    if root.exists():
        shutil.rmtree(root)
    leaves = leaf_names(concepts)
    children: dict[str, list[str]] = {}
    written = 0
    for n, (w1, w2, w3) in enumerate(leaves):
        leaf = root / w1 / w2 / w3
        leaf.mkdir(parents=True, exist_ok=True)
        for parent, child in (("", w1), (w1, w2), (f"{w1}/{w2}", w3)):
            kids = children.setdefault(parent, [])
            if not kids or kids[-1] != child:
                kids.append(child)
        other = leaves[(n + 1) % len(leaves)]
        lines = [f"# {w3.capitalize()}\n\n"]
        for t, topic in enumerate(TOPICS):
            if written >= concepts:
                break
            title = f"{topic.capitalize()} rules"
            link = f"../../../{other[0]}/{other[1]}/{other[2]}/{TOPICS[(t + 1) % 10]}.md"
            (leaf / f"{topic}.md").write_text(
                f"---\ntype: policy\ntitle: {title}\ndescription: {topic} rules of the {w3} crew\n---\n"
                f"# {title}\n\nHow {topic} requests are handled. Approved by the {w1} {w2} {w3} office.\n\n"
                f"{FILLER}\n\nSee also [related]({link}).\n", encoding="utf-8")
            lines.append(f"* [{title}]({topic}.md) - {topic} rules of the {w3} crew\n")
            written += 1
        (leaf / "index.md").write_text("".join(lines), encoding="utf-8")
    for parent, kids in children.items():
        kind = {0: "division", 1: "branch", 2: "crew"}[parent.count("/") + 1 if parent else 0]
        title = parent.rsplit("/", 1)[-1].capitalize() if parent else "Divisions"
        (root / parent / "index.md").write_text(
            f"# {title}\n\n" + "".join(f"* [{k.capitalize()}]({k}/) - the {k} {kind}\n" for k in kids),
            encoding="utf-8")
    (root / ".okf-bench-complete").write_text(f"{concepts}\n")


def generate_sources(root: Path, concepts: int) -> None:
    """Markdown sources for compile: one file per leaf, one ``##`` section per concept."""
    if (root / ".okf-bench-complete").exists():
        return
    if root.exists():
        shutil.rmtree(root)
    written = 0
    for w1, w2, w3 in leaf_names(concepts):
        folder = root / w1 / w2
        folder.mkdir(parents=True, exist_ok=True)
        parts = [f"# The {w3} crew\n\nRules of the {w1} {w2} {w3} office.\n"]
        for topic in TOPICS:
            if written >= concepts:
                break
            parts.append(f"\n## {topic.capitalize()} rules\n\nHow {topic} requests are handled. Approved by the "
                         f"{w1} {w2} {w3} office. {FILLER} {FILLER}\n")
            written += 1
        (folder / f"{w3}.md").write_text("".join(parts), encoding="utf-8")
    (root / ".okf-bench-complete").write_text(f"{concepts}\n")
