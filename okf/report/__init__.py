"""Self-contained HTML reports: one walk (``okf trace --html``, ``okf navigate|ask --report``) and an
evaluation (``okf report``). Built with :mod:`okf.html`; see docs/navigate.md and docs/evaluation.md."""

from __future__ import annotations

from okf.report.evaluation import eval_page, write_eval_report
from okf.report.files import write_html
from okf.report.walk import walk_page

__all__ = ["eval_page", "walk_page", "write_eval_report", "write_html"]
