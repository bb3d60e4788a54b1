"""A line scanner for the frontmatter most bundles write, giving exactly what ``yaml.safe_load`` gives.

PyYAML builds every value in Python even with libyaml, which made frontmatter the slowest step of
``okf check``. This reads only a strict subset: ``key: value`` lines, one level of indented mapping or
sequence (of scalars or of ``key: value`` mappings), flow ``[a, b]`` and ``{k: v}`` of scalars, plain,
``"double"`` (with JSON's escapes, as okf's compiler writes them) and ``'single'`` quoted scalars. Scalars are typed by PyYAML's own
resolver and constructors, so ints, dates and booleans come out the same. Anything else (anchors, tags, block
scalars, multi-line values, inline comments, tabs...) returns None and goes to PyYAML.
tests/test_frontmatter.py compares both on generated documents.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime
from functools import cache, lru_cache
from typing import Any, cast

_STR = "tag:yaml.org,2002:str"
# Characters PyYAML reads differently or refuses (line breaks \x85 \u2028 \u2029, BOM, non-printables, tab):
# every character but newline, \x20-\x7e, \xa0-\u2027, \u202a-\ud7ff, \ue000-\ufefe, \uff00-\ufffd and
# \U00010000-\U0010ffff, written as what is left (tests/test_frontmatter.py compares the two on every code point):
# re builds a class of ranges this wide in Python, 15 to 40 ms at every start of a process that reads frontmatter.
_UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
_ASCII_UNSAFE = bytes([*range(0x0A), *range(0x0B, 0x20), 0x7F])  # what _UNSAFE matches in ASCII
# A plain scalar's first character: one of these ASCII characters, any character from \xa0 up (written as "not
# \x00-\x9f", which compiles at once where the range \xa0-\U0010ffff takes 5 to 20 ms), or a "-" before a word.
_FIRST = r"(?:[A-Za-z0-9_./~(+$^\\]|[^\x00-\x9f]|-(?=[A-Za-z0-9.]))"
_PLAIN_BLOCK = re.compile(_FIRST + r"(?:[^:#\s]|:(?=\S)| +(?=[^\s#]))*")
_PLAIN_FLOW = re.compile(_FIRST + r"(?:[^:#\s,?\[\]{}]|:(?=[^\s,\[\]{}])| +(?=[^\s#,?\[\]{}:]))*")
_DOUBLE = re.compile(r'"((?:[^"\\]|\\["\\/bfnrt]|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4})*)"')
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|(.))")
_ESCAPED = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _unescape(match: re.Match[str]) -> str:
    return chr(int(match.group(1), 16)) if match.group(1) else _ESCAPED[match.group(2)]


_SINGLE = re.compile(r"'((?:[^']|'')*)'")
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]{0,99}):(?: +|$)")
_SPACES = re.compile(r" *")
# " *" matches at every position: typed as never None (no check on this hot path).
_spaces_at = cast("Callable[[str, int], re.Match[str]]", _SPACES.match)
# The first characters of PyYAML's implicit types (yaml.resolver.Resolver.yaml_implicit_resolvers' keys but ""),
# written out so that reading the usual frontmatter imports no yaml (tests/test_frontmatter.py compares them).
_RESOLVED_FIRST = frozenset("yYnNtTfFoO-+0123456789.<~=!&*")
# A plain value starting with a letter is typed only when it is one of these words (PyYAML's booleans and
# nulls, the only implicit types a letter starts): any other is a string, with no resolver to ask.
_WORD_FIRST = frozenset(k for k in _RESOLVED_FIRST if k.isalpha())
_TYPED_WORDS = frozenset(
    v for w in ("yes", "no", "true", "false", "on", "off", "null") for v in (w, w.capitalize(), w.upper())
)


class _Decline(Exception):
    pass


def _typed(value: str, plain: bool) -> Any:
    first = value[0]
    if not plain or first not in _RESOLVED_FIRST:  # quoted, or no implicit type starts with this char
        return value
    if first in _WORD_FIRST and value not in _TYPED_WORDS:
        return value
    return _plain(value)


@cache
def _yaml() -> tuple[Any, Any, Any, type[Exception]]:
    """PyYAML's resolver, constructor, node class and error, imported the first time a value needs them."""
    from yaml import YAMLError
    from yaml.constructor import SafeConstructor
    from yaml.nodes import ScalarNode
    from yaml.resolver import Resolver

    return Resolver(), SafeConstructor(), ScalarNode, YAMLError


