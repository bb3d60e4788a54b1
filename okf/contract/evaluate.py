"""``check_contract(bundle, contract) -> ContractReport``: every fact grounded or failed, with zero model calls.

A fact is grounded when its locator finds it in exactly one concept, every value found there parses as its
type and agrees, and every expectation holds; its receipt is the file lines the value was read from and their
sha256 (:func:`okf.sources.span_sha256`). Otherwise it fails with a stable code (docs/contracts.md).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, computed_field

from okf.bundle import Bundle
from okf.checker.rules import SourceFiles, source_citing
from okf.contract.load import ContractInput, load_contract
from okf.contract.locate import Occurrence, Source, Span, Unlocated, extract, find_concept, read_source, scope
from okf.contract.model import Fact
from okf.contract.values import ValueProblem, as_json, parse_value
from okf.errors import BundleError
from okf.models import ContractSummary, FactResult, Receipt
from okf.sources import span_sha256

# Wall-clock bound on one fact's regex search: the `regex` engine stops a catastrophic pattern at this point.
REGEX_TIMEOUT_S = 1.0


class ContractReport(BaseModel):
    """The outcome of checking a contract against a bundle: one result per fact, in contract order."""

    bundle: str
    corpus_id: str | None = Field(
        default=None, description="The bundle content checked (null unless okf compiled the bundle, as for okf check)."
    )
    contract: str = Field(description="The contract file, or '<inline>'.")
    contract_sha256: str
    version: int
    seconds: float = 0.0
    facts: list[FactResult] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def grounded_count(self) -> int:
        """Facts grounded."""
        return sum(1 for f in self.facts if f.status == "grounded")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def error_count(self) -> int:
        """Error-severity facts that failed."""
        return sum(1 for f in self.facts if f.status == "failed" and f.severity == "error")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def warning_count(self) -> int:
        """Warning-severity facts that failed."""
        return sum(1 for f in self.facts if f.status == "failed" and f.severity == "warning")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ok(self) -> bool:
        """True when no error-severity fact failed."""
        return self.error_count == 0

    def summary(self) -> ContractSummary:
        """The short form carried by an answer."""
        return ContractSummary(
            path=self.contract,
            sha256=self.contract_sha256,
            version=self.version,
            ok=self.ok,
            grounded=self.grounded_count,
            failed=len(self.facts) - self.grounded_count,
        )


def _receipt(evidence_id: str, source: Source, span: Span) -> Receipt:
    return Receipt(
        evidence_id=evidence_id,
        path=source.path,
        start_line=span.start_line,
        end_line=span.end_line,
        sha256=span_sha256(source.text, span.start_line, span.end_line),
    )


def _failed(
    fact: Fact, code: str, message: str, fix: str, receipt: Receipt | None = None, value: Any = None
) -> FactResult:
    return FactResult(
        name=fact.name,
        type=fact.type,
        severity=fact.severity,
        status="failed",
        value=value,
        receipt=receipt,
        code=code,
        message=message,
        fix=fix,
    )


def _where(receipt: Receipt) -> str:
    lines = (
        str(receipt.start_line)
        if receipt.start_line == receipt.end_line
        else f"{receipt.start_line}-{receipt.end_line}"
    )
    return f"{receipt.path}:{lines}"


def _typed(fact: Fact, raw: Any) -> Any:
    return parse_value(fact.type, raw, values=fact.values, separator=fact.separator)


def evaluate_fact(
    bundle: Bundle, fact: Fact, evidence_id: str, sources: dict[str, Source | Unlocated], timeout: float
) -> FactResult:
    """One fact, grounded or failed. ``sources`` caches concepts read for earlier facts of the same check."""
    try:
        path = find_concept(bundle, fact.locate.concept)
        cached = sources.get(path)
        if cached is None:
            try:
                cached = read_source(bundle, path)
            except Unlocated as problem:
                cached = problem
            sources[path] = cached
        if isinstance(cached, Unlocated):
            raise cached
        source = cached
        searched = scope(source, fact)
        found = extract(source, fact.locate, searched, timeout=timeout)
    except Unlocated as problem:
        return _failed(fact, problem.code, problem.message, problem.fix)
    if not fact.expect.present:
        if found:
            receipt = _receipt(evidence_id, source, found[0].span)
            return _failed(
                fact,
                "unexpected",
                f"found at {_where(receipt)}, but the contract says it must be absent",
                "remove it from the source and recompile, or drop 'present: false'",
                receipt,
            )
        receipt = _receipt(evidence_id, source, searched)
        return _check_unchanged(
            fact,
            FactResult(
                name=fact.name, type=fact.type, severity=fact.severity, status="grounded", value=None, receipt=receipt
            ),
        )
    if not found:
        where = _where(_receipt(evidence_id, source, searched))
        return _failed(
            fact,
            "not_found",
            f"the {fact.locate.extractor} extractor found nothing in {where}",
            "check the locator against the concept's current text (a heading, a pattern, a key)",
        )
    return _grounded(fact, evidence_id, source, found)


def _grounded(fact: Fact, evidence_id: str, source: Source, found: list[Occurrence]) -> FactResult:
    values: list[tuple[Occurrence, Any]] = []
    for occurrence in found:
        try:
            values.append((occurrence, _typed(fact, occurrence.raw)))
        except ValueProblem as problem:
            receipt = _receipt(evidence_id, source, occurrence.span)
            return _failed(
                fact,
                "bad_value",
                f"{problem.message} (read at {_where(receipt)}), but the fact is a {fact.type}",
                problem.fix,
                receipt,
                value=as_json(str(occurrence.raw)),
            )
    distinct: dict[str, Occurrence] = {}
    for occurrence, value in values:
        distinct.setdefault(repr(as_json(value)), occurrence)
    if len(distinct) > 1:
        shown = "; ".join(f"{key} at line {occ.span.start_line}" for key, occ in list(distinct.items())[:5])
        return _failed(
            fact,
            "ambiguous_value",
            f"{len(distinct)} different values found in {source.path}: {shown}",
            "narrow the locator (a heading, or a more specific pattern) so it finds one value",
        )
    occurrence, value = values[0]
    receipt = _receipt(evidence_id, source, occurrence.span)
    shown = as_json(value)
    expect = fact.expect
    if "equals" in expect.model_fields_set and value != _typed(fact, expect.equals):
        wanted = as_json(_typed(fact, expect.equals))
        return _failed(
            fact,
            "mismatch",
            f"the value is {shown!r} at {_where(receipt)}; the contract expects "
            f"{wanted!r}" + _also_drifted(fact, receipt),
            "if the bundle is right, update expect.equals; otherwise fix the source and recompile",
            receipt,
            shown,
        )
    if expect.one_of is not None and value not in [_typed(fact, v) for v in expect.one_of]:
        allowed = [as_json(_typed(fact, v)) for v in expect.one_of]
        return _failed(
            fact,
            "not_one_of",
            f"the value is {shown!r} at {_where(receipt)}; the contract allows "
            f"{allowed}" + _also_drifted(fact, receipt),
            "add the value to expect.one_of if it is valid",
            receipt,
            shown,
        )
    if expect.range is not None:
        low = None if expect.range.min is None else _typed(fact, expect.range.min)
        high = None if expect.range.max is None else _typed(fact, expect.range.max)
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = f"[{as_json(low) if low is not None else '...'}, {as_json(high) if high is not None else '...'}]"
            return _failed(
                fact,
                "out_of_range",
                f"the value {shown!r} at {_where(receipt)} is outside {bounds}" + _also_drifted(fact, receipt),
                "widen expect.range if the value is valid",
                receipt,
                shown,
            )
    return _check_unchanged(
        fact,
        FactResult(
            name=fact.name, type=fact.type, severity=fact.severity, status="grounded", value=shown, receipt=receipt
        ),
    )


def _also_drifted(fact: Fact, receipt: Receipt) -> str:
    recorded = fact.expect.unchanged
    return (
        ""
        if recorded is None or recorded == receipt.sha256
        else "; the text also changed since the contract recorded it"
    )


def _check_unchanged(fact: Fact, result: FactResult) -> FactResult:
    recorded, receipt = fact.expect.unchanged, result.receipt
    if recorded is None or receipt is None or receipt.sha256 == recorded:
        return result
    return _failed(
        fact,
        "drift",
        f"the text at {_where(receipt)} changed since the contract recorded it "
        f"(sha256 {recorded[:12]}... then, {receipt.sha256[:12]}... now); value now {result.value!r}",
        f"review the text; if it is right, record it again (expect.unchanged: {receipt.sha256})",
        receipt,
        result.value,
    )


def _source_drift(
    fact: Fact, result: FactResult, sources: dict[str, Source | Unlocated], raw: SourceFiles
) -> FactResult:
    """A grounded fact read from a concept whose raw source changed since it was compiled is stale: failed."""
    source = sources.get(result.receipt.path) if result.status == "grounded" and result.receipt else None
    if not isinstance(source, Source):
        return result
    drifted = raw.drift(source.concept)
    if not drifted or result.receipt is None:
        return result
    return _failed(
        fact,
        "source_drift",
        f"{drifted[0].message}, so {result.receipt.path} may no longer say what its source says",
        "recompile the bundle with okf compile, then check again",
        result.receipt,
        result.value,
    )


def check_contract(
    bundle: Bundle | str | Path, contract: ContractInput, *, regex_timeout: float = REGEX_TIMEOUT_S
) -> ContractReport:
    """Check every fact of ``contract`` (a path, mapping or Contract) against ``bundle``. Zero model calls.

    Raises ContractError (a ConfigError) when the contract itself is malformed; a fact that cannot be found or
    does not hold is a failed result, never an exception.
    """
    started = time.perf_counter()
    loaded = load_contract(contract)
    opened = bundle if isinstance(bundle, Bundle) else Bundle.open(bundle)
    sources: dict[str, Source | Unlocated] = {}
    facts = [evaluate_fact(opened, fact, f"f{n}", sources, regex_timeout) for n, fact in enumerate(loaded.facts, 1)]
    corpus_id: str | None = None
    manifest = None
    try:  # free for an okf-compiled bundle (its manifest); otherwise left out, as okf check does
        manifest = opened.manifest()
        corpus_id = opened.corpus_id() if manifest is not None else None
    except (OSError, BundleError):
        corpus_id = None
    raw = SourceFiles(opened, *source_citing(manifest))
    facts = [_source_drift(fact, result, sources, raw) for fact, result in zip(loaded.facts, facts, strict=True)]
    return ContractReport(
        bundle=str(opened.root),
        corpus_id=corpus_id,
        contract=loaded.origin,
        contract_sha256=loaded.sha256,
        version=loaded.version,
        seconds=round(time.perf_counter() - started, 3),
        facts=facts,
    )
