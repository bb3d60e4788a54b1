"""Compliance findings as okf returns them: pure data. No I/O here."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from okf.models import NavigationResult, Receipt
from okf.readers.base import Usage
from okf.requirements.model import SectionFailure

Verdict = Literal["violation", "needs_review", "compliant"]
VERDICTS: tuple[str, ...] = ("violation", "needs_review", "compliant")


class SubjectSpan(BaseModel):
    """The part of the subject a verdict rests on: file (or ``<text>``), line range and sha256 of those lines."""

    path: str
    start_line: int
    end_line: int
    sha256: str


class Finding(BaseModel):
    """One requirement judged against the subject, with both citations attached by code from the inputs."""

    requirement_id: str
    requirement_text: str
    deontic_type: str
    actor: str = ""
    verdict: Verdict
    rationale: str = ""
    confidence: float | None = None
    applies_because: str = Field(default="", description="Why the requirement was judged to apply.")
    subject_span: SubjectSpan = Field(
        description="The subject lines the verdict rests on (all of it when the reader named none)."
    )
    requirement_receipt: Receipt = Field(description="The requirement's clause: concept file, lines, sha256.")
    concept_id: str = ""
    raw_verdict: str | None = Field(
        default=None,
        description="The reader's verdict when it was not one of the three (then the verdict is needs_review).",
    )
    failed: bool = Field(default=False, description="The judgment failed (a model error): needs_review.")
    error: str | None = None


class ComplianceResult(BaseModel):
    """What ``comply`` returns: findings (violations first), the roll-up, and what was left unjudged and why."""

    subject: str
    question: str = ""
    source: Literal["requirements", "bundle"]
    reader: str
    findings: list[Finding] = Field(default_factory=list)
    rollup: dict[str, int] = Field(default_factory=dict, description="Findings per verdict.")
    considered: int = Field(default=0, description="Requirements whose applicability was decided.")
    not_applicable: int = 0
    not_judged: list[str] = Field(
        default_factory=list, description="Ids of applicable requirements left unjudged by max_requirements."
    )
    shortlist: list[str] = Field(
        default_factory=list, description="With a bundle: the sections navigation found for the question."
    )
    extraction_failures: list[SectionFailure] = Field(default_factory=list)
    failures: int = Field(default=0, description="Applicability decisions and judgments that failed.")
    warnings: list[str] = Field(default_factory=list)
    usage: dict[str, Usage] = Field(default_factory=dict)
    navigation: NavigationResult | None = None

    @property
    def violations(self) -> list[Finding]:
        """The findings whose verdict is ``violation``."""
        return [f for f in self.findings if f.verdict == "violation"]
