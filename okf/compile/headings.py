"""Topics: what the headings deep below a directory name, told apart from its sibling directories'.

A directory's line names its members and their key terms: two levels of what lies below. What lies deeper
is named by its headings, the titles of everything below (sections, chapters, concepts, documents of a
group). A directory's *topics* are the heading words used most below it, held by few of its sibling
directories and rare in the text: ``(1 + ln n) * ln(N / df) * w`` for a word heading ``n`` entries below
the directory, under ``df`` of the ``N`` sibling directories, ``w`` the word's idf (over the document's
concepts inside a document; over the bundle's documents above them). The line closes with them,
``Topics: restitution, injunctions, ...``, at most :data:`TOPIC_CHARS` characters, words the line already
says left out. A selector that reads only the listing then sees what a part holds three and more levels
down ("Exit Facility", eight levels below a rulebook's root).

Statistics over titles computed at compile time: the same for every question.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping

from okf.compile.state import GROUP_TYPES, Node
from okf.text.words import terms, token_terms

# Room for a directory's topics on its line (after its members and key terms).
TOPIC_CHARS = 300
# A word must be this long to name a topic (shorter ones are mostly numbering left in a title: "App", "A1").
TOPIC_MIN_LETTERS = 3

_LETTERS = re.compile(r"[^\W\d_]+")
# Roman numbering: any run of i, v and x ("iii", "xiv"), and a well-formed numeral written in capitals ("MCM").
_NUMERAL = re.compile(r"[ivx]+")
_ROMAN = re.compile(r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")

# Heading words below a directory: term -> [entries whose title holds it, the word as first written].
Headings = dict[str, list[int | str]]


def heading_words(title: str) -> dict[str, str]:
    """The words of one title that can name a topic: term -> the word as written (lower case). Words are
    runs of letters ("Part 1.Chapter 2" says "part" and "chapter"); numbering says nothing, roman numerals
    included ("Article XIV")."""
    out: dict[str, str] = {}
    for word in _LETTERS.findall(title):
        if len(word) < TOPIC_MIN_LETTERS:
            continue
        low = word.casefold()
        if _NUMERAL.fullmatch(low) or (word.isupper() and _ROMAN.fullmatch(word)):
            continue  # "Article XIV", "Part iii": numbering
        for term in token_terms(low):
            if len(term) >= TOPIC_MIN_LETTERS:
                out.setdefault(term, low)
    return out


def add_title(into: Headings, title: str) -> None:
    """Count ``title`` once in ``into`` (each of its words once)."""
    for term, word in heading_words(title).items():
        held = into.get(term)
        if held is None:
            into[term] = [1, word]
        else:
            held[0] = int(held[0]) + 1


def add_headings(into: Headings, other: Mapping[str, list[int | str]]) -> None:
    """Sum ``other`` into ``into`` (a word keeps the form ``into`` saw first)."""
    for term, (count, word) in other.items():
        held = into.get(term)
        if held is None:
            into[term] = [int(count), str(word)]
        else:
            held[0] = int(held[0]) + int(count)


def below_each(root: Node, given: Callable[[Node], Headings | None] = lambda node: None) -> dict[str, Headings]:
    """Heading words of everything below each directory under ``root`` (and ``root``), by path; a
    directory's own title is counted by its parent's, not its own, and a group's (titled by the compiler, not
    the text) by none. ``given``: the heading words of a directory whose insides the tree does not hold (a
    document at the folder levels, from its manifest record), else None."""
    out: dict[str, Headings] = {}

    def walk(node: Node) -> Headings:
        mine = given(node)
        if mine is None:
            mine = {}
            for child in node.children:
                if child.type not in GROUP_TYPES:
                    add_title(mine, child.title)
                if child.is_dir:
                    add_headings(mine, walk(child))
        out[node.path] = mine
        return mine

    walk(root)
    return out


def choose(members: list[Headings], weight: Callable[[str], float]) -> list[list[tuple[str, str]]]:
    """Topics of each of ``members`` (sibling directories' heading words), best first: (term, word) pairs.
    A word every sibling heads with tells none of them apart; with one member nothing is told apart and none
    is named."""
    n = len(members)
    if n < 2:
        return [[] for _ in members]
    df: dict[str, int] = {}
    for headings in members:
        for term in headings:
            df[term] = df.get(term, 0) + 1
    log = math.log
    out = []
    for headings in members:
        scored = sorted(
            (-(1.0 + log(int(count))) * log(n / df[term]) * weight(term), term)
            for term, (count, _) in headings.items()
            if df[term] < n
        )
        out.append([(term, str(headings[term][1])) for _, term in scored])
    return out


def with_topics(text: str, chosen: list[tuple[str, str]] | None, limit: int = TOPIC_CHARS) -> str:
    """``text`` (a directory's line) closed by its topics (:func:`topics_line`), words it says left out."""
    if not chosen:
        return text
    line = topics_line(chosen, set(terms(text)), limit)
    return f"{text} {line}" if line else text


def topics_line(chosen: list[tuple[str, str]], said: set[str], limit: int = TOPIC_CHARS) -> str:
    """``Topics: w1, w2, ...`` of the words in ``chosen`` not in ``said`` (terms), within ``limit``
    characters; empty when none fits."""
    words: list[str] = []
    used = 0
    for term, word in chosen:
        if term in said or word in words:
            continue
        if used + len(word) + 2 > limit:
            break
        words.append(word)
        used += len(word) + 2
    return f"Topics: {', '.join(words)}." if words else ""


def assign(
    root: Node,
    headings_of: Callable[[Node], Headings],
    weight: Callable[[str], float],
    *,
    into: dict[str, list[tuple[str, str]]],
    descend: Callable[[Node], bool] = lambda node: True,
) -> None:
    """Topics of every directory below ``root`` among its siblings, by path, into ``into``; a directory
    for which ``descend`` is false is given topics but not looked into."""
    stack = [root]
    while stack:
        node = stack.pop()
        dirs = [c for c in node.children if c.is_dir]
        for child, chosen in zip(dirs, choose([headings_of(c) for c in dirs], weight)):
            into[child.path] = chosen
        stack.extend(c for c in reversed(dirs) if descend(c))
