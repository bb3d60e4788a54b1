"""``ask``: navigate, gather the shortlisted bodies as evidence, ask the reader's answerer, validate in code.

Evidence larger than one prompt is read by recursive synthesis (:mod:`okf.answer.synthesis`) when ``synthesis``
is ``auto`` (the default) or ``recursive``; ``single`` keeps one prompt, cutting what does not fit.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, get_args

from okf.answer.evidence import (
    BundleSet,
    EvidenceItem,
    GatheredEvidence,
    estimate_tokens,
    gather_evidence,
    load_evidence,
)
from okf.answer.facts import contract_fields, fact_items, preflight, preflight_failure
from okf.answer.ledger import ledger_line, synthesis_caveats
from okf.answer.synthesis import synthesize
from okf.answer.validate import Validated, validate
from okf.bundle import Bundle
from okf.contract.load import ContractInput
from okf.errors import ConfigError, OKFError
from okf.models import (
    DEFAULT_ANGLES,
    AnswerResult,
    Budgets,
    Citation,
    NavigationResult,
    Supporting,
    SynthesisReport,
    TraceEvent,
)
from okf.navigator import make_budgets, navigate_async
from okf.navigator.api import open_bundles
from okf.navigator.trace import Progress, failure_reasons, nothing_found_reason
from okf.readers.base import DraftAnswer, Reader, Usage, aclose
from okf.readers.synthesis import Synthesizer
from okf.text.words import clip

DEFAULT_EVIDENCE_TOKENS = 12_000
Synthesis = Literal["auto", "single", "recursive"]
SYNTHESIS_MODES: tuple[str, ...] = get_args(Synthesis)
DEFAULT_SYNTHESIS: Synthesis = "auto"


def _check(question: str, evidence_tokens: int, synthesis: str = DEFAULT_SYNTHESIS) -> str:
    if not isinstance(question, str) or not question.strip():
        raise ConfigError("the question is empty", fix='ask a question in words, e.g. "How are refunds handled?"')
    if isinstance(evidence_tokens, bool) or not isinstance(evidence_tokens, int) or evidence_tokens <= 0:
        raise ConfigError(
            f"evidence_tokens must be a positive whole number, got {evidence_tokens!r}",
            fix=f"use e.g. {DEFAULT_EVIDENCE_TOKENS}",
        )
    if synthesis not in SYNTHESIS_MODES:
        raise ConfigError(
            f"synthesis must be one of {', '.join(SYNTHESIS_MODES)}, got {synthesis!r}",
            fix="use auto (recursive only when the evidence exceeds the budget), single or recursive",
        )
    return question.strip()


def choose_mode(requested: str, whole_tokens: int, budget: int, reader: Reader) -> tuple[str, str]:
    """``single`` or ``recursive`` for the requested mode, and why, in words."""
    size = (
        f"the evidence ({whole_tokens} tokens) {'exceeds' if whole_tokens > budget else 'fits'} the "
        f"{budget}-token budget"
    )
    if requested == "single":
        return "single", f"single was asked for; {size}"
    if not isinstance(reader, Synthesizer):
        if requested == "recursive":
            raise ConfigError(
                f"the reader {reader.name} has no decomposer and leaf roles for recursive synthesis",
                fix="use the offline reader or LLMReader, or --synthesis single",
            )
        if whole_tokens > budget:
            return "single", f"{size}, but the reader {reader.name} cannot synthesize recursively"
        return "single", size
    if requested == "recursive":
        return "recursive", f"recursive was asked for; {size}"
    return ("recursive", size) if whole_tokens > budget else ("single", size)


async def ask_async(
    bundle: Bundle | str | Path | Sequence[Bundle | str | Path],
    question: str,
    *,
    reader: Reader | None = None,
    budgets: Budgets | Mapping[str, Any] | None = None,
    evidence_tokens: int = DEFAULT_EVIDENCE_TOKENS,
    progress: Progress | None = None,
    contract: ContractInput | None = None,
    synthesis: str = DEFAULT_SYNTHESIS,
    angles: str | int | None = DEFAULT_ANGLES,
) -> AnswerResult:
    """A grounded, cited answer to ``question`` from ``bundle`` (or several bundles), or an abstention that
    says why.

    Evidence larger than ``evidence_tokens`` is read by recursive synthesis unless ``synthesis`` is
    ``single`` (docs/ask.md). ``angles`` is navigate's (``auto``, N, ``off``; docs/navigate.md).

    With ``contract`` (a path, mapping or Contract) its facts are checked first, in code: when an error fact
    fails, the answer stops there with the failures and no model is called; otherwise the grounded facts are
    given to the answerer as evidence and reported in ``facts`` (docs/contracts.md).
    """
    from okf.orchestrate import parse_angles

    text = _check(question, evidence_tokens, synthesis)
    parse_angles(angles)
    checked = make_budgets(budgets)
    bundles = open_bundles(bundle)
    if contract is not None and len(bundles) > 1:
        raise ConfigError(
            "a contract belongs to one bundle, and several were given",
            fix="ask one bundle with --contract, or leave the contract out",
        )
    if reader is not None:
        return await _ask(bundles, text, reader, checked, evidence_tokens, progress, contract, synthesis, angles)
    from okf.readers import make_reader  # lazy: a configured reader may import a model client

    own = make_reader()
    try:
        return await _ask(bundles, text, own, checked, evidence_tokens, progress, contract, synthesis, angles)
    finally:
        await aclose(own)  # made here, so closed here


async def _ask(
    bundles: list[Bundle],
    text: str,
    reader: Reader,
    checked: Budgets,
    evidence_tokens: int,
    progress: Progress | None,
    contract: ContractInput | None,
    synthesis: str,
    angles: str | int | None,
) -> AnswerResult:
    opened: Any = bundles[0] if len(bundles) == 1 else BundleSet(bundles)
    first = bundles[0]
    report = preflight(first, contract) if contract is not None else None
    if report is not None and not report.ok:
        return preflight_failure(
            text, report, reader=reader.name, corpus_id=report.corpus_id or first.known_corpus_id()
        )
    nav = await navigate_async(bundles, text, reader=reader, budgets=checked, progress=progress, angles=angles)
    usage = dict(nav.stats.usage)
    base: dict[str, Any] = {
        "question": text,
        "shortlist": nav.shortlist,
        "reader": nav.reader,
        "corpus_id": nav.corpus_id,
        "navigation": nav,
        **contract_fields(report),
    }
    nav_caveats = navigation_caveats(nav)
    facts = fact_items(first, report) if report is not None else []
    if not nav.shortlist and not facts:
        # The empty-evidence short-circuit: no answerer call at all.
        if nav.stats.failures:
            # Nothing found while model calls failed: a model failure, never an honest "not in the bundle".
            return AnswerResult(
                status="abstained",
                answer="",
                usage=usage,
                caveats=nav_caveats,
                failed=True,
                reason=nothing_found_reason(nav),
                **base,
            )
        return AnswerResult(
            status="abstained",
            answer="",
            usage=usage,
            caveats=nav_caveats,
            reason="No concept in the bundle was judged relevant to the question.",
            **base,
        )
    whole = load_evidence(opened, nav.shortlist, item_tokens=evidence_tokens)
    whole_tokens = sum(estimate_tokens(item.evidence.text) for item in whole.items)
    mode, why = choose_mode(synthesis, whole_tokens, evidence_tokens, reader)
    if mode == "recursive" and whole.items:
        return await _recursive(
            text,
            whole,
            reader,
            evidence_tokens,
            facts,
            usage=usage,
            caveats=nav_caveats,
            base=base,
            progress=progress,
            clock=nav.stats.seconds,
            report={"requested": synthesis, "why": why},
            bundle=opened,
        )
    gathered = gather_evidence(opened, nav.shortlist, evidence_tokens=evidence_tokens)
    base["synthesis"] = single_report(gathered, synthesis, why, whole_tokens, whole)
    gathered.items[:0] = facts  # contract facts first, outside the budget: a few lines each
    evidence_caveats = gathering_caveats(gathered)
    if not gathered.items:
        return AnswerResult(
            status="abstained",
            answer="",
            usage=usage,
            caveats=nav_caveats + evidence_caveats,
            reason="None of the shortlisted concepts could be given as evidence.",
            **base,
        )
    base["synthesis"].calls = {"answerer": 1}
    started = time.monotonic()
    try:
        draft = await reader.answer(text, [item.evidence for item in gathered.items])
    except OKFError as exc:  # readers should report failures in the draft; tolerate one that raises anyway
        draft = DraftAnswer(
            failed=True,
            error=f"{type(exc).__name__}: {exc}",
            usage=Usage(calls=1, failures=1, seconds=time.monotonic() - started),
        )
    usage["answerer"] = usage.get("answerer", Usage()) + draft.usage
    checked_answer = validate(text, draft, gathered)
    if progress is not None:
        progress(
            TraceEvent(
                seq=len(nav.trace),
                t=round(nav.stats.seconds + time.monotonic() - started, 6),
                kind="answer",
                data={"status": checked_answer.status, "cited": checked_answer.cited, "failed": checked_answer.failed},
            )
        )
    return assemble(
        checked_answer, gathered, usage=usage, caveats=nav_caveats + evidence_caveats, base=base, bundle=opened
    )


async def _recursive(
    question: str,
    whole: GatheredEvidence,
    reader: Reader,
    budget: int,
    pinned: list[EvidenceItem],
    *,
    usage: dict[str, Usage],
    caveats: list[str],
    base: dict[str, Any],
    progress: Progress | None,
    clock: float,
    report: dict[str, Any],
    bundle: Bundle,
) -> AnswerResult:
    """Recursive synthesis over the whole evidence (contract facts ``pinned`` beside the reduced facts), then
    the same assembly as a single answer."""
    nav = base["navigation"]
    outcome = await synthesize(
        question, whole, reader, budget, pinned=pinned, progress=progress, seq=len(nav.trace), clock=clock
    )
    for role, spent in outcome.usage.items():
        usage[role] = usage.get(role, Usage()) + spent
    base["synthesis"] = outcome.report.model_copy(update=report)
    unreadable = gathering_caveats(GatheredEvidence(unreadable=whole.unreadable))
    if progress is not None:
        checked = outcome.checked
        progress(
            TraceEvent(
                seq=len(nav.trace) + len(outcome.report.trace),
                t=round(clock + outcome.report.seconds, 6),
                kind="answer",
                data={"status": checked.status, "cited": checked.cited, "failed": checked.failed},
            )
        )
    return assemble(
        outcome.checked,
        outcome.ledger,
        usage=usage,
        caveats=caveats + unreadable + outcome.caveats,
        base=base,
        bundle=bundle,
    )


def single_report(
    gathered: GatheredEvidence, requested: str, why: str, whole_tokens: int, whole: GatheredEvidence
) -> SynthesisReport:
    """The synthesis block of a one-prompt answer: what the answerer was given whole or cut, and what not."""
    given = [item.evidence.id for item in gathered.items]
    ids = {item.entry.path: item.evidence.id for item in whole.items}
    left = [ids.get(entry.path, entry.path) for entry in gathered.dropped] + [e.path for e, _ in gathered.unreadable]
    # requested is a string _check accepted; the model validates it against its literal values again.
    return SynthesisReport.model_validate(
        {
            "requested": requested,
            "mode": "single",
            "why": why,
            "budget_tokens": gathered.evidence_tokens,
            "evidence_tokens": whole_tokens,
            "items_total": len(given) + len(left),
            "items_covered": len(given),
            "not_covered": left,
        }
    )


def ask(
    bundle: Bundle | str | Path | Sequence[Bundle | str | Path],
    question: str,
    *,
    reader: Reader | None = None,
    budgets: Budgets | Mapping[str, Any] | None = None,
    evidence_tokens: int = DEFAULT_EVIDENCE_TOKENS,
    progress: Progress | None = None,
    contract: ContractInput | None = None,
    synthesis: str = DEFAULT_SYNTHESIS,
    angles: str | int | None = DEFAULT_ANGLES,
) -> AnswerResult:
    """Synchronous :func:`ask_async`; call that one instead from inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(
            _closing(
                reader,
                ask_async(
                    bundle,
                    question,
                    reader=reader,
                    budgets=budgets,
                    evidence_tokens=evidence_tokens,
                    progress=progress,
                    contract=contract,
                    synthesis=synthesis,
                    angles=angles,
                ),
            )
        )
    raise ConfigError("ask() was called inside a running event loop", fix="use `await okf.ask_async(...)` there")


