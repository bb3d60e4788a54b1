"""The command line imports a command's module only when it runs: ``okf check`` starts without the readers,
and ``okf --help`` lists every command from okf.cli.SUMMARIES, which must say what each command's help says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from okf.cli import COMMAND_MODULES, SUMMARIES, main


def _imported_after(code: str) -> set[str]:
    """The okf and third-party modules a fresh interpreter has imported after running ``code``."""
    script = f"import sys\n{code}\nsys.stderr.write('\\n'.join(sorted(sys.modules)))"
    err = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stderr
    return set(err.split())


def test_the_summaries_are_what_each_command_says() -> None:
    for name in COMMAND_MODULES:
        command = main.commands[name]
        assert not command.hidden and not command.short_help and not command.deprecated
        for limit in (20, 45, 60, 80, 120, 400):
            assert click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit) == (
                command.get_short_help_str(limit)
            ), f"okf.cli.SUMMARIES[{name!r}] disagrees with the first sentence of okf {name} --help"


def test_help_lists_every_command_as_click_would() -> None:
    listed = CliRunner().invoke(main, ["--help"], terminal_width=100).output
    expected = click.Group("okf", commands={name: main.commands[name] for name in COMMAND_MODULES})
    with click.Context(expected, terminal_width=100) as ctx:
        formatter = ctx.make_formatter()
        expected.format_commands(ctx, formatter)
    assert formatter.getvalue() in listed
    assert all(f"  {name} " in listed for name in COMMAND_MODULES)


def test_check_and_help_import_no_reader_and_no_other_command() -> None:
    for argv in (["check", "--help"], ["--help"]):
        code = f"from okf.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass"
        loaded = _imported_after(code)
        others = {f"okf.cli.{name}" for name in COMMAND_MODULES if name != argv[0]}
        assert not loaded & others, f"okf {' '.join(argv)} imported {sorted(loaded & others)}"
        assert not {"okf.readers", "okf.navigator", "okf.answer", "okf.settings", "openai", "mcp"} & loaded


def test_an_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["chek", "x"])
    assert result.exit_code == 2 and "No such command" in result.output and "check" in result.output


def test_export_imports_no_reader_and_no_other_command() -> None:
    code = "from okf.cli import main\ntry:\n    main(['export', 'llms-txt', '--help'])\nexcept SystemExit:\n    pass"
    loaded = _imported_after(code)
    others = {f"okf.cli.{name}" for name in COMMAND_MODULES if name != "export"}
    assert "okf.cli.export" in loaded and not loaded & others, sorted(loaded & others)
    assert (
        not {"okf.readers", "okf.navigator", "okf.answer", "okf.settings", "openai", "mcp", "jinja2", "markdown_it"}
        & loaded
    )


def test_a_command_module_is_imported_with_the_collector_paused(monkeypatch) -> None:
    # Imports allocate many objects and free almost none: the cyclic collector is paused while a command's
    # module loads, and running again afterwards.
    import gc

    import okf.cli as cli

    seen: list[bool] = []
    real = cli.importlib.import_module

    def spying(name: str):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(name)

    monkeypatch.setattr(cli.importlib, "import_module", spying)
    assert gc.isenabled()
    commands = cli._Commands(("check",))
    assert commands["check"] is main.commands["check"]
    assert seen == [False] and gc.isenabled()


def test_compile_imports_no_other_command_and_no_reader() -> None:
    # okf compile builds its options from okf.reader_settings, not okf.settings (which imports every command's
    # modules), and reads leaf modules of okf.bundle without the bundle model's classes.
    code = "from okf.cli import main\ntry:\n    main(['compile', '--help'])\nexcept SystemExit:\n    pass"
    loaded = _imported_after(code)
    others = {f"okf.cli.{name}" for name in COMMAND_MODULES if name != "compile"}
    assert "okf.cli.compile" in loaded and "okf.compile.api" in loaded and not loaded & others
    heavy = {"okf.settings", "okf.readers.offline", "okf.readers.synthesis", "okf.bundle.bundle", "okf.answer"}
    heavy |= {"asyncio", "multiprocessing"}  # the describer's event loop and the worker pool: when used
    heavy |= {"okf.models"}  # every result model (70 to 90 ms): the budgets are made when a command asks
    assert not heavy & loaded, sorted(heavy & loaded)


def test_an_offline_compile_builds_no_result_model(tmp_path: Path) -> None:
    """A whole offline compile runs without okf.models (navigate's, ask's and the budgets' pydantic models)."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.md").write_text("# Leave\n\nEmployees get twenty days of paid leave each year.\n")
    argv = ["compile", str(source), "-o", str(tmp_path / "out"), "--quiet"]
    loaded = _imported_after(f"from okf.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass")
    assert (tmp_path / "out" / "index.md").is_file()
    assert "okf.compile.api" in loaded and "okf.models" not in loaded
