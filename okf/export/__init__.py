"""Publish a bundle for agents and people that do not speak OKF: ``llms.txt`` (+ ``llms-full.txt`` and one
``.md`` per concept) and a static HTML site (:mod:`okf.export.api`). See docs/export.md."""

from __future__ import annotations

from okf.export.api import ExportReport, export_llms_txt, export_site

__all__ = ["ExportReport", "export_llms_txt", "export_site"]
