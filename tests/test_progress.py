"""One progress component (okf/cli/progress.py, tqdm): on stderr only, silent under --quiet and --json."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from okf.cli import main
from okf.cli.progress import StageProgress, progress_enabled
from tests.builders import write_files

# What a tqdm bar or the walk counter draws: "Checking: 100%|###| 3/3 [...]" or "Walking: 2 bodies judged".
DRAWN = re.compile(r"\d+%\||\d+/\d+ \[|Walking: \d+ bodies judged")
SOURCES = {
    "handbook.md": "# Handbook\n\n## Leave\n\nNew hires get 25 vacation days per year. Managers approve leave.\n\n"
    "## Travel\n\nEmployees must book travel through the travel desk. Managers must approve "
    "international travel.\n",
    "expenses.md": "# Expenses\n\nReceipts are required for every expense above 25 dollars. Employees must file "
    "expenses within 30 days.\n",
}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("progress")
    write_files(root / "src", SOURCES)
    out = root / "bundle"
    result = CliRunner().invoke(main, ["compile", str(root / "src"), "-o", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    (root / "questions.jsonl").write_text(
        json.dumps(
            {
                "id": "q1",
                "question": "Who approves international travel?",
                "gold": [{"source": "handbook.md", "start_line": 7, "end_line": 8}],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    (root / "contract.md").write_text(
        "# Travel agreement\n\nThe agency books international travel for employees without approval.\n",
        encoding="utf-8",
    )
    return out


def _commands(bundle: Path, tmp: Path) -> dict[str, list[str]]:
    return {
        "compile": ["compile", str(bundle.parent / "src"), "-o", str(tmp / "again")],
        "check": ["check", str(bundle)],
        "navigate": ["navigate", str(bundle), "Who approves international travel?"],
        "ask": ["ask", str(bundle), "Who approves international travel?"],
        "eval": ["eval", str(bundle), str(bundle.parent / "questions.jsonl")],
        "requirements": ["requirements", str(bundle)],
        "comply": [
            "comply",
            str(bundle.parent / "contract.md"),
            "--bundle",
            str(bundle),
            "--question",
            "What must employees do about travel?",
        ],
        "export llms-txt": ["export", "llms-txt", str(bundle), "-o", str(tmp / "llms")],
        "export site": ["export", "site", str(bundle), "-o", str(tmp / "site")],
    }


@pytest.mark.parametrize(
    "name", ["compile", "check", "navigate", "ask", "eval", "requirements", "comply", "export llms-txt", "export site"]
)
def test_progress_goes_to_stderr_never_stdout_and_is_silent_under_quiet_and_json(
    name: str, bundle: Path, tmp_path: Path
) -> None:
    runner = CliRunner()
    env = {"OKF_PROGRESS": "1"}  # as on a terminal (CliRunner's stderr is not one)
    args = _commands(bundle, tmp_path)[name]
    shown = runner.invoke(main, args, env=env)
    assert shown.exit_code in (0, 1), shown.output
    assert DRAWN.search(shown.stderr), f"okf {name}: no progress on stderr: {shown.stderr!r}"
    assert not DRAWN.search(shown.stdout), f"okf {name}: progress on stdout"

    quiet = runner.invoke(main, [*args, "--quiet"], env=env)
    assert quiet.exit_code == shown.exit_code, quiet.output
    assert not DRAWN.search(quiet.stderr) and not DRAWN.search(quiet.stdout), quiet.stderr

    as_json = runner.invoke(main, [*args, "--json"], env=env)
    assert as_json.exit_code == shown.exit_code, as_json.output
    assert not DRAWN.search(as_json.stderr), as_json.stderr
    json.loads(as_json.stdout)  # stdout is the result and nothing else


def test_no_progress_off_a_terminal_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OKF_PROGRESS", raising=False)
    assert not progress_enabled(False)  # pytest's stderr is not a terminal
    monkeypatch.setenv("OKF_PROGRESS", "1")
    assert progress_enabled(False) and not progress_enabled(True) and not progress_enabled(False, as_json=True)


def test_a_stage_bar_per_stage(capsys: pytest.CaptureFixture[str]) -> None:
    bar = StageProgress({"files": ("Compiling", " files"), "describe": ("Describing concepts", " model calls")})
    for done in range(4):
        bar("files", done, 3)
    bar("describe", 2, 2, note="2 from cache")
    bar.close()
    err = capsys.readouterr().err
    assert "Compiling: 100%" in err and "3/3" in err and "Describing concepts: 100%" in err and "2 from cache" in err


def test_every_command_that_calls_a_model_takes_quiet_and_verbose() -> None:
    """Retries and failures go to the okf logger: --quiet mutes them, -v shows them, on every such command."""
    for name, command in main.commands.items():
        params = {p.name for p in command.params}
        if "model" in params:
            assert {"quiet", "verbose"} <= params, f"okf {name} calls a model but lacks --quiet or -v"


def test_comply_shows_a_bar_per_stage_after_the_walk(bundle: Path) -> None:
    """The work after navigation (sections read, applicability decided, requirements judged) has bars too."""
    args = _commands(bundle, bundle.parent)["comply"]
    shown = CliRunner().invoke(main, args, env={"OKF_PROGRESS": "1"})
    assert shown.exit_code in (0, 1), shown.output
    for label in ("Walking:", "Reading sections:", "Deciding applicability:", "Judging requirements:"):
        assert label in shown.stderr, f"no {label!r} on stderr: {shown.stderr!r}"


def test_a_progress_bar_starts_no_thread() -> None:
    """tqdm's monitor thread, started with a first bar and alive for seconds after the last, would leave a
    second thread running: check, export and requirement extraction would then spawn their workers instead of
    forking them (okf.processes.start_method)."""
    import threading

    before = threading.active_count()
    stages = StageProgress({"check": ("Checking", "files")})
    stages("check", 1, 3)
    stages("check", 3, 3)
    stages.close()
    assert threading.active_count() == before
