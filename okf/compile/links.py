"""Cross-links: source-to-source markdown links, section references and defined terms, as concept links."""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Callable
from urllib.parse import quote, unquote

from okf.compile.escape import code_lines, escapes
from okf.compile.state import DocPlan, Node
from okf.compile.structure import Section, roman
from okf.markdown import LINK_DESTINATION, code_spans

# No leading \b: a pattern that opens with literals lets the regex engine jump from one S, A or E to the next
# (4x faster on contracts); the word boundary before a match is checked in link_text. Skipping a match that
# fails that check never hides another: none can start inside it (its number part cannot open a keyword).
_REF = re.compile(
    r"(Sections?|SECTIONS?|Articles?|ARTICLES?|Schedules?|SCHEDULES?|Exhibits?|EXHIBITS?|"
    r"Annex|ANNEX|Appendix|APPENDIX)\s+(\d{1,3}(?:\.\d{1,3})*|[IVXLC]+\b|[A-Z]\b)"
)
_DEFINITION = re.compile(
    r"[\"\u201c]([A-Z][\w'&/\- ]{0,60}?)[\"\u201d]\s*,?\s*(?:shall\s+mean|means|mean|"
    r"shall\s+have\s+the\s+meanings?|has\s+the\s+meanings?)\b"
)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def ref_key(word: str, number: str) -> str:
    """The lookup key of a reference like ``Section 5.2`` or ``ARTICLE IV``."""
    kind = word.lower().rstrip("s")
    if kind in ("article", "part", "chapter"):
        value = str(roman(number)) if number.isalpha() else str(int(number)) if number.isdigit() else number
        return f"{kind}:{value}"
    if kind == "section":
        return f"section:{number}"
    return f"{kind}:{number}"


def index_document(plan: DocPlan, sections: list[Section]) -> list[Node]:
    """Fill the plan's anchor and key maps: which concept holds each heading; return its concepts in order."""
    concepts = []
    stack = [plan.node]
    while stack:  # collect concepts (order fixed by sorting on their first line below)
        folder = stack.pop()
        for child in folder.children:
            (stack.append(child) if child.is_dir else concepts.append(child))
    concepts.sort(key=lambda n: n.lines[0] if n.lines else 0)
    starts = [n.lines[0] for n in concepts if n.lines]

    def holder(line: int) -> Node | None:
        i = bisect.bisect_right(starts, line) - 1
        node = concepts[i] if i >= 0 else None
        return node if node and node.lines and node.lines[0] <= line <= node.lines[1] else None

    for section in sections:
        node = holder(section.start)
        if node is None:
            continue
        if section.anchor:
            plan.anchors.setdefault(section.anchor, node.path)
        if section.number:
            paths = plan.keys.setdefault(section.number, [])
            if node.path not in paths:
                paths.append(node.path)
    if plan.source.kind in ("text", "pdf"):
        for number, line in enumerate(plan.lines, 1):
            if "mean" not in line:
                continue
            for m in _DEFINITION.finditer(line):
                node = holder(number)
                if node is not None and "[" not in m.group(1):
                    plan.terms.setdefault(m.group(1), node.path)
    return concepts


def rewrite_markdown_links(
    body: str,
    plan: DocPlan,
    resolve: Callable[[str, str], str | None],
    asset: Callable[[str], str | None] | None = None,
) -> str:
    """Relative links to other source files (or to this one's anchors) become absolute concept links; links
    to other files (images, PDFs...) become links to their copies in the bundle (``asset`` gives the copy's
    link, recorded in ``plan.assets``; None when it cannot be copied, and the link stays). Links in code stay."""
    base = posixpath.dirname(plan.source.resource)
    code = code_spans(body) if "`" in body or "~~~" in body else []

    def sub(m: re.Match[str]) -> str:
        target = m.group(2)
        if _SCHEME.match(target) or target.startswith("/"):
            return m.group(0)
        if code and any(a <= m.start() < b for a, b in code):
            return m.group(0)
        path, _, anchor = target.partition("#")
        path = path.split("?", 1)[0]
        if not path:
            resource = plan.source.resource
        else:
            resource = posixpath.normpath(posixpath.join(base, unquote(path)))
            plan.links_to.add(resource)
        concept = resolve(resource, anchor)
        if concept:
            return f"{m.group(1)}/{concept}{m.group(3)}"
        if path and asset is not None:
            copy = asset(resource)
            if copy is not None:
                plan.assets[resource] = copy.lstrip("/")
                return f"{m.group(1)}{quote(copy)}{'#' + anchor if anchor else ''}{m.group(3)}"
        return m.group(0)

    return LINK_DESTINATION.sub(sub, body)


