"""The fault matrix (issue 20): every case okf was tried on, what it promises, and what the test asserts.

Tables (one parametrized test each; a row is ``case, input, expected``, and the test asserts the expected
column for every row):

| table / test | case | expected | asserted |
|---|---|---|---|
| MODEL_FAULTS x navigate, ask | hang forever, slow drip, hang past each timeout, 429 with a huge or a past-deadline Retry-After, HTML page with 200, broken JSON, 401, 500 | a failure, never "not in the bundle" | exit 1; stderr `Error:` names the reason; stdout never "No relevant concept found." |
| unreachable server | nothing listens | a failure naming the host | exit 1, "cannot reach", "connection failed" |
| ask --json, deadline | the deadline cuts the only call | `failed`, the call counted | `failed: true`, `stopped_by: deadline`, failures 1, calls 1 |
| hung server, long deadline | every attempt times out | known long before the deadline | exit 1 in under 10 s of a 60 s deadline |
| HTML reply with --trace | proxy page | the trace is still written | a `failure` event naming the HTML page |
| unwritable --trace | no such folder | refused before any call | exit 2, no request reached the server |
| echoed key | replies repeat the API key | the key is nowhere | cache, trace, stdout, stderr hold no key |
| MCP ask, deadline_s | hang forever | `failed: true`, reader closed | the tool's result, the lifespan closing the reader |
| UNREADABLE | concept, index.md, subdirectory, manifest made unreadable | a diagnostic, never a crash | check: E006 naming it, NOT conformant; navigate/ask: exit 0, the readable concept found |
| unreadable bundle root | chmod 000 | a clear error | check, navigate: exit 2 "is not readable"; `okf.open_bundle`: "cannot read the bundle directory" |
| ODD_NAMES | backslash, newline in a file name | reported, left out | check W115; never shortlisted; ask works |
| 1,000-component link | `a/a/.../a.md`, `../../...` | a broken link, nothing more | W101 and W102; navigate, ask, MCP read_concept work |
| deep folders | 300 levels, recursion limit lowered | walked | listings and concepts read |
| oversized, malformed concepts | 11 MB file, bad YAML | diagnostics | E005, E001; navigate skips with a warning |
| FIFO, /dev/zero among sources | compile | skipped with a notice | exit 0, each notice names what it is |
| unreadable source file and folder | compile | skipped with a notice | exit 0, both notices, the rest compiled |
| one-line source over the limit | compile | skipped; just under the limit compiles | notice; check finds no E005 |
| 500-character setext heading | compile | title cut to 200 | every written title within 200; check W135 on a hand-written one |
| `&lt;script&gt;` in HTML | compile | stays text | no `<script` in the concept |
| broken PDF | compile | one notice | one line naming the file; no pypdf log |
| `-o ../here/src/out` | compile | refused | "output is inside the sources" |
| full disk | tmpfs (root) or ENOSPC injected | clear error, side tree removed | exit 1, "the disk is full", previous bundle byte for byte |
| read-only output folder | compile | clear error | exit 1, "Permission denied", nothing written |
| Ctrl-C during a model call | SIGINT | "Interrupted." | exit 130, no traceback |
| newline in a source name | compile | one line per notice | the name shown as `\\n` |
| navigate()/ask() inside an event loop | called from async code | a fix naming a real function | `okf.navigate_async`, `okf.ask_async` |
| -v / --quiet | 503 then an HTML reply | retries on stderr with -v, nothing with --quiet | the retry lines; only `Error:` under --quiet |
| second compile of one output | a live compile's side tree | refused | "another okf compile or save is writing this bundle" |

Model faults run the real openai SDK against the loopback server in okf.testing; file-system faults build
bundles and sources in tmp_path. Cases that need a privilege the test run lacks skip and say why.
docs/reliability.md lists these cases and the ones other test modules cover, with the behaviour promised.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from builders import concept, write_files
from click.testing import CliRunner, Result

from okf.cli import main
from okf.testing import LoopbackServer, Reply, ReplySpec

# No socket or transport may be left open: an unclosed one fails the test (the reader is closed after use).
pytestmark = pytest.mark.filterwarnings("error::ResourceWarning", "error::pytest.PytestUnraisableExceptionWarning")
REPO = Path(__file__).resolve().parents[1]

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
    (
        "hang forever",
        lambda: [Reply.hang_forever()] * 4,
        ["--deadline", "1", "--timeout", "30"],
        "before the deadline (1 attempt: no reply yet)",
    ),
    (
        "slow drip, a byte every 2 s",
        lambda: [Reply.drip('{"keep": []}', 2.0)] * 4,
        ["--deadline", "1", "--timeout", "30"],
        "before the deadline",
    ),
    (
        "hang past each timeout",
        lambda: [Reply.hang(30)] * 4,
        ["--deadline", "10", "--timeout", "0.3"],
        "no reply from 127.0.0.1",
    ),
    ("429 with a huge Retry-After", lambda: [Reply.rate_limited(3600)] * 4, [], "HTTP 429"),
    (
        "429 with a Retry-After past the deadline",
        lambda: [Reply.rate_limited(25)] * 4,
        ["--deadline", "10"],
        "wait 25 s before a retry, past the deadline",
    ),
    (
        "HTML error page with status 200",
        lambda: [Reply.html()] * 4,
        [],
        "sent an HTML page instead of a chat completion, twice",
    ),
    ("broken JSON body", lambda: [Reply.malformed()] * 4, [], "sent a body that is not JSON"),
    (
        "401 bad key",
        lambda: [Reply(status=401, body='{"error": {"message": "Incorrect API key provided"}}')],
        [],
        "HTTP 401 from the model server: Incorrect API key provided",
    ),
    ("500 every time", lambda: [Reply.server_error(retry_after=0.01)] * 4, [], "HTTP 500"),
]
UNREACHABLE = "cannot reach 127.0.0.1"


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return write_files(tmp_path / "b", BUNDLE)


def okf(*args: str, config: Path | None = None) -> Result:
    env = {"OKF_CONFIG": str(config)} if config else {}
    return CliRunner().invoke(main, list(args), env=env)


def model_args(base_url: str, extra: list[str], angles: str = "off") -> list[str]:
    # The walk's own handling of each fault (one call, one failure); orchestration's is tested below.
    return ["--model", "m", "--base-url", base_url, "--no-cache", "--angles", angles, *extra]


@pytest.mark.parametrize("command", ["navigate", "ask"])
@pytest.mark.parametrize("case, replies, extra, reason", MODEL_FAULTS, ids=[row[0] for row in MODEL_FAULTS])
def test_a_model_fault_is_a_failure_with_its_reason(
    bundle: Path,
    tmp_path: Path,
    command: str,
    case: str,
    replies: Callable[[], list[ReplySpec]],
    extra: list[str],
    reason: str,
) -> None:
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
def test_an_orchestrated_navigation_reports_a_model_fault_and_stops(bundle: Path, tmp_path: Path, command: str) -> None:
    config = tmp_path / "okf.toml"
    config.write_text(CONFIG)
    refused = Reply(status=401, body='{"error": {"message": "Incorrect API key provided"}}')
    with LoopbackServer(rule=lambda request: refused) as server:
        result = okf(
            command, str(bundle), "vacation days", "--json", *model_args(server.base_url, [], "auto"), config=config
        )
    data = json.loads(result.stdout)
    nav = data["navigation"] if command == "ask" else data
    orchestration = nav["orchestration"]
    assert result.exit_code == 1 and "HTTP 401" in result.stderr and "Traceback" not in result.stderr
    assert "HTTP 401" in orchestration["fallback"] and orchestration["stop"] == "failed"
    assert orchestration["walks"] == len(orchestration["rounds"][0]["angles"])  # no second round on failures


@pytest.mark.parametrize("command", ["navigate", "ask"])
def test_an_unreachable_server_is_a_failure_with_its_reason(bundle: Path, tmp_path: Path, command: str) -> None:
    config = tmp_path / "okf.toml"
    config.write_text(CONFIG)
    result = okf(
        command,
        str(bundle),
        "vacation days",
        "--quiet",
        *model_args(f"http://127.0.0.1:{_closed_port()}/v1", ["--timeout", "1"]),
        config=config,
    )
    assert result.exit_code == 1 and UNREACHABLE in result.stderr and "connection failed" in result.stderr


def test_ask_json_says_failed_and_counts_the_call_the_deadline_cut(bundle: Path, tmp_path: Path) -> None:
    with LoopbackServer([Reply.hang_forever()] * 4) as server:
        result = okf(
            "ask",
            str(bundle),
            "vacation days",
            "--json",
            *model_args(server.base_url, ["--deadline", "1", "--timeout", "30"]),
        )
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
        result = okf(
            "navigate",
            str(bundle),
            "vacation days",
            "--json",
            *model_args(server.base_url, ["--deadline", "60", "--timeout", "0.3"]),
            config=config,
        )
    data = json.loads(result.stdout)
    assert result.exit_code == 1 and data["stopped_by"] is None and data["stats"]["failures"] == 1
    assert data["stats"]["seconds"] < 10  # far inside the 60 s deadline
    assert "no reply from 127.0.0.1" in data["warnings"][-1]


def test_a_trace_is_written_for_an_html_reply(bundle: Path, tmp_path: Path) -> None:
    trace = tmp_path / "walk.jsonl"
    with LoopbackServer([Reply.html()] * 2) as server:
        result = okf("navigate", str(bundle), "vacation days", "--trace", str(trace), *model_args(server.base_url, []))
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert result.exit_code == 1 and any(e["kind"] == "failure" and "HTML" in e["data"]["error"] for e in events)


def test_an_unwritable_trace_path_fails_before_any_model_call(bundle: Path, tmp_path: Path) -> None:
    with LoopbackServer([Reply.hang_forever()]) as server:
        result = okf(
            "navigate",
            str(bundle),
            "vacation days",
            "--trace",
            str(tmp_path / "no" / "such" / "t.jsonl"),
            *model_args(server.base_url, []),
        )
    assert result.exit_code == 2 and "cannot write the trace file" in result.stderr
    assert server.completions == []


def test_an_echoed_key_never_reaches_the_cache_the_trace_or_the_output(
    bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from okf.testing import echo_key_rule

    secret = "sk-okffault-ECHOED-0123456789"
    monkeypatch.setenv("OKF_FAULT_KEY", secret)
    cache = tmp_path / "cache"
    monkeypatch.setenv("OKF_CACHE_DIR", str(cache))
    trace = tmp_path / "walk.jsonl"
    with LoopbackServer(rule=echo_key_rule()) as server:
        result = okf(
            "ask",
            str(bundle),
            "How many vacation days do new hires get?",
            "--json",
            "-v",
            "--model",
            "m",
            "--base-url",
            server.base_url,
            "--api-key-env",
            "OKF_FAULT_KEY",
        )
        navigated = okf(
            "navigate",
            str(bundle),
            "How many vacation days do new hires get?",
            "--trace",
            str(trace),
            "--model",
            "m",
            "--base-url",
            server.base_url,
            "--api-key-env",
            "OKF_FAULT_KEY",
        )
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
    assert answer["usage"]["planner"]["failures"] == 1  # the plan, too, is bounded by the deadline
    assert not reader._loops  # the server's lifespan closed the reader's connections when it stopped


# --- bad bundle files: one bad file never breaks a bundle --------------------------------------------------

GOOD = {
    "index.md": "# Handbook\n\n* [People](people/) - vacation and leave\n* [Locked](locked/) - kept away\n",
    "people/index.md": "# People\n\n* [Vacation](vacation.md) - vacation days\n* [Leave](leave.md) - leave\n",
    "people/vacation.md": concept("Vacation days", "New hires get 25 vacation days per year."),
    "people/leave.md": concept("Leave", "Vacation days carry over for leave."),
    "locked/secret.md": concept("Secret vacation days", "Vacation days nobody may read."),
}


def _drop_permission_bypass() -> list[str] | None:
    """A command prefix under which file permissions apply (root without CAP_DAC_OVERRIDE), or None."""
    if os.geteuid() != 0:
        return []  # permissions apply to this user already
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--"]
    try:
        subprocess.run([*prefix, "true"], check=True, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return prefix


_COMMANDS = """
import json, sys
from click.testing import CliRunner
from okf.cli import main
results = []
for args in json.loads(sys.argv[1]):
    result = CliRunner().invoke(main, args)
    results.append([result.exit_code, result.stdout, result.stderr])
