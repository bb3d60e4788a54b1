"""Every navigation of the held-out sampled questions of a shared corpus as JSON lines, timings left out, so
two okf trees can be compared walk for walk (shortlists, verdicts, traces, word counts, orchestration):

    PYTHONHASHSEED=0 PYTHONPATH=/tmp/before python scripts/dump_walks.py --corpus cuad --angles auto --out /tmp/b.jsonl
    PYTHONHASHSEED=0 PYTHONPATH=. python scripts/dump_walks.py --corpus cuad --angles auto --out /tmp/a.jsonl
    cmp /tmp/b.jsonl /tmp/a.jsonl

The questions are ``scripts/eval_corpora.py``'s (``pick(sample=300, seed=11)``, held out: sha256 of the id not
0 mod 4), walked one after another by one offline reader at ``max_bodies`` 120. Two things that are not the
walk's own are fixed so a tree repeats itself: the coalescing window of partial judge batches is off (it is a
share of the measured call time, so a faster reader moves batches), and the hash seed (set
``PYTHONHASHSEED=0``: the order sets of names are read in follows it). Prints the CPU per question to stderr.

``--ordered-tasks`` fixes a third for trees older than 89a56d0: such a walk keeps its running
descents and judge batches in sets, and when it stops it cancels them in the order of their memory addresses,
so a tree's own walks may differ between runs (a "budget" event before another walk's "collected", how many
bodies a curbed angle read). With it, the dump keeps them in the order they were made (the same in both
trees). Walks now keep them in that order themselves (and read the corpus id in line for the offline reader,
rather than in a thread whose answer the machine's load times), so the option changes nothing for them.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import okf.navigator.walk as walk_module
from okf.bundle import Bundle
from okf.eval import load_questions
from okf.eval.questions import pick
from okf.navigator import navigate_async
from okf.readers import OfflineReader

_TIMINGS = {"t", "seconds"}


class _Ordered(dict[Any, None]):
    """The few set operations a walk uses on its tasks, in the order the tasks were added."""

    def add(self, item: Any) -> None:
        self[item] = None

    def discard(self, item: Any) -> None:
        self.pop(item, None)

    def __or__(self, other: Any) -> _Ordered:  # type: ignore[override]
        out = _Ordered(self)
        out.update(dict.fromkeys(other))
        return out

    def __sub__(self, other: Any) -> _Ordered:
        out = _Ordered(self)
        for item in other:
            out.pop(item, None)
        return out


def _order_tasks() -> None:
    """Every walk made from now on keeps its running tasks in the order they were made (``--ordered-tasks``)."""
    made = walk_module.Walk.__init__

    def init(self: walk_module.Walk, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        self.descents = _Ordered()  # type: ignore[assignment]
        self.judges = _Ordered()  # type: ignore[assignment]

    walk_module.Walk.__init__ = init  # type: ignore[method-assign]


def _timeless(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k not in _TIMINGS}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


async def _dump(bundle: Bundle, questions: list[str], angles: str, out: Path) -> float:
    reader = OfflineReader()
    cpu = 0.0
    with out.open("w", encoding="utf-8") as sink:
        for question in questions:
            start = time.process_time()
            result = await navigate_async(bundle, question, reader=reader, budgets={"max_bodies": 120}, angles=angles)
            cpu += time.process_time() - start
            sink.write(json.dumps(_timeless(result.model_dump(mode="json")), sort_keys=True) + "\n")
    return cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--angles", default="auto", help="off, auto or N")
    parser.add_argument("--out", required=True, help="the JSON-lines file to write")
    parser.add_argument("--questions", type=int, default=None, help="only the first N held-out questions")
    parser.add_argument("--cache", default="/tmp/okf-eval-cache", help="compiled bundles (eval_corpora.py --cache)")
    parser.add_argument("--shared", default=str(Path(__file__).resolve().parents[1].parent / "shared" / "corpora"))
    parser.add_argument(
        "--ordered-tasks", action="store_true", help="cancel a walk's tasks in the order they were made (above)"
    )
    args = parser.parse_args()
    walk_module.COALESCE_SHARE = 0.0
    if args.ordered_tasks:
        _order_tasks()
    bundle = Bundle.open(Path(args.cache) / args.corpus)
    sampled = pick(load_questions(Path(args.shared) / args.corpus / "questions.jsonl"), sample=300, seed=11)
    held = [q.question for q in sampled if int(hashlib.sha256(q.id.encode()).hexdigest(), 16) % 4 != 0]
    held = held[: args.questions] if args.questions is not None else held
    bundle.vocabulary()
    cpu = asyncio.run(_dump(bundle, held, args.angles, Path(args.out)))
    print(
        f"{args.corpus} angles {args.angles}: {len(held)} questions, {1000 * cpu / max(1, len(held)):.0f} ms CPU each",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
