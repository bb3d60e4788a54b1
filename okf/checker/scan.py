"""The checks of one pass over a bundle: its directories' listings, then its concepts, each a list of diagnostics.

Run in this process by :func:`okf.checker.api.check` or in worker processes by :mod:`okf.checker.parallel`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from okf.bundle import Bundle, Diagnostic, diagnostic
from okf.bundle.documents import CodedBundleError
from okf.checker.rules import SourceFiles, check_concept, check_log
from okf.errors import BundleError

_SPACE = re.compile(r"\s+")
# progress(stage, done, total), as compile reports it; check_concepts calls it every _PROGRESS_EVERY concepts.
Progress = Callable[[str, int, int], None]
_PROGRESS_EVERY = 200


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _clip(text: str, limit: int = 100) -> str:
    text = _norm(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _same_description(entry: str, description: str) -> bool:
    """Equal up to whitespace, or the entry is the description's leading part (a shortened summary)."""
    if entry == description:  # as okf's compiler writes every index entry: no need to normalize either
        return True
    short, full = _norm(entry).rstrip(".\u2026 "), _norm(description)
    return short == full.rstrip(".\u2026 ") or (bool(short) and full.startswith(short))


ListedItem = tuple[str, str, int, str]  # concept path, index.md path, line, the entry's description


def check_directories(
    bundle: Bundle, directories: list[str], fanout: int
) -> tuple[list[Diagnostic], int, list[ListedItem]]:
    """Listing diagnostics of ``directories`` (index problems, unlisted concepts, fanout, log.md), how many
    index.md and log.md files were read, and what each index entry says of a concept, in order."""
    diags: list[Diagnostic] = []
    files = 0
    listed: list[ListedItem] = []
    for directory in directories:
        plan = bundle.listing_plan(directory)  # no signposts built: check needs only what they would be
        diags.extend(plan.diagnostics)
        index_rel = directory + "index.md"
        index = plan.index
        if index is not None:
            files += 1
            for resolved in index.entries:
                if resolved.kind == "concept" and resolved.path:
                    listed.append((resolved.path, index_rel, resolved.entry.line, resolved.entry.description))
            for path in plan.concepts:
                diags.append(diagnostic("W112", index_rel, None, f"{path} is not listed in {index_rel}"))
        if plan.size > fanout:
            where = index_rel if index is not None else (directory or "./")
            diags.append(
                diagnostic(
                    "W120",
                    where,
                    None,
                    f"directory {directory or './'} has {plan.size} entries, more than the fanout of {fanout}",
                )
            )
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


def check_concepts(
    bundle: Bundle,
    paths: list[str],
    listed: dict[str, tuple[str, int, str]],
    now: datetime,
    sources: SourceFiles,
    progress: Progress | None = None,
) -> list[Diagnostic]:
    """The diagnostics of the concepts ``paths``, in order; ``listed`` holds what index entries say of them."""
    diags: list[Diagnostic] = []
    indexed = bundle.exists("index.md")  # a bundle with a root index.md is read through its index files
    has_index: dict[str, bool] = {}
    for n, path in enumerate(paths):
        if progress is not None and n % _PROGRESS_EVERY == 0:
            progress("concepts", n, len(paths))
        directory = path.rpartition("/")[0]
        if indexed and path not in listed:
            if directory not in has_index:
                has_index[directory] = bundle.exists(f"{directory}/index.md" if directory else "index.md")
            if not has_index[directory]:
                diags.append(
                    diagnostic(
                        "W116",
                        path,
                        None,
                        f"no index.md lists {path} and its directory "
                        f"{directory + '/' if directory else './'} has none: a consumer reading "
                        "the bundle through its index files never reaches it",
                    )
                )
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
            diags.append(
                diagnostic(
                    "W113",
                    entry[0],
                    entry[1],
                    f"the entry for {path} says {_clip(entry[2])!r}; its frontmatter says {_clip(description)!r}",
                )
            )
    return diags
