"""Speed of `okf export llms-txt` (and `site`) on a generated bundle: concepts per second, first and repeat export.

Usage: python scripts/bench_export.py [--concepts 10000] [--fanout 20] [--keep DIR] [--bundle DIR] [--site]
       [--floor] [--runs N] [--out DIR] [--leave]

The bundle is bench_check.py's (nested directories of `fanout` concepts, an index.md everywhere), or any bundle
with ``--bundle`` (cuad compiled by ``okf compile``). Each run opens the bundle anew (nothing cached between
runs); "first" exports into an empty folder, "repeat" into the folder the first run filled (every file
unchanged, so nothing is rewritten). CPU seconds count this process and its finished worker processes, so a
loaded machine shows in the wall time, not in the CPU time. ``--runs N`` makes N first exports, each into a
new folder, all kept until the last has run (see below), and prints each run and their spread (the lowest,
median and highest concepts/s); ``--out DIR`` makes the export folders under DIR (a disk's or a tmpfs), not
the temporary directory; ``--leave`` leaves them there (a benchmark run right after another's deletions
would pay for them). Each first export's line gives its system CPU per concept, its page faults and the
kernel's dirty and writeback memory before it (/proc/meminfo), the load average, and the folder.

``--floor`` then times what the file system alone costs a first export: a plain loop, no okf, that reads each
concept file of the bundle and creates its copy in an empty folder (the same folders, one ``open``/``write``
per file), in one process and in two (one per CPU, each a half of the files); its system CPU per file is the
cost of creating a file on this file system. Then the same loop making hard links to the bundle's files
instead of copies (no new file: okf does not do this, see docs/export.md). Last, the first export's wall and
CPU time as multiples of the copy loop's (how far okf is from what creating the files alone costs).

Each loop writes into a folder of its own, and none is removed until all have run: on an ext4 file system
without a journal (this machine's), creating a file skips, one by one, the inodes freed in the last minute
(six while their inode table block is unwritten), so a loop run right after the previous one's files were
deleted paid for that deletion (this made two processes look 4 to 9 times dearer per file than one).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_check import _cpu_seconds, generate

from okf.bundle import Bundle
from okf.export import export_llms_txt, export_site


def _faults() -> int:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_minflt + children.ru_minflt


def _dirty() -> str:
    """The kernel's Dirty and Writeback memory now, in MB (what a first export's writes may wait behind)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            rows = dict(line.split(":", 1) for line in handle)
        return "dirty {} MB, writeback {} MB".format(*(int(rows[k].split()[0]) // 1024 for k in ("Dirty", "Writeback")))
    except (OSError, KeyError, ValueError):
        return "dirty ?"


def _system_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_stime + children.ru_stime


def _copy_all(pairs: list[tuple[str, str]], link: bool = False) -> None:
    made: set[str] = set()
    for source, target in pairs:
        parent = os.path.dirname(target)
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        if link:
            os.link(source, target)
            continue
        with open(source, "rb") as handle:
            data = handle.read()
        with open(target, "wb") as handle:
            handle.write(data)


def floor(root: Path, out: Path) -> dict[tuple[int, bool], tuple[float, float]]:
    """The plain copy loop, one process then two, into fresh folders under ``out``: (workers, hard links) ->
    (wall seconds, CPU seconds)."""
    from concurrent.futures import ProcessPoolExecutor

    sources = sorted(str(p) for p in root.rglob("*.md") if p.name != "index.md")
    timed: dict[tuple[int, bool], tuple[float, float]] = {}
    for workers, link in ((1, False), (2, False), (1, True)):
        target = out / f"floor-{workers}-{link}"
        pairs = [(s, str(target / Path(s).relative_to(root))) for s in sources]
        started, cpu, system = time.perf_counter(), _cpu_seconds(), _system_seconds()
        if workers == 1:
            _copy_all(pairs, link)
        else:
            half = len(pairs) // 2
            with ProcessPoolExecutor(2) as pool:
                list(pool.map(_copy_all, [pairs[:half], pairs[half:]]))
        seconds, cpu, system = time.perf_counter() - started, _cpu_seconds() - cpu, _system_seconds() - system
        print(
            f"plain {'hard-link' if link else 'copy'} loop, {workers} process(es): {len(pairs)} files in {seconds:.2f} s wall = "
            f"{len(pairs) / seconds:,.0f} files/s; {cpu:.2f} CPU s = {cpu / len(pairs) * 1e6:.0f} µs per file, "
            f"{system / len(pairs) * 1e6:.0f} of them system; load average {os.getloadavg()[0]:.1f}"
        )
        timed[(workers, link)] = seconds, cpu
    for workers, link in timed:  # only now: deleting files makes the next files created dearer (docstring)
        shutil.rmtree(out / f"floor-{workers}-{link}", ignore_errors=True)
    return timed


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--concepts", type=int, default=10_000)
    parser.add_argument("--fanout", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="write the bundle here and keep it (reused when present)")
    parser.add_argument("--site", action="store_true", help="also time `export site`")
    parser.add_argument("--floor", action="store_true", help="then time plain copy and hard-link loops (no okf)")
    parser.add_argument("--bundle", type=Path, help="export this bundle (left as it is) instead of a generated one")
    parser.add_argument("--runs", type=int, default=1, help="first exports, each into a new folder kept to the end")
    parser.add_argument("--out", type=Path, help="make the export folders under this folder (its file system)")
    parser.add_argument("--leave", action="store_true", help="leave the export folders in place (no deletion)")
    args = parser.parse_args()
    root = args.bundle or args.keep or Path(tempfile.mkdtemp(prefix="okf-bench-export-"))
    if args.bundle is None and not (root / "index.md").exists():
        root.mkdir(parents=True, exist_ok=True)
        generate(root, args.concepts, args.fanout)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
    out = Path(tempfile.mkdtemp(prefix="okf-bench-export-out-", dir=args.out))
    kinds = [("llms-txt", export_llms_txt)] + ([("site", export_site)] if args.site else [])
    first: tuple[float, float] | None = None
    try:
        for name, export in kinds:
            speeds: list[float] = []
            for run in [f"first {n + 1}" for n in range(max(1, args.runs))] + ["repeat"]:
                target = out / (name if run in ("first 1", "repeat") else f"{name}-{run.split()[1]}")
                memory = _dirty()
                started, cpu, system, faults = time.perf_counter(), _cpu_seconds(), _system_seconds(), _faults()
                report = export(Bundle.open(root), target)
                seconds, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
                system, faults = _system_seconds() - system, _faults() - faults
                if (name, run) == ("llms-txt", "first 1"):
                    first = seconds, cpu
                if run != "repeat":
                    speeds.append(report.concepts / seconds)
                print(
                    f"{name} {run if args.runs > 1 else run.split()[0]}: {report.concepts} concepts in {seconds:.2f} s "
                    f"wall = {report.concepts / seconds:,.0f} concepts/s; {cpu:.2f} CPU s (all processes) = "
                    f"{report.concepts / cpu:,.0f} concepts per CPU second, {system / report.concepts * 1e6:.0f} µs "
                    f"system CPU and {faults / report.concepts:.1f} page faults per concept ({report.written} files "
                    f"written, {report.unchanged} unchanged); load average {os.getloadavg()[0]:.1f}; before it "
                    f"{memory}; into {target}"
                )
            if len(speeds) > 1:
                speeds.sort()
                print(
                    f"{name} first, {len(speeds)} runs: lowest {speeds[0]:,.0f}, median "
                    f"{speeds[len(speeds) // 2]:,.0f}, highest {speeds[-1]:,.0f} concepts/s; "
                    f"{sum(s >= 10_000 for s in speeds)} of {len(speeds)} at 10,000/s or more"
                )
        if args.floor:  # after the exports: a hard link changes its source's change time, which okf trusts
            timed = floor(root, out)
            if first is not None:
                for workers in (1, 2):
                    wall, cpu = timed[(workers, False)]
                    print(
                        f"llms-txt first export / plain copy loop in {workers} process(es): "
                        f"wall x{first[0] / wall:.2f}, CPU x{first[1] / cpu:.2f}"
                    )
    finally:
        if args.leave:
            print(f"export folders left in {out}")
        else:
            shutil.rmtree(out, ignore_errors=True)
        if args.keep is None and args.bundle is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