async def _closing(reader: Reader | None, work: Coroutine[Any, Any, AnswerResult]) -> AnswerResult:
    """Run ``work``, then close what ``reader`` opened in this event loop (which ends with the call)."""
    try:
        return await work
    finally:
        if reader is not None:
            await aclose(reader)


def navigation_caveats(nav: NavigationResult) -> list[str]:
    """What navigation leaves uncertain: failed model calls, a budget that stopped the walk, dropped finds."""
    out: list[str] = []
    failed: dict[str, int] = {}
    for event in nav.trace:
        if event.kind == "failure":
            role = str(event.data.get("role", "model"))
            failed[role] = failed.get(role, 0) + 1
    if failed:
        counts = ", ".join(f"{n} {role} call(s)" for role, n in sorted(failed.items()))
        first = failure_reasons(nav.trace)[0]
        out.append(
            f"Navigation had failures ({counts}; first: {clip(first, 200)}); relevant concepts may be "
            "missing from the evidence."
        )
    if nav.stopped_by is not None:
        out.append(
            f"Navigation stopped at its {nav.stopped_by} budget before reading everything it could; "
            "more relevant concepts may exist."
        )
    out.extend(w[0].upper() + w[1:] for w in nav.warnings if "max_shortlist" in w)
    orchestration = nav.orchestration
    if orchestration is not None and orchestration.stop == "suspicious":
        # Doubts about the evidence itself (deprecated, superseded, disagreeing, one source): caveats of the
        # answer. What was not found is the answer's status to say.
        out.extend(
            f"The evidence is suspicious after {orchestration.walks} walk(s): {u}." for u in orchestration.uncertain[:3]
        )
    return out


