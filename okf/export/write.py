"""Writing an export folder: byte-identical output for the same input, and only files whose bytes changed
are rewritten (unchanged concepts keep their files and modification times). A small manifest names what the
last export wrote, so files of concepts that disappeared are removed and nothing else in the folder is."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pydantic_core

from okf._version import __version__
from okf.errors import ConfigError

MANIFEST = ".okf-export.json"


# Never through a symlink: a link where a file goes is replaced by the file, never written through.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_READ = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _same(target: str, data: bytes) -> bool:
    try:
        fd = os.open(target, _READ)
    except OSError:
        return False
    try:
        chunks, left = [], len(data) + 1
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks) == data
    except OSError:
        return False
    finally:
        os.close(fd)


def _inside(path: str, root: str) -> bool:
    """Whether ``path``'s real path is ``root`` (a real path) or below it."""
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _folder(parent: str, made: set[str] | None, root: str | None) -> None:
    """Create ``parent``, once; with ``root`` (a real path), refuse a folder that a symlink leads elsewhere."""
    if made is not None and parent in made:
        return
    os.makedirs(parent, exist_ok=True)
    if root is not None and not _inside(parent, root):
        raise OSError(f"{parent} is a symlink leading out of the export folder; not written through")
    if made is not None:
        made.add(parent)


def _write(fd: int, data: bytes) -> None:
    done = os.write(fd, data)  # one write for a regular file, but a short one is possible
    if done < len(data):
        view = memoryview(data)[done:]
        while view:
            view = view[os.write(fd, view) :]


def write_if_changed(
    target: str | Path, data: bytes, *, made: set[str] | None = None, size: int | None = None, root: str | None = None
) -> bool:
    """Write ``data`` to ``target`` unless it already holds exactly these bytes; whether it wrote.

    ``made``: directories known to exist (created here once, then remembered); ``size``: the size of the file
    already at ``target`` (-1 for none) when the caller has just stat-ed it; ``root``: the export folder's real
    path (folders on the way must stay inside it). A symlink at ``target`` is replaced, never followed."""
    target = os.fspath(target)
    if size is None:
        try:
            size = os.lstat(target).st_size
        except OSError:
            size = -1
    if size == len(data) and _same(target, data):
        return False
    _folder(os.path.dirname(target), made, root)
    _put(target, data)
    return True


def _put(target: str, data: bytes) -> os.stat_result:
    """Write ``data`` at ``target`` (its folder exists); the file's stat after. A symlink there is replaced."""
    try:
        fd = os.open(target, _WRITE, 0o666)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        os.unlink(target)  # a symlink (O_NOFOLLOW refused it): replaced by the file
        fd = os.open(target, _WRITE | os.O_EXCL, 0o666)
    try:
        _write(fd, data)
        return os.fstat(fd)
    finally:
        os.close(fd)


class Folders:
    """The folders of an export made so far by one process: which exist, and which it created itself (a
    folder created by this export held nothing before, so a file written into it is new: no need to look
    for an old copy). ``top``: the export folder as its path is given (the targets are below it, and it
    exists); a folder on the way must stay inside its real path, ``root``."""

    def __init__(self, top: str) -> None:
        self.root = os.path.realpath(top)
        self._known: dict[str, bool] = dict.fromkeys({top, top.rstrip(os.sep) or top}, False)  # folder -> created here

    def new(self, folder: str) -> bool:
        """Make ``folder`` exist; whether this process created it (in this export).

        A folder this process has just created inside a folder already known to be inside the root is inside
        the root too (``mkdir`` makes a real folder, never follows a symlink at its name), so only a folder
        that was already there, or whose parent is not known yet, costs a ``realpath`` (a system call per
        part of the path)."""
        known = self._known.get(folder)
        if known is not None:
            return known
        parent = os.path.dirname(folder)
        checked = parent in self._known
        if not checked and parent != folder:
            self.new(parent)  # made (or found) and checked on the way; raises when it leads out
            checked = True
        try:
            os.mkdir(folder)
            created = True
        except FileExistsError:
            created = False
        if not (created and checked) and not _inside(folder, self.root):
            raise OSError(f"{folder} is a symlink leading out of the export folder; not written through")
        self._known[folder] = created
        return created


