"""Key terms: what a piece of text is about, from its own words and statistics over its neighbours.

The compiler counts every concept's terms once (:func:`count_terms`, the same terms readers compare), then
names what a concept or a directory is about with terms that are frequent in it and rare among its
neighbours (tf-idf over the document, or over the documents of a folder). Names (title-case phrases),
acronyms and the expansions a text gives for them ("Private Financing Platform (PFP)") are kept as written,
so a tag reads as the text says it.
"""

from __future__ import annotations

import heapq
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from itertools import chain, compress, filterfalse, repeat
from operator import is_, itemgetter
from typing import Any, NamedTuple, TypeVar

from okf.markdown import LINK_ADDRESS
from okf.text.words import _TOKEN, STOP_WORDS, _raw_terms, stem, terms

# A title-case name of two to five words, small joining words allowed inside ("Bank of England").
# Written for speed, matching exactly what "\b[A-Z]W*[a-z]W*(?:...){1,4}" matches (W a word character): the
# capital first (the engine skips to capitals), \b as a look-behind, and the first word taken whole at once
# after a look-ahead for its lower-case letter (two greedy runs around [a-z] backtrack quadratically over a
# long capitalised word that no second word follows: 3 to 4% of the whole compile's CPU on CUAD).
_W = r"(?:[\w'’&-]|\.(?=\w))"
_NAME = re.compile(
    r"[A-Z](?<!\w[A-Z])(?=" + _W + r"*?[a-z])" + _W + r"*+"
    r"(?:[ \t]+(?:(?:of|and|for|the|de|la|du|von|van|der)[ \t]+)?[A-Z]" + _W + r"*){1,4}"
)
# An acronym defined in place: "Private Financing Platform (“PFP”)", "application programming interfaces (APIs)";
# the words before the parenthesis are read separately (a regex reaching back over them backtracks badly).
_DEFINED_ACRONYM = re.compile(r"\(\s*(?:the\s+)?[\"“”']?([A-Z][A-Za-z0-9&]{1,9}?)s?[\"“”']?\s*\)")
_BEFORE = re.compile(r"[\w'’-]+")
_ACRONYM = re.compile(r"[A-Z](?<!\w[A-Z])[A-Z0-9&]{1,7}s?\b")  # "\b[A-Z]...": the capital first, for speed
_Row = TypeVar("_Row", bound=tuple[Any, ...])  # rows compared as tuples: (score, term)
_ROMAN = re.compile(r"^[IVXLCDM]+$")
# Words a name starting a sentence often carries in front of it.
_LEADING = frozenset(
    {
        "The",
        "This",
        "That",
        "These",
        "Those",
        "A",
        "An",
        "Any",
        "Each",
        "Every",
        "Such",
        "In",
        "On",
        "If",
        "For",
        "Where",
        "When",
        "Under",
        "By",
        "To",
        "All",
        "No",
        "As",
        "At",
        "Its",
        "During",
        "Upon",
        "After",
        "Before",
        "Following",
        "Unless",
        "Subject",
        "Notwithstanding",
        "Except",
        "Pursuant",
        "Within",
        "Without",
        "Prior",
        "Either",
        "Neither",
        "Both",
        "Other",
        "From",
        "With",
        "Between",
        "Until",
        "Since",
        "While",
        "Although",
        "However",
        "Our",
        "Your",
        "Their",
        "His",
        "Her",
        "Please",
        "See",
        "Note",
        "Also",
    }
)
# Link targets and bare URLs: words of addresses are not words of the text.
_ADDRESS = re.compile(LINK_ADDRESS.pattern + r"|https?://\S+")


# Whitespace-separated chunk -> its first term (None when it has none), and chunk -> its further terms when
# it has several ("(5.2)", "max_tokens", "StarredDropdown", "and/or"): filled once per distinct chunk, so
# counting a text is a C-level map over its chunks. Terms that can be key terms are collected in _ELIGIBLE.
_FIRST: dict[str, str | None] = {}
_MORE: dict[str, tuple[str, ...]] = {}
_PAIRS: dict[str, tuple[tuple[str, str], ...]] = {}
_ALL: dict[str, tuple[str, ...]] = {}  # chunk -> all its terms, in order
# An ASCII word -> what every chunk that is this word with punctuation around it maps to in the tables above
# ("Agreement", "Agreement,", "(Agreement)": one entry, learned once).
_WORDS: dict[
    str,
    tuple[str | None, tuple[tuple[str, str], ...], tuple[str, ...], tuple[str, ...] | None, tuple[str, ...]],
] = {}
_ELIGIBLE: set[str] = set()
# Chunk -> what word_forms picks it by: its first term, or _SEVERAL when it has several (None: no term); and
# chunk -> its (term, word) pairs as "term\x00word" strings, whose hashes Python keeps (a tuple's it does not).
_PICK: dict[str, str | None] = {}
_PAIR_KEYS: dict[str, tuple[str, ...]] = {}
_SEVERAL = " several"  # never a term: terms have no spaces
_UNKNOWN = " unknown"  # a chunk not learned yet, as _PICK.get answers it
_CHUNK_MEMORY = 1_500_000
# ASCII punctuation but "_" (which joins a token's parts): around a word, never part of its token.
_AROUND = "".join(ch for ch in map(chr, range(33, 127)) if not ch.isalnum() and ch != "_")


