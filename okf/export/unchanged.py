"""Recognizing that nothing changed since the last ``llms-txt`` export into the same folder, without reading.

An export's output is a function of the bundle's names (every directory, file and symlink target) and the
bytes of its markdown files, of the export's options and of which concepts are stale on the day. The export
therefore leaves a *seal* in its manifest: a hash of the bundle's names and of every markdown file's size,
modification and change times and inode (as ``make`` trusts them), the options, the stale concepts, the
report, and a hash of the size and modification time of every file it left in the folder. A repeat export whose
seal matches the bundle and the folder as they are now would write exactly the same bytes: it writes nothing
and returns the recorded report. Any difference, even one file's change time, falls back to the full export.

A seal is only left when no markdown file was modified in the last two seconds (a file changed within its
modification-time tick could change again without its times changing).
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from okf.export.listings import Stat
from okf.export.reading import RACY_NS
from okf.export.write import outputs_signature

if TYPE_CHECKING:
    from okf.bundle import Bundle


@dataclass
class Walk:
    """One walk over the bundle: ``signature``, a hash of its names and markdown files' stats (None when a
    markdown file changed too recently to be trusted); ``names``, a hash of its names alone (every directory,
    file and symlink target: what :mod:`okf.export.listings` needs to stay the same); ``stats``, each markdown
    file's stat by bundle path (a symlink's target's), which the export then uses instead of asking again."""

    signature: str | None
    names: str
    stats: dict[str, Stat]
    recent: int  # ns: a file whose times are at or after this was changed too recently to be trusted


def bundle_signature(root: str, bundle: Bundle | None = None) -> Walk:
    """Walk the bundle at ``root``, hidden entries aside (:class:`Walk`); ``bundle``: the bundle opened at
    ``root``, which takes each listing made here as its scan of that directory (it is not listed twice)."""
    digest, names = hashlib.blake2b(digest_size=20), hashlib.blake2b(digest_size=20)
    recent = time.time_ns() - RACY_NS
    racy = False
    stats: dict[str, Stat] = {}
    stack = [""]
    while stack:
        here = stack.pop()
        parts: list[str] = []
        named: list[str] = []
        dirs: list[str] = []
        try:
            with os.scandir(os.path.join(root, here) if here else root) as entries:
                scanned = list(entries)
        except OSError as exc:
            line = f"{here}\0!{exc.errno}\n".encode("utf-8", "surrogateescape")
            digest.update(line)
            names.update(line)
            continue
        if bundle is not None:
            bundle.scanned(here, scanned)
        found = sorted([(e.name, e) for e in scanned if e.name[:1] != "."])
        for name, entry in found:
            try:
                if entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    named.append(f"{name}\0L{target}")
                    if not name.endswith(".md"):
                        continue
                    info = os.stat(target)
                elif entry.is_dir(follow_symlinks=False):
                    named.append(f"{name}\0D")
                    dirs.append(f"{here}{name}/")
                    continue
                else:
                    named.append(f"{name}\0F")
                    if not name.endswith(".md"):
                        continue
                    info = entry.stat(follow_symlinks=False)
            except OSError as exc:
                named.append(f"{name}\0!{exc.errno}")
                continue
            racy = racy or info.st_mtime_ns >= recent or info.st_ctime_ns >= recent
            stats[here + name] = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
            parts.append(
                f"{name}\0{stat.S_IFMT(info.st_mode)}\0{stat.S_IMODE(info.st_mode)}\0{info.st_size}\0"
                f"{info.st_mtime_ns}\0{info.st_ctime_ns}\0{info.st_ino}"
            )
        head = f"{here}\n".encode("utf-8", "surrogateescape")
        listed = "\n".join(named).encode("utf-8", "surrogateescape") + b"\n\n"
        names.update(head + listed)
        digest.update(head + listed + "\n".join(parts).encode("utf-8", "surrogateescape") + b"\n\n")
        stack.extend(reversed(dirs))
    return Walk(None if racy else digest.hexdigest(), names.hexdigest(), stats, recent)


def _same_staleness(seal: dict[str, Any], now: datetime) -> bool:
    """Whether every recorded ``stale_after`` date is on the same side of ``now`` as of the recorded day."""
    try:
        then = datetime.fromisoformat(seal["as_of"])
        dates = [datetime.fromisoformat(value) for value in seal["stale_after"]]
        return all((then >= value) == (now >= value) for value in dates)  # stale when now >= stale_after (§5.5)
    except (KeyError, TypeError, ValueError):
        return False


def seal(
    signature: str, options: dict[str, Any], now: datetime, stale_after: list[str], report: dict[str, Any]
) -> dict[str, Any]:
    """What :func:`replay` needs, but the folder's hash (added once the files are written)."""
    return {
        "bundle": signature,
        "options": options,
        "as_of": now.isoformat(),
        "stale_after": stale_after,
        "report": report,
    }


def replay(
    manifest: dict[str, Any], out: str, signature: str | None, options: dict[str, Any], now: datetime
) -> dict[str, Any] | None:
    """The recorded report when the seal in ``manifest`` matches ``signature``, ``options``, the stale concepts
    as of ``now`` and the folder ``out`` as it is; None when anything differs (then the export runs in full)."""
    seal = manifest.get("seal")
    if signature is None or not isinstance(seal, dict) or seal.get("bundle") != signature:
        return None
    if seal.get("options") != options or not _same_staleness(seal, now):
        return None
    files = manifest.get("files")
    report = seal.get("report")
    if not isinstance(files, list) or not isinstance(report, dict) or not all(isinstance(f, str) for f in files):
        return None
    if outputs_signature(out, files) != seal.get("outputs"):
        return None
    return report
