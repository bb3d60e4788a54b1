"""Atomic write: build the new tree beside the output, then swap it in; a kill leaves the old bundle whole."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import posixpath
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from okf.compile.manifest import manifest_files
from okf.compile.state import CompileState
from okf.errors import CompileError

TMP_MARK = ".okf-tmp-"
OLD_MARK = ".okf-old-"
_RENAME_EXCHANGE = 2


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale(state: CompileState) -> None:
    """Remove temp trees left by killed compiles; put back an output a kill left mid-swap."""
    output = state.output
    parent = output.parent
    if not parent.is_dir():
        return
    for entry in parent.iterdir():
        for mark in (TMP_MARK, OLD_MARK):
            if not entry.name.startswith(output.name + mark):
                continue
            pid = entry.name.rsplit("-", 1)[-1]
            if pid.isdigit() and int(pid) != os.getpid() and _pid_alive(int(pid)):
                raise CompileError("another compile is writing this output", path=str(entry),
                                   fix=f"wait for process {pid} to finish")
            if mark == OLD_MARK and not output.exists():
                os.rename(entry, output)  # killed between the two renames of the fallback swap
            else:
                shutil.rmtree(entry, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths with renameat2(RENAME_EXCHANGE) where the OS offers it."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name or not hasattr(os, "O_DIRECTORY"):
        return False
    try:
        libc = ctypes.CDLL(libc_name, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    return result == 0


def _place(tmp: Path, path: str, state: CompileState, content: bytes | None) -> int:
    target = tmp / path
    if content is None:  # unchanged: share the old file's inode (fall back to a copy across devices)
        try:
            os.link(state.output / path, target)
        except OSError:
            shutil.copy2(state.output / path, target)
        return 0
    with open(target, "wb") as handle:
        handle.write(content)
    return len(content)


def _ancestors(folder: str) -> list[str]:
    """``a/b/c`` -> ``["a", "a/b", "a/b/c"]``."""
    parts = folder.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _foreign_files(state: CompileState) -> set[str]:
    """Files in the old output that okf did not write (kept, never lost, with a warning)."""
    if not state.output.is_dir() or state.previous is None:
        return set()
    known = manifest_files(state.previous) | set(state.outputs) | state.keep | {".okf/manifest.json"}
    foreign = set()
    for dirpath, _dirs, names in os.walk(state.output):
        for name in names:
            rel = (Path(dirpath) / name).relative_to(state.output).as_posix()
            if rel not in known:
                foreign.add(rel)
    for rel in sorted(foreign)[:5]:
        state.warn(f"{rel}: not written by okf compile; kept as it is")
    return foreign


def write_bundle(state: CompileState) -> None:
    """Write the new tree to <output>.okf-tmp-<pid> and swap it in; nothing is written when nothing changed."""
    if not state.report.changed:
        return
    output = state.output
    tmp = output.with_name(f"{output.name}{TMP_MARK}{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir(parents=True)
        carried = sorted(state.keep | _foreign_files(state))
        # Every folder once, parents first, instead of a makedirs per file (metadata calls dominate writing).
        folders = {posixpath.dirname(p) for p in [*carried, *state.outputs]} - {""}
        for folder in sorted({a for f in folders for a in _ancestors(f)}):
            os.mkdir(tmp / folder)
        # File creation waits on the file system, not the CPU: a few threads overlap it (the GIL is released).
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda p: _place(tmp, p, state, None), carried))
            sizes = list(pool.map(lambda item: _place(tmp, item[0], state, item[1]), state.outputs.items()))
        state.report.files_written += len(sizes)
        state.report.bytes = sum(sizes)
        _swap(tmp, output)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise CompileError(f"could not write the bundle ({exc.strerror or exc}); the previous bundle is "
                           "unchanged", path=str(exc.filename or output)) from exc


def _swap(tmp: Path, output: Path) -> None:
    if not output.exists():
        output.parent.mkdir(parents=True, exist_ok=True)
        os.rename(tmp, output)
        return
    if _exchange(tmp, output):
        shutil.rmtree(tmp, ignore_errors=True)  # tmp now holds the previous bundle
        return
    old = output.with_name(f"{output.name}{OLD_MARK}{os.getpid()}")
    os.rename(output, old)
    try:
        os.rename(tmp, output)
    except OSError:
        os.rename(old, output)
        raise
    shutil.rmtree(old, ignore_errors=True)