print(json.dumps(results))
"""


def okf_commands(commands: list[list[str]], prefix: list[str]) -> list[tuple[int, str, str]]:
    """Several ``okf`` commands run in one process under ``prefix``: (exit status, stdout, stderr) each."""
    done = subprocess.run(
        [*prefix, sys.executable, "-c", _COMMANDS, json.dumps(commands)],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, "OKF_RAISE_ERRORS": "0"},
    )
    return [(code, out, err) for code, out, err in json.loads(done.stdout)]


def okf_process(*args: str, prefix: list[str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``okf ARGS`` in its own process (optionally under ``prefix``), as a user would run it."""
    command = [*(prefix or []), sys.executable, "-m", "okf", *args]
    return subprocess.run(
        command,
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        env={**os.environ, "OKF_RAISE_ERRORS": "0"},
    )


# case | the bundle path made unreadable | expected in `okf check` (code and message)
UNREADABLE: list[tuple[str, str, str]] = [
    ("unreadable concept", "people/leave.md", "people/leave.md: E006 error: cannot read file: Permission denied"),
    ("unreadable index.md", "people/index.md", "people/index.md: E006 error: cannot read file: Permission denied"),
    ("unreadable subdirectory", "locked", "locked/: E006 error: cannot list this directory: Permission denied"),
    ("unreadable manifest", ".okf/manifest.json", ".okf/manifest.json: E006 error: cannot read the compile manifest"),
]