def gathering_caveats(gathered: GatheredEvidence) -> list[str]:
    """What the answerer did not see: cut items, items left out by the budget, unreadable items."""
    out: list[str] = []
    for item in gathered.truncated:
        r = item.receipt
        out.append(
            f'"{item.evidence.title}" was cut to lines {r.start_line}-{r.end_line} of {r.path} to fit the '
            f"evidence budget ({gathered.evidence_tokens} tokens); the answer does not reflect the rest."
        )
    if gathered.dropped:
        names = ", ".join(e.concept_id for e in gathered.dropped[:5])
        more = f" and {len(gathered.dropped) - 5} more" if len(gathered.dropped) > 5 else ""
        out.append(
            f"{len(gathered.dropped)} shortlisted concept(s) did not fit the evidence budget "
            f"({gathered.evidence_tokens} tokens) and were not given to the answerer: {names}{more}."
        )
    for entry, error in gathered.unreadable:
        out.append(f"{entry.path} could not be read for the answer: {clip(error, 200)}")
    return out


def assemble(
    checked: Validated,
    gathered: GatheredEvidence,
    *,
    usage: dict[str, Usage],
    caveats: list[str],
    base: dict[str, Any],
    bundle: Bundle | BundleSet | None = None,
) -> AnswerResult:
    """The AnswerResult: citations, supporting concepts and the Sources ledger in citation order (a cited
    synthesis traced through to the raw sources of the concepts it cites, with ``bundle``)."""
    by_id = gathered.by_id
    citations: list[Citation] = []
    supporting: list[Supporting] = []
    sources = []
    trust: list[str] = []
    for number, ident in enumerate(checked.cited, start=1):
        item = by_id[ident]
        concept, entry = item.concept, item.entry
        citations.append(Citation(concept_id=concept.id, receipt=item.receipt))
        supporting.append(
            Supporting(
                concept_id=concept.id,
                title=concept.title,
                why=clip(entry.reason, 200) if entry.reason else "Cited by the answer.",
            )
        )
        home = bundle.bundle_of(entry) if isinstance(bundle, BundleSet) else bundle
        sources.append(ledger_line(home, number, concept))
        trust.extend(synthesis_caveats(home, number, concept))
        if entry.status == "deprecated":
            trust.append(f'[{number}] "{concept.title}" is deprecated; do not rely on it as current.')
        elif entry.status == "draft":
            trust.append(f'[{number}] "{concept.title}" is a draft.')
        if entry.stale:
            trust.append(
                f'[{number}] "{concept.title}" is past its stale_after date; check it against a current source.'
            )
    return AnswerResult(
        status=checked.status,
        answer=checked.answer,
        reason=checked.reason,
        failed=checked.failed,
        citations=citations,
        supporting=supporting,
        caveats=checked.caveats + trust + caveats,
        sources=sources,
        usage=usage,
        **base,
    )


__all__ = ["DEFAULT_EVIDENCE_TOKENS", "ask", "ask_async"]
