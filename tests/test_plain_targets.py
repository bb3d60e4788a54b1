"""The short way to resolve a plain link or index target (okf.bundle.paths.plain_target, Bundle.plain_entry)
gives exactly what the long way (decode, normalize, real path, directory and concept checks) gives."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import okf.bundle.bundle as bundle_module
import okf.bundle.listing as listing_module
from okf.bundle import Bundle
from tests.builders import concept, write_files

NAMES = [
    "a.md",
    "b.md",
    "sub",
    "sub/",
    "sub/c.md",
    "sub/deep/",
    "sub/deep/d.md",
    "index.md",
    "log.md",
    "x.txt",
    "missing.md",
    "sub/missing/",
    "link.md",
    "linkdir/",
    "linkdir/e.md",
    ".hidden.md",
    "a.md/",
    "sub/index.md",
    "deep",
    "c.md",
    "..",
    "e.md",
    "sub/deep/index.md",
]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Bundle:
    root = write_files(
        tmp_path_factory.mktemp("plain"),
        {
            "index.md": "# Root\n",
            "a.md": concept("A"),
            "b.md": concept("B"),
            "log.md": "# Log\n",
            "x.txt": "x",
            ".hidden.md": concept("H"),
            "sub/index.md": "# Sub\n",
            "sub/c.md": concept("C"),
            "sub/deep/d.md": concept("D"),
            "elsewhere/e.md": concept("E"),
            "odd/index.md/f.md": concept("F"),  # a folder named index.md
            "odd/g.md": concept("G"),
        },
    )
    os.symlink(root / "a.md", root / "link.md")
    os.symlink(root / "elsewhere", root / "linkdir")
    return Bundle.open(root)


targets = st.tuples(st.sampled_from(["", "/", "sub/"]), st.sampled_from(NAMES)).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=targets, directory=st.sampled_from(["", "sub/", "sub/deep/"]))
def test_plain_targets_resolve_as_the_long_way(
    bundle: Bundle, target: str, directory: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    short_index = listing_module._classify(bundle, target, directory)
    short_link = bundle._resolve_link("t", target, 1, directory.rstrip("/"), "own.md")
    with monkeypatch.context() as patched:
        patched.setattr(listing_module, "plain_target", lambda target: False)
        patched.setattr(bundle_module, "plain_target", lambda target: False)
        assert listing_module._classify(bundle, target, directory) == short_index
        assert bundle._resolve_link("t", target, 1, directory.rstrip("/"), "own.md") == short_link


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    target=st.sampled_from([*NAMES, "g.md", "index.md/", "/a.md", "sub//", "a b.md"]),
    directory=st.sampled_from(["", "sub/", "sub/deep/", "odd/"]),
)
def test_a_child_of_the_listed_directory_resolves_as_classify_does(bundle: Bundle, target: str, directory: str) -> None:
    """read_index's short way for an entry naming a concept or folder of its own directory (_child) gives what
    _classify gives, or leaves the entry to it."""
    scan = bundle.directory_scan(directory)
    assert scan is not None
    child = listing_module._child(scan, target, directory)
    if child is not None:
        assert child == listing_module._classify(bundle, target, directory)


def test_the_usual_index_entries_take_the_short_way(bundle: Bundle) -> None:
    scan = bundle.directory_scan("")
    assert scan is not None
    assert listing_module._child(scan, "a.md", "") == ("concept", "a.md")
    assert listing_module._child(scan, "sub/", "") == ("directory", "sub/")
    assert listing_module._child(scan, "sub", "") == ("directory", "sub/")
    for other in ("link.md", "linkdir/", "log.md", "x.txt", "index.md", "sub/c.md", "missing.md", "a.md/"):
        assert listing_module._child(scan, other, "") is None
    odd = bundle.directory_scan("odd/")
    assert odd is not None and listing_module._child(odd, "index.md", "odd/") is None


def test_plain_target_refuses_what_needs_decoding_or_normalizing() -> None:
    from okf.bundle.paths import plain_target

    assert all(plain_target(t) for t in ["a.md", "/a/b.md", "sub/", "é.md"])
    assert not any(
        plain_target(t)
        for t in [
            "",
            "/",
            "a//b.md",
            "./a.md",
            "../a.md",
            ".h.md",
            "a.md#x",
            "a%20b.md",
            "http://x",
            "~/x",
            "a b.md",
            "C:/x",
            "a\\b.md",
        ]
    )


_PIECES = ["a", "b.md", "é", "/", "//", ".", "..", "~", "#", "?", "%20", "\\", ":", " ", "\t", "\x00", "\u2003", "-"]


@settings(max_examples=2000, deadline=None)
@given(target=st.one_of(st.lists(st.sampled_from(_PIECES), max_size=8).map("".join), st.text(max_size=12)))
def test_plain_target_is_the_regular_expression(target: str) -> None:
    from okf.bundle.paths import PLAIN, plain_target

    assert plain_target(target) == (PLAIN.fullmatch(target) is not None and target not in ("", "/"))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picked=st.lists(targets, min_size=1, max_size=6), directory=st.sampled_from(["", "sub/", "sub/deep/"]))
def test_links_left_out_for_check_all_resolve(bundle: Bundle, picked: list[str], directory: str) -> None:
    """links(unsure_only=True) leaves out only links that resolve to something: check's diagnostics stay."""
    from okf.bundle.model import Concept, ConceptMeta

    body = "\n\n".join(f"See [t{i}]({target})." for i, target in enumerate(picked) if target.strip())
    own = Concept(id=directory + "own", path=directory + "own.md", meta=ConceptMeta(), body=body, body_start_line=1)
    every, unsure = bundle.links(own), bundle.links(own, unsure_only=True)
    assert all(link in every for link in unsure)
    assert all(link.exists and not link.external and link.path is not None for link in every if link not in unsure)
    assert [link for link in every if link.external or link.path is None or not link.exists] == [
        link for link in unsure if link.external or link.path is None or not link.exists
    ]


def test_a_plain_prefix_and_a_name_are_the_real_path(bundle: Bundle) -> None:
    """Bundle.plain_prefix: the prefix and a listed name give real_path's answer for every file and folder but
    a symlink (whose names it returns); None for what is not a directory the scans show."""
    for directory in bundle.iter_directories():
        plain = bundle.plain_prefix(directory)
        assert plain is not None
        prefix, symlinks = plain
        scan = bundle.directory_scan(directory)
        assert scan is not None and symlinks == scan.symlinks
        for name in (*scan.files, *scan.dirs):
            if name not in symlinks:
                assert prefix + name == bundle.real_path(directory + name)
    assert "link.md" in bundle.plain_prefix("")[1]  # type: ignore[index]
    for odd in ("sub", "/sub/", "sub//", "missing/", "linkdir/", "a.md/"):
        assert bundle.plain_prefix(odd) is None
