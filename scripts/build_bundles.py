"""Rebuild the committed bundles from their sources, reproducibly (fixed generated.at and log date).

Usage: python scripts/build_bundles.py [--force]   (--force after a change to the compiler: rebuild from scratch)
"""

from __future__ import annotations

import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

from okf.compile import CompileOptions, compile_bundle

REPO = Path(__file__).resolve().parents[1]
# A fixed timestamp: rebuilding unchanged sources reproduces the same bytes (generated.at, log.md dates).
TIMESTAMP = datetime(2026, 1, 1, tzinfo=UTC)
BUNDLES = {
    "okf-docs": (REPO / "docs", "okf documentation"),
    "harborview": (REPO / "bundles" / "sources" / "harborview", "Harborview"),
}


def options(title: str, force: bool = False) -> CompileOptions:
    """The options every committed bundle is compiled with."""
    return CompileOptions(timestamp=TIMESTAMP, title=title, force=force)


def main() -> int:
    for name, (source, title) in BUNDLES.items():
        if not source.is_dir():
            print(f"{name}: {source} missing, skipped", file=sys.stderr)
            continue
        target = REPO / "bundles" / name
        if "--force" in sys.argv:
            # From scratch, so the bundle (its log.md too) is exactly what a fresh compile gives (tests check it).
            # Built beside the target (same depth, so the manifest's relative source_root is right), then moved.
            fresh = target.with_name(f".{name}-fresh")
            shutil.rmtree(fresh, ignore_errors=True)
            report = compile_bundle([source], fresh, options=options(title))
            shutil.rmtree(target, ignore_errors=True)
            fresh.rename(target)
            # The spare tree a compile keeps for its next incremental run belongs to the temporary name.
            shutil.rmtree(fresh.with_name(fresh.name + ".okf-spare"), ignore_errors=True)
        else:
            report = compile_bundle([source], target, options=options(title))
        print(
            f"{name}: {report.concepts} concepts ({report.created} created, {report.updated} updated, "
            f"{report.removed} removed)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
