"""A loopback chat-completions server: real HTTP on 127.0.0.1, scripted replies, injected failures.

It speaks the two endpoints okf uses (``POST /v1/chat/completions``, ``GET /v1/models``) so tests and
benchmarks drive the real ``openai`` client end to end without touching the internet::

    with LoopbackServer(rule=offline_rule()) as server:
        reader = LLMReader(ReaderConfig(model="m", base_url=server.base_url))

Replies come from a script (a queue, consumed first) and then from a rule (a callable given the parsed
request body). Each reply is a content string, a JSON-able dict (sent as its JSON text) or a :class:`Reply`
for failures: ``Reply.rate_limited()``, ``Reply.server_error()``, ``Reply.hang()`` (past a timeout),
``Reply.hang_forever()`` (accepts and never answers), ``Reply.drip()`` (one byte at a time, slowly),
``Reply.html()`` (a proxy's error page with status 200), ``Reply.malformed()`` (broken JSON) and
``Reply.echo_key()`` (a valid reply that repeats the caller's API key back). Every request is recorded
(headers included) and the highest number of requests in flight is kept.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass
class Reply:
    """One canned reply: assistant ``content`` with status 200, or a failure (status, raw body, delay)."""

    content: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None  # raw response body; overrides the chat-completions envelope
    delay: float = 0.0  # seconds to wait before replying (added to the server latency)
    forever: bool = False  # never reply: hold the connection open until the server stops
    drip_interval: float = 0.0  # > 0: send the body one byte at a time, this many seconds apart
    content_type: str = "application/json"
    echoes_key: bool = False  # replace "{api_key}" in the content with the bearer token the request carried

    @classmethod
    def rate_limited(cls, retry_after: float = 0.1) -> Reply:
        """429 with a ``Retry-After`` header (seconds)."""
        return cls(
            status=429,
            headers={"Retry-After": f"{retry_after:g}"},
            body=_error_body("rate limited", "rate_limit_exceeded"),
        )

    @classmethod
    def server_error(cls, status: int = 500, retry_after: float | None = None) -> Reply:
        """A 5xx error (with a ``Retry-After`` header, in seconds, when ``retry_after`` is given)."""
        headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
        return cls(status=status, headers=headers, body=_error_body("internal error", "server_error"))

    @classmethod
    def hang(cls, seconds: float = 30.0) -> Reply:
        """Sleep past any sensible client timeout before answering (ends early when the server stops)."""
        return cls(content="{}", delay=seconds)

    @classmethod
    def hang_forever(cls) -> Reply:
        """Accept the request and never answer (the connection stays open until the server stops)."""
        return cls(content="{}", forever=True)

    @classmethod
    def drip(cls, content: str = "{}", interval: float = 2.0) -> Reply:
        """Status 200 and headers at once, then the body one byte every ``interval`` seconds."""
        return cls(content=content, drip_interval=interval)

    @classmethod
    def html(cls, status: int = 200) -> Reply:
        """An HTML error page, as a proxy or captive portal sends it (status 200 unless given)."""
        page = (
            "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1>"
            "<p>The upstream server did not respond.</p></body></html>"
        )
        return cls(status=status, body=page, content_type="text/html; charset=utf-8")

    @classmethod
    def echo_key(cls, content: str) -> Reply:
        """A 200 reply whose ``content`` has every ``{api_key}`` replaced by the request's bearer token."""
        return cls(content=content, echoes_key=True)

    @classmethod
    def malformed(cls) -> Reply:
        """Status 200 with a body that is not JSON."""
        return cls(body='{"id": "chatcmpl-broken", "choices": [ {"message": ')

    @classmethod
    def rejects_json_mode(cls) -> Reply:
        """The 400 some servers give for ``response_format``."""
        return cls(status=400, body=_error_body("response_format is not supported", "invalid_request_error"))


ReplySpec = Reply | str | dict[str, Any]
Rule = Callable[[dict[str, Any]], ReplySpec]


def _error_body(message: str, kind: str) -> str:
    return json.dumps({"error": {"message": message, "type": kind, "code": kind}})


