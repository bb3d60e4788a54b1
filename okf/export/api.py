"""Publish a bundle for agents and people that do not speak OKF: ``llms.txt`` (+ ``llms-full.txt`` and one
``.md`` per concept) and a static HTML site. Deterministic (the same bundle and date give byte-identical
files) and incremental-friendly (unchanged files are not rewritten). See docs/export.md."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from pydantic import BaseModel, Field, ValidationError

from okf._version import __version__
from okf.bundle import Bundle
from okf.collector import collector_paused
from okf.export.llms import OldBodies, full_pieces, llms_txt_pieces
from okf.export.reading import Collected, Known, collect
from okf.export.unchanged import bundle_signature, replay, seal
from okf.export.write import ExportWriter

Progress = Callable[[str, int, int], None]  # progress(stage, done, total): "concepts" read, "pages" rendered


class ExportReport(BaseModel):
    """What an export wrote."""

    kind: str
    bundle: str
    output: str
    concepts: int = Field(description="Concepts exported (current ones plus deprecated or stale ones).")
    current: int = 0
    optional: int = Field(default=0, description="Deprecated or stale concepts (llms.txt's Optional section).")
    files: int = 0
    written: int = Field(default=0, description="Files whose bytes changed (the rest were left untouched).")
    unchanged: int = 0
    removed: int = Field(default=0, description="Files of the previous export no longer produced.")
    full_concepts: int | None = Field(default=None, description="Concepts inlined in llms-full.txt.")
    seconds: float = 0.0
    warnings: list[str] = Field(default_factory=list)


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _collector_paused(export: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``export`` with Python's cyclic garbage collector paused (and forked workers inherit the pause). An
    export builds tens of thousands of objects that all live until it ends, so each full collection walked
    them, and every module okf imported, again for nothing: about a tenth of an export's CPU. Left as it was
    found (a caller that paused it keeps it paused)."""

    @functools.wraps(export)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with collector_paused():  # okf.collector: the one owner of the pause
            return export(*args, **kwargs)

    return paused


def _open(bundle: Bundle | str | Path) -> Bundle:
    return bundle if isinstance(bundle, Bundle) else Bundle.open(bundle)


def _report(
    kind: str, opened: Bundle, out: str | Path, collected: Collected, writer: ExportWriter, started: float, **extra: Any
) -> ExportReport:
    current = sum(e.current for e in collected.entries)
    return ExportReport(
        kind=kind,
        bundle=str(opened.root),
        output=str(out),
        concepts=len(collected.entries),
        current=current,
        optional=len(collected.entries) - current,
        files=len(writer.files),
        written=writer.written,
        unchanged=writer.unchanged,
        removed=writer.removed,
        seconds=round(time.perf_counter() - started, 3),
        warnings=collected.warnings,
        **extra,
    )


_KEPT = {"concepts", "current", "optional", "files", "full_concepts", "warnings"}


def _replayed(recorded: dict[str, Any] | None, source: str, out: str | Path, started: float) -> ExportReport | None:
    """The report of a replayed export, or None when the recorded one is not a report (then export in full)."""
    if recorded is None or set(recorded) != _KEPT:
        return None
    try:
        return ExportReport(
            **recorded,
            kind="llms-txt",
            bundle=source,
            output=str(out),
            unchanged=recorded["files"],
            seconds=round(time.perf_counter() - started, 3),
        )
    except (TypeError, ValidationError):
        return None


@_collector_paused
def export_llms_txt(
    bundle: Bundle | str | Path,
    out: str | Path,
    *,
    base_url: str | None = None,
    max_bytes: int | None = None,
    as_of: date | None = None,
    title: str | None = None,
    progress: Progress | None = None,
) -> ExportReport:
    """Write ``llms.txt``, ``llms-full.txt`` and every concept's ``.md`` file into ``out``. When nothing that
    decides the output changed since the last export into ``out`` (:mod:`okf.export.unchanged`), nothing is read
    or written and the report says every file is unchanged."""
    started = time.perf_counter()
    opened = _open(bundle)
    writer = ExportWriter(out, "llms-txt")
    source = str(opened.root)
    day = as_of or datetime.now(UTC).date()
    now = datetime(day.year, day.month, day.day, tzinfo=UTC)
    options = {"okf": __version__, "bundle": source, "base_url": base_url, "max_bytes": max_bytes, "title": title}
    walk = bundle_signature(source, opened)
    signature = walk.signature
    recorded = _replayed(replay(writer.manifest(), str(writer.root), signature, options, now), source, out, started)
    if recorded is not None:
        if progress is not None:
            progress("concepts", recorded.concepts, recorded.concepts)
        return recorded
    old = writer.old_full(source)
    bodies = OldBodies(*old) if old is not None else None
    collected = collect(
        opened,
        as_of=day,
        title=title,
        copy_to=writer.prepare(),
        cache=writer.cache(source),
        progress=None if progress is None else lambda done, total: progress("concepts", done, total),
        listings=writer.listings(source, walk.names),
        known=Known(walk.stats, walk.recent, frozenset(bodies.spans) if bodies is not None else frozenset()),
        bodies=bodies,
    )
    writer.remember(source, collected.cache, walk.names, collected.listings)
    writer.done_all(collected.copied)
    writer.outputs.update(collected.outputs)
    writer.add_pieces("llms.txt", llms_txt_pieces(collected, base_url=base_url))
    pieces, inlined, writer.full_spans = full_pieces(collected, max_bytes=max_bytes)
    writer.add_pieces("llms-full.txt", pieces)
    report = _report("llms-txt", opened, out, collected, writer, started, full_concepts=inlined)
    if signature is not None:
        stale_after = sorted({e.stale_after.isoformat() for e in collected.entries if e.stale_after is not None})
        kept = report.model_dump(include=_KEPT)
        writer.sealed = seal(signature, options, now, stale_after, kept)
    writer.commit()
    report.written, report.unchanged, report.removed = writer.written, writer.unchanged, writer.removed
    report.seconds = round(time.perf_counter() - started, 3)
    return report


@_collector_paused
def export_site(
    bundle: Bundle | str | Path,
    out: str | Path,
    *,
    as_of: date | None = None,
    title: str | None = None,
    progress: Progress | None = None,
) -> ExportReport:
    """Write the static HTML site into ``out``: ``index.html`` is the root directory's page."""
    from okf.export.site import site_pages  # Jinja2 and the HTML renderer only for a site

    started = time.perf_counter()
    opened = _open(bundle)
    collected = collect(
        opened,
        as_of=as_of,
        title=title,
        progress=None if progress is None else lambda done, total: progress("concepts", done, total),
    )
    writer = ExportWriter(out, "site")
    pages = None if progress is None else lambda done, total: progress("pages", done, total)
    for path, html in site_pages(opened, collected, pages).items():
        writer.add(path, html)
    writer.commit()
    return _report("site", opened, out, collected, writer, started)


__all__ = ["ExportReport", "export_llms_txt", "export_site"]
