"""What the judge is shown of a concept, and the receipt that proves it without carrying the text."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from okf.bundle.model import Concept
from okf.markdown import atx_heading, fenced_lines
from okf.models import Receipt
from okf.readers.base import Document

LONG_LINE = 2


def heading_titles(text: str) -> list[str]:
    """ATX heading texts of ``text``, outside fenced code.

    A line scan rather than okf.markdown's full parse: headings are only a hint to the judge, and a full
    markdown parse of every judged body cost more than the rest of the walk put together.
    """
    titles: list[str] = []
    lines = text.split("\n")
    fenced = fenced_lines(lines) if "```" in text or "~~~" in text else None
    for n, line in enumerate(lines):
        if line.lstrip(" ").startswith("#") and not (fenced and fenced[n]):
            heading = atx_heading(line)
            if heading and heading[1]:
                titles.append(heading[1])
    return titles


@dataclass(frozen=True)
class Offered:
    """A concept's body as offered to the judge: the document and the file lines it came from."""

    document: Document
    start_line: int
    end_line: int
    truncated: bool


def judged_text(body: str, body_chars: int) -> tuple[str, bool]:
    """The body cut to at most ``body_chars`` characters, at a line end when one exists, and whether it was cut.

    Cutting at a line end keeps the text an exact run of file lines, so a receipt's sha256 can be checked
    against the file with :func:`okf.sources.span_sha256`. Trailing newlines are dropped for the same reason.
    """
    text = body.rstrip("\n")
    if len(text) <= body_chars:
        return text, False
    cut = text[:body_chars]
    last_newline = cut.rfind("\n")
    if last_newline > 0:
        return cut[:last_newline].rstrip("\n"), True
    # A first line longer than the whole allowance (compile cannot split inside a line) is shown whole, up to
    # LONG_LINE times the allowance, so the judge reads the unit a receipt can name; beyond that it is cut.
    first = text.split("\n", 1)[0]
    if len(first) <= LONG_LINE * body_chars:
        return first, len(first) < len(text)
    return first[:body_chars], True


# Offers kept per process (oldest dropped first): the walks of an orchestration, its shortlist's word count
# and later questions offer the concepts the bundle keeps loaded again.
OFFERS_KEPT = 4096
_OFFERS: dict[tuple[str, int], tuple[Concept, Offered]] = {}


def offer(concept: Concept, body_chars: int) -> Offered:
    """The document the judge sees for ``concept`` (id, title, truncated text, its sha256, headings);
    remembered for the same concept object (the bundle's cache hands out one per loaded concept)."""
    key = (concept.path, body_chars)
    known = _OFFERS.get(key)
    if known is not None and known[0] is concept:
        return known[1]
    offered = _offer(concept, body_chars)
    _OFFERS[key] = (concept, offered)
    if len(_OFFERS) > OFFERS_KEPT:
        del _OFFERS[next(iter(_OFFERS))]  # the oldest
    return offered


def _offer(concept: Concept, body_chars: int) -> Offered:
    text, truncated = judged_text(concept.body, body_chars)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    titles = heading_titles(text)
    document = Document(id=concept.id, title=concept.title, text=text, sha256=digest, headings=titles)
    end_line = concept.body_start_line + text.count("\n")
    return Offered(document, concept.body_start_line, end_line, truncated)


def receipt(evidence_id: str, path: str, offered: Offered) -> Receipt:
    """The receipt of what the judge read: lines and hash, never the text."""
    return Receipt(
        evidence_id=evidence_id,
        path=path,
        start_line=offered.start_line,
        end_line=offered.end_line,
        sha256=offered.document.sha256,
        truncated=offered.truncated,
    )
