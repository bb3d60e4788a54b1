"""The offline reader's words, its per-item decisions on hand-written cases, and the scripted reader."""

from __future__ import annotations

import asyncio
import time

import pytest

from okf.readers import OfflineReader, Reader
from okf.readers.base import Document, DraftAnswer, Evidence, Selection, SignpostOffer, Verdict
from okf.readers.offline import Question
from okf.text.words import clip, compact, sentences, stem, synonyms, terms
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
    assert terms("Größe der Straße, café ＡＰＩ") == ["grösse", "der", "strass", "café", "api"]
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


# --- words: identifiers, inflections, synonyms ---


def test_camel_case_identifiers_yield_their_words() -> None:
    found = terms("Configure the StarredDropdown and RHDHConfig")
    assert {"starreddropdown", "star", "dropdown", "rhdhconfig", "rhdh", "config"} <= set(found)


def test_hyphenated_words_are_also_found_written_together() -> None:
    assert stem("airgapped") in terms("an air-gapped cluster") and "air" in terms("an air-gapped cluster")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("configure", "configuration"),
        ("terminate", "termination"),
        ("renew", "renewal"),
        ("authorised", "authorized"),
    ],
)
def test_stemmer_joins_derivations_and_spellings(a: str, b: str) -> None:
    assert stem(a) == stem(b)


def test_small_synonym_table() -> None:
    assert stem("cancel") in synonyms(stem("terminate")) and synonyms("zebra") == ("zebra",)


def test_compact_runs_words_together() -> None:
    assert compact("ADAPTIMMUNE-THERAPEUTICS plc, 04.06") == "adaptimmunetherapeuticsplc0406"


def test_question_finds_names_and_runs() -> None:
    question = Question.parse("Which law governs the Adaptimmune Therapeutics strategic alliance agreement?")
    assert "adaptimmunetherapeutics" in question.runs
    assert stem("adaptimmune") in question.names and stem("law") not in question.names


# --- select ---


def contracts(*titles: str) -> list[SignpostOffer]:
    return [
        offer(i, f"group/{compact(t)[:20]}/", t, f"{t}: 1 Definitions; 2 Term") for i, t in enumerate(titles)
    ]


def kept(question: str, offers: list[SignpostOffer]) -> list[int]:
    return [c.index for c in run(OfflineReader().select(question, offers)).choices]


def test_select_keeps_matching_signposts_and_names_the_words() -> None:
    offers = [
        offer(0, "hr/", "Human resources", "Vacation, leave and benefits"),
        offer(1, "finance/", "Finance", "Budgets and invoices"),
        offer(2, "it/", "IT", "Laptops and accounts"),
        offer(3, "facilities/", "Facilities", "Where to park"),
    ]
    selection = run(OfflineReader().select(QUESTION, offers))
    assert [c.index for c in selection.choices] == [0]
    assert "vacation" in selection.choices[0].reason
    assert not selection.failed and selection.usage.calls == 1 and selection.usage.tokens == 0


def test_select_a_run_together_name_decides_and_common_words_do_not() -> None:
    offers = contracts(
        "ADAPTIMMUNETHERAPEUTICSPLC 04 06 2017-EX-10.11-STRATEGIC ALLIANCE AGREEMENT",
        "PHREESIA,INC 05 28 2019-EX-10.18-STRATEGIC ALLIANCE AGREEMENT",
        "ACMECORP 01 02 2003-EX-10.1-SUPPLY AGREEMENT",
        "ZETAINC 01 02 2004-EX-10.2-SUPPLY AGREEMENT",
    )
    question = "Which law governs the Adaptimmune Therapeutics strategic alliance agreement?"
    selection = run(OfflineReader().select(question, offers))
    assert [c.index for c in selection.choices] == [0]
    assert "adaptimmune" in selection.choices[0].reason


def test_select_skips_other_organisations_when_the_named_one_is_absent() -> None:
    offers = contracts(
        "PHREESIA,INC 05 28 2019-EX-10.18-STRATEGIC ALLIANCE AGREEMENT",
        "Loop Industries, Inc. - Strategic Alliance Agreement",
        "ZETAINC SUPPLY AGREEMENT",
    )
    assert kept("Which law governs the Adaptimmune Therapeutics strategic alliance agreement?", offers) == []


