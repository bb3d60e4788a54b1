"""The evaluation report: per-question scores, the overall summary, and scoring one navigation. Pure data."""

from __future__ import annotations

from collections import Counter
from statistics import mean, median

from pydantic import BaseModel, Field

from okf.eval.gold import GoldIndex
from okf.eval.loss import STAGES, LossStage, WalkView, attribute
from okf.eval.questions import EvalQuestion, GoldSpan
from okf.models import Budgets, NavigationResult


class SpanOutcome(BaseModel):
    """One gold span: whether the shortlist hit it, by which concepts, and where it was lost if not."""

    span: GoldSpan
    hit: bool
    hit_by: list[str] = Field(default_factory=list, description="Shortlisted concepts hitting the span.")
    covering: int = Field(default=0, description="Concepts in the bundle hitting the span.")
    lost_at: LossStage | None = None


class QuestionResult(BaseModel):
    """The scores and costs of one question."""

    id: str
    question: str
    spans: list[SpanOutcome]
    shortlist: list[str] = Field(default_factory=list, description="Shortlisted concept paths, in order.")
    recall_any: bool = Field(description="Some gold span was hit.")
    recall_all: bool = Field(description="Every gold span was hit.")
    coverage: float = Field(description="Fraction of gold spans hit.")
    precision: float | None = Field(
        description="Shortlisted concepts hitting some gold / shortlist size; None for an empty shortlist."
    )
    bodies_judged: int = 0
    words_signposts: int = Field(default=0, description="Words of the signposts the selector read.")
    words_bodies: int = Field(default=0, description="Words of the bodies the judge read.")
    words_shortlist: int = Field(default=0, description="Words of the shortlisted bodies.")
    calls: int = 0
    tokens: int = 0
    failures: int = 0
    seconds: float = 0.0
    stopped_by: str | None = None
    walks: int = Field(default=1, description="Walks the navigation ran (orchestrated angles: all rounds).")
    stop: str | None = Field(
        default=None,
        description="Why an orchestrated navigation stopped (sufficient, "
        "suspicious, cap, boundary, exhausted, budget, off); None without orchestration.",
    )
    error: str | None = Field(default=None, description="Why the navigation raised, when it did.")


class EvalSummary(BaseModel):
    """Overall figures: recall and precision are means over questions; costs are means and totals."""

    questions: int = 0
    recall_any: float = 0.0
    recall_all: float = 0.0
    coverage: float = 0.0
    precision: float | None = Field(default=None, description="Mean over questions with a non-empty shortlist.")
    empty_shortlists: int = 0
    spans: int = 0
    spans_hit: int = 0
    losses: dict[str, int] = Field(default_factory=dict, description="Missed gold spans per loss stage.")
    bodies_judged_mean: float = 0.0
    bodies_judged_total: int = 0
    words_signposts_mean: float = 0.0
    words_bodies_mean: float = 0.0
    words_shortlist_mean: float = 0.0
    calls_mean: float = 0.0
    calls_total: int = 0
    tokens_mean: float = 0.0
    tokens_total: int = 0
    failures_total: int = 0
    seconds_mean: float = 0.0
    seconds_total: float = 0.0
    stopped_by: dict[str, int] = Field(default_factory=dict)
    walks_mean: float = 0.0
    walks_median: float = 0.0
    walks_max: int = 0
    stops: dict[str, int] = Field(default_factory=dict, description="Orchestration stops, per reason.")
    errors: int = 0


class IndexStats(BaseModel):
    """How much of the bundle carries usable provenance for gold matching."""

    concepts: int = 0
    concepts_with_lines: int = 0
    sources_covered: int = 0
    entries_without_lines: int = 0
    unusable_resources: int = 0


class EvalReport(BaseModel):
    """What ``evaluate`` returns."""

    bundle: str
    corpus_id: str = ""
    reader: str
    questions_file: str = ""
    questions_total: int = Field(default=0, description="Questions in the file before sampling.")
    sample: int | None = None
    seed: int | None = None
    limit: int | None = None
    budgets: Budgets = Field(default_factory=Budgets)
    angles: str = Field(default="auto", description="The angles setting navigation ran with (auto, N, off).")
    index: IndexStats = Field(default_factory=IndexStats)
    summary: EvalSummary = Field(default_factory=EvalSummary)
    results: list[QuestionResult] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    seconds: float = 0.0


