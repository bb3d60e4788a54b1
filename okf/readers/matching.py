"""What the offline reader matches: a question's words and names, the fields it looks for them in, and
bodies read once into sentences with their terms indexed.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from itertools import pairwise

from okf.text.words import STOP_WORDS, compact, sentences, stem, synonyms, term_words, terms

# Names weigh more than other words when a judge sums coverage.
NAME_WEIGHT = 1.5
# Containment ("adaptimmune" inside "ADAPTIMMUNETHERAPEUTICSPLC") only for words at least this long.
CONTAINMENT_MIN = 5
# camelCase parts of a question word count as words of their own from this length on.
CAMEL_PART_MIN = 5
# A word as written, with inner dots, underscores, apostrophes and hyphens ("e.l.f.", "Bon-Ton").
# Questions whose answer is a figure, a date or a duration ("how long", "when", "what percentage").
_ASKS_FIGURE = re.compile(
    r"\b(?:how\s+(?:many|much|long|often|soon|far|old)|when|what\s+(?:date|time|period|percentage|amount|fee|"
    r"price|number|age))\b",
    re.IGNORECASE,
)
# "a, b or c" / "a or b": one or two words per item (an article may stand before the last).
_ALTERNATIVES = re.compile(
    r"(?:[^\W_][\w'’-]*(?:\s+[^\W_][\w'’-]*)?\s*,\s*)*(?:[^\W_][\w'’-]*\s+)?[^\W_][\w'’-]*\s+or\s+(?:(?:a|an|the)\s+)?"
    r"[^\W_][\w'’-]*(?:\s+[^\W_][\w'’-]*)?",
    re.IGNORECASE,
)
_LIST_SPLIT = re.compile(r"\s*,\s*|\s+or\s+", re.IGNORECASE)
WORD = re.compile(r"[^\W_]+(?:[._'’-][^\W_]+)*")


@dataclass(frozen=True)
class Question:
    """A question's content terms (each mapped to its word), its name-like terms and run-together names."""

    words: dict[str, str]
    names: frozenset[str]
    runs: tuple[str, ...]
    pairs: frozenset[tuple[str, str]]
    asks_figure: bool = False
    # Words offered as alternatives ("books, records or premises"): a body needs one of each group.
    alternatives: tuple[frozenset[str], ...] = ()

    @classmethod
    def parse(cls, text: str) -> Question:
        # Short camelCase parts ("git" of "GitOps") stay out: alone they match unrelated things ("GitHub");
        # longer ones ("button" of "SupportButton") are words in their own right.
        words = {
            t: w
            for t, w in term_words(text).items()
            if t in (w, stem(w)) or any(ch in w for ch in "._-") or len(t) >= CAMEL_PART_MIN
        }
        names: set[str] = set()
        runs: list[str] = []
        run: list[str] = []
        raw = WORD.findall(unicodedata.normalize("NFKC", text))
        for position, word in enumerate(raw):
            if _name_like(word, first=position == 0):
                names.update(terms(word))
                run.append(word)
                continue
            if len(run) > 1:
                runs.append(compact(" ".join(run)))
            run = []
        if len(run) > 1:
            runs.append(compact(" ".join(run)))
        ordered = terms(text)
        pairs = frozenset(pairwise(ordered))
        return cls(
            words,
            frozenset(names & set(words)),
            tuple(dict.fromkeys(runs)),
            pairs,
            bool(_ASKS_FIGURE.search(text)),
            _alternatives(text, set(words)),
        )

    @property
    def terms(self) -> set[str]:
        return set(self.words)

    def named(self, found: set[str] | list[str] | frozenset[str]) -> str:
        """The question's own words for ``found`` terms (and runs), in question order."""
        out = [word for term, word in self.words.items() if term in found]
        return ", ".join(out + [run for run in self.runs if run in found])

    def word(self, term: str) -> str:
        """The question's word for ``term`` (a run is its own word)."""
        return self.words.get(term, term)

    def explained(self, context: Field) -> set[str]:
        """Terms and runs ``context`` already answers; a found name answers all of its words ("Bon", "Ton")."""
        found_runs = [run for run in self.runs if context.has(run)]
        out = set(found_runs)
        for term, word in self.words.items():
            if context.has_word(term, word) or (
                term in self.names and any(compact(word) in r for r in found_runs)
            ):
                out.add(term)
        return out

    def weight(self, term: str) -> float:
        return NAME_WEIGHT if term in self.names else 1.0


