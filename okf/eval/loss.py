"""Loss attribution: for a gold span the shortlist missed, where along the walk it was lost.

Each concept covering the span is placed at the furthest stage the trace shows it reached; the span is
charged to the furthest stage any of its covering concepts reached (see docs/evaluation.md):

``no_concept``           no concept in the bundle records lines overlapping the span (lost at compile time)
``never_offered``        some directory above the concept never appeared in an ``offered`` event
``not_opened``           every directory above it was offered, but one (or the concept's own signpost) was
                         offered and never kept by a ``selected`` event
``not_reached``          every directory above it was opened (or the concept was collected or linked to),
                         but it was never judged before the walk stopped
``judged_not_relevant``  the judge gave it ``relevant: false``
``judge_failed``         its judgment failed (``failed: true`` or ``relevant: null``)
``not_shortlisted``      judged relevant, but not on the shortlist (cut by ``max_shortlist``)
``walk_failed``          the navigation of that question raised an error (recorded on the question)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from okf.models import TraceEvent

LossStage = Literal[
    "no_concept",
    "never_offered",
    "not_opened",
    "not_reached",
    "judged_not_relevant",
    "judge_failed",
    "not_shortlisted",
    "walk_failed",
]

# Least to most advanced: a span is charged to the most advanced stage any covering concept reached.
STAGES: tuple[LossStage, ...] = (
    "no_concept",
    "never_offered",
    "not_opened",
    "not_reached",
    "judged_not_relevant",
    "judge_failed",
    "not_shortlisted",
    "walk_failed",
)
_RANK = {stage: rank for rank, stage in enumerate(STAGES)}


def ancestors(concept: str) -> list[str]:
    """Directories above a concept path, outermost first, root excluded: ``a/b/c.md`` -> ``[a/, a/b/]``."""
    parts = concept.split("/")[:-1]
    return ["/".join(parts[: i + 1]) + "/" for i in range(len(parts))]


@dataclass
class WalkView:
    """What one trace shows about each path: offered, kept, collected, judged."""

    offered: set[str] = field(default_factory=set)
    kept: set[str] = field(default_factory=set)
    opened: set[str] = field(default_factory=set)
    collected: set[str] = field(default_factory=set)
    linked: set[str] = field(default_factory=set)
    verdicts: dict[str, list[bool | None]] = field(default_factory=dict)

    @classmethod
    def from_trace(cls, trace: Iterable[TraceEvent]) -> WalkView:
        """Fold the events of one navigation trace."""
        view = cls()
        for event in trace:
            data = event.data or {}
            if event.kind == "offered":
                view.opened.add(event.path or "")
                view.offered.update(str(p) for p in data.get("signposts") or ())
            elif event.kind == "selected":
                view.kept.update(str(p) for p in data.get("kept") or ())
            elif event.kind == "collected":
                view.opened.add(event.path or "")  # only an opened directory's concepts are collected
                view.collected.update(str(p) for p in data.get("concepts") or ())
            elif event.kind == "link":
                if data.get("target"):
                    view.linked.add(str(data["target"]))
            elif event.kind == "verdict" and event.path:
                failed = bool(data.get("failed")) or data.get("relevant") is None
                view.verdicts.setdefault(event.path, []).append(None if failed else bool(data["relevant"]))
        return view

    def stage(self, concept: str, shortlisted: set[str]) -> LossStage | None:
        """The furthest stage ``concept`` reached; None when it is on the shortlist (nothing was lost)."""
        if concept in shortlisted:
            return None
        verdicts = self.verdicts.get(concept)
        if verdicts:
            if True in verdicts:
                return "not_shortlisted"
            if None in verdicts:
                return "judge_failed"
            return "judged_not_relevant"
        if concept in self.collected or concept in self.linked:
            return "not_reached"
        for directory in ancestors(concept):
            if directory not in self.offered:
                return "never_offered"
            # A directory counts as opened when it was kept or its listing was offered (the walk went in).
            if directory not in self.kept and directory not in self.opened:
                return "not_opened"
        parent = concept.rsplit("/", 1)[0] + "/" if "/" in concept else ""
        if parent == "" and "" not in self.opened and concept not in self.offered:
            return "never_offered"  # the walk never listed the root
        if concept in self.offered and concept not in self.kept:
            return "not_opened"
        return "not_reached"


def attribute(covering: list[str], view: WalkView, shortlisted: set[str]) -> LossStage | None:
    """The stage a span was lost at, given the concepts covering it; None when it was not lost."""
    if not covering:
        return "no_concept"
    stages = [view.stage(c, shortlisted) for c in covering]
    if any(s is None for s in stages):
        return None
    return max((s for s in stages if s is not None), key=_RANK.__getitem__)
