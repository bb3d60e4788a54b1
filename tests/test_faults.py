"""The fault matrix (issue 20): every case okf was tried on, what it promises, and what the test asserts.

Each table is a list of rows; one parametrized test runs every row of its table and asserts the row's
"expected" columns. docs/reliability.md lists the same cases, with the behaviour promised, in the same order.
Model faults run the real openai SDK against the loopback server in okf.testing; file-system faults build
bundles and sources in tmp_path. Cases that need a privilege the test run lacks skip and say why.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from builders import concept, write_files
from click.testing import CliRunner, Result

from okf.cli import main
from okf.testing import LoopbackServer, Reply, ReplySpec

# --- model faults ----------------------------------------------------------------------------------------

# A root with two subdirectories: the first model call is the selector's, so one fault decides the walk.
BUNDLE = {
    "index.md": "# Handbook\n\n* [People](people/) - vacation and leave\n* [Money](money/) - invoices\n",
    "people/vacation.md": concept("Vacation days", "New hires get 25 vacation days per year."),
    "money/invoices.md": concept("Invoices", "Invoices are paid within 30 days."),
}
# Few retries and a short deadline keep each row within a few seconds; the SDK's backoff is its own.
CONFIG = "max_retries = 1\nretry_after_cap = 30\n"


def _closed_port() -> int:
    with socket.socket() as probe:  # bound, then closed: nothing listens there
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# case | the server's replies | extra options | expected in the reason (stderr "Error:" line and JSON)
MODEL_FAULTS: list[tuple[str, Callable[[], list[ReplySpec]], list[str], str]] = [
    ("hang forever", lambda: [Reply.hang_forever()] * 4, ["--deadline", "1.5", "--timeout", "30"],
     "before the deadline (1 attempt: no reply yet)"),
    ("slow drip, a byte every 2 s", lambda: [Reply.drip('{"keep": []}', 2.0)] * 4,
     ["--deadline", "1.5", "--timeout", "30"], "before the deadline"),
    ("hang past each timeout", lambda: [Reply.hang(30)] * 4, ["--deadline", "10", "--timeout", "0.3"],
     "no reply from 127.0.0.1"),
    ("429 with a huge Retry-After", lambda: [Reply.rate_limited(3600)] * 4, [], "HTTP 429"),
    ("429 with a Retry-After past the deadline", lambda: [Reply.rate_limited(25)] * 4, ["--deadline", "10"],
     "wait 25 s before a retry, past the deadline"),
    ("HTML error page with status 200", lambda: [Reply.html()] * 4, [],
     "sent an HTML page instead of a chat completion, twice"),
    ("broken JSON body", lambda: [Reply.malformed()] * 4, [], "sent a body that is not JSON"),
    ("401 bad key", lambda: [Reply(status=401, body='{"error": {"message": "Incorrect API key provided"}}')],
     [], "HTTP 401 from the model server: Incorrect API key provided"),
    ("500 every time", lambda: [Reply.server_error(retry_after=0.01)] * 4, [], "HTTP 500"),
]
UNREACHABLE = "cannot reach 127.0.0.1"


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return write_files(tmp_path / "b", BUNDLE)


def okf(*args: str, config: Path | None = None) -> Result:
    env = {"OKF_CONFIG": str(config)} if config else {}
    return CliRunner().invoke(main, list(args), env=env)


def model_args(base_url: str, extra: list[str]) -> list[str]:
    return ["--model", "m", "--base-url", base_url, "--no-cache", *extra]


@pytest.mark.parametrize("command", ["navigate", "ask"])
@pytest.mark.parametrize("case, replies, extra, reason", MODEL_FAULTS, ids=[row[0] for row in MODEL_FAULTS])
def test_a_model_fault_is_a_failure_with_its_reason(bundle: Path, tmp_path: Path, command: str, case: str,
                                                    replies: Callable[[], list[ReplySpec]], extra: list[str],
                                                    reason: str) -> None:
    config = tmp_path / "okf.toml"
    config.write_text(CONFIG)
    with LoopbackServer(replies()) as server:
        human = okf(command, str(bundle), "vacation days", *model_args(server.base_url, extra), config=config)
    # Expected: exit 1, the reason on stderr (even with warnings muted), never "not in the bundle".
    assert human.exit_code == 1, human.output
    error = [line for line in human.stderr.splitlines() if line.startswith("Error:")]
    assert error and reason in error[0] and "1 model call result(s) failed" in error[0]
    assert "No relevant concept found." not in human.stdout
    assert "Traceback" not in human.stderr and "unexpected" not in human.stderr


@pytest.mark.parametrize("command", ["navigate", "ask"])
def test_an_unreachable_server_is_a_failure_with_its_reason(bundle: Path, tmp_path: Path, command: str) -> None:
    config = tmp_path / "okf.toml"
    config.write_text(CONFIG)
    result = okf(command, str(bundle), "vacation days", "--quiet",
                 *model_args(f"http://127.0.0.1:{_closed_port()}/v1", ["--timeout", "1"]), config=config)
    assert result.exit_code == 1 and UNREACHABLE in result.stderr and "connection failed" in result.stderr


def test_ask_json_says_failed_and_counts_the_call_the_deadline_cut(bundle: Path, tmp_path: Path) -> None:
    with LoopbackServer([Reply.hang_forever()] * 4) as server:
        result = okf("ask", str(bundle), "vacation days", "--json",
                     *model_args(server.base_url, ["--deadline", "1", "--timeout", "30"]))
    data = json.loads(result.stdout)
    assert result.exit_code == 1 and data["failed"] is True and data["status"] == "abstained"
    nav = data["navigation"]
    assert nav["stopped_by"] == "deadline" and nav["stats"]["failures"] == 1
    assert data["usage"]["selector"]["calls"] == 1 and data["usage"]["selector"]["failures"] == 1
    assert "before the deadline" in data["reason"]


def test_a_hung_server_is_reported_well_within_the_deadline(bundle: Path, tmp_path: Path) -> None:
    # Each attempt times out after 0.3 s and the SDK retries once: the failure is known long before 60 s.
    config = tmp_path / "okf.toml"
    config.write_text(CONFIG)
    with LoopbackServer([Reply.hang_forever()] * 4) as server:
        result = okf("navigate", str(bundle), "vacation days", "--json",
                     *model_args(server.base_url, ["--deadline", "60", "--timeout", "0.3"]), config=config)
    data = json.loads(result.stdout)
    assert result.exit_code == 1 and data["stopped_by"] is None and data["stats"]["failures"] == 1
    assert data["stats"]["seconds"] < 10  # far inside the 60 s deadline
    assert "no reply from 127.0.0.1" in data["warnings"][-1]


def test_a_trace_is_written_for_an_html_reply(bundle: Path, tmp_path: Path) -> None:
    trace = tmp_path / "walk.jsonl"
    with LoopbackServer([Reply.html()] * 2) as server:
        result = okf("navigate", str(bundle), "vacation days", "--trace", str(trace),
                     *model_args(server.base_url, []))
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert result.exit_code == 1 and any(e["kind"] == "failure" and "HTML" in e["data"]["error"] for e in events)


def test_an_unwritable_trace_path_fails_before_any_model_call(bundle: Path, tmp_path: Path) -> None:
    with LoopbackServer([Reply.hang_forever()]) as server:
        result = okf("navigate", str(bundle), "vacation days", "--trace", str(tmp_path / "no" / "such" / "t.jsonl"),
                     *model_args(server.base_url, []))
    assert result.exit_code == 2 and "cannot write the trace file" in result.stderr
    assert server.completions == []


def test_an_echoed_key_never_reaches_the_cache_the_trace_or_the_output(bundle: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from okf.testing import echo_key_rule

    secret = "sk-okffault-ECHOED-0123456789"
    monkeypatch.setenv("OKF_FAULT_KEY", secret)
    cache = tmp_path / "cache"
    monkeypatch.setenv("OKF_CACHE_DIR", str(cache))
    trace = tmp_path / "walk.jsonl"
    with LoopbackServer(rule=echo_key_rule()) as server:
        result = okf("ask", str(bundle), "How many vacation days do new hires get?", "--json", "-v",
                     "--model", "m", "--base-url", server.base_url, "--api-key-env", "OKF_FAULT_KEY")
        navigated = okf("navigate", str(bundle), "How many vacation days do new hires get?", "--trace",
                        str(trace), "--model", "m", "--base-url", server.base_url, "--api-key-env", "OKF_FAULT_KEY")
    assert server.completions[0].headers["authorization"] == f"Bearer {secret}"  # the key was really sent
    assert result.exit_code == 0 and navigated.exit_code == 0 and "seen with key ***" in result.stdout
    stored = "".join(p.read_text() for p in cache.rglob("*.json"))
    assert stored  # the judgments were cached ...
    for text in (stored, trace.read_text(), result.stdout, result.stderr, navigated.stdout, navigated.stderr):
        assert secret not in text  # ... and nothing anywhere holds the key


def test_the_mcp_ask_tool_reports_a_hung_model_as_failed_and_closes_its_reader(bundle: Path) -> None:
    from mcp import Client

    from okf.mcp.server import build_server
    from okf.mcp.tools import BundleSet
    from okf.readers import LLMReader, ReaderConfig

    async def ask(base_url: str) -> tuple[dict[str, Any], LLMReader]:
        reader = LLMReader(ReaderConfig(model="m", base_url=base_url, cache=False))
        async with Client(build_server(BundleSet.open([bundle], reader))) as client:  # in process
            reply = await client.call_tool("ask", {"bundle": "b", "question": "vacation days", "deadline_s": 1.0})
        assert not reply.is_error, reply.content
        return dict(reply.structured_content or {}), reader

    with LoopbackServer([Reply.hang_forever()] * 4) as server:
        answer, reader = anyio.run(ask, server.base_url)
    assert answer["failed"] is True and "before the deadline" in answer["reason"]
    assert answer["status"] == "abstained" and answer["usage"]["selector"]["failures"] == 1
    assert not reader._loops  # the server's lifespan closed the reader's connections when it stopped
