"""Requirements as okf returns and stores them: pure data, one JSON line per requirement. No I/O here."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from okf.readers.base import Usage

DeonticType = Literal["obligation", "prohibition", "permission", "ambiguous"]
DEONTIC_TYPES: tuple[str, ...] = ("obligation", "prohibition", "permission", "ambiguous")


class RequirementCitation(BaseModel):
    """Where a requirement is stated: the concept, the file lines of its clause and the sha256 of those lines."""

    concept_id: str
    path: str = Field(description="Bundle-relative path of the concept file.")
    title: str = Field(default="", description="The section's title.")
    start_line: int = Field(description="First file line of the clause (1-based, in the concept file).")
    end_line: int
    sha256: str = Field(description="sha256 of lines start_line..end_line (okf.sources.span_sha256).")


class Requirement(BaseModel):
    """One operative rule of a section. ``requirement_id`` hashes the section, the clause's text and the rule."""

    requirement_id: str
    requirement_text: str
    deontic_type: DeonticType
    actor: str = ""
    applicability: list[str] = Field(default_factory=list, description="'dimension: value' conditions.")
    evidence_standard: str = ""
    citation: RequirementCitation
    extractor: str = Field(default="", description="The reader that extracted it (e.g. 'offline').")


class SectionFailure(BaseModel):
    """A section whose extraction failed (after the reader's retries): reported, never read as "no rules"."""

    concept_id: str
    stage: Literal["extract", "outline", "fill", "read"]
    error: str


class ExtractionStats(BaseModel):
    """Counts and costs of one extraction run."""

    sections: int = 0
    sections_with_rules: int = 0
    rules: int = 0
    by_type: dict[str, int] = Field(default_factory=dict)
    cached: int = Field(default=0, description="Sections whose rules came from the extraction cache.")
    dense: int = Field(default=0, description="Sections extracted skeleton-then-fill.")
    failed: int = 0
    usage: Usage = Field(default_factory=Usage)
    seconds: float = 0.0


class RequirementsResult(BaseModel):
    """What ``extract_requirements`` returns: the requirements in reading order, failures, and what it cost."""

    bundle: str
    under: str = ""
    reader: str
    requirements: list[Requirement] = Field(default_factory=list)
    failures: list[SectionFailure] = Field(default_factory=list)
    stats: ExtractionStats = Field(default_factory=ExtractionStats)
