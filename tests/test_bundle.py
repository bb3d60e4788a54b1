"""Bundle: opening, concepts, typed frontmatter, signposts, links, laziness, identity."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okf.bundle import Bundle, Status, TrustTier
from okf.errors import (
    BundleError,
    BundleNotFoundError,
    ConceptNotFoundError,
    NotABundleError,
    PathEscapeError,
)
from okf.markdown import parse_index
from tests.builders import concept, write_files

NOTE = "---\ntype: Note\ntitle: {title}\ndescription: {desc}\n---\n# {title}\n\nBody of {title}.\n"


def note(title: str, desc: str = "") -> str:
    return NOTE.format(title=title, desc=desc or f"About {title}.")


@pytest.fixture
def small(tmp_path, write_bundle):
    return write_bundle(
        tmp_path,
        {
            "index.md": '---\nokf_version: "0.2"\n---\n# Areas\n\n* [Contracts](contracts/) - Agreements.\n'
            "* [Guide](guide.md) - How to start.\n* [Gone](gone.md) - Not here.\n"
            "* [Escape](../../etc/passwd) - Out.\n* [Script](tool.py) - A script.\n",
            "guide.md": note("Guide", "How to start here."),
            "orphan.md": note("Orphan"),
            "tool.py": "print('hi')\n",
            "log.md": "# Log\n\n## 2026-01-02\n* **Update**: x\n",
            "contracts/index.md": "# Contracts\n\n* [MSA](msa/index.md) - Master agreements.\n",
            "contracts/msa/term.md": note("Term"),
            "contracts/nda.md": note("NDA"),
            "empty/readme.txt": "no concepts here\n",
            "hr/leave.md": note("Leave"),
            ".okf/hidden.md": note("Hidden"),
            "a/.draft.md": note("Draft"),
        },
    )


def test_open_errors(tmp_path, write_bundle):
    with pytest.raises(BundleNotFoundError, match="no such bundle"):
        Bundle.open(tmp_path / "missing")
    (tmp_path / "file.md").write_text("x")
    with pytest.raises(NotABundleError, match="file"):
        Bundle.open(tmp_path / "file.md")
    (tmp_path / "nomd").mkdir()
    (tmp_path / "nomd" / "a.txt").write_text("x")
    with pytest.raises(NotABundleError, match="no markdown"):
        Bundle.open(tmp_path / "nomd")


def test_iteration_skips_hidden_and_reserved(small):
    b = Bundle.open(small)
    assert list(b.iter_concepts()) == [
        "contracts/msa/term.md",
        "contracts/nda.md",
        "guide.md",
        "hr/leave.md",
        "orphan.md",
    ]
    assert list(b.iter_directories()) == ["", "a/", "contracts/", "contracts/msa/", "empty/", "hr/"]
    assert b.okf_version == "0.2"


def test_root_signposts(small):
    b = Bundle.open(small)
    listing = b.listing("")
    got = [(s.path, s.is_dir, s.origin) for s in listing.signposts]
    assert got == [
        ("contracts/", True, "index"),
        ("guide.md", False, "index"),
        ("orphan.md", False, "synthesized"),
        ("hr/", True, "synthesized"),
    ]
    guide = listing.signposts[1]
    assert (guide.title, guide.description, guide.section, guide.line) == ("Guide", "How to start.", "Areas", 7)
    orphan = listing.signposts[2]
    assert (orphan.title, orphan.description) == ("Orphan", "About Orphan.")
    codes = sorted((d.code, d.line) for d in listing.diagnostics)
    assert codes == [("W110", 8), ("W111", 9)]  # tool.py is neither a signpost nor a problem


def test_directory_signposts_and_index_forms(small):
    b = Bundle.open(small)
    assert [(s.path, s.origin) for s in b.signposts("contracts")] == [
        ("contracts/msa/", "index"),
        ("contracts/nda.md", "synthesized"),
    ]
    assert b.signposts("contracts/") == b.signposts("/contracts/")
    assert [s.path for s in b.signposts("contracts/msa/")] == ["contracts/msa/term.md"]
    with pytest.raises(BundleError):
        b.listing("nope/")


def test_synthesized_directory_title_from_index_heading(tmp_path, write_bundle):
    root = write_bundle(tmp_path, {"x/index.md": "# Handbook\n\n* [A](a.md) - A.\n", "x/a.md": note("A")})
    b = Bundle.open(root)
    assert [(s.path, s.title) for s in b.signposts("")] == [("x/", "Handbook")]


def test_concept_refs_and_cache(small):
    b = Bundle.open(small)
    c = b.concept("contracts/nda")
    assert c is b.concept("contracts/nda.md") is b.concept("/contracts/nda.md")
    assert (c.id, c.path, c.title, c.body_start_line) == ("contracts/nda", "contracts/nda.md", "NDA", 6)
    assert c.body.startswith("# NDA")
    for bad in ("index", "log.md", "missing", ".okf/hidden", "contracts/", "tool.py", "/etc/passwd"):
        with pytest.raises(ConceptNotFoundError):
            b.concept(bad)


def test_typed_meta_tolerance(tmp_path, write_bundle):
    root = write_bundle(
        tmp_path,
        {
            "c.md": (
                "---\ntype: Metric\ntags: finance\nverified: { by: human:ann, at: 2026-06-25T09:00:00Z }\n"
                "stale_after: 2026-01-01\nstatus: retired\nowner: team:x\n"
                'sources:\n  - { resource: a.md, lines: "3-7", sha256: abc }\n  - { resource: b.md, lines: [1, 2] }\n'
                "timestamp: 2025-05-01T00:00:00Z\ntitle: [not, a, string]\n---\nbody\n"
            )
        },
    )
    c = Bundle.open(root).concept("c")
    m = c.meta
    assert m.type == "Metric" and m.tags == ["finance"]
    assert m.trust_tier is TrustTier.human_reviewed and len(m.verified) == 1
    assert m.stale_after == datetime(2026, 1, 1, tzinfo=UTC)
    assert m.is_stale(datetime(2026, 1, 2, tzinfo=UTC))
    assert m.status is Status.stable and m.extra["status"] == "retired"
    assert [s.lines for s in m.sources] == [(3, 7), (1, 2)]
    assert m.generated is not None and m.generated.at == datetime(2025, 5, 1, tzinfo=UTC)
    assert m.extra["owner"] == "team:x" and m.extra["title"] == ["not", "a", "string"]
    assert c.frontmatter["owner"] == "team:x"
    assert sorted(d.code for d in c.diagnostics) == ["W133", "W134"]
    title_diag = next(d for d in c.diagnostics if d.code == "W133")
    assert title_diag.line == 12 and title_diag.severity == "warning"


def test_no_frontmatter_and_bad_frontmatter(tmp_path, write_bundle):
    root = write_bundle(
        tmp_path,
        {
            "plain.md": "# Just text\n",
            "list.md": "---\n- a\n- b\n---\nx\n",
            "broken.md": "---\ntype: [unclosed\n---\nx\n",
            "open.md": "---\ntype: X\n",
        },
    )
    b = Bundle.open(root)
    plain = b.concept("plain")
    assert plain.meta.type == "" and plain.body_start_line == 1
    with pytest.raises(BundleError, match="list") as exc:
        b.concept("list")
    assert exc.value.path == "list.md" and exc.value.line == 2
    with pytest.raises(BundleError, match="not valid YAML") as exc:
        b.concept("broken")
    assert exc.value.line and exc.value.line >= 2
    with pytest.raises(BundleError, match="never closed"):
        b.concept("open")


def test_undecodable_bytes_are_replaced(tmp_path, write_bundle):
    root = write_bundle(tmp_path, {"bin.md": b"---\ntype: Note\n---\nline\nbad \xff\xfe here\n"})
    c = Bundle.open(root).concept("bin")
    assert "\ufffd" in c.body
    assert [(d.code, d.line) for d in c.diagnostics] == [("E007", 5)]


def test_links(tmp_path, write_bundle):
    root = write_bundle(
        tmp_path,
        {
            "a/one.md": "---\ntype: N\n---\n[two](two) [abs](/a/two.md#sec) [rel](../b/) [idx](../b/index.md)\n"
            "[web](https://x.org) [mail](mailto:a@b.c) [up](../../x.md) [gone](nope.md)\n"
            "[self](#top) [enc](sp%20ace.md?x=1) [py](../tool.py)\n",
            "a/two.md": "---\ntype: N\n---\n",
            "a/sp ace.md": "---\ntype: N\n---\n",
            "b/three.md": "---\ntype: N\n---\n",
            "tool.py": "x = 1\n",
        },
    )
    b = Bundle.open(root)
    got = [(k.text, k.path, k.exists, k.external, k.line) for k in b.links("a/one")]
    assert got == [
        ("two", "a/two.md", True, False, 4),
        ("abs", "a/two.md", True, False, 4),
        ("rel", "b/", True, False, 4),
        ("idx", "b/", True, False, 4),
        ("web", None, False, True, 5),
        ("mail", None, False, True, 5),
        ("up", None, False, False, 5),
        ("gone", "a/nope.md", False, False, 5),
        ("self", "a/one.md", True, False, 6),
        ("enc", "a/sp ace.md", True, False, 6),
        ("py", "tool.py", True, False, 6),
    ]


def test_lazy_listing_reads_only_the_listed_directory(tmp_path, write_bundle, monkeypatch):
    files = {"index.md": "# Top\n\n* [A](a/) - A.\n* [B](b/) - B.\n", "top.md": note("Top")}
    for d in "ab":
        files.update({f"{d}/{i}.md": note(f"{d}{i}") for i in range(5)})
    b = Bundle.open(write_bundle(tmp_path, files))
    from okf.bundle import documents

    read: list[str] = []
    original = documents.read_text
    monkeypatch.setattr("okf.bundle.bundle.read_text", lambda real, rel: read.append(rel) or original(real, rel))
    b.signposts("")
    assert read == ["top.md"]  # only the unlisted root concept needed its frontmatter


def test_corpus_id_is_stable_and_content_sensitive(small):
    first = Bundle.open(small).corpus_id()
    assert first.startswith("sha256:") and len(first) == len("sha256:") + 16
    assert Bundle.open(small).corpus_id() == first
    (small / "guide.md").write_text(note("Guide", "Changed."))
    assert Bundle.open(small).corpus_id() != first


def test_manifest(small):
    b = Bundle.open(small)
    assert b.manifest() is None
    (small / ".okf").mkdir(exist_ok=True)
    (small / ".okf" / "manifest.json").write_text('{"source_root": "../src"}')
    assert Bundle.open(small).manifest() == {"source_root": "../src"}
    (small / ".okf" / "manifest.json").write_text("{not json")
    with pytest.raises(BundleError, match="manifest"):
        Bundle.open(small).manifest()


def test_sample_bundle_reads(sample_bundle):
    b = Bundle.open(sample_bundle)
    roots = [s.path for s in b.signposts("")]
    assert "metrics/" in roots and "attesters/" in roots
    assert b.signposts("attesters/") == []  # lists only a .py file: no signposts, no problems
    assert b.listing("attesters/").diagnostics == []
    gm = b.concept("metrics/gross-margin")
    assert gm.meta.stale_after is not None and gm.meta.trust_tier is TrustTier.human_reviewed
    assert "not" in gm.meta.extra


_words = (
    st.text(alphabet=st.characters(whitelist_categories=("L", "N"), whitelist_characters=" -"), min_size=1, max_size=20)
    .map(str.strip)
    .filter(bool)
)


@given(
    st.lists(
        st.tuples(_words, st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True), _words),
        min_size=1,
        max_size=8,
        unique_by=lambda t: t[1],
    )
)
@settings(max_examples=40, deadline=None)
def test_index_round_trip(entries):
    text = "# Section\n\n" + "".join(f"* [{t}]({p}.md) - {d}\n" for t, p, d in entries)
    listing = parse_index(text)
    assert [(e.title, e.target, e.description, e.section) for e in listing.entries] == [
        (t, f"{p}.md", d, "Section") for t, p, d in entries
    ]
    assert [e.line for e in listing.entries] == list(range(3, 3 + len(entries)))


@given(st.text(max_size=300))
@settings(max_examples=80, deadline=None)
def test_link_resolution_never_crashes(tmp_path_factory, body):
    root = tmp_path_factory.mktemp("links")
    (root / "c.md").write_text("---\ntype: N\n---\n" + body.replace("\r", ""), encoding="utf-8")
    b = Bundle.open(root)
    for link in b.links("c"):
        assert link.path is None or not link.path.startswith("/")


def test_corpus_id_cache_is_content_identifying(small, monkeypatch):
    from okf.bundle import identity

    first = Bundle.open(small).corpus_id()
    hashed: list[str] = []
    original = identity.hash_files
    monkeypatch.setattr(identity, "hash_files", lambda root, rels: hashed.extend(rels) or original(root, rels))
    # Files written less than two seconds ago are never trusted from the cache (racy mtimes): age them.
    for path in small.rglob("*.md"):
        os.utime(path, ns=(1_000_000_000_000, 1_000_000_000_000))
    assert Bundle.open(small).corpus_id() == first
    hashed.clear()
    assert Bundle.open(small).corpus_id() == first and hashed == []  # all from the cache
    (small / "guide.md").write_text(note("Guide", "Same size!"))
    os.utime(small / "guide.md", ns=(1_000_000_000_000, 1_000_000_000_000))  # even with the old mtime...
    changed = Bundle.open(small).corpus_id()
    assert hashed == ["guide.md"] and changed != first  # ...a new size is rehashed


def _age(root, ns=1_000_000_000_000):
    """Give every markdown file an old mtime: files written in the last two seconds are never cached."""
    for path in root.rglob("*.md"):
        os.utime(path, ns=(ns, ns), follow_symlinks=False)


def test_corpus_id_files_are_the_bundles_markdown_files(tmp_path, write_bundle):
    from okf.bundle import identity

    root = write_bundle(
        tmp_path,
        {
            "index.md": "# R\n",
            "b.md": note("B"),
            "a-b/x.md": note("X"),
            "a/index.md": "# A\n",
            "a/z.md": note("Z"),
            "a/c/d.md": note("D"),
            "a/notes.txt": "x",
            ".hidden/h.md": note("H"),
            "a/.h.md": note("H"),
        },
    )
    (tmp_path / "outside.md").write_text(note("O"), encoding="utf-8")
    (root / "a" / "alias.md").symlink_to(root / "b.md")  # inside the root: counted
    (root / "a" / "out.md").symlink_to(tmp_path / "outside.md")  # leads outside: not counted
    (root / "linked").symlink_to(root / "a", target_is_directory=True)  # directories are not followed
    bundle = Bundle.open(root)
    expected = []
    for directory in bundle.iter_directories():
        names = [
            p.rsplit("/", 1)[-1]
            for p in bundle.iter_concepts()
            if p.rsplit("/", 1)[0] + "/" == directory or (directory == "" and "/" not in p)
        ]
        names += [n for n in ("index.md", "log.md") if bundle.exists(directory + n)]
        expected += [directory + n for n in sorted(names)]
    assert [rel for rel, _ in identity.markdown_files(os.path.realpath(root))] == expected
    assert "a/alias.md" in expected and "a/out.md" not in expected and "linked/z.md" not in expected


def test_corpus_id_cache_is_updated_incrementally(small):
    from okf.bundle import identity

    _age(small)
    first = Bundle.open(small).corpus_id()
    [cache] = identity.cache_dir().iterdir()
    lines = cache.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + len(identity.markdown_files(os.path.realpath(small)))  # header + one per file
    (small / "guide.md").write_text(note("Guide", "Changed text."), encoding="utf-8")
    _age(small, 2_000_000_000_000)
    changed = Bundle.open(small).corpus_id()
    after = cache.read_text(encoding="utf-8").splitlines()
    # Every file got a new mtime, so every file is re-hashed and appended (the old lines are now stale)...
    assert changed != first and after[: len(lines)] == lines and len(after) == 2 * len(lines) - 1
    (small / "guide.md").write_text(note("Guide", "Changed twice."), encoding="utf-8")
    os.utime(small / "guide.md", ns=(3_000_000_000_000, 3_000_000_000_000))
    assert Bundle.open(small).corpus_id() not in (first, changed)
    # ...and one more line for one more change would make the stale lines outnumber the live ones: the cache
    # is rewritten with the live lines only.
    final = cache.read_text(encoding="utf-8").splitlines()
    assert len(final) == len(lines) and final[0] == lines[0]
    assert Bundle.open(small).corpus_id() == Bundle.open(small).corpus_id()


def test_corpus_id_cache_ignores_a_torn_or_foreign_cache(small, monkeypatch):
    from okf.bundle import identity

    _age(small)
    first = Bundle.open(small).corpus_id()
    [cache] = identity.cache_dir().iterdir()
    text = cache.read_text(encoding="utf-8")
    hashed: list[str] = []
    original = identity.hash_files
    monkeypatch.setattr(identity, "hash_files", lambda root, rels: hashed.extend(rels) or original(root, rels))
    cache.write_text(text[:-30], encoding="utf-8")  # a writer cut short: its last line is torn
    assert Bundle.open(small).corpus_id() == first and len(hashed) == 1
    hashed.clear()
    cache.write_text("0 0 " + "0" * 64 + " guide.md\n" + text[text.index("\n") + 1 :], encoding="utf-8")
    assert Bundle.open(small).corpus_id() == first and len(hashed) == len(text.splitlines()) - 1  # no header


def test_real_path_fast_path_still_refuses_symlink_escapes(tmp_path, write_bundle):
    root = write_bundle(tmp_path, {"a.md": note("A"), "d/b.md": note("B")})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text(note("X"))
    os.symlink(outside, root / "link")
    os.symlink(outside / "x.md", root / "d" / "esc.md")
    b = Bundle.open(root)
    assert b.real_path("d/b.md") == os.path.join(os.path.realpath(root), "d/b.md")
    for rel in ("link/x.md", "d/esc.md", "d/../link/x.md"):
        with pytest.raises(PathEscapeError):
            b.real_path(rel)
    assert list(b.iter_concepts()) == ["a.md", "d/b.md"]


def test_exists_answers_from_the_scan_as_the_file_system_does(tmp_path) -> None:
    """A name its directory did not hold is absent without a system call; every kind of entry still counts."""
    root = write_files(tmp_path / "b", {"a.md": concept("A"), "sub/c.md": concept("C"), ".hidden/x.md": "x"})
    (root / "outside").mkdir()
    os.symlink(root / "sub", root / "linked-dir")  # a symlinked directory: not listed, but it exists
    os.symlink(root / "nowhere", root / "broken.md")
    os.mkfifo(root / "pipe")
    bundle = Bundle.open(root)
    list(bundle.iter_concepts())  # every directory scanned
    names = ["a.md", "sub", "sub/c.md", "sub/missing.md", "log.md", ".hidden", ".hidden/x.md", "linked-dir"]
    names += ["linked-dir/c.md", "broken.md", "pipe", "outside", "missing/x.md", "sub/../a.md", "./a.md"]
    for name in names:
        assert bundle.exists(name) == os.path.exists(root / name), name
