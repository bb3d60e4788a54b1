"""The extractor, assessor and describer operations of :class:`~okf.readers.llm.LLMReader` (mixed in).

Each goes through the reader's one call path (``_ask``: the role's versioned prompt, validation, one repair
retry, transport retries), so the roles keep the same retry and failure rules as select, judge and answer: a
reply still invalid after its repair, or a provider error, is a result with ``failed=True`` and the error,
never an empty list of rules or a verdict. A role with no model configured reads offline (the describer has no
offline form: without its model, ``describe`` and ``title`` fail, and the compile keeps its extractive text).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from okf.readers import describing, role_replies
from okf.readers.assessment import (
    Applicability,
    ApplicabilityDecision,
    Assessment,
    RequirementOffer,
    SubjectText,
)
from okf.readers.base import Role, Usage
from okf.readers.describing import ConceptOffer, Descriptions, GroupOffer, Titles
from okf.readers.extraction import Extraction, Outline, RuleStub, Section

if TYPE_CHECKING:
    from okf.readers.config import Profile
    from okf.readers.offline import OfflineReader

T = TypeVar("T")


class LLMRoles:
    """``extract``, ``outline``, ``fill`` (role ``extractor``), ``applies``, ``assess`` (role ``assessor``) and
    ``describe``, ``title`` (role ``describer``)."""

    if TYPE_CHECKING:  # provided by LLMReader
        profiles: dict[Role, Profile | None]
        _offline: OfflineReader

        async def _attempt(
            self, profile: Profile, role: Role, payload: str, parse: Callable[[str], T], usage: Usage
        ) -> tuple[T | None, str | None]: ...

        def _record(self, role: Role, usage: Usage) -> Usage: ...

    def role_identity(self, role: Role) -> str:
        """What this reader's work in ``role`` depends on: its model and endpoint (the extraction cache keys on it)."""
        profile = self.profiles[role]
        if profile is None:
            return self._offline.role_identity(role)
        return f"{profile.model}@{profile.base_url or 'https://api.openai.com/v1'}"

    async def _role_call(
        self, role: Role, payload: str, parse: Callable[[str], T]
    ) -> tuple[T | None, Usage, str | None]:
        """One validated call for ``role``: (value, usage, None) or (None, usage, error text)."""
        profile = self.profiles[role]
        assert profile is not None
        usage = Usage()
        value, error = await self._attempt(profile, role, payload, parse, usage)
        self._record(role, usage)
        return value, usage, error

    async def extract(self, section: Section) -> Extraction:
        """Every rule of the section with its fields, in one call."""
        if self.profiles["extractor"] is None:
            return await self._offline.extract(section)
        rules, usage, error = await self._role_call(
            "extractor",
            role_replies.extract_payload(section, "extract"),
            lambda text: role_replies.parse_rules(text, section),
        )
        return Extraction(rules=rules or [], failed=error is not None, error=error, usage=usage)

    async def outline(self, section: Section) -> Outline:
        """The skeleton of a long section: every rule's sentence and lines."""
        if self.profiles["extractor"] is None:
            return await self._offline.outline(section)
        stubs, usage, error = await self._role_call(
            "extractor",
            role_replies.extract_payload(section, "outline"),
            lambda text: role_replies.parse_stubs(text, section),
        )
        return Outline(stubs=stubs or [], failed=error is not None, error=error, usage=usage)

    async def fill(self, section: Section, stubs: Sequence[RuleStub]) -> Extraction:
        """The fields of the given stubs, one rule per stub, in order."""
        if self.profiles["extractor"] is None:
            return await self._offline.fill(section, stubs)
        rules, usage, error = await self._role_call(
            "extractor",
            role_replies.fill_payload(section, stubs),
            lambda text: role_replies.parse_fill(text, section, stubs),
        )
        return Extraction(rules=rules or [], failed=error is not None, error=error, usage=usage)

    async def applies(
        self, subject: SubjectText, question: str, requirements: Sequence[RequirementOffer]
    ) -> Applicability:
        """One applicability decision per requirement; a failed call fails every decision of the batch."""
        if self.profiles["assessor"] is None:
            return await self._offline.applies(subject, question, requirements)
        if not requirements:
            return Applicability(decisions=[])
        decisions, usage, error = await self._role_call(
            "assessor",
            role_replies.applies_payload(subject, question, requirements),
            lambda text: role_replies.parse_decisions(text, requirements),
        )
        if decisions is None:
            decisions = [ApplicabilityDecision(id=r.id, applies=None, failed=True, error=error) for r in requirements]
        return Applicability(decisions=decisions, usage=usage)

    async def assess(self, subject: SubjectText, requirement: RequirementOffer) -> Assessment:
        """The verdict on one requirement as the model gives it (okf closes the vocabulary in code)."""
        if self.profiles["assessor"] is None:
            return await self._offline.assess(subject, requirement)
        found: Any
        found, usage, error = await self._role_call(
            "assessor",
            role_replies.assess_payload(subject, requirement),
            lambda text: role_replies.parse_assessment(text, subject),
        )
        if found is None:
            return Assessment(failed=True, error=error, usage=usage)
        return found.model_copy(update={"usage": usage})

    async def describe(self, concepts: Sequence[ConceptOffer]) -> Descriptions:
        """A description and key terms for each concept of a batch; a failed call fails them all."""
        if self.profiles["describer"] is None:
            return Descriptions(failed=True, error="no describer model is configured")
        if not concepts:
            return Descriptions()
        items, usage, error = await self._role_call(
            "describer",
            describing.describe_payload(concepts),
            lambda text: describing.parse_descriptions(text, concepts),
        )
        return Descriptions(items=items or [], failed=error is not None, error=error, usage=usage)

    async def title(self, parent: str, groups: Sequence[GroupOffer]) -> Titles:
        """A title for each sibling group, telling them apart; a failed call fails them all."""
        if self.profiles["describer"] is None:
            return Titles(failed=True, error="no describer model is configured")
        if not groups:
            return Titles()
        titles, usage, error = await self._role_call(
            "describer", describing.title_payload(parent, groups), lambda text: describing.parse_titles(text, groups)
        )
        return Titles(titles=titles or [], failed=error is not None, error=error, usage=usage)
