"""Click options made from settings (:mod:`okf.setting`): each flag's name, type, bound and help come from
its pydantic field. Light on purpose: ``okf check`` builds its options from here without the readers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from okf.setting import Setting

F = TypeVar("F", bound=Callable[..., Any])


def setting_option(setting: Setting, *, default: Any = None) -> Callable[[F], F]:
    """The click option of a setting (okf.settings): its flag, type and bound, help text with the default.

    ``default`` None leaves the option unset unless given, so the model's own default (or a config file's
    value) applies; pass ``setting.default`` where the command hands every value on.
    """
    bound, exclusive = setting.minimum
    kind: Any = setting.kind
    if setting.choices:
        kind = click.Choice(setting.choices)
    elif kind is int:
        kind = click.IntRange(min=None if bound is None else int(bound), min_open=exclusive)
    elif kind is float:
        kind = click.FloatRange(min=bound, min_open=exclusive)
    metavar = "|".join(setting.choices) if setting.choices and setting.metavar == "N" else setting.metavar
    return click.option(
        setting.cli_flag, setting.name, type=kind, default=default, metavar=metavar, help=setting.help()
    )


def settings_options(*settings: Setting) -> Callable[[F], F]:
    """The click options of ``settings`` (okf.settings), each defaulting to its field's default."""

    def decorate(f: F) -> F:
        for setting in reversed(settings):
            f = setting_option(setting, default=setting.default)(f)
        return f

    return decorate
