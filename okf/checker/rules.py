"""The per-file rules of ``okf check``: concepts, ``log.md`` files, and source drift. No model calls."""

from __future__ import annotations

import hashlib
import os
import re
from collections import OrderedDict
from collections.abc import Iterable
from datetime import date, datetime
from pathlib import Path
from urllib.parse import quote

from okf.bundle import Bundle, Concept, Diagnostic, Link, Status, diagnostic
from okf.bundle import frontmatter as fm
from okf.bundle.citations import bundle_path, cited_changes
from okf.bundle.documents import read_text
from okf.bundle.paths import is_external, normalize, path_readings, path_uri
from okf.errors import BundleError
from okf.limits import MAX_TITLE_CHARS
from okf.markdown import headings
from okf.sources import read_source_text, span_text
from okf.wikilinks import find_wikilinks

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _targets(path: str, shown: str, missing: str, found: Iterable[Link]) -> list[Diagnostic]:
    """W102 for each link (or image: ``shown`` is how it is named) that leaves the bundle, ``missing`` for each
    that points at nothing in it; web links are not checked."""
    out: list[Diagnostic] = []
    for item in found:
        if item.external:
            continue
        written = f"{shown}[{item.text}]({item.target})"
        if item.path is None:
            out.append(diagnostic("W102", path, item.line, f"{written} leaves the bundle; it is never followed"))
        elif not item.exists:
            out.append(diagnostic(missing, path, item.line, f"{written} points at nothing in the bundle"))
    return out


def check_concept(bundle: Bundle, concept: Concept, now: datetime, sources: SourceFiles) -> list[Diagnostic]:
    """Everything okf can say about one parsed concept."""
    path = concept.path
    out = list(concept.diagnostics)
    if concept.body_start_line == 1:
        out.append(diagnostic("E004", path, 1, "no frontmatter block; OKF §4 requires one with 'type'"))
    elif not concept.meta.type:
        out.append(diagnostic("E003", path, 1, "frontmatter has no non-empty 'type' (OKF §4.1)"))
    description = (concept.meta.description or "").strip()
    if concept.body_start_line > 1 and not description:
        out.append(diagnostic("W130", path, 1, "no 'description'; listings and navigation show only the title"))
    if description and description.casefold().rstrip(".") == (concept.meta.title or "").strip().casefold().rstrip("."):
        out.append(
            diagnostic(
                "W136",
                path,
                1,
                "'description' only repeats the title: a reader learns nothing from it about what the concept states",
            )
        )
    if len(concept.title) > MAX_TITLE_CHARS:
        out.append(
            diagnostic(
                "W135",
                path,
                1,
                f"title is {len(concept.title)} characters, over {MAX_TITLE_CHARS}; "
                "listings and navigation show it cut",
            )
        )
    if concept.meta.status is Status.deprecated:
        out.append(diagnostic("W131", path, 1, "concept is deprecated"))
    if concept.meta.stale_after is not None and concept.meta.is_stale(now):
        out.append(diagnostic("W132", path, 1, f"stale since {concept.meta.stale_after.isoformat()} (stale_after)"))
    out.extend(_frontmatter_rules(concept, sources))
    out.extend(_targets(path, "image !", "W104", bundle.images(concept)))
    out.extend(_targets(path, "link ", "W101", bundle.links(concept, unsure_only=True)))
    if "[" in concept.body and "[[" in concept.body:  # Obsidian link syntax compile could not resolve: no OKF link
        for wikilink in find_wikilinks(concept.body):
            out.append(
                diagnostic(
                    "W103",
                    path,
                    concept.body_start_line + wikilink.line - 1,
                    f"wikilink {wikilink.text} is not a link in OKF (unresolved); it reads as text",
                )
            )
    out.extend(sources.drift(concept))
    out.extend(stale_citations(bundle, concept))
    return out


_OFFSET = re.compile(r"[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:[Zz]|[+-]\d{2}(?::?\d{2})?)$")


def has_offset(value: object) -> bool:
    """True when a timestamp value is a datetime with an explicit UTC offset (OKF §5)."""
    if isinstance(value, datetime):
        return value.tzinfo is not None
    if isinstance(value, str):
        return bool(_OFFSET.search(value.strip()))
    return False


def _window(found: list[tuple[str, object]], prefix: str, value: object) -> None:
    if isinstance(value, dict):
        found.extend((f"{prefix}.{k}", value[k]) for k in ("from", "to") if value.get(k) is not None)


