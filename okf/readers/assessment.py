"""The assessor role (the compliance judge): does a requirement apply to a subject, and is it met?

A :class:`ComplianceReader` has two async operations:

- ``applies(subject, question, requirements)``: for each offered requirement, on its own, whether it plausibly
  applies to the subject (one decision per requirement, in order; never a ranking of requirements);
- ``assess(subject, requirement)``: one requirement against the subject: the verdict as the reader gives it,
  a one-sentence rationale, a confidence and the subject lines it rests on.

The verdict is returned *as given*: :mod:`okf.comply` closes the vocabulary in code (anything unreadable,
missing or off-vocabulary becomes ``needs_review``) and attaches both citations from the inputs. Subject line
numbers are validated against the subject offered. A model failure is ``failed=True``, never a verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from okf.readers.base import Usage


class SubjectText(BaseModel):
    """The subject as the assessor sees it: a name and its text, lines numbered from 1."""

    name: str
    text: str

    @property
    def lines(self) -> list[str]:
        """The subject's lines (split on newlines only)."""
        return self.text.split("\n")

    @property
    def line_count(self) -> int:
        """Number of lines."""
        return len(self.lines)


class RequirementOffer(BaseModel):
    """One requirement offered to the assessor; ``index`` is its position in the offer."""

    index: int
    id: str
    requirement_text: str
    deontic_type: str
    actor: str = ""
    applicability: list[str] = Field(default_factory=list)
    evidence_standard: str = ""
    clause: str = Field(default="", description="The requirement's source text (the lines it was read from).")


class ApplicabilityDecision(BaseModel):
    """Whether one requirement plausibly applies. ``applies`` is None when the decision failed."""

    id: str
    applies: bool | None
    reason: str = ""
    failed: bool = False
    error: str | None = None


class Applicability(BaseModel):
    """One decision per offered requirement, in offer order."""

    decisions: list[ApplicabilityDecision]
    usage: Usage = Field(default_factory=Usage)


class Assessment(BaseModel):
    """The assessor's reply on one requirement, before the capability closes the verdict vocabulary."""

    verdict: str | None = None
    rationale: str = ""
    confidence: float | None = None
    start_line: int | None = Field(default=None, description="First subject line the verdict rests on.")
    end_line: int | None = None
    failed: bool = False
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


@runtime_checkable
class ComplianceReader(Protocol):
    """Anything that can decide applicability and judge compliance (the offline reader and LLMReader do)."""

    @property
    def name(self) -> str: ...

    async def applies(
        self, subject: SubjectText, question: str, requirements: Sequence[RequirementOffer]
    ) -> Applicability: ...

    async def assess(self, subject: SubjectText, requirement: RequirementOffer) -> Assessment: ...
