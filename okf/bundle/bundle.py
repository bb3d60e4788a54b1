"""``Bundle``: open an OKF v0.2 bundle, with lazy typed access and path safety.

Nothing is read until asked: opening a bundle looks for one markdown file, a listing reads one directory
(its ``index.md`` and the frontmatter of the concepts it must synthesize signposts for), and parsed concepts
are cached. Every path from a caller, an index or a link goes through :meth:`Bundle.resolve`. Hidden files
and directories (``.okf/``, ``.git/``) are skipped; symlinked directories are not followed (no cycles), and
a symlinked file counts only when its real path stays inside the root.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from okf.bundle import identity
from okf.bundle.codes import diagnostic
from okf.bundle.documents import parse_concept, read_text
from okf.bundle.identity import Hasher
from okf.bundle.listing import IndexFile, ResolvedEntry, read_index
from okf.bundle.model import (
    Concept,
    Diagnostic,
    Link,
    Listing,
    Signpost,
)
from okf.bundle.paths import (
    RESERVED,
    derived_title,
    ensure_inside,
    is_external,
    normalize,
    plain_target,
    split_target,
    utf8_name,
)
from okf.bundle.syntheses import REGISTRY as SYNTHESES_REGISTRY
from okf.errors import (
    BundleError,
    BundleNotFoundError,
    ConceptNotFoundError,
    NotABundleError,
    PathEscapeError,
)
from okf.markdown import find_images, find_links, headings

if TYPE_CHECKING:
    from okf.text.vocabulary import Vocabulary

__all__ = ["Bundle"]

MANIFEST = ".okf/manifest.json"
_CACHE_SIZE = 4096


@dataclass(frozen=True)
class DirScan:
    """One directory's visible entries, sorted; the sets make membership tests O(1) in wide directories."""

    files: tuple[str, ...]
    dirs: tuple[str, ...]
    symlinks: frozenset[str] = frozenset()
    unaddressable: tuple[str, ...] = ()  # names with a backslash or a control character: left out
    unlisted: frozenset[str] = frozenset()  # other names found but not listed (hidden, symlinks out, devices)

    def absent(self, name: str) -> bool:
        """True when the directory held no entry of this name when it was read."""
        return (
            name not in self.file_set
            and name not in self.dir_set
            and name not in self.unlisted
            and name not in self.unaddressable
        )

    @cached_property
    def concepts(self) -> tuple[str, ...]:
        return tuple(f for f in self.files if f.endswith(".md") and f not in RESERVED)

    @cached_property
    def file_set(self) -> frozenset[str]:
        return frozenset(self.files)

    @cached_property
    def dir_set(self) -> frozenset[str]:
        return frozenset(self.dirs)

    def child(
        self, directory: str, name: str, slash: bool = False
    ) -> tuple[Literal["concept", "directory"], str] | None:
        """What ``name`` (one name, ``slash``: written with a trailing "/") is in this scan of ``directory`` (""
        or "a/b/"): ("directory", its path + "/") for a folder, ("concept", its path) for a concept file (a
        non-reserved ``.md`` file, named without a slash); None for anything else and for a symlink (then ask
        the long way). What :meth:`Bundle.plain_entry` concludes once it has found the directory."""
        if name in self.symlinks:
            return None
        if name in self.dir_set:
            return "directory", f"{directory}{name}/"
        if not slash and name in self.file_set and name.endswith(".md") and name not in RESERVED:
            return "concept", directory + name
        return None


# Links and signposts are built here from values already typed, and a listing makes thousands of them.
# Validating them is the cheaper way: pydantic 2's ``model_construct`` runs in Python and costs 2 to 3
# times what the validator (in Rust) does for these small models.
_link = Link
_signpost = Signpost
_SYNTHESIZED = object()  # the section of a synthesized signpost's fields (Bundle._signpost_fields)


_UNADDRESSABLE = re.compile(r"[\\\x00-\x1f\x7f]")


