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
import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from okf.bundle import Bundle
from okf.bundle.model import Concept
from okf.errors import BundleError, ConfigError, OKFError
from okf.readers.base import Usage
from okf.readers.extraction import RuleDraft, RuleReader, Section
from okf.readers.replies import prompt
from okf.requirements.adapt import adapt
from okf.requirements.cache import ExtractionCache, cache_key
from okf.requirements.model import ExtractionStats, Requirement, RequirementsResult, SectionFailure

Mode = Literal["auto", "single", "dense"]
# A section longer than this many characters is extracted skeleton-then-fill in "auto" mode.
DENSE_CHARS = 4000
# Rules whose fields one fill call asks for.
FILL_BATCH = 4
# Sections read at once; the reader's own concurrency bounds the model calls in flight.
SECTIONS_IN_FLIGHT = 16
Progress = Callable[[int, int], None]


def section_of(concept: Concept) -> Section:
    """The section the extractor is shown: the concept's body, numbered from its first file line."""
    text = concept.body.rstrip("\n")
    return Section(id=concept.id, title=concept.title, text=text, first_line=concept.body_start_line,
                   sha256=hashlib.sha256(text.encode("utf-8")).hexdigest())


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
            raise ConfigError(f"--under {under!r} names no directory or concept of {bundle.root}",
                              fix="pass a directory from the bundle's listings, e.g. 'policies/'")
    if not paths:
        raise BundleError("no concept to extract requirements from", path=str(bundle.root / (under or "")),
                          fix="pass a bundle (or --under directory) that holds concept files")
    return paths


def extractor_identity(reader: RuleReader) -> str:
    """What an extraction depends on besides the text: the extractor's model and endpoint, or offline."""
    identity = getattr(reader, "role_identity", None)
    return identity("extractor") if callable(identity) else reader.name


@dataclass
class _Outcome:
    """One section's result, before the results of all sections are put together in path order."""

    requirements: list[Requirement] = field(default_factory=list)
    failures: list[SectionFailure] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    dense: bool = False


class _Run:
    """One extraction over a list of section paths."""

    def __init__(self, bundle: Bundle, reader: RuleReader, cache: ExtractionCache | None, mode: Mode,
                 dense_chars: int, fill_batch: int) -> None:
        self.bundle = bundle
        self.reader = reader
        self.cache = cache
        self.mode = mode
        self.dense_chars = dense_chars
        self.fill_batch = fill_batch
        self.identity = extractor_identity(reader)
        self.version = prompt("extractor").version

    def _dense(self, section: Section) -> bool:
        return self.mode == "dense" or (self.mode == "auto" and len(section.text) > self.dense_chars)

    async def section(self, path: str) -> _Outcome:
        try:
            concept = self.bundle.load(path, cache=False)
        except OKFError as exc:
            concept_id = path.removesuffix(".md")
            return _Outcome(failures=[SectionFailure(concept_id=concept_id, stage="read", error=str(exc))])
        section = section_of(concept)
        outcome = _Outcome(dense=self._dense(section))
        if not section.text.strip():
            return outcome
        key = cache_key(self.identity, self.version, "dense" if outcome.dense else "single", section.sha256)
        drafts = self.cache.get(key, section.first_line) if self.cache else None
        outcome.cached = drafts is not None
        if drafts is None:
            drafts = await (self._outline_fill(section, outcome) if outcome.dense else self._single(section, outcome))
            if drafts is not None and self.cache and not outcome.failures:
                self.cache.put(key, drafts, section.first_line)
        seen: set[str] = set()
        for draft in drafts or []:
            requirement = adapt(draft, section, concept.path, self.reader.name)
            if requirement is not None and requirement.requirement_id not in seen:
                seen.add(requirement.requirement_id)
                outcome.requirements.append(requirement)
        return outcome

    async def _single(self, section: Section, outcome: _Outcome) -> list[RuleDraft] | None:
        extraction = await self.reader.extract(section)
        outcome.usage += extraction.usage
        if extraction.failed:
            outcome.failures.append(SectionFailure(concept_id=section.id, stage="extract",
                                                   error=extraction.error or "extraction failed"))
            return None
        return extraction.rules

    async def _outline_fill(self, section: Section, outcome: _Outcome) -> list[RuleDraft] | None:
        outline = await self.reader.outline(section)
        outcome.usage += outline.usage
        if outline.failed:
            outcome.failures.append(SectionFailure(concept_id=section.id, stage="outline",
                                                   error=outline.error or "outline failed"))
            return None
        batches = [outline.stubs[i:i + self.fill_batch] for i in range(0, len(outline.stubs), self.fill_batch)]
        filled = await asyncio.gather(*(self.reader.fill(section, batch) for batch in batches))
        drafts: list[RuleDraft] = []
        for batch, extraction in zip(batches, filled):
            outcome.usage += extraction.usage
            if extraction.failed or len(extraction.rules) != len(batch):
                outcome.failures.append(SectionFailure(
                    concept_id=section.id, stage="fill",
                    error=extraction.error or f"{len(extraction.rules)} rules filled for {len(batch)} asked"))
                # The rules are known, their fields are not: kept, with no deontic type (ambiguous).
                drafts += [RuleDraft(requirement_text=s.requirement_text, start_line=s.start_line,
                                     end_line=s.end_line) for s in batch]
            else:
                drafts += extraction.rules
        return drafts