@pytest.mark.parametrize("case, rel, expected", UNREADABLE, ids=[row[0] for row in UNREADABLE])
def test_an_unreadable_file_or_folder_is_a_diagnostic_never_a_crash(
    tmp_path: Path, case: str, rel: str, expected: str
) -> None:
    prefix = _drop_permission_bypass()
    if prefix is None:
        pytest.skip(
            "cannot make a file unreadable here: running as root without setpriv to drop "
            "CAP_DAC_OVERRIDE (manual reproduction: docs/reliability.md)"
        )
    # No compile manifest unless that is the case: the bundle's id then hashes every file, the unreadable too.
    root = write_files(tmp_path / "b", {**GOOD, **({".okf/manifest.json": "{}"} if ".okf" in rel else {})})
    (root / rel).chmod(0)
    question = "How many vacation days do new hires get?"
    try:
        checked, *answered = okf_commands(
            [["check", str(root)], ["navigate", str(root), question], ["ask", str(root), question]], prefix
        )
    finally:
        (root / rel).chmod(0o755)
    # check: the bad file is an error naming it (so the bundle is not "conformant"); the rest is still read.
    assert checked[0] == 1 and expected in checked[1] and "NOT conformant" in checked[1], checked
    # navigate and ask: the readable concepts still answer; no traceback, no "unexpected".
    for code, out, err in answered:
        assert code == 0 and "unexpected" not in err and "Traceback" not in err, err
        assert "people/vacation.md" in out


