"""The extractor role: what a reader is shown of a section and what it reports back about the rules in it.

A :class:`RuleReader` has three async operations over one :class:`Section`:

- ``extract(section)``: every operative rule with its fields, in one call (short sections);
- ``outline(section)``: the skeleton of a long section, one :class:`RuleStub` per rule (text and lines only),
  so that no rule is rationed away for want of room in one reply;
- ``fill(section, stubs)``: the fields of the given stubs, one :class:`RuleDraft` per stub, in stub order.

Replies are loose by design (``deontic_type`` is any string): :mod:`okf.requirements` maps them to the closed
vocabulary in code. Line numbers are file lines of the concept and are validated against the section. Like
:class:`~okf.readers.base.Reader`, a rule reader never raises for a model failure: the result carries
``failed=True`` and the error, so a failed section is reported as failed, never as "no rules".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from okf.readers.base import Usage


class Section(BaseModel):
    """A section concept as offered to the extractor: its body, whose first line is file line ``first_line``."""

    id: str
    title: str
    text: str
    first_line: int = 1
    sha256: str = Field(description="sha256 of ``text``: the content the extraction depends on.")

    @property
    def lines(self) -> list[str]:
        """The body's lines (split on newlines only)."""
        return self.text.split("\n")

    @property
    def last_line(self) -> int:
        """File line number of the body's last line."""
        return self.first_line + len(self.lines) - 1

    def span(self, start_line: int, end_line: int) -> str:
        """The text of file lines ``start_line..end_line`` (inclusive), which must lie in the section."""
        return "\n".join(self.lines[start_line - self.first_line : end_line - self.first_line + 1])


class RuleStub(BaseModel):
    """A rule named by the skeleton pass: its sentence and the lines it rests on, fields still to fill."""

    index: int
    requirement_text: str
    start_line: int
    end_line: int


class RuleDraft(BaseModel):
    """One rule as a reader reports it. Strings are loose; the capability closes the vocabulary in code."""

    requirement_text: str
    deontic_type: str = ""
    actor: str = ""
    applicability: list[str] = Field(default_factory=list)
    evidence_standard: str = ""
    start_line: int
    end_line: int


class Extraction(BaseModel):
    """The rules of a section (``extract``) or of the stubs asked about (``fill``, one per stub, in order)."""

    rules: list[RuleDraft] = Field(default_factory=list)
    failed: bool = False
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


class Outline(BaseModel):
    """The skeleton of a section: every rule it states, fields not yet filled."""

    stubs: list[RuleStub] = Field(default_factory=list)
    failed: bool = False
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


@runtime_checkable
class RuleReader(Protocol):
    """Anything that can read the operative rules out of a section (the offline reader and LLMReader do)."""

    @property
    def name(self) -> str: ...

    async def extract(self, section: Section) -> Extraction: ...

    async def outline(self, section: Section) -> Outline: ...

    async def fill(self, section: Section, stubs: Sequence[RuleStub]) -> Extraction: ...
