"""Words, key terms and the bundle vocabulary as okf reads them (okf.text)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okf.text.keyterms import acronyms, count_terms, names, word_forms
from okf.text.vocabulary import Vocabulary
from okf.text.words import clip, compact, sentences, stem, terms

# --- words ---


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab-_ é1.\n", max_size=30))
def test_hyphenated_words_are_found_as_the_plain_pattern_finds_them(text: str) -> None:
    """The anchored, possessive pattern finds exactly the spans of the plain one (which retries every shorter
    run of each word no hyphen follows)."""
    from okf.text.words import _HYPHENATED

    plain = re.compile(r"[^\W_]+(?:-[^\W_]+)+")
    assert [m.span() for m in _HYPHENATED.finditer(text)] == [m.span() for m in plain.finditer(text)]


def test_terms_drop_stop_words_question_words_and_single_letters() -> None:
    assert terms("What is the policy, and how does it apply to a contractor?") == [
        "polici",
        "appli",
        "contractor",
    ]


def test_terms_keep_numbers_and_identifiers_whole() -> None:
    found = terms("Upgrade to version 5.2 and set max_tokens; see 7 days")
    assert "5.2" in found and "7" in found
    assert {"max_tokens", "max", "token"} <= set(found)


def test_terms_are_unicode_aware() -> None:
    # casefold: "Straße" and "STRASSE" meet; NFKC: full-width letters are plain letters.
    assert terms("Größe der Straße, café ＡＰＩ") == ["grösse", "der", "strass", "café", "api"]
    assert terms("STRASSE") == terms("Straße")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("policy", "policies"),
        ("hire", "hires"),
        ("hired", "hiring"),
        ("day", "days"),
        ("renewal", "renewals"),
        ("running", "run"),
    ],
)
def test_stemmer_joins_inflections(a: str, b: str) -> None:
    assert stem(a) == stem(b)


def test_sentences_strip_markdown_and_skip_code() -> None:
    text = "# Leave\n\n- **New hires** get 15 days. Unused days expire.\n\n```\ncode here.\n```\n| a | b |\n|---|---|\n"
    assert sentences(text) == ["Leave", "New hires get 15 days.", "Unused days expire.", "a b"]


def test_clip_cuts_at_a_word_boundary() -> None:
    clipped = clip("word " * 100, 40)
    assert len(clipped) <= 40 and clipped.endswith("…") and "wor…" not in clipped


# --- words: identifiers, inflections, synonyms ---


def test_camel_case_identifiers_yield_their_words() -> None:
    found = terms("Configure the StarredDropdown and RHDHConfig")
    assert {"starreddropdown", "star", "dropdown", "rhdhconfig", "rhdh", "config"} <= set(found)


def test_hyphenated_words_are_also_found_written_together() -> None:
    assert stem("airgapped") in terms("an air-gapped cluster") and "air" in terms("an air-gapped cluster")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("configure", "configuration"),
        ("terminate", "termination"),
        ("renew", "renewal"),
        ("authorised", "authorized"),
    ],
)
def test_stemmer_joins_derivations_and_spellings(a: str, b: str) -> None:
    assert stem(a) == stem(b)


def test_compact_runs_words_together() -> None:
    assert compact("ADAPTIMMUNE-THERAPEUTICS plc, 04.06") == "adaptimmunetherapeuticsplc0406"


def test_count_terms_counts_exactly_the_terms_readers_compare() -> None:
    text = "Configure the StarredDropdown; see [the guide](guides/setup.md) or https://example.com/x now. " * 3
    counted = count_terms(text)
    expected: dict[str, int] = {}
    for term in terms(text.replace("(guides/setup.md)", "").replace("https://example.com/x", "")):
        expected[term] = expected.get(term, 0) + 1
    assert dict(counted) == expected  # link targets and addresses are not words of the text
    assert counted[stem("configure")] == 3 and counted["dropdown"] == 3


def test_word_forms_show_a_term_as_the_text_most_writes_it() -> None:
    text = "Financing rules. The financing of platforms; finance teams review financing."
    chunks = set(text.split())
    assert word_forms(chunks, {stem("financing")}) == {stem("financing"): "financing"}


def test_acronyms_the_text_defines() -> None:
    text = (
        "A Private Financing Platform (\u201cPFP\u201d) may list proposals. Application programming "
        "interfaces (APIs) are used. The Regulator (the FSRA) decides."
    )
    found = acronyms(text)
    assert found["PFP"] == "Private Financing Platform"
    assert found["API"] == "Application programming interfaces"
    assert "FSRA" not in found  # its initials are not the words before it


def test_names_are_title_case_runs_without_leading_function_words() -> None:
    found = names("During the Initial Term, Johnny Galecki met the Bank of England. The Effective Date applies.")
    assert {"Initial Term", "Johnny Galecki", "Bank of England", "Effective Date"} <= set(found)
    assert not any(n.startswith(("During", "The ")) for n in found)


# --- the bundle vocabulary ---


def vocabulary(
    tmp_path: Path, terms_df: dict[str, int], concepts: int = 100, acronyms_: dict[str, str] | None = None
) -> Vocabulary:
    (tmp_path / ".okf").mkdir(parents=True, exist_ok=True)
    (tmp_path / ".okf" / "vocabulary.json").write_text(
        json.dumps({"format": 1, "concepts": concepts, "documents": 3, "acronyms": acronyms_ or {}, "terms": terms_df})
    )
    loaded = Vocabulary.load(tmp_path)
    assert loaded is not None
    return loaded


def test_vocabulary_weighs_rare_terms_more(tmp_path: Path) -> None:
    vocab = vocabulary(tmp_path, {"agreement": 95, "escrow": 2})
    assert vocab.idf("escrow") > vocab.idf("agreement") > 0
    assert vocab.idf("unseen") > vocab.idf("escrow")


def test_vocabulary_reads_past_misspellings_of_its_own_words(tmp_path: Path) -> None:
    vocab = vocabulary(
        tmp_path, {stem("environment"): 30, stem("disconnected"): 12, stem("plugin"): 40, stem("develop"): 50}
    )
    assert vocab.correction(stem("envirnment")) == stem("environment")
    assert vocab.correction(stem("disconected")) == stem("disconnected")
    assert vocab.correction(stem("plugns")) == stem("plugin")
    assert vocab.correction(stem("environment")) is None  # a known word is never corrected
    assert vocab.correction(stem("zebra")) is None  # nothing close enough


def test_a_misspelling_that_stems_apart_from_its_word_is_read_past_by_the_word(tmp_path: Path) -> None:
    """A misspelling's term can be two edits from its word's ("chnage" keeps its "e", "change" stems to
    "chang"; "operater" to "operat", "operator" to "oper"): the word as written, one edit from a word whose
    term the bundle holds, finds it; the most common such term wins, and short words are left alone."""
    vocab = vocabulary(tmp_path, {stem("change"): 40, stem("operator"): 25, stem("operated"): 3, "helm": 9})
    assert vocab.correction(stem("chnage")) is None  # the terms alone are two edits apart
    assert vocab.correction(stem("chnage"), "chnage") == stem("change")
    assert vocab.correction(stem("operater"), "operater") == stem("operator")
    assert vocab.correction(stem("change"), "change") is None  # a known word is never corrected
    assert vocab.correction(stem("heln"), "heln") is None  # too short to tell a slip from another word
    assert vocab.correction(stem("zebras"), "zebras") is None


def test_corrections_are_worked_out_once_per_vocabulary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every angle of a question asks again for the same misspelling: the answer is kept, not searched anew."""
    from okf.text import vocabulary as module

    vocab = vocabulary(tmp_path, {stem("change"): 40})
    assert vocab.correction(stem("chnage"), "chnage") == stem("change")
    monkeypatch.setattr(module, "_correct_word", lambda *_: pytest.fail("searched again"))
    monkeypatch.setattr(module, "_correct", lambda *_: pytest.fail("searched again"))
    assert vocab.correction(stem("chnage"), "chnage") == stem("change")


