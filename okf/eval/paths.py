"""One normalization of source paths, shared by gold spans and concept ``sources`` entries."""

from __future__ import annotations

import posixpath
import unicodedata


def normalize_source(path: str) -> str:
    """A relative POSIX path in canonical form: ``./a//b.txt`` -> ``a/b.txt``; ValueError when it escapes.

    Backslashes become ``/`` (a compile run on Windows records them) and text is NFC-normalized (macOS file
    systems hand back NFD names), so the same file compares equal however it was written down.
    """
    text = unicodedata.normalize("NFC", path.strip().replace("\\", "/"))
    if not text:
        raise ValueError("empty path")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        raise ValueError("absolute path")
    if "://" in text:
        raise ValueError("a URL, not a file path")
    normalized = posixpath.normpath(text)
    if normalized == ".." or normalized.startswith("../"):
        raise ValueError("leaves the sources folder")
    if normalized == ".":
        raise ValueError("names the folder itself, not a file")
    return normalized
