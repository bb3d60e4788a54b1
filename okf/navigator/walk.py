"""The walk: progressive disclosure over a bundle, with concurrent descent and a pool of judge batches.

Two kinds of task run on one event loop and share the state below:

- a *descent* per opened directory: it collects every concept of the directory as a candidate (a reader that
  orders concepts grades their signposts first: those it chooses are read before the others), offers the
  selector the subdirectory signposts (paged), and starts one descent per kept subdirectory at once, so
  sibling subtrees are explored concurrently;
- a *judge batch*: the pump takes up to ``batch_size`` candidates from the queue as soon as any exist (while
  descents go on), admits them against the budgets and judges them as one call; batches run in parallel.
  Full batches leave at once. A partial batch waits a short coalescing window (a small share of the model's
  observed call time, capped) while other tasks may still add candidates, so candidates of sibling
  directories and links found by concurrent batches share calls instead of each taking a half-empty one.

A relevant concept joins the shortlist and its links join the queue (lateral expansion). Every candidate
carries a key that encodes its place in the walk (listing positions along the tree, then link positions),
so the shortlist order does not depend on which task happened to finish first (a concept reached by two
routes is ordered by the earlier place).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, Literal

from okf.bundle import Bundle
from okf.bundle.citations import bundle_path
from okf.bundle.model import Concept, Signpost
from okf.errors import BundleError, DeadlineExceeded, OKFError
from okf.models import Budgets, NavigationResult, NavigationStats, ShortlistEntry, StopReason
from okf.navigator.receipts import Offered, offer, receipt
from okf.navigator.trace import Progress, TraceRecorder, failure_reasons, summarize_reasons
from okf.readers.base import DOUBT, Judgement, Reader, Selection, SignpostOffer, Usage, Verdict, deadline

# Judge batches admitted at once. The reader bounds the calls really in flight; this cap keeps candidates
# queued (so later batches fill up to batch_size) instead of admitting many half-empty batches early.
MAX_BATCHES_IN_FLIGHT = 16
# The coalescing window of a partial batch: this share of the mean model call time seen so far in the walk,
# at most COALESCE_MAX_S. Calls sent in one burst come back within a small share of a call of each other
# (their spread is the client's own CPU time per call), so a tenth of a call catches most of them while
# adding little to a round; nothing is held before the first call has come back.
COALESCE_SHARE = 0.1
COALESCE_MAX_S = 0.05
# Budgets whose stop lets admitted judge batches finish (they were within budget); the others cancel them.
_DRAIN = {"bodies", "calls"}
# Readers are told the walk's deadline (okf.readers.base.deadline) and end their calls by it, saying what they
# waited for; the walk's own timeout fires this much later, only for readers that ignore it.
DEADLINE_GRACE_S = 0.25
_RESERVED = {"index.md", "log.md"}
# The doubt a concept the selector did not choose adds to its directory's, for a reader that orders concepts:
# read after what it chose faintly (okf.readers.base.DOUBT), but still read: every concept of an opened
# directory is a candidate.
UNCHOSEN = DOUBT["faint"] + 1

Key = tuple[int, ...]


def partial_room(strong: int, max_shortlist: int) -> int:
    """How many partial entries a shortlist with ``strong`` strong entries keeps: partial evidence fills in up
    to half the shortlist (rounded up), two places fewer for each strong entry (it gives way quickly as strong
    evidence is found: a question answered three times over needs no partial evidence beside it)."""
    return max(0, (max_shortlist + 1) // 2 - 2 * strong)


@lru_cache(maxsize=16_384)
def paid_words(text: str) -> int:
    """Words of ``text`` as a reader pays for them (whitespace-separated); remembered per text, as every walk
    offered a listing counts its signposts' words again, and a body's words are counted when judged and when
    shortlisted."""
    return len(text.split())


@dataclass(frozen=True)
class Candidate:
    """A concept waiting to be judged, its walk-order key and how it was reached."""

    path: str
    key: Key
    via: Literal["descent", "link"]
    source: str = ""  # the directory it was collected from, or the concept whose link reached it
    weak: int = 0  # weak choices of the selector on the way to it (judged after those with fewer)


class Frontier:
    """Candidates waiting to be judged. Those reached through strong choices of the selector (fewer weak
    choices on the way) are taken first; among equals, in turn from each source (round robin), so the body
    budget is shared across the directories opened and the links followed: one large directory cannot spend
    it all before the others are read."""

    def __init__(self) -> None:
        self._queues: dict[tuple[int, str], deque[Candidate]] = {}
        self._turns: dict[int, deque[tuple[int, str]]] = {}
        self._size = 0

    def append(self, candidate: Candidate) -> None:
        key = (candidate.weak, candidate.source)
        queue = self._queues.get(key)
        if queue is None:
            queue = self._queues[key] = deque()
            self._turns.setdefault(candidate.weak, deque()).append(key)
        queue.append(candidate)
        self._size += 1

    def popleft(self) -> Candidate:
        level = min(self._turns)
        turn = self._turns[level]
        while True:
            key = turn[0]
            queue = self._queues[key]
            if queue:
                turn.rotate(-1)
                self._size -= 1
                candidate = queue.popleft()
                if not queue:
                    turn.remove(key)
                    del self._queues[key]
                    if not turn:
                        del self._turns[level]
                return candidate
            turn.popleft()
            del self._queues[key]

    def __len__(self) -> int:
        return self._size

    @property
    def level(self) -> int:
        """The fewest weak choices behind a waiting candidate: the level read next (the queue is not empty)."""
        return min(self._turns)

    def __bool__(self) -> bool:
        return self._size > 0


@dataclass(frozen=True)
class _Found:
    entry: ShortlistEntry
    offered: Offered
    strong: bool  # graded relevant; a partial (weak) entry gives way to strong ones
    # Relevant to another angle of an orchestration (okf.orchestrate.views: partial to this walk, whose
    # angle it does not answer); still relevant evidence the navigation found.
    elsewhere: bool = False
    doubt: int = 0  # the doubt on the way to it (Candidate.weak): partial evidence of surer places is kept first


@dataclass
class Shared:
    """What walks run side by side share (okf.orchestrate runs several at once): the concepts claimed for
    judging (one walk judges each), the bodies, calls and tokens spent against one set of budgets, and the
    reader's call slots. A walk run alone has its own."""

    seen: set[str] = field(default_factory=set)
    queued: set[str] = field(default_factory=set)  # concepts some walk queued (each counted once a candidate)
    bodies: int = 0
    max_bodies: int | None = None  # bodies all walks may send together (None: each walk's own budget only)
    lead_max_bodies: int | None = None  # the same for the walk of the question as asked (None: max_bodies)
    calls_done: int = 0
    calls_in_flight: int = 0  # calls sent and not yet settled (admitted against the budgets)
    tokens: int = 0
    slot_limit: int | None = None
    slots_held: int = 0
    waiters: deque[asyncio.Future[None]] = field(default_factory=deque)
    walks: list[Walk] = field(default_factory=list)
    # Directories the walks' selector passed over, by the doubt they would be read at (a reader that reads
    # on, okf.readers.base): the last walk of the ledger to run out of work opens them when none found anything.
    passed: dict[int, list[tuple[str, int, Key]]] = field(default_factory=dict)
    # The offers of each page the walks offered and the words they cost, by (concepts?, the page's signposts):
    # every angle's walk of an orchestration offers the same listings (``Walk._offers``).
    offers: dict[tuple[bool, tuple[int, ...]], tuple[list[Signpost], list[SignpostOffer], int]] = field(
        default_factory=dict
    )


