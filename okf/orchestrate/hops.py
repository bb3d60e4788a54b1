"""Second hops: names that relevant evidence introduces, and the question needs, become new angles.

"What position was held by the woman who portrayed Corliss Archer in Kiss and Tell?": the first walk finds
the film's page (it names Corliss Archer and Kiss and Tell) but not the position; that page says "starring
Shirley Temple as Corliss Archer". The name in the sentences that say the question's words, which the
question itself does not use, is the bridge (a sentence's first word too: "Catwoman is an
action-adventure tie-in video game based on the 2004 film of the same name"), and the next angle: walked on its own, the name leads the
selector to what the bundle says about it (its words of the question already in the evidence trimmed off). Only names at least as telling in the bundle as the question's median word are taken
(a word half the bundle says, "American", is no bridge), at most ``HOPS_PER_PART`` per part and round, in
the order the evidence says them, never one already tried; and only from evidence that says one of the
question's telling names (a clause of another contract than the one asked about bridges nothing).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from okf.orchestrate.crosscheck import Found, body_of
from okf.readers.angles import angle_key, name_spans
from okf.readers.matching import Field, Question, Unit
from okf.text.vocabulary import Vocabulary
from okf.text.words import STOP_WORDS, terms

HOPS_PER_PART = 2
# Lowercase words inside a name span ("and", "in", "of the"): where a span that is no title splits.
_JOINER = re.compile(r"(?:^|\s+)(?:[a-z][\w'’-]*\s+)*[a-z][\w'’-]*(?:\s+|$)")
# Capitalized words that name a date, not a thing ("27 September 1976"): never a bridge on their own.
_CALENDAR = frozenset(
    terms(
        "January February March April May June July August September October November "
        "December Monday Tuesday Wednesday Thursday Friday Saturday Sunday"
    )
)


def second_hops(
    part: str,
    evidence: list[Found],
    gap: list[Unit],
    vocabulary: Vocabulary | None,
    tried: set[frozenset[str]],
    resolves: Callable[[str], bool] = lambda name: False,
    only: Callable[[str, str], bool] | None = None,
    described: bool = False,
) -> tuple[list[tuple[str, str]], list[Found]]:
    """(angle text, the concept it came from) for the bridges the evidence of ``part`` introduces, and the
    evidence read to the end (a concept cut short by the limit yields its other names in a later round). A
    run of names joined by "and" that is no title (``resolves``) is two names ("Ann Lee and Bob Roe"). With
    ``only``, only names it accepts, given the path of the evidence saying them, are bridges (orchestration:
    names that are the title of a concept other than that evidence). With ``described``, only names of two
    words or more carrying the kind of a thing the question describes without naming it (``described_kinds``:
    "a conference" -> "America East Conference"), as written."""
    parsed = Question.parse(part, vocabulary)
    asked = set(terms(part))
    weights = sorted(u.weight for u in parsed.units) or [0.0]
    floor = weights[len(weights) // 2]
    said_units = [u for u in parsed.units if u not in gap]
    # The telling names some evidence says: evidence saying none of them is about something else (a clause
    # of another contract than the one asked about). A name no evidence says yet ("What movie did Pitof
    # direct ...": the game's page never names its film's director) is what the bridge may lead to.
    scope = [u for u in parsed.units if u.name and u.weight >= floor and u not in gap]
    # Words the question uses for a thing it does not name ("a conference"): a name carrying one
    # ("Southeastern Conference") is that thing, the likeliest bridge of all; those are taken first.
    common = {u.key for u in parsed.units if not u.name}
    kinds = common & described_kinds(part)
    if described:
        common = kinds
    names: list[tuple[bool, int, str]] = []  # (described, index of the evidence saying it, name)
    for k, f in enumerate(evidence):
        body = body_of(f.concept.body)
        if scope and not _in_scope(f, body, scope):
            continue  # evidence about something else than what the question names is no bridge
        for n in _passage(body, said_units):
            names += [(bool(common & set(terms(name))), k, name) for name in _names(body.sentences[n], resolves)]
    unread = Counter(k for _, k, _ in names)  # names of each evidence not yet tried

    def read() -> list[Found]:
        return [f for k, f in enumerate(evidence) if not unread[k]]

    out: list[tuple[str, str]] = []
    for kind, k, name in sorted(names, key=lambda entry: not entry[0]):
        if described and (not kind or len(name.split()) < 2):
            continue  # left for a later round's bridges (a one-word heading, "Assignee", names no one thing)
        # The name as written when it is a title ("Southeastern Conference"), else without the question's
        # own words at its ends ("CEO of Viglen" -> "Viglen").
        texts = [name] if described else [name, _new_words(name, asked)] if kind else [_new_words(name, asked)]
        for text in dict.fromkeys(texts):
            words = [t for t in terms(text) if t.isalpha() and t not in _CALENDAR and t not in asked]
            # A thing the question describes by its kind ("a conference"), named in full as the title of a
            # concept (``only``), is that one thing however common its words are ("America East Conference").
            whole = only is not None and text == name and not kinds.isdisjoint(terms(name))
            if not words or not (whole or _telling(words, vocabulary, floor)):
                continue
            key = angle_key(text)
            if key in tried or (only is not None and not only(text, evidence[k].entry.path)):
                continue
            if len(out) >= HOPS_PER_PART:
                return out, read()
            tried.add(key)
            out.append((text, evidence[k].entry.path))
            break
        unread[k] -= 1
    return out, read()


_INDEFINITE = re.compile(r"\b(?:a|an)\s+([^?.!;:,]*)", re.IGNORECASE)
KIND_WORDS = 4


def described_kinds(text: str) -> set[str]:
    """The terms of the things ``text`` describes by their kind without naming them: the last content word of
    each phrase an indefinite article opens ("in a conference that ..." -> conference; "a civil war that ended"
    -> war), up to the first stop word or ``KIND_WORDS`` words."""
    kinds: set[str] = set()
    for match in _INDEFINITE.finditer(text):
        last = ""
        for word in match.group(1).split()[:KIND_WORDS]:
            found = terms(word)
            if not found:
                break
            last = found[-1]
        if last:
            kinds.add(last)
    return kinds


def _in_scope(f: Found, body, scope: list[Unit]) -> bool:
    """The evidence says one of the question's telling names (in its title, path or body)."""
    head = Field.of(" ".join([f.concept.title, f.entry.path.replace("/", " ").replace("-", " ")]))
    return any(head.has_unit(u) or body.has_unit(u) for u in scope)


