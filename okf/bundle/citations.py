"""Sources that are files of the same bundle: a ``sources[].resource`` starting with ``/`` (OKF §6.2).

A synthesis (``okf ask --save``) records each concept it cites this way, with the cited ``lines`` of the
concept file and their ``sha256``. Here: which of those spans changed since (``okf check`` W151, a caveat in
``okf ask``), and the raw sources behind them, traced through the cited concepts (OKF §5.1: a consumer MAY
recurse into a source concept's own ``sources``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from okf.bundle.model import Concept, SourceRef
from okf.bundle.paths import normalize, path_readings
from okf.errors import BundleError
from okf.sources import decode, span_sha256

if TYPE_CHECKING:
    from okf.bundle import Bundle

# A synthesis citing a synthesis citing ...: the ledger follows this many concepts deep at most.
MAX_DEPTH = 4


def bundle_path(ref: SourceRef, bundle: Bundle | None = None) -> str | None:
    """The bundle path a ``/``-resource names (``/a/b.md`` -> ``a/b.md``), None for any other resource. Read
    as written when that is a file of ``bundle`` (a path a producer did not encode), else as a URI reference
    (``/a/b%23c.md#part`` -> ``a/b#c.md``; :func:`okf.bundle.paths.path_readings`)."""
    resource = (ref.resource or "").strip()
    if not resource.startswith("/") or resource.startswith("//"):
        return None
    readings = [r.lstrip("/") for r in path_readings(resource)]
    if bundle is not None and len(readings) > 1:
        try:
            if bundle.exists(normalize(readings[0])):
                return readings[0]
        except BundleError:
            pass
    return readings[-1] or None


@dataclass
class CitedChange:
    """A cited bundle span that no longer reads as recorded: ``changed`` (sha256 differs) or ``missing``."""

    ref: SourceRef
    path: str
    kind: str


def cited_changes(bundle: Bundle, concept: Concept) -> list[CitedChange]:
    """Every ``/``-source of ``concept`` recording ``lines`` and ``sha256`` whose span now hashes otherwise."""
    out: list[CitedChange] = []
    for ref in concept.meta.sources:
        if ref.lines is None or not ref.sha256 or (".md" not in ref.resource and "%" not in ref.resource):
            continue  # no reading of it names a concept (one that does holds ".md", or "%" escapes)
        path = bundle_path(ref, bundle)
        if path is None or not path.endswith(".md"):
            continue  # only concepts: a mirrored source (/references/sources/...) is checked for drift (W150)
        try:
            real = bundle.real_path(bundle.resolve(path))
            with open(real, "rb") as handle:
                text = decode(handle.read(), path).text
        except (BundleError, OSError):
            out.append(CitedChange(ref, path, "missing"))
            continue
        start, end = ref.lines
        if span_sha256(text, start, end) != ref.sha256.strip().lower():
            out.append(CitedChange(ref, path, "changed"))
    return out


@dataclass
class RawSources:
    """The ledger of one concept: raw source spans (``resource:start-end``), and the concepts gone through."""

    spans: list[str] = field(default_factory=list)
    through: list[str] = field(default_factory=list)


def _span(ref: SourceRef) -> str:
    resource = " ".join(str(ref.resource or "").split())
    return f"{resource}:{ref.lines[0]}-{ref.lines[1]}" if ref.lines and resource else resource


def raw_sources(bundle: Bundle | None, concept: Concept) -> RawSources:
    """``concept``'s sources as ledger entries; a source that is a concept of the bundle is replaced by that
    concept's own sources (recursively, cycle-safe, :data:`MAX_DEPTH` deep) and named in ``through``. A
    source that cannot be followed is kept as recorded, never dropped or invented."""
    out = RawSources()

    def follow(node: Concept, depth: int, seen: set[str]) -> None:
        for ref in node.meta.sources:
            path = bundle_path(ref, bundle) if bundle is not None else None
            target = None
            if path is not None and path.endswith(".md") and path not in seen and depth < MAX_DEPTH:
                try:
                    target = bundle.concept(path) if bundle is not None else None
                except BundleError:
                    target = None
            if target is None or path is None:
                span = _span(ref)
                if span and span not in out.spans:
                    out.spans.append(span)
                continue
            if target.id not in out.through:
                out.through.append(target.id)
            before = len(out.spans)
            follow(target, depth + 1, seen | {path})
            if len(out.spans) == before and not target.meta.sources:
                out.spans.append(f"{_span(ref)} (no raw source recorded)")

    follow(concept, 0, {concept.path})
    return out


__all__ = ["MAX_DEPTH", "CitedChange", "RawSources", "bundle_path", "cited_changes", "raw_sources"]
