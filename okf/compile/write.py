"""Atomic write: build the new tree beside the output, then swap it in; a kill leaves the old bundle whole."""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import posixpath
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from okf.bundle.paths import plain_target
from okf.bundle.syntheses import filed_files
from okf.bundle.titles import TITLES
from okf.compile.manifest import manifest_files
from okf.compile.spare import mirror_tree
from okf.compile.state import CompileState
from okf.errors import CompileError

if TYPE_CHECKING:
    from okf.bundle.bundle import Bundle

TMP_MARK = ".okf-tmp-"
OLD_MARK = ".okf-old-"
TRASH_MARK = ".okf-trash-"
SPARE_MARK = ".okf-spare"  # the tree the last swap replaced, kept to become the next compile's side tree
STAT_CACHE = ".okf/stat-cache.json"
_RENAME_EXCHANGE = 2
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


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
    clean_stale_output(state.output)


def clean_stale_output(output: Path) -> None:
    """Remove the temp trees killed writers (compiles, saves) left beside ``output``; put back an output a
    kill left mid-swap. CompileError when another live process is writing it."""
    parent = output.parent
    if not parent.is_dir():
        return
    for entry in parent.iterdir():
        if entry.name == output.name + SPARE_MARK and not output.is_dir():
            discard(entry)  # the bundle it mirrored is gone
            continue
        if entry.name.startswith(output.name + TRASH_MARK):
            discard(entry)  # a replaced bundle whose deletion did not finish: delete it again
            continue
        for mark in (TMP_MARK, OLD_MARK):
            if not entry.name.startswith(output.name + mark):
                continue
            pid = entry.name.rsplit("-", 1)[-1]
            if pid.isdigit() and int(pid) != os.getpid() and _pid_alive(int(pid)):
                raise CompileError(
                    "another okf compile or save is writing this bundle",
                    path=str(entry),
                    fix=f"wait for process {pid} to finish",
                )
            if mark == OLD_MARK and not output.exists():
                os.rename(entry, output)  # killed between the two renames of the fallback swap
            else:
                shutil.rmtree(entry, ignore_errors=True)


