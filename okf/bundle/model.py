"""Pure data models of an OKF v0.2 bundle: no I/O here.

Paths in these models are always bundle-relative POSIX strings without a leading slash
(``contracts/msa/term.md``); a directory path ends with ``/`` (``contracts/msa/``) and the root is ``""``.
A concept id is its path without ``.md`` (OKF §2).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class TrustTier(str, Enum):
    """Trust tier derived from ``verified`` (OKF §5.3), lowest to highest."""

    unverified = "unverified"
    machine_confirmed = "machine-confirmed"
    human_reviewed = "human-reviewed"


class Status(str, Enum):
    """Lifecycle status (OKF §5.4); absent means stable."""

    draft = "draft"
    stable = "stable"
    deprecated = "deprecated"


class Actor(BaseModel):
    """One ``generated`` or ``verified`` event: who (an actor string, §7) and when."""

    model_config = ConfigDict(extra="allow")

    by: str = ""
    at: datetime | None = None


class SourceRef(BaseModel):
    """One ``sources`` entry (§5.1).

    ``lines`` (``[start, end]``, 1-based inclusive, in the source text) and ``sha256`` (of that span, see
    :func:`okf.sources.span_sha256`) are okf producer-defined keys documented in docs/format.md.
    """

    model_config = ConfigDict(extra="allow")

    resource: str = ""
    id: str | None = None
    title: str | None = None
    author: str | None = None
    usage_count: int | None = None
    last_modified: datetime | None = None
    lines: tuple[int, int] | None = None
    sha256: str | None = None


class ConceptMeta(BaseModel):
    """The typed view of a concept's frontmatter. Unknown keys are kept in ``extra`` (never dropped)."""

    type: str = ""
    title: str | None = None
    description: str | None = None
    resource: str | None = None
    tags: list[str] = Field(default_factory=list)
    sources: list[SourceRef] = Field(default_factory=list)
    generated: Actor | None = None
    verified: list[Actor] = Field(default_factory=list)
    status: Status = Status.stable
    stale_after: datetime | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def trust_tier(self) -> TrustTier:
        """§5.3: no ``verified`` is unverified; any ``human:`` verifier is human-reviewed."""
        if not self.verified:
            return TrustTier.unverified
        if any(v.by.startswith("human:") for v in self.verified):
            return TrustTier.human_reviewed
        return TrustTier.machine_confirmed

    def is_stale(self, now: datetime | None = None) -> bool:
        """§5.5: stale when ``now >= stale_after``."""
        if self.stale_after is None:
            return False
        now = now or datetime.now(UTC)
        return now >= self.stale_after


def as_datetime(value: date | datetime) -> datetime:
    """A date or naive datetime as an aware UTC datetime (real bundles write ``stale_after`` both ways)."""
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class Signpost(BaseModel):
    """One entry of a directory listing (§8): from ``index.md`` or synthesized from the directory."""

    path: str
    title: str
    description: str = ""
    is_dir: bool
    section: str | None = None
    line: int | None = None
    origin: Literal["index", "synthesized"] = "index"

    @property
    def concept_id(self) -> str | None:
        """The concept id for a concept entry, None for a directory."""
        return None if self.is_dir else self.path.removesuffix(".md")


class Link(BaseModel):
    """A markdown link in a concept body, resolved against the bundle."""

    text: str
    target: str
    line: int
    path: str | None = None
    exists: bool = False
    external: bool = False


class Diagnostic(BaseModel):
    """One finding about a bundle: a stable code, where, what, and a one-line fix."""

    code: str
    severity: Literal["error", "warning"]
    path: str
    line: int | None = None
    message: str
    fix: str = ""


class Concept(BaseModel):
    """A parsed concept document."""

    id: str
    path: str
    meta: ConceptMeta
    body: str
    body_start_line: int
    frontmatter: dict[str, Any] = Field(default_factory=dict)
    diagnostics: list[Diagnostic] = Field(
        default_factory=list, description="What was tolerated while reading it (never errors)."
    )

    @property
    def title(self) -> str:
        """Frontmatter title, else derived from the file name."""
        if self.meta.title:
            return self.meta.title
        stem = self.id.rsplit("/", 1)[-1]
        return stem.replace("-", " ").replace("_", " ").strip().capitalize() or stem

    @property
    def end_line(self) -> int:
        """The file's last line number."""
        return self.body_start_line + max(self.body.count("\n") - (1 if self.body.endswith("\n") else 0), 0)


class Listing(BaseModel):
    """A directory's signposts (index entries, then synthesized ones) and what was wrong with its index."""

    directory: str
    signposts: list[Signpost] = Field(default_factory=list)
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    has_index: bool = False
