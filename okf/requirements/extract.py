"""``extract_requirements``: the operative rules of every section concept of a bundle (or of one directory).

Each section is read on its own, sections in parallel (model calls bounded by the reader's concurrency; the
offline reader's work spread over processes for big bundles). A short section is one ``extract`` call. A long
one (over ``dense_chars`` characters) goes skeleton-then-fill: one ``outline`` call lists every rule, then
``fill`` calls (``fill_batch`` rules each, in parallel) give their fields, so a long section's rules are not
rationed to what fits one reply. A failed call is a :class:`SectionFailure`, never "no rules"; rules whose
fields could not be filled are kept as ``ambiguous``. With a cache, a section whose text is unchanged is not
read again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from okf.bundle import Bundle
from okf.errors import BundleError, ConfigError
from okf.readers.base import Usage, closing
from okf.readers.extraction import RuleReader
from okf.requirements.cache import ExtractionCache
from okf.requirements.model import ExtractionStats, RequirementsResult
from okf.requirements.sections import (
    DENSE_CHARS,
    FILL_BATCH,
    Mode,
    SectionOutcome,
    SectionRun,
)

# Sections read at once; the reader's own concurrency bounds the model calls in flight.
SECTIONS_IN_FLIGHT = 16
Progress = Callable[[int, int], None]


def section_paths(bundle: Bundle, under: str | None = None) -> list[str]:
    """The concept paths under directory ``under`` (the whole bundle when empty), sorted; a concept path is
    itself. ConfigError when ``under`` names nothing in the bundle, BundleError when it holds no concept."""
    if not under or not under.strip("/ "):
        paths = list(bundle.iter_concepts())
    else:
        rel = bundle.resolve(under.strip()).strip("/")
        if bundle.is_concept_path(rel) or bundle.is_concept_path(rel + ".md"):
            paths = [rel if rel.endswith(".md") else rel + ".md"]
        elif bundle.is_dir(rel):
            prefix = rel + "/"
            paths = [p for p in bundle.iter_concepts() if p.startswith(prefix)]
        else:
            raise ConfigError(
                f"--under {under!r} names no directory or concept of {bundle.root}",
                fix="pass a directory from the bundle's listings, e.g. 'policies/'",
            )
    if not paths:
        raise BundleError(
            "no concept to extract requirements from",
            path=str(bundle.root / (under or "")),
            fix="pass a bundle (or --under directory) that holds concept files",
        )
    return paths


def _result(
    bundle: Bundle, under: str | None, reader: RuleReader, outcomes: list[SectionOutcome], seconds: float
) -> RequirementsResult:
    requirements = [r for o in outcomes for r in o.requirements]
    failures = [f for o in outcomes for f in o.failures]
    by_type: dict[str, int] = {}
    for requirement in requirements:
        by_type[requirement.deontic_type] = by_type.get(requirement.deontic_type, 0) + 1
    usage = Usage()
    for outcome in outcomes:
        usage += outcome.usage
    stats = ExtractionStats(
        sections=len(outcomes),
        sections_with_rules=sum(1 for o in outcomes if o.requirements),
        rules=len(requirements),
        by_type=by_type,
        cached=sum(o.cached for o in outcomes),
        dense=sum(o.dense for o in outcomes),
        failed=len({f.concept_id for f in failures}),
        usage=usage,
        seconds=round(seconds, 3),
    )
    return RequirementsResult(
        bundle=str(bundle.root),
        under=under or "",
        reader=reader.name,
        requirements=requirements,
        failures=failures,
        stats=stats,
    )


async def extract_requirements_async(
    bundle: Bundle | str | Path,
    *,
    under: str | None = None,
    concepts: Sequence[str] | None = None,
    reader: RuleReader | None = None,
    cache: ExtractionCache | None = None,
    mode: Mode = "auto",
    dense_chars: int = DENSE_CHARS,
    fill_batch: int = FILL_BATCH,
    progress: Progress | None = None,
) -> RequirementsResult:
    """The operative rules of every section of ``bundle`` (or of directory ``under``, or of the ``concepts``
    given by id or path), in reading order."""
    opened = bundle if isinstance(bundle, Bundle) else Bundle.open(bundle)
    _check(mode, dense_chars, fill_batch)
    if reader is None:
        from okf.readers import make_reader  # lazy: a configured model pulls in its client

        own: Any = make_reader()  # made here, so closed here; checked as a RuleReader by the call below
        return await closing(
            own,
            extract_requirements_async(
                opened,
                under=under,
                concepts=concepts,
                reader=own,
                cache=cache,
                mode=mode,
                dense_chars=dense_chars,
                fill_batch=fill_batch,
                progress=progress,
            ),
        )
    if not isinstance(reader, RuleReader):
        raise ConfigError(
            f"reader {getattr(reader, 'name', reader)!r} cannot extract requirements",
            fix="pass an OfflineReader, an LLMReader or another okf.readers.extraction.RuleReader",
        )
    paths = section_paths(opened, under) if concepts is None else [opened.concept(c).path for c in concepts]
    start = time.perf_counter()
    from okf.requirements import pool  # the process pool: only for the offline reader on big bundles

    if cache is None and pool.applies(reader, len(paths)):
        # Blocking on purpose: forking is only safe from a single-threaded process (a thread would force spawn).
        outcomes = pool.extract_offline(opened, paths, mode, dense_chars, progress)
        return _result(opened, under, reader, outcomes, time.perf_counter() - start)
    run = SectionRun(opened, reader, cache, mode, dense_chars, fill_batch)
    gate = asyncio.Semaphore(SECTIONS_IN_FLIGHT)
    done = 0

    async def one(path: str) -> SectionOutcome:
        nonlocal done
        async with gate:
            outcome = await run.section(path)
        done += 1
        if progress is not None:
            progress(done, len(paths))
        return outcome

    outcomes = list(await asyncio.gather(*(one(p) for p in paths)))
    return _result(opened, under, reader, outcomes, time.perf_counter() - start)


def _check(mode: str, dense_chars: int, fill_batch: int) -> None:
    if mode not in ("auto", "single", "dense"):
        raise ConfigError(f"unknown extraction mode {mode!r}", fix="use auto, single or dense")
    if dense_chars < 1 or fill_batch < 1:
        raise ConfigError("dense_chars and fill_batch must be positive", fix="e.g. dense_chars=4000, fill_batch=4")


def extract_requirements(bundle: Bundle | str | Path, **options: Any) -> RequirementsResult:
    """Synchronous :func:`extract_requirements_async` (same keyword options)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(closing(options.get("reader"), extract_requirements_async(bundle, **options)))
    raise ConfigError(
        "extract_requirements() was called inside a running event loop",
        fix="use `await okf.extract_requirements_async(...)` there",
    )


__all__ = ["extract_requirements", "extract_requirements_async"]
