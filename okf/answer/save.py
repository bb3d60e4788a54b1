"""``save_answer``: file an answer back into its bundle as a ``Synthesis`` concept (``okf ask --save``).

The synthesis is ``syntheses/<slug>.md``: title the question, ``sources`` the cited concepts (bundle paths with
the cited lines and their sha256, so ``okf check`` sees when one changes: W151), ``generated`` (okf, the
reader, when), and a body holding the answer, its supporting concepts, caveats and Sources ledger, linking
every cited concept. ``syntheses/index.md`` is rewritten, the root ``index.md`` lists the folder, ``log.md``
gets an entry and ``.okf/syntheses.json`` records every synthesis (the bundle's ``corpus_id`` changes with
it). All of it is written at once, atomically, as compile writes (:func:`okf.compile.write.replace_files`).
The same question (case, spacing and final punctuation aside) updates its synthesis in place.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from okf._version import __version__
from okf.answer.ledger import SYNTHESIS_TYPE
from okf.answer.prose import one_line
from okf.bundle import Bundle, Concept, ConceptMeta, SourceRef
from okf.bundle.citations import cited_changes
from okf.bundle.paths import path_uri
from okf.bundle.syntheses import ENTRY_LEAD, FOLDER, FOLDER_TITLE, REGISTRY, read_registry
from okf.compile.render import PRODUCER, index_escape, iso, log_file, yaml_str
from okf.compile.write import replace_files
from okf.errors import BundleError
from okf.markdown import INLINE_MARKUP
from okf.models import AnswerResult, SavedSynthesis

FOLDER_PROSE = "Answers filed back into this bundle by okf ask --save; each cites the concepts it rests on."
TITLE_CHARS = 500
SLUG_CHARS = 60
_CITE = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")
_SLUG_DROP = re.compile(r"[^a-z0-9]+")
# One save at a time in this process (the MCP server saves from worker threads); other processes are kept
# out by the side tree's name (okf.compile.write.clean_stale_output).
_LOCK = threading.Lock()


DESCRIPTION_CHARS = 200
ENTRY_CHARS = 1000


def _clip(text: str, limit: int = DESCRIPTION_CHARS) -> str:
    """``text`` on one line, cut at a word to at most ``limit`` characters (an ellipsis when cut)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut[limit // 2 :] else cut).rstrip(" ,;:-") + "\u2026"


def _names(lead: str, names: list[str]) -> str:
    """``lead: a; b; c``, cut at a whole name, saying how many were left out."""
    text = f"{lead}: " if names else lead
    for i, name in enumerate(names):
        rest = len(names) - i
        if len(text) + len(name) > ENTRY_CHARS - 20 and rest > 1:
            return text.rstrip("; ") + f"; and {rest} more"
        text += name + ("; " if rest > 1 else "")
    return _clip(text, ENTRY_CHARS)


def same_question(question: str) -> str:
    """The key two questions share when they are the same question: case, spacing, final ``?.!`` aside."""
    return " ".join(question.split()).casefold().rstrip(" ?.!")


def slug(question: str) -> str:
    """A file name stem for ``question``: lower-case words joined by ``-``, cut at a word, never empty."""
    words = _SLUG_DROP.sub(" ", question.casefold()).split()
    out = ""
    for word in words:
        if len(out) + len(word) + 1 > SLUG_CHARS and out:
            break
        out = f"{out}-{word}" if out else word[:SLUG_CHARS]
    return out or "question"


@dataclass
class _Existing:
    """A synthesis already in the folder: its path, title and description."""

    path: str
    title: str
    description: str
    question: str


def _folder_concepts(bundle: Bundle) -> list[_Existing]:
    if not bundle.is_dir(FOLDER):
        return []
    out = []
    for path in bundle.iter_concepts():
        if path.startswith(FOLDER + "/") and "/" not in path[len(FOLDER) + 1 :]:
            try:
                concept = bundle.load(path, cache=False)
            except BundleError:
                out.append(_Existing(path, path.rsplit("/", 1)[-1].removesuffix(".md"), "", ""))
                continue
            question = concept.title if concept.meta.type == SYNTHESIS_TYPE else ""
            out.append(_Existing(path, concept.title, (concept.meta.description or "").strip(), question))
    return out


def _target(existing: list[_Existing], question: str) -> tuple[str, bool]:
    """The synthesis path for ``question``: the one already saved for it, else a free ``<slug>.md``."""
    key = same_question(question[:TITLE_CHARS])
    for item in existing:
        if item.question and same_question(item.question) == key:
            return item.path, True
    taken = {item.path for item in existing}
    stem, n = slug(question), 1
    path = f"{FOLDER}/{stem}.md"
    while path in taken:
        n += 1
        path = f"{FOLDER}/{stem}-{n}.md"
    return path, False


def _description(result: AnswerResult) -> str:
    first = next((line for line in result.answer.split("\n") if line.strip()), "")
    text = INLINE_MARKUP.sub(lambda m: m.group(1) or "", _CITE.sub("", one_line(first)))
    return _clip(text) if len(text.split()) >= 3 else _clip(one_line(result.question))


def _tags(bundle: Bundle, result: AnswerResult) -> list[str]:
    tags = ["synthesis"]
    for citation in result.citations:
        try:
            extra = bundle.concept(citation.receipt.path).meta.tags
        except BundleError:
            continue
        tags += [t for t in extra if t not in tags]
    return tags[:12]


def cited_sources(bundle: Bundle, result: AnswerResult, path: str) -> list[SourceRef]:
    """The ``sources`` of the synthesis at ``path``: each cited concept with the cited lines and their sha256.

    An answer citing the earlier version of this same synthesis rests on what that version cited, so its
    sources are taken over instead (a synthesis never cites itself: its own lines change as it is written).
    """
    titles = {line.number: line.title for line in result.sources}
    out: list[SourceRef] = []
    for number, citation in enumerate(result.citations, start=1):
        r = citation.receipt
        if r.path == path:
            try:
                out += bundle.load(path, cache=False).meta.sources
            except BundleError:
                pass
            continue
        out.append(
            SourceRef(
                resource="/" + path_uri(r.path),
                title=one_line(titles.get(number, citation.concept_id)),
                lines=(r.start_line, r.end_line),
                sha256=r.sha256,
            )
        )
    unique = {(ref.resource, ref.lines, ref.sha256): ref for ref in out}
    return list(unique.values())


def _still_cited(bundle: Bundle, result: AnswerResult, path: str) -> None:
    """BundleError when a cited span no longer reads as the answer's receipt says (the bundle changed since
    the answer was given): a synthesis is never saved stale."""
    for citation in result.citations:
        r = citation.receipt
        if r.path == path:
            continue
        probe = Concept(
            id="",
            path="",
            meta=ConceptMeta(
                sources=[SourceRef(resource="/" + path_uri(r.path), lines=(r.start_line, r.end_line), sha256=r.sha256)]
            ),
            body="",
            body_start_line=1,
        )
        if cited_changes(bundle, probe):
            raise BundleError(
                f"{r.path} changed since the answer cited lines {r.start_line}-{r.end_line}; nothing was saved",
                path=r.path,
                fix="ask the question again, then save",
            )


def synthesis_file(bundle: Bundle, result: AnswerResult, title: str, at: datetime, path: str) -> bytes:
    """The synthesis concept at ``path``: frontmatter (OKF v0.2 with okf's keys), then the answer and its
    supporting concepts, caveats and Sources ledger, each cited concept linked."""
    partial = result.status == "partial"
    head = [
        "---",
        f"type: {yaml_str(SYNTHESIS_TYPE)}",
        f"title: {yaml_str(title)}",
        f"description: {yaml_str(_description(result))}",
        f"tags: [{', '.join(yaml_str(t) for t in _tags(bundle, result))}]",
    ]
    if partial:
        head.append('status: "draft"')
    head += [f"answer_status: {yaml_str(result.status)}", "sources:"]
    for number, ref in enumerate(cited_sources(bundle, result, path), start=1):
        head += [f"  - id: s{number}", f"    resource: {yaml_str(ref.resource)}"]
        if ref.title:
            head.append(f"    title: {yaml_str(one_line(ref.title))}")
        if ref.lines:
            head.append(f"    lines: [{ref.lines[0]}, {ref.lines[1]}]")
        if ref.sha256:
            head.append(f"    sha256: {yaml_str(ref.sha256)}")
    head += [
        "generated:",
        f"  by: {PRODUCER}",
        f"  at: {iso(at)}",
        f"  reader: {yaml_str(one_line(result.reader))}",
        "---",
        "",
    ]
    links = {c.concept_id: "/" + c.receipt.path for c in result.citations}
    # No heading repeating the question (the title says it): a reader quoting this body quotes the answer.
    body = [result.answer.strip(), ""]
    if result.supporting:
        body += ["## Supporting concepts", ""]
        body += [
            f"- [{n}] [{index_escape(one_line(s.title))}]({links.get(s.concept_id, '')}): {one_line(s.why)}"
            for n, s in enumerate(result.supporting, 1)
        ]
        body.append("")
    if result.caveats:
        body += ["## Caveats", "", *(f"- {one_line(c)}" for c in result.caveats), ""]
    body += ["## Sources", ""]
    for line in result.sources:
        cited = next((c for c in result.citations if c.concept_id == line.concept_id), None)
        where = f"{links.get(line.concept_id, '')}"
        lines = f" lines {cited.receipt.start_line}-{cited.receipt.end_line}" if cited else ""
        if cited is not None and cited.receipt.path == path:
            lines = " (its earlier version)"
        raw = ", ".join(one_line(s) for s in line.sources) or "(no source recorded)"
        through = f" (through {', '.join(line.through)})" if line.through else ""
        body.append(f"{line.number}. [{index_escape(one_line(line.title))}]({where}){lines}: {raw}{through}")
    return ("\n".join(head) + "\n".join(body).rstrip("\n") + "\n").encode("utf-8")


def folder_index(items: list[_Existing]) -> bytes:
    """``syntheses/index.md``: a heading, what the folder holds, one entry per concept, by title."""
    lines = [f"# {FOLDER_TITLE}", "", index_escape(FOLDER_PROSE), ""]
    for item in sorted(items, key=lambda i: (i.title.casefold(), i.path)):
        name = item.path.rsplit("/", 1)[-1]
        lines.append(f"* [{index_escape(one_line(item.title))}]({name}) - {index_escape(one_line(item.description))}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def root_index(bundle: Bundle, items: list[_Existing]) -> bytes | None:
    """The root ``index.md`` listing the folder (its entry added, or its description brought up to date);
    None when the bundle has no root index (one is never created: it would change what is listed)."""
    if not bundle.exists("index.md") or bundle.is_concept_path("index.md"):
        return None
    text = Path(bundle.real_path("index.md")).read_text(encoding="utf-8")
    titles = [one_line(i.title) for i in sorted(items, key=lambda i: (i.title.casefold(), i.path))]
    entry = f"* [{FOLDER_TITLE}]({FOLDER}/index.md) - {index_escape(_names(ENTRY_LEAD, titles))}"
    index = bundle.index("")
    lines = text.split("\n")
    for resolved in index.entries if index else []:
        if resolved.kind == "directory" and resolved.path == FOLDER + "/":
            at = resolved.entry.line - 1
            if 0 <= at < len(lines):
                lines[at] = entry
                return "\n".join(lines).encode("utf-8")
    return (text.rstrip("\n") + "\n" + entry + "\n").encode("utf-8")


def _registry(bundle: Bundle, items: list[_Existing], path: str, question: str, content: bytes) -> bytes:
    known = {i.path for i in items}
    records = {p: r for p, r in read_registry(bundle.root).items() if p in known}
    records[path] = {"question": question, "sha256": hashlib.sha256(content).hexdigest()}
    data = {"format": 1, "okf_version": __version__, "syntheses": dict(sorted(records.items()))}
    return (json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode("utf-8")


def save_answer(bundle: Bundle | str | Path, result: AnswerResult, *, at: datetime | None = None) -> SavedSynthesis:
    """File ``result`` into ``bundle`` as a Synthesis concept; only answered and partial answers that cite
    something are saved (``action='skipped'`` with the reason otherwise). ``at`` is ``generated.at`` and the
    log date (default: ``SOURCE_DATE_EPOCH``, else now). Raises CompileError when the bundle cannot be written
    (it is then unchanged) and BundleError when ``syntheses`` is not a folder of the bundle."""
    if result.failed or result.status not in ("answered", "partial") or not result.citations:
        why = (
            "the answerer failed"
            if result.failed
            else "the answer abstained"
            if result.status == "abstained"
            else "the answer cites nothing"
        )
        return SavedSynthesis(
            action="skipped",
            reason=f"Not saved: {why}; only answered or partial answers that cite the bundle are filed as syntheses.",
        )
    from okf.compile import CompileOptions, compile_time  # lazy: the compile package is large

    when = at or compile_time(CompileOptions())
    root = bundle.root if isinstance(bundle, Bundle) else Path(bundle)
    with _LOCK:
        return _save(root, result, when)


def _save(root: Path, result: AnswerResult, when: datetime) -> SavedSynthesis:
    opened = Bundle.open(root)  # fresh: a caller's Bundle may cache listings from before an earlier save
    opened.resolve(FOLDER + "/")  # PathEscapeError when a symlinked folder leads outside
    if opened.exists(FOLDER) and not opened.is_dir(FOLDER):
        raise BundleError(
            f"{FOLDER} exists and is not a folder, so syntheses cannot be saved there",
            path=FOLDER,
            fix=f"rename or move {FOLDER} out of the bundle root",
        )
    question = " ".join(one_line(result.question).split())
    title = question[:TITLE_CHARS]
    items = _folder_concepts(opened)
    path, existed = _target(items, question)
    _still_cited(opened, result, path)
    content = synthesis_file(opened, result, title, when, path)
    description = _description(result)
    items = [i for i in items if i.path != path] + [_Existing(path, title, description, title)]
    changes = {
        path: content,
        f"{FOLDER}/index.md": folder_index(items),
        REGISTRY: _registry(opened, items, path, question, content),
    }
    top = root_index(opened, items)
    if top is not None:
        changes["index.md"] = top
    action: Literal["created", "updated"] = "updated" if existed else "created"
    log_path = Path(opened.real_path("log.md")) if opened.exists("log.md") else None
    previous = log_path.read_text(encoding="utf-8") if log_path is not None else None
    cites = len(result.citations)
    bullet = (
        f"* **Synthesis**: {action} [{index_escape(_clip(title, 120))}](/{path}) ({result.status}; "
        f"cites {cites} concept{'s' * (cites != 1)})."
    )
    changes["log.md"] = log_file(previous, when.strftime("%Y-%m-%d"), [bullet])
    replace_files(Path(opened.root), changes)
    return SavedSynthesis(action=action, path=path, concept_id=path.removesuffix(".md"))


__all__ = ["FOLDER", "REGISTRY", "same_question", "save_answer", "slug", "synthesis_file"]
