"""Test doubles for the extractor and assessor roles: a scripted reader and a loopback-server rule.

:class:`ScriptedRoleReader` is a :class:`~okf.testing.scripted.ScriptedReader` whose ``extract``, ``outline``,
``fill``, ``applies`` and ``assess`` replies are scripted too. Each script is a fixed reply or a callable
(plain or async) receiving the operation's arguments; shorthands:

- extract / fill: ``Extraction`` | list of ``RuleDraft``
- outline: ``Outline`` | list of ``RuleStub``
- applies: ``Applicability`` | list of ``bool | None`` (in offer order; ``None`` is a failed decision)
- assess: ``Assessment`` | ``str`` (the verdict as the reader gives it, any string) | ``None`` (a failure)

A role left unscripted is decided by the offline reader. :func:`roles_rule` answers the extractor and assessor
prompts on a :class:`~okf.testing.server.LoopbackServer` with the offline reader's decisions.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from okf.readers.assessment import (
    Applicability,
    ApplicabilityDecision,
    Assessment,
    RequirementOffer,
    SubjectText,
)
from okf.readers.base import Usage
from okf.readers.extraction import Extraction, Outline, RuleDraft, RuleStub, Section
from okf.testing.scripted import Script, ScriptedReader
from okf.testing.server import Rule, offline_rule, request_payload

ROLE_OPERATIONS = ("extract", "outline", "fill", "applies", "assess")


class ScriptedRoleReader(ScriptedReader):
    """A scripted reader for navigation, answering, extraction and compliance judgment."""

    def __init__(
        self,
        *,
        extract: Script = None,
        outline: Script = None,
        fill: Script = None,
        applies: Script = None,
        assess: Script = None,
        **scripts: Any,
    ) -> None:
        super().__init__(**scripts)
        self._roles = {"extract": extract, "outline": outline, "fill": fill, "applies": applies, "assess": assess}
        self.calls.update(dict.fromkeys(ROLE_OPERATIONS, 0))

    async def _role(self, name: str, *args: Any) -> Any:
        self.calls[name] += 1
        self.requests.append((name, "", list(args)))
        script = self._roles[name]
        if callable(script):
            reply = script(*args)
            return await reply if inspect.isawaitable(reply) else reply
        return script

    async def extract(self, section: Section) -> Extraction:
        """The scripted rules (offline when unscripted)."""
        if self._roles["extract"] is None:
            self.calls["extract"] += 1
            return await self._offline.extract(section)
        reply = await self._role("extract", section)
        return reply if isinstance(reply, Extraction) else Extraction(rules=list(reply), usage=Usage(calls=1))

    async def outline(self, section: Section) -> Outline:
        """The scripted skeleton (offline when unscripted)."""
        if self._roles["outline"] is None:
            self.calls["outline"] += 1
            return await self._offline.outline(section)
        reply = await self._role("outline", section)
        return reply if isinstance(reply, Outline) else Outline(stubs=list(reply), usage=Usage(calls=1))

    async def fill(self, section: Section, stubs: Sequence[RuleStub]) -> Extraction:
        """The scripted fields (offline when unscripted)."""
        if self._roles["fill"] is None:
            self.calls["fill"] += 1
            return await self._offline.fill(section, stubs)
        reply = await self._role("fill", section, list(stubs))
        return reply if isinstance(reply, Extraction) else Extraction(rules=list(reply), usage=Usage(calls=1))

    async def applies(
        self, subject: SubjectText, question: str, requirements: Sequence[RequirementOffer]
    ) -> Applicability:
        """The scripted applicability decisions (offline when unscripted)."""
        if self._roles["applies"] is None:
            self.calls["applies"] += 1
            return await self._offline.applies(subject, question, requirements)
        reply = await self._role("applies", subject, question, list(requirements))
        if isinstance(reply, Applicability):
            return reply
        decisions = [
            ApplicabilityDecision(id=r.id, applies=None, failed=True, error="scripted failure")
            if a is None
            else ApplicabilityDecision(id=r.id, applies=bool(a), reason="scripted")
            for r, a in zip(requirements, reply, strict=True)
        ]
        return Applicability(decisions=decisions, usage=Usage(calls=1))

    async def assess(self, subject: SubjectText, requirement: RequirementOffer) -> Assessment:
        """The scripted assessment (offline when unscripted)."""
        if self._roles["assess"] is None:
            self.calls["assess"] += 1
            return await self._offline.assess(subject, requirement)
        reply = await self._role("assess", subject, requirement)
        if isinstance(reply, Assessment):
            return reply
        if reply is None:
            return Assessment(failed=True, error="scripted failure", usage=Usage(calls=1, failures=1))
        return Assessment(verdict=reply, rationale="scripted", usage=Usage(calls=1))


def _section(payload: dict[str, Any]) -> Section:
    data = payload["section"]
    lines = [line.split(" | ", 1)[1] if " | " in line else "" for line in data["text"].split("\n")]
    return Section(id=data["id"], title=data["title"], text="\n".join(lines), first_line=data["first_line"], sha256="")


def _subject(payload: dict[str, Any]) -> SubjectText:
    data = payload["subject"]
    lines = [line.split(" | ", 1)[1] if " | " in line else "" for line in data["text"].split("\n")]
    return SubjectText(name=data["name"], text="\n".join(lines))


def roles_rule(base: Rule | None = None) -> Rule:
    """A loopback rule answering extract/outline/fill/applies/assess with the offline reader's decisions
    (and every other task with ``base``, by default :func:`~okf.testing.server.offline_rule`)."""
    from okf.readers import offline_assess
    from okf.readers.rulebook import fill_rules, outline_rules, read_rules

    inner = base or offline_rule()

    def rule(request: dict[str, Any]) -> Any:
        payload = request_payload(request)
        task = payload.get("task")
        if task in ("extract", "outline", "fill"):
            section = _section(payload)
            rules = read_rules(section)
            if task == "outline":
                return {
                    "rules": [
                        {"requirement_text": s.requirement_text, "lines": [s.start_line, s.end_line]}
                        for s in outline_rules(rules)
                    ]
                }
            if task == "fill":
                stubs = [
                    RuleStub(
                        index=r["index"],
                        requirement_text=r["requirement_text"],
                        start_line=r["lines"][0],
                        end_line=r["lines"][1],
                    )
                    for r in payload["rules"]
                ]
                filled = fill_rules(section, stubs, rules)
                return {"requirements": [dict(_fields(d), index=s.index) for s, d in zip(stubs, filled)]}
            return {
                "requirements": [
                    dict(_fields(d), requirement_text=d.requirement_text, lines=[d.start_line, d.end_line])
                    for d in rules
                ]
            }
        if task == "applies":
            sentences = offline_assess.subject_sentences(_subject(payload))
            context = offline_assess.context_terms(sentences)
            decisions = []
            for item in payload["requirements"]:
                applies, reason, _ = offline_assess.applies(sentences, RequirementOffer(**item), context)
                decisions.append({"index": item["index"], "applies": applies, "reason": reason})
            return {"decisions": decisions}
        if task == "assess":
            sentences = offline_assess.subject_sentences(_subject(payload))
            offer = RequirementOffer(index=0, **payload["requirement"])
            verdict, rationale, where = offline_assess.assess(sentences, offer)
            return {
                "verdict": verdict,
                "rationale": rationale,
                "confidence": 0.5,
                "lines": [where.start_line, where.end_line] if where else None,
            }
        return inner(request)

    return rule


def _fields(draft: RuleDraft) -> dict[str, Any]:
    return {
        "deontic_type": draft.deontic_type,
        "actor": draft.actor,
        "applicability": draft.applicability,
        "evidence_standard": draft.evidence_standard,
    }


__all__ = ["ROLE_OPERATIONS", "ScriptedRoleReader", "roles_rule"]
