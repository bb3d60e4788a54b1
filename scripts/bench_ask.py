"""Benchmark ``okf ask`` recursive synthesis on a question whose shortlist is 10x the answer budget (cuad).

The corpus ../shared/corpora/cuad (510 contracts) is compiled into ``--cache`` (outside the repository;
incremental, so a second run reuses it). The question asks for one clause type across every contract. The
reader is ``LLMReader`` with only the answerer configured, so navigation (selector, judge) runs on the
offline reader in process, and the three answer-side roles (decomposer, leaf worker, answerer) go over real
HTTP to ``okf.testing.LoopbackServer`` in a child process, answering every call after a fixed latency L. The
decomposer and the answerer decide as the offline reader does; leaf workers answer with a keyword rule (each
sentence holding the question's clause words is a fact citing its item) that costs microseconds, so the
wall time measured is okf's orchestration plus L per call, not the simulated model's CPU. The answer budget
is the shortlist's evidence tokens / ``--ratio`` (10), unless ``--evidence-tokens`` is given. Measured side
by side, per run:

- **recursive** (``--synthesis auto``, which chooses recursive here): items covered / total, calls per role,
  decomposition depth and leaves, model calls one after another on the longest chain ("rounds"), and the
  synthesis wall time in units of L against the bound depth + 2 (decomposer levels, leaves, answer);
- **serial reference**: the same recursion with the reader allowed one call in flight (wall ~ calls x L);
- **single prompt** (``--synthesis single``): what one prompt within the budget covers, and its wall time;
- **recursive, L = 0**: the same recursion with no simulated latency: what the calls cost besides L (okf's
  payloads and validation, the SDK, HTTP and the model server's own CPU on this shared machine), so that
  ``wall - wall at L = 0`` is the part of the wall time that waits on the model, in units of L.

Usage: python scripts/bench_ask.py [--cache DIR] [--latency 0.2] [--ratio 10 | --evidence-tokens N]
       [--repeats 3] [--question Q] [--clause-words terminat,convenience] [--concurrency 64] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from okf.answer import ask_async
from okf.bundle import Bundle
from okf.models import AnswerResult
from okf.readers import LLMReader, ReaderConfig
from okf.testing import LoopbackServer, offline_rule
from okf.testing.server import request_payload

REPO = Path(__file__).resolve().parents[1]
QUESTION = "Which agreements can be terminated for convenience on written notice?"
# Navigation is offline and in process; these budgets let it shortlist the clause across every contract.
BUDGETS = {"max_bodies": 3000, "max_shortlist": 400, "max_calls": 3000, "deadline_s": 120.0}


def keyword_rule(words: list[str]) -> Any:
    """Offline decisions for decompose and answer; for leaf calls, the sentences holding every clause word."""
    offline = offline_rule()

    def rule(request: dict[str, Any]) -> Any:
        payload = request_payload(request)
        if payload.get("task") != "leaf":
            return offline(request)
        facts = []
        for item in payload["evidence"]:
            for sentence in re.split(r"(?<=[.;])\s+", item["text"]):
                low = sentence.lower()
                if all(w in low for w in words):
                    facts.append({"fact": " ".join(sentence.split())[:400], "cited": [item["id"]]})
                    break
        return {"facts": facts, "checked": [item["id"] for item in payload["evidence"]]}

    return rule


def serve(latency: float, words: list[str]) -> int:
    """Child-process mode: the loopback model; prints its URL, serves until stdin closes, then prints the
    tasks it was asked and the most requests it had in flight (one line of JSON)."""
    with LoopbackServer(rule=keyword_rule(words), latency=latency) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()
        tasks = [request_payload(r.body or {}).get("task", "?") for r in server.completions]
        print(json.dumps({"tasks": tasks, "max_in_flight": server.max_in_flight}), flush=True)
    return 0


@contextlib.contextmanager
def model_server(latency: float, words: list[str], seen: dict[str, Any]) -> Iterator[str]:
    """The loopback model in a child process; yields its URL; fills ``seen`` with what it was asked."""
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(latency), ",".join(words)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        url = child.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the loopback model did not start (said {url!r})")
        yield url
    finally:
        child.stdin.close()
        seen.update(json.loads(child.stdout.readline() or "{}"))
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def reader(url: str, concurrency: int) -> LLMReader:
    """Answer-side roles over HTTP; selector and judge have no model, so they read offline in process."""
    return LLMReader(
        ReaderConfig(
            answerer={"model": "loopback"},
            base_url=url,
            api_key_env="OKF_BENCH_KEY",
            concurrency=concurrency,
            cache=False,
            max_retries=0,
        )
    )


def compile_cuad(cache: Path) -> Bundle:
    from okf.compile import compile_bundle

    shared = Path(os.environ.get("OKF_SHARED", REPO.parent / "shared"))
    sources = shared / "corpora" / "cuad" / "sources"
    if not sources.is_dir():
        raise SystemExit(f"cuad sources not found at {sources} (set OKF_SHARED)")
    started = time.monotonic()
    compile_bundle(sources, cache / "cuad")
    print(f"cuad compiled into {cache / 'cuad'} ({time.monotonic() - started:.1f} s)", file=sys.stderr)
    return Bundle.open(cache / "cuad")


async def evidence_tokens(bundle: Bundle, question: str) -> tuple[int, int]:
    """The shortlist's size and whole evidence tokens (each body as loaded), from an offline navigation."""
    from okf.answer.evidence import estimate_tokens, load_evidence
    from okf.navigator import navigate_async
    from okf.readers import OfflineReader

    nav = await navigate_async(bundle, question, reader=OfflineReader(), budgets=BUDGETS)
    whole = load_evidence(bundle, nav.shortlist, item_tokens=10**9)
    return len(nav.shortlist), sum(estimate_tokens(item.evidence.text) for item in whole.items)