@dataclass(frozen=True)
class Start:
    """Where a walk begins: directories to open (path, walk-order key) and concepts to judge first (reached
    ``via: link``). The default is the root."""

    directories: tuple[tuple[str, Key], ...] = (("", ()),)
    concepts: tuple[tuple[str, Key, str], ...] = ()  # path, key, the concept or directory it came from


def _drop_cancellation(task: asyncio.Task[Any]) -> None:
    """Let go of the CancelledError a cancelled task keeps: its traceback holds the task's frames, whose locals
    hold the task (a descent passes itself to its selector calls) and the walk, a cycle only the cyclic
    collector frees; without it, a walk ends without cycles and reference counting frees what it allocated."""
    try:
        task.result()
    except asyncio.CancelledError:
        pass


class Walk:
    """One navigation of ``bundle`` for ``question``; :meth:`run` returns the :class:`NavigationResult`."""

    def __init__(
        self,
        bundle: Bundle,
        question: str,
        reader: Reader,
        budgets: Budgets,
        progress: Progress | None = None,
        *,
        shared: Shared | None = None,
        start: Start | None = None,
        trace: TraceRecorder | None = None,
    ) -> None:
        self.bundle = bundle
        self.question = question
        bind = getattr(reader, "bind", None)
        # A reader that weighs words by the bundle's own statistics (the offline reader) reads them first.
        self.reader: Reader = bind(bundle.vocabulary()) if callable(bind) else reader
        self.budgets = budgets
        self.trace = trace if trace is not None else TraceRecorder(progress)
        self.stats = NavigationStats()
        self.usage = {"selector": Usage(), "judge": Usage()}
        self.stopped_by: StopReason | None = None
        self.depth_blocked = False
        self.now = datetime.now(UTC)
        self.queue = Frontier()
        self.keys: dict[str, Key] = {}
        self.links_of: dict[str, list[tuple[str, int]]] = {}  # expanded concept -> (target, link position)
        self.opened: set[str] = set()
        self.weakness: dict[str, int] = {"": 0}  # directory -> weak selector choices on the way to it
        self.level = 0  # directories with at most this many weak choices on the way are opened now
        self.deferred: dict[int, list[tuple[str, int, Key]]] = {}  # the others, by weakness
        self.reads_on = getattr(self.reader, "reads_on", False) is True
        # A reader whose calls cost no round trip (okf.readers.base ``coalesce``) never has a batch held for
        # the coalescing window: the walk then does not depend on the clock.
        self.coalesces = getattr(self.reader, "coalesce", True) is not False
        self.found: list[_Found] = []
        self.verdicts_ok = 0
        # Running tasks in the order they were made (dicts as ordered sets): when a walk stops, they are
        # cancelled in that order, not in the order of their addresses, so a walk repeats itself run after run.
        self.descents: dict[asyncio.Task[None], None] = {}
        self.open_descents = 0  # descents that may still add candidates (not yet past their selection)
        self.judges: dict[asyncio.Task[None], None] = {}
        # Calls the reader sends at once (its ``concurrency``; None: no limit). A call is admitted against the
        # budgets only once it holds a slot, so calls waiting for one are never counted as spent.
        self._own_ledger = shared is None  # a walk run alone lets go of its ledger when it ends (``run``)
        if shared is None:
            limit = getattr(reader, "concurrency", None)
            shared = Shared(slot_limit=limit if isinstance(limit, int) and limit > 0 else None)
        self.shared = shared
        self.leads = False  # the walk of the question as asked: angles of the same ledger read after it, at equal level
        shared.walks.append(self)
        self.seen = shared.seen
        self.start = start or Start()
        self._sending: dict[asyncio.Task[object], int] = {}  # descent -> its selector calls sent, in flight
        self._pump_scheduled = False
        self._hold_until: float | None = None  # loop time when a waiting partial batch must leave
        self._flush_timer: asyncio.TimerHandle | None = None
        self._call_seconds = 0.0  # model time of the calls returned so far, for the coalescing window
        self._calls_timed = 0
        self._done = asyncio.Event()
        self._error: BaseException | None = None

    # -- the run ---------------------------------------------------------------------------------------

    async def run(self) -> NavigationResult:
        """Walk until the work runs out or a budget ends it; cancel what is left cleanly."""
        # Only a corpus id known without a pass over the bundle (its compile manifest, or computed before):
        # without a manifest the id would stat or hash every file, a cost that grows with the bundle while
        # the walk's does not. Receipts pin the text each verdict rests on by its sha256. Read beside the
        # model's calls; a reader whose calls cost no round trip has nothing to overlap it with, and a thread
        # answering at a moment the machine's load decides would move when the walk ends among the others of
        # an orchestration: for it, the id is read here.
        corpus_id: asyncio.Future[str | None]
        if self.coalesces:
            corpus_id = asyncio.ensure_future(asyncio.to_thread(self.bundle.known_corpus_id))
        else:
            corpus_id = asyncio.get_running_loop().create_future()
            corpus_id.set_result(self.bundle.known_corpus_id())
        with deadline(self.budgets.deadline_s):  # the tasks started here inherit it
            for directory, key in self.start.directories:
                self._spawn_descent(directory, directory.count("/"), key)
            for path, key, source in self.start.concepts:
                self._enqueue(path, key, "link", source)
            self._check_done()  # a start with nothing to do (every concept already claimed) ends here
        try:
            async with asyncio.timeout(self.budgets.deadline_s + DEADLINE_GRACE_S):
                await self._done.wait()
        except TimeoutError:
            self._stop("deadline")
        finally:
            if self._flush_timer is not None:
                self._flush_timer.cancel()
            # Whatever ended the walk, no task outlives it (an outer cancellation included).
            leftover = [*self.descents, *self.judges]
            for task in leftover:
                task.cancel()
            if leftover:
                await asyncio.gather(*leftover, return_exceptions=True)
            if all(w is self or w._done.is_set() for w in self.shared.walks):
                # The last walk of the ledger to end frees the offers now: the ledger and its walks hold each
                # other, so what they keep waits for the next collection, which would walk every offer.
                self.shared.offers.clear()
        if self._error is not None:
            corpus_id.cancel()  # its thread ends on its own; nobody waits for an id of a failed walk
            raise self._error
        if self.stopped_by is None and self.depth_blocked:
            self.stopped_by = "depth"
            self.trace.add("budget", None, stopped_by="depth")
        try:
            return self._result(await corpus_id)
        finally:
            if self._own_ledger:  # the ledger and the walk hold each other (an orchestration lets go of its own)
                self.shared.walks.clear()

    def _spawn_descent(self, directory: str, depth: int, key: Key) -> None:
        if directory in self.opened or self.stopped_by is not None:
            return
        self.opened.add(directory)
        self.open_descents += 1
        self._track(asyncio.create_task(self._descend(directory, depth, key)), self.descents)

    def _track(self, task: asyncio.Task[None], group: dict[asyncio.Task[None], None]) -> None:
        group[task] = None

        def finished(done: asyncio.Task[None]) -> None:
            group.pop(done, None)
            if done.cancelled():
                _drop_cancellation(done)
            elif done.exception() is not None and self._error is None:
                self._error = done.exception()  # a bug or an unexpected I/O error: end the walk, re-raise it
                self._done.set()
            self._check_done()

        task.add_done_callback(finished)

    def _check_done(self) -> None:
        if not self.descents and not self.judges and (not self.queue or self.stopped_by or self._held()):
            if self.deferred and self.stopped_by is None:
                self._release_deferred()
                return
            if self._may_read_on():
                self._read_on()
                return
            if not self._done.is_set():
                self._done.set()
                self._nudge()

    def _release_deferred(self) -> None:
        """Everything reached through fewer weak choices is read: open the directories one more weak choice
        away (best first: what the selector was surer of is read before what it only thought possible)."""
        self.level = min(self.deferred)
        for directory, depth, key in self.deferred.pop(self.level):
            self._spawn_descent(directory, depth, key)

    def _may_read_on(self) -> bool:
        """Whether this walk, out of work, reads on in what the selector passed over: nothing relevant found
        by any walk of the ledger, and this walk the last one out of work that may (the last one reads on for
        all of them). When some walks lead (an orchestration's walks of the question, its parts and hops), only
        they read on, the last of them to run out of work: the others end once the leading ones have."""
        if not self.shared.passed or self.stopped_by is not None:
            return False
        walks = self.shared.walks
        leading = [w for w in walks if w.leads]
        if leading and not self.leads:
            return False
        return all(w is self or w._done.is_set() for w in (leading or walks)) and not any(
            f.strong or f.elsewhere for w in walks for f in w.found
        )

    def _read_on(self) -> None:
        """Everything the selector chose is read and nothing relevant was found: rather than end with budget
        left, open what it passed over, the parts of surer listings first (each listing inside is decided again
        by the selector; every concept of an opened directory is a candidate, as always)."""
        done = {d for w in self.shared.walks for d in w.opened}
        opened: list[tuple[str, int, Key]] = []
        level = 0
        while self.shared.passed and not opened:  # the least doubtful level with a directory still unopened
            level = min(self.shared.passed)
            for directory, depth, key in sorted(self.shared.passed.pop(level), key=lambda p: (p[2], p[0])):
                if directory not in done:
                    done.add(directory)
                    self.weakness.setdefault(directory, level)
                    opened.append((directory, depth, key))
        if not opened:
            self._check_done()  # nothing left to read on: the walk ends
            return
        self.level = max(self.level, level)
        self.trace.add("read_on", None, opened=[d for d, _, _ in opened], doubt=level)
        for directory, depth, key in opened:
            self._spawn_descent(directory, depth, key)

    def _stop(self, reason: StopReason) -> None:
        """End the walk for ``reason`` (the first reason wins): no new work; cancel what is now pointless."""
        if self.stopped_by is None:
            self.stopped_by = reason
            self.trace.add("budget", None, stopped_by=reason)
            self._nudge()
        for task in list(self.descents):
            if reason in _DRAIN and self._sending.get(task):
                continue  # its sent selector call finishes and is counted; it opens nothing more
            task.cancel()
        if reason not in _DRAIN:
            for task in list(self.judges):
                task.cancel()
        self._check_done()

    # -- model calls and their budgets ---------------------------------------------------------------

    def _slot_free(self) -> bool:
        shared = self.shared
        return shared.slot_limit is None or (shared.slots_held < shared.slot_limit and not shared.waiters)

    async def _acquire_slot(self) -> None:
        """Wait until the reader can send one more call at once (a freed slot goes to the longest waiter)."""
        if self._slot_free():
            self.shared.slots_held += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.shared.waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release_slot()  # handed over just as this task was cancelled: pass it on
            else:
                self.shared.waiters.remove(waiter)
            raise

    def _release_slot(self) -> None:
        shared = self.shared
        while shared.waiters:
            waiter = shared.waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the slot passes to it as held
                return
        shared.slots_held -= 1
        for walk in shared.walks:
            if walk.queue and walk.stopped_by is None:
                walk._schedule_pump()  # a judge batch may have been waiting for a slot

    def _admit_call(self) -> bool:
        """Reserve one model call about to be sent (its slot held), or stop the walk when the calls or tokens
        budget forbids it. Calls still waiting for a slot are not counted."""
        if self.stopped_by is not None:
            return False
        if self.shared.calls_done + self.shared.calls_in_flight >= self.budgets.max_calls:
            self._stop("calls")
            return False
        if self._tokens() >= self.budgets.max_tokens:
            self._stop("tokens")
            return False
        self.shared.calls_in_flight += 1
        return True

    def _settle_call(self, role: str, usage: Usage | None, started: float) -> None:
        self.shared.calls_in_flight -= 1
        if usage is None:
            return
        self._call_seconds += time.monotonic() - started
        self._calls_timed += 1
        self.usage[role] = self.usage[role] + usage
        self.shared.calls_done += usage.calls
        self.shared.tokens += usage.tokens
        if self._tokens() >= self.budgets.max_tokens and self._work_left(besides=asyncio.current_task()):
            self._stop("tokens")

    def _tokens(self) -> int:
        return self.shared.tokens

    def _work_left(self, besides: asyncio.Task[object] | None = None) -> bool:
        """Whether anything but the ``besides`` task (the caller) is still to do."""
        return bool(self.queue) or any(task is not besides for task in (*self.descents, *self.judges))

    def _cut_off(self, role: str, path: str | None, results: int) -> None:
        """A call still running when the walk stopped: counted as a call (it was sent) and, when the deadline
        stopped the walk, as failed (``results`` verdicts or one selection never came back)."""
        self.stats.cut_off += 1
        failed = self.stopped_by == "deadline"
        self.usage[role] = self.usage[role] + Usage(calls=1, failures=int(failed))
        if failed:
            self.stats.failures += results
            self.trace.add(
                "failure",
                path,
                role=role,
                error=f"{role}: cut off by the deadline ({self.budgets.deadline_s:g} s) before the model replied",
            )

    # -- descent ---------------------------------------------------------------------------------------

    async def _descend(self, directory: str, depth: int, key: Key) -> None:
        try:
            await self._collect_and_select(directory, depth, key)
        finally:
            # Counted down inside the task, not in its done callback: a pump scheduled by this very step
            # must already know that this descent will add no more candidates.
            self.open_descents -= 1
            if self._hold_until is not None:
                self._schedule_pump()  # a partial batch may have been waiting for this descent only

    async def _collect_and_select(self, directory: str, depth: int, key: Key) -> None:
        try:
            listing = self.bundle.listing(directory)
        except BundleError as exc:
            self.trace.warn(f"{directory or '(root)'}: could not be listed: {exc}", directory)
            return
        for diag in listing.diagnostics:
            where = f"{diag.path}:{diag.line}" if diag.line else diag.path
            self.trace.warn(f"{where}: {diag.message}", diag.path)
        self.stats.directories_opened += 1
        signposts = listing.signposts
        concepts = [(i, s) for i, s in enumerate(signposts) if not s.is_dir]
        grades = await self._order_concepts(directory, [s for _, s in concepts]) if concepts else None
        if grades is not None:
            self.trace.add("collected", directory, concepts=[s.path for _, s in concepts], first=grades)
        else:
            self.trace.add("collected", directory, concepts=[s.path for _, s in concepts])
        weak = self.weakness.get(directory, 0)
        for i, signpost in concepts:
            # Concepts the reader chose are read at their grade's doubt, the others after them, also when it
            # chose none of them (their entries say nothing of the question: read after what any entry says);
            # a reader that orders no concepts (or whose call failed) reads all at the directory's own level.
            doubt = 0 if grades is None else DOUBT[grades[signpost.path]] if signpost.path in grades else UNCHOSEN
            self._enqueue(signpost.path, key + (i,), "descent", directory, weak + doubt)
        subdirectories = [(i, s) for i, s in enumerate(signposts) if s.is_dir and s.path not in self.opened]
        if not subdirectories or self.stopped_by is not None:
            return
        kept, answered = await self._select(directory, [s for _, s in subdirectories])
        chosen = {position for position, _ in kept}
        if self.reads_on and depth + 1 <= self.budgets.max_depth:
            # What the selector read and passed over (never what a failed call left undecided).
            passed_doubt = self.weakness.get(directory, 0) + UNCHOSEN
            for position in sorted(answered - chosen):
                i, signpost = subdirectories[position]
                self.shared.passed.setdefault(passed_doubt, []).append((signpost.path, depth + 1, key + (i,)))
        for position, grade in kept:
            i, signpost = subdirectories[position]
            weak = self.weakness.setdefault(signpost.path, self.weakness.get(directory, 0) + DOUBT[grade])
            if depth + 1 > self.budgets.max_depth:
                self.depth_blocked = True  # the selector wanted it; only the depth bound kept it closed
                continue
            if weak > self.level:
                self.deferred.setdefault(weak, []).append((signpost.path, depth + 1, key + (i,)))
            else:
                self._spawn_descent(signpost.path, depth + 1, key + (i,))

    async def _order_concepts(self, directory: str, concepts: list[Signpost]) -> dict[str, str] | None:
        """The selector's grade for each concept of a listing it chose to read first, for a reader that orders
        concepts (``orders_concepts``): the others are read after them, never dropped. None when the reader
        orders no concepts or its call failed: then nothing tells them apart."""
        if not getattr(self.reader, "orders_concepts", False) or self.stopped_by is not None:
            return None
        selection = await self._select_page(directory, 0, concepts, asyncio.current_task(), concepts=True)
        if selection is None or selection.failed:
            return None
        return {concepts[c.index].path: c.grade for c in selection.choices if 0 <= c.index < len(concepts)}

    async def _select(self, directory: str, subdirectories: list[Signpost]) -> tuple[list[tuple[int, str]], set[int]]:
        """(position into ``subdirectories``, grade) the selector kept, and the positions it answered about
        (its call did not fail); pages of ``page_size`` are offered at once."""
        size = self.budgets.page_size
        pages = [subdirectories[start : start + size] for start in range(0, len(subdirectories), size)]
        owner = asyncio.current_task()
        replies = await asyncio.gather(*(self._select_page(directory, n, page, owner) for n, page in enumerate(pages)))
        kept: dict[int, str] = {}
        reasons: dict[str, str] = {}
        grades: dict[str, str] = {}
        answered: set[int] = set()
        for n, selection in enumerate(replies):
            if selection is None or selection.failed:
                continue
            page = pages[n]
            answered.update(range(n * size, n * size + len(page)))
            for choice in selection.choices:
                if 0 <= choice.index < len(page) and n * size + choice.index not in kept:
                    kept[n * size + choice.index] = choice.grade
                    reasons[page[choice.index].path] = choice.reason
                    grades[page[choice.index].path] = choice.grade
        if answered:
            self.trace.add(
                "selected",
                directory,
                kept=[subdirectories[p].path for p in sorted(kept)],
                reasons=reasons,
                grades=grades,
            )
        return sorted(kept.items()), answered

    async def _select_page(
        self,
        directory: str,
        page_no: int,
        page: list[Signpost],
        owner: asyncio.Task[object] | None,
        *,
        concepts: bool = False,
    ) -> Selection | None:
        """One selector call on ``page``: subdirectories to open, or (``concepts``) concepts to read first."""
        await self._acquire_slot()
        if not self._admit_call():
            self._release_slot()
            return None
        if owner is not None:
            self._sending[owner] = self._sending.get(owner, 0) + 1
        offers, words = self._offers(page, concepts)
        if not concepts:
            self.trace.add("offered", directory, signposts=[s.path for s in page], page=page_no + 1)
            self.stats.signposts_offered += len(page)
        self.stats.words_signposts += words
        selection: Selection | None = None
        started = time.monotonic()
        try:
            selection = await self.reader.select(self.question, offers)
        except DeadlineExceeded as exc:
            selection = Selection(failed=True, error=str(exc), usage=_spent(exc))
            self._stop("deadline")
        except OKFError as exc:  # readers report failures in the result; tolerate one that raises anyway
            selection = Selection(failed=True, error=str(exc))
        except asyncio.CancelledError:
            if self.stopped_by is not None:  # cut off by the walk's own stop: say so, then end
                self._cut_off("selector", directory, 1)
            raise
        finally:
            self._settle_call("selector", selection.usage if selection is not None else None, started)
            self._release_slot()
            if owner is not None:
                left = self._sending.pop(owner) - 1
                if left:
                    self._sending[owner] = left
        assert selection is not None
        if selection.usage.retries:
            self.trace.add("retry", directory, role="selector", retries=selection.usage.retries)
        if selection.failed:
            self.stats.failures += 1
            self.trace.add("failure", directory, role="selector", error=selection.error or "selection failed")
            if concepts:
                self.trace.warn(
                    f"{directory or '(root)'}: the selector failed on its concepts "
                    f"({selection.error or 'no reason given'}); they are read in listing order",
                    directory,
                )
            else:
                self.trace.warn(
                    f"{directory or '(root)'}: the selector failed on page {page_no + 1} "
                    f"({selection.error or 'no reason given'}); its {len(page)} subdirectories "
                    "were not opened",
                    directory,
                )
        return selection

    def _offers(self, page: list[Signpost], concepts: bool) -> tuple[list[SignpostOffer], int]:
        """The offers of ``page`` (subdirectories to open, or ``concepts`` to order) and the words they cost,
        made once per ledger: the walks of an orchestration offer the same listing for every angle. Kept by the
        signposts' identity (a listing's signposts are the bundle's, kept while it is); the entry keeps the page,
        so no identity is reused while it is kept. Each caller gets its own list."""
        key = (concepts, tuple(map(id, page)))
        known = self.shared.offers.get(key)
        if known is None:
            offers = [
                SignpostOffer(index=k, path=s.path, title=s.title, description=s.description, is_dir=not concepts)
                for k, s in enumerate(page)
            ]
            words = sum([paid_words(s.title) + paid_words(s.description) for s in page])
            known = self.shared.offers[key] = (page, offers, words)
        return list(known[1]), known[2]

    # -- candidates and judging ------------------------------------------------------------------------

    def _enqueue(self, path: str, key: Key, via: Literal["descent", "link"], source: str, weak: int = 0) -> bool:
        if path in self.keys:
            # Reached again: order it by its earliest place in the walk, whichever route won the race.
            self._place(path, key)
            return False
        if path in self.seen:
            return False  # another walk of the same orchestration already sent it to the judge
        self.keys[path] = key
        if path not in self.shared.queued:  # a candidate of the navigation once, however many walks queue it
            self.shared.queued.add(path)
            self.stats.candidates += 1
        self.queue.append(Candidate(path, key, via, source, weak))
        self._schedule_pump()
        return True

    def _place(self, path: str, key: Key) -> None:
        """Give ``path`` the earlier ``key`` and carry it along the links already expanded from it.

        So a concept's key is the earliest of all its routes however the races went: the shortlist order
        does not depend on whether a concept was first reached by descent or by a link.
        """
        stack = [(path, key)]
        while stack:
            here, place = stack.pop()
            # A key only ever gets earlier, so cycles end here; a link target another walk of the same
            # ledger claimed is that walk's (not a candidate of this one), so it has no key here.
            if here not in self.keys or self.keys[here] <= place:
                continue
            self.keys[here] = place
            stack.extend((target, place + (k,)) for target, k in self.links_of.get(here, ()))

    def _schedule_pump(self) -> None:
        if not self._pump_scheduled:
            # Pump on the next loop turn, so candidates found in the same turn share batches.
            self._pump_scheduled = True
            asyncio.get_running_loop().call_soon(self._pump)

    def _pump(self) -> None:
        """Start judge batches while candidates wait and the budgets allow."""
        self._pump_scheduled = False
        while self.queue and self.stopped_by is None and len(self.judges) < MAX_BATCHES_IN_FLIGHT and self._slot_free():
            room = self._room()
            if room <= 0:
                self._stop("bodies")
                break
            if self._behind():
                break  # another walk of the same ledger reads first; it pumps this one when it has
            if self._held():
                break  # directories with less doubt wait to be opened: they are, once nothing else runs
            size = min(room, self.budgets.batch_size)
            if len(self.queue) < size and self._hold_partial():
                break
            self.shared.slots_held += 1
            if not self._admit_call():
                self._release_slot()
                break
            batch = self._take_batch(size)
            if not batch:
                self.shared.calls_in_flight -= 1
                self._release_slot()
                continue
            self.stats.bodies_judged += len(batch)
            self.shared.bodies += len(batch)
            self.stats.words_bodies += sum(paid_words(offered.document.text) for _, _, offered in batch)
            self._track(asyncio.create_task(self._judge(batch)), self.judges)
            self._nudge()
        if not self.queue or self.stopped_by is not None:
            self._release_hold()
        if self.stopped_by is None and self._room() <= 0 and (self.queue or self.descents):
            self._stop("bodies")  # nothing more can be judged: further descent would only cost calls
        self._check_done()

    def _held(self) -> bool:
        """Whether the candidates waiting have more doubt on the way than a directory still deferred: then
        that directory is opened (and what it holds read) first. So a concept its listing passed over (its
        directory's doubt plus 3) is not judged before a directory the selector chose with less doubt."""
        return bool(self.deferred) and min(self.deferred) < self.queue.level

    def _behind(self) -> bool:
        """Walks sharing a ledger read best first, then in turn: this one waits while another has candidates
        waiting that were reached through fewer weak choices, or as few and it has sent fewer bodies; so the
        bodies they share go to the surest places of all the walks, spread over them."""
        if len(self.shared.walks) < 2:
            return False
        mine = (self.queue.level, not self.leads, self.stats.bodies_judged)
        return any(
            w is not self
            and w.queue
            and w.stopped_by is None
            and (w.queue.level, not w.leads, w.stats.bodies_judged) < mine
            for w in self.shared.walks
        )

    def _nudge(self) -> None:
        """Let the other walks of the ledger pump again (one may have been waiting for this one)."""
        for walk in self.shared.walks:
            if walk is not self and walk.queue and walk.stopped_by is None:
                walk._schedule_pump()

    def _room(self) -> int:
        """Bodies this walk may still send: its own budget, within what the walks sharing its ledger may."""
        own = self.budgets.max_bodies - self.stats.bodies_judged
        if self.shared.max_bodies is None:
            return own
        cap = self.shared.lead_max_bodies if self.leads and self.shared.lead_max_bodies else self.shared.max_bodies
        return min(own, cap - self.shared.bodies)

    def _hold_partial(self) -> bool:
        """Whether a partial batch should wait (within its window) for candidates other tasks may add."""
        if not self.coalesces:
            return False
        current = asyncio.current_task()
        if not self.open_descents and all(task is current for task in self.judges):
            return False  # nothing running can add a candidate: send it now
        loop = asyncio.get_running_loop()
        if self._hold_until is None:
            window = (
                0.0
                if not self._calls_timed
                else min(COALESCE_MAX_S, COALESCE_SHARE * self._call_seconds / self._calls_timed)
            )
            if window <= 0.0:
                return False
            self._hold_until = loop.time() + window
            self._flush_timer = loop.call_at(self._hold_until, self._flush)
            return True
        return loop.time() < self._hold_until

    def _flush(self) -> None:
        """The window of the waiting partial batch is over: send it."""
        self._flush_timer = None
        self._hold_until = 0.0  # over, whatever the clock's resolution made of the timer
        self._pump()

    def _release_hold(self) -> None:
        self._hold_until = None
        if self._flush_timer is not None:
            self._flush_timer.cancel()
            self._flush_timer = None

    def _take_batch(self, size: int) -> list[tuple[Candidate, Concept, Offered]]:
        batch: list[tuple[Candidate, Concept, Offered]] = []
        while self.queue and len(batch) < size:
            candidate = self.queue.popleft()
            if candidate.path in self.seen:
                continue  # another walk sharing the ledger sent it to the judge since it was queued here
            # Claimed when sent, not when queued: a candidate a walk queued and never sent (its budget ended
            # first) is still there for the other walks that reach it.
            self.seen.add(candidate.path)
            try:
                # Candidates come from listings and resolved links: already safe concept paths, so the
                # bundle's resolve-and-classify step of concept() would only repeat its path checks.
                concept = self.bundle.load(candidate.path)
            except BundleError as exc:  # unparseable frontmatter and the like: a warning, never a crash
                self.trace.warn(f"{candidate.path}: skipped, could not be read: {exc}", candidate.path)
                continue
            batch.append((candidate, concept, offer(concept, self.budgets.body_chars)))
        return batch

    async def _judge(self, batch: list[tuple[Candidate, Concept, Offered]]) -> None:
        documents = [offered.document for _, _, offered in batch]
        judgement: Judgement | None = None
        started = time.monotonic()
        try:
            judgement = await self.reader.judge(self.question, documents)
        except DeadlineExceeded as exc:
            judgement = Judgement(
                verdicts=[Verdict(id=d.id, relevant=None, failed=True, error=str(exc)) for d in documents],
                usage=_spent(exc),
            )
            self._stop("deadline")
        except OKFError as exc:
            judgement = Judgement(
                verdicts=[Verdict(id=d.id, relevant=None, failed=True, error=str(exc)) for d in documents]
            )
        except asyncio.CancelledError:
            if self.stopped_by is not None:
                self._cut_off("judge", batch[0][0].path, len(batch))
            raise
        finally:
            self._settle_call("judge", judgement.usage if judgement is not None else None, started)
            self._release_slot()
        if judgement.usage.retries:
            self.trace.add(
                "retry",
                batch[0][0].path,
                role="judge",
                retries=judgement.usage.retries,
                documents=[candidate.path for candidate, _, _ in batch],
            )
        verdicts = judgement.verdicts
        for n, (candidate, concept, offered) in enumerate(batch):
            verdict = verdicts[n] if n < len(verdicts) and verdicts[n].id == concept.id else None
            self._record_verdict(candidate, concept, offered, verdict)
        # Full means full of strong entries: a partial one gives way to strong evidence still to be judged.
        full = sum(f.strong for f in self.found) >= self.budgets.max_shortlist
        if full and self.stopped_by is None and self._work_left(besides=asyncio.current_task()):
            self._stop("shortlist")
        self._pump()

    def _record_verdict(
        self, candidate: Candidate, concept: Concept, offered: Offered, verdict: Verdict | None
    ) -> None:
        if verdict is None:
            verdict = Verdict(id=concept.id, relevant=None, failed=True, error="the judge returned no verdict for it")
        failed = verdict.failed or verdict.relevant is None
        grade = None if failed else (verdict.grade or ("relevant" if verdict.relevant else "no"))
        self.trace.add(
            "verdict",
            candidate.path,
            relevant=None if failed else grade != "no",
            grade=grade,
            reason=verdict.reason,
            failed=failed,
            cached=verdict.cached,
            via=candidate.via,
        )
        if failed:
            self.stats.failures += 1
            self.trace.add("failure", candidate.path, role="judge", error=verdict.error or "no verdict")
            return
        self.verdicts_ok += 1
        if grade != "no":
            self._shortlist(
                candidate, concept, offered, verdict.reason, strong=grade == "relevant", elsewhere=bool(verdict.answers)
            )

    def _shortlist(
        self,
        candidate: Candidate,
        concept: Concept,
        offered: Offered,
        reason: str,
        *,
        strong: bool,
        elsewhere: bool = False,
    ) -> None:
        meta = concept.meta
        stale = meta.is_stale(self.now)
        generated = meta.generated
        cited = (bundle_path(ref, self.bundle) for ref in meta.sources)
        cites = [p.removesuffix(".md") for p in cited if p and p.endswith(".md")]
        entry = ShortlistEntry(
            concept_id=concept.id,
            path=concept.path,
            title=concept.title,
            type=meta.type,
            status=meta.status.value,
            trust_tier=meta.trust_tier.value,
            stale=stale,
            reason=reason,
            via=candidate.via,
            grade="relevant" if strong else "partial",
            receipt=receipt("", concept.path, offered),
            generated_by=generated.by or None if generated else None,
            generated_at=generated.at.isoformat().replace("+00:00", "Z") if generated and generated.at else None,
            cites=cites,
        )
        self.found.append(_Found(entry, offered, strong, elsewhere, candidate.weak))
        if meta.status.value == "deprecated":
            self.trace.warn(f"{concept.path}: shortlisted but deprecated; do not present it as current", concept.path)
        if stale:
            self.trace.warn(
                f"{concept.path}: shortlisted but stale since {meta.stale_after:%Y-%m-%d}; "
                "check it against a current source",
                concept.path,
            )
        if strong:
            self._expand_links(concept, candidate.weak)  # only strong evidence widens the frontier

    def _expand_links(self, concept: Concept, weak: int = 0) -> None:
        """Lateral expansion: every existing concept a relevant concept links to becomes a candidate."""
        try:
            links = self.bundle.links(concept)
        except BundleError as exc:
            self.trace.warn(f"{concept.path}: links could not be read: {exc}", concept.path)
            return
        for k, link in enumerate(links):
            target = link.path
            if link.external:
                self.trace.add("link", concept.path, target=link.target, skipped="external")
            elif target is None:
                self.trace.add("link", concept.path, target=link.target, skipped="outside the bundle")
                self.trace.warn(
                    f"{concept.path}:{link.line}: link {link.target!r} leads outside the bundle", concept.path
                )
            elif not link.exists:
                self.trace.add("link", concept.path, target=target, skipped="broken")
                self.trace.warn(f"{concept.path}:{link.line}: broken link to {link.target!r}", concept.path)
            elif target == concept.path:
                continue  # an anchor within the same concept
            elif target.endswith("/") or not target.endswith(".md") or target.rsplit("/", 1)[-1] in _RESERVED:
                self.trace.add("link", concept.path, target=target, skipped="not a concept")
            else:
                self.links_of.setdefault(concept.path, []).append((target, k))
                if self._enqueue(target, self.keys[concept.path] + (k,), "link", concept.path, weak):
                    self.stats.links_followed += 1
                    self.trace.add("link", concept.path, target=target)
                else:
                    self.trace.add("link", concept.path, target=target, skipped="already a candidate")

    # -- the result ------------------------------------------------------------------------------------

    def _result(self, corpus_id: str | None) -> NavigationResult:
        # Strong entries first, then partial ones for the room left; each in walk order. Partial evidence
        # there is no room for is left out from the places read with more doubt (then later in the tree):
        # that of surer places is kept.
        strong = sorted((f for f in self.found if f.strong), key=lambda f: self.keys[f.entry.path])
        weak = sorted((f for f in self.found if not f.strong), key=lambda f: (f.doubt, self.keys[f.entry.path]))
        kept = weak[: partial_room(len(strong), self.budgets.max_shortlist)]
        found = strong[: self.budgets.max_shortlist] + sorted(kept, key=lambda f: self.keys[f.entry.path])
        if len(strong) > self.budgets.max_shortlist:
            dropped = len(strong) - self.budgets.max_shortlist
            self.trace.warn(
                f"{dropped} further relevant concept(s) judged in the last batches were left out "
                f"by max_shortlist={self.budgets.max_shortlist}"
            )
        self.stats.words_shortlist = sum(paid_words(f.offered.document.text) for f in found)
        shortlist = [
            f.entry.model_copy(update={"receipt": receipt(f"c{n}", f.entry.path, f.offered)})
            for n, f in enumerate(found, start=1)
        ]
        if self.stats.failures:
            self.trace.warn(
                f"{self.stats.failures} model call result(s) failed; the shortlist may be incomplete "
                f"({summarize_reasons(failure_reasons(self.trace.events))})"
            )
        self.stats.usage = dict(self.usage)
        self.stats.seconds = round(self.trace.elapsed, 6)
        return NavigationResult(
            question=self.question,
            bundle=str(self.bundle.root),
            corpus_id=corpus_id,
            reader=self.reader.name,
            shortlist=shortlist,
            stopped_by=self.stopped_by,
            stats=self.stats,
            warnings=list(self.trace.warnings),
            trace=self.trace.events,
        )


def _spent(exc: BaseException) -> Usage:
    """What a call that raised had cost (readers attach it as ``usage``); at least the one call, failed."""
    usage = getattr(exc, "usage", None)
    spent = usage.model_copy() if isinstance(usage, Usage) else Usage(calls=1)
    spent.failures = max(spent.failures, 1)
    return spent
