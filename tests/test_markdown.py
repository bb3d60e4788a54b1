"""okf.markdown: the line scanner must give exactly markdown-it's answer on everything it accepts."""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from okf.markdown import _fast_index, _fast_links, find_links, parse_index

WORDS = [
    "alpha",
    "beta",
    "Gamma",
    "d2",
    "x",
    "see",
    "the",
    "42",
    "é",
    "naïve",
    "a.b",
    "q?",
    "(paren)",
    "C#",
    "x)",
    "end.",
    "'q'",
    '"dq"',
    "a:b",
    "1.",
    "-",
    "--",
    "\u2013",
    ":",
    "#tag",
    "]",
    "\u00a0",
    "snake_case",
]
TARGETS = [
    "b.md",
    "../up.md",
    "/index.md",
    "dir/",
    "dir/index.md",
    "c.md#frag",
    "c.md?x=1",
    "é.md",
    "a%20b.md",
    "https://example.com/x?y=1",
    "mailto:a@b.c",
    "javascript:alert(1)",
    "file:///etc/passwd",
    "#top",
    "b[1].md",
    'q"t.md',
    "a\\_b.md",
    "x\\)",
    "x:y",
    "data:text/plain,hi",
    "./c",
    "C:\\x",
    "~/x",
]
TITLES = [
    "",
    ' "A title"',
    " 'single'",
    ' "t\\"q"',
    ' "[br] (p)"',
    '  "two  spaces" ',
    " ",
    ' "un closed',
    " (paren title)",
]
# Real-world text the scanners read themselves: bracketed redactions and references, bare ampersands, runs of
# spaces inside lines (and, through the line prefixes below, indented lines inside paragraphs).
REAL = [
    "[***]",
    "[1]",
    "[x][y]",
    "[]",
    "[a]",
    "&",
    "R&D",
    "A & B",
    "&c",
    "&x;",
    "&#1;",
    "a    b",
    "x]",
    "[ x",
    "]:",
    "](",
    "soft\u00adhyphen",
    "zero\u200bwidth",
    "\ufeff",
    "\u2003",
]
# Backslash escapes as okf's compiler writes them in index files and bodies (and two it never writes).
ESCAPES = [
    "\\#3",
    "\\*",
    "\\_x\\_",
    "\\[y\\]",
    "\\&",
    "\\<b\\>",
    "\\|",
    "\\`",
    "\\~",
    "\\!",
    "\\\\",
    "a\\-b",
    "\\a",
    "x\\",
    # literal backslashes (before a letter or digit: text to markdown-it), as in file names contracts cite
    "US-DOCS\\105216871.19",
    "baidu.leju.com\\esf",
    "\\\\a",
    "a\\1\\*",
    "&b\\1;",
    "\\a&amp;",
    "\\é",
    "\\ x",
    "a \\| b\n---",
    "\\- not a bullet",
    "5\\. no item",
    "\\# no heading",
]
NOISE = [
    "*",
    "_",
    "`",
    "<",
    "&amp;",
    "\\",
    "[",
    "]",
    "(",
    ")",
    "![i](p.png)",
    "    ",
    "\t",
    "> ",
    "|",
    "~~~",
    "**b**",
    "<http://x.y>",
    "[r][ref]",
    "[ref]: /u",
    "\r\n",
    "\x00",
    "=== ",
    "--- ",
    "1) ",
    "2. ",
    "* ",
    "+ ",
    "# ",
    "#",
]


@st.composite
def labels(draw: st.DrawFn, clean: bool = False, one_line: bool = False) -> str:
    words = draw(
        st.lists(st.sampled_from(WORDS + ESCAPES if clean else WORDS + ESCAPES + NOISE[:6]), min_size=0, max_size=4)
    )
    breaks = [" ", "  "] if one_line else [" ", "  ", "\n", " \n "] if clean else [" ", "  ", "\n", " \n ", "\n\n"]
    seps = draw(st.lists(st.sampled_from(breaks), min_size=len(words), max_size=len(words)))
    return "".join(w + s for w, s in zip(words, seps, strict=True)).rstrip(" ") if words else ""


@st.composite
def links(draw: st.DrawFn, clean: bool = False, one_line: bool = False) -> str:
    target = draw(st.sampled_from(TARGETS[:12] if clean else TARGETS))
    title = draw(st.sampled_from(TITLES[:5] if clean else TITLES))
    return f"[{draw(labels(clean, one_line))}]({target}{title})"