def _timestamps(raw: dict[str, object]) -> list[tuple[str, object]]:
    """Every timestamp-valued field of a frontmatter mapping, by its dotted name, as written."""
    found: list[tuple[str, object]] = []
    get = raw.get
    generated = get("generated")
    if isinstance(generated, dict) and generated.get("at") is not None:
        found.append(("generated.at", generated["at"]))
    verified = get("verified")
    if isinstance(verified, list):
        for i, item in enumerate(verified):
            if isinstance(item, dict) and item.get("at") is not None:
                found.append((f"verified[{i}].at", item["at"]))
    elif isinstance(verified, dict) and verified.get("at") is not None:
        found.append(("verified.at", verified["at"]))
    if get("stale_after") is not None:
        found.append(("stale_after", raw["stale_after"]))
    usage = get("usage_window")
    if isinstance(usage, dict):
        _window(found, "usage_window", usage)
    items = get("sources")
    if isinstance(items, list):
        for i, item in enumerate(items):
            if isinstance(item, dict):
                if item.get("last_modified") is not None:
                    found.append((f"sources[{i}].last_modified", item["last_modified"]))
                window = item.get("usage_window")
                if isinstance(window, dict):
                    _window(found, f"sources[{i}].usage_window", window)
    return found


def _frontmatter_rules(concept: Concept, sources: SourceFiles) -> list[Diagnostic]:
    """OKF §5 and §10 shapes: Attested Computation runtime, generated.by, offsets, sources resources."""
    raw, path, out = concept.frontmatter, concept.path, []
    if concept.meta.type == "Attested Computation" and not str(raw.get("runtime") or "").strip():
        out.append(
            diagnostic(
                "W137",
                path,
                1,
                "an Attested Computation has no 'runtime'; OKF §10.2 requires it, "
                "since it says how to run the computation and what its parameters mean",
            )
        )
    generated = raw.get("generated")
    if isinstance(generated, dict) and not str(generated.get("by") or "").strip():
        out.append(diagnostic("W138", path, 1, "'generated' has no 'by'; OKF §5.2 requires an actor there"))
    naive = [name for name, value in _timestamps(raw) if not has_offset(value)]
    if naive:
        out.append(
            diagnostic(
                "W139",
                path,
                1,
                f"{', '.join(naive[:4])}{' ...' if len(naive) > 4 else ''} "
                f"{'has' if len(naive) == 1 else 'have'} no UTC offset; OKF §5 timestamps are ISO 8601 "
                "datetimes with an explicit offset",
            )
        )
    items = raw.get("sources")
    for i, item in enumerate(items if isinstance(items, list) else [items] if isinstance(items, dict) else []):
        resource = item.get("resource") if isinstance(item, dict) else item
        named = "" if resource is None else (resource if type(resource) is str else str(resource)).strip()
        if not named:
            out.append(diagnostic("W152", path, 1, f"sources entry {i + 1} has no 'resource'; OKF §5.1 requires one"))
        elif sources.followable(named) is False:
            out.append(
                diagnostic("W153", path, 1, f"sources entry {i + 1} names {named}, which is not {sources.where(named)}")
            )
    return out


def stale_citations(bundle: Bundle, concept: Concept) -> list[Diagnostic]:
    """W151 for each cited bundle span (a ``/``-source with lines and sha256) that changed or is gone."""
    out: list[Diagnostic] = []
    for change in cited_changes(bundle, concept):
        start, end = change.ref.lines or (0, 0)
        if change.kind == "missing":
            what = f"cites {change.path}, which is no longer in the bundle"
        else:
            what = f"cites {change.path} lines {start}-{end}, which changed since it was written (sha256 differs)"
        out.append(diagnostic("W151", concept.path, 1, what))
    return out


def check_log(bundle: Bundle, rel: str) -> list[Diagnostic]:
    """A ``log.md``: frontmatter is tolerated (a warning); level-2 date headings must be ``YYYY-MM-DD``."""
    try:
        text, out = read_text(bundle.real_path(rel), rel)
    except BundleError as exc:
        return [diagnostic(getattr(exc, "code", "E006"), rel, exc.line, exc.message, exc.fix)]
    body, offset = text, 0
    try:
        parts = fm.split(text, rel)
        if parts.yaml_text is not None:
            out.append(diagnostic("W141", rel, 1, "log.md has frontmatter; it is read past, not used"))
            body, offset = parts.body, parts.body_start_line - 1
    except BundleError as exc:
        out.append(diagnostic("W141", rel, 1, f"log.md starts a frontmatter block: {exc.message}"))
    newest: tuple[str, int] | None = None  # the last date seen, and its line
    for heading in headings(body, offset):
        if heading.level != 2:
            continue
        valid = bool(_DATE.match(heading.text))
        if valid:
            try:
                date.fromisoformat(heading.text)
            except ValueError:
                valid = False
        if not valid:
            out.append(
                diagnostic(
                    "E020", rel, heading.start_line, f"date heading {heading.text!r} is not a YYYY-MM-DD date (OKF §9)"
                )
            )
            continue
        if newest is not None and heading.text > newest[0]:
            out.append(
                diagnostic(
                    "W142",
                    rel,
                    heading.start_line,
                    f"{heading.text} comes after {newest[0]} (line {newest[1]}); OKF §9 logs are newest first",
                )
            )
        newest = (heading.text, heading.start_line)
    return out


