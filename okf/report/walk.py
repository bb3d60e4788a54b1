"""The walk as one self-contained HTML page: question, answer with clickable citations and their receipt lines,
shortlist, the tree of the walk, budget gauges, orchestration (when present), model usage per role."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from okf.bundle import Bundle
from okf.html import render
from okf.report.receipts import ReceiptReader, ReceiptView, open_bundle
from okf.trace.load import WalkRecord
from okf.trace.text import GRADE_LABELS, STOP_BUDGETS, orchestration_line
from okf.trace.tree import WalkTree, fold

_CITE = re.compile(r"\[(\d{1,3})\]")
_ANSWER_KEYS = {
    "status",
    "answer",
    "reason",
    "citations",
    "supporting",
    "caveats",
    "sources",
    "usage",
    "failed",
    "orchestration",
}
_USAGE_FIELDS = ("calls", "retries", "failures", "cache_hits", "prompt_tokens", "completion_tokens", "seconds")


@dataclass
class Gauge:
    """One budget: how much was used of how much, and whether it ended the walk."""

    name: str
    key: str
    used: float
    limit: float | None
    stopped: bool = False
    unit: str = ""

    @property
    def share(self) -> float:
        """Used / limit, clamped to 0..1 (0 when the limit is unknown)."""
        if not self.limit:
            return 0.0
        return max(0.0, min(1.0, self.used / self.limit))

    def shown(self, value: float | None) -> str:
        if value is None:
            return "?"
        return f"{value:.2f}" if self.unit == "s" else f"{int(value):,}"


def answer_paragraphs(text: str, cited: int) -> list[list[tuple[str, str]]]:
    """Answer prose as paragraphs of ``("text", s)`` and ``("cite", n)`` segments (n in 1..cited only)."""
    out: list[list[tuple[str, str]]] = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        segments: list[tuple[str, str]] = []
        last = 0
        for match in _CITE.finditer(line):
            n = int(match.group(1))
            if 1 <= n <= cited:
                segments.append(("text", line[last : match.start()]))
                segments.append(("cite", str(n)))
                last = match.end()
        segments.append(("text", line[last:]))
        out.append([s for s in segments if s[1]])
    return out


def _dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (saved results are read tolerantly)."""
    return value if isinstance(value, dict) else {}


def _total_usage(usage: dict[str, Any]) -> dict[str, float]:
    total = dict.fromkeys(_USAGE_FIELDS, 0.0)
    for role in usage.values():
        if isinstance(role, dict):
            for name in _USAGE_FIELDS:
                value = role.get(name)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    total[name] += value
    return total


def gauges(record: WalkRecord, tree: WalkTree) -> list[Gauge]:
    """Bodies, shortlist, calls, tokens and time against their budgets (limits None when not recorded)."""
    budgets = record.budgets or {}
    nav = record.navigation or {}
    stats = _dict(nav.get("stats"))
    usage = _dict(stats.get("usage"))
    total = _total_usage(usage)
    shortlist = nav.get("shortlist") if isinstance(nav.get("shortlist"), list) else None
    given = stats.get("seconds")
    seconds = float(given) if isinstance(given, int | float) else tree.t_end

    def limit(key: str) -> float | None:
        value = budgets.get(key)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    rows = [
        Gauge("bodies judged", "max_bodies", stats.get("bodies_judged", tree.totals.judged), limit("max_bodies")),
        Gauge(
            "shortlist",
            "max_shortlist",
            len(shortlist) if shortlist is not None else tree.totals.relevant + tree.totals.partial,
            limit("max_shortlist"),
        ),
        Gauge(
            "model calls",
            "max_calls",
            total["calls"] if usage else tree.selector_calls + tree.totals.judged,
            limit("max_calls"),
        ),
        Gauge("tokens", "max_tokens", total["prompt_tokens"] + total["completion_tokens"], limit("max_tokens")),
        Gauge("time", "deadline_s", seconds, limit("deadline_s"), unit="s"),
    ]
    stop_key = STOP_BUDGETS.get(tree.stopped_by or "", ("", ""))[0]
    for gauge in rows:
        gauge.stopped = gauge.key == stop_key
    return rows


def usage_rows(record: WalkRecord) -> list[dict[str, Any]]:
    """Model usage per role (selector, judge, answerer, and any other role the result names)."""
    usage: dict[str, Any] = {}
    stats = _dict((record.navigation or {}).get("stats"))
    usage.update(_dict(stats.get("usage")))
    if record.answer is not None and isinstance(record.answer.get("usage"), dict):
        usage.update(record.answer["usage"])
    rows = []
    for role, values in usage.items():
        if isinstance(values, dict):
            rows.append({"role": role, **{name: values.get(name, 0) for name in _USAGE_FIELDS}})
    return rows


def _receipt(reader: ReceiptReader, value: Any) -> ReceiptView | None:
    return reader.view(value) if isinstance(value, dict) else None


def _entries(items: Any) -> list[dict[str, Any]]:
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def walk_context(record: WalkRecord, reader: ReceiptReader) -> dict[str, Any]:
    """Everything the walk template shows."""
    tree = fold(record.events)
    nav = record.navigation or {}
    answer = record.answer
    context: dict[str, Any] = {
        "record": record,
        "tree": tree,
        "grade_labels": GRADE_LABELS,
        "gauges": gauges(record, tree),
        "usage": usage_rows(record),
        "answer": None,
        "shortlist": [],
        "orchestration": None,
        "other_fields": {},
        "orchestration_line": orchestration_line,
    }
    for n, entry in enumerate(_entries(nav.get("shortlist")), start=1):
        context["shortlist"].append({"n": n, "entry": entry, "receipt": _receipt(reader, entry.get("receipt"))})
    if answer is not None:
        citations = _entries(answer.get("citations"))
        sources = {s.get("number"): s for s in _entries(answer.get("sources"))}
        cited = [
            {"n": n, "citation": c, "source": sources.get(n, {}), "receipt": _receipt(reader, c.get("receipt"))}
            for n, c in enumerate(citations, start=1)
        ]
        context["answer"] = {
            "status": str(answer.get("status") or ""),
            "failed": bool(answer.get("failed")),
            "reason": answer.get("reason"),
            "paragraphs": answer_paragraphs(str(answer.get("answer") or ""), len(citations)),
            "cited": cited,
            "supporting": _entries(answer.get("supporting")),
            "caveats": [str(c) for c in answer.get("caveats") or []],
        }
    orchestration = (answer or {}).get("orchestration") or nav.get("orchestration") or record.extra.get("orchestration")
    context["orchestration"] = orchestration if orchestration else None
    context["other_fields"] = {
        k: v for k, v in record.extra.items() if k not in _ANSWER_KEYS and v not in (None, [], {})
    }
    return context


def walk_page(
    record: WalkRecord,
    *,
    bundle: Bundle | str | None = None,
    title: str | None = None,
    gold: list[dict[str, Any]] | None = None,
    back: str | None = None,
) -> str:
    """The HTML page of one walk. Receipt lines are read from ``bundle`` (default: the one the record names).

    ``gold`` (an evaluation's span outcomes) and ``back`` (a link to the evaluation page) are for walk pages
    written by ``okf report``.
    """
    if isinstance(bundle, Bundle):
        reader = ReceiptReader(bundle)
    else:
        opened, why = open_bundle(str(bundle) if bundle else record.bundle)
        reader = ReceiptReader(opened, why)
    context = walk_context(record, reader)
    heading = title or ("Answer" if record.answer is not None else "Walk")
    return render("walk.html.j2", scripts=("page.js",), page_title=heading, gold=gold or [], back=back, **context)
