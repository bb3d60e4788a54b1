"""The judgment cache: one small JSON file per (model, judge prompt, question, document) verdict.

A verdict depends only on who judged and what the judge saw, so it is keyed by the sha256 of the endpoint
(base URL), the judge model, the judge prompt version, the question and the document's sha256. The reader
scrubs API keys from replies before they are stored, and from what it reads back. Files live under ``$OKF_CACHE_DIR/judgments`` or
``$XDG_CACHE_HOME/okf/judgments`` (``~/.cache/okf/judgments``) and are written atomically. Failed verdicts are
never stored. An unreadable entry is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from okf.readers.base import Verdict


def default_cache_dir() -> Path:
    """Where judgments are cached unless configured otherwise."""
    if os.environ.get("OKF_CACHE_DIR"):
        return Path(os.environ["OKF_CACHE_DIR"]).expanduser() / "judgments"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "okf" / "judgments"


def judgment_key(model: str, prompt_version: str, question: str, document_sha256: str, *, endpoint: str = "") -> str:
    """The cache key of one verdict: the same model name on another endpoint is another judge."""
    material = json.dumps([endpoint, model, prompt_version, question, document_sha256], ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class JudgmentCache:
    """Verdicts on disk, one JSON file each, sharded by the first two hex digits of the key."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or default_cache_dir()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str, document_id: str) -> Verdict | None:
        """The cached verdict for ``key`` (renamed to ``document_id``, marked cached), or None."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            relevant, reason = data["relevant"], data.get("reason", "")
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if not isinstance(relevant, bool) or not isinstance(reason, str):
            return None
        grade = data.get("grade")
        if grade not in ("relevant", "partial", "no"):
            grade = "relevant" if relevant else "no"
        answers = data.get("answers")
        answers = (
            [a for a in answers if isinstance(a, int) and not isinstance(a, bool)] if isinstance(answers, list) else []
        )
        return Verdict(id=document_id, relevant=relevant, grade=grade, reason=reason, cached=True, answers=answers)

    def put(self, key: str, verdict: Verdict, *, model: str, prompt_version: str, endpoint: str = "") -> None:
        """Store a decided verdict atomically; failed verdicts are ignored. Disk errors are not fatal."""
        if verdict.failed or verdict.relevant is None:
            return
        path = self._path(key)
        record = {
            "relevant": verdict.relevant,
            "grade": verdict.grade or ("relevant" if verdict.relevant else "no"),
            "reason": verdict.reason,
            "answers": verdict.answers,
            "endpoint": endpoint,
            "model": model,
            "prompt": prompt_version,
            "stored": datetime.now(UTC).isoformat(timespec="seconds"),
        }
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
            return  # a read-only or full disk costs a future model call, not this answer
