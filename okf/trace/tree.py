"""Fold a walk's events into a tree of directories, the signposts offered in each and the concepts judged.

Every known event kind lands on its node; the events of an orchestration (plan, angle, round, escalation,
stop) are kept in order in :attr:`WalkTree.orchestration` (a walk's own events carry its ``angle`` as an extra
field); events of kinds this version does not know are kept in order in :attr:`WalkTree.other`, and unknown
fields of known events in each node's ``extra``, so nothing is lost.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from okf.models import TraceEvent

# A verdict's grade: the judge's own `grade` when it gives one, else derived from `relevant` and `failed`.
GRADES = ("relevant", "partial", "no", "failed")
_KNOWN = {"offered", "selected", "collected", "verdict", "link", "failure", "budget", "warning", "answer", "read_on"}
# Events of an orchestrated navigation (okf.orchestrate): kept in order apart from the tree, whatever shape.
ORCHESTRATION_KINDS = ("plan", "angle", "round", "escalation", "stop")
_VERDICT_FIELDS = {"relevant", "reason", "failed", "cached", "via", "grade"}
_SELECTOR_PAGE = re.compile(r"the selector failed on page (\d+)")


@dataclass
class Choice:
    """A signpost offered to the selector and what became of it."""

    path: str
    page: int = 1
    state: str = "offered"  # kept, passed, read on (passed, then opened), unanswered (failed or stopped first)
    reason: str = ""


@dataclass
class Judged:
    """One verdict on a concept."""

    grade: str
    reason: str = ""
    via: str = ""
    cached: bool = False
    error: str = ""
    t: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class LinkStep:
    """A link of a relevant concept: followed, or why not."""

    target: str
    skipped: str | None = None


@dataclass
class ConceptNode:
    """A concept the walk collected, reached by a link or judged."""

    path: str
    collected: bool = False
    verdicts: list[Judged] = field(default_factory=list)
    links: list[LinkStep] = field(default_factory=list)
    linked_from: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def grade(self) -> str:
        """The last verdict's grade, or ``not judged``."""
        return self.verdicts[-1].grade if self.verdicts else "not judged"

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass
class Counts:
    """What happened in a directory and below it."""

    directories: int = 0
    collected: int = 0
    judged: int = 0
    relevant: int = 0
    partial: int = 0
    no: int = 0
    failed: int = 0
    failures: int = 0

    def add(self, other: Counts) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class DirectoryNode:
    """A directory: opened or not, its offered signposts, its concepts and the subdirectories below."""

    path: str
    opened: bool = False
    t_open: float | None = None
    t_offered: float | None = None
    t_selected: float | None = None
    t_last: float | None = None
    offered: list[Choice] = field(default_factory=list)
    concepts: dict[str, ConceptNode] = field(default_factory=dict)
    children: dict[str, DirectoryNode] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)

    @property
    def name(self) -> str:
        return self.path.rstrip("/").rsplit("/", 1)[-1] + "/" if self.path else "(root)"

    @property
    def depth(self) -> int:
        return self.path.count("/")

    @property
    def selector_seconds(self) -> float | None:
        """Time from offering this directory's signposts to the selection (the selector call, pages at once)."""
        if self.t_offered is None or self.t_selected is None:
            return None
        return max(0.0, self.t_selected - self.t_offered)

    def choice(self, path: str) -> Choice | None:
        return next((c for c in self.offered if c.path == path), None)

    def ordered_children(self) -> list[DirectoryNode | Choice]:
        """Offered signposts in offer order (their node when the walk went in), then other subdirectories."""
        out: list[DirectoryNode | Choice] = []
        for choice in self.offered:
            out.append(self.children.get(choice.path, choice))
        offered = {c.path for c in self.offered}
        out += [node for path, node in sorted(self.children.items()) if path not in offered]
        return out


@dataclass
class WalkTree:
    """A whole walk folded: the root directory, how it ended, and everything not tied to one node."""

    root: DirectoryNode
    stopped_by: str | None = None
    t_stop: float | None = None
    t_end: float = 0.0
    events: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    answer: dict[str, Any] | None = None
    orchestration: list[dict[str, Any]] = field(default_factory=list)
    other: list[dict[str, Any]] = field(default_factory=list)
    totals: Counts = field(default_factory=Counts)
    signposts_offered: int = 0
    signposts_kept: int = 0
    selector_calls: int = 0
    links_followed: int = 0
    links_skipped: dict[str, int] = field(default_factory=dict)

    def directories(self) -> Iterable[DirectoryNode]:
        """Every directory node, depth first in display order."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed([c for c in node.ordered_children() if isinstance(c, DirectoryNode)]))

    def concepts(self) -> Iterable[ConceptNode]:
        for directory in self.directories():
            yield from directory.concepts.values()

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (``okf trace --json``)."""
        return _plain(self)


