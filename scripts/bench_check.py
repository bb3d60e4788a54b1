"""Benchmark: open a generated 100,000-concept bundle, read its root signposts, and time ``okf check``.

Usage: python scripts/bench_check.py [--concepts 100000] [--fanout 20] [--keep DIR] [--workers N] [--runs 2]

Targets: open + root signposts < 1 s; check >= 5,000 concepts/s. Prints measured figures only, with the load
average (other work on the machine slows every figure). Later runs may find the files in the page cache.
``--keep DIR`` reuses a bundle already there.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

from okf.bundle import Bundle
from okf.checker import check


def generate(root: Path, concepts: int, fanout: int) -> int:
    """Write ``concepts`` concepts in nested directories of ``fanout`` entries, each with an index.md."""
    written = 0
    leaves = -(-concepts // fanout)
    # Enough levels of `fanout` directories to hold every leaf directory.
    depth = 1
    while fanout**depth < leaves:
        depth += 1

    def leaf_dir(i: int) -> str:
        parts = []
        for _ in range(depth):
            parts.append(f"d{i % fanout:02d}")
            i //= fanout
        return "/".join(reversed(parts))

    dirs: dict[str, list[str]] = {}
    for leaf in range(leaves):
        rel = leaf_dir(leaf)
        (root / rel).mkdir(parents=True, exist_ok=True)
        names = []
        for k in range(fanout):
            if written >= concepts:
                break
            name = f"c{written:06d}.md"
            (root / rel / name).write_text(
                f"---\ntype: Note\ntitle: Concept {written}\ndescription: Fact number {written} in {rel}.\n"
                f"tags: [bench, d{k}]\ngenerated: {{ by: bench/1, at: 2026-01-01T00:00:00Z }}\n---\n"
                f"# Concept {written}\n\nSee [the next one](c{written + 1:06d}.md) and [root](/index.md).\n\n"
                "- a list item\n- another\n",
                encoding="utf-8",
            )
            names.append(f"* [Concept {written}]({name}) - Fact number {written} in {rel}.")
            written += 1
        dirs[rel] = names
    for rel, names in dirs.items():
        (root / rel / "index.md").write_text("# Concepts\n\n" + "\n".join(names) + "\n", encoding="utf-8")
    # Index every intermediate directory by its subdirectories.
    for current, subdirs, _files in os.walk(root):
        rel = os.path.relpath(current, root)
        if subdirs:
            lines = [f"* [{d}]({d}/) - Group {d}." for d in sorted(subdirs)]
            (Path(current) / "index.md").write_text("# Groups\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
        del rel
    return written


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (check's worker processes), user + system."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--concepts", type=int, default=100_000)
    parser.add_argument("--fanout", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="write the bundle here and keep it (reused when present)")
    parser.add_argument("--workers", type=int, default=None, help="check processes (default: okf's choice)")
    parser.add_argument("--runs", type=int, default=2, help="check runs, each timed on its own")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="okf-bench-"))
    try:
        if args.keep and (root / "index.md").exists():
            print(f"reusing the bundle at {root}")
        else:
            t0 = time.perf_counter()
            n = generate(root, args.concepts, args.fanout)
            print(f"generated {n} concepts in {time.perf_counter() - t0:.1f}s at {root}")
        t0 = time.perf_counter()
        bundle = Bundle.open(root)
        signposts = bundle.signposts("")
        open_s = time.perf_counter() - t0
        print(f"open + root signposts ({len(signposts)} signposts): {open_s * 1000:.1f} ms (target < 1000 ms)")
        for run in range(1, args.runs + 1):
            load = os.getloadavg()[0]
            cpu = _cpu_seconds()
            report = check(Bundle.open(root), fanout=args.fanout, workers=args.workers)
            cpu = _cpu_seconds() - cpu
            rate = report.concepts / report.seconds if report.seconds else float("inf")
            print(
                f"check run {run}: {report.concepts} concepts, {report.files} files in {report.seconds:.2f}s = "
                f"{rate:,.0f} concepts/s (target >= 5,000); {report.error_count} errors, "
                f"{report.warning_count} warnings; load average {load:.1f} on {os.cpu_count()} CPUs; "
                f"CPU time {cpu:.1f}s (this process and its workers) = "
                f"{cpu / max(report.concepts, 1) * 1e6:.0f} us per concept"
            )
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
