"""How the topical groups of a compiled bundle's wide folders move with the order their documents come in.

    python scripts/topic_orders.py BUNDLE [BUNDLE ...] [--shuffles 5]

Each BUNDLE is a compiled corpus named like its folder under ../shared/corpora (``/tmp/b/hotpotqa-dev``).
Its manifest's grouping terms (``group_terms``, what the compile grouped by) are placed again in process by
the code of this checkout (``okf.compile.tree.place_documents``), once per ordering of the documents: path
order (the compile's), reversed, rotated by half, and ``--shuffles`` seeded shuffles. Per ordering it
prints the grouping objective (the sum over leaf groups of the length of their members' summed vectors,
which balanced spherical k-means raises: each member's similarity to its group's unit centroid, summed), the
same over the top groups, and coherence against the corpus: for hotpotqa-dev (``meta.context_titles``) the
share of pairs of one question's context documents sharing a group and a top group, and of the questions
whose gold lies in two documents, how many pairs share a group and a top group; for cuad the share of pairs
of contracts of one type (the type its file name ends with) sharing a group. Then the mean and the spread
(max - min) over the orderings, and how many orderings gave a partition different from path order's.
With ``--salted`` (for code that groups in a canonical order, so the orderings above all give one
partition) each ordering but path order instead salts the hash that order is made of: the same question,
how much the groups move with an arbitrary order. Evaluation only: nothing here is read by a compile or
a walk.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import statistics
import time
from collections import defaultdict
from itertools import combinations
from pathlib import Path

import okf.compile.topics as topics
from okf.compile.topics import vectors
from okf.compile.tree import place_documents
from okf.limits import FANOUT

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"


def contract_type(name: str) -> str:
    """A cuad contract's type as its file name ends: ``...-EX-10.31-DISTRIBUTOR AGREEMENT.txt``."""
    last = re.split(r"[-_]", Path(name).stem)[-1].upper()
    words = [w.rstrip("S") for w in re.findall(r"[A-Z]+", last)]
    return " ".join(words)


def pairs_of(corpus: str, names: list[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Pairs that belong together (context pairs, or same-type pairs) and gold pairs of two documents."""
    known = set(names)
    if corpus == "cuad":
        by_type: dict[str, list[str]] = defaultdict(list)
        for name in sorted(names):
            by_type[contract_type(name)].append(name)
        return [p for docs in by_type.values() for p in combinations(docs, 2)], []
    stem = {Path(name).stem: name for name in names}
    context: list[tuple[str, str]] = []
    gold: list[tuple[str, str]] = []
    for line in (SHARED / corpus / "questions.jsonl").open():
        q = json.loads(line)
        titles = q.get("meta", {}).get("context_titles") or []
        context += combinations(sorted({stem[t] for t in titles if t in stem}), 2)
        files = sorted({g["source"] for g in q["gold"]})
        if len(files) == 2 and all(f in known for f in files):
            gold.append((files[0], files[1]))
    return context, gold


def objective(groups: dict[str, list[int]], vecs: list[dict[str, float]]) -> float:
    total = 0.0
    for members in groups.values():
        summed: dict[str, float] = defaultdict(float)
        for i in members:
            for t, w in vecs[i].items():
                summed[t] += w
        total += math.sqrt(sum(w * w for w in summed.values()))
    return total


_CANONICAL = getattr(topics, "canonical", None)


def salt(text: str) -> None:
    """Replace okf.compile.topics.canonical by one whose hash is salted with ``text`` ("": the real one)."""
    import hashlib

    def salted(keys):
        digests = [hashlib.blake2b(text.encode() + key, digest_size=8).digest() for key in keys]
        return sorted(range(len(keys)), key=lambda i: (digests[i], keys[i], i))

    topics.canonical = salted if text else _CANONICAL  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundles", nargs="+", type=Path)
    parser.add_argument("--shuffles", type=int, default=5)
    parser.add_argument("--fanout", type=int, default=FANOUT)
    parser.add_argument(
        "--salted",
        action="store_true",
        help="order-free code (okf.compile.topics.canonical): vary the canonical order's hash by a salt instead",
    )
    args = parser.parse_args()
    for bundle in args.bundles:
        sources = json.loads((bundle / ".okf" / "manifest.json").read_text())["sources"]
        names = sorted(sources)
        terms_of = {name: sources[name]["group_terms"] for name in names}
        vecs = vectors([terms_of[n] for n in names])
        position = {n: i for i, n in enumerate(names)}
        context, gold = pairs_of(bundle.name, names)
        orders = {"path": list(names), "rev": names[::-1], "half": names[len(names) // 2 :] + names[: len(names) // 2]}
        for seed in range(1, args.shuffles + 1):
            shuffled = list(names)
            random.Random(seed).shuffle(shuffled)
            orders[f"shuf{seed}"] = shuffled
        print(f"{bundle}: {len(names)} documents, {len(context)} pairs, {len(gold)} gold pairs")
        print(
            f"  {'order':6} {'objective':>9} {'top obj':>8} {'pairs: group':>12} {'top':>6} {'gold: group':>11} {'top':>4} {'s':>5}"
        )
        rows = []
        first: dict[str, str] | None = None
        differ = 0
        for label, order in orders.items():
            if args.salted:
                salt(label if label != "path" else "")
                order = list(names)
            started = time.process_time()
            _, placement = place_documents(order, args.fanout, terms_of)
            spent = time.process_time() - started
            group = {n: placement[n].rstrip("/").rpartition("/")[0] for n in names}
            if first is None:
                first = group
            else:
                differ += group != first
            leaves: dict[str, list[int]] = defaultdict(list)
            tops: dict[str, list[int]] = defaultdict(list)
            for n in names:
                leaves[group[n]].append(position[n])
                tops[group[n].split("/")[0]].append(position[n])
            same = sum(group[a] == group[b] for a, b in context) / max(1, len(context))
            top = sum(group[a].split("/")[0] == group[b].split("/")[0] for a, b in context) / max(1, len(context))
            gold_same = sum(group[a] == group[b] for a, b in gold)
            gold_top = sum(group[a].split("/")[0] == group[b].split("/")[0] for a, b in gold)
            row = (objective(leaves, vecs), objective(tops, vecs), same, top, gold_same, gold_top)
            rows.append(row)
            print(
                f"  {label:6} {row[0]:9.2f} {row[1]:8.2f} {same:12.3f} {top:6.3f} {gold_same:>11} {gold_top:>4} {spent:5.2f}"
            )
        for name, at in (("mean", statistics.mean), ("spread", lambda xs: max(xs) - min(xs))):
            cols = [at([r[c] for r in rows]) for c in range(6)]
            print(
                f"  {name:6} {cols[0]:9.2f} {cols[1]:8.2f} {cols[2]:12.3f} {cols[3]:6.3f} {cols[4]:11.1f} {cols[5]:4.1f}"
            )
        print(f"  orderings whose groups differ from path order's: {differ} of {len(orders) - 1}")


if __name__ == "__main__":
    main()