def _alternatives(text: str, wanted: set[str]) -> tuple[frozenset[str], ...]:
    """Groups of content terms joined by "or" (with a comma list before it): "soliciting or hiring"."""
    groups: list[frozenset[str]] = []
    for match in _ALTERNATIVES.finditer(unicodedata.normalize("NFKC", text)):
        items = [item for item in (terms(part) for part in _LIST_SPLIT.split(match.group())) if item]
        if len({item[0] for item in items}) == 1 and all(len(item) > 1 for item in items):
            # A shared first word ("first refusal, first offer or first negotiation"): the heads differ.
            picked = [item[-1] for item in items]
        else:
            # The word next to each separator: the last of an item before it, the first of the one after.
            picked = [item[-1] for item in items[:-1]] + [items[-1][0]] if items else []
        group = frozenset(t for t in picked if t in wanted)
        if len(group) > 1:
            groups.append(group)
    return tuple(groups)


def _name_like(word: str, *, first: bool) -> bool:
    """A word that names something: capitalized mid-sentence, an acronym, camelCase, or an identifier."""
    if word.casefold() in STOP_WORDS or len(word) < 2:
        return False
    if any(ch.isdigit() for ch in word) or "_" in word:
        return True
    rest = word[1:]
    if any(ch.isupper() for ch in rest):  # RHDH, GitHub
        return True
    return word[0].isupper() and not first


@dataclass(frozen=True)
class Field:
    """Text a question term is looked for in: its terms and its letters run together."""

    terms: frozenset[str]
    letters: str

    @classmethod
    def of(cls, text: str) -> Field:
        return cls(frozenset(terms(text)), compact(text))

    def has(self, term: str) -> bool:
        """``term`` (or a synonym) is a term here, or a long enough term is written into a longer word."""
        if any(alt in self.terms for alt in synonyms(term)):
            return True
        return len(term) >= CONTAINMENT_MIN and term.isalpha() and term in self.letters

    def has_word(self, term: str, word: str) -> bool:
        """Like :meth:`has`, also finding the question's word as written inside a run-together word."""
        if self.has(term):
            return True
        # "accurai" (the stem of "Accuray") is not in "accurayinc"; the word as written is.
        letters = compact(word)
        return len(letters) >= CONTAINMENT_MIN and not letters.isdigit() and letters in self.letters


@dataclass(frozen=True)
class Body:
    """A body read once (cache it by sha256): its sentences with their terms in order, and where each term occurs."""

    sentences: tuple[str, ...]
    sentence_terms: tuple[tuple[str, ...], ...]
    where: dict[str, tuple[int, ...]]

    @property
    def terms(self) -> frozenset[str]:
        return frozenset(self.where)

    def has(self, term: str) -> bool:
        return any(alt in self.where for alt in synonyms(term))

    def sentences_with(self, term: str) -> set[int]:
        return {n for alt in synonyms(term) for n in self.where.get(alt, ())}


def read_body(text: str) -> Body:
    """Split ``text`` into plain sentences and their terms, indexed by term."""
    plain = tuple(sentences(unicodedata.normalize("NFKC", text)))
    per = tuple(tuple(terms(s)) for s in plain)
    where: dict[str, list[int]] = {}
    for n, sequence in enumerate(per):
        for term in sequence:
            places = where.setdefault(term, [])
            if not places or places[-1] != n:
                places.append(n)
    return Body(plain, per, {term: tuple(places) for term, places in where.items()})
