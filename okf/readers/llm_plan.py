"""The planner and the angle-aware judge of :class:`~okf.readers.llm.LLMReader` (mixed in).

Both go through the reader's one call path (``_ask``: a versioned prompt, validation, one repair retry,
transport retries): a reply still invalid after its repair, or a provider error, is a result with
``failed=True`` and the error. The planner reads with the selector's model (a navigation role: short
prompts, short replies); without one it plans offline. The angle-aware judge reads with the judge's model
and its judgment cache (keyed by the question and every angle); without one it judges offline.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from okf.readers import plan_replies
from okf.readers.base import Document, Judgement, Role, SignpostOffer, Usage, Verdict
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

        async def _attempt(
            self,
            profile: Profile,
            role: Role,
            payload: str,
            parse: Callable[[str], T],
            usage: Usage,
            prompt: str | None = None,
        ) -> tuple[T | None, str | None]: ...

        async def _judge_cached(
            self,
            profile: Profile,
            prompt: str,
            asked: str,
            documents: Sequence[Document],
            payload: Callable[[Sequence[Document]], str],
            parse: Callable[[str, Sequence[Document]], list[Verdict]],
        ) -> Judgement: ...

        def _record(self, role: Role, usage: Usage) -> Usage: ...

    async def plan(self, question: str, count: int | None, hints: PlanHints) -> Plan:
        """The question's parts and angles; an invalid reply gets one repair, then ``failed=True``."""
        profile = self.profiles["selector"]
        if profile is None:
            return await self._offline.plan(question, count, hints)
        usage = Usage()
        parts, error = await self._attempt(
            profile, "planner", plan_replies.plan_payload(question, count, hints), plan_replies.parse_plan, usage
        )
        self._record("planner", usage)
        if error is not None:
            return Plan(failed=True, error=error, usage=usage)
        return Plan(parts=parts or [], usage=usage)

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
        kept, error = await self._attempt(
            profile,
            "selector",
            plan_replies.select_angles_payload(question, angles, signposts),
            lambda text: plan_replies.parse_angle_selection(text, angles, signposts),
            usage,
            prompt="select-angles",
        )
        self._record("selector", usage)
        if error is not None:
            return AngleSelection(failed=True, error=error, usage=usage)
        return AngleSelection(kept=kept or [], usage=usage)

    async def judge_angles(self, question: str, angles: Sequence[str], documents: Sequence[Document]) -> Judgement:
        """One verdict per document with the angles it answers: cached ones first (keyed by the question and
        every angle), the rest in one call."""
        profile = self.profiles["judge"]
        if profile is None:
            return await self._offline.judge_angles(question, angles, documents)
        return await self._judge_cached(
            profile,
            "judge-angles",
            json.dumps([question, list(angles)], ensure_ascii=False),
            documents,
            lambda batch: plan_replies.judge_angles_payload(question, angles, batch),
            lambda text, batch: plan_replies.parse_angle_verdicts(text, angles, batch),
        )
