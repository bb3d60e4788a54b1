"""Evaluate okf and the reference baselines on the shared corpora; write JSON results, markdown tables, a chart.

    python scripts/eval_corpora.py --sample 200            # all three corpora, 200 questions each
    python scripts/eval_corpora.py --corpora rhdh --sample 50 --budgets 30,120

Corpora are found under $OKF_SHARED/corpora (default: <repo>/../shared/corpora). Compiled bundles are cached
outside the repository, one folder per corpus under --cache (default: $OKF_EVAL_CACHE or
<tmp>/okf-eval-cache); compile is incremental, so a second run reuses them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from baselines import (
    BaselineRun,
    BM25Index,
    LatencyReader,
    Summary,
    _documents,
    bm25_topk,
    judge_everything,
    serial_reference,
    summarize_runs,
)

from okf.bundle import Bundle
from okf.eval import DEFAULT_SEED, EvalReport, GoldIndex, evaluate_async, load_questions, pick
from okf.models import Budgets
from okf.readers import OfflineReader

CORPORA = ("cuad", "obliqa", "rhdh")
BM25_DEPTHS = (1, 3, 5, 10, 20, 40, 80, 120, 240)


def shared_root() -> Path:
    """$OKF_SHARED, else the ``shared`` folder beside the repository."""
    return Path(os.environ.get("OKF_SHARED") or REPO.parent / "shared")


def compile_corpus(name: str, sources: Path, cache: Path) -> tuple[Bundle, dict[str, Any]]:
    """Compile (incrementally) the corpus sources into the cache; the bundle and compile figures."""
    from okf.compile import compile_bundle

    output = cache / name
    started = time.perf_counter()
    report = compile_bundle(sources, output)
    figures = {"concepts": report.concepts, "seconds": round(time.perf_counter() - started, 1),
               "rebuilt": report.documents_rebuilt, "sources": report.sources}
    print(f"[{name}] compiled {report.sources} sources -> {report.concepts} concepts in {figures['seconds']}s "
          f"({report.documents_rebuilt} rebuilt) at {output}", file=sys.stderr)
    return Bundle.open(output), figures


def okf_row(report: EvalReport) -> dict[str, Any]:
    """The figures of one okf eval run, as a table row."""
    s = report.summary
    return {"questions": s.questions, "recall_any": s.recall_any, "recall_all": s.recall_all,
            "coverage": s.coverage, "precision": s.precision, "bodies_mean": s.bodies_judged_mean,
            "calls_mean": s.calls_mean, "seconds_mean": s.seconds_mean, "losses": s.losses,
            "spans": s.spans, "spans_hit": s.spans_hit, "stopped_by": s.stopped_by,
            "empty_shortlists": s.empty_shortlists}


def baseline_row(summary: Summary) -> dict[str, Any]:
    """A baseline summary as a table row."""
    return asdict(summary)


async def run_corpus(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """Every measurement for one corpus."""
    corpus = shared_root() / "corpora" / name
    bundle, compiled = compile_corpus(name, corpus / "sources", Path(args.cache))
    every = load_questions(corpus / "questions.jsonl")
    questions = pick(every, sample=args.sample, seed=args.seed)
    started = time.perf_counter()
    index = GoldIndex.from_bundle(bundle)
    index_seconds = time.perf_counter() - started
    reader = OfflineReader()
    out: dict[str, Any] = {"corpus": name, "questions_total": len(every), "sample": len(questions),
                           "seed": args.seed, "compile": compiled, "index_seconds": round(index_seconds, 2),
                           "concepts": index.concepts, "concepts_with_lines": len(index.by_concept)}

    okf_runs: dict[int, EvalReport] = {}
    for max_bodies in args.budgets:
        t0 = time.perf_counter()
        report = await evaluate_async(bundle, every, reader=reader, budgets={"max_bodies": max_bodies},
                                      sample=args.sample, seed=args.seed, gold_index=index)
        okf_runs[max_bodies] = report
        s = report.summary
        print(f"[{name}] okf max_bodies={max_bodies}: recall {s.recall_any:.3f}, bodies {s.bodies_judged_mean:.1f}"
              f" ({time.perf_counter() - t0:.0f}s)", file=sys.stderr)
    out["okf"] = {str(b): okf_row(r) for b, r in okf_runs.items()}
    default = okf_runs[args.default_budget]
    out["default_budget"] = args.default_budget

    t0 = time.perf_counter()
    bm25 = BM25Index(bundle)
    k_by_id = {r.id: r.bodies_judged for r in default.results}
    out["bm25_matched"] = baseline_row(summarize_runs(questions, bm25_topk(bm25, questions, k_by_id), index))
    rankings = {q.id: bm25.ranking(q.question, max(BM25_DEPTHS)) for q in questions}
    curve = {}
    for k in BM25_DEPTHS:
        runs = [BaselineRun(q.id, rankings[q.id][:k], bodies=k) for q in questions]
        curve[str(k)] = baseline_row(summarize_runs(questions, runs, index))
    out["bm25_curve"] = curve
    print(f"[{name}] bm25 done ({time.perf_counter() - t0:.0f}s)", file=sys.stderr)

    budgets = Budgets(max_bodies=args.default_budget)
    t0 = time.perf_counter()
    serial = [await serial_reference(bundle, q, reader, budgets) for q in questions]
    out["serial"] = baseline_row(summarize_runs(questions, serial, index))
    print(f"[{name}] serial reference done ({time.perf_counter() - t0:.0f}s)", file=sys.stderr)

    # Judging every concept costs one body per concept per question: cap the total bodies of this baseline.
    affordable = max(2, args.judge_all_bodies // max(index.concepts, 1))
    subset = pick(questions, sample=min(args.judge_all_sample, affordable), seed=args.seed)
    t0 = time.perf_counter()
    docs = _documents(bundle, list(bundle.iter_concepts()), budgets.body_chars)
    judged = [await judge_everything(bundle, q, reader, budgets, documents=docs) for q in subset]
    out["judge_all"] = baseline_row(summarize_runs(subset, judged, index))
    # okf on the same subset, so the two are compared on the same questions.
    same = [r for r in default.results if r.id in {q.id for q in subset}]
    out["judge_all"]["okf_recall_any_same_questions"] = sum(r.recall_any for r in same) / len(same)
    print(f"[{name}] judge-everything on {len(subset)} questions done ({time.perf_counter() - t0:.0f}s)",
          file=sys.stderr)

    if args.latency_ms > 0:
        slow = LatencyReader(reader, args.latency_ms / 1000)
        few = pick(questions, sample=args.latency_sample, seed=args.seed)
        t0 = time.perf_counter()
        concurrent = await evaluate_async(bundle, few, reader=slow, budgets=budgets, gold_index=index)
        concurrent_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        serial_slow = [await serial_reference(bundle, q, slow, budgets) for q in few]
        serial_s = time.perf_counter() - t0
        out["latency"] = {
            "latency_ms": args.latency_ms, "questions": len(few),
            "okf_seconds_mean": concurrent_s / len(few), "okf_calls_mean": concurrent.summary.calls_mean,
            "okf_recall_any": concurrent.summary.recall_any,
            "serial_seconds_mean": serial_s / len(few),
            "serial_calls_mean": sum(r.calls for r in serial_slow) / len(few),
            "serial_recall_any": summarize_runs(few, serial_slow, index).recall_any,
        }
        print(f"[{name}] latency comparison done", file=sys.stderr)
    return out


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def markdown(results: list[dict[str, Any]], flags: str) -> str:
    """One table per corpus plus the loss breakdown and the latency table.

    ``flags`` are the judge-everything options of the run; sample, seed and budgets come from each result.
    """
    lines: list[str] = []
    for r in results:
        name = r["corpus"]
        lines += [(f"#### {name}: {r['sample']} of {r['questions_total']} questions (seed {r['seed']}), "
                  f"{r['concepts']} concepts"), "",
                  (f"Reproduce: `python scripts/eval_corpora.py --sample {r['sample']} --seed {r['seed']} "
                   f"--budgets {','.join(str(b) for b in r['okf'])} {flags} --corpora {name}`"), "",
                  ("| system | questions | recall (any) | recall (all) | gold coverage | precision | "
                  "bodies / question | calls / question |"),
                  "|---|---|---|---|---|---|---|---|"]
        for budget, row in r["okf"].items():
            lines.append(f"| okf, offline reader, max_bodies {budget} | {row['questions']} | {pct(row['recall_any'])} | "
                         f"{pct(row['recall_all'])} | {pct(row['coverage'])} | {pct(row['precision'])} | "
                         f"{row['bodies_mean']:.1f} | {row['calls_mean']:.1f} |")
        rows = [(f"serial reference workflow, max_bodies {r['default_budget']}", r["serial"]),
                (f"BM25 top-k, k = okf's bodies judged (max_bodies {r['default_budget']})", r["bm25_matched"]),
                ("BM25 top-10", r["bm25_curve"]["10"]),
                ("judge every concept (offline judge)", r["judge_all"])]
        for label, row in rows:
            calls = "-" if label.startswith("BM25") else f"{row['calls_mean']:.1f}"
            lines.append(f"| {label} | {row['questions']} | {pct(row['recall_any'])} | {pct(row['recall_all'])} | "
                         f"{pct(row['coverage'])} | {pct(row['precision'])} | {row['bodies_mean']:.1f} | {calls} |")
        ja = r["judge_all"]
        lines += ["", (f"Judge-everything ran on {ja['questions']} of the sampled questions; okf's recall (any) on "
                  f"those same questions was {pct(ja['okf_recall_any_same_questions'])}."), ""]
        default = r["okf"][str(r["default_budget"])]
        missed = default["spans"] - default["spans_hit"]
        lines += [f"Where okf (max_bodies {r['default_budget']}) lost the {missed} missed gold spans "
                  f"(of {default['spans']}): " + ", ".join(f"{k} {v}" for k, v in default["losses"].items()) + ".",
                  ""]
    if any("latency" in r for r in results):
        lines += [("| corpus | questions | simulated latency / call | okf s / question | serial s / question | "
                  "okf calls | serial calls |"), "|---|---|---|---|---|---|---|"]
        for r in results:
            lat = r.get("latency")
            if lat:
                lines.append(f"| {r['corpus']} | {lat['questions']} | {lat['latency_ms']} ms | "
                             f"{lat['okf_seconds_mean']:.2f} | {lat['serial_seconds_mean']:.2f} | "
                             f"{lat['okf_calls_mean']:.1f} | {lat['serial_calls_mean']:.1f} |")
    return "\n".join(lines) + "\n"


def chart(results: list[dict[str, Any]], path: Path) -> None:
    """Recall (any gold span) against mean bodies judged per question, one panel per corpus."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(5 * len(results), 4.2), squeeze=False)
    for ax, r in zip(axes[0], results):
        okf = sorted(r["okf"].items(), key=lambda kv: int(kv[0]))
        ax.plot([v["bodies_mean"] for _, v in okf], [v["recall_any"] for _, v in okf], "o-",
                label="okf (offline reader), max_bodies " + "/".join(k for k, _ in okf))
        bm = sorted(r["bm25_curve"].items(), key=lambda kv: int(kv[0]))
        ax.plot([v["bodies_mean"] for _, v in bm], [v["recall_any"] for _, v in bm], "s--", alpha=0.7,
                label="BM25 top-k (similarity reference)")
        ax.plot([r["serial"]["bodies_mean"]], [r["serial"]["recall_any"]], "^", markersize=9,
                label="serial reference workflow")
        ax.plot([r["judge_all"]["bodies_mean"]], [r["judge_all"]["recall_any"]], "D", markersize=8,
                label=f"judge every concept ({r['judge_all']['questions']} q)")
        ax.set_xscale("log")
        ax.set_ylim(0, 1)
        ax.set_title(f"{r['corpus']} ({r['sample']} questions)")
        ax.set_xlabel("bodies judged per question (mean, log scale)")
        ax.set_ylabel("recall: some gold span shortlisted")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def main() -> None:
    """Parse arguments, run every corpus, write the outputs."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", default=",".join(CORPORA))
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--budgets", default="15,30,60,120", help="max_bodies values for okf")
    parser.add_argument("--default-budget", type=int, default=120, help="the budget the baselines are matched to")
    parser.add_argument("--judge-all-sample", type=int, default=40)
    parser.add_argument("--judge-all-bodies", type=int, default=6000,
                        help="judge-everything runs on at most this many bodies / concepts questions (>= 2)")
    parser.add_argument("--latency-ms", type=float, default=200.0, help="0 skips the wall-time comparison")
    parser.add_argument("--latency-sample", type=int, default=5)
    parser.add_argument("--merge", nargs="+", default=None,
                        help="render tables and chart from saved results JSON files instead of running")
    parser.add_argument("--cache", default=os.environ.get("OKF_EVAL_CACHE")
                        or str(Path(tempfile.gettempdir()) / "okf-eval-cache"))
    parser.add_argument("--out", default=None, help="JSON results (default: <cache>/results.json)")
    parser.add_argument("--markdown", default=None, help="also write the tables here")
    parser.add_argument("--chart", default=str(REPO / "docs" / "img" / "recall_vs_bodies.png"))
    args = parser.parse_args()
    args.budgets = sorted({int(b) for b in args.budgets.split(",")} | {args.default_budget})
    names = [n.strip() for n in args.corpora.split(",") if n.strip()]
    if args.merge:
        results = [r for f in args.merge for r in json.loads(Path(f).read_text(encoding="utf-8"))]
    else:
        results = [asyncio.run(run_corpus(name, args)) for name in names]
    out = Path(args.out or Path(args.cache) / "results.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    text = markdown(results, f"--judge-all-sample {args.judge_all_sample} --judge-all-bodies {args.judge_all_bodies}")
    if args.markdown:
        Path(args.markdown).write_text(text, encoding="utf-8")
    chart(results, Path(args.chart))
    print(text)
    print(f"results: {out}\nchart: {args.chart}", file=sys.stderr)


if __name__ == "__main__":
    main()
