"""The result of an orchestration: one NavigationResult from every walk, and its ``orchestration`` block.

The shortlist: for each part, the first concept answering it as asked (so the cap never drops a part's only
evidence); the concepts the question names by their title, then the pages second hops walked to, judged
relevant or partial, while the question needs them (``Orchestrator.bridges_needed``); partial concepts saying
what those leave unsaid (``crosscheck.filling``); the others answering the question or a part as asked,
those saying every word of the question the bundle knows first (``crosscheck.says_all``);
partial concepts while fewer than three answer it as asked (as a lone walk keeps them; a concept relevant to
another angle only and bearing on the question as asked is one of them); then concepts several
angles agree on, then those one other angle found (of these, the pages second hops walked to first); each
group in the order the rounds and walks found them, within ``max_shortlist``. An order of the readers'
decisions, never a similarity. Receipts are numbered again (c1, c2, ...) and, when several bundles were read,
name the bundle. Counts and costs are summed over the walks; the planner's usage is its own role.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from okf.models import NavigationResult, NavigationStats, ShortlistEntry
from okf.navigator.receipts import offer
from okf.navigator.walk import partial_room
from okf.orchestrate.crosscheck import Check, Found, filling, says_all
from okf.readers.base import Usage

if TYPE_CHECKING:
    from okf.orchestrate.run import Orchestrator

_SUMMED = (
    "directories_opened",
    "signposts_offered",
    "candidates",
    "bodies_judged",
    "links_followed",
    "failures",
    "cut_off",
    "words_signposts",
    "words_bodies",
)
_OWN = ("question", "subquestion")
_ORIGIN_WORDS = {
    "question": "the question",
    "subquestion": "sub-questions",
    "rephrasing": "rephrasings",
    "viewpoint": "viewpoints",
    "granularity": "granularity",
    "vocabulary": "bundle vocabulary",
    "second_hop": "second hops",
    "escalation": "escalations",
}


def shortlist(
    found: list[Found],
    asked: dict[int, str],
    part_of: dict[str, int],
    max_shortlist: int,
    named: frozenset[tuple[str, str]] = frozenset(),
    fill: Callable[[list[Found], list[Found]], list[Found]] | None = None,
    bridged: frozenset[tuple[str, str]] = frozenset(),
    complete: Callable[[Found], bool] | None = None,
    walked_to: frozenset[tuple[str, str]] = frozenset(),
) -> list[Found]:
    """The merged shortlist (see the module docstring). ``asked`` maps each part to the angle asking it as
    it is (the question itself for a one-part question), ``part_of`` angle ids to their part; ``named`` the
    concepts (bundle, path) whose title the question says; ``fill`` picks, of the partial evidence, what
    says what the first answers leave unsaid (okf.orchestrate.crosscheck.filling); ``bridged`` the pages
    second hops walked to; ``complete`` says whether evidence says every word of the question the bundle
    knows (okf.orchestrate.crosscheck.says_all); ``walked_to`` every page a second hop walked to, needed or
    not."""
    relevant = [f for f in found if f.relevant]
    own = set(asked.values())
    first: list[Found] = []
    for part, angle in asked.items():
        hit = next((f for f in relevant if f not in first and angle in f.answers), None)
        if hit is None:
            hit = next((f for f in relevant if f not in first and any(part_of.get(a) == part for a in f.answers)), None)
        if hit is not None:
            first.append(hit)
    # A concept the question names by its title, judged to bear on it (relevant or partial), is what the
    # question is about: each side of a comparison, the start of a second hop; a page a second hop walked
    # to, so judged, is the other end of the bridge.
    first += [f for f in found if f not in first and (f.bundle, f.entry.path) in named]
    first += [f for f in found if f not in first and (f.bundle, f.entry.path) in bridged]
    # The question's own walks' entries first, in their order; then the other walks', taken in turn from
    # each, best first (walks of a round share their bodies: what one walk alone would have found is spread
    # over them).
    answering = first + sorted(
        (f for f in relevant if f not in first and f.answers & own), key=lambda f: (f.by not in _OWN, f.place)
    )
    if complete is not None:
        # Of those, the concepts saying all the question asks (in their head or body) before those saying
        # some of it: twelve pages on "helm chart" found first do not crowd out the one on its metrics.
        answering = first + sorted(answering[len(first) :], key=lambda f: not complete(f))  # stable
    agreed = [f for f in relevant if f not in answering and len(f.answers) >= 2]
    # Partial evidence fills in as a lone walk's does: while the question's own walks found few concepts
    # answering it as asked (what other angles found besides does not crowd out what a lone walk keeps).
    # The question's own walks' partial entries first, then the others', each best first.
    lone = sum(1 for f in answering if f.by in _OWN)
    # Partial evidence bearing on the question (or a part) as asked first, whichever walk judged it, from
    # the surest places, in the order of the tree, as a lone walk keeps it (a body bearing only on another
    # angle would have been "no" to it); then the rest, the question's own walks' first.
    # A body relevant to another angle only, and partial to the question as asked ("Russian Civil War" to
    # the hop "World War", and to the question about a civil war), is partial evidence for the question: it
    # comes after the partial evidence the question's walks kept for it, before what bears on other angles
    # only (it used to come after all of that, and the agreed evidence too, and a full shortlist cut it).
    bearing = [f for f in relevant if f not in answering and f not in agreed and f.bears & own]
    partial = sorted(
        (f for f in found if (not f.relevant or f in bearing) and f not in first),
        key=lambda f: (0, f.relevant, f.doubt, f.key, f.place) if f.bears & own else (1, f.by not in _OWN, f.place),
    )
    # Partial evidence saying what the first answers leave unsaid comes right after them, however much else
    # answers: the page of the lake the question names never says its county's population.
    filled = fill(first, partial) if fill is not None else []
    partial = [f for f in partial if f not in filled][: partial_room(lone, max_shortlist)]
    answering = answering[: len(first)] + filled + answering[len(first) :]
    # Of what one other angle alone found, the page a second hop walked to (its title is the name the hop
    # followed) before the other pages that walk judged relevant on the way ("Columbia University" before
    # "British Columbia" and every other university).
    others = sorted(
        (f for f in relevant if f not in answering and f not in agreed and f not in partial),
        key=lambda f: (f.bundle, f.entry.path) not in walked_to,
    )
    return (answering + partial + agreed + others)[:max_shortlist]


def assemble(run: Orchestrator, check: Check) -> NavigationResult:
    """The NavigationResult of an orchestration run."""
    report = run.report
    found = [run.state.found[k] for k in run.state.order]
    part_of = {a.id: a.part for a in report.angles}
    asked: dict[int, str] = {}
    for angle in report.angles:
        if angle.walked and angle.origin in ("question", "subquestion") and angle.part not in asked:
            asked[angle.part] = angle.id
    vocabularies = [source.vocabulary for source in run.sources]

    def fill(evidence: list[Found], partial: list[Found]) -> list[Found]:
        return filling(run.question, evidence, partial, vocabularies)

    picked = shortlist(
        found,
        asked,
        part_of,
        run.budgets.max_shortlist,
        run.named_apart(),
        fill,
        run.bridges_needed(walked_to := run.bridged()),
        says_all(run.question, vocabularies[0] if vocabularies else None),
        walked_to,
    )
    several = len(run.sources) > 1
    entries: list[ShortlistEntry] = []
    words = 0
    for n, f in enumerate(picked, start=1):
        receipt = f.entry.receipt.model_copy(update={"evidence_id": f"c{n}", "bundle": f.bundle if several else None})
        angles = sorted(f.answers, key=lambda a: int(a[1:]))
        entries.append(
            f.entry.model_copy(
                update={
                    "receipt": receipt,
                    "angles": angles,
                    "grade": "relevant" if f.relevant else "partial",
                    "bundle": f.bundle if several else None,
                }
            )
        )
        words += len(offer(f.concept, run.budgets.body_chars).document.text.split())
    stats = NavigationStats()
    for result in run.state.results:
        for name in _SUMMED:
            setattr(stats, name, getattr(stats, name) + getattr(result.stats, name))
    stats.words_shortlist = words
    stats.failures += run.usage.get("planner", Usage()).failures  # a failed plan is a failed result too
    # The selector read each listing once per round for all its angles: the words it really read.
    stats.words_signposts = run.judgments.words_signposts
    stats.signposts_offered = run.judgments.signposts_offered
    stats.usage = dict(run.usage)
    stats.seconds = round(max((e.t for e in run.events), default=0.0), 6)
    report.state = check.state
    report.walks = run.state.walks
    report.uncertain = uncertain(run, check)
    report.tried = tried(run)
    run.trace.add(
        "stop",
        None,
        stop=report.stop,
        reason=report.stop_reason,
        uncertain=report.uncertain,
        walks=report.walks,
        state=report.state,
    )
    warnings: list[str] = []
    for result in run.state.results:
        warnings += [w for w in result.warnings if w not in warnings]
    primary = run.sources[0]
    corpus = next((r.corpus_id for r in run.state.results if r.bundle == primary.root), None)
    stats.seconds = max(stats.seconds, run.trace.elapsed)
    return NavigationResult(
        question=run.question,
        bundle=primary.root,
        corpus_id=corpus,
        reader=run.reader.name,
        shortlist=entries,
        stopped_by=_stopped_by(run),
        budgets=run.budgets,
        stats=stats,
        warnings=warnings,
        trace=list(run.events),
        bundles=[s.root for s in run.sources] if several else [],
        orchestration=report,
    )


def _stopped_by(run: Orchestrator):
    """The navigation budget that ended the orchestration, if one did (the walks' own stops otherwise)."""
    spent = run._spent_budget()
    if spent is not None:
        return spent
    stops = [r.stopped_by for r in run.state.results if r.stopped_by in ("calls", "tokens", "deadline")]
    return stops[0] if stops else None


def uncertain(run: Orchestrator, check: Check) -> list[str]:
    """What remains uncertain when the orchestration stopped, in words."""
    report = run.report
    out: list[str] = []
    if report.stop == "sufficient":
        return out
    out += [w for w in check.why if not w.startswith("every part")]
    if report.stop == "boundary":
        out.append("the answer does not seem to be in the bundle" + ("s" if len(run.sources) > 1 else ""))
    if report.stop == "budget":
        out.append("the navigation budget ran out; more evidence may exist")
    skipped = [a.id for a in report.angles if not a.walked and a.note and "cap" in a.note]
    if skipped:
        out.append(f"angles not walked for the walk cap: {', '.join(skipped)}")
    return list(dict.fromkeys(out))


def tried(run: Orchestrator) -> str:
    """One line saying what was tried: walks, rounds, angles by origin, hops, escalations, and the stop."""
    report = run.report
    walked = [a for a in report.angles if a.walked]
    origins: dict[str, int] = {}
    for angle in walked:
        origins[angle.origin] = origins.get(angle.origin, 0) + 1
    kinds = ", ".join(f"{_ORIGIN_WORDS.get(o, o)} {n}" for o, n in origins.items())
    hops = [a.text for a in walked if a.origin == "second_hop"]
    axes = [axis for e in report.escalations for axis in e.axes]
    line = f"Tried {report.walks} walk(s) in {len(report.rounds)} round(s): {kinds}"
    if hops:
        line += f"; second hops: {'; '.join(hops[:3])}"
    if axes:
        line += f"; escalated to: {', '.join(dict.fromkeys(axes))}"
    line += f"; stopped: {report.stop} ({report.stop_reason})"
    return line
