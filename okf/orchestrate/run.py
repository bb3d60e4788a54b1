"""The orchestration loop (seed 003, Blocks 2 to 5): plan, walk the angles in parallel, cross-check, then
stop, try new angles in the same source family, or escalate to another, within the walk caps.

- Round 1 walks the planned angles (the first ``AUTO_ANGLES`` of a one-part question, ``AUTO_PART_ANGLES``
  of each part of a question with several, beside the whole question; ``--angles N``: N each) in every
  bundle given, angle by angle, all at once, sharing one visited set, one judgment cache and one budget.
- **sufficient**: stop. **insufficient**: a new round in the same family: second hops (names the evidence
  introduces, okf.orchestrate.hops) and the planned angles not walked yet; when nothing at all was found,
  beside them the other families (okf.orchestrate.escalate) so that a corpus boundary can be told.
  **suspicious**: one composite escalation round; still suspicious after it: stop.
- Caps (Block 4): no new round past ``SOFT_CAP`` walks except an escalation, never past ``HARD_CAP``.
- Stops (Block 5): ``sufficient``, ``suspicious`` (unresolved after one escalation), ``cap``, ``boundary``
  (no result from any angle nor from another family), ``exhausted`` (nothing new left to try), ``budget``
  (the navigation budgets ran out). The result says which, and what remains uncertain.

A round may spend ``ROUND_SHARE`` of the bodies left (the last round possible, all of them), so later rounds
keep something to read with.

Second hops do not wait for the round's end (the round's slowest walk): as soon as a walk's judge grades a
concept relevant to a part whose evidence so far leaves the part unanswered, the bridges it names are walked
at once in the same ledger (``_evidence``), so a multi-hop question's second paragraph is read while the
first round still runs. A hop walk is short (``HOP_BODIES`` batches of its own at most) and reads first
among the walks of its ledger, as the question's own walk does. A hop whose start another walk of the round
has already claimed, or that the round's bodies left nothing to read with, is walked in the next round
instead (once).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field

from okf.bundle import Bundle
from okf.errors import BundleError
from okf.models import (
    AngleRecord,
    Budgets,
    EscalationRecord,
    NavigationResult,
    Orchestration,
    RoundRecord,
    ShortlistEntry,
)
from okf.navigator.receipts import receipt
from okf.navigator.trace import Progress, TraceRecorder
from okf.navigator.walk import Shared, Start, Walk
from okf.orchestrate.crosscheck import Check, Found, cross_check, unsaid
from okf.orchestrate.escalate import AXES, Family, families
from okf.orchestrate.hops import second_hops
from okf.orchestrate.names import PREFIX_MIN, resolve, title_spans, titles_said
from okf.orchestrate.plan import Planned, make_plan
from okf.orchestrate.result import assemble
from okf.orchestrate.views import AngleView, Judgments, settle
from okf.readers.angles import AUTO_ANGLES, AUTO_PART_ANGLES, angle_key, name_spans
from okf.readers.base import Reader, Usage
from okf.readers.matching import Unit
from okf.text.vocabulary import Vocabulary
from okf.text.words import compact

SOFT_CAP = 8
HARD_CAP = 12
ROUND_SHARE = 0.8
# The bodies of a second hop's walk, in judge batches: its named concepts and what their links reach.
HOP_BATCHES = 1
# The bodies of the other angles' walks in the first round, and of every walk of a later round (the critical
# path: rounds run one after the other, and a walk that reads more bodies lasts longer), in judge batches.
SIDE_BATCHES = 4
LATER_BATCHES = 2


@dataclass
class Source:
    """One bundle given: the bundle, its root (as results name it) and the reader bound to its vocabulary."""

    bundle: Bundle
    root: str
    reader: Reader
    vocabulary: Vocabulary | None


@dataclass
class Job:
    """One walk to run: an angle, the bundle (index into the sources), where it starts."""

    angle: AngleRecord
    source: int
    start: Start | None = None
    early: bool = False  # a second hop started during the round that found its bridge


@dataclass
class Live:
    """The round running: its number, budgets, and the jobs, walks and tasks started so far (hops join)."""

    number: int
    budgets: Budgets
    jobs: list[Job] = field(default_factory=list)
    walks: list[Walk] = field(default_factory=list)
    tasks: list[asyncio.Task[NavigationResult]] = field(default_factory=list)
    read: dict[int, int] = field(default_factory=dict)  # walk index -> entries of walk.found looked at
    early: dict[tuple[str, str], Found] = field(default_factory=dict)  # relevant evidence graded so far


@dataclass
class State:
    """What the rounds accumulate."""

    found: dict[tuple[str, str], Found] = field(default_factory=dict)
    order: list[tuple[str, str]] = field(default_factory=list)
    results: list[NavigationResult] = field(default_factory=list)
    opened: list[set[str]] = field(default_factory=list)
    walked_in: dict[str, set[int]] = field(default_factory=dict)  # angle text -> bundles it was walked in
    judged: set[tuple[str, str]] = field(default_factory=set)
    reserve: list[AngleRecord] = field(default_factory=list)
    tried: set[frozenset[str]] = field(default_factory=set)
    hopped: set[tuple[str, str]] = field(default_factory=set)  # concepts second hops were drawn from
    later_hops: list[Job] = field(default_factory=list)  # hops made during a round, walked in the next one
    rewalked: set[str] = field(default_factory=set)  # hop angles moved to a later round once
    walks: int = 0
    escalated: bool = False
    alternate_tried: bool = False


class Orchestrator:
    """One orchestrated navigation of ``sources`` for ``question``; :meth:`run` returns the result."""

    def __init__(
        self,
        sources: list[Source],
        question: str,
        reader: Reader,
        budgets: Budgets,
        count: int | None,
        progress: Progress | None = None,
        *,
        single: bool = False,
    ) -> None:
        self.single = single  # angles off: the question alone, one round (several bundles)
        self.sources = sources
        self.question = question
        self.reader = reader
        self.budgets = budgets
        self.count = count
        self.progress = progress
        self.started = time.monotonic()
        self.events: list = []
        self.trace = TraceRecorder(progress, events=self.events, start=self.started)
        limit = getattr(reader, "concurrency", None)
        self.shared = Shared(slot_limit=limit if isinstance(limit, int) and limit > 0 else None)
        self.judgments = Judgments(question)
        self.state = State(opened=[set() for _ in sources])
        self.report = Orchestration(
            angles_setting="off" if single else str(count) if count else "auto", planner=reader.name
        )
        self.usage: dict[str, Usage] = {}
        self.live: Live | None = None
        self.named: dict[tuple[str, str], set[str]] | None = None

    # -- the loop --------------------------------------------------------------------------------------

    async def run(self) -> NavigationResult:
        primary = self.sources[0]
        question = AngleRecord(id="a1", text=self.question, origin="question", part=1, round=0)
        planning = asyncio.ensure_future(
            make_plan(
                primary.reader,
                self.question,
                self.count,
                primary.bundle,
                primary.vocabulary,
                self.trace,
                single=self.single,
                first=question,
                deadline=self.started + self.budgets.deadline_s,
            )
        )
        await asyncio.sleep(0)  # a planner that needs no model call (offline) has planned now
        if planning.done():
            jobs, later = self._planned(planning.result()), None
        else:
            # The question's own walks start at once; the planned angles join the round when the plan comes.
            self.report.angles = [question]
            jobs = [Job(question, n, self._named_start(question, n)) for n in range(len(self.sources))]
            later = self._join(planning, question)
        while True:
            await self._round(jobs, later)
            later = None
            check = self._check()
            more = self._next(check)
            if more is None:
                break
            jobs = more
        try:
            return assemble(self, check)
        finally:
            # The ledger and its walks hold each other: let go of them, so that reference counting frees what
            # the walks allocated (a cycle would wait for the cyclic collector; okf.collector).
            self.shared.walks.clear()

    def _planned(self, planned: Planned) -> list[Job]:
        self._spend("planner", planned.usage)
        self.report.planner, self.report.fallback = planned.planner, planned.fallback
        self.report.parts, self.report.angles = planned.parts, planned.angles
        return self._first_round(planned.angles)

    async def _join(self, planning: asyncio.Future[Planned], question: AngleRecord) -> list[Job]:
        """The first round's other walks, once the plan came (the question's already walk)."""
        jobs = self._planned(await planning)
        return [job for job in jobs if job.angle is not question]

    def _first_round(self, angles: list[AngleRecord]) -> list[Job]:
        """The planned angles walked first, the rest kept in reserve; every bundle, angle by angle."""
        usable = [a for a in angles if a.note is None]
        parts = {a.part for a in usable if a.part > 0}
        per = 1 if self.single else self.count or (AUTO_ANGLES if len(parts) <= 1 else AUTO_PART_ANGLES)
        first: list[AngleRecord] = []
        taken: dict[int, int] = {}
        for angle in usable:
            self.state.tried.add(angle_key(angle.text))
            if angle.part == 0 or taken.get(angle.part, 0) < per:
                taken[angle.part] = taken.get(angle.part, 0) + 1
                first.append(angle)
            else:
                self.state.reserve.append(angle)
        jobs = [Job(a, n, self._named_start(a, n)) for a in first for n in range(len(self.sources))]
        for job in jobs[SOFT_CAP:]:
            job.angle.note = f"not walked: the first round holds {SOFT_CAP} walks"
        return jobs[:SOFT_CAP]

    async def _round(self, jobs: list[Job], later: Awaitable[list[Job]] | None = None) -> None:
        """Walk ``jobs`` at once, ``later``'s jobs when they come, and the second hops their evidence names as
        it is graded: one visited set, the judgments, the budgets, one clock and one trace."""
        number = len(self.report.rounds) + 1
        round_started = time.monotonic()
        self.shared.seen = set()
        self.shared.queued = set()
        self.shared.passed = {}  # what this round's walks pass over (keys of earlier rounds' walks mean nothing)
        self.shared.walks.clear()
        self.judgments.new_round([])
        live = self.live = Live(number, self._round_budgets(len(jobs)))
        try:
            self._start(jobs, live)
            if later is not None:
                self._start(await later, live)
            while True:  # hops join while the round runs
                running = [t for t in live.tasks if not t.done()]
                if not running:
                    break
                await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                self._curb(live)
            results = [t.result() for t in live.tasks]
        finally:
            self.live = None
            for task in live.tasks:
                task.cancel()
            if live.tasks:
                await asyncio.gather(*live.tasks, return_exceptions=True)
            await settle(self.judgments)
        self.state.walks += len(live.jobs)
        for job, walk, result in zip(live.jobs, live.walks, results):
            self._collect(job, walk, result)
            if job.early and not result.stats.bodies_judged and job.angle.text not in self.state.rewalked:
                # Started when the round's bodies were spent: walked in the next round instead.
                self.state.rewalked.add(job.angle.text)
                self.state.later_hops.append(Job(job.angle, job.source, job.start))
        self.report.rounds.append(
            RoundRecord(
                round=number,
                angles=list(dict.fromkeys(j.angle.id for j in live.jobs)),
                state="insufficient",
                bodies=self.shared.bodies,
                seconds=round(time.monotonic() - round_started, 6),
            )
        )

    def _start(self, jobs: list[Job], live: Live) -> None:
        """Start the walks of ``jobs`` in the round running (their angles join what the judge and selector read)."""
        number, budgets = live.number, live.budgets
        self.judgments.walking += [job.angle for job in jobs]
        for job in jobs:
            job.angle.round = number
            job.angle.walked = True
            if job.angle not in self.judgments.angles:
                self.judgments.angles.append(job.angle)
            job.angle.family = job.angle.family or "bundle"
            root = self.sources[job.source].root
            if len(self.sources) > 1 and root not in job.angle.bundles:
                job.angle.bundles.append(root)
            self.trace.add(
                "angle",
                None,
                id=job.angle.id,
                text=job.angle.text,
                origin=job.angle.origin,
                part=job.angle.part,
                round=number,
                family=job.angle.family,
                **({"bundle": root} if len(self.sources) > 1 else {}),
                **({"source": job.angle.source} if job.angle.source else {}),
            )
        for job in jobs:
            source = self.sources[job.source]
            view = AngleView(source.reader, self.judgments, job.angle, source.root)
            recorder = TraceRecorder(self.progress, events=self.events, start=self.started, tag={"angle": job.angle.id})
            walk = Walk(
                source.bundle, job.angle.text, view, budgets, shared=self.shared, start=job.start, trace=recorder
            )
            hop = job.angle.origin == "second_hop"
            # The question's own walk, and a hop (the question's next step), read first in the ledger.
            walk.leads = hop or job.angle.origin in ("question", "subquestion")
            if hop:
                own = HOP_BATCHES * budgets.batch_size + len(job.start.concepts if job.start else ())
                walk.budgets = walk.budgets.model_copy(update={"max_bodies": own})
            elif walk.leads and number == 1:
                own = max(1, self.budgets.max_bodies - self.shared.bodies)
                walk.budgets = walk.budgets.model_copy(update={"max_bodies": own})
            elif number == 1 or self.shared.bodies > 0:
                # Another angle beside the question's walk, or a walk of a later round once something was
                # read (a later round that is the first to read, after a first round with nothing to walk,
                # keeps the round's budget): a short walk.
                batches = SIDE_BATCHES if number == 1 else LATER_BATCHES
                own = min(budgets.max_bodies, batches * budgets.batch_size)
                walk.budgets = walk.budgets.model_copy(update={"max_bodies": own})
            if not self.single:
                index = len(live.walks)
                view.judged = lambda job=job, walk=walk, index=index: self._evidence(job, walk, index)
            live.jobs.append(job)
            live.walks.append(walk)
            live.tasks.append(asyncio.ensure_future(walk.run()))
            self.state.walked_in.setdefault(job.angle.text, set()).add(job.source)

    def _round_budgets(self, walks: int) -> Budgets:
        """The budgets of each walk of this round: the bodies the round may spend (held by the shared ledger,
        the walks reading in turn), the calls, tokens and time left."""
        left = max(0, self.budgets.max_bodies - self.shared.bodies)
        last = self.single or self.state.walks + walks >= HARD_CAP
        allowance = left if last or self.report.rounds else max(1, int(left * ROUND_SHARE))
        self.shared.max_bodies = self.shared.bodies + allowance
        self.shared.lead_max_bodies = self.budgets.max_bodies
        remaining = self.budgets.deadline_s - (time.monotonic() - self.started)
        return self.budgets.model_copy(update={"max_bodies": max(1, allowance), "deadline_s": max(0.01, remaining)})

    def _curb(self, live: Live) -> None:
        """Once every leading walk of the round (the question's, its parts', the hops) has ended, the other
        angles' walks end too: they finish the judgments they have sent and start nothing more, so that a
        round lasts about as long as its leading walks (one step more), not as long as its slowest angle."""
        if not any(w.leads for w in live.walks) or any(
            w.leads and not t.done() for w, t in zip(live.walks, live.tasks)
        ):
            return
        for walk, task in zip(live.walks, live.tasks):
            if not task.done() and walk.stopped_by is None:
                walk._stop("bodies")

    def _evidence(self, job: Job, walk: Walk, index: int) -> None:
        """A judge reply of ``walk`` was recorded: for each concept it newly graded relevant, when the evidence
        of its part so far leaves the part unanswered, the bridges it names (okf.orchestrate.hops) are walked
        now, in this round's ledger; a hop whose start another walk of the round claimed waits for the next
        round (it would find nothing)."""
        live = self.live
        if live is None or index >= len(live.walks) or live.walks[index] is not walk:
            return
        source = self.sources[job.source]
        fresh = walk.found[live.read.get(index, 0) :]
        live.read[index] = len(walk.found)
        for item in fresh:
            key = (source.root, item.entry.path)
            if key in self.state.hopped or key in live.early or key in self.state.found:
                continue
            # Relevant to some angle (a walk sees a body relevant to other angles only as partial).
            answers = self.judgments.answers_of(source.root, item.entry.receipt.sha256)
            if not item.strong and not answers:
                continue
            try:
                concept = source.bundle.load(item.entry.path)
            except BundleError:
                continue
            found = Found(item.entry, concept, source.root, answers, job.angle.origin)
            live.early[key] = found
            self._early_hops(found, live)

    def _named(self) -> dict[tuple[str, str], set[str]]:
        """The concepts whose title is a name the question says (okf.orchestrate.names), in every bundle, with
        the names the question says them by."""
        if self.named is None:
            named: dict[tuple[str, str], set[str]] = {}
            for source in self.sources:
                for span in name_spans(self.question):
                    for path in resolve(source.bundle, span.text):
                        named.setdefault((source.root, path), set()).add(span.text)
                for _, said, path in title_spans(source.bundle, self.question):
                    named.setdefault((source.root, path), set()).add(said)
            self.named = named
        return self.named

    def bridged(self) -> frozenset[tuple[str, str]]:
        """The concepts second hops walked to: the pages titled by the names the evidence introduced."""
        return frozenset(
            (source.root, path)
            for angle in self.report.angles
            if angle.origin == "second_hop" and angle.walked
            for source in self.sources
            for path in resolve(source.bundle, angle.text)
        )

    def bridges_needed(self, bridged: frozenset[tuple[str, str]]) -> frozenset[tuple[str, str]]:
        """``bridged`` when some part, on the evidence its walks found besides those pages, is left unanswered
        (``crosscheck.unsaid``): the pages a second hop walked to are the rest of the answer then; else none
        (a hop drawn from a name in the first evidence found, before the rest of it was judged, led to a page
        the question does not need: "Technology Preview" of a release note, for a question about overriding
        translations that its own walks answer)."""
        if not bridged:
            return bridged
        found = self._found()
        others = [s.vocabulary for s in self.sources[1:]]
        own: set[str] = set()
        for part in self.report.parts:
            ids = {a.id for a in self.report.angles if a.walked and a.part == part.index and a.origin != "second_hop"}
            own |= {
                a.id for a in self.report.angles if a.part == part.index and a.origin in ("question", "subquestion")
            }
            evidence = [f for f in found if f.answers & ids and (f.bundle, f.entry.path) not in bridged]
            if unsaid(part.question, evidence, self.sources[0].vocabulary, others):
                return bridged
        return frozenset(
            (f.bundle, f.entry.path)
            for f in found
            if (f.bundle, f.entry.path) in bridged and (f.answers | f.bears) & own
        )

    def named_apart(self) -> frozenset[tuple[str, str]]:
        """The named concepts whose folder is not itself the thing named (the title page of a contract the
        question names sits in that contract's folder, and is no more about it than its other pages): no
        folder above it is named by the name's first half (at least ``PREFIX_MIN`` letters)."""
        out = set()
        for (root, path), names in self._named().items():
            folder = compact(path.rpartition("/")[0])
            probes = [compact(name) for name in names]
            if not any(p[: max(PREFIX_MIN, len(p) // 2)] in folder for p in probes):
                out.add((root, path))
        return frozenset(out)

    def _early_hops(self, found: Found, live: Live) -> None:
        room = SOFT_CAP - self.state.walks - len(live.jobs) - len(self.state.later_hops)
        if room <= 0:
            return
        known = [*self._found(), *live.early.values()]
        others = [s.vocabulary for s in self.sources[1:]]
        for part in self.report.parts:
            ids = {a.id for a in self.report.angles if a.walked and a.part == part.index}
            if not found.answers & ids:
                continue
            evidence = [f for f in known if f.answers & ids]
            gap = unsaid(part.question, evidence, self.sources[0].vocabulary, others)
            # With the part's words all said somewhere, only a name of the thing the question describes by
            # its kind ("a conference" -> "America East Conference") still bridges: what the question asks
            # of it is said, if anywhere, on its own page.
            described = not gap and (found.bundle, found.entry.path) not in self._named()
            for text, came_from in self._bridges(part.question, [found], gap, described=described):
                angle = self._angle(text, "second_hop", part.index, came_from)
                for hop in self._hop_jobs(angle, room):
                    room -= 1
                    hop.early = True
                    concepts = hop.start.concepts if hop.start else ()
                    if all(path in self.shared.seen for path, _, _ in concepts):
                        self.state.later_hops.append(hop)
                    else:
                        self._start([hop], live)
            return

    def _collect(self, job: Job, walk: Walk, result: NavigationResult) -> None:
        source = self.sources[job.source]
        if isinstance(walk.reader, AngleView):
            walk.reader.judged = None  # the walk ended: its callback (which holds the walk) is done with
        self.state.results.append(result)
        self.state.opened[job.source] |= walk.opened
        self.state.judged |= {
            (source.root, e.path)
            for e in result.trace
            if e.kind == "verdict" and e.path and e.data.get("angle") == job.angle.id
        }
        job.angle.bodies = result.stats.bodies_judged
        job.angle.stopped_by = result.stopped_by
        for role, usage in result.stats.usage.items():
            self._spend(role, usage, counted=True)
        number = len(self.state.results)
        doubts = {f.entry.path: f.doubt for f in walk.found}
        for rank, entry in enumerate(_everything(walk, result)):
            key = (source.root, entry.path)
            known = self.state.found.get(key)
            if known is None:
                concept = source.bundle.load(entry.path)
                self.state.found[key] = Found(
                    entry,
                    concept,
                    source.root,
                    by=job.angle.origin,
                    place=(rank, number),
                    key=walk.keys[entry.path],
                    doubt=doubts.get(entry.path, 0),
                )
                self.state.order.append(key)
            elif known.entry.grade == "partial" and entry.grade == "relevant":
                known.entry = entry
        for key in self.state.order:
            found = self.state.found[key]
            if found.bundle == source.root:
                found.answers = self.judgments.answers_of(found.bundle, found.entry.receipt.sha256)
                found.bears = self.judgments.bears_of(found.bundle, found.entry.receipt.sha256)
        job.angle.relevant = [k[1] for k in self.state.order if job.angle.id in self.state.found[k].answers]

    def _spend(self, role: str, usage: Usage, counted: bool = False) -> None:
        self.usage[role] = self.usage.get(role, Usage()) + usage
        if not counted:  # walks count their own calls in the shared ledger; the planner's are added here
            self.shared.calls_done += usage.calls
            self.shared.tokens += usage.tokens

    # -- after a round ---------------------------------------------------------------------------------

    def _found(self) -> list[Found]:
        return [self.state.found[k] for k in self.state.order]

    def _check(self) -> Check:
        check = cross_check(
            self.question,
            self.report.parts,
            self.report.angles,
            self._found(),
            self.sources[0].vocabulary,
            [s.vocabulary for s in self.sources[1:]],
        )
        self.report.parts = check.parts
        last = self.report.rounds[-1]
        last.state, last.why, last.signals = check.state, check.why, check.signals
        last.relevant = sum(f.relevant for f in self._found())
        if self.report.escalations and self.report.escalations[-1].resolved is None:
            self.report.escalations[-1].resolved = check.state != "suspicious"
        self.trace.add(
            "round",
            None,
            round=last.round,
            state=check.state,
            why=check.why,
            signals=check.signals,
            relevant=last.relevant,
            bodies=self.shared.bodies,
        )
        return check

    def _next(self, check: Check) -> list[Job] | None:
        """The next round's walks, or None after recording the stop."""
        if self.single:
            self._stop("off", "angles off: the question was walked once in each bundle")
            return None
        if check.state == "sufficient":
            self._stop("sufficient", "the angles converge: every part has relevant evidence")
            return None
        spent = self._spent_budget()
        if spent:
            self._stop("budget", f"the {spent} budget ran out")
            return None
        failed = sum(r.stats.failures for r in self.state.results[-len(self.report.rounds[-1].angles) :])
        if failed and not any(f.relevant for f in self._found()):
            self._stop(
                "failed",
                f"{failed} model call result(s) failed and nothing relevant was found: the bundle was not fully read",
            )
            return None
        if check.state == "suspicious":
            if self.state.escalated:
                self._stop("suspicious", "still suspicious after one composite escalation round")
                return None
            jobs = self._escalation(check, HARD_CAP)
            jobs += self._insufficient(check, min(SOFT_CAP, HARD_CAP - len(jobs)) - self.state.walks)
            if jobs:
                return jobs
            self._stop("suspicious", "suspicious, and no other source family nor angle left to try")
            return None
        nothing = not any(f.relevant for f in self._found())
        if nothing and self.state.alternate_tried:
            self._stop(
                "boundary",
                "no angle found relevant evidence, in this family nor in another: the "
                "answer does not seem to be in the bundle",
            )
            return None
        room = SOFT_CAP - self.state.walks
        jobs = self._insufficient(check, room)
        if nothing and room - len(jobs) > 0:
            jobs += self._alternate(room - len(jobs))
        if jobs:
            return jobs
        if room <= 0:
            self._stop("cap", f"the soft cap of {SOFT_CAP} walks was reached")
            return None
        if nothing and any(e.kind == "read_on" for e in self.events):
            # No family was left because the walks themselves read on into every group the selector passed
            # over (a reader that reads on, okf.readers.base): nothing anywhere is a boundary as well.
            self._stop(
                "boundary",
                "no angle found relevant evidence, and the walks read on into every group the selector passed "
                "over: the answer does not seem to be in the bundle",
            )
            return None
        if nothing:
            self._stop(
                "exhausted", "no angle found relevant evidence, and no other angle or source family was left to try"
            )
            return None
        self._stop("exhausted", "no new angle was left to try")
        return None

    def _spent_budget(self) -> str | None:
        b = self.budgets
        if self.shared.bodies >= b.max_bodies:
            return "bodies"
        if self.shared.calls_done >= b.max_calls:
            return "calls"
        if self.shared.tokens >= b.max_tokens:
            return "tokens"
        if time.monotonic() - self.started >= b.deadline_s:
            return "deadline"
        return None

    def _insufficient(self, check: Check, room: int) -> list[Job]:
        """New angles in the same family: second hops for parts whose evidence leaves words unsaid, planned
        angles not walked yet for parts without evidence (or without hops)."""
        jobs: list[Job] = []
        if room <= 0:
            return jobs
        # Hops made during the last round that could not be walked in it.
        jobs += [Job(j.angle, j.source, j.start) for j in self.state.later_hops[:room]]
        self.state.later_hops.clear()
        found = self._found()
        for part in check.parts:
            gap = check.gaps.get(part.index, [])
            evidence = [f for f in found if f.entry.path in part.evidence]
            added = 0
            fresh = [f for f in evidence if (f.bundle, f.entry.path) not in self.state.hopped]
            if fresh and gap:
                # Each concept yields its bridges once: a later round hops from what is left unread of it and
                # from evidence found since.
                for text, came_from in self._bridges(part.question, fresh, gap):
                    jobs += self._hop_jobs(self._angle(text, "second_hop", part.index, came_from), room - len(jobs))
                    added += 1
            if (not evidence or not added) and (not evidence or gap):
                reserve = [a for a in self.state.reserve if a.part == part.index]
                for angle in reserve[:1]:
                    self.state.reserve.remove(angle)
                    jobs += self._jobs(angle, room - len(jobs))
            if len(jobs) >= room:
                break
        return jobs[:room]

    def _resolves(self, name: str) -> bool:
        return any(resolve(source.bundle, name) for source in self.sources)

    def _elsewhere(self, name: str, path: str) -> bool:
        """``name`` is the title of a concept other than ``path`` (the evidence saying it): a paragraph's own
        subject is no bridge away from it."""
        return any(p != path for source in self.sources for p in resolve(source.bundle, name))

    def _another_document(self, name: str, path: str) -> bool:
        """``name`` is the title of a concept of another document than ``path``'s (by the source its
        provenance cites, else its folder): a heading of the same contract ("Assignee") leads nowhere new."""
        for source in self.sources:
            here = _document(source.bundle, path)
            if any(p != path and _document(source.bundle, p) != here for p in resolve(source.bundle, name)):
                return True
        return False

    def _named_start(self, angle: AngleRecord, source: int) -> Start | None:
        """The root, and first the concepts bearing a name the angle says as their title (an index lookup,
        okf.orchestrate.names); None (the root alone) when no name resolves."""
        bundle = self.sources[source].bundle
        said = [(span.start, p) for span in name_spans(angle.text) for p in resolve(bundle, span.text)]
        said += titles_said(bundle, angle.text)
        # In the order the angle says them (a sort is stable: a name's own titles keep their order).
        targets = list(dict.fromkeys(p for _, p in sorted(said, key=lambda place: place[0])))
        if not targets:
            return None
        return Start(concepts=tuple((p, (-1, k), "") for k, p in enumerate(targets)))

    def _bridges(
        self, question: str, evidence: list[Found], gap: list[Unit], *, described: bool = False
    ) -> list[tuple[str, str]]:
        """The second hops ``evidence`` opens for ``question`` (bridge text, the concept it came from); the
        concepts read to the end are marked hopped, so each yields its bridges once. ``described``: only
        names of a thing the question describes by its kind (okf.orchestrate.hops)."""
        hops, done = second_hops(
            question,
            evidence,
            gap,
            self.sources[0].vocabulary,
            self.state.tried,
            self._resolves,
            only=self._another_document if described else self._elsewhere,
            described=described,
        )
        if not described:
            self.state.hopped |= {(f.bundle, f.entry.path) for f in done}
        return hops

    def _hop_jobs(self, angle: AngleRecord, room: int) -> list[Job]:
        """A second hop's walks: from the concepts its name is the title of (okf.orchestrate.names), in each
        bundle where one bears it."""
        jobs: list[Job] = []
        for n, source in enumerate(self.sources):
            targets = resolve(source.bundle, angle.text)
            if targets:
                jobs.append(
                    Job(
                        angle,
                        n,
                        Start(
                            directories=(), concepts=tuple((p, (k,), angle.source or "") for k, p in enumerate(targets))
                        ),
                    )
                )
        angle.family = "titles"
        jobs = jobs[: max(0, room)]
        if not jobs:
            angle.note = "not walked: the walk cap was reached"
        return jobs

    def _jobs(self, angle: AngleRecord, room: int) -> list[Job]:
        if angle not in self.report.angles:
            self.report.angles.append(angle)
        jobs = [Job(angle, n) for n in range(len(self.sources))][: max(0, room)]
        if not jobs:
            angle.note = "not walked: the walk cap was reached"
        return jobs

    def _angle(self, text: str, origin: str, part: int, source: str | None, family: str = "") -> AngleRecord:
        angle = AngleRecord(
            id=f"a{len(self.report.angles) + 1}",
            text=text,
            origin=origin,
            part=part,
            round=0,
            source=source,
            family=family,
        )
        self.report.angles.append(angle)
        return angle

    def _families(self, axes: tuple[str, ...], text: str) -> list[Family]:
        walked_in = self.state.walked_in.get(text, set())
        return families(
            [s.bundle for s in self.sources], self._found(), self.state.judged, walked_in, self.state.opened, axes
        )

    def _escalation(self, check: Check, cap: int) -> list[Job]:
        """One walk per source family available (composite), asking the whole question again there."""
        text = self.question
        jobs: list[Job] = []
        for family in self._families(AXES, text)[: max(0, cap - self.state.walks)]:
            angle = self._angle(
                text, "escalation", 0 if len(self.report.parts) > 1 else 1, family.came_from, family.axis
            )
            jobs.append(Job(angle, family.source, family.start))
        if jobs:
            self.state.escalated = True
            record = EscalationRecord(
                round=len(self.report.rounds) + 1,
                axes=[j.angle.family for j in jobs],
                why=list(check.why),
                angles=[j.angle.id for j in jobs],
            )
            self.report.escalations.append(record)
            self.trace.add(
                "escalation", None, round=record.round, axes=record.axes, why=record.why, angles=record.angles
            )
        return jobs

    def _alternate(self, room: int) -> list[Job]:
        """Nothing found anywhere: the whole question in the other families (bundles, unopened groups)."""
        jobs: list[Job] = []
        for family in self._families(("bundle", "groups"), self.question)[:room]:
            angle = self._angle(
                self.question, "escalation", 0 if len(self.report.parts) > 1 else 1, family.came_from, family.axis
            )
            jobs.append(Job(angle, family.source, family.start))
        if jobs:
            self.state.alternate_tried = True
            record = EscalationRecord(
                round=len(self.report.rounds) + 1,
                axes=[j.angle.family for j in jobs],
                why=["no angle found relevant evidence"],
                angles=[j.angle.id for j in jobs],
            )
            self.report.escalations.append(record)
            self.trace.add(
                "escalation", None, round=record.round, axes=record.axes, why=record.why, angles=record.angles
            )
        return jobs

    def _stop(self, stop: str, reason: str) -> None:
        """Record why the orchestration stops; the caller returns None (no further round)."""
        for job in self.state.later_hops:
            job.angle.note = job.angle.note or f"not walked: the orchestration stopped ({stop})"
        self.report.stop = stop  # type: ignore[assignment]
        self.report.stop_reason = reason


def _everything(walk: Walk, result: NavigationResult) -> list[ShortlistEntry]:
    """What a walk found, its shortlist first, then the partial entries its own shortlist left out (a walk
    keeps partial entries only beside little strong evidence of its own angle; the merged shortlist decides
    that for the question), each with its receipt."""
    listed = {e.path for e in result.shortlist}
    rest = sorted((f for f in walk.found if f.entry.path not in listed), key=lambda f: walk.keys[f.entry.path])
    return list(result.shortlist) + [
        f.entry.model_copy(update={"receipt": receipt("c0", f.entry.path, f.offered)}) for f in rest
    ]


def entry_of(found: Found) -> ShortlistEntry:
    return found.entry


def _document(bundle: Bundle, path: str) -> str:
    """The document a concept comes from: the first source its provenance cites, else its folder."""
    try:
        sources = bundle.load(path).meta.sources
    except BundleError:
        return path.rpartition("/")[0]
    return sources[0].resource if sources and sources[0].resource else path.rpartition("/")[0]
