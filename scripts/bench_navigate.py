"""Benchmark ``okf navigate`` on a generated 10,000-concept bundle against a loopback model with fixed latency.

The model is ``okf.testing.LoopbackServer`` (real HTTP, chat-completions) run in a child process, as a real
model server would be, answering every call after a fixed latency L with keyword decisions that cost
microseconds; ``LLMReader`` drives it through the real ``openai`` SDK. Measured in one run, per question of a
mix from one-leaf questions to ones where the selector opens several siblings per level, and in aggregate:

- wall time against the critical path (selector levels + judging rounds on the longest dependency chain,
  read from the trace, in units of L); the bundle is opened fresh for each question, so index parsing and
  the corpus id (no compile manifest here: every file is hashed) are paid inside the measured walk; and
  again with the corpus id computed just before the walk (as a compiled bundle's manifest makes it instant);
- wall time and calls against (a) the same walk with the reader limited to one call in flight and (b) the
  seed's reference workflow run serially (depth-first selector calls one after another, then judge batches
  one after another; implemented here, not in okf/, on the already-warm bundle);
- calls and tokens against (c) judging every concept of the bundle;
- bodies judged as a share of concepts;
- engine overhead with model time excluded: the same questions with the same keyword decisions made in
  process (no HTTP, latency 0, their time subtracted), on a fresh bundle whose corpus id is computed first
  and reported apart: ms per question and per signpost (directory signposts offered + concepts collected).

Usage: python scripts/bench_navigate.py [--latency 0.2] [--repeats 3] [--out DIR] [--json FILE]
       [--no-judge-everything]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from okf.bundle import Bundle
from okf.models import Budgets, NavigationResult
from okf.navigator import navigate_async
from okf.navigator.receipts import offer
from okf.readers import LLMReader, ReaderConfig
from okf.readers.base import Choice, Document, Judgement, Reader, Selection, SignpostOffer, Usage, Verdict
from okf.testing import LoopbackServer
from okf.testing.server import request_payload

LEVEL_WORDS = [
    ["harbor", "orchard", "quarry", "glacier", "meadow", "canyon", "lagoon", "tundra", "prairie", "volcano"],
    ["copper", "marble", "cedar", "velvet", "amber", "cobalt", "ivory", "saffron", "indigo", "crimson"],
    ["falcon", "otter", "badger", "heron", "lynx", "walrus", "beetle", "salmon", "raven", "bison"],
]
TOPICS = [
    "refund",
    "warranty",
    "shipping",
    "invoice",
    "payroll",
    "pension",
    "vacation",
    "training",
    "security",
    "audit",
]
# One note's worth of filler (scripts/bench_scale.py writes the same words); a concept here carries six.
NOTE = (
    "This note records how the matter is handled day to day, who signs off, and where the records are "
    "kept. Exceptions go to the owner named below."
)
FILLER = (NOTE + " ") * 6

# The mix: the selector keeps every directory named in the question, so a question naming k words per level
# opens that many siblings at each level. (question, kind)
QUESTIONS = [
    ("Which refund rules apply to the harbor copper falcon office?", "1 leaf"),
    ("Compare the pension rules of the tundra indigo raven office and the tundra indigo bison office.", "2 leaves"),
    (
        "How do the vacation rules of the glacier cedar heron office and the lagoon ivory heron office differ?",
        "4 leaves",
    ),
    ("Compare the shipping rules of the harbor copper falcon office and the orchard marble otter office.", "8 leaves"),
    (
        (
            "What audit rules cover the glacier cedar heron office, the meadow amber lynx office and the canyon "
            "velvet walrus office?"
        ),
        "27 leaves",
    ),
]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def keeps(question_words: set[str], title: str) -> bool:
    """The simulated selector: keep a directory whose title is named in the question."""
    return bool(question_words & _words(title))


def relevant(question_words: set[str], title: str, text: str) -> bool:
    """The simulated judge: relevant when the question names the concept's topic and its whole office."""
    unit = re.search(r"by the (\w+) (\w+) (\w+) office", text)
    topic = title.split()[0].lower() if title else ""
    return bool(unit) and topic in question_words and set(unit.groups()) <= question_words  # type: ignore[union-attr]


