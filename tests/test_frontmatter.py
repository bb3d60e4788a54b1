"""Frontmatter: safe loading, limits, bombs, and round trips (hypothesis)."""

from __future__ import annotations

import re
import string

import frontmatter as python_frontmatter
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from okf.bundle import Bundle
from okf.bundle import frontmatter as fm
from okf.bundle.fastyaml import fast_load
from okf.errors import BundleError

BOMB = (
    "---\ntype: Bomb\n"
    + 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
    + "---\nbody\n"
)


def test_split_keeps_line_numbers():
    parts = fm.split("---\ntype: A\n\n---\n# H\n")
    assert parts.yaml_text == "type: A\n\n" and parts.body == "# H\n" and parts.body_start_line == 5
    assert fm.split("# no frontmatter\n").yaml_text is None
    assert fm.split("---  \ntype: A\n...\nx").body == "x"
    assert fm.split("----\nx\n").yaml_text is None  # a thematic break, not frontmatter


def test_unsafe_tags_are_refused():
    with pytest.raises(BundleError, match="not valid YAML"):
        fm.parse("---\ntype: !!python/object/apply:os.system ['echo hi']\n---\n", "x.md")


def test_billion_laughs_is_refused_quickly(tmp_path, write_bundle):
    root = write_bundle(tmp_path, {"bomb.md": BOMB})
    with pytest.raises(BundleError, match="aliases") as exc:
        Bundle.open(root).concept("bomb")
    assert exc.value.path == "bomb.md" and exc.value.line == 1


def test_a_few_aliases_are_fine():
    raw, _ = fm.parse("---\ntype: A\nbase: &b {x: 1}\nother: *b\n---\n")
    assert raw == {"type": "A", "base": {"x": 1}, "other": {"x": 1}}


def test_size_limits(tmp_path, write_bundle):
    big_fm = '---\ntype: A\nblob: "' + "x" * (fm.MAX_FRONTMATTER_BYTES + 10) + '"\n---\nbody\n'
    root = write_bundle(tmp_path, {"bigfm.md": big_fm, "ok.md": "---\ntype: A\n---\n"})
    with open(root / "huge.md", "wb") as handle:  # 50 MB, sparse: written in no time
        handle.write(b"---\ntype: A\n---\n")
        handle.seek(50 * 1024 * 1024)
        handle.write(b"end\n")
    b = Bundle.open(root)
    with pytest.raises(BundleError, match="KiB") as exc:
        b.concept("bigfm")
    assert exc.value.path == "bigfm.md"
    with pytest.raises(BundleError, match="MB") as exc:
        b.concept("huge")
    assert exc.value.path == "huge.md"
    assert b.concept("ok").meta.type == "A"


def test_scalar_frontmatter_is_not_a_mapping():
    with pytest.raises(BundleError, match="scalar") as exc:
        fm.parse("---\njust text\n---\n", "s.md")
    assert (exc.value.path, exc.value.line) == ("s.md", 2)


def test_yaml_error_line_points_into_the_file():
    with pytest.raises(BundleError) as exc:
        fm.parse("---\ntype: A\ntitle: ok\nbad: [x\n---\nbody\n", "e.md")
    assert exc.value.line is not None and 4 <= exc.value.line <= 6


_keys = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=12)
_text = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=40)
_scalars = st.one_of(_text, st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False, allow_infinity=False))
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_keys, inner, max_size=4)),
    max_leaves=12,
)


@given(st.dictionaries(_keys, _values, max_size=8), st.text(max_size=200))
@settings(max_examples=60, deadline=None)
def test_round_trip(mapping, body):
    body = body.replace("\r", "")
    text = "---\n" + yaml.safe_dump(mapping, allow_unicode=True, sort_keys=False) + "---\n" + body
    raw, parts = fm.parse(text, "p.md")
    assert raw == mapping
    assert parts.body == body
    assert text.split("\n")[parts.body_start_line - 1 :] == body.split("\n")


@given(st.text(max_size=300))
@settings(max_examples=150, deadline=None)
def test_parse_never_crashes_unexpectedly(text):
    try:
        fm.parse(text, "f.md")
    except BundleError:
        pass


