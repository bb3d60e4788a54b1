"""The offline reader's development loop: okf eval on the development split only.

A question is in the development split when the sha256 of its id is 0 mod 4: the questions the offline reader
may be tuned on (scripts/eval_corpora.py reports the held-out ones). The first N of them per corpus, in sha256
order, over bundles already compiled under ``--bundles/<corpus>``:

    python scripts/eval_dev.py --bundles /tmp/okf-sp --n 60 [--angles off|auto] [--corpora cuad,rhdh]
    python scripts/eval_dev.py --bundles /tmp/okf-sp --n 150 --corpora obliqa --gold-routing root

``--held-out`` takes the first N held-out questions instead (same order), for a before/after comparison on
questions the reader was not tuned on (scripts/eval_corpora.py samples them at random).

``--gold-routing root|all`` swaps the offline selector for scripts/gold_routing.py's, which knows the gold at
the root listing only or at every listing (a measurement of what perfect routing would give: it reads gold,
which no reader does); the judge stays the offline reader's.

Prints one row per corpus: recall (any, all), precision, shortlist / signpost / body words, bodies judged,
wall ms per question, and where the missed gold was lost.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from okf.bundle import Bundle  # noqa: E402
from okf.eval import GoldIndex, evaluate_async, load_questions  # noqa: E402
from okf.readers import OfflineReader  # noqa: E402

SHARED = REPO.parent / "shared" / "corpora"


def development(question_id: str) -> bool:
    return int(hashlib.sha256(question_id.encode()).hexdigest(), 16) % 4 == 0


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundles", required=True, help="folder holding one compiled bundle per corpus")
    parser.add_argument("--corpora", default="cuad,obliqa,rhdh,hotpotqa-dev")
    parser.add_argument("--n", type=int, default=60, help="development questions per corpus")
    parser.add_argument("--budget", type=int, default=120, help="max_bodies")
    parser.add_argument("--angles", default="off")
    parser.add_argument("--held-out", action="store_true", help="the first N held-out questions instead")
    parser.add_argument("--gold-routing", choices=["root", "all"], help="a selector that knows the gold (see above)")
    args = parser.parse_args()
    if args.gold_routing:
        sys.path.insert(0, str(REPO / "scripts"))  # the router lives beside this script, imported once
        from gold_routing import GoldRouter
    print(
        f"{'corpus':14} {'n':>4} {'recall':>7} {'all':>6} {'prec':>6} {'slW':>6} {'spW':>7} {'bodyW':>7} "
        f"{'bodies':>6} {'ms':>6}  lost at"
    )
    for name in args.corpora.split(","):
        bundle = Bundle.open(Path(args.bundles) / name)
        questions = [q for q in load_questions(SHARED / name / "questions.jsonl") if development(q.id) != args.held_out]
        questions = sorted(questions, key=lambda q: hashlib.sha256(q.id.encode()).hexdigest())[: args.n]
        gold = GoldIndex.from_bundle(bundle)
        reader: Any = OfflineReader()  # or the gold-knowing router, which only selects and judges
        if args.gold_routing:
            wanted = {q.question: {c for span in q.gold for c in gold.covering(span)} for q in questions}
            reader = GoldRouter(wanted, OfflineReader(), root_only=args.gold_routing == "root")
        started = time.perf_counter()
        report = await evaluate_async(
            bundle,
            questions,
            reader=reader,
            budgets={"max_bodies": args.budget},
            gold_index=gold,
            angles=args.angles,
        )
        ms = 1000 * (time.perf_counter() - started) / max(1, len(questions))
        s = report.summary
        print(
            f"{name:14} {len(questions):4} {s.recall_any:7.1%} {s.recall_all:6.1%} {s.precision or 0:6.1%} "
            f"{s.words_shortlist_mean:6.0f} {s.words_signposts_mean:7.0f} {s.words_bodies_mean:7.0f} "
            f"{s.bodies_judged_mean:6.1f} {ms:6.0f}  {s.losses}",
            flush=True,
        )


if __name__ == "__main__":
    asyncio.run(main())
