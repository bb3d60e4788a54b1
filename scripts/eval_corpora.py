"""Evaluate okf's offline reader and the reference baselines on the shared corpora, with the words each reads.

    python scripts/eval_corpora.py                                  # four corpora, 300 questions each (all if fewer)
    python scripts/eval_corpora.py --corpora rhdh --sample 50 --budgets 30,120
    python scripts/eval_corpora.py --budgets 120 --angles off,auto --loopback-latency 0.2 --loopback-sample 10

``--angles`` runs okf with each orchestration setting (docs/navigate.md, "Angles") at every budget; the tables
add walks per question. ``--loopback-latency L`` also times ``--loopback-sample`` questions per setting through
the real ``LLMReader`` against ``okf.testing.LoopbackServer`` in a child process (the offline decisions over
HTTP, L seconds per call), and reports wall time per question and its ratio to ``--angles off``.

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
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from statistics import mean, median
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# This checkout's okf, not whichever is installed: a before/after comparison runs each tree's own script.
sys.path[:0] = [str(REPO), str(Path(__file__).resolve().parent)]

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
    from okf.compile import CompileOptions, compile_bundle

    output = cache / name
    started = time.perf_counter()
    # Concepts cite the corpus files themselves (not a mirror inside the bundle): gold spans name those files.
    report = compile_bundle(sources, output, options=CompileOptions(copy_sources=False))
    figures = {
        "concepts": report.concepts,
        "seconds": round(time.perf_counter() - started, 1),
        "rebuilt": report.documents_rebuilt,
        "sources": report.sources,
    }
    print(
        f"[{name}] compiled {report.sources} sources -> {report.concepts} concepts in {figures['seconds']}s "
        f"({report.documents_rebuilt} rebuilt) at {output}",
        file=sys.stderr,
    )
    return Bundle.open(output), figures


def okf_row(report: EvalReport, ids: set[str] | None = None) -> dict[str, Any]:
    """The figures of one okf run (on the questions ``ids`` when given), as a table row."""
    results = [r for r in report.results if ids is None or r.id in ids]
    precisions = [r.precision for r in results if r.precision is not None]
    return {
        "questions": len(results),
        "recall_any": mean(r.recall_any for r in results),
        "recall_all": mean(r.recall_all for r in results),
        "precision": mean(precisions) if precisions else None,
        "bodies_mean": mean(r.bodies_judged for r in results),
        "calls_mean": mean(r.calls for r in results),
        "seconds_mean": mean(r.seconds for r in results),
        "words_shortlist": mean(r.words_shortlist for r in results),
        "words_signposts": mean(r.words_signposts for r in results),
        "words_bodies": mean(r.words_bodies for r in results),
        "losses": dict(report.summary.losses) if ids is None else None,
        "empty_shortlists": sum(1 for r in results if not r.shortlist),
        "walks_median": median(r.walks for r in results),
        "walks_mean": mean(r.walks for r in results),
        "walks_max": max(r.walks for r in results),
        "stops": dict(Counter(r.stop for r in results if r.stop)),
    }


def baseline_row(questions: list[EvalQuestion], runs: list[BaselineRun], index: GoldIndex) -> dict[str, Any]:
    """A baseline's figures on ``questions`` (its runs matched by id), as a table row."""
    by_id = {r.id: r for r in runs}
    chosen = [by_id[q.id] for q in questions if q.id in by_id]
    row = asdict(summarize_runs([q for q in questions if q.id in by_id], chosen, index))
    row.pop("extra", None)
    return row


def loopback_reader(url: str) -> Any:
    """The real LLMReader against the loopback model at ``url``: no cache, no retries, 32 calls at once."""
    from okf.readers import LLMReader, ReaderConfig

    return LLMReader(
        ReaderConfig(
            model="loopback",
            base_url=url,
            api_key_env="OKF_BENCH_KEY",
            cache=False,
            concurrency=32,
            max_retries=0,
        )
    )


