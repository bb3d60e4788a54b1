"""Contract facts in ``ask``: the preflight that runs before any model call, and grounded facts given to the
answerer as evidence items whose receipts are the facts' own (ids ``f1``, ``f2``... in contract order).

A fact item's text is exactly the lines its receipt names, so ``okf.sources.span_sha256`` checks it like any
other evidence item; its title carries the typed value. Facts that must be absent are reported, not given.
"""

from __future__ import annotations

import json
from typing import Any

from okf.answer.evidence import EvidenceItem
from okf.bundle import Bundle
from okf.contract import ContractReport, check_contract
from okf.contract.load import ContractInput
from okf.contract.locate import Unlocated, read_source
from okf.models import AnswerResult, ShortlistEntry
from okf.readers.base import Evidence
from okf.sources import span_sha256, span_text


def preflight(bundle: Bundle, contract: ContractInput) -> ContractReport:
    """The contract checked against the bundle, with zero model calls (ContractError when malformed)."""
    return check_contract(bundle, contract)


def contract_fields(report: ContractReport | None) -> dict[str, Any]:
    """The AnswerResult fields saying which contract was checked and what it grounded."""
    if report is None:
        return {"typed_fact_guarantee": False, "contract": None, "facts": []}
    return {"typed_fact_guarantee": report.ok, "contract": report.summary(), "facts": report.facts}


def preflight_failure(question: str, report: ContractReport, *, reader: str, corpus_id: str | None) -> AnswerResult:
    """The answer when the preflight failed: no navigation, no model call, the failed facts and their fixes."""
    failed = [f for f in report.facts if f.status == "failed" and f.severity == "error"]
    names = ", ".join(f"{f.name} ({f.code})" for f in failed[:5]) + (" ..." if len(failed) > 5 else "")
    reason = (
        f"The contract preflight failed: {len(failed)} fact(s) did not hold: {names}. No model was called; "
        f"fix the bundle or the contract (okf check BUNDLE --contract {report.contract})."
    )
    return AnswerResult(
        question=question,
        status="abstained",
        answer="",
        reason=reason,
        reader=reader,
        corpus_id=corpus_id,
        **contract_fields(report),
    )


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def fact_items(bundle: Bundle, report: ContractReport) -> list[EvidenceItem]:
    """Grounded facts with a value, as evidence items carrying their receipts."""
    items: list[EvidenceItem] = []
    for fact in report.facts:
        receipt = fact.receipt
        if fact.status != "grounded" or receipt is None or fact.value is None:
            continue
        try:
            source = read_source(bundle, receipt.path)
        except Unlocated:
            continue
        if span_sha256(source.text, receipt.start_line, receipt.end_line) != receipt.sha256:
            continue  # changed since the preflight: its receipt would no longer describe the text given
        concept = source.concept
        meta = concept.meta
        title = f"{concept.title} (contract fact {fact.name} = {_shown(fact.value)})"
        evidence = Evidence(
            id=receipt.evidence_id,
            title=title,
            text=span_text(source.text, receipt.start_line, receipt.end_line),
            status=meta.status.value,
            stale=meta.is_stale(),
        )
        entry = ShortlistEntry(
            concept_id=concept.id,
            path=concept.path,
            title=concept.title,
            type=meta.type,
            status=meta.status.value,
            trust_tier=meta.trust_tier.value,
            stale=meta.is_stale(),
            reason=f"Contract fact {fact.name} = {_shown(fact.value)}, checked in code.",
            receipt=receipt,
        )
        items.append(EvidenceItem(evidence, entry, concept, receipt))
    return items
