"""The offline reader's extractor and assessor operations (mixed into :class:`~okf.readers.offline.OfflineReader`).

Extraction reads the modal structure of the section (:mod:`okf.readers.rulebook`); the assessor matches the
requirement's own terms in the subject (:mod:`okf.readers.offline_assess`). Deterministic, no network.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Sequence

from okf.readers import offline_assess
from okf.readers.assessment import (
    Applicability,
    ApplicabilityDecision,
    Assessment,
    RequirementOffer,
    SubjectText,
)
from okf.readers.base import Usage
from okf.readers.extraction import Extraction, Outline, RuleDraft, RuleStub, Section
from okf.readers.rulebook import GRAMMAR_VERSION, fill_rules, outline_rules, read_rules


def _usage(start: float) -> Usage:
    return Usage(calls=1, seconds=time.perf_counter() - start)


# Sections whose rules are kept between outline and fill calls (keyed by text hash and first line).
RULES_MEMO = 64


class OfflineRoles:
    """``extract``, ``outline``, ``fill``, ``applies`` and ``assess`` without a model."""

    _memo: OrderedDict[tuple[str, int, str], list[RuleDraft]]

    def role_identity(self, role: str) -> str:
        """What this reader's work in ``role`` depends on (the extraction cache keys on it)."""
        return f"offline/{GRAMMAR_VERSION}"

    def _rules(self, section: Section) -> list[RuleDraft]:
        # outline then fill read the same section: read it once.
        memo = self.__dict__.setdefault("_memo", OrderedDict())
        key = (section.sha256, section.first_line, section.id)
        if not section.sha256 or key not in memo:
            rules = read_rules(section)
            if not section.sha256:
                return rules
            memo[key] = rules
            if len(memo) > RULES_MEMO:
                memo.popitem(last=False)
        return memo[key]

    async def extract(self, section: Section) -> Extraction:
        """Every rule of the section, read from its modal structure."""
        start = time.perf_counter()
        return Extraction(rules=list(self._rules(section)), usage=_usage(start))

    async def outline(self, section: Section) -> Outline:
        """The section's rules as stubs (the same rules ``extract`` finds)."""
        start = time.perf_counter()
        return Outline(stubs=outline_rules(self._rules(section)), usage=_usage(start))

    async def fill(self, section: Section, stubs: Sequence[RuleStub]) -> Extraction:
        """The fields of each stub, in stub order."""
        start = time.perf_counter()
        return Extraction(rules=fill_rules(section, stubs, self._rules(section)), usage=_usage(start))

    async def applies(
        self, subject: SubjectText, question: str, requirements: Sequence[RequirementOffer]
    ) -> Applicability:
        """Each requirement on its own: does a subject sentence carry enough of its act's terms?"""
        start = time.perf_counter()
        sentences = offline_assess.subject_sentences(subject)
        context = offline_assess.context_terms(sentences)
        decisions = []
        for requirement in requirements:
            applies, reason, _ = offline_assess.applies(sentences, requirement, context)
            decisions.append(ApplicabilityDecision(id=requirement.id, applies=applies, reason=reason))
        return Applicability(decisions=decisions, usage=_usage(start))

    async def assess(self, subject: SubjectText, requirement: RequirementOffer) -> Assessment:
        """``needs_review`` unless a subject sentence states the act in the requirement's own terms."""
        start = time.perf_counter()
        sentences = offline_assess.subject_sentences(subject)
        verdict, rationale, where = offline_assess.assess(sentences, requirement)
        return Assessment(
            verdict=verdict,
            rationale=rationale,
            confidence=offline_assess.MATCH_CONFIDENCE if verdict != "needs_review" else None,
            start_line=where.start_line if where else None,
            end_line=where.end_line if where else None,
            usage=_usage(start),
        )
