"""Words for the offline reader: unicode tokenization, English stop words, a light Porter-style stemmer.

A *term* is what the offline reader compares: the stem of a content word. Numbers and identifiers such as
``5.2``, ``max_tokens`` or ``os.path`` are kept whole; identifiers made of words also yield their parts, so
``max_tokens`` in a question is found by a body that says ``max tokens``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Letters/digits, optionally joined by "." or "_" (5.2, v1.2, max_tokens, os.path); hyphens split words.
_TOKEN = re.compile(r"[^\W_]+(?:[._][^\W_]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_MARKUP = re.compile(r"^\s*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+|>\s*)+")
_INLINE = re.compile(r"[*_`]{1,3}|\[([^\]]*)\]\([^)]*\)")
# camelCase / PascalCase boundaries: "StarredDropdown" -> "Starred", "Dropdown"; "RHDHConfig" -> "RHDH", "Config".
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPACER = re.compile(r"[^-=|:* ]")  # a line made only of these is a rule or a table separator
_MARKUP_START = frozenset("#-*+>0123456789 ")
_INLINE_CHARS = re.compile(r"[*_`\[]")
_SENTENCE_CUE = re.compile(r"[.!?;]\s")
_HYPHENATED = re.compile(r"[^\W_]+(?:-[^\W_]+)+")

# A word starting with "non" this long (with "un" one shorter) is also read as the word it negates:
# "noncompetition", "uncapped"; "none", "nonce", "unless", "until" are too short.
NEGATED_MIN = 8

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "cannot",
        "could",
        "couldn",
        "did",
        "didn",
        "do",
        "does",
        "doesn",
        "doing",
        "don",
        "down",
        "during",
        "each",
        "either",
        "else",
        "ever",
        "every",
        "few",
        "for",
        "from",
        "further",
        "get",
        "gets",
        "getting",
        "got",
        "had",
        "hadn",
        "has",
        "hasn",
        "have",
        "haven",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "however",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn",
        "it",
        "its",
        "itself",
        "just",
        "know",
        "let",
        "like",
        "many",
        "may",
        "me",
        "might",
        "more",
        "most",
        "much",
        "must",
        "mustn",
        "my",
        "myself",
        "need",
        "no",
        "nor",
        "non",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "one",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "please",
        "per",
        "same",
        "shall",
        "shan",
        "she",
        "should",
        "shouldn",
        "so",
        "some",
        "such",
        "tell",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "though",
        "through",
        "thus",
        "to",
        "too",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "use",
        "used",
        "using",
        "very",
        "via",
        "want",
        "was",
        "wasn",
        "we",
        "were",
        "weren",
        "what",
        "whats",
        "when",
        "where",
        "whether",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "within",
        "without",
        "won",
        "would",
        "wouldn",
        "yes",
        "yet",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "explain",
        "describe",
        "give",
        "list",
        "show",
        "anything",
        "something",
        "everything",
        "thing",
        "things",
        "way",
        "ways",
        "specific",
        "specifically",
        "detail",
        "details",
        "regarding",
        "according",
        "exactly",
        "dont",
        "im",
        "ive",
        "long",
        "often",
    ]
)


def normalize(text: str) -> str:
    """NFKC-normalize and casefold, so full-width digits and ligatures compare equal."""
    return unicodedata.normalize("NFKC", text).casefold()


def tokens(text: str) -> list[str]:
    """Lowercased word tokens of ``text`` (unicode-aware), in order, stop words included."""
    return _TOKEN.findall(normalize(text))


def compact(text: str) -> str:
    """``text`` casefolded with everything but letters and digits removed: run-together names meet here."""
    return "".join(_TOKEN.findall(normalize(text))).replace(".", "").replace("_", "")


def _is_number(token: str) -> bool:
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
    out = []
    for match in _HYPHENATED.finditer(text):
        word = match.group().replace("-", "").casefold()
        if word.isalpha() and len(word) > 3:
            out.append((stem(word), match.group().casefold()))
    return out


def terms(text: str) -> list[str]:
    """Content terms of ``text`` in order (with repeats); identifiers and hyphenated words add their forms."""
    plain = unicodedata.normalize("NFKC", text)
    out = [term for raw in _TOKEN.findall(plain) for term in _raw_terms(raw)]
    if "-" in plain:
        out += [term for term, _ in _hyphen_joins(plain)]
    return out


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


def synonyms(term: str) -> tuple[str, ...]:
    """Other terms meaning the same as ``term`` in a small general table (``term`` itself first)."""
    return _SYNONYMS.get(term, (term,))


def sentences(text: str) -> list[str]:
    """Plain sentences of a markdown body: one per line or sentence end, markup stripped, blanks dropped."""
    out: list[str] = []
    in_fence = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence or not line or not _SPACER.search(line):
            continue
        # The regexes only where their characters occur: most lines are plain prose.
        if line[0] in _MARKUP_START:
            line = _MARKUP.sub("", line)
        if _INLINE_CHARS.search(line):
            line = _INLINE.sub(lambda m: m.group(1) or "", line)
        if "|" in line:
            line = " ".join(cell.strip() for cell in line.strip("|").split("|") if cell.strip())
        if _SENTENCE_CUE.search(line):
            out.extend(part.strip() for part in _SENTENCE_END.split(line) if part.strip())
        elif line:
            out.append(line)
    return out


def clip(text: str, limit: int = 160) -> str:
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters (with an ellipsis)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


# --- a light Porter stemmer (steps 1a-1c, 2 and 3 of Porter 1980); enough to join plurals and tenses ---

_VOWELS = set("aeiou")
_BRITISH_ISE = re.compile(r"(?<=[a-z]{3})is(e|es|ed|ing|ation|ations|er|ers)$")


def _consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem_: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in ``stem_``."""
    forms = "".join("c" if _consonant(stem_, i) else "v" for i in range(len(stem_)))
    return len(re.findall(r"v+c+", forms))


