"""``comply``: the requirements that plausibly apply to a subject, each judged against it, with both citations.

The candidates are a requirements list (or file), or a bundle: then the navigator walks it with the question
(each signpost and body decided on its own by the reader) and the shortlisted sections' rules are extracted.
Never a similarity ranking: each candidate's applicability is then decided on its own by the reader's
assessor (in batches), a failed decision counting as "applies" (escalation, never a silent drop), and each
applicable requirement is judged on its own. :mod:`okf.compliance.verdicts` applies the guarantees.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, cast

from okf.bundle import Bundle
from okf.compliance.model import ComplianceResult, Finding
from okf.compliance.subject import checked, load_subject, title_of
from okf.compliance.verdicts import finding, ordered, rollup
from okf.errors import ConfigError, OKFError
from okf.models import Budgets
from okf.navigator import make_budgets, navigate_async
from okf.navigator.trace import Progress
from okf.readers.assessment import (
    ApplicabilityDecision,
    Assessment,
    ComplianceReader,
    RequirementOffer,
    SubjectText,
)
from okf.readers.base import Reader, Usage, closing
from okf.readers.extraction import RuleReader
from okf.requirements.cache import ExtractionCache
from okf.requirements.extract import extract_requirements_async
from okf.requirements.model import Requirement
from okf.requirements.store import load_requirements

# Requirements offered to one applicability call.
APPLIES_BATCH = 10
# Applicable requirements judged at most; the rest are listed as not judged, never dropped silently.
MAX_REQUIREMENTS = 200
# Judgments in flight (the reader's own concurrency bounds the model calls).
JUDGMENTS_IN_FLIGHT = 16
# ``stages(stage, done, total)``: sections read (with a bundle), applicability batches decided, requirements
# judged; the CLI draws them as bars (okf.cli.progress.StageProgress).
Stages = Callable[[str, int, int], None]


def _offer(index: int, requirement: Requirement, clause: str = "") -> RequirementOffer:
    return RequirementOffer(
        index=index,
        id=requirement.requirement_id,
        requirement_text=requirement.requirement_text,
        deontic_type=requirement.deontic_type,
        actor=requirement.actor,
        applicability=requirement.applicability,
        evidence_standard=requirement.evidence_standard,
        clause=clause,
    )


def _clause(bundle: Bundle | None, requirement: Requirement) -> str:
    """The requirement's source lines when its bundle is at hand (shown to a model as the rule's own words)."""
    if bundle is None:
        return ""
    try:
        concept = bundle.concept(requirement.citation.concept_id)
    except OKFError:
        return ""
    lines = concept.body.split("\n")
    first = concept.body_start_line
    return "\n".join(lines[requirement.citation.start_line - first : requirement.citation.end_line - first + 1])


async def _decide(
    reader: ComplianceReader, subject: SubjectText, question: str, offers: list[RequirementOffer]
) -> tuple[list[ApplicabilityDecision], Usage]:
    """One decision per offer; a reply that does not fit the offer counts as failed for all of it."""
    try:
        result = await reader.applies(subject, question, offers)
    except OKFError as exc:
        failed = [ApplicabilityDecision(id=o.id, applies=None, failed=True, error=str(exc)) for o in offers]
        return failed, Usage(calls=1, failures=1)
    decisions = result.decisions
    if [d.id for d in decisions] != [o.id for o in offers]:
        error = f"the reader returned {len(decisions)} decisions for {len(offers)} requirements"
        decisions = [ApplicabilityDecision(id=o.id, applies=None, failed=True, error=error) for o in offers]
    return decisions, result.usage


async def _judge(reader: ComplianceReader, subject: SubjectText, offer: RequirementOffer) -> Assessment:
    try:
        return await reader.assess(subject, offer)
    except OKFError as exc:  # readers report failures in the result; tolerate one that raises anyway
        return Assessment(failed=True, error=f"{type(exc).__name__}: {exc}", usage=Usage(calls=1, failures=1))


async def comply_async(
    subject: SubjectText | str | Path,
    *,
    requirements: Sequence[Requirement] | str | Path | None = None,
    bundle: Bundle | str | Path | None = None,
    question: str | None = None,
    reader: Any = None,
    budgets: Budgets | Mapping[str, Any] | None = None,
    max_requirements: int = MAX_REQUIREMENTS,
    cache: ExtractionCache | None = None,
    progress: Progress | None = None,
    stages: Stages | None = None,
) -> ComplianceResult:
    """Judge ``subject`` (a document path or a :class:`SubjectText`) against ``requirements`` (a list or a
    JSON-lines file) or against the requirements navigation finds in ``bundle`` for ``question``. ``progress``
    sees the navigation's events, ``stages`` the work after it (:data:`Stages`)."""
    if (requirements is None) == (bundle is None):
        raise ConfigError(
            "give either requirements or a bundle to check the subject against",
            fix="pass --requirements FILE.jsonl or --bundle BUNDLE",
        )
    if isinstance(max_requirements, bool) or not isinstance(max_requirements, int) or max_requirements < 1:
        raise ConfigError(
            f"max_requirements must be a positive whole number, got {max_requirements!r}",
            fix=f"e.g. {MAX_REQUIREMENTS}",
        )
    text = checked(subject) if isinstance(subject, SubjectText) else load_subject(subject)
    ask = (question or "").strip() or f"What requirements apply to {title_of(text)}?"
    if reader is None:
        from okf.readers import make_reader  # lazy: a configured model pulls in its client

        own = make_reader()  # made here, so closed here
        return await closing(
            own,
            comply_async(
                text,
                requirements=requirements,
                bundle=bundle,
                question=question,
                reader=own,
                budgets=budgets,
                max_requirements=max_requirements,
                cache=cache,
                progress=progress,
                stages=stages,
            ),
        )
    if not isinstance(reader, ComplianceReader):
        raise ConfigError(
            f"reader {getattr(reader, 'name', reader)!r} cannot judge compliance",
            fix="pass an OfflineReader, an LLMReader or another okf.readers.assessment.ComplianceReader",
        )
    usage: dict[str, Usage] = {}
    base: dict[str, Any] = {"subject": text.name, "question": ask, "reader": reader.name}
    opened: Bundle | None = None
    if bundle is not None:
        if not isinstance(reader, Reader) or not isinstance(reader, RuleReader):
            raise ConfigError(
                f"reader {reader.name!r} cannot navigate a bundle and extract its requirements",
                fix="pass requirements instead of a bundle, or a reader that also navigates",
            )
        opened = bundle if isinstance(bundle, Bundle) else Bundle.open(bundle)
        nav = await navigate_async(
            opened, ask, reader=cast(Reader, reader), budgets=make_budgets(budgets), progress=progress
        )
        usage.update(nav.stats.usage)
        base.update(source="bundle", shortlist=[e.concept_id for e in nav.shortlist], navigation=nav)
        base["warnings"] = [f"navigation: {w}" for w in nav.warnings]
        candidates: list[Requirement] = []
        if nav.shortlist:
            extracted = await extract_requirements_async(
                opened,
                concepts=[e.concept_id for e in nav.shortlist],
                reader=cast(RuleReader, reader),
                cache=cache,
                progress=None if stages is None else partial(stages, "sections"),
            )
            candidates = extracted.requirements
            usage["extractor"] = extracted.stats.usage
            base["extraction_failures"] = extracted.failures
        else:
            base["warnings"].append("navigation found no section for the question, so no requirement was judged")
    else:
        base["source"] = "requirements"
        if isinstance(requirements, (str, Path)):
            candidates = load_requirements(requirements)
        else:  # a list of requirements (not None: exactly one of requirements and bundle is given)
            candidates = list(requirements or [])
    return await _assess_all(
        reader, text, ask if question else "", candidates, opened, max_requirements, usage, base, stages
    )


