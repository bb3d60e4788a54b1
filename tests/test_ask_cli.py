"""``okf ask`` on the command line: the human shape, --json, the query log, exit codes, a real HTTP answerer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from builders import concept as build_concept
from builders import write_files
from click.testing import CliRunner, Result

import okf.cli.ask as ask_cli
from okf.bundle import Bundle
from okf.cli import main
from okf.readers.base import DraftAnswer
from okf.testing import LoopbackServer, ScriptedReader, offline_rule
from okf.testing.server import loopback_only, request_payload

QUESTION = "How many vacation days do new hires get?"


def concept(title: str, body: str, **meta: str) -> str:
    return build_concept(title, body, kind="policy", **meta)


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    root = tmp_path / "b"
    files = {
        "index.md": "# Root\n\n* [People](people/) - vacation, leave and hiring policies\n"
        "* [Money](money/) - invoices and payments\n",
        "people/vacation.md": concept(
            "Vacation days",
            "New hires get 25 vacation days per year.",
            sources="\n  - resource: raw/handbook.md\n    lines: [3, 4]",
        ),
        "money/invoices.md": concept("Invoices", "Invoices are paid within 30 days."),
    }
    return write_files(root, files)


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for name in ("OKF_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OKF_CONFIG", "OKF_ANSWER_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OKF_CACHE_DIR", str(tmp_path / "cache"))
    with loopback_only():
        yield


def use(monkeypatch: pytest.MonkeyPatch, answer: Any, relevant: tuple[str, ...] = ("people/vacation",)) -> None:
    reader = ScriptedReader(
        select=lambda q, offers: [o.index for o in offers], judge=dict.fromkeys(relevant, True), answer=answer
    )
    monkeypatch.setattr(ask_cli, "reader_from_options", lambda **kw: reader)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["ask", *args])


def test_offline_default_prints_the_answer_shape(bundle: Path) -> None:
    result = run(str(bundle), QUESTION)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert out.startswith('Vacation days: "New hires get 25 vacation days per year." [1]')
    assert "\n\nSupporting concepts\n- [1] Vacation days (people/vacation): " in out
    ledger, _, last = out.rstrip().rpartition("\n\n")
    assert ledger.endswith("Sources\n1. Vacation days (people/vacation.md): raw/handbook.md:3-4")
    assert last.startswith("No contract: this answer has no typed-fact guarantee")  # the one line it says so
    assert "Caveats" not in out
    assert "by offline:" in result.stderr and "by offline:" not in out


def test_json_is_the_answer_result(bundle: Path) -> None:
    result = run(str(bundle), QUESTION, "--json", "--quiet")
    assert result.exit_code == 0 and result.stderr == ""
    data = json.loads(result.stdout)
    assert data["status"] == "answered" and data["reader"] == "offline" and data["corpus_id"] is None
    assert data["citations"][0]["concept_id"] == "people/vacation"
    assert set(data["citations"][0]["receipt"]) == {
        "evidence_id",
        "path",
        "bundle",
        "start_line",
        "end_line",
        "sha256",
        "truncated",
    }
    assert set(data["usage"]) >= {"selector", "judge", "answerer"} and data["shortlist"]


def test_honest_abstention_exits_0_with_the_reason(bundle: Path) -> None:
    result = run(str(bundle), "Wie viele Urlaubstage bekommen neue Mitarbeiter?")
    assert result.exit_code == 0
    assert result.stdout.startswith("No answer. No concept in the bundle was judged relevant")


def test_model_failure_exits_1_and_keeps_the_shortlist(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, DraftAnswer(failed=True, error="reply was not JSON after the repair retry"))
    result = run(str(bundle), QUESTION)
    assert result.exit_code == 1
    assert result.stdout.startswith("No answer. The answerer failed: reply was not JSON")
    assert "Shortlisted concepts (not cited)\n- Vacation days (people/vacation.md)" in result.stdout
    assert "Error: The answerer failed" in result.stderr and "Traceback" not in result.stderr


def test_uncited_answer_is_an_abstention_on_the_cli(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, DraftAnswer(text="New hires get 40 days [c5].", cited=["c5"]))
    result = run(str(bundle), QUESTION, "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 0 and data["status"] == "abstained" and "40" not in data["answer"]
    assert any("'c5'" in c for c in data["caveats"])


def test_real_http_answerer_returning_garbage(bundle: Path) -> None:
    def rule(request: dict[str, Any]) -> Any:
        if request_payload(request).get("task") == "answer":
            return "certainly! here is your answer: 25 days"  # not JSON, twice (the repair retry too)
        return offline_rule()(request)

    with LoopbackServer(rule=rule) as server:
        result = run(str(bundle), QUESTION, "--json", "--model", "m", "--base-url", server.base_url, "--timeout", "2")
    assert result.exit_code == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["status"] == "abstained" and data["failed"] and data["answer"] == ""
    assert data["reason"].startswith("The answerer failed") and data["shortlist"]


def test_query_log_appends_one_line_per_question(bundle: Path, tmp_path: Path) -> None:
    log = tmp_path / "queries.jsonl"
    for question in (QUESTION, "Wie viele Urlaubstage?"):
        assert run(str(bundle), question, "--log", str(log), "--quiet").exit_code == 0
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [(r["question"], r["status"], r["cited"]) for r in lines] == [
        (QUESTION, "answered", ["people/vacation"]),
        ("Wie viele Urlaubstage?", "abstained", []),
    ]
    first = lines[0]
    # The log names the content read even without a compile manifest.
    assert first["corpus_id"] == lines[1]["corpus_id"] == Bundle.open(bundle).corpus_id()
    assert first["time"].endswith("Z") and first["reader"] == "offline"
    assert first["usage"]["calls"] >= 3 and set(first["usage"]) >= {"calls", "tokens", "prompt_tokens"}


def test_bad_arguments_exit_2(bundle: Path, tmp_path: Path) -> None:
    result = run(str(bundle), "  ")
    assert result.exit_code == 2 and "question is empty" in result.stderr
    result = run(str(bundle), QUESTION, "--evidence-tokens", "0")
    assert result.exit_code == 2 and "--evidence-tokens" in result.stderr
    result = run(str(bundle), QUESTION, "--log", str(tmp_path / "no" / "such" / "dir" / "q.jsonl"))
    assert result.exit_code == 2 and "query log" in result.stderr and "Traceback" not in result.stderr
    result = run(str(tmp_path / "missing"), QUESTION)
    assert result.exit_code == 1 and "no such bundle" in result.stderr


def test_small_evidence_budget_is_said_in_caveats(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use(
        monkeypatch,
        lambda q, ev: DraftAnswer(text="25 days.", cited=[e.id for e in ev]),
        relevant=("people/vacation", "money/invoices"),
    )
    result = run(str(bundle), QUESTION, "--evidence-tokens", "12", "--synthesis", "single", "--json")
    data = json.loads(result.stdout)
    assert any("did not fit the evidence budget (12 tokens)" in c for c in data["caveats"])


def test_help_has_examples_and_exit_codes() -> None:
    result = CliRunner().invoke(main, ["ask", "--help"])
    assert result.exit_code == 0
    for text in ("Examples:", "--evidence-tokens", "--log", "--max-bodies", "--model", "Exit status"):
        assert text in result.output
