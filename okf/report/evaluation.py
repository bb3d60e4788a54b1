"""The evaluation as a page: recall against reading cost beside the baselines, loss attribution per stage, and
the missed questions, each linking to the page of its walk when ``okf eval --walks DIR`` saved it."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from okf.errors import BundleError
from okf.eval.loss import STAGES
from okf.eval.report import EvalReport
from okf.html import render
from okf.report.chart import Chart, Point, make_chart
from okf.trace.load import WalkRecord, walk_file_name


@dataclass(frozen=True)
class Baseline:
    """A reference system's recall and reading cost per question (bodies and/or words)."""

    name: str
    recall_any: float
    bodies: float | None = None
    words: float | None = None


def _read_json(path: Path, fix: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BundleError("no such file", path=str(path), fix=fix) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BundleError(f"cannot read it: {exc}", path=str(path), fix=fix) from None
    except ValueError as exc:
        raise BundleError(f"not valid JSON ({exc})", path=str(path), fix=fix) from None


def load_eval(path: str | Path) -> dict[str, Any]:
    """An EvalReport as JSON data (``okf eval --json``), checked; extra fields (newer versions) kept."""
    fix = "pass the output of `okf eval BUNDLE QUESTIONS --json > eval.json`"
    data = _read_json(Path(path), fix)
    if not isinstance(data, dict) or "summary" not in data or "results" not in data:
        raise BundleError("not an evaluation report (no summary and results)", path=str(path), fix=fix)
    try:
        EvalReport.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise BundleError(f"not an evaluation report: {where}: {first.get('msg')}", path=str(path), fix=fix) from None
    return data


def load_baselines(path: str | Path) -> list[Baseline]:
    """Reference points: a JSON list of ``{"name", "recall_any", "bodies_mean", "words_mean"?}``."""
    fix = 'write a JSON list like [{"name": "BM25 top-10", "recall_any": 0.6, "bodies_mean": 10}]'
    data = _read_json(Path(path), fix)
    if not isinstance(data, list):
        raise BundleError("baselines must be a JSON list", path=str(path), fix=fix)
    points: list[Baseline] = []
    for n, row in enumerate(data):
        ok = (
            isinstance(row, dict)
            and isinstance(row.get("name"), str)
            and _number(row.get("recall_any"))
            and (_number(row.get("bodies_mean")) or _number(row.get("words_mean")))
        )
        if not ok:
            raise BundleError(
                f"baseline [{n}] needs a name, recall_any and bodies_mean or words_mean", path=str(path), fix=fix
            )
        points.append(
            Baseline(
                row["name"],
                float(row["recall_any"]),
                float(row["bodies_mean"]) if _number(row.get("bodies_mean")) else None,
                float(row["words_mean"]) if _number(row.get("words_mean")) else None,
            )
        )
    return points


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _words(summary: dict[str, Any]) -> float | None:
    """Words read per question (signposts + bodies), when the report records them."""
    parts = [summary.get("words_signposts_mean"), summary.get("words_bodies_mean")]
    if not all(_number(p) for p in parts) or not any(parts):
        return None
    return float(sum(float(p) for p in parts if p is not None))


def _label(report: dict[str, Any]) -> str:
    budgets = report.get("budgets") or {}
    return f"okf, {report.get('reader') or 'reader ?'}, max_bodies {budgets.get('max_bodies', '?')}"


def charts(reports: list[dict[str, Any]], baselines: list[Baseline]) -> list[Chart]:
    """Recall (any) against bodies read per question, and against words read when any point records them."""
    out: list[Chart] = []
    by_bodies = [
        Point(
            _label(r),
            float(r["summary"].get("bodies_judged_mean") or 0),
            float(r["summary"].get("recall_any") or 0),
            "okf",
        )
        for r in reports
    ]
    by_bodies += [Point(b.name, b.bodies, b.recall_any, "baseline") for b in baselines if b.bodies is not None]
    out.append(make_chart("Recall against bodies read", "bodies read per question", by_bodies))
    by_words = [
        Point(_label(r), w, float(r["summary"].get("recall_any") or 0), "okf")
        for r in reports
        if (w := _words(r["summary"])) is not None
    ]
    by_words += [Point(b.name, b.words, b.recall_any, "baseline") for b in baselines if b.words is not None]
    if by_words:
        out.append(make_chart("Recall against words read", "words read per question", by_words))
    return out


def losses(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One bar per loss stage: count and share of the missed spans."""
    counts = summary.get("losses") or {}
    missed = sum(v for v in counts.values() if _number(v)) or 0
    stages = list(STAGES) + sorted(k for k in counts if k not in STAGES)
    return [
        {"stage": stage, "count": counts.get(stage, 0), "share": counts.get(stage, 0) / missed if missed else 0.0}
        for stage in stages
    ]


def missed_questions(report: dict[str, Any], walks: dict[str, str]) -> list[dict[str, Any]]:
    """Questions with a gold span missed, with where each span was lost and the link to the walk."""
    out = []
    for result in report.get("results") or []:
        spans = result.get("spans") or []
        missed = [s for s in spans if not s.get("hit")]
        if not missed:
            continue
        lost = Counter(str(s.get("lost_at") or "?") for s in missed)
        out.append(
            {
                "id": result.get("id", ""),
                "question": result.get("question", ""),
                "hit": len(spans) - len(missed),
                "spans": len(spans),
                "lost": ", ".join(f"{stage} {n}" if n > 1 else stage for stage, n in lost.items()),
                "shortlist": len(result.get("shortlist") or []),
                "bodies": result.get("bodies_judged", 0),
                "stopped_by": result.get("stopped_by"),
                "error": result.get("error"),
                "walk": walks.get(str(result.get("id", ""))),
            }
        )
    return out


def eval_page(
    reports: list[dict[str, Any]], *, baselines: list[Baseline] | None = None, walks: dict[str, str] | None = None
) -> str:
    """The page of ``reports[0]``; further reports (other budgets) and ``baselines`` join its charts.
    ``walks`` maps question ids to the relative links of their walk pages."""
    report = reports[0]
    summary = report["summary"]
    return render(
        "eval.html.j2",
        scripts=("page.js",),
        page_title="Evaluation",
        report=report,
        summary=summary,
        words=_words(summary),
        charts=charts(reports, baselines or []),
        losses=losses(summary),
        missed=missed_questions(report, walks or {}),
        others=reports[1:],
    )


def write_eval_report(
    paths: list[str | Path],
    out: str | Path,
    *,
    baselines: str | Path | None = None,
    walks_dir: str | Path | None = None,
    bundle: str | None = None,
) -> dict[str, Any]:
    """Write the evaluation page to ``out`` and, with ``walks_dir``, one page per missed question's walk into
    ``<out stem>-walks/``. Returns what was written: ``{"report": path, "walks": [paths], "bytes": n}``."""
    from okf.report.files import write_html
    from okf.report.walk import walk_page

    reports = [load_eval(p) for p in paths]
    points = load_baselines(baselines) if baselines else []
    out = Path(out)
    links: dict[str, str] = {}
    written: list[str] = []
    total = 0
    report = reports[0]
    if walks_dir is not None:
        folder = out.with_name(out.stem + "-walks")
        for question in missed_questions(report, {}):
            name = walk_file_name(str(question["id"]))
            source = Path(walks_dir) / f"{name}.json"
            if not source.is_file():
                continue
            record = WalkRecord.from_result(_read_json(source, "re-run okf eval with --walks DIR"), str(source))
            record.question = record.question or str(question["question"])
            result = next(r for r in report["results"] if r.get("id") == question["id"])
            html = walk_page(
                record,
                bundle=bundle or record.bundle or report.get("bundle"),
                title="Walk",
                gold=result.get("spans") or [],
                back=f"../{out.name}",
            )
            folder.mkdir(parents=True, exist_ok=True)
            total += write_html(folder / f"{name}.html", html)
            written.append(str(folder / f"{name}.html"))
            links[str(question["id"])] = f"{folder.name}/{name}.html"
    total += write_html(out, eval_page(reports, baselines=points, walks=links))
    return {"report": str(out), "walks": written, "bytes": total}
