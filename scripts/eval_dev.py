"""The offline reader's development loop: okf eval on the development split only.

A question is in the development split when the sha256 of its id is 0 mod 4: the questions the offline reader
may be tuned on (scripts/eval_corpora.py reports the held-out ones). The first N of them per corpus, in sha256
order, over bundles already compiled under ``--bundles/<corpus>``:

    python scripts/eval_dev.py --bundles /tmp/okf-sp --n 60 [--angles off|auto] [--corpora cuad,rhdh]
    python scripts/eval_dev.py --bundles /tmp/okf-sp --n 150 --corpora obliqa --gold-routing root

``--held-out`` takes the first N held-out questions instead (same order), for a before/after comparison on
questions the reader was not tuned on (scripts/eval_corpora.py samples them at random).

``--out FILE`` writes each question's outcome (recall any, all) per corpus as JSON, to compare two runs question
by question (``--compare A.json B.json`` prints the questions whose outcome differs). ``--judge-gold`` offers
each question's gold concepts to the offline judge alone, one call per question (no walk), and counts the best
grade they get: what the judge makes of the evidence when routing is out of the picture.

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
import json
import sys
import time
from collections import Counter
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
    parser.add_argument("--bundles", help="folder holding one compiled bundle per corpus")
    parser.add_argument("--corpora", default="cuad,obliqa,rhdh,hotpotqa-dev")
    parser.add_argument("--n", type=int, default=60, help="development questions per corpus")
    parser.add_argument("--budget", type=int, default=120, help="max_bodies")
    parser.add_argument("--angles", default="off")
    parser.add_argument("--held-out", action="store_true", help="the first N held-out questions instead")
    parser.add_argument("--gold-routing", choices=["root", "all"], help="a selector that knows the gold (see above)")
    parser.add_argument("--out", help="write each question's outcome here (JSON)")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="print the questions two --out files differ on")
    parser.add_argument("--judge-gold", action="store_true", help="judge each question's gold concepts alone")
    args = parser.parse_args()
    if args.compare:  # two files compared: no bundle read
        compare(*args.compare)
        return
    if not args.bundles:
        parser.error("--bundles is required (but with --compare)")
    if args.judge_gold:
        await judge_gold(args)
        return
    if args.gold_routing:
        sys.path.insert(0, str(REPO / "scripts"))  # the router lives beside this script, imported once
        from gold_routing import GoldRouter
    print(
        f"{'corpus':14} {'n':>4} {'recall':>7} {'all':>6} {'prec':>6} {'slW':>6} {'spW':>7} {'bodyW':>7} "
        f"{'bodies':>6} {'ms':>6}  lost at"
    )
    outcomes: dict[str, dict[str, list[bool]]] = {}
    for name in args.corpora.split(","):
        bundle = Bundle.open(Path(args.bundles) / name)
        questions = chosen(name, args)
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
        outcomes[name] = {r.id: [r.recall_any, r.recall_all] for r in report.results}
    if args.out:
        Path(args.out).write_text(json.dumps(outcomes, indent=1), encoding="utf-8")


def chosen(corpus: str, args: argparse.Namespace) -> list[Any]:
    """The first ``--n`` questions of the split, in sha256 order."""
    questions = [q for q in load_questions(SHARED / corpus / "questions.jsonl") if development(q.id) != args.held_out]
    return sorted(questions, key=lambda q: hashlib.sha256(q.id.encode()).hexdigest())[: args.n]


async def judge_gold(args: argparse.Namespace) -> None:
    """Each question's gold concepts judged by the offline reader alone (``--judge-gold``): the best grade."""
    from okf.models import Budgets
    from okf.navigator.receipts import offer  # the document exactly as a walk offers it to the judge

    body_chars = Budgets().body_chars  # the default window a walk offers

    for name in args.corpora.split(","):
        bundle = Bundle.open(Path(args.bundles) / name)
        gold = GoldIndex.from_bundle(bundle)
        reader = OfflineReader().bind(bundle.vocabulary())
        grades: Counter[str] = Counter()
        for question in chosen(name, args):
            paths = sorted({c for span in question.gold for c in gold.covering(span)})
            if not paths:
                grades["no gold concept"] += 1
                continue
            documents = [offer(bundle.concept(p), body_chars).document for p in paths]
            given = {v.grade for v in (await reader.judge(question.question, documents)).verdicts}
            grades[next((g for g in ("relevant", "partial") if g in given), "no")] += 1
        print(f"{name:14} gold judged alone: {dict(grades)}", flush=True)


def compare(first: str, second: str) -> None:
    """The questions two ``--out`` files give different outcomes for: corpus, id, (any, all) in each."""
    a, b = (json.loads(Path(f).read_text(encoding="utf-8")) for f in (first, second))
    for corpus in a.keys() & b.keys():
        for qid in sorted(a[corpus].keys() & b[corpus].keys()):
            if a[corpus][qid] != b[corpus][qid]:
                print(corpus, qid, a[corpus][qid], "->", b[corpus][qid])


if __name__ == "__main__":
    asyncio.run(main())
