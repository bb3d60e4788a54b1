"""``llms.txt`` for agents that do not speak OKF (the llms.txt convention), ``llms-full.txt`` with every current
concept inlined, and one ``.md`` file per concept (its file as it is in the bundle, so relative links hold).

llms.txt: an H1 with the bundle's title, a blockquote summary from the root signpost, one H2 per top-level
directory listing its current concepts as ``- [title](url): description`` in signpost order, and an
``Optional`` section for deprecated and stale concepts. Titles and descriptions are escaped so markdown or
HTML in them stays text and cannot break the list.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import quote

from okf.errors import ConfigError
from okf.export.reading import Collected, Entry

# Characters quote() leaves as they are (with "/" safe).
_UNQUOTED = re.compile(r"[A-Za-z0-9_.~/-]*")
# Markdown specials get a backslash; control characters become spaces (then whitespace is collapsed).
_ESCAPES = {**{ord(c): "\\" + c for c in "\\`*_[]<>#|!{}"}, **dict.fromkeys((*range(32), 127), " ")}


# Any character _ESCAPES maps: without one, translating changes nothing (a search is cheaper than translate).
_ESCAPED = re.compile("[" + re.escape("".join(chr(c) for c in _ESCAPES)) + "]")


def escape(text: str) -> str:
    """One line of markdown text that renders as exactly ``text`` (specials backslash-escaped)."""
    if _ESCAPED.search(text):
        text = text.translate(_ESCAPES)
    elif text.isascii() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text  # no control character and single spaces only: split and join give it back as it is
    return " ".join(text.split())


def url(entry_path: str, base_url: str | None) -> str:
    """The link to a concept's ``.md`` file: relative, or under ``base_url``; percent-encoded."""
    rel = entry_path if _UNQUOTED.fullmatch(entry_path) else quote(entry_path, safe="/")
    return f"{base_url.rstrip('/')}/{rel}" if base_url else rel


def _item(entry: Entry, base_url: str | None, note: str = "") -> str:
    line = f"- [{escape(entry.title)}]({url(entry.path, base_url)})"
    description = escape(entry.description)
    if description or note:
        line += ": " + " ".join(p for p in (description, note) if p)
    return line


def _trust_note(entry: Entry) -> str:
    notes = []
    if entry.deprecated:
        notes.append("deprecated")
    if entry.stale and entry.stale_after is not None:
        notes.append(f"stale since {entry.stale_after:%Y-%m-%d}")
    elif entry.stale:
        notes.append("stale")
    return f"({', '.join(notes)})" if notes else ""


def llms_txt(collected: Collected, *, base_url: str | None = None) -> str:
    """The llms.txt index."""
    return "\n".join(_lines(collected, base_url))


def llms_txt_pieces(collected: Collected, *, base_url: str | None = None) -> Iterator[bytes]:
    """:func:`llms_txt`'s UTF-8 bytes, a few hundred lines at a time: a new file is written from them without
    the whole text and its bytes being made at once (cuad's llms.txt is 4 MB: 8 MB of memory touched for the
    first time, about 2,000 page faults)."""
    lines = _lines(collected, base_url)
    last = len(lines) - 1
    for at in range(0, len(lines), _LINES_AT_ONCE):
        end = at + _LINES_AT_ONCE
        yield ("\n".join(lines[at:end]) + ("\n" if end <= last else "")).encode("utf-8")


_LINES_AT_ONCE = 256


def _lines(collected: Collected, base_url: str | None) -> list[str]:
    lines = [f"# {escape(collected.title)}", ""]
    if collected.summary:
        lines += [f"> {escape(collected.summary)}", ""]
    full = url("llms-full.txt", base_url)
    lines += [
        (
            f"Concepts of this knowledge bundle, in the order of its signposts. Each link is the concept's "
            f"markdown file; [llms-full.txt]({full}) has every current concept's text in one file."
        ),
        "",
    ]
    by_top: dict[str, list[Entry]] = {}  # current concepts by top-level directory, in signpost order
    optional: list[Entry] = []
    for entry in collected.entries:
        if entry.current:
            by_top.setdefault(entry.top, []).append(entry)
        else:
            optional.append(entry)
    for top, title in collected.sections():
        current = by_top.get(top)
        if not current:
            continue
        lines += [f"## {escape(title)}", ""]
        lines += [_item(e, base_url) for e in current]
        lines.append("")
    if optional:
        lines += ["## Optional", ""]
        lines += [_item(e, base_url, _trust_note(e)) for e in optional]
        lines.append("")
    return lines