async def one(
    bundle: Bundle, question: str, words: list[str], latency: float, budget: int, concurrency: int, synthesis: str
) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    with model_server(latency, words, seen) as url:
        llm = reader(url, concurrency)
        started, cpu = time.monotonic(), time.process_time()
        result: AnswerResult = await ask_async(
            bundle, question, reader=llm, budgets=BUDGETS, evidence_tokens=budget, synthesis=synthesis
        )
        wall, cpu = time.monotonic() - started, time.process_time() - cpu
        await llm.aclose()
    report = result.synthesis
    assert report is not None and result.navigation is not None
    answer_seconds = report.seconds if report.mode == "recursive" else result.usage["answerer"].seconds
    return {
        "synthesis": synthesis,
        "concurrency": concurrency,
        "mode": report.mode,
        "status": result.status,
        "shortlist": len(result.shortlist),
        "evidence_tokens": report.evidence_tokens,
        "budget": budget,
        "items_covered": report.items_covered,
        "items_total": report.items_total,
        "missed_then_covered": len(report.missed_then_covered),
        "not_covered": report.not_covered,
        "depth": report.depth,
        "leaves": report.leaves,
        "calls": report.calls or {"answerer": 1},
        "rounds": report.rounds or 1,
        "facts": report.facts,
        "reduce_rounds": report.reduce_rounds,
        "citations": len(result.citations),
        "navigation_seconds": result.navigation.stats.seconds,
        "answer_seconds": answer_seconds,
        "wall_seconds": wall,
        "cpu_seconds": cpu,
        "server_tasks": {t: seen.get("tasks", []).count(t) for t in sorted(set(seen.get("tasks", [])))},
        "server_max_in_flight": seen.get("max_in_flight"),
    }


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the median answer time (the machine is shared; figures of one real run, not mixed)."""
    ordered = sorted(runs, key=lambda r: r["answer_seconds"])
    chosen = dict(ordered[len(ordered) // 2])
    chosen["answer_seconds_all"] = [round(r["answer_seconds"], 3) for r in runs]
    return chosen


async def bench(
    bundle: Bundle,
    question: str,
    words: list[str],
    latency: float,
    budget: int | None,
    ratio: float,
    concurrency: int,
    repeats: int,
) -> dict[str, Any]:
    shortlist, whole = await evidence_tokens(bundle, question)
    budget = budget or int(whole // ratio)
    print(f"shortlist {shortlist} concepts, {whole} tokens; answer budget {budget}", file=sys.stderr)
    rows = {}
    for name, synthesis, width, wait in (
        ("recursive", "auto", concurrency, latency),
        ("recursive, L = 0", "auto", concurrency, 0.0),
        ("serial reference", "recursive", 1, latency),
        ("single prompt", "single", concurrency, latency),
    ):
        runs = [
            await one(bundle, question, words, wait, budget, width, synthesis)
            for _ in range(repeats if name != "serial reference" else 1)
        ]
        rows[name] = median_run(runs)
        print(f"{name}: {rows[name]['answer_seconds']:.2f} s", file=sys.stderr)
    return {
        "question": question,
        "clause_words": words,
        "latency": latency,
        "budget": budget,
        "whole_tokens": whole,
        "concurrency": concurrency,
        "repeats": repeats,
        "rows": rows,
    }


def report(f: dict[str, Any]) -> None:
    latency = f["latency"]
    rec, ser, single = (f["rows"][k] for k in ("recursive", "serial reference", "single prompt"))
    ratio = f["whole_tokens"] / f["budget"]
    print(f"okf ask synthesis bench: cuad, {f['question']!r}")
    print(
        f"shortlist {rec['shortlist']} concepts, {f['whole_tokens']} evidence tokens = {ratio:.1f}x the "
        f"{f['budget']}-token answer budget (each item within the budget: {rec['evidence_tokens']} tokens); "
        f"simulated latency L = {latency * 1000:.0f} ms per call; concurrency {f['concurrency']}; answer wall "
        f"time: the run with the median of {f['repeats']}"
    )
    print()
    print(
        "| run | items covered / total | calls per role | depth | leaves | rounds (calls deep) | bound depth + 2 "
        "| answer wall | wall / L | status |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, row in (
        ("recursive synthesis", rec),
        ("same recursion, one call at a time", ser),
        ("single prompt (--synthesis single)", single),
    ):
        calls = ", ".join(f"{k} {v}" for k, v in row["calls"].items() if v)
        share = 100 * row["items_covered"] / row["items_total"]
        bound = row["depth"] + 2 if row["mode"] == "recursive" else 1
        print(
            f"| {name} | {row['items_covered']} / {row['items_total']} ({share:.0f}%) | {calls} | "
            f"{row['depth'] if row['mode'] == 'recursive' else '-'} | {row['leaves'] or '-'} | {row['rounds']} | "
            f"{bound} | {row['answer_seconds']:.2f} s | {row['answer_seconds'] / latency:.2f} | {row['status']} |"
        )
    print()
    zero = f["rows"]["recursive, L = 0"]
    waited = (rec["answer_seconds"] - zero["answer_seconds"]) / latency
    print(
        f"recursive synthesis at L = 0: {zero['answer_seconds']:.2f} s (every run: {zero['answer_seconds_all']});"
        f" wall - wall at L = 0 = {waited:.2f} L against the bound depth + 2 = {rec['depth'] + 2} L"
    )
    print(
        f"recursive vs one call at a time: {ser['answer_seconds'] / rec['answer_seconds']:.1f}x faster with the "
        f"same {sum(rec['calls'].values())} calls; recursive vs single prompt: "
        f"{rec['items_covered'] / max(single['items_covered'], 1):.1f}x the items read, "
        f"{rec['answer_seconds'] / single['answer_seconds']:.1f}x the wall time"
    )
    print(
        f"missed then covered by the coverage tail: {rec['missed_then_covered']}; facts to the answerer: "
        f"{rec['facts']}; reduce rounds: {rec['reduce_rounds']}; citations: {rec['citations']}; "
        f"navigation (offline, in process): {rec['navigation_seconds']:.2f} s"
    )
    print(
        f"okf process CPU for the whole ask (navigation included): recursive {rec['cpu_seconds']:.2f} s, "
        f"single {single['cpu_seconds']:.2f} s"
    )
    print(
        f"requests the model server saw (recursive run): {rec['server_tasks']}, at most "
        f"{rec['server_max_in_flight']} in flight"
    )
    print(
        f"answer wall times of every run: recursive {rec['answer_seconds_all']}, single "
        f"{single['answer_seconds_all']}; load average {f['load_average']}"
    )


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--serve":
        return serve(float(sys.argv[2]), sys.argv[3].split(","))
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(os.environ.get("OKF_EVAL_CACHE", "") or Path(tempfile.gettempdir()) / "okf-eval-cache"),
        help="Folder for the compiled cuad bundle (outside the repository).",
    )
    parser.add_argument("--latency", type=float, default=0.2, help="Seconds per simulated model call (0.2).")
    parser.add_argument("--ratio", type=float, default=10.0, help="Evidence tokens / answer budget (10).")
    parser.add_argument("--evidence-tokens", type=int, help="The answer budget (default: evidence / ratio).")
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument(
        "--clause-words",
        default="terminat,convenience",
        help="Comma-separated words a leaf fact must hold (lowercase stems).",
    )
    parser.add_argument("--concurrency", type=int, default=64, help="Model calls in flight at most (64).")
    parser.add_argument("--repeats", type=int, default=3, help="Runs of the recursive and single ways.")
    parser.add_argument("--json", type=Path, help="Also write the figures to this JSON file.")
    args = parser.parse_args()
    bundle = compile_cuad(args.cache)
    load_before = os.getloadavg()
    figures = asyncio.run(
        bench(
            bundle,
            args.question,
            args.clause_words.split(","),
            args.latency,
            args.evidence_tokens,
            args.ratio,
            args.concurrency,
            args.repeats,
        )
    )
    figures["load_average"] = [round(x, 2) for x in (load_before[0], os.getloadavg()[0])]
    report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    rec = figures["rows"]["recursive"]
    return 0 if rec["items_covered"] == rec["items_total"] else 1


if __name__ == "__main__":
    sys.exit(main())
