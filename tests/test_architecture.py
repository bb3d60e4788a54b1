"""docs/architecture.md and okf/errors.py are true to the code: every module in the module table, made from
the modules themselves, and the error tree drawn in okf/errors.py the tree of its classes."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
from pathlib import Path

import okf.errors

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("architecture_table", REPO / "scripts" / "architecture_table.py")
assert _spec and _spec.loader
architecture_table = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(architecture_table)


def test_every_module_is_in_the_table() -> None:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `(okf/[^`]+\.py)` \|", text, flags=re.MULTILINE))
    modules = {path.relative_to(REPO).as_posix() for path in architecture_table.modules()}
    assert not modules - listed, (
        f"docs/architecture.md misses {sorted(modules - listed)}: run python scripts/architecture_table.py"
    )
    assert not listed - modules, f"docs/architecture.md lists modules that do not exist: {sorted(listed - modules)}"


def test_the_table_is_made_from_the_modules() -> None:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert architecture_table.rewrite(text) == text, (
        "docs/architecture.md's module table disagrees with the modules: run python scripts/architecture_table.py"
    )


def test_every_module_says_what_it_is() -> None:
    missing = [
        path.relative_to(REPO).as_posix()
        for path in architecture_table.modules()
        if not architecture_table.summary(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert not missing, f"modules without a docstring: {missing}"


def test_the_table_reads_docstrings_and_imports(tmp_path: Path) -> None:
    package = tmp_path / "okf"
    package.mkdir()
    (package / "a.py").write_text('"""Does a. More words."""\nimport yaml\nimport os\nfrom okf import b\n')
    (package / "b.py").write_text('"""B | pipes: escaped?\n\nSecond paragraph."""\n\ndef f():\n    import click\n')
    assert architecture_table.table(tmp_path).splitlines()[2:] == [
        "| `okf/a.py` | Does a. | yaml |",
        "| `okf/b.py` | B \\| pipes: escaped? | click |",
    ]


def _drawn_tree() -> dict[str, str | None]:
    """Each class drawn in okf/errors.py's docstring -> the class drawn above it (None for the root)."""
    doc = okf.errors.__doc__ or ""
    lines = doc.split("The tree::", 1)[1].split("\n\n", 2)[1].splitlines()
    parents: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []
    for line in lines:
        match = re.search(r"[A-Z]\w+", line)
        assert match, line
        column, name = match.start(), match.group()
        while stack and stack[-1][0] >= column:
            stack.pop()
        parents[name] = stack[-1][1] if stack else None
        stack.append((column, name))
    return parents


def test_the_error_tree_drawn_is_the_tree_of_the_classes() -> None:
    classes = {
        name: cls
        for name, cls in vars(okf.errors).items()
        if inspect.isclass(cls) and issubclass(cls, Exception) and cls.__module__ == "okf.errors"
    }
    actual = {
        name: (None if cls is okf.errors.OKFError else cls.__bases__[0].__name__) for name, cls in classes.items()
    }
    assert _drawn_tree() == actual
