"""okf.markdown's line helpers agree with markdown-it on the lines they judge, and no other module spells
markdown syntax in its own regular expressions (issue 18: markdown scanning in one module)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from okf.markdown import LINK_OR_IMAGE, atx_heading, fenced_lines, link_text

LINES = [
    "# Title",
    "## C#",
    "### x ###",
    "#",
    "# #",
    "#5 not",
    "####### seven",
    "  ## indented",
    "# a # b",
    "# a \\#",
    "#\ttab",
    "# trailing  ",
    "## closed ##  ",
    "plain text",
    "more words",
    "",
    "",
    "```",
    "```py",
    "````",
    "``` a ``` b",
    "~~~",
    "~~~~ ",
    "   ```",
    "``` x",
    "~~~ info",
    "text ``` inline",
    "## `code` [l](x.md)",
    "#\u00a0nbsp",
]


def _reference(text: str) -> tuple[list[tuple[int, int, str]], list[bool]]:
    tokens = MarkdownIt("commonmark").parse(text)
    count = len(text.split("\n"))
    fenced = [False] * count
    found: list[tuple[int, int, str]] = []
    for i, tok in enumerate(tokens):
        if tok.type == "fence" and tok.map:
            for n in range(tok.map[0], min(tok.map[1], count)):
                fenced[n] = True
        if tok.type == "heading_open" and tok.map and tok.markup.startswith("#"):
            found.append((tok.map[0], int(tok.tag[1]), tokens[i + 1].content))
    return found, fenced


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=12).map("\n".join))
def test_headings_and_fences_equal_markdown_it(text: str) -> None:
    lines = text.split("\n")
    fenced = fenced_lines(lines)
    mine = [
        (n, *heading) for n, line in enumerate(lines) if not fenced[n] and (heading := atx_heading(line)) is not None
    ]
    headings, reference_fenced = _reference(text)
    real = len(lines) - text.endswith("\n")  # the text after a final line break is no line
    assert fenced[:real] == reference_fenced[:real]
    assert mine == headings


def test_atx_heading_reads_closing_runs_and_refuses_what_is_no_heading() -> None:
    assert atx_heading("## C#") == (2, "C#")
    assert atx_heading("  ### x ###  ") == (3, "x")
    assert atx_heading("#") == (1, "")
    for line in ("#5", "####### x", "    # code", "text # no"):
        assert atx_heading(line) is None


def test_link_text_keeps_labels() -> None:
    assert link_text("see [the rule](a.md) and ![fig](f.png).") == "see the rule and fig."
    assert LINK_OR_IMAGE.findall("[a](b) [c](d)") == ["a", "c"]


# Markdown syntax other modules once matched with their own patterns: fences, ATX headings, inline links.
_SYNTAX = re.compile(r"`\{3,\}|#\{1,6\}|\\\]\\\(")


def test_no_module_but_okf_markdown_spells_markdown_syntax() -> None:
    root = Path(__file__).resolve().parents[1] / "okf"
    owners = {root / "markdown.py", root / "compile" / "escape.py"}  # escape.py writes markdown, never reads it
    spelled = [
        f"{path.relative_to(root)}:{n}"
        for path in sorted(root.rglob("*.py"))
        if path not in owners
        for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
        if "re.compile" in line and _SYNTAX.search(line)
    ]
    assert spelled == []
