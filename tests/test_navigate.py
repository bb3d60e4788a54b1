"""The navigator: directory gating, collection, links, budgets, paging, failures, trust, determinism, concurrency."""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from builders import concept, write_files

from okf.bundle import Bundle
from okf.errors import BundleNotFoundError, ConfigError, NotABundleError
from okf.models import Budgets, NavigationResult
from okf.navigator import make_budgets, navigate_async
from okf.navigator import navigate as navigate_any
from okf.readers.base import Judgement, Selection, Usage, Verdict
from okf.sources import span_sha256
from okf.testing import ScriptedReader


def navigate(*args, **kwargs):  # type: ignore[no-untyped-def]
    """The walk itself, one question as asked (orchestrated angles: tests/test_orchestrate.py)."""
    return navigate_any(*args, angles="off", **kwargs)


def judged(reader: ScriptedReader) -> list[str]:
    """Ids of every document the judge was shown, in request order."""
    return [d.id for role, _, items in reader.requests if role == "judge" for d in items]


def kinds(result: NavigationResult) -> Counter[tuple[str, str | None]]:
    return Counter((e.kind, e.path) for e in result.trace)


def keep(*names: str) -> Any:
    """A selector keeping the offered directories whose path is in ``names``."""
    return lambda question, offers: [o.path for o in offers if o.path in names]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_files(
        tmp_path / "b",
        {
            "index.md": "# Root\n\n* [Intro](intro.md) - the introduction\n* [HR](hr/) - people\n"
            "* [Finance](finance/) - money\n",
            "intro.md": concept("Intro"),
            "hr/leave.md": concept("Leave", "Vacation days: 25. See [pay](../finance/pay.md)."),
            "hr/hiring.md": concept("Hiring"),
            "hr/benefits/health.md": concept("Health"),
            "finance/pay.md": concept("Pay", "Paid monthly. Back to [leave](../hr/leave.md)."),
            "finance/tax.md": concept("Tax"),
        },
    )


def test_only_selected_directories_are_read_and_all_their_concepts_collected(tree: Path) -> None:
    reader = ScriptedReader(select=keep("hr/"), judge={"hr/leave": True})
    result = navigate(tree, "How many vacation days?", reader=reader, budgets={"max_shortlist": 50})
    seen = judged(reader)
    assert sorted(seen) == ["finance/pay", "hr/hiring", "hr/leave", "intro"]  # pay only through the link
    assert not any(s.startswith("finance/tax") for s in seen)
    assert not any(s.startswith("hr/benefits") for s in seen)  # hr/benefits/ offered, not kept
    collected = {e.path: e.data["concepts"] for e in result.trace if e.kind == "collected"}
    assert collected == {"": ["intro.md"], "hr/": ["hr/hiring.md", "hr/leave.md"]}  # synthesized: sorted
    offers = [o for role, _, items in reader.requests if role == "select" for o in items]
    assert all(o.is_dir and o.path.endswith("/") for o in offers)
    assert result.stats.directories_opened == 2
    assert result.stopped_by is None


def test_links_expand_laterally_and_cycles_stop(tree: Path) -> None:
    reader = ScriptedReader(select=keep("hr/"), judge={"hr/leave": True, "finance/pay": True})
    result = navigate(tree, "vacation and pay", reader=reader)
    assert [e.concept_id for e in result.shortlist] == ["hr/leave", "finance/pay"]
    assert [e.via for e in result.shortlist] == ["descent", "link"]
    assert Counter(judged(reader))["hr/leave"] == 1  # pay links back to leave: not judged twice
    links = [(e.path, e.data) for e in result.trace if e.kind == "link"]
    assert ("hr/leave.md", {"target": "finance/pay.md"}) in links
    assert ("finance/pay.md", {"target": "hr/leave.md", "skipped": "already a candidate"}) in links
    assert result.stats.links_followed == 1
    verdicts = {e.path: e.data for e in result.trace if e.kind == "verdict"}
    assert verdicts["finance/pay.md"]["via"] == "link"


