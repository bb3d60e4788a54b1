"""Inputs: check the source and output paths, find the documents, hash them."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from okf.compile.state import KINDS, CompileState, SourceFile
from okf.errors import CompileError


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


def check_paths(state: CompileState) -> None:
    """Refuse missing sources, an output that is a file, and an output inside (or holding) the sources."""
    if not state.inputs:
        raise CompileError("no sources given", fix="name at least one source file or folder")
    resolved = []
    for source in state.inputs:
        if not source.exists():
            raise CompileError("source does not exist", path=str(source),
                               fix="check the path; sources are files or folders of .md, .txt, .html or .pdf")
        resolved.append(source.resolve())
    output = state.output.resolve() if state.output.exists() else state.output.absolute()
    if output.exists() and not output.is_dir():
        raise CompileError("output exists and is not a folder", path=str(state.output),
                           fix="choose a folder path for -o")
    for source in resolved:
        base = source if source.is_dir() else source.parent
        if _inside(output, base) and (source.is_dir() or output == source):
            raise CompileError("output is inside the sources", path=str(state.output),
                               fix=f"write the bundle outside {source}")
        if _inside(source, output):
            raise CompileError("a source is inside the output folder", path=str(source),
                               fix="the output folder is replaced on compile: move the sources out of it")
    if output.is_dir() and any(output.iterdir()) and not (output / ".okf" / "manifest.json").is_file():
        raise CompileError("output folder exists, is not empty and was not written by okf compile",
                           path=str(state.output), fix="choose a new or empty folder (nothing was changed)")
    state.output = output
    dirs = [s if s.is_dir() else s.parent for s in resolved]
    state.root = Path(os.path.commonpath(dirs)) if len(resolved) > 1 else dirs[0]
    state.inputs = resolved


def _walk(folder: Path, state: CompileState, found: dict[Path, None]) -> None:
    def error(exc: OSError) -> None:
        state.skip(str(exc.filename), f"folder not readable ({exc.strerror})")

    for dirpath, dirnames, filenames in os.walk(folder, onerror=error):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.startswith("."):
                found[Path(dirpath) / name] = None


def discover(state: CompileState) -> None:
    """Every source file under the inputs, sorted; other files skipped with a notice."""
    found: dict[Path, None] = {}
    for source in state.inputs:
        if source.is_dir():
            _walk(source, state, found)
        else:
            found[source] = None
    files = []
    for path in found:
        resource = path.relative_to(state.root).as_posix()
        kind = KINDS.get(path.suffix.lower())
        if kind is None:
            state.skip(resource, "not a source format okf compiles (.md, .markdown, .txt, .html, .htm, .pdf)")
            continue
        files.append(SourceFile(path, resource, kind))
    files.sort(key=lambda f: f.resource)
    state.files = files
    state.report.sources = len(files)


def hash_sources(state: CompileState) -> None:
    """sha256 of each source file's bytes; unreadable files are skipped with a notice."""
    readable = []
    for source in state.files:
        digest = hashlib.sha256()
        try:
            with source.path.open("rb") as handle:
                while chunk := handle.read(1 << 20):
                    digest.update(chunk)
        except OSError as exc:
            state.skip(source.resource, f"not readable ({exc.strerror or exc})")
            continue
        source.sha256 = digest.hexdigest()
        readable.append(source)
    state.files = readable
    state.report.sources = len(readable)