def _has_vowel(stem_: str) -> bool:
    return any(not _consonant(stem_, i) for i in range(len(stem_)))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    if len(word) < 3:
        return False
    return (
        _consonant(word, len(word) - 3)
        and not _consonant(word, len(word) - 2)
        and _consonant(word, len(word) - 1)
        and word[-1] not in "wxy"
    )


_STEP2 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("abli", "able"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
)
_STEP3 = (
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
)


# Step 4 (measure > 1): "configure"/"configuration" and "renew"/"renewal" meet.
_STEP4 = (
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
)


def _step4(word: str) -> str:
    for suffix in sorted(_STEP4, key=len, reverse=True):
        if word.endswith(suffix):
            base = word[: -len(suffix)]
            return base if _measure(base) > 1 else word
    if word.endswith("ion") and word[-4:-3] in ("s", "t") and _measure(word[:-3]) > 1:
        return word[:-3]
    return word


def _step5(word: str) -> str:
    if word.endswith("e"):
        base = word[:-1]
        if _measure(base) > 1 or (_measure(base) == 1 and not _cvc(base)):
            word = base
    if word.endswith("ll") and _measure(word) > 1:
        word = word[:-1]
    return word


def _replace(word: str, rules: tuple[tuple[str, str], ...], min_measure: int) -> str:
    for suffix, repl in rules:
        if word.endswith(suffix):
            base = word[: -len(suffix)]
            return base + repl if _measure(base) > min_measure - 1 else word
    return word


@lru_cache(maxsize=20000)
def stem(word: str) -> str:
    """A light Porter stem of a lowercase word; non-ASCII-letter words and short words are returned as is."""
    if len(word) <= 2 or not word.isascii() or not word.isalpha():
        return word
    # British -ise spellings meet American -ize ones ("authorised"/"authorized"), on both sides alike.
    word = _BRITISH_ISE.sub(r"iz\1", word)
    # Step 1a: plurals.
    if word.endswith(("sses", "ies")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        word = word[:-1]
    # Step 1b: -eed, -ed, -ing.
    if word.endswith("eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
    else:
        for suffix in ("ed", "ing"):
            if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
                word = word[: -len(suffix)]
                if word.endswith(("at", "bl", "iz")):
                    word += "e"
                elif _double_consonant(word) and word[-1] not in "lsz":
                    word = word[:-1]
                elif _measure(word) == 1 and _cvc(word):
                    word += "e"
                break
    # Step 1c: y -> i after a vowel-bearing stem (policy/policies meet at "polici").
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    word = _replace(word, _STEP2, 1)
    word = _replace(word, _STEP3, 1)
    return _step5(_step4(word))


def _synonym_table(groups: list[str]) -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for group in groups:
        stems = tuple(dict.fromkeys(stem(word) for word in group.split()))
        for term in stems:
            table[term] = (term, *(other for other in stems if other != term))
    return table


# A deliberately small table of general equivalences (no domain vocabulary): each line is one group.
_SYNONYMS = _synonym_table(
    [
        "terminate termination cancel cancellation",
        "renew renewal extend extension",
        "cap limit limitation maximum exceed exceeds exceeding exceeded",
        "compete competition competitor competing competitive",
        "assign assignment transfer",
        "warranty warranties warrant guarantee",
        "license licence licensing",
        "indemnify indemnification indemnity",
        "audit inspect inspection",
        "notice notify notification",
        "prerequisite requirement require",
        "delete remove",
        "install installation deploy deployment",
        "error failure fail",
        "permission permissions authorization authorize",
        "governing govern law jurisdiction",
    ]
)
