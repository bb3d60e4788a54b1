"""The exact fast paths of ``okf check`` against the long ways they stand for (issue 21): typed sources and
actors, listings planned without signposts, directories read from the scans, cited concepts found by their
resource."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from okf.bundle import Bundle
from okf.bundle.citations import cited_changes
from okf.bundle.meta import _actor, _any_actor, _any_source, _source
from okf.checker import check
from okf.sources import span_sha256

_texts = st.one_of(st.text(max_size=3), st.none(), st.integers(-2, 3), st.booleans(), st.just(1.5))
_lines = st.one_of(
    st.lists(st.one_of(st.integers(-1, 4), st.booleans(), st.just(2.0), st.just("2")), min_size=2, max_size=2),
    st.lists(st.integers(0, 4), max_size=3),
    st.none(),
    st.just("3-9"),
    st.just((1, 2)),
)
_sources = st.fixed_dictionaries(
    {},
    optional={
        "id": st.one_of(st.just("src"), _texts),
        "resource": st.one_of(st.just("/references/sources/a.txt"), _texts),
        "title": _texts,
        "author": _texts,
        "sha256": st.one_of(st.just("ab" * 32), _texts),
        "lines": _lines,
        "last_modified": st.sampled_from([None, "2026-01-01", "x"]),
        "note": _texts,
    },
)


@given(st.one_of(_sources, _texts, st.lists(_texts, max_size=2)))
@settings(max_examples=500, deadline=None)
def test_a_source_is_typed_as_the_long_way_types_it(value) -> None:
    fast, slow = _source(value), _any_source(value)
    assert fast == slow
    assert (fast is None) or fast.model_dump() == slow.model_dump()  # type: ignore[union-attr]


_moments = st.one_of(
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)),
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)),
    st.just(datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2)))),
    st.just(date(2026, 1, 1)),
    st.sampled_from(["2026-01-01T00:00:00Z", "soon", None, 3]),
)


@given(
    st.one_of(
        st.fixed_dictionaries(
            {},
            optional={"by": st.one_of(st.just("okf/0.1.0"), _texts), "at": _moments, "note": _texts},
        ),
        _texts,
    )
)
@settings(max_examples=500, deadline=None)
def test_an_actor_is_typed_as_the_long_way_types_it(value) -> None:
    fast, slow = _actor(value), _any_actor(value)
    assert fast == slow
    if fast is not None and slow is not None:
        assert fast.at == slow.at and (fast.at is None or fast.at.tzinfo == slow.at.tzinfo)


def _bundle(tmp_path: Path, write_bundle) -> Path:
    return write_bundle(
        tmp_path,
        {
            "index.md": "# All\n\n* [A](a.md) - A.\n* [A again](a.md) - A.\n* [Sub](sub/) - Sub.\n"
            "* [Empty](empty.md)\n* [Gone](gone.md) - x\n* [Log](log.md) - the log\n",
            "a.md": "---\ntype: Note\ndescription: A.\n---\nA\n",
            "empty.md": "---\ntype: Note\ndescription: Said in the file.\n---\nE\n",
            "unlisted.md": "---\ntype: Note\ntitle: Unlisted\ndescription: U.\n---\nU\n",
            "log.md": "# Log\n\n## 2026-01-02\nx\n",
            "sub/index.md": "# Sub\n\n* [B](b.md) - B.\n",
            "sub/b.md": "---\ntype: Note\ndescription: B.\n---\nB\n",
            "sub/c.md": "---\ntype: Note\n---\nC\n",
            "other/d.md": "---\ntype: Note\ndescription: D.\n---\nD\n",
            "other/deeper/e.md": "---\ntype: Note\ndescription: E.\n---\nE\n",
            "bare/f.md": "---\ntype: Note\ndescription: F.\n---\nF\n",
            ".hidden/g.md": "---\ntype: Note\n---\nG\n",
        },
    )


def test_a_listing_plan_holds_what_the_listing_shows(tmp_path: Path, write_bundle) -> None:
    root = _bundle(tmp_path, write_bundle)
    (root / "linked").symlink_to(root / "other", target_is_directory=True)
    bundle = Bundle.open(root)
    for directory in bundle.iter_directories():
        listing, plan = Bundle.open(root).listing(directory), bundle.listing_plan(directory)
        shown = [(s.path, s.origin) for s in listing.signposts]
        planned = (
            [(e.path, "index") for e in plan.entries]
            + [(p, "synthesized") for p in plan.concepts]
            + [(p, "synthesized") for p in plan.directories]
        )
        assert shown == planned and plan.size == len(listing.signposts)
        assert plan.diagnostics == listing.diagnostics and (plan.index is not None) == listing.has_index
    root_plan = bundle.listing_plan("")
    assert root_plan.concepts == ["unlisted.md"] and "other/" in root_plan.directories
    assert [d.code for d in root_plan.diagnostics].count("W114") == 1


def _outcome(read, directory: str) -> object:
    try:
        return read(directory)
    except Exception as exc:  # the same refusal either way
        return type(exc)


def test_directories_read_from_the_scans_are_the_ones_the_long_way_reads(tmp_path: Path, write_bundle) -> None:
    root = _bundle(tmp_path, write_bundle)
    (root / "linked").symlink_to(root / "other", target_is_directory=True)
    bundle = Bundle.open(root)
    asked = ["", "sub/", "sub", "/sub/", "other/deeper/", "other/./deeper/", "linked/", "linked/deeper/"]
    asked += ["index.md/", "gone/", "a.md/", ".hidden/", "../", "sub//"]
    outcomes = [_outcome(bundle._directory, d) for d in asked]
    assert outcomes == [_outcome(Bundle.open(root)._checked_directory, d) for d in asked]
    assert outcomes[:6] == ["", "sub/", "sub/", "sub/", "other/deeper/", "other/deeper/"]


def test_a_synthesis_citing_a_concept_by_an_encoded_path_is_still_checked(tmp_path: Path, write_bundle) -> None:
    body = "---\ntype: Note\ndescription: A.\n---\nline one\nline two\n"
    digest = span_sha256(body, 5, 6)
    cites = (
        "---\ntype: Synthesis\ndescription: S.\nsources:\n"
        "  - resource: /a%2Emd\n    lines: [5, 6]\n    sha256: {d}\n"
        "  - resource: /references/x.txt\n    lines: [1, 1]\n    sha256: {d}\n---\nS\n"
    )
    root = write_bundle(tmp_path, {"a.md": body, "s.md": cites.format(d=digest)})
    bundle = Bundle.open(root)
    assert cited_changes(bundle, bundle.concept("s.md")) == []
    (root / "a.md").write_text(body.replace("two", "2"))
    changed = cited_changes(Bundle.open(root), Bundle.open(root).concept("s.md"))
    assert [(c.path, c.kind) for c in changed] == [("a.md", "changed")]
    assert [d.code for d in check(root).diagnostics if d.path == "s.md"].count("W151") == 1


def test_the_quoted_string_class_is_every_character_but_a_quote_a_backslash_and_a_newline() -> None:
    import re

    from okf.bundle.fastyaml import _NOT_QUOTE

    ranges, negated = re.compile(_NOT_QUOTE), re.compile(r'[^"\\\n]')
    for code in [*range(0x10000), 0x10000, 0x1F600, 0x10FFFF]:
        assert bool(ranges.fullmatch(chr(code))) == bool(negated.fullmatch(chr(code))), hex(code)


@settings(max_examples=40, deadline=None)
@given(
    size=st.sampled_from([0, 1, 65_535, 65_536, 65_537, 200_000]),
    tail=st.sampled_from([b"", b"\r\n", b"\xff", "\u00e9".encode()]),
)
def test_a_file_read_without_fstat_is_the_file_read_with_it(tmp_path_factory, size: int, tail: bytes) -> None:
    """read_text reads a small file with one read and no fstat: what it gives is read_file's bytes, decoded,
    on either side of the first read's 64 KiB."""
    from okf.bundle.documents import decode_text, read_file, read_text

    path = tmp_path_factory.mktemp("read") / "a.md"
    data = (b"x" * size + tail)[: max(size, len(tail))]
    path.write_bytes(data)
    assert read_file(str(path), "a.md")[0] == data
    assert read_text(str(path), "a.md") == decode_text(data, "a.md")