def test_vocabulary_missing_or_unusable_is_none(tmp_path: Path) -> None:
    assert Vocabulary.load(tmp_path) is None
    (tmp_path / ".okf").mkdir()
    (tmp_path / ".okf" / "vocabulary.json").write_text("{broken")
    assert Vocabulary.load(tmp_path) is None
    (tmp_path / ".okf" / "vocabulary.json").write_text(json.dumps({"terms": [1, 2]}))
    assert Vocabulary.load(tmp_path) is None


_CHUNK_CHARS = "aZq_.,;:()[]'\"-/&*#<>!?5\u201c\u201d\u00e9\ufb01"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_CHUNK_CHARS, min_size=1, max_size=12))
def test_learned_chunks_equal_the_regex_reading(chunk: str) -> None:
    """The fast path for a word with punctuation around it reads a chunk exactly as the tokenizer does."""
    from okf.text import keyterms

    keyterms._FIRST.pop(chunk, None)
    keyterms._learn([chunk])
    assert keyterms._PAIRS[chunk] == keyterms._chunk_pairs(chunk)
    for chunk in ("(Agreement),", "“Licensee”", "[a](b)", "http://x.y", "word_", "x.y", "--Term--", "FINAL."):
        keyterms._FIRST.pop(chunk, None)
        keyterms._learn([chunk])
        assert keyterms._PAIRS[chunk] == keyterms._chunk_pairs(chunk)


