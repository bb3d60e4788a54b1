"""Recursive synthesis: coverage guaranteed in code against decomposers that split badly and leaf workers that
skip items, cite ids they were not given, or fail; the offline path; the same option on every surface."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from builders import concept, write_files
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import okf.cli.ask as ask_cli
from okf.answer import ask
from okf.answer.evidence import GatheredEvidence, assert_loaded, load_evidence
from okf.answer.partition import pack, problems, repair
from okf.answer.render import render_tree
from okf.answer.synthesis import LEAF_ATTEMPTS, MAX_DEPTH
from okf.bundle import Bundle
from okf.cli import main
from okf.errors import BundleError, ConfigError
from okf.models import AnswerResult, SynthesisNode
from okf.readers import LLMReader, ReaderConfig
from okf.readers.base import DraftAnswer, Evidence
from okf.readers.synthesis import MAX_GROUPS, Fact, LeafExtract, Part, Split, split_offline
from okf.testing import LoopbackServer, Reply, ScriptedReader, offline_rule
from okf.testing.server import request_payload

Q = "How can either party terminate the agreement?"
FILLER = "The parties record the notice address, the governing law and the signatures in the schedule below. "
CONTRACTS = 12
BUDGET = 300  # tokens; each item is about 220, so the whole evidence is about 9 budgets


def body(n: int) -> str:
    return f"Either party may terminate contract {n} for convenience on {n * 10} days written notice. " + FILLER * 8


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    files = {"index.md": "# Contracts\n\n" + "".join(f"* [Group {g}](g{g}/) - supply contracts\n" for g in range(4))}
    for n in range(CONTRACTS):
        files[f"g{n // 3}/contract-{n:02d}.md"] = concept(f"Contract {n:02d} termination", body(n), kind="Clause")
    return write_files(tmp_path / "b", files)


def reader(**scripts: Any) -> ScriptedReader:
    """Every directory opened, every concept relevant; the synthesis roles as scripted (offline otherwise)."""
    return ScriptedReader(
        select=lambda q, offers: [o.index for o in offers], judge=lambda q, docs: [True] * len(docs), **scripts
    )


def run(bundle: Path, scripted: ScriptedReader, **kw: Any) -> AnswerResult:
    kw.setdefault("evidence_tokens", BUDGET)
    return ask(bundle, Q, reader=scripted, budgets={"max_shortlist": 50}, **kw)


def one_fact_each(question: str, evidence: Sequence[Evidence]) -> LeafExtract:
    return LeafExtract(
        facts=[Fact(text=f"{e.title}: terminable on notice.", cited=[e.id]) for e in evidence],
        checked=[e.id for e in evidence],
    )


def cite_all(question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
    return DraftAnswer(text="Each contract may be terminated on notice.", cited=[e.id for e in evidence])


def leaves(node: SynthesisNode | None) -> list[SynthesisNode]:
    if node is None:
        return []
    return [node] if node.kind == "leaf" else [x for c in node.children for x in leaves(c)]


def leaf_ids(scripted: ScriptedReader) -> list[str]:
    return [e.id for role, _, items in scripted.requests if role == "leaf" for e in items]


ALL = [f"c{n}" for n in range(1, CONTRACTS + 1)]


# --- partition repair ------------------------------------------------------------------------------------


@given(st.lists(st.tuples(st.integers(-3, 15), st.integers(-3, 15)), max_size=12), st.integers(2, 12))
def test_any_decomposer_reply_is_repaired_to_a_partition(groups: list[tuple[int, int]], n: int) -> None:
    out, _ = repair(groups, [10] * n, 25)
    assert problems(out, n) == []
    assert sorted(i for a, b in out for i in range(a, b)) == list(range(n))  # none lost, none duplicated
    assert 2 <= len(out) <= MAX_GROUPS


def test_each_repair_is_recorded() -> None:
    sizes = [10] * 10
    assert repair([(0, 3), (4, 9)], sizes, 25) == ([(0, 4), (4, 10)], [])  # a valid reply is taken as sent
    out, notes = repair([(0, 5), (3, 12), (7, 2)], sizes, 25)
    assert out == [(0, 3), (3, 6), (6, 10)]
    text = " | ".join(notes)
    assert "[7, 2] is empty" in text and "[3, 12] reaches outside indices 0-9: clipped" in text
    assert "indices 3-5 were in two or more groups" in text
    out, notes = repair([(0, 2), (6, 9)], sizes, 25)
    assert out == [(0, 3), (3, 6), (6, 10)] and "indices 3-5 were in no group" in notes[0]
    out, notes = repair([(0, 9)], sizes, 25)
    assert out == [(0, 2), (2, 5), (5, 7), (7, 10)] and "split nothing: split by size into 4" in notes[0]
    out, notes = repair([(i, i) for i in range(10)], sizes, 25)
    assert len(out) == MAX_GROUPS and "merged" in notes[0]
    assert pack([10, 10, 40, 5, 5, 5], 20) == [(0, 2), (2, 3), (3, 6)]


def test_offline_split_keeps_folders_together_when_near() -> None:
    parts = [Part(index=i, id=f"c{i}", title="t", path=f"g{i // 3}/x{i}.md", tokens=100) for i in range(12)]
    assert split_offline(parts, 400) == [(0, 2), (3, 5), (6, 8), (9, 11)]  # 4 groups fill 0.8 budgets each
    assert split_offline(parts, 390) == [(0, 2), (3, 5), (6, 8), (9, 11)]
    assert len(split_offline(parts, 10)) == MAX_GROUPS
    assert split_offline(parts[:1], 10) == [(0, 0)]


# --- the recursion, offline ---------------------------------------------------------------------------------


def test_offline_reader_runs_the_recursion_deterministically(bundle: Path) -> None:
    first = run(bundle, reader())
    report = first.synthesis
    assert report is not None and report.mode == "recursive" and report.requested == "auto"
    assert report.items_total == report.items_covered == CONTRACTS and report.not_covered == []
    assert report.evidence_tokens > 4 * BUDGET and "exceeds" in report.why
    assert report.depth >= 1 and report.leaves == len(leaves(report.tree)) >= 4
    assert report.calls["leaf"] == report.leaves and report.calls["answerer"] == 1
    assert report.rounds == report.depth + 2  # decomposer levels, the leaves, the answer
    assert first.status in ("answered", "partial") and first.citations
    assert sorted(leaf_id for leaf in leaves(report.tree) for leaf_id in leaf.evidence_ids) == sorted(ALL)
    assert all(leaf.tokens <= BUDGET for leaf in leaves(report.tree))
    kinds = [e.kind for e in report.trace]
    assert kinds.count("decompose") == report.calls["decomposer"] and kinds.count("leaf") == report.leaves
    assert "coverage" in kinds and [e.seq for e in report.trace] == sorted(e.seq for e in report.trace)
    assert report.trace[0].seq == len(first.navigation.trace)  # type: ignore[union-attr]
    again = run(bundle, reader())
    assert again.synthesis is not None and again.synthesis.tree == report.tree and again.answer == first.answer
    assert set(first.usage) >= {"selector", "judge", "decomposer", "leaf", "answerer"}


def test_auto_keeps_one_prompt_when_the_evidence_fits(bundle: Path) -> None:
    scripted = reader(answer=cite_all)
    result = run(bundle, scripted, evidence_tokens=12_000)
    assert result.synthesis is not None and result.synthesis.mode == "single" and "fits" in result.synthesis.why
    assert result.synthesis.items_covered == result.synthesis.items_total == CONTRACTS
    assert scripted.calls["decompose"] == scripted.calls["leaf"] == 0 and scripted.calls["answer"] == 1


def test_single_cuts_and_says_what_it_did_not_read(bundle: Path) -> None:
    result = run(bundle, reader(answer=cite_all), synthesis="single")
    report = result.synthesis
    assert report is not None and report.mode == "single"
    assert 0 < report.items_covered < report.items_total and len(report.not_covered) == CONTRACTS - report.items_covered
    assert any("did not fit the evidence budget" in c for c in result.caveats)


def test_recursive_on_evidence_that_fits_is_one_leaf(bundle: Path) -> None:
    scripted = reader(leaf=one_fact_each, answer=cite_all)
    result = run(bundle, scripted, evidence_tokens=12_000, synthesis="recursive")
    report = result.synthesis
    assert report is not None and report.mode == "recursive" and report.leaves == 1 and report.depth == 0
    assert scripted.calls["decompose"] == 0 and report.rounds == 2
    assert sorted(c.receipt.evidence_id for c in result.citations) == sorted(ALL)


# --- decomposers that split badly ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        lambda n: [(0, n // 2), (n // 3, n - 1)],  # overlapping
        lambda n: [(0, n // 2), (n // 2 + 1, n + 5)],  # out of range
        lambda n: [(5, 1), (0, n - 1)],  # an empty group, and no real split
        lambda n: [(0, 0), (n - 1, n - 1)],  # items skipped
        lambda n: [(-4, -1), (n, n + 3)],  # nothing in range
    ],
)
def test_bad_splits_are_repaired_none_lost_none_read_twice(bundle: Path, bad: Any) -> None:
    scripted = reader(decompose=lambda q, parts: bad(len(parts)), leaf=one_fact_each, answer=cite_all)
    result = run(bundle, scripted)
    report = result.synthesis
    assert report is not None and report.items_covered == report.items_total == CONTRACTS
    assert sorted(leaf_ids(scripted)) == sorted(ALL)  # every item read once: none lost, none duplicated
    assert report.tree is not None and report.tree.decided_by == "repaired" and report.tree.repairs
    event = next(e for e in report.trace if e.kind == "decompose")
    assert event.data["repairs"] == report.tree.repairs and event.data["sent"] == [list(g) for g in bad(CONTRACTS)]
    assert sorted(c.receipt.evidence_id for c in result.citations) == sorted(ALL)


def test_failed_decomposer_is_split_by_size(bundle: Path) -> None:
    scripted = reader(decompose=Split(failed=True, error="HTTP 500"), leaf=one_fact_each, answer=cite_all)
    report = run(bundle, scripted).synthesis
    assert report is not None and report.tree is not None and report.tree.decided_by == "size"
    assert "the decomposer failed (HTTP 500)" in report.tree.repairs[0]
    assert report.items_covered == CONTRACTS and sorted(leaf_ids(scripted)) == sorted(ALL)


def test_max_depth_forces_a_leaf_read_in_budget_sized_calls(bundle: Path) -> None:
    # Splits off one item per level, so a slice bigger than the budget is left at the depth cap.
    scripted = reader(decompose=lambda q, parts: [(0, 0), (1, len(parts) - 1)], leaf=one_fact_each, answer=cite_all)
    report = run(bundle, scripted).synthesis
    assert report is not None and scripted.calls["decompose"] == MAX_DEPTH
    forced = [leaf for leaf in leaves(report.tree) if leaf.decided_by == "max depth"]
    assert len(forced) == 1 and forced[0].depth == MAX_DEPTH == report.depth
    assert forced[0].tokens > BUDGET and forced[0].calls > 1
    leaf_calls = [items for role, _, items in scripted.requests if role == "leaf"]
    assert all(sum(len(e.text) for e in items) <= BUDGET * 4 for items in leaf_calls)  # every call within budget
    assert report.items_covered == CONTRACTS and sorted(leaf_ids(scripted)) == sorted(ALL)


# --- leaf workers that skip, cite what they were not given, or fail --------------------------------------------


def test_skipped_items_are_dispatched_by_the_coverage_tail(bundle: Path) -> None:
    seen: set[str] = set()

    def skip_once(question: str, evidence: Sequence[Evidence]) -> LeafExtract:
        keep = [e for e in evidence if e.id not in ("c2", "c7") or e.id in seen]  # c2 and c7 skipped once
        seen.update(e.id for e in evidence)
        return one_fact_each(question, keep)

    scripted = reader(leaf=skip_once, answer=cite_all)
    result = run(bundle, scripted)
    report = result.synthesis
    assert report is not None and report.missed_then_covered == ["c2", "c7"]
    assert report.items_covered == CONTRACTS and report.not_covered == [] and result.status == "answered"
    assert report.tail is not None and report.tail.evidence_ids == ["c2", "c7"]
    assert sorted(m for leaf in leaves(report.tree) for m in leaf.missed) == ["c2", "c7"]
    coverage = next(e for e in report.trace if e.kind == "coverage")
    assert coverage.data["missed"] == ["c2", "c7"] and coverage.data["covered"] == CONTRACTS - 2
    assert report.rounds == report.depth + 3  # the tail is one more call on the chain
    assert any("c2" in c.receipt.evidence_id for c in result.citations)


def test_items_skipped_twice_make_the_answer_partial_and_are_named(bundle: Path) -> None:
    def never_c5(question: str, evidence: Sequence[Evidence]) -> LeafExtract:
        return one_fact_each(question, [e for e in evidence if e.id != "c5"])

    result = run(bundle, reader(leaf=never_c5, answer=cite_all))
    report = result.synthesis
    assert report is not None and report.not_covered == ["c5"] and report.items_covered == CONTRACTS - 1
    assert result.status == "partial" and result.reason and "(c5)" in result.reason
    assert "(c5)" in result.answer.splitlines()[-1]
    assert any("1 of 12 evidence items were not read" in c for c in result.caveats)


def test_citations_outside_the_slice_never_reach_the_answer(bundle: Path) -> None:
    def foreign(question: str, evidence: Sequence[Evidence]) -> LeafExtract:
        facts = [Fact(text=f"{e.title} ends on notice.", cited=[e.id, "c99", "hr/secret"]) for e in evidence]
        facts.append(
            Fact(text="An invented fact from another slice.", cited=["c1" if evidence[0].id != "c1" else "c12"])
        )
        return LeafExtract(facts=facts, checked=[e.id for e in evidence])

    seen: list[Evidence] = []

    def answer(question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        seen.extend(evidence)
        return DraftAnswer(text="All terminable.", cited=[e.id for e in evidence] + ["c99"])

    scripted = reader(leaf=foreign, answer=answer)
    result = run(bundle, scripted)
    report = result.synthesis
    assert report is not None and report.items_covered == CONTRACTS
    assert all("invented" not in e.text for e in seen)  # a fact citing only another slice's id is dropped
    assert sorted(e.id for e in seen) == sorted(ALL)
    dropped = [d for leaf in leaves(report.tree) for d in leaf.dropped_citations]
    assert "c99" in dropped and "hr/secret" in dropped
    assert all(c.receipt.evidence_id in ALL for c in result.citations)
    assert any("outside the slice" in c for c in result.caveats)
    assert any("'c99'" in c and "not in the evidence" in c for c in result.caveats)


def test_a_failed_leaf_is_retried_once(bundle: Path) -> None:
    failures = {"left": 1}

    def flaky(question: str, evidence: Sequence[Evidence]) -> LeafExtract:
        if failures["left"] and any(e.id == "c4" for e in evidence):
            failures["left"] -= 1
            return LeafExtract(failed=True, error="HTTP 503")
        return one_fact_each(question, evidence)

    scripted = reader(leaf=flaky, answer=cite_all)
    report = run(bundle, scripted).synthesis
    assert report is not None and report.items_covered == CONTRACTS and report.not_covered == []
    retried = [leaf for leaf in leaves(report.tree) if "c4" in leaf.evidence_ids]
    assert retried[0].calls == LEAF_ATTEMPTS and report.calls["leaf"] == report.leaves + 1


def test_a_leaf_failing_twice_leaves_its_items_not_covered_never_silently(bundle: Path) -> None:
    def broken(question: str, evidence: Sequence[Evidence]) -> LeafExtract:
        if any(e.id == "c4" for e in evidence):
            return LeafExtract(failed=True, error="HTTP 503")
        return one_fact_each(question, evidence)

    result = run(bundle, reader(leaf=broken, answer=cite_all))
    report = result.synthesis
    assert report is not None
    failed_leaf = next(leaf for leaf in leaves(report.tree) if "c4" in leaf.evidence_ids)
    assert failed_leaf.failed == failed_leaf.evidence_ids and failed_leaf.calls == LEAF_ATTEMPTS
    assert report.not_covered == failed_leaf.evidence_ids and report.tail is None  # not re-dispatched
    assert result.status == "partial" and all(f"({i})" in (result.reason or "") for i in report.not_covered)
    assert not any(c.receipt.evidence_id in report.not_covered for c in result.citations)


def test_every_leaf_failing_is_a_model_failure(bundle: Path) -> None:
    scripted = reader(leaf=LeafExtract(failed=True, error="HTTP 401 bad key"), answer=cite_all)
    result = run(bundle, scripted)
    assert result.failed and result.status == "abstained" and "HTTP 401 bad key" in (result.reason or "")
    assert scripted.calls["answer"] == 0 and result.synthesis is not None
    assert result.synthesis.items_covered == 0 and len(result.synthesis.not_covered) == CONTRACTS


def test_no_fact_found_abstains_without_an_answer_call(bundle: Path) -> None:
    scripted = reader(leaf=lambda q, ev: LeafExtract(checked=[e.id for e in ev]), answer=cite_all)
    result = run(bundle, scripted)
    assert result.status == "abstained" and not result.failed and scripted.calls["answer"] == 0
    assert result.reason and "read 12 of 12 evidence items and found no fact" in result.reason


def test_uncited_final_answer_still_abstains(bundle: Path) -> None:
    result = run(bundle, reader(leaf=one_fact_each, answer=DraftAnswer(text="Trust me.", cited=[])))
    assert result.status == "abstained" and result.answer == "" and "cited none" in (result.reason or "")


# --- the fan-in -------------------------------------------------------------------------------------------


def test_facts_larger_than_the_budget_are_reduced_by_leaf_workers(bundle: Path) -> None:
    long = "It may be terminated on notice, with every detail of the notice restated at length here. " * 2

    def extract(question: str, evidence: Sequence[Evidence]) -> LeafExtract:
        if all(e.text.startswith(long[:20]) for e in evidence):  # a reduce round: keep every other item's facts
            kept = evidence[::2]
            return LeafExtract(
                facts=[Fact(text="Terminable.", cited=[e.id]) for e in kept], checked=[e.id for e in evidence]
            )
        return LeafExtract(facts=[Fact(text=long, cited=[e.id]) for e in evidence], checked=[e.id for e in evidence])

    seen: list[Evidence] = []

    def answer(question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        seen.extend(evidence)
        return cite_all(question, evidence)

    result = run(bundle, reader(leaf=extract, answer=answer))
    report = result.synthesis
    assert report is not None and report.reduce_rounds >= 1
    assert sum(len(e.text) for e in seen) <= BUDGET * 4
    assert [e.kind for e in report.trace].count("reduce") == report.reduce_rounds


def test_reduce_workers_that_skip_or_fail_lose_no_facts(bundle: Path) -> None:
    def extract(question: str, evidence: Sequence[Evidence]) -> LeafExtract:
        if all(e.text.startswith("Fact of") for e in evidence):
            return LeafExtract(failed=True, error="reduce worker down")
        return LeafExtract(
            facts=[Fact(text=f"Fact of {e.id}: " + "x " * 80, cited=[e.id]) for e in evidence],
            checked=[e.id for e in evidence],
        )

    seen: list[Evidence] = []

    def answer(question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        seen.extend(evidence)
        return cite_all(question, evidence)

    result = run(bundle, reader(leaf=extract, answer=answer))
    report = result.synthesis
    assert report is not None and report.reduce_rounds == 1  # no progress: stop, never loop
    left = next(c for c in result.caveats if "did not fit the answer prompt" in c)
    named = [i for i in ALL if f"{i}," in left + "," or f"{i}." in left]
    assert sorted([e.id for e in seen] + named) == sorted(ALL)  # every item's facts: given or named


def test_contract_facts_reach_the_answer_beside_the_reduced_facts(bundle: Path) -> None:
    contract = {
        "version": 1,
        "facts": [
            {
                "name": "notice_days",
                "type": "number",
                "expect": {"equals": 30},
                "locate": {"concept": "g1/contract-03", "regex": r"on (\d+) days"},
            }
        ],
    }
    seen: list[Evidence] = []

    def answer(question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        seen.extend(evidence)
        return DraftAnswer(text="Contract 3 needs 30 days.", cited=["f1", "c4"])

    result = run(
        bundle, reader(leaf=lambda q, ev: LeafExtract(checked=[e.id for e in ev]), answer=answer), contract=contract
    )
    assert result.synthesis is not None and result.synthesis.mode == "recursive"
    assert [e.id for e in seen] == ["f1"]  # no leaf fact, yet the contract's fact is evidence: the answerer runs
    assert [c.receipt.evidence_id for c in result.citations] == ["f1"] and result.typed_fact_guarantee


# --- parallel levels, the load assertion, the surfaces ------------------------------------------------------


def test_levels_run_in_parallel(bundle: Path) -> None:
    scripted = reader(leaf=one_fact_each, answer=cite_all, latency={"leaf": 0.05, "decompose": 0.05})
    report = run(bundle, scripted).synthesis
    assert report is not None and scripted.max_in_flight >= report.leaves // 2
    assert report.rounds == report.depth + 2


def test_the_load_completeness_assertion(bundle: Path) -> None:
    opened = Bundle.open(bundle)
    nav = run(bundle, reader()).navigation
    assert nav is not None
    loaded = load_evidence(opened, nav.shortlist, item_tokens=BUDGET)
    assert len(loaded.items) == CONTRACTS
    short = GatheredEvidence(items=loaded.items[:-1], evidence_tokens=BUDGET)
    with pytest.raises(BundleError, match=r"evidence load incomplete: 11 of 12 .* missing g3/contract-11.md"):
        assert_loaded(nav.shortlist, short)
    twice = GatheredEvidence(items=[*loaded.items[:-1], loaded.items[0]], evidence_tokens=BUDGET)
    with pytest.raises(BundleError, match="evidence load incomplete"):
        assert_loaded(nav.shortlist, twice)


def test_unreadable_items_count_as_not_covered(bundle: Path) -> None:
    opened = Bundle.open(bundle)
    judged = {"done": False}
    read = opened.concept

    def concept(ref: str) -> Any:  # the file breaks after it was judged, before the answer loads it
        if judged["done"] and "contract-01" in ref:
            raise BundleError("frontmatter is not YAML", path="g0/contract-01.md", line=2)
        return read(ref)

    def judge(question: str, docs: Sequence[Any]) -> list[bool]:
        judged["done"] = True
        return [True] * len(docs)

    opened.concept = concept  # type: ignore[method-assign]
    scripted = ScriptedReader(
        select=lambda q, offers: [o.index for o in offers], judge=judge, leaf=one_fact_each, answer=cite_all
    )
    result = ask(opened, Q, reader=scripted, budgets={"max_shortlist": 50}, evidence_tokens=BUDGET)
    report = result.synthesis
    assert report is not None and report.not_covered == ["g0/contract-01.md"]
    assert report.items_total == CONTRACTS and report.items_covered == CONTRACTS - 1
    assert result.status == "partial" and "g0/contract-01.md" in (result.reason or "")
    assert any("could not be read for the answer" in c for c in result.caveats)


def test_bad_mode_and_a_reader_without_the_roles(bundle: Path) -> None:
    with pytest.raises(ConfigError, match="synthesis must be one of"):
        run(bundle, reader(), synthesis="sometimes")

    class Bare:  # only the three core roles
        def __init__(self) -> None:
            self.inner = reader(answer=cite_all)
            self.name = "bare"

        async def select(self, q: str, s: Any) -> Any:
            return await self.inner.select(q, s)

        async def judge(self, q: str, d: Any) -> Any:
            return await self.inner.judge(q, d)

        async def answer(self, q: str, e: Any) -> Any:
            return await self.inner.answer(q, e)

    with pytest.raises(ConfigError, match="no decomposer and leaf roles"):
        ask(
            bundle,
            Q,
            reader=Bare(),
            budgets={"max_shortlist": 50},
            evidence_tokens=BUDGET,  # type: ignore[arg-type]
            synthesis="recursive",
        )
    result = ask(bundle, Q, reader=Bare(), budgets={"max_shortlist": 50}, evidence_tokens=BUDGET)  # type: ignore[arg-type]
    assert result.synthesis is not None and result.synthesis.mode == "single"
    assert "cannot synthesize recursively" in result.synthesis.why


def test_cli_synthesis_option_json_block_tree_and_trace(
    bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ask_cli, "reader_from_options", lambda **kw: reader())
    trace = tmp_path / "ask.jsonl"
    result = CliRunner().invoke(
        main,
        [
            "ask",
            str(bundle),
            Q,
            "--evidence-tokens",
            str(BUDGET),
            "--max-shortlist",
            "50",
            "--synthesis",
            "recursive",
            "--json",
            "--trace",
            str(trace),
        ],
    )
    assert result.exit_code == 0, result.stderr
    block = json.loads(result.stdout)["synthesis"]
    assert block["mode"] == "recursive" and block["items_covered"] == block["items_total"] == CONTRACTS
    assert set(block) >= {"depth", "leaves", "missed_then_covered", "calls", "tree", "rounds"}
    assert "r  items 1-12" in result.stderr and "coverage: 12 of 12 items read" in result.stderr
    kinds = [json.loads(line)["kind"] for line in trace.read_text().splitlines()]
    assert {"collected", "verdict", "decompose", "leaf", "coverage"} <= set(kinds)
    assert kinds.index("decompose") > max(i for i, k in enumerate(kinds) if k == "verdict")
    human = CliRunner().invoke(
        main, ["ask", str(bundle), Q, "--evidence-tokens", str(BUDGET), "--max-shortlist", "50", "--quiet"]
    )
    assert "Synthesis\n- Recursive synthesis read 12 of 12 evidence items" in human.stdout and human.stderr == ""
    bad = CliRunner().invoke(main, ["ask", str(bundle), Q, "--synthesis", "sometimes"])
    assert bad.exit_code == 2


def test_the_tree_in_docs_is_the_tree_of_a_real_run() -> None:
    repo = Path(__file__).resolve().parents[1]
    doc = (repo / "docs" / "ask.md").read_text(encoding="utf-8")
    shown = doc.split("stderr carries the decomposition tree")[1].split("```\n")[1].rstrip("\n")
    result = ask(
        repo / "bundles" / "harborview",
        "Which policies require manager approval?",
        budgets={"max_shortlist": 40},
        evidence_tokens=800,
    )
    assert result.synthesis is not None and render_tree(result.synthesis) == shown


def test_python_api_takes_the_option_inside_a_loop(bundle: Path) -> None:
    from okf.answer import ask_async

    async def inside() -> AnswerResult:
        return await ask_async(
            bundle, Q, reader=reader(), budgets={"max_shortlist": 50}, evidence_tokens=BUDGET, synthesis="recursive"
        )

    result = asyncio.run(inside())
    assert result.synthesis is not None and result.synthesis.items_covered == CONTRACTS


# --- the OpenAI path: the same recursion over real HTTP, with faults -------------------------------------------


def llm(server: LoopbackServer) -> LLMReader:
    # No fault here is a timeout: a generous deadline keeps a loaded machine from adding one (a leaf call past
    # 2 s once counted a third failure).
    return LLMReader(ReaderConfig(model="m", base_url=server.base_url, timeout=30.0, max_retries=0, cache=False))


def walk_everything(request: dict[str, Any]) -> Any:
    """The offline decisions, except that navigation keeps every signpost and finds every body relevant."""
    payload = request_payload(request)
    if payload.get("task") == "select":
        return {"keep": [{"index": s["index"], "reason": "all"} for s in payload["signposts"]]}
    if payload.get("task") == "judge":
        return {"verdicts": [{"index": d["index"], "relevant": True, "reason": "all"} for d in payload["documents"]]}
    return offline_rule()(request)


def tasks(server: LoopbackServer) -> list[str]:
    return [request_payload(r.body or {}).get("task", "?") for r in server.completions]


def test_llm_reader_runs_the_same_recursion_over_http(bundle: Path) -> None:
    offline = run(bundle, reader(), synthesis="recursive").synthesis
    with LoopbackServer(rule=walk_everything) as server:
        result = ask(bundle, Q, reader=llm(server), budgets={"max_shortlist": 50}, evidence_tokens=BUDGET)
    report = result.synthesis
    assert report is not None and offline is not None and report.tree == offline.tree
    assert report.items_covered == CONTRACTS and result.citations
    sent = tasks(server)
    assert sent.count("decompose") == report.calls["decomposer"] and sent.count("leaf") == report.calls["leaf"]
    assert sent[-1] == "answer" and result.usage["leaf"].calls == report.calls["leaf"]
    assert result.usage["decomposer"].prompt_tokens > 0
    leaf_request = next(r for r in server.completions if request_payload(r.body or {}).get("task") == "leaf")
    assert leaf_request.body and '"checked"' in leaf_request.body["messages"][0]["content"]  # the leaf prompt


def test_llm_faults_are_repaired_retried_or_reported(bundle: Path) -> None:
    base = walk_everything
    state = {"decomposed": 0, "no_checked": 0}

    def rule(request: dict[str, Any]) -> Any:
        payload = request_payload(request)
        reply = base(request)
        if payload.get("task") == "decompose" and not state["decomposed"]:
            state["decomposed"] += 1
            n = len(payload["items"])
            return {"groups": [[0, n // 2], [n // 3, n + 4]]}  # overlapping and out of range: repaired in code
        if payload.get("task") == "leaf":
            ids = [e["id"] for e in payload["evidence"]]
            if "c3" in ids:
                return Reply.server_error()  # fails, is retried once, then reported as not covered
            if "c5" in ids and not state["no_checked"]:
                state["no_checked"] += 1
                return {"facts": reply["facts"]}  # no "checked": a repair retry asks again
            reply["facts"].append({"fact": "A fact from elsewhere.", "cited": ["c99"]})
        return reply

    with LoopbackServer(rule=rule) as server:
        result = ask(bundle, Q, reader=llm(server), budgets={"max_shortlist": 50}, evidence_tokens=BUDGET)
    report = result.synthesis
    assert report is not None and report.tree is not None
    assert report.tree.decided_by == "repaired" and any("clipped" in r for r in report.tree.repairs)
    assert report.not_covered == ["c3"] and result.status == "partial" and "(c3)" in (result.reason or "")
    assert result.usage["leaf"].retries >= 1 and result.usage["leaf"].failures == LEAF_ATTEMPTS
    assert any("outside the slice" in c and "'c99'" in c for c in result.caveats)
    assert all(c.receipt.evidence_id != "c3" for c in result.citations)
    assert tasks(server).count("leaf") == report.calls["leaf"] + 1  # + the repair of the reply without "checked"
