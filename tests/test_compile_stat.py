"""The stat cache: sources whose size, mtime and inode match the last compile are not re-read, unless racy."""

from __future__ import annotations

import importlib
import os
import time
from pathlib import Path

import pytest

from okf.compile import CompileOptions, compile_bundle

discover = importlib.import_module("okf.compile.discover")  # the package re-exports a function of that name

DAY_NS = 86_400 * 10**9
OPTIONS = CompileOptions(max_words=30, min_words=8, timestamp="2026-01-01T00:00:00Z")


def write_sources(src: Path) -> None:
    src.mkdir()
    for name in ("alpha", "beta", "gamma"):
        text = "\n\n".join(
            f"{n}. Clause {n}\n\nThe {name} party pays the fee of {n} units each month." * 3 for n in range(1, 5)
        )
        path = src / f"{name}.txt"
        path.write_text(text)
        old = time.time_ns() - DAY_NS  # well outside the racy window of any compile below
        os.utime(path, ns=(old, old))


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the files the compile actually read to hash."""
    calls: list[str] = []
    real = discover._read_hashed

    def counting(path: Path) -> tuple[str, bytes]:
        calls.append(path.name)
        return real(path)

    monkeypatch.setattr(discover, "_read_hashed", counting)
    return calls


def bundle_files(out: Path) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name != "stat-cache.json"
    }


def test_unchanged_sources_are_not_reread(tmp_path: Path, hashed: list[str]) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    write_sources(src)
    compile_bundle([src], out, options=OPTIONS)
    assert sorted(hashed) == ["alpha.txt", "beta.txt", "gamma.txt"]
    assert (out / ".okf" / "stat-cache.json").is_file()
    hashed.clear()
    report = compile_bundle([src], out, options=OPTIONS)
    assert hashed == [] and not report.changed and report.unchanged == report.concepts > 0
    hashed.clear()
    compile_bundle([src], out, options=OPTIONS.model_copy(update={"force": True}))
    assert len(hashed) == 3, "--force must not trust the stat cache"


def test_touched_but_identical_file_is_hashed_not_rebuilt(tmp_path: Path, hashed: list[str]) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    write_sources(src)
    compile_bundle([src], out, options=OPTIONS)
    before = bundle_files(out)
    os.utime(src / "beta.txt")  # touched: new mtime, same bytes
    hashed.clear()
    report = compile_bundle([src], out, options=OPTIONS)
    assert hashed == ["beta.txt"]
    assert report.documents_rebuilt == 0 and not report.changed
    assert bundle_files(out) == before


def test_same_size_change_with_restored_mtime_in_racy_window_is_rebuilt(tmp_path: Path, hashed: list[str]) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    write_sources(src)
    target = src / "gamma.txt"
    now = time.time_ns()
    os.utime(target, ns=(now, now))  # modified just before the compile: racy when recorded
    compile_bundle([src], out, options=OPTIONS)
    stat = target.stat()
    text = target.read_text()
    target.write_text(text.replace("gamma party", "GAMMA PARTY"))  # same size, different bytes
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # stat data as recorded
    assert target.stat().st_size == stat.st_size
    hashed.clear()
    report = compile_bundle([src], out, options=OPTIONS)
    assert hashed == ["gamma.txt"]
    assert report.documents_rebuilt == 1 and report.changed
    assert any("GAMMA PARTY" in p.read_text() for p in (out / "gamma").rglob("*.md"))


def test_noop_fast_path_still_repairs_a_hand_edited_index(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    write_sources(src)
    compile_bundle([src], out, options=OPTIONS)
    compile_bundle([src], out, options=OPTIONS)  # records the settled state (the first record was racy)
    before = bundle_files(out)
    (out / "index.md").write_text("edited by hand\n")
    report = compile_bundle([src], out, options=OPTIONS)
    assert report.changed and bundle_files(out) == before
    (src / "delta.txt").write_text("1. Only clause\n\nA new source appears in the folder.\n")
    report = compile_bundle([src], out, options=OPTIONS)
    assert report.documents_rebuilt == 1 and (out / "delta.md").is_file()