_PLAIN_NAME = re.compile(
    r"\b[A-Z](?:[\w'’&-]|\.(?=\w))*[a-z](?:[\w'’&-]|\.(?=\w))*"
    r"(?:[ \t]+(?:(?:of|and|for|the|de|la|du|von|van|der)[ \t]+)?[A-Z](?:[\w'’&-]|\.(?=\w))*){1,4}"
)
_PLAIN_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9&]{1,7}s?\b")


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="AbCdZ Ée.'’&-_\t\n5of", max_size=60))
def test_name_and_acronym_patterns_match_the_plain_ones(text: str) -> None:
    """The patterns written for speed find exactly the spans of the plain ones."""
    from okf.text.keyterms import _ACRONYM, _NAME, caps_words

    assert [m.span() for m in _NAME.finditer(text)] == [m.span() for m in _PLAIN_NAME.finditer(text)]
    assert [m.span() for m in _ACRONYM.finditer(text)] == [m.span() for m in _PLAIN_ACRONYM.finditer(text)]
    from okf.text.keyterms import _ROMAN, STOP_WORDS

    found: Counter[str] = Counter()  # caps_words as first written: lower case found character by character
    for line in text.splitlines():
        if not any(ch.islower() for ch in line):
            continue
        for m in _PLAIN_ACRONYM.finditer(line):
            word = m.group().rstrip("s") if m.group().endswith("s") else m.group()
            if len(word) >= 2 and not _ROMAN.match(word) and word.casefold() not in STOP_WORDS and not word.isdigit():
                found[word] += 1
    assert caps_words(text) == found


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "Data",
                "data",
                "data,",
                "DATA",
                "data/data",
                "datas",
                "non-data",
                "Party",
                "party.",
                "parties",
                "(a)",
                "x_data",
            ]
        ),
        max_size=30,
    )
)
def test_word_forms_equal_the_counting_by_hand(words: list[str]) -> None:
    """Each wanted term shown as the word written in the most distinct chunks (ties: alphabetically first)."""
    from okf.text import keyterms

    chunks = set(words)
    keyterms._known(chunks)
    wanted = {t for c in chunks for t, _ in keyterms._PAIRS[c]}
    seen: dict[str, Counter[str]] = {}
    for chunk in chunks:
        for term, word in keyterms._PAIRS[chunk]:
            seen.setdefault(term, Counter())[word] += 1
    expected = {t: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] for t, c in seen.items()}
    assert word_forms(chunks, wanted) == expected


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "(", '"', "[", "'"]),
            st.sampled_from(["Agreement", "agreement", "AGREEMENT", "noncompetition", "Party", "data", "a", "of"]),
            st.sampled_from(["", ",", ".", ");", "]", "'s", "](x)", "://"]),
        ).map("".join),
        max_size=20,
    )
)
def test_chunks_of_one_word_share_entries_equal_to_learning_each_alone(chunks: list[str]) -> None:
    """A word learned once for all its punctuation variants gives each chunk the entries it gets alone."""
    from okf.text import keyterms

    tables = (keyterms._FIRST, keyterms._PAIRS, keyterms._ALL, keyterms._MORE, keyterms._PICK, keyterms._PAIR_KEYS)
    keyterms._known(set(chunks))
    shared = [{c: table.get(c) for c in chunks} for table in tables]
    alone: list[dict[str, object]] = [{}, {}, {}, {}, {}, {}]
    for chunk in chunks:
        for table in tables:
            table.pop(chunk, None)
        keyterms._WORDS.clear()
        keyterms._learn([chunk])
        for i, table in enumerate(tables):
            alone[i][chunk] = table.get(chunk)
    assert shared == alone


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=_CHUNK_CHARS + " \n", max_size=40), st.lists(st.text(alphabet=_CHUNK_CHARS, max_size=8)))
def test_the_pick_and_pair_tables_say_what_the_term_tables_say(text: str, more: list[str]) -> None:
    """word_forms picks a chunk by _PICK and counts its _PAIR_KEYS: each must say what _FIRST, _MORE and
    _PAIRS say of the chunk (a wrong pick or pair key shows a term as another word, or not at all)."""
    from okf.text import keyterms

    chunks = set(text.split()) | {c for c in more if c and not c.isspace()}
    keyterms._known(chunks)
    for chunk in chunks:
        first, several = keyterms._FIRST[chunk], chunk in keyterms._MORE
        assert keyterms._PICK[chunk] == (keyterms._SEVERAL if several else first)
        assert keyterms._PAIR_KEYS[chunk] == tuple(f"{t}\x00{w}" for t, w in keyterms._PAIRS[chunk])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from(
                [
                    "Data",
                    "data,",
                    "DATA",
                    "data/data",
                    "non-data",
                    "Party",
                    "party.",
                    "(a)",
                    "x_data",
                    "Parties'",
                    "5.2",
                    "nonparty",
                ]
            ),
            max_size=12,
        ),
        min_size=1,
        max_size=4,
    ),
    st.sets(st.sampled_from(["data", "parti", "parties", "x_data", "5.2", "a", "nondata", "nonparti", "zzz"])),
)
def test_word_forms_of_counted_chunks_equal_those_of_the_plain_set(pieces: list[list[str]], wanted: set[str]) -> None:
    """count_each hands word_forms its chunks with their picks (``learned=True``): the forms are those of the
    plain set of chunks, counted by hand from _PAIRS."""
    from okf.text import keyterms

    texts = [" ".join(words) for words in pieces]
    _counts, found = keyterms.count_each(texts)
    chunks = {c for text in texts for c in text.split()}
    assert sorted(found.keys) == sorted(chunks)
    seen: dict[str, Counter[str]] = {}
    for chunk in chunks:
        for term, word in keyterms._PAIRS[chunk]:
            if term in wanted:
                seen.setdefault(term, Counter())[word] += 1
    expected = {t: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] for t, c in seen.items()}
    assert word_forms(found, wanted, learned=True) == expected
    assert word_forms(chunks, wanted) == expected
    assert word_forms(found, wanted) == expected


