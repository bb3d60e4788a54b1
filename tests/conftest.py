"""Shared fixtures: bundles written by the test into tmp_path, and the real sample bundle when present."""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from okf.testing import loopback_only

BundleWriter = Callable[[Path, "dict[str, str | bytes]"], Path]

# The test process holds a large long-lived heap (pytest's and hypothesis's state, every module imported,
# okf's caches) and the property tests allocate containers by the million: at the default threshold (700)
# the cyclic collector's full passes over that heap cost 9 to 14 s of each xdist worker's 50 to 60 s of CPU
# (docs/benchmarks.md, "Test suite"). A young collection every 10,000 net allocations instead of every 700
# still frees cycles as the tests go, with far fewer passes. Only this process's schedule changes: okf never
# sets thresholds, tests/test_collector.py calls gc.collect() and reads generations explicitly, and pytest
# collects at the end of the session to report any unclosed resource a cycle held.
gc.set_threshold(10_000, 10, 10)


def _write_bundle(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    """Write ``files`` (bundle-relative path -> text or bytes) under ``tmp_path / "bundle"``; return that root."""
    root = tmp_path / "bundle"
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def write_bundle() -> BundleWriter:
    """``write_bundle(tmp_path, {"a/b.md": "---\\ntype: Note\\n---\\nbody"}) -> Path`` of the bundle root."""
    return _write_bundle


def shared_dir() -> Path | None:
    """The shared reference folder: $OKF_SHARED, else ``<repo>/../shared``; None when absent."""
    env = os.environ.get("OKF_SHARED")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[2] / "shared")
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return None


@pytest.fixture
def sample_bundle() -> Path:
    """The acme_retail sample bundle from another producer (skips when the shared folder is absent)."""
    shared = shared_dir()
    path = shared / "reference" / "okf-samples" / "acme_retail" if shared else None
    if path is None or not path.is_dir():
        pytest.skip("shared reference bundle not available (set OKF_SHARED)")
    return path


@pytest.fixture(autouse=True)
def _offline_and_isolated(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """No test reaches past loopback, reads the user's model settings, or writes the user's cache."""
    for name in (
        "OKF_MODEL",
        "OKF_SELECTOR_MODEL",
        "OKF_JUDGE_MODEL",
        "OKF_ANSWER_MODEL",
        "OKF_EXTRACT_MODEL",
        "OKF_ASSESS_MODEL",
        "OKF_DESCRIBE_MODEL",
        "OPENAI_BASE_URL",
        "OKF_CONFIG",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OKF_CACHE_DIR", str(tmp_path_factory.mktemp("okf-cache")))
    monkeypatch.setenv("OKF_RAISE_ERRORS", "1")  # an unexpected exception fails the test with its traceback
    with loopback_only():
        yield
