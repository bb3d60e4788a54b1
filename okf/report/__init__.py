"""Self-contained HTML reports: one walk (``okf trace --html``, ``okf navigate|ask --report``) and an
evaluation (``okf report``). Built with :mod:`okf.html`; see docs/navigate.md and docs/evaluation.md."""

from __future__ import annotations

from pathlib import Path

from okf.errors import ConfigError
from okf.report.evaluation import eval_page, write_eval_report
from okf.report.walk import walk_page


def write_html(path: str | Path, html: str) -> int:
    """Write ``html`` to ``path`` (UTF-8); the bytes written. ConfigError when the path is not writable."""
    data = html.encode("utf-8")
    try:
        Path(path).write_bytes(data)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}",
                          fix="pass a writable file path whose folder exists") from None
    return len(data)


__all__ = ["eval_page", "walk_page", "write_eval_report", "write_html"]