_PATHLIKE = re.compile(r"^[^\s]+(?:/[^\s]*|\.[A-Za-z0-9]{1,8})$")


def source_citing(manifest: dict[str, object] | None) -> tuple[str | None, dict[str, str], bool]:
    """From an okf compile manifest: the source root, each cited resource (a mirror's ``/references/...``
    bundle path, a URL, or a path under the root whose name :func:`okf.bundle.paths.path_uri` encodes) mapped
    to the source path under that root (look it up with :func:`original_source`), and whether relative
    resources name paths under the source root (bundles compiled with --no-copy-sources, or before mirrors
    existed)."""
    if not manifest:
        return None, {}, False
    root = manifest.get("source_root")
    root = root if isinstance(root, str) else None
    mode = manifest.get("resources")
    originals: dict[str, str] = {}
    records = manifest.get("sources")
    options = manifest.get("options")
    base = options.get("sources_url") if isinstance(options, dict) else None
    for resource, entry in records.items() if isinstance(records, dict) else []:
        if isinstance(entry, dict) and isinstance(entry.get("mirror"), str):
            originals["/" + entry["mirror"]] = resource
        elif mode == "url" and isinstance(base, str):
            originals[base.rstrip("/") + "/" + quote(resource)] = resource
        elif path_uri(resource) != resource:  # cited encoded (or, before the encoding, as named)
            originals[resource] = resource
    return root, originals, mode in (None, "source_root")


Citing = tuple[str | None, dict[str, str], bool]  # what source_citing gives
# manifest_citing's answer: an unreadable manifest's E006 (path, message, fix), the content id, source_citing
ManifestRead = tuple[tuple[str, str, str] | None, str | None, Citing]


def manifest_citing(bundle: Bundle) -> ManifestRead:
    """What a check takes from okf's compile manifest: the E006 of an unreadable manifest (path, message, fix) or
    None, the content id (free from a manifest; without one it would mean hashing every file, so it is None),
    and :func:`source_citing` of the manifest. Plain values: a worker process may read it (okf.checker.parallel)."""
    manifest = None
    unreadable = None
    try:
        manifest = bundle.manifest()
    except BundleError as exc:
        unreadable = (exc.path or ".okf/manifest.json", exc.message, exc.fix or "")
    corpus_id = None
    if manifest is not None:
        try:
            corpus_id = bundle.corpus_id()
        except (OSError, BundleError):
            corpus_id = None
    return unreadable, corpus_id, source_citing(manifest)


def original_source(originals: dict[str, str], resource: str) -> str | None:
    """The source path under the compile root that ``resource`` cites, from :func:`source_citing`'s map; the
    resource is read as written first, then as a URI reference (:func:`okf.bundle.paths.path_readings`), so
    bundles written before okf encoded ``#``, ``?`` and ``%`` map too."""
    if not originals:
        return None
    for reading in path_readings(resource):
        if reading in originals:
            return originals[reading]
    return None