def test_an_unreadable_bundle_root_is_a_clear_error(tmp_path: Path) -> None:
    prefix = _drop_permission_bypass()
    if prefix is None:
        pytest.skip(
            "cannot make a folder unreadable here: running as root without setpriv to drop "
            "CAP_DAC_OVERRIDE (manual reproduction: docs/reliability.md)"
        )
    root = write_files(tmp_path / "b", GOOD)
    root.chmod(0)
    try:
        results = okf_commands([["check", str(root)], ["navigate", str(root), "vacation days"]], prefix)
        opening = f"import okf\ntry:\n    okf.open_bundle({str(root)!r})\nexcept okf.OKFError as exc:\n    print(exc)"
        api = subprocess.run(
            [*prefix, sys.executable, "-c", opening], check=False, capture_output=True, text=True, timeout=120, cwd=REPO
        )
    finally:
        root.chmod(0o755)
    for code, _, err in results:  # the command line refuses it as an argument
        assert code == 2 and "is not readable" in err and "Traceback" not in err
    assert "cannot read the bundle directory: Permission denied" in api.stdout, api.stderr  # the API says why


# case | the concept's file name | expected W115 text
ODD_NAMES: list[tuple[str, str]] = [
    ("backslash in a file name", "back\\slash.md"),
    ("newline in a file name", "new\nline.md"),
]