def test_a_file_over_the_limit_is_refused_with_its_size_either_way(tmp_path: Path, monkeypatch) -> None:
    from okf.bundle import documents

    monkeypatch.setattr(documents, "MAX_FILE_BYTES", 100_000)
    path = tmp_path / "big.md"
    path.write_bytes(b"y" * 150_000)
    messages = []
    for read in (documents.read_text, documents.read_file):
        try:
            read(str(path), "big.md")
        except documents.CodedBundleError as exc:
            messages.append((exc.code, exc.message))
    assert messages == [("E005", "file is 0.1 MB, over the 0 MB limit")] * 2


@settings(max_examples=60, deadline=None)
@given(
    text=st.lists(st.sampled_from(["", "a", "b c", "é"]), max_size=6).map("\n".join),
    spans=st.lists(st.tuples(st.integers(-1, 8), st.integers(-1, 8), st.booleans()), min_size=1, max_size=4),
)
def test_drift_hashes_the_span_the_definition_gives(tmp_path_factory, text: str, spans) -> None:
    """SourceFiles splits a source's lines once and joins a span's: W150 exactly where span_sha256 (the
    definition) differs from the recorded hash, for spans inside, across and past the end of the text."""
    from okf.bundle.documents import parse_concept
    from okf.checker.rules import SourceFiles

    root = tmp_path_factory.mktemp("drift")
    (root / "doc.txt").write_text(text, encoding="utf-8")
    (root / "c.md").write_text("---\ntype: N\n---\n", encoding="utf-8")
    bundle = Bundle.open(root)
    sources = SourceFiles(bundle, None)
    for start, end, fresh in spans:
        digest = span_sha256(text, start, end) if fresh else span_sha256(text + "x", start, end)
        concept = parse_concept(
            "c.md",
            f"---\ntype: N\nsources:\n  - {{resource: doc.txt, lines: [{start}, {end}], sha256: {digest}}}\n---\n",
            [],
        )
        typed = bool(concept.meta.sources)  # lines outside 1 <= start <= end leave the source untyped (W133)
        changed = typed and digest != span_sha256(text, start, end)
        assert [d.code for d in sources.drift(concept)] == (["W150"] if changed else [])


