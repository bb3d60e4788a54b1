"""``okf eval``: shortlist recall, precision, cost and loss attribution against gold source spans."""

from __future__ import annotations

from okf.eval.gold import GoldIndex, overlaps
from okf.eval.loss import STAGES, LossStage, WalkView, attribute
from okf.eval.questions import DEFAULT_SEED, EvalQuestion, GoldSpan, load_questions, pick
from okf.eval.report import EvalReport, EvalSummary, IndexStats, QuestionResult, SpanOutcome, score, summarize
from okf.eval.runner import evaluate, evaluate_async

__all__ = [
    "DEFAULT_SEED",
    "STAGES",
    "EvalQuestion",
    "EvalReport",
    "EvalSummary",
    "GoldIndex",
    "GoldSpan",
    "IndexStats",
    "LossStage",
    "QuestionResult",
    "SpanOutcome",
    "WalkView",
    "attribute",
    "evaluate",
    "evaluate_async",
    "load_questions",
    "overlaps",
    "pick",
    "score",
    "summarize",
]