@pytest.mark.parametrize("case, name", ODD_NAMES, ids=[row[0] for row in ODD_NAMES])
def test_a_file_name_no_path_can_name_is_reported_and_left_out(tmp_path: Path, case: str, name: str) -> None:
    root = write_files(tmp_path / "b", {**GOOD, f"people/{name}": concept("Odd vacation days", "Vacation days.")})
    checked = okf("check", str(root))
    escaped = name.encode("unicode_escape").decode()
    assert f"people/{escaped}: W115 warning" in checked.stdout
    navigated = okf("navigate", str(root), "vacation days", "--json")
    assert navigated.exit_code == 0
    shortlisted = [e["path"] for e in json.loads(navigated.stdout)["shortlist"]]
    assert shortlisted and not any("Odd" in p or "\\" in p or "\n" in p for p in shortlisted)
    asked = okf("ask", str(root), "vacation days")
    assert asked.exit_code == 0 and "could not be read" not in asked.output


def test_a_link_with_a_thousand_path_components_is_only_a_broken_link(tmp_path: Path) -> None:
    deep = "/".join(["a"] * 1000) + ".md"
    climbing = "/".join([".."] * 1000) + "/etc/passwd"
    root = write_files(
        tmp_path / "b", {"c.md": concept("Vacation days", f"Vacation days: [x]({deep}) and [y]({climbing}).")}
    )
    checked = okf("check", str(root))
    assert checked.exit_code == 0 and "c.md:7: W101" in checked.stdout and "c.md:7: W102" in checked.stdout
    assert okf("navigate", str(root), "vacation days").exit_code == 0
    assert okf("ask", str(root), "vacation days").exit_code == 0
    from okf.mcp.tools import BundleSet

    view = BundleSet.open([root]).read_concept("b", "c")  # what the MCP read_concept tool returns
    assert [link.exists for link in view.links] == [False, False]


def test_a_directory_deeper_than_the_recursion_limit_is_walked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from okf.bundle import Bundle

    bottom = "/".join(["d"] * 300)
    root = write_files(
        tmp_path / "b", {f"{bottom}/c.md": concept("Deep", "At the bottom."), "top.md": concept("Top", "At the top.")}
    )
    monkeypatch.setattr(sys, "getrecursionlimit", sys.getrecursionlimit)  # restored after the test
    sys.setrecursionlimit(len(inspect.stack()) + 150)  # far less than the 300 levels below
    try:
        bundle = Bundle.open(root)
        concepts = list(bundle.iter_concepts())
        listing = bundle.listing("")
        deepest = bundle.listing(bottom + "/")
        found = bundle.concept(f"{bottom}/c")
    finally:
        sys.setrecursionlimit(3000)
    assert concepts == [f"{bottom}/c.md", "top.md"] and [s.path for s in listing.signposts] == ["top.md", "d/"]
    assert [s.path for s in deepest.signposts] == [f"{bottom}/c.md"] and found.title == "Deep"