def _timestamps_long_way(raw: dict) -> list:
    """okf.checker.rules._timestamps as it was written first (a partial for the windows, one loop for a single
    ``verified`` or a list of them): the reference for the unrolled one."""
    found: list = []

    def window(prefix: str, value: object) -> None:
        if isinstance(value, dict):
            found.extend((f"{prefix}.{k}", value[k]) for k in ("from", "to") if value.get(k) is not None)

    generated = raw.get("generated")
    if isinstance(generated, dict) and generated.get("at") is not None:
        found.append(("generated.at", generated["at"]))
    verified = raw.get("verified")
    for i, item in enumerate(verified if isinstance(verified, list) else [verified]):
        if isinstance(item, dict) and item.get("at") is not None:
            found.append((f"verified[{i}].at" if isinstance(verified, list) else "verified.at", item["at"]))
    if raw.get("stale_after") is not None:
        found.append(("stale_after", raw["stale_after"]))
    window("usage_window", raw.get("usage_window"))
    items = raw.get("sources")
    for i, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, dict):
            if item.get("last_modified") is not None:
                found.append((f"sources[{i}].last_modified", item["last_modified"]))
            window(f"sources[{i}].usage_window", item.get("usage_window"))
    return found


_stamp = st.one_of(st.none(), st.just("2026-01-01"), st.just(3))
_stamped = st.one_of(
    st.none(),
    st.just("x"),
    st.fixed_dictionaries({}, optional={"at": _stamp, "by": st.just("h"), "from": _stamp, "to": _stamp}),
)
_frontmatters = st.fixed_dictionaries(
    {},
    optional={
        "generated": _stamped,
        "verified": st.one_of(_stamped, st.lists(_stamped, max_size=3)),
        "stale_after": _stamp,
        "usage_window": _stamped,
        "sources": st.one_of(
            _stamped,
            st.lists(
                st.one_of(
                    st.just("a.txt"),
                    st.fixed_dictionaries(
                        {}, optional={"last_modified": _stamp, "usage_window": _stamped, "resource": st.just("a")}
                    ),
                ),
                max_size=3,
            ),
        ),
    },
)


@settings(max_examples=300, deadline=None)
@given(_frontmatters)
def test_the_timestamps_of_a_frontmatter_are_found_as_the_long_way_finds_them(raw) -> None:
    from okf.checker.rules import _timestamps

    assert _timestamps(raw) == _timestamps_long_way(raw)
