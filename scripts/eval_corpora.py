"""Evaluate okf's offline reader and the reference baselines on the shared corpora, with the words each reads.

    python scripts/eval_corpora.py                                  # four corpora, 300 questions each (all if fewer)
    python scripts/eval_corpora.py --corpora rhdh --sample 50 --budgets 30,120

Per corpus: okf at each ``max_bodies`` budget, and, at the default budget, the figures issue 12 compares:
recall (any gold span shortlisted), recall (all), precision, **shortlist words** (what answer generation
reads) and **walk words** (signposts + judged bodies: what an LLM reader pays), against

- BM25 top-10 over the same concepts (its words are the ten bodies), and BM25 top-k at okf's shortlist
  words per question (the flat retriever at equal words);
- the same offline judge on every concept (the judge's ceiling), on a small subset.

Every row is given for all sampled questions and for the **held-out** ones: the offline reader was tuned on
a development split (a question is in it when the sha256 of its id is 0 mod 4); held-out figures are the
honest ones. Corpora are found under $OKF_SHARED/corpora (default: <repo>/../shared/corpora); bundles are
compiled (incrementally) into --cache, outside the repository.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from statistics import mean
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from baselines import (  # noqa: E402
    BaselineRun,
    BM25Index,
    _documents,
    bm25_at_words,
    judge_everything,
    summarize_runs,
)

from okf.bundle import Bundle  # noqa: E402
from okf.eval import DEFAULT_SEED, EvalReport, GoldIndex, evaluate_async, load_questions, pick  # noqa: E402
from okf.eval.questions import EvalQuestion  # noqa: E402
from okf.models import Budgets  # noqa: E402
from okf.readers import OfflineReader  # noqa: E402

CORPORA = ("cuad", "obliqa", "rhdh", "hotpotqa-dev")


def shared_root() -> Path:
    """$OKF_SHARED, else the ``shared`` folder beside the repository."""
    return Path(os.environ.get("OKF_SHARED") or REPO.parent / "shared")


def held_out(question_id: str) -> bool:
    """Not in the development split the offline reader was tuned on (sha256 of the id not 0 mod 4)."""
    return int(hashlib.sha256(question_id.encode()).hexdigest(), 16) % 4 != 0


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


def okf_row(report: EvalReport, ids: set[str] | None = None) -> dict[str, Any]:
    """The figures of one okf run (on the questions ``ids`` when given), as a table row."""
    results = [r for r in report.results if ids is None or r.id in ids]
    precisions = [r.precision for r in results if r.precision is not None]
    return {"questions": len(results), "recall_any": mean(r.recall_any for r in results),
            "recall_all": mean(r.recall_all for r in results),
            "precision": mean(precisions) if precisions else None,
            "bodies_mean": mean(r.bodies_judged for r in results), "calls_mean": mean(r.calls for r in results),
            "seconds_mean": mean(r.seconds for r in results),
            "words_shortlist": mean(r.words_shortlist for r in results),
            "words_signposts": mean(r.words_signposts for r in results),
            "words_bodies": mean(r.words_bodies for r in results),
            "losses": dict(report.summary.losses) if ids is None else None,
            "empty_shortlists": sum(1 for r in results if not r.shortlist)}


def baseline_row(questions: list[EvalQuestion], runs: list[BaselineRun], index: GoldIndex) -> dict[str, Any]:
    """A baseline's figures on ``questions`` (its runs matched by id), as a table row."""
    by_id = {r.id: r for r in runs}
    chosen = [by_id[q.id] for q in questions if q.id in by_id]
    row = asdict(summarize_runs([q for q in questions if q.id in by_id], chosen, index))
    row.pop("extra", None)
    return row