@lru_cache(maxsize=8192)
def _plain(value: str) -> Any:
    """A plain scalar typed as PyYAML types it (the values are immutable, so caching them is safe); a value PyYAML
    refuses (yaml.YAMLError) declines."""
    resolver, constructor, node, error = _yaml()
    tag = resolver.resolve(node, value, (True, False))
    if tag == _STR:
        return value
    build = type(constructor).yaml_constructors.get(tag)
    if build is None:
        raise _Decline
    try:
        return build(constructor, node(tag, value))
    except error:
        raise _Decline from None


def _decimal(text: str) -> Any:
    """``_plain`` of ``[0-9]+``: PyYAML's int, read here without it unless a leading 0 makes it octal (or text)."""
    return int(text) if text[0] != "0" or text == "0" else _plain(text)


@lru_cache(maxsize=256)
def _utc_time(text: str) -> datetime:
    """``_plain`` of ``YYYY-MM-DDTHH:MM:SSZ``, as PyYAML's timestamp constructor builds it (ValueError for a
    date that does not exist, as there). Remembered, as ``_plain`` is: a compile writes one time in every concept."""
    return datetime(
        int(text[0:4]), int(text[5:7]), int(text[8:10]), int(text[11:13]), int(text[14:16]), int(text[17:19]), 0, UTC
    )


def _scalar(text: str, pos: int, plain: re.Pattern[str]) -> tuple[Any, int]:
    first = text[pos : pos + 1]
    if first == '"':
        m = _DOUBLE.match(text, pos)
        if m:
            raw = m.group(1)
            return (_ESCAPE.sub(_unescape, raw) if "\\" in raw else raw), m.end()
    elif first == "'":
        m = _SINGLE.match(text, pos)
        if m:
            return m.group(1).replace("''", "'"), m.end()
    else:
        m = plain.match(text, pos)
        if m:
            return _typed(m.group(0), True), m.end()
    raise _Decline


def _flow(text: str, pos: int, close: str, mapping: bool) -> tuple[Any, int]:
    items: list[Any] = []
    pairs: dict[Any, Any] = {}
    pos = _spaces_at(text, pos + 1).end()
    if text.startswith(close, pos):
        return (pairs if mapping else items), pos + 1
    while True:
        value, pos = _scalar(text, pos, _PLAIN_FLOW)
        if mapping:
            if not text.startswith(": ", pos):
                raise _Decline
            key = value
            value, pos = _scalar(text, _spaces_at(text, pos + 1).end(), _PLAIN_FLOW)
            pairs[key] = value
        else:
            items.append(value)
        pos = _spaces_at(text, pos).end()
        if text.startswith(close, pos):
            return (pairs if mapping else items), pos + 1
        if not text.startswith(",", pos):
            raise _Decline
        pos = _spaces_at(text, pos + 1).end()


