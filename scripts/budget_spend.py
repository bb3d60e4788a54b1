"""Where a walk's body budget goes: every verdict of the development questions of a shared corpus, by what the
selector said of the concept's own entry in its directory's listing, and how many were relevant or partial.

    python scripts/budget_spend.py --corpus obliqa --bundle /tmp/okf-sp/obliqa --questions 30

The questions are the development split (sha256 of the id 0 mod 4, the ones the reader may be tuned on),
ordered by the sha256 of their ids, walked one at a time by the offline reader (one walk, ``max_bodies`` 120).
A concept's kind is read from the trace's ``collected`` event of its directory: *chosen* (the selector graded
its entry), *passed over* (it graded others of the listing, not this one), *none chosen* (it graded no concept
of the listing), *not ordered* (the reader orders no concepts or its call failed), or *link* (reached by a
link). Reads no gold: the verdicts are the walk's own. A tree older than d5240d0 records no grades when its
selector chose none of a listing's concepts: with the offline reader (which orders concepts) its "not ordered"
row is that "none chosen".
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
from collections import Counter
from pathlib import Path

from okf.bundle import Bundle
from okf.eval import load_questions
from okf.navigator import navigate_async
from okf.readers import OfflineReader

KINDS = ("chosen", "passed over", "none chosen", "not ordered", "link")


def kinds_of(trace: list) -> dict[str, str]:  # type: ignore[type-arg]
    """Each collected concept's kind (see the module docstring), from a walk's trace events."""
    kinds: dict[str, str] = {}
    for event in trace:
        if event.kind != "collected":
            continue
        first = event.data.get("first")
        for path in event.data.get("concepts", []):
            if first is None:
                kinds[path] = "not ordered"
            elif path in first:
                kinds[path] = "chosen"
            else:
                kinds[path] = "passed over" if first else "none chosen"
    return kinds


async def spend(bundle: Bundle, questions: list[str]) -> tuple[Counter[str], Counter[str]]:
    judged: Counter[str] = Counter()
    relevant: Counter[str] = Counter()
    for question in questions:
        result = await navigate_async(
            bundle, question, reader=OfflineReader(), budgets={"max_bodies": 120}, angles="off"
        )
        kinds = kinds_of(result.trace)
        for event in result.trace:
            if event.kind == "verdict" and event.path:
                kind = kinds.get(event.path, "link")
                judged[kind] += 1
                relevant[kind] += bool(event.data.get("relevant"))
    return judged, relevant


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", required=True, help="a corpus of ../shared/corpora (its questions.jsonl)")
    parser.add_argument("--bundle", required=True, type=Path, help="the corpus compiled by okf")
    parser.add_argument("--questions", type=int, default=30, help="development questions walked (default 30)")
    parser.add_argument("--shared", type=Path, default=Path("../shared/corpora"), help="the shared corpora")
    args = parser.parse_args()

    def development(qid: str) -> bool:
        return int(hashlib.sha256(qid.encode()).hexdigest(), 16) % 4 == 0

    questions = sorted(
        (q for q in load_questions(args.shared / args.corpus / "questions.jsonl") if development(q.id)),
        key=lambda q: hashlib.sha256(q.id.encode()).hexdigest(),
    )[: args.questions]
    judged, relevant = asyncio.run(spend(Bundle.open(args.bundle), [q.question for q in questions]))
    total = sum(judged.values()) or 1
    print(f"{args.corpus}: {len(questions)} development questions, {sum(judged.values())} bodies judged")
    for kind in KINDS:
        if judged[kind]:
            share = relevant[kind] / judged[kind]
            print(
                f"  {kind:12s} {judged[kind]:6d} judged ({judged[kind] / total:.0%}), "
                f"{relevant[kind]:5d} relevant or partial ({share:.1%})"
            )


if __name__ == "__main__":
    main()