def test_oversized_and_malformed_concepts_are_diagnostics(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", {**GOOD, "people/broken.md": "---\ntype: [unclosed\n---\nvacation days\n"})
    (root / "people" / "huge.md").write_bytes(b"---\ntype: note\n---\n" + b"vacation days " * 800_000)
    checked = okf("check", str(root))
    assert "people/broken.md:3: E001 error" in checked.stdout and "people/huge.md: E005 error" in checked.stdout
    navigated = okf("navigate", str(root), "vacation days")
    assert navigated.exit_code == 0 and "people/vacation.md" in navigated.stdout
    assert "people/huge.md: skipped, could not be read" in navigated.stderr


# --- compile: bounded on any input --------------------------------------------------------------------------


def _sources(tmp_path: Path, extra: dict[str, str] | None = None) -> Path:
    return write_files(tmp_path / "src", {"guide.md": "# Guide\n\nVacation days are 25 a year.\n", **(extra or {})})


def test_compile_skips_a_fifo_and_a_symlink_to_a_device_with_a_notice(tmp_path: Path) -> None:
    src = _sources(tmp_path)
    os.mkfifo(src / "pipe.md")  # reading it would wait for a writer forever
    if os.path.exists("/dev/zero"):
        (src / "zero.txt").symlink_to("/dev/zero")  # reading it would never end
    # Its own process with a timeout: a regression hangs that process, not the test run.
    result = okf_process("compile", str(src), "-o", str(tmp_path / "out"), timeout=120)
    assert result.returncode == 0, result.stderr
    assert "skipped pipe.md: a FIFO, not a regular file" in result.stderr
    if os.path.exists("/dev/zero"):
        assert "skipped zero.txt: a symlink to a character device, not a regular file" in result.stderr
    assert "1 concepts from 1 sources" in result.stdout


def test_compile_refuses_a_source_whose_one_section_check_would_reject(tmp_path: Path) -> None:
    from okf.limits import MAX_SOURCE_BYTES

    src = _sources(tmp_path)
    (src / "huge.txt").write_bytes(b"vacation " * (MAX_SOURCE_BYTES // 9 + 10))  # one line, just over the limit
    (src / "edge.txt").write_bytes(b"vacation " * (MAX_SOURCE_BYTES // 9 - 200))  # one line, just under
    out = tmp_path / "out"
    compiled = okf("compile", str(src), "-o", str(out))
    assert (
        compiled.exit_code == 0
        and "skipped huge.txt:" in compiled.stderr
        and "over the 9.9 MB limit" in compiled.stderr
    )
    checked = okf("check", str(out))
    assert checked.exit_code == 0 and "E005" not in checked.stdout  # the edge case became a concept check accepts


def test_compile_bounds_titles_to_what_check_accepts(tmp_path: Path) -> None:
    from okf.limits import MAX_TITLE_CHARS

    paragraph = " ".join(["AsciiDoc listing text that a setext underline turns into a heading"] * 8)
    src = _sources(tmp_path, {"asciidoc.md": f"# Manual\n\nIntro.\n\n{paragraph}\n----\n\nBody text.\n"})
    out = tmp_path / "out"
    assert okf("compile", str(src), "-o", str(out), "-q").exit_code == 0
    titles = [line for p in out.rglob("*.md") for line in p.read_text().splitlines() if line.startswith("title:")]
    assert titles and max(len(json.loads(t.split(":", 1)[1])) for t in titles) <= MAX_TITLE_CHARS
    assert "W135" not in okf("check", str(out)).stdout
    bad = write_files(tmp_path / "hand", {"long.md": concept("x" * 300, "Body.")})
    assert "long.md:1: W135 warning: title is 300 characters" in okf("check", str(bad)).stdout


def test_html_text_that_looks_like_a_tag_stays_text(tmp_path: Path) -> None:
    page = (
        "<html><body><h1>Notes</h1><p>Never paste &lt;script&gt;alert(1)&lt;/script&gt; into the wiki; "
        "write <code>&lt;b&gt;</code> for bold.</p></body></html>"
    )
    src = _sources(tmp_path, {"notes.html": page})
    out = tmp_path / "out"
    assert okf("compile", str(src), "-o", str(out), "-q").exit_code == 0
    body = next(p for p in out.rglob("*.md") if "notes" in str(p) and p.name != "index.md").read_text()
    assert "<script" not in body and "&lt;script>alert(1)&lt;/script>" in body and "`<b>`" in body


def test_one_notice_per_unreadable_pdf(tmp_path: Path) -> None:
    src = _sources(tmp_path)
    (src / "bad.pdf").write_text("not a pdf")
    compiled = okf_process("compile", str(src), "-o", str(tmp_path / "out"))
    lines = [line for line in compiled.stderr.splitlines() if "bad.pdf" in line]
    assert compiled.returncode == 0 and len(lines) == 1 and "skipped bad.pdf: not a readable PDF" in lines[0]
    assert "invalid pdf header" not in compiled.stderr  # pypdf's own log is not okf's output


def test_an_output_inside_the_sources_is_refused_however_it_is_spelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = _sources(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = okf("compile", "src", "-o", f"../{tmp_path.name}/src/out")
    assert result.exit_code == 1 and "output is inside the sources" in result.stderr
    assert not (src / "out").exists()


def _small_tmpfs(path: Path, size: str) -> bool:
    """Mount a tmpfs of ``size`` at ``path`` (root only); False when this system does not allow it."""
    path.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    return (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
            check=False,
            capture_output=True,
            timeout=30,
        ).returncode
        == 0
    )


def test_a_full_disk_is_a_clear_error_and_the_partial_tree_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = {f"doc{i}.md": f"# Doc {i}\n\n" + "Vacation days and leave rules. " * 300 + "\n" for i in range(10)}
    src = write_files(tmp_path / "src", first)
    disk = tmp_path / "disk"
    mounted = _small_tmpfs(disk, "600k")
    try:
        out = disk / "out"
        assert okf("compile", str(src), "-o", str(out), "-q").exit_code == 0
        before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
        write_files(src, {f"more{i}.md": f"# More {i}\n\n" + "Parental leave. " * 600 + "\n" for i in range(60)})
        if not mounted:  # no tmpfs here: the disk fills after a few files (os.write failing with ENOSPC)
            import errno

            from okf.compile import write

            real, count = write.write_file, [0]

            def filling(root: str, path: str, content: bytes) -> None:
                count[0] += 1
                if count[0] > 5:
                    raise OSError(errno.ENOSPC, "No space left on device")
                real(root, path, content)

            monkeypatch.setattr(write, "write_file", filling)
        result = okf("compile", str(src), "-o", str(out))
        assert result.exit_code == 1 and "the disk is full" in result.stderr and "unexpected" not in result.stderr
        assert "partly written new tree was removed" in result.stderr
        assert sorted(p.name for p in disk.iterdir()) == ["out"]  # no side tree, no spare left filling the disk
        assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    finally:
        if mounted:
            subprocess.run(["umount", str(disk)], check=False, capture_output=True, timeout=30)


def test_a_read_only_output_is_a_clear_error(tmp_path: Path) -> None:
    prefix = _drop_permission_bypass()
    if prefix is None:
        pytest.skip(
            "cannot make a folder read-only here: running as root without setpriv to drop "
            "CAP_DAC_OVERRIDE (manual reproduction: docs/reliability.md)"
        )
    src = _sources(tmp_path)
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o555)
    try:
        result = okf_process("compile", str(src), "-o", str(parent / "out"), prefix=prefix)
    finally:
        parent.chmod(0o755)
    assert result.returncode == 1 and "Permission denied" in result.stderr and "Traceback" not in result.stderr
    assert list(parent.iterdir()) == []


# --- interruptions and concurrency -------------------------------------------------------------------------


def test_ctrl_c_during_a_model_call_says_interrupted(bundle: Path) -> None:
    # A shell starts its background jobs with Ctrl-C ignored, and an ignored signal stays ignored across exec:
    # the command would never see it. It is started with Ctrl-C's default action, as from a terminal.
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    with LoopbackServer([Reply.hang_forever()] * 4) as server:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "okf", "ask", str(bundle), "vacation days", *model_args(server.base_url, [])],
                cwd=REPO,
                text=True,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**os.environ, "OKF_RAISE_ERRORS": "0"},
            )
        finally:
            if ignored:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            for _ in range(600):  # up to a minute for the interpreter to start and send its first call
                if server.completions or process.poll() is not None:
                    break
                time.sleep(0.1)
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 130 and err.strip().endswith("Interrupted.") and "Traceback" not in err


def test_a_second_compile_of_the_same_output_is_refused_while_the_first_runs(tmp_path: Path) -> None:
    src = _sources(tmp_path)
    out = tmp_path / "out"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / f"out.okf-tmp-{sleeper.pid}").mkdir()  # the side tree of a compile still running
        result = okf("compile", str(src), "-o", str(out))
    finally:
        sleeper.kill()
        sleeper.wait()
    assert result.exit_code == 1 and "is writing this bundle" in result.stderr
    assert not out.exists()


# --- output for people: one line per notice, names that exist, logs on request --------------------------------


def test_a_source_name_with_a_newline_stays_on_one_line_of_output(tmp_path: Path) -> None:
    src = _sources(tmp_path)
    (src / "bad\nname.bin").write_text("x")
    (src / "evil\nname.md").write_text("# Evil\n\nText.\n")
    result = okf("compile", str(src), "-o", str(tmp_path / "out"))
    assert result.exit_code == 0 and "skipped bad\\nname.bin: not a source format" in result.stderr
    assert all(line.startswith(("skipped", "warning")) for line in result.stderr.splitlines())


def test_the_event_loop_error_names_functions_that_exist(bundle: Path) -> None:
    import asyncio

    import okf
    from okf.errors import ConfigError

    async def inside() -> list[str]:
        fixes = []
        for call in (okf.navigate, okf.ask):
            with pytest.raises(ConfigError) as info:
                call(bundle, "vacation days")
            fixes.append(info.value.fix or "")
        return fixes

    fixes = asyncio.run(inside())
    assert fixes == ["use `await okf.navigate_async(...)` there", "use `await okf.ask_async(...)` there"]
    assert callable(okf.navigate_async) and callable(okf.ask_async)


def test_retries_show_with_v_and_nothing_shows_with_quiet(bundle: Path) -> None:
    def run(*flags: str) -> Result:
        with LoopbackServer([Reply.server_error(503, retry_after=0.01)] * 2 + [Reply.html()] * 2) as server:
            return okf("navigate", str(bundle), "vacation days", *flags, *model_args(server.base_url, []))

    verbose, quiet, default = run("-v"), run("--quiet"), run()
    assert "okf: selector call failed (HTTP 503); the client retries (1 of 4)" in verbose.stderr
    assert "instead of a chat completion; asking once more" in verbose.stderr
    assert "okf:" not in default.stderr  # retries are not warnings: the failure's own warning says enough
    assert quiet.stderr.splitlines() == [line for line in quiet.stderr.splitlines() if line.startswith("Error:")]


def test_unreadable_sources_are_skipped_with_a_notice(tmp_path: Path) -> None:
    prefix = _drop_permission_bypass()
    if prefix is None:
        pytest.skip(
            "cannot make a file unreadable here: running as root without setpriv to drop "
            "CAP_DAC_OVERRIDE (manual reproduction: docs/reliability.md)"
        )
    src = _sources(tmp_path, {"secret.md": "# Secret\n\nHidden.\n", "locked/inner.md": "# Inner\n\nHidden.\n"})
    (src / "secret.md").chmod(0)
    (src / "locked").chmod(0)
    try:
        [(code, out, err)] = okf_commands([["compile", str(src), "-o", str(tmp_path / "out")]], prefix)
    finally:
        (src / "secret.md").chmod(0o644)
        (src / "locked").chmod(0o755)
    assert code == 0 and "1 concepts from 1 sources" in out, err
    assert "skipped secret.md: not readable (Permission denied)" in err
    assert "skipped locked: folder not readable (Permission denied)" in err
