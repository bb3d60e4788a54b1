"""``okf navigate`` on the command line: rendering, JSON, trace file, budgets, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders import concept as build_concept
from builders import write_files
from click.testing import CliRunner, Result

import okf.cli.navigate as navigate_cli
from okf.cli import main
from okf.testing import ScriptedReader


def concept(title: str, body: str, **meta: str) -> str:
    return build_concept(title, body, kind="policy", **meta)


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    root = tmp_path / "b"
    files = {
        "index.md": "# Root\n\n* [People](people/) - vacation, leave and hiring policies\n"
        "* [Money](money/) - invoices and payments\n",
        "people/vacation.md": concept("Vacation days", "New hires get 25 vacation days per year."),
        "people/old-vacation.md": concept(
            "Old vacation days", "New hires got 20 vacation days per year.", status="deprecated"
        ),
        "money/invoices.md": concept("Invoices", "Invoices are paid within 30 days."),
    }
    return write_files(root, files)


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> ScriptedReader:
    reader = ScriptedReader(
        select=lambda q, offers: [o.path for o in offers if o.path == "people/"],
        judge=lambda q, docs: ["vacation" in d.id for d in docs],
    )
    monkeypatch.setattr(navigate_cli, "reader_from_options", lambda **kw: reader)
    return reader


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["navigate", *args])


def test_prints_a_numbered_shortlist_with_flags_and_a_summary(bundle: Path, scripted: ScriptedReader) -> None:
    result = run(str(bundle), "How many vacation days do new hires get?")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "1. Old vacation days  [people/old-vacation]  (policy, DEPRECATED, unverified)" in out
    assert "2. Vacation days  [people/vacation]  (policy, unverified)" in out
    assert "people/vacation.md:5-7  (c2)" in out
    assert (
        "2 of 2 candidate bodies judged (2 directories opened)" in out
        and "reader: scripted" in out
        and "finished" in out
    )
    assert "deprecated" in result.stderr  # the warning, on stderr only
    assert "warning" not in out


def test_json_is_the_whole_result_and_trace_is_jsonl(bundle: Path, scripted: ScriptedReader, tmp_path: Path) -> None:
    trace = tmp_path / "walk.jsonl"
    result = run(str(bundle), "vacation days", "--json", "--trace", str(trace), "--max-bodies", "1", "-q")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["stopped_by"] == "bodies" and data["stats"]["bodies_judged"] == 1
    assert data["reader"] == "scripted" and data["corpus_id"] is None  # no compile manifest
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [e["kind"] for e in events] == [e["kind"] for e in data["trace"]]
    assert result.stderr == ""  # --quiet


def test_exit_1_when_nothing_was_found_while_calls_failed(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    failing = ScriptedReader(
        select=lambda q, offers: [o.index for o in offers], judge=lambda q, docs: [None] * len(docs)
    )
    monkeypatch.setattr(navigate_cli, "reader_from_options", lambda **kw: failing)
    result = run(str(bundle), "vacation", "--quiet")
    assert result.exit_code == 1
    assert "3 model call result(s) failed" in result.stderr and "scripted failure" in result.stderr
    assert "No relevant concept found." not in result.stdout and "3 failed" in result.stdout
    # One failed verdict with nothing found is still a failure: that concept may have held the answer.
    partly = ScriptedReader(
        select=lambda q, offers: [o.index for o in offers],
        judge=lambda q, docs: [None if d.id == "money/invoices" else False for d in docs],
    )
    monkeypatch.setattr(navigate_cli, "reader_from_options", lambda **kw: partly)
    result = run(str(bundle), "vacation")
    assert result.exit_code == 1 and "1 model call result(s) failed" in result.stderr
    # Something found despite a failure: the shortlist stands, the failure is a warning.
    found = ScriptedReader(
        select=lambda q, offers: [o.index for o in offers],
        judge=lambda q, docs: [None if d.id == "money/invoices" else "old" not in d.id for d in docs],
    )
    monkeypatch.setattr(navigate_cli, "reader_from_options", lambda **kw: found)
    result = run(str(bundle), "vacation")
    assert result.exit_code == 0 and "Vacation days" in result.stdout
    assert "warning: 1 model call result(s) failed" in result.stderr


def test_bad_arguments_exit_2_with_a_clear_message(bundle: Path, tmp_path: Path) -> None:
    result = run(str(bundle), "q", "--max-bodies", "0")
    assert result.exit_code == 2 and "--max-bodies" in result.stderr
    result = run(str(bundle), "   ")
    assert result.exit_code == 2 and "question is empty" in result.stderr
    result = run(str(tmp_path / "missing"), "q")
    assert result.exit_code == 1 and "no such bundle" in result.stderr
    assert "Traceback" not in result.stderr


def test_offline_reader_by_default(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OKF_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    result = run(str(bundle), "How many vacation days do new hires get?", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["reader"] == "offline"
    assert "money/invoices.md" not in {e["path"] for e in data["trace"] if e["kind"] == "verdict"}


def test_help_has_examples() -> None:
    result = CliRunner().invoke(main, ["navigate", "--help"])
    assert result.exit_code == 0 and "Examples:" in result.output and "--max-bodies" in result.output
