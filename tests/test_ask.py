"""okf ask: evidence within a budget, and every guarantee enforced in code against adversarial answerers."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from builders import concept as build_concept
from builders import write_files

from okf.answer import ask, ask_async
from okf.answer.evidence import gather_evidence
from okf.answer.prose import append_markers, clean_prose
from okf.answer.render import NO_SOURCE, render_answer, render_footer
from okf.answer.validate import exceptions
from okf.bundle import Bundle
from okf.errors import ConfigError, ModelOutputError
from okf.models import Receipt, ShortlistEntry
from okf.readers import OfflineReader
from okf.readers.base import DraftAnswer, Evidence, Verdict
from okf.sources import span_sha256
from okf.testing import ScriptedReader

LEAVE = """New employees receive 15 days of paid time off per year.
Paid time off accrues monthly from the first day of employment.
Contractors are not eligible for paid time off, except those on contracts longer than 12 months.
The parking garage is closed on public holidays, except for security staff.
"""
CARRY = "Up to 5 unused days carry over into the next year."


def concept(title: str, body: str, **meta: str) -> str:
    return build_concept(title, body, kind="Policy", heading=False, **meta)


SOURCES = "\n  - resource: raw/handbook.md\n    lines: [10, 14]\n  - resource: https://wiki.example/pto"


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    files = {
        "index.md": "# Handbook\n\n* [HR](hr/) - paid time off, leave and carry-over policies for employees\n",
        "hr/index.md": "# HR\n\n* [Leave](leave.md) - paid time off\n* [Carry-over](carry.md) - unused days\n"
        "* [Old leave](old-leave.md) - the previous policy\n",
        "hr/leave.md": concept("Paid time off", LEAVE, sources=SOURCES),
        "hr/carry.md": concept("Carry-over", CARRY),
        "hr/old-leave.md": concept(
            "Old leave policy",
            "New employees received 10 days.\n",
            status="deprecated",
            stale_after="2020-01-01T00:00:00Z",
        ),
    }
    return write_files(tmp_path / "b", files)


Answer = DraftAnswer | Callable[[str, Sequence[Evidence]], DraftAnswer]


def reader(answer: Answer, relevant: Sequence[str] = ("hr/leave",), **kw: Any) -> ScriptedReader:
    """An adversarial scripted reader: the selector keeps every directory, the judge marks ``relevant``."""
    return ScriptedReader(
        select=lambda q, offers: [o.index for o in offers], judge=dict.fromkeys(relevant, True), answer=answer, **kw
    )


Q = "How many paid time off days do new employees get?"


# --- the guarantees -----------------------------------------------------------------------------------------


def test_no_evidence_abstains_without_calling_the_answerer(bundle: Path) -> None:
    scripted = reader(DraftAnswer(text="Invented [c1]", cited=["c1"]), relevant=())
    result = ask(bundle, Q, reader=scripted)
    assert result.status == "abstained" and result.answer == ""
    assert result.reason and "No concept" in result.reason
    assert scripted.calls["answer"] == 0
    assert result.citations == [] and result.shortlist == [] and not result.failed


def test_citation_to_unknown_evidence_is_dropped_and_noted(bundle: Path) -> None:
    draft = DraftAnswer(text="New employees get 15 days [c1] [c9].", cited=["c1", "c9", "hr/secret"])
    result = ask(bundle, Q, reader=reader(draft))
    assert result.status == "answered"
    assert [c.concept_id for c in result.citations] == ["hr/leave"]
    assert "c9" not in result.answer and "[2]" not in result.answer
    assert result.answer.startswith("New employees get 15 days [1].")
    note = next(c for c in result.caveats if "not in the evidence" in c)
    assert "'c9'" in note and "'hr/secret'" in note and "dropped" in note
    assert [s.number for s in result.sources] == [1]


def test_answer_left_without_valid_citation_abstains(bundle: Path) -> None:
    for draft in (
        DraftAnswer(text="New employees get 99 days [c7].", cited=["c7"]),
        DraftAnswer(text="New employees get 99 days.", cited=[]),
    ):
        result = ask(bundle, Q, reader=reader(draft))
        assert result.status == "abstained", draft
        assert result.answer == "" and "99" not in render_answer(result)
        assert result.reason and "cited none" in result.reason
        assert result.citations == [] and result.sources == []
        assert len(result.shortlist) == 1  # what navigation found is kept


def test_partial_answer_says_what_is_missing(bundle: Path) -> None:
    draft = DraftAnswer(
        text="New employees get 15 days.", cited=["c1"], partial=True, missing="whether unused days carry over"
    )
    result = ask(bundle, Q, reader=reader(draft))
    assert result.status == "partial"
    assert result.reason == "Not established by the evidence: whether unused days carry over."
    assert result.answer.endswith(result.reason)


def test_partial_without_missing_is_said_generically(bundle: Path) -> None:
    for draft in (
        DraftAnswer(text="New employees get 15 days.", cited=["c1"], partial=True),
        DraftAnswer(text="New employees get 15 days. <partial/>", cited=["c1"]),
    ):
        result = ask(bundle, Q, reader=reader(draft))
        assert result.status == "partial"
        assert result.reason and "without saying which part" in result.reason
        assert "<partial" not in result.answer


def test_missing_without_partial_flag_is_still_partial(bundle: Path) -> None:
    draft = DraftAnswer(text="New employees get 15 days.", cited=["c1"], missing="the accrual cap (c1)")
    result = ask(bundle, Q, reader=reader(draft))
    assert result.status == "partial" and result.reason == "Not established by the evidence: the accrual cap."


def test_engine_markers_never_reach_the_prose(bundle: Path) -> None:
    text = (
        "<think>c1 says 15, c2 is about carry-over</think>[Exception to the PTO rule (inferred)] "
        "New employees get 15 days [c1] (c2) [dimension=leave; unit=days] <partial/> as c1 and evidence c2 "
        "say [c1, c2] (see c1) [1]. Contractors <exception>do not</exception> qualify (inferred) [^c2]."
    )
    draft = DraftAnswer(text=text, cited=["c1", "c2"])
    result = ask(bundle, Q, reader=reader(draft, relevant=("hr/leave", "hr/carry")))
    answer = result.answer
    for marker in ("c1", "c2", "<", ">", "dimension", "inferred", "Exception to", "think", "[^"):
        assert marker not in answer, (marker, answer)
    assert result.status == "partial"  # <partial/> is a signal, read before it is stripped
    assert answer.startswith("New employees get 15 days [1][2] as and say [1][2]. Contractors do not qualify [2].")
    assert [c.concept_id for c in result.citations] == ["hr/leave", "hr/carry"]


def test_rule_is_stated_with_its_omitted_exception(bundle: Path) -> None:
    draft = DraftAnswer(text="New employees get 15 days of paid time off per year; contractors get none.", cited=["c1"])
    result = ask(bundle, Q, reader=reader(draft))
    lines = result.answer.split("\n")
    assert lines[0] == "New employees get 15 days of paid time off per year; contractors get none [1]."
    assert lines[1] == (
        'Exception stated by the source: "Contractors are not eligible for paid time off, except '
        'those on contracts longer than 12 months." [1]'
    )
    assert "parking" not in result.answer  # an exception that does not bear on the answer is not added


def test_exception_already_stated_is_not_repeated(bundle: Path) -> None:
    text = (
        "New employees get 15 days. Contractors are not eligible for paid time off, except those on "
        "contracts longer than 12 months [c1]."
    )
    result = ask(bundle, Q, reader=reader(DraftAnswer(text=text, cited=["c1"])))
    assert "Exception stated" not in result.answer


def test_exception_rules_unit() -> None:
    body = "The cap is 2x fees. This does not apply to breaches of confidentiality.\nLunch is free unless late."
    found = exceptions("Liability is capped at 2x fees.", "What is the liability cap?", [("c1", body)])
    assert found == [("c1", "This does not apply to breaches of confidentiality.")]  # read with its rule
    assert exceptions("Nothing here.", "Unrelated?", [("c1", body)]) == []
    legal = (
        "Carrier is liable under 49 U.S.C. 14706, except as modified by this Article. "
        "Carrier will not break a seal except at the direction of law enforcement."
    )
    found = exceptions("The carrier is liable up to the cap.", "What is the carrier's cap?", [("c1", legal)])
    # One sentence despite "U.S.C. 14706"; the seal sentence shares only "carrier": a coincidence, not added.
    assert found == [("c1", "Carrier is liable under 49 U.S.C. 14706, except as modified by this Article.")]


@pytest.mark.parametrize("failure", ["draft", "raises"])
def test_garbage_answerer_is_a_clear_failure_that_keeps_the_shortlist(bundle: Path, failure: str) -> None:
    def garbage(question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        if failure == "raises":
            raise ModelOutputError("reply was not JSON after the repair retry", raw="{{{", role="answerer")
        return DraftAnswer(text="{{{not json", failed=True, error="reply was not JSON after the repair retry")

    result = ask(bundle, Q, reader=reader(garbage))
    assert result.status == "abstained" and result.failed
    assert result.reason and result.reason.startswith("The answerer failed:") and "not JSON" in result.reason
    assert "{{{" not in result.answer and result.answer == ""
    assert any("no valid answer" in c for c in result.caveats)
    assert [e.concept_id for e in result.shortlist] == ["hr/leave"]
    assert "Shortlisted concepts (not cited)" in render_answer(result)


def test_deprecated_stale_and_failed_judgments_become_caveats(bundle: Path) -> None:
    scripted = ScriptedReader(
        select=lambda q, offers: [o.index for o in offers],
        judge={"hr/old-leave": True, "hr/leave": True, "hr/carry": None},
        answer=lambda q, ev: DraftAnswer(text="10 or 15 days.", cited=[e.id for e in ev]),
    )
    result = ask(bundle, Q, reader=scripted)
    caveats = "\n".join(result.caveats)
    assert "deprecated" in caveats and "stale_after" in caveats
    assert "Navigation had failures (1 judge call(s); first: scripted failure)" in caveats


def test_evidence_carries_trust_state_to_the_answerer(bundle: Path) -> None:
    seen: list[Evidence] = []

    def answer(question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        seen.extend(evidence)
        return DraftAnswer(text="x", cited=[evidence[0].id])

    ask(bundle, Q, reader=reader(answer, relevant=("hr/old-leave",)))
    assert seen[0].status == "deprecated" and seen[0].stale and seen[0].id == "c1"


def test_cited_ids_as_models_write_them_are_recognised(bundle: Path) -> None:
    result = ask(bundle, Q, reader=reader(DraftAnswer(text="15 days.", cited=[" C1 ", "[c1]", "c7", "C7"])))
    assert result.status == "answered" and [c.concept_id for c in result.citations] == ["hr/leave"]
    assert result.answer.split("\n")[0] == "15 days [1]."
    assert [c for c in result.caveats if "not in the evidence" in c] == [
        "The answerer cited 1 id(s) that were not in the evidence ('c7'); those citations were dropped."
    ]


def test_model_and_bundle_text_cannot_rewrite_the_terminal(bundle: Path) -> None:
    scripted = ScriptedReader(
        select=lambda q, offers: [o.index for o in offers],
        judge=lambda q, docs: [
            Verdict(id=d.id, relevant=d.id == "hr/leave", reason="ok\x1b[2J\nfake line") for d in docs
        ],
        answer=DraftAnswer(text="15 days\x1b]0;pwned\x07.", cited=["c1"]),
    )
    text = render_answer(ask(bundle, Q, reader=scripted))
    assert "\x1b" not in text and "\x07" not in text
    assert "- [1] Paid time off (hr/leave): ok fake line" in text and text.startswith("15 days [1].")


# --- evidence, receipts and the ledger ------------------------------------------------------------------------


def test_receipts_describe_exactly_the_text_given(bundle: Path) -> None:
    seen: list[Evidence] = []

    def answer(question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        seen.extend(evidence)
        return DraftAnswer(text="15 days.", cited=["c1", "c2"])  # c2 names the item that did not fit

    result = ask(
        bundle, Q, reader=reader(answer, relevant=("hr/leave", "hr/carry")), evidence_tokens=60, synthesis="single"
    )
    leave = result.citations[0].receipt
    assert leave.truncated and seen[0].truncated
    file_text = (bundle / "hr/leave.md").read_text(encoding="utf-8")
    assert span_sha256(file_text, leave.start_line, leave.end_line) == leave.sha256
    assert leave.end_line < Bundle.open(bundle).concept("hr/leave").end_line
    assert seen[0].text == "\n".join(file_text.split("\n")[leave.start_line - 1 : leave.end_line])
    assert len(seen) == 1  # the carry-over item did not fit: it is not evidence and cannot be cited
    assert [c.concept_id for c in result.citations] == ["hr/leave"]
    caveats = "\n".join(result.caveats)
    assert f"cut to lines {leave.start_line}-{leave.end_line} of hr/leave.md" in caveats
    assert "did not fit the evidence budget (60 tokens)" in caveats and "hr/carry" in caveats
    assert "'c2'" in caveats  # the answerer cited the dropped item: dropped and noted


def test_untruncated_receipt_equals_navigation_receipt(bundle: Path) -> None:
    result = ask(bundle, Q, reader=reader(DraftAnswer(text="15 days.", cited=["c1"])))
    assert result.citations[0].receipt == result.shortlist[0].receipt
    assert not result.citations[0].receipt.truncated


def test_gather_drops_what_does_not_fit(bundle: Path) -> None:
    opened = Bundle.open(bundle)
    entries = [
        ShortlistEntry(
            concept_id=i,
            path=f"{i}.md",
            title=i,
            type="Policy",
            receipt=Receipt(evidence_id=f"c{n}", path=f"{i}.md", start_line=1, end_line=1, sha256="x"),
        )
        for n, i in enumerate(["hr/carry", "hr/leave", "hr/gone"], start=1)
    ]
    gathered = gather_evidence(opened, entries, evidence_tokens=20)  # 80 chars: carry fits, leave too small
    assert [i.evidence.id for i in gathered.items] == ["c1"]
    assert [e.concept_id for e in gathered.dropped] == ["hr/leave"]
    assert [e.concept_id for e, _ in gathered.unreadable] == ["hr/gone"]


def test_sources_ledger_traces_raw_sources_and_never_invents(bundle: Path) -> None:
    draft = DraftAnswer(text="15 days, 5 carry over.", cited=["c2", "c1"])
    result = ask(bundle, Q, reader=reader(draft, relevant=("hr/leave", "hr/carry")))
    assert [(s.number, s.concept_id, s.sources) for s in result.sources] == [
        (1, "hr/carry", []),
        (2, "hr/leave", ["raw/handbook.md:10-14", "https://wiki.example/pto"]),
    ]
    text = render_answer(result)
    assert f"1. Carry-over (hr/carry.md): {NO_SOURCE}" in text
    assert "2. Paid time off (hr/leave.md): raw/handbook.md:10-14, https://wiki.example/pto" in text
    assert "Supporting concepts\n- [1] Carry-over (hr/carry): scripted" in text
    assert result.answer.startswith("15 days, 5 carry over [1][2].")


def test_unplaced_citations_go_to_the_lines_that_quote_them(bundle: Path) -> None:
    text = 'Leave: "New employees receive 15 days of paid time off per year."\nCarry: "Up to 5 unused days carry over."'
    result = ask(
        bundle, Q, reader=reader(DraftAnswer(text=text, cited=["c2", "c1"]), relevant=("hr/leave", "hr/carry"))
    )
    first, second = result.answer.split("\n")[:2]
    assert first.endswith('per year." [2]') and second.endswith('carry over." [1]')
    assert [c.concept_id for c in result.citations] == ["hr/carry", "hr/leave"]


def test_human_shape_omits_empty_caveats_and_footer_names_reader(bundle: Path) -> None:
    result = ask(bundle, Q, reader=reader(DraftAnswer(text="15 days.", cited=["c1"]), relevant=("hr/carry",)))
    text = render_answer(result)
    assert "Caveats" not in text and text.startswith("15 days [1].")
    assert re.fullmatch(r"answered by scripted: \d+ call\(s\), 0 tokens, \d+\.\d\d s", render_footer(result))
    assert set(result.usage) >= {"selector", "judge", "answerer"}


# --- bad input ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("question", ["", "   \n"])
def test_empty_question_is_a_config_error(bundle: Path, question: str) -> None:
    with pytest.raises(ConfigError, match="question is empty"):
        ask(bundle, question, reader=reader(DraftAnswer()))


def test_bad_evidence_budget_is_a_config_error(bundle: Path) -> None:
    with pytest.raises(ConfigError, match="evidence_tokens"):
        ask(bundle, Q, reader=reader(DraftAnswer()), evidence_tokens=0)


@pytest.mark.parametrize(
    "question", ["新入社員の有給休暇は何日ですか？", "Wie viele Urlaubstage bekommen neue Mitarbeiter?"]
)
def test_foreign_question_abstains_with_a_reason_offline(bundle: Path, question: str) -> None:
    result = ask(bundle, question, reader=OfflineReader())
    assert result.status == "abstained" and result.reason and not result.failed


def test_offline_reader_answers_extractively(bundle: Path) -> None:
    result = ask(bundle, "How many days of paid time off do new employees receive?", reader=OfflineReader())
    assert result.status in {"answered", "partial"}
    assert "15 days of paid time off" in result.answer
    assert result.citations and result.citations[0].concept_id == "hr/leave"
    assert result.reader == "offline"


def test_ask_async_and_sync_guard(bundle: Path) -> None:
    async def inside() -> str:
        with pytest.raises(ConfigError, match="running event loop"):
            ask(bundle, Q, reader=reader(DraftAnswer()))
        result = await ask_async(bundle, Q, reader=reader(DraftAnswer(text="15 days.", cited=["c1"])))
        return result.status

    assert asyncio.run(inside()) == "answered"


# --- prose units ----------------------------------------------------------------------------------------------


def test_clean_prose_numbers_in_first_citation_order_and_keeps_real_brackets() -> None:
    numbers: dict[str, int] = {}
    prose = clean_prose(
        "A (FY2026) rule [c2]. Another (Section 5) [c1; c2]. Unknown [C7].",
        valid_ids=["c1", "c2"],
        claimed=[],
        numbers=numbers,
    )
    assert prose.text == "A (FY2026) rule [1]. Another (Section 5) [2][1]. Unknown."
    assert numbers == {"c2": 1, "c1": 2} and prose.invalid == ["C7"]


def test_clean_prose_removes_terminal_escapes() -> None:
    prose = clean_prose("Safe\x1b[2J\x1b]0;title\x07 text\x00.", valid_ids=["c1"])
    assert prose.text == "Safe text."


def test_append_markers() -> None:
    assert append_markers("Fifteen days.", [1, 2]) == "Fifteen days [1][2]."
    assert append_markers("Fifteen days [1].", [2]) == "Fifteen days [1][2]."
    assert append_markers("Fifteen days", [3]) == "Fifteen days [3]"