def _plain(text: str) -> str:
    """``text`` NFKC-normalized, with link targets and addresses dropped (their words are not the text's)."""
    plain = unicodedata.normalize("NFKC", text) if not text.isascii() else text
    return _ADDRESS.sub("]", plain) if "](" in plain or "://" in plain else plain


def _chunk_pairs(chunk: str) -> tuple[tuple[str, str], ...]:
    """``(term, word)`` for every term of a whitespace-free chunk, in order (the word casefolded)."""
    return tuple((term, token.casefold()) for token in _TOKEN.findall(_plain(chunk)) for term in _raw_terms(token))


def _learn(chunks: Iterable[str]) -> bool:
    """Read each chunk's terms into the tables; True when the tables were cleared first (memory bound)."""
    cleared = len(_FIRST) > _CHUNK_MEMORY
    if cleared:
        _FIRST.clear()
        _MORE.clear()
        _PAIRS.clear()
        _ALL.clear()
        _WORDS.clear()
        _PICK.clear()
        _PAIR_KEYS.clear()
    for chunk in chunks:
        # Most chunks are one ASCII word, perhaps with punctuation around it ("Agreement,", "(b)"): their one
        # token is the word itself, found without the normalizing and the regex.
        core = chunk.strip(_AROUND)
        word = core.isalpha() and core.isascii() and "](" not in chunk and "://" not in chunk
        if word:
            known = _WORDS.get(core)
            if known is not None:  # the same word seen with other punctuation: the same entries
                _FIRST[chunk], _PAIRS[chunk], _ALL[chunk], more, _PAIR_KEYS[chunk] = known
                if more is not None:
                    _MORE[chunk] = more
                _PICK[chunk] = known[0] if more is None else _SEVERAL
                continue
            low = core.lower()
            found = _raw_terms(core)  # the chunk's terms: the word's, as a tuple already
            pairs = tuple([(term, low) for term in found])
        else:
            pairs = _chunk_pairs(chunk)
            found = tuple([term for term, _ in pairs])
        first = found[0] if found else None
        more = found[1:] if len(found) > 1 else None
        _FIRST[chunk] = first
        _PAIRS[chunk] = pairs
        _ALL[chunk] = found
        keys = _PAIR_KEYS[chunk] = tuple([f"{term}\x00{word}" for term, word in pairs])
        _PICK[chunk] = first if more is None else _SEVERAL
        if more is not None:
            _MORE[chunk] = more
        for term in found:
            if term not in _ELIGIBLE and len(term) >= 3 and _wordlike(term):
                _ELIGIBLE.add(term)
        if word:
            _WORDS[core] = (first, pairs, found, more, keys)
    return cleared


def _known(chunks: set[str]) -> None:
    """Make sure every chunk is in the table (a set operation against the dict would copy it: filter instead)."""
    unknown = set(filterfalse(_FIRST.__contains__, chunks))
    if unknown and _learn(unknown):  # the table was just cleared: learn them all again
        _learn(chunks)


class Chunks(NamedTuple):
    """The distinct chunks of a text, each with what :func:`word_forms` picks it by (``_PICK``, in order)."""

    keys: list[str]
    picks: list[str | None]


def _picks(chunks: set[str]) -> Chunks:
    """Every chunk learned, and what :func:`word_forms` picks it by: one look-up per chunk serves both, where
    checking the table and picking looked each chunk up twice more."""
    keys = list(chunks)
    values = list(map(_PICK.get, keys, repeat(_UNKNOWN)))
    if _UNKNOWN in values:
        unknown = set(compress(keys, map(is_, values, repeat(_UNKNOWN))))
        if _learn(unknown):  # the table was just cleared: learn them all again
            _learn(chunks)
            values = list(map(_PICK.__getitem__, keys))
        else:
            # Only the chunks just learned change: their picks from a small table of their own, every other
            # value kept (a second look-up of every chunk in the process-wide table cost more than the first).
            learned = dict(zip(unknown, map(_PICK.__getitem__, unknown)))
            values = list(map(learned.get, keys, values))
    return Chunks(keys, values)


