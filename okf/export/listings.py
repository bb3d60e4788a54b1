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
from collections.abc import Sequence
from typing import Any, NamedTuple

from okf.bundle.model import Signpost

# A markdown file's stat as the export's walk took it (okf.export.unchanged): size, modification and change
# times (ns), inode.
Stat = tuple[int, int, int, int]

# [hash of the files read, title, intro, [[path, title, description, is_dir], ...]]
ListingRow = list[Any]


def _read_files(directory: str, signposts: Sequence[Signpost | Post]) -> list[str]:
    files = {directory + "index.md"}
    for signpost in signposts:
        files.add(signpost.path + "index.md" if signpost.is_dir else signpost.path)
    return sorted(files)


def _files_hash(root: str, files: list[str], recent: int, stats: dict[str, Stat] | None = None) -> str | None:
    """The hash of ``files``' stats (``stats``: those the export's walk took, by bundle path; a file not in
    it is asked for); None when one changed after ``recent`` (ns)."""
    lines: list[str] = []  # hashed as one text: the digest of the lines one by one, at one update's cost
    for rel in files:
        known = stats.get(rel) if stats is not None else None
        if known is not None:
            size, mtime, ctime, ino = known
        else:
            try:
                info = os.stat(os.path.join(root, rel))
            except OSError:
                lines.append(f"{rel}\0-\n")
                continue
            size, mtime, ctime, ino = info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino
        if mtime >= recent or ctime >= recent:
            return None
        lines.append(f"{rel}\0{size}\0{mtime}\0{ctime}\0{ino}\n")
    return hashlib.blake2b("".join(lines).encode("utf-8", "surrogateescape"), digest_size=20).hexdigest()


class Post(NamedTuple):
    """A kept listing's signpost: the fields of :class:`~okf.bundle.model.Signpost` an export reads."""

    path: str
    title: str
    description: str
    is_dir: bool


def keep(
    root: str,
    directory: str,
    title: str,
    intro: str,
    signposts: Sequence[Signpost | Post],
    recent: int,
    stats: dict[str, Stat] | None = None,
) -> ListingRow | None:
    """The row to keep for a listing just read (None when a file it read changed after ``recent``, ns)."""
    digest = _files_hash(root, _read_files(directory, signposts), recent, stats)
    if digest is None:
        return None
    if isinstance(signposts, list) and all(type(s) is Post for s in signposts):
        # The listing's own list of Posts (tuples: JSON writes each as the list below): shared, not copied, so a
        # worker pickles it once for the listing and its row.
        return [digest, title, intro, signposts]
    return [digest, title, intro, [[s.path, s.title, s.description, s.is_dir] for s in signposts]]


def reuse(
    root: str, directory: str, row: Any, recent: int, stats: dict[str, Stat] | None = None
) -> tuple[str, str, list[Post]] | None:
    """The kept listing (title, intro, signposts) when the files it read are unchanged; None otherwise."""
    try:
        digest, title, intro, posts = row
        signposts = [Post(path, post_title, description, is_dir) for path, post_title, description, is_dir in posts]
    except (TypeError, ValueError):
        return None
    if not all(
        isinstance(s.path, str) and isinstance(s.title, str) and isinstance(s.description, str) for s in signposts
    ):
        return None
    if not isinstance(title, str) or not isinstance(intro, str):
        return None
    if _files_hash(root, _read_files(directory, signposts), recent, stats) != digest:
        return None
    return title, intro, signposts
