"""Writing a report page to disk, with a clear error when the path is not writable."""

from __future__ import annotations

from pathlib import Path

from okf.errors import ConfigError


def write_html(path: str | Path, html: str) -> int:
    """Write ``html`` to ``path`` (UTF-8); the bytes written. ConfigError when the path is not writable."""
    data = html.encode("utf-8")
    try:
        Path(path).write_bytes(data)
    except OSError as exc:
        raise ConfigError(
            f"cannot write {path}: {exc.strerror or exc}", fix="pass a writable file path whose folder exists"
        ) from None
    return len(data)
