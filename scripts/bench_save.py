"""Benchmark okf ask --save on a large bundle: what filing an answer back costs beside the ask itself.

Usage: python scripts/bench_save.py [--corpus PATH] [--question Q] [--repeat N] [--json]
Compiles the corpus (default CUAD) into a temp dir, asks the question offline, then times save_answer:
reconciling the spare tree the compile (or the previous save) left, and building the side tree afresh (the
spare removed first, as after a copy of the bundle). Each save writes the synthesis, its folder index, the
root index, log.md and the registry, and swaps the whole bundle atomically. Medians of --repeat saves each;
the 1-minute load average is printed before and after (this machine is shared: wall times swing with it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from okf.answer import ask, save_answer
from okf.compile import CompileOptions, compile_bundle


def shared() -> Path:
    """/work/shared (or OKF_SHARED) relative to this repository."""
    env = os.environ.get("OKF_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared"


def files_in(root: Path) -> int:
    return sum(len(names) for _, _, names in os.walk(root))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=shared() / "corpora" / "cuad" / "sources")
    parser.add_argument("--question", default="Which agreements can be terminated for convenience?")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bundle"
        started = time.perf_counter()
        report = compile_bundle([args.corpus], out, options=CompileOptions())
        compile_s = time.perf_counter() - started
        started = time.perf_counter()
        result = ask(out, args.question)
        ask_s = time.perf_counter() - started
        if result.status not in ("answered", "partial"):
            raise SystemExit(f"the question was not answered ({result.status}): pick another with --question")
        reconciled, fresh = [], []
        for _ in range(args.repeat):  # each save leaves the replaced tree as the spare the next one reconciles
            started = time.perf_counter()
            save_answer(out, result)
            reconciled.append(time.perf_counter() - started)
        spare = out.with_name(out.name + ".okf-spare")
        for _ in range(args.repeat):
            shutil.rmtree(spare, ignore_errors=True)
            started = time.perf_counter()
            save_answer(out, result)
            fresh.append(time.perf_counter() - started)
        files = files_in(out)
    figures = {
        "corpus": str(args.corpus),
        "concepts": report.concepts,
        "bundle_files": files,
        "compile_s": round(compile_s, 2),
        "ask_s": round(ask_s, 2),
        "status": result.status,
        "cited": len(result.citations),
        "save_reconciled_median_s": round(statistics.median(reconciled), 3),
        "save_fresh_median_s": round(statistics.median(fresh), 3),
        "save_reconciled_over_ask": round(statistics.median(reconciled) / ask_s, 3),
        "save_fresh_over_ask": round(statistics.median(fresh) / ask_s, 3),
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
    }
    if args.json:
        print(json.dumps(figures))
        return
    for key, value in figures.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
