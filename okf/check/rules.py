"""The per-file rules of ``okf check``: concepts, ``log.md`` files, and source drift. No model calls."""

from __future__ import annotations

import hashlib
import os
import re
from collections import OrderedDict
from datetime import date, datetime
from pathlib import Path

from okf.bundle import Bundle, Concept, Diagnostic, Status, diagnostic
from okf.bundle import frontmatter as fm
from okf.bundle.citations import bundle_path, cited_changes
from okf.bundle.documents import read_text
from okf.bundle.paths import is_external, normalize
from okf.errors import BundleError
from okf.limits import MAX_TITLE_CHARS
from okf.markdown import headings
from okf.sources import line_starts, read_source_text, span_text_at
from okf.wikilinks import find_wikilinks

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def check_concept(bundle: Bundle, concept: Concept, now: datetime, sources: SourceFiles) -> list[Diagnostic]:
    """Everything okf can say about one parsed concept."""
    path = concept.path
    out = list(concept.diagnostics)
    if concept.body_start_line == 1:
        out.append(diagnostic("E004", path, 1, "no frontmatter block; OKF §4 requires one with 'type'"))
    elif not concept.meta.type:
        out.append(diagnostic("E003", path, 1, "frontmatter has no non-empty 'type' (OKF §4.1)"))
    description = (concept.meta.description or "").strip()
    if concept.body_start_line > 1 and not description:
        out.append(diagnostic("W130", path, 1, "no 'description'; listings and navigation show only the title"))
    if description and description.casefold().rstrip(".") == (concept.meta.title or "").strip().casefold().rstrip("."):
        out.append(diagnostic("W136", path, 1, "'description' only repeats the title: a reader learns nothing "
                              "from it about what the concept states"))
    if len(concept.title) > MAX_TITLE_CHARS:
        out.append(diagnostic("W135", path, 1, f"title is {len(concept.title)} characters, over {MAX_TITLE_CHARS}; "
                              "listings and navigation show it cut"))
    if concept.meta.status is Status.deprecated:
        out.append(diagnostic("W131", path, 1, "concept is deprecated"))
    if concept.meta.stale_after is not None and concept.meta.is_stale(now):
        out.append(diagnostic("W132", path, 1,
                              f"stale since {concept.meta.stale_after.isoformat()} (stale_after)"))
    for link in bundle.links(concept):
        if link.external:
            continue
        if link.path is None:
            out.append(diagnostic("W102", path, link.line, f"link [{link.text}]({link.target}) leaves the "
                                  "bundle; it is never followed"))
        elif not link.exists:
            out.append(diagnostic("W101", path, link.line, f"link [{link.text}]({link.target}) points at "
                                  "nothing in the bundle"))
    if "[[" in concept.body:  # Obsidian link syntax okf compile could not resolve: not a link in OKF
        for wikilink in find_wikilinks(concept.body):
            out.append(diagnostic("W103", path, concept.body_start_line + wikilink.line - 1,
                                  f"wikilink {wikilink.text} is not a link in OKF (unresolved); it reads as text"))
    out.extend(sources.drift(concept))
    out.extend(stale_citations(bundle, concept))
    return out


def stale_citations(bundle: Bundle, concept: Concept) -> list[Diagnostic]:
    """W151 for each cited bundle span (a ``/``-source with lines and sha256) that changed or is gone."""
    out: list[Diagnostic] = []
    for change in cited_changes(bundle, concept):
        start, end = change.ref.lines or (0, 0)
        if change.kind == "missing":
            what = f"cites {change.path}, which is no longer in the bundle"
        else:
            what = f"cites {change.path} lines {start}-{end}, which changed since it was written (sha256 differs)"
        out.append(diagnostic("W151", concept.path, 1, what))
    return out


def check_log(bundle: Bundle, rel: str) -> list[Diagnostic]:
    """A ``log.md``: frontmatter is tolerated (a warning); level-2 date headings must be ``YYYY-MM-DD``."""
    try:
        text, out = read_text(bundle.real_path(rel), rel)
    except BundleError as exc:
        return [diagnostic(getattr(exc, "code", "E006"), rel, exc.line, exc.message, exc.fix)]
    body, offset = text, 0
    try:
        parts = fm.split(text, rel)
        if parts.yaml_text is not None:
            out.append(diagnostic("W141", rel, 1, "log.md has frontmatter; it is read past, not used"))
            body, offset = parts.body, parts.body_start_line - 1
    except BundleError as exc:
        out.append(diagnostic("W141", rel, 1, f"log.md starts a frontmatter block: {exc.message}"))
    for heading in headings(body, offset):
        if heading.level != 2:
            continue
        valid = bool(_DATE.match(heading.text))
        if valid:
            try:
                date.fromisoformat(heading.text)
            except ValueError:
                valid = False
        if not valid:
            out.append(diagnostic("E020", rel, heading.start_line,
                                  f"date heading {heading.text!r} is not a YYYY-MM-DD date (OKF §9)"))
    return out


class SourceFiles:
    """Finds and caches the source files concepts cite, to compare span hashes (drift, W150)."""

    def __init__(self, bundle: Bundle, source_root: str | None) -> None:
        self.bundle = bundle
        if source_root:
            base = Path(source_root).expanduser()
            self.base = os.path.realpath(base if base.is_absolute() else bundle.root / base)
        else:
            self.base = os.path.realpath(bundle.root)
        self._texts: OrderedDict[str, tuple[str, list[int]] | None] = OrderedDict()  # text, line starts
        self._located: dict[str, str | None] = {}

    def _locate(self, resource: str) -> str | None:
        if resource not in self._located:
            self._located[resource] = self._find(resource)
        return self._located[resource]

    def _find(self, resource: str) -> str | None:
        if not resource or is_external(resource):
            return None
        try:
            rel = normalize(resource)
        except BundleError:
            return None
        real = os.path.realpath(os.path.join(self.base, rel))
        if not real.startswith(self.base.rstrip(os.sep) + os.sep) or not os.path.isfile(real):
            return None
        return real

    def _text(self, real: str) -> tuple[str, list[int]] | None:
        if real in self._texts:
            self._texts.move_to_end(real)
            return self._texts[real]
        try:
            source = read_source_text(Path(real)).text
            text: tuple[str, list[int]] | None = (source, line_starts(source))
        except (OSError, ValueError):
            text = None
        self._texts[real] = text
        if len(self._texts) > 64:
            self._texts.popitem(last=False)
        return text

    def drift(self, concept: Concept) -> list[Diagnostic]:
        """W150 for each cited span whose current hash differs from the recorded ``sha256``."""
        out: list[Diagnostic] = []
        for source in concept.meta.sources:
            if source.lines is None or not source.sha256 or bundle_path(source) is not None:
                continue  # a "/" resource is a bundle file (OKF §6.2): stale_citations reads it
            real = self._locate(source.resource)
            text = self._text(real) if real else None
            if text is None:
                continue
            start, end = source.lines
            span = span_text_at(text[0], text[1], start, end)
            if hashlib.sha256(span.encode("utf-8")).hexdigest() != source.sha256.strip().lower():
                out.append(diagnostic("W150", concept.path, 1,
                                      f"source {source.resource} lines {start}-{end} changed since the concept "
                                      "was written (sha256 differs)"))
        return out
