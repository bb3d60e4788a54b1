"""The extractor and assessor roles through the real openai SDK against the loopback server: valid replies,
each kind of malformed reply (one repair, then a recorded failure), and the prompts and payloads sent."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from okf.readers import LLMReader, ReaderConfig
from okf.readers.assessment import RequirementOffer, SubjectText
from okf.readers.extraction import RuleStub, Section
from okf.testing import LoopbackServer, Reply, loopback_only, roles_rule

SECTION = Section(
    id="rules/records",
    title="Records",
    first_line=5,
    sha256="c" * 64,
    text="# Records\n\nA firm must keep records for six years.\n\nA firm may destroy copies.",
)
SUBJECT = SubjectText(name="contract.md", text="# Contract\n\nThe Supplier shall keep records for six years.")
T = TypeVar("T")
OFFER = RequirementOffer(
    index=0,
    id="req-1",
    requirement_text="A firm must keep records for six years.",
    deontic_type="obligation",
    actor="firm",
)


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("OKF_CACHE_DIR", str(tmp_path / "cache"))
    _READERS.clear()
    with loopback_only():
        yield


_READERS: list[LLMReader] = []


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run one call in its own event loop and close the connections the test's readers opened there."""

    async def closing() -> T:
        try:
            return await coro
        finally:
            for made in _READERS:
                await made.aclose()

    return asyncio.run(closing())


def reader(server: LoopbackServer, **overrides: Any) -> LLMReader:
    settings: dict[str, Any] = {
        "model": "test-model",
        "base_url": server.base_url,
        "timeout": 2.0,
        "max_retries": 1,
        "cache": False,
    }
    settings.update(overrides)
    made = LLMReader(ReaderConfig(**settings))
    _READERS.append(made)
    return made


def payload(server: LoopbackServer, n: int = 0) -> dict[str, Any]:
    body = server.completions[n].body
    assert body is not None
    return json.loads(body["messages"][1]["content"])


def test_extract_outline_fill_with_valid_replies() -> None:
    with LoopbackServer(rule=roles_rule()) as server:
        llm = reader(server)
        extraction = run(llm.extract(SECTION))
        outline = run(llm.outline(SECTION))
        filled = run(llm.fill(SECTION, outline.stubs))
    assert [(r.deontic_type, r.start_line) for r in extraction.rules] == [("obligation", 7), ("permission", 9)]
    assert not extraction.failed and extraction.usage.calls == 1
    assert [s.start_line for s in outline.stubs] == [7, 9]
    assert [r.actor for r in filled.rules] == ["firm", "firm"]
    sent = payload(server)
    assert (
        sent["task"] == "extract"
        and sent["section"]["text"].split("\n")[2] == "7 | A firm must keep records for six years."
        and sent["section"]["first_line"] == 5
    )
    system = server.completions[0].body["messages"][0]["content"]  # type: ignore[index]
    assert "operative rules" in system and payload(server, 2)["task"] == "fill"
    assert llm.usage_by_role()["extractor"].calls == 3


def test_off_vocabulary_deontic_types_are_kept_for_code_to_close_not_repaired() -> None:
    reply = {
        "requirements": [
            {
                "requirement_text": "Firms keep records.",
                "deontic_type": "duty",
                "lines": [7, 7],
                "applicability": "jurisdiction: ADGM",
            }
        ]
    }
    with LoopbackServer([reply]) as server:
        extraction = run(reader(server).extract(SECTION))
    rule = extraction.rules[0]
    assert (rule.deontic_type, rule.applicability, len(server.completions)) == ("duty", ["jurisdiction: ADGM"], 1)


MALFORMED_EXTRACT = {
    "not JSON": "Sure! The section says firms must keep records.",
    "no list": {"rules": "one"},
    "lines outside the section": {"requirements": [{"requirement_text": "x", "lines": [1, 2]}]},
    "lines not numbers": {"requirements": [{"requirement_text": "x", "lines": ["seven"]}]},
    "empty sentence": {"requirements": [{"requirement_text": " ", "lines": [7, 7]}]},
    "applicability not strings": {
        "requirements": [{"requirement_text": "x", "lines": [7, 7], "applicability": {"where": "ADGM"}}]
    },
}