@given(st.dictionaries(_keys, _values, max_size=6))
@settings(max_examples=50, deadline=None)
def test_meta_never_rejects(mapping):
    from okf.bundle.meta import build_meta

    mapping.setdefault("type", "T")
    meta, diags = build_meta(mapping)
    typed = {
        "type",
        "title",
        "description",
        "resource",
        "tags",
        "sources",
        "generated",
        "verified",
        "status",
        "stale_after",
    }
    assert set(mapping) - typed <= set(meta.extra)  # unknown keys are never dropped
    assert all(d.severity == "warning" for d in diags)


# -- the fast scanner (okf.bundle.fastyaml) must give exactly yaml.safe_load's value on what it accepts --------

SCALARS = [
    "Note",
    "a b  c",
    "42",
    "-7",
    "0x1F",
    "1_000",
    "3.5",
    ".inf",
    "-.5",
    "1e3",
    "true",
    "No",
    "on",
    "null",
    "~",
    "2026-01-01",
    "2026-01-01T00:00:00Z",
    "2026-1-1",
    "12:30:00",
    "human:kliu@acme",
    "okf/0.1.0",
    "http://x.y/a?b=c",
    "a:b",
    "é naïve",
    "(x)",
    "C#",
    "a, b",
    "[x]",
    "{y}",
    "it's",
    "x: y",
    "- x",
    "-x",
    "?q",
    "@at",
    "&anc",
    "*ref",
    "!tag",
    "|",
    ">",
    "%p",
    "`b`",
    "=",
    "<<",
    "a #c",
    "a\tb",
    "a\u2028b",
    "\ufeffx",
    "\x85",
    "",
    " lead",
    "trail ",
    "''",
    '"',
    "\\",
    "a\\nb",
    '\\"q\\" x',
    "a\\\\b",
    "\\/",
    "\\t\\r\\b\\f",
    "\\u00e9\\u2028",
    "\\ud83d",
    "\\x41",
    "\\N",
    "\\_",
    "\\ ",
    "#1",
    "a#b",
    "x \\u0000",
    "0755",
    "08",
    "0",
    "155",
    "\u0663",
]
FLOW_SCALARS = [s for s in SCALARS if s and not any(c in s for c in ",[]{}")] + ["x]", "a,b"]
KEYS = [
    "type",
    "title",
    "description",
    "tags",
    "sources",
    "generated",
    "k_2",
    "dash-key",
    "null",
    "true",
    "1",
    "Yes",
    "x y",
    "'q'",
    "a:b",
    "-k",
    "k ",
]


@st.composite
def yaml_scalar(draw: st.DrawFn, flow: bool = False) -> str:
    value = draw(st.sampled_from(FLOW_SCALARS if flow else SCALARS))
    style = draw(st.sampled_from(["plain", "plain", "double", "single"]))
    if style == "double":
        return f'"{value}"'
    if style == "single":
        return "'" + value.replace("'", "''") + "'"
    return value


@st.composite
def yaml_inline(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["scalar", "scalar", "seq", "map"]))
    if kind == "scalar":
        return draw(yaml_scalar())
    items = draw(st.lists(yaml_scalar(flow=True), max_size=3))
    sep = draw(st.sampled_from([", ", ",", " , ", ",  "]))
    if kind == "seq":
        return "[" + sep.join(items) + draw(st.sampled_from(["]", "", ",]"]))
    pairs = [f"{draw(st.sampled_from(KEYS))}: {item}" for item in items]
    return draw(st.sampled_from(["{", "{ "])) + sep.join(pairs) + draw(st.sampled_from(["}", " }", ""]))