def _printable(name: str) -> str:
    """A file name fit for one line of output: control characters and backslashes escaped (``\\n``, ``\\\\``)."""
    return _UNADDRESSABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), name)


@dataclass
class ListingPlan:
    """A directory's listing before its signposts are built: index entries kept (concepts and directories, the
    first entry of each), the concepts and directories synthesized, and the listing's diagnostics."""

    directory: str
    index: IndexFile | None
    diagnostics: list[Diagnostic]
    entries: list[ResolvedEntry] = field(default_factory=list)
    concepts: list[str] = field(default_factory=list)
    directories: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        """How many signposts the listing holds."""
        return len(self.entries) + len(self.concepts) + len(self.directories)


class Bundle:
    """An OKF bundle on disk. Use :meth:`Bundle.open`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._root_real = os.path.realpath(root)
        self._root_slash = self._root_real.rstrip("/") + "/"  # what os.path.join puts before a relative path
        self._dirs: dict[str, DirScan | None] = {}
        self._listings: dict[str, Listing] = {}
        self._indexes: dict[str, IndexFile | None] = {}
        self._concepts: OrderedDict[str, Concept] = OrderedDict()
        self._concept_dirs: dict[str, bool] = {}
        self._is_dir: dict[str, bool] = {}
        self._plain: dict[str, tuple[Literal["concept", "directory"], str] | None] = {}
        self._sure_targets: dict[str, bool] = {}  # a "/" link target -> plain_entry finds what it names
        self._corpus_id: str | None = None
        self._unreadable: dict[str, str] = {}  # directory -> why it could not be listed
        self._vocabulary: Vocabulary | bool | None = False  # False: not read yet

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Bundle:
        """Open the bundle at ``path`` (BundleNotFoundError, or NotABundleError for a file or no markdown)."""
        given = str(path)
        root = Path(path).expanduser()
        if not root.exists():
            raise BundleNotFoundError("no such bundle directory", path=given, fix="pass the path of a bundle directory")
        if not root.is_dir():
            hint = "pass the directory that holds it" if given.endswith(".md") else "pass a directory"
            raise NotABundleError("this is a file, not a bundle directory", path=given, fix=hint)
        bundle = cls(Path(os.path.realpath(root)))
        if bundle._scan("") is None:
            raise NotABundleError(
                f"cannot read the bundle directory: {bundle._unreadable.get('', 'unreadable')}",
                path=given,
                fix="check the directory's permissions",
            )
        if not bundle._has_markdown(""):
            raise NotABundleError(
                "no markdown files here, so this is not an OKF bundle",
                path=given,
                fix="compile one with 'okf compile SOURCES -o BUNDLE'",
            )
        return bundle

    def __repr__(self) -> str:
        return f"Bundle({str(self.root)!r})"

    # -- the filesystem, as the bundle sees it ---------------------------------------------------------

    def _scan(self, directory: str) -> DirScan | None:
        if directory in self._dirs:
            return self._dirs[directory]
        real = os.path.join(self._root_real, directory) if directory else self._root_real
        try:
            with os.scandir(real) as entries:
                return self._classify(directory, entries)
        except OSError as exc:
            self._unreadable[directory] = exc.strerror or type(exc).__name__
            self._dirs[directory] = None
            return None

    def directory_scan(self, directory: str) -> DirScan | None:
        """This bundle's scan of ``directory`` (``""`` or ``"a/b/"``, a directory :meth:`is_dir` finds): its
        visible files, folders and symlinks, listed once and kept; None when it cannot be listed."""
        return self._scan(directory)

    def scanned(self, directory: str, entries: Iterable[os.DirEntry[str]]) -> None:
        """Take ``entries``, a whole ``os.scandir`` of ``directory`` (``""`` or ``"a/b/"``) made by a caller that
        listed it anyway, as this bundle's scan of it (unless it has one): the directory is then not listed
        again. The caller's listing must be of the directory's real path (``root / directory``)."""
        if directory not in self._dirs:
            self._classify(directory, entries)

    def _classify(self, directory: str, entries: Iterable[os.DirEntry[str]]) -> DirScan:
        """The scan of ``directory`` from its entries, kept (OSError while listing is the caller's)."""
        files: list[str] = []
        dirs: list[str] = []
        links: list[str] = []
        odd: list[str] = []
        unlisted: list[str] = []
        for entry in entries:
            name = entry.name
            if name[:1] == ".":
                unlisted.append(name)
                continue
            # A printable name holds no control character: the search is for the others (and "\\").
            if "\\" in name or (not name.isprintable() and _UNADDRESSABLE.search(name)):
                odd.append(name)  # no bundle path can name it: reported, never listed
                continue
            try:
                # Most entries are files: asked first (a symlink is neither a file nor a directory here).
                if entry.is_file(follow_symlinks=False):
                    files.append(name)
                elif entry.is_dir(follow_symlinks=False):
                    dirs.append(name)
                elif entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    inside = target.startswith(self._root_real.rstrip(os.sep) + os.sep)
                    if inside and os.path.isfile(target):
                        files.append(name)
                        links.append(name)
                    else:
                        unlisted.append(name)
                else:
                    unlisted.append(name)
            except OSError:
                unlisted.append(name)
                continue
        found = DirScan(
            tuple(sorted(files)), tuple(sorted(dirs)), frozenset(links), tuple(sorted(odd)), frozenset(unlisted)
        )
        self._dirs[directory] = found
        return found

    # Depth-first with an explicit stack, never recursion: a bundle may be nested deeper than Python's stack.

    def _has_markdown(self, directory: str) -> bool:
        stack = [directory]
        while stack:
            here = stack.pop()
            scan = self._scan(here)
            if scan is None:
                continue
            if any(f.endswith(".md") for f in scan.files):
                return True
            stack.extend(f"{here}{d}/" for d in reversed(scan.dirs))
        return False

    def _has_concepts(self, directory: str) -> bool:
        known = self._concept_dirs.get(directory)
        if known is not None:
            return known
        stack, empty = [directory], []
        while stack:
            here = stack.pop()
            if self._concept_dirs.get(here) is False:
                continue
            scan = self._scan(here)
            if self._concept_dirs.get(here) or (scan is not None and scan.concepts):
                self._concept_dirs[directory] = True
                return True
            empty.append(here)
            stack.extend(f"{here}{d}/" for d in reversed(scan.dirs if scan else ()))
        for here in empty:  # the whole subtree was searched: none of it holds a concept
            self._concept_dirs[here] = False
        return False

    def is_dir(self, rel: str) -> bool:
        """True when ``rel`` (no trailing slash needed) is a non-hidden directory of the bundle."""
        rel = rel.strip("/")
        if not rel:
            return True
        known = self._is_dir.get(rel)
        if known is not None:
            return known
        parent = ""
        for name in rel.split("/"):  # from the root down, each level once
            path = f"{parent}/{name}" if parent else name
            known = self._is_dir.get(path)
            if known is None:
                scan = self._scan(parent + "/" if parent else "")
                known = self._is_dir[path] = scan is not None and name in scan.dir_set
            if not known:
                self._is_dir[rel] = False
                return False
            parent = path
        return True

    def unreadable(self) -> dict[str, str]:
        """Directories found so far that could not be listed, with why (e.g. ``Permission denied``)."""
        return dict(self._unreadable)

    def is_concept_path(self, rel: str) -> bool:
        """True when ``rel`` names a concept file (a non-reserved, non-hidden ``.md`` file)."""
        parent, _, name = rel.rpartition("/")
        if not name.endswith(".md") or name in RESERVED or not self.is_dir(parent):
            return False
        scan = self._scan(parent + "/" if parent else "")
        return scan is not None and name in scan.file_set

    def exists(self, rel: str) -> bool:
        """True when ``rel`` exists inside the bundle (hidden files included). A name its directory did not
        hold when the bundle read that directory is absent without a system call (as listings see it)."""
        parent, _, name = rel.rpartition("/")
        if name and name not in (".", "..") and "//" not in rel and not rel.startswith("/") and self.is_dir(parent):
            scan = self._scan(parent + "/" if parent else "")
            if scan is not None and scan.absent(name):
                return False
        try:
            return os.path.exists(self.real_path(rel))
        except PathEscapeError:
            return False

    def plain_entry(self, rel: str) -> tuple[Literal["concept", "directory"], str] | None:
        """For a normalized ``rel`` (``a/b.md`` or ``a/b/``): ("concept", path) or ("directory", path + "/")
        when the scans show it is one (its directories real, itself no symlink), else None (ask the long way).
        What :meth:`resolve` then :meth:`is_dir` and :meth:`is_concept_path` would conclude, without path work."""
        known = self._plain.get(rel, False)
        if known is not False:  # the scans it reads are themselves kept: so may its answer be
            return known  # type: ignore[return-value]
        if len(self._plain) >= _CACHE_SIZE * 16:
            self._plain.clear()
        self._plain[rel] = known = self._plain_entry(rel)
        return known

    def _plain_entry(self, rel: str) -> tuple[Literal["concept", "directory"], str] | None:
        slash = rel.endswith("/")
        bare = rel[:-1] if slash else rel
        parent, _, name = bare.rpartition("/")
        if not name or name == "index.md" or not self.is_dir(parent):
            return None
        folder = parent + "/" if parent else ""
        scan = self._scan(folder)
        return None if scan is None else scan.child(folder, name, slash)

    def real_path(self, rel: str) -> str:
        """The filesystem path of bundle-relative ``rel``; PathEscapeError when it leads outside."""
        # Fast path, no system call: a normalized path whose directories are all scanned real (non-symlink)
        # directories and whose last part is a scanned entry that is not a symlink is its own real path.
        parent, _, name = rel.rpartition("/")
        if name and name not in (".", "..") and "//" not in rel and not rel.startswith("/") and self.is_dir(parent):
            scan = self._scan(parent + "/" if parent else "")
            if scan is not None and name not in scan.symlinks and (name in scan.file_set or name in scan.dir_set):
                return self._root_slash + rel  # os.path.join's answer for a relative path
        return ensure_inside(self._root_real, rel)

    def plain_prefix(self, directory: str) -> tuple[str, frozenset[str]] | None:
        """For a directory as :meth:`iter_directories` names it (``""`` or ``"a/b/"``): the filesystem path that
        prefixes its entries and the names of its symlinks. ``prefix + name`` is what :meth:`real_path` gives for
        ``directory + name``, for any file or folder the directory lists but a symlink, with no work per name;
        None when the directory is not one the scans show is real (then ask :meth:`real_path`)."""
        if directory and (
            directory[-1] != "/" or directory[0] == "/" or "//" in directory or not self.is_dir(directory[:-1])
        ):
            return None
        scan = self._scan(directory)
        return None if scan is None else (self._root_slash + directory, scan.symlinks)

    def resolve(self, ref: str, base: str = "") -> str:
        """``ref`` (relative to directory ``base``; a leading "/" is the bundle root) as a safe bundle path.

        A trailing "/" is kept. Raises PathEscapeError for ``..`` escapes, absolute filesystem paths, NUL
        bytes and symlinks whose real path leaves the root. The path need not exist.
        """
        rel = normalize(ref, base)
        self.real_path(rel.rstrip("/"))
        return rel

    # -- concepts ---------------------------------------------------------------------------------------

    def iter_directories(self) -> Iterator[str]:
        """Every non-hidden directory, sorted: the root ``""`` first, then ``"a/"``, ``"a/b/"``..."""
        yield ""
        yield from sorted(self._walk_dirs(""))

    def _walk_dirs(self, directory: str) -> Iterator[str]:
        stack = [directory]
        while stack:
            scan = self._scan(here := stack.pop())
            for name in scan.dirs if scan else ():
                yield f"{here}{name}/"
                stack.append(f"{here}{name}/")

    def iter_concepts(self, directories: Iterable[str] | None = None) -> Iterator[str]:
        """Every concept path (``a/b.md``), sorted; with ``directories`` (as :meth:`iter_directories` gives
        them: a caller that has them need not walk the bundle again), the concepts in those directories."""
        paths: list[str] = []
        for directory in self.iter_directories() if directories is None else directories:
            scan = self._scan(directory)
            if scan is not None:
                paths += map(directory.__add__, scan.concepts)
        yield from sorted(paths)

    def concept(self, ref: str) -> Concept:
        """The concept ``ref`` names (id ``a/b``, ``a/b.md`` or ``/a/b.md``), parsed and cached.

        Raises ConceptNotFoundError, PathEscapeError, or BundleError (with path and line) when its
        frontmatter cannot be read.
        """
        path = self._concept_path(ref)
        return self.load(path)

    def _concept_path(self, ref: str) -> str:
        rel = self.resolve(ref).rstrip("/")
        path = rel if rel.endswith(".md") else rel + ".md"
        if not self.is_concept_path(path):
            if rel.endswith(".md") and self.is_concept_path(rel + ".md"):
                return rel + ".md"
            raise ConceptNotFoundError(
                f"no concept {ref!r} in bundle {self.root}",
                path=ref,
                fix="use a path from the bundle's listings, e.g. 'dir/name.md'",
            )
        return path

    def load(self, path: str, *, cache: bool = True) -> Concept:
        """Parse the concept at bundle path ``path`` (already resolved); ``cache=False`` skips the cache."""
        cached = self._concepts.get(path)
        if cached is not None:
            self._concepts.move_to_end(path)
            return cached
        text, diags = read_text(self.real_path(path), path)
        concept = parse_concept(path, text, diags)
        if cache:
            self._concepts[path] = concept
            if len(self._concepts) > _CACHE_SIZE:
                self._concepts.popitem(last=False)
        return concept

    def links(self, concept: Concept | str, *, unsure_only: bool = False) -> list[Link]:
        """The markdown links in a concept's body, resolved against the bundle. ``unsure_only``: leave out the
        plain links the scans show lead to a concept or directory (what ``okf check`` has nothing to say of)."""
        if isinstance(concept, str):
            concept = self.concept(concept)
        body = concept.body
        if "[" not in body and "<" not in body:  # no link syntax at all: skip the parser
            return []
        base = concept.path.rpartition("/")[0]
        out: list[Link] = []
        sure = self._sure_targets
        for md in find_links(body, concept.body_start_line - 1):
            target = md.target
            if unsure_only:
                if target[:1] == "/":  # the same from every concept: its answer is kept, as plain_entry's are
                    known = sure.get(target)
                    if known is None:
                        if len(sure) >= _CACHE_SIZE * 16:
                            sure.clear()
                        known = sure[target] = plain_target(target) and self.plain_entry(target[1:]) is not None
                    if known:
                        continue
                elif plain_target(target) and self.plain_entry(f"{base}/{target}" if base else target) is not None:
                    continue
            out.append(self._resolve_link(md.text, target, md.line, base, concept.path))
        return out

    def images(self, concept: Concept | str) -> list[Link]:
        """The markdown images (``![alt](src)``) in a concept's body, resolved against the bundle."""
        if isinstance(concept, str):
            concept = self.concept(concept)
        if "!" not in concept.body or "![" not in concept.body:  # one character first: memchr is fastest
            return []
        base = concept.path.rpartition("/")[0]
        return [
            self._resolve_link(md.text, md.target, md.line, base, concept.path)
            for md in find_images(concept.body, concept.body_start_line - 1)
        ]

    def _resolve_link(self, text: str, target: str, line: int, base: str, own: str) -> Link:
        if plain_target(target):  # the usual link: found in the scans, no path work
            known = self.plain_entry(target[1:] if target.startswith("/") else f"{base}/{target}" if base else target)
            if known is not None:
                return _link(text=text, target=target, line=line, path=known[1], exists=True)
        if is_external(target):
            return _link(text=text, target=target, line=line, external=True)
        ref = split_target(target)
        if not ref:
            return _link(text=text, target=target, line=line, path=own, exists=True)
        try:
            rel = self.resolve(ref, base)
        except PathEscapeError:
            return _link(text=text, target=target, line=line)
        bare = rel.rstrip("/")
        if bare.endswith("/index.md") or bare == "index.md":
            bare = bare[: -len("index.md")].rstrip("/")
            rel = bare + "/" if bare else ""
        if self.is_dir(bare):
            return _link(text=text, target=target, line=line, path=bare + "/" if bare else "", exists=True)
        if not rel.endswith("/"):
            if self.is_concept_path(bare):
                return _link(text=text, target=target, line=line, path=bare, exists=True)
            if not bare.endswith(".md") and self.is_concept_path(bare + ".md"):
                return _link(text=text, target=target, line=line, path=bare + ".md", exists=True)
        return _link(text=text, target=target, line=line, path=rel, exists=self.exists(bare))

    # -- listings -----------------------------------------------------------------------------------------

    def _directory(self, directory: str) -> str:
        if not directory:
            return ""
        if (
            directory[-1] == "/"
            and directory[0] != "/"
            and plain_target(directory)
            and self.plain_entry(directory) == ("directory", directory)
        ):
            return directory  # "a/b/" as the scans show it (a real directory): what the steps below conclude
        return self._checked_directory(directory)

    def _checked_directory(self, directory: str) -> str:
        """:meth:`_directory` the long way: normalized, inside the bundle, a directory of it."""
        rel = normalize(directory).strip("/")
        self.real_path(rel)
        if not self.is_dir(rel):
            raise BundleError(
                f"no directory {directory!r} in bundle {self.root}",
                path=directory,
                fix="use a directory path from a listing, e.g. 'contracts/'",
            )
        return rel + "/" if rel else ""

    def index(self, directory: str = "") -> IndexFile | None:
        """The parsed ``index.md`` of ``directory`` with resolved entries, or None when it has none."""
        d = self._directory(directory)
        if d not in self._indexes:
            self._indexes[d] = read_index(self, d)
        return self._indexes[d]

    @property
    def okf_version(self) -> str | None:
        """The ``okf_version`` declared in the root ``index.md`` frontmatter, if any."""
        index = self.index("")
        return index.okf_version if index else None

    def _summary(self, path: str) -> tuple[str, str]:
        try:
            concept = self.load(path)
        except BundleError:
            return derived_title(path), ""
        return concept.title, (concept.meta.description or "").strip()

    def _dir_title(self, path: str) -> str:
        index_rel = path + "index.md"
        if self.is_concept_path(index_rel) or not self.exists(index_rel):
            return derived_title(path)
        try:
            text, _ = read_text(self.real_path(index_rel), index_rel)
        except BundleError:
            return derived_title(path)
        for heading in headings(text[:20_000]):
            if heading.text:
                return heading.text
        return derived_title(path)

    def listing(self, directory: str = "") -> Listing:
        """A directory's signposts (index entries first, then synthesized ones) and its index problems."""
        d = self._directory(directory)
        if d in self._listings:
            return self._listings[d]
        plan = self.listing_plan(d)
        listing = Listing(directory=d, has_index=plan.index is not None, diagnostics=plan.diagnostics)
        for path, title, description, is_dir, section, line in self._signpost_fields(plan):
            if section is not _SYNTHESIZED:
                signpost = _signpost(
                    path=path,
                    title=title,
                    description=description,
                    is_dir=is_dir,
                    section=section,
                    line=line,
                    origin="index",
                )
            elif is_dir:  # as ever: a synthesized directory's signpost is given no description
                signpost = _signpost(path=path, title=title, is_dir=True, origin="synthesized")
            else:
                signpost = _signpost(
                    path=path, title=title, description=description, is_dir=False, origin="synthesized"
                )
            listing.signposts.append(signpost)
        self._listings[d] = listing
        return listing

    def signpost_fields(
        self, directory: str = "", *, index_read: tuple[str, list[Diagnostic]] | None = None
    ) -> list[tuple[str, str, str, bool]]:
        """(path, title, description, is_dir) of each signpost of :meth:`listing`, in its order, without building
        the listing's models (an export lists every directory once and reads only these). ``index_read``: what
        :func:`~okf.bundle.documents.read_text` gave for the directory's ``index.md`` (the export reads its
        intro from the same text: it is then not read twice)."""
        d = self._directory(directory)
        if index_read is not None and d not in self._indexes:
            self._indexes[d] = read_index(self, d, index_read)
        if d in self._listings:
            return [(s.path, s.title, s.description, s.is_dir) for s in self._listings[d].signposts]
        return [row[:4] for row in self._signpost_fields(self.listing_plan(d))]

    def _signpost_fields(self, plan: ListingPlan) -> Iterator[tuple[str, str, str, bool, Any, int | None]]:
        """The fields of :meth:`listing`'s signposts from its plan: (path, title, description, is_dir, section,
        line), ``section`` being ``_SYNTHESIZED`` for a signpost the directory synthesized."""
        for resolved in plan.entries:
            entry = resolved.entry
            path = cast(str, resolved.path)
            description = entry.description
            if not description and resolved.kind == "concept":
                description = self._summary(path)[1]
            is_dir = resolved.kind == "directory"
            yield path, entry.title or derived_title(path), description, is_dir, entry.section, entry.line
        for path in plan.concepts:
            title, description = self._summary(path)
            yield path, title, description, False, _SYNTHESIZED, None
        for path in plan.directories:
            yield path, self._dir_title(path), "", True, _SYNTHESIZED, None

    def concept_titles(self, directory: str = "") -> list[tuple[str, str]]:
        """(path, title) of the concept signposts of ``directory``'s listing, in its order and titled as
        :meth:`listing` titles them, without building its signposts (no description is looked for)."""
        d = self._directory(directory)
        if d in self._listings:
            return [(s.path, s.title) for s in self._listings[d].signposts if not s.is_dir]
        plan = self.listing_plan(d)
        out = [
            (path, r.entry.title or derived_title(path))
            for r in plan.entries
            if r.kind == "concept" and (path := cast(str, r.path))
        ]
        out += [(path, self._summary(path)[0]) for path in plan.concepts]
        return out

    def listing_plan(self, directory: str = "") -> ListingPlan:
        """What :meth:`listing` shows of a directory, before any signpost is built (no concept is read for a
        title or description): its index, its problems, the index entries kept and what is synthesized."""
        d = self._directory(directory)
        index = self.index(d)
        plan = ListingPlan(d, index, list(index.diagnostics) if index else [])
        scan = self._scan(d)
        if scan is None:
            plan.diagnostics.append(
                diagnostic(
                    "E006",
                    d or "./",
                    None,
                    f"cannot list this directory: {self._unreadable.get(d, 'unreadable')}; none of its files was read",
                    "check the directory's permissions",
                )
            )
        for name in scan.unaddressable if scan else ():
            plan.diagnostics.append(
                diagnostic(
                    "W115",
                    d + _printable(name),
                    None,
                    "the name holds a backslash or a control character, so no bundle path can name it; left out",
                )
            )
        for name in [*(scan.concepts if scan else ()), *(f"{n}/" for n in (scan.dirs if scan else ()))]:
            if not utf8_name(name):
                plan.diagnostics.append(
                    diagnostic(
                        "W117",
                        d + name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"),
                        None,
                        "the name is not UTF-8 (its bad bytes shown as \\xNN): okf reads it, but a consumer that "
                        "takes names as UTF-8 cannot, and okf export leaves it out",
                    )
                )
        seen: set[str] = set()
        for resolved in index.entries if index else []:
            if resolved.kind not in ("concept", "directory") or resolved.path is None:
                continue
            if resolved.path in seen:
                plan.diagnostics.append(
                    diagnostic("W114", d + "index.md", resolved.entry.line, f"{resolved.path} is listed more than once")
                )
                continue
            seen.add(resolved.path)
            plan.entries.append(resolved)
        plan.concepts = [d + name for name in (scan.concepts if scan else ()) if d + name not in seen]
        plan.directories = [
            f"{d}{name}/"
            for name in (scan.dirs if scan else ())
            if f"{d}{name}/" not in seen and self._has_concepts(f"{d}{name}/")
        ]
        return plan

    def forget(self, directory: str) -> None:
        """Drop the cached listing and index of ``directory`` (a caller that reads each directory once, such
        as ``okf check``, keeps memory flat this way); they are read again if asked for."""
        d = self._directory(directory)
        self._listings.pop(d, None)
        self._indexes.pop(d, None)

    def signposts(self, directory: str = "") -> list[Signpost]:
        """The signposts of ``directory`` (see :meth:`listing`)."""
        return self.listing(directory).signposts

    # -- identity -----------------------------------------------------------------------------------------

    def manifest(self) -> dict[str, Any] | None:
        """okf's compile manifest ``.okf/manifest.json``, or None when absent; BundleError when unreadable."""
        path = os.path.join(self._root_real, MANIFEST)
        if not os.path.isfile(path):
            return None
        try:
            with open(path, encoding="utf-8") as handle:
                value = json.load(handle)
        except (OSError, ValueError) as exc:
            raise BundleError(
                f"cannot read the compile manifest: {exc}", path=MANIFEST, fix="recompile with okf compile"
            ) from None
        if not isinstance(value, dict):
            raise BundleError(
                "the compile manifest is not a JSON object", path=MANIFEST, fix="recompile with okf compile"
            )
        return value

    def vocabulary(self) -> Vocabulary | None:
        """The bundle's vocabulary statistics written by okf compile (``.okf/vocabulary.json``), or None."""
        if self._vocabulary is False:
            from okf.text.vocabulary import Vocabulary  # navigation's, never check's: imported when asked

            self._vocabulary = Vocabulary.load(Path(self._root_real))
        return self._vocabulary  # type: ignore[return-value]

    def corpus_id(self, *, hasher: Hasher | None = None) -> str:
        """A stable identity of the bundle's content: ``sha256:`` and 16 hex digits.

        From the compile manifest when there is one (and the record of syntheses ``okf ask --save`` filed
        since, ``.okf/syntheses.json``), else from every markdown file's hash (cached by size
        and modification time, see :mod:`okf.bundle.identity`). ``hasher`` may hash cache misses elsewhere.
        """
        if self._corpus_id is None:
            manifest = os.path.join(self._root_real, MANIFEST)
            data = None
            if os.path.isfile(manifest):
                try:
                    digest = hashlib.sha256()
                    with open(manifest, "rb") as handle:
                        data = b"manifest\0" + handle.read()
                    digest.update(data)
                    filed = os.path.join(self._root_real, SYNTHESES_REGISTRY)
                    if os.path.isfile(filed) and not os.path.islink(filed):  # answers okf ask --save filed since
                        with open(filed, "rb") as handle:
                            digest.update(b"\0syntheses\0" + handle.read())
                except OSError:  # unreadable: identify the bundle by its files instead
                    data = None
            if data is not None:
                self._corpus_id = "sha256:" + digest.hexdigest()[:16]
            else:
                self._corpus_id = identity.corpus_id(self._root_real, hasher=hasher)
        return self._corpus_id

    def known_corpus_id(self) -> str | None:
        """The corpus id when it costs no pass over the bundle, else None.

        Known from the compile manifest, or when :meth:`corpus_id` already computed it for this ``Bundle``.
        Without a manifest, computing it stats every markdown file (and hashes those its cache cannot vouch
        for), which grows with the bundle: navigation reports only this, so a question's cost does not.
        """
        if self._corpus_id is None and os.path.isfile(os.path.join(self._root_real, MANIFEST)):
            return self.corpus_id()
        return self._corpus_id