def discard(tree: Path) -> None:
    """Delete a replaced tree without making the caller wait: ``rm -rf`` in a detached process.

    Deleting ~12,000 files takes seconds on some file systems (online discard, and on no-journal ext4 every
    later inode allocation scans past recently deleted ones); the bundle is already swapped by then.
    Where no POSIX shell exists the tree is deleted here."""
    if os.name != "posix" or not shutil.which("sh"):
        shutil.rmtree(tree, ignore_errors=True)
        return
    try:  # sh backgrounds rm and exits at once, so no child is left for this process to reap
        subprocess.run(
            ["sh", "-c", 'rm -rf -- "$1" </dev/null >/dev/null 2>&1 &', "okf-discard", str(tree)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            check=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        shutil.rmtree(tree, ignore_errors=True)


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


def open_side_tree(state: CompileState) -> Path:
    """The side tree ``<output>.okf-tmp-<pid>`` new files are written into, created empty on first use."""
    if state.side is None:
        tmp = state.output.with_name(f"{state.output.name}{TMP_MARK}{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        spare = state.output.with_name(state.output.name + SPARE_MARK)
        try:
            if state.output.is_dir() and spare.is_dir() and not spare.is_symlink():
                os.rename(spare, tmp)  # claimed atomically; reconciled with the new tree in write_bundle
                state.reused_side = True
        except OSError:
            pass
        try:
            if not state.reused_side:
                tmp.mkdir(parents=True)
        except OSError as exc:
            raise CompileError(
                f"could not create the side tree ({exc.strerror or exc}); the previous bundle is unchanged",
                path=str(tmp),
            ) from exc
        state.side = tmp
    return state.side


NO_SPACE = {errno.ENOSPC, errno.EDQUOT}


def write_error(exc: OSError, state: CompileState) -> CompileError:
    """A compile that failed on the file system, said in words: full disk, read-only or forbidden output."""
    where = str(exc.filename or state.output)
    unchanged = "the previous bundle is unchanged"
    if exc.errno in NO_SPACE:
        return CompileError(
            f"the disk is full ({exc.strerror}); {unchanged} and the partly written new tree was removed",
            path=where,
            fix="free some space, or write the bundle elsewhere with -o",
        )
    if exc.errno == errno.EROFS:
        return CompileError(
            f"the output is on a read-only file system; {unchanged}",
            path=where,
            fix="write the bundle to a writable folder with -o",
        )
    if exc.errno in (errno.EACCES, errno.EPERM):
        return CompileError(
            f"permission denied ({exc.strerror}); {unchanged}",
            path=where,
            fix="check the folder's permissions, or write the bundle elsewhere with -o",
        )
    return CompileError(f"could not write the bundle ({exc.strerror or exc}); {unchanged}", path=where)


def start_spare(state: CompileState) -> None:
    """A first compile with workers: mirror the side tree (every document's files, written by the workers) into
    the next spare tree in another process (okf.compile.spare), while this one renders the folder index files,
    the log and the manifest on the other CPU; :func:`_swap` links the files written after this and renames it
    the spare. Without a second process (one job, no POSIX, no interpreter to run) the spare is mirrored after
    the swap, as before (:func:`_mirror`)."""
    if state.side is None or state.reused_side or state.jobs < 2 or os.name != "posix" or not sys.executable:
        return
    if os.path.lexists(state.output):
        return  # not a first compile: the swap keeps the replaced tree as the spare
    target = state.output.with_name(f"{state.output.name}{TMP_MARK}spare-{os.getpid()}")
    shutil.rmtree(target, ignore_errors=True)
    script = Path(__file__).with_name("spare.py")
    try:
        job = subprocess.Popen(
            [sys.executable, "-I", "-S", str(script), str(state.side), str(target)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return
    state.spare_job = (job, target)


def _end_spare(state: CompileState) -> tuple[subprocess.Popen[bytes], Path] | None:
    """The spare job of ``state``, taken from it (None when there is none)."""
    job, state.spare_job = state.spare_job, None
    return job


def _cancel_spare(job: tuple[subprocess.Popen[bytes], Path] | None) -> None:
    """Stop a spare job and delete what it made."""
    if job is None:
        return
    process, target = job
    try:
        if process.poll() is None:
            process.kill()
        process.wait()
    except OSError:  # already reaped (a caller that ignores SIGCHLD): nothing left to wait for
        pass
    shutil.rmtree(target, ignore_errors=True)


def drop_side(state: CompileState, *, free: bool = False) -> None:
    """Give up the side tree: a claimed spare goes back as it is (reconciling makes any content right),
    a fresh one is deleted; ``free`` deletes either (a full disk needs the space back)."""
    _cancel_spare(_end_spare(state))
    if state.side is None:
        return
    try:
        if free or not state.reused_side:
            raise OSError("not a spare")
        os.rename(state.side, state.output.with_name(state.output.name + SPARE_MARK))
    except OSError:
        shutil.rmtree(state.side, ignore_errors=True)
    state.side = None


def write_file(root: str, path: str, content: bytes) -> None:
    """Create ``root/path`` (it must not exist) with ``content``: three system calls, no buffered file
    object (whose isatty and seek probes would double the calls per file)."""
    try:
        fd = os.open(root + path, _FLAGS, 0o666)
    except FileExistsError:
        # A reused side tree holds the previous version, possibly a hard link shared with the live bundle:
        # drop that link and create a new inode, never write into the old one.
        os.unlink(root + path)
        fd = os.open(root + path, _FLAGS, 0o666)
    try:
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def make_folders(root: str, paths: Iterable[str], made: set[str] | None = None) -> None:
    """Create the folders holding ``paths`` under ``root``, each once, parents first; existing ones are fine
    (worker processes share the folders above their documents). ``made``: folders (``root`` + path) this
    process already made or found in this step, skipped without a system call; the new ones are added."""
    folders = {posixpath.dirname(p) for p in paths} - {""}
    if made is not None:
        folders = {f for f in folders if root + f not in made}
        if not folders:
            return
    for folder in sorted({a for f in folders for a in _ancestors(f)}):
        if made is not None and root + folder in made:
            continue
        try:
            os.mkdir(root + folder)
        except FileExistsError:
            pass
        if made is not None:
            made.add(root + folder)


def write_outputs(root: str, outputs: dict[str, bytes], made: set[str] | None = None) -> dict[str, int]:
    """Write new files into the side tree at ``root`` (ends with a separator); their sizes by path. ``made``:
    see :func:`make_folders` (only while nothing removes folders from ``root``)."""
    make_folders(root, outputs.keys(), made)
    written = {}
    for path, content in outputs.items():
        write_file(root, path, content)
        written[path] = len(content)
    return written


def _carry(old: str, target: str) -> None:
    """Share the old file's inode (a hard link); copy it when links are not possible (another device)."""
    try:
        os.link(old, target)
    except OSError:
        shutil.copy2(old, target)


def _ancestors(folder: str) -> list[str]:
    """``a/b/c`` -> ``["a", "a/b", "a/b/c"]``."""
    parts = folder.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _scan(root: Path) -> tuple[dict[str, int], set[str]]:
    """Every file below ``root`` with its inode, and every folder (relative POSIX paths); one scandir pass."""
    files: dict[str, int] = {}
    dirs: set[str] = set()
    stack = [""]
    base = f"{root}{os.sep}"
    while stack:
        rel = stack.pop()
        with os.scandir(base + rel) as entries:
            for entry in entries:
                path = rel + entry.name
                if entry.is_dir():
                    if not entry.is_symlink():  # as os.walk: a linked folder is neither entered nor carried
                        dirs.add(path)
                        stack.append(path + "/")
                else:
                    files[path] = entry.inode()
    return files, dirs


def _foreign_files(state: CompileState, live: dict[str, int]) -> set[str]:
    """Files in the old output that okf did not write (kept, never lost, with a warning)."""
    if state.previous is None:
        return set()
    known = (
        manifest_files(state.previous) | state.changed_files() | state.keep | {".okf/manifest.json", STAT_CACHE, TITLES}
    )
    foreign = set(live) - known
    for rel in sorted(foreign - filed_files(state.output))[:5]:  # syntheses okf ask --save filed: no news
        state.warn(f"{rel}: not written by okf compile; kept as it is")
    return foreign


def _reconcile(root: str, live: dict[str, int], carried: list[str], fresh: set[str]) -> list[str]:
    """Turn the reused side tree (the previous version) into the new one: drop what the new tree does not
    hold or holds differently, remove folders it no longer has; return the carried files still to link.
    Only links are removed: no file shared with the live bundle is ever opened."""
    side, side_dirs = _scan(Path(root))
    wanted = set(carried) | fresh
    for path, inode in list(side.items()):
        if path in fresh:
            continue  # written by this compile (rendered by a worker, or written just below)
        if path not in wanted or live.get(path) != inode:
            os.unlink(root + path)
            del side[path]
    needed = {a for f in {p.rpartition("/")[0] for p in wanted} - {""} for a in _ancestors(f)}
    for folder in sorted(side_dirs - needed, reverse=True):  # children before their parents
        os.rmdir(root + folder)
    return [p for p in carried if p not in side]


def write_bundle(state: CompileState) -> None:
    """Finish the side tree (unchanged files linked, the last new files written) and swap it in; nothing
    is written when nothing changed. Rebuilt documents' files are already there (written by the workers)."""
    output = state.output
    if not state.report.changed:
        drop_side(state)  # a fresh one holds only empty folders: every rendered file was kept
        return
    tmp = open_side_tree(state)
    try:
        # New content wins over a carried file of the same path (a link there would share the old inode).
        live = _scan(output)[0] if output.is_dir() else {}
        foreign = _foreign_files(state, live)
        carried = sorted((state.keep | foreign) - state.changed_files())
        root, old_root = f"{tmp}{os.sep}", f"{output}{os.sep}"
        if state.reused_side:
            carried = _reconcile(root, live, carried, state.written.keys() | state.outputs.keys())
        make_folders(root, carried)
        for path in carried:
            _carry(old_root + path, root + path)
        state.written.update(write_outputs(root, state.outputs))
        state.report.files_written += len(state.written)
        state.report.bytes = sum(state.written.values())
        # The title index of the tree about to be swapped in, as its own listings give it: okf's record (not
        # bundle content) of what every orchestrated walk looks names up in (okf.bundle.titles).
        write_file(root, TITLES, _title_file(tmp, None if foreign else state))
        _swap(tmp, output, _end_spare(state), [*carried, *state.outputs, TITLES])
    except OSError as exc:
        drop_side(state, free=exc.errno in NO_SPACE)
        raise write_error(exc, state) from exc
    finally:
        state.side = None


def _title_file(tree: Path, state: CompileState | None = None) -> bytes:
    """``.okf/titles.json`` of the side tree ``tree``: from the listings this compile rendered (``state``,
    when it holds every listing of the tree, see :func:`compiled_listings`), else read from the tree as a
    bundle. A model compile writes it too (a reader would otherwise build it at its first question)."""
    from okf.bundle.bundle import Bundle
    from okf.bundle.titles import encode, encode_index, index_of

    bundle = Bundle(tree)
    listings = None if state is None else compiled_listings(state, bundle)
    if listings is None:
        return encode(bundle)
    return encode_index(index_of(listings), bundle.corpus_id())


def compiled_listings(state: CompileState, bundle: Bundle) -> list[list[tuple[str, str]]] | None:
    """The concept entries (path, title) of every listing of the side tree ``bundle``, directories in the order
    a reader walks them: those this compile rendered, and for documents it did not rebuild their index files
    as kept (read). None when the tree may list anything else: then the caller reads every listing.

    Exact only for a tree that holds nothing okf did not write (the caller passes no ``state`` otherwise)
    whose every concept is listed once, in its own directory: checked here against the manifest's concepts.
    """
    if any(a["path"].endswith(".md") for a in state.assets.values()):
        return None  # a linked .md file copied into the bundle is listed as an unlisted concept
    listings = dict(state.listings)
    for entry in state.doc_entries.values():
        for index in entry["indexes"]:
            directory = index.removesuffix("index.md")
            if directory not in listings:  # a document this compile did not rebuild: its listing as kept
                listings[directory] = bundle.concept_titles(directory)
    concepts = {p for entry in state.doc_entries.values() for p in entry["concepts"]}
    listed = 0
    for directory, titles in listings.items():
        for path, _title in titles:
            listed += 1
            if (
                path not in concepts
                or path.rpartition("/")[0] + "/" != (directory or "/")
                or not plain_target(path)
                or not path.isprintable()
            ):
                return None
    if listed != len(concepts):
        return None
    return [listings[d] for d in sorted(listings)]


def _swap(
    tmp: Path,
    output: Path,
    spare_job: tuple[subprocess.Popen[bytes], Path] | None = None,
    late: list[str] | None = None,
) -> None:
    """Put the side tree in place of the output in one atomic step; the replaced tree is deleted after.
    ``spare_job`` (a first compile's, :func:`start_spare`) mirrors the side tree as it was before ``late``
    (the files written into it after the job started) were written."""
    trash = output.with_name(f"{output.name}{TRASH_MARK}{os.getpid()}-{time.monotonic_ns()}")
    if not output.exists():
        output.parent.mkdir(parents=True, exist_ok=True)
        mirrored = _join_spare(spare_job, tmp, late or [])
        try:
            os.rename(tmp, output)
        except OSError:
            if mirrored is not None:
                shutil.rmtree(mirrored, ignore_errors=True)
            raise
        if mirrored is None:
            _mirror(output, tmp)
            return
        try:
            os.rename(mirrored, output.with_name(output.name + SPARE_MARK))
        except OSError:
            shutil.rmtree(mirrored, ignore_errors=True)
        return
    _cancel_spare(spare_job)  # not expected: the output appeared while this compile ran
    if _exchange(tmp, output):
        _keep_spare(tmp, output, trash)  # tmp now holds the previous bundle
        return
    old = output.with_name(f"{output.name}{OLD_MARK}{os.getpid()}")
    os.rename(output, old)
    try:
        os.rename(tmp, output)
    except OSError:
        os.rename(old, output)
        raise
    _keep_spare(old, output, trash)


def _join_spare(job: tuple[subprocess.Popen[bytes], Path] | None, tmp: Path, late: list[str]) -> Path | None:
    """Wait for the spare job, then link into what it made the ``late`` files of the side tree ``tmp`` (it may
    have linked some of them already: a link that exists is the same file). The mirrored tree, or None (no job,
    or it failed: then nothing of it is left)."""
    if job is None:
        return None
    process, target = job
    try:
        if process.wait() != 0:
            raise OSError("the spare tree was not mirrored")
        root, mirror = f"{tmp}{os.sep}", f"{target}{os.sep}"
        make_folders(mirror, late)
        for path in late:
            try:
                os.link(root + path, mirror + path)
            except FileExistsError:
                pass
    except OSError:
        shutil.rmtree(target, ignore_errors=True)
        return None
    return target


def _mirror(output: Path, tmp: Path) -> None:
    """After a first compile, make the spare tree the next one reconciles: the same folders, every file a
    hard link. Built under the side tree's name, so a kill leaves only a stale side tree to clean; any
    failure just means the next compile builds its side tree from scratch."""
    try:
        mirror_tree(str(output), str(tmp))
        os.rename(tmp, output.with_name(output.name + SPARE_MARK))
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


def _keep_spare(tree: Path, output: Path, trash: Path) -> None:
    """Keep the replaced bundle as ``<output>.okf-spare``: the next compile turns it into its side tree by
    changing only what differs, instead of creating every folder and link again."""
    spare = output.with_name(output.name + SPARE_MARK)
    if spare.exists():  # left by an interrupted compile: it would be reconciled anyway, but one is enough
        _retire(spare, trash)
        trash = trash.with_name(trash.name + "-2")
    try:
        os.rename(tree, spare)
    except OSError:
        _retire(tree, trash)


def _retire(tree: Path, trash: Path) -> None:
    """Delete the replaced bundle (already out of place): renamed so no later compile mistakes it for its own."""
    try:
        os.rename(tree, trash)
    except OSError:
        shutil.rmtree(tree, ignore_errors=True)
        return
    discard(trash)


def _entries(root: Path) -> tuple[list[str], list[str], bool]:
    """Every real folder below ``root`` (parents first), every other entry (files and symlinks of any kind,
    linked as they are), hidden ones included, and whether a symlink leads to a folder."""
    dirs: list[str] = []
    files: list[str] = []
    linked_dir = False
    stack = [""]
    while stack:
        rel = stack.pop()
        with os.scandir(f"{root}{os.sep}{rel}") as entries:
            for entry in entries:
                path = rel + entry.name
                if entry.is_dir(follow_symlinks=False):
                    dirs.append(path)
                    stack.append(path + "/")
                else:
                    files.append(path)
                    linked_dir = linked_dir or (entry.is_symlink() and entry.is_dir())
    return sorted(dirs), files, linked_dir


def replace_files(output: Path, changes: dict[str, bytes]) -> None:
    """Write ``changes`` (bundle path -> new content) into the existing bundle ``output`` atomically.

    A side tree gets every folder, every other entry as a hard link (symlinks linked as they are) and the
    changed files as new inodes; then it is swapped in, and the replaced tree kept as the spare. The spare a
    compile or an earlier save left is reconciled into the side tree (only what differs is changed) unless the
    bundle holds symlinked folders. A kill or an error at any moment leaves the bundle as it was; the next
    compile or save deletes what was left beside it."""
    clean_stale_output(output)
    tmp = output.with_name(f"{output.name}{TMP_MARK}{os.getpid()}")
    spare = output.with_name(output.name + SPARE_MARK)
    try:
        dirs, files, linked_dir = _entries(output)
        root, old_root = f"{tmp}{os.sep}", f"{output}{os.sep}"
        carried = [path for path in files if path not in changes]
        reused = False
        if spare.is_dir() and not spare.is_symlink() and not linked_dir:
            try:
                os.rename(spare, tmp)
                reused = True
            except OSError:
                reused = False
        if reused:
            carried = _reconcile(root, _scan(output)[0], carried, set())
        else:
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
        for folder in dirs:
            try:
                os.mkdir(root + folder)
            except FileExistsError:
                pass
        for path in carried:
            _carry(old_root + path, root + path)
        write_outputs(root, changes)
        _swap(tmp, output)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise CompileError(
            f"could not write the bundle ({exc.strerror or exc}); it is unchanged", path=str(exc.filename or output)
        ) from exc
