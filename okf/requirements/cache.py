"""The extraction cache: a section's rules keyed by the sha256 of its text, so a recompile re-reads only the
sections that changed.

The key hashes the extractor's identity (model and endpoint, or ``offline`` with its grammar version), the
extract prompt version, the extraction mode and the section text's sha256. Line numbers are stored relative
to the section's first line, so a section that moved in its file (its frontmatter grew) is still a hit.
Files live under ``$OKF_CACHE_DIR/requirements`` or ``$XDG_CACHE_HOME/okf/requirements``
(``~/.cache/okf/requirements``), one small JSON file per section, written atomically. Failed extractions are
never stored; an unreadable entry is a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from okf.readers.extraction import RuleDraft


def default_cache_dir() -> Path:
    """Where extracted rules are cached unless told otherwise."""
    if os.environ.get("OKF_CACHE_DIR"):
        return Path(os.environ["OKF_CACHE_DIR"]).expanduser() / "requirements"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "okf" / "requirements"


def cache_key(identity: str, prompt_version: str, mode: str, section_sha256: str) -> str:
    """The key of one section's extraction."""
    material = json.dumps([identity, prompt_version, mode, section_sha256], ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class ExtractionCache:
    """Rules per section on disk, sharded by the first two hex digits of the key."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or default_cache_dir()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str, first_line: int) -> list[RuleDraft] | None:
        """The cached rules, their lines re-anchored at ``first_line``; None on a miss."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            rules = [RuleDraft.model_validate(r) for r in data["rules"]]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return [
            r.model_copy(update={"start_line": r.start_line + first_line, "end_line": r.end_line + first_line})
            for r in rules
        ]

    def put(self, key: str, rules: list[RuleDraft], first_line: int) -> None:
        """Store a section's rules (lines relative to ``first_line``); a write failure is ignored."""
        relative = [
            r.model_copy(
                update={"start_line": r.start_line - first_line, "end_line": r.end_line - first_line}
            ).model_dump()
            for r in rules
        ]
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(
                "w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp"
            ) as handle:
                json.dump({"rules": relative}, handle, ensure_ascii=False)
            os.replace(handle.name, path)
        except OSError:
            return
