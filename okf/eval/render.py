"""Plain-text rendering of an EvalReport for people (the CLI's default output)."""

from __future__ import annotations

from okf.eval.loss import STAGES
from okf.eval.report import EvalReport, QuestionResult


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def question_line(result: QuestionResult) -> str:
    """One line per question: hits, precision, cost and where missed spans were lost."""
    hit = sum(o.hit for o in result.spans)
    lost = ", ".join(o.lost_at for o in result.spans if o.lost_at) or "-"
    precision = "n/a" if result.precision is None else f"{result.precision:.2f}"
    line = (
        f"{result.id}: gold {hit}/{len(result.spans)}  precision {precision}  "
        f"shortlist {len(result.shortlist)} ({result.words_shortlist} words)  "
        f"bodies {result.bodies_judged}  words read {result.words_signposts + result.words_bodies}  "
        f"calls {result.calls}  walks {result.walks}{f' ({result.stop})' if result.stop else ''}  "
        f"lost: {lost}"
    )
    return line + (f"  error: {result.error}" if result.error else "")


def render(report: EvalReport, *, verbose: bool = False) -> str:
    """The overall table with the loss breakdown; per-question lines first when ``verbose``."""
    s = report.summary
    lines: list[str] = []
    if verbose:
        lines += [question_line(r) for r in report.results] + [""]
    picked = f"{s.questions} of {report.questions_total} questions"
    if report.sample is not None:
        picked += f" (sample {report.sample}, seed {report.seed})"
    lines.append(f"Evaluated {picked} on {report.bundle}")
    lines.append(
        f"reader {report.reader}; angles {report.angles}; budgets: max_bodies {report.budgets.max_bodies}, "
        f"max_shortlist {report.budgets.max_shortlist}, max_calls {report.budgets.max_calls}"
    )
    lines.append("")
    rows = [
        ("recall (any gold span hit)", _pct(s.recall_any)),
        ("recall (all gold spans hit)", _pct(s.recall_all)),
        ("gold coverage", _pct(s.coverage)),
        (
            "shortlist precision",
            _pct(s.precision) + (f"  ({s.empty_shortlists} empty shortlists)" if s.empty_shortlists else ""),
        ),
        ("bodies judged", f"mean {s.bodies_judged_mean:.1f}  total {s.bodies_judged_total}"),
        ("words of the shortlist", f"mean {s.words_shortlist_mean:.0f}"),
        (
            "words read by the walk",
            f"mean {s.words_signposts_mean + s.words_bodies_mean:.0f}  "
            f"(signposts {s.words_signposts_mean:.0f}, bodies {s.words_bodies_mean:.0f})",
        ),
        ("model calls", f"mean {s.calls_mean:.1f}  total {s.calls_total}"),
        ("tokens", f"mean {s.tokens_mean:.0f}  total {s.tokens_total}"),
        ("seconds per question", f"mean {s.seconds_mean:.3f}  total {s.seconds_total:.1f}"),
        ("judge/selector failures", str(s.failures_total)),
        ("stopped by", ", ".join(f"{k} {v}" for k, v in s.stopped_by.items()) or "-"),
    ]
    if s.stops:
        rows += [
            ("walks per question", f"median {s.walks_median:g}  mean {s.walks_mean:.2f}  max {s.walks_max}"),
            ("orchestration stops", ", ".join(f"{k} {v}" for k, v in s.stops.items())),
        ]
    width = max(len(name) for name, _ in rows)
    lines += [f"{name:<{width}}  {value}" for name, value in rows]
    missed = s.spans - s.spans_hit
    lines += ["", f"Gold spans hit: {s.spans_hit} of {s.spans}; missed {missed}, lost at:"]
    for stage in STAGES:
        count = s.losses.get(stage, 0)
        share = f"{count / missed:.0%}" if missed else "-"
        lines.append(f"  {stage:<20} {count:>6}  {share:>4}")
    if s.errors:
        lines.append(f"{s.errors} question(s) failed to navigate (see --json: results[].error)")
    idx = report.index
    lines += [
        "",
        (
            f"gold index: {idx.concepts_with_lines} of {idx.concepts} concepts record source lines, "
            f"covering {idx.sources_covered} source files"
        ),
    ]
    lines += [f"warning: {w}" for w in report.warnings]
    return "\n".join(lines)