def score(
    question: EvalQuestion, result: NavigationResult | None, index: GoldIndex, *, error: str | None = None
) -> QuestionResult:
    """Score one navigation against the question's gold; ``result`` None means the walk raised ``error``."""
    shortlist = [entry.path for entry in result.shortlist] if result else []
    shortlisted = set(shortlist)
    view = WalkView.from_trace(result.trace) if result else WalkView()
    outcomes: list[SpanOutcome] = []
    for span in question.gold:
        covering = index.covering(span)
        hit_by = [c for c in shortlist if c in covering]
        if hit_by:
            lost: LossStage | None = None
        elif result is None:
            lost = "walk_failed"
        else:
            lost = attribute(covering, view, shortlisted)
        outcomes.append(SpanOutcome(span=span, hit=bool(hit_by), hit_by=hit_by, covering=len(covering), lost_at=lost))
    hits = [o.hit for o in outcomes]
    relevant = [c for c in shortlist if any(index.hits(c, span) for span in question.gold)]
    stats = result.stats if result else None
    total = stats.total if stats else None
    return QuestionResult(
        id=question.id,
        question=question.question,
        spans=outcomes,
        shortlist=shortlist,
        recall_any=any(hits),
        recall_all=all(hits),
        coverage=sum(hits) / len(hits),
        precision=len(relevant) / len(shortlist) if shortlist else None,
        bodies_judged=stats.bodies_judged if stats else 0,
        words_signposts=stats.words_signposts if stats else 0,
        words_bodies=stats.words_bodies if stats else 0,
        words_shortlist=stats.words_shortlist if stats else 0,
        calls=total.calls if total else 0,
        tokens=total.tokens if total else 0,
        failures=stats.failures if stats else 0,
        seconds=stats.seconds if stats else 0.0,
        stopped_by=result.stopped_by if result else None,
        walks=result.orchestration.walks if result and result.orchestration else 1,
        stop=result.orchestration.stop if result and result.orchestration else None,
        error=error,
    )


def summarize(results: list[QuestionResult]) -> EvalSummary:
    """Means and totals over the scored questions."""
    if not results:
        return EvalSummary()
    precisions = [r.precision for r in results if r.precision is not None]
    losses = Counter(o.lost_at for r in results for o in r.spans if o.lost_at is not None)
    stops = Counter(r.stopped_by or "done" for r in results)
    return EvalSummary(
        questions=len(results),
        recall_any=mean(r.recall_any for r in results),
        recall_all=mean(r.recall_all for r in results),
        coverage=mean(r.coverage for r in results),
        precision=mean(precisions) if precisions else None,
        empty_shortlists=sum(1 for r in results if not r.shortlist),
        spans=sum(len(r.spans) for r in results),
        spans_hit=sum(o.hit for r in results for o in r.spans),
        losses={stage: losses[stage] for stage in STAGES if losses[stage]},
        bodies_judged_mean=mean(r.bodies_judged for r in results),
        bodies_judged_total=sum(r.bodies_judged for r in results),
        words_signposts_mean=mean(r.words_signposts for r in results),
        words_bodies_mean=mean(r.words_bodies for r in results),
        words_shortlist_mean=mean(r.words_shortlist for r in results),
        calls_mean=mean(r.calls for r in results),
        calls_total=sum(r.calls for r in results),
        tokens_mean=mean(r.tokens for r in results),
        tokens_total=sum(r.tokens for r in results),
        failures_total=sum(r.failures for r in results),
        seconds_mean=mean(r.seconds for r in results),
        seconds_total=sum(r.seconds for r in results),
        stopped_by=dict(sorted(stops.items())),
        walks_mean=mean(r.walks for r in results),
        walks_median=median(r.walks for r in results),
        walks_max=max(r.walks for r in results),
        stops=dict(sorted(Counter(r.stop for r in results if r.stop).items())),
        errors=sum(1 for r in results if r.error),
    )