def keyword_rule(request: dict[str, Any]) -> dict[str, Any]:
    """The loopback rule: keyword decisions in microseconds, so a call costs the server latency L.

    (okf.testing's offline_rule reads like the offline reader, which costs milliseconds of CPU per document:
    that would be billed to the model server, not to the simulated latency.)
    """
    payload = request_payload(request)
    words = _words(str(payload.get("question", "")))
    if payload.get("task") == "select":
        return {
            "keep": [
                {"index": s["index"], "reason": "named in the question"}
                for s in payload["signposts"]
                if keeps(words, s["title"])
            ]
        }
    verdicts = []
    for d in payload.get("documents", []):
        yes = relevant(words, d["title"], d["text"])
        verdicts.append(
            {
                "index": d["index"],
                "relevant": yes,
                "reason": "topic and office named" if yes else "another topic or office",
            }
        )
    return {"verdicts": verdicts}


class KeywordReader:
    """The same keyword decisions in process (no HTTP): the engine's overhead is what is left."""

    name = "keyword"

    async def select(self, question: str, signposts: Sequence[SignpostOffer]) -> Selection:
        words = _words(question)
        return Selection(
            choices=[Choice(index=s.index, reason="named") for s in signposts if keeps(words, s.title)],
            usage=Usage(calls=1),
        )

    async def judge(self, question: str, documents: Sequence[Document]) -> Judgement:
        words = _words(question)
        return Judgement(
            verdicts=[Verdict(id=d.id, relevant=relevant(words, d.title, d.text)) for d in documents],
            usage=Usage(calls=1),
        )

    async def answer(self, question: str, evidence: Any) -> Any:
        raise NotImplementedError("the navigate bench never answers")


def _concept(title: str, body: str, links: str = "") -> str:
    return f"---\ntype: policy\ntitle: {title}\n---\n# {title}\n\n{body}\n\n{FILLER}\n{links}"


def generate(root: Path) -> int:
    """Write the bench bundle (3 directory levels of 10, 10 concepts per leaf); returns the concept count."""
    count = 0
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.md").write_text(
        "# Divisions\n\n"
        + "".join(f"* [{w.capitalize()}]({w}/) - records of the {w} division\n" for w in LEVEL_WORDS[0])
    )
    for a, w1 in enumerate(LEVEL_WORDS[0]):
        (root / w1).mkdir()
        (root / w1 / "index.md").write_text(
            f"# {w1.capitalize()}\n\n"
            + "".join(f"* [{w.capitalize()}]({w}/) - the {w} branch\n" for w in LEVEL_WORDS[1])
        )
        for b, w2 in enumerate(LEVEL_WORDS[1]):
            (root / w1 / w2).mkdir()
            (root / w1 / w2 / "index.md").write_text(
                f"# {w2.capitalize()}\n\n"
                + "".join(f"* [{w.capitalize()}]({w}/) - the {w} crew\n" for w in LEVEL_WORDS[2])
            )
            for c, w3 in enumerate(LEVEL_WORDS[2]):
                leaf = root / w1 / w2 / w3
                leaf.mkdir()
                lines = [f"# {w3.capitalize()}\n"]
                for t, topic in enumerate(TOPICS):
                    # Each concept links to another topic in another subtree: a lateral round that is judged
                    # but (by its words) rarely relevant.
                    other = (
                        f"../../../{LEVEL_WORDS[0][(a + 1) % 10]}/{LEVEL_WORDS[1][(b + 1) % 10]}/"
                        f"{LEVEL_WORDS[2][(c + 1) % 10]}/{TOPICS[(t + 1) % 10]}.md"
                    )
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
    parent: dict[str, str] = {
        e.data["target"]: e.path or "" for e in result.trace if e.kind == "link" and "skipped" not in e.data
    }
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
            offers = [
                SignpostOffer(index=i, path=s.path, title=s.title, description=s.description)
                for i, s in enumerate(dirs)
            ]
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
    return {
        "seconds": time.monotonic() - start,
        "calls": usage.calls,
        "tokens": usage.tokens,
        "bodies": judged,
        "shortlist": shortlist,
    }


