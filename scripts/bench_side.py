"""Two versions of okf side by side: `okf check` and `okf export llms-txt` on the same bundle, alternating.

Usage: python scripts/bench_side.py --before TREE --after TREE --bundle PATH [--runs 3]
       [--what check,cli,export,export-cli,export-cli-rm] [--keep]

TREE is a directory holding an ``okf`` package (e.g. ``git archive <commit> okf | tar -x -C TREE``; "." for this
checkout). Each measure runs in a fresh child process with ``PYTHONPATH=TREE`` (imports not counted: the call
only), before and after alternating run by run, so both see the same machine load. Printed per run: wall
time of the call, concepts per second, CPU seconds of the child and its worker processes (user + system) and
CPU per concept (user and system apart: creating files is system time, and on a fresh folder its cost swings
with the file system far more than okf's own work does); then the medians and the after/before ratios, and the load average at the start and end.

- ``check``: ``okf.check(bundle)``; the diagnostics of both versions are compared (a difference is reported).
- ``cli``: the command ``python -m okf check BUNDLE --json`` as people run it, start-up and imports included
  (wall and CPU of the process and its workers from the outside, and the ``seconds`` the check reports: its
  own time, start-up and exit left out); the two versions' stdout, bar the ``seconds`` line, is compared byte
  for byte.
- ``export-cli``: the command ``python -m okf export llms-txt BUNDLE -o OUT --as-of 2026-12-01 --json`` as people
  run it, start-up and imports included (wall and CPU of the process and its workers from the outside, and the
  ``seconds`` the export reports), into an empty folder; the two versions' folders are compared file by file
  (the export's own manifest aside).
- ``export-cli-rm`` (after ``export-cli``): ``rm -rf OUT`` of the folder ``export-cli`` has just filled, then the
  same command into it: a first export right after the previous one was deleted (on an ext4 file system without
  a journal, as this machine's, creating a file then skips the inodes freed in the last minute one by one).
  ``--keep`` leaves every export folder in place when the script ends (removed, their files' inodes would make
  the files of a benchmark run right after dearer to create, for that same reason).
- ``export``: ``export_llms_txt(bundle, out)`` into an empty folder ("first"), then again into the same folder
  ("repeat": every file unchanged), then again after one concept file was touched ("touched": its times
  changed, its bytes not, as an edit that is undone or a checkout would leave it: nothing may be taken as
  unchanged without looking; then 2.1 s of rest, so the next export sees settled files as in use); the two versions' folders are compared file by file (the export's own manifest
  aside).
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
kind, bundle, out = sys.argv[1:4]
from datetime import date
import okf
def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime, a.ru_utime + b.ru_utime
from okf.export import export_llms_txt  # imported before the clock starts, as okf is
started, (used, user) = time.perf_counter(), cpu()
if kind == "check":
    report = okf.check(bundle)
    result = {"concepts": report.concepts,
              "diagnostics": [[d.code, d.severity, d.path, d.line or 0, d.message, d.fix] for d in report.diagnostics]}
else:
    report = export_llms_txt(bundle, out, as_of=date(2026, 12, 1))
    result = {"concepts": report.concepts, "written": report.written}
wall, (total, users) = time.perf_counter() - started, cpu()
result.update(wall=wall, cpu=total - used, user=users - user)
print(json.dumps(result))
"""


def run_cli(env: dict[str, str], bundle: str) -> dict[str, object]:
    """``okf check BUNDLE --json`` in a child: wall and CPU (the child and its workers), stdout bar seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "okf", "check", bundle, "--json"],
        env=env,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"okf check exited {done.returncode}: {done.stderr[-600:]}")
    user = after.ru_utime - before.ru_utime
    cpu = user + after.ru_stime - before.ru_stime
    shown = "".join(line for line in done.stdout.splitlines(True) if not line.lstrip().startswith('"seconds"'))
    report = json.loads(done.stdout)
    return {
        "concepts": report["concepts"],
        "seconds": report["seconds"],
        "diagnostics": shown,
        "wall": wall,
        "cpu": cpu,
        "user": user,
    }


def run_export_cli(env: dict[str, str], bundle: str, out: str) -> dict[str, object]:
    """``okf export llms-txt BUNDLE -o OUT`` in a child: wall and CPU (the child and its workers)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    argv = ["export", "llms-txt", bundle, "-o", out, "--as-of", "2026-12-01", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "okf", *argv], env=env, capture_output=True, text=True, cwd=tempfile.gettempdir()
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"okf export exited {done.returncode}: {done.stderr[-600:]}")
    user = after.ru_utime - before.ru_utime
    report = json.loads(done.stdout)
    return {
        "concepts": report["concepts"],
        "seconds": report["seconds"],
        "wall": wall,
        "cpu": user + after.ru_stime - before.ru_stime,
        "user": user,
    }


def _float(value: object) -> float:
    return float(value)  # type: ignore[arg-type]


