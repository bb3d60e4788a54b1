"""The planner and the angle-aware judge of :class:`~okf.readers.llm.LLMReader` (mixed in).

Both go through the reader's one call path (``_ask``: a versioned prompt, validation, one repair retry,
transport retries): a reply still invalid after its repair, or a provider error, is a result with
``failed=True`` and the error. The planner reads with the selector's model (a navigation role: short
prompts, short replies); without one it plans offline. The angle-aware judge reads with the judge's model
and its judgment cache (keyed by the question and every angle); without one it judges offline.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from okf.errors import DeadlineExceeded, ModelOutputError, ProviderError
from okf.readers import plan_replies, replies
from okf.readers.base import Document, Judgement, Role, SignpostOffer, Usage, Verdict
from okf.readers.cache import judgment_key
from okf.readers.planning import AngleSelection, Plan, PlanHints

if TYPE_CHECKING:
    from okf.readers.cache import JudgmentCache
    from okf.readers.config import Profile
    from okf.readers.offline import OfflineReader

T = TypeVar("T")


class LLMPlan:
    """``plan`` (role ``planner``, the selector's profile), ``select_angles`` (role ``selector``) and
    ``judge_angles`` (role ``judge``)."""

    if TYPE_CHECKING:  # provided by LLMReader
        profiles: dict[Role, Profile | None]
        cache: JudgmentCache | None
        _offline: OfflineReader

        async def _ask(
            self,
            profile: Profile,
            role: Role,
            payload: str,
            parse: Callable[[str], T],
            usage: Usage,
            prompt: str | None = None,
        ) -> T: ...

        def _record(self, role: Role, usage: Usage) -> Usage: ...

        def _error_text(self, exc: ProviderError | ModelOutputError) -> str: ...

        @staticmethod
        def _scrub(text: str, key: str) -> str: ...

    async def plan(self, question: str, count: int | None, hints: PlanHints) -> Plan:
        """The question's parts and angles; an invalid reply gets one repair, then ``failed=True``."""
        profile = self.profiles["selector"]
        if profile is None:
            return await self._offline.plan(question, count, hints)
        usage = Usage()
        try:
            parts = await self._ask(
                profile, "planner", plan_replies.plan_payload(question, count, hints), plan_replies.parse_plan, usage
            )
            result = Plan(parts=parts, usage=usage)
        except (ProviderError, ModelOutputError) as exc:
            if isinstance(exc, DeadlineExceeded):
                self._record("planner", usage)
                exc.usage = usage
                raise
            usage.failures += 1
            result = Plan(failed=True, error=self._error_text(exc), usage=usage)
        self._record("planner", usage)
        return result

    async def select_angles(
        self, question: str, angles: Sequence[str], signposts: Sequence[SignpostOffer]
    ) -> AngleSelection:
        """For each angle, the signposts worth opening, in one call; an invalid reply gets one repair."""
        profile = self.profiles["selector"]
        if profile is None:
            return await self._offline.select_angles(question, angles, signposts)
        if not signposts:
            return AngleSelection(kept=[[] for _ in angles])
        usage = Usage()
        try:
            kept = await self._ask(
                profile,
                "selector",
                plan_replies.select_angles_payload(question, angles, signposts),
                lambda text: plan_replies.parse_angle_selection(text, angles, signposts),
                usage,
                prompt="select-angles",
            )
            result = AngleSelection(kept=kept, usage=usage)
        except (ProviderError, ModelOutputError) as exc:
            if isinstance(exc, DeadlineExceeded):
                self._record("selector", usage)
                exc.usage = usage
                raise
            usage.failures += 1
            result = AngleSelection(failed=True, error=self._error_text(exc), usage=usage)
        self._record("selector", usage)
        return result

    async def judge_angles(self, question: str, angles: Sequence[str], documents: Sequence[Document]) -> Judgement:
        """One verdict per document with the angles it answers: cached ones first, the rest in one call."""
        profile = self.profiles["judge"]
        if profile is None:
            return await self._offline.judge_angles(question, angles, documents)
        usage = Usage()
        version = replies.prompt("judge-angles").version
        endpoint = profile.base_url or "https://api.openai.com/v1"
        asked = json.dumps([question, list(angles)], ensure_ascii=False)
        keys = [judgment_key(profile.model, version, asked, d.sha256, endpoint=endpoint) for d in documents]
        verdicts: list[Verdict | None] = [
            self.cache.get(k, d.id) if self.cache else None for k, d in zip(keys, documents)
        ]
        key = os.environ.get(profile.api_key_env, "")
        for verdict in verdicts:
            if verdict is not None:
                verdict.reason = self._scrub(verdict.reason, key)
        usage.cache_hits = sum(v is not None for v in verdicts)
        pending = [i for i, v in enumerate(verdicts) if v is None]
        if pending:
            batch = [documents[i] for i in pending]
            try:
                decided = await self._ask(
                    profile,
                    "judge",
                    plan_replies.judge_angles_payload(question, angles, batch),
                    lambda text: plan_replies.parse_angle_verdicts(text, angles, batch),
                    usage,
                    prompt="judge-angles",
                )
            except (ProviderError, ModelOutputError) as exc:
                if isinstance(exc, DeadlineExceeded):
                    self._record("judge", usage)
                    exc.usage = usage
                    raise
                usage.failures += 1
                error = self._error_text(exc)
                decided = [Verdict(id=d.id, relevant=None, failed=True, error=error) for d in batch]
            for i, verdict in zip(pending, decided):
                verdicts[i] = verdict
                if self.cache and not verdict.failed:
                    self.cache.put(keys[i], verdict, model=profile.model, prompt_version=version, endpoint=profile.host)
        self._record("judge", usage)
        return Judgement(verdicts=[v for v in verdicts if v is not None], usage=usage)
