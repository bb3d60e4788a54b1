"""Benchmark ``okf navigate`` on a generated 10,000-concept bundle against a loopback model with fixed latency.

Measured in one run, for each question:

- wall time / L against the critical path (selector levels + judging rounds, computed from the trace);
- wall time and calls against (a) the same walk with the reader limited to one call in flight (the same calls,
  one after another) and (b) the seed's reference workflow run serially (depth-first selector calls one after
  another, then judge batches one after another; implemented here, not in okf/);
- calls and tokens against (c) judging every concept of the bundle;
- bodies judged as a share of concepts;
- engine overhead with model time excluded (offline decisions in process, latency 0): ms per question and
  per signpost offered.

Usage: python scripts/bench_navigate.py [--latency 0.05] [--out DIR] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from okf.bundle import Bundle
from okf.models import Budgets, NavigationResult
from okf.navigate import navigate_async
from okf.navigate.receipts import offer
from okf.readers import LLMReader, ReaderConfig
from okf.readers.base import Judgement, Reader, Selection, SignpostOffer, Usage
from okf.testing import LoopbackServer, ScriptedReader
from okf.testing.server import request_payload

LEVEL_WORDS = [
    ["harbor", "orchard", "quarry", "glacier", "meadow", "canyon", "lagoon", "tundra", "prairie", "volcano"],
    ["copper", "marble", "cedar", "velvet", "amber", "cobalt", "ivory", "saffron", "indigo", "crimson"],
    ["falcon", "otter", "badger", "heron", "lynx", "walrus", "beetle", "salmon", "raven", "bison"],
]
TOPICS = ["refund", "warranty", "shipping", "invoice", "payroll", "pension", "vacation", "training", "security",
          "audit"]
FILLER = ("This note records how the matter is handled day to day, who signs off, and where the records are "
          "kept. Exceptions go to the owner named below. ") * 6

QUESTIONS = [  # (question, kind)
    ("Which refund rules apply to the harbor copper falcon office?", "one leaf"),
    ("Which pension rules apply to the tundra indigo raven office?", "one leaf"),
    ("Compare the shipping rules of the harbor copper falcon office and the orchard marble otter office.",
     "8 leaves"),
    (("What audit rules cover the glacier cedar heron office, the meadow amber lynx office and the canyon "
     "velvet walrus office?"), "27 leaves"),
]


def keyword_rule(request: dict[str, Any]) -> dict[str, Any]:
    """The simulated model: decides by keywords in microseconds, so a call costs the server latency L.

    (okf.testing's offline_rule reads like the offline reader, which costs milliseconds of CPU per document
    on the server thread of this same process: that would be billed to the engine, not to the model.)
    """
    payload = request_payload(request)
    words = set(re.findall(r"[a-z]+", str(payload.get("question", "")).lower()))
    if payload.get("task") == "select":
        keep = [{"index": s["index"], "reason": "named in the question"} for s in payload["signposts"]
                if words & set(re.findall(r"[a-z]+", s["title"].lower()))]
        return {"keep": keep}
    verdicts = []
    for d in payload.get("documents", []):
        unit = re.search(r"by the (\w+) (\w+) (\w+) office", d["text"])
        topic = d["title"].split()[0].lower()
        relevant = bool(unit) and topic in words and set(unit.groups()) <= words  # type: ignore[union-attr]
        verdicts.append({"index": d["index"], "relevant": relevant, "reason": "topic and office named"
                         if relevant else "another topic or office"})
    return {"verdicts": verdicts}


def _concept(title: str, body: str, links: str = "") -> str:
    return f"---\ntype: policy\ntitle: {title}\n---\n# {title}\n\n{body}\n\n{FILLER}\n{links}"


def generate(root: Path) -> int:
    """Write the bench bundle (3 directory levels of 10, 10 concepts per leaf); returns the concept count."""
    count = 0
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.md").write_text("# Divisions\n\n" + "".join(
        f"* [{w.capitalize()}]({w}/) - records of the {w} division\n" for w in LEVEL_WORDS[0]))
    for a, w1 in enumerate(LEVEL_WORDS[0]):
        (root / w1).mkdir()
        (root / w1 / "index.md").write_text(f"# {w1.capitalize()}\n\n" + "".join(
            f"* [{w.capitalize()}]({w}/) - the {w} branch\n" for w in LEVEL_WORDS[1]))
        for b, w2 in enumerate(LEVEL_WORDS[1]):
            (root / w1 / w2).mkdir()
            (root / w1 / w2 / "index.md").write_text(f"# {w2.capitalize()}\n\n" + "".join(
                f"* [{w.capitalize()}]({w}/) - the {w} crew\n" for w in LEVEL_WORDS[2]))
            for c, w3 in enumerate(LEVEL_WORDS[2]):
                leaf = root / w1 / w2 / w3
                leaf.mkdir()
                lines = [f"# {w3.capitalize()}\n"]
                for t, topic in enumerate(TOPICS):
                    # Each concept links to another topic in another subtree: a lateral round that is judged
                    # but (by its words) rarely relevant.
                    other = (f"../../../{LEVEL_WORDS[0][(a + 1) % 10]}/{LEVEL_WORDS[1][(b + 1) % 10]}/"
                             f"{LEVEL_WORDS[2][(c + 1) % 10]}/{TOPICS[(t + 1) % 10]}.md")
                    title = f"{topic.capitalize()} rules"
                    body = f"How {topic} requests are handled. Approved by the {w1} {w2} {w3} office."
                    (leaf / f"{topic}.md").write_text(_concept(title, body, f"See also [related]({other}).\n"))
                    lines.append(f"* [{topic.capitalize()}]({topic}.md) - {topic} rules of this unit\n")
                    count += 1
                (leaf / "index.md").write_text("".join(lines))
    return count


def critical_path(result: NavigationResult) -> int:
    """Model-call rounds on the longest dependency chain of the walk, read from its trace."""
    def depth(path: str) -> int:
        return path.rstrip("/").count("/") + 1 if path.rstrip("/") else 0

    rounds = 0
    for e in result.trace:
        if e.kind == "selected":
            rounds = max(rounds, depth(e.path or "") + 1)
    parent: dict[str, str] = {e.data["target"]: e.path or "" for e in result.trace
                              if e.kind == "link" and "skipped" not in e.data}
    cost: dict[str, int] = {}

    def concept_rounds(path: str) -> int:
        if path not in cost:
            dir_depth = path.count("/")  # selector calls before its directory was collected
            cost[path] = concept_rounds(parent[path]) + 1 if path in parent else dir_depth + 1
        return cost[path]

    for e in result.trace:
        if e.kind == "verdict":
            rounds = max(rounds, concept_rounds(e.path or ""))
    return rounds


async def reference_serial(bundle: Bundle, question: str, reader: Reader, budgets: Budgets) -> dict[str, Any]:
    """The seed's okf_navigate workflow, one call after another: DFS selection, then serial judge batches."""
    usage = Usage()

    async def collect(directory: str, depth: int) -> list[str]:
        nonlocal usage
        if depth > budgets.max_depth:
            return []
        signposts = bundle.signposts(directory)
        out = [s.path for s in signposts if not s.is_dir]
        dirs = [s for s in signposts if s.is_dir]
        if dirs:
            offers = [SignpostOffer(index=i, path=s.path, title=s.title, description=s.description)
                      for i, s in enumerate(dirs)]
            selection = await reader.select(question, offers)
            usage = usage + selection.usage
            for choice in selection.choices:
                out.extend(await collect(dirs[choice.index].path, depth + 1))
        return out

    start = time.monotonic()
    frontier = await collect("", 0)
    shortlist: list[str] = []
    visited: set[str] = set()
    judged = 0
    while frontier and len(shortlist) < budgets.max_shortlist:
        batch: list[str] = []
        while frontier and len(batch) < budgets.batch_size:
            path = frontier.pop(0)
            if path not in visited:
                visited.add(path)
                batch.append(path)
        if not batch:
            break
        concepts = [bundle.concept(p) for p in batch]
        judgement = await reader.judge(question, [offer(c, budgets.body_chars).document for c in concepts])
        usage = usage + judgement.usage
        judged += len(batch)
        for concept, verdict in zip(concepts, judgement.verdicts):
            if verdict.relevant and len(shortlist) < budgets.max_shortlist:
                shortlist.append(concept.id)
                frontier.extend(link.path for link in bundle.links(concept) if link.exists and link.path)
    return {"seconds": time.monotonic() - start, "calls": usage.calls, "tokens": usage.tokens,
            "bodies": judged, "shortlist": shortlist}