@dataclass
class RecordedRequest:
    """A request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]  # names lowercased
    body: dict[str, Any] | None
    raw: str
    at: float


def approx_tokens(text: str) -> int:
    """A rough token count (about four characters a token), as a stand-in for a tokenizer."""
    return max(1, (len(text) + 3) // 4) if text else 0


class LoopbackServer:
    """A real chat-completions HTTP server on 127.0.0.1 in a background thread; a (async) context manager."""

    def __init__(
        self,
        script: Iterable[ReplySpec] = (),
        *,
        rule: Rule | None = None,
        latency: float = 0.0,
        model: str = "loopback-model",
        json_mode: bool = True,
    ) -> None:
        self._script: deque[Any] = deque(script)
        self.rule = rule
        self.latency = latency
        self.model = model
        self.json_mode = json_mode  # False: answer 400 to any request carrying response_format
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._port: int | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---

    def start(self) -> Self:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        handler = type("Handler", (_Handler,), {"server_ref": self})
        self._httpd = _Server(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="okf-loopback", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; hanging replies end at once."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._httpd = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        return self.start()

    async def __aexit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``: what an OpenAI-compatible client takes as base URL."""
        if self._port is None:
            raise RuntimeError("the loopback server was never started; use it as a context manager")
        return f"http://127.0.0.1:{self._port}/v1"

    # --- scripting ---

    def push(self, *replies: ReplySpec) -> None:
        """Queue more replies; they are used before the rule."""
        with self._lock:
            self._script.extend(replies)

    @property
    def completions(self) -> list[RecordedRequest]:
        """The recorded chat-completions requests, in arrival order."""
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            queued = self._script.popleft() if self._script else None
        if queued is None:
            if self.rule is None:
                return Reply(status=500, body=_error_body("loopback script exhausted and no rule", "server_error"))
            queued = self.rule(body)
        if isinstance(queued, Reply):
            return queued
        if isinstance(queued, dict):
            return Reply(content=json.dumps(queued))
        return Reply(content=str(queued))

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


class _Server(ThreadingHTTPServer):
    # The default listen backlog of 5 drops the SYNs of a burst of new connections (a client opening 20 at
    # once), and each dropped one costs a one-second retransmit: far more than any simulated latency.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that closes its kept-alive connection (a reset, a broken pipe) ends that connection only:
        # nothing to report. Anything else is a fault of the server and is printed as before.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server_ref: LoopbackServer
    protocol_version = "HTTP/1.1"
    # One buffered write per response and no Nagle: otherwise delayed ACKs add ~40 ms to every call.
    wbufsize = -1
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _record(self, raw: str) -> dict[str, Any] | None:
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        record = RecordedRequest(
            self.command,
            self.path,
            {k.lower(): v for k, v in self.headers.items()},
            body if isinstance(body, dict) else None,
            raw,
            time.time(),
        )
        with self.server_ref._lock:
            self.server_ref.requests.append(record)
        return record.body

    def _send(
        self,
        status: int,
        body: str,
        headers: dict[str, str] | None = None,
        *,
        content_type: str = "application/json",
        drip: float = 0.0,
    ) -> None:
        data = body.encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            if drip > 0:
                for k in range(len(data)):
                    self.wfile.write(data[k : k + 1])
                    self.wfile.flush()
                    if self.server_ref._stopping.wait(drip):
                        return
            else:
                self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout): nothing to do
            pass

    def do_GET(self) -> None:
        self._record("")
        if self.path.rstrip("/").endswith("/models"):
            model = {"id": self.server_ref.model, "object": "model", "created": 0, "owned_by": "okf-loopback"}
            self._send(200, json.dumps({"object": "list", "data": [model]}))
        else:
            self._send(404, _error_body(f"no route {self.path}", "not_found"))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", errors="replace")
        body = self._record(raw)
        server = self.server_ref
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, _error_body(f"no route {self.path}", "not_found"))
            return
        if body is None:
            self._send(400, _error_body("request body is not a JSON object", "invalid_request_error"))
            return
        server._enter()
        try:
            if not server.json_mode and "response_format" in body:
                reply = Reply.rejects_json_mode()
            else:
                reply = server._next_reply(body)
            if reply.forever:
                server._stopping.wait()
                return  # stopping: drop the connection
            wait = server.latency + reply.delay
            if wait and server._stopping.wait(wait):
                return  # stopping: drop the connection
            if reply.body is not None:
                self._send(
                    reply.status, reply.body, reply.headers, content_type=reply.content_type, drip=reply.drip_interval
                )
            else:
                content = reply.content or ""
                if reply.echoes_key:
                    token = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
                    content = content.replace("{api_key}", token)
                self._send(
                    reply.status,
                    _completion(body, content, server.model),
                    reply.headers,
                    content_type=reply.content_type,
                    drip=reply.drip_interval,
                )
        finally:
            server._leave()


