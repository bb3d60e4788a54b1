"""What a compile of a folder costs at the least on this machine, beside what okf compile costs: MB/s.

Usage: python scripts/bench_compile_floor.py [--corpus DIR ...] [--runs N] [--json]

For each corpus (default: hotpotqa-dev and CUAD from ../shared/corpora), alternating, each in a fresh
process (so the interpreter's start counts, as it does for ``okf compile``) writing into a fresh folder:

- ``okf``: ``python -m okf compile CORPUS -o OUT --quiet`` with this tree;
- ``floor``: a plain Python loop with no okf that reads every source file and writes it twice, once as a
  concept file beside the tree's other outputs and once as the bundle's copy of the source (what an okf
  bundle holds at the least: one concept per source and the source itself, ``references/sources/``); no
  parsing, no index files, no manifest, no atomic swap;
- ``floor-one``: the same loop writing each source once (a compile that copied no sources).

MB/s is the corpus's bytes over the process's wall time. No output folder is deleted until every run is
done: on this machine's ext4 without a journal, creating files right after deleting many is slower (see
docs/benchmarks.md, "Export performance"), and the runs should not pay for each other's deletions. The
1-minute load average is printed with every row.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The floor's loop, run with ``python -c`` (argv: corpus, output, copies per source).
FLOOR = """
import os, sys
src, out, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
bases = [out, os.path.join(out, "references", "sources")][:copies]
made = set()
for root, _dirs, names in os.walk(src):
    rel = os.path.relpath(root, src)
    for base in bases:
        folder = os.path.normpath(os.path.join(base, rel))
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
    for name in names:
        with open(os.path.join(root, name), "rb") as handle:
            data = handle.read()
        for base in bases:
            with open(os.path.normpath(os.path.join(base, rel, name + ".md")), "wb") as handle:
                handle.write(data)
"""


def shared() -> Path:
    env = os.environ.get("OKF_SHARED")
    return Path(env) if env else ROOT.parent / "shared"


def run(kind: str, corpus: Path, out: Path) -> dict[str, float]:
    if kind == "okf":
        command = [sys.executable, "-m", "okf", "compile", str(corpus), "-o", str(out), "--quiet"]
    else:
        command = [sys.executable, "-c", FLOOR, str(corpus), str(out), "2" if kind == "floor" else "1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOURCE_DATE_EPOCH": "1700000000"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "wall_s": wall,
        "user_s": after.ru_utime - before.ru_utime,
        "sys_s": after.ru_stime - before.ru_stime,
        "load": os.getloadavg()[0],
    }


def size_mb(corpus: Path) -> float:
    return sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, action="append")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    args = parser.parse_args()
    corpora = args.corpus or [
        shared() / "corpora" / "hotpotqa-dev" / "sources",
        shared() / "corpora" / "cuad" / "sources",
    ]
    rows = []
    scratch = Path(tempfile.mkdtemp(prefix="okf-floor-"))
    try:
        for corpus in corpora:
            if not corpus.is_dir():
                sys.exit(f"error: {corpus}: no such folder (set OKF_SHARED or pass --corpus)")
            mb = size_mb(corpus)
            for n in range(args.runs):
                for kind in ("floor", "okf", "floor-one"):
                    row = run(kind, corpus, scratch / f"{corpus.parent.name}-{kind}-{n}")
                    row.update(corpus=corpus.parent.name, kind=kind, run=n + 1, mb_per_s=mb / row["wall_s"])
                    rows.append(row)
                    print(
                        f"{row['corpus']:14s} {kind:9s} run {n + 1}: {row['wall_s']:6.2f} s wall "
                        f"({row['mb_per_s']:5.2f} MB/s), user {row['user_s']:5.2f} s, sys {row['sys_s']:5.2f} s, "
                        f"load {row['load']:.1f}",
                        flush=True,
                    )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for corpus in dict.fromkeys(r["corpus"] for r in rows):
        best = {
            k: max(r["mb_per_s"] for r in rows if r["corpus"] == corpus and r["kind"] == k)
            for k in ("okf", "floor", "floor-one")
        }
        print(
            f"{corpus}: best MB/s okf {best['okf']:.2f}, floor {best['floor']:.2f} (okf at "
            f"{best['okf'] / best['floor']:.0%} of it), floor with one write per source {best['floor-one']:.2f}"
        )
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