def copy_into(
    target: str, data: bytes, folders: Folders, old: os.stat_result | None = None, folder: str | None = None
) -> tuple[bool, os.stat_result]:
    """Write ``data`` at ``target`` unless it already holds exactly these bytes: whether it wrote, and the
    file's stat after. In a folder this export created, one open, write and fstat; elsewhere the old copy is
    looked at first (``old``: its lstat when the caller has it). A symlink at ``target`` is replaced.
    ``folder``: ``os.path.dirname(target)`` when the caller has it (one per folder, not per file)."""
    if folders.new(os.path.dirname(target) if folder is None else folder):
        try:
            fd = os.open(target, _WRITE | os.O_EXCL, 0o666)
        except FileExistsError:
            pass  # something got there first: the careful way below
        else:
            try:
                _write(fd, data)
                return True, os.fstat(fd)
            finally:
                os.close(fd)
    if old is None:
        try:
            old = os.lstat(target)
        except OSError:
            pass
    if old is not None and stat.S_ISREG(old.st_mode) and old.st_size == len(data) and _same(target, data):
        return False, old
    return True, _put(target, data)


def outputs_signature(out: str, files: list[str], known: dict[str, tuple[int, int]] | None = None) -> str | None:
    """The hash of the size and modification time of each of ``files`` in ``out`` (None when one is missing or
    is not a regular file: a symlink is never trusted). ``known``: the (size, mtime_ns) of files this export
    has just written or found unchanged as regular files, not asked for again."""
    lines: list[str] = []  # hashed as one text: the digest of the lines one by one, at one update's cost
    for rel in files:
        seen = known.get(rel) if known is not None else None
        if seen is not None:
            size, mtime = seen
        else:
            try:
                info = os.lstat(os.path.join(out, rel))
            except OSError:
                return None
            if not stat.S_ISREG(info.st_mode):
                return None
            size, mtime = info.st_size, info.st_mtime_ns
        lines.append(f"{rel}\0{size}\0{mtime}\n")
    return hashlib.blake2b("".join(lines).encode("utf-8", "surrogateescape"), digest_size=20).hexdigest()


_REFUSED = (pydantic_core.PydanticSerializationError, UnicodeError, ValueError)  # what pydantic-core may raise


def _json(value: Any) -> bytes:
    """``value`` as one line of compact JSON in UTF-8: pydantic-core's encoder (in Rust, about twice as fast as
    the json module's on a manifest of cuad's 13,786 rows), or the json module's where that one refuses (a
    path holding a lone surrogate, from a file name that is not UTF-8)."""
    try:
        return pydantic_core.to_json(value)
    except _REFUSED:
        return json.dumps(value, separators=(",", ":")).encode("utf-8")


def json_pieces(value: Any, depth: int = 0) -> Iterator[bytes]:
    """The bytes of ``pydantic_core.to_json(value)`` in pieces: a mapping's keys and values one by one, two
    levels down (the manifest's lines, then their rows by kind), each value below encoded by one call. The same
    bytes as one call gives (the encoder is compact and encodes a key or value the same wherever it stands),
    but no buffer of the whole line is grown and copied: cuad's 21 MB manifest line took about 10,000 page
    faults of fresh memory that way, its pieces about 2,000 (docs/benchmarks.md, stop 41). Raises what
    ``to_json`` raises (a lone surrogate): the caller then encodes the whole value as :func:`_json` does."""
    if isinstance(value, dict) and value and depth < 2:
        for number, (key, item) in enumerate(value.items()):
            yield (b"{" if number == 0 else b",") + pydantic_core.to_json(key) + b":"
            yield from json_pieces(item, depth + 1)
        yield b"}"
    else:
        yield pydantic_core.to_json(value)


_IOV_MAX = 1024  # buffers per writev (Linux's limit; POSIX guarantees at least 16)
_WRITEV = getattr(os, "writev", None)


def _writev(fd: int, buffers: list[bytes]) -> None:
    done = _WRITEV(fd, buffers) if _WRITEV is not None else 0
    for buffer in buffers:  # after a short write (or with no writev), the rest one by one
        if done >= len(buffer):
            done -= len(buffer)
            continue
        _write(fd, buffer[done:])
        done = 0


def write_pieces(target: str, pieces: Iterable[bytes]) -> os.stat_result | None:
    """Create ``target`` from ``pieces``, taken and written in order a thousand at a time (``writev``): the whole
    file is never joined in memory, and each batch's memory is used again for the next. Its stat after; None,
    writing nothing, when something is there already."""
    try:
        fd = os.open(target, _WRITE | os.O_EXCL, 0o666)
    except FileExistsError:
        return None
    try:
        batch: list[bytes] = []
        for piece in pieces:
            batch.append(piece)
            if len(batch) == _IOV_MAX:
                _writev(fd, batch)
                batch.clear()
        if batch:
            _writev(fd, batch)
        return os.fstat(fd)
    finally:
        os.close(fd)


