"""The decision trace of one walk: ordered events, each stamped with seconds since the walk began."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from okf.models import TraceEvent

Progress = Callable[[TraceEvent], None]


class TraceRecorder:
    """Appends :class:`TraceEvent` s in order and hands each to the optional ``progress`` callable."""

    def __init__(self, progress: Progress | None = None) -> None:
        self.events: list[TraceEvent] = []
        self.warnings: list[str] = []
        self._progress = progress
        self._start = time.monotonic()

    @property
    def elapsed(self) -> float:
        """Seconds since the walk began."""
        return time.monotonic() - self._start

    def add(self, kind: str, path: str | None = None, **data: Any) -> TraceEvent:
        """Record one event (``data`` keys as in the TraceEvent docs) and report it."""
        event = TraceEvent(seq=len(self.events), t=round(self.elapsed, 6), kind=kind, path=path, data=data)
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
