"""The description cache: what a describer model wrote, keyed by the sha256 of everything it was shown.

A concept's description and tags are keyed by the describer's identity (model and endpoint), the describe
prompt version, the document and concept titles and the sha256 of the concept's text; a set of sibling groups'
titles by the same identity and version and the sha256 of the payload sent. So a concept whose text is unchanged
is never described again, by any compile of any bundle, while a changed text, title, model or prompt asks
anew. Files live under ``$OKF_CACHE_DIR/descriptions`` or ``$XDG_CACHE_HOME/okf/descriptions``
(``~/.cache/okf/descriptions``), one small JSON file per entry, written atomically. Replies are stored as the
reader returns them, API keys already scrubbed. Failed replies are never stored; an unreadable or malformed
entry is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def default_cache_dir() -> Path:
    """Where descriptions are cached unless told otherwise."""
    if os.environ.get("OKF_CACHE_DIR"):
        return Path(os.environ["OKF_CACHE_DIR"]).expanduser() / "descriptions"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "okf" / "descriptions"


def entry_key(*parts: str) -> str:
    """The key of one entry: the sha256 of its parts (identity, prompt version, task, what was shown)."""
    return hashlib.sha256(json.dumps(list(parts), ensure_ascii=False).encode("utf-8")).hexdigest()


def text_sha256(text: str) -> str:
    """sha256 of a text (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class DescriptionCache:
    """Describer replies on disk, sharded by the first two hex digits of the key."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or default_cache_dir()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def _read(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def signpost(self, key: str) -> tuple[str, list[str]] | None:
        """A concept's cached description and tags, or None."""
        data = self._read(key)
        if data is None:
            return None
        description, tags = data.get("description"), data.get("tags")
        if (
            not isinstance(description, str)
            or not description.strip()
            or not isinstance(tags, list)
            or not all(isinstance(t, str) for t in tags)
        ):
            return None
        return description, tags

    def titles(self, key: str, count: int) -> list[str] | None:
        """A sibling set's cached titles (``count`` of them), or None."""
        data = self._read(key)
        titles = None if data is None else data.get("titles")
        if not isinstance(titles, list) or len(titles) != count or not all(isinstance(t, str) and t for t in titles):
            return None
        return titles

    def put(self, key: str, record: dict[str, Any]) -> None:
        """Store one entry atomically; a read-only or full disk costs a later call, nothing else."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(record, handle, ensure_ascii=False)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            return
