"""Composite escalation: where to look when the evidence is suspicious, or when nothing was found at all.

A *source family* is a place other than where the walks already looked (seed 003, Block 4). The axes, each
walked at once by one walk of the same question:

- ``cited``: the concepts a relevant synthesis (``okf ask --save``) cites: sources of another kind, the raw
  concepts instead of an answer written from them;
- ``links``: the concepts relevant and partial evidence links to, not yet judged;
- ``bundle``: the other bundles given, where the angle has not been walked;
- ``groups``: the top-level groups (directories) of a bundle no walk opened.

Every axis that has somewhere to go is taken (composite), within the walk cap.
"""

from __future__ import annotations

from dataclasses import dataclass

from okf.bundle import Bundle
from okf.errors import BundleError
from okf.navigator.walk import Start
from okf.orchestrate.crosscheck import Found

_RESERVED = {"index.md", "log.md"}
AXES = ("cited", "links", "bundle", "groups")


@dataclass(frozen=True)
class Family:
    """Where an escalation walk starts: the axis, the bundle (its index among the sources), the start."""

    axis: str
    source: int
    start: Start
    came_from: str


def families(
    bundles: list[Bundle],
    found: list[Found],
    judged: set[tuple[str, str]],
    walked_in: set[int],
    opened: list[set[str]],
    axes: tuple[str, ...] = AXES,
) -> list[Family]:
    """The source families available for an escalation, in the order of :data:`AXES`.

    ``judged`` holds (bundle root, concept path) of every concept judged so far, ``walked_in`` the indices of
    the bundles the angle was walked in, ``opened`` the directories walks opened, per bundle.
    """
    roots = [str(b.root) for b in bundles]
    out: list[Family] = []
    if "cited" in axes:
        for n, bundle in enumerate(bundles):
            cited = [
                (f"{c}.md", f.entry.path) for f in found if f.relevant and f.bundle == roots[n] for c in f.entry.cites
            ]
            start = _concepts(bundle, cited, judged, roots[n])
            if start:
                out.append(Family("cited", n, start, ", ".join(dict.fromkeys(s for _, s in cited))))
    if "links" in axes:
        for n, bundle in enumerate(bundles):
            seeds: list[tuple[str, str]] = []
            for f in found:
                if f.bundle != roots[n]:
                    continue
                try:
                    links = bundle.links(f.concept)
                except BundleError:
                    continue
                seeds += [
                    (link.path, f.entry.path)
                    for link in links
                    if link.path
                    and link.exists
                    and not link.external
                    and link.path.endswith(".md")
                    and link.path.rsplit("/", 1)[-1] not in _RESERVED
                ]
            start = _concepts(bundle, seeds, judged, roots[n])
            if start:
                out.append(Family("links", n, start, ", ".join(dict.fromkeys(s for _, s in seeds))))
    if "bundle" in axes:
        out += [Family("bundle", n, Start(), roots[n]) for n in range(len(bundles)) if n not in walked_in]
    if "groups" in axes:
        for n, bundle in enumerate(bundles):
            if n not in walked_in:
                continue  # its root was never walked: the bundle axis covers it
            try:
                signposts = bundle.listing("").signposts
            except BundleError:
                continue
            groups = tuple((s.path, (i,)) for i, s in enumerate(signposts) if s.is_dir and s.path not in opened[n])
            if groups:
                out.append(Family("groups", n, Start(directories=groups), ", ".join(p for p, _ in groups[:5])))
    return out


def _concepts(bundle: Bundle, seeds: list[tuple[str, str]], judged: set[tuple[str, str]], root: str) -> Start | None:
    """A start judging the ``seeds`` (path, where it came from) not judged yet, in order, each once."""
    picked: dict[str, str] = {}
    for path, came_from in seeds:
        if path in picked or (root, path) in judged or not bundle.is_concept_path(path):
            continue
        picked[path] = came_from
    if not picked:
        return None
    return Start(directories=(), concepts=tuple((p, (n,), s) for n, (p, s) in enumerate(picked.items())))
