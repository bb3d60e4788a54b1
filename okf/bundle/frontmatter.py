"""Splitting and safely loading YAML frontmatter: size limits, alias-bomb guard, SafeLoader only.

The text before the body is split by hand (``---`` on the first line, the next ``---`` or ``...`` line closes
it) so line numbers stay exact; the YAML is read by :mod:`okf.bundle.fastyaml` when it is simple enough, else
by python-frontmatter's YAML handler (the tolerant fallback: ``yaml.CSafeLoader`` when libyaml is present,
else ``yaml.SafeLoader``), or by a node-counting SafeLoader when anchors and aliases appear. Never the full
loader: frontmatter is untrusted input. The fast path is property-tested against both (tests/test_frontmatter.py).
Compile writes frontmatter with its own writer (okf/compile/render.py), not python-frontmatter's ``dumps``,
whose yaml.dump layout would change every compiled file's bytes (docs/format.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from okf.bundle.fastyaml import fast_load
from okf.errors import BundleError
from okf.limits import MAX_FRONTMATTER_BYTES

MAX_ALIASES = 100
_STR_ONLY = frozenset({str})
MAX_NODES = 100_000


class _TooComplex(Exception):
    pass


@cache
def _pyyaml() -> tuple[Any, type[Any]]:
    """python-frontmatter's YAML handler (SafeLoader only, libyaml's when present, as okf requires) and a
    pure-Python SafeLoader that refuses documents with too many aliases (billion laughs). Imported when the
    scanner declines a frontmatter: a bundle okf compiled is read without PyYAML."""
    import yaml
    from frontmatter.default_handlers import YAMLHandler

    class CountingLoader(yaml.SafeLoader):
        aliases = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                self.aliases += 1
                if self.aliases > MAX_ALIASES:
                    raise _TooComplex(f"more than {MAX_ALIASES} YAML aliases")
            return super().compose_node(parent, index)

    return YAMLHandler(), CountingLoader


def counting_loader(text: str) -> Any:
    """A SafeLoader over ``text`` that raises ``_TooComplex`` past MAX_ALIASES aliases (call ``dispose()`` after)."""
    return _pyyaml()[1](text)


class Refused(BundleError):
    """Frontmatter refused for its size or complexity (too large, alias bomb, too deep)."""


class NotAMapping(BundleError):
    """Frontmatter that loads to a list or a scalar instead of a mapping."""


@dataclass
class Split:
    """A document split into its frontmatter text and body, with the body's first line number."""

    yaml_text: str | None
    body: str
    body_start_line: int
    yaml_start_line: int = 2
    notices: list[str] = field(default_factory=list)
    closer: str = "---"  # the line that closed the frontmatter ("---", or the "..." YAML also allows)


def split(text: str, path: str = "") -> Split:
    """Split ``text`` into frontmatter (None when there is none) and body.

    Raises BundleError when a frontmatter block is opened but never closed.
    """
    # A first line of exactly "---" (trailing spaces tolerated) opens frontmatter.
    pos = text.find("\n")
    if not text.startswith("---") or (text if pos < 0 else text[:pos]).rstrip() != "---":
        return Split(None, text, 1)
    if pos < 0:
        raise BundleError(
            "frontmatter opened with '---' but never closed",
            path=path,
            line=1,
            fix="add a closing '---' line after the frontmatter",
        )
    start = pos + 1
    # The first line after the opener that is exactly "---" or "..." (trailing whitespace tolerated, as
    # str.rstrip strips it) closes it: lines starting so are found by substring search (C code), then tested.
    # A "..." closer is looked for only before the "---" candidate (most files have none: no scan of the body).
    dashes = text.find("\n---", pos)
    dots = text.find("\n...", pos, dashes + 4 if dashes >= 0 else len(text))
    while dashes >= 0 or dots >= 0:
        at = dashes if dots < 0 or 0 <= dashes < dots else dots
        end = text.find("\n", at + 4)
        line = text[at + 1 :] if end < 0 else text[at + 1 : end]
        if line.rstrip() in ("---", "..."):
            body = "" if end < 0 else text[end + 1 :]
            return Split(text[start : at + 1], body, text.count("\n", start, at + 1) + 3, closer=line.rstrip())
        if at == dashes:  # each search goes on from its last find: linear in the text
            dashes = text.find("\n---", at + 1)
            if dots < 0:  # none before the old candidate: look on, up to the new one
                dots = text.find("\n...", at + 1, dashes + 4 if dashes >= 0 else len(text))
        else:
            dots = text.find("\n...", at + 1, dashes + 4 if dashes >= 0 else len(text))
    raise BundleError(
        "frontmatter opened with '---' but never closed",
        path=path,
        line=1,
        fix="add a closing '---' line after the frontmatter",
    )