def llms_full(collected: Collected, *, max_bytes: int | None = None) -> tuple[bytes, int, dict[str, list[int]]]:
    """llms-full.txt (its UTF-8 bytes), how many concepts it holds, and where each one's body is in it
    (``[start, end]``, in characters): :func:`full_pieces` joined."""
    pieces, kept, spans = full_pieces(collected, max_bytes=max_bytes)
    return b"".join(pieces), kept, spans


def full_pieces(
    collected: Collected, *, max_bytes: int | None = None
) -> tuple[Iterator[bytes], int, dict[str, list[int]]]:
    """llms-full.txt as the bytes to write one after the other, how many concepts it holds, and where each one's
    body is in it (``[start, end]``, in characters; filled in as the pieces are taken): every current concept's
    body under a heading with its id and source lines, in signpost order; with ``max_bytes`` whole concepts up
    to the cap and the cut stated. The pieces are made as they are taken (each body stripped and encoded then),
    so neither the text nor the bytes of the whole file are ever held (on cuad, 35 MB that one non-ASCII
    character would make 70 MB of UCS-2; the bodies stripped, each part encoded and then joined were 105 MB of
    new memory, at about 10 µs a page on a virtual machine's first touch: docs/benchmarks.md, stop 40)."""
    head = [f"# {escape(collected.title)}", ""]
    if collected.summary:
        head += [f"> {escape(collected.summary)}", ""]
    text = "\n".join(head) + "\n"
    base = text.encode("utf-8")
    current = [e for e in collected.entries if e.current]
    headings = [_heading(e) for e in current]
    kept = len(current)
    note = b""
    if max_bytes is not None:
        sizes = [
            len(h.encode("utf-8")) + _encoded_size(e.body.strip()) + 2 for e, h in zip(current, headings, strict=True)
        ]
        if len(base) + sum(sizes) > max_bytes:
            kept, size = 0, len(base)
            while kept < len(current) and size + sizes[kept] <= max_bytes:
                size += sizes[kept]
                kept += 1
            # Whole concepts only, and room for the note that says where the file was cut.
            while kept and size + len(_cut_note(kept, len(current), max_bytes).encode("utf-8")) > max_bytes:
                kept -= 1
                size -= sizes[kept]
            note = _cut_note(kept, len(current), max_bytes).encode("utf-8")
            if len(base) + len(note) > max_bytes:
                raise ConfigError(
                    f"--max-bytes {max_bytes} leaves no room even for the title and the cut note",
                    fix=f"pass at least --max-bytes {len(base) + len(note)}",
                )
    spans: dict[str, list[int]] = {}
    return _pieces(base, len(text), current[:kept], headings, note, spans), kept, spans


def _pieces(
    base: bytes, at: int, entries: list[Entry], headings: list[str], note: bytes, spans: dict[str, list[int]]
) -> Iterator[bytes]:
    yield base
    for entry, heading in zip(entries, headings, strict=False):
        body = entry.body.strip()
        start = at + len(heading)
        spans[entry.path] = [start, start + len(body)]
        at = start + len(body) + 2
        yield heading.encode("utf-8")
        yield body.encode("utf-8")
        yield b"\n\n"
    if note:
        yield note


def _encoded_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def _heading(entry: Entry) -> str:
    return f"## {entry.id} ({', '.join(entry.sources())})\n\n"


class OldBodies:
    """The bodies of the concepts the previous llms-full.txt holds (its text and the spans its export
    recorded): a concept's body when its heading is there as it would be written now, else None."""

    def __init__(self, text: str, spans: dict[str, list[int]]) -> None:
        self.text = text
        self.spans = spans

    def __call__(self, entry: Entry) -> str | None:
        span = self.spans.get(entry.path)
        if not isinstance(span, list) or len(span) != 2 or not all(type(n) is int for n in span):
            return None
        start, end = span
        heading = _heading(entry)
        if not len(heading) <= start <= end <= len(self.text) - 2:
            return None
        if self.text[start - len(heading) : start] != heading or self.text[end : end + 2] != "\n\n":
            return None
        return self.text[start:end]


def _cut_note(kept: int, total: int, max_bytes: int) -> str:
    return (
        f"[Cut at --max-bytes {max_bytes}: {kept} of {total} current concepts are included; the other "
        f"{total - kept} are listed in llms.txt with links to their files.]\n"
    )
