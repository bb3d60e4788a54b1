"""How one setting becomes every surface: ``Setting`` reads a pydantic field (default, bound, help text) for
the CLI flags, MCP argument types and docs tables that :mod:`okf.settings` describes, and ``CheckSettings``.

okf check's and okf export's settings live here rather than in :mod:`okf.settings` (which re-exports them with
the rest) because that module imports the defaults of every command (the readers, the answer pipeline...):
``okf check`` and ``okf export`` start without any of it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args, get_origin

from annotated_types import Ge, Gt
from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

from okf.limits import FANOUT


class CheckSettings(BaseModel):
    """okf check (okf.checker)."""

    fanout: int = Field(default=FANOUT, ge=1, description="Warn (W120) when a directory lists more entries than this.")


@dataclass(frozen=True)
class Setting:
    """One field of a settings model, with the command-line flag that sets it."""

    model: type[BaseModel]
    name: str
    flag: str = ""
    metavar: str = "N"

    @property
    def cli_flag(self) -> str:
        """``--max-bodies`` for ``max_bodies`` unless the setting names its own flag."""
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def field(self) -> FieldInfo:
        """The pydantic field."""
        return self.model.model_fields[self.name]

    @property
    def default(self) -> Any:
        """The field's default value."""
        return self.field.get_default(call_default_factory=True)

    @property
    def choices(self) -> tuple[str, ...]:
        """The values a ``Literal`` field allows (``X | None`` gives X's), else ()."""
        annotation = self.field.annotation
        for option in (annotation, *get_args(annotation)):
            if get_origin(option) is Literal:
                return tuple(str(value) for value in get_args(option))
        return ()

    @property
    def kind(self) -> type:
        """``int``, ``float``, ``bool`` or ``str``: the type a flag parses (``X | None`` gives ``X``; a
        ``Literal`` of words gives ``str``)."""
        if self.choices:
            return str
        annotation = self.field.annotation
        for kind in (bool, int, float, str):
            if annotation is kind or kind in getattr(annotation, "__args__", ()):
                return kind
        raise TypeError(f"{self.model.__name__}.{self.name}: no flag type for {annotation!r}")

    @property
    def minimum(self) -> tuple[float | None, bool]:
        """The lower bound and whether it is exclusive (``gt``): ``(1, False)`` for ``ge=1``."""
        for item in self.field.metadata:
            if isinstance(item, Ge):
                return item.ge, False  # type: ignore[return-value]
            if isinstance(item, Gt):
                return item.gt, True  # type: ignore[return-value]
        return None, False

    @property
    def description(self) -> str:
        """The field's help text, as declared."""
        if not self.field.description:
            raise ValueError(f"{self.model.__name__}.{self.name} has no description")
        return self.field.description

    def default_text(self) -> str:
        """The default as people read it: ``120``, ``400000``, ``6000``, ``60``; ``none`` for none."""
        value = self.default
        if value is None:
            return "none"
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)

    def bound_text(self) -> str:
        """``at least 1``, ``above 0``, ``auto, single or recursive`` (the words a choice allows) or ``-``."""
        if self.choices:
            return ", ".join(self.choices[:-1]) + " or " + self.choices[-1]
        bound, exclusive = self.minimum
        if bound is None:
            return "-"
        shown = int(bound) if float(bound).is_integer() else bound
        return f"above {shown}" if exclusive else f"at least {shown}"

    def help(self) -> str:
        """Help text with the default, as a flag and a tool argument show it."""
        if self.kind is bool or self.default is None:
            return self.description
        return f"{self.description.rstrip('.')} (default {self.default_text()})."


def settings_table(
    settings: Sequence[Setting], *, cli: Collection[str] | None = None, mcp: Collection[str] = ()
) -> str:
    """The markdown table docs/ shows for ``settings``: name, default, bound, CLI flag (every setting, or those
    named in ``cli``), MCP argument (those named in ``mcp``), meaning."""
    rows = ["| setting | default | bound | CLI | MCP | meaning |", "|---|---|---|---|---|---|"]
    for s in settings:
        flag = f"`{s.cli_flag}`" if cli is None or s.name in cli else "-"
        rows.append(
            f"| `{s.name}` | {s.default_text()} | {s.bound_text()} | {flag} | "
            f"{'`' + s.name + '`' if s.name in mcp else '-'} | {s.description} |"
        )
    return "\n".join(rows)


def table_in(text: str, marker: str) -> str:
    """The text between ``<!-- marker -->`` and ``<!-- /marker -->`` in ``text`` (stripped)."""
    start, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    if start not in text or end not in text:
        raise ValueError(f"no {start} ... {end} block")
    return text.split(start, 1)[1].split(end, 1)[0].strip()


def argument_type(setting: Setting) -> Any:
    """``setting`` as a tool argument type: ``Annotated[int, Field(ge=1, description=...)]`` (MCP schemas)."""
    bound, exclusive = setting.minimum
    bounds = {} if bound is None else {"gt": bound} if exclusive else {"ge": bound}
    return Annotated[setting.field.annotation, Field(description=setting.help(), **bounds)]  # type: ignore[call-overload]


class ExportSettings(BaseModel):
    """okf export (okf.export)."""

    max_bytes: int | None = Field(
        default=None,
        ge=1,
        description="Cap llms-full.txt at N bytes: whole concepts in signpost order, the cut stated at its end.",
    )


CHECK_FANOUT = Setting(CheckSettings, "fanout")
EXPORT_MAX_BYTES = Setting(ExportSettings, "max_bytes", metavar="BYTES")
