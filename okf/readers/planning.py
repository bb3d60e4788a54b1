"""The plan role and the angle-aware judge, beside the :class:`~okf.readers.base.Reader` protocol.

Orchestration (okf.orchestrate) asks a reader two more things, when it can:

- ``plan(question, count, hints)``: the question as parts (sub-questions) and, for each, the *angles* to walk
  it by: other questions with the same intent (rephrased, from another viewpoint, at another granularity, in
  the bundle's own vocabulary). ``count`` is the number of angles wanted per part (None: the planner's
  choice, 3 to 5). ``hints`` carry the bundle's own vocabulary (acronyms the question uses, the top-level
  signposts' words).
- ``judge_angles(question, angles, documents)``: one verdict per document, as ``judge``, plus ``answers``:
  the indices of the angles the document states the answer to. A body is read once for every angle.
- ``select_angles(question, angles, signposts)``: for each angle, the signposts worth opening (as ``select``):
  a listing is read once for every angle walking it. A reader whose ``select_angles`` is only its ``select``
  of each angle on its own (no model call to share, the offline reader) says ``selects_apart = True``: an
  orchestration then selects each angle only when its walk opens the listing.

Both follow the reader rules: a failed plan is returned with ``failed=True`` (the orchestrator then falls
back to the offline plan and says so), a failed verdict is failed, never "not relevant".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from okf.readers.base import Choice, Document, Judgement, SignpostOffer, Usage

# Where an angle comes from. The planner gives the first five; orchestration adds the others.
AngleOrigin = Literal[
    "question", "subquestion", "rephrasing", "viewpoint", "granularity", "vocabulary", "second_hop", "escalation"
]
PLANNED_ORIGINS: tuple[str, ...] = ("question", "subquestion", "rephrasing", "viewpoint", "granularity", "vocabulary")
# Angles per part at most, and parts per question at most (seed 003, Block 2: 3 to 5 angles).
MAX_ANGLES = 5
MAX_PARTS = 4
ANGLE_CHARS = 300


class PlannedAngle(BaseModel):
    """One way of asking a part: its text and where it comes from."""

    text: str
    origin: AngleOrigin = "rephrasing"


class PlannedPart(BaseModel):
    """One sub-question (the whole question when it has one part) and its angles, the part itself first."""

    question: str
    angles: list[PlannedAngle] = Field(default_factory=list)


class Plan(BaseModel):
    """The planner's reply: parts with angles. ``failed`` when no valid plan could be had."""

    parts: list[PlannedPart] = Field(default_factory=list)
    failed: bool = False
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


class PlanHints(BaseModel):
    """The bundle's own vocabulary a planner may substitute: acronyms the question uses (either form) with
    their expansions, and terms of the bundle's top-level signposts (titles, key terms)."""

    acronyms: dict[str, str] = Field(default_factory=dict)
    terms: list[str] = Field(default_factory=list)


class AngleSelection(BaseModel):
    """The selector's reply for several angles: ``kept[k]`` are the signposts kept for angle ``k``."""

    kept: list[list[Choice]] = Field(default_factory=list)
    failed: bool = False
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


@runtime_checkable
class Planner(Protocol):
    """A reader that can plan angles (the offline reader and LLMReader can)."""

    async def plan(self, question: str, count: int | None, hints: PlanHints) -> Plan: ...


@runtime_checkable
class AngleJudge(Protocol):
    """A reader that judges a body once for several angles (the offline reader and LLMReader can)."""

    async def judge_angles(self, question: str, angles: Sequence[str], documents: Sequence[Document]) -> Judgement: ...


@runtime_checkable
class AngleSelector(Protocol):
    """A reader that reads a listing once for several angles (the offline reader and LLMReader can)."""

    async def select_angles(
        self, question: str, angles: Sequence[str], signposts: Sequence[SignpostOffer]
    ) -> AngleSelection: ...
