"""The OpenAI-compatible reader: the only module in okf that imports ``openai``.

Each role (selector, judge, answerer, extractor, assessor) talks to its own profile. Transport retries are
the openai SDK's own (``max_retries``: 408, 409, 429, 5xx, timeouts and connection errors, with its backoff
and the server's ``Retry-After``). okf adds what the SDK does not do:

- every call, its retries included, is bounded with ``asyncio.timeout``: by the reader's deadline and the
  caller's (:func:`okf.readers.base.deadline`), else by what its retries can take, so a server that hangs
  or drips a byte at a time ends as a failure that says what it was waiting for;
- a ``Retry-After`` longer than ``retry_after_cap`` or than the time left fails the call at once instead of
  sleeping past the deadline;
- a 200 whose body is not a chat completion (a proxy's HTML page, broken JSON) is asked once more, then fails;
- a server that answers 400 to ``response_format`` is asked again without it (remembered per endpoint);
- a reply that fails validation gets one repair retry that shows the model its error.

After that the result is marked failed, never "not relevant". One semaphore bounds the calls in flight across
all roles. API keys are read from the environment at call time and scrubbed from every error message and from
the model's own replies. Attempts, retries and failures are logged to ``okf.readers.llm``.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import os
import re
import time
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Self, TypeVar

import openai

from okf.errors import ConfigError, DeadlineExceeded, ModelOutputError, ProviderError
from okf.readers import replies
from okf.readers.base import (
    Document,
    DraftAnswer,
    Evidence,
    Judgement,
    Role,
    Selection,
    SignpostOffer,
    Usage,
    Verdict,
    time_left,
)
from okf.readers.cache import JudgmentCache, judgment_key
from okf.readers.config import NAVIGATION_ROLES, ROLES, Profile, ReaderConfig
from okf.readers.llm_plan import LLMPlan
from okf.readers.llm_roles import LLMRoles
from okf.readers.offline import OfflineReader
from okf.readers.synthesis import LeafExtract, Part, Split

log = logging.getLogger(__name__)
T = TypeVar("T")
NO_KEY = "not-needed"  # local servers ignore the key, but the SDK insists on one
_RETRY_STATUSES = {408, 409, 429}  # and 5xx: what the SDK retries
_SDK_WAIT_MAX = 8.0  # the SDK's longest backoff between retries (without Retry-After), seconds
_KEY_LIKE = re.compile(r"\b(sk-[A-Za-z0-9_\-*]{6,}|Bearer\s+\S+)")


class _JsonModeRejected(Exception):
    """The server answered 400 to response_format; the request is repeated without it."""


class _Unreadable(Exception):
    """A 200 whose body is not a chat completion; the request is repeated once."""


class _WaitTooLong(openai.OpenAIError):
    """Raised in the response hook to stop the SDK from sleeping through a Retry-After okf will not wait."""

    def __init__(self, status: int, wait: float, limit: str) -> None:
        super().__init__(f"HTTP {status}; the server asks to wait {wait:g} s before a retry, {limit}")
        self.status = status


@dataclass
class _Call:
    """One operation's state, seen by the HTTP hooks of every attempt the SDK makes for it."""

    role: Role
    usage: Usage
    reader: LLMReader
    attempts: int = 0  # HTTP requests sent
    round: int = 0  # requests sent by the current SDK call (1 + its retries)
    started: float = 0.0  # monotonic start of the current attempt
    last: str | None = None  # the last fault seen: "HTTP 503", "no reply within 2 s", ...
    faults: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """``" (3 attempts: HTTP 503, HTTP 503, no reply within 2 s)"``, or "" before any attempt."""
        if not self.attempts:
            return " (no request was sent: every connection slot was busy)"
        seen = [*self.faults, self.last or "no reply yet"] if self.attempts > len(self.faults) else self.faults
        return f" ({self.attempts} attempt{'s' if self.attempts > 1 else ''}: {', '.join(seen)})"


_CALL: ContextVar[_Call | None] = ContextVar("okf_llm_call", default=None)