@pytest.mark.parametrize("case", sorted(MALFORMED_EXTRACT))
def test_each_malformed_extract_reply_gets_one_repair_then_is_a_failure(case: str) -> None:
    bad = MALFORMED_EXTRACT[case]
    good = {
        "requirements": [
            {"requirement_text": "A firm must keep records.", "deontic_type": "obligation", "lines": [7, 7]}
        ]
    }
    with LoopbackServer([bad, good]) as server:
        repaired = run(reader(server).extract(SECTION))
        repair = server.completions[1].body["messages"][-1]["content"]  # type: ignore[index]
    assert not repaired.failed and repaired.rules[0].start_line == 7 and repaired.usage.retries == 1
    assert "could not be used" in repair
    with LoopbackServer([bad, bad]) as server:
        failed = run(reader(server).extract(SECTION))
    assert failed.failed and failed.rules == [] and "invalid extractor reply" in (failed.error or "")
    assert failed.usage.failures == 1 and len(server.completions) == 2


def test_malformed_outline_and_fill_replies_fail_after_a_repair() -> None:
    stubs = [
        RuleStub(index=0, requirement_text="a", start_line=7, end_line=7),
        RuleStub(index=1, requirement_text="b", start_line=9, end_line=9),
    ]
    wrong_count = {"requirements": [{"index": 0, "deontic_type": "obligation"}]}
    unknown_index = {"requirements": [{"index": 0}, {"index": 1}, {"index": 7}]}
    with LoopbackServer(
        [{"rules": [{"requirement_text": "a", "lines": [99, 99]}]}] * 2 + [wrong_count, unknown_index]
    ) as server:
        llm = reader(server)
        outline = run(llm.outline(SECTION))
        filled = run(llm.fill(SECTION, stubs))
    assert outline.failed and "not within the lines shown (5..9)" in (outline.error or "")
    assert filled.failed and "names no offered index: 7" in (filled.error or "")


def test_server_errors_are_failures_with_their_status() -> None:
    with LoopbackServer([Reply.server_error(503)] * 2) as server:
        failed = run(reader(server).extract(SECTION))
    assert failed.failed and "503" in (failed.error or "")


def test_applies_and_assess_with_valid_replies() -> None:
    with LoopbackServer(rule=roles_rule()) as server:
        llm = reader(server)
        decisions = run(llm.applies(SUBJECT, "records?", [OFFER]))
        assessment = run(llm.assess(SUBJECT, OFFER))
    assert [(d.id, d.applies) for d in decisions.decisions] == [("req-1", True)]
    assert (assessment.verdict, assessment.start_line, assessment.confidence) == ("compliant", 3, 0.5)
    assert payload(server)["question"] == "records?" and payload(server, 1)["requirement"]["id"] == "req-1"
    assert "1 | # Contract" in payload(server, 1)["subject"]["text"]


def test_an_off_vocabulary_or_missing_verdict_is_returned_as_given_not_repaired() -> None:
    with LoopbackServer([{"verdict": "NON-COMPLIANT", "confidence": 3}, {"rationale": "unclear"}]) as server:
        llm = reader(server)
        odd = run(llm.assess(SUBJECT, OFFER))
        missing = run(llm.assess(SUBJECT, OFFER))
    assert (odd.verdict, odd.confidence, odd.failed) == ("NON-COMPLIANT", 1.0, False)
    assert (missing.verdict, missing.failed) == (None, False) and len(server.completions) == 2


MALFORMED_ASSESS = {
    "not JSON": "violation",
    "lines outside the subject": {"verdict": "violation", "lines": [1, 40]},
    "confidence not a number": {"verdict": "compliant", "confidence": "high"},
}