def test_select_a_rare_topic_word_keeps_a_directory() -> None:
    offers = [
        offer(i, f"guides/{name}/", title, "")
        for i, (name, title) in enumerate(
            [
                ("install", "Installing Developer Hub"),
                ("auth", "Authentication in Developer Hub"),
                ("telemetry", "Telemetry data collection in Developer Hub"),
                ("upgrade", "Upgrading Developer Hub"),
            ]
        )
    ]
    # "Developer Hub" is in every title: it tells nothing apart; "telemetry" decides.
    assert kept("How do I turn off telemetry in Developer Hub?", offers) == [2]


def test_select_decisions_are_absolute_not_a_top_k() -> None:
    target = offer(5, "hr/leave/", "Vacation rules", "")
    crowd = [offer(i, f"d{i}/", f"Topic {i}", "unrelated things") for i in range(5)]
    assert kept(QUESTION, [target]) == [5]
    assert kept(QUESTION, [*crowd, target]) == [5]
    twins = [offer(i, f"v{i}/", "Vacation days for new hires", "") for i in range(2)]
    assert kept(QUESTION, twins + crowd) == [0, 1]  # two good matches are both kept


def test_select_opens_range_groups_only_when_nothing_else_speaks() -> None:
    groups = [
        offer(0, "documents-1-24/", "Documents 1 to 24", "ACME to BETA: ACME supply; BETA…"),
        offer(1, "documents-25-48/", "Documents 25 to 48", "CARL to DORA: CARL lease; DORA…"),
    ]
    assert kept("Which law governs the Foxtrot Corp licence?", groups) == [0, 1]
    assert kept(QUESTION, [offer(0, "legal/", "Legal", "Contracts and NDAs")]) == []


def test_select_opens_the_parts_of_the_named_thing() -> None:
    parts = [
        offer(0, "g/acmecorp-supply-agreement/body/", "Supply Agreement", "Sections 1 to 16"),
        offer(1, "g/acmecorp-supply-agreement/exhibits/", "Exhibits", "Exhibit A"),
    ]
    assert kept("Does the Acmecorp supply agreement cap liability?", parts) == [0, 1]


def test_select_concept_needs_a_title_word_or_two_description_words() -> None:
    offers = [
        offer(0, "ops/rota.md", "Rota", "Who is on call during vacation"),
        offer(1, "ops/leave.md", "Leave", "vacation days"),
        offer(2, "ops/a.md", "Alpha", "x"),
        offer(3, "ops/b.md", "Beta", "y"),
        offer(4, "ops/c.md", "Gamma", "z"),
    ]
    assert kept(QUESTION, offers) == [1]


def test_select_uses_only_the_last_path_segment() -> None:
    # Every child of hr/vacation/ shares "vacation" in its path; that alone must not keep them.
    child = offer(0, "hr/vacation/parking.md", "Parking", "Car park rules")
    assert run(OfflineReader().select(QUESTION, [child])).choices == []


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


def test_judge_words_of_the_folder_are_context_and_the_body_must_cover_the_rest() -> None:
    question = "Which law governs the Acmecorp supply agreement?"
    clause = doc(
        "g/acmecorp-supply-agreement/12-governing-law",
        "12 Governing law",
        "This Agreement shall be governed by the laws of the State of Texas.",
    )
    other = doc(
        "g/acmecorp-supply-agreement/3-price",
        "3 Price",
        "Acmecorp shall pay the price under this supply agreement within 30 days.",
    )
    verdicts = run(OfflineReader().judge(question, [clause, other])).verdicts
    assert verdicts[0].relevant is True and "State of Texas" in verdicts[0].reason
    # "Acmecorp", "supply", "agreement" are answered by the folder; the price clause says nothing on law.
    assert verdicts[1].relevant is False


def test_judge_needs_the_words_together_in_one_sentence() -> None:
    scattered = (
        "New staff are welcome.\n\nThe vacation calendar is shared.\n\nDays are counted in hours.\n\n"
        "Hires from agencies are contractors."
    )
    verdict = run(OfflineReader().judge(QUESTION, [doc("hr/misc", "Misc", scattered)])).verdicts[0]
    assert verdict.relevant is False and "never together" in verdict.reason


def test_judge_a_long_question_needs_three_of_its_words_together() -> None:
    question = "Which reporting thresholds trigger the custody obligations for virtual asset transactions?"
    # Both mention most of the words; only the second says three of them in one breath.
    two = doc(
        "r/a",
        "Note",
        "Reporting thresholds are set yearly. Custody obligations differ. "
        "Virtual assets are new. Transactions are logged.",
    )
    three = doc(
        "r/b", "Note", "Reporting thresholds trigger custody duties. Virtual asset transactions are logged."
    )
    assert [v.relevant for v in run(OfflineReader().judge(question, [two, three])).verdicts] == [False, True]