def _completion(request: dict[str, Any], content: str, model: str) -> str:
    prompt = "".join(str(m.get("content", "")) for m in request.get("messages", []) if isinstance(m, dict))
    prompt_tokens, completion_tokens = approx_tokens(prompt), approx_tokens(content)
    return json.dumps(
        {
            "id": f"chatcmpl-loopback-{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model") or model,
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


# --- rules: replies computed from the request ----------------------------------------------------------


def request_payload(request: dict[str, Any]) -> dict[str, Any]:
    """The okf payload (``{"task": ...}``) embedded in a chat request's first user message."""
    for message in request.get("messages", []):
        if isinstance(message, dict) and message.get("role") == "user":
            try:
                payload = json.loads(message.get("content") or "")
            except (json.JSONDecodeError, TypeError):
                continue
            if isinstance(payload, dict) and "task" in payload:
                return payload
    return {}


def offline_rule(vocabulary: Any = None) -> Rule:
    """A rule answering okf's select/judge/answer/decompose/leaf prompts with the offline reader's decisions
    (weighing words by ``vocabulary``, a bundle's :class:`~okf.text.vocabulary.Vocabulary`, when given)."""
    from okf.readers import offline, synthesis
    from okf.readers.base import Document, Evidence, SignpostOffer

    def rule(request: dict[str, Any]) -> dict[str, Any]:
        payload = request_payload(request)
        question = offline.Question.parse(str(payload.get("question", "")), vocabulary)
        task = payload.get("task")
        if task == "select":
            offers = [
                SignpostOffer(
                    index=s["index"],
                    path=s["path"],
                    title=s["title"],
                    description=s.get("description", ""),
                    is_dir=s.get("kind") == "directory",
                )
                for s in payload["signposts"]
            ]
            if isinstance(payload.get("angles"), list):  # select-angles: each angle's choices, one reply
                keep: dict[int, dict[str, Any]] = {}
                for angle in payload["angles"]:
                    parsed = offline.Question.parse(str(angle["text"]), vocabulary)
                    for c in offline.select_offer(parsed, offers) if parsed.units else []:
                        item = keep.setdefault(
                            c.index, {"index": c.index, "grade": c.grade, "reason": c.reason, "angles": []}
                        )
                        item["angles"].append(angle["index"])
                        item["grade"] = "strong" if "strong" in (item["grade"], c.grade) else "weak"
                return {"keep": [keep[i] for i in sorted(keep)]}
            kept = offline.select_offer(question, offers)
            return {"keep": [{"index": c.index, "grade": c.grade, "reason": c.reason} for c in kept]}
        if task == "plan":
            from okf.readers.angles import plan_offline

            parts = plan_offline(str(payload.get("question", "")), vocabulary, payload.get("angles_per_part"))
            return {
                "parts": [
                    {"question": p.question, "angles": [{"text": a.text, "origin": a.origin} for a in p.angles]}
                    for p in parts
                ]
            }
        if task == "judge":
            documents = [
                Document(id=d["id"], title=d["title"], text=d["text"], sha256="", headings=d["headings"])
                for d in payload["documents"]
            ]
            if isinstance(payload.get("angles"), list):  # judge-angles: the best grade and the angles answered
                rank = {"relevant": 2, "partial": 1, "no": 0}
                per = [
                    offline.judge_all(offline.Question.parse(str(a["text"]), vocabulary), documents)
                    for a in payload["angles"]
                ]
                verdicts = []
                for n, d in enumerate(payload["documents"]):
                    mine = [angle_verdicts[n] for angle_verdicts in per]
                    best = max(mine, key=lambda v: rank[v.grade or "no"], default=None)
                    verdicts.append(
                        {
                            "index": d["index"],
                            "grade": best.grade if best else "no",
                            "reason": best.reason if best else "",
                            "answers": [a["index"] for a, v in zip(payload["angles"], mine) if v.grade == "relevant"],
                        }
                    )
                return {"verdicts": verdicts}
            decided = offline.judge_all(question, documents)
            return {
                "verdicts": [
                    {"index": d["index"], "grade": v.grade, "reason": v.reason}
                    for d, v in zip(payload["documents"], decided)
                ]
            }
        if task == "answer":
            draft = offline.answer_from(question, [Evidence(**e) for e in payload["evidence"]])
            return {
                "answer": draft.text,
                "cited": draft.cited,
                "partial": draft.partial,
                "missing": draft.missing,
            }
        if task == "decompose":
            pieces = [synthesis.Part(**p) for p in payload["items"]]
            return {"groups": [list(g) for g in synthesis.split_offline(pieces, int(payload["budget_tokens"]))]}
        if task == "leaf":
            extract = synthesis.extract_offline(
                str(payload.get("question", "")), [Evidence(**e) for e in payload["evidence"]]
            )
            return {"facts": [{"fact": f.text, "cited": f.cited} for f in extract.facts], "checked": extract.checked}
        return {"error": "not an okf request"}

    return rule


def _misbehaving(
    task: str,
    spoil: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]],
    base: Rule | None,
    times: int | None,
) -> Rule:
    inner = base or offline_rule()
    count = [0]
    lock = threading.Lock()

    def rule(request: dict[str, Any]) -> Reply | str | dict[str, Any]:
        reply = inner(request)
        payload = request_payload(request)
        if payload.get("task") != task or not isinstance(reply, dict):
            return reply
        with lock:
            if times is not None and count[0] >= times:
                return reply
            count[0] += 1
        return spoil(payload, reply)

    return rule


