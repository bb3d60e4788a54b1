"""The offline reader's words, its per-item decisions on hand-written cases, and the scripted reader."""

from __future__ import annotations

import asyncio
import time

import pytest

from okf.readers import OfflineReader, Reader
from okf.readers.base import Document, DraftAnswer, Evidence, Selection, SignpostOffer, Verdict
from okf.readers.text import clip, sentences, stem, terms
from okf.testing import ScriptedReader

QUESTION = "How many vacation days do new hires get?"


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def offer(index: int, path: str, title: str, description: str = "") -> SignpostOffer:
    return SignpostOffer(
        index=index, path=path, title=title, description=description, is_dir=path.endswith("/")
    )


def doc(doc_id: str, title: str, text: str, headings: list[str] | None = None) -> Document:
    return Document(id=doc_id, title=title, text=text, sha256="0" * 64, headings=headings or [])


# --- words ---


def test_terms_drop_stop_words_question_words_and_single_letters() -> None:
    assert terms("What is the policy, and how does it apply to a contractor?") == [
        "polici",
        "appli",
        "contractor",
    ]


def test_terms_keep_numbers_and_identifiers_whole() -> None:
    found = terms("Upgrade to version 5.2 and set max_tokens; see 7 days")
    assert "5.2" in found and "7" in found
    assert {"max_tokens", "max", "token"} <= set(found)


def test_terms_are_unicode_aware() -> None:
    # casefold: "Straße" and "STRASSE" meet; NFKC: full-width letters are plain letters.
    assert terms("Größe der Straße, café ＡＰＩ") == ["grösse", "der", "strasse", "café", "api"]
    assert terms("STRASSE") == terms("Straße")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("policy", "policies"),
        ("hire", "hires"),
        ("hired", "hiring"),
        ("day", "days"),
        ("renewal", "renewals"),
        ("running", "run"),
    ],
)
def test_stemmer_joins_inflections(a: str, b: str) -> None:
    assert stem(a) == stem(b)


def test_sentences_strip_markdown_and_skip_code() -> None:
    text = (
        "# Leave\n\n- **New hires** get 15 days. Unused days expire.\n\n"
        "```\ncode here.\n```\n| a | b |\n|---|---|\n"
    )
    assert sentences(text) == ["Leave", "New hires get 15 days.", "Unused days expire.", "a b"]


def test_clip_cuts_at_a_word_boundary() -> None:
    clipped = clip("word " * 100, 40)
    assert len(clipped) <= 40 and clipped.endswith("…") and "wor…" not in clipped


# --- select ---


def test_select_keeps_matching_signposts_and_names_the_words() -> None:
    offers = [
        offer(0, "hr/", "Human resources", "Vacation, leave and benefits"),
        offer(1, "finance/", "Finance", "Budgets and invoices"),
        offer(2, "hr/vacation.md", "Vacation policy", "How many days off"),
        offer(3, "hr/parking.md", "Parking", "Where to park"),
    ]
    selection = run(OfflineReader().select(QUESTION, offers))
    assert [c.index for c in selection.choices] == [0, 2]
    reasons = {c.index: c.reason for c in selection.choices}
    assert "vacation" in reasons[0] and "vacation" in reasons[2] and "days" in reasons[2]
    assert not selection.failed and selection.usage.calls == 1 and selection.usage.tokens == 0


def test_select_decides_each_signpost_on_its_own() -> None:
    target = offer(5, "hr/leave/", "Leave", "vacation rules")
    alone = run(OfflineReader().select(QUESTION, [target]))
    crowd = run(
        OfflineReader().select(
            QUESTION, [offer(i, f"d{i}/", "Vacation days new hires", "") for i in range(5)] + [target]
        )
    )
    assert [c.index for c in alone.choices] == [5]
    assert 5 in [c.index for c in crowd.choices]


def test_select_needs_more_than_one_description_word_for_a_concept() -> None:
    weak = offer(0, "ops/rota.md", "Rota", "Who is on call during vacation")
    strong = offer(1, "ops/leave.md", "Rota", "vacation days")
    assert [c.index for c in run(OfflineReader().select(QUESTION, [weak, strong])).choices] == [1]


def test_select_uses_only_the_last_path_segment() -> None:
    # Every child of hr/vacation/ shares "vacation" in its path; that alone must not keep them.
    child = offer(0, "hr/vacation/parking.md", "Parking", "Car park rules")
    assert run(OfflineReader().select(QUESTION, [child])).choices == []


def test_select_opens_no_directory_without_a_shared_word() -> None:
    assert (
        run(OfflineReader().select(QUESTION, [offer(0, "legal/", "Legal", "Contracts and NDAs")])).choices
        == []
    )


# --- judge ---


def test_judge_relevant_quotes_the_deciding_sentence() -> None:
    body = (
        "Leave accrues monthly.\n\n"
        "New hires receive 15 vacation days in their first year. Unused days roll over."
    )
    verdict = run(OfflineReader().judge(QUESTION, [doc("hr/vacation", "Vacation policy", body)])).verdicts[0]
    assert verdict.relevant is True and not verdict.failed
    assert '"New hires receive 15 vacation days in their first year."' in verdict.reason


