"""Reference systems for the evaluation benchmark. Never part of the product: okf/ imports nothing from here.

- ``bm25_rankings``: BM25 (rank-bm25) over concept titles and bodies, a query-to-document similarity ranker
  of the kind okf deliberately never uses, shown only as a familiar reference point.
- ``judge_everything``: the same reader's judge on every concept of the bundle (the judge's recall ceiling,
  at the cost of one body per concept).
- ``serial_reference``: the seed's reference workflow run serially: the selector gates directories one call
  after another (descending depth-first, every concept of a chosen directory collected), then judge batches
  one after another, relevant concepts' links pushed on the frontier.
- ``LatencyReader``: wraps a reader and sleeps a fixed time per call, to compare wall time of concurrent and
  serial walks with a model-like latency (the offline reader itself answers in microseconds).

Every baseline is scored with okf's own gold matching (:class:`okf.eval.GoldIndex`).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import mean

from okf.bundle import Bundle
from okf.errors import BundleError
from okf.eval import EvalQuestion, GoldIndex
from okf.models import Budgets
from okf.navigator.receipts import offer
from okf.readers.base import Document, DraftAnswer, Evidence, Judgement, Reader, Selection, SignpostOffer

_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class BaselineRun:
    """One baseline's outcome on one question: what it returned and what it cost."""

    id: str
    shortlist: list[str]
    bodies: int
    calls: int = 0
    seconds: float = 0.0
    words: int = 0  # words of the bodies read


@dataclass
class Scored:
    """Recall, coverage and precision of one shortlist against gold."""

    recall_any: bool
    recall_all: bool
    coverage: float
    precision: float | None


def score_shortlist(question: EvalQuestion, shortlist: Sequence[str], index: GoldIndex) -> Scored:
    """Score any list of concept paths with okf's gold matching."""
    hits = [any(index.hits(c, span) for c in shortlist) for span in question.gold]
    relevant = [c for c in shortlist if any(index.hits(c, span) for span in question.gold)]
    return Scored(any(hits), all(hits), sum(hits) / len(hits), len(relevant) / len(shortlist) if shortlist else None)


@dataclass
class Summary:
    """Means over questions, in the same terms as okf's EvalSummary."""

    questions: int
    recall_any: float
    recall_all: float
    coverage: float
    precision: float | None
    bodies_mean: float
    calls_mean: float
    seconds_mean: float
    words_mean: float = 0.0
    extra: dict[str, object] = field(default_factory=dict)


def summarize_runs(questions: Sequence[EvalQuestion], runs: Sequence[BaselineRun], index: GoldIndex) -> Summary:
    """Score every run against its question and average."""
    by_id = {q.id: q for q in questions}
    scored = [score_shortlist(by_id[r.id], r.shortlist, index) for r in runs]
    precisions = [s.precision for s in scored if s.precision is not None]
    return Summary(
        questions=len(runs),
        recall_any=mean(s.recall_any for s in scored),
        recall_all=mean(s.recall_all for s in scored),
        coverage=mean(s.coverage for s in scored),
        precision=mean(precisions) if precisions else None,
        bodies_mean=mean(r.bodies for r in runs),
        calls_mean=mean(r.calls for r in runs),
        seconds_mean=mean(r.seconds for r in runs),
        words_mean=mean(r.words for r in runs),
    )


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class BM25Index:
    """BM25Okapi over each concept's title and body."""

    def __init__(self, bundle: Bundle) -> None:
        from rank_bm25 import BM25Okapi  # a bench extra, never a product dependency

        self.paths: list[str] = []
        self.words: dict[str, int] = {}  # concept path -> words of its body (what reading it costs)
        corpus: list[list[str]] = []
        for path in bundle.iter_concepts():
            try:
                concept = bundle.concept(path)
            except BundleError:
                continue
            self.paths.append(path)
            self.words[path] = len(concept.body.split())
            corpus.append(_tokens(f"{concept.title}\n{concept.body}"))
        self._bm25 = BM25Okapi(corpus)

    def ranking(self, question: str, depth: int) -> list[str]:
        """The ``depth`` best-scoring concept paths for ``question``, best first."""
        import numpy as np

        scores = self._bm25.get_scores(_tokens(question))
        depth = min(depth, len(self.paths))
        top = np.argpartition(-scores, depth - 1)[:depth] if depth else np.array([], dtype=int)
        order = top[np.argsort(-scores[top], kind="stable")]
        return [self.paths[i] for i in order]


def bm25_at_words(
    bm25: BM25Index, questions: Sequence[EvalQuestion], words_by_id: dict[str, int], depth: int = 400
) -> list[BaselineRun]:
    """BM25's top concepts per question, taken in rank order until they hold at least the words given for it
    (okf's shortlist words): the flat retriever at equal words."""
    runs = []
    for q in questions:
        taken: list[str] = []
        words = 0
        for path in bm25.ranking(q.question, depth):
            if words >= words_by_id[q.id]:
                break
            taken.append(path)
            words += bm25.words[path]
        runs.append(BaselineRun(q.id, taken, bodies=len(taken), words=words))
    return runs


def bm25_topk(bm25: BM25Index, questions: Sequence[EvalQuestion], k_by_id: dict[str, int]) -> list[BaselineRun]:
    """BM25 top-k per question, with k given per question (okf's bodies judged for it)."""
    runs = []
    for q in questions:
        top = bm25.ranking(q.question, k_by_id[q.id])
        runs.append(BaselineRun(q.id, top, bodies=len(top), words=sum(bm25.words[p] for p in top)))
    return runs