async def judge_everything(bundle: Bundle, question: str, reader: Reader, budgets: Budgets) -> dict[str, Any]:
    """Baseline (c): every concept of the bundle judged, in parallel batches."""
    paths = list(bundle.iter_concepts())
    batches = [paths[i : i + budgets.batch_size] for i in range(0, len(paths), budgets.batch_size)]
    start = time.monotonic()
    judgements = await asyncio.gather(
        *(
            reader.judge(question, [offer(bundle.concept(p), budgets.body_chars).document for p in batch])
            for batch in batches
        )
    )
    usage = Usage()
    for j in judgements:
        usage = usage + j.usage
    return {
        "seconds": time.monotonic() - start,
        "calls": usage.calls,
        "tokens": usage.tokens,
        "relevant": sum(bool(v.relevant) for j in judgements for v in j.verdicts),
    }


def serve(latency: float) -> int:
    """Child-process mode: run the loopback model, print its base URL, serve until stdin closes."""
    with LoopbackServer(rule=keyword_rule, latency=latency) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()
    return 0


@contextlib.contextmanager
def model_server(latency: float) -> Iterator[str]:
    """The loopback model in a child process (its CPU and threads apart from the engine's); yields its URL."""
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(latency)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        url = child.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the loopback model did not start (said {url!r})")
        yield url
    finally:
        assert child.stdin is not None
        child.stdin.close()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def llm_reader(base_url: str, concurrency: int) -> LLMReader:
    return LLMReader(
        ReaderConfig(
            model="loopback",
            base_url=base_url,
            api_key_env="OKF_BENCH_KEY",
            concurrency=concurrency,
            cache=False,
            max_retries=0,
        )
    )


