"""The public entry points: check the inputs, pick the reader, run one :class:`~okf.navigator.walk.Walk`, or
hand the question to okf.orchestrate (angles, several bundles), which runs walks side by side."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from okf.bundle import Bundle
from okf.collector import collector_paused
from okf.errors import ConfigError
from okf.models import DEFAULT_ANGLES, Budgets, NavigationResult
from okf.navigator.trace import Progress
from okf.navigator.walk import Walk
from okf.readers.base import Reader, aclose


def make_budgets(budgets: Budgets | Mapping[str, Any] | None = None, **overrides: Any) -> Budgets:
    """Validated budgets from a Budgets, a mapping and/or keyword overrides; ConfigError when one is bad."""
    if isinstance(budgets, Budgets):
        values: dict[str, Any] = budgets.model_dump()
    else:
        values = dict(budgets or {})
    values.update({k: v for k, v in overrides.items() if v is not None})
    unknown = sorted(set(values) - set(Budgets.model_fields))
    if unknown:
        raise ConfigError(
            f"unknown budget(s): {', '.join(unknown)}", fix=f"use one of {', '.join(Budgets.model_fields)}"
        )
    try:
        return Budgets.model_validate(values)
    except ValidationError as exc:
        problems = "; ".join(_describe(error) for error in exc.errors())
        raise ConfigError(
            f"bad budgets: {problems}",
            fix="see okf navigate --help (or docs/navigate.md, Budgets) for each budget's bound",
        ) from exc


def _describe(error: Mapping[str, Any]) -> str:
    where = ".".join(str(part) for part in error.get("loc", ()))
    bound = error.get("ctx") or {}
    if error.get("type") in ("greater_than_equal", "greater_than"):  # the field's bound (okf.models.Budgets)
        limit = (
            f"at least {bound['ge']}"
            if "ge" in bound
            else "positive"
            if bound.get("gt") == 0
            else f"above {bound.get('gt')}"
        )
        return f"{where} must be {limit}, got {error.get('input')}"
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


BundleInput = Bundle | str | Path
Angles = str | int | None


def open_bundles(bundle: BundleInput | Sequence[BundleInput]) -> list[Bundle]:
    """One bundle, or several (a list or tuple), opened; ConfigError for an empty list or a bundle given twice."""
    given: list[BundleInput] = list(bundle) if isinstance(bundle, list | tuple) else [bundle]  # type: ignore[list-item]
    if not given:
        raise ConfigError("no bundle was given", fix="pass a bundle path, or a list of them")
    opened = [b if isinstance(b, Bundle) else Bundle.open(b) for b in given]
    roots = [str(b.root) for b in opened]
    twice = sorted({r for r in roots if roots.count(r) > 1})
    if twice:
        raise ConfigError(f"a bundle was given twice: {twice[0]}", fix="name each bundle once")
    return opened


def _inputs(
    bundle: BundleInput | Sequence[BundleInput],
    question: str,
    reader: Reader | None,
    budgets: Budgets | Mapping[str, Any] | None,
) -> tuple[list[Bundle], str, Reader, Budgets]:
    if not isinstance(question, str) or not question.strip():
        raise ConfigError("the question is empty", fix='ask a question in words, e.g. "How are refunds handled?"')
    checked = make_budgets(budgets)
    opened = open_bundles(bundle)
    if reader is None:
        from okf.readers import make_reader  # lazy: the configured reader may import a model client

        reader = make_reader()
    return opened, question.strip(), reader, checked


async def navigate_async(
    bundle: BundleInput | Sequence[BundleInput],
    question: str,
    *,
    reader: Reader | None = None,
    budgets: Budgets | Mapping[str, Any] | None = None,
    progress: Progress | None = None,
    angles: Angles = DEFAULT_ANGLES,
) -> NavigationResult:
    """Find the concepts of ``bundle`` (or of several bundles) that answer ``question`` by progressive
    disclosure (no similarity). ``angles``: ``auto`` (the default), N angles per part, or ``off`` (one walk
    of the question as asked); see docs/navigate.md ("Angles")."""
    from okf.orchestrate import orchestrate, parse_angles  # built on the walk; imported when used

    setting = parse_angles(angles)
    opened, text, chosen, checked = _inputs(bundle, question, reader, budgets)
    try:
        with collector_paused(long_lived=True):  # okf.collector: a walk leaves no cycles; survivors are kept
            if setting.off and len(opened) == 1:
                result = await Walk(opened[0], text, chosen, checked, progress).run()
            else:
                result = await orchestrate(opened, text, chosen, checked, setting, progress)
    finally:
        if reader is None:
            await aclose(chosen)  # made here (the configured reader), so closed here
    result.budgets = checked  # so a saved result (and its HTML report) says what limits the walk ran under
    return result


def navigate(
    bundle: BundleInput | Sequence[BundleInput],
    question: str,
    *,
    reader: Reader | None = None,
    budgets: Budgets | Mapping[str, Any] | None = None,
    progress: Progress | None = None,
    angles: Angles = DEFAULT_ANGLES,
) -> NavigationResult:
    """Synchronous :func:`navigate_async`; call that one instead from inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(
            _closing(
                reader,
                navigate_async(bundle, question, reader=reader, budgets=budgets, progress=progress, angles=angles),
            )
        )
    raise ConfigError(
        "navigate() was called inside a running event loop", fix="use `await okf.navigate_async(...)` there"
    )


async def _closing(reader: Reader | None, work: Coroutine[Any, Any, NavigationResult]) -> NavigationResult:
    """Run ``work``, then close what ``reader`` opened in this event loop (which ends with the call)."""
    try:
        return await work
    finally:
        if reader is not None:
            await aclose(reader)
