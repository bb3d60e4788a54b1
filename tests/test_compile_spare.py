"""A first compile's spare tree mirrored by another process while the compile finishes (okf.compile.spare):
the same tree, the same inodes, as the mirror made after the swap (okf.compile.write._mirror)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import okf.compile.api as api
import okf.compile.parallel as parallel
import okf.compile.write as write
from okf.compile import CompileOptions, compile_bundle
from okf.compile.spare import mirror_tree
from okf.errors import CompileError

TEXT = """SUPPLY AGREEMENT {i}

ARTICLE I
DEFINITIONS

1.1 "Goods" means the products listed in Schedule A that the supplier delivers to the buyer under this
Agreement, together with their packaging and any documentation the supplier provides with them.

ARTICLE II
DELIVERY

2.1 Delivery. The supplier shall deliver the Goods to the buyer's warehouse within ten days of each order,
and the buyer shall inspect them within five days of delivery, as set out in Section 1.1 above.
"""

OPTIONS = CompileOptions(max_words=30, min_words=8, fanout=3, timestamp="2026-01-01T00:00:00Z")


def _corpus(root: Path, count: int = 7) -> Path:
    for i in range(count):
        folder = root / ("a" if i % 2 else "b")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"supply-{i}.txt").write_text(TEXT.format(i=i))
    (root / "notes.md").write_text("# Notes\n\nThe buyer pays within thirty days, see [a](a/supply-1.txt).\n")
    return root


def _tree(root: Path) -> tuple[dict[str, int], set[str]]:
    files, dirs = write._scan(root)
    files.pop(write.STAT_CACHE, None)  # written into the live bundle after the swap: never in the spare
    return files, dirs


@pytest.fixture
def two_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKF_COMPILE_JOBS", "2")
    monkeypatch.setattr(parallel, "MIN_BYTES", 0)


def test_mirror_tree_makes_what_the_mirror_after_the_swap_makes(tmp_path: Path) -> None:
    """Folders, files, hidden ones, a symlinked file (linked) and a symlinked folder (skipped): the same
    entries as ``_mirror``, each file the very inode of the original."""
    out = tmp_path / "out"
    (out / "x" / "y").mkdir(parents=True)
    (out / ".okf").mkdir()
    (out / "empty").mkdir()
    for rel in ("index.md", "x/a.md", "x/y/b.md", ".okf/manifest.json"):
        (out / rel).write_text(rel)
    (out / "x" / "to-file").symlink_to(out / "x" / "a.md")
    (out / "to-dir").symlink_to(out / "x", target_is_directory=True)
    mirror_tree(str(out), str(tmp_path / "fast"))
    write._mirror(out, tmp_path / "side")  # the old way: built under the side tree's name, renamed the spare
    assert _tree(tmp_path / "fast") == _tree(tmp_path / "out.okf-spare")
    files, dirs = _tree(tmp_path / "fast")
    assert dirs == {"x", "x/y", ".okf", "empty"}
    assert files == {rel: os.lstat(out / rel).st_ino for rel in files}
    assert "to-dir" not in files and "x/to-file" in files


def test_first_compile_mirrors_its_spare_beside_it(tmp_path: Path, two_workers: None) -> None:
    """With two workers the spare is mirrored by another process before the swap, and is the tree the mirror
    after the swap makes: every file of the bundle (index files, log and manifest written after the process
    started included) as a hard link of the bundle's own. Fails if the late files are not linked."""
    started = []
    start = write.start_spare

    def spy(state: object) -> None:
        start(state)  # type: ignore[arg-type]
        started.append(state.spare_job)  # type: ignore[attr-defined]

    corpus = _corpus(tmp_path / "src")
    steps = [(n, spy if n == "start_spare" else s) for n, s in api.STEPS]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api, "STEPS", steps)
        compile_bundle([corpus], tmp_path / "fast" / "out", options=OPTIONS)
    assert started and started[0] is not None
    # The old way: the same compile without the step mirrors after the swap.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api, "STEPS", [(n, s) for n, s in api.STEPS if n != "start_spare"])
        compile_bundle([corpus], tmp_path / "old" / "out", options=OPTIONS)
    fast, old = tmp_path / "fast", tmp_path / "old"
    assert sorted(p.name for p in fast.iterdir()) == sorted(p.name for p in old.iterdir()) == ["out", "out.okf-spare"]
    files, dirs = _tree(fast / "out.okf-spare")
    assert (set(files), dirs) == (set(_tree(old / "out.okf-spare")[0]), _tree(old / "out.okf-spare")[1])
    assert files == _tree(fast / "out")[0]  # the very inodes of the bundle
    assert {"index.md", "log.md", ".okf/manifest.json", ".okf/titles.json"} <= set(files)
    for rel in _tree(old / "out")[0]:
        assert (fast / "out" / rel).read_bytes() == (old / "out" / rel).read_bytes(), rel
    # The next compile reuses it, as it reuses a spare mirrored after the swap.
    (corpus / "a" / "supply-1.txt").write_text(TEXT.format(i=99))
    report = compile_bundle([corpus], fast / "out", options=OPTIONS)
    assert report.documents_rebuilt >= 1 and (fast / "out.okf-spare").is_dir()


