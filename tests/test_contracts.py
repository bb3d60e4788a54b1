"""Contracts: every fact type, extractor and expectation; every bad input named by fact; drift after a
recompile; ``okf check --contract``, ``okf contract init`` and ``schema``; the harborview example and the
schema published in docs/contracts.md."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from builders import write_files
from click.testing import CliRunner, Result

from okf.cli import main
from okf.compile import compile_bundle
from okf.contract import check_contract, contract_schema, init_contract, load_contract
from okf.errors import ContractError
from okf.sources import span_sha256

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "bundles" / "harborview.contract.yaml"

LEAVE = """---
type: Policy
title: Annual leave
status: stable
effective: 2026-03-01
remote_ok: true
regions: [Oregon, Washington]
owner:
  name: People Operations
---
# Annual leave

Effective January 1, 2026. Leave requests need **2 weeks** of notice.

## Accrual

| Service | Annual days | Carry over |
|---|---|---|
| Under 3 years | 15 days | yes |
| 3 years or more | 20 | no |

New hires get 15 vacation days per year.

## Holidays

Warehouses close on New Year's Day, Thanksgiving Day and Christmas Day.
The plan tier is Gold.
New hires get 15 vacation days per year.
"""
OTHER = "---\ntype: Policy\ntitle: Travel\n---\n# Travel\n\nBook travel 14 days ahead.\n\n## Accrual\n\nNone.\n"


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return write_files(tmp_path / "b", {"index.md": "# Root\n", "hr/leave.md": LEAVE, "hr/travel.md": OTHER})


def fact(
    name: str = "f",
    kind: str = "string",
    *,
    severity: str = "error",
    expect: dict[str, Any] | None = None,
    **locate: Any,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": name,
        "type": kind,
        "locate": {"concept": "hr/leave", **locate},
        "severity": severity,
    }
    if expect is not None:
        out["expect"] = expect
    return out


def contract(*facts: dict[str, Any]) -> dict[str, Any]:
    return {"version": 1, "facts": list(facts)}


def one(bundle: Path, spec: dict[str, Any], **kwargs: Any) -> Any:
    return check_contract(bundle, contract(spec), **kwargs).facts[0]


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), 1) if needle in line)


# -- types and extractors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "locate", "value"),
    [
        ("string", {"frontmatter": "owner.name"}, "People Operations"),
        ("number", {"regex": r"get (\d+) vacation days", "heading": "Accrual"}, 15),
        ("number", {"table": {"row": "3 years or more", "column": "annual days"}}, 20),
        ("date", {"regex": r"Effective (\w+ \d+, \d{4})"}, "2026-01-01"),
        ("date", {"frontmatter": "effective"}, "2026-03-01"),
        ("boolean", {"frontmatter": "remote_ok"}, True),
        ("boolean", {"table": {"row": "Under 3 years", "column": "Carry over"}}, True),
        ("enum", {"regex": r"plan tier is (\w+)"}, "gold"),
        ("list", {"regex": r"close on ([^.]+)\."}, ["New Year's Day", "Thanksgiving Day", "Christmas Day"]),
        ("list", {"frontmatter": "regions"}, ["Oregon", "Washington"]),
        ("string", {"literal": "2 weeks"}, "2 weeks"),
    ],
)
def test_each_type_and_extractor_grounds_a_typed_value_with_a_receipt(
    bundle: Path, kind: str, locate: dict[str, Any], value: Any
) -> None:
    spec = fact("x", kind, **locate)
    if kind == "enum":
        spec["values"] = ["silver", "gold"]
    result = one(bundle, spec)
    assert result.status == "grounded", result.message
    assert result.value == value and result.receipt_ids == ["f1"]
    receipt = result.receipt
    text = (bundle / "hr/leave.md").read_text()
    assert receipt.path == "hr/leave.md" and receipt.evidence_id == "f1"
    assert receipt.sha256 == span_sha256(text, receipt.start_line, receipt.end_line)


def test_receipts_point_at_the_lines_the_value_was_read_from(bundle: Path) -> None:
    text = (bundle / "hr/leave.md").read_text()
    report = check_contract(
        bundle,
        contract(
            fact("row", "string", table={"row": "Under 3 years", "column": "Annual days"}),
            fact("owner", "string", frontmatter="owner.name"),
            fact("notice", "string", literal="2 weeks"),
        ),
    )
    row, owner, notice = report.facts
    assert (row.value, row.receipt.start_line) == ("15 days", line_of(text, "| Under 3 years"))
    assert (owner.receipt.start_line, owner.receipt.end_line) == (line_of(text, "owner:"), line_of(text, "  name:"))
    assert notice.receipt.start_line == line_of(text, "2 weeks") and [f.receipt.evidence_id for f in report.facts] == [
        "f1",
        "f2",
        "f3",
    ]


# -- expectations -----------------------------------------------------------------------------------------

DAYS = {"regex": r"get (\d+) vacation days", "heading": "Accrual"}


@pytest.mark.parametrize(
    ("expect", "code"),
    [
        ({"equals": 15}, None),
        ({"equals": "15"}, None),
        ({"equals": 16}, "mismatch"),
        ({"one_of": [10, 15]}, None),
        ({"one_of": [10, 20]}, "not_one_of"),
        ({"range": {"min": 10, "max": 15}}, None),
        ({"range": {"max": 14}}, "out_of_range"),
        ({"range": {"min": 16}}, "out_of_range"),
        ({"present": True}, None),
    ],
)
def test_number_expectations(bundle: Path, expect: dict[str, Any], code: str | None) -> None:
    result = one(bundle, fact("days", "number", expect=expect, **DAYS))
    assert (result.status, result.code) == (("grounded", None) if code is None else ("failed", code))
    if code:
        assert result.value == 15 and result.receipt is not None and result.fix


@pytest.mark.parametrize(
    ("expect", "code"),
    [
        ({"range": {"min": "2025-12-31", "max": "December 31, 2026"}}, None),
        ({"range": {"min": "2026-01-02"}}, "out_of_range"),
        ({"equals": "2026-01-01"}, None),
    ],
)
def test_date_expectations(bundle: Path, expect: dict[str, Any], code: str | None) -> None:
    result = one(bundle, fact("eff", "date", expect=expect, regex=r"Effective (\w+ \d+, \d{4})"))
    assert result.code == code


def test_string_list_enum_and_boolean_equality(bundle: Path) -> None:
    report = check_contract(
        bundle,
        contract(
            fact("owner", "string", frontmatter="owner.name", expect={"equals": "People  Operations"}),
            fact("regions", "list", frontmatter="regions", expect={"equals": ["Oregon", "Washington"]}),
            fact("order", "list", frontmatter="regions", expect={"equals": ["Washington", "Oregon"]}),
            {**fact("tier", "enum", regex=r"tier is (\w+)", expect={"one_of": ["GOLD"]}), "values": ["Gold", "Silver"]},
            fact("remote", "boolean", frontmatter="remote_ok", expect={"equals": "yes"}),
        ),
    )
    assert [(f.name, f.code) for f in report.facts] == [
        ("owner", None),
        ("regions", None),
        ("order", "mismatch"),
        ("tier", None),
        ("remote", None),
    ]


def test_present_false_grounds_an_absence_and_fails_when_found(bundle: Path) -> None:
    absent = one(bundle, fact("no_unlimited", literal="unlimited", expect={"present": False}))
    assert absent.status == "grounded" and absent.value is None
    assert (absent.receipt.start_line, absent.receipt.end_line) == (line_of(LEAVE, "# Annual"), LEAVE.count("\n"))
    found = one(bundle, fact("no_notice", literal="2 weeks", expect={"present": False}))
    assert found.code == "unexpected" and found.receipt.start_line == line_of(LEAVE, "2 weeks")


def test_unchanged_holds_for_the_recorded_hash_and_is_drift_otherwise(bundle: Path) -> None:
    first = one(bundle, fact("days", "number", **DAYS))
    same = one(bundle, fact("days", "number", expect={"unchanged": first.receipt.sha256}, **DAYS))
    assert same.status == "grounded"
    drifted = one(bundle, fact("days", "number", expect={"unchanged": "0" * 64}, **DAYS))
    assert drifted.code == "drift" and drifted.value == 15 and first.receipt.sha256[:12] in drifted.message


def test_a_warning_fact_fails_without_failing_the_contract(bundle: Path) -> None:
    report = check_contract(bundle, contract(fact("days", "number", severity="warning", expect={"equals": 1}, **DAYS)))
    assert report.ok and report.warning_count == 1 and report.error_count == 0


# -- locators ---------------------------------------------------------------------------------------------


def test_heading_scopes_the_search_and_must_exist_once(bundle: Path) -> None:
    whole = one(bundle, fact("days", "number", regex=r"get (\d+) vacation days"))
    assert whole.status == "grounded"  # the same value twice is one value
    assert whole.receipt.start_line == line_of(LEAVE, "New hires get 15")
    holidays = one(bundle, fact("days", "number", regex=r"get (\d+) vacation days", heading="## holidays"))
    assert holidays.receipt.start_line > line_of(LEAVE, "## Holidays")
    missing = one(bundle, fact("x", regex="(a)", heading="Benefits"))
    assert missing.code == "no_heading" and "'Accrual'" in missing.message
    write_files(bundle, {"hr/twice.md": "---\ntype: x\n---\n# A\n\n## Notes\n\nx 1\n\n## Notes\n\nx 2\n"})
    twice = one(bundle, fact("x", "number", regex=r"x (\d)", heading="Notes", concept="hr/twice"))
    assert twice.code == "ambiguous_heading" and "lines 6, 10" in twice.message


def test_values_that_disagree_are_ambiguous(bundle: Path) -> None:
    result = one(bundle, fact("days", "number", regex=r"\| (\d+)(?: days)? \|"))
    assert result.code == "ambiguous_value" and "15" in result.message and "20" in result.message


@pytest.mark.parametrize(
    ("concept", "code", "status"),
    [
        ("hr/leave.md", None, "grounded"),
        ("/hr/leave", None, "grounded"),
        ("**/leave", None, "grounded"),
        ("hr/l*.md", None, "grounded"),
        ("hr/*", "ambiguous_concept", "failed"),
        ("ops/*", "no_concept", "failed"),
        ("hr/nope", "no_concept", "failed"),
        ("../outside", "no_concept", "failed"),
    ],
)
def test_a_locator_must_name_exactly_one_concept(bundle: Path, concept: str, code: str | None, status: str) -> None:
    result = one(bundle, fact("t", literal="Annual", concept=concept))
    assert (result.status, result.code) == (status, code)
    if code:
        assert result.message and result.fix


@pytest.mark.parametrize(
    ("locate", "code"),
    [
        ({"literal": "unlimited"}, "not_found"),
        ({"regex": r"(zzz)"}, "not_found"),
        ({"frontmatter": "owner.email"}, "not_found"),
        ({"table": {"row": "Interns", "column": "Annual days"}}, "not_found"),
        ({"table": {"row": "Under 3 years", "column": "Weekly days"}}, "not_found"),
    ],
)
def test_nothing_found_is_not_found(bundle: Path, locate: dict[str, Any], code: str) -> None:
    result = one(bundle, fact("x", **locate))
    assert result.code == code and result.status == "failed"


def test_a_value_that_does_not_parse_as_its_type_is_bad_value(bundle: Path) -> None:
    result = one(bundle, fact("days", "number", table={"row": "Under 3 years", "column": "Annual days"}))
    assert result.code == "bad_value" and "'15 days' is not a number" in result.message
    assert "(\\d+)" in result.fix and result.receipt.start_line == line_of(LEAVE, "| Under 3 years")
    date = one(bundle, fact("when", "date", literal="2 weeks"))
    assert date.code == "bad_value" and "not a date" in date.message


def test_a_catastrophic_regex_is_stopped_by_its_time_bound(bundle: Path) -> None:
    write_files(bundle, {"hr/long.md": "---\ntype: x\n---\n" + "a1" * 600 + "!\n"})
    result = one(
        bundle, fact("slow", regex=r"(?:\w|\d)+(?:\w|\d)+(?:\w|\d)+[!?](\d)", concept="hr/long"), regex_timeout=0.2
    )
    assert result.code == "regex_timeout" and "0.2 s" in result.message and "nested quantifiers" in result.fix


def test_an_unreadable_concept_fails_its_facts(bundle: Path) -> None:
    write_files(bundle, {"hr/broken.md": "---\ntype: [unclosed\n---\nbody\n"})
    result = one(bundle, fact("x", literal="body", concept="hr/broken"))
    assert result.code == "unreadable" and "hr/broken.md" in result.message


# -- malformed contracts ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        (
            {"name": "days", "type": "number", "locate": {"concept": "hr/leave", "regex": "(\\d"}},
            ["fact 'days' (locate.regex)", "does not compile"],
        ),
        (
            {"name": "days", "type": "number", "locate": {"concept": "hr/leave", "regex": "(\\d)(x)"}},
            ["fact 'days'", "2 capture groups"],
        ),
        (
            {"name": "days", "type": "number", "locate": {"concept": "hr/leave", "regex": "\\d"}},
            ["fact 'days'", "0 capture groups"],
        ),
        (
            {
                "name": "days",
                "type": "number",
                "locate": {"concept": "hr/leave", "regex": "(\\d+)"},
                "expect": {"equals": "fifteen"},
            },
            ["fact 'days' (expect.equals)", "'fifteen' is not a number"],
        ),
        (
            {
                "name": "days",
                "type": "string",
                "locate": {"concept": "hr/leave", "literal": "x"},
                "expect": {"range": {"min": 1}},
            },
            ["fact 'days' (expect.range)", "number and date"],
        ),
        (
            {"name": "tier", "type": "enum", "locate": {"concept": "hr/leave", "literal": "x"}},
            ["fact 'tier' (values)", "allowed values"],
        ),
        (
            {"name": "days", "type": "number", "locate": {"concept": "hr/leave", "literal": "x", "regex": "(x)"}},
            ["fact 'days' (facts[0].locate)", "exactly one extractor"],
        ),
        ({"name": "days", "type": "number", "locate": {"concept": "hr/leave"}}, ["fact 'days'", "(given: none)"]),
        (
            {"name": "days", "type": "integer", "locate": {"concept": "hr/leave", "literal": "x"}},
            ["fact 'days' (facts[0].type)", "'number'"],
        ),
        (
            {
                "name": "days",
                "type": "number",
                "locate": {"concept": "hr/leave", "literal": "x"},
                "expect": {"equal": 15},
            },
            ["fact 'days' (facts[0].expect.equal)", "unknown key 'equal'"],
        ),
        (
            {"name": "days", "locate": {"concept": "hr/leave", "literal": "x"}},
            ["fact 'days' (facts[0].type)", "'type' is required"],
        ),
        (
            {
                "name": "days",
                "type": "string",
                "locate": {"concept": "hr/leave", "frontmatter": "title", "heading": "Accrual"},
            },
            ["fact 'days'", "takes no heading"],
        ),
        (
            {
                "name": "days",
                "type": "number",
                "locate": {"concept": "hr/leave", "literal": "x"},
                "expect": {"present": False, "equals": 1},
            },
            ["fact 'days' (expect.present)", "takes no equals"],
        ),
        (
            {
                "name": "days",
                "type": "number",
                "locate": {"concept": "hr/leave", "literal": "x"},
                "expect": {"unchanged": "abc"},
            },
            ["fact 'days' (facts[0].expect.unchanged)"],
        ),
    ],
)
def test_a_malformed_contract_is_refused_naming_the_fact(bundle: Path, spec: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(ContractError) as caught:
        check_contract(bundle, contract(spec))
    text = str(caught.value)
    assert all(w in text for w in words), text
    assert "(fix: " in text


def test_every_problem_is_listed_and_files_are_read_as_yaml_or_json(tmp_path: Path, bundle: Path) -> None:
    bad = contract(fact("a", "number", regex="(x"), fact("a", "number", literal="x", expect={"equals": "no"}))
    with pytest.raises(ContractError) as caught:
        load_contract(bad)
    assert len(caught.value.problems) == 3 and "used twice" in str(caught.value)
    version = tmp_path / "v.json"
    version.write_text(json.dumps({"version": 2, "facts": [fact("a", literal="x")]}))
    with pytest.raises(ContractError, match=r"unsupported contract version 2.*version: 1"):
        load_contract(version)
    broken = tmp_path / "c.yaml"
    broken.write_text("version: 1\nfacts:\n  - name: [a\n")
    with pytest.raises(ContractError, match=r"c.yaml: line \d+: not valid YAML"):
        load_contract(broken)
    with pytest.raises(ContractError, match="line 1: not valid JSON"):
        (tmp_path / "c.json").write_text("{version: 1}")
        load_contract(tmp_path / "c.json")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(
        "a: &a [x, x]\n"
        + "".join(
            f"b{n}: &b{n} [*{'a' if n == 0 else f'b{n - 1}'}, *{'a' if n == 0 else f'b{n - 1}'}]\n" for n in range(120)
        )
    )
    with pytest.raises(ContractError, match="refused: more than 100 YAML aliases"):
        load_contract(bomb)
    with pytest.raises(ContractError, match="no such contract file"):
        load_contract(tmp_path / "missing.yaml")
    with pytest.raises(ContractError, match="a mapping with 'version' and 'facts'"):
        (tmp_path / "list.yaml").write_text("- 1\n")
        load_contract(tmp_path / "list.yaml")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(contract(fact("days", "number", **DAYS))))
    report = check_contract(bundle, good)
    assert report.contract == str(good) and report.ok and len(report.contract_sha256) == 64


# -- drift after a source edit and a recompile ----------------------------------------------------------------


def test_drift_after_editing_a_source_and_recompiling(tmp_path: Path) -> None:
    sources = write_files(
        tmp_path / "src",
        {
            "handbook/leave.md": "# Leave\n\n## Accrual\n\nNew hires get 15 vacation days per year.\n\n"
            "## Notice\n\nGive 30 days of notice before you resign.\n"
        },
    )
    out = tmp_path / "bundle"
    compile_bundle([sources], out)
    pinned = init_contract(
        out,
        [
            "days=**/leave#Accrual:regex:get (\\d+) vacation days",
            "notice:number=**/leave#Notice:regex:Give (\\d+) days",
        ],
    )
    assert [(f.type, f.expect.equals) for f in pinned.facts] == [("number", 15), ("number", 30)]
    assert check_contract(out, pinned).ok

    leave = sources / "handbook" / "leave.md"
    leave.write_text(leave.read_text().replace("per year.", "per calendar year."))  # same value, new text
    stale = check_contract(out, pinned).facts[0]  # the source changed; the bundle was not recompiled yet
    assert stale.code == "source_drift" and "handbook/leave.md" in stale.message and "recompile" in stale.fix
    compile_bundle([sources], out)
    days, notice = check_contract(out, pinned).facts
    assert (days.code, days.value, notice.status) == ("drift", 15, "grounded")
    assert pinned.facts[0].expect.unchanged[:12] in days.message and days.receipt.sha256 in days.fix

    leave.write_text(leave.read_text().replace("Give 30 days", "Give 45 days"))  # a new value
    compile_bundle([sources], out)
    notice = check_contract(out, pinned).facts[1]
    assert notice.code == "mismatch" and notice.value == 45 and "also changed" in notice.message


# -- the command line -------------------------------------------------------------------------------------------


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def test_okf_check_contract_lines_json_and_exit_codes(bundle: Path, tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        yaml.safe_dump(
            contract(fact("days", "number", **DAYS), fact("tier", "string", severity="warning", literal="Platinum"))
        )
    )
    result = run("check", str(bundle), "--contract", str(path))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("fact days: grounded = 15 (number) at hr/leave.md:") and "[f1] sha256:" in lines[0]
    assert lines[1].startswith("fact tier: FAILED not_found (warning): ") and "(fix: " in lines[1]
    assert lines[2].startswith("2 facts checked in ") and "1 grounded, 1 failed (0 errors, 1 warnings" in lines[2]
    assert run("check", str(bundle), "--contract", str(path), "--strict").exit_code == 1

    data = json.loads(run("check", str(bundle), "--contract", str(path), "--json").stdout)
    assert data["ok"] and data["grounded_count"] == 1 and data["warning_count"] == 1 and data["version"] == 1
    assert data["facts"][0]["receipt_ids"] == ["f1"] and data["facts"][1]["code"] == "not_found"

    path.write_text(yaml.safe_dump(contract(fact("days", "number", expect={"equals": 16}, **DAYS))))
    failed = run("check", str(bundle), "--contract", str(path))
    assert failed.exit_code == 1 and "FAILED mismatch (error)" in failed.stdout and "docs/contracts.md" in failed.stderr

    path.write_text(yaml.safe_dump(contract(fact("days", "number", regex="(\\d"))))
    malformed = run("check", str(bundle), "--contract", str(path))
    assert malformed.exit_code == 2 and malformed.stdout == ""
    assert "fact 'days' (locate.regex): the regex does not compile" in malformed.stderr
    assert "Traceback" not in malformed.stderr
    assert run("check", str(bundle), "--contract", str(tmp_path / "none.yaml")).exit_code == 2


def test_okf_contract_init_writes_a_contract_that_holds(bundle: Path, tmp_path: Path) -> None:
    specs = [
        "--fact",
        "days=hr/leave#Accrual:regex:get (\\d+) vacation days",
        "--fact",
        "row=hr/leave:table:Under 3 years|Annual days",
        "--fact",
        "owner=hr/leave:frontmatter:owner.name",
        "--fact",
        "tier:enum=hr/leave:regex:tier is (\\w+)",
    ]
    printed = run("contract", "init", str(bundle), *specs)
    assert printed.exit_code == 0, printed.output
    data = yaml.safe_load(printed.stdout)
    assert [(f["name"], f["type"], f["expect"]["equals"]) for f in data["facts"]] == [
        ("days", "number", 15),
        ("row", "string", "15 days"),
        ("owner", "string", "People Operations"),
        ("tier", "enum", "Gold"),
    ]
    assert data["facts"][3]["values"] == ["Gold"] and all(len(f["expect"]["unchanged"]) == 64 for f in data["facts"])

    out = tmp_path / "pinned.json"
    assert run("contract", "init", str(bundle), *specs, "-o", str(out)).exit_code == 0
    assert json.loads(out.read_text())["facts"][0]["locate"]["heading"] == "Accrual"
    assert run("check", str(bundle), "--contract", str(out)).exit_code == 0
    refused = run("contract", "init", str(bundle), *specs, "-o", str(out))
    assert refused.exit_code == 2 and "--force" in refused.stderr
    assert run("contract", "init", str(bundle), *specs, "-o", str(out), "--force").exit_code == 0

    bad = run(
        "contract", "init", str(bundle), "--fact", "gone=hr/nope:literal:x", "--fact", "many=hr/leave:regex:\\| (\\d+)"
    )
    assert (
        bad.exit_code == 2 and "fact 'gone': no_concept" in bad.stderr and "fact 'many': ambiguous_value" in bad.stderr
    )
    form = run("contract", "init", str(bundle), "--fact", "no-locator")
    assert form.exit_code == 2 and "NAME[:TYPE]=CONCEPT[#HEADING]:EXTRACTOR:ARGUMENT" in form.stderr


def test_okf_contract_schema_is_the_model_schema() -> None:
    result = run("contract", "schema")
    assert result.exit_code == 0 and json.loads(result.stdout) == contract_schema()


# -- the harborview example and the published schema ---------------------------------------------------------


def _docs() -> str:
    return (REPO / "docs" / "contracts.md").read_text(encoding="utf-8")


def test_the_harborview_example_grounds_every_fact_and_is_the_one_in_the_docs() -> None:
    report = check_contract(REPO / "bundles" / "harborview", EXAMPLE)
    assert report.ok and report.grounded_count == len(report.facts) >= 8, [f.message for f in report.facts]
    values = {f.name: f.value for f in report.facts}
    assert values["pto_new_hire_days"] == 15 and values["msa_renewal_notice_days"] == 90
    kinds = {f.type for f in load_contract(EXAMPLE).facts}
    assert kinds == {"string", "number", "date", "enum", "list"}
    block = re.search(r"```yaml\n(.*?)```", _docs().split("## Example: bundles/harborview")[1], re.S)
    assert block and block.group(1) == EXAMPLE.read_text(encoding="utf-8")


def test_the_published_schema_is_the_schema_and_validates_like_the_loader() -> None:
    published = re.search(r"```json\n(.*?)```", _docs().split("## JSON Schema")[1], re.S)
    assert published and json.loads(published.group(1)) == contract_schema()
    validator = jsonschema.Draft202012Validator(contract_schema())
    example = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    validator.validate(json.loads(json.dumps(example, default=str)))
    for bad in (
        contract(fact("a", literal="x", regex="(x)")),
        contract(fact("a", "integer", literal="x")),
        {"version": 2, "facts": [fact("a", literal="x")]},
        {"version": 1, "facts": []},
        contract({**fact("a", literal="x"), "extra": 1}),
        contract(fact("a", "enum", literal="x")),
    ):
        assert not validator.is_valid(bad), bad
        with pytest.raises(ContractError):
            load_contract(bad)
