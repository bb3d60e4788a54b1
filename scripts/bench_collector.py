"""What Python's cyclic collector costs okf's offline navigation: the held-out questions of one shared corpus,
orchestrated, in one process, with every collection timed (``gc.callbacks``).

    python scripts/bench_collector.py --corpus cuad --questions 50 --cache /tmp/okf-eval-cache
    python scripts/bench_collector.py --corpus cuad --questions 200 --long-lived   # the experiment not kept

Prints the process CPU per question, the CPU spent in collections per question and their number by
generation, the peak resident memory, and what a final ``gc.collect()`` found unreachable (objects the walks
left in reference cycles that no collection freed). ``--long-lived`` runs each navigation under
``collector_paused(long_lived=True)`` (survivors handed to the oldest generation when the pause ends), the
variant measured and not kept in docs/benchmarks.md ("Navigation CPU, stop 38"). Bundles are compiled into
``--cache`` by ``scripts/eval_corpora.py`` (run that first).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import resource
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from eval_corpora import held_out  # noqa: E402  # the held-out split (sha256 of the id, not 0 mod 4)

from okf.bundle import Bundle  # noqa: E402
from okf.eval import GoldIndex, evaluate_async, load_questions  # noqa: E402
from okf.readers import OfflineReader  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="cuad")
    parser.add_argument("--questions", type=int, default=50, help="the first N held-out questions (by hash)")
    parser.add_argument("--angles", default="auto")
    parser.add_argument("--cache", default="/tmp/okf-eval-cache", help="compiled bundles (eval_corpora.py --cache)")
    parser.add_argument("--shared", default=str(REPO.parent / "shared" / "corpora"))
    parser.add_argument("--long-lived", action="store_true", help="survivors to the oldest generation (see above)")
    args = parser.parse_args()
    if args.long_lived:
        import okf.collector
        import okf.navigator.api

        paused = okf.collector.collector_paused
        okf.navigator.api.collector_paused = lambda **_: paused(long_lived=True)  # type: ignore[assignment]
    bundle = Bundle.open(Path(args.cache) / args.corpus)
    held = [q for q in load_questions(Path(args.shared) / args.corpus / "questions.jsonl") if held_out(q.id)]
    questions = sorted(held, key=lambda q: hashlib.sha256(q.id.encode()).hexdigest())[: args.questions]
    bundle.vocabulary()
    index = GoldIndex.from_bundle(bundle)
    started: dict[str, float] = {}
    spent = [0.0]
    generations = [0, 0, 0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started["t"] = time.process_time()
        else:
            spent[0] += time.process_time() - started.get("t", time.process_time())
            generations[info["generation"]] += 1

    gc.callbacks.append(timed)
    cpu = time.process_time()
    asyncio.run(
        evaluate_async(
            bundle, questions, reader=OfflineReader(), budgets={"max_bodies": 120}, gold_index=index, angles=args.angles
        )
    )
    cpu = time.process_time() - cpu
    gc.callbacks.remove(timed)
    n = len(questions)
    print(
        f"{args.corpus}, {n} questions, angles {args.angles}{', long-lived pause' if args.long_lived else ''}: "
        f"{cpu / n * 1000:.0f} ms CPU per question, of it {spent[0] / n * 1000:.1f} ms in "
        f"{sum(generations)} collections (by generation {generations}); peak RSS "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB; unreachable at the end {gc.collect():,}"
    )


if __name__ == "__main__":
    main()