@pytest.mark.parametrize("case", sorted(MALFORMED_ASSESS))
def test_each_malformed_assess_reply_gets_one_repair_then_is_a_failure(case: str) -> None:
    bad = MALFORMED_ASSESS[case]
    with LoopbackServer([bad, {"verdict": "violation", "rationale": "r", "lines": [3, 3]}]) as server:
        repaired = run(reader(server).assess(SUBJECT, OFFER))
    assert (repaired.verdict, repaired.start_line, repaired.usage.retries) == ("violation", 3, 1)
    with LoopbackServer([bad, bad]) as server:
        failed = run(reader(server).assess(SUBJECT, OFFER))
    assert failed.failed and failed.verdict is None and "invalid assessor reply" in (failed.error or "")


def test_malformed_applies_replies_fail_every_decision_of_the_batch() -> None:
    offers = [OFFER, OFFER.model_copy(update={"index": 1, "id": "req-2"})]
    missing_one = {"decisions": [{"index": 0, "applies": True}]}
    not_bool = {"decisions": [{"index": 0, "applies": "yes"}, {"index": 1, "applies": False}]}
    with LoopbackServer([missing_one, not_bool]) as server:
        result = run(reader(server).applies(SUBJECT, "", offers))
    assert [(d.id, d.applies, d.failed) for d in result.decisions] == [("req-1", None, True), ("req-2", None, True)]
    assert '"applies" must be true or false' in (result.decisions[0].error or "")


def test_roles_without_a_model_read_offline_and_the_name_lists_configured_roles_only() -> None:
    with LoopbackServer(rule=roles_rule()) as server:
        judge_only = reader(server, model=None, judge={"model": "j"})
        extraction = run(judge_only.extract(SECTION))
        assert len(server.completions) == 0 and len(extraction.rules) == 2
        assert judge_only.name.endswith("answerer=offline") and "extractor" not in judge_only.name
        mixed = reader(server, model=None, judge={"model": "j"}, extractor={"model": "x"})
        assert "extractor=x@" in mixed.name and mixed.role_identity("extractor").startswith("x@")
        assert ReaderConfig(extractor={"model": "x"}).profile("extractor").max_tokens == 4096  # type: ignore[union-attr]
        assert ReaderConfig(model="m", max_tokens=900).profile("extractor").max_tokens == 900  # type: ignore[union-attr]


def test_cli_with_a_model_caches_sections_by_content_and_exits_1_on_a_failed_section(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from okf.cli import main
    from tests.builders import concept, write_files

    bundle = write_files(
        tmp_path / "b",
        {"a.md": concept("A", "Firms must file returns."), "b.md": concept("B", "Staff may work remotely.")},
    )
    runner = CliRunner()
    with LoopbackServer(rule=roles_rule()) as server:
        args = ["requirements", str(bundle), "--extract-model", "m", "--base-url", server.base_url, "--json"]
        first = runner.invoke(main, args)
        calls = len(server.completions)
        second = runner.invoke(main, args)
        assert len(server.completions) == calls == 2  # the second run was served from the cache
        (bundle / "b.md").write_text(concept("B", "Staff must work on site."), encoding="utf-8")
        third = runner.invoke(main, args)
        assert len(server.completions) == 3  # only the changed section was read again
    data = [json.loads(r.stdout) for r in (first, second, third)]
    assert [d["stats"]["cached"] for d in data] == [0, 2, 1]
    assert data[0]["requirements"] == data[1]["requirements"] and data[0]["reader"].startswith("openai:")
    assert [r["deontic_type"] for r in data[2]["requirements"]] == ["obligation", "obligation"]
    with LoopbackServer(["not json"] * 4) as server:
        failed = runner.invoke(
            main, ["requirements", str(bundle), "--extract-model", "m", "--no-cache", "--base-url", server.base_url]
        )
    assert failed.exit_code == 1 and "Error: a (extract): invalid extractor reply" in failed.stderr
