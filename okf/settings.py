"""One source of truth per option: a setting is declared once, as a pydantic field with its default, bounds
and help text (``Budgets``, ``ReaderConfig``, ``CompileOptions``), and every surface is generated from it.

``Setting`` reads a field; ``okf.cli.options`` turns settings into click options, ``okf.mcp.server`` into
tool argument types, and ``settings_table`` into the markdown tables of docs/ (a test keeps the docs, the CLI
and the MCP schemas in step with the fields). No surface restates a default or a bound.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from annotated_types import Ge, Gt
from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo


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
    def kind(self) -> type:
        """``int``, ``float``, ``bool`` or ``str``: the type a flag parses (``X | None`` gives ``X``)."""
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
        """The default as people read it: ``120``, ``400000``, ``6000``, ``60``."""
        value = self.default
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)

    def bound_text(self) -> str:
        """``at least 1``, ``above 0`` or ``-``."""
        bound, exclusive = self.minimum
        if bound is None:
            return "-"
        shown = int(bound) if float(bound).is_integer() else bound
        return f"above {shown}" if exclusive else f"at least {shown}"

    def help(self) -> str:
        """Help text with the default, as a flag and a tool argument show it."""
        if self.kind is bool:
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
    return Annotated[setting.kind, Field(description=setting.help(), **bounds)]  # type: ignore[call-overload]


def _budgets() -> tuple[Setting, ...]:
    from okf.models import Budgets

    flags = {"deadline_s": ("--deadline", "SECONDS"), "body_chars": ("", "CHARS"), "max_tokens": ("", "TOKENS")}
    return tuple(Setting(Budgets, name, *flags.get(name, ("", "N"))) for name in Budgets.model_fields)


def _reader_settings() -> tuple[Setting, ...]:
    from okf.readers.config import ReaderConfig

    metavars = {"timeout": "SECONDS", "deadline": "SECONDS", "retry_after_cap": "SECONDS"}
    return tuple(Setting(ReaderConfig, name, metavar=metavars.get(name, "N")) for name in READER_TABLE)


# Every budget of okf.models.Budgets has a flag on navigate, ask and eval; these are also MCP arguments.
BUDGETS: tuple[Setting, ...] = _budgets()
MCP_BUDGETS: tuple[str, ...] = ("max_bodies", "max_shortlist", "deadline_s")
# The scalar settings of okf.readers.config.ReaderConfig (flags, config file); timeout and concurrency have a
# flag on every model-backed command, the others are set in the config file (docs/models.md).
READER_TABLE = (
    "timeout",
    "concurrency",
    "deadline",
    "max_retries",
    "retry_after_cap",
    "temperature",
    "max_tokens",
    "json_mode",
)
READER_FLAGS = ("timeout", "concurrency")
READER_SETTINGS: tuple[Setting, ...] = _reader_settings()
# The okf.compile.CompileOptions fields okf compile takes as flags (imported only when asked: compile is heavy).
COMPILE_FLAGS = ("max_words", "max_chars", "fanout")


def doc_tables() -> dict[str, str]:
    """Every generated table of docs/, by the marker around it (``<!-- settings:budgets -->`` ...)."""
    from okf.compile.state import CompileOptions

    compile_settings = [Setting(CompileOptions, name) for name in COMPILE_FLAGS]
    return {
        "settings:budgets": settings_table(BUDGETS, mcp=MCP_BUDGETS),
        "settings:reader": settings_table(READER_SETTINGS, cli=READER_FLAGS),
        "settings:compile": settings_table(compile_settings),
    }