async def judge_everything(bundle: Bundle, question: str, reader: Reader, budgets: Budgets) -> dict[str, Any]:
    """Baseline (c): every concept of the bundle judged, in parallel batches."""
    paths = list(bundle.iter_concepts())
    batches = [paths[i:i + budgets.batch_size] for i in range(0, len(paths), budgets.batch_size)]
    start = time.monotonic()
    judgements = await asyncio.gather(*(
        reader.judge(question, [offer(bundle.concept(p), budgets.body_chars).document for p in batch])
        for batch in batches))
    usage = Usage()
    for j in judgements:
        usage = usage + j.usage
    return {"seconds": time.monotonic() - start, "calls": usage.calls, "tokens": usage.tokens,
            "relevant": sum(bool(v.relevant) for j in judgements for v in j.verdicts)}


def llm_reader(server: LoopbackServer, concurrency: int) -> LLMReader:
    return LLMReader(ReaderConfig(model="loopback", base_url=server.base_url, api_key_env="OKF_BENCH_KEY",
                                  concurrency=concurrency, cache=False, max_retries=0))


async def bench(root: Path, concepts: int, latency: float) -> dict[str, Any]:
    budgets = Budgets()
    rows: list[dict[str, Any]] = []
    with LoopbackServer(rule=keyword_rule, latency=latency) as server:
        fast, slow = llm_reader(server, 32), llm_reader(server, 1)
        warm = [SignpostOffer(index=0, path="x/", title="x")]
        await asyncio.gather(fast.select("warm up", warm), slow.select("warm up", warm))  # connect once
        for question, kind in QUESTIONS:
            bundle = Bundle.open(root)
            bundle.corpus_id()  # hashed once per bundle; measured below as overhead, not model time
            result = await navigate_async(bundle, question, reader=fast, budgets=budgets)
            serialized = await navigate_async(bundle, question, reader=slow, budgets=budgets)
            reference = await reference_serial(bundle, question, slow, budgets)
            total = result.stats.total
            cp = critical_path(result)
            rows.append({
                "question": question, "kind": kind, "shortlist": [e.concept_id for e in result.shortlist],
                "stopped_by": result.stopped_by, "wall_s": result.stats.seconds, "wall_over_L":
                    result.stats.seconds / latency, "critical_path": cp,
                "wall_vs_critical_path": result.stats.seconds / (cp * latency),
                "calls": total.calls, "tokens": total.tokens, "bodies_judged": result.stats.bodies_judged,
                "bodies_share": result.stats.bodies_judged / concepts,
                "signposts_offered": result.stats.signposts_offered,
                "serialized_same_calls": {"wall_s": serialized.stats.seconds, "calls": serialized.stats.total.calls},
                "speedup_vs_serialized": serialized.stats.seconds / result.stats.seconds,
                "reference_serial": {k: v for k, v in reference.items() if k != "shortlist"},
                "speedup_vs_reference": reference["seconds"] / result.stats.seconds,
                "reference_shortlist_same": sorted(reference["shortlist"])
                == sorted(e.concept_id for e in result.shortlist),
            })
        everything = await judge_everything(Bundle.open(root), QUESTIONS[0][0], fast, budgets)
        await fast.aclose()
        await slow.aclose()
    return {"latency": latency, "concepts": concepts, "questions": rows, "judge_everything": everything}


