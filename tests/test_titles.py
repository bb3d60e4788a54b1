"""The title index compile writes (``.okf/titles.json``): what the listings give, used only for its own content."""

from __future__ import annotations

import json
from pathlib import Path

from okf.bundle import Bundle, titles
from okf.bundle.syntheses import REGISTRY
from okf.compile import compile_bundle
from okf.orchestrate.names import resolve, title_index
from tests.builders import concept, write_files


def _sources(root: Path) -> Path:
    return write_files(
        root,
        {
            "people/david-yates.md": "# David Yates\n\nDavid Yates is a film director of several long films.\n",
            "people/pietro-germi.md": "# Pietro Germi\n\nPietro Germi was an actor and a director of films.\n",
            "films/the-catwoman.md": "# The Catwoman (film)\n\nCatwoman is a 2004 film directed by Pitof.\n",
        },
    )


def _compiled(tmp_path: Path) -> Path:
    out = tmp_path / "bundle"
    compile_bundle([_sources(tmp_path / "src")], out)
    return out


def test_compile_writes_the_title_index_its_listings_give(tmp_path: Path) -> None:
    out = _compiled(tmp_path)
    data = json.loads((out / titles.TITLES).read_text("utf-8"))
    assert data["format"] == titles.FORMAT and data["corpus_id"] == Bundle.open(out).corpus_id()
    from_listings = titles.build(Bundle.open(out))
    assert data["titles"] == from_listings and list(data["titles"]) == sorted(from_listings)
    assert titles.load(Bundle.open(out)) == from_listings
    assert resolve(Bundle.open(out), "Catwoman") and resolve(Bundle.open(out), "David Yates")


def test_the_written_index_is_what_names_resolve_by(tmp_path: Path) -> None:
    """The file is read, not the listings: a name only the file says resolves (fails if it is never read)."""
    out = _compiled(tmp_path)
    path = out / titles.TITLES
    data = json.loads(path.read_text("utf-8"))
    data["titles"]["onlyinthefile"] = ["people/david-yates.md"]
    path.write_text(json.dumps(data), "utf-8")
    assert resolve(Bundle.open(out), "Only in the file") == ["people/david-yates.md"]


def test_an_index_written_for_other_content_is_not_used(tmp_path: Path) -> None:
    """After okf ask --save filed a synthesis (or with another manifest) the corpus id differs: the listings
    are read again (fails if the file were trusted whatever content it was written for)."""
    out = _compiled(tmp_path)
    path = out / titles.TITLES
    data = json.loads(path.read_text("utf-8"))
    data["titles"]["onlyinthefile"] = ["people/david-yates.md"]
    path.write_text(json.dumps(data), "utf-8")
    (out / REGISTRY).write_text('{"format": 1, "syntheses": {}}', "utf-8")
    bundle = Bundle.open(out)
    assert titles.load(bundle) is None
    assert resolve(bundle, "Only in the file") == [] and resolve(bundle, "David Yates")
    # Another format, or a file of the wrong shape, is not used either.
    (out / REGISTRY).unlink()
    for broken in ({**data, "format": titles.FORMAT + 1}, {**data, "titles": {"x": "people/david-yates.md"}}, []):
        path.write_text(json.dumps(broken), "utf-8")
        assert titles.load(Bundle.open(out)) is None
    path.write_text("{not json", "utf-8")
    assert title_index(Bundle.open(out)) == titles.build(Bundle.open(out))


def test_a_bundle_without_a_manifest_is_indexed_from_its_listings(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "b",
        {
            "index.md": "# B\n\n- [Ed Wood](ed-wood.md): a director\n- [](untitled-entry.md): no title\n",
            "ed-wood.md": concept("Ed Wood"),
            "untitled-entry.md": concept("Ignored"),
            "unlisted.md": concept("The Unlisted Page (film)"),
        },
    )
    bundle = Bundle.open(root)
    assert titles.load(bundle) is None
    listed = [(s.path, s.title) for s in Bundle.open(root).listing("").signposts if not s.is_dir]
    assert bundle.concept_titles("") == listed
    assert resolve(bundle, "Unlisted Page") == ["unlisted.md"] and resolve(bundle, "Ed Wood") == ["ed-wood.md"]


def test_a_recompile_rewrites_the_index_and_keeps_quiet_about_it(tmp_path: Path) -> None:
    src = _sources(tmp_path / "src")
    out = tmp_path / "bundle"
    compile_bundle([src], out)
    (src / "people" / "ingmar-bergman.md").write_text("# Ingmar Bergman\n\nIngmar Bergman directed films.\n")
    report = compile_bundle([src], out)
    assert not [w for w in report.warnings if "titles.json" in w]
    assert resolve(Bundle.open(out), "Ingmar Bergman") and titles.load(Bundle.open(out)) is not None
