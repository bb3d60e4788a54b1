"""Requirement extraction: the offline grammar, the adaptation in code, ids across recompiles, the cache,
skeleton-then-fill, failures, and the ``okf requirements`` command."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from okf.cli import main
from okf.compile import compile_bundle
from okf.readers.extraction import Extraction, Outline, RuleDraft, RuleStub, Section
from okf.readers.rulebook import read_rules
from okf.requirements import extract_requirements, load_requirements, write_requirements
from okf.requirements.adapt import condition, deontic, requirement_id
from okf.requirements.cache import ExtractionCache
from okf.testing import ScriptedRoleReader
from tests.builders import concept, write_files


def rules(text: str) -> list[RuleDraft]:
    body = text.strip("\n")
    return read_rules(
        Section(id="s", title="S", text=body, first_line=10, sha256=hashlib.sha256(body.encode()).hexdigest())
    )


def kinds(text: str) -> list[tuple[str, str]]:
    return [(r.deontic_type, r.actor) for r in rules(text)]


# -- the offline grammar ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "kind", "actor"),
    [
        ("A Relevant Person must review its controls at least annually.", "obligation", "Relevant Person"),
        ("The Operator shall keep records for six years.", "obligation", "Operator"),
        ("An Authorised Person is required to notify the Regulator.", "obligation", "Authorised Person"),
        ("It is the duty of an auditor to communicate a matter to the Regulator.", "obligation", "auditor"),
        ("A Relevant Person must not open anonymous accounts.", "prohibition", "Relevant Person"),
        ("Employees may not accept cash.", "prohibition", "Employees"),
        ("The firm shall not pay commissions.", "prohibition", "firm"),
        ("No person may act as a director without approval.", "prohibition", "person"),
        ("Never share your password.", "prohibition", ""),
        ("The Regulator may waive a fee.", "permission", "Regulator"),
        ("A Fund Manager is permitted to delegate custody.", "permission", "Fund Manager"),
        ("A Trust Service provider does not have to assess risk tolerance.", "permission", "Trust Service provider"),
    ],
)
def test_modal_structure_gives_the_deontic_type_and_the_subject_gives_the_actor(
    sentence: str, kind: str, actor: str
) -> None:
    assert kinds(sentence) == [(kind, actor)]


@pytest.mark.parametrize(
    "sentence",
    [
        "A firm should review its controls.",  # a recommendation binds no one
        "The Regulator expects firms to review their controls.",
        "'Client' means a person who may receive a service.",  # a definition
        "This chapter applies to every Authorised Person.",  # scope
        "Such factors may include the size of the firm.",  # epistemic may
        "The technology may reasonably be expected to be available within five years.",
        "Procedures may need to be enhanced.",
        "An application must be made in such manner as the Regulator may direct.",  # only "must" counts
    ],
)
def test_what_is_not_a_rule_is_not_extracted(sentence: str) -> None:
    found = rules(sentence)
    assert all(r.deontic_type != "permission" for r in found), found
    if "must" not in sentence:
        assert found == []


def test_two_modal_clauses_joined_by_and_are_two_rules_sharing_the_subject() -> None:
    found = rules(
        "Prior to appointing a provider, a Relevant Person must undertake an assessment and must "
        "ensure the provider's obligations are documented."
    )
    assert [r.deontic_type for r in found] == ["obligation", "obligation"]
    assert found[1].requirement_text.startswith("Prior to appointing a provider, a Relevant Person must ensure")
    assert {r.actor for r in found} == {"Relevant Person"}
    assert found[0].applicability == ["timing: appointing a provider"]


def test_alternatives_joined_by_or_stay_one_rule() -> None:
    assert len(rules("The agreement may limit the assessment, or may dispense with it completely.")) == 1


def test_conditions_become_dimension_value_pairs() -> None:
    found = rules(
        "Where a firm holds client money, it must keep it in a segregated account, unless the client "
        "agrees otherwise. In the case of a branch, the branch manager shall report monthly. A firm "
        "must file a report if it breaches a limit."
    )
    assert found[0].applicability == ["condition: a firm holds client money", "exception: the client agrees otherwise"]
    assert found[0].actor == "firm"  # the pronoun resolved to the party its condition names
    assert found[1].applicability == ["condition: a branch"]
    assert found[2].applicability == ["condition: it breaches a limit"]


def test_a_cumulative_list_gives_one_rule_per_item_and_alternatives_one_rule() -> None:
    text = """