def _count_nodes(value: Any, budget: int) -> int:
    """Nodes in a loaded structure, stopping once over ``budget`` (shared references count each time)."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        count += 1
        if count > budget:
            return count
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def load(yaml_text: str, path: str = "", first_line: int = 2) -> Any:
    """Load frontmatter YAML safely; BundleError (with the file line) when unparseable, too big or a bomb."""
    # At most 4 UTF-8 bytes a character: most frontmatter is surely within the limit without encoding it.
    if len(yaml_text) * 4 > MAX_FRONTMATTER_BYTES and len(yaml_text.encode("utf-8", "replace")) > MAX_FRONTMATTER_BYTES:
        raise Refused(
            f"frontmatter is larger than {MAX_FRONTMATTER_BYTES // 1024} KiB",
            path=path,
            line=first_line - 1,
            fix="shorten the frontmatter; put long text in the body",
        )
    # The scanner reads no anchors or aliases, and 64 KiB of text holds far fewer than MAX_NODES values.
    quick = fast_load(yaml_text)
    if quick is not None:
        return quick
    import yaml  # imported by _pyyaml() below: here for its error class

    handler, counting = _pyyaml()
    try:
        if "*" in yaml_text and "&" in yaml_text:
            loader = counting(yaml_text)
            try:
                value = loader.get_single_data()
            finally:
                loader.dispose()
        else:
            value = handler.load(yaml_text)
    except _TooComplex as exc:
        raise Refused(
            f"frontmatter refused: {exc}",
            path=path,
            line=first_line - 1,
            fix="write the values out instead of using YAML anchors and aliases",
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = first_line + mark.line if mark is not None else first_line - 1
        problem = getattr(exc, "problem", None) or str(exc).split("\n", 1)[0]
        raise BundleError(
            f"frontmatter is not valid YAML: {problem}",
            path=path,
            line=line,
            fix="fix the YAML syntax (quote values containing ':' or '#')",
        ) from None
    except RecursionError:
        raise Refused(
            "frontmatter refused: nested too deeply",
            path=path,
            line=first_line - 1,
            fix="flatten the frontmatter structure",
        ) from None
    if _count_nodes(value, MAX_NODES) > MAX_NODES:
        raise Refused(
            f"frontmatter refused: more than {MAX_NODES} values once aliases are expanded",
            path=path,
            line=first_line - 1,
            fix="write the values out instead of using YAML anchors and aliases",
        )
    return value


def parse(text: str, path: str = "") -> tuple[dict[str, Any] | None, Split]:
    """Split and load: (mapping or None when there is no frontmatter, the split).

    Raises BundleError for unparseable YAML and for frontmatter that is not a mapping (a list or scalar).
    An empty frontmatter block is an empty mapping.
    """
    parts = split(text, path)
    if parts.yaml_text is None:
        return None, parts
    value = load(parts.yaml_text, path, parts.yaml_start_line)
    if value is None:
        return {}, parts
    if not isinstance(value, dict):
        kind = "a list" if isinstance(value, list) else f"a {type(value).__name__} scalar"
        raise NotAMapping(
            f"frontmatter is {kind}, not a mapping of keys to values",
            path=path,
            line=parts.yaml_start_line,
            fix="write frontmatter as 'key: value' lines, starting with 'type: ...'",
        )
    # YAML allows non-string keys (1: x, null: y); okf keys are strings.
    if not set(map(type, value)) <= _STR_ONLY and any(not isinstance(k, str) for k in value):  # C-level test first
        value = {str(k): v for k, v in value.items()}
    return value, parts
