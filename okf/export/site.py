"""A static HTML site of a bundle: one page per directory (``dir/index.html``) and per concept (``a/b.md`` ->
``a/b.html``), the signposts as navigation, links between concepts rewritten to pages, frontmatter as a small
table, deprecated and stale concepts marked. Built with okf.html (the trace report's templating): every
bundle string escaped, raw HTML in bodies shown as text, no external resources, no script."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable
from datetime import date, datetime
from typing import Any
from urllib.parse import quote, unquote

from okf.bundle import Bundle
from okf.bundle.paths import is_external
from okf.errors import BundleError
from okf.export.reading import Collected, Directory, Entry
from okf.html import render
from okf.markdown import to_html

NOT_EXPORTED = "#not-exported"


def page_of(path: str) -> str:
    """The page of a bundle path: ``a/b.md`` -> ``a/b.html``, ``a/b/`` -> ``a/b/index.html``, ``""`` -> index."""
    if path == "" or path.endswith("/"):
        return path + "index.html"
    return path.removesuffix(".md") + ".html"


def href(target_page: str, from_page: str) -> str:
    """A relative, percent-encoded link from one page of the site to another."""
    rel = posixpath.relpath(target_page, posixpath.dirname(from_page) or ".")
    return quote(rel, safe="/")


def _target_page(bundle: Bundle, target: str, base: str) -> str | None:
    """The page a body link leads to, or None when it leads to nothing the site has."""
    try:
        rel = bundle.resolve(target, base)
    except BundleError:
        return None
    bare = rel.rstrip("/")
    if bare == "index.md" or bare.endswith("/index.md"):
        bare = bare[: -len("index.md")].rstrip("/")
        return page_of(bare + "/" if bare else "") if bundle.is_dir(bare) or bare == "" else None
    if bare == "" or bundle.is_dir(bare):
        return page_of(bare + "/" if bare else "")
    for candidate in (bare, bare + ".md"):
        if candidate.endswith(".md") and bundle.is_concept_path(candidate):
            return page_of(candidate)
    return None


def rewriter(bundle: Bundle, concept_path: str):
    """Map a concept body's link targets to site pages; external links and in-page anchors stay as they are."""
    page = page_of(concept_path)
    base = concept_path.rpartition("/")[0]

    def rewrite(target: str) -> str:
        if not target or target.startswith("#") or is_external(target):
            return target
        path, _, fragment = target.partition("#")
        found = _target_page(bundle, unquote(path), base)
        if found is None:
            return NOT_EXPORTED
        return href(found, page) + (f"#{fragment}" if fragment else "")

    return rewrite


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, datetime | date):
        return value.isoformat()
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _crumbs(path: str, collected: Collected, from_page: str) -> list[dict[str, str]]:
    out = [{"title": collected.directories[""].title, "href": href("index.html", from_page)}]
    parts = path.rstrip("/").split("/")[:-1]  # the directories above a concept or a directory
    for n in range(len(parts)):
        directory = "/".join(parts[: n + 1]) + "/"
        node = collected.directories.get(directory)
        out.append({"title": node.title if node else parts[n], "href": href(page_of(directory), from_page)})
    return out


def _signpost_rows(
    directory: Directory, entries: dict[str, Entry], from_page: str, current: str = ""
) -> list[dict[str, Any]]:
    rows = []
    for signpost in directory.signposts:
        entry = entries.get(signpost.path)
        if not signpost.is_dir and entry is None:
            continue  # unreadable: not exported
        rows.append(
            {
                "title": signpost.title,
                "description": signpost.description,
                "is_dir": signpost.is_dir,
                "href": href(page_of(signpost.path), from_page),
                "current": signpost.path == current,
                "deprecated": bool(entry and entry.deprecated),
                "stale": bool(entry and entry.stale),
            }
        )
    return rows


def site_pages(
    bundle: Bundle, collected: Collected, progress: Callable[[int, int], None] | None = None
) -> dict[str, str]:
    """Every page of the site: path inside the folder -> HTML (``progress(done, total)`` as pages are made)."""
    entries = {e.path: e for e in collected.entries}
    pages: dict[str, str] = {}
    total = len(collected.directories) + len(collected.entries)
    for path, directory in collected.directories.items():
        page = page_of(path)
        pages[page] = render(
            "site_directory.html.j2",
            page_title=directory.title,
            directory=directory,
            crumbs=_crumbs(path, collected, page) if path else [],
            bundle_title=collected.title,
            signposts=_signpost_rows(directory, entries, page),
        )
    for entry in collected.entries:
        if progress is not None and len(pages) % 50 == 0:
            progress(len(pages), total)
        page = page_of(entry.path)
        parent = collected.directories.get(entry.path.rpartition("/")[0] + "/" if "/" in entry.path else "")
        pages[page] = render(
            "site_concept.html.j2",
            page_title=entry.title,
            entry=entry,
            bundle_title=collected.title,
            crumbs=_crumbs(entry.path, collected, page),
            siblings=_signpost_rows(parent, entries, page, entry.path) if parent else [],
            frontmatter=[(str(k), _shown(v)) for k, v in entry.frontmatter.items()],
            stale_after=entry.stale_after.date().isoformat() if entry.stale_after else "",
            body=to_html(entry.body, rewriter(bundle, entry.path)),
            sources=entry.sources(),
        )
    if progress is not None:
        progress(len(pages), total)
    return pages
