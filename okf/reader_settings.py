"""The settings of the readers and the navigation budgets, and the flags of ``okf compile``: declared here
(one source of truth, okf.settings hands them on with every other command's) so that ``okf compile`` builds
its options without importing the modules of navigate, ask, comply and the other commands (about half a
second of its start)."""

from __future__ import annotations

from typing import Any

from okf.setting import Setting


def _budgets() -> tuple[Setting, ...]:
    from okf.models import Budgets

    flags = {"deadline_s": ("--deadline", "SECONDS"), "body_chars": ("", "CHARS"), "max_tokens": ("", "TOKENS")}
    return tuple(Setting(Budgets, name, *flags.get(name, ("", "N"))) for name in Budgets.model_fields)


def _reader_settings() -> tuple[Setting, ...]:
    from okf.readers.config import ReaderConfig

    metavars = {"timeout": "SECONDS", "deadline": "SECONDS", "retry_after_cap": "SECONDS"}
    return tuple(Setting(ReaderConfig, name, metavar=metavars.get(name, "N")) for name in READER_TABLE)


# Every budget of okf.models.Budgets has a flag on navigate, ask and eval; these are also MCP arguments. Made
# when first asked for (``__getattr__`` below): okf.models builds every result model, which okf compile never
# needs (70 to 90 ms of its start).
BUDGETS: tuple[Setting, ...]
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


def __getattr__(name: str) -> Any:
    """``BUDGETS``, made on first use."""
    if name == "BUDGETS":
        made = globals()["BUDGETS"] = _budgets()
        return made
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
