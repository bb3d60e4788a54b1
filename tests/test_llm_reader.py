"""The LLM reader end to end through the real openai SDK against the loopback server: one test per fault."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from okf.errors import DeadlineExceeded
from okf.readers import LLMReader, ReaderConfig
from okf.readers.base import Document, Evidence, Selection, SignpostOffer, Usage, deadline
from okf.testing import (
    LoopbackServer,
    Reply,
    echo_key_rule,
    loopback_only,
    offline_rule,
    out_of_range_rule,
    wrong_count_rule,
)

# No socket or transport may be left open: an unclosed one fails the test (the reader is closed after use).
pytestmark = pytest.mark.filterwarnings("error::ResourceWarning", "error::pytest.PytestUnraisableExceptionWarning")
QUESTION = "How many vacation days do new hires get?"
OFFERS = [
    SignpostOffer(index=0, path="hr/", title="Human resources", description="Vacation and leave"),
    SignpostOffer(index=1, path="finance/", title="Finance", description="Budgets and invoices"),
]
DOCS = [
    Document(id="hr/vacation", title="Vacation policy", text="New hires receive 15 vacation days.", sha256="a" * 64),
    Document(id="fin/budget", title="Budget", text="The budget is set yearly.", sha256="b" * 64),
]
EVIDENCE = [Evidence(id="E1", title="Vacation policy", text="New hires receive 15 vacation days.")]
SECRET = "sk-okftest-DISTINCTIVE-7f3a9c1e5b"


_READERS: list[LLMReader] = []


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("OKF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    _READERS.clear()
    with loopback_only():
        yield


def reader(server: LoopbackServer, **overrides: Any) -> LLMReader:
    settings: dict[str, Any] = {
        "model": "test-model",
        "base_url": server.base_url,
        "timeout": 1.0,
        "max_retries": 2,
        "cache": False,
    }
    settings.update(overrides)
    made = LLMReader(ReaderConfig(**settings))
    _READERS.append(made)
    return made


def run(coro):  # type: ignore[no-untyped-def]
    """Run one call in its own event loop and close the connections the test's readers opened there."""

    async def closing():  # type: ignore[no-untyped-def]
        try:
            return await coro
        finally:
            for made in _READERS:
                await made.aclose()

    return asyncio.run(closing())


def test_end_to_end_with_offline_decisions() -> None:
    with LoopbackServer(rule=offline_rule()) as server:
        llm = reader(server)
        selection = run(llm.select(QUESTION, OFFERS))
        judgement = run(llm.judge(QUESTION, DOCS))
        draft = run(llm.answer(QUESTION, EVIDENCE))
    assert [c.index for c in selection.choices] == [0] and "vacation" in selection.choices[0].reason
    assert [v.relevant for v in judgement.verdicts] == [True, False]
    assert draft.cited == ["E1"] and "15 vacation days" in draft.text and not draft.failed
    assert llm.name == f"openai:test-model@127.0.0.1:{server.base_url.split(':')[2].split('/')[0]}"
    totals = llm.usage_by_role()
    assert {role: u.calls for role, u in totals.items()} == {
        "selector": 1,
        "judge": 1,
        "answerer": 1,
        "extractor": 0,
        "assessor": 0,
        "describer": 0,
    }
    assert totals["judge"].prompt_tokens > 0 and totals["judge"].completion_tokens > 0
    request = server.completions[0].body
    assert request is not None and request["response_format"] == {"type": "json_object"}
    assert request["temperature"] == 0 and json.loads(request["messages"][1]["content"])["task"] == "select"


def test_429_honours_retry_after() -> None:
    with LoopbackServer([Reply.rate_limited(0.3)], rule=offline_rule()) as server:
        start = time.perf_counter()
        selection = run(reader(server).select(QUESTION, OFFERS))
        elapsed = time.perf_counter() - start
    assert not selection.failed and selection.usage.retries == 1 and selection.usage.calls == 2
    assert elapsed >= 0.3


def test_retry_after_past_the_cap_fails_at_once_naming_the_wait() -> None:
    with LoopbackServer([Reply.rate_limited(60)], rule=offline_rule()) as server:
        start = time.perf_counter()
        selection = run(reader(server, retry_after_cap=5).select(QUESTION, OFFERS))
    assert selection.failed and "HTTP 429" in (selection.error or "") and "wait 60 s" in (selection.error or "")
    assert len(server.completions) == 1 and time.perf_counter() - start < 2


