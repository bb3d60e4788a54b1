"""The describer role: a model writes the signposts of a compiled bundle (``okf compile --model``).

A :class:`Describer` has two async operations:

- ``describe(concepts)``: for each concept (its document's title, its own title and text), a one-sentence
  ``description`` of what it states and its key terms (``tags``);
- ``title(parent, groups)``: for sibling groups of a folder (each given as its members' titles and
  descriptions), a short title naming each group's topic, telling the siblings apart.

Titles of groups are written from what the members' signposts say (the fan-in of the RLM method: the model
reads the reduced material, never the raw whole). The payloads okf sends and the strict validation of the
replies live here too; a reply that fails validation raises :class:`~okf.errors.ModelOutputError` with a
message written for the model (shown to it in the repair retry). Like every role, a describer never raises
for a model failure: the result carries ``failed=True`` and the error, and the compile keeps the extractive
text for those items.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from okf.errors import ModelOutputError
from okf.readers.base import Usage

DESCRIPTION_CHARS = 240  # as the extractive descriptions (okf.compile.describe.DESCRIPTION_CHARS)
TAG_CHARS = 60
MAX_TAGS = 10
TITLE_CHARS = 60
TEXT_CHARS = 8000  # of one concept's text shown; compiled concepts fit the judge's window (6,000) anyway
MEMBER_CHARS = 160


class ConceptOffer(BaseModel):
    """A concept as offered to the describer: its position in the batch, id, document title, title and text."""

    index: int
    id: str
    title: str
    text: str
    document: str = ""


class ConceptSignpost(BaseModel):
    """What the describer wrote for one concept."""

    id: str
    description: str
    tags: list[str] = Field(default_factory=list)


class Descriptions(BaseModel):
    """One signpost per offered concept, in offer order; none when the call failed."""

    items: list[ConceptSignpost] = Field(default_factory=list)
    failed: bool = False
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


class GroupOffer(BaseModel):
    """A group as offered for a title: its position among its siblings and its members' signposts."""

    index: int
    members: list[str]


class Titles(BaseModel):
    """One title per offered group, in offer order; none when the call failed."""

    titles: list[str] = Field(default_factory=list)
    failed: bool = False
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


@runtime_checkable
class Describer(Protocol):
    """Anything that writes concept signposts and group titles (an ``LLMReader`` with a describer model)."""

    def role_identity(self, role: str) -> str:
        """What its work depends on (model and endpoint): the description cache keys on it."""
        ...

    async def describe(self, concepts: Sequence[ConceptOffer]) -> Descriptions: ...

    async def title(self, parent: str, groups: Sequence[GroupOffer]) -> Titles: ...


# --- payloads -------------------------------------------------------------------------------------------


def _dump(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=1)


def describe_payload(concepts: Sequence[ConceptOffer]) -> str:
    """The describer's user message for ``describe``."""
    return _dump(
        {
            "task": "describe",
            "concepts": [
                {"index": c.index, "id": c.id, "document": c.document, "title": c.title, "text": c.text[:TEXT_CHARS]}
                for c in concepts
            ],
        }
    )


def title_payload(parent: str, groups: Sequence[GroupOffer]) -> str:
    """The describer's user message for ``title``."""
    return _dump(
        {
            "task": "title",
            "parent": parent,
            "groups": [{"index": g.index, "members": [m[:MEMBER_CHARS] for m in g.members]} for g in groups],
        }
    )


# --- validation -----------------------------------------------------------------------------------------


def _line(value: Any) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-") + "…"


