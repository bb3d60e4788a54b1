"""Path safety: no caller, index, link or model path leaves the bundle root."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okf.bundle import Bundle
from okf.bundle.paths import normalize
from okf.errors import ConceptNotFoundError, PathEscapeError

GOOD = "---\ntype: Note\ndescription: d\n---\nbody\n"


@pytest.fixture
def bundle(tmp_path, write_bundle):
    (tmp_path / "secret.md").write_text("---\ntype: Secret\n---\nTOP SECRET\n")
    return Bundle.open(write_bundle(tmp_path, {"a/b.md": GOOD, "c.md": GOOD}))


@pytest.mark.parametrize(
    "ref",
    [
        "../secret.md",
        "a/../../secret.md",
        "../../../../etc/passwd",
        "a/b.md\x00.txt",
        "C:\\Windows\\x.md",
        "~/secret.md",
        "//server/share",
        "..\\secret.md",
    ],
)
def test_resolve_refuses_escapes(bundle, ref):
    with pytest.raises(PathEscapeError):
        bundle.resolve(ref)
    with pytest.raises(PathEscapeError):
        bundle.concept(ref)


def test_leading_slash_is_the_bundle_root_never_the_filesystem(bundle):
    assert bundle.resolve("/a/b.md") == "a/b.md"
    assert bundle.resolve("/etc/passwd") == "etc/passwd"
    with pytest.raises(ConceptNotFoundError):
        bundle.concept("/etc/passwd")
    assert bundle.resolve("x/../a/./b.md") == "a/b.md"
    assert bundle.resolve("b.md", base="a/") == "a/b.md"
    assert bundle.resolve("../c.md", base="a") == "c.md"
    assert bundle.resolve("a/") == "a/"


def test_symlink_escapes_are_refused(tmp_path, write_bundle):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.md").write_text("---\ntype: Leak\n---\nLEAK\n")
    root = write_bundle(tmp_path, {"ok.md": GOOD, "index.md": "* [Leak](leak.md) - x\n* [Dir](out/) - y\n"})
    os.symlink(outside / "leak.md", root / "leak.md")
    os.symlink(outside, root / "out")
    os.symlink(root / "ok.md", root / "alias.md")  # stays inside: allowed
    b = Bundle.open(root)
    assert list(b.iter_concepts()) == ["alias.md", "ok.md"]
    for ref in ("leak.md", "out/leak.md", "out/"):
        with pytest.raises(PathEscapeError):
            b.resolve(ref)
    with pytest.raises(PathEscapeError):
        b.concept("out/leak")
    listing = b.listing("")
    assert sorted(s.path for s in listing.signposts) == ["alias.md", "ok.md"]
    assert sorted(d.code for d in listing.diagnostics) == ["W111", "W111"]
    assert b.concept("alias").body == "body\n"


@given(
    st.text(alphabet=st.sampled_from(list("ab./\\~:\x00%C")), max_size=30),
    st.text(alphabet=st.sampled_from(list("ab./")), max_size=10),
)
@settings(max_examples=200, deadline=None)
def test_normalize_never_escapes(ref, base):
    try:
        out = normalize(ref, base)
    except PathEscapeError:
        return
    assert not out.startswith("/") and "\x00" not in out
    assert ".." not in out.split("/") and "." not in out.split("/")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1))
def test_a_path_written_as_a_uri_reads_back_as_that_path(name):
    """path_uri encodes exactly what would change a URI's meaning; a URI reader and path_readings get the path."""
    from urllib.parse import unquote, urlsplit

    from okf.bundle.paths import path_readings, path_uri

    path = "references/sources/" + name.strip()
    written = "/" + path_uri(path)
    parts = urlsplit(written)
    assert (parts.query, parts.fragment) == ("", "")  # no "#" or "?" left to start a fragment or query
    assert unquote(parts.path) == "/" + path  # every "%" escaped, so decoding gives the name back
    assert path_readings(written)[-1] == "/" + path
    assert set(written) - set("/" + path) <= set("%0123456789ABCDEF")  # nothing else encoded
    assert " " not in name.strip() or " " in written
    if not set(path) & set("#?%\x7f" + "".join(map(chr, range(32)))):
        assert written == "/" + path and path_readings(written) == (written,)


def test_path_readings_try_the_literal_path_first():
    from okf.bundle.paths import path_readings

    assert path_readings("/a #2.txt") == ("/a #2.txt", "/a")
    assert path_readings("/a%20b.txt#L3") == ("/a%20b.txt#L3", "/a b.txt")
    assert path_readings("/plain/name.txt") == ("/plain/name.txt",)
    assert path_readings("https://x.org/a%20b") == ("https://x.org/a%20b", "https://x.org/a b")