def _terms_by_hand(text: str) -> list[str]:
    """:func:`terms` as first written: the unicode token pattern, each token's terms asked one by one."""
    import unicodedata

    from okf.text.words import _TOKEN, _hyphen_joins, _raw_terms

    plain = unicodedata.normalize("NFKC", text)
    out = [term for raw in _TOKEN.findall(plain) for term in _raw_terms(raw)]
    return out + ([term for term, _ in _hyphen_joins(plain)] if "-" in plain else [])


@given(st.text(alphabet="aZ9_.-' \u00e9\u00c9\u0131\u2160\uff11\u00bd\u0301xQ", max_size=40))
@settings(max_examples=300)
def test_terms_of_ascii_and_other_text_are_the_unicode_patterns(text: str) -> None:
    """ASCII text is tokenized by the ASCII pattern, other text by the unicode one: the same terms either
    way (fails when the ASCII pattern finds other tokens, e.g. if it took "_" as a letter)."""
    assert terms(text) == _terms_by_hand(text)
    assert terms(text.encode("ascii", "ignore").decode()) == _terms_by_hand(text.encode("ascii", "ignore").decode())


def test_the_token_table_refills_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table of tokens' terms is emptied when full and filled again with the same answers."""
    from okf.text import words

    monkeypatch.setattr(words, "_TOKEN_TERMS_SIZE", 2)
    text = "Max_tokens limits parsing; NonCompetition clauses bind employees across borders."
    assert terms(text) == terms(text) == _terms_by_hand(text)
    table = words._token_terms.__self__  # type: ignore[attr-defined]
    assert len(table) <= 2


