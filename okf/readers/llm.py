"""The OpenAI-compatible reader: the only module in okf that imports ``openai``.

Each role (selector, judge, answerer, extractor, assessor) talks to its own profile. A call is retried with exponential backoff
and jitter on 429, 5xx, connection errors, timeouts and unreadable bodies (honouring a capped Retry-After);
a reply that fails validation gets one repair retry that shows the model its error; after that the result
is marked failed, never "not relevant". One semaphore bounds the calls in flight across all roles.
API keys are read from the environment at call time and scrubbed from every error message.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import os
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

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
)
from okf.readers.cache import JudgmentCache, judgment_key
from okf.readers.config import NAVIGATION_ROLES, ROLES, Profile, ReaderConfig
from okf.readers.llm_roles import LLMRoles
from okf.readers.offline import OfflineReader
from okf.readers.synthesis import LeafExtract, Part, Split

log = logging.getLogger(__name__)
T = TypeVar("T")
NO_KEY = "not-needed"  # local servers ignore the key, but the SDK insists on one
_RETRY_STATUSES = {408, 409, 429}
_KEY_LIKE = re.compile(r"\b(sk-[A-Za-z0-9_\-*]{6,}|Bearer\s+\S+)")


class _Retryable(Exception):
    def __init__(self, error: ProviderError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


class _JsonModeRejected(Exception):
    """The server answered 400 to response_format; the request is repeated without it."""


@dataclass
class _LoopState:
    """Per event loop: clients and the semaphore (asyncio primitives and httpx pools are loop-bound)."""

    semaphore: asyncio.Semaphore
    clients: dict[tuple[str | None, str], openai.AsyncOpenAI] = field(default_factory=dict)


class LLMReader(LLMRoles):
    """A reader over any OpenAI-compatible chat-completions endpoint; roles without a model read offline.

    The extractor and assessor operations come from :class:`~okf.readers.llm_roles.LLMRoles`."""

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

    # --- identity and accounting ---

    @property
    def name(self) -> str:
        labels = {role: f"{p.model}@{p.host}" if p else "offline" for role, p in self.profiles.items()
                  if p or role in NAVIGATION_ROLES}
        if len(set(labels.values())) == 1:
            return f"openai:{labels['judge']}"
        return "openai:" + ",".join(f"{role}={label}" for role, label in labels.items())

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
        try:
            choices = await self._ask(
                profile,
                "selector",
                replies.select_payload(question, signposts),
                lambda text: replies.parse_selection(text, signposts),
                usage,
            )
            result = Selection(choices=choices, usage=usage)
        except (ProviderError, ModelOutputError) as exc:
            if isinstance(exc, DeadlineExceeded):
                self._record("selector", usage)
                raise
            usage.failures += 1
            result = Selection(failed=True, error=self._error_text(exc), usage=usage)
        self._record("selector", usage)
        return result

    async def judge(self, question: str, documents: Sequence[Document]) -> Judgement:
        """One verdict per document: cached ones first, the rest in one call; a failed call fails them all."""
        profile = self.profiles["judge"]
        if profile is None:
            return await self._offline.judge(question, documents)
        usage = Usage()
        version = replies.prompt("judge").version
        keys = [judgment_key(profile.model, version, question, d.sha256) for d in documents]
        verdicts: list[Verdict | None] = [
            self.cache.get(k, d.id) if self.cache else None for k, d in zip(keys, documents)
        ]
        usage.cache_hits = sum(v is not None for v in verdicts)
        pending = [i for i, v in enumerate(verdicts) if v is None]
        if pending:
            batch = [documents[i] for i in pending]
            try:
                decided = await self._ask(
                    profile,
                    "judge",
                    replies.judge_payload(question, batch),
                    lambda text: replies.parse_verdicts(text, batch),
                    usage,
                )
            except (ProviderError, ModelOutputError) as exc:
                if isinstance(exc, DeadlineExceeded):
                    self._record("judge", usage)
                    raise
                usage.failures += 1
                error = self._error_text(exc)
                decided = [Verdict(id=d.id, relevant=None, failed=True, error=error) for d in batch]
            for i, verdict in zip(pending, decided):
                verdicts[i] = verdict
                if self.cache and not verdict.failed:
                    self.cache.put(keys[i], verdict, model=profile.model, prompt_version=version)
        self._record("judge", usage)
        return Judgement(verdicts=[v for v in verdicts if v is not None], usage=usage)

    async def answer(self, question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        """A draft answer citing evidence ids; garbage gets one repair, then ``failed=True``."""
        profile = self.profiles["answerer"]
        if profile is None:
            return await self._offline.answer(question, evidence)
        usage = Usage()
        try:
            draft = await self._ask(
                profile,
                "answerer",
                replies.answer_payload(question, evidence),
                lambda text: replies.parse_answer(text, evidence),
                usage,
            )
            draft.usage = usage
        except (ProviderError, ModelOutputError) as exc:
            if isinstance(exc, DeadlineExceeded):
                self._record("answerer", usage)
                raise
            usage.failures += 1
            draft = DraftAnswer(failed=True, error=self._error_text(exc), usage=usage)
        self._record("answerer", usage)
        return draft

    # --- the synthesis roles: the answerer's profile, the same call path ---

    async def decompose(self, question: str, parts: Sequence[Part], budget_tokens: int) -> Split:
        """Ask the decomposer how to split a slice; the groups come back as sent (the code repairs them)."""
        profile = self.profiles["answerer"]
        if profile is None:
            return await self._offline.decompose(question, parts, budget_tokens)
        usage = Usage()
        try:
            groups = await self._ask(profile, "decomposer", replies.decompose_payload(question, parts, budget_tokens),
                                     replies.parse_split, usage)
            result = Split(groups=groups, usage=usage)
        except (ProviderError, ModelOutputError) as exc:
            if isinstance(exc, DeadlineExceeded):
                self._record("decomposer", usage)
                raise
            usage.failures += 1
            result = Split(failed=True, error=self._error_text(exc), usage=usage)
        self._record("decomposer", usage)
        return result

    async def extract_leaf(self, question: str, evidence: Sequence[Evidence]) -> LeafExtract:
        """Ask a leaf worker for the question-relevant facts of one slice; garbage gets one repair, then fails."""
        profile = self.profiles["answerer"]
        if profile is None:
            return await self._offline.extract_leaf(question, evidence)
        usage = Usage()
        try:
            result = await self._ask(profile, "leaf", replies.leaf_payload(question, evidence), replies.parse_leaf,
                                     usage)
            result.usage = usage
        except (ProviderError, ModelOutputError) as exc:
            if isinstance(exc, DeadlineExceeded):
                self._record("leaf", usage)
                raise
            usage.failures += 1
            result = LeafExtract(failed=True, error=self._error_text(exc), usage=usage)
        self._record("leaf", usage)
        return result

    # --- one request, validated, with one repair retry ---

    async def _ask(
        self, profile: Profile, role: Role, payload: str, parse: Callable[[str], T], usage: Usage
    ) -> T:
        messages: list[dict[str, str]] = [
            {"role": "system", "content": replies.prompt(role).text},
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

    # --- transport: retries, backoff, timeouts, the shared semaphore ---

    async def _complete(
        self, profile: Profile, role: Role, messages: list[dict[str, str]], usage: Usage
    ) -> str:
        attempts = self.config.max_retries + 1
        for attempt in range(attempts):
            try:
                try:
                    return await self._attempt(profile, role, messages, usage)
                except _JsonModeRejected:
                    usage.retries += 1  # the same request without response_format; not a fault retry
                    return await self._attempt(profile, role, messages, usage)
            except _Retryable as retry:
                if attempt == attempts - 1:
                    raise retry.error from None
                delay = self._delay(attempt, retry.retry_after)
                remaining = self._remaining()
                if remaining is not None and delay >= remaining:
                    raise DeadlineExceeded(
                        f"{role}: the deadline passes before the next retry "
                        f"(last error: {retry.error.message})",
                        role=role,
                    ) from None
                log.warning(
                    "%s call failed (%s); retry %d/%d in %.2f s",
                    role,
                    retry.error.message,
                    attempt + 1,
                    attempts - 1,
                    delay,
                )
                usage.retries += 1
                await asyncio.sleep(delay)
        raise AssertionError("unreachable")

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.config.retry_after_cap)
        # Full jitter over an exponential window keeps concurrent retries from marching in step.
        window = self.config.backoff * (2**attempt)
        return window / 2 + random.uniform(0, window / 2)

    def _remaining(self) -> float | None:
        return None if self.deadline_at is None else self.deadline_at - time.monotonic()

    async def _attempt(
        self, profile: Profile, role: Role, messages: list[dict[str, str]], usage: Usage
    ) -> str:
        remaining = self._remaining()
        if remaining is not None and remaining <= 0:
            raise DeadlineExceeded(f"{role}: the reader's deadline has passed", role=role)
        timeout = self.config.timeout if remaining is None else min(self.config.timeout, remaining)
        state = self._state()
        mode_key = (profile.base_url, profile.model)
        async with state.semaphore:
            client, key = self._client(state, profile)
            request: dict[str, Any] = {
                "model": profile.model,
                "messages": messages,
                "temperature": profile.temperature,
                "max_tokens": profile.max_tokens,
            }
            use_json = self.config.json_mode and self._json_mode.get(mode_key, True)
            if use_json:
                request["response_format"] = {"type": "json_object"}
            start = time.perf_counter()
            usage.calls += 1
            try:
                async with asyncio.timeout(timeout):
                    response = await client.chat.completions.create(**request, timeout=timeout)
            except openai.BadRequestError as exc:
                if use_json and mode_key not in self._json_mode:
                    # Some servers reject response_format with a 400: ask again without it, and remember.
                    log.info("%s: %s rejected response_format; continuing without it", role, profile.host)
                    self._json_mode[mode_key] = False
                    raise _JsonModeRejected from None
                raise self._provider_error(exc, role, key) from None
            except openai.APIStatusError as exc:
                error = self._provider_error(exc, role, key)
                if exc.status_code in _RETRY_STATUSES or exc.status_code >= 500:
                    raise _Retryable(error, _retry_after(exc.response.headers)) from None
                raise error from None
            except (openai.APITimeoutError, TimeoutError):
                raise _Retryable(
                    ProviderError(f"{role}: no reply within {timeout:.2f} s", role=role)
                ) from None
            except openai.APIConnectionError as exc:
                raise _Retryable(
                    ProviderError(
                        f"{role}: cannot reach {profile.host}: {self._scrub(str(exc), key)}", role=role
                    )
                ) from None
            except ValueError as exc:  # a 200 whose body is not JSON: a server fault, worth a retry
                raise _Retryable(
                    ProviderError(
                        f"{role}: unreadable response body from {profile.host} ({type(exc).__name__})",
                        role=role,
                    )
                ) from None
            finally:
                usage.seconds += time.perf_counter() - start
        if use_json:
            self._json_mode.setdefault(mode_key, True)
        if response.usage is not None:
            usage.prompt_tokens += response.usage.prompt_tokens or 0
            usage.completion_tokens += response.usage.completion_tokens or 0
        content = response.choices[0].message.content if response.choices else None
        return content or ""

    async def aclose(self) -> None:
        """Close the HTTP clients opened in the running event loop."""
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
                max_retries=0,
                timeout=self.config.timeout,
                http_client=_http_client(profile),
            )
            state.clients[slot] = client
        return client, key

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


def _http_client(profile: Profile) -> Any:
    """Our own HTTP client (so no finaliser of the SDK's schedules a close on a loop that has ended).

    Plain-http endpoints (local servers) follow no redirects, so no TLS can happen and loading the CA store
    (a fifth of a second per event loop) is skipped; https endpoints get the SDK's defaults.
    """
    if (profile.base_url or "").startswith("http://"):
        return openai.DefaultAsyncHttpxClient(verify=False, follow_redirects=False)
    return openai.DefaultAsyncHttpxClient()


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
