"""Model-assisted compile: concept descriptions, tags and group titles written by a describer model.

The RLM chunking method (docs/compile.md, "Signposts written by a model") applied to compile: the code keeps
the whole corpus and every boundary (concepts are planned from the documents' structure, deterministically,
exactly as offline); a model is only ever called on a small slice (a batch of up to 8 concepts) and writes
only signpost text; group titles are a fan-in over what the members' signposts say, never
over their raw text; and code guarantees coverage: every concept and group the model did not describe keeps
its extractive text.

Where the calls run, and why. Per-document planning and rendering run in forked worker processes
(:mod:`okf.compile.parallel`); an asyncio HTTP client must not cross a fork, and workers each calling would
multiply the concurrency the user set. So the calls run in the parent, in one event loop, bounded by the
reader's own ``concurrency``, in two places:

- :func:`describe_concepts`, a step between planning and rendering: concept boundaries are known, nothing is
  written yet. Concepts are sent in batches (``BATCH_CONCEPTS``, ``BATCH_CHARS``) in document order, across
  documents, so a folder of one-paragraph documents takes one call per batch, not one per document. ``render_plan`` then applies the model's text to the nodes it renders, so every file is
  written once, into the side tree, by the same code as an offline compile: the atomic swap and the
  incremental rules are untouched. (Re-rendering after the fact would mean parsing okf's own output back.)
  Text and PDF sources, which an offline compile renders in the worker that plans them, are rendered after
  this step instead. In-document range groups ("Sections 1 to 24") are titled here too, from their members'
  new signposts.
- :func:`title_folder_groups`, called by ``render_indexes`` in the parent: topic and range groups of
  documents, titled from the documents' titles and descriptions.

Gating. A concept's signpost is cached by the sha256 of the describer's identity, the prompt version, the
document and concept titles and the concept's text (:mod:`okf.compile.model_cache`); an unchanged concept
is never asked again. Folder-level titles are also kept in the manifest, so they hold even without the
cache. The describer's identity is one of the recorded options: another model rebuilds everything, the same
model over unchanged sources rebuilds, asks and writes nothing. A failed or invalid reply (after the
reader's retries and one repair) keeps the extractive text; it is counted in the report and log.md, and never
cached, so a later rebuild of that source asks again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

from okf.compile.describe import clip, plain
from okf.compile.model_cache import DescriptionCache, entry_key, text_sha256
from okf.compile.state import GROUP_TYPES, CompileState, DocPlan, ModelReport, Node
from okf.compile.tree import iter_concepts, iter_dirs
from okf.errors import ConfigError, DeadlineExceeded
from okf.readers.base import Usage, aclose
from okf.readers.describing import ConceptOffer, Describer, Descriptions, GroupOffer, Titles

BATCH_CONCEPTS = 8  # concepts per describe call
BATCH_CHARS = 16_000  # text per describe call (a concept fits the judge's window: 6,000 by default)
GROUPS_PER_CALL = 8  # sibling groups per title call
MEMBERS_SHOWN = 16  # members of a group shown for its title
GIVE_UP_AFTER = 8  # calls failing in a row: the rest are not asked (a server that is down)
TITLES_KEY = "group_titles"  # manifest: folder-level sibling-set key -> titles

T = TypeVar("T", Descriptions, Titles)


def describer_label(describer: Describer) -> str:
    """``model@host describe.v1``: the describer's identity without credentials (recorded in the manifest)."""
    identity = describer.role_identity("describer")
    if identity.startswith("offline"):
        raise ConfigError(
            "the describer has no model",
            fix="configure a model for the describer role "
            "(--model or --describe-model), or compile without a describer",
        )
    model, _, url = identity.partition("@")
    parts = urlsplit(url)
    host = (parts.hostname or url) + (f":{parts.port}" if parts.port else "")
    from okf.readers.replies import prompt  # the reply parsers import the synthesis roles: with a model only

    return f"{model}@{host} {prompt('describer').version}"