def run(tree: str, kind: str, bundle: str, out: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
    if kind == "cli":
        return run_cli(env, bundle)
    if kind == "export-cli-rm":
        shutil.rmtree(out, ignore_errors=True)
    if kind in ("export-cli", "export-cli-rm"):
        return run_export_cli(env, bundle, out)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, kind, bundle, out],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def same_tree(a: Path, b: Path) -> bool:
    left = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file() and p.name != ".okf-export.json")
    right = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file() and p.name != ".okf-export.json")
    return left == right and all(filecmp.cmp(a / p, b / p, shallow=False) for p in left)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--what", default="check,export")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="leave the export folders in place (deleting them makes the next benchmark's files dearer to create)",
    )
    args = parser.parse_args()
    bundle = str(Path(args.bundle).resolve())
    kinds = [k for k in args.what.split(",") if k]
    touched = min(p for p in Path(bundle).rglob("*.md") if p.name not in ("index.md", "log.md"))  # a concept
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    figures: dict[tuple[str, str], list[dict[str, object]]] = {}
    scratch = Path(tempfile.mkdtemp(prefix="okf-bench-side-"))
    try:
        for n in range(args.runs):
            for name, tree in (("before", args.before), ("after", args.after)):
                for kind in kinds:
                    out = scratch / f"{'cli-' if kind.startswith('export-cli') else ''}{name}-{n}"
                    cli = ("check", "cli", "export-cli", "export-cli-rm")
                    steps = [kind] if kind in cli else ["first", "repeat", "touched"]
                    for step in steps:
                        if step == "touched":
                            when = 1_600_000_000_000_000_000 + n * 10 + (name == "after")
                            os.utime(touched, ns=(when, when))
                        got = run(tree, kind, bundle, str(out))
                        if step == "touched":
                            time.sleep(2.1)  # the touched file settles (okf trusts no file changed < 2 s ago)
                        figures.setdefault((step, name), []).append(got)
                        count = int(got["concepts"])  # type: ignore[call-overload]
                        wall, cpu = float(got["wall"]), float(got["cpu"])  # type: ignore[arg-type]
                        user = float(got["user"])  # type: ignore[arg-type]
                        print(
                            f"run {n + 1} {name:6s} {step:6s}: {wall:6.2f} s wall = {count / wall:7,.0f} concepts/s; "
                            f"{cpu:6.2f} CPU s = {cpu / count * 1e6:5.0f} µs per concept "
                            f"({user / count * 1e6:.0f} user, {(cpu - user) / count * 1e6:.0f} system); "
                            + (
                                f"its own seconds {got['seconds']} = {count / _float(got['seconds']):,.0f}/s; "
                                if "seconds" in got
                                else ""
                            )
                            + f"load {os.getloadavg()[0]:.1f}",
                            flush=True,
                        )
            if "export" in kinds and not same_tree(scratch / f"before-{n}", scratch / f"after-{n}"):
                print(f"run {n + 1}: the two exports DIFFER")
            if "export-cli" in kinds and not same_tree(scratch / f"cli-before-{n}", scratch / f"cli-after-{n}"):
                print(f"run {n + 1}: the two command-line exports DIFFER")
        for kind in ("check", "cli"):
            if kind in kinds:
                diags = {json.dumps(f["diagnostics"]) for name in ("before", "after") for f in figures[(kind, name)]}
                print(f"{kind} diagnostics: " + ("identical in every run" if len(diags) == 1 else "DIFFER"))
        print("medians (after / before):")
        for step in ("check", "cli", "export-cli", "export-cli-rm", "first", "repeat", "touched"):
            if (step, "before") not in figures:
                continue
            med = {
                name: (
                    statistics.median(float(f["wall"]) for f in figures[(step, name)]),  # type: ignore[arg-type]
                    statistics.median(float(f["cpu"]) for f in figures[(step, name)]),
                )  # type: ignore[arg-type]
                for name in ("before", "after")
            }
            users = {
                name: statistics.median(float(f["user"]) for f in figures[(step, name)])  # type: ignore[arg-type]
                for name in ("before", "after")
            }
            count = int(figures[(step, "after")][0]["concepts"])  # type: ignore[call-overload]
            (wb, cb), (wa, ca) = med["before"], med["after"]
            print(
                f"  {step:6s}: wall {wb:.2f} -> {wa:.2f} s ({count / wb:,.0f} -> {count / wa:,.0f} concepts/s, "
                f"x{wb / wa:.2f} faster); CPU {cb:.2f} -> {ca:.2f} s ({cb / count * 1e6:.0f} -> "
                f"{ca / count * 1e6:.0f} µs per concept, x{cb / ca:.2f} less; user CPU "
                f"{users['before'] / count * 1e6:.0f} -> {users['after'] / count * 1e6:.0f} µs, "
                f"x{users['before'] / users['after']:.2f} less)"
            )
            if "seconds" in figures[(step, "after")][0]:
                own = {
                    name: statistics.median(_float(f["seconds"]) for f in figures[(step, name)])
                    for name in ("before", "after")
                }
                print(
                    f"  {'':6s}  the command's own seconds {own['before']:.2f} -> {own['after']:.2f} "
                    f"({count / own['before']:,.0f} -> {count / own['after']:,.0f} concepts/s)"
                )
        print(f"load average at end: {os.getloadavg()[0]:.1f}")
    finally:
        if args.keep:
            print(f"export folders kept in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
