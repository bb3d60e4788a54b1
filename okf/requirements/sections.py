"""One section's extraction: the section a concept shows the extractor, and the run that reads it.

Shared by :mod:`okf.requirements.extract` (in this process) and :mod:`okf.requirements.pool` (in workers).
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from typing import Literal

from okf.bundle import Bundle
from okf.bundle.model import Concept
from okf.errors import OKFError
from okf.readers.base import Usage
from okf.readers.extraction import RuleDraft, RuleReader, Section
from okf.readers.replies import prompt
from okf.requirements.adapt import adapt
from okf.requirements.cache import ExtractionCache, cache_key
from okf.requirements.model import Requirement, SectionFailure

Mode = Literal["auto", "single", "dense"]
# A section longer than this many characters is extracted skeleton-then-fill in "auto" mode.
DENSE_CHARS = 4000
# Rules whose fields one fill call asks for.
FILL_BATCH = 4


def section_of(concept: Concept) -> Section:
    """The section the extractor is shown: the concept's body, numbered from its first file line."""
    text = concept.body.rstrip("\n")
    return Section(
        id=concept.id,
        title=concept.title,
        text=text,
        first_line=concept.body_start_line,
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
    )


def extractor_identity(reader: RuleReader) -> str:
    """What an extraction depends on besides the text: the extractor's model and endpoint, or offline."""
    identity = getattr(reader, "role_identity", None)
    return identity("extractor") if callable(identity) else reader.name


@dataclass
class SectionOutcome:
    """One section's result, before the results of all sections are put together in path order."""

    requirements: list[Requirement] = field(default_factory=list)
    failures: list[SectionFailure] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    dense: bool = False


class SectionRun:
    """One extraction over a list of section paths."""

    def __init__(
        self,
        bundle: Bundle,
        reader: RuleReader,
        cache: ExtractionCache | None,
        mode: Mode,
        dense_chars: int,
        fill_batch: int,
    ) -> None:
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

    async def section(self, path: str) -> SectionOutcome:
        try:
            concept = self.bundle.load(path, cache=False)
        except OKFError as exc:
            concept_id = path.removesuffix(".md")
            return SectionOutcome(failures=[SectionFailure(concept_id=concept_id, stage="read", error=str(exc))])
        section = section_of(concept)
        outcome = SectionOutcome(dense=self._dense(section))
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

    async def _single(self, section: Section, outcome: SectionOutcome) -> list[RuleDraft] | None:
        extraction = await self.reader.extract(section)
        outcome.usage += extraction.usage
        if extraction.failed:
            outcome.failures.append(
                SectionFailure(concept_id=section.id, stage="extract", error=extraction.error or "extraction failed")
            )
            return None
        return extraction.rules

    async def _outline_fill(self, section: Section, outcome: SectionOutcome) -> list[RuleDraft] | None:
        outline = await self.reader.outline(section)
        outcome.usage += outline.usage
        if outline.failed:
            outcome.failures.append(
                SectionFailure(concept_id=section.id, stage="outline", error=outline.error or "outline failed")
            )
            return None
        batches = [outline.stubs[i : i + self.fill_batch] for i in range(0, len(outline.stubs), self.fill_batch)]
        filled = await asyncio.gather(*(self.reader.fill(section, batch) for batch in batches))
        drafts: list[RuleDraft] = []
        for batch, extraction in zip(batches, filled):
            outcome.usage += extraction.usage
            if extraction.failed or len(extraction.rules) != len(batch):
                outcome.failures.append(
                    SectionFailure(
                        concept_id=section.id,
                        stage="fill",
                        error=extraction.error or f"{len(extraction.rules)} rules filled for {len(batch)} asked",
                    )
                )
                # The rules are known, their fields are not: kept, with no deontic type (ambiguous).
                drafts += [
                    RuleDraft(requirement_text=s.requirement_text, start_line=s.start_line, end_line=s.end_line)
                    for s in batch
                ]
            else:
                drafts += extraction.rules
        return drafts