A Relevant Person's policies must:
(a)\tensure compliance with the law;
(b)\tenable suspicious transactions to be reported;
(c)\tensure an audit trail; and
(d)\tensure compliance with these Rules.

The review may be undertaken:
(a)\tinternally; or
(b)\tby independent auditors.
"""
    found = rules(text)
    assert [(r.deontic_type, r.start_line) for r in found] == [
        ("obligation", 11),
        ("obligation", 12),
        ("obligation", 13),
        ("obligation", 14),
        ("permission", 16),
    ]
    assert found[2].requirement_text == "A Relevant Person's policies must ensure an audit trail."
    assert (found[4].start_line, found[4].end_line) == (16, 18)


def test_a_list_completing_a_condition_is_one_rule_and_sub_items_belong_to_their_item() -> None:
    conditions = rules(
        "A firm may limit its assessment if, before it acts, the firm:\n(i)\thas warned the "
        "client; and\n(ii)\tthe client has consented."
    )
    assert len(conditions) == 1 and conditions[0].deontic_type == "permission"
    nested = rules(
        "The disclosure must contain:\n(1)\tthe permits held;\n(2)\ta description of:\n(a)\tthe "
        "method;\n(b)\tthe contingencies; and\n(3)\tthe land area."
    )
    assert [(r.start_line, r.end_line) for r in nested] == [(11, 11), (12, 14), (15, 15)]


def test_markdown_inline_markup_and_title_lines_do_not_disturb_the_grammar() -> None:
    found = rules("Margin Requirements\nAn **Authorised Person** must post margin per the [margin rules](rules.md).")
    assert found[0].requirement_text == "An Authorised Person must post margin per the margin rules."
    assert found[0].actor == "Authorised Person"


def test_passive_rules_name_their_agent_or_no_one_and_evidence_standards_are_read() -> None:
    found = rules(
        "Bank changes must be verified by callback and approved by the Controller. The report "
        "must be submitted in writing."
    )
    assert found[0].actor == "Controller"
    assert found[0].evidence_standard == "verified by callback and approved by the Controller"
    assert (found[1].actor, found[1].evidence_standard) == ("", "in writing")


# -- adaptation in code -----------------------------------------------------------------------------------


def test_off_vocabulary_deontic_types_are_ambiguous_deterministically() -> None:
    assert [deontic(v) for v in ("Obligation", " prohibition ", "PERMISSION")] == [
        "obligation",
        "prohibition",
        "permission",
    ]
    for odd in ("", "duty", "must", "recommendation", "obligation/permission", "oblig"):
        assert deontic(odd) == "ambiguous"
    assert condition("jurisdiction:  ADGM") == "jurisdiction: ADGM"
    assert condition("only for hourly staff") == "condition: only for hourly staff"
    first = requirement_id("a/b", "f" * 64, "obligation", "Firms must  file.")
    assert first == requirement_id("a/b", "f" * 64, "obligation", "firms must file.")
    assert first != requirement_id("a/b", "e" * 64, "obligation", "Firms must file.")


# -- bundles built by the test ------------------------------------------------------------------------------

POLICY = """# Travel policy

Employees must book flights through the travel desk.

Receipts must be submitted in writing within 30 days.
"""
SECURITY = """# Security policy

