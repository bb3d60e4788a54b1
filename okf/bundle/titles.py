"""The title index of a bundle: its concepts by the letters of their title and file name, as its listings show them.

Names resolve to concepts through it (okf.orchestrate.names). Built from the listings, it reads every
directory's ``index.md``: about 1.5 s of CPU on a 15,000-concept bundle, paid by the first question a process
asks. So ``okf compile`` builds it from the tree it is about to swap in and writes it as ``.okf/titles.json``
(``{"format", "corpus_id", "titles": {key: [concept paths]}}``, keys sorted), and a reader takes it from there
when its ``corpus_id`` is the bundle's (:meth:`~okf.bundle.Bundle.corpus_id`: the manifest, and the syntheses
``okf ask --save`` filed since): the index those listings give, read in milliseconds. Any other bundle, or a
file that does not match, is indexed from its listings as before.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from okf.bundle.paths import derived_title
from okf.errors import BundleError
from okf.text.words import compact

if TYPE_CHECKING:
    from okf.bundle.bundle import Bundle

TITLES = ".okf/titles.json"
FORMAT = 1
_PARENTHESIS = re.compile(r"\s*\([^()]*\)\s*$")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


def title_keys(title: str, path: str) -> set[str]:
    """The keys a concept titled ``title`` at ``path`` is found by: its title, without a trailing
    parenthesis, without a leading article, and its file name, each as letters and digits (3 or more)."""
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    bare = _PARENTHESIS.sub("", title)
    keys = {compact(title), compact(bare), compact(_ARTICLE.sub("", bare)), compact(stem)}
    return {k for k in keys if len(k) >= 3}


def build(bundle: Bundle) -> dict[str, list[str]]:
    """The title index from every listing of ``bundle``: key -> concept paths, in listing order."""
    return index_of(_listings(bundle))


def _listings(bundle: Bundle) -> Iterator[list[tuple[str, str]]]:
    for directory in bundle.iter_directories():
        try:
            yield bundle.concept_titles(directory)
        except BundleError:
            continue


def index_of(listings: Iterable[list[tuple[str, str]]]) -> dict[str, list[str]]:
    """The title index of these listings, each the (path, title) of a directory's concept entries, directories
    in :meth:`~okf.bundle.Bundle.iter_directories` order (an empty title shown as the listing derives it)."""
    index: dict[str, list[str]] = {}
    for titles in listings:
        for path, title in titles:
            for key in title_keys(title or derived_title(path), path):
                paths = index.setdefault(key, [])
                if path not in paths:
                    paths.append(path)
    return index


def encode(bundle: Bundle) -> bytes:
    """``.okf/titles.json`` of ``bundle`` as it is on disk (its corpus id and its title index, keys sorted)."""
    return encode_index(build(bundle), bundle.corpus_id())


def encode_index(index: dict[str, list[str]], corpus_id: str) -> bytes:
    """``.okf/titles.json`` holding ``index`` (keys sorted) for the bundle whose corpus id is ``corpus_id``."""
    data = {"format": FORMAT, "corpus_id": corpus_id, "titles": {k: index[k] for k in sorted(index)}}
    return (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def load(bundle: Bundle) -> dict[str, list[str]] | None:
    """The title index ``.okf/titles.json`` holds when it was written for this bundle's content, else None
    (no file, unreadable, another format, another corpus id, or not the shape written)."""
    path = os.path.join(bundle.root, TITLES)
    if os.path.islink(path) or not os.path.isfile(path) or bundle.known_corpus_id() is None:
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("corpus_id") != bundle.corpus_id():
        return None
    titles = data.get("titles")
    if not isinstance(titles, dict):
        return None
    for paths in titles.values():
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            return None
    return titles
