"""``evaluate``: navigate every question, score the shortlist against gold source spans, sum up the costs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from okf.errors import ConfigError, OKFError
from okf.eval.gold import GoldIndex
from okf.eval.questions import DEFAULT_SEED, EvalQuestion, load_questions, pick
from okf.eval.report import EvalReport, IndexStats, QuestionResult, score, summarize
from okf.models import DEFAULT_ANGLES, Budgets, NavigationResult
from okf.readers.base import Reader, aclose

Progress = Callable[[int, int, QuestionResult], None]
WalkSink = Callable[[EvalQuestion, NavigationResult], None]


def index_stats(index: GoldIndex) -> IndexStats:
    """The provenance figures of a gold index, for the report."""
    return IndexStats(
        concepts=index.concepts,
        concepts_with_lines=len(index.by_concept),
        sources_covered=len(index.by_source),
        entries_without_lines=index.entries_without_lines,
        unusable_resources=index.unusable_resources,
    )


async def evaluate_async(
    bundle: object,
    questions: list[EvalQuestion] | str | Path,
    *,
    reader: Reader | None = None,
    budgets: Budgets | Mapping[str, Any] | None = None,
    sample: int | None = None,
    seed: int = DEFAULT_SEED,
    limit: int | None = None,
    concurrency: int = 1,
    progress: Progress | None = None,
    gold_index: GoldIndex | None = None,
    on_walk: WalkSink | None = None,
    angles: str | int | None = DEFAULT_ANGLES,
) -> EvalReport:
    """Evaluate ``bundle`` (a Bundle or a path) on ``questions`` (a list or a questions.jsonl path).

    ``on_walk`` is given each question with its whole navigation (trace included), e.g. to save the walks.
    ``angles`` is navigate's (``auto``, N, ``off``).
    """
    # Imported here: navigate and bundle are siblings built apart; eval's pure parts must import without them.
    from okf.bundle import Bundle
    from okf.navigator import make_budgets
    from okf.orchestrate import parse_angles

    if concurrency < 1:
        raise ConfigError(f"concurrency must be at least 1, got {concurrency}", fix="pass --concurrency N >= 1")
    setting = str(parse_angles(angles))
    started = time.perf_counter()
    opened = bundle if isinstance(bundle, Bundle) else Bundle.open(Path(str(bundle)))
    questions_file = "" if isinstance(questions, list) else str(questions)
    every = load_questions(questions) if not isinstance(questions, list) else questions
    chosen = pick(every, sample=sample, seed=seed, limit=limit)
    own = None
    if reader is None:
        from okf.readers import make_reader  # lazy: a configured reader may import a model client

        reader = own = make_reader()
    try:
        return await _evaluate(
            opened,
            every,
            chosen,
            questions_file,
            reader,
            make_budgets(budgets),
            sample,
            seed,
            limit,
            concurrency,
            progress,
            gold_index,
            on_walk,
            started,
            setting,
        )
    finally:
        if own is not None:
            await aclose(own)  # made here, so closed here


async def _evaluate(
    opened: Any,
    every: list[EvalQuestion],
    chosen: list[EvalQuestion],
    questions_file: str,
    reader: Reader,
    budgets: Budgets,
    sample: int | None,
    seed: int,
    limit: int | None,
    concurrency: int,
    progress: Progress | None,
    gold_index: GoldIndex | None,
    on_walk: WalkSink | None,
    started: float,
    angles: str = DEFAULT_ANGLES,
) -> EvalReport:
    from okf.navigator import navigate_async

    index = gold_index or GoldIndex.from_bundle(opened)
    warnings = list(index.warnings)
    if not index.by_source:
        warnings.append(
            "no concept records a source path with lines: every gold span will be missed "
            "(compile the sources with okf compile so concepts carry `sources` provenance)"
        )
    else:
        unknown = sorted({s.source for q in chosen for s in q.gold} - index.covered_sources())
        if unknown:
            warnings.append(
                f"{len(unknown)} gold source file(s) are cited by no concept, e.g. {unknown[0]!r} "
                "(was the bundle compiled from this corpus's sources/ folder?)"
            )

    semaphore = asyncio.Semaphore(concurrency)
    done = 0

    async def run_one(question: EvalQuestion) -> QuestionResult:
        nonlocal done
        async with semaphore:
            result: NavigationResult | None = None
            error: str | None = None
            try:
                result = await navigate_async(opened, question.question, reader=reader, budgets=budgets, angles=angles)
            except ConfigError:
                raise  # a setup problem fails every question alike: stop, don't score it as misses
            except OKFError as exc:
                error = f"{type(exc).__name__}: {exc}"
            scored = score(question, result, index, error=error)
            if on_walk is not None and result is not None:
                on_walk(question, result)
        done += 1
        if progress is not None:
            progress(done, len(chosen), scored)
        return scored

    results = list(await asyncio.gather(*(run_one(q) for q in chosen)))
    return EvalReport(
        bundle=str(opened.root),
        corpus_id=opened.corpus_id(),
        reader=reader.name,
        questions_file=questions_file,
        questions_total=len(every),
        sample=sample,
        seed=seed if sample is not None else None,
        limit=limit,
        budgets=budgets,
        angles=angles,
        index=index_stats(index),
        summary=summarize(results),
        results=results,
        warnings=warnings,
        seconds=time.perf_counter() - started,
    )


def evaluate(
    bundle: object,
    questions: list[EvalQuestion] | str | Path,
    *,
    reader: Reader | None = None,
    budgets: Budgets | Mapping[str, Any] | None = None,
    sample: int | None = None,
    seed: int = DEFAULT_SEED,
    limit: int | None = None,
    concurrency: int = 1,
    progress: Progress | None = None,
    gold_index: GoldIndex | None = None,
    on_walk: WalkSink | None = None,
    angles: str | int | None = DEFAULT_ANGLES,
) -> EvalReport:
    """Synchronous :func:`evaluate_async` (same arguments); not for use inside a running event loop."""

    async def run() -> EvalReport:
        try:
            return await evaluate_async(
                bundle,
                questions,
                reader=reader,
                budgets=budgets,
                sample=sample,
                seed=seed,
                limit=limit,
                concurrency=concurrency,
                progress=progress,
                gold_index=gold_index,
                on_walk=on_walk,
                angles=angles,
            )
        finally:
            if reader is not None:
                await aclose(reader)  # what it opened in this event loop, which ends with the call

    return asyncio.run(run())