def start(state: CompileState, describer: Describer | None, cache: DescriptionCache | None) -> None:
    """Put the describer (or None: the extractive compile) into the state; its label into the options."""
    if describer is None:
        return
    label = describer_label(describer)
    state.describer = describer
    state.description_cache = cache
    state.options = state.options.model_copy(update={"describer": label})
    state.report.model = ModelReport(describer=label.rsplit(" ", 1)[0])


def _identity(state: CompileState) -> tuple[str, str]:
    from okf.readers.replies import prompt

    return state.describer.role_identity("describer"), prompt("describer").version


# --- concepts -------------------------------------------------------------------------------------------


def describe_concepts(state: CompileState) -> None:
    """Describe every concept of the rebuilt sources with the model (cache misses only), then title their
    in-document groups; results go to ``state.described`` and ``state.titled`` for ``render_plan``."""
    if state.describer is None or not state.plans:
        return
    report = state.report.model
    assert report is not None
    identity, version = _identity(state)
    cache: DescriptionCache | None = state.description_cache
    pending: list[list[tuple[str, ConceptOffer]]] = []  # batches of (cache key, offer), in document order
    batch: list[tuple[str, ConceptOffer]] = []
    size = 0
    for plan in state.plans.values():
        for node in iter_concepts(plan.node):
            assert node.lines is not None
            text = "\n".join(plan.lines[node.lines[0] - 1 : node.lines[1]])
            key = entry_key(identity, version, "describe", plan.title, node.title, text_sha256(text))
            hit = cache.signpost(key) if cache else None
            if hit is not None:
                state.described[node.path] = hit
                report.concepts += 1
                report.concepts_cached += 1
                continue
            if batch and (len(batch) >= BATCH_CONCEPTS or size + len(text) > BATCH_CHARS):
                pending.append(batch)
                batch, size = [], 0
            batch.append(
                (
                    key,
                    ConceptOffer(
                        index=len(batch),
                        id=node.path.removesuffix(".md"),
                        title=node.title,
                        text=text,
                        document=plan.title,
                    ),
                )
            )
            size += len(text)
    if batch:
        pending.append(batch)

    def ask(offers: list[ConceptOffer]) -> Callable[[], Awaitable[Descriptions]]:
        return lambda: state.describer.describe(offers)

    results = _run(state, [ask([offer for _, offer in batch]) for batch in pending], "describe", Descriptions)
    for batch, result in zip(pending, results):
        if result.failed:
            report.concepts_failed += len(batch)
            report.error(result.error or "the describer failed")
            continue
        for (key, offer), signpost in zip(batch, result.items):
            state.described[offer.id + ".md"] = (signpost.description, signpost.tags)
            report.concepts += 1
            if cache:
                cache.put(key, {"description": signpost.description, "tags": signpost.tags})
    if report.concepts_failed:
        state.warn(f"{report.concepts_failed} concepts kept their extractive description and tags: {report.errors[0]}")
    sets = [
        (directory.title, groups, _concept_member(state, plan))
        for plan in state.plans.values()
        for directory, groups in _group_sets(plan.node)
    ]
    state.titled.update(_title(state, sets))


def apply_signposts(concepts: Sequence[Node], described: dict[str, tuple[str, list[str]]]) -> None:
    """Put the model's descriptions and tags on the concepts it described (others keep the extractive ones)."""
    for node in concepts:
        found = described.get(node.path)
        if found is not None:
            node.description, node.tags = found[0], list(found[1])


def _concept_member(state: CompileState, plan: DocPlan) -> Callable[[Node], str]:
    """How a member of an in-document group is shown for the group's title: its title and what it states
    (the model's description, else its first words)."""

    def member(node: Node) -> str:
        if node.is_dir:
            return f"{node.title}: " + "; ".join(c.title for c in node.children[:6])
        found = state.described.get(node.path)
        if found is not None:
            return f"{node.title}: {found[0]}"
        assert node.lines is not None
        first = plan.lines[node.lines[0] - 1 : min(node.lines[1], node.lines[0] + 8)]
        return f"{node.title}: {clip(' '.join(plain(line) for line in first), 120)}"

    return member


