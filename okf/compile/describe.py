"""Signpost text: what each concept and directory is about, in words a reader can match to a question.

- A concept's ``description`` is the first sentence that states something (not its title again, not a meta
  line such as "Employee Handbook — Section 4.1.", not a table header); with subsections, it names them.
- A concept's ``tags`` are its key terms: terms it defines, acronyms with their expansions, names, and the
  words most particular to it within its document (tf-idf over the document's concepts).
- A directory's description lists its members by what they are about (an identifier title such as "18.8.2"
  or "Part 1.Chapter 2" is replaced by the member's own first words) and ends with the key terms of its
  whole subtree, so a selector sees what lies below without opening it.

Statistics are computed once per document at compile time and written into the signposts: every reader,
model or offline, reads the same words. Nothing here depends on a question.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from itertools import compress
from operator import mul

from okf.compile.state import Node
from okf.markdown import LEADING_MARKER, LINK_OR_IMAGE, MARKS_AND_TAGS
from okf.text.keyterms import caps_words, names, smallest, title_terms

DESCRIPTION_CHARS = 240
DIR_DESCRIPTION_CHARS = 1000
GROUP_DESCRIPTION_CHARS = 2500
CONCEPT_TAGS = 10
DIRECTORY_TERMS = 16
LABEL_WORDS = 8
CANDIDATES = 30
STEM_MARK = "\x00"
NAME_CHARS = 800

# Where a run of capitalized words ends: a space before a word that is not capitalized, or punctuation.
_NAME_END = re.compile(r"\s+(?![A-Z])|[^\w\s'’&-]")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=[A-Z0-9\"“(\[])")
_RULE = re.compile(r"\s*\|?[\s:|-]*")
# Structural words of identifiers: "Part 1.Chapter 2", "Section 93", "APP1.A1.1.Guidance.3.", "Schedule B".
_STRUCTURAL = frozenset(
    {
        "part",
        "chapter",
        "section",
        "sections",
        "article",
        "articles",
        "schedule",
        "annex",
        "appendix",
        "exhibit",
        "guidance",
        "app",
        "rule",
        "rules",
        "paragraph",
        "clause",
        "item",
        "no",
        "title",
        "subpart",
        "division",
        "page",
        "pages",
        "documents",
        "entries",
        "to",
    }
)
_IDENT_TOKEN = re.compile(r"[A-Za-z]{0,3}\d[\w]*|[ivxlcdm]+|[a-z]", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]{2,}")
# A line that only labels the document it is in: "Employee Handbook — Section 4.1.", "Document OPS-SOP-140,
# revision 2", "Version 3.0", "Owner: ...". Recognised by shape, not by words of one corpus: short, and
# made mostly of capitalised words, identifiers and numbers.
_META_CUE = re.compile(
    r"\b(?:section|revision|version|owner|owners|effective|updated|page|document|policy number)\b", re.IGNORECASE
)


def plain(line: str) -> str:
    """A line of markdown as plain prose: markers, link syntax, emphasis and code ticks dropped."""
    line = LEADING_MARKER.sub("", line[:2000])
    if "[" in line:
        line = LINK_OR_IMAGE.sub(r"\1", line)
    if "`" in line or "*" in line or "_" in line or "<" in line:
        line = MARKS_AND_TAGS.sub(" ", line)
    return " ".join(line.split())


def clip(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters, with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-") + "…"


def is_identifier(title: str) -> bool:
    """True when a title names a place, not a topic: "18.8.2", "Part 1.Chapter 2", "93)", "APP1.A1.1.Guidance.3."."""
    words = [w for w in re.split(r"[\s.;:,()\-–—/]+", title) if w]
    if not words:
        return True
    return all(w.casefold() in _STRUCTURAL or _IDENT_TOKEN.fullmatch(w) for w in words)


def _meta_line(text: str, title: str) -> bool:
    """A line that labels rather than states: the title again, or a short line of names and numbers."""
    folded = text.casefold().strip(" .:;-–—")
    if not folded or folded == title.casefold().strip(" .:;"):
        return True
    words = text.split()
    if len(words) > 24:
        return False
    if not _META_CUE.search(text):  # the cheap test first: most lines name no section, version or owner
        return False
    capital = sum(1 for w in words if w[:1].isupper() or any(ch.isdigit() for ch in w))
    return capital >= 0.6 * len(words)


def _stating(piece: str, title: str) -> str:
    """``piece`` (one sentence of a paragraph) stripped, when it states something: four words, a dozen letters
    and no meta line; else ""."""
    sentence = piece.strip().lstrip("-–—:|# ").strip()
    if len(sentence.split()) >= 4 and sum(map(str.isalpha, sentence[:200])) >= 12 and not _meta_line(sentence, title):
        return sentence
    return ""


# A line opening this many concepts of one document, word for word, is a running head, not what they say.
RUNNING_HEAD_MIN = 3
# How far into a concept its opening line is looked for (past blank and heading lines).
_OPENING_LOOK = 20


def running_heads(lines: list[str], spans: Iterable[tuple[int, int]], headings: set[int]) -> set[int]:
    """Line numbers of the lines that open ``RUNNING_HEAD_MIN`` or more of one document's concepts (``spans``,
    first and last line of each) with the same text: the chapter's name a source repeats above each of its
    passages ("REGULATORY REQUIREMENTS FOR AUTHORISED PERSONS ..." over 28 numbered passages), or a page
    header where each page opens a section. A description that opened with it would name every sibling the
    same. Only a concept's opening line is looked at: a header inside a body is the body's."""
    openers: dict[str, list[int]] = {}
    for start, end in spans:
        for number in range(start, min(end, start + _OPENING_LOOK) + 1):
            stripped = lines[number - 1].strip()
            if stripped and number not in headings:
                openers.setdefault(stripped, []).append(number)
                break
    return {n for found in openers.values() if len(found) >= RUNNING_HEAD_MIN for n in found}


def lead_sentence(
    lines: list[str],
    start: int,
    end: int,
    skip: set[int],
    title: str,
    heading_titles: Mapping[int, str] | None = None,
    running: set[int] | None = None,
) -> str:
    """The first sentence of lines ``start..end`` that states something, or "" when none does.

    Paragraphs are read in order; headings, running heads (``running``: :func:`running_heads`), fenced code,
    table rows, rules, meta lines and lines wholly in emphasis are passed over; a sentence needs four words
    and a dozen letters.
    """
    paragraph: list[str] = []
    in_fence = False

    def first_sentence() -> str:
        # The pieces ``_SENTENCE_END.split`` gives, cut one at a time: the first that states something is
        # usually the first piece, and splitting the whole paragraph (up to 800 characters and more) was wasted.
        text = " ".join(paragraph)
        at = 0
        for cut in _SENTENCE_END.finditer(text):
            if stated := _stating(text[at : cut.start()], title):
                return stated
            at = cut.end()
        return _stating(text[at:], title)

    for number in range(start, min(end, start + 300) + 1):
        raw = lines[number - 1]
        stripped = raw.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        heading = (number in skip and len(raw.split()) <= 15) or (running is not None and number in running)
        named = (heading_titles or {}).get(number)
        if named and not in_fence and stripped.casefold().startswith(named.casefold()):
            rest = stripped[len(named) :].lstrip(" .:;-–—")
            if len(rest.split()) >= 4:  # "5.2 Invoicing and Payment. Storage is invoiced monthly...": the rest
                raw, stripped, heading = rest, rest, False
        text = "" if in_fence or heading or stripped.startswith("|") or _RULE.fullmatch(raw) else plain(raw)
        if text and not paragraph and (_meta_line(text, title) or (stripped[:1] in "*_" and stripped[-1:] in "*_")):
            text = ""  # a meta line, or a line wholly in emphasis (a note about the document)
        if text:
            paragraph.append(text)
            if sum(map(len, paragraph)) < 800:
                continue
        if paragraph:
            found = first_sentence()
            if found:
                return found
            paragraph = []
    return first_sentence() if paragraph else ""


def describe_concept(
    lines: list[str],
    start: int,
    end: int,
    skip: set[int],
    title: str,
    subheadings: list[str],
    heading_titles: Mapping[int, str] | None = None,
    running: set[int] | None = None,
) -> str:
    """A concept's description: its lead sentence, and the subsections it covers when it has several.

    Returns "" when the text has no sentence that states something and no subsections (``okf check``
    reports a concept whose description is only its title).
    """
    lead = lead_sentence(lines, start, end, skip, title, heading_titles, running)
    covers = [h for h in dict.fromkeys(subheadings) if h.casefold() != title.casefold()]
    if len(covers) >= 2:
        listed = "Covers " + "; ".join(covers) + "."
        if lead:
            head = clip(lead, DESCRIPTION_CHARS * 2 // 3)
            return clip(f"{head} {listed}", DESCRIPTION_CHARS)
        return clip(listed, DESCRIPTION_CHARS)
    return clip(lead, DESCRIPTION_CHARS)


def concept_tags(
    candidates: Mapping[str, float], title: str, text: str, defined: Iterable[str], expansions: Mapping[str, str]
) -> list[str]:
    """Key terms of one concept: defined terms, acronyms (with expansion), names, then its most particular
    words within the document — these as terms marked with ``STEM_MARK``, to be shown as written later."""
    tags: list[str] = []
    seen: set[str] = set(title_terms(title))

    def add(tag: str) -> None:
        terms = title_terms(tag)
        if len(tags) < CONCEPT_TAGS and terms and not terms <= seen:
            tags.append(tag)
            seen.update(terms)

    for term in sorted(defined, key=str.casefold):
        add(term)
    # Names and acronyms are read from the opening (where a concept introduces them), to the end of the
    # name the bound falls in: never a name cut short ("Red Hat Deve").
    head = text[:NAME_CHARS]
    if len(text) > NAME_CHARS:
        end = _NAME_END.search(text, NAME_CHARS)
        head = text[: end.start()] if end else text
    caps = caps_words(head)
    for short, _n in sorted(caps.items(), key=lambda kv: (-kv[1], kv[0])):
        if short in expansions:
            add(f"{expansions[short]} ({short})")
        elif caps[short] >= 2 and len(short) <= 6:
            add(short)
    for name, n in sorted(names(head).items(), key=lambda kv: (-kv[1], kv[0]))[:4]:
        if n >= 2 or len(tags) < 3:
            add(name)
    for _, term in sorted((-score, t) for t, score in candidates.items()):
        if len(tags) >= CONCEPT_TAGS:
            break
        if term not in seen:
            tags.append(STEM_MARK + term)  # shown as written once the document's word forms are known
            seen.add(term)
    if not tags:
        # A title that already says all there is (a sentence-long title, "CEO, Adams Golf"): its own key
        # terms are the concept's, so a reader still sees the concept's vocabulary in its tags.
        tags = [STEM_MARK + t for _, t in sorted((-score, t) for t, score in candidates.items())]
    return tags[:CONCEPT_TAGS]


def shown_once(terms: Iterable[str], limit: int) -> list[str]:
    """The first ``limit`` of ``terms`` as shown, each written once (compared without case): terms are stems,
    and several stems can be written by one word ("sonata", "flow" and "sonataflow" are all read in
    "SonataFlow"), which a list then names once."""
    seen: set[str] = set()
    kept = []
    for term in terms:
        key = term.casefold()
        if key not in seen:
            seen.add(key)
            kept.append(term)
            if len(kept) == limit:
                break
    return kept


def candidate_scores(counts: Mapping[str, int], weights: Mapping[str, float]) -> dict[str, float]:
    """A concept's ``CANDIDATES`` best key-term candidates with their tf-idf (1 + log tf, times idf): what it
    adds to a directory. Computed with C-level maps: it runs once per concept of every compile."""
    keys = list(filter(weights.__contains__, counts))
    if not keys:
        return {}
    top = max(counts.values())
    if top >= len(_TF):  # the table of 1 + log(n) grows to the largest count seen (the same floats)
        _TF.extend([1.0 + math.log(n) for n in range(len(_TF), top + 1)])
    scores = list(map(mul, map(_TF.__getitem__, map(counts.__getitem__, keys)), map(weights.__getitem__, keys)))
    pairs: Iterable[tuple[float, str]] = zip(scores, keys)
    if len(scores) > CANDIDATES:
        # Only pairs scoring at least the CANDIDATES-th best score can be among the best (found by a sort of
        # the floats alone); sorting just those gives the full sort's first CANDIDATES, ties by the term.
        cut = sorted(scores, reverse=True)[CANDIDATES - 1]
        pairs = compress(pairs, map(cut.__le__, scores))
    best = sorted(pairs, reverse=True)[:CANDIDATES]
    return {t: score for score, t in best}


_TF = [0.0] + [1.0 + math.log(n) for n in range(1, 64)]


def subtree_scores(node: Node, scores_of: dict[str, dict[str, float]]) -> dict[str, float]:
    """Summed candidate scores of every concept below ``node``; directories are memoized in ``scores_of``
    under their own path, so describing a tree bottom-up sums each concept once."""
    held = scores_of.get(node.path)
    if held is not None:
        return held
    total: dict[str, float] = {}
    get = total.get
    for child in node.children:
        for term, score in (
            subtree_scores(child, scores_of) if child.is_dir else scores_of.get(child.path, {})
        ).items():
            total[term] = get(term, 0.0) + score
    scores_of[node.path] = total
    return total


def label(node: Node) -> str:
    """How a directory description names a member: its title, or its own first words when the title is an
    identifier ("18.8.2: A PFP Operator must disclose…")."""
    if not is_identifier(node.title):
        return node.title
    words = node.description.split()
    lead = " ".join(words[:LABEL_WORDS])
    if not lead:
        return node.title
    return f"{node.title.rstrip('.: ')}: {lead.rstrip('.,;:')}" + ("…" if len(words) > LABEL_WORDS else "")


Member = tuple[str, list[str]]  # a member's label and its own key terms
# The title compile gives the pieces of a long section (okf.compile.split): "Term (part 2 of 4)".
_PART = re.compile(r"^(?P<name>.+) \(part (?P<n>\d+) of (?P<of>\d+)\)$")


def joined_parts(members: list[Member]) -> list[Member]:
    """Runs of one section's pieces ("Term (part 1 of 4)", "Term (part 2 of 4)", ...) named once, as the section
    ("Term (4 parts)"), with the pieces' key terms together: the numbering says nothing a reader can route by."""
    out: list[Member] = []
    run: tuple[str, str] | None = None  # (section title, its part count) of the run out[-1] stands for
    for name, terms in members:
        part = _PART.match(name)
        key = (part["name"], part["of"]) if part else None
        if key is not None and key == run:
            merged = out[-1][1] + [t for t in terms if t not in out[-1][1]]
            out[-1] = (out[-1][0], merged)
            continue
        run = key
        out.append((f"{key[0]} ({key[1]} parts)", list(terms)) if key else (name, terms))
    return out