_FIRST = re.compile(r"\W*([A-Z][^\W_]+)\b")


def _names(sentence: str, resolves: Callable[[str], bool]) -> list[str]:
    """The names a sentence says; a span that is no title (``resolves``) is the runs of capitalized words its
    lowercase words join ("Ann Lee and Bob Roe", "Tata Consultancy Services in Kochi": two names each)."""
    out: list[str] = []
    spans = name_spans(sentence)
    # A sentence's first word is capitalized anyway, and name_spans leaves it out alone; but a paragraph
    # begins with what it is about ("Catwoman is an action-adventure tie-in video game ..."): the first
    # word counts when it is no stop word (a bridge must still be a title, ``only``).
    first = _FIRST.match(sentence)
    if (
        first
        and first.group(1).casefold() not in STOP_WORDS
        and not any(span.start == first.start(1) for span in spans)
    ):
        out.append(first.group(1))
    for span in spans:
        pieces = [p.strip() for p in _JOINER.split(span.text) if p.strip()]
        out += pieces if len(pieces) > 1 and not resolves(span.text) else [span.text]
    return out


def _new_words(name: str, asked: set[str]) -> str:
    """The name without the words the question already says at either end ("CEO of Viglen" -> "Viglen")."""
    words = name.split()
    while words and (set(terms(words[0])) <= asked or not terms(words[0])):
        words.pop(0)
    while words and (set(terms(words[-1])) <= asked or not terms(words[-1])):
        words.pop()
    return " ".join(words)


def _passage(body, units: list[Unit]) -> list[int]:
    """Sentences of ``body`` saying a unit of the question, in order (all sentences when none does)."""
    places = sorted({n for u in units for n in body.sentences_with(u)})
    return places or list(range(len(body.sentences)))


def _telling(words: list[str], vocabulary: Vocabulary | None, floor: float) -> bool:
    if vocabulary is None:
        return True
    return max(vocabulary.idf(t) for t in words) >= floor
