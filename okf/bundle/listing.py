"""Directory listings (OKF §8): read a directory's ``index.md`` and resolve its entries against the bundle.

Only concepts and directories become signposts. An entry naming another existing file (a ``.py`` attester,
``log.md``) is neither a signpost nor a problem; an entry naming nothing, or leaving the bundle, is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from okf.bundle.codes import diagnostic
from okf.bundle.documents import CodedBundleError, load_frontmatter, read_text
from okf.bundle.model import Diagnostic
from okf.bundle.paths import is_external, is_hidden, normalize, plain_target, split_target
from okf.errors import BundleError, PathEscapeError
from okf.markdown import IndexEntry, parse_index

if TYPE_CHECKING:
    from okf.bundle import Bundle
    from okf.bundle.bundle import DirScan

EntryKind = Literal["concept", "directory", "other", "self", "external", "missing", "outside"]


@dataclass
class ResolvedEntry:
    """An ``index.md`` entry and what its target resolved to (``path`` as a signpost path, or None)."""

    entry: IndexEntry
    kind: EntryKind
    path: str | None


@dataclass
class IndexFile:
    """A directory's parsed ``index.md``."""

    path: str
    entries: list[ResolvedEntry] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    okf_version: str | None = None


def _classify(bundle: Bundle, target: str, directory: str) -> tuple[EntryKind, str | None]:
    if plain_target(target):  # the usual entry, "name.md" or "sub/": found in the scans, no path work
        known = bundle.plain_entry(target[1:] if target.startswith("/") else directory + target)
        if known is not None and known[1].rstrip("/") != directory.rstrip("/"):
            return known
    if is_external(target):
        return "external", None
    ref = split_target(target)
    if not ref:
        return "self", None
    try:
        rel = normalize(ref, directory)
        bundle.real_path(rel.rstrip("/"))
    except PathEscapeError:
        return "outside", None
    bare = rel.rstrip("/")
    if bare == "index.md" or bare.endswith("/index.md"):
        bare = bare[: -len("index.md")].rstrip("/")
        if not bundle.is_dir(bare):
            return "missing", rel
        rel = bare + "/" if bare else ""
    if is_hidden(bare):
        return ("other", rel) if bundle.exists(bare) else ("missing", rel)
    if rel == "" or rel.rstrip("/") == directory.rstrip("/"):
        return "self", None
    if bundle.is_dir(bare):
        return "directory", bare + "/"
    if rel.endswith("/"):
        return "missing", rel
    if bundle.is_concept_path(bare):
        return "concept", bare
    if not bare.endswith(".md") and bundle.is_concept_path(bare + ".md"):
        return "concept", bare + ".md"
    if bundle.exists(bare):
        return "other", bare
    return "missing", bare


def _child(scan: DirScan, target: str, directory: str) -> tuple[EntryKind, str] | None:
    """What :func:`_classify` gives a plain target naming a concept (``name.md``) or folder (``name`` or
    ``name/``) of ``directory`` itself, found in ``directory``'s ``scan`` (:meth:`~okf.bundle.bundle.DirScan.child`,
    as :meth:`~okf.bundle.Bundle.plain_entry` concludes, without its path work or its cache). None for any other
    target (then ask :func:`_classify`). tests/test_plain_targets.py compares the two."""
    slash = target[-1:] == "/"
    name = target[:-1] if slash else target
    if not name or "/" in name or name == "index.md" or not plain_target(target):
        return None
    return scan.child(directory, name, slash)


def read_index(bundle: Bundle, directory: str, read: tuple[str, list[Diagnostic]] | None = None) -> IndexFile | None:
    """The parsed ``index.md`` of ``directory`` ("" or "a/b/"), or None when it has none; ``read``: what
    :func:`~okf.bundle.documents.read_text` gave for it (a caller that has read the file: it exists)."""
    rel = directory + "index.md"
    if read is None and not bundle.exists(rel):
        return None
    index = IndexFile(rel)
    try:
        text, index.diagnostics = read if read is not None else read_text(bundle.real_path(rel), rel)
        raw, parts = load_frontmatter(text, rel)
    except CodedBundleError as exc:
        index.diagnostics.append(diagnostic(exc.code, rel, exc.line, exc.message, exc.fix))
        return index
    except BundleError as exc:
        index.diagnostics.append(diagnostic("E006", rel, exc.line, exc.message))
        return index
    if raw is not None:
        if directory:
            index.diagnostics.append(
                diagnostic(
                    "E010", rel, 1, "index.md below the bundle root has frontmatter (OKF §8 allows it only at the root)"
                )
            )
        else:
            others = sorted(k for k in raw if k != "okf_version")
            if others:
                index.diagnostics.append(
                    diagnostic(
                        "E011",
                        rel,
                        1,
                        f"root index.md frontmatter may carry only okf_version; found {', '.join(others)}",
                    )
                )
            if raw.get("okf_version") is not None:
                index.okf_version = str(raw["okf_version"])
    listing = parse_index(parts.body, parts.body_start_line - 1)
    for line, problem in listing.problems:
        index.diagnostics.append(diagnostic("E012", rel, line, problem))
    # The directory's own scan, for entries naming one of its children (most of them): see _child.
    scan = bundle.directory_scan(directory) if bundle.is_dir(directory.rstrip("/")) else None
    for entry in listing.entries:
        child = _child(scan, entry.target, directory) if scan is not None else None
        kind, path = child if child is not None else _classify(bundle, entry.target, directory)
        index.entries.append(ResolvedEntry(entry, kind, path))
        if kind == "missing":
            index.diagnostics.append(
                diagnostic("W110", rel, entry.line, f"entry [{entry.title}]({entry.target}) points at nothing")
            )
        elif kind == "outside":
            index.diagnostics.append(
                diagnostic(
                    "W111",
                    rel,
                    entry.line,
                    f"entry [{entry.title}]({entry.target}) points outside the bundle; not followed",
                )
            )
    return index