class ExportWriter:
    """Collects the files of one export and writes them into ``root``."""

    def __init__(self, root: str | Path, kind: str) -> None:
        self.root = Path(root)
        self.kind = kind
        self.files: dict[str, bytes | None] = {}  # None: already written (or found unchanged) by a worker
        self.pieces: dict[str, Iterable[bytes]] = {}  # files given as pieces, never joined when new
        self.written = 0
        self.unchanged = 0
        self.removed = 0
        self._cache: dict[str, Any] = {}
        self._read: dict[str, Any] | None = None
        self._rest = ""
        self._state: dict[str, Any] | None = None
        self.sealed: dict[str, Any] | None = None  # okf.export.unchanged's seal, completed by commit
        self.outputs: dict[str, tuple[int, int]] = {}  # files written or found unchanged: (size, mtime_ns)
        self.full_spans: dict[str, list[int]] | None = None  # where llms-full.txt holds each body

    def add(self, rel: str, text: str | bytes) -> None:
        """Queue ``rel`` (a POSIX path inside the folder) with its content."""
        if rel.startswith("/") or ".." in rel.split("/"):
            raise ValueError(f"export path {rel!r} leaves the folder")  # paths come from the bundle: a bug
        self.files[rel] = text.encode("utf-8") if isinstance(text, str) else text

    def add_pieces(self, rel: str, pieces: Iterable[bytes]) -> None:
        """Queue ``rel`` with its content as pieces to take in order: a new file is written from them batch by
        batch (:func:`write_pieces`: no copy of the whole file is made in memory); over a file already there
        they are joined and compared as any file's bytes."""
        self.add(rel, b"")
        self.pieces[rel] = pieces

    def prepare(self) -> Path:
        """Create the folder (before workers write into it); the folder."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(
                f"cannot create {self.root}: {exc.strerror or exc}", fix="pass -o a writable folder"
            ) from None
        return self.root

    def done(self, rel: str, written: bool) -> None:
        """Record ``rel`` as written elsewhere (``written``) or found unchanged, for the counts and manifest."""
        self.files[rel] = None
        if written:
            self.written += 1
        else:
            self.unchanged += 1

    def done_all(self, copied: dict[str, bool]) -> None:
        """:meth:`done` for each of ``copied`` (file -> written), at once."""
        self.files.update(dict.fromkeys(copied))
        written = sum(copied.values())
        self.written += written
        self.unchanged += len(copied) - written

    def manifest(self) -> dict[str, Any]:
        """The head of the manifest the previous export of this kind left in the folder (its kind, files and
        seal; ``{}`` when none). The manifest is two lines of JSON: this head, then what an export reuses (the
        rows of :meth:`state`), so checking the seal does not parse a row per concept."""
        if self._read is None:  # read once
            try:
                text = (self.root / MANIFEST).read_text(encoding="utf-8")
                head, _, rest = text.partition("\n")
                data = json.loads(head)
            except (OSError, ValueError):
                data, rest = {}, ""
            ok = isinstance(data, dict) and data.get("kind") == self.kind and isinstance(data.get("files"), list)
            self._read = data if ok else {}
            self._rest = rest if ok else ""
        return self._read

    def state(self) -> dict[str, Any]:
        """The rest of the previous manifest (the bundle, okf's version, concept rows, kept listings, where
        llms-full.txt holds each body); ``{}`` when none. Parsed on first use."""
        if self._state is None:
            self.manifest()
            try:
                data = json.loads(self._rest) if self._rest.strip() else {}
            except ValueError:
                data = {}
            self._state = data if isinstance(data, dict) else {}
        return self._state

    def _previous(self) -> set[str]:
        files = self.manifest().get("files", [])
        return {f for f in files if isinstance(f, str) and not f.startswith("/") and ".." not in f.split("/")}

    def cache(self, source: str) -> dict[str, Any]:
        """The concept rows the previous export of ``source`` (a bundle root) into this folder left, by this
        version of okf; empty when there are none (any other bundle, version or shape)."""
        data = self.state()
        rows = data.get("cache")
        if data.get("bundle") != source or data.get("okf") != __version__ or not isinstance(rows, dict):
            return {}
        return {path: tuple(row) for path, row in rows.items() if isinstance(row, list) and len(row) == 12}

    def old_full(self, source: str) -> tuple[str, dict[str, list[int]]] | None:
        """The text of the ``llms-full.txt`` the previous export of ``source`` by this version of okf left, and
        where it put each body, when the file is still as that export left it (its size and modification
        time); None otherwise."""
        data = self.state()
        full = data.get("full")
        if data.get("bundle") != source or data.get("okf") != __version__ or not isinstance(full, dict):
            return None
        spans = full.get("spans")
        if not isinstance(spans, dict):
            return None
        path = os.path.join(self.root, "llms-full.txt")
        try:
            fd = os.open(path, _READ)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or [info.st_size, info.st_mtime_ns] != full.get("stat"):
                return None
            chunks, left = [], info.st_size
            while left > 0 and (chunk := os.read(fd, left)):
                chunks.append(chunk)
                left -= len(chunk)
            text = b"".join(chunks).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        finally:
            os.close(fd)
        return text, spans

    def listings(self, source: str, names: str) -> dict[str, Any]:
        """The listings the previous export of ``source`` into this folder kept (okf.export.listings), when the
        bundle's names hash to ``names`` as they did then; empty otherwise."""
        data = self.state()
        rows = data.get("listings")
        if (
            data.get("bundle") != source
            or data.get("okf") != __version__
            or data.get("names") != names
            or not isinstance(rows, dict)
        ):
            return {}
        return rows

    def remember(
        self, source: str, rows: dict[str, Any], names: str | None = None, listings: dict[str, Any] | None = None
    ) -> None:
        """Keep ``rows`` (for the bundle at ``source``) and its kept ``listings`` with the hash of its ``names``
        in the manifest this export writes."""
        self._cache = {"bundle": source, "okf": __version__, "cache": {p: rows[p] for p in sorted(rows)}}
        if names is not None and listings:
            self._cache.update(names=names, listings={d: listings[d] for d in sorted(listings)})

    def commit(self) -> None:
        """Write changed files, remove files the previous export of this kind wrote and this one did not."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            previous = self._previous()
            real = os.path.realpath(self.root)
            files = sorted(self.files)
            for rel in files:
                data = self.files[rel]
                if data is None:
                    continue
                pieces = self.pieces.get(rel)
                if pieces is not None and write_pieces(os.path.join(self.root, rel), pieces) is not None:
                    self.written += 1  # a new file, written piece by piece
                else:
                    if pieces is not None:  # a file there: compared as bytes
                        data = b"".join(pieces)
                    if write_if_changed(self.root / rel, data, root=real):
                        self.written += 1
                    else:
                        self.unchanged += 1
                try:
                    info = os.lstat(self.root / rel)
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode):
                    self.outputs[rel] = info.st_size, info.st_mtime_ns
            for rel in sorted(previous - set(self.files)):
                if not _inside(os.path.dirname(self.root / rel), real):
                    continue  # a folder on the way became a symlink: never removes through it
                try:
                    (self.root / rel).unlink()
                    self.removed += 1
                except OSError:
                    pass
            content: dict[str, Any] = {"kind": self.kind, "files": files}
            rest = dict(self._cache)
            full = self.outputs.get("llms-full.txt")
            if rest.get("cache") and self.full_spans is not None and full is not None:
                rest["full"] = {"stat": list(full), "spans": self.full_spans}
            if self.sealed is not None:
                outputs = outputs_signature(str(self.root), files, self.outputs)
                if outputs is not None:
                    content["seal"] = {**self.sealed, "outputs": outputs}
            target = os.path.join(self.root, MANIFEST)
            try:
                created = write_pieces(target, _manifest_pieces(content, rest))
            except _REFUSED:  # created here and partly written: encoded the json module's way instead
                os.unlink(target)
                created = write_pieces(target, _manifest_whole(content, rest))
            if created is None:  # one there: compared
                try:
                    data = b"".join(_manifest_pieces(content, rest))
                except _REFUSED:
                    data = b"".join(_manifest_whole(content, rest))
                write_if_changed(self.root / MANIFEST, data, root=real)
        except OSError as exc:
            raise ConfigError(
                f"cannot write the export into {self.root}: {exc.strerror or exc}", fix="pass -o a writable folder"
            ) from None


def _manifest_pieces(content: dict[str, Any], rest: dict[str, Any]) -> Iterator[bytes]:
    """The manifest's two lines (the second only when ``rest`` holds anything), piece by piece: :func:`json_pieces`."""
    yield from json_pieces(content)
    yield b"\n"
    if rest:
        yield from json_pieces(rest)
        yield b"\n"


def _manifest_whole(content: dict[str, Any], rest: dict[str, Any]) -> list[bytes]:
    """The manifest's lines as :func:`_json` encodes them (the json module's way where pydantic-core refuses)."""
    return [_json(content), b"\n"] + ([_json(rest), b"\n"] if rest else [])