def serve(bundle: str, latency: float) -> None:
    """Child-process mode: the loopback model answering with the offline decisions for ``bundle``'s vocabulary;
    prints its URL and serves until stdin closes."""
    from okf.testing import LoopbackServer, offline_rule

    with LoopbackServer(rule=offline_rule(Bundle.open(bundle).vocabulary()), latency=latency) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


async def wall_times(
    bundle: Bundle, questions: list[EvalQuestion], settings: list[str], latency: float, budgets: Budgets
) -> dict[str, Any]:
    """Seconds per question for each angles setting, through LLMReader against the loopback model."""
    import subprocess

    from okf.navigator import navigate_async

    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(bundle.root), str(latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None
    out: dict[str, Any] = {"latency": latency, "questions": len(questions), "seconds": {}, "walks": {}}
    try:
        url = child.stdout.readline().strip()
        for setting in settings:
            times, walks = [], []
            for question in questions:
                reader = loopback_reader(url)
                started = time.perf_counter()
                result = await navigate_async(bundle, question.question, reader=reader, budgets=budgets, angles=setting)
                times.append(time.perf_counter() - started)
                walks.append(result.orchestration.walks if result.orchestration else 1)
                await reader.aclose()
            out["seconds"][setting] = times
            out["walks"][setting] = walks
    finally:
        child.stdin.close()
        child.wait(timeout=30)
    return out


async def run_corpus(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """Every measurement for one corpus."""
    corpus = shared_root() / "corpora" / name
    bundle, compiled = compile_corpus(name, corpus / "sources", Path(args.cache))
    every = load_questions(corpus / "questions.jsonl")
    questions = pick(every, sample=args.sample, seed=args.seed)
    held = {q.id for q in questions if held_out(q.id)}
    index = GoldIndex.from_bundle(bundle)
    reader = OfflineReader()
    out: dict[str, Any] = {
        "corpus": name,
        "questions_total": len(every),
        "sample": len(questions),
        "held_out": len(held),
        "seed": args.seed,
        "compile": compiled,
        "concepts": index.concepts,
        "default_budget": args.default_budget,
    }
    okf_runs: dict[str, EvalReport] = {}
    cpu: dict[str, float] = {}
    for max_bodies in args.budgets:
        for setting in args.angles:
            key = f"{max_bodies}/{setting}"
            t0 = time.perf_counter()
            c0 = time.process_time()
            report = await evaluate_async(
                bundle, questions, reader=reader, budgets={"max_bodies": max_bodies}, gold_index=index, angles=setting
            )
            cpu[key] = (time.process_time() - c0) / len(questions)
            okf_runs[key] = report
            print(
                f"[{name}] okf max_bodies={max_bodies} angles={setting}: recall {report.summary.recall_any:.3f}, "
                f"{time.perf_counter() - t0:.0f}s",
                file=sys.stderr,
            )
    out["angles"] = args.angles
    out["okf"] = {k: okf_row(r) for k, r in okf_runs.items()}
    out["okf_held_out"] = {k: okf_row(r, held) for k, r in okf_runs.items() if k.startswith(f"{args.default_budget}/")}
    default = okf_runs[f"{args.default_budget}/{args.angles[0]}"]
    out["cpu_ms_per_question"] = {k: 1000 * v for k, v in cpu.items()}
    if args.loopback_latency:
        timed = pick(questions, sample=args.loopback_sample, seed=args.seed)
        out["wall"] = await wall_times(
            bundle, timed, args.angles, args.loopback_latency, Budgets(max_bodies=args.default_budget)
        )
        print(f"[{name}] wall time over the loopback model done", file=sys.stderr)

    t0 = time.perf_counter()
    bm25 = BM25Index(bundle)
    top10 = [
        BaselineRun(
            q.id,
            bm25.ranking(q.question, 10),
            bodies=10,
            words=sum(bm25.words[p] for p in bm25.ranking(q.question, 10)),
        )
        for q in questions
    ]
    held_q = [q for q in questions if q.id in held]
    out["bm25_top10"] = baseline_row(questions, top10, index)
    out["bm25_top10_held_out"] = baseline_row(held_q, top10, index)
    out["bm25_equal_words"], out["bm25_equal_words_held_out"] = {}, {}
    for setting in args.angles:
        run = okf_runs[f"{args.default_budget}/{setting}"]
        equal = bm25_at_words(bm25, questions, {r.id: r.words_shortlist for r in run.results})
        out["bm25_equal_words"][setting] = baseline_row(questions, equal, index)
        out["bm25_equal_words_held_out"][setting] = baseline_row(held_q, equal, index)
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
    print(
        f"[{name}] judge-everything on {len(subset)} questions done ({time.perf_counter() - t0:.0f}s)", file=sys.stderr
    )
    return out


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def words(value: float | None) -> str:
    return "-" if not value else f"{value:,.0f}"


def _okf_line(label: str, row: dict[str, Any]) -> str:
    walks = f"{row['walks_median']:g} / {row['walks_max']}" if "walks_median" in row else "-"
    return (
        f"| {label} | {row['questions']} | {pct(row['recall_any'])} | {pct(row['recall_all'])} | "
        f"{pct(row['precision'])} | {words(row['words_shortlist'])} | {words(row['words_signposts'])} + "
        f"{words(row['words_bodies'])} | {row['bodies_mean']:.1f} | {walks} |"
    )


def markdown(results: list[dict[str, Any]], flags: str) -> str:
    """One table per corpus: okf at each budget and angles setting, then okf and the baselines at the default
    budget, all and held out; then the wall times over the loopback model when measured."""
    lines: list[str] = []
    for r in results:
        name = r["corpus"]
        budget = r["default_budget"]
        settings = r.get("angles", ["auto"])
        budgets = sorted({k.split("/")[0] for k in r["okf"]}, key=int)
        lines += [
            (
                f"#### {name}: {r['sample']} of {r['questions_total']} questions (seed {r['seed']}; "
                f"{r['held_out']} held out), {r['concepts']} concepts"
            ),
            "",
            (
                f"Reproduce: `python scripts/eval_corpora.py --sample {r['sample']} --seed {r['seed']} "
                f"--budgets {','.join(budgets)} --angles {','.join(settings)} {flags} --corpora {name}`"
            ),
            "",
            (
                "| system | questions | recall (any) | recall (all) | precision | shortlist words | "
                "walk words (signposts + bodies) | bodies | walks (median / max) |"
            ),
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for key, row in r["okf"].items():
            b, setting = key.split("/")
            lines.append(_okf_line(f"okf, max_bodies {b}, angles {setting}", row))
        for key, row in r["okf_held_out"].items():
            lines.append(_okf_line(f"okf, max_bodies {budget}, angles {key.split('/')[1]}, held out", row))
        for label, key in [("BM25 top-10", "bm25_top10"), ("BM25 top-10, held out", "bm25_top10_held_out")]:
            row = r[key]
            lines.append(
                f"| {label} | {row['questions']} | {pct(row['recall_any'])} | {pct(row['recall_all'])} | "
                f"{pct(row['precision'])} | {words(row['words_mean'])} | - | {row['bodies_mean']:.1f} | - |"
            )
        for setting in settings:
            for label, key in [
                (f"BM25 at okf's shortlist words (angles {setting})", "bm25_equal_words"),
                (f"BM25 at okf's shortlist words (angles {setting}), held out", "bm25_equal_words_held_out"),
            ]:
                row = r[key][setting]
                lines.append(
                    f"| {label} | {row['questions']} | {pct(row['recall_any'])} | "
                    f"{pct(row['recall_all'])} | {pct(row['precision'])} | {words(row['words_mean'])} | - | "
                    f"{row['bodies_mean']:.1f} | - |"
                )
        ja = r["judge_all"]
        lines.append(
            f"| offline judge on every concept | {ja['questions']} | {pct(ja['recall_any'])} | "
            f"{pct(ja['recall_all'])} | {pct(ja['precision'])} | - | - + {words(ja['words_mean'])} | "
            f"{ja['bodies_mean']:.1f} | - |"
        )
        notes = []
        for setting in settings:
            row = r["okf"][f"{budget}/{setting}"]
            missed = ", ".join(f"{k} {v}" for k, v in (row["losses"] or {}).items())
            stops = ", ".join(f"{k} {v}" for k, v in sorted(row.get("stops", {}).items()))
            cpu = r["cpu_ms_per_question"][f"{budget}/{setting}"]
            notes.append(
                f"angles {setting}: missed gold lost at {missed or 'none'}; empty shortlists "
                f"{row['empty_shortlists']}; CPU {cpu:.0f} ms per question" + (f"; stops: {stops}" if stops else "")
            )
        lines += [
            "",
            (
                f"Judge-everything ran on {ja['questions']} of the sampled questions; okf's recall (any) on "
                f"those same questions was {pct(ja['okf_recall_any_same_questions'])}. At max_bodies "
                f"{budget}: " + "; ".join(notes) + "."
            ),
            "",
        ]
        wall = r.get("wall")
        if wall:
            base = wall["seconds"].get("off")
            lines += [
                f"Wall time over the loopback model ({wall['latency'] * 1000:.0f} ms per call, LLMReader, "
                f"concurrency 32), {wall['questions']} questions:",
                "",
                "| angles | seconds / question (mean) | median | max | ratio to off (mean of ratios) | "
                "walks (median / max) |",
                "|---|---|---|---|---|---|",
            ]
            for setting, times in wall["seconds"].items():
                ratio = mean(t / b for t, b in zip(times, base)) if base else None
                walks = wall["walks"][setting]
                lines.append(
                    f"| {setting} | {mean(times):.2f} | {median(times):.2f} | {max(times):.2f} | "
                    f"{'-' if ratio is None else f'{ratio:.2f}'} | {median(walks):g} / {max(walks)} |"
                )
            lines.append("")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Parse arguments, run every corpus, write the outputs."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", default=",".join(CORPORA))
    parser.add_argument("--sample", type=int, default=300, help="questions per corpus (all when fewer)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--budgets", default="15,40,120", help="max_bodies values for okf")
    parser.add_argument("--angles", default="auto,off", help="angles settings for okf (comma-separated)")
    parser.add_argument(
        "--loopback-latency",
        type=float,
        default=0.0,
        help="also time questions over the loopback model at this latency per call (seconds)",
    )
    parser.add_argument("--loopback-sample", type=int, default=10, help="questions timed per corpus and setting")
    parser.add_argument("--serve", nargs=2, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--default-budget", type=int, default=120, help="the budget the baselines are compared at")
    parser.add_argument("--judge-all-sample", type=int, default=20)
    parser.add_argument(
        "--judge-all-bodies",
        type=int,
        default=100_000,
        help="judge-everything runs on at most this many bodies / concepts questions (>= 2)",
    )
    parser.add_argument(
        "--merge", nargs="+", default=None, help="render tables from saved results JSON files instead of running"
    )
    parser.add_argument(
        "--cache", default=os.environ.get("OKF_EVAL_CACHE") or str(Path(tempfile.gettempdir()) / "okf-eval-cache")
    )
    parser.add_argument("--out", default=None, help="JSON results (default: <cache>/results.json)")
    parser.add_argument("--markdown", default=None, help="also write the tables here")
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], float(args.serve[1]))
        return
    args.angles = [a.strip() for a in args.angles.split(",") if a.strip()]
    args.budgets = sorted({int(b) for b in args.budgets.split(",")} | {args.default_budget})
    names = [n.strip() for n in args.corpora.split(",") if n.strip()]
    if args.merge:
        results = [r for f in args.merge for r in json.loads(Path(f).read_text(encoding="utf-8"))]
    else:
        results = [asyncio.run(run_corpus(name, args)) for name in names]
    out = Path(args.out or Path(args.cache) / "results.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    flags = f"--judge-all-sample {args.judge_all_sample} --judge-all-bodies {args.judge_all_bodies}"
    if args.loopback_latency:
        flags += f" --loopback-latency {args.loopback_latency:g} --loopback-sample {args.loopback_sample}"
    text = markdown(results, flags)
    if args.markdown:
        Path(args.markdown).write_text(text, encoding="utf-8")
    print(text)
    print(f"results: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