# --- groups ---------------------------------------------------------------------------------------------


def _group_sets(root: Node) -> Iterator[tuple[Node, list[Node]]]:
    """Every directory holding groups, with those groups (siblings are titled together, to tell them apart)."""
    for directory in iter_dirs(root):
        groups = [c for c in directory.children if c.is_dir and c.type in GROUP_TYPES and c.children]
        if groups:
            yield directory, groups


def title_folder_groups(state: CompileState) -> dict[str, str]:
    """Model titles of the topic and range groups of documents above the document directories (group path ->
    title); reused from the previous manifest or the cache when their members' signposts are unchanged."""
    if state.describer is None or state.tree is None:
        return {}

    def member(node: Node) -> str:
        if node.type == "Document" or not node.is_dir:
            return f"{node.title}: {node.description}"
        below = [c.title for c in iter_dirs(node) if c.type == "Document"][:6]
        return f"{node.title}: " + "; ".join(below or [c.title for c in node.children[:6]])

    sets = [(directory.title or "Bundle", groups, member) for directory, groups in _group_sets(state.tree)]
    return _title(state, sets, keep=True)


Member = Callable[[Node], str]


def _title(state: CompileState, sets: Sequence[tuple[str, list[Node], Member]], keep: bool = False) -> dict[str, str]:
    """Titles of sibling groups, a call per ``GROUPS_PER_CALL`` of them; a title already given to a sibling
    (by another call) keeps the extractive title instead. ``keep``: remember them in the manifest."""
    report = state.report.model
    assert report is not None
    identity, version = _identity(state)
    cache: DescriptionCache | None = state.description_cache
    known: dict[str, list[str]] = dict((state.previous or {}).get(TITLES_KEY) or {}) if keep else {}
    remembered: dict[str, list[str]] = {}
    calls: list[tuple[str, str, list[Node], list[GroupOffer], set[str]]] = []
    out: dict[str, str] = {}
    for parent, groups, member in sets:
        taken: set[str] = set()  # titles given to these siblings so far
        for first in range(0, len(groups), GROUPS_PER_CALL):
            chunk = groups[first : first + GROUPS_PER_CALL]
            offers = [
                GroupOffer(index=i, members=[clip(member(m), 160) for m in g.children[:MEMBERS_SHOWN]])
                for i, g in enumerate(chunk)
            ]
            key = entry_key(identity, version, "title", parent, *(m for o in offers for m in [*o.members, "\x00"]))
            hit = known.get(key)
            if not (isinstance(hit, list) and len(hit) == len(chunk) and all(isinstance(t, str) for t in hit)):
                hit = cache.titles(key, len(chunk)) if cache else None
            if hit is not None:
                remembered[key] = hit
                report.groups_cached += len(chunk)
                _name(chunk, hit, out, taken, report)
            else:
                calls.append((key, parent, chunk, offers, taken))

    def ask(call: tuple[str, str, list[Node], list[GroupOffer], set[str]]) -> Callable[[], Awaitable[Titles]]:
        return lambda: state.describer.title(call[1], call[3])

    results = _run(state, [ask(c) for c in calls], "titles", Titles)
    for (key, _, chunk, _, taken), result in zip(calls, results):
        if result.failed:
            report.groups_failed += len(chunk)
            report.error(result.error or "the describer failed")
            continue
        remembered[key] = result.titles
        if cache:
            cache.put(key, {"titles": result.titles})
        _name(chunk, result.titles, out, taken, report)
    if keep:
        state.manifest[TITLES_KEY] = dict(sorted(remembered.items()))
    failed = sum(len(chunk) for (_, _, chunk, _, _), result in zip(calls, results) if result.failed)
    if failed:
        state.warn(f"{failed} groups kept their extractive title: {next(r.error for r in results if r.failed)}")
    return out