def test_judge_a_word_every_document_of_the_batch_carries_does_not_decide() -> None:
    question = "Which vacation rules does Contoso give contractors?"
    bodies = [f"Contoso rules {i} for contractors: badges and desks." for i in range(3)]
    docs = [doc(f"n{i}", f"Note {i}", body) for i, body in enumerate(bodies)]
    docs.append(doc("rules", "Rules", "Contoso vacation rules cover contractors too."))
    verdicts = run(OfflineReader().judge(question, docs)).verdicts
    # "Contoso", "rules" and "contractors" are in all four: only "vacation" tells them apart.
    assert [v.relevant for v in verdicts] == [False, False, False, True]


def test_judge_quotes_the_sentence_holding_the_question_phrase() -> None:
    body = (
        "A right to refuse the first shipment exists.\n\n"
        "The Distributor has a right of first refusal on new products."
    )
    verdict = run(
        OfflineReader().judge("Is there a right of first refusal?", [doc("c/rofr", "Rights", body)])
    ).verdicts[0]
    assert verdict.relevant and "right of first refusal on new products" in verdict.reason


def test_judge_reads_each_body_once_per_sha256(monkeypatch: pytest.MonkeyPatch) -> None:
    from okf.readers import offline

    calls: list[str] = []
    real = offline.read_body
    monkeypatch.setattr(offline, "read_body", lambda text: calls.append(text) or real(text))
    reader = OfflineReader()
    cached = Document(id="a", title="Leave", text="New hires get 20 vacation days.", sha256="a" * 64)
    run(reader.judge(QUESTION, [cached]))
    run(reader.judge("How many days off?", [cached]))
    assert len(calls) == 1


def test_judge_is_fast_enough() -> None:
    # A 6000-character body, judged cold then warm: well under the ~3 ms a judged body may cost.
    text = "\n\n".join(
        f"## Section {i}\n\nNew staff member {i} gets leave after {i} months of service, "
        f"subject to the manager's approval and the policy."
        for i in range(45)
    )[:6000]
    reader = OfflineReader()
    docs = [Document(id=f"d{i}", title="Leave", text=text + str(i), sha256=f"{i:064d}") for i in range(20)]
    start = time.perf_counter()
    run(reader.judge(QUESTION, docs))
    run(reader.judge("When does leave start for new staff?", docs))
    assert (time.perf_counter() - start) / 40 < 0.01  # generous for slow CI; measured ~1-3 ms


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
    assert "E1" not in draft.text and "E2" not in draft.text and "[" not in draft.text
    assert not draft.partial and draft.missing == ""


def test_answer_counts_the_quoted_sources_title_and_adds_no_off_topic_quotes() -> None:
    # "Paid time off" is said by the first item's title; the second item's sentence only repeats those words.
    evidence = [
        Evidence(id="E1", title="Paid Time Off", text="New hires receive 15 days each year."),
        Evidence(id="E2", title="Leave of Absence", text="Bereavement days beyond the paid ones may use time off."),
    ]
    draft = run(OfflineReader().answer("How many paid time off days do new hires get each year?", evidence))
    assert draft.cited == ["E1"], draft.text
    assert draft.text == 'Paid Time Off: "New hires receive 15 days each year."' and not draft.partial


def test_answer_skips_heading_fragments_and_quotes_sentences() -> None:
    evidence = [
        Evidence(id="E1", title="Leave", text="# Vacation days\n\nNew hires receive 15 vacation days.")
    ]
    draft = run(OfflineReader().answer(QUESTION, evidence))
    assert draft.text == 'Leave: "New hires receive 15 vacation days."' and draft.cited == ["E1"]


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
    assert reader.calls == {"select": 1, "judge": 1, "answer": 1, "decompose": 0, "leaf": 0}


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


def test_answer_to_a_how_long_question_prefers_the_sentence_with_a_figure() -> None:
    text = "The warranty covers defects in parts.\n\nThe warranty runs for a period of two (2) years."
    evidence = [Evidence(id="E1", title="Supply agreement", text=text)]
    draft = run(OfflineReader().answer("How long is the warranty?", evidence))
    assert draft.text.startswith('Supply agreement: "The warranty runs for a period of two (2) years."')


# --- negated words, alternatives, titled sections, wide offers ---


def test_negated_words_are_also_read_as_the_word_they_negate() -> None:
    assert stem("solicit") in terms("7. Nonsolicitation.") and stem("competition") in terms("Noncompetition")
    assert stem("cap") in terms("uncapped") and stem("limit") in terms("unlimited")
    # Short words that merely start like a negation stay whole.
    assert terms("none unless until") == ["none", "unless"]


