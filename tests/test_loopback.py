"""The loopback chat-completions server: routes, scripts and rules, injected failures, recording."""

from __future__ import annotations

import asyncio
import json
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from okf.testing import (
    LoopbackServer,
    Reply,
    loopback_only,
    offline_rule,
    out_of_range_rule,
    wrong_count_rule,
)


@pytest.fixture(autouse=True)
def _no_network() -> Iterator[None]:
    with loopback_only():
        yield


def post(server: LoopbackServer, body: dict[str, Any], timeout: float = 2.0) -> tuple[int, dict[str, str], str]:
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-Probe": "yes"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


def chat(content: str) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": content}]}


def test_models_endpoint_and_unknown_route() -> None:
    with LoopbackServer(model="tiny") as server:
        with urllib.request.urlopen(f"{server.base_url}/models") as response:
            assert json.load(response)["data"][0]["id"] == "tiny"
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(f"{server.base_url}/nothing")
        info.value.close()
        assert info.value.code == 404


def test_script_then_rule_and_recording() -> None:
    with LoopbackServer(["first", {"k": 1}], rule=lambda request: "from rule") as server:
        replies = [json.loads(post(server, chat("hello there"))[2]) for _ in range(3)]
    contents = [r["choices"][0]["message"]["content"] for r in replies]
    assert contents == ["first", '{"k": 1}', "from rule"]
    assert replies[0]["usage"]["prompt_tokens"] > 0 and replies[0]["object"] == "chat.completion"
    assert server.base_url.startswith("http://127.0.0.1:")
    assert len(server.completions) == 3 and server.completions[0].headers["x-probe"] == "yes"
    assert server.completions[0].body == chat("hello there")


def test_exhausted_script_without_rule_is_a_500() -> None:
    with LoopbackServer() as server:
        assert post(server, chat("x"))[0] == 500


def test_injected_failures() -> None:
    with LoopbackServer(
        [Reply.rate_limited(2), Reply.server_error(502), Reply.malformed(), Reply.rejects_json_mode()]
    ) as server:
        status, headers, _ = post(server, chat("x"))
        assert status == 429 and headers["Retry-After"] == "2"
        assert post(server, chat("x"))[0] == 502
        status, _, body = post(server, chat("x"))
        assert status == 200
        with pytest.raises(json.JSONDecodeError):
            json.loads(body)
        assert post(server, chat("x"))[0] == 400


def test_hang_outlasts_a_client_timeout_and_ends_on_stop() -> None:
    server = LoopbackServer([Reply.hang(30)]).start()
    with pytest.raises((TimeoutError, socket.timeout, urllib.error.URLError)):
        post(server, chat("x"), timeout=0.2)
    start = time.perf_counter()
    server.stop()
    assert time.perf_counter() - start < 1.5


def test_hang_forever_holds_the_connection_until_stop() -> None:
    server = LoopbackServer([Reply.hang_forever()]).start()
    with pytest.raises((TimeoutError, socket.timeout, urllib.error.URLError)):
        post(server, chat("x"), timeout=0.3)
    start = time.perf_counter()
    server.stop()
    assert time.perf_counter() - start < 1.5


def test_drip_sends_headers_then_one_byte_at_a_time() -> None:
    with LoopbackServer([Reply.drip("{}", interval=0.002)]) as server:
        start = time.perf_counter()
        status, _, body = post(server, chat("x"))
    assert status == 200 and json.loads(body)["choices"][0]["message"]["content"] == "{}"
    assert time.perf_counter() - start >= 0.002 * len(body)  # every byte waited for


def test_html_page_and_echoed_key() -> None:
    with LoopbackServer([Reply.html(), Reply.echo_key("your key is {api_key}")]) as server:
        status, headers, body = post(server, chat("x"))
        assert status == 200 and headers["Content-Type"].startswith("text/html") and "<html>" in body
        request = urllib.request.Request(
            f"{server.base_url}/chat/completions",
            data=json.dumps(chat("x")).encode(),
            headers={"Authorization": "Bearer sk-echo-123456"},
        )
        with urllib.request.urlopen(request, timeout=2) as response:
            content = json.load(response)["choices"][0]["message"]["content"]
    assert content == "your key is sk-echo-123456"