def model_bullets(state: CompileState) -> list[str]:
    """The log.md bullet of this compile's model work: signposts written, from the cache, kept extractive."""
    report = state.report.model
    if report is None:
        return []
    done = []
    if report.concepts:
        cached = f" ({report.concepts_cached} from the cache)" if report.concepts_cached else ""
        done.append(f"the descriptions and tags of {report.concepts} concept{'s' * (report.concepts != 1)}{cached}")
    if report.groups:
        cached = f" ({report.groups_cached} from the cache)" if report.groups_cached else ""
        done.append(f"the titles of {report.groups} group{'s' * (report.groups != 1)}{cached}")
    kept = []
    if report.concepts_failed:
        kept.append(f"{report.concepts_failed} concept{'s' * (report.concepts_failed != 1)}")
    if report.groups_failed:
        kept.append(f"{report.groups_failed} group{'s' * (report.groups_failed != 1)}")
    if not done and not kept:
        return []
    text = f"* **Model**: `{report.describer}` wrote {' and '.join(done) or 'nothing'}"
    if kept:
        error = clip(report.errors[0], 160) if report.errors else "the describer failed"
        text += f"; {' and '.join(kept)} kept the extractive text (fallback: {error})"
    return [text + "."]


def _name(groups: list[Node], titles: list[str], out: dict[str, str], taken: set[str], report: ModelReport) -> None:
    """Record the titles of ``groups``; one a sibling already has keeps its extractive title."""
    for group, title in zip(groups, titles):
        if title.casefold() in taken:
            report.groups_failed += 1
            report.error(f"two sibling groups titled {title!r}: the second kept its extractive title")
            continue
        taken.add(title.casefold())
        out[group.path] = title
        report.groups += 1


# --- running the calls ----------------------------------------------------------------------------------


def _run(state: CompileState, calls: list[Callable[[], Awaitable[T]]], stage: str, kind: type[T]) -> list[T]:
    """Run ``calls`` concurrently (at most the describer's ``concurrency`` at once) in an event loop of their
    own, with progress; after ``GIVE_UP_AFTER`` failures in a row (in this compile) the rest fail unasked."""
    if not calls:
        return []
    report = state.report.model
    assert report is not None
    limit = max(1, int(getattr(state.describer, "concurrency", 4) or 4))
    import asyncio  # with a model only: an extractive compile starts without the event loop's modules

    async def run_all() -> list[T]:
        gate = asyncio.Semaphore(limit)
        done = 0

        async def one(call: Callable[[], Awaitable[T]]) -> T:
            nonlocal done
            async with gate:
                if state.model_failing >= GIVE_UP_AFTER:
                    result = kind(failed=True, error=f"not asked: {GIVE_UP_AFTER} describer calls failed in a row")
                else:
                    try:
                        result = await call()
                    except DeadlineExceeded as exc:
                        result = kind(failed=True, error=exc.message, usage=getattr(exc, "usage", None) or Usage())
                    state.model_failing = state.model_failing + 1 if result.failed else 0
            done += 1
            if state.progress:
                state.progress(stage, done, len(calls))
            return result

        try:
            return list(await asyncio.gather(*(one(c) for c in calls)))
        finally:
            await aclose(state.describer)

    results = _in_own_loop(run_all)
    for result in results:
        report.usage += result.usage
    return results


def _in_own_loop(factory: Callable[[], Awaitable[Any]]) -> Any:
    """Run a coroutine to completion in a new event loop (in a thread when this one already runs a loop)."""
    import asyncio
    import concurrent.futures

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(factory())  # type: ignore[arg-type]
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, factory()).result()  # type: ignore[arg-type]


__all__ = ["apply_signposts", "describe_concepts", "describer_label", "model_bullets", "start", "title_folder_groups"]