def test_synonym_table_joins_clause_vocabulary() -> None:
    assert stem("exceed") in synonyms(stem("cap")) and stem("exceeding") in synonyms(stem("cap"))
    assert stem("licence") in synonyms(stem("license"))
    assert stem("indemnification") in synonyms(stem("indemnify"))


def test_question_alternatives_group_the_words_joined_by_or() -> None:
    assert Question.parse("Can it audit the books, records or premises?").alternatives == (
        frozenset(terms("books records premises")),
    )
    first = Question.parse("Is there a right of first refusal, first offer or first negotiation?")
    assert first.alternatives == (frozenset(terms("refusal offer negotiation")),)
    assert Question.parse("Who pays the fees?").alternatives == ()


def test_judge_one_alternative_is_enough() -> None:
    question = (
        "Does a party to the Fulucai license have the right to audit the other's books, records or premises?"
    )
    audit = doc(
        "g/fulucai-license/18-audit",
        "18 Audit",
        "18. Audit. Each party may audit the records of the other party once a year on 30 days notice.",
    )
    verdict = run(OfflineReader().judge(question, [audit])).verdicts[0]
    # "records" covers the alternatives; read as three separate words, coverage is 0.40 < 0.45.
    assert verdict.relevant is True and "audit" in verdict.reason


def test_judge_a_section_titled_on_the_topic_needs_one_rare_word_in_a_sentence() -> None:
    question = "Does the Acme agreement restrict a party from competing?"
    others = [
        doc(f"g/acme-agreement/{n}", f"{n} Fees", f"{n}. Each party pays its fees; the agreement governs.")
        for n in range(4)
    ]
    titled = doc(
        "g/acme-agreement/9-non-competition",
        "9 Non-Competition",
        "9. During the term neither party shall engage in any competing business.",
    )
    untitled = doc(
        "g/acme-agreement/10-notes",
        "10 Notes",
        "Access is restricted. No party shall engage in any competing business.",
    )
    verdicts = run(OfflineReader().judge(question, [*others, titled, untitled])).verdicts
    # "party" is in every body; "competing" is rare in the batch and decides alone only under a title naming
    # it: the notes say "restricted" and "competing" but never together.
    assert [v.relevant for v in verdicts] == [False, False, False, False, True, False]


def test_select_opens_folders_carrying_a_word_too_common_to_be_informative() -> None:
    guides = [
        offer(0, "g/audit/", "Audit logs", "Audit logs record user activity"),
        offer(1, "g/monitoring/", "Monitoring and logging", "Logging and metrics"),
        offer(2, "g/install/", "Installing", "Installing on OpenShift"),
    ]
    # "log" is in two of three signposts (over the informative share), yet it beats opening nothing.
    assert kept("How do I enable json log forwarding?", guides) == [0, 1]
    # A folder named for another organisation is not opened on a common word.
    named = [
        offer(0, "g/acmecorp/", "ACMECORP Supply Agreement", "Supply of widgets"),
        offer(1, "g/betaltd/", "BETALTD Supply Agreement", "Supply of gears"),
        offer(2, "g/notes/", "Notes", "Meeting notes"),
    ]
    assert kept("Does the supply contract say who pays?", named) == []


def test_select_opens_groups_titled_with_their_span_when_nothing_speaks() -> None:
    groups = [
        offer(
            0, "documents-1-14/", "Documents 1 to 14: About to Installing", "14 documents: About; Installing"
        ),
        offer(1, "documents-15-28/", "Documents 15 to 28: Plugins to Upgrading", "14 documents: Plugins"),
    ]
    assert kept("How are webhooks retried?", groups) == [0, 1]


def test_select_inside_a_range_group_opens_its_folders_when_nothing_speaks() -> None:
    guides = [
        offer(0, "documents-15-28/plugins/", "Installing plugins", "Plugins: Installing; Viewing"),
        offer(1, "documents-15-28/upgrading/", "Upgrading", "Upgrading: Operator; Helm"),
        offer(2, "documents-15-28/ACMECORP/", "ACMECORP Agreement", "Supply"),
    ]
    # Nothing mentions "scalprum": the group's folders are the only places left (not another party's).
    assert kept("What must the scalprum.name value match?", guides) == [0, 1]
    # Outside a range group, nothing speaking to the question still opens nothing.
    assert kept("What must the scalprum.name value match?", [offer(0, "docs/plugins/", "Plugins")]) == []
