"""The guarantees of ``okf comply``, in code: the closed verdict vocabulary with its conservative default, both
citations attached from the inputs, and the roll-up. The reader judges; the code decides what a verdict means.

- A verdict is ``violation``, ``needs_review`` or ``compliant`` (case, spaces and hyphens aside). Anything
  else (unreadable, missing, off-vocabulary, or a failed judgment) is ``needs_review``.
- The subject span is the lines the reader named when they lie in the subject, else the whole subject; its
  sha256 is computed here from the subject text. The requirement's receipt is its citation, unchanged.
- Findings are ordered violations first, then needs_review, then compliant, each in requirement order.
"""

from __future__ import annotations

import re

from okf.compliance.model import VERDICTS, Finding, SubjectSpan, Verdict
from okf.compliance.subject import span_sha256
from okf.models import Receipt
from okf.readers.assessment import Assessment, SubjectText
from okf.requirements.model import Requirement


def _word(raw: str) -> str:
    return re.sub(r"[\s-]+", "_", raw.strip()).casefold()


def verdict_of(raw: object) -> Verdict:
    """The closed verdict of whatever the reader said: off-vocabulary is ``needs_review``."""
    if not isinstance(raw, str):
        return "needs_review"
    word = _word(raw)
    return word if word in VERDICTS else "needs_review"  # type: ignore[return-value]


def subject_span(subject: SubjectText, start: int | None, end: int | None) -> SubjectSpan:
    """The span a verdict rests on: the named lines when valid, else the whole subject."""
    last = subject.line_count
    if start is None or end is None or not 1 <= start <= end <= last:
        start, end = 1, last
    return SubjectSpan(path=subject.name, start_line=start, end_line=end, sha256=span_sha256(subject, start, end))


def receipt(requirement: Requirement) -> Receipt:
    """The requirement clause's receipt, from its citation."""
    c = requirement.citation
    return Receipt(
        evidence_id=requirement.requirement_id,
        path=c.path,
        start_line=c.start_line,
        end_line=c.end_line,
        sha256=c.sha256,
    )


def finding(subject: SubjectText, requirement: Requirement, assessment: Assessment, applies_because: str) -> Finding:
    """A finding from a reader's assessment, every guarantee applied."""
    verdict = "needs_review" if assessment.failed else verdict_of(assessment.verdict)
    raw = assessment.verdict if isinstance(assessment.verdict, str) else None
    confidence = assessment.confidence
    if confidence is not None:
        confidence = min(1.0, max(0.0, float(confidence)))
    return Finding(
        requirement_id=requirement.requirement_id,
        requirement_text=requirement.requirement_text,
        deontic_type=requirement.deontic_type,
        actor=requirement.actor,
        verdict=verdict,
        rationale=assessment.rationale if not assessment.failed else f"judgment failed: {assessment.error}",
        confidence=None if assessment.failed else confidence,
        applies_because=applies_because,
        subject_span=subject_span(subject, assessment.start_line, assessment.end_line),
        requirement_receipt=receipt(requirement),
        concept_id=requirement.citation.concept_id,
        raw_verdict=raw if raw is not None and _word(raw) not in VERDICTS else None,
        failed=assessment.failed,
        error=assessment.error,
    )


def ordered(findings: list[Finding]) -> list[Finding]:
    """Violations first, then needs_review, then compliant; requirement order within each."""
    return sorted(findings, key=lambda f: VERDICTS.index(f.verdict))


def rollup(findings: list[Finding]) -> dict[str, int]:
    """Findings per verdict, every verdict named."""
    return {v: sum(1 for f in findings if f.verdict == v) for v in VERDICTS}