@st.composite
def lines(draw: st.DrawFn, clean: bool = False) -> str:
    pieces = st.one_of(
        st.sampled_from(WORDS),
        links(clean),
        st.sampled_from(REAL),
        st.sampled_from(ESCAPES),
        *([] if clean else [st.sampled_from(NOISE)]),
    )
    parts = draw(st.lists(pieces, max_size=6))
    prefix = draw(
        st.sampled_from(
            [
                "",
                "",
                "",
                "- ",
                "* ",
                "+ ",
                "  - ",
                "1. ",
                "# ",
                "## ",
                "> ",
                "   ",
                "  ",
                "#",
                "-",
                "    ",
                "    ",
                "      ",
                "-     ",
                ">     ",
                "1.     ",
                "  >    ",
                "---",
                "===",
                "* * *",
                "> ",
                "    - ",
                "    # ",
            ]
        )
    )
    return prefix + " ".join(parts)


# Half the documents are clean (words and plain links only) so the scanner accepts, and is compared, often.
documents = st.booleans().flatmap(
    lambda clean: st.lists(st.one_of(lines(clean), st.just("")), max_size=8).map("\n".join)
)


# 50 examples: the chunked test below compares the scanner with markdown-it on the same documents too (a text the
# scanner accepts whole is read by it alone), 100 times and on longer texts.
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.integers(min_value=0, max_value=5))
@example("1. #  [alpha\nalpha](b.md)", 0)  # a heading inside a list item ends at its line (found by hypothesis)
@example("- alpha\n    # [alpha\nalpha](b.md)", 0)  # and in a list item's continuation
@example("[a\\\nb](x.md)", 0)  # a backslash before a line break is a hard break: not the text it reads as
@example("[a \\\nb](x.md)", 0)
@example("[a\\ \nb](x.md)", 0)  # a backslash takes the space after it, which then stays before the soft break
def test_fast_links_equal_markdown_it(text: str, offset: int) -> None:
    quick = _fast_links(text, offset)
    if quick is not None:
        assert quick == find_links(text, offset, fast=False)


def _masked_long_way(text: str) -> str | None:
    """_masked read a character at a time, as markdown-it reads backslashes: an escape of ASCII punctuation becomes
    two letters, a backslash before an ASCII letter or digit stays (a literal one), any other backslash declines;
    then what is left is declined as _declined declines unescaped text (a literal backslash read there as a
    character that is no letter, digit, mark or control: it ends an entity's name)."""
    from okf.markdown import _declined

    if "|" in text:
        return None
    masked: list[str] = []
    read: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\":
            after = text[i + 1 : i + 2]
            if after and after in string.punctuation:
                masked.append("aa")
                read.append("a")
                i += 2
                continue
            if after.isascii() and after.isalnum():
                masked.append("\\")
                read.append("-")
                i += 1
                continue
            return None
        masked.append(text[i])
        read.append(text[i])
        i += 1
    return None if _declined("".join(read)) else "".join(masked)


# Entities whose name a one-letter and a two-letter mask of an escape put on either side of 32 characters.
_ENTITY_EDGES = ["&" + "b" * 30 + "\\*;", "&" + "b" * 31 + "\\*;", "&#x\\*;", "&#\\*1;"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.one_of(documents, st.sampled_from(_ENTITY_EDGES)), min_size=1, max_size=3).map("\n".join),
)
@example("-     x\n    y")  # five spaces after a marker, and a line indented four
@example("a     b\n1.     c")  # five spaces after a marker on a later line, none indented four
@example("a     b\n  >      c")
@example("1.     c\nd")  # on the first line
def test_masking_and_code_blanking_equal_the_long_ways(text: str) -> None:
    """_masked escapes once and reads the two-letter mask for what _declined reads in the one-letter one;
    _without_code tells text with no line indented four spaces without a step per line."""
    from okf.markdown import _masked, _without_code, _without_code_by_line

    assert _masked(text) == _masked_long_way(text)
    assert _without_code(text) == _without_code_by_line(text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(documents, min_size=1, max_size=4).map("\n\n".join), st.integers(min_value=0, max_value=5))
def test_find_links_by_chunks_equals_markdown_it(text: str, offset: int) -> None:
    # Text declined as a whole is read chunk by chunk (scanner where it can, markdown-it elsewhere).
    assert find_links(text, offset) == find_links(text, offset, fast=False)


