"""``check(bundle) -> CheckReport``: OKF v0.2 conformance errors and tolerant-consumer warnings.

Zero model calls. Every file is checked even after problems are found; a file okf cannot read becomes a
diagnostic naming it, never an exception. Codes and fixes are listed in :data:`okf.bundle.codes.CODES` and
documented in docs/check.md.
"""

from __future__ import annotations

import re
import time
from concurrent.futures.process import BrokenProcessPool
from datetime import UTC, datetime

from pydantic import BaseModel, Field, computed_field

from okf.limits import FANOUT
from okf.bundle import Bundle, Diagnostic, as_datetime, diagnostic
from okf.bundle.documents import CodedBundleError
from okf.check.rules import SourceFiles, check_concept, check_log, source_citing
from okf.errors import BundleError

__all__ = ["CheckReport", "check"]

_SPACE = re.compile(r"\s+")


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


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _clip(text: str, limit: int = 100) -> str:
    text = _norm(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _same_description(entry: str, description: str) -> bool:
    """Equal up to whitespace, or the entry is the description's leading part (a shortened summary)."""
    short, full = _norm(entry).rstrip(".\u2026 "), _norm(description)
    return short == full.rstrip(".\u2026 ") or (bool(short) and full.startswith(short))


ListedItem = tuple[str, str, int, str]  # concept path, index.md path, line, the entry's description


def check_directories(bundle: Bundle, directories: list[str],
                      fanout: int) -> tuple[list[Diagnostic], int, list[ListedItem]]:
    """Listing diagnostics of ``directories`` (index problems, unlisted concepts, fanout, log.md), how many
    index.md and log.md files were read, and what each index entry says of a concept, in order."""
    diags: list[Diagnostic] = []
    files = 0
    listed: list[ListedItem] = []
    for directory in directories:
        listing = bundle.listing(directory)
        diags.extend(listing.diagnostics)
        index_rel = directory + "index.md"
        if listing.has_index:
            files += 1
            index = bundle.index(directory)
            for resolved in index.entries if index else []:
                if resolved.kind == "concept" and resolved.path:
                    listed.append((resolved.path, index_rel, resolved.entry.line, resolved.entry.description))
            for signpost in listing.signposts:
                if signpost.origin == "synthesized" and not signpost.is_dir:
                    diags.append(diagnostic("W112", index_rel, None,
                                            f"{signpost.path} is not listed in {index_rel}"))
        if len(listing.signposts) > fanout:
            where = index_rel if listing.has_index else (directory or "./")
            diags.append(diagnostic("W120", where, None, f"directory {directory or './'} has "
                                    f"{len(listing.signposts)} entries, more than the fanout of {fanout}"))
        if bundle.exists(directory + "log.md"):
            files += 1
            diags.extend(check_log(bundle, directory + "log.md"))
        bundle.forget(directory)  # each directory is checked once: its listing need not stay in memory
    return diags, files, listed


def merge_listed(parts: list[list[ListedItem]]) -> dict[str, tuple[str, int, str]]:
    """What the first index (in directory order) listing each concept says of it."""
    listed: dict[str, tuple[str, int, str]] = {}
    for part in parts:
        for path, index_rel, line, description in part:
            listed.setdefault(path, (index_rel, line, description))
    return listed


def check_concepts(bundle: Bundle, paths: list[str], listed: dict[str, tuple[str, int, str]], now: datetime,
                   sources: SourceFiles) -> list[Diagnostic]:
    """The diagnostics of the concepts ``paths``, in order; ``listed`` holds what index entries say of them."""
    diags: list[Diagnostic] = []
    indexed = bundle.exists("index.md")  # a bundle with a root index.md is read through its index files
    has_index: dict[str, bool] = {}
    for path in paths:
        directory = path.rpartition("/")[0]
        if indexed and path not in listed:
            if directory not in has_index:
                has_index[directory] = bundle.exists(f"{directory}/index.md" if directory else "index.md")
            if not has_index[directory]:
                diags.append(diagnostic("W116", path, None, f"no index.md lists {path} and its directory "
                                        f"{directory + '/' if directory else './'} has none: a consumer reading "
                                        "the bundle through its index files never reaches it"))
        try:
            concept = bundle.load(path, cache=False)
        except CodedBundleError as exc:
            diags.append(diagnostic(exc.code, path, exc.line, exc.message, exc.fix))
            continue
        except BundleError as exc:
            diags.append(diagnostic("E006", path, exc.line, exc.message, exc.fix))
            continue
        diags.extend(check_concept(bundle, concept, now, sources))
        entry = listed.get(path)
        description = concept.meta.description
        if entry and entry[2] and description and not _same_description(entry[2], description):
            diags.append(diagnostic("W113", entry[0], entry[1], f"the entry for {path} says "
                                    f"{_clip(entry[2])!r}; its frontmatter says {_clip(description)!r}"))
    return diags


def check(bundle: Bundle | str, *, fanout: int = FANOUT, now: datetime | None = None,
          workers: int | None = None) -> CheckReport:
    """Check every file of ``bundle`` and return all diagnostics. ``now`` decides staleness (default: now).

    Concepts are checked in ``workers`` processes (default: one per CPU for bundles of at least
    :data:`okf.check.parallel.PARALLEL_FROM` concepts, else in this process); the report is the same.
    """
    started = time.perf_counter()
    if not isinstance(bundle, Bundle):
        bundle = Bundle.open(bundle)
    now = as_datetime(now) if now is not None else datetime.now(UTC)
    diags: list[Diagnostic] = []
    files = 0

    manifest = None
    try:
        manifest = bundle.manifest()
    except BundleError as exc:
        diags.append(diagnostic("E006", exc.path or ".okf/manifest.json", None, exc.message, exc.fix))
    citing = source_citing(manifest)
    sources = SourceFiles(bundle, *citing)

    # Listings first: index problems, unlisted concepts, fanout; remember what each index says of a concept.
    directories = list(bundle.iter_directories())
    paths = list(bundle.iter_concepts())
    count = workers if workers is not None else default_workers(len(paths))
    result: tuple[list[Diagnostic], int, list[Diagnostic]] | None = None
    if count > 1:
        try:
            result = check_in_pool(bundle, directories, paths, fanout, now, citing, count)
        except (BrokenProcessPool, OSError):  # no processes here (limits, a killed worker): check in this one
            result = None
    if result is not None:
        found, index_files, concept_diags = result
        diags.extend(found)
    else:
        found, index_files, listed_items = check_directories(bundle, directories, fanout)
        diags.extend(found)
        concept_diags = check_concepts(bundle, paths, merge_listed([listed_items]), now, sources)
    diags.extend(concept_diags)
    concepts = len(paths)
    files += index_files + concepts

    # Stable sort: equal keys keep the order they were found in, the same in one process or several.
    diags.sort(key=lambda d: (d.path, d.line or 0, d.code))
    # The content id is free for an okf-compiled bundle (its manifest); for any other bundle it would mean
    # hashing every file a second time, which doubles a first check's cost, so check leaves it out there.
    corpus_id: str | None = None
    if manifest is not None:
        try:
            corpus_id = bundle.corpus_id()
        except (OSError, BundleError):
            corpus_id = None
    return CheckReport(bundle=str(bundle.root), corpus_id=corpus_id, okf_version=bundle.okf_version,
                       concepts=concepts, files=files, seconds=round(time.perf_counter() - started, 3),
                       diagnostics=diags)


from okf.check.parallel import check_in_pool, default_workers
