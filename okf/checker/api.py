"""``check(bundle) -> CheckReport``: OKF v0.2 conformance errors and tolerant-consumer warnings.

Zero model calls. Every file is checked even after problems are found; a file okf cannot read becomes a
diagnostic naming it, never an exception. Codes and fixes are listed in :data:`okf.bundle.codes.CODES` and
documented in docs/check.md.
"""

from __future__ import annotations

import time
from concurrent.futures.process import BrokenProcessPool
from datetime import UTC, datetime

from pydantic import BaseModel, Field, computed_field

from okf.bundle import Bundle, Diagnostic, as_datetime, diagnostic
from okf.checker.parallel import check_in_pool, default_workers
from okf.checker.rules import Citing, ManifestRead, SourceFiles, manifest_citing
from okf.checker.scan import Progress, check_concepts, check_directories, merge_listed
from okf.collector import collector_paused
from okf.limits import FANOUT

__all__ = ["CheckReport", "check"]


class CheckReport(BaseModel):
    """The outcome of ``okf check``: every diagnostic, sorted by path and line, and what was read."""

    bundle: str
    corpus_id: str | None = None
    okf_version: str | None = None
    concepts: int = Field(0, description="Concept files checked.")
    files: int = Field(0, description="Markdown files checked (concepts, index.md, log.md).")
    seconds: float = 0.0
    diagnostics: list[Diagnostic] = Field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        """The error diagnostics (OKF §11 conformance failures)."""
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        """The warning diagnostics."""
        return [d for d in self.diagnostics if d.severity == "warning"]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def error_count(self) -> int:
        """How many errors."""
        return len(self.errors)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def warning_count(self) -> int:
        """How many warnings."""
        return len(self.warnings)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ok(self) -> bool:
        """True when there are no errors (warnings allowed)."""
        return not self.errors


def check(
    bundle: Bundle | str,
    *,
    fanout: int = FANOUT,
    now: datetime | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> CheckReport:
    """Check every file of ``bundle`` and return all diagnostics. ``now`` decides staleness (default: now).

    Concepts are checked in ``workers`` processes (default: one per CPU for bundles of at least
    :data:`okf.checker.parallel.PARALLEL_FROM` concepts, else in this process); the report is the same.
    ``progress("concepts", done, total)`` is called as concepts are checked (every few hundred).
    """
    # A check allocates no reference cycles, and each collection would walk the bundle's scans and the
    # models of the concept at hand again: the collector is paused (okf.collector), forked workers inherit it.
    with collector_paused():
        return _check(bundle, fanout, now, workers, progress)


def _check(
    bundle: Bundle | str, fanout: int, now: datetime | None, workers: int | None, progress: Progress | None
) -> CheckReport:
    started = time.perf_counter()
    if not isinstance(bundle, Bundle):
        bundle = Bundle.open(bundle)
    now = as_datetime(now) if now is not None else datetime.now(UTC)
    diags: list[Diagnostic] = []
    files = 0

    corpus_id: str | None = None

    def cited(found: ManifestRead) -> Citing:
        # The compile manifest: where the sources are (drift), and the content id (free for an okf-compiled
        # bundle; for any other it would mean hashing every file a second time, so check leaves it out there).
        nonlocal corpus_id
        unreadable, corpus_id, citing = found
        if unreadable is not None:
            diags.append(diagnostic("E006", unreadable[0], None, unreadable[1], unreadable[2]))
        return citing

    # Listings first: index problems, unlisted concepts, fanout; remember what each index says of a concept.
    directories = list(bundle.iter_directories())
    paths = list(bundle.iter_concepts(directories))
    count = workers if workers is not None else default_workers(len(paths))
    result: tuple[list[Diagnostic], int, list[Diagnostic], ManifestRead] | None = None
    if count > 1:
        try:
            result = check_in_pool(bundle, directories, paths, fanout, now, count, progress)
        except (BrokenProcessPool, OSError):  # no processes here (limits, a killed worker): check in this one
            result = None
    if result is not None:
        found, index_files, concept_diags, manifest = result
        cited(manifest)
        diags.extend(found)
    else:
        sources = SourceFiles(bundle, *cited(manifest_citing(bundle)))
        found, index_files, listed_items = check_directories(bundle, directories, fanout)
        diags.extend(found)
        concept_diags = check_concepts(bundle, paths, merge_listed([listed_items]), now, sources, progress)
    if progress is not None:
        progress("concepts", len(paths), len(paths))
    diags.extend(concept_diags)
    concepts = len(paths)
    files += index_files + concepts

    # Stable sort: equal keys keep the order they were found in, the same in one process or several.
    diags.sort(key=lambda d: (d.path, d.line or 0, d.code))
    return CheckReport(
        bundle=str(bundle.root),
        corpus_id=corpus_id,
        okf_version=bundle.okf_version,
        concepts=concepts,
        files=files,
        seconds=round(time.perf_counter() - started, 3),
        diagnostics=diags,
    )
