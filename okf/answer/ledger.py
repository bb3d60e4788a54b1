"""The Sources ledger of an answer, and what a cited synthesis adds to its caveats.

A ledger entry lists a cited concept's raw sources as ``resource:start-end``, never invented. A cited
synthesis (a concept whose sources are concepts of the same bundle, written by ``okf ask --save``) is traced
through to the raw sources of the concepts it cites, which are named in ``through``.
"""

from __future__ import annotations

import re

from okf.bundle import Bundle
from okf.bundle.citations import cited_changes, raw_sources
from okf.bundle.model import Concept
from okf.models import SourceLine

SYNTHESIS_TYPE = "Synthesis"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _one_line(text: str) -> str:
    # One line, no control characters: a ledger entry must not be able to rewrite the terminal.
    return " ".join(_CONTROL.sub(" ", text).split())


def ledger_line(bundle: Bundle | None, number: int, concept: Concept) -> SourceLine:
    """Entry ``number`` of the Sources ledger: ``concept``'s raw sources, traced through bundle concepts."""
    found = raw_sources(bundle, concept)
    spans = [s for s in (_one_line(span) for span in found.spans) if s]
    return SourceLine(number=number, concept_id=concept.id, title=concept.title, sources=spans, through=found.through)


def is_synthesis(concept: Concept) -> bool:
    """A synthesis: a concept typed ``Synthesis`` (what ``okf ask --save`` writes)."""
    return concept.meta.type == SYNTHESIS_TYPE


def synthesis_caveats(bundle: Bundle | None, number: int, concept: Concept) -> list[str]:
    """What a reader should know about a cited synthesis: who wrote it and when; and, for any concept that
    cites concepts of the bundle, whether one of them changed since (then it may no longer hold)."""
    out: list[str] = []
    title = _one_line(concept.title)
    generated = concept.meta.generated
    if is_synthesis(concept):
        by = _one_line(generated.by) if generated and generated.by else "an unknown writer"
        reader = (generated.model_extra or {}).get("reader") if generated else None
        via = f" with the {_one_line(reader)} reader" if isinstance(reader, str) and reader.strip() else ""
        when = f" on {generated.at:%Y-%m-%d}" if generated and generated.at else ""
        out.append(
            f'[{number}] "{title}" is a saved answer (a synthesis written by {by}{via}{when}, '
            f"{concept.meta.trust_tier.value}); its Sources entry traces it to the raw sources of the "
            "concepts it cites."
        )
    changes = cited_changes(bundle, concept) if bundle is not None else []
    if changes:
        names = ", ".join(sorted({c.path for c in changes})[:3])
        out.append(
            f'[{number}] "{title}" is stale: {names} changed since it was written; check the answer against them.'
        )
    return out


__all__ = ["SYNTHESIS_TYPE", "is_synthesis", "ledger_line", "synthesis_caveats"]
