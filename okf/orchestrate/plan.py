"""The plan of an orchestration: the question's parts and the angles to walk, from the reader's planner or
the offline one, with every fallback and every dropped angle said in the trace.

- A reader with a planner (``plan``, okf.readers.planning) is asked first; a failed plan (an invalid reply
  after its repair, a provider error) falls back to the offline plan, recorded as a ``failure`` event and in
  ``Orchestration.fallback``.
- A question that decomposes into nothing (no part, or no content words) is walked as asked.
- Angles whose terms repeat an earlier angle's (:func:`okf.readers.angles.angle_key`) are dropped, each
  recorded with the angle it repeats.
- The question itself is the first angle (part 0 when it has several parts, walked beside them).
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field

from okf.bundle import Bundle
from okf.errors import DeadlineExceeded, OKFError
from okf.models import AngleRecord, PartRecord
from okf.navigator.trace import TraceRecorder
from okf.readers.angles import angle_key, plan_offline
from okf.readers.base import Reader, Usage
from okf.readers.planning import Plan, PlanHints, PlannedPart, Planner
from okf.text.vocabulary import Vocabulary

# Terms of the bundle's top-level signposts given to a planner as the bundle's vocabulary.
HINT_TERMS = 40
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,7}\b")


@dataclass
class Planned:
    """The plan in orchestration terms: parts, angles (ids a1, a2, ...), what fell back, what it cost."""

    parts: list[PartRecord]
    angles: list[AngleRecord]
    planner: str
    fallback: str | None = None
    usage: Usage = field(default_factory=Usage)


def hints(bundle: Bundle, question: str, vocabulary: Vocabulary | None) -> PlanHints:
    """The bundle's vocabulary a planner may use: acronyms the question uses (either form), the titles of the
    top-level signposts and the key terms their descriptions end with."""
    acronyms: dict[str, str] = {}
    if vocabulary is not None:
        folded = question.casefold()
        for short in _ACRONYM.findall(question):
            if short in vocabulary.acronyms:
                acronyms[short] = vocabulary.acronyms[short]
        for short, long in vocabulary.acronyms.items():
            if len(long) > 3 and long.casefold() in folded:
                acronyms[short] = long
    terms: list[str] = []
    try:
        signposts = bundle.listing("").signposts
    except OKFError:
        signposts = []
    for signpost in signposts:
        terms.append(signpost.title)
        _, _, keys = signpost.description.rpartition("Key terms:")
        terms += [t.strip(" .") for t in keys.split(",") if t.strip(" .")]
    return PlanHints(acronyms=dict(sorted(acronyms.items())), terms=list(dict.fromkeys(terms))[:HINT_TERMS])


async def make_plan(
    reader: Reader,
    question: str,
    count: int | None,
    bundle: Bundle,
    vocabulary: Vocabulary | None,
    trace: TraceRecorder,
    *,
    single: bool = False,
    first: AngleRecord | None = None,
    deadline: float | None = None,
) -> Planned:
    """Plan ``question`` (``count`` angles per part; None: the planner's choice), falling back as the module
    docstring says, and record the ``plan`` and ``angle`` events. ``single``: the question alone, unplanned.
    ``first`` is the question's angle record when its walk started before the plan came. ``deadline`` (a
    ``time.monotonic()`` instant) bounds the planner's call: a plan not come by then has failed."""
    usage = Usage()
    fallback: str | None = None
    planner = reader.name
    parts: list[PlannedPart] = []
    if single:
        return _records(
            question, [PlannedPart(question=question, angles=[])], "none (angles off)", None, usage, trace, first
        )
    if isinstance(reader, Planner):
        try:
            async with asyncio.timeout(None if deadline is None else max(0.0, deadline - time.monotonic())):
                plan = await reader.plan(question, count, hints(bundle, question, vocabulary))
        except TimeoutError:
            plan = Plan(failed=True, error="no plan came before the deadline", usage=Usage(calls=1, failures=1))
        except DeadlineExceeded as exc:
            plan = Plan(failed=True, error=str(exc), usage=getattr(exc, "usage", None) or Usage(calls=1, failures=1))
        except OKFError as exc:  # readers report failures in the result; tolerate one that raises anyway
            plan = Plan(failed=True, error=str(exc), usage=Usage(calls=1, failures=1))
        usage = plan.usage
        if plan.failed:
            usage = usage.model_copy(update={"failures": max(1, usage.failures)})
            fallback = f"the plan failed ({plan.error or 'no reason given'}); the offline plan was used"
            trace.add("failure", None, role="planner", error=plan.error or "the plan failed")
        else:
            parts = plan.parts
    if fallback is not None or not isinstance(reader, Planner):
        planner = "offline"
        parts = plan_offline(question, vocabulary, count)
    if not parts or not any(angle_key(a.text) for p in parts for a in p.angles):
        fallback = (fallback + "; " if fallback else "") + "the question decomposes into nothing: walked as asked"
        parts = [PlannedPart(question=question, angles=[])]
    return _records(question, parts, planner, fallback, usage, trace, first)


def _records(
    question: str,
    parts: list[PlannedPart],
    planner: str,
    fallback: str | None,
    usage: Usage,
    trace: TraceRecorder,
    first: AngleRecord | None = None,
) -> Planned:
    """Part and angle records, the question itself first (``first``, when its walk already started; part 0 when
    the question has several parts), duplicates dropped (and said; the same text twice is one angle)."""
    records: list[PartRecord] = [PartRecord(index=n, question=p.question) for n, p in enumerate(parts, start=1)]
    angles: list[AngleRecord] = []
    seen: dict[frozenset[str], str] = {}
    texts: set[str] = set()

    def add(text: str, origin: str, part: int, record: AngleRecord | None = None) -> None:
        if text in texts:
            return
        texts.add(text)
        angle = record or AngleRecord(id=f"a{len(angles) + 1}", text=text, origin=origin, part=part, round=0)
        angle.part = part
        key = angle_key(text)
        if key in seen or not key:
            angle.note = f"a duplicate of {seen[key]}" if key in seen else "no words to look for"
            trace.add("angle", None, id=angle.id, text=text, origin=origin, part=part, dropped=angle.note)
            angles.append(angle)
            return
        seen[key] = angle.id
        angles.append(angle)

    several = len(parts) > 1
    add(question, "question", 0 if several else 1, first)
    for n, part in enumerate(parts, start=1):
        add(part.question, "subquestion" if several else "rephrasing", n)  # the part as asked
        for angle in part.angles:
            add(angle.text, angle.origin, n)
    trace.add(
        "plan",
        None,
        planner=planner,
        parts=[p.question for p in records],
        fallback=fallback,
        angles=len([a for a in angles if a.note is None]),
    )
    return Planned(records, angles, planner, fallback, usage)
