"""Writing an export folder: byte-identical output for the same input, and only files whose bytes changed
are rewritten (unchanged concepts keep their files and modification times). A small manifest names what the
last export wrote, so files of concepts that disappeared are removed and nothing else in the folder is."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from okf._version import __version__
from okf.errors import ConfigError

MANIFEST = ".okf-export.json"


def write_if_changed(target: str | Path, data: bytes, *, made: set[str] | None = None, size: int | None = None) -> bool:
    """Write ``data`` to ``target`` unless it already holds exactly these bytes; whether it wrote.

    ``made``: directories known to exist (created here once, then remembered); ``size``: the size of the file
    already at ``target`` (-1 for none) when the caller has just stat-ed it."""
    target = os.fspath(target)
    if size is None:
        try:
            size = os.stat(target).st_size
        except OSError:
            size = -1
    if size == len(data):
        try:
            with open(target, "rb") as handle:
                if handle.read() == data:
                    return False
        except OSError:
            pass
    parent = os.path.dirname(target)
    if made is None or parent not in made:
        os.makedirs(parent, exist_ok=True)
        if made is not None:
            made.add(parent)
    with open(target, "wb") as handle:
        handle.write(data)
    return True


class ExportWriter:
    """Collects the files of one export and writes them into ``root``."""

    def __init__(self, root: str | Path, kind: str) -> None:
        self.root = Path(root)
        self.kind = kind
        self.files: dict[str, bytes | None] = {}  # None: already written (or found unchanged) by a worker
        self.written = 0
        self.unchanged = 0
        self.removed = 0
        self._cache: dict[str, Any] = {}
        self._read: dict[str, Any] | None = None

    def add(self, rel: str, text: str | bytes) -> None:
        """Queue ``rel`` (a POSIX path inside the folder) with its content."""
        if rel.startswith("/") or ".." in rel.split("/"):
            raise ValueError(f"export path {rel!r} leaves the folder")  # paths come from the bundle: a bug
        self.files[rel] = text.encode("utf-8") if isinstance(text, str) else text

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

    def _manifest(self) -> dict[str, Any]:
        if self._read is None:  # read once: it holds a row per concept
            try:
                data = json.loads((self.root / MANIFEST).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
            ok = isinstance(data, dict) and data.get("kind") == self.kind and isinstance(data.get("files"), list)
            self._read = data if ok else {}
        return self._read

    def _previous(self) -> set[str]:
        files = self._manifest().get("files", [])
        return {f for f in files if isinstance(f, str) and not f.startswith("/") and ".." not in f.split("/")}

    def cache(self, source: str) -> dict[str, Any]:
        """The concept rows the previous export of ``source`` (a bundle root) into this folder left, by this
        version of okf; empty when there are none (any other bundle, version or shape)."""
        data = self._manifest()
        rows = data.get("cache")
        if data.get("bundle") != source or data.get("okf") != __version__ or not isinstance(rows, dict):
            return {}
        return {path: tuple(row) for path, row in rows.items() if isinstance(row, list) and len(row) == 12}

    def remember(self, source: str, rows: dict[str, Any]) -> None:
        """Keep ``rows`` (for the bundle at ``source``) in the manifest this export writes."""
        self._cache = {"bundle": source, "okf": __version__, "cache": {p: list(rows[p]) for p in sorted(rows)}}

    def commit(self) -> None:
        """Write changed files, remove files the previous export of this kind wrote and this one did not."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            previous = self._previous()
            for rel in sorted(self.files):
                data = self.files[rel]
                if data is None:
                    continue
                if write_if_changed(self.root / rel, data):
                    self.written += 1
                else:
                    self.unchanged += 1
            for rel in sorted(previous - set(self.files)):
                try:
                    (self.root / rel).unlink()
                    self.removed += 1
                except OSError:
                    pass
            content = {"kind": self.kind, "files": sorted(self.files), **self._cache}
            if content != self._manifest():  # the same as read (a repeat export): no need to write it out again
                manifest = json.dumps(content, separators=(",", ":")) + "\n"
                write_if_changed(self.root / MANIFEST, manifest.encode("utf-8"))
        except OSError as exc:
            raise ConfigError(
                f"cannot write the export into {self.root}: {exc.strerror or exc}", fix="pass -o a writable folder"
            ) from None
