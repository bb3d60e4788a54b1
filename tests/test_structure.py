"""Sections of numbered documents: identifiers with words or letters, running labels, underlined formulas."""

from __future__ import annotations

from pathlib import Path

import pytest

from okf.bundle import Bundle
from okf.compile import CompileOptions, compile_bundle
from okf.compile.structure import Section, _ident, build_tree, markdown_headings


def _outline(text: str) -> Section:
    lines = text.split("\n")
    found, _ = markdown_headings(text, lines)
    return build_tree(found, len(lines), "doc")


def _titles(section: Section) -> list[str]:
    return [c.title for c in section.children]


@pytest.mark.parametrize(
    ("heading", "ident", "bare"),
    [
        ("2.1.3", ("2", "1", "3"), True),
        ("APP 4.25.", ("APP 4", "25"), True),
        ("APP1", ("APP1",), True),
        ("APP1.A1.1.Guidance.1.", ("APP1", "A1", "1", "Guidance", "1"), True),
        ("Part 1", ("Part 1",), True),
        ("Part 1.Chapter 1.1.(1)", ("Part 1", "Chapter 1", "1", "(1)"), True),
        ("Chapter 3 Risks", ("Chapter 3",), False),
        ("A.", ("A",), True),
        ("B.5. Scope", ("B", "5"), False),
        # Words, not identifiers: a capital and a number inside a title, a structural noun used as a word.
        ("Q3 Results", None, False),
        ("A Guide to Fees", None, False),
        ("Windows 10 setup", None, False),
        ("Part of the plan", None, False),
        ("Installing", None, False),
    ],
)
def test_identifiers_with_words_or_letters(heading: str, ident: tuple[str, ...] | None, bare: bool) -> None:
    assert _ident(heading) == (ident, bare if ident else False)


def test_parts_chapters_and_appendices_nest_by_their_numbering() -> None:
    text = "\n\n".join(
        [
            "# Regulations",
            "### Part 1",
            "The Regulator",
            "### Part 1.Chapter 1",
            "Powers and Functions",
            "### Part 1.Chapter 1.1.",
            "The Regulator has the powers set out here.",
            "### Part 2",
            "Authorisation",
            "### Part 2.Chapter 1.2.",
            "No person may carry on a regulated activity without a permission.",
            "### APP1",
            "CATEGORIES OF PERSONS",
            "### APP1.A1.1",
            "A table of the categories follows in this appendix.",
            "### APP1.A1.2",
            "Each category carries its own capital requirement.",
        ]
    )
    doc = _outline(text).children[0]
    assert _titles(doc) == ["Part 1 The Regulator", "Part 2 Authorisation", "APP1 Categories Of Persons"]
    part1, _, app = doc.children
    assert _titles(part1) == ["Part 1.Chapter 1 Powers and Functions"]
    assert _titles(part1.children[0]) == ["Part 1.Chapter 1.1."]
    assert _titles(app) == ["APP1.A1.1", "APP1.A1.2"]


def test_passages_repeating_a_label_are_gathered_under_it() -> None:
    """Guidance numbered straight through, each paragraph opening with the heading of its part ("INTRODUCTION",
    or run in: "RISKS. Text ..."): consecutive paragraphs sharing a label become one section named by it;
    an unlabelled paragraph between two of the same part stays in it; a lone label titles its paragraph."""
    paragraphs = [
        ("INTRODUCTION", "This Guidance is issued under the Regulations."),
        ("INTRODUCTION", "It applies to every applicant for a permission."),
        ("RISKS AND MITIGATIONS", "The table below sets out the main risks."),
        (None, "A lead-in sentence to the table of risks, with no label of its own."),
        ("RISKS AND MITIGATIONS", "Custody of keys is the first risk."),
        ("FEES", "Fees are payable on application."),
    ]
    blocks = ["# Guidance"]
    for n, (label, body) in enumerate(paragraphs, 1):
        blocks.append(f"### {n})")
        blocks.append(f"{label}\n{body}" if label else body)
    blocks.append("### 7)\n\nRECORDS. Records are kept for six years.")
    blocks.append("### 8)\n\nRECORDS. Each record names its author.")
    doc = _outline("\n\n".join(blocks)).children[0]
    assert _titles(doc) == ["Introduction", "Risks And Mitigations", "6) Fees", "Records"]
    assert _titles(doc.children[0]) == ["1)", "2)"]
    assert _titles(doc.children[1]) == ["3)", "4)", "5)"]
    assert doc.children[1].start == doc.children[1].children[0].start
    assert doc.children[1].end == doc.children[1].children[-1].end


def test_one_label_on_every_passage_adds_no_level() -> None:
    text = "\n\n".join(["# Note", "### 1)", "SCOPE\nFirst paragraph.", "### 2)", "SCOPE\nSecond paragraph."])
    assert _titles(_outline(text).children[0]) == ["1)", "2)"]


def test_an_underlined_formula_among_numbered_passages_is_no_heading() -> None:
    formula = "Net outflows over the next 30 days\n=\nExpected outflows\n-\nExpected inflows"
    numbered = "\n\n".join(
        ["# Rules", "### 1.1", "Scope", "### 1.2", "Net outflows", "### 1.3", formula, "### 1.4", "End"]
    )
    assert _titles(_outline(numbered).children[0]) == ["1.1 Scope", "1.2 Net outflows", "1.3", "1.4 End"]
    # In a document not written as numbered passages, an underlined line is a heading as markdown says.
    plain = "\n\n".join(["# Guide", "## Install", "Run the installer.", "Upgrade\n-------", "Run it again."])
    assert "Upgrade" in [s.title for s in _flatten(_outline(plain))]


def _flatten(section: Section) -> list[Section]:
    out = []
    for child in section.children:
        out += [child, *_flatten(child)]
    return out


def test_a_numbered_rulebook_compiles_to_signposts_naming_its_parts(tmp_path: Path) -> None:
    """Forty-five appendix passages and three chapters: the document's signpost names the chapters and the
    appendix by their titles, not "Sections 1 to 40"."""
    blocks = ["# Prudential Rules", "### 1", "APPLICATION", "### 1.1", "The Rules apply to every firm."]
    blocks += ["### 2", "CREDIT RISK", "### 2.1", "A firm must measure its credit exposures."]
    blocks += ["### 3", "LIQUIDITY RISK", "### 3.1", "A firm must hold a stock of liquid assets."]
    blocks += ["### APP1", "LARGE EXPOSURES"]
    for n in range(1, 46):
        blocks += [f"### APP1.A1.{n}", f"Exposure limit paragraph {n} about counterparties and underwriting."]
    src = tmp_path / "src"
    src.mkdir()
    (src / "pru.md").write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    compile_bundle([src], tmp_path / "out", options=CompileOptions(max_words=40, min_words=5))
    bundle = Bundle.open(tmp_path / "out")
    listing = (tmp_path / "out" / "pru" / "index.md").read_text(encoding="utf-8")
    entries = [line.split("](", 1)[0].removeprefix("* [") for line in listing.splitlines() if line.startswith("* [")]
    assert entries == ["1 Application", "2 Credit Risk", "3 Liquidity Risk", "APP1 Large Exposures"]
    assert any("app1" in p for p in bundle.iter_concepts())
