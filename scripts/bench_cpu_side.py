"""CPU per question of two okf trees side by side: the same held-out questions of one shared corpus,
evaluated by each tree in a fresh process, alternating, so the machine's state moves both alike.

    mkdir -p /tmp/before && git archive e98f57a okf | tar -x -C /tmp/before
    python scripts/bench_cpu_side.py --before /tmp/before --after . --corpus cuad --angles auto --questions 50

Prints, per run, the process CPU over the questions (``time.process_time``, the bundle and its vocabulary
loaded before the clock starts) and the recall each tree found, which shows whether both walked alike.
Bundles are compiled into ``--cache`` by ``scripts/eval_corpora.py`` (run that first).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

_CHILD = """
import asyncio, hashlib, sys, time
from pathlib import Path
from okf.bundle import Bundle
from okf.eval import GoldIndex, evaluate_async, load_questions
from okf.readers import OfflineReader
cache, shared, corpus, angles, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
held = lambda i: int(hashlib.sha256(i.encode()).hexdigest(), 16) % 4 != 0
bundle = Bundle.open(Path(cache) / corpus)
questions = [q for q in load_questions(Path(shared) / corpus / "questions.jsonl") if held(q.id)]
questions = sorted(questions, key=lambda q: hashlib.sha256(q.id.encode()).hexdigest())[:n]
gold = GoldIndex.from_bundle(bundle)
bundle.vocabulary()
start = time.process_time()
report = asyncio.run(evaluate_async(bundle, questions, reader=OfflineReader(), budgets={"max_bodies": 120},
                                    gold_index=gold, angles=angles))
print(f"{1000 * (time.process_time() - start) / len(questions):.0f} {report.summary.recall_any:.3f}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="a tree holding okf/ (e.g. a git archive)")
    parser.add_argument("--after", required=True, help="another tree holding okf/")
    parser.add_argument("--corpus", default="cuad")
    parser.add_argument("--angles", default="off", help="off, auto or N")
    parser.add_argument("--questions", type=int, default=50, help="the first N held-out questions (by hash)")
    parser.add_argument("--runs", type=int, default=2, help="runs per tree, alternating")
    parser.add_argument("--cache", default="/tmp/okf-eval-cache", help="compiled bundles (eval_corpora.py --cache)")
    parser.add_argument("--shared", default=str(Path(__file__).resolve().parents[1].parent / "shared" / "corpora"))
    args = parser.parse_args()
    if not (Path(args.cache) / args.corpus).is_dir():
        sys.exit(f"no compiled {args.corpus} in {args.cache}: run scripts/eval_corpora.py --cache {args.cache} first")
    for run in range(1, args.runs + 1):
        for label, tree in (("before", args.before), ("after", args.after)):
            command = [sys.executable, "-c", _CHILD, args.cache, args.shared, args.corpus, args.angles]
            done = subprocess.run(
                [*command, str(args.questions)],
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": str(Path(tree).resolve())},
                check=False,
            )
            if done.returncode != 0:
                sys.exit(f"{label} ({tree}) failed:\n{done.stderr[-2000:]}")
            cpu, recall = done.stdout.split()
            print(f"run {run} {label:6} {args.corpus} angles {args.angles}: {cpu} ms CPU per question, recall {recall}")


if __name__ == "__main__":
    main()
