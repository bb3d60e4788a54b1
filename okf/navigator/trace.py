"""The decision trace of one walk: ordered events, each stamped with seconds since the walk began."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from okf.models import NavigationResult, TraceEvent

Progress = Callable[[TraceEvent], None]


class TraceRecorder:
    """Appends :class:`TraceEvent` s in order and hands each to the optional ``progress`` callable.

    Walks run side by side (okf.orchestrate) record into one ``events`` list on one clock (``start``, a
    ``time.monotonic()`` value), each event's data carrying the walk's ``tag`` (its angle)."""

    def __init__(
        self,
        progress: Progress | None = None,
        *,
        events: list[TraceEvent] | None = None,
        start: float | None = None,
        tag: dict[str, Any] | None = None,
    ) -> None:
        self.events: list[TraceEvent] = [] if events is None else events
        self.warnings: list[str] = []
        self._progress = progress
        self._start = time.monotonic() if start is None else start
        self._tag = tag or {}

    @property
    def elapsed(self) -> float:
        """Seconds since the walk began."""
        return time.monotonic() - self._start

    def add(self, kind: str, path: str | None = None, **data: Any) -> TraceEvent:
        """Record one event (``data`` keys as in the TraceEvent docs) and report it."""
        event = TraceEvent(
            seq=len(self.events),
            t=round(self.elapsed, 6),
            kind=kind,
            path=path,
            data={**data, **self._tag} if self._tag else data,
        )
        self.events.append(event)
        if self._progress is not None:
            self._progress(event)
        return event

    def warn(self, message: str, path: str | None = None) -> None:
        """A warning: in the trace and in the result's ``warnings`` (once per distinct message)."""
        if message in self.warnings:
            return
        self.warnings.append(message)
        self.add("warning", path, message=message)


def failure_reasons(events: list[TraceEvent]) -> list[str]:
    """The distinct errors of a walk's ``failure`` events, first seen first."""
    seen: dict[str, None] = {}
    for event in events:
        if event.kind == "failure":
            seen.setdefault(str(event.data.get("error") or "no reason given"), None)
    return list(seen)


def summarize_reasons(reasons: list[str], shown: int = 3) -> str:
    """The first ``shown`` reasons joined with "; ", and how many more there are."""
    more = f"; and {len(reasons) - shown} more" if len(reasons) > shown else ""
    return "; ".join(reasons[:shown]) + more if reasons else "no reason given"


def nothing_found_reason(result: NavigationResult) -> str:
    """Why a walk that found nothing while model calls failed is a failure, with the calls' distinct errors."""
    reasons = failure_reasons(result.trace) or [w for w in result.warnings if "failed" in w][:1]
    cut = " (the deadline cut some off)" if result.stopped_by == "deadline" else ""
    return (
        f"Nothing relevant was found, but {result.stats.failures} model call result(s) failed{cut}, so the "
        f"bundle was not fully read: {summarize_reasons(reasons)}."
    )
