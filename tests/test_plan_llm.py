"""The plan role and the angle-aware selector and judge of LLMReader, through the real openai SDK against the
loopback server: valid replies, repairs, failures recorded as failures, and the orchestration's fallbacks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import okf
from okf.readers import LLMReader, ReaderConfig
from okf.readers.base import Document, SignpostOffer
from okf.readers.planning import PlanHints
from okf.testing import LoopbackServer, Reply, loopback_only, offline_rule
from okf.testing.server import request_payload
from tests.test_orchestrate import QUESTION, film_bundle

pytestmark = pytest.mark.filterwarnings("error::ResourceWarning", "error::pytest.PytestUnraisableExceptionWarning")
DOCS = [
    Document(id="a", title="Kiss and Tell", text="Kiss and Tell is a film starring Shirley Temple.", sha256="a" * 64),
    Document(id="b", title="Rope", text="Rope is a thriller.", sha256="b" * 64),
]
OFFERS = [
    SignpostOffer(index=0, path="films/", title="Films", description="comedies"),
    SignpostOffer(index=1, path="people/", title="People", description="actresses"),
]


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("OKF_CACHE_DIR", str(tmp_path / "cache"))
    with loopback_only():
        yield


def _reader(server: LoopbackServer, **overrides: Any) -> LLMReader:
    settings: dict[str, Any] = {
        "model": "m",
        "base_url": server.base_url,
        "timeout": 2.0,
        "max_retries": 1,
        "cache": False,
        **overrides,
    }
    return LLMReader(ReaderConfig(**settings))


def _run(reader: LLMReader, coro):  # type: ignore[no-untyped-def]
    async def closing():  # type: ignore[no-untyped-def]
        try:
            return await coro
        finally:
            await reader.aclose()

    return asyncio.run(closing())


def _reply(payload: dict[str, Any]) -> Reply:
    return Reply(content=json.dumps(payload))


def _planner(bundle: Path, reply: Reply):  # type: ignore[no-untyped-def]
    """The offline decisions over HTTP, except every plan request gets ``reply``."""
    decide = offline_rule(okf.open_bundle(bundle).vocabulary())

    def rule(request: dict[str, Any]) -> Any:
        return reply if request_payload(request).get("task") == "plan" else decide(request)

    return rule


def test_a_valid_plan_is_read_with_the_part_first_and_unknown_origins_as_rephrasings() -> None:
    plan = {
        "parts": [
            {
                "question": "Who is older, A or B?",
                "angles": [{"text": "age of A", "origin": "viewpoint"}, {"text": "A birth", "origin": "guesswork"}],
            }
        ]
    }
    with LoopbackServer([_reply(plan)]) as server:
        reader = _reader(server)
        result = _run(reader, reader.plan("Who is older, A or B?", 3, PlanHints(acronyms={"PFP": "Private"})))
        sent = json.loads(server.completions[0].body["messages"][1]["content"])
        system = server.completions[0].body["messages"][0]["content"]
    assert not result.failed and result.usage.calls == 1
    (part,) = result.parts
    assert [(a.text, a.origin) for a in part.angles] == [
        ("Who is older, A or B?", "question"),
        ("age of A", "viewpoint"),
        ("A birth", "rephrasing"),
    ]
    assert sent["task"] == "plan" and sent["angles_per_part"] == 3
    assert sent["bundle_vocabulary"]["acronyms"] == {"PFP": "Private"} and "planner" in system
    assert reader.usage_by_role()["planner"].calls == 1


def test_an_invalid_plan_gets_one_repair_then_fails_and_navigation_falls_back(tmp_path: Path) -> None:
    with LoopbackServer([_reply({"parts": []}), _reply({"parts": [{"question": "ok", "angles": []}]})]) as server:
        reader = _reader(server)
        repaired = _run(reader, reader.plan("q?", None, PlanHints()))
        repair = server.completions[1].body["messages"][-1]["content"]
    assert not repaired.failed and repaired.usage.retries == 1 and 'non-empty "parts"' in repair

    bundle = film_bundle(tmp_path / "b")
    with LoopbackServer(rule=_planner(bundle, _reply({"parts": [{"question": ""}]}))) as server:
        reader = _reader(server, concurrency=8)
        result = okf.navigate(bundle, QUESTION, reader=reader)
    orchestration = result.orchestration
    assert orchestration.planner == "offline" and "invalid planner reply after a repair retry" in orchestration.fallback
    failure = next(e for e in result.trace if e.kind == "failure")
    assert failure.data["role"] == "planner" and result.stats.failures >= 1
    assert result.stats.usage["planner"].failures == 1 and result.shortlist  # the walk went on


def test_a_planner_server_error_is_a_recorded_failure_with_its_status(tmp_path: Path) -> None:
    bundle = film_bundle(tmp_path / "b")
    with LoopbackServer(rule=_planner(bundle, Reply.server_error(500))) as server:
        result = okf.navigate(bundle, QUESTION, reader=_reader(server, concurrency=8))
    assert "HTTP 500" in result.orchestration.fallback
    assert "films/kiss-and-tell.md" in [e.path for e in result.shortlist]


def test_the_angle_judge_names_the_angles_a_document_answers_and_repairs_bad_indices() -> None:
    bad = {
        "verdicts": [
            {"index": 0, "grade": "relevant", "answers": [7], "reason": "x"},
            {"index": 1, "grade": "no", "reason": "y"},
        ]
    }
    good = {
        "verdicts": [
            {"index": 0, "grade": "relevant", "answers": [1], "reason": "names her"},
            {"index": 1, "grade": "no", "reason": "other film"},
        ]
    }
    with LoopbackServer([_reply(bad), _reply(good)]) as server:
        reader = _reader(server)
        judged = _run(reader, reader.judge_angles(QUESTION, [QUESTION, "Kiss and Tell cast"], DOCS))
        repair = server.completions[1].body["messages"][-1]["content"]
        system = server.completions[0].body["messages"][0]["content"]
    assert "angle 7 was not offered" in repair and '"answers"' in system
    assert [v.answers for v in judged.verdicts] == [[1], []] and judged.usage.retries == 1
    # A relevant verdict naming no angle answers the question itself.
    with LoopbackServer(
        [_reply({"verdicts": [{"index": 0, "grade": "relevant"}, {"index": 1, "grade": "no"}]})]
    ) as server:
        reader = _reader(server)
        judged = _run(reader, reader.judge_angles(QUESTION, [QUESTION], DOCS))
    assert judged.verdicts[0].answers == [0]


def test_the_angle_judge_caches_by_question_and_angles(tmp_path: Path) -> None:
    reply = {"verdicts": [{"index": 0, "grade": "relevant", "answers": [0]}, {"index": 1, "grade": "no"}]}
    with LoopbackServer([_reply(reply), _reply(reply)]) as server:
        first = _reader(server, cache=True, cache_dir=tmp_path / "c")
        _run(first, first.judge_angles(QUESTION, [QUESTION, "x"], DOCS))
        again = _reader(server, cache=True, cache_dir=tmp_path / "c")
        cached = _run(again, again.judge_angles(QUESTION, [QUESTION, "x"], DOCS))
        other = _reader(server, cache=True, cache_dir=tmp_path / "c")
        _run(other, other.judge_angles(QUESTION, [QUESTION, "y"], DOCS))  # other angles: asked again
    assert cached.usage.calls == 0 and cached.usage.cache_hits == 2 and cached.verdicts[0].answers == [0]
    assert len(server.completions) == 2


def test_the_angle_selector_reads_a_listing_once_for_every_angle() -> None:
    reply = {"keep": [{"index": 0, "grade": "strong", "angles": [0]}, {"index": 1, "grade": "weak"}]}
    wrong = _reply({"keep": [{"index": 0, "angles": [3]}]})
    with LoopbackServer([_reply(reply), wrong, _reply({"keep": []}), wrong, wrong]) as server:
        reader = _reader(server)
        selection = _run(reader, reader.select_angles(QUESTION, [QUESTION, "Shirley Temple"], OFFERS))
        repaired = _reader(server)
        empty = _run(repaired, repaired.select_angles(QUESTION, [QUESTION, "x"], OFFERS))
        bad = _reader(server)
        failed = _run(bad, bad.select_angles(QUESTION, [QUESTION, "x"], OFFERS))
    assert [[c.index for c in kept] for kept in selection.kept] == [[0, 1], [1]]
    assert not empty.failed and empty.kept == [[], []] and empty.usage.retries == 1
    assert failed.failed and "angle 3 was not offered" in (failed.error or "")


def test_an_orchestrated_walk_over_http_reads_each_listing_once_per_round(tmp_path: Path) -> None:
    bundle = film_bundle(tmp_path / "b")
    with LoopbackServer(rule=offline_rule(okf.open_bundle(bundle).vocabulary())) as server:
        result = okf.navigate(bundle, QUESTION, reader=_reader(server, concurrency=8))
        tasks = [json.loads(c.body["messages"][1]["content"]) for c in server.completions if c.body]
    assert {"plan", "select", "judge"} <= {t["task"] for t in tasks}
    assert "films/kiss-and-tell.md" in [e.path for e in result.shortlist]
    round_of = {a.id: a.round for a in result.orchestration.angles}
    offered = [
        (round_of[e.data["angle"]], e.path, tuple(e.data["signposts"])) for e in result.trace if e.kind == "offered"
    ]
    selects = [t for t in tasks if t["task"] == "select"]
    assert len(selects) < len(offered) or len(result.orchestration.rounds[0].angles) == 1
    assert all("angles" in t for t in selects if len(t.get("angles", [])) > 1)