def out_of_range_rule(base: Rule | None = None, *, times: int | None = None) -> Rule:
    """Selector replies that also keep an index past the end of the offer (the first ``times`` only)."""

    def spoil(payload: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        bogus = {"index": len(payload["signposts"]) + 7, "reason": "not offered"}
        return {"keep": [*reply["keep"], bogus]}

    return _misbehaving("select", spoil, base, times)


def wrong_count_rule(base: Rule | None = None, *, times: int | None = None) -> Rule:
    """Judge replies with one verdict missing (or an extra one for a single document)."""

    def spoil(payload: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        verdicts = reply["verdicts"]
        if len(verdicts) > 1:
            return {"verdicts": verdicts[:-1]}
        return {"verdicts": [*verdicts, {"index": 1, "relevant": True, "reason": "extra"}]}

    return _misbehaving("judge", spoil, base, times)


def echo_key_rule(base: Rule | None = None) -> Rule:
    """Valid replies (from ``base``, default the offline rule) whose reasons and answers repeat the API key."""
    inner = base or offline_rule()

    def spoil(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: (
                    f"{v} (seen with key {{api_key}})" if k in ("reason", "answer") and isinstance(v, str) else spoil(v)
                )
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [spoil(v) for v in value]
        return value

    def rule(request: dict[str, Any]) -> ReplySpec:
        reply = inner(request)
        return Reply.echo_key(json.dumps(spoil(reply))) if isinstance(reply, dict) else reply

    return rule


# --- a guard for test suites: no connection may leave the machine -------------------------------------


@contextlib.contextmanager
def loopback_only() -> Iterator[None]:
    """Within the block, any socket connection to a non-loopback address raises ``ConnectionRefusedError``."""
    original = socket.socket.connect
    original_ex = socket.socket.connect_ex

    def _check(address: Any) -> None:
        if isinstance(address, tuple):
            host = str(address[0])
            try:
                loopback = ipaddress.ip_address(host.split("%")[0]).is_loopback
            except ValueError:
                loopback = host == "localhost"
            if not loopback:
                raise ConnectionRefusedError(f"okf tests may not connect to {host} (loopback only)")

    def connect(self: socket.socket, address: Any) -> None:
        _check(address)
        return original(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        _check(address)
        return original_ex(self, address)

    socket.socket.connect = connect  # type: ignore[method-assign, assignment]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign, assignment]
    try:
        yield
    finally:
        socket.socket.connect = original  # type: ignore[method-assign]
        socket.socket.connect_ex = original_ex  # type: ignore[method-assign]