class SourceFiles:
    """Finds and caches the source files concepts cite, to compare span hashes (drift, W150).

    A resource is read where it leads: a ``/`` path is a file of the bundle (a mirrored source); a relative
    path is under the compile's source root for okf bundles that cite it there, else under the bundle root.
    When the original of a mirrored (or URL-cited) source is reachable under the source root, it is the one
    compared, so a changed source is noticed; moved elsewhere, the bundle's own copy is compared.
    """

    def __init__(
        self, bundle: Bundle, source_root: str | None, originals: dict[str, str] | None = None, under_root: bool = True
    ) -> None:
        self.bundle = bundle
        self.bundle_base = os.path.realpath(bundle.root)
        self.root: str | None = None
        if source_root:
            base = Path(source_root).expanduser()
            self.root = os.path.realpath(base if base.is_absolute() else bundle.root / base)
        self.base = self.root if self.root and under_root else self.bundle_base
        self.originals = originals or {}
        self._texts: OrderedDict[str, tuple[str, list[str]] | None] = OrderedDict()  # text, its lines
        self._located: dict[str, tuple[str | None, str | None]] = {}
        self._followable: dict[str, bool | None] = {}
        self._cited: dict[str, str | None] = {}  # resource -> its bundle_path

    def _locate(self, resource: str) -> tuple[str | None, str | None]:
        """The real path to read for ``resource``, and the original source's path under the source root when
        that is what it is (not the bundle's copy)."""
        if resource not in self._located:
            self._located[resource] = self._find(resource)
        return self._located[resource]

    @staticmethod
    def _under(base: str, rel: str) -> str | None:
        real = os.path.realpath(os.path.join(base, rel))
        if not real.startswith(base.rstrip(os.sep) + os.sep) or not os.path.isfile(real):
            return None
        return real

    def _find(self, resource: str) -> tuple[str | None, str | None]:
        if not resource:
            return None, None
        original = original_source(self.originals, resource)
        if original and self.root:
            try:
                found = self._under(self.root, normalize(original))
            except BundleError:
                found = None
            if found:
                return found, original
        if is_external(resource):
            return None, None
        return self._file(resource), None

    def _file(self, resource: str) -> str | None:
        """The real path of the file a path ``resource`` names, read as written first, then as a URI reference
        (OKF §11: a tolerant consumer); None when neither reading is a file."""
        base = self.bundle_base if resource.startswith("/") else self.base
        for reading in path_readings(resource):
            try:
                found = self._under(base, normalize(reading))
            except BundleError:
                continue
            if found:
                return found
        return None

    def followable(self, resource: str) -> bool | None:
        """Whether a ``sources[].resource`` names a file that exists: None when it is no path (a URL, a scope
        descriptor, a concept of the bundle, which links and W151 cover). Asked once per resource: the
        concepts of one source all cite it."""
        if resource not in self._followable:
            if len(self._followable) >= 4096:
                self._followable.clear()
            self._followable[resource] = self._follow(resource)
        return self._followable[resource]

    def _follow(self, resource: str) -> bool | None:
        if is_external(resource) or resource.startswith("//"):
            return None
        if resource.startswith("/"):
            if any(reading.endswith(".md") for reading in path_readings(resource)):
                return None
        elif not (self.base == self.root or _PATHLIKE.match(resource)):
            return None
        return self._file(resource) is not None

    def where(self, resource: str) -> str:
        """Where a resource was looked for, in words (for W153)."""
        if resource.startswith("/") or self.base == self.bundle_base:
            return "a file of the bundle"
        return f"a file under the source folder {self.root}"

    def _text(self, real: str) -> tuple[str, list[str]] | None:
        if real in self._texts:
            self._texts.move_to_end(real)
            return self._texts[real]
        try:
            source = read_source_text(Path(real)).text
            text: tuple[str, list[str]] | None = (source, source.split("\n"))
        except (OSError, ValueError):
            text = None
        self._texts[real] = text
        if len(self._texts) > 64:
            self._texts.popitem(last=False)
        return text

    def drift(self, concept: Concept) -> list[Diagnostic]:
        """W150 for each cited span whose current hash differs from the recorded ``sha256``."""
        out: list[Diagnostic] = []
        for source in concept.meta.sources:
            if source.lines is None or not source.sha256:
                continue
            if source.resource in self._cited:  # the concepts of one source all cite it: asked once per resource
                cited = self._cited[source.resource]
            else:
                if len(self._cited) >= 4096:
                    self._cited.clear()
                cited = self._cited[source.resource] = bundle_path(source, self.bundle)
            if cited is not None and cited.endswith(".md"):
                continue  # a concept of the bundle (OKF §6.2), as syntheses cite: stale_citations reads it
            real, original = self._locate(source.resource)
            text = self._text(real) if real else None
            if text is None:
                continue
            start, end = source.lines
            # span_text, its lines split once per source (one split costs less than the offsets of every line)
            span = "\n".join(text[1][start - 1 : end]) if 1 <= start <= end else span_text(text[0], start, end)
            if hashlib.sha256(span.encode("utf-8")).hexdigest() != source.sha256.strip().lower():
                what = f"source {source.resource}" + (f" (its original, {original})" if original else "")
                out.append(
                    diagnostic(
                        "W150",
                        concept.path,
                        1,
                        f"{what} lines {start}-{end} changed since the concept was written (sha256 differs)",
                    )
                )
        return out
