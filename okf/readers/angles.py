"""The offline planner: a question as parts (sub-questions) and the angles to walk each by. Deterministic.

Angles are other questions with the same intent, made of the question's own words and the bundle's
vocabulary (never of the bundle's documents):

- the question as asked (origin ``question``; one part of a decomposed question: ``subquestion``);
- **viewpoint**: the sides of a nested question, each naming something: the thing it describes ("the woman
  who portrayed Corliss Archer in the film Kiss and Tell") apart from what it asks of it;
- **granularity**: the specific things it names (its names) with its weightiest other word, or, without
  names, its rarest words; then the general concept (its words without the names);
- **vocabulary**: the question in the bundle's words: acronyms the bundle defines expanded (or expansions
  shortened), misspellings corrected to the bundle's terms (``.okf/vocabulary.json``).

Parts: several questions in one ("What is X? How is Y done?", "... and how ..."), or one question about two
or more named things ("Who is older, A or B?", "Are A and B both ...?"): each thing with what is asked of it.
Angles that say the same terms as an earlier one are dropped (:func:`angle_key`), and so are angles that
say too little of what the part says, weighed by rarity in the bundle (``MIN_WEIGHT_SHARE``), or only its
common words.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from okf.readers.matching import Question
from okf.readers.planning import MAX_ANGLES, MAX_PARTS, PlannedAngle, PlannedPart
from okf.text.vocabulary import Vocabulary
from okf.text.words import STOP_WORDS, terms

# Angles walked first per part when the caller leaves it to the planner: the part and two other ways of
# asking it; each part of a decomposed question itself and one more (the whole question walks beside them).
AUTO_ANGLES = 3
AUTO_PART_ANGLES = 2
# An angle other than the part itself says at least this share of the part's weight, and a word at least as
# rare as the part's median word: one made of the bundle's common words ("Developer Hub see") is found
# everywhere and tells nothing.
MIN_WEIGHT_SHARE = 0.4
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*(?:[./&-][^\W_]+)*")
# Lower-case words that may stand inside a name ("Lord of the Rings", "First for Women", "Kiss and Tell").
_CONNECTORS = frozenset(
    {
        "of",
        "for",
        "the",
        "and",
        "de",
        "la",
        "le",
        "du",
        "von",
        "van",
        "der",
        "den",
        "del",
        "da",
        "di",
        "y",
        "&",
        "on",
        "a",
        "an",
        "from",
        "to",
        "in",
        "at",
        "with",
        "without",
        "ul",
        "al",
        "el",
        "bin",
        "ibn",
        "ben",
        "ter",
        "ten",
        "zu",
    }
)
# A quoted title: "Poleconomy", “Evolution” (straight or curly double quotes), at most QUOTED_CHARS long.
_QUOTED = re.compile(r'(["“])([^"“”\n]+)(["”])')
QUOTED_CHARS = 80
# A question about two named things at once says so with one of these (with "and"; "or" needs no cue).
_BOTH = frozenset({"both", "same", "either", "neither", "between", "common", "together"})
_WH = r"(?:what|how|who|whom|whose|when|where|which|why)"
_QUESTIONS = re.compile(r"(?<=[?;])\s+")
_AND_WH = re.compile(rf",?\s+and\s+(?={_WH}\b)", re.IGNORECASE)
_RELATIVE = re.compile(r"\b(?:who|whom|whose|which|that|where)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Span:
    """A run of words naming something, as written, with its character offsets."""

    text: str
    start: int
    end: int


def angle_key(text: str) -> frozenset[str]:
    """What makes two angles the same: the set of their content terms (order, case and stop words aside)."""
    return frozenset(terms(text))


def plan_offline(question: str, vocabulary: Vocabulary | None, count: int | None = None) -> list[PlannedPart]:
    """The parts of ``question``, each with its angles in order of use (the part itself first, at most
    MAX_ANGLES, at least ``count`` when that many distinct ones exist; the caller walks the first ones and
    keeps the others for later). Empty when the question has no content words."""
    text = " ".join(unicodedata.normalize("NFKC", question).split())
    if not terms(text):
        return []
    parts = split_parts(text)
    origin = "question" if len(parts) == 1 else "subquestion"
    return [PlannedPart(question=part, angles=_angles(part, vocabulary, origin)) for part in parts]


def split_parts(text: str) -> list[str]:
    """Sub-questions of ``text``: its questions, its clauses joined by "and what/how/...", or one per named
    thing it compares; ``[text]`` when it is one question about one thing."""
    pieces = [p.strip() for p in _QUESTIONS.split(text) if terms(p)]
    if len(pieces) < 2:
        # "What is X and how is Y done?": a second clause that names something of its own is its own question
        # ("... and who died in 2007?" only says more of the same one).
        pieces = [p.strip(" ,") for p in _AND_WH.split(text) if terms(p)]
        if len(pieces) >= 2 and not all(_names_something(p) for p in pieces):
            pieces = []
    if len(pieces) >= 2:
        return pieces[:MAX_PARTS]
    compared = _compared(text)
    return compared[:MAX_PARTS] if len(compared) >= 2 else [text]


def _names_something(text: str) -> bool:
    return any(any(ch.isalpha() for ch in span.text) for span in name_spans(text))


def _compared(text: str) -> list[str]:
    """One part per named thing a question compares ("Who is older, A or B?"): the question with the others
    taken out. Empty unless two or more names are joined by "or" (or by "and" with a cue such as "both")."""
    spans = name_spans(text)
    cue = bool(_BOTH & {w.casefold() for w in _WORD.findall(text)})
    if cue:  # "Are Random House Tower and 888 7th Avenue both ...": the one run holds both names
        spans = [piece for span in spans for piece in _split_and(span)]
    groups: list[list[Span]] = []
    for span in spans:
        if groups:
            between = text[groups[-1][-1].end : span.start].strip(' "“”').casefold()
            if between in {"or", ", or", ","} or (cue and between in {"and", ", and"}):
                groups[-1].append(span)
                continue
        groups.append([span])
    group = max(groups, key=len, default=[])
    if len(group) < 2:
        return []
    parts = []
    for keep in group:
        # The question with every other compared name taken out, with the word joining it to its neighbour.
        cuts = []
        for n, span in enumerate(group):
            if span is keep:
                continue
            start, end = (span.start, group[n + 1].start) if n == 0 else (group[n - 1].end, span.end)
            cuts.append((start, end))
        out, last = [], 0
        for start, end in cuts:
            out.append(text[last:start])
            last = max(last, end)
        out.append(text[last:])
        parts.append(" ".join("".join(out).replace(" ,", ",").split()))
    return parts


def _split_and(span: Span) -> list[Span]:
    """A run of names split where " and " joins two of them."""
    out: list[Span] = []
    offset = 0
    for piece in re.split(r"(\s+and\s+)", span.text):
        if piece.strip() and piece.strip().casefold() != "and":
            out.append(Span(piece, span.start + offset, span.start + offset + len(piece)))
        offset += len(piece)
    return out if len(out) > 1 else [span]


def name_spans(text: str) -> list[Span]:
    """Runs of words naming something, as written, in order: a quoted title ("Poleconomy"), or capitalized
    words, acronyms and words with digits, joined by short lower-case words inside a name ("Lord of the
    Rings", "Mahbub ul Haq"). A capitalized small word stands in a name before another capitalized word
    ("The Hard Easy", "Am Rong"). A question's first word (capitalized anyway) counts when it is an acronym,
    carries digits, or the next word is a name too ("Ralph Hefferline was ...")."""
    return list(_name_spans(text))


@lru_cache(maxsize=20_000)
def _name_spans(text: str) -> tuple[Span, ...]:
    # Remembered per text: the second hops and the cross-check of every round read the same evidence sentences.
    spans: list[Span] = []
    last = 0
    for quoted in _QUOTED.finditer(text):
        spans += _runs(text, last, quoted.start())
        inner = quoted.group(2)
        if inner.strip() and len(inner) <= QUOTED_CHARS:
            spans.append(Span(inner, quoted.start(2), quoted.end(2)))
        last = quoted.end()
    return (*spans, *_runs(text, last, len(text)))


def _runs(text: str, begin: int, end: int) -> list[Span]:
    """The runs of names in ``text[begin:end]`` (see :func:`name_spans`)."""
    words = list(_WORD.finditer(text, begin, end))
    spans: list[Span] = []
    run: list[re.Match[str]] = []
    pending: list[re.Match[str]] = []

    def close() -> None:
        if run:
            spans.append(Span(text[run[0].start() : run[-1].end()], run[0].start(), run[-1].end()))

    # A word is the text's first when only white space stands before it (``text[:start].strip()`` is empty).
    lead = len(text) - len(text.lstrip())
    for position, match in enumerate(words):
        word = match.group()
        following = words[position + 1].group() if position + 1 < len(words) else ""
        first = match.start() <= lead
        first = first and not (following and _capital(following, first=False) and word.casefold() not in STOP_WORDS)
        previous = (pending or run)[-1] if run else None
        if previous is not None and text[previous.end() : match.start()].strip():
            # Punctuation between two words ends a name: "Outer Space", "Glen or Glenda" are two.
            close()
            run, pending = [], []
        capital = _capital(word, first=first) or (
            not first
            and word[:1].isupper()
            and bool(following)
            and _capital(following, first=False)
            and not text[match.end() : words[position + 1].start()].strip()
        )
        if (capital and (not pending or word[:1].isupper())) or (run and pending and word[:1].isupper()):
            run.extend(pending if run else [])
            pending = []
            run.append(match)
        elif run and word.casefold() in _CONNECTORS and len(pending) < 2:
            pending.append(match)
        else:
            close()
            run, pending = ([match] if capital else []), []
    close()
    return spans


@lru_cache(maxsize=50_000)
def _capital(word: str, *, first: bool) -> bool:
    if any(ch.isdigit() for ch in word):
        return True
    letters = [ch for ch in word if ch.isalpha()]
    if len(letters) >= 2 and all(ch.isupper() for ch in letters):
        return True
    if any(ch.isupper() for ch in word[1:]) and any(ch.islower() for ch in word):
        return True  # camelCase, McBride
    return word[:1].isupper() and not first and word.casefold() not in STOP_WORDS


def _angles(part: str, vocabulary: Vocabulary | None, origin: str) -> list[PlannedAngle]:
    """The angles of one part, the part first, then the others in order of use, distinct."""
    candidates = [PlannedAngle(text=part, origin=origin)]  # type: ignore[arg-type]
    sides = viewpoints(part)
    candidates += [PlannedAngle(text=t, origin="viewpoint") for t in sides[:1]]
    narrow, broad = granularity(part, vocabulary)
    if narrow:
        candidates.append(PlannedAngle(text=narrow, origin="granularity"))
    candidates += [PlannedAngle(text=t, origin="viewpoint") for t in sides[1:]]
    substituted = in_bundle_words(part, vocabulary)
    if substituted:
        candidates.append(PlannedAngle(text=substituted, origin="vocabulary"))
    if broad:
        candidates.append(PlannedAngle(text=broad, origin="granularity"))
    out: list[PlannedAngle] = []
    seen: set[frozenset[str]] = set()
    whole = _weight(part, vocabulary)
    weights = sorted(u.weight for u in Question.parse(part, vocabulary).units if u.known) or [0.0]
    median = weights[len(weights) // 2]
    for n, angle in enumerate(candidates):
        key = angle_key(angle.text)
        if not key or key in seen:
            continue
        if n and not _telling(angle.text, vocabulary, whole, median):
            continue  # says too little of the question, or only its common words: found everywhere
        seen.add(key)
        out.append(angle)
    return out[:MAX_ANGLES]


def _telling(text: str, vocabulary: Vocabulary | None, whole: float, median: float) -> bool:
    """An angle says at least MIN_WEIGHT_SHARE of the part's weight and a word at least as rare in the bundle
    as the part's median word."""
    units = [u for u in Question.parse(text, vocabulary).units if u.known]
    return sum(u.weight for u in units) >= MIN_WEIGHT_SHARE * whole and any(u.weight >= median for u in units)


def _weight(text: str, vocabulary: Vocabulary | None) -> float:
    """What ``text`` says, weighed as the offline reader weighs the question's words (rarity in the bundle)."""
    return sum(u.weight for u in Question.parse(text, vocabulary).units if u.known)


def viewpoints(text: str) -> list[str]:
    """The sides of a nested question that each name something: the described thing (the noun phrase before
    "who/which/that/..." and its clause) and what is asked of it (the rest)."""
    match = next((m for m in _RELATIVE.finditer(text) if _after_noun(text[: m.start()])), None)
    if match is None:
        return []
    before, clause = text[: match.start()], text[match.start() :]
    head = _noun_phrase(before)
    described = f"{head} {clause}".strip(" ?")
    asked = before.strip(" ,?")
    return [side for side in (described, asked) if name_spans(side) and terms(side)]


def _after_noun(before: str) -> bool:
    """A relative pronoun follows a noun ("the woman who", "a war, that"), not a preposition ("of which")."""
    words = _WORD.findall(before)
    return bool(words) and words[-1].casefold() not in STOP_WORDS


def _noun_phrase(before: str) -> str:
    """The words just before a relative pronoun, back to the previous verb-like stop word or punctuation."""
    words = before.rstrip(" ,").split(" ")
    out: list[str] = []
    for word in reversed(words):
        bare = word.strip(",;:").casefold()
        if word.endswith((",", ";", ":")) or (bare in STOP_WORDS and bare not in {"a", "an", "the"} and out):
            break
        out.append(word)
        if len(out) >= 6:
            break
    return " ".join(reversed(out))


def granularity(text: str, vocabulary: Vocabulary | None) -> tuple[str, str]:
    """(narrow, broad): the telling names (at least as rare in the bundle as the question's median word)
    with the weightiest other word, or without such names the rarer words; and, only when the question's
    names are no telling ones (a product name every concept says), its words without the names.
    Only words the bundle knows are used (an uncorrectable misspelling would only add noise). Either is
    empty when it would say nothing new."""
    parsed = Question.parse(text, vocabulary)
    known = [u for u in parsed.units if u.known]
    if not known:
        return "", ""
    weights = sorted(u.weight for u in known)
    median = weights[len(weights) // 2]
    by_key = {u.key: u for u in known}
    spans = [s for s in name_spans(text) if any(by_key[t].weight >= median for t in terms(s.text) if t in by_key)]
    named = {t for span in name_spans(text) for t in terms(span.text)}
    plain = [u for u in known if u.key not in named]
    if spans:
        # The general concept would drop what the question is about (a named contract, a person): no angle.
        heaviest = max(plain, key=lambda u: (u.weight, -known.index(u)), default=None)
        return " ".join([s.text for s in spans] + ([heaviest.word] if heaviest else [])), ""
    rare = [u.word for u in known if u.weight > median]
    has_names = any(s.text for s in name_spans(text))
    broad = " ".join(u.word for u in plain) if has_names and len(plain) >= 2 else ""
    return (" ".join(rare) if rare and len(rare) < len(parsed.units) else ""), broad


def in_bundle_words(text: str, vocabulary: Vocabulary | None) -> str:
    """``text`` with each acronym the bundle defines expanded (or, when it has none, each expansion it spells
    out shortened), and each misspelled word replaced by the bundle's term; empty when nothing changes."""
    if vocabulary is None:
        return ""
    out: list[str] = []
    expanded = corrected = False
    for word in _WORD.findall(text):
        replacement = word
        if word.isupper() and 2 <= len(word) <= 8 and word.isalpha():
            long = vocabulary.acronyms.get(word)
            if long:
                replacement, expanded = long, True
        elif word.casefold() not in STOP_WORDS and word.isalpha() and len(word) >= 5:
            stemmed = terms(word)
            fixed = vocabulary.correction(stemmed[0], word.casefold()) if len(stemmed) == 1 else None
            if fixed:
                replacement, corrected = fixed, True
        out.append(replacement)
    joined = " ".join(out)
    if not expanded:
        short = _shorten(joined, vocabulary)
        if short != joined:
            return short
    return joined if expanded or corrected else ""


def _shorten(text: str, vocabulary: Vocabulary) -> str:
    """Expansions the bundle abbreviates, written as their acronym ("Private Financing Platform" -> "PFP")."""
    sequence = terms(text)
    for size in range(min(5, len(sequence)), 1, -1):
        for start in range(len(sequence) - size + 1):
            short = vocabulary.acronym_for(tuple(sequence[start : start + size]))
            if short:
                long = vocabulary.acronyms.get(short, "")
                replaced = re.sub(rf"\b{re.escape(long)}\b", short, text, flags=re.IGNORECASE)
                if replaced != text:
                    return replaced
    return text
