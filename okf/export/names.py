"""Names an export cannot publish: a concept or folder whose file name is not UTF-8.

Such a name (a Latin-1 ``caf\\xe9.md`` from an old archive) reaches Python with lone surrogates (PEP 383), and
no UTF-8 link, heading or page can hold it. The concept, or the folder and the concepts in it, is left out
of the export with a warning naming it and saying to rename it (docs/export.md)."""

from __future__ import annotations

from okf.bundle.paths import utf8_name

__all__ = ["folder_title", "names_not_utf8", "shown_name", "utf8_name"]

_NOT_UTF8 = "its name is not valid UTF-8 (bad bytes shown as \\xNN), so no link or heading can name it"
_FIX = "rename it to a UTF-8 name"


def shown_name(path: str) -> str:
    """``path`` for a message: the bytes of a name that is not UTF-8 as ``\\xNN`` (as ``ls -b`` shows them)."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def folder_title(name: str) -> str:
    """The bundle folder's name as a title: bytes that are not UTF-8 read as U+FFFD, as okf reads them in a
    concept."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def names_not_utf8(by_dir: dict[str, list[str]]) -> list[str]:
    """Take out of ``by_dir`` (directory -> its concept paths) every concept and folder whose name is not UTF-8;
    a warning for each, sorted (a folder's counts the concepts under it; its subfolders get none of their own)."""
    warnings: list[str] = []
    folders: dict[str, int] = {}  # outermost folder whose name is not UTF-8 -> concepts under it
    for directory in list(by_dir):
        paths = by_dir[directory]
        if not utf8_name(directory):
            top = ""
            for name in directory.split("/"):
                top += name + "/"
                if not utf8_name(top):
                    break
            folders[top] = folders.get(top, 0) + len(paths)
            del by_dir[directory]
            continue
        bad = [p for p in paths if not utf8_name(p)]
        if bad:
            by_dir[directory] = [p for p in paths if utf8_name(p)]
            warnings += [f"{shown_name(p)}: skipped: {_NOT_UTF8}; {_FIX}" for p in bad]
    for top, count in folders.items():
        if count:
            concepts = f"{count} concept{'s' if count != 1 else ''}"
            warnings.append(f"{shown_name(top)}: skipped with the {concepts} in it: {_NOT_UTF8}; {_FIX}")
    return sorted(warnings)