def test_json_mode_rejection_switch() -> None:
    with LoopbackServer(rule=lambda r: "ok", json_mode=False) as server:
        assert post(server, {**chat("x"), "response_format": {"type": "json_object"}})[0] == 400
        assert post(server, chat("x"))[0] == 200


def test_latency_and_max_in_flight_from_an_async_test() -> None:
    async def main() -> LoopbackServer:
        async with LoopbackServer(rule=lambda r: "ok", latency=0.1) as server:
            await asyncio.gather(*(asyncio.to_thread(post, server, chat("x")) for _ in range(3)))
        return server

    start = time.perf_counter()
    server = asyncio.run(main())
    assert server.max_in_flight == 3 and time.perf_counter() - start < 1.0


def _okf_request(payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": "m",
        "messages": [{"role": "system", "content": "..."}, {"role": "user", "content": json.dumps(payload)}],
    }


SELECT = {
    "task": "select",
    "question": "vacation days for new hires",
    "signposts": [
        {"index": 0, "kind": "directory", "path": "hr/", "title": "HR", "description": "vacation and leave"},
        {"index": 1, "kind": "directory", "path": "it/", "title": "IT", "description": "laptops"},
    ],
}
JUDGE = {
    "task": "judge",
    "question": "vacation days for new hires",
    "documents": [
        {
            "index": 0,
            "id": "a",
            "title": "Vacation",
            "headings": [],
            "text": "New hires get 15 vacation days.",
        },
        {"index": 1, "id": "b", "title": "Laptops", "headings": [], "text": "Laptops are issued on day one."},
    ],
}


def test_offline_rule_answers_okf_payloads() -> None:
    rule = offline_rule()
    assert [k["index"] for k in rule(_okf_request(SELECT))["keep"]] == [0]  # type: ignore[index]
    verdicts = rule(_okf_request(JUDGE))["verdicts"]  # type: ignore[index]
    assert [(v["index"], v["grade"]) for v in verdicts] == [(0, "relevant"), (1, "no")]
    answer = rule(
        _okf_request(
            {
                "task": "answer",
                "question": "vacation days for new hires",
                "evidence": [{"id": "E1", "title": "Vacation", "text": "New hires get 15 vacation days."}],
            }
        )
    )
    assert answer["cited"] == ["E1"] and "15 vacation days" in answer["answer"]  # type: ignore[index]


def test_misbehaving_rules_spoil_only_their_task_and_only_times() -> None:
    spoil_select = out_of_range_rule(times=1)
    assert spoil_select(_okf_request(SELECT))["keep"][-1]["index"] == 9  # type: ignore[index]
    assert [k["index"] for k in spoil_select(_okf_request(SELECT))["keep"]] == [0]  # type: ignore[index]
    assert len(spoil_select(_okf_request(JUDGE))["verdicts"]) == 2  # type: ignore[index]
    assert len(wrong_count_rule()(_okf_request(JUDGE))["verdicts"]) == 1  # type: ignore[index]


def test_loopback_only_refuses_other_addresses() -> None:
    with socket.socket() as sock, pytest.raises(ConnectionRefusedError, match="loopback only"):
        sock.connect(("192.0.2.1", 80))


def test_a_client_resetting_its_connection_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """A client that resets its connection mid-request (a benchmark's client closing kept-alive connections)
    ends that connection only: no traceback on stderr, and the server goes on answering."""
    import struct
    from urllib.parse import urlsplit

    with LoopbackServer(["after"]) as server:
        where = urlsplit(server.base_url)
        raw = socket.create_connection((where.hostname, where.port))
        raw.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a reset
        raw.close()
        time.sleep(0.3)
        assert post(server, chat("q"))[0] == 200
    assert "Traceback" not in capsys.readouterr().err
