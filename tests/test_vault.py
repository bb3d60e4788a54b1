"""Obsidian-style vaults as sources: wikilinks become links to concepts, unresolved ones are reported, note
frontmatter is kept (and is not content), folder notes are their folder's signpost."""

from __future__ import annotations

import json
import re
from pathlib import Path

from builders import write_files

from okf.bundle import Bundle
from okf.checker import check
from okf.compile import CompileOptions, compile_bundle
from okf.sources import span_sha256

AT = "2026-01-02T00:00:00Z"
OPTIONS = CompileOptions(timestamp=AT, max_words=300, min_words=10)
SENTENCE = "Harbor cranes lift containers from ships onto trucks under the control of a certified crane operator. "
VAULT = {
    "Home.md": '---\ntitle: Harbor wiki home\naliases: [Start, Front Page]\ntags: [wiki, "#home"]\n'
    "description: Where the harbor wiki starts.\n---\n# Home\n\n"
    "Meet [[Ada Lovelace|Ada]] and read about her [[Ada Lovelace#Early life|early life]].\n"
    "The [[Alpha]] project, [[Project Beta]], the [[crane manual#Safety checks]] and [[Start]].\n"
    "Still to write: [[Missing Page]]. A picture: ![[diagram.png]]. An embedded note: ![[Alpha]].\n\n"
    "`[[not a link]]`\n\n```\n[[fenced, not a link]]\n```\n",
    "people/Ada Lovelace.md": "---\naliases: [Ada]\ntags: person\n---\n# Ada Lovelace\n\n"
    "Ada Lovelace wrote the first published algorithm for a computing machine.\n\n"
    "## Early life\n\nAda was born in London in 1815 and studied mathematics.\n",
    "projects/projects.md": "---\ndescription: Every project the harbor team runs, with its owner and status.\n---\n"
    "# Projects\n\nOne note per project the harbor team runs.\n",
    "projects/Alpha.md": "# Alpha\n\nProject Alpha rebuilds the crane scheduler; its owner is [[Ada]]. "
    "Back to [[Front Page]].\n",
    "projects/beta.md": "---\ntitle: Project Beta\n---\nProject Beta moves the warehouse inventory. "
    "See [[#Status]].\n\n## Status\n\nBeta is on hold until the spring budget review.\n",
    "manuals/crane manual.md": "# Crane manual\n\n## Operation\n\n"
    + SENTENCE * 12
    + "\n\n## Safety checks\n\n"
    + SENTENCE * 12
    + "\n\n## Maintenance\n\n"
    + SENTENCE * 12
    + "\n",
    "archive/_index.md": "Old notes kept for reference: closed projects and retired procedures.\n",
    "archive/old.md": "# Old crane procedure\n\nTwo signatures were required for every lift over ten tonnes.\n",
    ".obsidian/workspace.json": "{}\n",
    "img/diagram.png": "PNG",
}


def compiled(tmp_path: Path, extra: dict[str, str] | None = None) -> tuple[Path, Path, object]:
    vault = write_files(tmp_path / "vault", {**VAULT, **(extra or {})})
    out = tmp_path / "bundle"
    report = compile_bundle([vault], out, options=OPTIONS)
    return vault, out, report


def body(bundle: Path, concept: str) -> str:
    return Bundle.open(bundle).concept(concept).body


def test_wikilinks_become_links_to_the_concepts_they_name(tmp_path: Path) -> None:
    _, bundle, _ = compiled(tmp_path)
    opened = Bundle.open(bundle)
    home = opened.concept("home")
    links = {(link.text, link.target) for link in opened.links(home)}
    manual = opened.concept("manuals/crane-manual/safety-checks")  # the heading's own concept
    assert manual.title == "Safety checks"
    assert links == {
        ("Ada", "/people/ada-lovelace.md"),
        ("early life", "/people/ada-lovelace.md"),
        ("Alpha", "/projects/alpha.md"),
        ("Project Beta", "/projects/beta.md"),  # by its frontmatter title
        ("crane manual > Safety checks", "/manuals/crane-manual/safety-checks.md"),
        ("Start", "/home.md"),  # an alias of the note itself
    }
    assert "An embedded note: [Alpha](/projects/alpha.md)." in home.body  # an embed becomes a link
    assert "`[[not a link]]`" in home.body and "[[fenced, not a link]]" in home.body  # code is code
    alpha = body(bundle, "projects/alpha")
    assert "its owner is [Ada](/people/ada-lovelace.md)" in alpha and "[Front Page](/home.md)" in alpha
    assert "See [Status](/projects/beta.md)." in body(bundle, "projects/beta")  # [[#Heading]] in the same note
    assert all(link.exists for c in opened.iter_concepts() for link in opened.links(c) if not link.external)