def count_terms(text: str, chunks_seen: set[str] | None = None) -> Counter[str]:
    """Content terms of ``text`` with their counts: the terms of :func:`okf.text.words.terms` except the
    joined forms of hyphenated words ("airgapped" for "air-gapped"), which a reader treats as optional.

    Whitespace-separated chunks are mapped to their terms through a table filled once per distinct chunk
    (a chunk never spans a link target or a token), so the count itself runs at C speed. The distinct
    chunks are added to ``chunks_seen`` when given (for :func:`word_forms`).
    """
    chunks = text.split()
    distinct = set(chunks)
    _known(distinct)
    if chunks_seen is not None:
        chunks_seen.update(distinct)
    # Every chunk's terms in one C-level pass (a chunk of several terms, "non-exclusive", adds them all).
    return Counter(_terms_of(chunks))


def _terms_of(chunks: list[str]) -> Iterator[str]:
    """``chain.from_iterable(map(_ALL.__getitem__, chunks))``: every term of the (learned) chunks, in order. The
    look-ups are made by one ``itemgetter`` call into a tuple, which a map calling the dict's method per chunk
    was slower than (a sixth of the counting); ``itemgetter`` of one key gives its value alone, not a tuple."""
    if len(chunks) > 1:
        return chain.from_iterable(itemgetter(*chunks)(_ALL))
    return chain.from_iterable(map(_ALL.__getitem__, chunks))


def count_each(texts: list[str]) -> tuple[list[Counter[str]], Chunks]:
    """:func:`count_terms` of each text, and the distinct chunks of them all (mapped to what
    :func:`word_forms` picks them by: hand them to it with ``learned=True``): the chunk table is consulted
    once for all the texts (the pieces of one document), not once per text."""
    split = [text.split() for text in texts]
    distinct = _picks(set(chain.from_iterable(split)))
    return [Counter(_terms_of(chunks)) for chunks in split], distinct


def word_forms(chunks: set[str] | Chunks, wanted: set[str], *, learned: bool = False) -> dict[str, str]:
    """Each ``wanted`` term mapped to the word (lowercase) that writes it in the most distinct ``chunks`` of a
    text (its whitespace-separated pieces, as :func:`count_terms` keeps them): how the term is shown.

    Ties go to the alphabetically first word, so the result depends on the text only. ``learned``: the
    chunks are the :class:`Chunks` :func:`count_each` returned, with no other counting since (the tables still hold
    them all: only counting learns or clears), so they are neither checked nor looked up again.
    """
    if isinstance(chunks, Chunks):
        found = chunks if learned else _picks(set(chunks.keys))
    else:
        found = _picks(set(chunks))
    # The chunks whose first term is wanted, and those with several terms (C-level filters, no Python loop).
    wanted_or_several = set(wanted)
    wanted_or_several.add(_SEVERAL)
    picked = compress(found.keys, map(wanted_or_several.__contains__, found.picks))
    # ("term\x00word") pairs counted at C speed over the picked chunks, then the most used word of each term.
    best: dict[str, tuple[int, str]] = {}
    for key, n in Counter(chain.from_iterable(map(_PAIR_KEYS.__getitem__, picked))).items():
        term, word = key.split("\x00")
        if term in wanted:
            held = best.get(term)
            if held is None or n > held[0] or (n == held[0] and word < held[1]):
                best[term] = (n, word)
    return {term: word for term, (_n, word) in best.items()}


def eligible(terms: Iterable[str]) -> Iterable[str]:
    """The terms that can be key terms (words of three letters or more, no digits), among terms counted here."""
    return filter(_ELIGIBLE.__contains__, terms)


def names(text: str) -> Counter[str]:
    """Title-case names of two or more words ("Johnny Galecki", "Confidential Information"), counted."""
    found: Counter[str] = Counter()
    for match in _NAME.finditer(text):
        words = match.group().split()
        while words and (words[0] in _LEADING or words[0].casefold() in STOP_WORDS):
            words = words[1:]
        while words and words[-1].casefold() in STOP_WORDS:
            words = words[:-1]
        if len(words) >= 2 and len(" ".join(words)) <= 60:
            found[" ".join(words)] += 1
    return found


def acronyms(text: str) -> dict[str, str]:
    """Acronyms the text defines, mapped to their expansion: "PFP" -> "Private Financing Platform".

    The expansion is the run of words just before the parenthesis whose initials spell the acronym.
    """
    out: dict[str, str] = {}
    if "(" not in text:
        return out
    for match in _DEFINED_ACRONYM.finditer(text):
        short = match.group(1)
        letters = [ch for ch in short.upper() if ch.isalpha()]
        if len(letters) < 2 or short in out:
            continue
        words = _BEFORE.findall(text[max(0, match.start() - 160) : match.start()])[-2 * len(letters) :]
        expansion = _expansion(words, letters)
        if expansion:
            out[short] = expansion
    return out