async def bench(root: Path, concepts: int, latency: float, everything: bool, repeats: int) -> dict[str, Any]:
    """Each question ``repeats`` times each way; wall times are medians (the machine is shared)."""
    budgets = Budgets()
    rows: list[dict[str, Any]] = []
    with model_server(latency) as url:
        fast, slow = llm_reader(url, 32), llm_reader(url, 1)
        warm = [SignpostOffer(index=0, path="x/", title="x")]
        await asyncio.gather(*(fast.select("warm up", warm) for _ in range(8)), slow.select("warm up", warm))
        for question, kind in QUESTIONS:
            walls, known_walls, serial_walls, reference_walls = [], [], [], []
            for _ in range(repeats):
                # As a compiled bundle (its manifest makes the corpus id instant): listings still parsed cold.
                known = Bundle.open(root)
                known.corpus_id()
                known_walls.append((await navigate_async(known, question, reader=fast, budgets=budgets)).stats.seconds)
                bundle = Bundle.open(root)  # cold: listings parsed and the corpus id hashed inside the walk
                result = await navigate_async(bundle, question, reader=fast, budgets=budgets)
                serialized = await navigate_async(bundle, question, reader=slow, budgets=budgets)
                reference = await reference_serial(bundle, question, slow, budgets)
                walls.append(result.stats.seconds)
                serial_walls.append(serialized.stats.seconds)
                reference_walls.append(reference["seconds"])
            cp = critical_path(result)
            seconds = statistics.median(walls)
            reference["seconds"] = statistics.median(reference_walls)
            rows.append(
                {
                    "question": question,
                    "kind": kind,
                    "shortlist": [e.concept_id for e in result.shortlist],
                    "stopped_by": result.stopped_by,
                    "wall_s": seconds,
                    "wall_s_runs": walls,
                    "wall_over_L": seconds / latency,
                    "critical_path": cp,
                    "wall_vs_critical_path": seconds / (cp * latency),
                    "id_known": {
                        "wall_s": statistics.median(known_walls),
                        "wall_s_runs": known_walls,
                        "wall_vs_critical_path": statistics.median(known_walls) / (cp * latency),
                        "speedup_vs_reference": reference["seconds"] / statistics.median(known_walls),
                    },
                    "calls": result.stats.total.calls,
                    "tokens": result.stats.total.tokens,
                    "bodies_judged": result.stats.bodies_judged,
                    "bodies_share": result.stats.bodies_judged / concepts,
                    "signposts_offered": result.stats.signposts_offered,
                    "serialized_same_calls": {
                        "wall_s": statistics.median(serial_walls),
                        "calls": serialized.stats.total.calls,
                    },
                    "speedup_vs_serialized": statistics.median(serial_walls) / seconds,
                    "reference_serial": {
                        **{k: v for k, v in reference.items() if k != "shortlist"},
                        "seconds_runs": reference_walls,
                    },
                    "speedup_vs_reference": reference["seconds"] / seconds,
                    "reference_shortlist_same": sorted(reference["shortlist"])
                    == sorted(e.concept_id for e in result.shortlist),
                }
            )
        total = {
            "wall_s": sum(r["wall_s"] for r in rows),
            "id_known_wall_s": sum(r["id_known"]["wall_s"] for r in rows),
            "critical_path_s": sum(r["critical_path"] for r in rows) * latency,
            "reference_s": sum(r["reference_serial"]["seconds"] for r in rows),
            "serialized_s": sum(r["serialized_same_calls"]["wall_s"] for r in rows),
            "calls": sum(r["calls"] for r in rows),
            "reference_calls": sum(r["reference_serial"]["calls"] for r in rows),
        }
        total["wall_vs_critical_path"] = total["wall_s"] / total["critical_path_s"]
        total["speedup_vs_reference"] = total["reference_s"] / total["wall_s"]
        total["speedup_vs_serialized"] = total["serialized_s"] / total["wall_s"]
        total["id_known_wall_vs_critical_path"] = total["id_known_wall_s"] / total["critical_path_s"]
        total["id_known_speedup_vs_reference"] = total["reference_s"] / total["id_known_wall_s"]
        judged_all = await judge_everything(Bundle.open(root), QUESTIONS[0][0], fast, budgets) if everything else None
        await fast.aclose()
        await slow.aclose()
    return {
        "latency": latency,
        "concepts": concepts,
        "repeats": repeats,
        "questions": rows,
        "aggregate": total,
        "judge_everything": judged_all,
    }


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
    """Engine time with model time excluded: in-process keyword decisions (time subtracted), fresh bundle."""
    corpus_ms: list[float] = []
    rows: dict[str, dict[str, Any]] = {kind: {"ms": [], "signposts": 0} for _, kind in QUESTIONS}
    for _ in range(repeats):
        for question, kind in QUESTIONS:
            bundle = Bundle.open(root)
            t0 = time.perf_counter()
            bundle.corpus_id()
            corpus_ms.append((time.perf_counter() - t0) * 1000)
            reader = TimedReader(KeywordReader())
            t0 = time.perf_counter()
            result = await navigate_async(bundle, question, reader=reader)
            rows[kind]["ms"].append((time.perf_counter() - t0 - reader.seconds) * 1000)
            rows[kind]["signposts"] = result.stats.signposts_offered + result.stats.candidates
    per_question = []
    for kind, row in rows.items():
        ms = statistics.median(row["ms"])
        allowed = 50 + 1 * row["signposts"]
        per_question.append(
            {
                "kind": kind,
                "ms_median": ms,
                "ms_max": max(row["ms"]),
                "signposts": row["signposts"],
                "allowed_ms": allowed,
                "ms_per_signpost": ms / max(row["signposts"], 1),
                "within": ms <= allowed,
            }
        )
    return {
        "questions": per_question,
        "all_within_50ms_plus_1ms_per_signpost": all(q["within"] for q in per_question),
        "corpus_id_ms_median": statistics.median(corpus_ms),
    }


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        return serve(float(sys.argv[2]))
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.2, help="Seconds per simulated model call (0.2).")
    parser.add_argument("--out", type=Path, help="Where to write the bench bundle (default: a temp dir).")
    parser.add_argument("--json", type=Path, help="Also write the figures to this JSON file.")
    parser.add_argument("--repeats", type=int, default=3, help="Runs of each question each way (medians).")
    parser.add_argument(
        "--no-judge-everything",
        dest="everything",
        action="store_false",
        help="Skip baseline (c), judging every concept (1,250 calls).",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.out or Path(tmp) / "bench"
        t0 = time.monotonic()
        concepts = (
            generate(root) if not (root / "index.md").exists() else sum(1 for _ in Bundle.open(root).iter_concepts())
        )
        print(f"bundle: {concepts} concepts at {root} ({time.monotonic() - t0:.1f}s to write)", file=sys.stderr)
        load_before = os.getloadavg()
        figures = asyncio.run(bench(root, concepts, args.latency, args.everything, args.repeats))
        figures["overhead"] = asyncio.run(overhead(root))
        figures["load_average"] = {"before": load_before, "after": os.getloadavg(), "cpus": os.cpu_count()}
    report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


def report(f: dict[str, Any]) -> None:
    latency = f["latency"]
    print(
        f"okf navigate bench: {f['concepts']} concepts, simulated latency L = {latency * 1000:.0f} ms per call; "
        f"wall times are medians of {f['repeats']} runs"
    )
    for q in f["questions"]:
        ref, ser = q["reference_serial"], q["serialized_same_calls"]
        print(f"\n[{q['kind']}] {q['question']}")
        print(f"  shortlist {len(q['shortlist'])} concepts (stopped_by={q['stopped_by']})")
        runs = ", ".join(f"{w:.3f}" for w in q["wall_s_runs"])
        print(
            f"  wall {q['wall_s']:.3f}s = {q['wall_over_L']:.2f} L (runs: {runs}); critical path "
            f"{q['critical_path']} L; ratio {q['wall_vs_critical_path']:.2f} (target <= 1.3)"
        )
        k = q["id_known"]
        print(
            f"  corpus id known beforehand (as with a manifest): wall {k['wall_s']:.3f}s, ratio "
            f"{k['wall_vs_critical_path']:.2f}, {k['speedup_vs_reference']:.1f}x faster than the reference"
        )
        print(
            f"  calls {q['calls']}, tokens {q['tokens']}, bodies {q['bodies_judged']} "
            f"({q['bodies_share']:.2%} of concepts, target <= 5%), signposts offered {q['signposts_offered']}"
        )
        print(
            f"  same calls one at a time: {ser['wall_s']:.3f}s, {ser['calls']} calls -> "
            f"{q['speedup_vs_serialized']:.1f}x faster"
        )
        print(
            f"  seed reference, serial: {ref['seconds']:.3f}s, {ref['calls']} calls, {ref['tokens']} tokens, "
            f"{ref['bodies']} bodies -> {q['speedup_vs_reference']:.1f}x faster; same shortlist: "
            f"{q['reference_shortlist_same']}"
        )
    a = f["aggregate"]
    print(
        f"\nall questions: wall {a['wall_s']:.3f}s against a critical path of {a['critical_path_s']:.3f}s "
        f"(ratio {a['wall_vs_critical_path']:.2f}); {a['calls']} calls against the reference's "
        f"{a['reference_calls']}; {a['speedup_vs_reference']:.1f}x faster than the serial reference "
        f"(target >= 2x), {a['speedup_vs_serialized']:.1f}x faster than the same calls one at a time"
    )
    print(
        f"all questions, corpus id known beforehand: wall {a['id_known_wall_s']:.3f}s (ratio "
        f"{a['id_known_wall_vs_critical_path']:.2f}), {a['id_known_speedup_vs_reference']:.1f}x faster than "
        "the serial reference"
    )
    e = f["judge_everything"]
    if e:
        print(
            f"judging every concept: {e['calls']} calls, {e['tokens']} tokens ({e['seconds']:.1f}s at concurrency 32)"
        )
    o = f["overhead"]
    print(
        f"engine overhead (in-process decisions, model time excluded; corpus id hashed apart: "
        f"{o['corpus_id_ms_median']:.0f} ms):"
    )
    for q in o["questions"]:
        print(
            f"  [{q['kind']}] {q['ms_median']:.1f} ms median (max {q['ms_max']:.1f}) for {q['signposts']} "
            f"signposts = {q['ms_per_signpost']:.2f} ms/signpost; allowed {q['allowed_ms']} ms: "
            f"{'ok' if q['within'] else 'OVER'}"
        )
    load = f["load_average"]
    print(f"machine load average (1/5/15 min) before {load['before']}, after {load['after']}, {load['cpus']} CPUs")


if __name__ == "__main__":
    raise SystemExit(main())
