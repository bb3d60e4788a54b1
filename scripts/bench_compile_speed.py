"""Full offline compile, this tree against another okf tree, side by side: time, CPU, and byte-identical output.

Usage: python scripts/bench_compile_speed.py --before PATH [--corpus DIR ...] [--runs N] [--arg=OPTION ...]
       [--before-arg=OPTION ...] [--json]

PATH is another checkout of okf (for example ``git worktree add --detach /tmp/okf-before <commit>``). Each
corpus (default: CUAD and hotpotqa-dev from ../shared/corpora) is compiled ``--runs`` times with each tree,
alternating before/after, every compile in a fresh process (``python -m okf compile``, so imports count) into
a fresh output folder with a fixed SOURCE_DATE_EPOCH. CPU is user + system of the process and its workers,
also shown apart: system time swings with the disk (on ext4 without a journal, creating inodes right after a
large deletion is slow; see docs/benchmarks.md), user time is the compile's own work.
The two trees' outputs are compared file by file (``.okf/stat-cache.json`` aside: it holds this machine's
stat data); any difference is printed. ``--before .`` with ``--before-arg=OPTION`` compares one tree with itself,
with and without an option (``--before-arg=--no-copy-sources``: the cost of the source copies, same code). The 1-minute load average is printed before and after: the machine
is shared, so compare the ratio of a pair, not absolute times across runs (``--keep-outputs``: no bundle is
deleted before the last compile, so no compile follows this script's own deletions). Both trees are byte-compiled
(``compileall``) before the first compile, so neither side pays for compiling its modules' source.
"""

from __future__ import annotations

import argparse
import contextlib
import filecmp
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


def shared() -> Path:
    env = os.environ.get("OKF_SHARED")
    return Path(env) if env else ROOT.parent / "shared"


def compile_once(tree: Path, corpus: Path, out: Path, extra: list[str]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree), "SOURCE_DATE_EPOCH": "1700000000"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "okf", "compile", str(corpus), "-o", str(out), "--quiet", *extra],
        check=True,
        env=env,
        cwd=tree,
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    return {"wall_s": wall, "cpu_s": user + system, "user_s": user, "sys_s": system}


def differences(a: Path, b: Path) -> list[str]:
    """Files that differ between two bundles (the stat cache aside)."""
    out: list[str] = []
    cmp = filecmp.dircmp(a, b, ignore=["stat-cache.json"])
    stack = [(cmp, "")]
    while stack:
        node, prefix = stack.pop()
        out += [f"only in one: {prefix}{n}" for n in node.left_only + node.right_only]
        _, mismatch, errors = filecmp.cmpfiles(node.left, node.right, node.common_files, shallow=False)
        out += [f"differs: {prefix}{n}" for n in mismatch + errors]
        stack += [(sub, f"{prefix}{name}/") for name, sub in node.subdirs.items()]
    return out


def size_mb(corpus: Path) -> float:
    return sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="another okf checkout to compare against")
    parser.add_argument("--corpus", type=Path, action="append")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--keep-outputs",
        action="store_true",
        help="delete the compiled bundles only after the last compile, not after each pair: on ext4 without a "
        "journal, creating files right after a large deletion is slow (the kernel skips inodes deleted in the "
        "last minutes), so deleting a pair's bundles inflates the system time of the next pair",
    )
    parser.add_argument(
        "--arg",
        action="append",
        default=[],
        help="an okf compile option for both sides (repeat; e.g. --arg=--no-copy-sources)",
    )
    parser.add_argument(
        "--before-arg",
        action="append",
        default=[],
        help="an okf compile option for the before side only (repeat; with --before . it compares one tree "
        "with and without it, e.g. --before-arg=--no-copy-sources)",
    )
    args = parser.parse_args()
    corpora = args.corpus or [
        shared() / "corpora" / "cuad" / "sources",
        shared() / "corpora" / "hotpotqa-dev" / "sources",
    ]
    # Both trees byte-compiled first: with PYTHONDONTWRITEBYTECODE set (as on the development machine) a
    # fresh checkout would otherwise compile every module's source at each import, inflating its times.
    for tree in dict.fromkeys((args.before.resolve(), ROOT)):
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(tree.resolve() / "okf")],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    results = []
    holder = tempfile.mkdtemp() if args.keep_outputs else None
    for corpus in corpora:
        mb, files = size_mb(corpus), sum(1 for p in corpus.rglob("*") if p.is_file())
        runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
        load = [os.getloadavg()[0]]
        diff: list[str] = []
        place = contextlib.nullcontext(tempfile.mkdtemp(dir=holder)) if holder else tempfile.TemporaryDirectory()
        with place as tmp:
            for i in range(args.runs):
                for side, tree in (
                    (("before", args.before), ("after", ROOT))
                    if i % 2 == 0
                    else (("after", ROOT), ("before", args.before))
                ):
                    out = Path(tmp) / side / str(i) / corpus.parent.name
                    extra = args.arg + (args.before_arg if side == "before" else [])
                    runs[side].append(compile_once(tree.resolve(), corpus.resolve(), out, extra))
                if i == 0:
                    diff = differences(
                        Path(tmp) / "before" / "0" / corpus.parent.name, Path(tmp) / "after" / "0" / corpus.parent.name
                    )
                if not args.keep_outputs:
                    for side in runs:
                        shutil.rmtree(Path(tmp) / side / str(i), ignore_errors=True)
        load.append(os.getloadavg()[0])
        row = {
            "corpus": str(corpus),
            "mb": round(mb, 2),
            "files": files,
            "load_avg_1min": [round(x, 2) for x in load],
            "options": {"before": args.arg + args.before_arg, "after": args.arg},
            "identical": not diff,
            "differences": diff[:20],
        }
        for side, found in runs.items():
            best = min(found, key=lambda r: r["wall_s"])
            row[side] = {
                "wall_s": [round(r["wall_s"], 2) for r in found],
                "cpu_s": [round(r["cpu_s"], 2) for r in found],
                "user_s": [round(r["user_s"], 2) for r in found],
                "sys_s": [round(r["sys_s"], 2) for r in found],
                "best_mb_per_s": round(mb / best["wall_s"], 2),
                "cpu_ms_per_file": round(1000 * min(r["cpu_s"] for r in found) / files, 2),
            }
        row["wall_ratio"] = round(min(r["wall_s"] for r in runs["before"]) / min(r["wall_s"] for r in runs["after"]), 2)
        row["cpu_ratio"] = round(min(r["cpu_s"] for r in runs["before"]) / min(r["cpu_s"] for r in runs["after"]), 2)
        row["user_ratio"] = round(min(r["user_s"] for r in runs["before"]) / min(r["user_s"] for r in runs["after"]), 2)
        results.append(row)
        if not args.json:
            print(
                f"{corpus.parent.name}: {mb:.1f} MB, {files} files, load {row['load_avg_1min']}, "
                f"output {'identical' if not diff else 'DIFFERS: ' + '; '.join(diff[:5])}"
            )
            for side in ("before", "after"):
                r = row[side]
                print(
                    f"  {side:6s} {' '.join(row['options'][side]) or '(defaults)'}: wall {r['wall_s']} s, user {r['user_s']} s, sys {r['sys_s']} s, best {r['best_mb_per_s']} MB/s, "
                    f"{r['cpu_ms_per_file']} ms CPU per file"
                )
            print(f"  before/after: wall x{row['wall_ratio']}, cpu x{row['cpu_ratio']}, user cpu x{row['user_ratio']}")
    if holder is not None:
        shutil.rmtree(holder, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
