"""``ask``: navigate, gather the shortlisted bodies as evidence, ask the reader's answerer, validate in code."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from okf.ask.evidence import GatheredEvidence, gather_evidence
from okf.ask.facts import contract_fields, fact_items, preflight, preflight_failure
from okf.ask.validate import Validated, validate
from okf.bundle import Bundle
from okf.contract.load import ContractInput
from okf.errors import ConfigError, OKFError
from okf.models import AnswerResult, Budgets, Citation, NavigationResult, SourceLine, Supporting, TraceEvent
from okf.navigate import make_budgets, navigate_async
from okf.navigate.trace import Progress
from okf.readers.base import DraftAnswer, Reader, Usage
from okf.readers.text import clip

DEFAULT_EVIDENCE_TOKENS = 12_000


def _check(question: str, evidence_tokens: int) -> str:
    if not isinstance(question, str) or not question.strip():
        raise ConfigError("the question is empty", fix='ask a question in words, e.g. "How are refunds handled?"')
    if isinstance(evidence_tokens, bool) or not isinstance(evidence_tokens, int) or evidence_tokens <= 0:
        raise ConfigError(f"evidence_tokens must be a positive whole number, got {evidence_tokens!r}",
                          fix=f"use e.g. {DEFAULT_EVIDENCE_TOKENS}")
    return question.strip()


async def ask_async(bundle: Bundle | str | Path, question: str, *, reader: Reader | None = None,
                    budgets: Budgets | Mapping[str, Any] | None = None,
                    evidence_tokens: int = DEFAULT_EVIDENCE_TOKENS,
                    progress: Progress | None = None, contract: ContractInput | None = None) -> AnswerResult:
    """A grounded, cited answer to ``question`` from ``bundle``, or an abstention that says why.

    With ``contract`` (a path, mapping or Contract) its facts are checked first, in code: when an error fact
    fails, the answer stops there with the failures and no model is called; otherwise the grounded facts are
    given to the answerer as evidence and reported in ``facts`` (docs/contracts.md).
    """
    text = _check(question, evidence_tokens)
    checked = make_budgets(budgets)
    opened = bundle if isinstance(bundle, Bundle) else Bundle.open(bundle)
    if reader is None:
        from okf.readers import make_reader  # lazy: a configured reader may import a model client

        reader = make_reader()
    report = preflight(opened, contract) if contract is not None else None
    if report is not None and not report.ok:
        return preflight_failure(text, report, reader=reader.name, corpus_id=report.corpus_id or opened.corpus_id())
    nav = await navigate_async(opened, text, reader=reader, budgets=checked, progress=progress)
    usage = dict(nav.stats.usage)
    base: dict[str, Any] = {"question": text, "shortlist": nav.shortlist, "reader": nav.reader,
                            "corpus_id": nav.corpus_id, "navigation": nav, **contract_fields(report)}
    nav_caveats = navigation_caveats(nav)
    facts = fact_items(opened, report) if report is not None else []
    if not nav.shortlist and not facts:
        # The empty-evidence short-circuit: no answerer call at all.
        if nav.stats.failures and not any(e.kind == "verdict" and not e.data.get("failed") for e in nav.trace):
            # Nothing was judged because every model call failed: a model failure, not an honest abstention.
            return AnswerResult(status="abstained", answer="", usage=usage, caveats=nav_caveats, failed=True,
                                reason="Nothing could be judged: every model call during navigation failed.",
                                **base)
        return AnswerResult(status="abstained", answer="", usage=usage, caveats=nav_caveats,
                            reason="No concept in the bundle was judged relevant to the question.", **base)
    gathered = gather_evidence(opened, nav.shortlist, evidence_tokens=evidence_tokens)
    gathered.items[:0] = facts  # contract facts first, outside the budget: a few lines each
    evidence_caveats = gathering_caveats(gathered)
    if not gathered.items:
        return AnswerResult(status="abstained", answer="", usage=usage, caveats=nav_caveats + evidence_caveats,
                            reason="None of the shortlisted concepts could be given as evidence.", **base)
    started = time.monotonic()
    try:
        draft = await reader.answer(text, [item.evidence for item in gathered.items])
    except OKFError as exc:  # readers should report failures in the draft; tolerate one that raises anyway
        draft = DraftAnswer(failed=True, error=f"{type(exc).__name__}: {exc}",
                            usage=Usage(calls=1, failures=1, seconds=time.monotonic() - started))
    usage["answerer"] = usage.get("answerer", Usage()) + draft.usage
    checked_answer = validate(text, draft, gathered)
    if progress is not None:
        progress(TraceEvent(seq=len(nav.trace), t=round(nav.stats.seconds + time.monotonic() - started, 6),
                            kind="answer", data={"status": checked_answer.status, "cited": checked_answer.cited,
                                                 "failed": checked_answer.failed}))
    return assemble(checked_answer, gathered, usage=usage,
                    caveats=nav_caveats + evidence_caveats, base=base)


def ask(bundle: Bundle | str | Path, question: str, *, reader: Reader | None = None,
        budgets: Budgets | Mapping[str, Any] | None = None, evidence_tokens: int = DEFAULT_EVIDENCE_TOKENS,
        progress: Progress | None = None, contract: ContractInput | None = None) -> AnswerResult:
    """Synchronous :func:`ask_async`; call that one instead from inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(ask_async(bundle, question, reader=reader, budgets=budgets,
                                     evidence_tokens=evidence_tokens, progress=progress, contract=contract))
    raise ConfigError("ask() was called inside a running event loop", fix="use `await okf.ask.ask_async(...)` there")


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
        out.append(f"Navigation had failures ({counts}); relevant concepts may be missing from the evidence.")
    if nav.stopped_by is not None:
        out.append(f"Navigation stopped at its {nav.stopped_by} budget before reading everything it could; "
                   "more relevant concepts may exist.")
    out.extend(w[0].upper() + w[1:] for w in nav.warnings if "max_shortlist" in w)
    return out