@dataclass
class _LoopState:
    """Per event loop: clients and the semaphore (asyncio primitives and httpx pools are loop-bound)."""

    semaphore: asyncio.Semaphore
    clients: dict[tuple[str | None, str], openai.AsyncOpenAI] = field(default_factory=dict)


class LLMReader(LLMRoles, LLMPlan):
    """A reader over any OpenAI-compatible chat-completions endpoint; roles without a model read offline.

    The extractor and assessor operations come from :class:`~okf.readers.llm_roles.LLMRoles`, the planner
    and the angle-aware judge from :class:`~okf.readers.llm_plan.LLMPlan`."""

    def __init__(self, config: ReaderConfig) -> None:
        self.config = config
        self.profiles: dict[Role, Profile | None] = {role: config.profile(role) for role in ROLES}
        if not any(self.profiles.values()):
            raise ConfigError("LLMReader needs a model", fix="set --model or OKF_MODEL, or use OfflineReader")
        for role, profile in self.profiles.items():
            if profile and not profile.is_local and not os.environ.get(profile.api_key_env):
                raise ConfigError(
                    f"no API key for the {role}: environment variable {profile.api_key_env} is not set",
                    fix=f"export {profile.api_key_env}=..., or name another variable with --api-key-env "
                    "(a server that needs no key accepts any value)",
                )
        self.cache = JudgmentCache(config.cache_dir) if config.cache else None
        self._offline = OfflineReader()
        self._totals: dict[str, Usage] = {role: Usage() for role in ROLES}
        self._json_mode: dict[tuple[str | None, str], bool] = {}
        self._loops: dict[int, tuple[asyncio.AbstractEventLoop, _LoopState]] = {}
        self.deadline_at: float | None = (time.monotonic() + config.deadline) if config.deadline else None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # --- identity and accounting ---

    @property
    def name(self) -> str:
        labels = {
            role: f"{p.model}@{p.host}" if p else "offline"
            for role, p in self.profiles.items()
            if p or role in NAVIGATION_ROLES
        }
        if len(set(labels.values())) == 1:
            return f"openai:{labels['judge']}"
        return "openai:" + ",".join(f"{role}={label}" for role, label in labels.items())

    @property
    def concurrency(self) -> int:
        """Calls this reader sends at once; the walk admits a call against its budgets only with a slot free."""
        return self.config.concurrency

    def usage_by_role(self) -> dict[str, Usage]:
        """Running totals of everything this reader spent, per role."""
        return {role: usage.model_copy() for role, usage in self._totals.items()}

    def set_deadline(self, seconds: float | None) -> None:
        """Give every later call an overall deadline ``seconds`` from now (None: no deadline)."""
        self.deadline_at = None if seconds is None else time.monotonic() + seconds

    def _record(self, role: Role, usage: Usage) -> Usage:
        self._totals[role] = self._totals.get(role, Usage()) + usage  # synthesis roles appear once used
        return usage

    # --- the three operations ---

    async def select(self, question: str, signposts: Sequence[SignpostOffer]) -> Selection:
        """Ask the selector which signposts to open; a reply naming unoffered indices gets one repair."""
        profile = self.profiles["selector"]
        if profile is None:
            return await self._offline.select(question, signposts)
        if not signposts:
            return Selection()
        usage = Usage()
        choices, error = await self._attempt(
            profile,
            "selector",
            replies.select_payload(question, signposts),
            lambda text: replies.parse_selection(text, signposts),
            usage,
        )
        self._record("selector", usage)
        if error is not None:
            return Selection(failed=True, error=error, usage=usage)
        return Selection(choices=choices or [], usage=usage)

    async def judge(self, question: str, documents: Sequence[Document]) -> Judgement:
        """One verdict per document: cached ones first, the rest in one call; a failed call fails them all."""
        profile = self.profiles["judge"]
        if profile is None:
            return await self._offline.judge(question, documents)
        return await self._judge_cached(
            profile,
            "judge",
            question,
            documents,
            lambda batch: replies.judge_payload(question, batch),
            lambda text, batch: replies.parse_verdicts(text, batch),
        )

    async def answer(self, question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        """A draft answer citing evidence ids; garbage gets one repair, then ``failed=True``."""
        profile = self.profiles["answerer"]
        if profile is None:
            return await self._offline.answer(question, evidence)
        usage = Usage()
        draft, error = await self._attempt(
            profile,
            "answerer",
            replies.answer_payload(question, evidence),
            lambda text: replies.parse_answer(text, evidence),
            usage,
        )
        self._record("answerer", usage)
        if draft is None:
            return DraftAnswer(failed=True, error=error, usage=usage)
        draft.usage = usage
        return draft

    # --- the synthesis roles: the answerer's profile, the same call path ---

    async def decompose(self, question: str, parts: Sequence[Part], budget_tokens: int) -> Split:
        """Ask the decomposer how to split a slice; the groups come back as sent (the code repairs them)."""
        profile = self.profiles["answerer"]
        if profile is None:
            return await self._offline.decompose(question, parts, budget_tokens)
        usage = Usage()
        groups, error = await self._attempt(
            profile, "decomposer", replies.decompose_payload(question, parts, budget_tokens), replies.parse_split, usage
        )
        self._record("decomposer", usage)
        if error is not None:
            return Split(failed=True, error=error, usage=usage)
        return Split(groups=groups or [], usage=usage)

    async def extract_leaf(self, question: str, evidence: Sequence[Evidence]) -> LeafExtract:
        """Ask a leaf worker for the question-relevant facts of one slice; garbage gets one repair, then fails."""
        profile = self.profiles["answerer"]
        if profile is None:
            return await self._offline.extract_leaf(question, evidence)
        usage = Usage()
        result, error = await self._attempt(
            profile, "leaf", replies.leaf_payload(question, evidence), replies.parse_leaf, usage
        )
        self._record("leaf", usage)
        if result is None:
            return LeafExtract(failed=True, error=error, usage=usage)
        result.usage = usage
        return result

    # --- the shared shapes of a role's call ---

    async def _attempt(
        self,
        profile: Profile,
        role: Role,
        payload: str,
        parse: Callable[[str], T],
        usage: Usage,
        prompt: str | None = None,
    ) -> tuple[T | None, str | None]:
        """``_ask``, with a failure given back rather than raised: ``(value, None)``, or ``(None, error text)``
        with the failure counted in ``usage``. A passed deadline is recorded and raised (the walk stops)."""
        try:
            return await self._ask(profile, role, payload, parse, usage, prompt), None
        except (ProviderError, ModelOutputError) as exc:
            if isinstance(exc, DeadlineExceeded):
                self._record(role, usage)
                exc.usage = usage
                raise
            usage.failures += 1
            return None, self._error_text(exc)

    async def _judge_cached(
        self,
        profile: Profile,
        prompt: str,
        asked: str,
        documents: Sequence[Document],
        payload: Callable[[Sequence[Document]], str],
        parse: Callable[[str, Sequence[Document]], list[Verdict]],
    ) -> Judgement:
        """The judge's call shape (``judge``, ``judge_angles``): verdicts cached for ``asked`` (the question, or
        the question and its angles) under ``prompt``'s version first, the rest of ``documents`` in one call of
        role ``judge``; a failed call fails each of them (never "not relevant"); good verdicts are cached."""
        usage = Usage()
        version = replies.prompt(prompt).version
        endpoint = profile.base_url or "https://api.openai.com/v1"
        keys = [judgment_key(profile.model, version, asked, d.sha256, endpoint=endpoint) for d in documents]
        verdicts: list[Verdict | None] = [
            self.cache.get(k, d.id) if self.cache else None for k, d in zip(keys, documents)
        ]
        key = os.environ.get(profile.api_key_env, "")
        for verdict in verdicts:
            if verdict is not None:  # written by an older okf, perhaps, or by hand: never show a key
                verdict.reason = self._scrub(verdict.reason, key)
        usage.cache_hits = sum(v is not None for v in verdicts)
        pending = [i for i, v in enumerate(verdicts) if v is None]
        if pending:
            batch = [documents[i] for i in pending]
            decided, error = await self._attempt(
                profile, "judge", payload(batch), lambda text: parse(text, batch), usage, prompt
            )
            if decided is None:
                decided = [Verdict(id=d.id, relevant=None, failed=True, error=error) for d in batch]
            for i, verdict in zip(pending, decided):
                verdicts[i] = verdict
                if self.cache and not verdict.failed:
                    self.cache.put(keys[i], verdict, model=profile.model, prompt_version=version, endpoint=profile.host)
        self._record("judge", usage)
        return Judgement(verdicts=[v for v in verdicts if v is not None], usage=usage)

    # --- one request, validated, with one repair retry ---

    async def _ask(
        self,
        profile: Profile,
        role: Role,
        payload: str,
        parse: Callable[[str], T],
        usage: Usage,
        prompt: str | None = None,
    ) -> T:
        """One validated exchange for ``role`` (its prompt, or the prompt file named by ``prompt``)."""
        messages: list[dict[str, str]] = [
            {"role": "system", "content": replies.prompt(prompt or role).text},
            {"role": "user", "content": payload},
        ]
        text = await self._complete(profile, role, messages, usage)
        try:
            return parse(text)
        except ModelOutputError as first:
            log.info("%s reply invalid (%s); asking once more", role, first.message)
            messages += [
                {"role": "assistant", "content": text},
                {"role": "user", "content": replies.repair_message(first.message)},
            ]
            usage.retries += 1
            text = await self._complete(profile, role, messages, usage)
            try:
                return parse(text)
            except ModelOutputError as second:
                raise ModelOutputError(
                    f"invalid {role} reply after a repair retry: {second.message}", raw=text, role=role
                ) from None

    # --- one call: the deadline, the shared semaphore, the SDK's retries ---

    def _left(self) -> float | None:
        """Seconds until the nearer of the reader's deadline and the caller's; None when neither is set."""
        mine = None if self.deadline_at is None else self.deadline_at - time.monotonic()
        theirs = time_left()
        if mine is None or theirs is None:
            return theirs if mine is None else mine
        return min(mine, theirs)

    def _call_budget(self) -> float:
        """The longest one call may take, its retries and the waits between them included."""
        retries = self.config.max_retries
        return (retries + 1) * self.config.timeout + retries * max(self.config.retry_after_cap, _SDK_WAIT_MAX)

    async def _complete(self, profile: Profile, role: Role, messages: list[dict[str, str]], usage: Usage) -> str:
        call = _Call(role=role, usage=usage, reader=self)
        token = _CALL.set(call)
        start = time.perf_counter()
        try:
            left = self._left()
            if left is not None and left <= 0:
                raise DeadlineExceeded(f"{role}: the deadline had passed before the call", role=role)
            try:
                async with asyncio.timeout(left):
                    return await self._exchange(profile, role, messages, call)
            except TimeoutError:
                message = f"{role}: no reply from {profile.host} before the deadline{call.summary()}"
                log.info("%s", message)
                raise DeadlineExceeded(message, role=role) from None
        finally:
            usage.seconds += time.perf_counter() - start
            _CALL.reset(token)

    async def _exchange(self, profile: Profile, role: Role, messages: list[dict[str, str]], call: _Call) -> str:
        state = self._state()
        async with state.semaphore:
            client, key = self._client(state, profile)
            unreadable = False
            while True:
                try:
                    return await self._request(profile, role, messages, client, key, call)
                except _JsonModeRejected:
                    call.usage.retries += 1  # the same request without response_format; not a fault retry
                except _Unreadable as exc:
                    if unreadable:
                        raise ProviderError(
                            f"{role}: {profile.host} sent {exc} instead of a chat completion, twice",
                            role=role,
                        ) from None
                    unreadable = True
                    call.usage.retries += 1
                    log.info("%s: %s sent %s instead of a chat completion; asking once more", role, profile.host, exc)

    async def _request(
        self,
        profile: Profile,
        role: Role,
        messages: list[dict[str, str]],
        client: openai.AsyncOpenAI,
        key: str,
        call: _Call,
    ) -> str:
        mode_key = (profile.base_url, profile.model)
        request: dict[str, Any] = {
            "model": profile.model,
            "messages": messages,
            "temperature": profile.temperature,
            "max_tokens": profile.max_tokens,
        }
        use_json = self.config.json_mode and self._json_mode.get(mode_key, True)
        if use_json:
            request["response_format"] = {"type": "json_object"}
        budget = self._call_budget()
        call.round = 0
        try:
            async with asyncio.timeout(budget):
                response = await client.chat.completions.create(**request)
        except TimeoutError:
            raise ProviderError(
                f"{role}: no complete reply from {profile.host} within {budget:g} s{call.summary()}", role=role
            ) from None
        except _WaitTooLong as exc:
            raise ProviderError(f"{role}: {exc}", status=exc.status, role=role) from None
        except openai.BadRequestError as exc:
            if use_json and mode_key not in self._json_mode:
                # Some servers reject response_format with a 400: ask again without it, and remember.
                log.info("%s: %s rejected response_format; continuing without it", role, profile.host)
                self._json_mode[mode_key] = False
                raise _JsonModeRejected from None
            raise self._provider_error(exc, role, key) from None
        except openai.APIStatusError as exc:
            error = self._provider_error(exc, role, key)
            if call.round > 1:
                error.message += f" ({call.round} attempts)"
            raise error from None
        except openai.APITimeoutError:
            call.last = f"no reply within {self.config.timeout:g} s"
            raise ProviderError(
                f"{role}: no reply from {profile.host} within {self.config.timeout:g} s{call.summary()}",
                role=role,
            ) from None
        except openai.APIConnectionError as exc:
            call.last = "connection failed"
            cause = self._scrub(str(exc.__cause__ or exc), key)
            raise ProviderError(f"{role}: cannot reach {profile.host}: {cause}{call.summary()}", role=role) from None
        except ValueError:  # a 200 whose body is not JSON
            raise _Unreadable("a body that is not JSON") from None
        if use_json:
            self._json_mode.setdefault(mode_key, True)
        return self._scrub(_content(response, call), key)

    # --- the HTTP hooks: every attempt the SDK makes is counted, logged and checked ---

    async def _on_request(self, request: Any) -> None:
        call = _CALL.get()
        if call is None or call.reader is not self:
            return
        now = time.monotonic()
        if call.attempts:
            fault = call.last
            if fault is None:  # no response came back: the attempt timed out or the connection failed
                slow = now - call.started >= self.config.timeout * 0.9
                fault = f"no reply within {self.config.timeout:g} s" if slow else "connection failed"
            call.faults.append(fault)
            if call.round:  # the SDK retries (okf's own repeats are counted where they are made)
                call.usage.retries += 1
                log.info(
                    "%s call failed (%s); the client retries (%d of %d)",
                    call.role,
                    fault,
                    call.round,
                    self.config.max_retries,
                )
        call.attempts += 1
        call.round += 1
        call.usage.calls += 1
        call.started = now
        call.last = None

    async def _on_response(self, response: Any) -> None:
        call = _CALL.get()
        if call is None or call.reader is not self:
            return
        status = int(response.status_code)
        if status < 400:
            return
        call.last = f"HTTP {status}"
        retryable = status in _RETRY_STATUSES or status >= 500
        if not retryable or call.round > self.config.max_retries:  # the last attempt: the SDK raises
            return
        wait = _retry_after(response.headers)
        if wait is None:
            return
        left = self._left()
        if wait > self.config.retry_after_cap:
            raise _WaitTooLong(status, wait, f"longer than retry_after_cap ({self.config.retry_after_cap:g} s)")
        if left is not None and wait >= left:
            raise _WaitTooLong(status, wait, f"past the deadline (in {max(left, 0):.1f} s)")

    # --- clients, one set per event loop ---

    async def aclose(self) -> None:
        """Close the HTTP clients opened in the running event loop (the reader stays usable)."""
        entry = self._loops.pop(id(asyncio.get_running_loop()), None)
        if entry is not None:
            for client in entry[1].clients.values():
                await client.close()

    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        entry = self._loops.get(id(loop))
        if entry is None or entry[0] is not loop:
            # Drop states of closed loops; their clients cannot be reused anyway.
            self._loops = {k: v for k, v in self._loops.items() if not v[0].is_closed()}
            entry = (loop, _LoopState(asyncio.Semaphore(self.config.concurrency)))
            self._loops[id(loop)] = entry
        return entry[1]

    def _client(self, state: _LoopState, profile: Profile) -> tuple[openai.AsyncOpenAI, str]:
        key = os.environ.get(profile.api_key_env) or (NO_KEY if profile.is_local else "")
        if not key:
            raise ProviderError(
                f"no API key: environment variable {profile.api_key_env} is not set",
                fix=f"export {profile.api_key_env}=...",
            )
        # Clients are keyed by endpoint and key *variable*; a changed key value makes a new client.
        slot = (profile.base_url, profile.api_key_env)
        client = state.clients.get(slot)
        if client is None or client.api_key != key:
            client = openai.AsyncOpenAI(
                base_url=profile.base_url,
                api_key=key,
                max_retries=self.config.max_retries,
                timeout=self.config.timeout,
                http_client=self._http_client(profile),
            )
            state.clients[slot] = client
        return client, key

    def _http_client(self, profile: Profile) -> Any:
        """Our own HTTP client, with the hooks that count and check every attempt.

        Plain-http endpoints (local servers) follow no redirects, so no TLS can happen and loading the CA
        store (a fifth of a second per event loop) is skipped; https endpoints get the SDK's defaults.
        """
        hooks: dict[str, list[Callable[..., Any]]] = {"request": [self._on_request], "response": [self._on_response]}
        if (profile.base_url or "").startswith("http://"):
            return openai.DefaultAsyncHttpxClient(verify=False, follow_redirects=False, event_hooks=hooks)
        return openai.DefaultAsyncHttpxClient(event_hooks=hooks)

    def _provider_error(self, exc: openai.APIStatusError, role: Role, key: str) -> ProviderError:
        message = self._scrub(_status_message(exc), key)
        return ProviderError(
            f"{role}: HTTP {exc.status_code} from the model server: {message}",
            status=exc.status_code,
            role=role,
        )

    @staticmethod
    def _scrub(text: str, key: str) -> str:
        if key and key != NO_KEY:
            text = text.replace(key, "***")
        return _KEY_LIKE.sub("***", text)

    def _error_text(self, exc: ProviderError | ModelOutputError) -> str:
        text = exc.message
        for profile in self.profiles.values():
            if profile:
                text = self._scrub(text, os.environ.get(profile.api_key_env, ""))
        return text


def _content(response: Any, call: _Call) -> str:
    """The assistant text of a chat completion; _Unreadable when the body was something else."""
    if isinstance(response, str):
        page = response.lstrip()[:200].lower()
        call.last = "an HTML page" if page.startswith("<") else "text that is not JSON"
        raise _Unreadable("an HTML page" if page.startswith("<") else "plain text")
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list):
        call.last = "JSON that is not a chat completion"
        raise _Unreadable("JSON that is not a chat completion")
    usage = call.usage
    counted = getattr(response, "usage", None)
    if counted is not None:
        usage.prompt_tokens += getattr(counted, "prompt_tokens", 0) or 0
        usage.completion_tokens += getattr(counted, "completion_tokens", 0) or 0
    message = getattr(choices[0], "message", None) if choices else None
    content = getattr(message, "content", None)
    return content if isinstance(content, str) else ""


def _status_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"][:300]
        if isinstance(body.get("message"), str):
            return str(body["message"])[:300]
    return (exc.message or "")[:300]


def _retry_after(headers: Any) -> float | None:
    """Seconds from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date); None when absent."""
    try:
        if headers.get("retry-after-ms"):
            return float(headers["retry-after-ms"]) / 1000
        value = headers.get("retry-after")
        if not value:
            return None
        try:
            return float(value)
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None
