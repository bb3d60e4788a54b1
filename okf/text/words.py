"""Words as okf compares them: unicode tokens, English stop words, Snowball stems, sentences.

A *term* is what readers and the compiler compare: the Snowball (Porter2) stem of a content word. Numbers
and identifiers such as ``5.2``, ``max_tokens`` or ``os.path`` are kept whole; identifiers made of words
also yield their parts, so ``max_tokens`` in a question is found by a body that says ``max tokens``.
Compile and the readers share these functions, so a term written into a signpost is the term a reader
looks for.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources
from itertools import chain

import snowballstemmer

from okf.markdown import INLINE_MARKUP, LEADING_MARKERS

# Letters/digits, optionally joined by "." or "_" (5.2, v1.2, max_tokens, os.path); hyphens split words.
# Possessive: nothing follows a token that could make the engine give back what it took, so it keeps no
# backtracking state (the same tokens as the greedy pattern; a quarter fewer instructions).
_TOKEN = re.compile(r"[^\W_]++(?:[._][^\W_]++)*+")
# The same tokens in ASCII text, where [^\W_] is [A-Za-z0-9]: a class the regex engine tests from a bitmap,
# where the unicode one asks each character's category (a fifth faster over concept bodies).
_ASCII_TOKEN = re.compile(r"[A-Za-z0-9]++(?:[._][A-Za-z0-9]++)*+")
# A sentence end: a stop and the white space after it (the cut falls after the stop). Starting with the stop
# lets the engine skip to the next stop; a look-behind for it was tried at every place of a line.
_SENTENCE_END = re.compile(r"[.!?;]\s+")
# A full stop that ends an initial or a dotted abbreviation ("Michael C. Hall", "the U.S. House", "e.g."),
# not a sentence.
_INITIALS = re.compile(r"(?:^|[\s(\[\"“])(?:[^\W\d_]\.)+$")
_INITIALS_BEFORE = frozenset('(["“')
# camelCase / PascalCase boundaries: "StarredDropdown" -> "Starred", "Dropdown"; "RHDHConfig" -> "RHDH", "Config".
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPACER = re.compile(r"[^-=|:* ]")  # a line made only of these is a rule or a table separator
_MARKUP_START = frozenset("#-*+>0123456789 ")
_INLINE_CHARS = re.compile(r"[*_`\[]")
_SENTENCE_CUE = re.compile(r"[.!?;]\s")
# Anchored at a word's start and possessive: the same matches as ``[^\W_]+(?:-[^\W_]+)+`` without retrying
# every shorter run of each word that no hyphen follows (3x faster over concept bodies; tests/test_text.py).
_HYPHENATED = re.compile(r"(?<![^\W_])[^\W_]++(?:-[^\W_]++)+")
# British -ise spellings meet American -ize ones ("authorised"/"authorized") before stemming.
_BRITISH_ISE = re.compile(r"(?<=[a-z]{3})is(e|es|ed|ing|ation|ations|er|ers)$")

# A word starting with "non" this long (with "un" one shorter) is also read as the word it negates:
# "noncompetition", "uncapped"; "none", "nonce", "unless", "until" are too short.
NEGATED_MIN = 8


def _stop_words() -> frozenset[str]:
    text = resources.files("okf.text").joinpath("stopwords.txt").read_text("utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


STOP_WORDS = _stop_words()
_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The Snowball English stem of a lowercase word; words with digits or non-letters are returned as is."""
    if len(word) <= 2 or not word.isalpha():
        return word
    if "is" in word and word.isascii():  # the pattern needs "is": most words skip the regex call
        word = _BRITISH_ISE.sub(r"iz\1", word)
    stemmed: str = _STEMMER.stemWord(word)
    return stemmed


def normalize(text: str) -> str:
    """NFKC-normalize and casefold, so full-width digits and ligatures compare equal."""
    return unicodedata.normalize("NFKC", text).casefold()


