"""The orchestration entry point and the ``angles`` setting (``auto``, a number of angles per part, ``off``)."""

from __future__ import annotations

from dataclasses import dataclass

from okf.bundle import Bundle
from okf.errors import ConfigError
from okf.models import Budgets, NavigationResult
from okf.navigator.trace import Progress
from okf.orchestrate.run import Orchestrator, Source
from okf.readers.base import Reader
from okf.readers.planning import MAX_ANGLES


@dataclass(frozen=True)
class AnglesSetting:
    """``auto`` (count None), N angles per part (count N), or ``off`` (one walk of the question as asked)."""

    count: int | None = None
    off: bool = False

    def __str__(self) -> str:
        return "off" if self.off else "auto" if self.count is None else str(self.count)


def parse_angles(value: str | int | AnglesSetting | None) -> AnglesSetting:
    """``auto`` / ``off`` / a whole number from 1 to MAX_ANGLES; ConfigError naming the fix otherwise."""
    if isinstance(value, AnglesSetting):
        return value
    if value is None:
        return AnglesSetting()
    text = str(value).strip().lower()
    if text == "auto":
        return AnglesSetting()
    if text == "off":
        return AnglesSetting(off=True)
    if text.isdigit() and not isinstance(value, bool) and 1 <= int(text) <= MAX_ANGLES:
        return AnglesSetting(count=int(text))
    raise ConfigError(
        f"angles must be auto, off or a number from 1 to {MAX_ANGLES}, got {value!r}",
        fix="use --angles auto (the default), --angles 3 or --angles off",
    )


async def orchestrate(
    bundles: list[Bundle],
    question: str,
    reader: Reader,
    budgets: Budgets,
    setting: AnglesSetting,
    progress: Progress | None = None,
) -> NavigationResult:
    """Navigate ``bundles`` for ``question`` by orchestrated angles (okf.orchestrate.run). With ``off`` (and
    several bundles) the question alone is walked in each bundle, once."""
    sources: list[Source] = []
    for bundle in bundles:
        vocabulary = bundle.vocabulary()
        bind = getattr(reader, "bind", None)
        sources.append(Source(bundle, str(bundle.root), bind(vocabulary) if callable(bind) else reader, vocabulary))
    return await Orchestrator(sources, question, reader, budgets, setting.count, progress, single=setting.off).run()