async def _assess_all(
    reader: ComplianceReader,
    subject: SubjectText,
    question: str,
    candidates: list[Requirement],
    bundle: Bundle | None,
    max_requirements: int,
    usage: dict[str, Usage],
    base: dict[str, Any],
    stages: Stages | None = None,
) -> ComplianceResult:
    offers = [_offer(i, r, _clause(bundle, r)) for i, r in enumerate(candidates)]
    batches = [offers[i : i + APPLIES_BATCH] for i in range(0, len(offers), APPLIES_BATCH)]
    gate = asyncio.Semaphore(JUDGMENTS_IN_FLIGHT)
    done = {"applicability": 0, "judging": 0}

    def tick(stage: str, total: int) -> None:
        done[stage] += 1
        if stages is not None:
            stages(stage, done[stage], total)

    async def decide(batch: list[RequirementOffer]) -> tuple[list[ApplicabilityDecision], Usage]:
        async with gate:
            decided = await _decide(reader, subject, question, batch)
        tick("applicability", len(batches))
        return decided

    decided = await asyncio.gather(*(decide(b) for b in batches))
    assessor = Usage()
    applicable: list[tuple[RequirementOffer, str]] = []
    failures = 0
    for _, spent in decided:
        assessor += spent
    for (decisions, _), batch in zip(decided, batches):
        for offer, decision in zip(batch, decisions):
            if decision.failed or decision.applies is None:
                failures += 1
                applicable.append((offer, f"applicability could not be decided ({decision.error}), so it is judged"))
            elif decision.applies:
                applicable.append((offer, decision.reason))
    judged, left = applicable[:max_requirements], applicable[max_requirements:]

    async def judge(offer: RequirementOffer) -> Assessment:
        async with gate:
            assessment = await _judge(reader, subject, offer)
        tick("judging", len(judged))
        return assessment

    assessments = await asyncio.gather(*(judge(o) for o, _ in judged))
    findings: list[Finding] = []
    for (offer, because), assessment in zip(judged, assessments):
        assessor += assessment.usage
        failures += assessment.failed
        findings.append(finding(subject, candidates[offer.index], assessment, because))
    usage["assessor"] = usage.get("assessor", Usage()) + assessor
    warnings = list(base.pop("warnings", []))
    if left:
        warnings.append(f"{len(left)} applicable requirements were not judged (max_requirements={max_requirements})")
    if failures:
        warnings.append(f"{failures} applicability decisions or judgments failed; their requirements are needs_review")
    return ComplianceResult(
        findings=ordered(findings),
        rollup=rollup(findings),
        considered=len(offers),
        not_applicable=len(offers) - len(applicable),
        not_judged=[o.id for o, _ in left],
        failures=failures,
        warnings=warnings,
        usage=usage,
        **base,
    )


def comply(subject: SubjectText | str | Path, **options: Any) -> ComplianceResult:
    """Synchronous :func:`comply_async` (same keyword options)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(closing(options.get("reader"), comply_async(subject, **options)))
    raise ConfigError("comply() was called inside a running event loop", fix="use `await okf.comply_async(...)` there")


__all__ = ["comply", "comply_async"]
