"""The walk as a terminal tree: directories with their offered signposts kept or passed over, verdicts with
the judge's reason, links followed, failures, and what ended the walk. ANSI colours only when asked.

Every string from a bundle, a model or a trace file is reduced to one line without control characters, so
a title or a reason can never move the cursor or rewrite the screen.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from okf.trace.load import WalkRecord
from okf.trace.tree import Choice, ConceptNode, Counts, DirectoryNode, WalkTree, fold

Only = Literal["relevant", "failures"]

_CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x00-\x1f\x7f-\x9f]")
_STYLES = {
    "relevant": "32",
    "partial": "33",
    "no": "2",
    "failed": "31;1",
    "kept": "36",
    "passed": "2",
    "unanswered": "31",
    "dir": "1",
    "dim": "2",
    "warn": "33",
    "head": "1",
}
GRADE_LABELS = {
    "relevant": "relevant",
    "partial": "partial",
    "no": "not relevant",
    "failed": "FAILED",
    "not judged": "not judged",
}
STOP_BUDGETS = {
    "bodies": ("max_bodies", "the bodies budget"),
    "shortlist": ("max_shortlist", "a full shortlist"),
    "depth": ("max_depth", "the depth bound"),
    "calls": ("max_calls", "the calls budget"),
    "tokens": ("max_tokens", "the tokens budget"),
    "deadline": ("deadline_s", "the deadline"),
}
REASON_CHARS = 160


def clean(value: Any, limit: int | None = None) -> str:
    """One printable line: control characters and terminal escapes out, whitespace collapsed, cut at ``limit``."""
    text = " ".join(_CONTROL.sub(" ", str(value)).split())
    if limit is not None and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


class _Painter:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, style: str) -> str:
        if not self.color or style not in _STYLES:
            return text
        return f"\x1b[{_STYLES[style]}m{text}\x1b[0m"


def counts_text(counts: Counts) -> str:
    """``judged 8: 4 relevant, 1 partial, 3 not relevant, 0 failed`` (zero grades left out)."""
    if not counts.judged:
        return f"{counts.collected} collected, none judged" if counts.collected else ""
    parts = [
        f"{n} {label}"
        for n, label in (
            (counts.relevant, "relevant"),
            (counts.partial, "partial"),
            (counts.no, "not relevant"),
            (counts.failed, "failed"),
        )
        if n
    ]
    return f"judged {counts.judged}: " + ", ".join(parts)


def _shows(node: DirectoryNode | ConceptNode | Choice, only: Only | None) -> bool:
    if only is None:
        return True
    if isinstance(node, Choice):
        return only == "failures" and node.state == "unanswered"
    if isinstance(node, ConceptNode):
        grades = {v.grade for v in node.verdicts}
        return bool(grades & {"relevant", "partial"}) if only == "relevant" else "failed" in grades
    c = node.counts
    if only == "relevant":
        return c.relevant + c.partial > 0
    return c.failed + c.failures > 0 or any(ch.state == "unanswered" for ch in node.offered) or bool(node.warnings)


class _Renderer:
    def __init__(self, tree: WalkTree, *, depth: int | None, only: Only | None, color: bool) -> None:
        self.tree, self.depth, self.only, self.paint = tree, depth, only, _Painter(color)
        self.lines: list[str] = []

    def directory_line(self, node: DirectoryNode, choice: Choice | None) -> str:
        parts = [self.paint(clean(node.name), "dir")]
        if choice is not None:
            parts.append(self.choice_text(choice))
        facts: list[str] = []
        if node.opened and node.t_open is not None:
            facts.append(f"opened at {node.t_open:.3f} s")
        elif not node.opened:
            facts.append("not opened")
        if node.offered:
            kept = sum(c.state == "kept" for c in node.offered)
            seconds = node.selector_seconds
            timing = f" in {seconds * 1000:.1f} ms" if seconds is not None else ""
            facts.append(f"selector kept {kept} of {len(node.offered)}{timing}")
        counted = counts_text(node.counts)
        if counted:
            facts.append(counted)
        if node.failures:
            facts.append(self.paint(f"{len(node.failures)} failure(s)", "failed"))
        return "  ".join(parts) + ("  · " + " · ".join(facts) if facts else "")

    def choice_text(self, choice: Choice) -> str:
        if choice.state == "kept":
            reason = f": {clean(choice.reason, REASON_CHARS)}" if choice.reason else ""
            return self.paint(f"kept by the selector{reason}", "kept")
        if choice.state == "passed":
            return self.paint("passed over by the selector", "passed")
        if choice.state == "read on":
            return self.paint("passed over by the selector, read on when nothing was found", "passed")
        return self.paint("not answered (the selector failed or the walk stopped first)", "unanswered")

    def concept_lines(self, node: ConceptNode) -> list[str]:
        grade = node.grade
        label = self.paint(GRADE_LABELS.get(grade, clean(grade, 30)), grade if grade in _STYLES else "dim")
        head = f"{self.paint(clean(node.name), 'dir' if grade in ('relevant', 'partial') else '')}  {label}"
        if node.verdicts:
            verdict = node.verdicts[-1]
            said = verdict.error if grade == "failed" and verdict.error else verdict.reason
            if said:
                head += f" (judge): {clean(said, REASON_CHARS)}"
            flags = []
            if verdict.via == "link" and node.linked_from:
                flags.append(f"via link from {clean(node.linked_from[0])}")
            elif verdict.via == "link":
                flags.append("via link")
            if verdict.cached:
                flags.append("cached")
            if len(node.verdicts) > 1:
                flags.append(f"{len(node.verdicts)} verdicts")
            flags += [
                f"{clean(k, 40)}={clean(json.dumps(v, ensure_ascii=False), 60)}"
                for k, v in sorted(verdict.extra.items())
            ]
            if flags:
                head += self.paint(f"  [{'; '.join(flags)}]", "dim")
        elif node.linked_from:
            head += self.paint(f"  [reached by a link from {clean(node.linked_from[0])}]", "dim")
        lines = [head]
        followed = [link for link in node.links if link.skipped is None]
        lines += [self.paint(f"→ {clean(link.target)}", "dim") for link in followed]
        skipped: dict[str, int] = {}
        for link in node.links:
            if link.skipped is not None:
                skipped[link.skipped] = skipped.get(link.skipped, 0) + 1
        if skipped:
            why = ", ".join(f"{n} {clean(reason)}" for reason, n in sorted(skipped.items()))
            lines.append(self.paint(f"{sum(skipped.values())} link(s) not followed: {why}", "dim"))
        return lines

    def walk(self, node: DirectoryNode, prefix: str) -> None:
        if self.depth is not None and node.depth >= self.depth:
            return
        items: list[tuple[str, Any]] = []
        for concept in node.concepts.values():
            if _shows(concept, self.only):
                items.append(("concept", concept))
        for child in node.ordered_children():
            if _shows(child, self.only):
                items.append(("dir" if isinstance(child, DirectoryNode) else "choice", child))
        for n, (kind, item) in enumerate(items):
            last = n == len(items) - 1
            branch, follow = ("└─ ", "   ") if last else ("├─ ", "│  ")
            if kind == "concept":
                head, *rest = self.concept_lines(item)
                self.lines.append(prefix + branch + head)
                self.lines += [prefix + follow + "   " + line for line in rest]
            elif kind == "choice":
                name = self.paint(clean(item.path.rstrip("/").rsplit("/", 1)[-1] + "/"), "dim")
                self.lines.append(f"{prefix}{branch}{name}  {self.choice_text(item)}")
            else:
                self.lines.append(prefix + branch + self.directory_line(item, node.choice(item.path)))
                self.walk(item, prefix + follow)


def _stop_line(tree: WalkTree, record: WalkRecord | None) -> str:
    stop = next(
        (
            e["data"]
            for e in reversed(tree.orchestration)
            if e["kind"] == "stop" and isinstance(e.get("data"), dict) and e["data"].get("stop")
        ),
        None,
    )
    if stop is not None:
        # Walks of an orchestration stop at their round's share of the bodies; what ended it is the stop.
        return f"Orchestration stopped: {clean(stop['stop'])} ({clean(stop.get('reason', ''), 200)})."
    if tree.stopped_by is None:
        return "Finished: the walk ran out of work (no budget stopped it)."
    key, what = STOP_BUDGETS.get(tree.stopped_by, ("", f"{tree.stopped_by!r}"))
    budgets = record.budgets if record is not None and record.budgets else {}
    limit = f" ({key} = {budgets[key]})" if key in budgets else ""
    when = f" at {tree.t_stop:.3f} s" if tree.t_stop is not None else ""
    return f"Stopped by {what}{limit}{when}."


def render_tree(
    walk: WalkRecord | WalkTree, *, depth: int | None = None, only: Only | None = None, color: bool = False
) -> str:
    """The walk as text lines (no trailing newline); ``depth`` and ``only`` filter, ``color`` adds ANSI."""
    record = walk if isinstance(walk, WalkRecord) else None
    tree = fold(walk.events) if isinstance(walk, WalkRecord) else walk
    r = _Renderer(tree, depth=depth, only=only, color=color)
    paint = r.paint
    if record is not None and record.question:
        r.lines.append(paint(f"Walk for: {clean(record.question, 300)}", "head"))
    about = [
        f"bundle {clean(record.bundle)}" if record is not None and record.bundle else "",
        f"reader {clean(record.reader)}" if record is not None and record.reader else "",
        f"{tree.events} events over {tree.t_end:.3f} s",
    ]
    r.lines.append(" · ".join(a for a in about if a))
    r.lines.append(r.directory_line(tree.root, None))
    r.walk(tree.root, "")
    t = tree.totals
    r.lines.append("")
    r.lines.append(_stop_line(tree, record))
    skipped = sum(tree.links_skipped.values())
    r.lines.append(
        f"{t.directories} directories opened · {tree.selector_calls} selector call(s) offered "
        f"{tree.signposts_offered} signposts, {tree.signposts_kept} kept · "
        f"{counts_text(t) or 'no body judged'} · {tree.links_followed} links followed, {skipped} not"
    )
    if tree.answer is not None:
        cited = ", ".join(clean(c) for c in tree.answer.get("cited") or []) or "nothing"
        r.lines.append(f"Answer: {clean(tree.answer.get('status', '?'))}, citing {cited}")
    if tree.failures:
        r.lines.append(paint(f"Failures ({len(tree.failures)}):", "failed"))
        r.lines += [
            f"  - {clean(f.get('path') or '(walk)')} {clean(f.get('role', 'model'))}: {clean(f.get('error', ''), 300)}"
            for f in tree.failures
        ]
    if tree.warnings and only != "relevant":
        r.lines.append(paint(f"Warnings ({len(tree.warnings)}):", "warn"))
        r.lines += [f"  - {clean(w['message'], 300)}" for w in tree.warnings]
    if tree.orchestration and only is None:
        r.lines.append(f"Orchestration ({len(tree.orchestration)} events):")
        r.lines += [f"  - {e['t']:.3f} s {orchestration_line(e)}" for e in tree.orchestration]
    if tree.other and only is None:
        r.lines.append(f"Other events ({len(tree.other)}):")
        r.lines += [
            f"  - {e['t']:.3f} s {clean(e['kind'], 40)} {clean(e['path'] or '')} "
            f"{clean(json.dumps(e['data'], ensure_ascii=False, sort_keys=True), 200)}".rstrip()
            for e in tree.other
        ]
    return "\n".join(r.lines)


def orchestration_line(event: dict[str, Any]) -> str:
    """One orchestration event in words; a shape this version does not know is shown as its JSON."""
    raw = event.get("data")
    data: dict[str, Any] = raw if isinstance(raw, dict) else {}
    kind = event.get("kind")
    text = None
    if kind == "plan" and isinstance(data.get("parts"), list):
        fallback = f" (fallback: {clean(data['fallback'], 160)})" if data.get("fallback") else ""
        text = (
            f"plan by {clean(data.get('planner', '?'))}: {len(data['parts'])} part(s), {data.get('angles', '?')} "
            f"angle(s){fallback}"
        )
    elif kind == "angle" and "text" in data:
        where = f" in {clean(data['family'])}" if data.get("family") and data["family"] != "bundle" else ""
        state = (
            f"dropped: {clean(data['dropped'])}" if data.get("dropped") else f"round {data.get('round', '?')}{where}"
        )
        text = (
            f"angle {clean(data.get('id', '?'))} ({clean(data.get('origin', '?'))}, part {data.get('part', '?')}) "
            f"{clean(data['text'], 120)!r}: {state}"
        )
    elif kind == "round" and "state" in data:
        why = "; ".join(clean(w, 120) for w in data.get("why") or [] if isinstance(w, str))
        text = f"round {data.get('round', '?')}: {clean(data['state'])}" + (f" ({why})" if why else "")
    elif kind == "escalation" and isinstance(data.get("axes"), list):
        text = f"escalation in round {data.get('round', '?')} to {', '.join(clean(a) for a in data['axes'])}"
    elif kind == "stop" and "stop" in data:
        text = f"stop: {clean(data['stop'])} ({clean(data.get('reason', ''), 200)})"
    if text is None:
        where = f" {clean(event['path'])}" if event.get("path") else ""
        text = f"{clean(kind, 40)}{where} {clean(json.dumps(data, ensure_ascii=False, sort_keys=True), 200)}"
    return text