def test_unresolved_wikilinks_are_kept_reported_and_checked(tmp_path: Path) -> None:
    _, bundle, report = compiled(tmp_path)
    home = body(bundle, "home")
    assert "Still to write: [[Missing Page]]. A picture: ![[diagram.png]]." in home  # never dropped
    assert report.warnings == [
        "Home.md:11 [[Missing Page]]: wikilink names no compiled note; kept as written (okf check: W103)",
        "Home.md:11 ![[diagram.png]]: wikilink names no compiled note; kept as written (okf check: W103)",
    ]
    log = (bundle / "log.md").read_text()
    assert (
        "* **Unresolved**: 2 wikilinks name no compiled note and stay as written (`Home.md:11 [[Missing "
        "Page]]`, `Home.md:11 ![[diagram.png]]`); okf check reports them (W103)."
    ) in log
    result = check(Bundle.open(bundle))
    concept = Bundle.open(bundle).concept("home")
    line = concept.body_start_line + concept.body.split("\n").index(
        next(t for t in concept.body.split("\n") if "Missing Page" in t)
    )
    assert [(d.code, d.path, d.line) for d in result.diagnostics] == [("W103", "home.md", line)] * 2
    assert result.error_count == 0 and not any(d.code in ("W101", "W150") for d in result.diagnostics)


def test_note_frontmatter_is_kept_and_is_not_content(tmp_path: Path) -> None:
    vault, bundle, _ = compiled(tmp_path)
    home = Bundle.open(bundle).concept("home")
    meta = home.meta
    assert home.title == "Harbor wiki home" and meta.description == "Where the harbor wiki starts."
    assert meta.tags[:2] == ["wiki", "home"] and meta.extra["aliases"] == ["Start", "Front Page"]
    assert home.body.startswith("# Home\n") and "aliases" not in home.body and "---" not in home.body
    source = meta.sources[0]
    assert source.lines is not None and source.lines[0] == 7  # the first line after the frontmatter
    text = (vault / "Home.md").read_text()
    assert span_sha256(text, *source.lines) == source.sha256  # spans still hash against the raw source
    ada = Bundle.open(bundle).concept("people/ada-lovelace")
    assert ada.meta.tags[0] == "person" and ada.meta.extra["aliases"] == ["Ada"]
    beta = Bundle.open(bundle).concept("projects/beta")
    assert beta.title == "Project Beta" and beta.body.startswith("Project Beta moves")
    manual = [Bundle.open(bundle).concept(p) for p in Bundle.open(bundle).iter_concepts() if p.startswith("manuals/")]
    assert len(manual) == 3 and not any("aliases" in c.meta.extra for c in manual)


def test_folder_notes_are_their_folders_signposts(tmp_path: Path) -> None:
    _, bundle, _ = compiled(tmp_path)
    projects = (bundle / "projects" / "index.md").read_text()
    assert projects.startswith("# Projects\n\nEvery project the harbor team runs, with its owner and status.\n")
    root = (bundle / "index.md").read_text()
    assert "* [Projects](projects/index.md) - Every project the harbor team runs, with its owner and status." in root
    assert (
        "* [archive](archive/index.md) - Old notes kept for reference: closed projects and retired procedures."
    ) in root
    assert Bundle.open(bundle).concept("archive/index-doc").title == "archive"  # _index.md without a heading
    assert not (bundle / ".obsidian").exists()
    assert check(Bundle.open(bundle)).error_count == 0


def test_a_note_added_later_resolves_the_link_on_recompile(tmp_path: Path) -> None:
    vault, bundle, _ = compiled(tmp_path)
    manifest = json.loads((bundle / ".okf" / "manifest.json").read_text())
    assert manifest["sources"]["Home.md"]["wikilinks"] and manifest["vault"]
    (vault / "Missing Page.md").write_text("# Missing Page\n\nWritten at last: the harbor tour starts here.\n")
    report = compile_bundle([vault], bundle, options=OPTIONS)
    assert report.updated >= 1 and report.created == 1  # home rebuilt though its own text did not change
    assert "[Missing Page](/missing-page.md)" in body(bundle, "home")
    assert [d.code for d in check(Bundle.open(bundle)).diagnostics] == ["W103"]  # only the picture is left
    (vault / "Missing Page.md").unlink()
    compile_bundle([vault], bundle, options=OPTIONS)
    assert "Still to write: [[Missing Page]]." in body(bundle, "home")
    noop = compile_bundle([vault], bundle, options=OPTIONS)
    assert not noop.changed and noop.documents_rebuilt == 0


def test_a_vault_without_frontmatter_or_wikilinks_compiles_as_before(tmp_path: Path) -> None:
    """A rule on a note's first line that never closes is content, and unreadable frontmatter is a notice."""
    vault = write_files(
        tmp_path / "vault",
        {
            "rule.md": "---\nA note that opens with a rule and never closes a frontmatter block, about cranes.\n",
            "bad.md": "---\ntitle: [unclosed\n---\n# Bad\n\nA note whose frontmatter is not YAML, about cranes.\n",
        },
    )
    report = compile_bundle([vault], tmp_path / "bundle", options=CompileOptions(timestamp=AT))
    assert any(re.match(r"bad\.md:\d+: frontmatter unreadable", w) for w in report.warnings)
    bundle = Bundle.open(tmp_path / "bundle")
    assert "opens with a rule" in bundle.concept("rule").body
    assert bundle.concept("bad").body.startswith("# Bad") and check(bundle).error_count == 0
