"""Orchestration against the single walk on one split of the shared corpora: recall, walks, CPU, and wall time
over the loopback model at a fixed latency, each question timed with ``--angles off`` and ``auto`` side by side.

    python scripts/bench_orchestrate.py --corpora hotpotqa-dev,obliqa --split dev --loopback-sample 12
    python scripts/bench_orchestrate.py --split held-out --sample 300 --seed 11 --loopback-sample 10

``--split dev`` keeps the sampled questions of the development split (sha256 of the id 0 mod 4, the questions
orchestration is tuned on), ``held-out`` the others, ``all`` every sampled question. Offline: recall (any /
all), shortlist words, walks (median / max) and CPU per question for each setting, and the questions one
setting finds gold for that the other does not. Wall time: ``--loopback-sample`` of those questions through
the real ``LLMReader`` against ``okf.testing.LoopbackServer`` (a child process answering with the offline
decisions, ``--latency`` seconds per call); for each question ``off`` then ``auto`` (alternating which goes
first), so load on the machine moves both alike; the ratio is the mean of the per-question ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from statistics import mean, median
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_corpora import CORPORA, compile_corpus, held_out, loopback_reader, shared_root  # noqa: E402

from okf.eval import GoldIndex, evaluate_async, load_questions, pick  # noqa: E402
from okf.models import Budgets  # noqa: E402
from okf.readers import OfflineReader  # noqa: E402

SETTINGS = ("off", "auto")


def in_split(question_id: str, split: str) -> bool:
    return split == "all" or held_out(question_id) == (split == "held-out")


async def offline(bundle, questions, index, budget: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    reader = OfflineReader()
    for setting in SETTINGS:
        c0 = time.process_time()
        report = await evaluate_async(
            bundle, questions, reader=reader, budgets={"max_bodies": budget}, gold_index=index, angles=setting
        )
        cpu = 1000 * (time.process_time() - c0) / len(questions)
        rs = report.results
        out[setting] = {
            "recall_any": mean(r.recall_any for r in rs),
            "recall_all": mean(r.recall_all for r in rs),
            "words_shortlist": mean(r.words_shortlist for r in rs),
            "walks_median": median(r.walks for r in rs),
            "walks_max": max(r.walks for r in rs),
            "cpu_ms": cpu,
            "any": {r.id for r in rs if r.recall_any},
            "all": {r.id for r in rs if r.recall_all},
        }
    return out


async def wall(bundle, questions, latency: float, budget: int) -> dict[str, list[float]]:
    from okf.navigator import navigate_async

    script = Path(__file__).resolve().parent / "eval_corpora.py"
    child = subprocess.Popen(
        [sys.executable, str(script), "--serve", str(bundle.root), str(latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None
    times: dict[str, list[float]] = {s: [] for s in SETTINGS}
    walks: list[int] = []
    try:
        url = child.stdout.readline().strip()
        for n, question in enumerate(questions):
            order = SETTINGS if n % 2 == 0 else tuple(reversed(SETTINGS))
            for setting in order:
                reader = loopback_reader(url)
                started = time.perf_counter()
                result = await navigate_async(
                    bundle, question.question, reader=reader, budgets=Budgets(max_bodies=budget), angles=setting
                )
                times[setting].append(time.perf_counter() - started)
                if setting == "auto":
                    walks.append(result.orchestration.walks if result.orchestration else 1)
                await reader.aclose()
    finally:
        child.stdin.close()
        child.wait(timeout=30)
    return {"seconds": times, "walks": walks}  # type: ignore[dict-item]


async def run(name: str, args: argparse.Namespace) -> dict[str, Any]:
    corpus = shared_root() / "corpora" / name
    bundle, _ = compile_corpus(name, corpus / "sources", Path(args.cache))
    sampled = pick(load_questions(corpus / "questions.jsonl"), sample=args.sample, seed=args.seed)
    questions = [q for q in sampled if in_split(q.id, args.split)]
    index = GoldIndex.from_bundle(bundle)
    out: dict[str, Any] = {"corpus": name, "questions": len(questions)}
    if not args.wall_only:
        out["offline"] = await offline(bundle, questions, index, args.budget)
    if args.loopback_sample:
        timed = pick(questions, sample=args.loopback_sample, seed=args.seed)
        out["wall"] = await wall(bundle, timed, args.latency, args.budget)
    return out


def report(r: dict[str, Any]) -> str:
    lines = [f"{r['corpus']}: {r['questions']} questions"]
    for setting, row in r.get("offline", {}).items():
        lines.append(
            f"  {setting:5} any {100 * row['recall_any']:5.1f}%  all {100 * row['recall_all']:5.1f}%  "
            f"words {row['words_shortlist']:6.0f}  walks {row['walks_median']:g}/{row['walks_max']}  "
            f"cpu {row['cpu_ms']:.0f} ms"
        )
    if "offline" in r:
        off, auto = r["offline"]["off"], r["offline"]["auto"]
        lines.append(
            f"  any: auto gains {len(auto['any'] - off['any'])}, loses {len(off['any'] - auto['any'])}; "
            f"all: gains {len(auto['all'] - off['all'])}, loses {len(off['all'] - auto['all'])}"
        )
    if "wall" in r:
        s = r["wall"]["seconds"]
        ratios = [a / o for a, o in zip(s["auto"], s["off"])]
        lines.append(
            f"  wall ({len(ratios)} q): off {mean(s['off']):.2f}s auto {mean(s['auto']):.2f}s  ratio mean "
            f"{mean(ratios):.2f} median {median(ratios):.2f} max {max(ratios):.2f}  "
            f"walks {median(r['wall']['walks']):g}/{max(r['wall']['walks'])}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", default=",".join(CORPORA))
    parser.add_argument("--split", choices=("dev", "held-out", "all"), default="dev")
    parser.add_argument("--sample", type=int, default=300, help="questions sampled per corpus, before the split")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--budget", type=int, default=120, help="max_bodies of the whole navigation")
    parser.add_argument("--latency", type=float, default=0.2, help="loopback seconds per model call")
    parser.add_argument("--loopback-sample", type=int, default=10, help="questions timed (0: no wall time)")
    parser.add_argument("--wall-only", action="store_true", help="only the wall time (no offline figures)")
    parser.add_argument("--cache", default="/tmp/okf-eval-cache", help="compiled bundles (outside the repository)")
    parser.add_argument("--out", default=None, help="also write the results as JSON here")
    args = parser.parse_args()
    results = []
    for name in [n.strip() for n in args.corpora.split(",") if n.strip()]:
        r = asyncio.run(run(name, args))
        print(report(r), flush=True)
        results.append(r)
    if args.out:
        for r in results:
            for row in r.get("offline", {}).values():
                row["any"], row["all"] = sorted(row["any"]), sorted(row["all"])
        Path(args.out).write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
