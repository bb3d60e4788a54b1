"""Benchmark okf compile --model against the loopback server with a simulated model latency.

Usage: python scripts/bench_compile_model.py [--corpus PATH] [--limit N] [--latency S] [--concurrency N] [--json]

The corpus (default bundles/sources/harborview; ``--limit`` keeps its first N files in path order) is copied to a
temp dir. Measured side by side, each with a fresh description cache unless said otherwise:

- the extractive compile (no model), for reference;
- the model compile, cold cache, one call in flight and ``--concurrency`` in flight: wall time, calls
  (describe and title), and the ratios wall / (calls x latency) (1.0 = one call at a time), wall against
  the concurrency bound (calls x latency / concurrency), and wall against that bound plus the extractive
  compile's own time;
- a recompile with the same model and unchanged sources: calls (0 expected) and whether anything was written;
- ``--force`` with the cache: calls (0 expected: every concept and group from the cache);
- one changed source (a word changed in one paragraph): describe calls and concepts asked.

The replies come from ``okf.testing.describer_rule`` (deterministic stand-ins, not a model): this measures the
pipeline's concurrency, gating and overhead, not description quality.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from okf.compile import CompileOptions, compile_bundle
from okf.compile.model_cache import DescriptionCache
from okf.readers import LLMReader, ReaderConfig
from okf.testing import LoopbackServer, describer_rule
from okf.testing.server import request_payload

REPO = Path(__file__).resolve().parents[1]


def _tasks(server: LoopbackServer, since: int) -> dict[str, Any]:
    payloads = [request_payload(r.body or {}) for r in server.completions[since:]]
    return {
        "describe_calls": sum(p.get("task") == "describe" for p in payloads),
        "title_calls": sum(p.get("task") == "title" for p in payloads),
        "concepts_asked": sum(len(p.get("concepts", [])) for p in payloads if p.get("task") == "describe"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=REPO / "bundles" / "sources" / "harborview")
    parser.add_argument("--limit", type=int, default=0, help="only the first N source files (0: all)")
    parser.add_argument("--latency", type=float, default=0.2, help="simulated seconds per model call")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    options = CompileOptions(timestamp=None)
    out: dict[str, Any] = {"corpus": str(args.corpus), "latency_s": args.latency, "concurrency": args.concurrency}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        files = sorted(p for p in args.corpus.rglob("*") if p.is_file())
        if args.limit:
            files = files[: args.limit]
        src = tmp / "src"
        for path in files:
            target = src / path.relative_to(args.corpus)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        out["files"] = len(files)
        started = time.perf_counter()
        offline = compile_bundle([src], tmp / "offline", options=options)
        out["extractive"] = {"seconds": round(time.perf_counter() - started, 3), "concepts": offline.concepts}
        with LoopbackServer(rule=describer_rule(), latency=args.latency) as server:
            for label, concurrency in (("serial", 1), ("concurrent", args.concurrency)):
                reader = LLMReader(ReaderConfig(model="bench", base_url=server.base_url, concurrency=concurrency))
                since = len(server.completions)
                started = time.perf_counter()
                report = compile_bundle(
                    [src],
                    tmp / label,
                    options=options,
                    describer=reader,
                    cache=DescriptionCache(tmp / f"cache-{label}"),
                )
                seconds = time.perf_counter() - started
                calls = len(server.completions) - since
                assert report.model is not None
                out[label] = {
                    "seconds": round(seconds, 3),
                    "calls": calls,
                    **_tasks(server, since),
                    "concepts": report.model.concepts,
                    "groups": report.model.groups,
                    "kept_extractive": report.model.concepts_failed + report.model.groups_failed,
                    "max_in_flight": server.max_in_flight,
                    "wall_over_serial_calls": round(seconds / (calls * args.latency), 3),
                    "wall_over_concurrency_bound": round(seconds / (calls * args.latency / concurrency), 3),
                    "wall_over_extractive_plus_bound": round(
                        seconds / (out["extractive"]["seconds"] + calls * args.latency / concurrency), 3
                    ),
                }
                server.max_in_flight = 0
            reader = LLMReader(ReaderConfig(model="bench", base_url=server.base_url, concurrency=args.concurrency))
            cache = DescriptionCache(tmp / "cache-concurrent")
            target = tmp / "concurrent"
            since = len(server.completions)
            again = compile_bundle([src], target, options=options, describer=reader, cache=cache)
            out["recompile_unchanged"] = {"calls": len(server.completions) - since, "changed": again.changed}
            since = len(server.completions)
            forced = compile_bundle(
                [src], target, options=options.model_copy(update={"force": True}), describer=reader, cache=cache
            )
            out["force_with_cache"] = {"calls": len(server.completions) - since, "rebuilt": forced.documents_rebuilt}
            victim = next(p for p in sorted(src.rglob("*")) if p.is_file() and re.search(r"\bthe\b", p.read_text()))
            victim.write_text(re.sub(r"\bthe\b", "THE", victim.read_text(), count=1))
            since = len(server.completions)
            one = compile_bundle([src], target, options=options, describer=reader, cache=cache)
            out["one_source_changed"] = {
                "source": victim.relative_to(src).as_posix(),
                "calls": len(server.completions) - since,
                **_tasks(server, since),
                "concepts_of_rebuilt_sources": one.model.concepts if one.model else 0,
            }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    serial, conc = out["serial"], out["concurrent"]
    print(
        f"corpus {out['corpus']} ({out['files']} files, {out['extractive']['concepts']} concepts); "
        f"simulated latency {args.latency:g} s"
    )
    print(f"extractive compile: {out['extractive']['seconds']:.2f} s")
    for label, row in (("model, 1 in flight", serial), (f"model, {args.concurrency} in flight", conc)):
        print(
            f"{label}: {row['seconds']:.2f} s, {row['calls']} calls ({row['describe_calls']} describe, "
            f"{row['title_calls']} title), {row['concepts']} concepts and {row['groups']} groups written, "
            f"{row['kept_extractive']} kept extractive, max {row['max_in_flight']} in flight; wall / serial calls "
            f"{row['wall_over_serial_calls']:.2f}, wall / concurrency bound {row['wall_over_concurrency_bound']:.2f}, "
            f"wall / (extractive compile + bound) {row['wall_over_extractive_plus_bound']:.2f}"
        )
    print(f"speed-up of {args.concurrency} in flight over 1: {serial['seconds'] / conc['seconds']:.2f}x")
    print(
        f"recompile, same model, unchanged sources: {out['recompile_unchanged']['calls']} calls, "
        f"changed={out['recompile_unchanged']['changed']}"
    )
    print(
        f"--force with the cache: {out['force_with_cache']['calls']} calls "
        f"({out['force_with_cache']['rebuilt']} sources rebuilt)"
    )
    one = out["one_source_changed"]
    print(
        f"one source changed ({one['source']}): {one['calls']} calls, {one['concepts_asked']} concepts asked of "
        f"{one['concepts_of_rebuilt_sources']} in the rebuilt source"
    )


if __name__ == "__main__":
    main()
