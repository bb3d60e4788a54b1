"""Committed bundles are up to date with their sources (rebuild them with scripts/build_bundles.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from okf.compile import compile_bundle

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("build_bundles", REPO / "scripts" / "build_bundles.py")
assert _spec and _spec.loader
build_bundles = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_bundles)


@pytest.mark.parametrize("name", sorted(build_bundles.BUNDLES))
def test_committed_bundle_is_fresh(name: str, tmp_path: Path) -> None:
    source, title = build_bundles.BUNDLES[name]
    committed = REPO / "bundles" / name
    if not source.is_dir() or not committed.is_dir():
        pytest.skip(f"{name}: sources or bundle not present yet")
    fresh = tmp_path / name
    compile_bundle([source], fresh, options=build_bundles.options(title))

    def tree(root: Path) -> dict[str, bytes]:
        # The manifest names the source folder relative to the output, so it differs by location.
        return {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file() and ".okf" not in p.relative_to(root).parts
        }

    assert tree(fresh) == tree(committed), (
        f"bundles/{name} is out of date with {source}: run python scripts/build_bundles.py"
    )
