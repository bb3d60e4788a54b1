"""One source of truth per option: the CLI flags, the MCP schemas and the docs tables are the pydantic fields."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from okf.cli import main
from okf.cli.options import compile_settings
from okf.compile import CompileOptions
from okf.mcp.server import build_server
from okf.mcp.tools import BundleSet
from okf.models import Budgets
from okf.readers.config import ReaderConfig
from okf.settings import (
    BUDGETS,
    MCP_BUDGETS,
    READER_FLAGS,
    READER_SETTINGS,
    Setting,
    doc_tables,
    table_in,
)

REPO = Path(__file__).resolve().parents[1]


def test_every_budget_and_reader_setting_is_declared_with_help_and_a_bound() -> None:
    assert [s.name for s in BUDGETS] == list(Budgets.model_fields)
    for setting in (*BUDGETS, *READER_SETTINGS, *compile_settings()):
        assert setting.description  # raises without one
        if setting.kind in (int, float) and setting.name != "temperature":
            assert setting.minimum[0] is not None, f"{setting.name} has no lower bound"


def test_the_docs_tables_are_the_fields() -> None:
    docs = {path.name: path.read_text(encoding="utf-8") for path in (REPO / "docs").glob("*.md")}
    for marker, table in doc_tables().items():
        found = [name for name, text in docs.items() if f"<!-- {marker} -->" in text]
        assert len(found) == 1, f"<!-- {marker} --> should be in exactly one docs page, is in {found}"
        assert table_in(docs[found[0]], marker) == table, (
            f"docs/{found[0]}: the {marker} table disagrees with the fields; run python scripts/docs_tables.py"
        )


def _params(command: str) -> dict[str, click.Parameter]:
    cmd = main.commands[command]
    return {p.name: p for p in cmd.params if p.name}


def _bound(param: click.Parameter) -> tuple[float | None, bool]:
    kind: Any = param.type
    return kind.min, bool(kind.min_open)


@pytest.mark.parametrize("command", ["navigate", "ask", "eval"])
def test_budget_flags_are_the_budget_fields(command: str) -> None:
    params = _params(command)
    for setting in BUDGETS:
        param = params[setting.name]
        assert setting.cli_flag in param.opts  # type: ignore[attr-defined]
        assert param.help == setting.help()  # type: ignore[attr-defined]
        assert _bound(param) == setting.minimum
        assert param.default is None  # unset means the field's default


@pytest.mark.parametrize("command", ["navigate", "ask", "eval", "mcp", "compile"])
def test_reader_flags_are_the_reader_fields(command: str) -> None:
    params = _params(command)
    for setting in READER_SETTINGS:
        if setting.name not in READER_FLAGS:  # set in the config file (max_tokens is also a budget's name)
            continue
        assert params[setting.name].help == setting.help()  # type: ignore[attr-defined]
        assert _bound(params[setting.name]) == setting.minimum


def test_compile_flags_are_the_compile_options_fields_and_agree_on_the_minimum(tmp_path: Path) -> None:
    params = _params("compile")
    for setting in compile_settings():
        assert params[setting.name].default == setting.default == CompileOptions.model_fields[setting.name].default
        assert _bound(params[setting.name]) == setting.minimum
    lowest = int(Setting(CompileOptions, "max_words").minimum[0] or 0)
    (tmp_path / "a.md").write_text("# A\n\nSome words here.\n", encoding="utf-8")
    runner = CliRunner()
    ok = runner.invoke(
        main, ["compile", str(tmp_path / "a.md"), "-o", str(tmp_path / "out"), "--quiet", "--max-words", str(lowest)]
    )
    assert ok.exit_code == 0, ok.output
    low = runner.invoke(
        main,
        ["compile", str(tmp_path / "a.md"), "-o", str(tmp_path / "out"), "--quiet", "--max-words", str(lowest - 1)],
    )
    assert low.exit_code == 2 and "--max-words" in low.output
    with pytest.raises(ValueError):
        CompileOptions(max_words=lowest - 1)


def test_mcp_budget_arguments_are_the_budget_fields() -> None:
    tools = {tool.name: tool for tool in asyncio.run(build_server(BundleSet({})).list_tools())}
    by_name = {setting.name: setting for setting in BUDGETS}
    for name in ("navigate", "ask"):
        properties = tools[name].input_schema["properties"]
        assert {key for key in properties if key in by_name} == set(MCP_BUDGETS), name
        for key in MCP_BUDGETS:
            schema, setting = properties[key], by_name[key]
            assert schema["description"] == setting.help()
            assert schema["default"] == setting.default
            bound, exclusive = setting.minimum
            assert schema["exclusiveMinimum" if exclusive else "minimum"] == bound


def test_a_budget_below_its_bound_names_the_bound() -> None:
    from okf.errors import ConfigError
    from okf.navigator import make_budgets

    with pytest.raises(ConfigError, match="max_bodies must be at least 1, got 0"):
        make_budgets({"max_bodies": 0})
    with pytest.raises(ConfigError, match="deadline_s must be positive, got 0"):
        make_budgets({"deadline_s": 0})
    assert ReaderConfig.model_fields["timeout"].default == Setting(ReaderConfig, "timeout").default


def _all_settings() -> list[Setting]:
    from okf import settings

    found = [*BUDGETS, *READER_SETTINGS, *compile_settings(), *settings.EVAL_SETTINGS]
    found += [value for value in vars(settings).values() if isinstance(value, Setting)]
    return found


def _options(group: click.Group, prefix: str = "") -> list[tuple[str, click.Option]]:
    found: list[tuple[str, click.Option]] = []
    for name, cmd in group.commands.items():
        if isinstance(cmd, click.Group):
            found += _options(cmd, f"{prefix}{name} ")
        else:
            found += [(prefix + name, p) for p in cmd.params if isinstance(p, click.Option)]
    return found


def test_every_option_with_a_default_a_bound_or_choices_is_a_setting() -> None:
    """No flag restates a default, a bound or a list of choices by hand: each such option is made from a field.
    Left out: on/off flags, and -v (a count of flags, the same on every command)."""
    helps = {(s.name, s.help()) for s in _all_settings()}
    handwritten = []
    for command, option in _options(main):
        if option.is_flag or option.count or option.name is None:
            continue
        kind = option.type
        shaped = isinstance(kind, click.IntRange | click.FloatRange | click.Choice) or kind in (click.INT, click.FLOAT)
        default = None if option.default is getattr(click.core, "UNSET", None) else option.default
        if (shaped or default not in (None, False)) and (option.name, option.help) not in helps:
            handwritten.append(f"okf {command} {option.opts[0]}")
    assert not handwritten, f"options declared by hand, not from okf.settings: {handwritten}"


def test_every_mcp_argument_with_a_default_is_a_setting() -> None:
    """Each tool argument with a default (bar the empty string, False and None of optional ones) is a field of
    okf.settings: its schema's description is the field's help text and its default the field's."""
    fields = {(s.name, s.help(), s.default) for s in _all_settings()}
    tools = asyncio.run(build_server(BundleSet({})).list_tools())
    handwritten = []
    for tool in tools:
        for key, schema in tool.input_schema["properties"].items():
            if schema.get("default") in (None, "", False, "subject"):
                continue
            if (key, schema.get("description"), schema["default"]) not in fields:
                handwritten.append(f"{tool.name}.{key}")
    assert not handwritten, f"MCP arguments declared by hand, not from okf.settings: {handwritten}"


def test_a_choice_setting_is_a_click_choice_and_an_mcp_enum() -> None:
    from okf.settings import SYNTHESIS

    param = _params("ask")["synthesis"]
    assert list(param.type.choices) == ["auto", "single", "recursive"] == list(SYNTHESIS.choices)  # type: ignore[attr-defined]
    assert param.default == SYNTHESIS.default == "auto"
    refused = CliRunner().invoke(main, ["ask", "bundles/harborview", "q", "--synthesis", "sometimes"])
    assert refused.exit_code == 2 and "sometimes" in refused.output
    tools = {tool.name: tool for tool in asyncio.run(build_server(BundleSet({})).list_tools())}
    assert tools["ask"].input_schema["properties"]["synthesis"]["enum"] == ["auto", "single", "recursive"]
