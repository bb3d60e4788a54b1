"""Obsidian wikilinks: every form parsed, code skipped, resolved as Obsidian does, rewritten, unresolved kept."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from okf.bundle import Bundle
from okf.checker import check
from okf.wikilinks import Note, Vault, find_wikilinks, markdown_link, rewrite_wikilinks


def parsed(text: str) -> list[tuple[str, str, str, bool]]:
    return [(w.target, w.heading, w.label, w.embed) for w in find_wikilinks(text)]


def test_every_form_is_parsed() -> None:
    text = (
        "See [[Page]], [[Page|the page]], [[Page#Heading]], [[Page#Heading|label]], [[#Local heading]],\n"
        "[[Page#^block-1]], [[folder/Page]], [[../up/Page]], [[Page.md]], ![[Page]], ![[diagram.png]],\n"
        "| [[Page\\|in a table]] | and [[ Spaced  Page | spaced ]]."
    )
    assert parsed(text) == [
        ("Page", "", "", False),
        ("Page", "", "the page", False),
        ("Page", "Heading", "", False),
        ("Page", "Heading", "label", False),
        ("", "Local heading", "", False),
        ("Page", "^block-1", "", False),
        ("folder/Page", "", "", False),
        ("../up/Page", "", "", False),
        ("Page.md", "", "", False),
        ("Page", "", "", True),
        ("diagram.png", "", "", True),
        ("Page", "", "in a table", False),
        ("Spaced  Page", "", "spaced", False),
    ]
    links = find_wikilinks(text)
    assert [w.line for w in links] == [1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3]
    assert all(text[w.start : w.end] == w.text for w in links)
    assert [w.shown for w in links[:6]] == [
        "Page",
        "the page",
        "Page > Heading",
        "label",
        "Local heading",
        "Page > block-1",
    ]


def test_code_escapes_and_empty_links_are_not_links() -> None:
    text = (
        "Inline `[[not a link]]` and ``[[nor ` this]]``, escaped \\[[nope]], empty [[ ]] and [[|x]].\n"
        "```\n[[fenced]]\n```\n~~~~\n[[tilde fenced]]\n~~~~\n"
        '- decomposer: `{"groups": [[first, last], ...]}`\n'
        "After the fences: [[Real]].\n"
    )
    assert parsed(text) == [("Real", "", "", False)]
    assert find_wikilinks(text)[0].line == 9
    assert parsed("```\nunclosed [[fence]]\n") == []
    assert parsed("no links here") == [] and parsed("[[a]] [[b]]") == [("a", "", "", False), ("b", "", "", False)]


VAULT = Vault(
    [
        Note("Home.md", title="Welcome", aliases=("Start", "Front Page")),
        Note("projects/Alpha.md", title="Project Alpha"),
        Note("projects/Beta.md"),
        Note("archive/Beta.md"),
        Note("archive/deep/Beta.md"),
        Note("people/Ada Lovelace.md", aliases=("Ada",)),
        Note("img/diagram.png"),
        Note("projects/notes/Alpha.md"),
    ]
)


def test_resolution_follows_obsidian() -> None:
    resolve = VAULT.resolve
    assert resolve("home", "x.md") == "Home.md"  # file name, any case
    assert resolve("HOME.md", "x.md") == "Home.md"
    assert resolve("projects/alpha", "x.md") == "projects/Alpha.md"  # path from the vault root
    assert resolve("notes/Alpha", "x.md") == "projects/notes/Alpha.md"  # a path suffix
    assert resolve("Alpha", "Home.md") == "projects/Alpha.md"  # two notes named Alpha: nearest the root
    assert resolve("Alpha", "projects/notes/Todo.md") == "projects/notes/Alpha.md"  # the linking note's folder
    assert resolve("Beta", "archive/deep/x.md") == "archive/deep/Beta.md"
    assert resolve("Beta", "people/x.md") == "archive/Beta.md"  # same depth: first by path
    assert resolve("../Beta", "archive/deep/x.md") == "archive/Beta.md"  # relative to the linking note
    assert resolve("../../../Beta", "archive/x.md") is None  # climbs out of the vault
    assert resolve("Project Alpha", "x.md") == "projects/Alpha.md"  # a frontmatter title
    assert resolve("welcome", "x.md") == "Home.md"
    assert resolve("front  page", "x.md") == "Home.md"  # an alias, spacing and case aside
    assert resolve("Ada", "x.md") == "people/Ada Lovelace.md"
    assert resolve("diagram.png", "x.md") == "img/diagram.png"  # an attachment by its full name
    assert resolve("diagram", "x.md") is None
    assert resolve("", "projects/Alpha.md") == "projects/Alpha.md"  # [[#Heading]]: the note itself
    assert resolve("Missing Page", "x.md") is None


def test_rewrite_keeps_what_does_not_resolve() -> None:
    text = "Go [[Home|home]] then [[Ada#Early life]], see ![[diagram.png]] and ![[Alpha]]; [[Missing Page]] stays."

    def replace(link):
        found = VAULT.resolve(link.target, "projects/Todo.md")
        if found is None:
            return None
        return markdown_link(link, found + (f"#{link.heading.lower().replace(' ', '-')}" if link.heading else ""))

    out, kept = rewrite_wikilinks(text, replace)
    assert out == (
        "Go [home](Home.md) then [Ada > Early life](people/Ada%20Lovelace.md#early-life), see "
        "![diagram.png](img/diagram.png) and [Alpha](projects/Alpha.md); [[Missing Page]] stays."
    )
    assert [k.text for k in kept] == ["[[Missing Page]]"]
    assert rewrite_wikilinks("nothing", replace) == ("nothing", [])
    assert find_wikilinks("[[Page|a [b] c]]") == []  # Obsidian allows no brackets inside either
    odd = find_wikilinks("[[Page (draft)|a \\ b]]")[0]
    assert markdown_link(odd, "Page (draft).md") == "[a \\\\ b](Page%20%28draft%29.md)"


@given(st.text(alphabet=st.sampled_from(list("ab |#!^\\[]`~\n.-/")), max_size=80))
def test_parser_never_fails_and_spans_are_exact(text: str) -> None:
    for link in find_wikilinks(text):
        assert text[link.start : link.end] == link.text and link.text.endswith("]]")
        assert link.text.startswith("![[" if link.embed else "[[")
        assert link.line == text.count("\n", 0, link.start) + 1
        assert link.target or link.heading
    out, kept = rewrite_wikilinks(text, lambda link: None)
    assert out == text and len(kept) == len(find_wikilinks(text))


def test_check_reports_a_wikilink_left_in_a_bundle(tmp_path: Path) -> None:
    root = tmp_path / "bundle"
    root.mkdir()
    (root / "a.md").write_text(
        "---\ntype: Note\ndescription: d\n---\n# A\n\nSee [[Missing Page]] and `[[code]]`.\n\n![[gone.png]]\n",
        encoding="utf-8",
    )
    diags = [(d.code, d.line, d.message) for d in check(Bundle.open(root)).diagnostics]
    assert diags == [
        ("W103", 7, "wikilink [[Missing Page]] is not a link in OKF (unresolved); it reads as text"),
        ("W103", 9, "wikilink ![[gone.png]] is not a link in OKF (unresolved); it reads as text"),
    ]