def test_500_is_retried_then_reported_with_its_status() -> None:
    with LoopbackServer([Reply.server_error(), Reply.server_error(503)], rule=offline_rule()) as server:
        ok = run(reader(server).select(QUESTION, OFFERS))  # the SDK's own backoff: about 0.5 s, then 1 s
    assert not ok.failed and ok.usage.retries == 2 and ok.usage.calls == 3
    with LoopbackServer([Reply.server_error(retry_after=0.01)] * 3) as server:
        failed = run(reader(server).judge(QUESTION, DOCS))
    assert all(v.failed and v.relevant is None for v in failed.verdicts)
    assert "HTTP 500" in (failed.verdicts[0].error or "") and failed.usage.failures == 1


def test_non_retryable_status_fails_at_once() -> None:
    with LoopbackServer([Reply(status=404, body='{"error": {"message": "model not found"}}')]) as server:
        selection = run(reader(server).select(QUESTION, OFFERS))
    assert selection.failed and "HTTP 404" in (selection.error or "") and "model not found" in (selection.error or "")
    assert len(server.completions) == 1


def test_hang_past_the_timeout_is_retried() -> None:
    with LoopbackServer([Reply.hang(10)], rule=offline_rule()) as server:
        start = time.perf_counter()
        judgement = run(reader(server, timeout=0.2).judge(QUESTION, DOCS))
        elapsed = time.perf_counter() - start
    assert [v.relevant for v in judgement.verdicts] == [True, False] and judgement.usage.retries == 1
    assert 0.2 <= elapsed < 2


def test_hang_every_time_fails_without_a_verdict() -> None:
    with LoopbackServer([Reply.hang(10)] * 2) as server:
        judgement = run(reader(server, timeout=0.1, max_retries=1).judge(QUESTION, DOCS))
    assert all(v.failed and v.relevant is None for v in judgement.verdicts)
    assert "no reply within" in (judgement.verdicts[0].error or "")


def test_malformed_body_is_retried() -> None:
    with LoopbackServer([Reply.malformed()], rule=offline_rule()) as server:
        draft = run(reader(server).answer(QUESTION, EVIDENCE))
    assert not draft.failed and draft.cited == ["E1"] and draft.usage.retries == 1


def test_out_of_range_index_gets_one_repair_then_fails() -> None:
    with LoopbackServer(rule=out_of_range_rule()) as server:
        selection = run(reader(server).select(QUESTION, OFFERS))
    assert selection.failed and selection.choices == [] and "indices not offered: 9" in (selection.error or "")
    assert len(server.completions) == 2
    repair = server.completions[1].body["messages"]  # type: ignore[index]
    assert repair[-2]["role"] == "assistant" and "indices not offered" in repair[-1]["content"]


def test_repair_retry_success() -> None:
    with LoopbackServer(rule=out_of_range_rule(times=1)) as server:
        selection = run(reader(server).select(QUESTION, OFFERS))
    assert not selection.failed and [c.index for c in selection.choices] == [0]
    assert selection.usage.calls == 2 and selection.usage.retries == 1


def test_wrong_verdict_count_fails_the_whole_batch() -> None:
    with LoopbackServer(rule=wrong_count_rule()) as server:
        judgement = run(reader(server).judge(QUESTION, DOCS))
    assert [(v.id, v.relevant, v.failed) for v in judgement.verdicts] == [
        ("hr/vacation", None, True),
        ("fin/budget", None, True),
    ]
    assert "no verdict for index 1" in (judgement.verdicts[0].error or "")
    with LoopbackServer(rule=wrong_count_rule(times=1)) as server:
        repaired = run(reader(server).judge(QUESTION, DOCS))
    assert [v.relevant for v in repaired.verdicts] == [True, False]


def test_garbage_answer_repaired_or_failed() -> None:
    good = {"answer": "New hires get 15 days.", "cited": ["E1"], "partial": False, "missing": ""}
    with LoopbackServer(["I think the answer is 15.", f"Sure! ```json\n{json.dumps(good)}\n```"]) as server:
        draft = run(reader(server).answer(QUESTION, EVIDENCE))
    assert draft.text == "New hires get 15 days." and draft.cited == ["E1"]
    with LoopbackServer(["no json", {"answer": "x", "cited": ["E9"]}]) as server:
        failed = run(reader(server).answer(QUESTION, EVIDENCE))
    assert failed.failed and "E9" in (failed.error or "") and failed.usage.failures == 1


def test_response_format_rejected_is_dropped_and_remembered() -> None:
    with LoopbackServer(rule=offline_rule(), json_mode=False) as server:
        llm = reader(server)
        assert not run(llm.select(QUESTION, OFFERS)).failed
        assert not run(llm.judge(QUESTION, DOCS)).verdicts[0].failed
    sent = ["response_format" in (r.body or {}) for r in server.completions]
    assert sent == [True, False, False]