@st.composite
def yaml_documents(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        key = draw(st.sampled_from(KEYS))
        form = draw(st.sampled_from(["inline", "inline", "map", "seq", "seqmap", "empty", "noise"]))
        indent = " " * draw(st.sampled_from([2, 2, 4, 0, 1]))
        if form == "inline":
            lines.append(f"{key}: {draw(yaml_inline())}" + draw(st.sampled_from(["", " ", " # c"])))
        elif form == "empty":
            lines.append(f"{key}:" + draw(st.sampled_from(["", " "])))
        elif form == "map":
            lines.append(f"{key}:")
            lines += [
                f"{indent}{draw(st.sampled_from(KEYS))}: {draw(yaml_inline())}" for _ in range(draw(st.integers(1, 3)))
            ]
        elif form == "seq":
            lines.append(f"{key}:")
            lines += [f"{indent}- {draw(yaml_inline())}" for _ in range(draw(st.integers(1, 3)))]
        elif form == "seqmap":
            lines.append(f"{key}:")
            for _ in range(draw(st.integers(1, 2))):
                lines.append(f"{indent}- {draw(st.sampled_from(KEYS))}: {draw(yaml_inline())}")
                lines += [
                    f"{indent}  {draw(st.sampled_from(KEYS))}: {draw(yaml_inline())}"
                    for _ in range(draw(st.integers(0, 2)))
                ]
        else:
            lines.append(
                draw(
                    st.sampled_from(
                        [
                            "  indented: x",
                            "- top",
                            "&a x: 1",
                            "k: !!str 1",
                            "k: |",
                            "  continued",
                            "",
                            "#c",
                            "k: &a [1]",
                            "? q",
                            "k: *a",
                        ]
                    )
                )
            )
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


def _safe_load(text: str) -> object:
    try:
        return ("value", yaml.safe_load(text))
    except yaml.YAMLError:
        return ("error", None)


@settings(max_examples=200, deadline=None)
@given(yaml_documents())
def test_fast_yaml_equals_pyyaml(text):
    quick = fast_load(text)
    if quick is not None:
        kind, value = _safe_load(text)
        assert kind == "value" and quick == value
        assert [type(v) for v in quick.values()] == [type(v) for v in value.values()]
        assert [[type(x) for x in v] for v in quick.values() if isinstance(v, list)] == [
            [type(x) for x in v] for v in value.values() if isinstance(v, list)
        ]


# 60 examples: python-frontmatter reads the YAML through PyYAML, which the test above compares with the fast path
# 200 times; this one checks the document path around it (delimiters, body, key order and types).
@settings(max_examples=60, deadline=None)
@given(yaml_documents())
def test_fast_yaml_equals_python_frontmatter(text):
    """Where the fast path answers, python-frontmatter (the tolerant fallback) reads the same document alike."""
    quick = fast_load(text)
    if quick is None or not quick:
        return
    # parse, not loads: a Post takes its keys as keyword arguments, so YAML's non-string keys (null: x) fail there.
    metadata, content = python_frontmatter.parse(f"---\n{text.rstrip(chr(10))}\n---\nbody\n")
    assert metadata == quick and content == "body"
    assert [type(v) for v in metadata.values()] == [type(v) for v in quick.values()]


def test_what_the_fast_path_declines_python_frontmatter_reads() -> None:
    text = "---\ntype: Note\nsummary: |\n  two\n  lines\nk: !!str 1\n---\n# T\n"
    meta, _ = fm.parse(text, "a.md")
    assert fast_load("type: Note\nsummary: |\n  two\n  lines\nk: !!str 1\n") is None
    assert meta == python_frontmatter.loads(text).metadata == {"type": "Note", "summary": "two\nlines\n", "k": "1"}


def test_fast_yaml_reads_typical_frontmatter_and_declines_the_rest():
    typical = (
        "type: \"Document\"\ntitle: 'It''s'\ndescription: Fact 5 in d00/d01.\ntags: [bench, d0, 3]\n"
        'sources:\n  - id: src\n    resource: "a/b.md"\n    lines: [1, 70]\n    sha256: 31ab\n'
        "generated:\n  by: okf/0.1.0\n  at: 2026-01-01T00:00:00Z\n"
        "verified:\n- { by: human:kliu@acme, at: 2026-07-01 }\nstale_after: 2026-12-31\nstatus:\n"
    )
    quick = fast_load(typical)
    assert quick is not None and quick == yaml.safe_load(typical)
    for declined in [
        "a: &x 1\nb: *x\n",
        "a: |\n  block\n",
        "a: b\n  continued\n",
        "a: 1 # comment\n",
        "- a\n",
        "a: !!str 1\n",
        '"q": 1\n',
        "",
        "a: [1,\n  2]\n",
        "a:\n  b:\n    c: 1\n",
    ]:
        assert fast_load(declined) is None, declined


def test_fast_yaml_types_words_as_pyyaml_does() -> None:
    """A plain value starting like true, no or null is a string once it holds a space (typed without PyYAML's
    resolver), and the single words stay typed."""
    words = ["true", "True", "no", "NO", "null", "Null", "yes", "off", "On", "y", "n", "~", "nothing", "Fact"]
    values = [*words, *(f"{w} story" for w in words), *(f"{w} x y" for w in words), "Yes sir", "no, thanks"]
    for value in values:
        text = f"a: {value}\nb: [{value.replace(',', '')}, x]\n"
        assert fast_load(text) == yaml.safe_load(text), value


_source_values = st.one_of(_scalars, st.sampled_from(["2026-01-01T00:00:00Z", "3-9", [1, 2], [2, 1], "2026-02-30"]))
_source_items = st.dictionaries(
    st.sampled_from(["resource", "id", "title", "author", "sha256", "lines", "last_modified", "usage_count", "note"]),
    _source_values,
    max_size=5,
)
_actors = st.dictionaries(st.sampled_from(["by", "at", "note"]), _source_values, max_size=3)


@given(st.lists(_source_items, max_size=3), _actors, st.lists(_actors, max_size=2))
@settings(max_examples=150, deadline=None)
def test_meta_models_built_without_validation_equal_validated_ones(sources, generated, verified):
    # build_meta types every value itself, then validates: the models equal a round trip through validation.
    from okf.bundle.meta import build_meta
    from okf.bundle.model import Actor, SourceRef

    meta, _ = build_meta({"type": "T", "sources": sources, "generated": generated, "verified": verified})
    for source in meta.sources:
        again = SourceRef.model_validate(source.model_dump())
        assert again == source and again.model_dump() == source.model_dump()
    for actor in [meta.generated, *meta.verified]:
        if actor is not None:
            again = Actor.model_validate(actor.model_dump())
            assert again == actor and again.model_dump() == actor.model_dump()


def _typed_equal(a, b) -> bool:
    """Equal with the same types all the way down (1 == 1.0 == True would hide a typing difference)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_typed_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_typed_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


_compiler_text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=("Cs",)), st.sampled_from(list("\"\\ #:-[],{}'\t0b…"))
    ),
    max_size=30,
)
_digest = st.one_of(
    st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
    st.text(alphabet="0123456789", min_size=64, max_size=64),
    st.text(alphabet="01", min_size=62, max_size=62).map(lambda s: "0b" + s),
    st.text(alphabet="0123456789abcdef", min_size=62, max_size=62).map(lambda s: "0b" + s),
)


@given(
    st.lists(_compiler_text, min_size=6, max_size=6),
    st.lists(st.one_of(st.none(), _compiler_text), min_size=3, max_size=3),
    st.lists(st.lists(_compiler_text, min_size=1, max_size=4), min_size=2, max_size=2),
    st.booleans(),
    st.tuples(st.from_regex(r"[0-9]{1,4}", fullmatch=True), st.from_regex(r"[0-9]{1,4}", fullmatch=True)),
    _digest,
    st.sampled_from(["okf/0.1.0", "okf/1", "2026", "true", "x_y-z+1"]),
    st.sampled_from(["2026-12-01T03:48:13Z", "2026-02-30T00:00:00Z", "1999-01-01T23:59:59Z"]),
)
@settings(max_examples=300, deadline=None)
def test_compiled_layout_equals_pyyaml(texts, optional, lists, has_tags, lines, digest, by, at):
    # The one-match path for the frontmatter okf's compiler writes, with the compiler's own quoting.
    from okf.bundle.fastyaml import _compiled
    from okf.compile.render import yaml_str

    kind, title, description, resource, doc_title, _ = texts
    top_resource, author, modified = optional
    text = "\n".join(
        [
            f"type: {yaml_str(kind)}",
            f"title: {yaml_str(title)}",
            f"description: {yaml_str(description)}",
            *([f"resource: {yaml_str(top_resource)}"] if top_resource is not None else []),
            *([f"tags: [{', '.join(yaml_str(t) for t in lists[0])}]"] if has_tags else []),
            *([f"aliases: [{', '.join(yaml_str(t) for t in lists[1])}]"] if not has_tags else []),
            "sources:",
            "  - id: src",
            f"    resource: {yaml_str(resource)}",
            f"    title: {yaml_str(doc_title)}",
            *([f"    author: {yaml_str(author)}"] if author is not None else []),
            *([f"    last_modified: {yaml_str(modified)}"] if modified is not None else []),
            f"    lines: [{lines[0]}, {lines[1]}]",
            f"    sha256: {digest}",
            "generated:",
            f"  by: {by}",
            f"  at: {at}",
            "",
        ]
    )
    try:
        expected = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError):
        expected = None
    quick = fast_load(text)
    if expected is None:
        assert quick is None
        return
    assert quick is not None and _typed_equal(quick, expected)
    compiled = _compiled(text) if "2026-02-30" not in text else None
    if compiled is not None:
        assert _typed_equal(compiled, expected)
    elif "\\" not in text and "2026-02-30" not in at:
        raise AssertionError(f"the compiler's layout was not read in one match:\n{text}")
    # What the export reads of it in one match: what summarize gives of PyYAML's mapping, or None.
    from okf.bundle.fastyaml import compiled_shown
    from okf.bundle.meta import Summary, summarize

    shown = compiled_shown(text)
    if shown is not None:
        title_, description_, resource_, first, last = shown
        assert summarize(expected) == Summary(title_, description_, ((resource_, (first, last)),))
    elif (
        "\\" not in text
        and modified is None
        and "2026-02-30" not in at
        and not (digest.isdigit() or digest.startswith("0b"))
        and lines[0][0] != "0"
        and lines[1][0] != "0"
        and int(lines[0]) <= int(lines[1])
    ):
        raise AssertionError(f"the compiler's layout was not read for the export in one match:\n{text}")


_summary_values = st.one_of(
    _values, st.sampled_from(["deprecated", " Deprecated ", "stable", "2026-01-01", "2026-01-01T10:00:00+02:00", "x"])
)


@given(
    st.dictionaries(
        st.sampled_from(["title", "description", "status", "stale_after", "sources", "tags", "other"]),
        st.one_of(_summary_values, st.lists(_source_items, max_size=3), _source_items),
        max_size=6,
    )
)
@settings(max_examples=200, deadline=None)
def test_summary_equals_build_meta(mapping):
    # The export reads only these fields of a concept's frontmatter; they must be typed exactly as build_meta does.
    from okf.bundle.meta import build_meta, summarize
    from okf.bundle.model import Status

    meta, _ = build_meta(mapping)
    summary = summarize(mapping)
    assert summary.title == meta.title and summary.description == meta.description
    assert list(summary.sources) == [(s.resource, s.lines) for s in meta.sources]
    assert summary.deprecated == (meta.status == Status.deprecated)
    assert summary.stale_after == meta.stale_after


def test_fast_yaml_lines_remembered_are_fresh_copies():
    # A line's value is remembered across documents (tags: [...] recurs); a caller changing what it got must
    # not change what the next document gets.
    text = "type: Note\ntags: [a, b]\ngenerated: {by: x, at: 2026-01-01}\n"
    first = fast_load(text)
    assert first is not None
    first["tags"].append("changed")
    first["generated"]["by"] = "changed"
    again = fast_load(text)
    assert again == {"type": "Note", "tags": ["a", "b"], "generated": {"by": "x", "at": yaml.safe_load("2026-01-01")}}


def _split_by_lines(text: str) -> tuple[str | None, str, int, str] | None:
    """The frontmatter split as a plain walk over the lines (what fm.split must give): None when unclosed."""
    lines = text.split("\n")
    if lines[0].rstrip() != "---" or not text.startswith("---"):
        return None, text, 1, "---"
    for n in range(1, len(lines)):
        if lines[n].rstrip() in ("---", "..."):
            return "\n".join(lines[1:n]) + ("\n" if n > 1 else ""), "\n".join(lines[n + 1 :]), n + 2, lines[n].rstrip()
    return None


_SPACES = ["", " ", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u3000", "\xa0", "a"]
_LINES = st.one_of(
    st.builds(
        lambda mark, tail: mark + tail,
        st.sampled_from(["---", "...", "----", " ---", "--", ".."]),
        st.sampled_from(_SPACES),
    ),
    st.sampled_from(["a: b", "", "key: ---", "- x"]),
)


@given(st.lists(_LINES, min_size=1, max_size=8))
@settings(max_examples=400, deadline=None)
def test_split_equals_a_walk_over_the_lines(lines):
    text = "\n".join(lines)
    expected = _split_by_lines(text)
    if expected is None:
        with pytest.raises(BundleError, match="never closed"):
            fm.split(text)
        return
    parts = fm.split(text)
    assert (parts.yaml_text, parts.body, parts.body_start_line, parts.closer) == expected


def _split_by_line(text: str) -> tuple[str | None, str, int, str] | None:
    """The line-by-line reading fm.split replaced (its reference): (yaml, body, body line, closer), None when
    the block is never closed."""
    if not text.startswith("---") or text.split("\n", 1)[0].rstrip() != "---":
        return None, text, 1, "---"
    pos = text.find("\n")
    if pos < 0:
        return None
    start = cursor = pos + 1
    line_no = 2
    while cursor <= len(text):
        end = text.find("\n", cursor)
        line = text[cursor:] if end < 0 else text[cursor:end]
        if line.rstrip() in ("---", "..."):
            return text[start:cursor], "" if end < 0 else text[end + 1 :], line_no + 1, line.rstrip()
        if end < 0:
            break
        cursor = end + 1
        line_no += 1
    return None


_SPLIT_PIECES = ["---", "...", "----", "\n", " ", "\t", "\r", "\x0b", "\x85", "\u2028", "\u3000", "a: b", "x", "-"]


@settings(max_examples=1500, deadline=None)
@given(opened=st.booleans(), pieces=st.lists(st.sampled_from(_SPLIT_PIECES), max_size=14))
def test_split_finds_the_closing_line_as_a_line_by_line_reading_does(opened: bool, pieces: list[str]) -> None:
    text = ("---\n" if opened else "") + "".join(pieces)
    expected = _split_by_line(text)
    if expected is None:
        with pytest.raises(BundleError):
            fm.split(text)
        return
    parts = fm.split(text)
    assert (parts.yaml_text, parts.body, parts.body_start_line) == expected[:3]
    if parts.yaml_text is not None:
        assert parts.closer == expected[3]


def test_the_ascii_unsafe_characters_are_the_unsafe_ones_below_128() -> None:
    from okf.bundle.fastyaml import _ASCII_UNSAFE, _UNSAFE

    assert {chr(b) for b in _ASCII_UNSAFE} == {chr(i) for i in range(128) if _UNSAFE.match(chr(i))}


_EVERY_CHARACTER = "".join(map(chr, range(0x110000)))


def test_the_unsafe_characters_are_those_outside_pyyamls_printable_ranges() -> None:
    # _UNSAFE lists what is left of the ranges (quick to compile); the ranges themselves, on every code point.
    from okf.bundle.fastyaml import _UNSAFE

    ranges = re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
    assert _UNSAFE.sub("", _EVERY_CHARACTER) == ranges.sub("", _EVERY_CHARACTER)
    assert _UNSAFE.findall(_EVERY_CHARACTER) == ranges.findall(_EVERY_CHARACTER)


def test_every_unsafe_character_is_unprintable() -> None:
    # fast_load searches non-ASCII text for them only when it is not printable (newlines aside).
    from okf.bundle.fastyaml import _UNSAFE, fast_load

    unsafe = _UNSAFE.findall(_EVERY_CHARACTER)
    assert unsafe and not any(c.isprintable() for c in unsafe)
    for c in unsafe:
        assert fast_load(f"title: caf\u00e9 {c}x\n") is None


def test_a_plain_scalar_starts_as_the_range_pattern_says() -> None:
    from okf.bundle.fastyaml import _FIRST

    ranges = re.compile(r"(?:[A-Za-z0-9_./~(+$^\\\u00a0-\U0010ffff]|-(?=[A-Za-z0-9.]))")
    first = re.compile(_FIRST)
    assert first.sub("", _EVERY_CHARACTER) == ranges.sub("", _EVERY_CHARACTER)
    for text in ("-a", "-.", "- ", "--", "-9", "-\u00e9"):
        assert bool(first.match(text)) == bool(ranges.match(text)), text


def test_the_first_characters_of_implicit_types_are_pyyamls() -> None:
    from yaml.resolver import Resolver

    from okf.bundle.fastyaml import _RESOLVED_FIRST

    assert frozenset(k for k in Resolver.yaml_implicit_resolvers if k) == _RESOLVED_FIRST


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.sampled_from(["yes", "no", "true", "false", "on", "off", "null", "nan", "inf", "y", "n", "ok", "o"]).flatmap(
            lambda w: st.sampled_from([w, w.upper(), w.capitalize(), w.swapcase(), w + "s", w + "_1", w + "-x"])
        ),
        st.text(alphabet="yYnNtTfFoOuUrReElLsS_-", min_size=1, max_size=6),
    )
)
def test_a_word_is_typed_as_pyyamls_resolver_types_it(word: str) -> None:
    # Words starting with a letter an implicit type starts with: a string unless one of the typed words, whose
    # type comes from PyYAML itself (the resolver is not asked for the others).
    from yaml.constructor import SafeConstructor
    from yaml.nodes import ScalarNode
    from yaml.resolver import Resolver

    from okf.bundle.fastyaml import _typed

    tag = Resolver().resolve(ScalarNode, word, (True, False))
    expected = (
        word
        if tag == "tag:yaml.org,2002:str"
        else SafeConstructor.yaml_constructors[tag](SafeConstructor(), ScalarNode(tag, word))
    )
    got = _typed(word, True)
    assert got == expected and type(got) is type(expected), word


@settings(max_examples=300, deadline=None)
@given(
    st.from_regex(r"[0-9]{1,9}", fullmatch=True),
    st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z", fullmatch=True),
)
def test_the_compiled_layouts_numbers_and_times_are_pyyamls(number: str, when: str) -> None:
    # The line numbers and the generated time of the compiled layout, read without PyYAML: as PyYAML reads them
    # (a leading 0 is octal or text there; a date that does not exist is a ValueError in both).
    from okf.bundle.fastyaml import _decimal, _utc_time

    assert _typed_equal(_decimal(number), yaml.safe_load(number))
    try:
        expected = yaml.safe_load(when)
    except ValueError:
        with pytest.raises(ValueError):
            _utc_time(when)
    else:
        assert _typed_equal(_utc_time(when), expected)
        assert _utc_time(when).tzinfo is expected.tzinfo


def test_a_compiled_bundle_is_checked_without_pyyaml(tmp_path) -> None:
    # okf check of a bundle okf compiled reads every frontmatter without PyYAML (and without python-frontmatter):
    # neither is imported, so the command starts sooner.
    import subprocess
    import sys

    from okf.compile import compile_bundle

    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "policy.md").write_text(
        "# Policy\n\n## Leave\n\nTwenty days of leave a year.\n\n## Travel\n\nBy train.\n"
    )
    compile_bundle([str(sources)], str(tmp_path / "bundle"))
    script = (
        "import sys\nfrom okf.cli import main\ntry:\n    main(['check', sys.argv[1], '--json'])\n"
        "except SystemExit:\n    pass\nsys.stderr.write(' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "bundle")], capture_output=True, text=True, check=True
    )
    loaded = set(done.stderr.split())
    assert '"error_count": 0' in done.stdout
    assert "okf.checker" in loaded and not {"yaml", "frontmatter", "html.parser"} & loaded


_span_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.text(max_size=3),
    st.lists(st.one_of(st.integers(-1, 4), st.booleans(), st.sampled_from(["2", 2.0])), max_size=3),
    st.sampled_from([(1, 2), "3-9", "2026-01-01", 1.5]),
)


_plain_sources = st.fixed_dictionaries(
    {},
    optional={
        "resource": st.one_of(st.text(max_size=3), _span_values),
        "id": st.one_of(st.just("src"), st.none(), _span_values),
        "title": st.one_of(st.text(max_size=3), st.none()),
        "sha256": st.one_of(st.just("ab12"), st.none(), st.integers()),
        "lines": st.one_of(st.lists(st.integers(-1, 4), min_size=2, max_size=2), _span_values),
        "last_modified": st.sampled_from([None, "2026-01-01", "x"]),
    },
)


@given(
    st.one_of(
        _plain_sources,
        st.dictionaries(
            st.one_of(
                st.sampled_from(["resource", "id", "title", "author", "sha256", "lines", "last_modified"]),
                st.sampled_from(["usage_count", "note", 1]),
            ),
            _span_values,
            max_size=6,
        ),
        _span_values,
    )
)
@settings(max_examples=400, deadline=None)
def test_source_span_equals_the_validated_source(value):
    # The export reads a source's resource and lines without building SourceRef when SourceRef would take the
    # mapping as it is; any other value goes through _source: the two must always agree.
    from okf.bundle.meta import _source, _source_span

    ref = _source(value)
    assert _source_span(value) == (None if ref is None else (ref.resource, ref.lines))


_SHOWN_EXTRA = st.lists(
    st.sampled_from(
        [
            "status: deprecated",
            "status: Stable",
            "status: 3",
            "stale_after: 2025-01-01",
            "stale_after: 2030-06-01T00:00:00Z",
            "stale_after: soon",
            "title: 5",
            "title:",
            "description: a: b",
            "description: plain text, with (marks) ~ and / and \\\\ too",
            "sources:\n  - resource: /r.txt\n    lines: [2, 9]",
            "sources:\n  - resource: /r.txt\n    lines: [9, 2]",
            "type: Note",
            "tags: [x, y]",
            "null: x",
            "yes: 1",
        ]
    ),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(yaml_documents(), _SHOWN_EXTRA, st.booleans())
def test_shown_load_keeps_what_fast_load_reads_of_the_shown_keys(text, extra, extra_first):
    # The export's short way reads every line as fast_load's line scanner does but keeps only the keys llms.txt
    # shows; a line read before (remembered) is read alike the second time.
    from okf.bundle.fastyaml import SHOWN_KEYS, shown_load, unsafe_yaml

    lines = "\n".join(extra) + "\n" if extra else ""
    text = lines + text if extra_first else text.rstrip("\n") + ("\n" if text.strip() else "") + lines
    if unsafe_yaml(text):
        return
    for _ in range(2):
        shown = shown_load(text)
        if shown is None:
            continue
        quick = fast_load(text)
        assert quick is not None
        kept = {k: v for k, v in quick.items() if k in SHOWN_KEYS}
        assert shown == kept and [type(v) for v in shown.values()] == [type(v) for v in kept.values()]


@settings(max_examples=300, deadline=None)
@given(yaml_documents(), _SHOWN_EXTRA, st.sampled_from(["---\n", "--- \n", "...\n", "----\n---\n"]))
def test_the_short_way_of_an_export_entry_is_the_long_way(text, extra, closer):
    # reading._fast_entry (the compiler's layout or the line scanner keeping what llms.txt shows) gives what
    # _summary_entry's long way (load the frontmatter, summarize it) gives, or None; a concept the long way
    # cannot read (it is then skipped) is never read the short way.
    from datetime import UTC, datetime

    import okf.export.reading as reading

    body = text.rstrip("\n") + "\n" if text.strip() else ""
    document = "---\n" + "".join(line + "\n" for line in extra) + body + closer + "# Body\n\ntext\n"
    now = datetime(2026, 12, 1, tzinfo=UTC)
    fast = reading._fast_entry("a/b-c.md", document, now)
    saved, reading._fast_entry = reading._fast_entry, lambda path, text, now: None
    try:
        slow = reading._summary_entry("a/b-c.md", document, now)
    except BundleError:
        slow = None
    finally:
        reading._fast_entry = saved
    assert fast is None or fast == slow


@given(st.text(alphabet=st.sampled_from(list("ab0Yn-.:# _/~(+$^\\[]{},'\"!&*|>%@`?=<\t\x7f\xe9")), max_size=10))
@settings(max_examples=500, deadline=None)
def test_a_plain_ascii_value_is_read_as_the_plain_pattern_reads_it(text):
    # _common reads a plain ASCII scalar by string tests where _PLAIN_BLOCK (a regex) read it: the same value.
    from okf.bundle.fastyaml import _DECLINE, _PLAIN_BLOCK, _common, _Decline, _typed

    if text.rstrip(" ")[:1] in ('"', "["):
        return  # _common's quoted and flow forms: compared with PyYAML above
    try:
        got = _common(text)
    except _Decline:
        got = "declined"
    if got is _DECLINE:
        return
    m = _PLAIN_BLOCK.match(text)
    assert m is not None and not text[m.end() :].strip(" ")
    try:
        want = _typed(m.group(0), True)
    except _Decline:
        want = "declined"
    assert got == want and type(got) is type(want)
