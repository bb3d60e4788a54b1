"""The CLI's one progress component: tqdm bars and counters on stderr.

Shown only when stderr is a terminal (or ``OKF_PROGRESS=1``), never under ``--quiet`` or ``--json``, never on
stdout. The library reports progress through plain callbacks (``progress(stage, done, total)``, walk events);
this module turns them into tqdm's display, so every long command looks and behaves the same.
"""

from __future__ import annotations

import os
import sys
from typing import Any

# Redraws at most this often: a redraw per event would cost more than a fast walk.
_INTERVAL_S = 0.1


def progress_enabled(quiet: bool, as_json: bool = False) -> bool:
    """Progress only when not quiet, not ``--json``, and stderr is a terminal or OKF_PROGRESS=1."""
    if quiet or as_json:
        return False
    return os.environ.get("OKF_PROGRESS") == "1" or sys.stderr.isatty()


def _bar(label: str, total: int | None, unit: str, bar_format: str | None = None) -> Any:
    from tqdm import tqdm  # only when progress is drawn: off a terminal no command pays its import

    # No monitor thread (tqdm starts one with its first bar, alive for seconds after the last): a second
    # thread makes check, export and requirement extraction spawn their workers instead of forking them.
    tqdm.monitor_interval = 0
    # sys.stderr as it is now: click's CliRunner swaps it, so tests see what a terminal would.
    return tqdm(
        total=total,
        desc=label,
        unit=unit,
        file=sys.stderr,
        mininterval=_INTERVAL_S,
        dynamic_ncols=True,
        leave=True,
        disable=False,
        bar_format=bar_format,
    )


class StageProgress:
    """A bar per stage for ``progress(stage, done, total)`` callbacks (compile, check, requirements, eval)."""

    def __init__(self, stages: dict[str, tuple[str, str]] | None = None) -> None:
        self.stages = stages or {}  # stage -> (label, unit)
        self._bar: Any = None
        self._stage: str | None = None

    def __call__(self, stage: str, done: int, total: int, note: str | None = None) -> None:
        if self._bar is not None and stage != self._stage:
            self.close()
        if self._bar is None:
            self._stage = stage
            label, unit = self.stages.get(stage, (stage, "it"))
            self._bar = _bar(label, total, unit)
        if total != self._bar.total:
            self._bar.total = total
        if note is not None:  # text after the counts, e.g. an evaluation's recall so far
            self._bar.set_postfix_str(note, refresh=False)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        """End the current bar (its last state stays on the terminal)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class WalkProgress:
    """A counter of a navigation's events: bodies judged, with directories opened, relevant found and evidence
    slices read (recursive synthesis) after it. Called with each trace event (navigate, ask, comply)."""

    def __init__(self) -> None:
        self.opened = self.judged = self.relevant = self.slices = 0
        self._bar = _bar("Walking", None, "", bar_format="{desc}: {n} bodies judged{postfix} [{elapsed}]")

    def __call__(self, event: Any) -> None:
        if event.kind == "collected":
            self.opened += 1
        elif event.kind == "verdict":
            self.judged += 1
            self.relevant += bool(event.data.get("relevant"))
        elif event.kind == "leaf":
            self.slices += 1
        else:
            return
        slices = f", {self.slices} evidence slices read" if self.slices else ""
        self._bar.set_postfix_str(f"{self.opened} directories opened, {self.relevant} relevant{slices}", refresh=False)
        self._bar.update(self.judged - self._bar.n)

    def close(self) -> None:
        """End the counter, its last state left on the terminal."""
        self._bar.refresh()
        self._bar.close()