def test_judge_one_shared_word_is_not_enough() -> None:
    body = "The office is closed for the vacation period in August."
    verdict = run(OfflineReader().judge(QUESTION, [doc("ops/closure", "Office closure", body)])).verdicts[0]
    assert verdict.relevant is False and "vacation" in verdict.reason


def test_judge_verdicts_follow_document_order_and_ids() -> None:
    docs = [
        doc("a", "Budget", "The budget is set yearly."),
        doc("b", "Leave", "New hires get 20 vacation days.", ["Vacation days"]),
    ]
    judgement = run(OfflineReader().judge(QUESTION, docs))
    assert [(v.id, v.relevant) for v in judgement.verdicts] == [("a", False), ("b", True)]


def test_judge_reason_is_trimmed() -> None:
    long_sentence = "New hires receive vacation days " + "and more words " * 40 + "."
    verdict = run(OfflineReader().judge(QUESTION, [doc("x", "Vacation", long_sentence)])).verdicts[0]
    assert verdict.relevant and len(verdict.reason) < 220


def test_judge_question_without_content_words() -> None:
    verdict = run(OfflineReader().judge("What is it?", [doc("x", "Anything", "Some text.")])).verdicts[0]
    assert verdict.relevant is False and not verdict.failed


# --- answer ---


EVIDENCE = [
    Evidence(
        id="E1",
        title="Vacation policy",
        text="# Vacation\n\nNew hires receive 15 vacation days. The office has a kitchen.",
    ),
    Evidence(id="E2", title="Onboarding", text="New hires meet their buddy on day one. Parking is free."),
]


def test_answer_quotes_the_best_sentences_and_cites_them() -> None:
    draft = run(OfflineReader().answer(QUESTION, EVIDENCE))
    assert draft.text.startswith('Vacation policy: "New hires receive 15 vacation days."')
    assert draft.cited[0] == "E1" and set(draft.cited) <= {"E1", "E2"}
    assert "kitchen" not in draft.text and "Parking" not in draft.text
    assert "E1" not in draft.text and "E2" not in draft.text
    assert not draft.partial and draft.missing == ""


def test_answer_partial_names_uncovered_words() -> None:
    draft = run(
        OfflineReader().answer("How many vacation days and tuition credits do new hires get?", EVIDENCE)
    )
    assert draft.partial and "tuition" in draft.missing and "credits" in draft.missing
    assert "vacation" not in draft.missing


def test_answer_empty_when_nothing_matches() -> None:
    draft = run(OfflineReader().answer("What is the refund window for enterprise invoices?", EVIDENCE))
    assert draft.text == "" and draft.cited == [] and not draft.failed


def test_answer_quotes_at_most_three_sentences() -> None:
    many = [
        Evidence(id=f"E{i}", title=f"T{i}", text=f"Vacation word{i}. New hires word{i} days {i}.")
        for i in range(6)
    ]
    draft = run(
        OfflineReader().answer("vacation days new hires " + " ".join(f"word{i}" for i in range(6)), many)
    )
    assert 1 <= len(draft.text.splitlines()) <= 3


def test_offline_reader_is_a_reader_named_offline() -> None:
    assert isinstance(OfflineReader(), Reader) and OfflineReader().name == "offline"


# --- scripted reader ---


def test_scripted_reader_shorthands_and_counts() -> None:
    offers = [offer(0, "a/", "A"), offer(1, "b/", "B")]
    docs = [doc("x", "X", "x"), doc("y", "Y", "y")]
    reader = ScriptedReader(select=["b/"], judge={"x": True, "y": None}, answer="It is so.", name="s1")
    assert isinstance(reader, Reader) and reader.name == "s1"
    assert [c.index for c in run(reader.select("q", offers)).choices] == [1]
    verdicts = run(reader.judge("q", docs)).verdicts
    assert verdicts[0].relevant is True and verdicts[1].failed and verdicts[1].relevant is None
    draft = run(reader.answer("q", [Evidence(id="E1", title="t", text="x")]))
    assert draft.text == "It is so." and draft.cited == ["E1"]
    assert reader.calls == {"select": 1, "judge": 1, "answer": 1}


def test_scripted_reader_async_callables_latency_and_concurrency() -> None:
    async def judge(question: str, documents: list[Document]) -> list[Verdict]:
        return [Verdict(id=d.id, relevant=d.id == "x") for d in documents]

    reader = ScriptedReader(
        select=lambda q, s: Selection(), judge=judge, answer=DraftAnswer(text="t"), latency=0.05
    )

    async def main() -> list[bool | None]:
        results = await asyncio.gather(*(reader.judge("q", [doc("x", "X", "x")]) for _ in range(4)))
        return [r.verdicts[0].relevant for r in results]

    start = time.perf_counter()
    assert run(main()) == [True] * 4
    assert time.perf_counter() - start < 0.19  # the four calls overlapped
    assert reader.max_in_flight == 4 and reader.calls["judge"] == 4


def test_scripted_reader_defaults_to_offline_decisions() -> None:
    reader = ScriptedReader()
    selection = run(reader.select(QUESTION, [offer(0, "hr/", "Vacation"), offer(1, "x/", "Other")]))
    assert [c.index for c in selection.choices] == [0] and reader.calls["select"] == 1