def _result(bundle: Bundle, under: str | None, reader: RuleReader, outcomes: list[_Outcome],
            seconds: float) -> RequirementsResult:
    requirements = [r for o in outcomes for r in o.requirements]
    failures = [f for o in outcomes for f in o.failures]
    by_type: dict[str, int] = {}
    for requirement in requirements:
        by_type[requirement.deontic_type] = by_type.get(requirement.deontic_type, 0) + 1
    usage = Usage()
    for outcome in outcomes:
        usage += outcome.usage
    stats = ExtractionStats(
        sections=len(outcomes), sections_with_rules=sum(1 for o in outcomes if o.requirements),
        rules=len(requirements), by_type=by_type, cached=sum(o.cached for o in outcomes),
        dense=sum(o.dense for o in outcomes), failed=len({f.concept_id for f in failures}), usage=usage,
        seconds=round(seconds, 3))
    return RequirementsResult(bundle=str(bundle.root), under=under or "", reader=reader.name,
                              requirements=requirements, failures=failures, stats=stats)


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

        reader = make_reader()  # type: ignore[assignment]
    if not isinstance(reader, RuleReader):
        raise ConfigError(f"reader {getattr(reader, 'name', reader)!r} cannot extract requirements",
                          fix="pass an OfflineReader, an LLMReader or another okf.readers.extraction.RuleReader")
    paths = section_paths(opened, under) if concepts is None else [opened.concept(c).path for c in concepts]
    start = time.perf_counter()
    from okf.requirements import pool  # the process pool: only for the offline reader on big bundles

    if cache is None and pool.applies(reader, len(paths)):
        # Blocking on purpose: forking is only safe from a single-threaded process (a thread would force spawn).
        outcomes = pool.extract_offline(opened, paths, mode, dense_chars, progress)
        return _result(opened, under, reader, outcomes, time.perf_counter() - start)
    run = _Run(opened, reader, cache, mode, dense_chars, fill_batch)
    gate = asyncio.Semaphore(SECTIONS_IN_FLIGHT)
    done = 0

    async def one(path: str) -> _Outcome:
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
        return asyncio.run(extract_requirements_async(bundle, **options))
    raise ConfigError("extract_requirements() was called inside a running event loop",
                      fix="use `await okf.extract_requirements_async(...)` there")


__all__ = ["extract_requirements", "extract_requirements_async"]
