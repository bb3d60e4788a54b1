"""Rewrite the module table of docs/architecture.md from the modules themselves.

Each row: the module's path, the first sentence of its docstring, and the third-party packages it imports
(read from its import statements, lazy ones too). Run from the repository root after adding, moving or
re-describing a module:
    python scripts/architecture_table.py
tests/test_architecture.py fails while the table in docs/ disagrees with the modules.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "architecture.md"
MARKER = "modules"
_BLOCK = re.compile(rf"(<!-- {MARKER} -->\n).*?(<!-- /{MARKER} -->)", re.DOTALL)


def modules(root: Path = REPO) -> list[Path]:
    """Every module file of okf (package faces included), sorted by path."""
    return sorted((root / "okf").rglob("*.py"), key=lambda p: p.relative_to(root).as_posix())


def summary(tree: ast.Module) -> str:
    """The first sentence of a module's docstring, on one line ('' when it has none)."""
    doc = ast.get_docstring(tree) or ""
    first = " ".join(doc.strip().split("\n\n")[0].split())
    match = re.match(r"(.+?[.!?])(\s|$)", first)
    return (match.group(1) if match else first).replace("|", "\\|")


def third_party(tree: ast.Module) -> list[str]:
    """The top-level names of the non-standard, non-okf packages a module imports."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return sorted(n for n in names if n not in sys.stdlib_module_names and n not in ("okf", "__future__"))


def table(root: Path = REPO) -> str:
    """The markdown table of every module."""
    rows = ["| module | what it is (its docstring) | third-party imports |", "|---|---|---|"]
    for path in modules(root):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports = ", ".join(third_party(tree)) or "-"
        rows.append(f"| `{path.relative_to(root).as_posix()}` | {summary(tree)} | {imports} |")
    return "\n".join(rows)


def rewrite(text: str, root: Path = REPO) -> str:
    """``text`` (docs/architecture.md) with its module table made anew."""
    if not _BLOCK.search(text):
        raise SystemExit(f"no <!-- {MARKER} --> block in docs/architecture.md")
    return _BLOCK.sub(lambda m: m.group(1) + table(root) + "\n" + m.group(2), text)


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    new = rewrite(text)
    if new != text:
        DOC.write_text(new, encoding="utf-8")
        print("rewrote docs/architecture.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