def link_text(
    body: str,
    plan: DocPlan,
    path: str,
    first_line: int,
    room: int | None = None,
    escape: bool = False,
    escaped: tuple[list[int], list[tuple[int, int]]] | None = None,
) -> str:
    """Rewrite section references and the first use of each defined term as links to their concepts.
    ``body`` is the document's lines from ``first_line`` on, joined by newlines. Links are written while
    they add at most ``room`` characters (so a concept stays within the judge's window); the rest stay text.
    ``escape`` backslash-escapes what markdown would read as markup (plain text, okf.compile.escape); no
    link is written into a line a renderer shows literally (an indented code block). ``escaped``: the body's
    escapes and code lines when already known (okf.compile.escape.TextEscapes.of_lines)."""
    if escape and escaped is not None:
        marks, code = escaped
    else:
        marks = escapes(body) if escape else []
        code = code_lines(body) if escape and ("    " in body or "\t" in body) else []
    if room is not None:
        room = max(0, room - len(marks))
    spans: list[tuple[int, int, str, str]] = []
    for m in _REF.finditer(body):
        if m.start() and (body[m.start() - 1].isalnum() or body[m.start() - 1] == "_"):  # \b, as in \w
            continue
        targets = plan.keys.get(ref_key(m.group(1), m.group(2)), [])
        if len(targets) == 1 and targets[0] != path:
            spans.append((m.start(), m.end(), m.group(0), targets[0]))
    if plan.terms:
        spans.extend(_term_uses(body, plan, path, first_line))
    if code:
        spans = [s for s in spans if not any(a <= s[0] <= b for a, b in code)]
    if not spans and not marks:
        return body
    spans.sort()
    out: list[str] = []
    pos = 0
    linked: set[str] = set()
    added = 0
    cut = _Marks(body, marks)
    for start, end, text, target in spans:
        key = f"{text}\0{target}"
        if start < pos or key in linked:
            continue
        cost = len(target) + 5  # "[", "](/", ")"
        if room is not None and added + cost > room:
            continue
        added += cost
        linked.add(key)
        out.append(cut(pos, start))
        out.append(f"[{cut(start, end)}](/{target})")
        pos = end
    out.append(cut(pos, len(body)))
    return "".join(out)


class _Marks:
    """Slices of a body with a backslash inserted before each marked offset (okf.compile.escape)."""

    def __init__(self, body: str, marks: list[int]) -> None:
        self.body, self.marks = body, marks

    def __call__(self, start: int, end: int) -> str:
        if not self.marks:
            return self.body[start:end]
        lo, hi = bisect.bisect_left(self.marks, start), bisect.bisect_left(self.marks, end)
        if lo == hi:
            return self.body[start:end]
        out, pos = [], start
        for at in self.marks[lo:hi]:
            out.append(self.body[pos:at])
            out.append("\\")
            pos = at
        out.append(self.body[pos:end])
        return "".join(out)


def _term_uses(body: str, plan: DocPlan, path: str, first_line: int) -> list[tuple[int, int, str, str]]:
    """Uses of defined terms in ``body`` (lines ``first_line``.. of the document), taken from the uses found
    once in the whole text: terms never span a line break and a line break passes both boundary checks, so
    a body's uses are exactly the whole text's uses inside its lines, shifted (one scan per document, not
    one per concept)."""
    if plan.term_hits is None:
        plan.term_hits = _scan_terms("\n".join(plan.lines), plan)
        starts, offset = [], 0
        for line in plan.lines:
            starts.append(offset)
            offset += len(line) + 1
        plan.line_starts = starts
    base = plan.line_starts[first_line - 1]
    hits = plan.term_hits
    i = bisect.bisect_left(hits, (base,))
    uses = []
    limit = base + len(body)
    while i < len(hits) and hits[i][0] < limit:
        start, end, term = hits[i]
        target = plan.terms[term]
        if target != path:
            uses.append((start - base, end - base, term, target))
        i += 1
    return uses


def _scan_terms(text: str, plan: DocPlan) -> list[tuple[int, int, str]]:
    """Uses of defined terms in ``text``, by offset: for each first word of a term, its occurrences (a
    C-level scan per word) checked against the terms starting with it, longest first. One regex
    alternation over hundreds of terms, or a Python loop over every capitalised word, is far slower."""
    by_word: dict[str, list[str]] = {}
    for term in sorted(plan.terms, key=len, reverse=True):
        by_word.setdefault(re.split(r"[\s]", term, maxsplit=1)[0].rstrip("'&/-"), []).append(term)
    hits = []
    for word, candidates in by_word.items():
        if not word:
            continue
        start = text.find(word)
        while start != -1:
            at, start = start, text.find(word, start + len(word))
            if at and (text[at - 1].isalnum() or text[at - 1] in '_"\u201c['):
                continue
            for term in candidates:
                end = at + len(term)
                if text.startswith(term, at) and (
                    end == len(text) or not (text[end].isalnum() or text[end] in '_"\u201d]')
                ):
                    hits.append((at, end, term))
                    break
    hits.sort()
    return hits