def _expansion(words: list[str], letters: list[str]) -> str | None:
    """The shortest tail of ``words`` whose content words' initials are ``letters`` (joining words skipped)."""
    for size in range(len(letters), min(len(words), len(letters) * 2) + 1):
        tail = words[-size:]
        initials = [w[0].upper() for w in tail if w.casefold() not in STOP_WORDS or w[0].isupper()]
        if initials == letters:
            return " ".join(tail).strip(",;:")
    return None


def caps_words(text: str) -> Counter[str]:
    """Words written in capitals inside running text ("RBAC", "PFP"): candidate acronyms, counted.

    A word of a line written all in capitals (a heading, a shouted clause) is no acronym.
    """
    found: Counter[str] = Counter()
    for line in text.splitlines():
        if (line.upper() == line) if line.isascii() else not any(ch.islower() for ch in line):
            continue
        for match in _ACRONYM.finditer(line):
            word = match.group().rstrip("s") if match.group().endswith("s") else match.group()
            if len(word) >= 2 and not _ROMAN.match(word) and word.casefold() not in STOP_WORDS and not word.isdigit():
                found[word] += 1
    return found


def idf(df: int, total: int) -> float:
    """Inverse frequency of a term found in ``df`` of ``total`` units (never negative)."""
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


def idf_table(df: Mapping[str, int], total: int, *, counted: bool = False) -> dict[str, float]:
    """:func:`idf` of every term of ``df`` that can be a key term (a word of three letters or more), computed
    once for many :func:`distinctive` calls. ``counted``: every term of ``df`` came from :func:`count_terms`
    or :func:`count_each` in this process, so the set of eligible terms they filled answers at C speed."""
    by_count = [idf(n, total) for n in range(total + 1)]
    # A term of letters only is wordlike (no letter is a digit): tested in C first, the cached test for the rest
    # (CUAD's 29,174 terms at the compile's end: 0.024 -> 0.008 s, most of them not in the parent's cache).
    keys = list(eligible(df)) if counted else [t for t in df if len(t) >= 3 and (t.isalpha() or _wordlike(t))]
    return dict(zip(keys, map(by_count.__getitem__, map(df.__getitem__, keys))))


def distinctive(
    counts: Mapping[str, int],
    weights: Mapping[str, float],
    *,
    limit: int,
    exclude: Iterable[str] = (),
    unseen: float = 0.0,
) -> list[str]:
    """The ``limit`` terms of ``counts`` with the highest tf-idf (``weights`` from :func:`idf_table`; a term
    it lacks weighs ``unseen``).

    Numbers and one- or two-letter terms are left out (they name nothing on their own); ties are broken
    by the term, so the result does not depend on dictionary order.
    """
    skip = set(exclude)
    log = math.log
    if unseen:
        scored = [
            (-(1.0 + log(n)) * weights.get(term, unseen), term)
            for term, n in counts.items()
            if term not in skip and len(term) >= 3 and _wordlike(term)
        ]
    else:  # weights hold only eligible terms: a lookup is the whole test
        scored = [
            (-(1.0 + log(n)) * w, term)
            for term, n in counts.items()
            if (w := weights.get(term)) is not None and term not in skip
        ]
    return [term for _, term in smallest(limit, scored)]


def smallest(n: int, items: list[_Row]) -> list[_Row]:
    """``heapq.nsmallest(n, items)``, which is ``sorted(items)[:n]``: by a C sort when the list is short
    (up to a dozen times ``n``: the heap's Python loop over every item then costs more than the sort)."""
    return sorted(items)[:n] if len(items) <= 12 * n else heapq.nsmallest(n, items)


def wordlike(term: str) -> bool:
    """A term that can be a key term by its letters (see :func:`_wordlike`)."""
    return _wordlike(term)


@lru_cache(maxsize=100_000)
def _wordlike(term: str) -> bool:
    """A term made of letters (hyphens and inner dots allowed): numbers and identifiers name nothing alone."""
    return not any(ch.isdigit() for ch in term) and any(ch.isalpha() for ch in term)


@lru_cache(maxsize=50_000)
def title_terms(title: str) -> frozenset[str]:
    """The terms of a title: key terms repeating them add nothing."""
    return frozenset(terms(title))


def readable(term: str, forms: Mapping[str, str]) -> str:
    """A term as the text writes it (its most used word), else the term itself."""
    return forms.get(term, term)


def stem_phrase(phrase: str) -> tuple[str, ...]:
    """A phrase as its sequence of content terms ("Private Financing Platforms" -> ("privat", "financ", "platform"))."""
    out: list[str] = []
    for token in _TOKEN.findall(unicodedata.normalize("NFKC", phrase)):
        word = token.casefold()
        if word not in STOP_WORDS:
            out.append(stem(word) if word.isalpha() else word)
    return tuple(out)
