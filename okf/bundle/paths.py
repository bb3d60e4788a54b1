"""Path safety: every path from an index, a link, a caller or a model becomes a bundle-relative POSIX path
here, or a PathEscapeError. Pure string work plus one realpath check against symlinks."""

from __future__ import annotations

import os
import re
from urllib.parse import unquote

from okf.errors import PathEscapeError

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
RESERVED = frozenset({"index.md", "log.md"})
# A link target that needs no decoding or normalizing: an optional leading "/", then names without "#", "?",
# "%", backslashes, colons, whitespace or NUL, none starting with "." or "~", joined by single "/" (a trailing
# "/" allowed). As a bundle path it is itself (or ``base`` joined with it). The regular expression says it in
# one place; plain_target tests it with string operations, several times faster on the long targets of real
# bundles (tests/test_plain_targets.py checks both agree).
PLAIN = re.compile(r"/?(?:[^/.~#?%\\:\s\x00][^/#?%\\:\s\x00]*/)*(?:[^/.~#?%\\:\s\x00][^/#?%\\:\s\x00]*)?")
_NOT_PLAIN = re.compile(r"[#?%\\:\s\x00]")


def derived_title(path: str) -> str:
    """The title a listing shows for a concept or directory its index leaves untitled: from its file name."""
    stem = path.rstrip("/").rsplit("/", 1)[-1].removesuffix(".md")
    return stem.replace("-", " ").replace("_", " ").strip().capitalize() or stem


def plain_target(target: str) -> bool:
    """True when ``target`` is a plain relative or ``/``-rooted path (see ``PLAIN``): :func:`split_target` and
    :func:`normalize` leave it as it is, joined to its base."""
    if target in ("", "/") or target[0] in ".~" or "//" in target or "/." in target or "/~" in target:
        return False
    if "#" in target or "?" in target or "%" in target or "\\" in target or ":" in target:
        return False
    # Every whitespace character but the space, and NUL, is unprintable: one pass of C code for most targets.
    if target.isprintable():
        return " " not in target
    return _NOT_PLAIN.search(target) is None


def is_external(target: str) -> bool:
    """True for URLs and other scheme-prefixed targets (``https:``, ``mailto:``, ``data:``...)."""
    return bool(_SCHEME.match(target)) and not _DRIVE.match(target)


def split_target(target: str) -> str:
    """A link target without its ``#fragment`` and ``?query``, URL-decoded."""
    for mark in ("#", "?"):
        cut = target.find(mark)
        if cut >= 0:
            target = target[:cut]
    return unquote(target.strip())


# The characters of a file path that would change what a URI reference means: "%" starts an escape, "#" a
# fragment, "?" a query, and URL parsers drop tabs and line breaks (control characters are never part of a
# URI). Every other character is written as it is (a space, say, changes no URI's meaning).
_URI_MEANING = str.maketrans(
    {"%": "%25", "#": "%23", "?": "%3F", "\x7f": "%7F"} | {chr(c): f"%{c:02X}" for c in range(32)}
)


def path_uri(path: str) -> str:
    """A file path as a path-valued field writes it (OKF §6.2: ``sources[].resource``...), so that a URI-aware
    consumer reads the same file: ``%``, ``#``, ``?`` and control characters percent-encoded, nothing else
    changed (``a #2.txt`` -> ``a %232.txt``). :func:`path_readings` reads it back."""
    return path.translate(_URI_MEANING)


def path_readings(reference: str) -> tuple[str, ...]:
    """The file paths a path-valued field may name, in the order a tolerant consumer tries them (OKF §11): as
    written first (bundles written before :func:`path_uri`, or by producers that do not encode), then read as
    a URI reference (cut at ``#`` and ``?``, percent-decoded). One reading when both agree."""
    literal = reference.strip()
    if "%" not in literal and "#" not in literal and "?" not in literal:
        return (literal,)
    uri = split_target(literal)
    return (literal,) if uri in (literal, "", "/") else (literal, uri)


def normalize(ref: str, base: str = "") -> str:
    """``ref`` as a bundle-relative POSIX path: a leading ``/`` means the bundle root, else relative to the
    directory ``base``. A trailing ``/`` is kept (it marks a directory); the root is ``""``.

    Raises PathEscapeError for NUL bytes, drive-letter or ``~`` paths, and ``..`` climbing above the root.
    """
    if "\x00" in ref or "\x00" in base:
        raise PathEscapeError("path contains a NUL byte", path=repr(ref), fix="pass a plain relative path")
    ref = ref.replace("\\", "/")
    if _DRIVE.match(ref) or ref.startswith(("~", "//")):
        raise PathEscapeError(
            f"path {ref!r} is not inside the bundle", path=ref, fix="use a path relative to the bundle root"
        )
    trailing = ref.endswith(("/", "/.")) or ref in (".", "..")
    segments = ref.split("/") if ref.startswith("/") else base.replace("\\", "/").split("/") + ref.split("/")
    parts: list[str] = []
    for part in segments:
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise PathEscapeError(
                    f"path {ref!r} climbs out of the bundle",
                    path=ref,
                    fix="remove the '..' that leaves the bundle root",
                )
            parts.pop()
        else:
            parts.append(part)
    out = "/".join(parts)
    return out + "/" if out and trailing else out


def ensure_inside(root_real: str, rel: str) -> str:
    """The real filesystem path of ``rel`` under ``root_real``; PathEscapeError when a symlink leads out."""
    full = os.path.join(root_real, rel) if rel else root_real
    real = os.path.realpath(full)
    if real != root_real and not real.startswith(root_real.rstrip(os.sep) + os.sep):
        raise PathEscapeError(
            f"path {rel!r} leads outside the bundle (through a symlink)",
            path=rel,
            fix="replace the symlink with the file itself",
        )
    return real


def is_hidden(rel: str) -> bool:
    """True when any component of ``rel`` starts with a dot (``.okf/``, ``.git/``, ``a/.draft.md``)."""
    return any(part.startswith(".") for part in rel.split("/") if part)


def utf8_name(path: str) -> bool:
    """Whether ``path`` is UTF-8: it holds no lone surrogate (a byte that was not UTF-8, as Python reads file
    names, PEP 383)."""
    if path.isascii():
        return True
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
