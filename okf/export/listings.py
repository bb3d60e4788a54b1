"""Directory listings kept from one ``llms-txt`` export to the next, so an export after a small edit does not
parse every ``index.md`` again.

A listing (its signposts, the directory's title and intro) is decided by the bundle's names (which files,
folders and symlink targets exist: :func:`okf.export.unchanged.bundle_signature` hashes them) and by the bytes
of the files it reads: the directory's ``index.md``, the ``index.md`` of each folder it lists (a synthesized
folder's title) and each concept it lists (a title or description taken from the concept). A kept row holds
the hash of those files' size, times and inode; it is used only while the bundle's names are as they were and
that hash still matches, and rows with a file changed in the last two seconds are not kept.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from okf.bundle.model import Signpost

# [hash of the files read, title, intro, [[path, title, description, is_dir, section, line, origin], ...]]
ListingRow = list[Any]


def _read_files(directory: str, signposts: list[Signpost]) -> list[str]:
    files = {directory + "index.md"}
    for signpost in signposts:
        files.add(signpost.path + "index.md" if signpost.is_dir else signpost.path)
    return sorted(files)


def _files_hash(root: str, files: list[str], recent: int) -> str | None:
    digest = hashlib.blake2b(digest_size=20)
    for rel in files:
        try:
            info = os.stat(os.path.join(root, rel))
        except OSError:
            digest.update(f"{rel}\0-\n".encode("utf-8", "surrogateescape"))
            continue
        if info.st_mtime_ns >= recent or info.st_ctime_ns >= recent:
            return None
        digest.update(
            f"{rel}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\0{info.st_ino}\n".encode(
                "utf-8", "surrogateescape"
            )
        )
    return digest.hexdigest()


def keep(
    root: str, directory: str, title: str, intro: str, signposts: list[Signpost], recent: int
) -> ListingRow | None:
    """The row to keep for a listing just read (None when a file it read changed after ``recent``, ns)."""
    digest = _files_hash(root, _read_files(directory, signposts), recent)
    if digest is None:
        return None
    posts = [[s.path, s.title, s.description, s.is_dir, s.section, s.line, s.origin] for s in signposts]
    return [digest, title, intro, posts]


def reuse(root: str, directory: str, row: Any, recent: int) -> tuple[str, str, list[Signpost]] | None:
    """The kept listing (title, intro, signposts) when the files it read are unchanged; None otherwise."""
    try:
        digest, title, intro, posts = row
        signposts = [
            Signpost.model_construct(
                path=path,
                title=post_title,
                description=description,
                is_dir=is_dir,
                section=section,
                line=line,
                origin=origin,
            )
            for path, post_title, description, is_dir, section, line, origin in posts
        ]
    except (TypeError, ValueError):
        return None
    if not all(isinstance(s.path, str) and isinstance(s.title, str) for s in signposts):
        return None
    if not isinstance(title, str) or not isinstance(intro, str):
        return None
    if _files_hash(root, _read_files(directory, signposts), recent) != digest:
        return None
    return title, intro, signposts