def _picks_by_two_lookups(chunks: set[str]) -> tuple[list[str], list[str | None]]:
    """``okf.text.keyterms._picks`` as first written: every chunk looked up again once the new ones are learned."""
    from itertools import compress, repeat
    from operator import is_

    from okf.text import keyterms

    keys = list(chunks)
    values = list(map(keyterms._PICK.get, keys, repeat(keyterms._UNKNOWN)))
    if keyterms._UNKNOWN in values:
        unknown = set(compress(keys, map(is_, values, repeat(keyterms._UNKNOWN))))
        if keyterms._learn(unknown):
            keyterms._learn(chunks)
        values = list(map(keyterms._PICK.__getitem__, keys))
    return keys, values


def _forget(chunks: set[str]) -> None:
    from okf.text import keyterms

    for table in (keyterms._FIRST, keyterms._PAIRS, keyterms._ALL, keyterms._MORE, keyterms._PICK, keyterms._PAIR_KEYS):
        for chunk in chunks:
            table.pop(chunk, None)
    keyterms._WORDS.clear()


@settings(max_examples=300, deadline=None)
@given(
    st.sets(st.text(alphabet=_CHUNK_CHARS, min_size=1, max_size=8), max_size=30),
    st.sets(st.text(alphabet=_CHUNK_CHARS, min_size=1, max_size=8), max_size=30),
    st.booleans(),
)
def test_picks_patch_only_the_new_chunks_and_equal_the_second_look_up(
    known: set[str], new: set[str], full: bool
) -> None:
    """_picks takes the picks of the chunks it just learned from a table of their own and keeps the others' first
    look-up: the same keys and picks as looking every chunk up again, with some chunks known, some new, and
    with the tables cleared on the way (memory bound reached)."""
    from okf.text import keyterms

    chunks = known | new
    for picks in (keyterms._picks, _picks_by_two_lookups):
        _forget(chunks)
        keyterms._learn(known)
        bound = keyterms._CHUNK_MEMORY
        if full:
            keyterms._CHUNK_MEMORY = -1  # the next _learn clears the tables first
        try:
            found = picks(chunks)
        finally:
            keyterms._CHUNK_MEMORY = bound
        keys, values = found
        assert keys == list(chunks)
        assert values == [keyterms._PICK[k] for k in keys]
        assert keyterms._UNKNOWN not in values
        if picks is keyterms._picks:
            ours = (keys, values)
    assert ours == (keys, values)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=_CHUNK_CHARS, min_size=1, max_size=8), max_size=12))
def test_terms_of_chunks_by_one_itemgetter_are_the_mapped_look_ups(chunks: list[str]) -> None:
    """count_each and count_terms read the chunks' terms by one itemgetter call: the same terms, in the same
    order, as mapping the table's look-up over them (none, one and many chunks; fails when one chunk's terms
    are taken as its value alone would iterate)."""
    from itertools import chain

    from okf.text import keyterms

    keyterms._known(set(chunks))
    assert list(keyterms._terms_of(chunks)) == list(chain.from_iterable(map(keyterms._ALL.__getitem__, chunks)))
    text = " ".join(chunks)
    assert keyterms.count_each([text, text[: len(text) // 2]])[0] == [
        Counter(chain.from_iterable(map(keyterms._ALL.__getitem__, t.split()))) for t in (text, text[: len(text) // 2])
    ]
    assert count_terms(text) == Counter(chain.from_iterable(map(keyterms._ALL.__getitem__, text.split())))