def gathering_caveats(gathered: GatheredEvidence) -> list[str]:
    """What the answerer did not see: cut items, items left out by the budget, unreadable items."""
    out: list[str] = []
    for item in gathered.truncated:
        r = item.receipt
        out.append(f'"{item.evidence.title}" was cut to lines {r.start_line}-{r.end_line} of {r.path} to fit the '
                   f"evidence budget ({gathered.evidence_tokens} tokens); the answer does not reflect the rest.")
    if gathered.dropped:
        names = ", ".join(e.concept_id for e in gathered.dropped[:5])
        more = f" and {len(gathered.dropped) - 5} more" if len(gathered.dropped) > 5 else ""
        out.append(f"{len(gathered.dropped)} shortlisted concept(s) did not fit the evidence budget "
                   f"({gathered.evidence_tokens} tokens) and were not given to the answerer: {names}{more}.")
    for entry, error in gathered.unreadable:
        out.append(f"{entry.path} could not be read for the answer: {clip(error, 200)}")
    return out


def assemble(checked: Validated, gathered: GatheredEvidence, *, usage: dict[str, Usage], caveats: list[str],
             base: dict[str, Any]) -> AnswerResult:
    """The AnswerResult: citations, supporting concepts and the Sources ledger in citation order."""
    by_id = gathered.by_id
    citations: list[Citation] = []
    supporting: list[Supporting] = []
    sources: list[SourceLine] = []
    trust: list[str] = []
    for number, ident in enumerate(checked.cited, start=1):
        item = by_id[ident]
        concept, entry = item.concept, item.entry
        citations.append(Citation(concept_id=concept.id, receipt=item.receipt))
        supporting.append(Supporting(concept_id=concept.id, title=concept.title,
                                     why=clip(entry.reason, 200) if entry.reason else "Cited by the answer."))
        sources.append(SourceLine(number=number, concept_id=concept.id, title=concept.title,
                                  sources=source_spans(concept)))
        if entry.status == "deprecated":
            trust.append(f'[{number}] "{concept.title}" is deprecated; do not rely on it as current.')
        elif entry.status == "draft":
            trust.append(f'[{number}] "{concept.title}" is a draft.')
        if entry.stale:
            trust.append(f'[{number}] "{concept.title}" is past its stale_after date; check it against a current '
                         "source.")
    return AnswerResult(status=checked.status, answer=checked.answer, reason=checked.reason, failed=checked.failed,
                        citations=citations,
                        supporting=supporting, caveats=checked.caveats + trust + caveats, sources=sources,
                        usage=usage, **base)


def source_spans(concept: Any) -> list[str]:
    """``resource:start-end`` for each ``sources`` entry (just ``resource`` without lines); never invented."""
    out: list[str] = []
    for ref in concept.meta.sources:
        # One line, no control characters: a ledger entry must not be able to rewrite the terminal.
        resource = " ".join(re.sub(r"[\x00-\x1f\x7f]", " ", str(ref.resource or "")).split())
        if not resource:
            continue
        out.append(f"{resource}:{ref.lines[0]}-{ref.lines[1]}" if ref.lines else resource)
    return out


__all__ = ["DEFAULT_EVIDENCE_TOKENS", "ask", "ask_async"]