@st.composite
def index_documents(draw: st.DrawFn) -> str:
    clean = draw(st.booleans())
    out: list[str] = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(
            st.sampled_from(["entry", "entry", "entry", "heading", "blank", "prose"] + ([] if clean else ["noise"]))
        )
        if kind == "heading":
            out.append(
                draw(st.sampled_from(["#", "##", "###", " #", "#######"]))
                + draw(st.sampled_from([" ", "  ", "", "    "]))
                + draw(st.sampled_from(WORDS + ESCAPES + ["", "Two words ", "a    b", "R&D"]))
            )
        elif kind == "prose":
            out.append(
                draw(st.sampled_from(["", " ", "   ", "    "]))
                + " ".join(
                    draw(
                        st.lists(
                            st.sampled_from(
                                WORDS
                                + ESCAPES
                                + ["\\- x", "5\\. y", "a    b", "&", '"Quoted" (2 parts)', "(aside)", "'single'"]
                                + (["===", "---", "*", "1)", "[x]"] if not clean else [])
                            ),
                            min_size=1,
                            max_size=4,
                        )
                    )
                )
            )
        elif kind == "blank":
            out.append(draw(st.sampled_from(["", " ", "  "])))
        elif kind == "noise":
            out.append(draw(lines()))
        else:
            bullet = draw(
                st.sampled_from(
                    ["* ", "- ", "+ ", "  * ", "*  ", "*    ", "*     "] + ([] if clean else ["1. ", "-", "*\u00a0"])
                )
            )
            sep = draw(st.sampled_from([" - ", " \u2013 ", ": ", " ", "", " -- ", " | ", " -", " \\- "]))
            description = " ".join(
                draw(
                    st.lists(
                        st.sampled_from(WORDS + ESCAPES + ["a    b", "&"] + ([] if clean else NOISE[:8])), max_size=4
                    )
                )
            )
            link = draw(links(clean, one_line=clean))
            if draw(st.booleans()):  # a title escaped as okf's compiler escapes it
                link = "[" + draw(st.sampled_from(["C\\#3", "\\[***\\] x", "a\\_b", "R\\&D", "\\*x\\*"])) + link[1:]
            out.append(f"{bullet}{link}{sep}{description}" + draw(st.sampled_from(["", " ", "  "])))
    return "\n".join(out)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index_documents(), st.integers(min_value=0, max_value=5))
def test_fast_index_equals_markdown_it(text: str, offset: int) -> None:
    quick = _fast_index(text, offset)
    if quick is not None:
        assert quick == parse_index(text, offset, fast=False)


ACCEPTED_LINKS = [
    "See [the next one](c000002.md) and [root](/index.md).\n\n- a list item\n- another\n",
    '# Title [h](h.md)\n\nText with [a link](b.md "Its title") in a\nmulti-line paragraph [x](y.md).\n',
    "- [one](1.md)\n  - [nested](2.md#part)\n\n1. [ordered](3.md)\n> [quoted](4.md)\n",
    "A [label that\nwraps lines](w.md) then [é](é.md) and [web](https://x.y/a?b=c).\n",
    "[](empty.md) [ spaced ](s.md) [q]('quoted'.md) [p](a.md 'single title')\n",
    "Setext heading with [a](a.md)\n===\n\ntext] not a link (x) *emph* _u_ after\n",
    "",
    # Real-world text: redactions, ampersands, aligned columns, indented lines inside paragraphs, and
    # indented code blocks (their links are not links).
    "The fee is [***] per unit [1], R&D costs & fees, Section 1.    Definitions.\n"
    "Continued\n    indented [inside](p.md) the paragraph\n        and more.\n",
    "    [indented](x.md) code\n\n        more code [c](c.md)\npara [after](a.md)\n    continues [it](i.md)\n",
    "# Heading\n    code [no](n.md)\n\ntext\n",
    # literal backslashes before letters and digits (text to markdown-it), in and out of labels
    "US-DOCS\\105216871.19\n\n[a\\1 b](c.md) and [\\\\x](d.md) C:\\dir\\f [e](e.md)\n",
]


@pytest.mark.parametrize("text", ACCEPTED_LINKS)
def test_fast_links_accepts_plain_markdown(text: str) -> None:
    quick = _fast_links(text, 3)
    assert quick is not None
    assert quick == find_links(text, 3, fast=False)


