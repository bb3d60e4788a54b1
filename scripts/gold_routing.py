"""Perfect routing, before and after: the walk with a selector that knows the gold, on two compiles of a corpus.

    python scripts/gold_routing.py --corpus rhdh --before /tmp/old/rhdh --after /tmp/new/rhdh
    python scripts/gold_routing.py --corpus cuad --before A --after B --sample 200 --json out.json

``--root-only``: the gold is known at the root listing only (which top-level folders to open), the offline
selector decides below it: what choosing the right top-level folder is worth.

The selector keeps exactly the offered directories that hold a gold concept of the question (the concepts
whose ``sources`` lines overlap a gold span, found by okf.eval's gold index); the judge is the offline
reader's. So the figures isolate what the bundle's layout costs when routing is perfect: how many bodies and
words the walk must read before it reaches the gold, and how much of the gold it then shortlists. Signposts
must not make perfect routing more expensive: run it on a bundle compiled by an older okf (``--before``) and
by this one (``--after``). This is a measurement; it reads gold, which okf's readers never do.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from okf.bundle import Bundle  # noqa: E402
from okf.eval import GoldIndex, load_questions, pick  # noqa: E402
from okf.eval.questions import EvalQuestion  # noqa: E402
from okf.models import Budgets  # noqa: E402
from okf.navigator.api import navigate_async  # noqa: E402
from okf.readers.base import Choice, Document, Judgement, Selection, SignpostOffer  # noqa: E402
from okf.readers.offline import OfflineReader  # noqa: E402

SHARED = REPO.parent / "shared" / "corpora"


class GoldRouter:
    """Selects the directories above the current question's gold concepts; judges with the offline reader."""

    def __init__(self, gold: dict[str, set[str]], judge: OfflineReader, root_only: bool = False) -> None:
        self.gold, self.inner, self.root_only = gold, judge, root_only

    @property
    def name(self) -> str:
        return "gold-routing"

    def bind(self, vocabulary: Any) -> GoldRouter:
        return GoldRouter(self.gold, self.inner.bind(vocabulary), self.root_only)

    async def select(self, question: str, signposts: Sequence[SignpostOffer]) -> Selection:
        if self.root_only and any("/" in o.path.rstrip("/") for o in signposts):
            return await self.inner.select(question, signposts)  # below the root: the offline selector
        wanted = self.gold.get(question, set())
        keep = [o.index for o in signposts if o.is_dir and any(g.startswith(o.path.rstrip("/") + "/") for g in wanted)]
        return Selection(choices=[Choice(index=i, reason="holds gold") for i in keep])

    async def judge(self, question: str, documents: Sequence[Document]) -> Judgement:
        return await self.inner.judge(question, documents)


async def run(
    bundle_dir: Path, questions: list[EvalQuestion], budgets: Budgets, root_only: bool = False
) -> dict[str, Any]:
    bundle = Bundle.open(bundle_dir)
    index = GoldIndex.from_bundle(bundle)
    gold = {q.question: {c for s in q.gold for c in index.covering(s)} for q in questions}
    reader = GoldRouter(gold, OfflineReader(), root_only)
    hits, bodies, read, shortlist_words, reachable, signs = [], [], [], [], 0, []
    for q in questions:
        result = await navigate_async(bundle, q.question, reader=reader, budgets=budgets, angles="off")
        reachable += bool(gold[q.question])
        listed = {e.path for e in result.shortlist}
        hits.append(bool(listed & gold[q.question]))
        bodies.append(result.stats.bodies_judged)
        read.append(result.stats.words_signposts + result.stats.words_bodies)
        signs.append(result.stats.words_signposts)
        shortlist_words.append(result.stats.words_shortlist)
    n = len(questions)
    return {
        "bundle": str(bundle_dir),
        "questions": n,
        "gold_in_bundle": reachable / n,
        "recall_any": sum(hits) / n,
        "bodies_mean": statistics.mean(bodies),
        "words_read_mean": statistics.mean(read),
        "words_read_median": statistics.median(read),
        "words_signposts_mean": statistics.mean(signs),
        "shortlist_words_mean": statistics.mean(shortlist_words),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", required=True, help="a corpus under ../shared/corpora (its questions.jsonl)")
    parser.add_argument("--before", type=Path, required=True, help="the corpus compiled by the older okf")
    parser.add_argument("--after", type=Path, required=True, help="the corpus compiled by this okf")
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--max-bodies", type=int, default=120)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--root-only",
        action="store_true",
        help="know the gold at the root listing only; the offline selector decides every listing below it",
    )
    args = parser.parse_args()
    questions = pick(load_questions(SHARED / args.corpus / "questions.jsonl"), sample=args.sample, seed=args.seed)
    budgets = Budgets(max_bodies=args.max_bodies)
    rows = {
        label: asyncio.run(run(path, questions, budgets, args.root_only))
        for label, path in (("before", args.before), ("after", args.after))
    }
    print(
        f"{args.corpus}: {len(questions)} questions (sample {args.sample}, seed {args.seed}), "
        f"max_bodies {args.max_bodies}, gold-knowing selector{' at the root only' if args.root_only else ''}, "
        "offline judge"
    )
    print(
        "| compile | gold in bundle | recall (any) | bodies / question | words read / question (mean, median) "
        "| of which signposts | shortlist words |"
    )
    print("|---|---|---|---|---|---|---|")
    for label, r in rows.items():
        print(
            f"| {label} | {r['gold_in_bundle']:.1%} | {r['recall_any']:.1%} | {r['bodies_mean']:.1f} | "
            f"{r['words_read_mean']:,.0f}, {r['words_read_median']:,.0f} | {r['words_signposts_mean']:,.0f} | "
            f"{r['shortlist_words_mean']:,.0f} |"
        )
    b, a = rows["before"], rows["after"]
    print(
        f"after / before: bodies {a['bodies_mean'] / b['bodies_mean']:.2f}x, "
        f"words read {a['words_read_mean'] / b['words_read_mean']:.2f}x, "
        f"recall {a['recall_any'] - b['recall_any']:+.1%}"
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