def _fold(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():  # "3" is a harmless slip
        return int(value.strip())
    return None


def _match(text: str, key: str, offered: int, ids: Sequence[str] | None, what: str) -> dict[int, dict[str, Any]]:
    """Reply items by offered position (``index``, or ``id`` when ids were offered); every position exactly
    once, otherwise a ModelOutputError naming what was wrong."""
    from okf.readers.replies import extract_json  # the reply parsers import the synthesis roles: with a model only

    obj = extract_json(text, "describer")
    items = obj.get(key)
    if not isinstance(items, list):
        raise ModelOutputError(f'the JSON object must have a "{key}" list', raw=text, role="describer")
    by_id = {ident: i for i, ident in enumerate(ids or [])}
    found: dict[int, dict[str, Any]] = {}
    problems: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            problems.append(f"an entry is not an object: {json.dumps(item)[:60]}")
            continue
        index = _index(item.get("index"))
        if index is None and isinstance(item.get("id"), str):
            index = by_id.get(item["id"])
        if index is None or not 0 <= index < offered:
            shown = json.dumps(item.get("index", item.get("id")), ensure_ascii=False)[:60]
            problems.append(f"an entry names no offered {what}: {shown}")
        elif index in found:
            problems.append(f"two entries for index {index}")
        else:
            found[index] = item
    missing = [str(i) for i in range(offered) if i not in found]
    if missing:
        problems.append(f"no entry for index {', '.join(missing[:12])}")
    _fail(problems, text, f"give exactly one entry for each of the {offered} {what}s, by index")
    return found


def _fail(problems: list[str], text: str, hint: str) -> None:
    if problems:
        shown = "; ".join(problems[:6]) + (f"; and {len(problems) - 6} more" if len(problems) > 6 else "")
        raise ModelOutputError(f"{shown} ({hint})", raw=text, role="describer")


def _tags(value: Any, title: str, where: str, problems: list[str]) -> list[str]:
    """Key terms as given, cleaned: one line each, clipped, duplicates and the title itself dropped."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f'{where}: "tags" must be a list of strings')
        return []
    tags: list[str] = []
    seen: set[str] = {_fold(title)}
    for raw in value:
        tag = _clip(_line(raw).strip(" .,;:"), TAG_CHARS)
        if tag and _fold(tag) and _fold(tag) not in seen:
            seen.add(_fold(tag))
            tags.append(tag)
    if not tags:
        problems.append(f'{where}: "tags" must name at least one key term besides the title')
    return tags[:MAX_TAGS]


def parse_descriptions(text: str, concepts: Sequence[ConceptOffer]) -> list[ConceptSignpost]:
    """One signpost per offered concept, in offer order: a description that is not the title, key terms."""
    found = _match(text, "concepts", len(concepts), [c.id for c in concepts], "concept")
    problems: list[str] = []
    out: list[ConceptSignpost] = []
    for n, concept in enumerate(concepts):
        item, where = found[n], f"index {n}"
        description = _line(item.get("description"))
        if len(description.split()) < 3 or sum(map(str.isalpha, description)) < 12:
            problems.append(f'{where}: "description" must be a sentence saying what the text states')
        elif _fold(description) == _fold(concept.title):
            problems.append(f'{where}: "description" repeats the title; say what the text states')
        tags = _tags(item.get("tags"), concept.title, where, problems)
        out.append(ConceptSignpost(id=concept.id, description=_clip(description, DESCRIPTION_CHARS), tags=tags))
    _fail(problems, text, "give every concept a description sentence and its key terms")
    return out


def parse_titles(text: str, groups: Sequence[GroupOffer]) -> list[str]:
    """One title per offered group, in offer order: words (not numbers alone), no two the same."""
    found = _match(text, "titles", len(groups), None, "group")
    problems: list[str] = []
    out: list[str] = []
    seen: dict[str, int] = {}
    for n in range(len(groups)):
        title = _clip(_line(found[n].get("title")).strip(" .;:"), TITLE_CHARS)
        if sum(map(str.isalpha, title)) < 3:
            problems.append(f'index {n}: "title" must name the topic in words')
        elif _fold(title) in seen:
            problems.append(f"index {seen[_fold(title)]} and {n} have the same title; tell the groups apart")
        seen.setdefault(_fold(title), n)
        out.append(title)
    _fail(problems, text, "give every group a short title of its own")
    return out


__all__ = [
    "ConceptOffer",
    "ConceptSignpost",
    "Describer",
    "Descriptions",
    "GroupOffer",
    "Titles",
    "describe_payload",
    "parse_descriptions",
    "parse_titles",
    "title_payload",
]
