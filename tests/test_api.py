"""The public Python API: ``okf.__all__`` is complete, every name resolves, ``import okf`` stays light, and
every example in docs/api.md runs."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

import okf
import okf.errors

REPO = Path(__file__).resolve().parents[1]

# Modules whose public classes must all be exported from okf.
MODEL_MODULES = ("okf.models", "okf.bundle.model", "okf.errors", "okf.requirements.model", "okf.compliance.model")
# Modules whose own __all__ is exported, less the names listed here with the reason they stay out.
OPERATION_MODULES = {
    "okf.checker": set(),
    "okf.navigator": {"make_budgets"},  # Budgets(...) is the public way to set limits
    "okf.answer": {"DEFAULT_EVIDENCE_TOKENS"},  # a default, documented on ask()
    "okf.compile": {"STEPS", "CompileState", "compile_time"},  # the pipeline's insides (docs/compile.md)
    "okf.contract": {"REGEX_TIMEOUT_S", "contract_data"},  # a default, and the file-writing helper of init
    "okf.requirements": set(),
    "okf.compliance": set(),
}
# The reader layer exports this declared list; the protocol's message models stay in okf.readers.
READERS = {"Reader", "OfflineReader", "LLMReader", "ReaderConfig", "make_reader", "Usage"}
EVAL = {"evaluate", "evaluate_async", "EvalQuestion", "EvalReport", "EvalSummary"}


def _public_classes(module_name: str) -> set[str]:
    module = importlib.import_module(module_name)
    return {
        name
        for name, value in vars(module).items()
        if inspect.isclass(value) and value.__module__ == module_name and not name.startswith("_")
    }


@pytest.mark.parametrize("module_name", MODEL_MODULES)
def test_every_public_model_and_error_class_is_exported(module_name: str) -> None:
    missing = _public_classes(module_name) - set(okf.__all__)
    assert not missing, f"{module_name} defines {sorted(missing)} but okf does not export them"


@pytest.mark.parametrize("module_name", sorted(OPERATION_MODULES))
def test_every_operation_is_exported(module_name: str) -> None:
    module = importlib.import_module(module_name)
    expected = set(module.__all__) - OPERATION_MODULES[module_name]
    assert expected, f"{module_name}.__all__ is empty"
    assert not expected - set(okf.__all__), f"okf does not export {sorted(expected - set(okf.__all__))}"


def test_declared_reader_and_eval_names_are_exported() -> None:
    assert set(okf.__all__) >= READERS | EVAL


def test_every_error_class_is_exported_and_is_the_same_object() -> None:
    errors = {
        name: value
        for name, value in vars(okf.errors).items()
        if inspect.isclass(value) and issubclass(value, Exception) and value.__module__ == "okf.errors"
    }
    assert len(errors) >= 11
    for name, cls in errors.items():
        assert getattr(okf, name) is cls
        assert issubclass(cls, okf.OKFError)


def test_every_name_in_all_resolves() -> None:
    assert len(okf.__all__) == len(set(okf.__all__))
    assert set(okf.__all__) == {*okf._EXPORTS, "open_bundle", "__version__"}
    for name in okf.__all__:
        assert getattr(okf, name) is not None, name
        assert name in dir(okf)
    assert okf.open_bundle == okf.Bundle.open
    from okf._version import __version__

    assert okf.__version__ == __version__
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        okf.nope  # noqa: B018


def _okf_modules() -> list[str]:
    return sorted(
        info.name for info in pkgutil.walk_packages(okf.__path__, "okf.") if not info.name.endswith(".__main__")
    )  # importing __main__ runs the CLI


def test_every_public_name_is_defined_in_a_named_module_and_shadows_no_module() -> None:
    modules = _okf_modules()
    assert "okf.checker.rules" in modules and "okf.bundle.bundle" in modules
    for name, module_name in okf._EXPORTS.items():
        module = importlib.import_module(module_name)
        assert not hasattr(module, "__path__"), f"{name} is defined in the package face {module_name}"
        assert getattr(module, name).__module__ == module_name, f"{name} is not defined in {module_name}"
    # httpx's rule: no module shares its name with a public name, so ``okf.check`` is always the function.
    clashes = {m for m in modules if m.count(".") == 1 and m.partition(".")[2] in okf.__all__}
    assert not clashes, f"modules named like public names: {sorted(clashes)}"


def test_every_module_imports_as_a_module_and_is_reachable_by_attribute() -> None:
    shadowed = []
    for name in _okf_modules():
        module = importlib.import_module(name)
        reached: object = okf
        for part in name.split(".")[1:]:
            reached = getattr(reached, part)
        if reached is not module:
            shadowed.append(f"{name} is {reached!r}")
    assert not shadowed, f"modules shadowed by a name of their package: {shadowed}"
    code = (
        "import okf.checker as c, okf.checker.rules, okf; "
        "print(type(c).__name__, okf.checker.rules.__name__, okf.check.__module__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["module", "okf.checker.rules", "okf.checker.api"]
    checker = sys.modules["okf.checker"]
    assert callable(okf.check) and okf.check is checker.check
    assert type(okf) is types.ModuleType  # no custom module class


def test_typing_imports_match_the_exports() -> None:
    """The ``if TYPE_CHECKING:`` imports of okf/__init__.py name exactly ``_EXPORTS``, from those modules."""
    tree = ast.parse((REPO / "okf" / "__init__.py").read_text(encoding="utf-8"))
    block = next(
        node for node in tree.body if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    )
    imported = {
        alias.name: node.module for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names
    }
    assert imported == okf._EXPORTS


def test_import_okf_loads_no_model_client_cli_or_mcp() -> None:
    code = (
        "import sys, okf; okf.Bundle; okf.Budgets; okf.OKFError; okf.navigate; okf.ask; okf.check; "
        "print(sorted(m for m in ('openai', 'click', 'mcp') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"
    listing = "import sys, okf; print(sorted(m for m in sys.modules if m.startswith('okf.')))"
    bare = subprocess.run([sys.executable, "-c", listing], capture_output=True, text=True, timeout=60, check=True)
    assert bare.stdout.strip() == "['okf._version']", "import okf should load nothing else until a name is used"


# -- docs/api.md ------------------------------------------------------------------------------------------


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_every_docs_api_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The docs' examples run in order, in one namespace, from a folder holding the sources they name."""
    shutil.copytree(REPO / "bundles" / "sources" / "harborview", tmp_path / "bundles" / "sources" / "harborview")
    monkeypatch.chdir(tmp_path)
    for var in ("OKF_MODEL", "OKF_SELECTOR_MODEL", "OKF_JUDGE_MODEL", "OKF_ANSWER_MODEL", "OKF_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    blocks = _python_blocks((REPO / "docs" / "api.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 6
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for number, block in enumerate(blocks, 1):
        try:
            exec(compile(block, f"docs/api.md block {number}", "exec"), namespace)  # noqa: S102
        except Exception as exc:  # noqa: BLE001 - any failure: name the block and show its code
            pytest.fail(f"docs/api.md block {number} failed: {type(exc).__name__}: {exc}\n{block}")