def _documents(bundle: Bundle, paths: Sequence[str], body_chars: int) -> list[tuple[str, Document]]:
    out: list[tuple[str, Document]] = []
    for path in paths:
        try:
            out.append((path, offer(bundle.concept(path), body_chars).document))
        except BundleError:
            continue
    return out


async def judge_everything(
    bundle: Bundle,
    question: EvalQuestion,
    reader: Reader,
    budgets: Budgets,
    documents: list[tuple[str, Document]] | None = None,
) -> BaselineRun:
    """The reader's judge on every concept, batch by batch; everything judged relevant is returned."""
    start = time.perf_counter()
    reader = bound(reader, bundle)
    docs = documents if documents is not None else _documents(bundle, list(bundle.iter_concepts()), budgets.body_chars)
    strong: list[str] = []
    weak: list[str] = []
    calls = 0
    for offset in range(0, len(docs), budgets.batch_size):
        batch = docs[offset : offset + budgets.batch_size]
        judgement = await reader.judge(question.question, [d for _, d in batch])
        calls += judgement.usage.calls
        for (path, _), v in zip(batch, judgement.verdicts):
            grade = v.grade or ("relevant" if v.relevant else "no")
            (strong if grade == "relevant" else weak if grade == "partial" else []).append(path)
    # The walk's shortlist rule: relevant ones, then partial ones while fewer than three relevant were found.
    chosen = strong + weak[: max(0, 3 - len(strong))]
    words = sum(len(d.text.split()) for _, d in docs)
    return BaselineRun(
        question.id, chosen, bodies=len(docs), calls=calls, seconds=time.perf_counter() - start, words=words
    )


def bound(reader: Reader, bundle: Bundle) -> Reader:
    """``reader`` reading ``bundle`` with its vocabulary, as the walk binds it (readers without ``bind`` as is)."""
    bind = getattr(reader, "bind", None)
    return bind(bundle.vocabulary()) if callable(bind) else reader


async def serial_reference(bundle: Bundle, question: EvalQuestion, reader: Reader, budgets: Budgets) -> BaselineRun:
    """The seed's reference workflow, every model call awaited before the next one starts."""
    start = time.perf_counter()
    reader = bound(reader, bundle)
    calls = 0

    async def pick(signposts: list) -> list:
        nonlocal calls
        kept = []
        for page_start in range(0, len(signposts), budgets.page_size):
            page = signposts[page_start : page_start + budgets.page_size]
            offers = [
                SignpostOffer(index=i, path=s.path, title=s.title, description=s.description, is_dir=True)
                for i, s in enumerate(page)
            ]
            if calls >= budgets.max_calls:
                break
            selection = await reader.select(question.question, offers)
            calls += selection.usage.calls
            kept += [page[c.index] for c in selection.choices if 0 <= c.index < len(page)]
        return kept

    async def collect(directory: str, depth: int) -> list[str]:
        if depth > budgets.max_depth:
            return []
        signposts = bundle.signposts(directory)
        out = [s.path for s in signposts if not s.is_dir]  # every concept of a chosen directory
        dirs = [s for s in signposts if s.is_dir]
        if dirs:
            for chosen in await pick(dirs):
                out += await collect(chosen.path, depth + 1)
        return out

    frontier = await collect("", 0)
    visited: set[str] = set()
    shortlist: list[str] = []
    bodies = 0
    while (
        frontier
        and len(shortlist) < budgets.max_shortlist
        and bodies < budgets.max_bodies
        and calls < budgets.max_calls
    ):
        batch: list[str] = []
        while frontier and len(batch) < min(budgets.batch_size, budgets.max_bodies - bodies):
            path = frontier.pop(0)
            if path not in visited:
                visited.add(path)
                batch.append(path)
        docs = _documents(bundle, batch, budgets.body_chars)
        if not docs:
            continue
        judgement = await reader.judge(question.question, [d for _, d in docs])
        calls += judgement.usage.calls
        bodies += len(docs)
        for (path, _), verdict in zip(docs, judgement.verdicts):
            if verdict.relevant and len(shortlist) < budgets.max_shortlist:
                shortlist.append(path)
                for link in bundle.links(bundle.concept(path)):
                    if link.exists and link.path and link.path.endswith(".md") and not link.external:
                        frontier.append(link.path)
    return BaselineRun(question.id, shortlist, bodies=bodies, calls=calls, seconds=time.perf_counter() - start)


class LatencyReader:
    """A reader that sleeps ``latency`` seconds per call before delegating: a model-like wall time."""

    def __init__(self, inner: Reader, latency: float) -> None:
        self.inner = inner
        self.latency = latency

    @property
    def name(self) -> str:
        return f"{self.inner.name}+{self.latency * 1000:.0f}ms"

    async def select(self, question: str, signposts: Sequence[SignpostOffer]) -> Selection:
        await asyncio.sleep(self.latency)
        return await self.inner.select(question, signposts)

    async def judge(self, question: str, documents: Sequence[Document]) -> Judgement:
        await asyncio.sleep(self.latency)
        return await self.inner.judge(question, documents)

    async def answer(self, question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        await asyncio.sleep(self.latency)
        return await self.inner.answer(question, evidence)