async def run_corpus(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """Every measurement for one corpus."""
    corpus = shared_root() / "corpora" / name
    bundle, compiled = compile_corpus(name, corpus / "sources", Path(args.cache))
    every = load_questions(corpus / "questions.jsonl")
    questions = pick(every, sample=args.sample, seed=args.seed)
    held = {q.id for q in questions if held_out(q.id)}
    index = GoldIndex.from_bundle(bundle)
    reader = OfflineReader()
    out: dict[str, Any] = {"corpus": name, "questions_total": len(every), "sample": len(questions),
                           "held_out": len(held), "seed": args.seed, "compile": compiled,
                           "concepts": index.concepts, "default_budget": args.default_budget}
    okf_runs: dict[int, EvalReport] = {}
    cpu: dict[int, float] = {}
    for max_bodies in args.budgets:
        t0 = time.perf_counter()
        c0 = time.process_time()
        report = await evaluate_async(bundle, questions, reader=reader, budgets={"max_bodies": max_bodies},
                                      gold_index=index)
        cpu[max_bodies] = (time.process_time() - c0) / len(questions)
        okf_runs[max_bodies] = report
        print(f"[{name}] okf max_bodies={max_bodies}: recall {report.summary.recall_any:.3f}, "
              f"{time.perf_counter() - t0:.0f}s", file=sys.stderr)
    out["okf"] = {str(b): okf_row(r) for b, r in okf_runs.items()}
    default = okf_runs[args.default_budget]
    out["okf_held_out"] = okf_row(default, held)
    out["cpu_ms_per_question"] = 1000 * cpu[args.default_budget]

    t0 = time.perf_counter()
    bm25 = BM25Index(bundle)
    top10 = [BaselineRun(q.id, bm25.ranking(q.question, 10), bodies=10,
                         words=sum(bm25.words[p] for p in bm25.ranking(q.question, 10))) for q in questions]
    equal = bm25_at_words(bm25, questions, {r.id: r.words_shortlist for r in default.results})
    held_q = [q for q in questions if q.id in held]
    out["bm25_top10"] = baseline_row(questions, top10, index)
    out["bm25_top10_held_out"] = baseline_row(held_q, top10, index)
    out["bm25_equal_words"] = baseline_row(questions, equal, index)
    out["bm25_equal_words_held_out"] = baseline_row(held_q, equal, index)
    print(f"[{name}] bm25 done ({time.perf_counter() - t0:.0f}s)", file=sys.stderr)

    budgets = Budgets(max_bodies=args.default_budget)
    affordable = max(2, args.judge_all_bodies // max(index.concepts, 1))
    subset = pick(questions, sample=min(args.judge_all_sample, affordable), seed=args.seed)
    t0 = time.perf_counter()
    docs = _documents(bundle, list(bundle.iter_concepts()), budgets.body_chars)
    judged = [await judge_everything(bundle, q, reader, budgets, documents=docs) for q in subset]
    out["judge_all"] = baseline_row(subset, judged, index)
    same = [r for r in default.results if r.id in {q.id for q in subset}]
    out["judge_all"]["okf_recall_any_same_questions"] = mean(r.recall_any for r in same)
    print(f"[{name}] judge-everything on {len(subset)} questions done ({time.perf_counter() - t0:.0f}s)",
          file=sys.stderr)
    return out


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def words(value: float | None) -> str:
    return "-" if not value else f"{value:,.0f}"


def markdown(results: list[dict[str, Any]], flags: str) -> str:
    """One table per corpus: okf's budgets, then okf and the baselines at the default budget, all and held out."""
    lines: list[str] = []
    for r in results:
        name = r["corpus"]
        budget = r["default_budget"]
        lines += [(f"#### {name}: {r['sample']} of {r['questions_total']} questions (seed {r['seed']}; "
                   f"{r['held_out']} held out), {r['concepts']} concepts"), "",
                  (f"Reproduce: `python scripts/eval_corpora.py --sample {r['sample']} --seed {r['seed']} "
                   f"--budgets {','.join(str(b) for b in r['okf'])} {flags} --corpora {name}`"), "",
                  ("| system | questions | recall (any) | recall (all) | precision | shortlist words | "
                   "walk words (signposts + bodies) | bodies |"),
                  "|---|---|---|---|---|---|---|---|"]
        for b, row in r["okf"].items():
            lines.append(f"| okf, offline reader, max_bodies {b} | {row['questions']} | {pct(row['recall_any'])} | "
                         f"{pct(row['recall_all'])} | {pct(row['precision'])} | {words(row['words_shortlist'])} | "
                         f"{words(row['words_signposts'])} + {words(row['words_bodies'])} | "
                         f"{row['bodies_mean']:.1f} |")
        held = r["okf_held_out"]
        lines.append(f"| okf, max_bodies {budget}, held out | {held['questions']} | {pct(held['recall_any'])} | "
                     f"{pct(held['recall_all'])} | {pct(held['precision'])} | {words(held['words_shortlist'])} | "
                     f"{words(held['words_signposts'])} + {words(held['words_bodies'])} | "
                     f"{held['bodies_mean']:.1f} |")
        for label, key in [("BM25 top-10", "bm25_top10"), ("BM25 top-10, held out", "bm25_top10_held_out"),
                           ("BM25 at okf's shortlist words", "bm25_equal_words"),
                           ("BM25 at okf's shortlist words, held out", "bm25_equal_words_held_out"),
                           ("offline judge on every concept", "judge_all")]:
            row = r[key]
            walk = f"- + {words(row['words_mean'])}" if key == "judge_all" else "-"
            short = "-" if key == "judge_all" else words(row["words_mean"])
            lines.append(f"| {label} | {row['questions']} | {pct(row['recall_any'])} | {pct(row['recall_all'])} | "
                         f"{pct(row['precision'])} | {short} | {walk} | {row['bodies_mean']:.1f} |")
        ja = r["judge_all"]
        default = r["okf"][str(budget)]
        missed = ", ".join(f"{k} {v}" for k, v in (default["losses"] or {}).items())
        lines += ["", (f"Judge-everything ran on {ja['questions']} of the sampled questions; okf's recall (any) on "
                       f"those same questions was {pct(ja['okf_recall_any_same_questions'])}. Where okf (max_bodies "
                       f"{budget}) lost missed gold spans: {missed or 'none'}. Empty shortlists: "
                       f"{default['empty_shortlists']}. CPU per question (offline reader, walk and scoring): "
                       f"{r['cpu_ms_per_question']:.0f} ms."), ""]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Parse arguments, run every corpus, write the outputs."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", default=",".join(CORPORA))
    parser.add_argument("--sample", type=int, default=300, help="questions per corpus (all when fewer)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--budgets", default="15,40,120", help="max_bodies values for okf")
    parser.add_argument("--default-budget", type=int, default=120, help="the budget the baselines are compared at")
    parser.add_argument("--judge-all-sample", type=int, default=20)
    parser.add_argument("--judge-all-bodies", type=int, default=100_000,
                        help="judge-everything runs on at most this many bodies / concepts questions (>= 2)")
    parser.add_argument("--merge", nargs="+", default=None,
                        help="render tables from saved results JSON files instead of running")
    parser.add_argument("--cache", default=os.environ.get("OKF_EVAL_CACHE")
                        or str(Path(tempfile.gettempdir()) / "okf-eval-cache"))
    parser.add_argument("--out", default=None, help="JSON results (default: <cache>/results.json)")
    parser.add_argument("--markdown", default=None, help="also write the tables here")
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
    print(text)
    print(f"results: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
