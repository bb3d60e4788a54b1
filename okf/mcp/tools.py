"""What the MCP tools do, free of the MCP SDK: name the served bundles, check arguments, shape results.

Every tool input an agent sends is checked here: bundle names against the served set, paths through
``Bundle.resolve`` (so nothing leaves a bundle root), questions non-empty, budgets positive. Bad input raises
an ``OKFError`` whose message says what to send instead; ``okf.mcp.server`` turns it into a tool error.
Results are pydantic models that serialize to plain JSON (dates as ISO strings).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence
from datetime import date, datetime, time
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from okf.answer import ask_async
from okf.answer.pipeline import DEFAULT_SYNTHESIS
from okf.answer.save import save_answer
from okf.bundle import Bundle
from okf.bundle.model import Concept, Diagnostic, Link, Signpost
from okf.checker import check
from okf.contract import ContractReport, check_contract, load_contract
from okf.errors import ConfigError
from okf.models import DEFAULT_ANGLES, AnswerResult, Budgets, NavigationResult
from okf.navigator import navigate_async
from okf.readers.base import Reader
from okf.settings import MAX_BYTES, MAX_DIAGNOSTICS

# Defaults of the tools' limits: the fields of okf.settings.ToolSettings (bound and help text there too).
DEFAULT_MAX_BYTES: int = MAX_BYTES.default
DEFAULT_MAX_DIAGNOSTICS: int = MAX_DIAGNOSTICS.default
# Line numbers are right-aligned to this width at least, so "  12 | text" lines up in short files too.
MIN_NUMBER_WIDTH = 4


class BundleInfo(BaseModel):
    """One served bundle."""

    name: str = Field(description="The name every other tool takes as its `bundle` argument.")
    root: str = Field(description="Absolute path of the bundle directory.")
    corpus_id: str = Field(description="Identifies the bundle's content; changes when any file changes.")
    okf_version: str | None = Field(description="The OKF version the bundle declares, if any.")
    concepts: int = Field(description="Number of concept documents.")


class BundleList(BaseModel):
    """The bundles this server serves."""

    bundles: list[BundleInfo]


class SignpostListing(BaseModel):
    """The signposts of one directory: what an agent reads to decide where to go next."""

    bundle: str
    directory: str = Field(description="Bundle-relative directory; '' is the root, others end with '/'.")
    signposts: list[Signpost] = Field(description="Entries: a path ending '/' is a directory, '.md' a concept.")
    diagnostics: list[Diagnostic] = Field(
        description="Problems found in the listing (e.g. entries pointing at nothing)."
    )


class ConceptView(BaseModel):
    """One concept: frontmatter, a line-numbered slice of the body, and its links."""

    bundle: str
    concept_id: str
    path: str
    title: str
    type: str
    status: str
    trust_tier: str
    stale: bool
    frontmatter: dict[str, Any] = Field(description="The frontmatter as JSON (dates as ISO strings).")
    body: str = Field(description="Body lines as '  12 | text', numbered as in the file.")
    start_line: int = Field(description="File line number of the first body line shown.")
    end_line: int = Field(description="File line number of the last body line shown.")
    last_line: int = Field(description="File line number of the body's last line.")
    truncated: bool = Field(description="True when the body was cut to fit max_bytes (see next_start_line).")
    next_start_line: int | None = Field(description="Pass as start_line to read on; null when nothing is left.")
    links: list[Link] = Field(description="Links in the body, resolved: exists=false marks a broken one.")


class CheckSummary(BaseModel):
    """A bundle check: counts and the first diagnostics."""

    bundle: str
    ok: bool = Field(description="True when there are no errors (warnings allowed).")
    errors: int
    warnings: int
    concepts: int
    diagnostics: list[Diagnostic] = Field(description="Errors first, then warnings, at most max_diagnostics.")
    total_diagnostics: int
    truncated: bool = Field(description="True when more diagnostics exist than were returned.")
    contract: ContractReport | None = Field(
        default=None,
        description="With a contract: every fact grounded "
        "(value + receipt) or failed (code, message, fix); contract.ok is false "
        "when an error fact failed. ok above is about conformance only.",
    )


def json_safe(value: Any) -> Any:
    """``value`` as plain JSON data: dates and datetimes as ISO strings, enums as values, others as text."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, Enum):
        return json_safe(value.value)
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_safe(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def unique_names(roots: Sequence[Path]) -> list[str]:
    """A name per bundle root: its directory name, with ``-2``, ``-3``... added to repeats."""
    names: list[str] = []
    for root in roots:
        base = root.name or "bundle"
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}-{n}"
        names.append(name)
    return names


def positive(name: str, value: float | None) -> None:
    """ConfigError unless ``value`` is None or a positive number."""
    if value is not None and not value > 0:
        raise ConfigError(f"{name} must be positive, got {value}", fix=f"pass a {name} above 0 or leave it out")


