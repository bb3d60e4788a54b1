"""The title index compile writes (``.okf/titles.json``): what the listings give, used only for its own content."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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


def _varied_sources(root: Path) -> Path:
    """Markdown, text and HTML sources: nested folders, titles with markdown punctuation and longer than a
    listing shows, one-concept documents and documents split into sections and groups."""
    sections = "\n\n".join(
        f"## Part {i} [draft] & *notes* <b> #{i} | `code` ~ !\n\n" + " ".join(f"word{i}x{j} clause" for j in range(90))
        for i in range(1, 14)
    )
    long_title = "A very long heading " + " ".join(f"about matter {k}" for k in range(40))
    contract = "\n\n".join(f"{i}. SECTION {i} TERMS\n\n" + "The Party shall pay fees. " * 60 for i in range(1, 30))
    return write_files(
        root,
        {
            "people/david-yates.md": "# David Yates\n\nDavid Yates is a film director of several long films.\n",
            "people/the-group.md": f"# The Group [1] (film)\n\n{sections}\n",
            "law/long.md": f"# {long_title}\n\n" + "Some text about the matter. " * 40 + "\n",
            "law/contracts/master-agreement.txt": f"MASTER AGREEMENT\n\n{contract}\n",
            "web/page.html": "<html><head><title>Page &amp; Title_with *stars*</title></head>"
            "<body><h1>Page &amp; Title</h1><p>Text of the page.</p><h2>Second `part`</h2><p>More.</p></body></html>",
            "top.md": "# \\*Escaped\\* title\n\nA document at the top.\n",
        },
    )


def _assert_index_is_the_listings(out: Path) -> None:
    data = json.loads((out / titles.TITLES).read_text("utf-8"))
    bundle = Bundle.open(out)
    assert data["corpus_id"] == bundle.corpus_id()
    from_listings = titles.build(bundle)
    assert data["titles"] == from_listings and list(data["titles"]) == sorted(from_listings)
    for key in from_listings:  # the same paths in the same order, key by key
        assert data["titles"][key] == from_listings[key]


def test_compile_builds_the_index_from_what_it_rendered_not_by_reading_the_listings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """First compiles and recompiles: the index equals what reading every listing gives, and compile builds it
    without that walk (fails if it reads the tree's listings: 1.1 to 1.6 s on cuad)."""
    import okf.compile.parallel

    src = _varied_sources(tmp_path / "src")
    read_all = titles.build

    def refuse(bundle: Bundle) -> dict[str, list[str]]:
        raise AssertionError("compile read every listing to build the title index")

    for jobs in ("1", "2"):
        monkeypatch.setenv("OKF_COMPILE_JOBS", jobs)
        monkeypatch.setattr(okf.compile.parallel, "MIN_BYTES", 0 if jobs == "2" else 10**9)
        out = tmp_path / f"bundle{jobs}"
        monkeypatch.setattr(titles, "build", refuse)
        compile_bundle([src], out)
        monkeypatch.setattr(titles, "build", read_all)
        _assert_index_is_the_listings(out)
        keys = json.loads((out / titles.TITLES).read_text("utf-8"))["titles"]
        assert keys["escapedtitle"] == ["top.md"] and any(k.startswith("averylongheading") for k in keys)
    # Incremental: one source changed, one added, one removed; the documents not rebuilt keep their listings.
    (src / "people" / "david-yates.md").write_text("# David Yates\n\nDirector of films. Also a producer.\n")
    (src / "people" / "ingmar-bergman.md").write_text("# Ingmar Bergman\n\nIngmar Bergman directed films.\n")
    (src / "web" / "page.html").unlink()
    for jobs in ("1", "2"):
        monkeypatch.setenv("OKF_COMPILE_JOBS", jobs)
        out = tmp_path / f"bundle{jobs}"
        monkeypatch.setattr(titles, "build", refuse)
        report = compile_bundle([src], out)
        monkeypatch.setattr(titles, "build", read_all)
        assert report.created and report.removed
        _assert_index_is_the_listings(out)
        assert resolve(Bundle.open(out), "Ingmar Bergman") == ["people/ingmar-bergman.md"]


def test_a_tree_holding_files_okf_did_not_write_is_indexed_from_its_listings(tmp_path: Path) -> None:
    """A concept someone put into the bundle is in its listings (unlisted, titled from its frontmatter): the
    index is read from the tree then (fails if compile built it from what it rendered alone)."""
    src = _varied_sources(tmp_path / "src")
    out = tmp_path / "bundle"
    compile_bundle([src], out)
    (out / "people" / "dropped-in.md").write_text(concept("Dropped In Page"), "utf-8")
    (src / "people" / "david-yates.md").write_text("# David Yates\n\nA changed text about the director.\n")
    report = compile_bundle([src], out)
    assert any("dropped-in.md" in w for w in report.warnings)
    _assert_index_is_the_listings(out)
    assert resolve(Bundle.open(out), "Dropped In Page") == ["people/dropped-in.md"]


def test_compiled_listings_decline_a_concept_listed_outside_its_folder(tmp_path: Path) -> None:
    """The fast path's own checks: a listing naming a concept of another folder, or missing one, gives None
    (the caller then reads the listings)."""
    from okf.compile.state import CompileOptions, CompileState
    from okf.compile.write import compiled_listings

    state = CompileState(inputs=[], output=tmp_path / "out", options=CompileOptions())
    state.doc_entries = {"a.md": {"indexes": [], "concepts": ["a/x.md", "a/y.md"]}}
    bundle = Bundle(tmp_path)
    state.listings = {"a/": [("a/x.md", "X"), ("a/y.md", "Y")], "": []}
    assert compiled_listings(state, bundle) == [[], [("a/x.md", "X"), ("a/y.md", "Y")]]
    state.listings = {"a/": [("a/x.md", "X")], "": [("a/y.md", "Y")]}
    assert compiled_listings(state, bundle) is None
    state.listings = {"a/": [("a/x.md", "X")]}
    assert compiled_listings(state, bundle) is None
    state.listings = {"a/": [("a/x.md", "X"), ("a/y.md", "Y"), ("a/z.md", "Z")]}
    assert compiled_listings(state, bundle) is None
    state.listings = {"a/": [("a/x.md", "X"), ("a/y.md", "Y")]}
    state.assets = {"notes.md": {"path": "assets/notes.md", "sha256": ""}}
    assert compiled_listings(state, bundle) is None