def test_a_failed_spare_process_falls_back_to_the_mirror_after_the_swap(
    tmp_path: Path, two_workers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    popen = subprocess.Popen

    def failing(args: list[str], **kwargs: object) -> subprocess.Popen[bytes]:
        return popen([sys.executable, "-c", "raise SystemExit(3)"], **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(write.subprocess, "Popen", failing)
    out = tmp_path / "out"
    compile_bundle([_corpus(tmp_path / "src")], out, options=OPTIONS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "out.okf-spare", "src"]
    assert _tree(tmp_path / "out.okf-spare")[0] == _tree(out)[0]


def test_a_compile_failing_while_the_spare_is_mirrored_leaves_nothing(
    tmp_path: Path, two_workers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(state: object) -> None:
        assert state.spare_job is not None  # type: ignore[attr-defined]
        raise CompileError("broken step")

    monkeypatch.setattr(api, "STEPS", [(n, broken if n == "finish" else s) for n, s in api.STEPS])
    with pytest.raises(CompileError):
        compile_bundle([_corpus(tmp_path / "src")], tmp_path / "out", options=OPTIONS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


def test_no_spare_process_with_one_job_or_an_existing_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jobs: list[object] = []

    def spy(state: object) -> None:
        write.start_spare(state)  # type: ignore[arg-type]
        jobs.append(state.spare_job)  # type: ignore[attr-defined]

    monkeypatch.setattr(api, "STEPS", [(n, spy if n == "start_spare" else s) for n, s in api.STEPS])
    monkeypatch.setenv("OKF_COMPILE_JOBS", "1")
    corpus = _corpus(tmp_path / "src")
    compile_bundle([corpus], tmp_path / "out", options=OPTIONS)
    monkeypatch.setenv("OKF_COMPILE_JOBS", "2")
    monkeypatch.setattr(parallel, "MIN_BYTES", 0)
    (corpus / "a" / "supply-1.txt").write_text(TEXT.format(i=98))
    compile_bundle([corpus], tmp_path / "out", options=OPTIONS)
    assert jobs == [None, None]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "out.okf-spare", "src"]


def test_a_killed_compile_s_spare_tree_is_removed_by_the_next_compile(tmp_path: Path) -> None:
    """A compile killed while its helper mirrored leaves ``<output>.okf-tmp-spare-<pid>``: the next compile
    deletes it (its pid is not alive), like a stale side tree; a live one's makes it refuse."""
    corpus = _corpus(tmp_path / "src")
    dead = 2**22 + 12345  # above the usual pid_max: no such process
    stale = tmp_path / f"out{write.TMP_MARK}spare-{dead}"
    (stale / "x").mkdir(parents=True)
    compile_bundle([corpus], tmp_path / "out", options=OPTIONS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "out.okf-spare", "src"]
    live = tmp_path / f"out{write.TMP_MARK}spare-{os.getppid()}"
    live.mkdir()
    with pytest.raises(CompileError, match="another okf compile"):
        compile_bundle([corpus], tmp_path / "out", options=OPTIONS.model_copy(update={"force": True}))
