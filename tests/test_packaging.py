"""What the distribution ships and declares: py.typed, the Apache-2.0 LICENSE, the lint and type settings.

Building the wheel needs the package index (build isolation), so this checks the declarations that put the
files in it; ``pip wheel . --no-deps -w dist && unzip -l dist/*.whl`` shows them (okf/py.typed, LICENSE).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_py_typed_exists_and_is_package_data() -> None:
    assert (REPO / "okf" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["okf"]


def test_license_file_matches_the_declared_license() -> None:
    assert PYPROJECT["project"]["license"] == {"text": "Apache-2.0"}
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text


def test_the_version_is_read_from_the_leaf_module() -> None:
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "okf._version.__version__"}


def test_lint_and_type_tools_are_test_extras_with_floors() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]["test"]
    for tool in ("ruff", "mypy"):
        assert any(spec.startswith(f"{tool}>=") for spec in extras), tool
    assert "mypy" in PYPROJECT["tool"] and "lint" in PYPROJECT["tool"]["ruff"]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.index("ruff check") < ci.index("python -m pytest") and ci.index("mypy") < ci.index("python -m pytest")
