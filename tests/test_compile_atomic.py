"""A compile killed (SIGKILL) at any moment leaves the previous bundle intact; the next compile cleans up."""

from __future__ import annotations

import os
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
    for i in range(120):
        (src / f"contract-{i:03d}.txt").write_text(
            "\n\n".join(f"{n}. Clause {n}\n\n{para}" for n in range(1, 12)))
    out = tmp_path / "out"
    compile_bundle([src], out, options=CompileOptions())
    previous = tree(out)
    for path in sorted(src.glob("*.txt")):  # every source changes: the next compile rewrites everything
        path.write_text(path.read_text() + "\n\n12. Added\n\nA new clause added to every contract today.\n")
    env = {**os.environ, "OKF_RAISE_ERRORS": "1"}
    tmp_tree = tmp_path / "out.okf-tmp-"
    # Kill points that matter: while planning (nothing written yet), and while the side tree is being
    # written (the moment a careless writer would have touched the live bundle). The second kill waits
    # until the side tree exists, so it lands mid-write rather than at a guessed time.
    for phase in ("planning", "writing"):
        proc = subprocess.Popen([sys.executable, "-m", "okf", "compile", str(src), "-o", str(out), "-q"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if phase == "planning":
            time.sleep(0.4)
        else:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not any(
                    p.name.startswith(tmp_tree.name) and any(p.rglob("*.md")) for p in tmp_path.iterdir()):
                time.sleep(0.005)
        if proc.poll() is not None:
            continue  # finished before the kill: the bundle is the new one, checked below
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert tree(out) == previous, f"bundle changed after a kill while {phase}"
    report = compile_bundle([src], out, options=CompileOptions())
    assert not list(tmp_path.glob("out.okf-tmp-*")), "stale temp trees were not cleaned up"
    assert report.concepts and tree(out) != previous
    # The replaced bundle is deleted by a detached process after the swap: it must be gone soon.
    deadline = time.monotonic() + 20
    while list(tmp_path.glob("out.okf-*")) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not list(tmp_path.glob("out.okf-*")), "the replaced bundle was not deleted"