class TimedReader:
    """Wraps a reader and adds up the seconds spent inside its calls (model time, to subtract)."""

    def __init__(self, inner: Reader) -> None:
        self.inner, self.seconds = inner, 0.0

    @property
    def name(self) -> str:
        return self.inner.name

    async def select(self, question: str, signposts: Any) -> Selection:
        t0 = time.perf_counter()
        try:
            return await self.inner.select(question, signposts)
        finally:
            self.seconds += time.perf_counter() - t0

    async def judge(self, question: str, documents: Any) -> Judgement:
        t0 = time.perf_counter()
        try:
            return await self.inner.judge(question, documents)
        finally:
            self.seconds += time.perf_counter() - t0

    async def answer(self, question: str, evidence: Any) -> Any:
        return await self.inner.answer(question, evidence)


async def overhead(root: Path, repeats: int = 5) -> dict[str, Any]:
    """Engine time with model time excluded: offline decisions in process (their time subtracted), no HTTP."""
    cold_corpus = []
    per_question: list[float] = []
    per_signpost: list[float] = []
    fits = True
    for _ in range(repeats):
        for question, _kind in QUESTIONS:
            bundle = Bundle.open(root)
            t0 = time.perf_counter()
            bundle.corpus_id()
            cold_corpus.append((time.perf_counter() - t0) * 1000)
            reader = TimedReader(ScriptedReader())  # the offline reader's decisions, in process
            t0 = time.perf_counter()
            result = await navigate_async(bundle, question, reader=reader)
            ms = (time.perf_counter() - t0 - reader.seconds) * 1000
            signposts = result.stats.signposts_offered + result.stats.candidates
            per_question.append(ms)
            per_signpost.append(ms / max(signposts, 1))
            fits = fits and ms <= 50 + 1 * signposts
    return {"ms_per_question_median": statistics.median(per_question), "ms_per_question_max": max(per_question),
            "ms_per_signpost_median": statistics.median(per_signpost),
            "corpus_id_ms_median (10k files hashed once per Bundle)": statistics.median(cold_corpus),
            "within_50ms_plus_1ms_per_signpost": fits}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.05, help="Seconds per simulated model call.")
    parser.add_argument("--out", type=Path, help="Where to write the bench bundle (default: a temp dir).")
    parser.add_argument("--json", type=Path, help="Also write the figures to this JSON file.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.out or Path(tmp) / "bench"
        t0 = time.monotonic()
        concepts = generate(root) if not (root / "index.md").exists() else sum(1 for _ in Bundle.open(root)
                                                                                 .iter_concepts())
        print(f"bundle: {concepts} concepts at {root} ({time.monotonic() - t0:.1f}s to write)", file=sys.stderr)
        figures = asyncio.run(bench(root, concepts, args.latency))
        figures["overhead"] = asyncio.run(overhead(root))
    report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


def report(f: dict[str, Any]) -> None:
    latency = f["latency"]
    print(f"okf navigate bench: {f['concepts']} concepts, simulated latency L = {latency * 1000:.0f} ms per call")
    for q in f["questions"]:
        ref, ser = q["reference_serial"], q["serialized_same_calls"]
        print(f"\n[{q['kind']}] {q['question']}")
        print(f"  shortlist {q['shortlist']} (stopped_by={q['stopped_by']})")
        print(f"  wall {q['wall_s']:.3f}s = {q['wall_over_L']:.2f} L; critical path {q['critical_path']} L; "
              f"ratio {q['wall_vs_critical_path']:.2f} (target <= 1.3)")
        print(f"  calls {q['calls']}, tokens {q['tokens']}, bodies {q['bodies_judged']} "
              f"({q['bodies_share']:.2%} of concepts, target <= 5%), signposts offered {q['signposts_offered']}")
        print(f"  same calls one at a time: {ser['wall_s']:.3f}s, {ser['calls']} calls -> "
              f"{q['speedup_vs_serialized']:.1f}x faster (target >= 2x)")
        print(f"  seed reference, serial: {ref['seconds']:.3f}s, {ref['calls']} calls, {ref['tokens']} tokens, "
              f"{ref['bodies']} bodies -> {q['speedup_vs_reference']:.1f}x faster; same shortlist: "
              f"{q['reference_shortlist_same']}")
    e = f["judge_everything"]
    print(f"\njudging every concept: {e['calls']} calls, {e['tokens']} tokens ({e['seconds']:.1f}s at "
          f"concurrency 32)")
    print("engine overhead (offline, latency 0): " + ", ".join(
        f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in f["overhead"].items()))


if __name__ == "__main__":
    raise SystemExit(main())
