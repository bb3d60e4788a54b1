"""Speed of `okf export llms-txt` (and `site`) on a generated bundle: concepts per second, first and repeat export.

Usage: python scripts/bench_export.py [--concepts 10000] [--fanout 20] [--keep DIR] [--site]

The bundle is bench_check.py's (nested directories of `fanout` concepts, an index.md everywhere). Each run opens
the bundle anew (nothing cached between runs); "first" exports into an empty folder, "repeat" into the folder
the first run filled (every file unchanged, so nothing is rewritten). CPU seconds count this process and its
finished worker processes, so a loaded machine shows in the wall time, not in the CPU time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_check import _cpu_seconds, generate

from okf.bundle import Bundle
from okf.export import export_llms_txt, export_site


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--concepts", type=int, default=10_000)
    parser.add_argument("--fanout", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="write the bundle here and keep it (reused when present)")
    parser.add_argument("--site", action="store_true", help="also time `export site`")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="okf-bench-export-"))
    if not (root / "index.md").exists():
        root.mkdir(parents=True, exist_ok=True)
        generate(root, args.concepts, args.fanout)
    out = Path(tempfile.mkdtemp(prefix="okf-bench-export-out-"))
    kinds = [("llms-txt", export_llms_txt)] + ([("site", export_site)] if args.site else [])
    try:
        for name, export in kinds:
            for run in ("first", "repeat"):
                started, cpu = time.perf_counter(), _cpu_seconds()
                report = export(Bundle.open(root), out / name)
                seconds, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
                print(
                    f"{name} {run}: {report.concepts} concepts in {seconds:.2f} s wall = "
                    f"{report.concepts / seconds:,.0f} concepts/s; {cpu:.2f} CPU s (all processes) = "
                    f"{report.concepts / cpu:,.0f} concepts per CPU second ({report.written} files written, "
                    f"{report.unchanged} unchanged); load average {os.getloadavg()[0]:.1f}"
                )
    finally:
        shutil.rmtree(out, ignore_errors=True)
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
