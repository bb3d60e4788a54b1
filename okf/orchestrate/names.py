"""Names as links: a name relevant evidence says that is the title of a concept of the bundle.

A second hop (okf.orchestrate.hops) is a name the evidence introduces. When a concept of the bundle bears
exactly that name as its title or file name (letters and digits compared, case and punctuation aside, a
trailing parenthesis such as "(film)" and a leading article ignored), the name is read as a link the evidence makes in words,
the way a wikilink ``[[Shirley Temple]]`` is resolved by title (okf.wikilinks): the hop's walk starts by
judging that concept, like the lateral expansion of a link. Nothing is ranked: a name resolves or not.

The titles come from the bundle's listings (every directory's signposts), as ``okf compile`` wrote them down in
``.okf/titles.json`` (okf.bundle.titles), else read once per bundle and kept.

A question may also say a title as written without it being a name run of its own: its first word
("Psychopsis and Aubrieta are ..."), a name beside another joined by "and" ("David Yates and Pietro Germi"),
initials ("J. G. Farrell"), a title with lowercase words ("Tippecanoe order of battle"). :func:`titles_said`
finds the titles a text spells out word for word from a capitalized word, longest first.
"""

from __future__ import annotations

import bisect
import re
import weakref

from okf.bundle import Bundle, titles
from okf.text.words import STOP_WORDS, compact

# Concepts a name may resolve to at most (a name several concepts bear: "Ed Wood", "Ed Wood (film)").
MAX_TARGETS = 3
# A name of at least this many letters (and two words) may name a title it begins.
PREFIX_MIN = 8
# Words of a title said in a text at most (from its first, capitalized word).
TITLE_WORDS = 6
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_INDEXES: weakref.WeakKeyDictionary[Bundle, dict[str, list[str]]] = weakref.WeakKeyDictionary()
_SORTED: weakref.WeakKeyDictionary[Bundle, list[str]] = weakref.WeakKeyDictionary()


def title_index(bundle: Bundle) -> dict[str, list[str]]:
    """Concept paths by the letters of their title and file name (okf.bundle.titles): from the
    ``.okf/titles.json`` compile wrote for this very content, else from every listing of ``bundle``."""
    index = _INDEXES.get(bundle)
    if index is None:
        index = titles.load(bundle)
        _INDEXES[bundle] = index = titles.build(bundle) if index is None else index
    return index


def resolve(bundle: Bundle, name: str) -> list[str]:
    """The concepts bearing ``name`` as their title or file name (in listing order); none when more than
    MAX_TARGETS bear it (a common heading, "Recitals" or "Definitions" of every contract, is no name: a hop
    to three of them picked by listing order leads to other documents than the one the evidence is in). A
    name of two words or more also names a title it begins ("Harry Connick" for "Harry Connick Jr."), when
    at most MAX_TARGETS titles begin so (more is no name but a common start)."""
    key = compact(name)
    if len(key) < 3:
        return []
    index = title_index(bundle)
    exact = index.get(key, [])
    if len(exact) > MAX_TARGETS:
        return []
    if exact or len(name.split()) < 2 or len(key) < PREFIX_MIN:
        return exact
    found: list[str] = []
    for title in _sorted_keys(bundle, index)[_first(bundle, index, key) :]:
        if not title.startswith(key):
            break
        found += [p for p in index[title] if p not in found]
        if len(found) > MAX_TARGETS:
            return []
    return found


def _sorted_keys(bundle: Bundle, index: dict[str, list[str]]) -> list[str]:
    keys = _SORTED.get(bundle)
    if keys is None:
        keys = _SORTED[bundle] = sorted(index)
    return keys


def _first(bundle: Bundle, index: dict[str, list[str]], key: str) -> int:
    return bisect.bisect_left(_sorted_keys(bundle, index), key)


def titles_said(bundle: Bundle, text: str) -> list[tuple[int, str]]:
    """(where the title begins, concept path) of :func:`title_spans`."""
    return [(start, path) for start, _, path in title_spans(bundle, text)]


def title_spans(bundle: Bundle, text: str) -> list[tuple[int, str, str]]:
    """The concepts whose title (or file name) ``text`` spells out word for word, with where in ``text`` it
    begins: each run starts at a capitalized word (a stop word only when the run goes on: "Out of Place"),
    the longest run first; a run several concepts bear (more than MAX_TARGETS: a common heading such as
    "Governing Law") is no name and names nothing, nor do its shorter runs. In text order."""
    index = title_index(bundle)
    words = list(_WORD.finditer(text))
    found: list[tuple[int, str, str]] = []
    seen: set[str] = set()
    k = 0
    while k < len(words):
        word = words[k].group()
        if not word[:1].isupper():
            k += 1
            continue
        stop = word.casefold() in STOP_WORDS
        for end in range(min(len(words), k + TITLE_WORDS), k + stop, -1):
            said = text[words[k].start() : words[end - 1].end()]
            paths = index.get(compact(said), [])
            if paths:
                if len(paths) <= MAX_TARGETS:
                    found += [(words[k].start(), said, p) for p in paths if p not in seen]
                    seen.update(paths)
                k = end
                break
        else:
            k += 1
    return found