def test_broken_external_and_directory_links_are_tolerated_and_traced(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "b",
        {
            "a.md": concept("A", "[gone](missing.md) [web](https://example.com) [dir](sub/) [b](b.md)"),
            "b.md": concept("B"),
            "sub/c.md": concept("C"),
        },
    )
    reader = ScriptedReader(select=[], judge={"a": True})
    result = navigate(root, "a question", reader=reader)
    skipped = {e.data["target"]: e.data.get("skipped") for e in result.trace if e.kind == "link"}
    assert skipped["https://example.com"] == "external"
    assert skipped["b.md"] == "already a candidate"  # from the root: neither followed nor judged twice
    assert any(v == "broken" for v in skipped.values())
    assert any("broken link" in w for w in result.warnings)
    assert "sub/c" not in judged(reader)  # a directory link never opens the directory


def test_bodies_budget_stops_the_walk_and_keeps_what_was_found(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", {f"c{i:02}.md": concept(f"C{i}") for i in range(20)})
    reader = ScriptedReader(judge=lambda q, docs: [True] * len(docs))
    result = navigate(root, "q", reader=reader, budgets={"max_bodies": 5, "batch_size": 2, "max_shortlist": 50})
    assert result.stopped_by == "bodies"
    assert result.stats.bodies_judged == 5 == len(judged(reader))
    assert [e.concept_id for e in result.shortlist] == [f"c{i:02}" for i in range(5)]
    assert next(e for e in result.trace if e.kind == "budget").data == {"stopped_by": "bodies"}


def test_shortlist_budget(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", {f"c{i:02}.md": concept(f"C{i}") for i in range(60)})
    reader = ScriptedReader(judge=lambda q, docs: [True] * len(docs))
    result = navigate(root, "q", reader=reader, budgets={"max_shortlist": 3, "batch_size": 2})
    assert result.stopped_by == "shortlist"
    assert [e.concept_id for e in result.shortlist] == ["c00", "c01", "c02"]
    assert result.stats.bodies_judged < 60  # the batches already in flight, no more


def chain(tmp_path: Path) -> Path:
    return write_files(
        tmp_path / "b",
        {"top.md": concept("Top"), "a/x.md": concept("X"), "a/b/y.md": concept("Y"), "a/b/c/z.md": concept("Z")},
    )


def test_depth_budget_reported_only_when_it_kept_a_selected_directory_closed(tmp_path: Path) -> None:
    root = chain(tmp_path)
    reader = ScriptedReader(select=lambda q, offers: [o.index for o in offers], judge={})
    result = navigate(root, "q", reader=reader, budgets={"max_depth": 1})
    assert result.stopped_by == "depth"
    assert sorted(judged(reader)) == ["a/x", "top"]
    assert navigate(root, "q", reader=reader, budgets={"max_depth": 3}).stopped_by is None
    closed = ScriptedReader(select=lambda q, offers: [o.index for o in offers if o.path == "a/"], judge={})
    assert navigate(root, "q", reader=closed, budgets={"max_depth": 1}).stopped_by is None


def test_calls_budget(tmp_path: Path) -> None:
    root = chain(tmp_path)
    reader = ScriptedReader(select=lambda q, offers: [o.index for o in offers], judge={})
    result = navigate(root, "q", reader=reader, budgets={"max_calls": 2, "batch_size": 1})
    assert result.stopped_by == "calls"
    assert reader.total_calls <= 2
    assert result.stats.total.calls <= 2


def test_tokens_budget(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", {f"c{i:02}.md": concept(f"C{i}") for i in range(20)})
    reader = ScriptedReader(judge=lambda q, docs: [True] * len(docs), tokens_per_call=100)
    result = navigate(root, "q", reader=reader, budgets={"max_tokens": 250, "batch_size": 1, "max_shortlist": 50})
    assert result.stopped_by == "tokens"
    assert 3 <= reader.total_calls < 20
    assert result.shortlist  # what was found is kept


def test_deadline_ends_the_walk_and_cancels_in_flight_calls(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", {"c.md": concept("C"), "d/e.md": concept("E")})
    reader = ScriptedReader(select=lambda q, offers: [0], judge={"c": True}, latency={"select": 5.0})
    start = time.monotonic()
    result = navigate(root, "q", reader=reader, budgets={"deadline_s": 0.2})
    assert time.monotonic() - start < 2.0
    assert result.stopped_by == "deadline"
    assert [e.concept_id for e in result.shortlist] == ["c"]  # judged while the selector was still thinking
    assert reader.in_flight == 0  # the slow selector call was cancelled, not abandoned


def test_wide_directory_is_offered_in_pages(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", {f"d{i:03}/c.md": concept(f"C{i}") for i in range(130)})
    wanted = {"d005/", "d070/", "d129/"}
    reader = ScriptedReader(select=lambda q, offers: [o.path for o in offers if o.path in wanted], judge={})
    result = navigate(root, "q", reader=reader)
    offered = [e for e in result.trace if e.kind == "offered"]
    assert [e.data["page"] for e in offered] == [1, 2, 3]
    assert [len(e.data["signposts"]) for e in offered] == [60, 60, 10]
    assert all(len(items) <= 60 for role, _, items in reader.requests if role == "select")
    selected = [e for e in result.trace if e.kind == "selected" and e.path == ""]
    assert selected[0].data["kept"] == ["d005/", "d070/", "d129/"]
    assert sorted(judged(reader)) == ["d005/c", "d070/c", "d129/c"]
    assert result.stats.signposts_offered == 130


def test_failures_are_recorded_never_taken_as_not_relevant(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", {"a.md": concept("A"), "b.md": concept("B"), "d/c.md": concept("C")})
    reader = ScriptedReader(
        select=Selection(failed=True, error="model said nonsense"),
        judge=lambda q, docs: [None if d.id == "a" else True for d in docs],
    )
    result = navigate(root, "q", reader=reader)
    verdict_a = next(e for e in result.trace if e.kind == "verdict" and e.path == "a.md")
    assert verdict_a.data["failed"] is True and verdict_a.data["relevant"] is None
    failures = [e for e in result.trace if e.kind == "failure"]
    assert {e.data["role"] for e in failures} == {"selector", "judge"}
    assert result.stats.failures == 2
    assert [e.concept_id for e in result.shortlist] == ["b"]
    assert any("selector failed" in w for w in result.warnings)
    assert any("failed" in w and "incomplete" in w for w in result.warnings)


def test_short_or_mismatched_judgement_counts_as_failure(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", {"a.md": concept("A"), "b.md": concept("B")})
    reader = ScriptedReader(judge=Judgement(verdicts=[Verdict(id="zzz", relevant=True)], usage=Usage(calls=1)))
    result = navigate(root, "q", reader=reader)
    assert result.shortlist == []
    assert result.stats.failures == 2


def test_deprecated_and_stale_concepts_are_flagged(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "b",
        {
            "old.md": concept("Old", status="deprecated"),
            "stale.md": concept("Stale", stale_after="2001-01-01"),
            "fine.md": concept("Fine", verified="[{by: 'human:ann', at: 2024-01-01}]"),
        },
    )
    reader = ScriptedReader(judge=lambda q, docs: [True] * len(docs))
    result = navigate(root, "q", reader=reader)
    by_id = {e.concept_id: e for e in result.shortlist}
    assert by_id["old"].status == "deprecated"
    assert by_id["stale"].stale is True and by_id["fine"].stale is False
    assert by_id["fine"].trust_tier == "human-reviewed" and by_id["old"].trust_tier == "unverified"
    assert any("old.md" in w and "deprecated" in w for w in result.warnings)
    assert any("stale.md" in w and "stale" in w for w in result.warnings)


def test_unparseable_frontmatter_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", {"bad.md": "---\ntitle: [unclosed\n---\nbody\n", "good.md": concept("Good")})
    reader = ScriptedReader(judge=lambda q, docs: [True] * len(docs))
    result = navigate(root, "q", reader=reader)
    assert "good" in [e.concept_id for e in result.shortlist]
    assert "bad" not in judged(reader) or any("bad.md" in w for w in result.warnings)


def test_receipts_point_at_the_exact_lines_judged(tmp_path: Path) -> None:
    long_body = "\n".join(f"line {i} of the policy" for i in range(100))
    root = write_files(tmp_path / "b", {"long.md": concept("Long", long_body), "short.md": concept("Short")})
    reader = ScriptedReader(judge=lambda q, docs: [True] * len(docs))
    result = navigate(root, "q", reader=reader, budgets={"body_chars": 300})
    assert [e.receipt.evidence_id for e in result.shortlist] == ["c1", "c2"]
    for entry in result.shortlist:
        text = (root / entry.path).read_text(encoding="utf-8")
        r = entry.receipt
        assert span_sha256(text, r.start_line, r.end_line) == r.sha256
        assert "text" not in r.model_dump()
    long_receipt = result.shortlist[0].receipt
    assert long_receipt.truncated and not result.shortlist[1].receipt.truncated
    shown = next(d for role, _, items in reader.requests if role == "judge" for d in items if d.id == "long")
    assert len(shown.text) <= 300 and shown.sha256 == long_receipt.sha256


def test_same_input_same_result_whatever_the_timing(tree: Path) -> None:
    def run(seed: int) -> NavigationResult:
        rng = random.Random(seed)

        async def select(q: str, offers: Any) -> list[int]:
            await asyncio.sleep(rng.random() * 0.02)
            return [o.index for o in offers]

        async def judge(q: str, docs: Any) -> list[bool]:
            await asyncio.sleep(rng.random() * 0.02)
            return [d.id != "intro" for d in docs]

        return navigate(
            tree, "q", reader=ScriptedReader(select=select, judge=judge), budgets={"batch_size": 1, "max_shortlist": 50}
        )

    first, second = run(1), run(2)
    assert [e.concept_id for e in first.shortlist] == [e.concept_id for e in second.shortlist]
    # Walk order: hr/ (its concepts, leave's link to pay, then hr/benefits/), then finance/.
    assert [e.concept_id for e in first.shortlist] == [
        "hr/hiring",
        "hr/leave",
        "finance/pay",
        "hr/benefits/health",
        "finance/tax",
    ]
    assert kinds(first) == kinds(second)


def test_sibling_directories_are_descended_concurrently(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", {"a/x/c.md": concept("C"), "b/y/d.md": concept("D"), "top.md": concept("T")})
    spans: dict[str, tuple[float, float]] = {}

    async def select(q: str, offers: Any) -> list[int]:
        start = time.monotonic()
        await asyncio.sleep(0.1)
        spans[offers[0].path] = (start, time.monotonic())
        return [o.index for o in offers]

    reader = ScriptedReader(select=select, judge={})
    result = navigate(root, "q", reader=reader)
    (a0, a1), (b0, b1) = spans["a/x/"], spans["b/y/"]
    assert a0 < b1 and b0 < a1  # the two sibling selector calls overlapped in time
    assert result.stats.seconds < 0.35  # root + one concurrent level + judging, not root + a + b in series
    # Judging began while descent was still going: the root's concept was judged before a/ was collected.
    order = [(e.kind, e.path) for e in result.trace]
    assert order.index(("verdict", "top.md")) < order.index(("collected", "a/x/"))


def test_bad_inputs_raise_clear_errors(tree: Path, tmp_path: Path) -> None:
    reader = ScriptedReader()
    with pytest.raises(BundleNotFoundError):
        navigate(tmp_path / "nope", "q", reader=reader)
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(NotABundleError):
        navigate(tmp_path / "file.txt", "q", reader=reader)
    with pytest.raises(ConfigError, match="question is empty"):
        navigate(tree, "   ", reader=reader)
    with pytest.raises(ConfigError, match="max_bodies must be at least 1"):
        navigate(tree, "q", reader=reader, budgets={"max_bodies": 0})
    with pytest.raises(ConfigError, match="unknown budget"):
        make_budgets({"max_bodys": 3})
    assert make_budgets(Budgets(), max_depth=2).max_depth == 2

    async def inside() -> None:
        with pytest.raises(ConfigError, match="navigate_async"):
            navigate(tree, "q", reader=reader)
        result = await navigate_async(Bundle.open(tree), "q", reader=reader)
        assert result.reader == "scripted"

    asyncio.run(inside())


def test_result_identifies_bundle_reader_and_usage(tree: Path) -> None:
    reader = ScriptedReader(select=keep("hr/"), judge={"hr/leave": True}, tokens_per_call=10)
    events: list[str] = []
    result = navigate(tree, "q", reader=reader, progress=lambda e: events.append(e.kind))
    assert result.corpus_id is None  # no compile manifest: not computed (see test_navigate_batching)
    assert result.reader == "scripted"
    assert result.stats.usage["selector"].calls == reader.calls["select"]
    assert result.stats.usage["judge"].calls == reader.calls["judge"]
    assert result.stats.total.tokens == 10 * reader.total_calls
    assert events == [e.kind for e in result.trace]
    assert [e.seq for e in result.trace] == list(range(len(result.trace)))
    assert all(b.t >= a.t for a, b in zip(result.trace, result.trace[1:]))


def wide_tree(tmp_path: Path) -> Path:
    """Six directories of six subdirectories of four concepts: more work than a small budget pays for."""
    return write_files(
        tmp_path / "wide",
        {f"d{a}/s{b}/c{k}.md": concept(f"C{a}{b}{k}") for a in range(6) for b in range(6) for k in range(4)},
    )


def test_calls_budget_counts_calls_sent_not_calls_waiting_for_a_slot(tmp_path: Path) -> None:
    root = wide_tree(tmp_path)
    # Two calls at once, far more selector pages and judge batches ready at once: the ones waiting for a
    # slot are not spent, so the walk sends exactly its budget of calls.
    reader = ScriptedReader(select=lambda q, offers: [o.index for o in offers], judge={}, latency=0.01, concurrency=2)
    result = navigate(root, "q", reader=reader, budgets={"max_calls": 12, "batch_size": 2})
    assert result.stopped_by == "calls"
    assert reader.max_in_flight == 2
    assert reader.total_calls == 12
    assert result.stats.total.calls == 12  # every call sent was counted (none cancelled after sending)


def test_tokens_budget_counts_calls_sent_not_calls_waiting_for_a_slot(tmp_path: Path) -> None:
    root = wide_tree(tmp_path)
    reader = ScriptedReader(
        select=lambda q, offers: [o.index for o in offers], judge={}, latency=0.01, concurrency=2, tokens_per_call=100
    )
    result = navigate(root, "q", reader=reader, budgets={"max_tokens": 1000, "batch_size": 2})
    assert result.stopped_by == "tokens"
    # Calls are admitted until 1,000 tokens were spent: ten calls, plus at most the one other call sent
    # meanwhile through the second slot.
    assert 10 <= reader.total_calls <= 11


class ReadsOn(ScriptedReader):
    """A scripted reader whose selector's passes are not final (as the offline reader's are not)."""

    reads_on = True


def _shelves(tmp_path: Path) -> Path:
    return write_files(tmp_path / "b", {f"d{i}/sub/c.md": concept(f"C{i}") for i in range(6)})


def test_a_reader_that_reads_on_opens_what_it_passed_over_once_nothing_was_found(tmp_path: Path) -> None:
    root = _shelves(tmp_path)
    answer = lambda q, docs: [d.id == "d4/sub/c" for d in docs]  # noqa: E731
    final = ScriptedReader(select=keep("d1/", "d1/sub/"), judge=answer)
    assert navigate(root, "q", reader=final).shortlist == [] and judged(final) == ["d1/sub/c"]
    reader = ReadsOn(select=keep("d1/", "d1/sub/"), judge=answer)
    result = navigate(root, "q", reader=reader)
    assert [e.path for e in result.shortlist] == ["d4/sub/c.md"]
    # The root's passes first (listing order); inside each, the listing is decided by the selector again (it
    # keeps nothing there: passed over, then read on in turn, one doubt further).
    read_on = [e.data for e in result.trace if e.kind == "read_on"]
    assert read_on[0] == {"opened": ["d0/", "d2/", "d3/", "d4/", "d5/"], "doubt": 3}
    assert read_on[1]["opened"] == ["d0/sub/", "d2/sub/", "d3/sub/", "d4/sub/", "d5/sub/"] and len(read_on) == 2
    assert judged(reader)[0] == "d1/sub/c" and "d4/sub/c" in judged(reader)
    assert result.stopped_by is None


def test_nothing_is_read_on_once_relevant_evidence_was_found(tmp_path: Path) -> None:
    root = _shelves(tmp_path)
    reader = ReadsOn(select=keep("d1/", "d1/sub/"), judge=lambda q, docs: [True for _ in docs])
    result = navigate(root, "q", reader=reader)
    assert judged(reader) == ["d1/sub/c"] and not any(e.kind == "read_on" for e in result.trace)


def test_read_on_stays_within_the_budget_and_skips_what_a_failed_call_left_undecided(tmp_path: Path) -> None:
    root = _shelves(tmp_path)
    reader = ReadsOn(select=keep(), judge=lambda q, docs: [False for _ in docs])
    result = navigate(root, "q", reader=reader, budgets=Budgets(max_bodies=3))
    assert len(judged(reader)) == 3 and result.stopped_by == "bodies"
    failing = ReadsOn(select=Selection(failed=True, error="model said nonsense"), judge={})
    result = navigate(root, "q", reader=failing)
    assert judged(failing) == [] and not any(e.kind == "read_on" for e in result.trace)
    assert result.stats.failures == 1
