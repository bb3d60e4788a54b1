"""Compliance judgment: the verdict vocabulary and its conservative default in code, both-sided citations,
the roll-up, applicability decided one requirement at a time, the offline judge, and ``okf comply``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from okf.cli import main
from okf.compliance import SubjectText, comply
from okf.errors import ConfigError
from okf.readers.assessment import Applicability, ApplicabilityDecision, Assessment
from okf.readers.base import Usage
from okf.requirements import Requirement, RequirementCitation, extract_requirements, write_requirements
from okf.testing import ScriptedRoleReader
from tests.builders import concept, write_files

REPO = Path(__file__).resolve().parents[1]
SUBJECT = SubjectText(
    name="contract.md",
    text="""# Supply contract

The Supplier shall keep delivery records for six years.
The Supplier will not name Harborview as additional insured on its general liability policies.
The Supplier may subcontract deliveries.
Prices are fixed for one year.""",
)


def requirement(n: int, text: str, kind: str = "obligation") -> Requirement:
    span = f"clause {n}"
    return Requirement(
        requirement_id=f"req-{n:04d}",
        requirement_text=text,
        deontic_type=kind,  # type: ignore[arg-type]
        citation=RequirementCitation(
            concept_id=f"policies/p{n}",
            path=f"policies/p{n}.md",
            start_line=10 + n,
            end_line=11 + n,
            sha256=hashlib.sha256(span.encode()).hexdigest(),
        ),
    )


RULES = [
    requirement(1, "Suppliers must keep delivery records for six years."),
    requirement(2, "Harborview must be named as additional insured on general liability policies."),
    requirement(3, "Suppliers must not subcontract deliveries.", "prohibition"),
    requirement(4, "Suppliers may invoice monthly.", "permission"),
    requirement(5, "Drivers must wear safety vests at the dock."),
]


def verdicts(reply: object) -> list[tuple[str, str | None, bool]]:
    result = comply(SUBJECT, requirements=RULES[:1], reader=ScriptedRoleReader(applies=[True], assess=reply))
    return [(f.verdict, f.raw_verdict, f.failed) for f in result.findings]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("violation", ("violation", None, False)),
        ("needs_review", ("needs_review", None, False)),
        ("compliant", ("compliant", None, False)),
        (" Needs Review ", ("needs_review", None, False)),
        ("NEEDS-REVIEW", ("needs_review", None, False)),
    ],
)
def test_each_verdict_of_the_vocabulary_is_kept(reply: str, expected: tuple[str, str | None, bool]) -> None:
    assert verdicts(reply) == [expected]


@pytest.mark.parametrize(
    "reply",
    [
        "non-compliant",
        "VIOLATION!!",
        "yes",
        "",
        "compliant, mostly",
        Assessment(verdict=None, rationale="unsure"),
        Assessment(verdict="violation", failed=True, error="HTTP 500"),
        lambda subject, offer: None,
    ],
)
def test_unreadable_missing_off_vocabulary_or_failed_verdicts_are_needs_review(reply: object) -> None:
    [(verdict, raw, failed)] = verdicts(reply)
    assert verdict == "needs_review"
    if isinstance(reply, str):
        assert raw == reply and not failed
    if callable(reply) or (isinstance(reply, Assessment) and reply.failed):
        assert failed


def test_both_citations_are_attached_by_code_from_the_inputs() -> None:
    reader = ScriptedRoleReader(
        applies=[True, True, True],
        assess=lambda subject, offer: {
            "req-0001": Assessment(verdict="compliant", start_line=3, end_line=3),
            "req-0002": Assessment(verdict="violation", start_line=2, end_line=99),  # lines not in the subject
            "req-0003": Assessment(verdict="violation", start_line=5, end_line=5),
        }[offer.id],
    )
    result = comply(SUBJECT, requirements=RULES[:3], reader=reader)
    by_id = {f.requirement_id: f for f in result.findings}
    span = by_id["req-0001"].subject_span
    assert (span.path, span.start_line, span.end_line) == ("contract.md", 3, 3)
    assert span.sha256 == hashlib.sha256(SUBJECT.lines[2].encode()).hexdigest()
    whole = by_id["req-0002"].subject_span
    assert (whole.start_line, whole.end_line) == (1, 6)  # invalid lines: the whole subject
    receipt = by_id["req-0003"].requirement_receipt
    assert (receipt.evidence_id, receipt.path, receipt.start_line, receipt.end_line, receipt.sha256) == (
        "req-0003",
        "policies/p3.md",
        13,
        14,
        RULES[2].citation.sha256,
    )


def test_the_rollup_counts_verdicts_and_lists_violations_first() -> None:
    reader = ScriptedRoleReader(
        applies=[True] * 5,
        assess=lambda subject, offer: {
            "req-0001": "compliant",
            "req-0002": "violation",
            "req-0003": "needs_review",
            "req-0004": "compliant",
            "req-0005": "violation",
        }[offer.id],
    )
    result = comply(SUBJECT, requirements=RULES, reader=reader)
    assert [(f.verdict, f.requirement_id) for f in result.findings] == [
        ("violation", "req-0002"),
        ("violation", "req-0005"),
        ("needs_review", "req-0003"),
        ("compliant", "req-0001"),
        ("compliant", "req-0004"),
    ]
    assert result.rollup == {"violation": 2, "needs_review": 1, "compliant": 2}
    assert [f.requirement_id for f in result.violations] == ["req-0002", "req-0005"]


def test_applicability_is_decided_per_requirement_and_a_failed_decision_is_judged_not_dropped() -> None:
    reader = ScriptedRoleReader(applies=[True, False, None, False, False], assess="compliant")
    result = comply(SUBJECT, requirements=RULES, reader=reader, question="insurance?")
    assert [f.requirement_id for f in result.findings] == ["req-0001", "req-0003"]
    assert result.considered == 5 and result.not_applicable == 3 and result.failures == 1
    assert "could not be decided" in result.findings[1].applies_because
    assert reader.calls["assess"] == 2
    _, question, offers = next(r for r in reader.requests if r[0] == "applies")[2]
    assert question == "insurance?" and [o.id for o in offers] == [r.requirement_id for r in RULES]


def test_a_reader_returning_decisions_that_do_not_fit_the_offer_fails_them_all() -> None:
    short = Applicability(decisions=[ApplicabilityDecision(id="req-0001", applies=False)], usage=Usage(calls=1))
    result = comply(SUBJECT, requirements=RULES[:2], reader=ScriptedRoleReader(applies=short, assess="compliant"))
    assert len(result.findings) == 2 and result.failures == 2


def test_max_requirements_lists_what_was_not_judged() -> None:
    result = comply(
        SUBJECT,
        requirements=RULES,
        max_requirements=2,
        reader=ScriptedRoleReader(applies=[True] * 5, assess="compliant"),
    )
    assert len(result.findings) == 2 and result.not_judged == ["req-0003", "req-0004", "req-0005"]
    assert any("not judged" in w for w in result.warnings)


def test_the_offline_judge_is_conservative() -> None:
    result = comply(SUBJECT, requirements=RULES)  # the offline reader decides and judges
    found = {f.requirement_id: (f.verdict, f.subject_span.start_line) for f in result.findings}
    assert found["req-0001"] == ("compliant", 3)  # the act, in the requirement's own words
    assert found["req-0002"] == ("violation", 4)  # the required act, negated
    assert found["req-0003"] == ("violation", 5)  # the prohibited act, stated
    assert "req-0005" not in found  # safety vests: nothing in the subject
    subject = SubjectText(name="s", text="The Supplier keeps some records.\nSubcontracting is discussed.")
    review = comply(subject, requirements=RULES[:1] + [RULES[3]], reader=ScriptedRoleReader(applies=[True, True]))
    assert [f.verdict for f in review.findings] == ["needs_review", "needs_review"]


def test_bad_inputs_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="either requirements or a bundle"):
        comply(SUBJECT)
    with pytest.raises(ConfigError, match="is empty"):
        comply(SubjectText(name="e", text="\n \n"), requirements=RULES)
    with pytest.raises(ConfigError, match="subject not found"):
        comply(tmp_path / "nope.md", requirements=RULES)
    with pytest.raises(ConfigError, match="max_requirements"):
        comply(SUBJECT, requirements=RULES, max_requirements=0)


def test_bundle_mode_navigates_then_extracts_the_shortlisted_sections(tmp_path: Path) -> None:
    bundle = write_files(
        tmp_path / "b",
        {
            "insurance.md": concept(
                "Insurance", "Harborview must be named as additional insured on general liability policies."
            ),
            "vacation.md": concept("Vacation", "Employees must request leave two weeks ahead."),
        },
    )
    result = comply(SUBJECT, bundle=bundle, question="Who must be named as additional insured?")
    assert result.shortlist == ["insurance"] and result.source == "bundle"
    assert [(f.verdict, f.concept_id) for f in result.findings] == [("violation", "insurance")]
    assert set(result.usage) >= {"selector", "judge", "extractor", "assessor"}


def test_cli_exit_status_json_and_stdin(tmp_path: Path) -> None:
    reqs = tmp_path / "reqs.jsonl"
    write_requirements(RULES, reqs)
    subject = tmp_path / "contract.md"
    subject.write_text(SUBJECT.text, encoding="utf-8")
    runner = CliRunner()
    found = runner.invoke(main, ["comply", str(subject), "--requirements", str(reqs)])
    assert found.exit_code == 1 and found.stdout.startswith(f"{subject}: 2 violation(s)")
    assert "VIOLATION  Harborview must be named" in found.stdout and "policies/p2.md:12-13" in found.stdout
    clean = subject.with_name("clean.md")
    clean.write_text("The Supplier shall keep delivery records for six years.\n", encoding="utf-8")
    ok = runner.invoke(main, ["comply", str(clean), "--requirements", str(reqs), "--json"])
    data = json.loads(ok.stdout)
    assert ok.exit_code == 0 and data["rollup"] == {"violation": 0, "needs_review": 0, "compliant": 1}
    assert data["findings"][0]["subject_span"]["path"] == str(clean) and data["navigation"] is None
    piped = runner.invoke(main, ["comply", "-", "--requirements", str(reqs)], input=SUBJECT.text)
    assert piped.exit_code == 1 and piped.stdout.startswith("<stdin>: 2 violation(s)")
    for args in ([], ["--requirements", str(reqs), "--bundle", str(tmp_path)]):
        usage = runner.invoke(main, ["comply", str(subject), *args])
        assert usage.exit_code == 2 and "exactly one of --requirements" in usage.stderr
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{}\n")
    bad = runner.invoke(main, ["comply", str(subject), "--requirements", str(broken)])
    assert bad.exit_code == 2 and "broken.jsonl:1: not a requirement" in bad.stderr


def test_the_worked_example_runs_offline_from_the_repo_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    out = tmp_path / "harborview-policies.jsonl"
    runner = CliRunner()
    made = runner.invoke(main, ["requirements", "bundles/harborview", "--under", "policies", "-o", str(out), "-q"])
    assert made.exit_code == 0, made.output
    checked = runner.invoke(
        main,
        ["comply", "examples/compliance/northwind-freight-services-agreement.md", "--requirements", str(out), "--json"],
    )
    data = json.loads(checked.stdout)
    assert checked.exit_code == 1 and data["rollup"]["violation"] >= 1
    violations = {f["requirement_text"] for f in data["findings"] if f["verdict"] == "violation"}
    assert "Never act on a bank change request received only by email." in violations
    compliant = {f["requirement_text"] for f in data["findings"] if f["verdict"] == "compliant"}
    assert "Harborview must be named as additional insured on general liability and auto policies." in compliant
    assert (
        extract_requirements("bundles/harborview", under="policies").stats.rules == len(out.read_text().split("\n")) - 1
    )
