"""Gold matching: which concepts cover which source lines, read once from the concepts' ``sources``.

A concept hits a gold span when one of its ``sources`` entries names the same source file (both paths
normalized by :func:`okf.eval.paths.normalize_source`) with an overlapping line range:
``a <= span.end_line and b >= span.start_line``. The score so depends only on provenance, never on how the
bundle was cut into concepts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from okf.checker.rules import original_source, source_citing
from okf.errors import BundleError
from okf.eval.paths import normalize_source
from okf.eval.questions import GoldSpan

if TYPE_CHECKING:
    from okf.bundle import Bundle


def cited_originals(bundle: Bundle, warnings: list[str]) -> dict[str, str]:
    """Resources an okf compile cites for its sources (the bundle's copy under ``/references/sources/`` or a
    ``--sources-url`` URL) mapped back to the source path under the compile folder, which gold spans name;
    look a resource up with :func:`okf.checker.rules.original_source` (as written, then as a URI)."""
    try:
        manifest = bundle.manifest()
    except BundleError as exc:
        warnings.append(f"compile manifest unreadable, mirrored sources not mapped to their originals: {exc}")
        return {}
    return source_citing(manifest)[1]


def overlaps(a: int, b: int, span: GoldSpan) -> bool:
    """Inclusive line ranges ``[a, b]`` and the span's lines share at least one line."""
    return a <= span.end_line and b >= span.start_line


@dataclass(frozen=True)
class Provenance:
    """One concept's claim to cover lines ``start..end`` of a source file."""

    concept: str
    source: str
    start: int
    end: int


@dataclass
class GoldIndex:
    """Source path -> the concepts covering its lines; built once per bundle, queried per span."""

    by_source: dict[str, list[Provenance]] = field(default_factory=dict)
    by_concept: dict[str, list[Provenance]] = field(default_factory=dict)
    concepts: int = 0
    entries_without_lines: int = 0
    unusable_resources: int = 0
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def from_records(cls, records: Iterable[tuple[str, str, tuple[int, int] | None]]) -> GoldIndex:
        """Build from ``(concept path, resource, lines or None)`` triples."""
        index = cls()
        by_source: dict[str, list[Provenance]] = defaultdict(list)
        by_concept: dict[str, list[Provenance]] = defaultdict(list)
        seen: set[str] = set()
        for concept, resource, lines in records:
            seen.add(concept)
            try:
                source = normalize_source(resource)
            except ValueError:
                index.unusable_resources += 1
                continue
            if lines is None:
                # Without a line range nothing can be said about which part of the file it covers.
                index.entries_without_lines += 1
                continue
            a, b = lines
            item = Provenance(concept, source, min(a, b), max(a, b))
            by_source[source].append(item)
            by_concept[concept].append(item)
        index.by_source, index.by_concept, index.concepts = dict(by_source), dict(by_concept), len(seen)
        return index

    @classmethod
    def from_bundle(cls, bundle: Bundle) -> GoldIndex:
        """Scan every concept's frontmatter ``sources``; unreadable concepts become warnings, not errors."""
        records: list[tuple[str, str, tuple[int, int] | None]] = []
        warnings: list[str] = []
        originals = cited_originals(bundle, warnings)
        for path in bundle.iter_concepts():
            try:
                concept = bundle.concept(path)
            except BundleError as exc:
                warnings.append(f"skipped for gold matching: {exc}")
                continue
            if not concept.meta.sources:
                records.append((path, "", None))
                continue
            for ref in concept.meta.sources:
                resource = original_source(originals, ref.resource) or ref.resource
                records.append((path, resource, (ref.lines[0], ref.lines[1]) if ref.lines else None))
        index = cls.from_records(r for r in records if r[1])
        index.concepts = len({r[0] for r in records})
        index.warnings = warnings
        return index

    def covering(self, span: GoldSpan) -> list[str]:
        """Concept paths that hit ``span``, sorted."""
        return sorted({p.concept for p in self.by_source.get(span.source, ()) if overlaps(p.start, p.end, span)})

    def hits(self, concept: str, span: GoldSpan) -> bool:
        """Whether ``concept`` records provenance overlapping ``span``."""
        return any(p.source == span.source and overlaps(p.start, p.end, span) for p in self.by_concept.get(concept, ()))

    def covered_sources(self) -> set[str]:
        """Source paths at least one concept records lines of."""
        return set(self.by_source)