# The ASCII characters _FIRST takes as a plain scalar's first (a "-" only before these: _AFTER_DASH).
_ASCII_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./~(+$^\\")
_AFTER_DASH = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.")


def _common(text: str) -> Any:
    """The values okf's compiler writes most, read by string operations alone: a double-quoted string and a
    flow sequence of double-quoted strings without escapes, a flow sequence of decimal integers, and a plain
    ASCII scalar (what ``_PLAIN_BLOCK`` matches whole: printable, so a space is its only white space, with no
    "#", no ": " and no ":" at the end). ``_DECLINE`` for anything else (read by the scanner below)."""
    body = text.rstrip(" ")
    first = body[:1]
    if (
        (first in _ASCII_FIRST or (first == "-" and body[1:2] in _AFTER_DASH))
        and body.isascii()
        and body.isprintable()
        and "#" not in body
        and ": " not in body
        and body[-1] != ":"
    ):
        return _typed(body, True)
    if body[:1] == '"':
        inner = body[1:-1]
        if len(body) > 1 and body[-1] == '"' and '"' not in inner and "\\" not in inner:
            return inner
    elif body[:1] == "[" and body[-1:] == "]":
        if body[1:2] == '"':
            if body.endswith('"]') and "\\" not in body:
                items = body[2:-2].split('", "')
                if not any('"' in item for item in items):
                    return items
        else:
            items = body[1:-1].split(", ")
            if all(item.isdigit() and item.isascii() for item in items):
                return [_plain(item) for item in items]  # PyYAML's typing (a leading 0 is octal)
    return _DECLINE


_DECLINE = object()


def _inline(text: str) -> Any:
    """A whole value written on its line: a scalar or a flow collection, nothing after it but spaces."""
    value = _common(text)
    if value is not _DECLINE:
        return value
    if text.startswith("["):
        value, end = _flow(text, 0, "]", mapping=False)
    elif text.startswith("{"):
        value, end = _flow(text, 0, "}", mapping=True)
    else:
        value, end = _scalar(text, 0, _PLAIN_BLOCK)
    if text[end:].strip(" "):
        raise _Decline
    return value


_IMMUTABLE = (str, int, float, bool, type(None), date, datetime)
# line, indent, item -> (key, value, its kind): a flow list or mapping is kept too (of scalars only, so a
# shallow copy on each use is a whole copy: a caller may change what it gets).
_entries: dict[tuple[str, int, bool], tuple[Any, Any, type | None]] = {}


def _entry(line: str, indent: int, item: bool = False) -> tuple[Any, Any]:
    """``key: value`` at column ``indent`` after spaces (or after ``- `` for a sequence item's first key).
    Lines are remembered (the same line recurs across a bundle's concepts: ``type: Note``, ``tags: [...]``)."""
    known = _entries.get((line, indent, item))
    if known is not None:
        return known[0], (known[1] if known[2] is None else known[2](known[1]))
    entry = _read_entry(line, indent, item)
    value = entry[1]
    kind: type | None = None
    if isinstance(value, (list, dict)):
        if not all(isinstance(v, _IMMUTABLE) for v in (value.values() if isinstance(value, dict) else value)):
            return entry
        kind = type(value)
    elif not isinstance(value, _IMMUTABLE):
        return entry
    if len(_entries) >= 4096:
        _entries.clear()
    _entries[(line, indent, item)] = (entry[0], value if kind is None else kind(value), kind)
    return entry


def _read_entry(line: str, indent: int, item: bool) -> tuple[Any, Any]:
    m = _KEY.match(line, indent)
    if not m or line[: indent - 2 if item else indent].strip(" ") or m.end() == len(line):
        raise _Decline
    return _typed(m.group(1), True), _inline(line[m.end() :])


def _block(lines: list[str]) -> Any:
    """An indented mapping, or a sequence of scalars or of one-level mappings."""
    indent = len(lines[0]) - len(lines[0].lstrip(" "))
    if not lines[0].startswith("- ", indent):
        return dict(_entry(line, indent) for line in lines)
    items: list[Any] = []
    for line in lines:
        if line.startswith("- ", indent) and not line[:indent].strip(" "):
            if _KEY.match(line, indent + 2):
                key, value = _entry(line, indent + 2, item=True)
                items.append({key: value})
            else:
                items.append(_inline(line[indent + 2 :]))
        elif isinstance(items[-1], dict):
            key, value = _entry(line, indent + 2)
            items[-1][key] = value
        else:
            raise _Decline
    return items


# The frontmatter okf's compiler writes (okf.compile.render.concept_file) when the source had none of its
# own, matched whole: values are double-quoted (JSON syntax), flow lists of them, two integers, a hex digest
# and two plain scalars. One match replaces a Python step per line; the values are then typed as below. The
# pattern is compiled on first use, not at every start.
# The unrolled loop (a character class run is fast in re). The class is the negated list, not its ranges
# ([\x00-\x09\x0b-\x21...\x5d-\U0010ffff]): those match 1 to 2 µs sooner per frontmatter (2,000 cuad
# frontmatters: 9.5-10.9 against 11.3-11.8 µs) but take 140-150 ms to compile, once in every process that reads
# a frontmatter (an `okf navigate` pays it whole; a check of cuad's 13,786 concepts saves about 20 ms).
_NOT_QUOTE = r'[^"\\\n]'
_Q = rf'"{_NOT_QUOTE}*(?:\\[^\n]{_NOT_QUOTE}*)*"'
COMPILED_LAYOUT = (
    rf"type: ({_Q})\n"
    rf"title: ({_Q})\n"
    rf"description: ({_Q})\n"
    rf"(?:resource: ({_Q})\n)?"
    rf"(?:tags: \[({_Q}(?:, {_Q})*)\]\n)?"
    rf"(?:aliases: \[({_Q}(?:, {_Q})*)\]\n)?"
    r"sources:\n  - id: src\n"
    rf"    resource: ({_Q})\n"
    rf"    title: ({_Q})\n"
    rf"(?:    author: ({_Q})\n)?"
    rf"(?:    last_modified: ({_Q})\n)?"
    r"    lines: \[([0-9]{1,9}), ([0-9]{1,9})\]\n"
    r"    sha256: ([0-9a-f]{64})\n"
    r"generated:\n  by: ([A-Za-z0-9_][A-Za-z0-9_./+-]*)\n  at: ([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)\n"
)


def _quoted(text: str) -> str:
    """A double-quoted scalar matched by ``_Q``, as PyYAML reads it (escapes beyond JSON's decline)."""
    if "\\" not in text:
        return text[1:-1]
    value, end = _scalar(text, 0, _PLAIN_BLOCK)
    if end != len(text):
        raise _Decline
    return cast(str, value)


def _quoted_list(text: str) -> list[str]:
    if "\\" not in text:  # no escapes: no item holds a '"', so '", "' only separates items
        return text[1:-1].split('", "')
    value, end = _flow("[" + text + "]", 0, "]", mapping=False)
    if end != len(text) + 2:
        raise _Decline
    return cast(list[str], value)


@cache
def _layout() -> re.Pattern[str]:
    return re.compile(COMPILED_LAYOUT)


def _groups(yaml_text: str) -> tuple[str | None, ...] | None:
    """What ``COMPILED_LAYOUT`` captures when it matches the whole of ``yaml_text``, else None."""
    match = _layout().fullmatch(yaml_text)
    return match.groups() if match else None


def _compiled(yaml_text: str) -> dict[Any, Any] | None:
    """The compiler's frontmatter layout (above), or None when the text has another."""
    g = _groups(yaml_text)
    if g is None:
        return None
    # Unrolled (the keys in the layout's order, as PyYAML gives them); a value without a backslash is its inside.
    type_, title, description = cast("tuple[str, str, str]", g[:3])
    resource, tags, aliases = g[3:6]
    s_resource, s_title = cast("tuple[str, str]", g[6:8])
    author, modified = g[8:10]
    out: dict[Any, Any] = {
        "type": type_[1:-1] if "\\" not in type_ else _quoted(type_),
        "title": title[1:-1] if "\\" not in title else _quoted(title),
        "description": description[1:-1] if "\\" not in description else _quoted(description),
    }
    if resource is not None:
        out["resource"] = resource[1:-1] if "\\" not in resource else _quoted(resource)
    if tags is not None:
        out["tags"] = _quoted_list(tags)
    if aliases is not None:
        out["aliases"] = _quoted_list(aliases)
    source: dict[Any, Any] = {
        "id": "src",
        "resource": s_resource[1:-1] if "\\" not in s_resource else _quoted(s_resource),
        "title": s_title[1:-1] if "\\" not in s_title else _quoted(s_title),
    }
    if author is not None:
        source["author"] = author[1:-1] if "\\" not in author else _quoted(author)
    if modified is not None:
        source["last_modified"] = modified[1:-1] if "\\" not in modified else _quoted(modified)
    digest = cast(str, g[12])
    source["lines"] = [_decimal(cast(str, g[10])), _decimal(cast(str, g[11]))]
    # Hex digits are a string to PyYAML's resolver unless all decimal or 0b and binary digits (an int, typed by it).
    binary = digest.startswith("0b") and not digest[2:].strip("01")
    source["sha256"] = _plain(digest) if digest.isdigit() or binary else digest
    out["sources"] = [source]
    out["generated"] = {"by": _typed(cast(str, g[13]), True), "at": _utc_time(cast(str, g[14]))}
    return out


def unsafe_yaml(yaml_text: str) -> bool:
    """Whether ``yaml_text`` holds a character PyYAML reads differently or refuses (then the scanner declines)."""
    if yaml_text.isascii():  # its unsafe characters are the ASCII controls but newline: deleted in one C pass
        return len(yaml_text.encode("ascii").translate(None, _ASCII_UNSAFE)) != len(yaml_text)
    # Every character _UNSAFE matches is unprintable (tests/test_frontmatter.py): printable text, newlines aside,
    # holds none, told by one pass of C code rather than a search of a wide class.
    return not yaml_text.replace("\n", " ").isprintable() and _UNSAFE.search(yaml_text) is not None


# What llms.txt shows of a frontmatter in the compiler's layout: title, description, and the one source's
# resource and lines.
Shown = tuple[str, str, str, int, int]


def compiled_shown(yaml_text: str, *, safe: bool = False) -> Shown | None:
    """The title, description, source resource and lines of ``fast_load(yaml_text)`` when the text is in the
    compiler's layout and every value is read by ``_compiled`` without a step that could decline or type it
    otherwise: no backslash in a value not shown (their insides are then their values), no ``last_modified``,
    a digest that stays text and line numbers ``1 <= start <= end`` without a leading zero (``summarize`` then
    takes the source as it is). None otherwise: ask ``fast_load`` and ``summarize`` (tests/test_frontmatter.py
    compares the two). The values llms.txt does not show are matched, not built. ``safe``: the caller has found
    ``unsafe_yaml(yaml_text)`` False."""
    if not safe and unsafe_yaml(yaml_text):
        return None
    g = _groups(yaml_text)
    if g is None or g[9] is not None:  # no layout, or a last_modified (not a plain source to summarize)
        return None
    for value in (g[0], g[3], g[4], g[5], g[7], g[8]):  # type, resource, tags, aliases, source title, author
        if value is not None and "\\" in value:
            return None
    first, last, digest = cast("tuple[str, str, str]", (g[10], g[11], g[12]))
    if (
        first[0] == "0"
        or last[0] == "0"
        or digest.isdigit()
        or (digest.startswith("0b") and not digest[2:].strip("01"))
    ):
        return None
    start, end = int(first), int(last)
    if not 1 <= start <= end:
        return None
    title, description, resource = cast("tuple[str, str, str]", (g[1], g[2], g[6]))
    try:
        _typed(cast(str, g[13]), True)  # as _compiled reads them (both remembered): either may decline
        _utc_time(cast(str, g[14]))
        return (
            title[1:-1] if "\\" not in title else _quoted(title),
            description[1:-1] if "\\" not in description else _quoted(description),
            resource[1:-1] if "\\" not in resource else _quoted(resource),
            start,
            end,
        )
    except (_Decline, ValueError):
        return None


# The keys okf.bundle.meta.summarize reads (what llms.txt shows of a concept, and its trust state).
SHOWN_KEYS = frozenset({"title", "description", "sources", "status", "stale_after"})
# Top-level "key: value" lines whose key is not one of SHOWN_KEYS and whose value the scanner reads without
# declining: such a line recurs across a bundle's concepts (``type: Note``, ``tags: [...]``) and is then only
# looked up, its value never built again.
_read_lines: set[str] = set()


def shown_load(yaml_text: str) -> dict[str, Any] | None:
    """The entries of ``fast_load(yaml_text)`` whose key is one of :data:`SHOWN_KEYS`, when the line scanner
    reads the text (None when it declines: ask :func:`fast_load`). Every line is read as :func:`fast_load`'s
    line scanner reads it (a value that would decline declines here too), but a value whose key is not shown is
    not kept, and a single-line one already read is not read again. The caller has checked that ``unsafe_yaml`` is
    False (tests/test_frontmatter.py compares the two)."""
    lines = [line for line in yaml_text.split("\n") if line.strip(" ")]
    if not lines:
        return None
    out: dict[str, Any] = {}
    count = len(lines)
    try:
        i = 0
        while i < count:
            line = lines[i]
            j = i + 1
            while j < count and (lines[j][:1] == " " or lines[j].startswith("- ")):
                j += 1
            if j == i + 1 and line in _read_lines:
                i = j
                continue
            m = _KEY.match(line)
            if not m:
                return None
            key = m.group(1)
            if m.end() == len(line):
                value = _block(lines[i + 1 : j]) if j > i + 1 else None
            elif j > i + 1:
                return None  # an indented line after a value: a multi-line scalar
            else:
                value = _inline(line[m.end() :])
                if key not in SHOWN_KEYS:
                    if len(_read_lines) >= 4096:
                        _read_lines.clear()
                    _read_lines.add(line)
            if key in SHOWN_KEYS:  # none of them is a word the resolver types: the key is its text
                out[key] = value
            i = j
    except (_Decline, ValueError, IndexError):
        return None
    return out


def fast_load(yaml_text: str) -> dict[Any, Any] | None:
    """``yaml.safe_load(yaml_text)`` for the subset described above, or None when the text is outside it."""
    if unsafe_yaml(yaml_text):
        return None  # a "#" outside quotes is refused where it stands (a comment)
    if yaml_text.startswith("type: "):
        try:
            compiled = _compiled(yaml_text)
        except (_Decline, ValueError):
            compiled = None
        if compiled is not None:
            return compiled
    lines = [line for line in yaml_text.split("\n") if line.strip(" ")]
    if not lines:
        return None  # PyYAML gives None for an empty document
    out: dict[Any, Any] = {}
    try:
        i = 0
        while i < len(lines):
            line = lines[i]
            m = _KEY.match(line)
            if not m:
                return None
            j = i + 1
            while j < len(lines) and (lines[j].startswith(" ") or lines[j].startswith("- ")):
                j += 1
            if m.end() == len(line):
                out[_typed(m.group(1), True)] = _block(lines[i + 1 : j]) if j > i + 1 else None
            elif j > i + 1:
                return None  # an indented line after a value: a multi-line scalar
            else:
                key, value = _entry(line, 0)
                out[key] = value
            i = j
    except (_Decline, ValueError, IndexError):
        return None
    return out
