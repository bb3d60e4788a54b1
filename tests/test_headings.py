"""Directory topics: the heading words deep below a directory, told apart from its siblings' (okf.compile.headings)."""

from __future__ import annotations

import re
from pathlib import Path

from okf.compile import CompileOptions, compile_bundle
from okf.compile.describe import DIR_DESCRIPTION_CHARS
from okf.compile.headings import TOPIC_CHARS, choose, heading_words, topics_line, with_topics
from okf.markdown import parse_index

SENTENCE = "The firm keeps records of every step and reports them to the authority within ten business days."


def rulebook(name: str, parts: dict[str, dict[str, list[str]]]) -> str:
    """A rulebook: parts, chapters and sections (each section a paragraph long enough to stand alone)."""
    out = [f"# {name}\n"]
    for part, chapters in parts.items():
        out.append(f"## {part}\n")
        for chapter, sections in chapters.items():
            out.append(f"### {chapter}\n")
            for section in sections:
                out.append(f"#### {section}\n\n{SENTENCE} {SENTENCE}\n")
    return "\n".join(out)


def entry_line(index: Path, target: str) -> str:
    for entry in parse_index(index.read_text(encoding="utf-8")).entries:
        if entry.target == target:
            return entry.description
    raise AssertionError(f"{target} not listed in {index}")


def test_heading_words_are_the_words_of_a_title_numbering_left_out() -> None:
    assert heading_words("18.8 Exit Facility") == {"exit": "exit", "facil": "facility"}
    assert heading_words("Part 1.Chapter 2") == {"part": "part", "chapter": "chapter"}
    assert heading_words("A1 of the") == {}
    assert heading_words("ARTICLE XIV Civil Remedies (iii)") == {
        "articl": "article",
        "civil": "civil",
        "remedi": "remedies",
    }


def test_choose_tells_siblings_apart_and_a_lone_directory_names_none() -> None:
    a = {"restitut": [3, "restitution"], "general": [2, "general"], "order": [1, "orders"]}
    b = {"exit": [1, "exit"], "general": [4, "general"]}
    chosen_a, chosen_b = choose([a, b], lambda term: 1.0)
    assert chosen_a == [("restitut", "restitution"), ("order", "orders")]  # more headings first
    assert chosen_b == [("exit", "exit")]  # "general" heads entries below both: it tells neither apart
    assert choose([a], lambda term: 1.0) == [[]]
    # Rarer words first at equal counts; words the line says are not repeated; the room is bounded.
    weighted = choose([{"x": [1, "alpha"], "y": [1, "beta"]}, {}], lambda term: 2.0 if term == "y" else 1.0)[0]
    assert [w for _, w in weighted] == ["beta", "alpha"]
    assert topics_line(weighted, {"y"}) == "Topics: alpha."
    many = [(f"t{i}", f"word{i:03d}") for i in range(200)]
    assert len(topics_line(many, set())) <= TOPIC_CHARS + len("Topics: ")
    assert with_topics("Members (a, b).", []) == "Members (a, b)."


MARKETS = [
    "restitution",
    "injunctions",
    "censure",
    "penalties",
    "suspension",
    "revocation",
    "prohibition",
    "disqualification",
    "investigation",
    "inspection",
    "warrants",
    "subpoenas",
    "hearings",
    "appeals",
    "tribunal",
    "settlement",
]
PLATFORMS = [
    "exit",
    "facility",
    "cooling",
    "withdrawal",
    "custody",
    "escrow",
    "onboarding",
    "suitability",
    "disclosure",
    "advertising",
    "complaints",
    "outsourcing",
    "reconciliation",
    "safeguarding",
    "wallets",
    "tokens",
]


def parts_of(words: list[str]) -> dict[str, dict[str, list[str]]]:
    """Part 1 General (shared by both rulebooks), then two parts whose sections are headed by ``words``."""
    half = len(words) // 2
    return {
        "Part 1 General": {"Chapter 1 Scope": ["Application", "Interpretation"]},
        "Part 2 Powers": {"Chapter 2 Orders": [f"{w.title()} Rules" for w in words[:half]]},
        "Part 3 Procedure": {"Chapter 3 Steps": [f"{w.title()} Procedure" for w in words[half:]]},
    }


def test_compiled_listings_name_what_lies_deep_below(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "markets.md").write_text(rulebook("Markets Rulebook", parts_of(MARKETS)), encoding="utf-8")
    (src / "platforms.md").write_text(rulebook("Platforms Rulebook", parts_of(PLATFORMS)), encoding="utf-8")
    out = tmp_path / "out"
    compile_bundle([src], out, options=CompileOptions(max_words=40, min_words=5))
    root = out / "index.md"
    for name, own, other in (("markets", MARKETS, PLATFORMS), ("platforms", PLATFORMS, MARKETS)):
        line = entry_line(root, f"{name}/index.md")
        topics = re.search(r"Topics: (.*)\.$", line)
        assert topics, line
        named = topics.group(1).split(", ")
        # Section headings three levels below the rulebook's root, its own only; none both rulebooks share.
        assert set(named) <= set(own) | {"rules", "procedure"}, named
        assert not set(named) & ({"application", "interpretation", "general", "scope"} | set(other))
        assert len(line) <= DIR_DESCRIPTION_CHARS + TOPIC_CHARS + len(" Topics: ")
    # Inside a rulebook, a part names its sections' words among its sibling parts.
    part = entry_line(out / "markets" / "index.md", "part-3-procedure/index.md")
    topics = re.search(r"Topics: (.*)\.$", part)
    assert topics and set(topics.group(1).split(", ")) <= set(MARKETS[len(MARKETS) // 2 :]) | {"procedure"}, part
