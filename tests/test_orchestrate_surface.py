"""The orchestration on every surface: ``--angles`` on the CLI (navigate, ask), several bundles, the one line
of what was tried, the JSON block, usage errors, and the MCP tools' ``angles`` (BundleSet, no SDK)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from builders import concept, write_files
from click.testing import CliRunner

from okf.bundle import Bundle
from okf.cli import main
from okf.mcp.tools import BundleSet
from okf.readers import OfflineReader


def policies(root: Path) -> Path:
    return write_files(
        root,
        {
            "index.md": "# Policies\n\n- [Travel](travel/index.md): trips, flights and their approval\n"
            "- [Money](money/index.md): invoices and payments\n",
            "travel/index.md": "# Travel\n\n- [International travel](international.md): trips abroad\n",
            "travel/international.md": concept(
                "International travel",
                "International travel needs written approval from the department vice president before booking.",
                kind="Policy",
            ),
            "money/index.md": "# Money\n\n- [Invoices](invoices.md): paying suppliers\n",
            "money/invoices.md": concept("Invoices", "Invoices are paid within 30 days.", kind="Policy"),
        },
    )


def handbook(root: Path) -> Path:
    return write_files(
        root,
        {
            "index.md": "# Handbook\n\n- [Leave](leave/index.md): vacation and sick leave\n",
            "leave/index.md": "# Leave\n\n- [Vacation](vacation.md): vacation days\n",
            "leave/vacation.md": concept("Vacation", "New hires get 25 vacation days per year.", kind="Policy"),
        },
    )


def test_navigate_two_bundles_json_carries_the_orchestration_and_receipts_name_the_bundle(tmp_path: Path) -> None:
    a, b = policies(tmp_path / "a"), handbook(tmp_path / "b")
    run = CliRunner().invoke(
        main, ["navigate", str(a), str(b), "Who approves international travel?", "--json", "--quiet"]
    )
    assert run.exit_code == 0, run.output
    data = json.loads(run.stdout)
    orchestration = data["orchestration"]
    assert orchestration["angles_setting"] == "auto" and orchestration["stop"] and orchestration["rounds"]
    assert orchestration["angles"][0]["origin"] == "question"
    assert sorted(orchestration["angles"][0]["bundles"]) == sorted([str(a.resolve()), str(b.resolve())])
    first = data["shortlist"][0]
    assert first["path"] == "travel/international.md" and first["bundle"] == str(a.resolve())
    assert first["receipt"]["bundle"] == str(a.resolve())


def test_navigate_says_in_one_line_what_was_tried_when_nothing_is_found(tmp_path: Path) -> None:
    a = policies(tmp_path / "a")
    run = CliRunner().invoke(main, ["navigate", str(a), "What colour are the submarines of Atlantis?", "--quiet"])
    tried = [line for line in run.stdout.splitlines() if line.startswith("Tried ")]
    assert len(tried) == 1 and "stopped:" in tried[0], run.stdout
    assert "walks (" in run.stdout.splitlines()[-1]
    quiet_off = CliRunner().invoke(
        main, ["navigate", str(a), "What colour are the submarines of Atlantis?", "--quiet", "--angles", "off"]
    )
    assert not any(line.startswith("Tried ") for line in quiet_off.stdout.splitlines())


def test_ask_abstains_and_says_what_was_tried(tmp_path: Path) -> None:
    a = policies(tmp_path / "a")
    run = CliRunner().invoke(main, ["ask", str(a), "What colour are the submarines of Atlantis?", "--quiet"])
    assert sum(line.startswith("Tried ") for line in run.stdout.splitlines()) == 1, run.stdout


def test_a_bad_angles_value_is_a_usage_error_naming_the_fix(tmp_path: Path) -> None:
    a = policies(tmp_path / "a")
    for command in ("navigate", "ask"):
        run = CliRunner().invoke(main, [command, str(a), "Who approves travel?", "--angles", "9"])
        assert run.exit_code == 2 and "--angles auto" in run.stderr and "Traceback" not in run.output


def test_the_mcp_tools_take_angles_and_other_bundles(tmp_path: Path) -> None:
    a, b = policies(tmp_path / "a"), handbook(tmp_path / "b")
    shelf = BundleSet({"a": Bundle.open(a), "b": Bundle.open(b)}, reader=OfflineReader())
    off = asyncio.run(shelf.navigate("a", "Who approves international travel?", {}, angles="off"))
    assert off.orchestration is None and off.shortlist[0].path == "travel/international.md"
    both = asyncio.run(shelf.navigate("a", "How many vacation days do new hires get?", {}, angles="2", others=["b"]))
    assert both.orchestration is not None and both.orchestration.angles_setting == "2"
    assert [e.path for e in both.shortlist][:1] == ["leave/vacation.md"]
    assert both.shortlist[0].bundle == str(b.resolve())