Passwords must not be shared. Staff may use approved password managers.
"""


def build(tmp_path: Path, policy: str = POLICY, security: str = SECURITY, name: str = "bundle") -> Path:
    sources = write_files(tmp_path / "sources", {"travel.md": policy, "security.md": security})
    out = tmp_path / name
    compile_bundle([sources], out)
    return out


def test_requirements_cite_their_lines_with_a_hash_and_ids_survive_a_recompile(tmp_path: Path) -> None:
    bundle = build(tmp_path)
    first = extract_requirements(bundle)
    assert [r.deontic_type for r in first.requirements] == ["prohibition", "permission", "obligation", "obligation"]
    rule = first.requirements[2]
    lines = (bundle / rule.citation.path).read_text(encoding="utf-8").split("\n")
    span = "\n".join(lines[rule.citation.start_line - 1 : rule.citation.end_line])
    assert "book flights" in span and rule.citation.sha256 == hashlib.sha256(span.encode()).hexdigest()
    # Change the security policy only, and recompile: the travel rules keep their ids.
    build(tmp_path, security=SECURITY.replace("approved password managers", "the approved password manager"))
    second = extract_requirements(bundle)
    ids = {r.requirement_id for r in second.requirements}
    assert {r.requirement_id for r in first.requirements if "travel" in r.citation.path} <= ids
    changed = [r for r in second.requirements if "password manager" in r.requirement_text]
    assert changed and changed[0].requirement_id not in {r.requirement_id for r in first.requirements}
    # The same sources compiled elsewhere give the same ids again.
    elsewhere = extract_requirements(
        build(
            tmp_path,
            security=SECURITY.replace("approved password managers", "the approved password manager"),
            name="copy",
        )
    )
    assert [r.requirement_id for r in elsewhere.requirements] == [r.requirement_id for r in second.requirements]


def test_the_cache_rereads_only_changed_sections(tmp_path: Path) -> None:
    bundle = build(tmp_path)
    cache = ExtractionCache(tmp_path / "cache")
    reader = ScriptedRoleReader()  # extracts offline, counting calls
    first = asyncio.run(_extract(bundle, reader, cache))
    assert reader.calls["extract"] == 2 and first.stats.cached == 0
    again = asyncio.run(_extract(bundle, reader, cache))
    assert reader.calls["extract"] == 2 and again.stats.cached == 2
    assert [r.model_dump() for r in again.requirements] == [r.model_dump() for r in first.requirements]
    build(tmp_path, policy=POLICY + "\nManagers may approve exceptions.\n")
    third = asyncio.run(_extract(bundle, reader, cache))
    assert reader.calls["extract"] == 3 and third.stats.cached == 1 and third.stats.rules == 5


async def _extract(bundle: Path, reader: ScriptedRoleReader, cache: ExtractionCache | None = None, **options: object):  # type: ignore[no-untyped-def]
    from okf.requirements import extract_requirements_async

    return await extract_requirements_async(bundle, reader=reader, cache=cache, **options)  # type: ignore[arg-type]


LONG = "\n\n".join(f"The operator must keep record {n} for {n + 1} years." for n in range(12))


def test_skeleton_then_fill_extracts_more_rules_than_one_rationed_call(tmp_path: Path) -> None:
    bundle = tmp_path / "b"
    write_files(bundle, {"rules.md": concept("Rules", LONG)})

    def rationed(section: Section) -> list[RuleDraft]:  # a model that stops after three rules
        return read_rules(section)[:3]

    def outline(section: Section) -> list[RuleStub]:  # a skeleton lists them all
        return [
            RuleStub(index=i, requirement_text=r.requirement_text, start_line=r.start_line, end_line=r.end_line)
            for i, r in enumerate(read_rules(section))
        ]

    def fill(section: Section, stubs: list[RuleStub]) -> list[RuleDraft]:
        return [
            RuleDraft(
                requirement_text=s.requirement_text,
                deontic_type="obligation",
                actor="operator",
                start_line=s.start_line,
                end_line=s.end_line,
            )
            for s in stubs
        ]

    reader = ScriptedRoleReader(extract=rationed, outline=outline, fill=fill)
    single = asyncio.run(_extract(bundle, reader, mode="single"))
    dense = asyncio.run(_extract(bundle, reader, mode="auto", dense_chars=200, fill_batch=4))
    assert single.stats.rules == 3 and dense.stats.rules == 12 > single.stats.rules
    assert dense.stats.dense == 1 and reader.calls["outline"] == 1 and reader.calls["fill"] == 3
    assert {r.actor for r in dense.requirements} == {"operator"}


def test_failures_are_reported_never_read_as_no_rules(tmp_path: Path) -> None:
    bundle = tmp_path / "b"
    write_files(bundle, {"a.md": concept("A", "Firms must file."), "long.md": concept("Long", LONG)})
    broken = ScriptedRoleReader(
        extract=Extraction(failed=True, error="HTTP 500"), outline=Outline(failed=True, error="no JSON")
    )
    result = asyncio.run(_extract(bundle, broken, dense_chars=200))
    assert result.requirements == [] and result.stats.failed == 2
    assert [(f.concept_id, f.stage, f.error) for f in result.failures] == [
        ("a", "extract", "HTTP 500"),
        ("long", "outline", "no JSON"),
    ]
    # A failed fill keeps the rules the skeleton found, with no deontic type: ambiguous.
    half = ScriptedRoleReader(fill=_fail_after(4))
    result = asyncio.run(_extract(bundle, half, dense_chars=200, fill_batch=4))
    long_rules = [r for r in result.requirements if r.citation.concept_id == "long"]
    assert len(long_rules) == 12 and [r.deontic_type for r in long_rules].count("ambiguous") == 8
    assert {(f.concept_id, f.stage) for f in result.failures} == {("long", "fill")}


def _fail_after(good: int):  # type: ignore[no-untyped-def]
    from okf.readers.rulebook import fill_rules

    def fill(section: Section, stubs: list[RuleStub]) -> Extraction:
        if stubs[0].index >= good:
            return Extraction(failed=True, error="bad reply")
        return Extraction(rules=fill_rules(section, stubs, read_rules(section)))

    return fill


def test_jsonl_round_trip_and_bad_files_name_the_line(tmp_path: Path) -> None:
    found = extract_requirements(build(tmp_path)).requirements
    path = tmp_path / "reqs.jsonl"
    assert write_requirements(found, path) == 4
    assert load_requirements(path) == found
    path.write_text(path.read_text().replace('"deontic_type":"obligation"', '"deontic_type":"duty"', 1))
    with pytest.raises(Exception, match=r"reqs.jsonl:\d+: not a requirement"):
        load_requirements(path)
    (tmp_path / "bad.jsonl").write_text("\n{not json\n")
    with pytest.raises(Exception, match=r"bad.jsonl:2: not a JSON object"):
        load_requirements(tmp_path / "bad.jsonl")


# -- the command ----------------------------------------------------------------------------------------


def test_cli_writes_jsonl_prints_json_and_refuses_bad_arguments(tmp_path: Path) -> None:
    bundle = build(tmp_path)
    runner = CliRunner()
    out = tmp_path / "reqs.jsonl"
    done = runner.invoke(main, ["requirements", str(bundle), "-o", str(out), "--quiet"])
    assert done.exit_code == 0, done.output
    assert "wrote 4 requirements" in done.stdout and len(load_requirements(out)) == 4
    shown = runner.invoke(main, ["requirements", str(bundle), "--under", "security", "--json"])
    data = json.loads(shown.stdout)
    assert [r["deontic_type"] for r in data["requirements"]] == ["prohibition", "permission"]
    assert data["stats"]["sections"] == 1 and data["reader"] == "offline"
    human = runner.invoke(main, ["requirements", str(bundle), "--under", "travel"])
    assert "[obligation] · Employees" in human.stdout and "travel.md" in human.stdout
    missing = runner.invoke(main, ["requirements", str(bundle), "--under", "nowhere/"])
    assert missing.exit_code == 2 and "names no directory" in missing.stderr
    escape = runner.invoke(main, ["requirements", str(bundle), "--under", "../../etc"])
    assert escape.exit_code == 1 and "Error:" in escape.stderr


def test_harborview_policies_example_from_the_docs_runs_offline() -> None:
    repo = Path(__file__).resolve().parents[1]
    result = extract_requirements(repo / "bundles" / "harborview", under="policies/vendor-onboarding")
    texts = [r.requirement_text for r in result.requirements]
    assert "Harborview must be named as additional insured on general liability and auto policies." in texts
    assert all(r.citation.concept_id.startswith("policies/vendor-onboarding/") for r in result.requirements)


def test_worker_processes_give_the_single_process_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from okf.requirements import pool

    bundle = build(tmp_path)
    single = extract_requirements(bundle)
    monkeypatch.setattr(pool, "PARALLEL_FROM", 2)
    monkeypatch.setattr(pool, "workers", lambda: 2)
    seen: list[tuple[int, int]] = []
    pooled = extract_requirements(bundle, progress=lambda done, total: seen.append((done, total)))
    assert [r.model_dump() for r in pooled.requirements] == [r.model_dump() for r in single.requirements]
    assert seen[-1] == (2, 2) and pooled.stats.rules == single.stats.rules == 4