def tokens(text: str) -> list[str]:
    """Lowercased word tokens of ``text`` (unicode-aware), in order, stop words included."""
    return _TOKEN.findall(normalize(text))


@lru_cache(maxsize=50_000)
def compact(text: str) -> str:
    """``text`` casefolded with everything but letters and digits removed: run-together names meet here."""
    plain = normalize(text)
    return "".join((_ASCII_TOKEN if plain.isascii() else _TOKEN).findall(plain)).replace(".", "").replace("_", "")


def _is_number(token: str) -> bool:
    if "." not in token:  # most tokens: the split below would give the token alone
        return token.isdigit()
    return all(part.isdigit() for part in token.split("."))


def _keep(token: str) -> bool:
    # Digits stay even when one character long ("5 days"); one-letter words carry nothing.
    if token.isdigit() or _is_number(token):
        return True
    return len(token) > 1 and token not in STOP_WORDS


def token_terms(token: str) -> list[str]:
    """The terms one lowercase token contributes: its stem, or for an identifier itself plus its word parts."""
    if not _keep(token):
        return []
    if _is_number(token) or ("." not in token and "_" not in token):
        # "noncompetition", "nonsolicitation": the negated word is found by a question about the word.
        if token.startswith("non") and len(token) >= NEGATED_MIN and token.isalpha():
            return [stem(token), stem(token[3:])]
        if token.startswith("un") and len(token) >= NEGATED_MIN - 1 and token.isalpha():
            return [stem(token), stem(token[2:])]
        return [stem(token)]
    out = [token]
    for part in re.split(r"[._]", token):
        if part.isalpha() and _keep(part):
            out.append(stem(part))
    return out


@lru_cache(maxsize=100_000)
def _raw_terms(raw: str) -> tuple[str, ...]:
    """Terms of one token as written: camelCase and PascalCase identifiers also yield their words."""
    out = token_terms(raw.casefold())
    if not raw.islower() and not raw.isupper() and not raw.istitle():
        parts = [p for piece in re.split(r"[._]", raw) for p in _CAMEL.split(piece)]
        if len(parts) > 1:
            out += [t for part in parts if part.isalpha() for t in token_terms(part.casefold())]
    return tuple(dict.fromkeys(out))


def _hyphen_joins(text: str) -> list[tuple[str, str]]:
    """``(term, word)`` for hyphenated words written together: "air-gapped" is also found as "airgapped"."""
    out: list[tuple[str, str]] = []
    # No hyphenated word starts before the word the first hyphen ends: the scan starts there.
    start = text.find("-")
    if start < 0:
        return out
    while start > 0 and text[start - 1].isalnum():  # ``[^\W_]`` is ``str.isalnum``
        start -= 1
    for match in _HYPHENATED.finditer(text, start):
        word = match.group().replace("-", "").casefold()
        if word.isalpha() and len(word) > 3:
            out.append((stem(word), match.group().casefold()))
    return out


class _TokenTerms(dict[str, tuple[str, ...]]):
    """Token as written -> :func:`_raw_terms`, filled when first asked: :func:`terms` looks every token up
    by ``map`` in C, where a comprehension calling the cached function spent a Python step per token.
    Emptied when full (what it holds is recomputed exactly)."""

    def __missing__(self, raw: str) -> tuple[str, ...]:
        if len(self) >= _TOKEN_TERMS_SIZE:
            self.clear()
        found = self[raw] = _raw_terms(raw)
        return found


_TOKEN_TERMS_SIZE = 100_000
_token_terms = _TokenTerms().__getitem__


def terms(text: str) -> list[str]:
    """Content terms of ``text`` in order (with repeats); identifiers and hyphenated words add their forms."""
    plain = unicodedata.normalize("NFKC", text)
    out = list(chain.from_iterable(map(_token_terms, (_ASCII_TOKEN if plain.isascii() else _TOKEN).findall(plain))))
    if "-" in plain:
        out += [term for term, _ in _hyphen_joins(plain)]
    return out


