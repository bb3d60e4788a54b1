"""A bundle's vocabulary as a reader uses it: how rare each term is, misspellings read past, acronyms.

``okf compile`` writes ``.okf/vocabulary.json`` (see okf.compile.vocabulary): the number of concepts holding
each term and the acronyms the sources define. A reader uses it the way a person uses their sense of a
collection's language: a word every concept carries ("agreement" in a folder of contracts) tells little,
a word three concepts carry tells much; "envirnment" means "environment" when the bundle only knows the
latter; "PFP" and "Private Financing Platform" name one thing. These are statistics of the bundle, the same
for every question; nothing here compares a question with a document.
"""

from __future__ import annotations

import json
import math
import string
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from okf.text.keyterms import stem_phrase
from okf.text.words import stem

VOCABULARY = ".okf/vocabulary.json"
# Vocabulary files larger than this are not loaded (a reader then weighs words without bundle statistics).
MAX_BYTES = 64 * 1024 * 1024
# A misspelling is corrected only to a term at least this common in the bundle, within this edit distance.
CORRECTION_MIN_DF = 2
CORRECTION_MIN_LENGTH = 5
# Corrections remembered per vocabulary at most (a long-running process reading many questions).
CORRECTIONS_KEPT = 10_000


@dataclass(frozen=True)
class Vocabulary:
    """Concept frequencies of a bundle's terms and the acronyms its sources define."""

    concepts: int
    df: dict[str, int]
    acronyms: dict[str, str] = field(default_factory=dict)  # "PFP" -> "Private Financing Platform"

    @classmethod
    def load(cls, root: Path) -> Vocabulary | None:
        """The vocabulary an okf compile wrote into ``root``, or None when there is none (or it is unusable)."""
        path = root / VOCABULARY
        try:
            if not path.is_file() or path.stat().st_size > MAX_BYTES:
                return None
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("terms"), dict):
            return None
        terms = {str(t): int(n) for t, n in data["terms"].items() if isinstance(n, int) and n > 0}
        acronyms = data.get("acronyms")
        if not isinstance(acronyms, dict):
            acronyms = {}
        concepts = data.get("concepts")
        total = concepts if isinstance(concepts, int) and concepts > 0 else max(terms.values(), default=1)
        return cls(total, terms, {str(k): str(v) for k, v in acronyms.items()})

    def idf(self, term: str) -> float:
        """How telling ``term`` is in this bundle: ln(1 + N / df) style, highest for terms it does not hold."""
        df = self.df.get(term, 0)
        return math.log(1.0 + (self.concepts - df + 0.5) / (df + 0.5))

    def knows(self, term: str) -> bool:
        return term in self.df

    def correction(self, term: str, word: str = "") -> str | None:
        """The bundle's term ``term`` is a misspelling of (one edit away, or two for long words), or None.

        Only for terms the bundle does not hold; the candidate must be common enough to be a word of the
        bundle, and the closest, then most common, then alphabetically first candidate wins. ``word``, the
        word as written (lowercase), is tried when no term is that close: a misspelling can stem apart from
        its word ("chnage" keeps its "e", "change" is "chang"; "operater" is "operat", "operator" is
        "oper"), so the most common term written by a word one edit from it is taken. Answers are kept per
        vocabulary (4 to 16 ms each; every angle of a question and its rewrite ask again).
        """
        if term in self.df or len(term) < CORRECTION_MIN_LENGTH or not term.isalpha():
            return None
        kept: dict[tuple[str, str], str | None] = self.__dict__.setdefault("_corrections", {})
        if (term, word) in kept:
            return kept[(term, word)]
        found = _correct(self, term)
        if found is None and len(word) >= CORRECTION_MIN_LENGTH and word.isalpha() and word.isascii():
            found = _correct_word(self, word)
        if len(kept) >= CORRECTIONS_KEPT:
            kept.clear()
        kept[(term, word)] = found
        return found

    def expansion_of(self, acronym: str) -> tuple[str, ...] | None:
        """The terms of an acronym's expansion ("PFP" -> ("privat", "financ", "platform")), or None."""
        long = self.acronyms.get(acronym) or self.acronyms.get(acronym.upper())
        return stem_phrase(long) if long else None

    def acronym_for(self, terms: tuple[str, ...]) -> str | None:
        """The acronym whose expansion has exactly these terms, or None."""
        return self._by_expansion().get(terms)

    def _by_expansion(self) -> dict[tuple[str, ...], str]:
        cached = self.__dict__.get("_expansions")
        if cached is None:
            cached = {}
            for short, long in sorted(self.acronyms.items()):
                cached.setdefault(stem_phrase(long), short)
            object.__setattr__(self, "_expansions", cached)
        return cached

    def _index(self) -> dict[tuple[str, int], list[str]]:
        """Terms by (first letter, length): the only candidates a correction needs to look at."""
        cached = self.__dict__.get("_by_shape")
        if cached is None:
            cached = {}
            for term, n in self.df.items():
                if n >= CORRECTION_MIN_DF and term.isalpha() and len(term) >= CORRECTION_MIN_LENGTH - 1:
                    cached.setdefault((term[0], len(term)), []).append(term)
            object.__setattr__(self, "_by_shape", cached)
        return cached


def _correct(vocabulary: Vocabulary, term: str) -> str | None:
    index = vocabulary._index()
    limit = 2 if len(term) >= 8 else 1
    best: tuple[int, int, str] | None = None
    # The first letter of a misspelling is almost always right; its length is within the edit distance.
    for length in range(len(term) - limit, len(term) + limit + 1):
        for candidate in index.get((term[0], length), ()):
            distance = _distance(term, candidate, limit)
            if distance <= limit:
                key = (distance, -vocabulary.df[candidate], candidate)
                if best is None or key < best:
                    best = key
    return best[2] if best else None


def _correct_word(vocabulary: Vocabulary, word: str) -> str | None:
    """The most common term of the bundle written by a word one edit from ``word`` (its first letter kept)."""
    best: tuple[int, str] | None = None
    for candidate in _edits(word):
        term = stem(candidate)
        n = vocabulary.df.get(term, 0)
        if n >= CORRECTION_MIN_DF and (best is None or (-n, term) < best):
            best = (-n, term)
    return best[1] if best else None


def _edits(word: str) -> set[str]:
    """Words one deletion, adjacent transposition, substitution or insertion from ``word``, its first
    letter kept."""
    letters = string.ascii_lowercase
    splits = [(word[:i], word[i:]) for i in range(1, len(word) + 1)]
    found = {a + b[1:] for a, b in splits if b}
    found.update(a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1)
    found.update(a + c + b[1:] for a, b in splits if b for c in letters)
    found.update(a + c + b for a, b in splits for c in letters)
    found.discard(word)
    return found


@lru_cache(maxsize=50_000)
def _distance(a: str, b: str, limit: int) -> int:
    """Damerau-Levenshtein distance (adjacent transpositions), stopping early past ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] | None = None
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if previous2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]
