"""Rewrite the generated settings tables of docs/ from the pydantic fields (okf.settings.doc_tables).

Run from the repository root after changing a setting's default, bound or help text:
    python scripts/docs_tables.py
tests/test_settings.py fails while a table in docs/ disagrees with the fields.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from okf.settings import doc_tables

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    tables = doc_tables()
    seen: set[str] = set()
    for path in sorted((REPO / "docs").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        new = text
        for marker, table in tables.items():
            pattern = re.compile(rf"(<!-- {re.escape(marker)} -->\n).*?(<!-- /{re.escape(marker)} -->)", re.DOTALL)
            if pattern.search(new):
                seen.add(marker)
                new = pattern.sub(lambda m, table=table: m.group(1) + table + "\n" + m.group(2), new)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"rewrote {path.relative_to(REPO)}")
    missing = sorted(set(tables) - seen)
    for marker in missing:
        print(f"no <!-- {marker} --> block in docs/", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