def terms_and_letters(text: str) -> tuple[list[str], str]:
    """``(terms(text), compact(text))``, an ASCII text tokenized once for both: its tokens casefolded are the
    tokens of it casefolded (the ASCII token class holds both cases), so its letters are its tokens run
    together and lowercased. Any other text takes the two calls."""
    plain = unicodedata.normalize("NFKC", text)
    if not plain.isascii():
        return terms(text), compact(text)
    raw = _ASCII_TOKEN.findall(plain)
    out = list(chain.from_iterable(map(_token_terms, raw)))
    if "-" in plain:
        out += [term for term, _ in _hyphen_joins(plain)]
    return out, "".join(raw).lower().replace(".", "").replace("_", "")


def term_words(text: str) -> dict[str, str]:
    """Each distinct content term of ``text`` mapped to the first word it came from (for reasons)."""
    plain = unicodedata.normalize("NFKC", text)
    out: dict[str, str] = {}
    for raw in _TOKEN.findall(plain):
        for term in _raw_terms(raw):
            out.setdefault(term, raw.casefold())
    if "-" in plain:
        for term, word in _hyphen_joins(plain):
            out.setdefault(term, word)
    return out


def plain_lines(text: str, inline: re.Pattern[str] = INLINE_MARKUP, *, code: bool = False) -> Iterator[str]:
    """The lines of a markdown body as plain text: fenced code (unless ``code``: then its lines as they
    stand), blank lines, rules and table separators dropped; heading, list and quote markers and inline
    markup (``inline``: link labels kept) stripped; a table row's cells joined by spaces."""
    in_fence = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence:
            if code and line:
                yield line
            continue
        if not line or not _SPACER.search(line):
            continue
        # The regexes only where their characters occur: most lines are plain prose.
        if line[0] in _MARKUP_START:
            line = LEADING_MARKERS.sub("", line)
        if _INLINE_CHARS.search(line):
            line = inline.sub(lambda m: m.group(1) or "", line)
        if "|" in line:
            line = " ".join(cell.strip() for cell in line.strip("|").split("|") if cell.strip())
        yield line


def sentences(text: str, *, code: bool = False) -> list[str]:
    """Plain sentences of a markdown body: one per line or sentence end, markup stripped, blanks dropped
    (fenced code too, unless ``code``)."""
    out: list[str] = []
    for line in plain_lines(text, code=code):
        if _SENTENCE_CUE.search(line):
            out.extend(part.strip() for part in _split_sentences(line) if part.strip())
        elif line:
            out.append(line)
    return out


def _split_sentences(line: str) -> list[str]:
    """``line`` cut at its sentence ends: a stop and a space, except after an initial or a dotted
    abbreviation, or before a lowercase word (an abbreviation the sentence goes on after)."""
    parts: list[str] = []
    start = 0
    for end in _SENTENCE_END.finditer(line):
        head = line[start : end.start() + 1]
        if head.endswith(".") and (_initials_end(head) or line[end.end() : end.end() + 1].islower()):
            continue
        parts.append(head)
        start = end.end()
    parts.append(line[start:])
    return parts


def _initials_end(head: str) -> bool:
    """``_INITIALS.search(head)``, read from the end of ``head`` instead of tried at every place in it: a run
    of letter-and-stop pairs ends ``head`` and starts it or follows white space, "(", "[" or a quote. (The run's
    first letter is the only one that may follow such a character: a later one follows a stop.)"""
    i = len(head)
    while i >= 2 and head[i - 1] == "." and head[i - 2].isalnum() and not head[i - 2].isdecimal():
        i -= 2  # a letter as ``[^\W\d_]`` reads one: a word character, not a decimal digit nor "_"
    if i == len(head):
        return False
    return i == 0 or head[i - 1].isspace() or head[i - 1] in _INITIALS_BEFORE


def clip(text: str, limit: int = 160) -> str:
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters (with an ellipsis)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"
