"""Every example in `--help` and in docs/ and README.md runs from the repository root, offline.

Examples are taken from each command's help (after "Examples:") and from the fenced code blocks of the docs
(lines that start with `okf ` or `$ okf `; a trailing backslash continues a line). Each runs through click's
CliRunner in a scratch folder that holds the repository's shipped folders (bundles/, docs/, examples/) as
links, so what an example writes (walk.jsonl, /tmp/... outputs) lands in the test's tmp_path. Pipes and
redirections are cut off (`| jq ...`, `> report.json`): the okf part is what is run. Examples that name a
model (`--model`, `--base-url`, ...) cannot run offline: they are parsed by the command (flags, choices,
types) and the files they name must ship. `okf mcp` serves until its client leaves, so it is parsed too.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from okf.cli import main

REPO = Path(__file__).resolve().parents[1]
SHIPPED = ("bundles", "docs", "examples")
MODEL_FLAGS = {
    "--model",
    "--base-url",
    "--describe-model",
    "--selector-model",
    "--judge-model",
    "--answer-model",
    "--extract-model",
    "--assess-model",
}
# Reproduction commands of measurements (they read ../shared/corpora), not examples.
NOT_EXAMPLES = {"benchmarks.md"}
PLACEHOLDER = re.compile(r"\b(BUNDLE|QUESTION|SOURCES|SUBJECT|OUTPUT|FILE|QUESTIONS)\b|\[--|\.\.\.\"?$|\"\.\.\.\"")


def _okf_lines(text: str) -> Iterator[str]:
    joined: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if joined:
            joined.append(line.rstrip("\\").strip())
            if not line.endswith("\\"):
                yield " ".join(joined)
                joined = []
            continue
        line = line.removeprefix("$ ")
        if not line.startswith("okf "):
            continue
        if line.endswith("\\"):
            joined = [line.rstrip("\\").strip()]
        else:
            yield line


def _from_docs() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        if path.name in NOT_EXAMPLES:
            continue
        blocks = re.findall(r"```[a-z]*\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)
        lines = [line for block in blocks for line in _okf_lines(block) if not PLACEHOLDER.search(line)]
        if lines:
            found[path.name] = lines
    return found


def _from_help() -> dict[str, list[str]]:
    runner = CliRunner()
    found: dict[str, list[str]] = {}
    for name in main.commands:
        text = runner.invoke(main, [name, "--help"], terminal_width=400).output
        examples = text.split("Examples:", 1)[1].split("\nOptions:", 1)[0] if "Examples:" in text else ""
        found[f"okf {name} --help"] = list(_okf_lines(examples))
    text = runner.invoke(main, ["--help"], terminal_width=400).output
    found["okf --help"] = list(_okf_lines(text.split("Examples:", 1)[1].split("\nOptions:", 1)[0]))
    return found


def _argv(line: str, tmp: Path) -> tuple[list[str], str | None]:
    """The okf arguments of ``line`` and the file its stdout is redirected to, if any."""
    words = [word.replace("/tmp/", f"{tmp}/tmp/") for word in shlex.split(line, comments=True)]
    redirect = words[words.index(">") + 1] if ">" in words else None
    for stop in ("|", ">", "&&"):
        if stop in words:
            words = words[: words.index(stop)]
    return words[1:], redirect


def _scratch(tmp: Path) -> Path:
    cwd = tmp / "repo"
    cwd.mkdir()
    for name in SHIPPED:  # linked one level down, so an example writing bundles/new lands here, not in the repo
        (cwd / name).mkdir()
        for child in (REPO / name).iterdir():
            (cwd / name / child.name).symlink_to(child)
    (tmp / "tmp").mkdir()
    return cwd


SOURCES = {**_from_docs(), **_from_help()}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_examples_run_from_the_repository_root(source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cwd = _scratch(tmp_path)
    monkeypatch.chdir(cwd)
    runner = CliRunner()
    for line in SOURCES[source]:
        argv, redirect = _argv(line, tmp_path)
        if "--save" in argv:  # ask --save writes into the bundle: the docs copy it first (cp -r ...)
            target = Path(argv[1])
            if not target.exists():
                shutil.copytree(REPO / "bundles" / "harborview", target)
        if MODEL_FLAGS & set(argv) or argv[0] == "mcp":
            command = main.commands[argv[0]]
            command.make_context(argv[0], argv[1:])  # parses: flags, choices and types exist
            for word in argv[1:]:
                if word.startswith(("bundles/", "docs/", "examples/")):
                    assert (cwd / word).exists(), f"{source}: {line}: {word} does not ship"
            continue
        result = runner.invoke(main, argv, env={"OKF_PROGRESS": None}, catch_exceptions=False)
        assert result.exit_code in (0, 1) and "Error:" not in result.stderr, (
            f"{source}: `{line}` exited {result.exit_code}: {result.stderr[-600:]}"
        )
        if redirect:
            Path(redirect).write_text(result.stdout, encoding="utf-8")
