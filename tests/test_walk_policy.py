"""The walk's policy: graded shortlists, best-first reading by the selector's grades, the body budget shared
across directories, and decisions that do not depend on batching or concurrency."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from builders import concept, write_files

from okf.compile import CompileOptions, compile_bundle
from okf.eval import EvalQuestion, GoldSpan, evaluate
from okf.navigator import navigate as navigate_any
from okf.readers import OfflineReader
from okf.readers.base import SignpostOffer
from okf.testing import ScriptedReader


def navigate(*args, **kwargs):  # type: ignore[no-untyped-def]
    """The walk itself, one question as asked (orchestrated angles: tests/test_orchestrate.py)."""
    return navigate_any(*args, angles="off", **kwargs)


def judged(result: object) -> list[str]:
    return [e.path for e in result.trace if e.kind == "verdict"]  # type: ignore[attr-defined]


def test_partial_entries_give_way_to_strong_ones_and_do_not_end_the_walk(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", {f"d/c{i}.md": concept(f"C{i}") for i in range(6)})
    grades = {
        "d/c0": "partial",
        "d/c1": "partial",
        "d/c2": "no",
        "d/c3": "relevant",
        "d/c4": "relevant",
        "d/c5": "partial",
    }
    result = navigate(
        root, "q", reader=ScriptedReader(select=["d/"], judge=grades), budgets={"max_shortlist": 2, "batch_size": 1}
    )
    # Two partial entries filled the shortlist early: the walk went on and strong evidence took their place.
    assert [(e.path, e.grade) for e in result.shortlist] == [("d/c3.md", "relevant"), ("d/c4.md", "relevant")]
    assert result.stopped_by != "shortlist" or len(judged(result)) >= 5


def test_partial_evidence_without_room_is_left_out_from_the_least_sure_places(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "b",
        {**{f"a/c{i}.md": concept(f"A{i}") for i in range(4)}, **{f"z/c{i}.md": concept(f"Z{i}") for i in range(3)}},
    )
    reader = ScriptedReader(
        select=lambda question, offers: [(o.path, "weak" if o.path == "a/" else "strong") for o in offers],
        judge={f"{d}/c{i}": "partial" for d in "az" for i in range(4)},
    )
    result = navigate(root, "q", reader=reader, budgets={"max_shortlist": 12})
    # Seven partial entries, room for six: the one left out is of a/, one weak choice away, not z/'s last
    # (later in the tree but chosen strongly); those kept are shown in walk order.
    assert [e.path for e in result.shortlist] == [
        "a/c0.md",
        "a/c1.md",
        "a/c2.md",
        "z/c0.md",
        "z/c1.md",
        "z/c2.md",
    ]


def test_partial_entries_fill_in_only_while_strong_evidence_is_scarce(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", {f"d/c{i}.md": concept(f"C{i}") for i in range(4)})
    grades = {"d/c0": "partial", "d/c1": "relevant", "d/c2": "partial", "d/c3": "partial"}
    result = navigate(root, "q", reader=ScriptedReader(select=["d/"], judge=grades), budgets={"max_shortlist": 6})
    # Partial entries fill up to half the shortlist (3 of 6), two places fewer per relevant entry.
    assert [(e.path, e.grade) for e in result.shortlist] == [("d/c1.md", "relevant"), ("d/c0.md", "partial")]
    alone = navigate(
        root,
        "q",
        reader=ScriptedReader(select=["d/"], judge={**grades, "d/c1": "partial"}),
        budgets={"max_shortlist": 6},
    )
    assert [e.path for e in alone.shortlist] == ["d/c0.md", "d/c1.md", "d/c2.md"]


def test_what_strong_choices_hold_is_read_before_what_weak_ones_hold(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "b",
        {
            **{f"weak/w{i}.md": concept(f"W{i}") for i in range(3)},
            **{f"strong/s{i}.md": concept(f"S{i}") for i in range(3)},
        },
    )
    reader = ScriptedReader(select=[("weak/", "weak"), ("strong/", "strong")], judge={})
    result = navigate(root, "q", reader=reader, budgets={"max_bodies": 3})
    # The weak directory was not even listed while the strong one had work; the budget went to the strong one.
    assert judged(result) == ["strong/s0.md", "strong/s1.md", "strong/s2.md"]
    assert not any(e.kind == "collected" and e.path == "weak/" for e in result.trace)
    everything = navigate(root, "q", reader=reader)
    assert judged(everything)[3:] == ["weak/w0.md", "weak/w1.md", "weak/w2.md"]


def test_the_body_budget_is_shared_across_the_directories_opened(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "b",
        {
            **{f"big/b{i}.md": concept(f"B{i}") for i in range(20)},
            **{f"small/s{i}.md": concept(f"S{i}") for i in range(2)},
        },
    )
    result = navigate(
        root,
        "q",
        reader=ScriptedReader(select=["big/", "small/"], judge={}),
        budgets={"max_bodies": 6, "batch_size": 6},
    )
    # Round robin: one big directory cannot spend the whole budget before the small one is read.
    assert {"small/s0.md", "small/s1.md"} <= set(judged(result))


def test_words_read_and_handed_on_are_counted(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "b",
        {
            "index.md": "# B\n\n* [Docs](d/index.md) - four words of description\n",
            "d/index.md": "# Docs\n\n* [A](a.md) - a\n",
            "d/a.md": concept("A", "one two three four five", heading=False),
        },
    )
    result = navigate(root, "q", reader=ScriptedReader(select=["d/"], judge={"d/a": "relevant"}))
    assert result.stats.words_signposts == 1 + 4  # the title and the description offered
    assert result.stats.words_bodies == 5 and result.stats.words_shortlist == 5


QUESTIONS = [
    ("pto", "How many vacation days do new hires get each year?", "handbook.md"),
    ("law", "Which state's law governs the supply agreement?", "supply.txt"),
    ("refund", "Who approves refunds over five hundred dollars?", "finance.md"),
]


def test_shortlists_do_not_depend_on_batch_size_or_concurrency(tmp_path: Path) -> None:
    src = write_files(
        tmp_path / "src",
        {
            "handbook.md": "# Handbook\n\n## Vacation\n\nNew hires get fifteen vacation days each year.\n\n"
            "## Sick leave\n\nSick days accrue monthly.\n\n## Holidays\n\nTen holidays a year.\n",
            "supply.txt": "SUPPLY AGREEMENT\n\n1. Term. The term is two years.\n\n2. Governing Law. This agreement "
            "is governed by the law of the State of Oregon.\n\n3. Notices. Notices are in writing.\n",
            "finance.md": "# Finance\n\n## Refunds\n\nRefunds over five hundred dollars are approved by the finance "
            "director.\n\n## Invoices\n\nInvoices are paid in thirty days.\n",
            **{
                f"filler/note-{i}.md": f"# Note {i}\n\nA note about day {i} of the year and its vacation plans.\n"
                for i in range(30)
            },
        },
    )
    bundle = tmp_path / "bundle"
    compile_bundle([src], bundle, options=CompileOptions(min_words=2))
    questions = [
        EvalQuestion(id=i, question=q, gold=[GoldSpan(source=s, start_line=1, end_line=99)]) for i, q, s in QUESTIONS
    ]
    one = evaluate(bundle, questions, reader=OfflineReader(), budgets={"batch_size": 1}, concurrency=1)
    many = evaluate(bundle, questions, reader=OfflineReader(), budgets={"batch_size": 8}, concurrency=3)
    assert [r.shortlist for r in one.results] == [r.shortlist for r in many.results]
    assert all(r.shortlist for r in one.results)


def _policies(root: Path) -> Path:
    """A root listing pointing at one folder of ten policies; the one about vacation for new hires is last."""
    topics = ["expenses", "travel", "laptops", "parking", "badges", "meetings", "printing", "security", "email"]
    files = {
        f"policies/p{i}.md": concept(f"{t.title()} policy", f"Rules for {t} at the office.", description=f"{t} rules")
        for i, t in enumerate(topics)
    }
    files["policies/p9.md"] = concept(
        "Vacation policy", "New hires get fifteen vacation days each year.", description="vacation days for new hires"
    )
    return write_files(root, files)


class _ListingOrderReader(OfflineReader):
    """The offline reader without concept ordering: concepts are read in listing order."""

    orders_concepts = False


def test_concepts_whose_signposts_speak_to_the_question_are_read_first(tmp_path: Path) -> None:
    root = _policies(tmp_path / "b")
    question = "How many vacation days do new hires get?"
    first = navigate(root, question, reader=OfflineReader(), budgets={"max_bodies": 2, "batch_size": 1})
    assert judged(first)[0] == "policies/p9.md"
    assert [e.path for e in first.shortlist] == ["policies/p9.md"]
    grades = next(e.data["first"] for e in first.trace if e.kind == "collected" and e.path == "policies/")
    assert grades == {"policies/p9.md": "strong"}
    # In listing order the same budget never reaches it.
    plain = navigate(root, question, reader=_ListingOrderReader(), budgets={"max_bodies": 2, "batch_size": 1})
    assert "policies/p9.md" not in judged(plain) and not plain.shortlist
    # The order only decides what is read first: with room for all, every concept is still judged, and the
    # concept entries the reader read count among the signpost words.
    everything = navigate(root, question, reader=OfflineReader())
    assert sorted(judged(everything)) == sorted(f"policies/p{i}.md" for i in range(10))
    listing_order = navigate(root, question, reader=_ListingOrderReader())
    assert everything.stats.words_signposts > listing_order.stats.words_signposts


class _OrderingScript(ScriptedReader):
    """A scripted reader that also grades concept entries (as the offline reader does)."""

    orders_concepts = True


def _a_and_x(tmp_path: Path, concepts: int) -> Path:
    """A bundle of a/ (``concepts`` concepts) and x/ (the answer and another concept)."""
    return write_files(
        tmp_path / "b",
        {
            **{f"a/c{i}.md": concept(f"A{i}") for i in range(concepts)},
            "x/answer.md": concept("Answer"),
            "x/other.md": concept("Other"),
        },
    )


def _choosing(chosen: dict[str, str]) -> Any:
    """A selector keeping the offers named in ``chosen``, at their grades."""

    def select(question: str, offers: list[SignpostOffer]) -> list[tuple[str, str]]:
        return [(o.path, chosen[o.path]) for o in offers if o.path in chosen]

    return select


def test_a_directory_chosen_over_passed_over_concepts_is_opened_before_they_are_read(tmp_path: Path) -> None:
    root = _a_and_x(tmp_path, 8)
    select = _choosing({"a/": "strong", "x/": "weak", "a/c0.md": "weak", "x/answer.md": "strong"})
    reader = _OrderingScript(select=select, judge={"x/answer": "relevant"})
    result = navigate(root, "q", reader=reader, budgets={"max_bodies": 3, "batch_size": 1})
    # The concepts a/'s listing passed over are read at doubt 3 (after faint choices): x/, one weak choice
    # away, is opened before them and what it holds is read first.
    assert judged(result) == ["a/c0.md", "x/answer.md", "a/c1.md"]
    assert [e.path for e in result.shortlist] == ["x/answer.md"]
    # With room for all, every concept of every opened directory is still read.
    everything = navigate(root, "q", reader=reader)
    assert sorted(judged(everything)) == sorted([*(f"a/c{i}.md" for i in range(8)), "x/answer.md", "x/other.md"])


def test_concepts_of_a_listing_whose_entries_say_nothing_are_read_after_chosen_ones(tmp_path: Path) -> None:
    root = _a_and_x(tmp_path, 4)
    select = _choosing({"a/": "strong", "x/": "weak", "x/answer.md": "strong"})  # none of a/'s concepts
    reader = _OrderingScript(select=select, judge={"x/answer": "relevant"})
    result = navigate(root, "q", reader=reader, budgets={"max_bodies": 2, "batch_size": 1})
    # The reader chose none of a/'s concepts: they are read as passed over (doubt 3), after x/'s chosen
    # concept one weak choice away; the old walk read them at a/'s own level, first, and spent the budget.
    assert judged(result) == ["x/answer.md", "a/c0.md"]
    assert collected_first(result, "a/") == {}
    # A reader that orders no concepts reads them all at the directory's own level, in listing order.
    plain = ScriptedReader(select=select, judge={"x/answer": "relevant"})
    assert judged(navigate(root, "q", reader=plain, budgets={"max_bodies": 2, "batch_size": 1})) == [
        "a/c0.md",
        "a/c1.md",
    ]
    # With room for all, every concept of every opened directory is still read.
    everything = navigate(root, "q", reader=reader)
    assert sorted(judged(everything)) == sorted([*(f"a/c{i}.md" for i in range(4)), "x/answer.md", "x/other.md"])


def collected_first(result: object, directory: str) -> object:
    return next(e.data.get("first") for e in result.trace if e.kind == "collected" and e.path == directory)  # type: ignore[attr-defined]


def test_a_stopped_walk_cancels_its_running_work_in_the_order_it_began(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", {f"d{i:02d}/s/c.md": concept(f"C{i}") for i in range(24)})

    async def select(question: str, offers: list[SignpostOffer]) -> list[str]:
        if offers[0].path.count("/") > 1:  # each d??/ asks about its s/: a call the deadline cuts off
            await asyncio.sleep(30)
        return [o.path for o in offers]

    result = navigate(root, "q", reader=ScriptedReader(select=select, judge={}), budgets={"deadline_s": 0.3})
    assert result.stopped_by == "deadline"
    cut = [e.path for e in result.trace if e.kind == "failure"]
    # Cancelled in the order the descents were started (listing order), not in the order of their
    # addresses: the trace, and all that follows from it, is the same run after run.
    assert cut == [f"d{i:02d}/" for i in range(24)]


def test_an_offline_walk_reads_the_corpus_id_in_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _policies(tmp_path / "b")
    threads: list[object] = []
    real = asyncio.to_thread

    async def to_thread(function: Any, *args: Any) -> Any:
        threads.append(function)
        return await real(function, *args)

    monkeypatch.setattr(asyncio, "to_thread", to_thread)
    offline = navigate(root, "How many vacation days do new hires get?", reader=OfflineReader())
    # No thread whose answer arrives when the machine's load decides (it would move when the walk ends
    # among an orchestration's others); a model reader's walk reads it beside its calls.
    assert threads == [] and offline.shortlist
    navigate(root, "q", reader=ScriptedReader(select=["policies/"], judge={}))
    assert len(threads) == 1


def test_the_budget_spend_script_tells_the_kinds_of_concepts_apart(tmp_path: Path) -> None:
    """scripts/budget_spend.py (docs/benchmarks.md, "Concepts no entry speaks for") reads each concept's kind
    from the trace: chosen, passed over beside chosen ones, in a listing none of whose entries was chosen, or
    not ordered."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("budget_spend", Path(__file__).parents[1] / "scripts/budget_spend.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    root = _a_and_x(tmp_path, 2)
    select = _choosing({"a/": "strong", "x/": "weak", "x/answer.md": "strong"})
    ordered = navigate(root, "q", reader=_OrderingScript(select=select, judge={}))
    assert script.kinds_of(ordered.trace) == {
        "a/c0.md": "none chosen",
        "a/c1.md": "none chosen",
        "x/answer.md": "chosen",
        "x/other.md": "passed over",
    }
    plain = navigate(root, "q", reader=ScriptedReader(select=select, judge={}))
    assert set(script.kinds_of(plain.trace).values()) == {"not ordered"}
