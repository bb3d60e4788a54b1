"""The MCP server, driven over stdio by the MCP SDK's own client, as an agent would use it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from okf.mcp.tools import BundleSet, json_safe, number_lines, unique_names

REPO = Path(__file__).resolve().parents[1]
TOOLS = {"list_bundles", "read_signposts", "read_concept", "navigate", "ask", "check", "requirements", "comply"}

FILES = {
    "index.md": '---\nokf_version: "0.2"\n---\n# Harbor handbook\n\n## Subdirectories\n\n'
    "- [Policies](policies/) - Vacation days, leave, travel and expense rules.\n",
    "policies/index.md": "# Policies\n\n- [Annual leave](leave.md) - Vacation days for employees.\n"
    "- [Travel](travel.md) - Booking and reimbursing business travel.\n",
    "policies/leave.md": "---\ntype: Policy\ntitle: Annual leave\ndescription: Vacation days for employees.\n"
    "stale_after: 2031-01-01\ngenerated:\n  by: human:ops@harbor\n  at: 2026-01-05\n---\n"
    "# Annual leave\n\nNew hires get 25 vacation days per year.\n"
    "Unused vacation days carry over up to 5 days.\n\nSee also [travel](travel.md).\n",
    "policies/travel.md": "---\ntype: Policy\ntitle: Travel\n---\n# Travel\n\nEmployees must book business "
    "travel through the travel desk. Economy class for flights under 6 hours.\n"
    "Broken link: [missing](gone.md).\n",
}


def write_bundle(root: Path) -> Path:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    root = write_bundle(tmp_path / "harbor")
    (tmp_path / "secret.md").write_text("# Secret\n\nNot part of the bundle.\n", encoding="utf-8")
    (root / "policies" / "leak.md").symlink_to(tmp_path / "secret.md")  # a symlink leading out of the root
    return root


@asynccontextmanager
async def session(*bundles: Path, errlog: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "okf", "mcp", *map(str, bundles)], cwd=str(REPO))
    with errlog.open("w") as err:
        async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            yield client


async def call(client: ClientSession, name: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def call_error(client: ClientSession, name: str, **arguments: Any) -> str:
    result: CallToolResult = await client.call_tool(name, arguments)
    assert result.is_error, f"{name}({arguments}) should be a tool error: {result.structured_content}"
    return result.content[0].text  # type: ignore[union-attr]


def test_tools_answer_over_stdio_refuse_bad_arguments_as_tool_errors_and_the_server_survives(
    bundle: Path, tmp_path: Path
) -> None:
    """One server (starting one costs seconds): every tool, then every kind of bad call, then a good one."""
    errlog = tmp_path / "stderr.txt"

    async def main() -> None:
        async with session(bundle, errlog=errlog) as client:
            await every_tool_answers(client, bundle)
            await bad_arguments_are_tool_errors(client)
            await ask_saves_a_synthesis_that_the_server_then_serves(client, bundle)
            assert (await call(client, "list_bundles"))["bundles"][0]["name"] == "harbor"

    anyio.run(main)
    assert "Traceback" not in errlog.read_text()  # every refusal was anticipated, none was a crash


async def every_tool_answers(client: ClientSession, bundle: Path) -> None:
    listed = await client.list_tools()
    assert {t.name for t in listed.tools} == TOOLS
    for tool in listed.tools:
        assert tool.description and tool.output_schema, tool.name
        assert tool.input_schema.get("properties") is not None

    bundles = (await call(client, "list_bundles"))["bundles"]
    assert [(b["name"], b["concepts"], b["okf_version"]) for b in bundles] == [("harbor", 2, "0.2")]
    assert bundles[0]["root"] == str(bundle.resolve()) and bundles[0]["corpus_id"]

    root = await call(client, "read_signposts", bundle="harbor")
    assert [(s["path"], s["is_dir"]) for s in root["signposts"]] == [("policies/", True)]
    policies = await call(client, "read_signposts", bundle="harbor", directory="policies")
    assert policies["directory"] == "policies/"
    assert [s["path"] for s in policies["signposts"]] == ["policies/leave.md", "policies/travel.md"]
    assert policies["signposts"][0]["description"] == "Vacation days for employees."

    leave = await call(client, "read_concept", bundle="harbor", concept="policies/leave")
    assert leave["frontmatter"]["stale_after"] == "2031-01-01"  # a YAML date, as ISO text
    assert leave["frontmatter"]["generated"] == {"by": "human:ops@harbor", "at": "2026-01-05"}
    assert leave["start_line"] == 10 and leave["end_line"] == leave["last_line"] == 15
    assert leave["body"].splitlines()[2] == "  12 | New hires get 25 vacation days per year."
    assert not leave["truncated"] and leave["next_start_line"] is None
    assert [(link["path"], link["exists"]) for link in leave["links"]] == [("policies/travel.md", True)]

    page = await call(client, "read_concept", bundle="harbor", concept="/policies/leave.md", max_bytes=40)
    assert page["truncated"] and page["end_line"] < 15 and len(page["body"].encode()) <= 40
    rest = await call(
        client, "read_concept", bundle="harbor", concept="policies/leave.md", start_line=page["next_start_line"]
    )
    assert rest["start_line"] == page["end_line"] + 1 and rest["end_line"] == 15

    found = await call(client, "navigate", bundle="harbor", question="How many vacation days do new hires get?")
    assert [e["path"] for e in found["shortlist"]] == ["policies/leave.md"]
    assert found["shortlist"][0]["receipt"]["sha256"] and found["trace"] == []
    traced = await call(
        client,
        "navigate",
        bundle="harbor",
        question="vacation days",
        include_trace=True,
        max_bodies=5,
        max_shortlist=2,
        deadline_s=30,
    )
    assert traced["trace"] and {e["kind"] for e in traced["trace"]} >= {"offered", "verdict"}

    answer = await call(client, "ask", bundle="harbor", question="How many vacation days do new hires get?")
    assert answer["status"] in ("answered", "partial") and "25" in answer["answer"]
    assert [c["concept_id"] for c in answer["citations"]] == ["policies/leave"]
    assert answer["navigation"] is None
    recursive = await call(
        client,
        "ask",
        bundle="harbor",
        question="How many vacation days do new hires get?",
        evidence_tokens=20,
        synthesis="recursive",
    )
    block = recursive["synthesis"]
    assert block["mode"] == "recursive" and block["items_covered"] == block["items_total"] >= 1
    assert block["trace"] == [] and block["calls"]["leaf"] >= 1

    checked = await call(client, "check", bundle="harbor")
    assert checked["concepts"] == 2 and checked["total_diagnostics"] == len(checked["diagnostics"])
    assert any("gone.md" in d["message"] for d in checked["diagnostics"])
    few = await call(client, "check", bundle="harbor", max_diagnostics=1)
    assert len(few["diagnostics"]) == 1 and few["truncated"] == (few["total_diagnostics"] > 1)

    rules = await call(client, "requirements", bundle="harbor")
    assert rules["total"] == 1 and not rules["truncated"] and rules["failures"] == []
    rule = rules["requirements"][0]
    assert (rule["deontic_type"], rule["actor"]) == ("obligation", "Employees")
    assert rule["citation"]["path"] == "policies/travel.md" and rule["requirement_id"].startswith("req-")
    assert (await call(client, "requirements", bundle="harbor", under="policies/leave.md"))["total"] == 0
    checked = await call(
        client,
        "comply",
        bundle="harbor",
        under="policies/",
        subject_name="trip.md",
        subject_text="Trip plan\n\nI will book business travel through the travel desk.\n",
    )
    assert checked["rollup"] == {"violation": 0, "needs_review": 0, "compliant": 1}
    finding = checked["findings"][0]
    assert finding["subject_span"]["path"] == "trip.md" and finding["subject_span"]["start_line"] == 3
    assert finding["requirement_receipt"]["evidence_id"] == rule["requirement_id"]


async def ask_saves_a_synthesis_that_the_server_then_serves(client: ClientSession, bundle: Path) -> None:
    """ask(save=true) files the answer as a Synthesis concept; the served bundle is reopened, so every tool sees
    it at once."""
    before = (await call(client, "list_bundles"))["bundles"][0]
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert tools["ask"].annotations is not None and tools["ask"].annotations.read_only_hint is False
    assert tools["navigate"].annotations is not None and tools["navigate"].annotations.read_only_hint is True
    nothing = await call(client, "ask", bundle="harbor", question="What colour is the office cat?", save=True)
    assert nothing["status"] == "abstained" and nothing["saved"]["action"] == "skipped"
    answer = await call(client, "ask", bundle="harbor", question="How many vacation days do new hires get?", save=True)
    saved = answer["saved"]
    assert saved["action"] == "created" and saved["path"] == "syntheses/how-many-vacation-days-do-new-hires-get.md"
    assert (bundle / saved["path"]).is_file()
    after = (await call(client, "list_bundles"))["bundles"][0]
    assert after["concepts"] == before["concepts"] + 1 and after["corpus_id"] != before["corpus_id"]
    root = await call(client, "read_signposts", bundle="harbor")
    assert "syntheses/" in [s["path"] for s in root["signposts"]]
    concept = await call(client, "read_concept", bundle="harbor", concept=saved["concept_id"])
    assert concept["type"] == "Synthesis" and concept["frontmatter"]["sources"][0]["resource"] == "/policies/leave.md"
    found = await call(client, "navigate", bundle="harbor", question="How many vacation days do new hires get?")
    assert saved["path"] in [e["path"] for e in found["shortlist"]]
    assert (await call(client, "check", bundle="harbor"))["errors"] == 0


async def bad_arguments_are_tool_errors(client: ClientSession) -> None:
    assert "'harbor'" in await call_error(client, "read_signposts", bundle="nope")
    for name, args in [
        ("read_concept", {"concept": "x"}),
        ("navigate", {"question": "q"}),
        ("ask", {"question": "q"}),
        ("check", {}),
    ]:
        assert "unknown bundle 'nope'" in await call_error(client, name, bundle="nope", **args)
    for escape in ("../../etc/passwd", "policies/../../../etc/passwd", "..\\..\\etc\\passwd"):
        assert "PathEscapeError" in await call_error(client, "read_concept", bundle="harbor", concept=escape)
        assert "PathEscapeError" in await call_error(client, "read_signposts", bundle="harbor", directory=escape)
    assert "PathEscapeError" in await call_error(client, "read_concept", bundle="harbor", concept="policies/leak.md")
    assert "Not part of" not in await call_error(client, "read_concept", bundle="harbor", concept="policies/leak")
    # A leading "/" means the bundle root, so this names a concept the bundle does not have.
    assert "ConceptNotFoundError" in await call_error(client, "read_concept", bundle="harbor", concept="/etc/passwd")
    assert "no directory" in await call_error(client, "read_signposts", bundle="harbor", directory="/etc/")
    assert "concept is empty" in await call_error(client, "read_concept", bundle="harbor", concept=" ")
    assert "start_line" in await call_error(
        client, "read_concept", bundle="harbor", concept="policies/leave", start_line=999
    )
    # The limits' bounds are the okf.settings fields': the SDK refuses before okf runs.
    refused = await call_error(client, "read_concept", bundle="harbor", concept="policies/leave", max_bytes=0)
    assert "max_bytes" in refused and "greater than or equal to 1" in refused
    for tool in ("navigate", "ask"):
        assert "question is empty" in await call_error(client, tool, bundle="harbor", question="  ")
        # The schema's bounds are the Budgets fields' (okf.settings): the SDK refuses before okf runs.
        refused = await call_error(client, tool, bundle="harbor", question="q", max_bodies=-1)
        assert "max_bodies" in refused and "greater than or equal to 1" in refused
        refused = await call_error(client, tool, bundle="harbor", question="q", deadline_s=0)
        assert "deadline_s" in refused and "greater than 0" in refused
    assert "evidence_tokens" in await call_error(client, "ask", bundle="harbor", question="q", evidence_tokens=-5)
    assert "synthesis" in await call_error(client, "ask", bundle="harbor", question="q", synthesis="sometimes")
    assert "max_diagnostics" in await call_error(client, "check", bundle="harbor", max_diagnostics=0)
    assert "subject_text is empty" in await call_error(client, "comply", bundle="harbor", subject_text=" ")
    assert "names no directory" in await call_error(client, "requirements", bundle="harbor", under="nowhere/")
    assert "PathEscapeError" in await call_error(client, "requirements", bundle="harbor", under="../..")
    refused = await call_error(client, "requirements", bundle="harbor", max_results=0)
    assert "max_results" in refused and "greater than or equal to 1" in refused
    refused = await call_error(client, "comply", bundle="harbor", subject_text="x", max_requirements=0)
    assert "max_requirements" in refused and "greater than or equal to 1" in refused
    assert "valid integer" in await call_error(
        client, "read_concept", bundle="harbor", concept="policies/leave", max_bytes="lots"
    )
    assert "bundle" in await call_error(client, "read_signposts")  # a required argument missing


def test_bundles_are_named_uniquely_and_a_bad_path_stops_the_server_before_serving(tmp_path: Path) -> None:
    a = write_bundle(tmp_path / "one" / "harbor")
    b = write_bundle(tmp_path / "two" / "harbor")
    assert list(BundleSet.open([a, b]).bundles) == ["harbor", "harbor-2"]
    done = subprocess.run(
        [sys.executable, "-m", "okf", "mcp", str(a), str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=30,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("Error: ") and "missing" in done.stderr and "Traceback" not in done.stderr


def test_helpers() -> None:
    assert unique_names([Path("/a/x"), Path("/b/x"), Path("/c/x"), Path("/")]) == ["x", "x-2", "x-3", "bundle"]
    assert (
        json.dumps(json_safe({"d": __import__("datetime").date(2026, 1, 2), "n": float("nan"), 1: (1, 2)}))
        == '{"d": "2026-01-02", "n": "nan", "1": [1, 2]}'
    )
    lines, cut = number_lines(["a", "b", "c"], 8, 4, max_bytes=17)
    assert lines == ["   8 | a", "   9 | b"] and cut
    lines, cut = number_lines(["é" * 50], 1, 4, max_bytes=10)
    assert lines == ["   1 | é"] and cut and len(lines[0].encode()) <= 10
    assert number_lines(["a"], 1, 4, max_bytes=100) == (["   1 | a"], False)


def test_only_the_server_module_imports_the_mcp_sdk() -> None:
    pattern = re.compile(r"^\s*(import mcp\b|from mcp[. ])", flags=re.MULTILINE)
    importers = {
        str(path.relative_to(REPO))
        for path in (REPO / "okf").rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    }
    assert importers == {"okf/mcp/server.py"}
