"""okf.compile.escape: the regexes written for speed find exactly what the plain ones find."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from okf.compile.escape import _INDENTED, _INLINE, _LINE_BODY, _line_starts, code_lines, escape_text

# The patterns as first written: an alternation tried at every offset, "^" in MULTILINE mode.
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
    if not plain_code:
        assert code_lines(text) == []


def test_escapes_of_a_contract_text() -> None:
    """Markup the text did not mean is escaped; flanking-free asterisks and indented code are left alone."""
    text = "1. Term\n\n*** CONFIDENTIAL ***\n    indented\n\n    code [x](y)\n# 5 Fees & charges &amp; <b>\n---\n"
    assert escape_text(text) == (
        "1\\. Term\n\n*** CONFIDENTIAL ***\n    indented\n\n    code [x](y)\n"
        "\\# 5 Fees & charges \\&amp; \\<b>\n\\---\n"
    )
