"""okf.compile.escape: the regexes written for speed find exactly what the plain ones find."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from okf.compile.escape import (
    _INDENTED,
    _INLINE,
    _LINE_BODY,
    TextEscapes,
    _indented_lines,
    _line_starts,
    code_lines,
    escape_text,
    escapes,
)

# The patterns as first written: an alternation tried at every offset, "^" in MULTILINE mode (_INDENTED, still
# "^" in MULTILINE mode, is the plain pattern of code_lines' indented lines).
_PLAIN_INLINE = re.compile(
    r"\\(?=[!-/:-@\[-`{-~]|\n|$)|`|\](?=[(:])|<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]{1,32};)|\*+|_+|~+"
)
_PLAIN_LINE = re.compile("^" + _LINE_BODY, re.MULTILINE)

_markdownish = st.text(alphabet=" \t\n\\`]([<>&#;*_~-+=|:.)^!aZ19x", max_size=80)


@settings(max_examples=600, deadline=None)
@given(_markdownish)
def test_fast_patterns_match_the_plain_ones(text: str) -> None:
    assert [m.span() for m in _INLINE.finditer(text)] == [m.span() for m in _PLAIN_INLINE.finditer(text)]
    assert [(m.start(1), m.span(2), m.group(2), m.group(3)) for m in _line_starts(text)] == [
        (m.start(), m.span(2), m.group(2), m.group(3)) for m in _PLAIN_LINE.finditer(text)
    ]
    plain_code = [m.span() for m in _INDENTED.finditer(text)]
    assert list(_indented_lines(text)) == plain_code
    if not plain_code:
        assert code_lines(text) == []


def test_escapes_of_a_contract_text() -> None:
    """Markup the text did not mean is escaped; flanking-free asterisks and indented code are left alone."""
    text = "1. Term\n\n*** CONFIDENTIAL ***\n    indented\n\n    code [x](y)\n# 5 Fees & charges &amp; <b>\n---\n"
    assert escape_text(text) == (
        "1\\. Term\n\n*** CONFIDENTIAL ***\n    indented\n\n    code [x](y)\n"
        "\\# 5 Fees & charges \\&amp; \\<b>\n\\---\n"
    )


# Lines of a plain text: blank ones, indented ones (code after a blank line), list markers, emphasis runs.
_line = st.one_of(
    st.just(""),
    st.just("   "),
    st.text(alphabet=" \t\\`]([<>&#;*_~-+=|:.)^!aZ19x", max_size=24),
    st.builds(lambda s: "    " + s, st.text(alphabet=" *_[]a1.", max_size=10)),
    st.builds(lambda n, s: f"{n}. {s}", st.integers(1, 12), st.text(alphabet=" *_a", max_size=8)),
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_line, min_size=1, max_size=14), st.data())
def test_a_run_of_lines_escapes_as_the_whole_text_says(lines: list[str], data: st.DataObject) -> None:
    """TextEscapes.of_lines gives a run of lines exactly its own escapes and code lines, whenever it answers
    (the run starts the text or follows a blank line); per_line sums the whole text's escapes by line."""
    whole = TextEscapes(lines)
    first = data.draw(st.integers(1, len(lines)))
    last = data.draw(st.integers(first, len(lines)))
    body = "\n".join(lines[first - 1 : last])
    found = whole.of_lines(first, last)
    if first == 1 or not lines[first - 2].strip():
        assert found == (escapes(body), code_lines(body))
    else:
        assert found is None
    text = "\n".join(lines)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    assert whole.per_line() == [sum(starts[i] <= at < starts[i + 1] for at in escapes(text)) for i in range(len(lines))]
