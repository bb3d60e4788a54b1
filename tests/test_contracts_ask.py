"""``ask --contract``: the preflight runs first and a failure makes no model call (counted at the loopback HTTP
server); grounded facts reach the answerer as evidence with their receipt ids and come back in ``facts``; a
contract-free ask says it has no typed-fact guarantee. The MCP ``check`` and ``ask`` take a contract."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from builders import concept, write_files
from click.testing import CliRunner, Result

from okf.answer import ask
from okf.cli import main
from okf.errors import ContractError
from okf.mcp.tools import BundleSet
from okf.readers.base import DraftAnswer
from okf.testing import LoopbackServer, ScriptedReader, offline_rule
from okf.testing.server import request_payload

QUESTION = "How many vacation days do new hires get?"
DAYS = {
    "name": "vacation_days",
    "type": "number",
    "locate": {"concept": "people/vacation", "regex": r"get (\d+) vacation days"},
}


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return write_files(
        tmp_path / "b",
        {
            "index.md": "# Root\n\n* [People](people/) - vacation, leave and hiring policies\n",
            "people/vacation.md": concept("Vacation days", "New hires get 25 vacation days per year.", kind="policy"),
            "people/leave.md": concept("Parental leave", "Parents get 12 weeks of leave.", kind="policy"),
        },
    )


def contract_file(tmp_path: Path, *facts: dict[str, Any]) -> str:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"version": 1, "facts": list(facts)}), encoding="utf-8")
    return str(path)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["ask", *args])


def test_a_failed_preflight_makes_no_model_call(bundle: Path, tmp_path: Path) -> None:
    failing = contract_file(tmp_path, {**DAYS, "expect": {"equals": 30}})
    with LoopbackServer(rule=offline_rule()) as server:
        result = run(
            str(bundle), QUESTION, "--contract", failing, "--model", "m", "--base-url", server.base_url, "--json"
        )
        assert server.requests == []  # not one HTTP request: no selector, judge or answerer call
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["status"] == "abstained" and data["navigation"] is None and data["usage"] == {}
    assert "No model was called" in data["reason"] and "vacation_days (mismatch)" in data["reason"]
    assert data["typed_fact_guarantee"] is False and data["contract"]["ok"] is False
    assert data["facts"][0]["code"] == "mismatch" and data["facts"][0]["value"] == 25
    assert "Error: The contract preflight failed" in result.stderr


def test_a_holding_contract_gives_facts_to_the_answerer_with_receipt_ids(bundle: Path, tmp_path: Path) -> None:
    holding = contract_file(
        tmp_path,
        {**DAYS, "expect": {"equals": 25}},
        {
            "name": "no_unlimited",
            "type": "string",
            "expect": {"present": False},
            "locate": {"concept": "people/vacation", "literal": "unlimited"},
        },
    )
    with LoopbackServer(rule=offline_rule()) as server:
        result = run(
            str(bundle), QUESTION, "--contract", holding, "--model", "m", "--base-url", server.base_url, "--json"
        )
        answers = [request_payload(r.body or {}) for r in server.completions]
    assert result.exit_code == 0, result.output
    answer_calls = [p for p in answers if p.get("task") == "answer"]
    assert len(answer_calls) == 1
    given = {e["id"]: e for e in answer_calls[0]["evidence"]}
    assert given["f1"]["text"] == "New hires get 25 vacation days per year."
    assert "vacation_days = 25" in given["f1"]["title"] and "f2" not in given  # an absence is not evidence
    data = json.loads(result.stdout)
    assert data["typed_fact_guarantee"] is True and data["contract"]["ok"] and data["contract"]["grounded"] == 2
    facts = {f["name"]: f for f in data["facts"]}
    assert facts["vacation_days"]["value"] == 25 and facts["vacation_days"]["receipt_ids"] == ["f1"]
    assert facts["no_unlimited"]["status"] == "grounded" and facts["no_unlimited"]["value"] is None


def test_a_cited_fact_is_a_citation_carrying_the_fact_receipt(bundle: Path) -> None:
    reader = ScriptedReader(
        select=lambda q, offers: [o.index for o in offers],
        judge={"people/vacation": True},
        answer=DraftAnswer(text="New hires get 25 days.", cited=["f1"]),
    )
    result = ask(bundle, QUESTION, reader=reader, contract={"version": 1, "facts": [DAYS]})
    assert result.status == "answered" and result.answer == "New hires get 25 days [1]."
    fact = result.facts[0]
    assert result.citations[0].receipt == fact.receipt and fact.receipt.evidence_id == "f1"
    assert result.citations[0].concept_id == "people/vacation"
    offered = reader.requests[-1][2]
    assert [e.id for e in offered][:1] == ["f1"]


def test_facts_are_evidence_even_when_navigation_finds_nothing(bundle: Path) -> None:
    reader = ScriptedReader(select=lambda q, offers: [], answer=DraftAnswer(text="25 days.", cited=["f1"]))
    result = ask(bundle, QUESTION, reader=reader, contract={"version": 1, "facts": [DAYS]}, angles="off")
    assert result.shortlist == [] and result.status == "answered" and reader.calls["answer"] == 1


def test_human_output_has_a_facts_section_or_the_no_contract_line(bundle: Path, tmp_path: Path) -> None:
    holding = contract_file(tmp_path, DAYS)
    with_contract = run(str(bundle), QUESTION, "--contract", holding)
    assert with_contract.exit_code == 0, with_contract.output
    section = with_contract.stdout.rstrip().rpartition("\n\n")[2].splitlines()
    assert section[0] == f"Facts (checked in code against {holding} before answering)"
    assert section[1] == "- vacation_days = 25 [f1] people/vacation.md:7-7"
    assert "No contract" not in with_contract.stdout

    without = run(str(bundle), QUESTION)
    last = without.stdout.rstrip().splitlines()[-1]
    assert last.startswith("No contract: this answer has no typed-fact guarantee")
    data = json.loads(run(str(bundle), QUESTION, "--json").stdout)
    assert (data["typed_fact_guarantee"], data["contract"], data["facts"]) == (False, None, [])


def test_a_malformed_contract_stops_ask_with_exit_2_naming_the_fact(bundle: Path, tmp_path: Path) -> None:
    bad = contract_file(tmp_path, {**DAYS, "locate": {"concept": "people/vacation", "regex": "(\\d"}})
    with LoopbackServer(rule=offline_rule()) as server:
        result = run(str(bundle), QUESTION, "--contract", bad, "--model", "m", "--base-url", server.base_url)
        assert server.requests == []
    assert result.exit_code == 2 and "fact 'vacation_days' (locate.regex)" in result.stderr
    with pytest.raises(ContractError):
        ask(bundle, QUESTION, contract={"version": 1, "facts": [{**DAYS, "type": "decimal"}]})


def test_mcp_check_and_ask_take_a_contract(bundle: Path) -> None:
    shelf = BundleSet.open([bundle])
    name = next(iter(shelf.bundles))
    holding = {"version": 1, "facts": [{**DAYS, "expect": {"equals": 25}}]}
    summary = shelf.check(name, contract=holding)
    assert summary.contract is not None and summary.contract.ok and summary.contract.facts[0].value == 25
    assert shelf.check(name).contract is None
    answered = anyio.run(lambda: shelf.ask(name, QUESTION, {}, None, holding))
    assert answered.typed_fact_guarantee and answered.facts[0].receipt_ids == ["f1"]
    failing = {"version": 1, "facts": [{**DAYS, "expect": {"equals": 30}}]}
    stopped = anyio.run(lambda: shelf.ask(name, QUESTION, {}, None, failing))
    assert stopped.status == "abstained" and not stopped.contract.ok and stopped.usage == {}
    with pytest.raises(ContractError, match="fact 'vacation_days'"):
        shelf.check(name, contract={"version": 1, "facts": [{**DAYS, "type": "decimal"}]})


def test_mcp_tools_take_a_contract_over_stdio(bundle: Path, tmp_path: Path) -> None:
    """The served tools accept a contract object as input and return the facts, as an agent sees them."""
    from test_mcp import call, call_error, session

    holding = {"version": 1, "facts": [{**DAYS, "expect": {"equals": 25}}]}
    failing = {"version": 1, "facts": [{**DAYS, "expect": {"equals": 30}}]}

    async def main() -> None:
        async with session(bundle, errlog=tmp_path / "stderr.txt") as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert "contract" in listed["check"].input_schema["properties"]
            assert "contract" in listed["ask"].input_schema["properties"]
            checked = await call(client, "check", bundle="b", contract=holding)
            assert checked["contract"]["ok"] and checked["contract"]["facts"][0]["receipt_ids"] == ["f1"]
            stopped = await call(client, "ask", bundle="b", question=QUESTION, contract=failing)
            assert stopped["status"] == "abstained" and stopped["facts"][0]["code"] == "mismatch"
            answered = await call(client, "ask", bundle="b", question=QUESTION, contract=holding)
            assert answered["typed_fact_guarantee"] and answered["facts"][0]["value"] == 25
            error = await call_error(
                client, "check", bundle="b", contract={"version": 1, "facts": [{**DAYS, "type": "decimal"}]}
            )
            assert "ContractError:" in error and "fact 'vacation_days'" in error

    anyio.run(main)