DECLINED_LINKS = [
    "`[code](x.md)`",
    "```\n[fenced](x.md)\n```",
    "- item\n\n    [in the item](x.md)",
    "<a href='x'>[h](x.md)</a>",
    "\n===\n    [continues the paragraph ===](x.md)",
    "1.     [code in an item](x.md)",
    "[a [b] c](x.md)",
    "[x]: /u\n\n[x]",
    "&copy; [a](b.md)",
    "[ref][r]\n\n[r]: x.md",
    "\\[escaped](x.md)",
    "![image](i.png)",
    "[a *b*](x.md)",
    "[a](<x y.md>)",
    "[a](javascript:alert(1))",
    "[x](a(b).md)",
    "# [heading\nwraps](x.md)",
    "- [item\n- next](x.md)",
    "[a\n\nb](x.md)",
    '[a]( "t")',
    "&amp; [a](b.md)",
    "| [a](b.md) |\n|---|",
    "[a\\\nb](x.md)",
    "[a](b\\1.md)",
    "x\\ [a](b.md)",
    "[\\é](x.md)",
]


@pytest.mark.parametrize("text", DECLINED_LINKS)
def test_fast_links_declines_what_it_cannot_reproduce(text: str) -> None:
    assert _fast_links(text, 0) is None
    assert find_links(text) == find_links(text, fast=False)


def test_a_line_of_many_list_markers_is_read_in_linear_time() -> None:
    # From a real contract: nested quantifiers sharing spaces once made this line backtrack exponentially.
    line = "3. ***  ***   4. ***  ***   " * 40 + "D. ***    1. ***  ***  *** 2. [a](b.md)"
    for text in (line, "\n\n" + line, "x\n\n    y\n\n" + line):
        assert find_links(text) == find_links(text, fast=False)


def test_fast_index_reads_generated_index_and_declines_prose() -> None:
    text = (
        "# Concepts\n\nConcepts: one; two (2); three.\n\n* [Concept 1](c1.md) - Fact one (first).\n- [Two](c2.md): Fact two.\n"
        "+ [Three](sub/) \u2014 A group.\n\n## More\n\n* [Four](c4.md)\n"
    )
    quick = _fast_index(text, 4)
    assert quick is not None and quick == parse_index(text, 4, fast=False)
    assert [e.line for e in quick.entries] == [9, 10, 11, 15]
    assert quick.sections == ["Concepts", "More"]
    # A paragraph opened by a quote or a parenthesis; a backslash escaped before a letter ("\\\\s": "\\" then "s").
    text = "\"Mrbr\" (2 parts); (see) 'x'.\n\n* [W](w.md) - By: \\\\s\\\\ Rick\n"
    quick = _fast_index(text, 0)
    assert quick is not None and quick == parse_index(text, 0, fast=False)
    assert quick.entries[0].description == "By: \\s\\ Rick"
    for declined in [
        "* [a](a.md)\nlazy continuation",
        "Setext\n===\n* [a](a.md)",
        "* no link here",
        "* [a](a.md)\n  continued",
        "1. [a](a.md)",
        "* [a](a.md) see [b](b.md)",
        "# A *b*",
        "* [a](a.md) - snake_case",
    ]:
        assert _fast_index(declined, 0) is None
        assert parse_index(declined) == parse_index(declined, fast=False)


# --- top-level blocks: the line scan of plain prose and headings equals markdown-it -------------------------

BLOCK_LINES = [
    "",
    " ",
    "   ",
    "Plain prose line.",
    "127 Hours is a 2010 film.",
    "1.5 million people",
    "1. an item",
    "2) another",
    "1.",
    "1234567890. many digits",
    "a",
    "Z",
    "é accented start",
    "½ a half",
    "١. arabic digit",
    "# Title",
    "## Sub title",
    "###### Six",
    "####### Seven",
    "#NoSpace",
    "#",
    "# ",
    "#   Spaced   ",
    "# Title #",
    "# C# language",
    "# *emph*",
    "# a_b",
    "# [link](x)",
    "# R&D",
    "# x\u2003",
    "# \u2003",
    "# tail\u00a0",
    " # indented",
    "    code",
    "  two spaces",
    "- bullet",
    "* star",
    "+ plus",
    "> quote",
    "```",
    "~~~",
    "<div>",
    "---",
    "===",
    "***",
    "a | b",
    "|---|",
    "[ref]: /url",
    "\tTab",
    "x\ty",
    "\u00a0nbsp",
    "word\r",
    "text with <b>html</b> and `code` inline",
    "line ending with two spaces  ",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(BLOCK_LINES), max_size=12), st.integers(min_value=0, max_value=5))
def test_fast_blocks_equal_markdown_it(lines: list[str], offset: int) -> None:
    from okf.markdown import _fast_blocks, _parse_blocks

    text = "\n".join(lines)
    fast = _fast_blocks(text, offset)
    if fast is not None:
        assert fast == _parse_blocks(text, offset)