def _plain(value: Any) -> Any:
    if isinstance(value, DirectoryNode):
        out = {
            k: _plain(getattr(value, k))
            for k in value.__dataclass_fields__
            if k not in ("children", "concepts", "counts")
        }
        out["counts"] = asdict(value.counts)
        out["concepts"] = [_plain(c) for c in value.concepts.values()]
        out["children"] = [_plain(c) for c in value.ordered_children() if isinstance(c, DirectoryNode)]
        return out
    if isinstance(value, ConceptNode):
        return {**asdict(value), "grade": value.grade}
    if isinstance(value, WalkTree):
        out = {k: _plain(getattr(value, k)) for k in value.__dataclass_fields__ if k != "root"}
        out["totals"] = asdict(value.totals)
        out["root"] = _plain(value.root)
        return out
    if isinstance(value, Choice | Judged | LinkStep):
        return asdict(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def parent_of(path: str) -> str:
    """The directory holding ``path``: ``a/b/c.md`` and ``a/b/c/`` -> ``a/b/``; top level -> ``""``."""
    stem = path.rstrip("/")
    return stem.rsplit("/", 1)[0] + "/" if "/" in stem else ""


def grade_of(data: dict[str, Any]) -> str:
    """A verdict's grade: ``grade`` when given (any string), else from ``failed`` and ``relevant``."""
    grade = data.get("grade")
    if data.get("failed") or (data.get("relevant") is None and not grade):
        return "failed"
    if isinstance(grade, str) and grade:
        return grade
    return "relevant" if data.get("relevant") else "no"


class _Folder:
    def __init__(self) -> None:
        self.tree = WalkTree(root=DirectoryNode(""))
        self.failed_pages: dict[str, set[int]] = {}

    def directory(self, path: str) -> DirectoryNode:
        if path == "":
            return self.tree.root
        parent = self.directory(parent_of(path))
        node = parent.children.get(path)
        if node is None:
            node = parent.children[path] = DirectoryNode(path)
        return node

    def concept(self, path: str) -> ConceptNode:
        directory = self.directory(parent_of(path))
        node = directory.concepts.get(path)
        if node is None:
            node = directory.concepts[path] = ConceptNode(path)
        return node

    def node_for(self, path: str) -> DirectoryNode | ConceptNode:
        return self.directory(path) if path == "" or path.endswith("/") else self.concept(path)

    def touch(self, path: str | None, t: float) -> None:
        node = self.directory(parent_of(path) if path and not path.endswith("/") else path or "")
        while True:
            node.t_last = t if node.t_last is None else max(node.t_last, t)
            if node.path == "":
                return
            node = self.directory(parent_of(node.path))

    def add(self, event: TraceEvent) -> None:
        tree, data, path = self.tree, event.data or {}, event.path
        tree.events += 1
        tree.kinds[event.kind] = tree.kinds.get(event.kind, 0) + 1
        tree.t_end = max(tree.t_end, event.t)
        if event.kind in ORCHESTRATION_KINDS:
            tree.orchestration.append({"seq": event.seq, "t": event.t, "kind": event.kind, "path": path, "data": data})
            return
        handler = getattr(self, f"_on_{event.kind}", None) if event.kind in _KNOWN else None
        if handler is None:
            tree.other.append({"seq": event.seq, "t": event.t, "kind": event.kind, "path": path, "data": data})
            return
        handler(event, data, path)

    def _on_collected(self, event: TraceEvent, data: dict[str, Any], path: str | None) -> None:
        node = self.directory(path or "")
        node.opened = True
        node.t_open = event.t if node.t_open is None else node.t_open
        for concept in _strings(data.get("concepts")):
            self.concept(concept).collected = True
        self.touch(node.path, event.t)

    def _on_offered(self, event: TraceEvent, data: dict[str, Any], path: str | None) -> None:
        node = self.directory(path or "")
        node.opened = True
        node.t_offered = event.t if node.t_offered is None else node.t_offered
        given = data.get("page")
        page = given if isinstance(given, int) else 1
        self.tree.selector_calls += 1
        for signpost in _strings(data.get("signposts")):
            if node.choice(signpost) is None:
                node.offered.append(Choice(signpost, page))
                self.tree.signposts_offered += 1
        self.touch(node.path, event.t)

    def _on_selected(self, event: TraceEvent, data: dict[str, Any], path: str | None) -> None:
        node = self.directory(path or "")
        node.t_selected = event.t
        given = data.get("reasons")
        reasons: dict[str, Any] = given if isinstance(given, dict) else {}
        kept = set(_strings(data.get("kept")))
        for signpost in kept:
            if node.choice(signpost) is None:
                node.offered.append(Choice(signpost))
        for choice in node.offered:
            if choice.path in kept:
                choice.state, choice.reason = "kept", str(reasons.get(choice.path) or "")
                self.tree.signposts_kept += 1
            elif choice.state == "offered":
                choice.state = "passed"
        self.touch(node.path, event.t)

    def _on_read_on(self, event: TraceEvent, data: dict[str, Any], path: str | None) -> None:
        """Directories the selector passed over, opened once nothing relevant was found in what it chose."""
        for directory in _strings(data.get("opened")):
            parent = self.directory(parent_of(directory))
            choice = parent.choice(directory)
            if choice is None:
                choice = Choice(directory)
                parent.offered.append(choice)
            choice.state = "read on"
            self.touch(parent.path, event.t)

    def _on_verdict(self, event: TraceEvent, data: dict[str, Any], path: str | None) -> None:
        if not path:
            self.tree.other.append({"seq": event.seq, "t": event.t, "kind": event.kind, "path": path, "data": data})
            return
        extra = {k: v for k, v in data.items() if k not in _VERDICT_FIELDS}
        self.concept(path).verdicts.append(
            Judged(
                grade=grade_of(data),
                reason=str(data.get("reason") or ""),
                via=str(data.get("via") or ""),
                cached=bool(data.get("cached")),
                t=event.t,
                extra=extra,
            )
        )
        self.touch(path, event.t)

    def _on_link(self, event: TraceEvent, data: dict[str, Any], path: str | None) -> None:
        target = str(data.get("target") or "")
        skipped = data.get("skipped")
        step = LinkStep(target, str(skipped) if skipped else None)
        if path:
            self.concept(path).links.append(step)
        if step.skipped:
            self.tree.links_skipped[step.skipped] = self.tree.links_skipped.get(step.skipped, 0) + 1
        else:
            self.tree.links_followed += 1
            if target and path:
                self.concept(target).linked_from.append(path)
        self.touch(path, event.t)

    def _on_failure(self, event: TraceEvent, data: dict[str, Any], path: str | None) -> None:
        record = {"t": event.t, "path": path, **data}
        self.tree.failures.append(record)
        if path is not None and not path.endswith("/") and path != "":
            concept = self.concept(path)
            if concept.verdicts and concept.verdicts[-1].grade == "failed" and not concept.verdicts[-1].error:
                concept.verdicts[-1].error = str(data.get("error") or "")
            else:
                self.directory(parent_of(path)).failures.append(record)
        else:
            self.directory(path or "").failures.append(record)
        self.touch(path, event.t)

    def _on_budget(self, event: TraceEvent, data: dict[str, Any], path: str | None) -> None:
        if self.tree.stopped_by is None and data.get("stopped_by"):
            self.tree.stopped_by, self.tree.t_stop = str(data["stopped_by"]), event.t

    def _on_warning(self, event: TraceEvent, data: dict[str, Any], path: str | None) -> None:
        message = str(data.get("message") or "")
        self.tree.warnings.append({"t": event.t, "path": path, "message": message})
        if path is not None:
            node = self.node_for(path)
            node.warnings.append(message)
            page = _SELECTOR_PAGE.search(message)
            if page and isinstance(node, DirectoryNode):
                self.failed_pages.setdefault(node.path, set()).add(int(page.group(1)))

    def _on_answer(self, event: TraceEvent, data: dict[str, Any], path: str | None) -> None:
        self.tree.answer = {"t": event.t, **data}

    def finish(self) -> WalkTree:
        for node in self.tree.directories():
            failed = self.failed_pages.get(node.path, set())
            for choice in node.offered:
                if choice.state == "offered" or (choice.state == "passed" and choice.page in failed):
                    choice.state = "unanswered"
        _count(self.tree.root)
        self.tree.totals = self.tree.root.counts
        return self.tree


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _count(node: DirectoryNode) -> Counts:
    counts = Counts(directories=1 if node.opened else 0, failures=len(node.failures))
    for concept in node.concepts.values():
        counts.collected += concept.collected
        counts.judged += len(concept.verdicts)
        for verdict in concept.verdicts:
            if verdict.grade == "relevant":
                counts.relevant += 1
            elif verdict.grade == "partial":
                counts.partial += 1
            elif verdict.grade == "failed":
                counts.failed += 1
            else:
                counts.no += 1
    for child in node.children.values():
        counts.add(_count(child))
    node.counts = counts
    return counts


def fold(events: Iterable[TraceEvent]) -> WalkTree:
    """The tree of one walk's events (in ``seq`` order)."""
    folder = _Folder()
    for event in sorted(events, key=lambda e: e.seq):
        folder.add(event)
    return folder.finish()