def number_lines(lines: Sequence[str], first: int, width: int, max_bytes: int) -> tuple[list[str], bool]:
    """``first``-numbered lines as ``"  12 | text"`` within ``max_bytes`` (UTF-8); True if any were cut.

    Whole lines only, except that a first line longer than the budget is cut at a character boundary so a
    read always makes progress.
    """
    out: list[str] = []
    used = 0
    for i, text in enumerate(lines):
        line = f"{first + i:>{width}} | {text}"
        size = len(line.encode("utf-8")) + (1 if out else 0)
        if used + size > max_bytes:
            if not out:
                out.append(line.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore"))
                return out, True
            return out, True
        out.append(line)
        used += size
    return out, False


class BundleSet:
    """The bundles one server serves, by name, with the reader navigate and ask use."""

    def __init__(self, bundles: dict[str, Bundle], reader: Reader | None = None) -> None:
        self.bundles = bundles
        self.reader = reader
        self._counts: dict[str, int] = {}

    @classmethod
    def open(cls, paths: Sequence[str | Path], reader: Reader | None = None) -> BundleSet:
        """Open and validate every bundle path; the first bad one raises (BundleNotFoundError, ...)."""
        if not paths:
            raise ConfigError("no bundle given", fix="name at least one bundle directory")
        opened = [Bundle.open(p) for p in paths]
        names = unique_names([b.root for b in opened])
        return cls(dict(zip(names, opened)), reader)

    def get(self, name: str) -> Bundle:
        """The bundle served under ``name``; ConfigError listing the known names otherwise."""
        try:
            return self.bundles[name]
        except KeyError:
            known = ", ".join(repr(n) for n in self.bundles)
            raise ConfigError(
                f"unknown bundle {name!r}; this server serves {known}",
                fix="call list_bundles and pass one of those names",
            ) from None

    def describe(self) -> str:
        """One line naming the served bundles (for the server's instructions)."""
        return ", ".join(f"{name} ({b.root})" for name, b in self.bundles.items())

    def list_bundles(self) -> BundleList:
        """Every served bundle with its root, corpus id, OKF version and concept count."""
        infos = []
        for name, bundle in self.bundles.items():
            if name not in self._counts:  # a walk of the tree: done once per server
                self._counts[name] = sum(1 for _ in bundle.iter_concepts())
            infos.append(
                BundleInfo(
                    name=name,
                    root=str(bundle.root),
                    corpus_id=bundle.corpus_id(),
                    okf_version=bundle.okf_version,
                    concepts=self._counts[name],
                )
            )
        return BundleList(bundles=infos)

    def read_signposts(self, bundle: str, directory: str = "") -> SignpostListing:
        """The signposts of ``directory`` (bundle-relative; '' is the root)."""
        listing = self.get(bundle).listing(directory.strip())  # resolves: PathEscapeError, BundleError
        return SignpostListing(
            bundle=bundle, directory=listing.directory, signposts=listing.signposts, diagnostics=listing.diagnostics
        )

    def read_concept(
        self, bundle: str, concept: str, max_bytes: int = DEFAULT_MAX_BYTES, start_line: int | None = None
    ) -> ConceptView:
        """A concept's frontmatter, body lines from ``start_line`` within ``max_bytes``, and links."""
        positive("max_bytes", max_bytes)
        positive("start_line", start_line)
        b = self.get(bundle)
        if not concept.strip():
            raise ConfigError("concept is empty", fix="pass a concept id or path from read_signposts")
        b.resolve(concept)  # PathEscapeError before any file is touched
        c = b.concept(concept)
        return concept_view(bundle, c, b.links(c), max_bytes, start_line)

    def check_input(self, bundle: str, question: str, budgets: Mapping[str, float | None]) -> tuple[Bundle, Budgets]:
        """The bundle and budgets for navigate and ask; ConfigError for an empty question or a bad budget."""
        b = self.get(bundle)
        if not question.strip():
            raise ConfigError("question is empty", fix="pass the question in plain words")
        for key, value in budgets.items():
            positive(key, value)
        return b, Budgets.model_validate({k: v for k, v in budgets.items() if v is not None})

    def others(self, names: Sequence[str]) -> list[Bundle]:
        """The bundles served under ``names`` (more source families beside the first)."""
        return [self.get(name) for name in names]

    async def navigate(
        self,
        bundle: str,
        question: str,
        budgets: Mapping[str, float | None],
        include_trace: bool = False,
        *,
        angles: str = DEFAULT_ANGLES,
        others: Sequence[str] = (),
    ) -> NavigationResult:
        """Navigate one bundle (and ``others``) for ``question``: the shortlist with receipts (trace only when
        asked), orchestrated by ``angles``."""
        b, limits = self.check_input(bundle, question, budgets)
        result = await navigate_async(
            [b, *self.others(others)], question.strip(), reader=self.reader, budgets=limits, angles=angles
        )
        return result if include_trace else result.model_copy(update={"trace": []})

    async def ask(
        self,
        bundle: str,
        question: str,
        budgets: Mapping[str, float | None],
        evidence_tokens: int | None = None,
        contract: dict[str, Any] | None = None,
        synthesis: str = DEFAULT_SYNTHESIS,
        save: bool = False,
        *,
        angles: str = DEFAULT_ANGLES,
        others: Sequence[str] = (),
    ) -> AnswerResult:
        """Answer ``question`` from one bundle with citations (the navigation and synthesis trace left out);
        with a ``contract`` (the contract as data) its facts are checked first and no model is called if one
        fails. With ``save`` an answered or partial answer is filed into the bundle as a Synthesis concept
        (``saved`` says where, or why not) and the bundle is served afresh from then on."""
        positive("evidence_tokens", evidence_tokens)
        b, limits = self.check_input(bundle, question, budgets)
        extra = self.others(others)
        if extra and (save or contract is not None):
            raise ConfigError(
                "save and contract work on one bundle, and other_bundles were given",
                fix="leave other_bundles out, or save and contract",
            )
        kwargs: dict[str, Any] = {} if evidence_tokens is None else {"evidence_tokens": evidence_tokens}
        if contract is not None:
            kwargs["contract"] = load_contract(contract)
        result = await ask_async(
            [b, *extra],
            question.strip(),
            reader=self.reader,
            budgets=limits,
            synthesis=synthesis,
            angles=angles,
            **kwargs,
        )
        if save:
            result.saved = await asyncio.to_thread(save_answer, b.root, result)
            if result.saved.action != "skipped":
                self.bundles[bundle] = Bundle.open(b.root)  # the old object's listings predate the synthesis
                self._counts.pop(bundle, None)
        if result.synthesis is not None:
            result = result.model_copy(update={"synthesis": result.synthesis.model_copy(update={"trace": []})})
        return result.model_copy(update={"navigation": None})

    def check(
        self, bundle: str, max_diagnostics: int = DEFAULT_MAX_DIAGNOSTICS, contract: dict[str, Any] | None = None
    ) -> CheckSummary:
        """Check one bundle: error and warning counts and the first ``max_diagnostics`` findings; with a
        ``contract`` (the contract as data) every fact of it too."""
        positive("max_diagnostics", max_diagnostics)
        loaded = load_contract(contract) if contract is not None else None  # malformed: an error before any work
        # A fresh Bundle: the server runs check in a worker thread, and Bundle caches are not shared safely.
        fresh = Bundle.open(self.get(bundle).root)
        facts = check_contract(fresh, loaded) if loaded is not None else None
        report = check(fresh)
        ordered = sorted(report.diagnostics, key=lambda d: d.severity != "error")  # stable: errors first
        errors = sum(1 for d in ordered if d.severity == "error")
        return CheckSummary(
            bundle=bundle,
            ok=errors == 0,
            errors=errors,
            warnings=len(ordered) - errors,
            concepts=report.concepts,
            diagnostics=ordered[:max_diagnostics],
            total_diagnostics=len(ordered),
            truncated=len(ordered) > max_diagnostics,
            contract=facts,
        )


def concept_view(bundle: str, c: Concept, links: list[Link], max_bytes: int, start_line: int | None) -> ConceptView:
    """The tool view of a parsed concept."""
    lines = c.body.split("\n")
    if lines and lines[-1] == "" and len(lines) > 1:  # a final newline ends the last line, adds none
        lines.pop()
    first = c.body_start_line
    last = first + len(lines) - 1
    start = first if start_line is None else start_line
    if not first <= start <= last:
        raise ConfigError(
            f"start_line {start} is outside the body (lines {first}-{last})",
            fix=f"pass a start_line from {first} to {last}, or leave it out",
        )
    width = max(MIN_NUMBER_WIDTH, len(str(last)))
    shown, cut = number_lines(lines[start - first :], start, width, max_bytes)
    end = start + len(shown) - 1
    meta = c.meta
    return ConceptView(
        bundle=bundle,
        concept_id=c.id,
        path=c.path,
        title=c.title,
        type=meta.type,
        status=json_safe(meta.status),
        trust_tier=json_safe(meta.trust_tier),
        stale=meta.is_stale(),
        frontmatter=json_safe(c.frontmatter),
        body="\n".join(shown),
        start_line=start,
        end_line=end,
        last_line=last,
        truncated=cut,
        next_start_line=end + 1 if end < last else None,
        links=links,
    )


__all__ = ["BundleInfo", "BundleList", "BundleSet", "CheckSummary", "ConceptView", "SignpostListing", "json_safe"]