_HEADING_LINES = [
    *BLOCK_LINES,
    "* **Creation**: 1 concept created (`policy`).",
    "- **Sources**: compiled from 2 changed source files.",
    "+ plain bullet text",
    "* 1. # nested heading",
    "* # heading in an item",
    "- - nested",
    "* **",
    "* ",
    "*   spaced",
    "  continued item text",
    "2. ordered",
    "Paragraph text",
    "## 2026-12-01",
    "# Update log",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_HEADING_LINES), max_size=12), st.integers(min_value=0, max_value=5))
def test_fast_headings_equal_markdown_it(lines: list[str], offset: int) -> None:
    from okf.markdown import _fast_headings, _headings

    text = "\n".join(lines)
    fast = _fast_headings(text, offset)
    if fast is not None:
        assert fast == _headings(text, offset)


def test_a_log_as_compile_writes_it_is_read_without_markdown_it() -> None:
    from okf.markdown import _fast_headings, _headings

    log = (
        "# Update log\n\n## 2026-12-01\n* **Creation**: 3 concepts created (`a`, `b`, `c`).\n"
        "* **Sources**: compiled from 1 changed source file (`a.md`).\n\n## 2026-11-30\n* **Removal**: 1 concept.\n"
    )
    fast = _fast_headings(log, 2)
    assert fast is not None and fast == _headings(log, 2)
    assert [(h.level, h.text, h.start_line) for h in fast] == [
        (1, "Update log", 3),
        (2, "2026-12-01", 5),
        (2, "2026-11-30", 9),
    ]
    assert _fast_headings("* # in an item\n", 0) is None and _fast_headings("Title\n---\n", 0) is None


def test_fast_blocks_read_plain_documents() -> None:
    """A heading over paragraphs of prose, as many real documents are, is read without markdown-it."""
    from okf.markdown import _fast_blocks, _parse_blocks

    text = "# 127 Hours\n\n127 Hours is a 2010 film.  It stars James Franco.\nA second line.\n\n## Plot\n\nAron goes.\n"
    fast = _fast_blocks(text, 0)
    assert fast is not None and fast == _parse_blocks(text, 0)
    assert [b.kind for b in fast] == ["heading", "paragraph", "heading", "paragraph"]
    assert _fast_blocks("- a list\n", 0) is None and _fast_blocks("Title\n===\n", 0) is None


def test_the_ascii_declines_are_the_declined_characters_below_128() -> None:
    from okf.markdown import _ASCII_CONTROLS, _DECLINE_CHARS

    assert {chr(b) for b in _ASCII_CONTROLS} == {chr(i) for i in range(128) if _DECLINE_CHARS.match(chr(i))}


_BRACKETS = ["[", "]", "(", ")", ":", "<", ">", "http://x.y", "\\", "a", "b.md", " ", "\n", "!", "*", "`", "&#93;"]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_BRACKETS), max_size=16).map("".join))
def test_text_without_link_syntax_has_no_links(text: str) -> None:
    """find_links answers [] at once for text with no "](", "]:" or "<": markdown-it finds none there either."""
    if "](" not in text and "]:" not in text and "<" not in text:
        assert find_links(text, fast=False) == [] == find_links(text)
    else:
        assert find_links(text) == find_links(text, fast=False)


_ENTRY_TEXT = st.text(alphabet=st.sampled_from(list("ab (),.:;-–—|…é\"'?#/ ")), max_size=12)
# A description may also hold what the compiler's entry may not (read by the general steps then).
_DESCRIPTION_TEXT = st.text(alphabet=st.sampled_from(list("ab (),.:;-–—|…é\"'?#/ *_[]\\")), max_size=12)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["* ", "- ", "+ ", "*  ", " * "]),
            _ENTRY_TEXT,
            st.sampled_from(["a.md", "sub/", "/x/y.md", "a.md#s", "//h/x", "a%20b.md", "x-1_2.md"]),
            st.sampled_from(["", " - ", " -", " : ", " – ", " -- ", "  - ", " - - ", " x "]),
            _DESCRIPTION_TEXT,
        ),
        min_size=1,
        max_size=5,
    ),
    st.booleans(),
)
def test_index_entries_as_the_compiler_writes_them_equal_markdown_it(entries, heading) -> None:
    lines = ["# Heading", ""] if heading else []
    lines += [f"{bullet}[{label}]({target}){sep}{text}".rstrip() for bullet, label, target, sep, text in entries]
    text = "\n".join(lines) + "\n"
    quick = _fast_index(text, 2)
    if quick is not None:
        assert quick == parse_index(text, 2, fast=False)
