"""One stage of ``okf check`` over a run of concepts, alone, for instruction counts under callgrind.

Usage (from the repository root; PYTHONPATH=TREE measures another version's okf):
    valgrind --tool=callgrind --toggle-collect=builtin_divmod python scripts/check_stage.py STAGE N BUNDLE [FIRST]

STAGE is ``concepts`` (check_concepts) or ``dirs`` (check_directories of those concepts' directories); N concepts
are taken from the sorted concept paths starting at FIRST (default 4000). Everything else (imports, reading
the bundle, the sources drift reads) happens before the stage, which runs inside ``divmod`` so that callgrind's
``--toggle-collect=builtin_divmod`` counts the stage's instructions only ("Collected" in its summary).
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime

from okf.bundle import Bundle
from okf.checker.rules import SourceFiles, source_citing
from okf.checker.scan import check_concepts, check_directories, merge_listed


class _Stage:
    def __init__(self, run: object) -> None:
        self.run = run

    def __divmod__(self, other: object) -> tuple[int, int]:
        self.run()  # type: ignore[operator]
        return 0, 0


def main() -> int:
    stage, count, root = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    first = int(sys.argv[4]) if len(sys.argv) > 4 else 4000
    bundle = Bundle.open(root)
    paths = list(bundle.iter_concepts())[first : first + count]
    directories = sorted({p.rpartition("/")[0] + "/" for p in paths})
    sources = SourceFiles(bundle, *source_citing(bundle.manifest()))
    now = datetime(2026, 12, 1, tzinfo=UTC)
    _, _, items = check_directories(Bundle.open(root), directories, 20)
    listed = merge_listed([items])
    check_concepts(Bundle.open(root), paths, listed, now, sources)  # the sources are read before the stage
    if stage == "concepts":
        divmod(_Stage(lambda: check_concepts(bundle, paths, listed, now, sources)), 1)
    elif stage == "dirs":
        divmod(_Stage(lambda: check_directories(bundle, directories, 20)), 1)
    else:
        raise SystemExit(f"unknown stage {stage!r}: concepts or dirs")
    print(f"{stage}: {len(paths)} concepts, {len(directories)} directories", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
