"""The deterministic adaptation of a reader's loose rule to a :class:`Requirement`: the closed deontic vocabulary,
``dimension: value`` applicability, the citation of the clause's lines and the content-hash id.

- ``deontic_type``: "obligation", "prohibition" or "permission" (case, spaces and hyphens aside); anything
  else, an empty string included, is ``ambiguous``.
- ``applicability``: each entry as ``dimension: value``; an entry without a colon is a ``condition``.
- ``requirement_id``: ``req-`` and 16 hex digits of the sha256 of the concept id, the sha256 of the cited
  lines, the deontic type and the rule's text (whitespace and case folded). Unchanged text in an unchanged
  section gives the same id after any recompile; the line numbers themselves are not hashed.
"""

from __future__ import annotations

import hashlib
import re

from okf.readers.extraction import RuleDraft, Section
from okf.requirements.model import DEONTIC_TYPES, DeonticType, Requirement, RequirementCitation

ID_HEX = 16


def deontic(value: str) -> DeonticType:
    """The closed deontic type of a loose string: off-vocabulary is ``ambiguous``."""
    word = re.sub(r"[\s_-]+", " ", value or "").strip().casefold()
    return word if word in DEONTIC_TYPES[:3] else "ambiguous"  # type: ignore[return-value]


def condition(entry: str) -> str:
    """An applicability entry as ``dimension: value``."""
    entry = " ".join(entry.split())
    dimension, colon, value = entry.partition(":")
    if colon and dimension.strip() and value.strip() and len(dimension) <= 40:
        return f"{dimension.strip().casefold()}: {value.strip()}"
    return f"condition: {entry}"


def requirement_id(concept_id: str, span_sha256: str, kind: str, text: str) -> str:
    """The content hash naming a requirement (see the module docstring)."""
    folded = " ".join(text.split()).casefold()
    material = "\x1f".join([concept_id, span_sha256, kind, folded])
    return "req-" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:ID_HEX]


def adapt(draft: RuleDraft, section: Section, path: str, extractor: str) -> Requirement | None:
    """The requirement a draft states, cited to its lines of ``section``; None for a blank rule."""
    text = " ".join(draft.requirement_text.split())
    if not text:
        return None
    start = min(max(draft.start_line, section.first_line), section.last_line)
    end = min(max(draft.end_line, start), section.last_line)
    digest = hashlib.sha256(section.span(start, end).encode("utf-8")).hexdigest()
    kind = deontic(draft.deontic_type)
    citation = RequirementCitation(
        concept_id=section.id, path=path, title=section.title, start_line=start, end_line=end, sha256=digest
    )
    return Requirement(
        requirement_id=requirement_id(section.id, digest, kind, text),
        requirement_text=text,
        deontic_type=kind,
        actor=" ".join(draft.actor.split()),
        applicability=list(dict.fromkeys(condition(a) for a in draft.applicability if a.strip())),
        evidence_standard=" ".join(draft.evidence_standard.split()),
        citation=citation,
        extractor=extractor,
    )
