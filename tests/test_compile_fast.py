"""The compile's term statistics written for speed give exactly what the plain expressions they replaced give."""

from __future__ import annotations

import heapq
import math
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from okf.compile.describe import CANDIDATES, candidate_scores
from okf.compile.survey import SUMMARY_TERMS, DocumentSurvey
from okf.compile.vocabulary import summed
from okf.text.keyterms import _wordlike, idf, idf_table
from okf.text.words import stem

_terms = st.text(alphabet="abcdefgh", min_size=1, max_size=4)
# Few distinct weights and counts, so equal scores (ties broken by the term) are common.
_weights = st.dictionaries(_terms, st.sampled_from([0.1, 0.5, 1.0, 1.7, 2.25, 3.0]), max_size=60)
_counts = st.dictionaries(_terms, st.one_of(st.integers(1, 5), st.integers(60, 300)), max_size=80)


def _plain_candidates(counts: dict[str, int], weights: dict[str, float]) -> dict[str, float]:
    """candidate_scores as first written: every pair scored, sorted whole."""
    pairs = [((1.0 + math.log(n)) * weights[t], t) for t, n in counts.items() if t in weights]
    return {t: score for score, t in sorted(pairs, reverse=True)[:CANDIDATES]}


@settings(max_examples=400, deadline=None)
@given(_counts, _weights)
def test_candidate_scores_are_the_plain_ones(counts: dict[str, int], weights: dict[str, float]) -> None:
    found = candidate_scores(Counter(counts), weights)
    assert list(found.items()) == list(_plain_candidates(counts, weights).items())


@settings(max_examples=300, deadline=None)
@given(_counts, st.data())
def test_summary_and_table_are_the_plain_ones(df: dict[str, int], data: st.DataObject) -> None:
    survey = DocumentSurvey()
    survey.df = Counter(df)
    # As idf_table leaves it: the eligible terms of df (here any subset), in df's order.
    keep = data.draw(st.lists(st.booleans(), min_size=len(df), max_size=len(df)))
    weights = data.draw(st.lists(st.sampled_from([0.2, 0.7, 1.3, 2.0]), min_size=len(df), max_size=len(df)))
    survey.weights = {t: w for (t, k), w in zip(zip(df, keep), weights) if k}
    scored = [(-n * (1.0 + w / 4), t) for t, n in survey.df.items() if (w := survey.weights.get(t)) is not None]
    assert survey.summary_terms() == [t for _, t in heapq.nsmallest(SUMMARY_TERMS, scored)]
    assert list(survey.table().items()) == list(dict(sorted(survey.df.items())).items())


def test_stem_keeps_the_british_spellings_rule() -> None:
    """The -ise to -ize rule still applies (now only to words holding "is"), and other words stem as before."""
    assert stem("authorised") == stem("authorized")
    assert stem("organisation") == stem("organization")
    assert stem("agreement") == "agreement"


_LINE_WORDS = ["Sections", "1", "to", "40:", "rules,", "authority", "Part", "1.Chapter", "2;", "93);", "and", "more"]
_LINE_WORDS += ["iv", "a", "APP1", "trust", "fees", "12.3", "(x)", "Guidance.1."]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_LINE_WORDS), max_size=12))
def test_mostly_identifiers_stops_early_with_the_plain_count_s_answer(words: list[str]) -> None:
    from okf.compile.describe import _identifier_word, mostly_identifiers

    text = " ".join(words)
    plain = [w.strip(".,;:()[]") for w in text.split()]
    plain = [w for w in plain if w]
    expected = not plain or sum(1 for w in plain if _identifier_word(w)) > len(plain) / 2
    assert mostly_identifiers(text) == expected


_rows = st.lists(st.tuples(st.sampled_from([-2.0, -1.5, -1.0, -0.25, 0.0, 0.5]), _terms), max_size=300)


@settings(max_examples=300, deadline=None)
@given(_rows, st.integers(min_value=1, max_value=30))
def test_smallest_is_nsmallest(rows: list[tuple[float, str]], n: int) -> None:
    """Short lists by a sort, long ones by the heap (both sides of 12 * n are drawn): the same rows."""
    from okf.text.keyterms import smallest

    assert smallest(n, rows) == heapq.nsmallest(n, rows) == sorted(rows)[:n]