def test_second_ask_costs_no_judge_call(tmp_path: Path) -> None:
    with LoopbackServer(rule=offline_rule()) as server:
        first = run(reader(server, cache=True).judge(QUESTION, DOCS))
        again = reader(server, cache=True)  # a new reader: only the disk cache is shared
        second = run(again.judge(QUESTION, DOCS))
    assert len(server.completions) == 1
    assert [v.relevant for v in second.verdicts] == [v.relevant for v in first.verdicts]
    assert all(v.cached for v in second.verdicts) and second.usage.cache_hits == 2 and second.usage.calls == 0
    assert list((tmp_path / "cache" / "judgments").rglob("*.json"))


def test_failed_verdicts_are_not_cached() -> None:
    with LoopbackServer([Reply.server_error(retry_after=0.01)] * 3, rule=offline_rule()) as server:
        assert run(reader(server, cache=True).judge(QUESTION, DOCS)).verdicts[0].failed
        retried = run(reader(server, cache=True).judge(QUESTION, DOCS))
    assert not any(v.cached or v.failed for v in retried.verdicts)


def test_cache_opt_out_calls_again() -> None:
    with LoopbackServer(rule=offline_rule()) as server:
        run(reader(server, cache=False).judge(QUESTION, DOCS))
        run(reader(server, cache=False).judge(QUESTION, DOCS))
    assert len(server.completions) == 2


def test_concurrency_limit_is_shared_by_all_roles() -> None:
    async def burst(llm: LLMReader) -> None:
        calls = [
            call
            for _ in range(3)
            for call in (
                llm.select(QUESTION, OFFERS),
                llm.judge(QUESTION, DOCS),
                llm.answer(QUESTION, EVIDENCE),
            )
        ]
        await asyncio.gather(*calls)

    with LoopbackServer(rule=offline_rule(), latency=0.05) as server:
        run(burst(reader(server, concurrency=2, timeout=2)))
    assert len(server.completions) == 9 and server.max_in_flight == 2


def test_deadline_raises() -> None:
    with LoopbackServer([Reply.hang(10)] * 5) as server:
        llm = reader(server, timeout=5, deadline=0.2)
        start = time.perf_counter()
        with pytest.raises(DeadlineExceeded):
            run(llm.judge(QUESTION, DOCS))
    assert time.perf_counter() - start < 1.5


def test_reader_survives_separate_event_loops() -> None:
    with LoopbackServer(rule=offline_rule()) as server:
        llm = reader(server)
        for _ in range(3):  # each asyncio.run has its own loop; clients must not leak across them
            assert not run(llm.select(QUESTION, OFFERS)).failed


def test_local_server_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with LoopbackServer(rule=offline_rule()) as server:
        assert not run(reader(server).select(QUESTION, OFFERS)).failed
    assert server.completions[0].headers["authorization"] == "Bearer not-needed"