def mostly_identifiers(text: str) -> bool:
    """More than half of the words of ``text`` are numbers, numbering or structural words ("Sections 1 to 40",
    "Part 1.Chapter 2; 93); 94)"): a line that says where things are, not what they are about."""
    words = [w.strip(".,;:()[]") for w in text.split()]
    words = [w for w in words if w]
    if not words:
        return True
    # More than half are identifiers: decided as soon as the words read settle it either way.
    needed = len(words) // 2 + 1
    found = 0
    for seen, word in enumerate(words, 1):
        if _identifier_word(word):
            found += 1
            if found >= needed:
                return True
        elif seen - found > len(words) - needed:
            return False
    return False


@lru_cache(maxsize=65_536)
def _identifier_word(word: str) -> bool:
    pieces = [p for p in re.split(r"[.;:,()\-–—/]+", word) if p]
    return all(
        p.casefold() in _STRUCTURAL or p.casefold() in ("and", "more") or _IDENT_TOKEN.fullmatch(p) for p in pieces
    )


def content_label(name: str) -> str:
    """``name`` without the numbering it opens with, when words follow ("Sections 1 to 40: rules, authority"
    -> "rules, authority"; "Section 1.2 Act" -> "Act"); ``name`` itself when nothing but numbering is left."""
    words = name.split()
    start = 0
    while start < len(words) and _identifier_word(words[start].strip(".,;:()[]")):
        start += 1
        if words[start - 1].endswith(":"):
            break  # "Sections 1 to 40: rules, ...": what follows the colon is the content
    rest = " ".join(words[start:]).lstrip(":;,.-–— ")
    return rest if start and _WORD.search(rest) else name