_WORDS = ["Agreement", "agreements", "party", "Parties", "term", "5.2", "of", "the", "fee", "fees", "(a)", "x"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=120), st.integers(min_value=1, max_value=8))
def test_grouping_top_terms_are_the_plain_ones(words: list[str], limit: int) -> None:
    from okf.compile.manifest import top_terms
    from okf.text.keyterms import count_terms, eligible

    counts = count_terms(" ".join(words))
    allowed = set(eligible(counts))
    plain = {t: -n for n, t in sorted((-n, t) for t, n in counts.items() if t in allowed)[:limit]}
    assert list(top_terms(counts, limit).items()) == list(plain.items())


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.datetimes(), st.datetimes(timezones=st.timezones())))
def test_iso_is_strftime(at) -> None:  # type: ignore[no-untyped-def]
    from okf.compile.render import iso

    assert iso(at) == at.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert iso(at) == at.strftime("%Y-%m-%dT%H:%M:%SZ")  # remembered: the same answer again


def test_describe_dirs_below_only_leaves_the_top_as_it_is() -> None:
    """A document's directories are described, its own description (written by the caller) is not touched."""
    from okf.compile.assemble import describe_dirs
    from okf.compile.state import Node

    leaf = Node("a", "Alpha", lines=(1, 2), path="doc/part/a.md", description="Alpha says things.", tags=["x"])
    part = Node("part", "Part", children=[leaf], path="doc/part/")
    doc = Node("doc", "Doc", "Document", children=[part], path="doc/")
    describe_dirs(doc, lambda node: ["term"], below_only=True)
    assert part.description and doc.description == ""
    describe_dirs(doc, lambda node: ["term"])
    assert doc.description


def _plain_slugify(text: str, fallback: str = "untitled") -> str:
    """okf.compile.tree.slugify as first written: every text normalized and folded character by character."""
    import re
    import unicodedata

    from okf.compile.tree import _MAX_SLUG, _RESERVED

    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = re.sub(r"[^\w]+|_+", "-", text).strip("-.")
    if len(text) > _MAX_SLUG:
        cut = text[:_MAX_SLUG]
        text = cut.rsplit("-", 1)[0] if "-" in cut[20:] else cut
        text = text.strip("-")
    if not text:
        text = fallback
    return f"{text}-doc" if text in _RESERVED else text


@settings(max_examples=600, deadline=None)
@given(
    st.one_of(
        st.text(alphabet="AbZ z-_.'0:9/ÉéçﬁΩ\u0301\u00a0", max_size=90),
        st.text(max_size=40),
        st.sampled_from(["Index", "LOG", "con", "Com3", "Café Crème", "Ｆｕｌｌ ｗｉｄｔｈ", "--.", "a_b__c", "Ω"]),
    )
)
def test_slugify_is_the_plain_one(text: str) -> None:
    # ASCII titles skip the normalizing and the per-character fold; every text slugs as before.
    from okf.compile.tree import slugify

    assert slugify(text) == _plain_slugify(text)


def _plain_described(pairs: list[tuple[str, list[str]]], key_terms: list[str], limit: int) -> str:
    """okf.compile.describe._described as first written: each member's pieces tried from all its terms down."""
    from okf.compile.describe import clip

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
        for k in range(len(terms), 0, -1):
            candidate = f"{name} ({', '.join(terms[:k])})"
            if len(candidate) <= max(share, len(name)):
                piece = candidate
                break
        piece += "; " if i < len(pairs) - 1 else "."
        rest = len(pairs) - i
        if len(text) + len(piece) > room - 16 and rest > 1:
            text = text.rstrip("; ") + f"; and {rest} more."
            break
        text += piece
    return clip(f"{text} {tail}".strip(), limit)


_word = st.text(alphabet="ab .é", min_size=0, max_size=14)


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.tuples(_word, st.lists(_word, max_size=9)), max_size=12),
    st.lists(_word, max_size=8),
    st.sampled_from([40, 90, 200, 1000]),
)
def test_directory_lines_are_the_plain_ones(
    pairs: list[tuple[str, list[str]]], key_terms: list[str], limit: int
) -> None:
    from okf.compile.describe import _described

    assert _described(pairs, key_terms, limit) == _plain_described(pairs, key_terms, limit)


