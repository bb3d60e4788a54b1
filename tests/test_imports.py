"""The import graph of okf, read from the source: no cycle, no upward import.

Every ``import`` of an okf module counts, lazy ones inside functions too (a lazy import that exists to dodge a
cycle is still a cycle); only imports under ``if TYPE_CHECKING:`` are left out. ``from okf.a import b`` counts
as an import of the module ``okf.a.b`` when there is one, else of ``okf.a``.

"Upward" has two meanings here: a module of okf importing the package face ``okf`` (or its own package's
``__init__``, which hands its names on and so sits above it), and a package importing one on a higher floor
of :data:`FLOORS`, the house drawn from the data path (sources -> bundle -> readers -> navigate -> ask; check
and eval beside it; the CLI and the MCP server on top). A new top-level module or package gets a floor here.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OKF = REPO / "okf"

# Floor of every top-level module or package of okf: it may import its own floor and the floors below.
FLOORS: dict[str, int] = {
    "okf._version": 0,
    "okf.errors": 0,
    "okf.limits": 0,
    "okf.collector": 0,
    "okf.processes": 0,
    "okf.setting": 1,
    "okf.text": 1,
    "okf.markdown": 1,
    "okf.wikilinks": 1,
    "okf.sources": 1,
    "okf.readers": 2,
    "okf.testing": 2,
    "okf.models": 3,
    "okf.bundle": 3,
    "okf.compile": 4,
    "okf.checker": 4,
    "okf.navigator": 4,
    "okf.orchestrate": 4,
    "okf.trace": 4,
    "okf.requirements": 4,
    "okf.html": 4,
    "okf.reader_settings": 4,
    "okf.settings": 5,
    "okf.contract": 5,
    "okf.eval": 5,
    "okf.answer": 5,
    "okf.compliance": 5,
    "okf.export": 5,
    "okf.report": 5,
    "okf.mcp": 6,
    "okf.cli": 6,
    "okf.__main__": 7,
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in sorted(OKF.rglob("*.py"))}


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (getattr(test, "id", None) or getattr(test, "attr", None)) == "TYPE_CHECKING"


def _imports(name: str, path: Path) -> set[str]:
    """The okf modules ``name`` imports, anywhere in the file but under ``if TYPE_CHECKING:``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names if alias.name.split(".")[0] == "okf")
            elif isinstance(child, ast.ImportFrom):
                module = child.module or ""
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - child.level + 1]
                    module = ".".join([*base, module] if module else base)
                if module.split(".")[0] == "okf":
                    for alias in child.names:
                        sub = f"{module}.{alias.name}"
                        found.add(sub if sub in MODULES else module)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    found.discard(name)
    return {module for module in found if module in MODULES}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _top(name: str) -> str:
    return ".".join(name.split(".")[:2])


def test_the_graph_is_read() -> None:
    assert "okf.checker.rules" in GRAPH["okf.checker.api"]
    assert "okf.sources.text" in GRAPH["okf.sources"]
    assert len(GRAPH) > 150


def test_no_import_cycle() -> None:
    cycles = _cycles(GRAPH)
    shown = ["; ".join(f"{a} -> {', '.join(sorted(GRAPH[a] & set(cycle)))}" for a in cycle) for cycle in cycles]
    assert not cycles, "import cycles:\n" + "\n".join(shown)


def test_the_cycle_finder_finds_one() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_every_top_level_module_has_a_floor() -> None:
    missing = sorted({_top(name) for name in MODULES} - {"okf"} - set(FLOORS))
    assert not missing, f"give {missing} a floor in FLOORS (tests/test_imports.py) and a row in docs/architecture.md"


def test_no_upward_import() -> None:
    upward = []
    for name, imported in sorted(GRAPH.items()):
        for target in sorted(imported):
            if target == "okf":
                upward.append(f"{name} imports the package face okf (import from the module that defines the name)")
            elif MODULES[target].name == "__init__.py" and name.startswith(target + "."):
                upward.append(f"{name} imports its own package's face {target}")
            elif name != "okf" and FLOORS.get(_top(target), 0) > FLOORS.get(_top(name), 99):
                upward.append(f"{name} (floor {FLOORS[_top(name)]}) imports {target} (floor {FLOORS[_top(target)]})")
    assert not upward, "upward imports:\n" + "\n".join(upward)