def directory_description(
    members: list[Member] | list[str], key_terms: list[str], limit: int = DIR_DESCRIPTION_CHARS
) -> str:
    """``m1 (t, t); m2 (t, t); ... (and N more). Key terms: t1, t2, ...`` within ``limit`` characters.

    Each member is named with its own key terms, as many as its share of the room allows, so a reader sees
    two levels of what lies below. The directory's key terms not already shown close the line, taking at
    most a third of the room; members fill the rest, cut at a whole member. A line that would say mostly
    numbering (members titled "Section 1.2 Act", "Sections 1 to 40: ...") names the members by their words
    alone.
    """
    pairs = joined_parts([(m, []) if isinstance(m, str) else m for m in members])
    text = _described(pairs, key_terms, limit)
    if mostly_identifiers(text):
        worded = [(content_label(name), terms) for name, terms in pairs]
        if worded != pairs:
            text = _described(worded, key_terms, limit)
    return text


def _described(pairs: list[Member], key_terms: list[str], limit: int) -> str:
    shown = {t.casefold() for _, terms in pairs for t in terms}
    extra = [t for t in key_terms if t.casefold() not in shown]
    tail = ""
    if extra:
        tail = clip("Key terms: " + ", ".join(extra), max(80, limit // 3)).rstrip("…").rstrip(", ") + "."
    room = limit - len(tail) - 1
    share = max(0, room // max(1, len(pairs)) - 2)
    text = ""
    for i, (name, terms) in enumerate(pairs):
        name = name.rstrip(".")
        piece = name
        if terms:
            # The most terms whose "name (t1, t2, ...)" fits: its length is the name's, " (" and ")", the
            # terms' and a ", " between each two, so only the one that fits is written out.
            room_for_terms = max(share, len(name)) - len(name) - 3
            k, used = 0, -2
            for term in terms:
                if used + 2 + len(term) > room_for_terms:
                    break
                used += 2 + len(term)
                k += 1
            if k:
                piece = f"{name} ({', '.join(terms[:k])})"
        piece += "; " if i < len(pairs) - 1 else "."
        rest = len(pairs) - i
        if len(text) + len(piece) > room - 16 and rest > 1:
            text = text.rstrip("; ") + f"; and {rest} more."
            break
        text += piece
    return clip(f"{text} {tail}".strip(), limit)


def directory_terms(node: Node, scores_of: dict[str, dict[str, float]], limit: int = DIRECTORY_TERMS) -> list[str]:
    """Key terms of a directory's subtree: weighty in its concepts, rare in the rest of the document."""
    scores = subtree_scores(node, scores_of)
    exclude = set(title_terms(node.title))
    for child in node.children:
        exclude |= title_terms(child.title)
    return [t for _, t in smallest(limit, [(-score, t) for t, score in scores.items() if t not in exclude])]