def _lead_by_split(
    lines: list[str], start: int, end: int, skip: set[int], title: str, heading_titles: dict[int, str] | None = None
) -> str:
    """okf.compile.describe.lead_sentence as first written: each paragraph split whole into its sentences."""
    from okf.compile.describe import _RULE, _SENTENCE_END, _meta_line, plain

    paragraph: list[str] = []
    in_fence = False

    def first_sentence() -> str:
        for sentence in _SENTENCE_END.split(" ".join(paragraph)):
            sentence = sentence.strip().lstrip("-–—:|# ").strip()
            if (
                len(sentence.split()) >= 4
                and sum(map(str.isalpha, sentence[:200])) >= 12
                and not _meta_line(sentence, title)
            ):
                return sentence
        return ""

    for number in range(start, min(end, start + 300) + 1):
        raw = lines[number - 1]
        stripped = raw.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        heading = number in skip and len(raw.split()) <= 15
        named = (heading_titles or {}).get(number)
        if named and not in_fence and stripped.casefold().startswith(named.casefold()):
            rest = stripped[len(named) :].lstrip(" .:;-–—")
            if len(rest.split()) >= 4:
                raw, stripped, heading = rest, rest, False
        text = "" if in_fence or heading or stripped.startswith("|") or _RULE.fullmatch(raw) else plain(raw)
        if text and not paragraph and (_meta_line(text, title) or (stripped[:1] in "*_" and stripped[-1:] in "*_")):
            text = ""
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


# Sentences of every kind lead_sentence passes over or takes: short ones, meta lines, ones the title repeats,
# ends before a capital, a digit, a quote or a bracket, and stops a lowercase word follows.
_sentence_bits = st.sampled_from(
    [
        "The Supplier shall deliver the goods",
        "Fees are due",
        "Section 4.1",
        "Version 3.0 Owner: Legal",
        "Term",
        "the term continues for two years",
        "1. Payment is made monthly by the Buyer",
        '"Affiliate" means any entity that controls a Party',
        "(a) as set out in Schedule B",
        "# Heading text here",
        "- a list item of some length here",
        "|",
        "",
        "e.g. this one",
        "U.S. law applies to this Agreement in full",
    ]
)
_stops = st.sampled_from([". ", "; ", ": ", "! ", "? ", " ", ".", ".\n", "\n", "  "])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_sentence_bits, _stops), max_size=40), st.sampled_from(["Term", "Section 4.1", "Fees"]))
def test_lead_sentence_cut_one_sentence_at_a_time_is_the_split_one(pieces: list[tuple[str, str]], title: str) -> None:
    """lead_sentence cuts a paragraph's sentences one at a time and stops at the first that states something:
    the same sentence as splitting the paragraph whole (fails when a piece is cut or stripped otherwise)."""
    from okf.compile.describe import lead_sentence

    lines = "".join(bit + stop for bit, stop in pieces).split("\n")
    for skip, named in ((set(), None), ({1}, {1: lines[0][:12]} if lines[0][:12] else None)):
        assert lead_sentence(lines, 1, len(lines), skip, title, named) == _lead_by_split(
            lines, 1, len(lines), skip, title, named
        )


@settings(max_examples=300, deadline=None)
@given(st.lists(_counts, max_size=8))
def test_summed_tables_are_counter_update(tables: list[dict[str, int]]) -> None:
    """The vocabulary's sum by C-level maps: the counts and the key order of ``Counter.update`` of each table."""
    plain: Counter[str] = Counter()
    for table in tables:
        plain.update(table)
    assert list(summed(tables).items()) == list(plain.items())


_mixed_terms = st.text(alphabet="ab-.1²éΩ_", min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_mixed_terms, st.integers(1, 9), max_size=40))
def test_idf_table_keeps_the_wordlike_terms(df: dict[str, int]) -> None:
    """Letters-only terms taken by ``str.isalpha`` first: the same terms, order and weights as the cached test
    alone (digits of any script, superscripts and identifiers still go through it)."""
    total = 10
    plain = {t: idf(n, total) for t, n in df.items() if len(t) >= 3 and _wordlike(t)}
    assert list(idf_table(df, total).items()) == list(plain.items())
