"""Rebuild the committed bundles from their sources, reproducibly (fixed generated.at and log date).

Usage: python scripts/build_bundles.py [--force]   (--force after a change to the compiler)
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

from okf.compile import CompileOptions, compile_bundle

REPO = Path(__file__).resolve().parents[1]
# A fixed timestamp: rebuilding unchanged sources reproduces the same bytes (generated.at, log.md dates).
TIMESTAMP = datetime(2026, 1, 1, tzinfo=timezone.utc)
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
        report = compile_bundle([source], REPO / "bundles" / name, options=options(title, force="--force" in sys.argv))
        print(f"{name}: {report.concepts} concepts ({report.created} created, {report.updated} updated, "
              f"{report.removed} removed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
