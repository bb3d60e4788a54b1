"""A compile killed (SIGKILL) at any moment leaves the previous bundle intact; the next compile cleans up."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from okf.compile import CompileOptions, compile_bundle


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_killed_compile_leaves_previous_bundle(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    para = "The parties agree to the terms set out in this clause for the whole term. " * 12
    for i in range(80):  # 880 concepts: a compile long enough to be killed while it writes
        (src / f"contract-{i:03d}.txt").write_text("\n\n".join(f"{n}. Clause {n}\n\n{para}" for n in range(1, 12)))
    out = tmp_path / "out"
    compile_bundle([src], out, options=CompileOptions())
    previous = tree(out)
    for path in sorted(src.glob("*.txt")):  # every source changes: the next compile rewrites everything
        path.write_text(path.read_text() + "\n\n12. Added\n\nA new clause added to every contract today.\n")
    for phase in ("planning", "writing"):
        kill_while(phase, src, out, tmp_path)
        assert tree(out) == previous, f"bundle changed after a kill while {phase}"
    report = compile_bundle([src], out, options=CompileOptions())
    assert not list(tmp_path.glob("out.okf-tmp-*")), "stale temp trees were not cleaned up"
    assert report.concepts and tree(out) != previous
    # The replaced bundle is kept, whole, as the next compile's side tree; nothing else is left beside it.
    assert sorted(p.name for p in tmp_path.glob("out.okf-*")) == ["out.okf-spare"]
    assert tree(tmp_path / "out.okf-spare") == previous

    # Again with the spare tree reused as the side tree: a kill while it is being reconciled leaves the live
    # bundle (which shares its unchanged files' inodes) intact.
    current = tree(out)
    for path in sorted(src.glob("*.txt"))[::2]:
        path.write_text(path.read_text() + "\n\n13. Later\n\nAnother clause, in half of the contracts.\n")
    kill_while("writing", src, out, tmp_path)
    assert tree(out) == current, "bundle changed after a kill while reconciling the spare tree"
    stamp = CompileOptions(timestamp="2026-01-02T00:00:00Z", title="Contracts")
    compile_bundle([src], out, options=stamp)
    compile_bundle([src], out, options=stamp)  # no-op
    (src / "contract-001.txt").write_text("1. Replaced\n\nThe whole contract was replaced by this one clause.\n")
    twin = tmp_path / "twin"  # the same bundle without a spare tree beside it: its side tree is built anew
    shutil.copytree(out, twin)
    assert (tmp_path / "out.okf-spare").is_dir() and not (tmp_path / "twin.okf-spare").exists()
    compile_bundle([src], out, options=stamp)  # reconciles the spare left by the compile before the no-op
    compile_bundle([src], twin, options=stamp)
    bundle = {k: v for k, v in tree(out).items() if k != ".okf/stat-cache.json"}
    assert bundle == {k: v for k, v in tree(twin).items() if k != ".okf/stat-cache.json"}, (
        "a reused side tree must give the same bundle as a fresh one"
    )


def kill_while(phase: str, src: Path, out: Path, tmp_path: Path) -> None:
    """Start a compile in a subprocess and SIGKILL it while planning, or once its side tree holds files."""
    env = {**os.environ, "OKF_RAISE_ERRORS": "1"}
    tmp_tree = tmp_path / "out.okf-tmp-"
    # Kill points that matter: while planning (nothing written yet), and while the side tree is being
    # written (the moment a careless writer would have touched the live bundle). The second kill waits
    # until the side tree exists, so it lands mid-write rather than at a guessed time.
    proc = subprocess.Popen(
        [sys.executable, "-m", "okf", "compile", str(src), "-o", str(out), "-q"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if phase == "planning":
        time.sleep(0.4)
    else:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not any(
            p.name.startswith(tmp_tree.name) and any(p.rglob("*.md")) for p in tmp_path.iterdir()
        ):
            time.sleep(0.005)
    if proc.poll() is None:  # else it finished before the kill: the caller sees the new bundle
        proc.send_signal(signal.SIGKILL)
    proc.wait()
