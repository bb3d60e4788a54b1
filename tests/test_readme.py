"""The README's set-up commands, CI and the docs stay in step with the CLI."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from okf.cli import COMMAND_MODULES, main

REPO = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_ci_runs_the_readme_setup_and_test_commands_verbatim() -> None:
    ci_lines = [
        line.strip()
        for line in (REPO / ".ci/run").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    readme = _readme_commands()
    setup = [line for line in ci_lines if "pip install" in line]
    tests = [line for line in ci_lines if "pytest" in line]
    assert len(setup) == 1 and len(tests) == 1
    assert readme[0] == setup[0], "README's first command must be the set-up command CI runs"
    assert readme[1] == tests[0], "README's second command must be the test command CI runs"


def test_every_command_module_is_registered() -> None:
    assert sorted(main.commands) == sorted(COMMAND_MODULES)


def test_every_command_has_help_with_examples_and_docs() -> None:
    docs = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "docs").glob("*.md"))
    runner = CliRunner()
    for name in main.commands:
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0, result.output
        assert "Examples" in result.output, f"okf {name} --help has no examples"
        assert f"okf {name}" in docs, f"okf {name} is not documented in docs/"