def test_api_key_never_leaks(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OKF_SECRET_KEY", SECRET)
    caplog.set_level(logging.DEBUG)
    echo = Reply(status=401, body=json.dumps({"error": {"message": f"Incorrect API key provided: {SECRET}"}}))
    with LoopbackServer([echo, Reply.server_error(retry_after=0.01), echo], rule=offline_rule()) as server:
        llm = reader(server, api_key_env="OKF_SECRET_KEY", max_retries=1)
        outputs = [
            run(llm.select(QUESTION, OFFERS)),
            run(llm.judge(QUESTION, DOCS)),
            run(llm.answer(QUESTION, EVIDENCE)),
        ]
    assert server.completions[0].headers["authorization"] == f"Bearer {SECRET}"  # the key was really used
    assert outputs[0].failed and "HTTP 401" in (outputs[0].error or "")
    dumped = " ".join(o.model_dump_json() for o in outputs) + llm.config.model_dump_json() + llm.name
    dumped += json.dumps({k: v.model_dump() for k, v in llm.usage_by_role().items()}) + repr(llm.__dict__)
    captured = capsys.readouterr()
    for text in (dumped, caplog.text, captured.out, captured.err):
        assert SECRET not in text and "DISTINCTIVE" not in text


def test_hang_forever_ends_at_the_callers_deadline_saying_what_it_waited_for() -> None:
    async def call(llm: LLMReader) -> None:
        with deadline(0.5):
            await llm.judge(QUESTION, DOCS)

    with LoopbackServer([Reply.hang_forever()] * 3) as server:
        llm = reader(server, timeout=30)
        start = time.perf_counter()
        with pytest.raises(DeadlineExceeded) as info:
            run(call(llm))
    assert time.perf_counter() - start < 3
    assert "before the deadline" in str(info.value) and "1 attempt: no reply yet" in str(info.value)
    assert isinstance(info.value.usage, Usage) and info.value.usage.calls == 1


def test_slow_drip_is_cut_off_by_the_deadline() -> None:
    async def call(llm: LLMReader) -> None:
        with deadline(0.6):
            await llm.select(QUESTION, OFFERS)

    # Each byte comes well within the 1 s read timeout, so only the deadline can end the call.
    with LoopbackServer([Reply.drip('{"keep": []}', interval=0.2)]) as server:
        start = time.perf_counter()
        with pytest.raises(DeadlineExceeded):
            run(call(reader(server, timeout=1)))
    assert time.perf_counter() - start < 3


def test_slow_drip_without_a_deadline_is_bounded_by_what_retries_may_take() -> None:
    with LoopbackServer([Reply.drip('{"keep": []}', interval=0.2)]) as server:
        llm = reader(server, timeout=0.3, max_retries=0, retry_after_cap=0)
        selection = run(llm.select(QUESTION, OFFERS))
    assert selection.failed and "no complete reply" in (selection.error or "")


def test_html_page_with_status_200_is_asked_again_then_a_failure() -> None:
    with LoopbackServer([Reply.html()], rule=offline_rule()) as server:
        ok = run(reader(server).select(QUESTION, OFFERS))
    assert not ok.failed and ok.usage.retries == 1 and ok.usage.calls == 2
    with LoopbackServer([Reply.html()] * 2) as server:
        failed = run(reader(server).judge(QUESTION, DOCS))
    assert all(v.failed and v.relevant is None for v in failed.verdicts)
    assert "an HTML page instead of a chat completion, twice" in (failed.verdicts[0].error or "")


def test_retry_after_past_the_deadline_fails_at_once() -> None:
    async def call(llm: LLMReader) -> Selection:
        with deadline(5):
            return await llm.select(QUESTION, OFFERS)

    with LoopbackServer([Reply.rate_limited(20)], rule=offline_rule()) as server:
        start = time.perf_counter()
        selection = run(call(reader(server, retry_after_cap=60)))
    assert (
        selection.failed and "wait 20 s" in (selection.error or "") and "past the deadline" in (selection.error or "")
    )
    assert time.perf_counter() - start < 2


def test_an_echoed_key_is_scrubbed_before_cache_and_results(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OKF_SECRET_KEY", SECRET)
    with LoopbackServer(rule=echo_key_rule()) as server:
        llm = reader(server, api_key_env="OKF_SECRET_KEY", cache=True)
        judgement = run(llm.judge(QUESTION, DOCS))
        draft = run(llm.answer(QUESTION, EVIDENCE))
    assert server.completions[0].headers["authorization"] == f"Bearer {SECRET}"
    assert "seen with key ***" in judgement.verdicts[0].reason and not draft.failed
    stored = "".join(p.read_text() for p in (tmp_path / "cache").rglob("*.json"))
    assert stored and SECRET not in stored and SECRET not in judgement.model_dump_json() + draft.model_dump_json()


def test_the_cache_keeps_apart_the_same_model_name_on_two_endpoints() -> None:
    with (
        LoopbackServer(rule=offline_rule()) as one,
        LoopbackServer(
            rule=lambda r: {
                "verdicts": [
                    {"index": 0, "relevant": False, "reason": "other model"},
                    {"index": 1, "relevant": False, "reason": "other model"},
                ]
            }
        ) as two,
    ):
        first = run(reader(one, cache=True).judge(QUESTION, DOCS))
        second = run(reader(two, cache=True).judge(QUESTION, DOCS))
    assert [v.relevant for v in first.verdicts] == [True, False]
    assert [v.relevant for v in second.verdicts] == [False, False] and not any(v.cached for v in second.verdicts)
    assert len(two.completions) == 1


def test_retries_are_logged_to_the_okf_logger(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="okf")
    with LoopbackServer([Reply.server_error(503, retry_after=0.01)], rule=offline_rule()) as server:
        assert not run(reader(server).select(QUESTION, OFFERS)).failed
    retries = [r for r in caplog.records if r.name == "okf.readers.llm" and "retries" in r.getMessage()]
    assert len(retries) == 1 and "HTTP 503" in retries[0].getMessage()


def test_leaving_the_context_closes_the_connections_and_the_reader_stays_usable() -> None:
    async def twice(llm: LLMReader) -> tuple[Selection, Selection]:
        async with llm:
            first = await llm.select(QUESTION, OFFERS)
        assert not llm._loops  # nothing left open in this loop
        async with llm:
            return first, await llm.select(QUESTION, OFFERS)

    with LoopbackServer(rule=offline_rule()) as server:
        first, second = asyncio.run(twice(reader(server)))
    assert not first.failed and not second.failed
