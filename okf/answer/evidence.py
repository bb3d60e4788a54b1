"""Gather the shortlisted bodies as evidence for the answerer, within a token budget.

Tokens are estimated as characters / 4 (no tokenizer dependency; the estimate is documented in docs/ask.md).
Items are taken in shortlist order. An item that does not fit whole is cut at a line end (the one cut
navigation uses, :func:`okf.navigator.receipts.judged_text`) and marked truncated; when less than
:data:`MIN_ITEM_CHARS` of budget is left for it, it is dropped: a dropped item is not evidence and can never
be cited.

Every given item gets a :class:`~okf.models.Receipt` describing exactly the text handed to the answerer:
``start_line`` is the body's first file line, ``end_line`` the last file line of the given text, ``sha256``
the hash of the given text (UTF-8), so ``okf.sources.span_sha256(file_text, start_line, end_line)`` checks
it. An item given whole carries the same receipt as navigation's.

Recursive synthesis loads the whole evidence instead (:func:`load_evidence`): every shortlisted body, each
within the answer budget on its own, and asserts the load is complete (:func:`assert_loaded`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from okf.bundle.model import Concept
from okf.errors import BundleError
from okf.models import Receipt, ShortlistEntry
from okf.navigator.receipts import judged_text
from okf.readers.base import Evidence

CHARS_PER_TOKEN = 4
# Below this many characters a truncated body says too little to be worth an answerer's attention.
MIN_ITEM_CHARS = 200
# Evidence ids the answerer sees must be short plain tokens: easy to cite, easy to strip from prose.
_SAFE_ID = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,31}")


class ConceptSource(Protocol):
    """What evidence gathering needs from a bundle: concepts by reference."""

    def concept(self, ref: str) -> Concept: ...


class BundleSet:
    """Several bundles read as one evidence source: a shortlist entry's concept is read from the bundle the
    entry names (``ShortlistEntry.bundle``), the first bundle when it names none."""

    def __init__(self, bundles: Sequence[Any]) -> None:
        self.bundles = list(bundles)
        self.by_root = {str(b.root): b for b in self.bundles}

    def concept(self, ref: str) -> Concept:
        return self.bundles[0].concept(ref)

    def bundle_of(self, entry: ShortlistEntry) -> Any:
        """The bundle holding ``entry``."""
        return self.by_root.get(entry.bundle or "", self.bundles[0])


def concept_of(source: ConceptSource, entry: ShortlistEntry) -> Concept:
    """``entry``'s concept, from the bundle it names when ``source`` holds several."""
    if isinstance(source, BundleSet):
        return source.bundle_of(entry).concept(entry.path)
    return source.concept(entry.path)


@dataclass
class EvidenceItem:
    """One item given to the answerer, with where it came from and the receipt of the given text."""

    evidence: Evidence
    entry: ShortlistEntry
    concept: Concept
    receipt: Receipt


@dataclass
class GatheredEvidence:
    """The evidence given to the answerer and what was cut, dropped or unreadable, for caveats."""

    items: list[EvidenceItem] = field(default_factory=list)
    dropped: list[ShortlistEntry] = field(default_factory=list)
    unreadable: list[tuple[ShortlistEntry, str]] = field(default_factory=list)
    evidence_tokens: int = 0

    @property
    def by_id(self) -> dict[str, EvidenceItem]:
        """Given items by evidence id."""
        return {item.evidence.id: item for item in self.items}

    @property
    def truncated(self) -> list[EvidenceItem]:
        """Given items that were cut to fit the budget."""
        return [item for item in self.items if item.receipt.truncated]


def estimate_tokens(text: str) -> int:
    """The token estimate okf uses for budgets: characters / 4, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


def evidence_ids(shortlist: list[ShortlistEntry]) -> list[str]:
    """Navigation's receipt ids when they are safe, unique tokens; otherwise ``c1``..``cN`` in shortlist order."""
    ids = [entry.receipt.evidence_id for entry in shortlist]
    if all(_SAFE_ID.fullmatch(i) for i in ids) and len(set(ids)) == len(ids):
        return ids
    return [f"c{n}" for n in range(1, len(shortlist) + 1)]


def receipt_for(
    evidence_id: str, concept: Concept, text: str, *, truncated: bool, bundle: str | None = None
) -> Receipt:
    """The receipt of ``text`` as given: lines of ``concept.body`` from its first body line."""
    return Receipt(
        evidence_id=evidence_id,
        path=concept.path,
        bundle=bundle,
        start_line=concept.body_start_line,
        end_line=concept.body_start_line + text.count("\n"),
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        truncated=truncated,
    )


def gather_evidence(
    bundle: ConceptSource, shortlist: list[ShortlistEntry], *, evidence_tokens: int
) -> GatheredEvidence:
    """Shortlisted bodies as evidence, in shortlist order, within ``evidence_tokens`` (chars / 4)."""
    out = GatheredEvidence(evidence_tokens=evidence_tokens)
    remaining = evidence_tokens * CHARS_PER_TOKEN
    for evidence_id, entry in zip(evidence_ids(shortlist), shortlist, strict=True):
        try:
            concept = concept_of(bundle, entry)
        except BundleError as exc:  # changed or removed since navigation: say so, never guess its text
            out.unreadable.append((entry, str(exc)))
            continue
        text, truncated = judged_text(concept.body, max(remaining, 1))
        if truncated and remaining < MIN_ITEM_CHARS:
            out.dropped.append(entry)
            continue
        remaining -= len(text)
        evidence = Evidence(
            id=evidence_id, title=concept.title, text=text, truncated=truncated, status=entry.status, stale=entry.stale
        )
        out.items.append(
            EvidenceItem(
                evidence,
                entry,
                concept,
                receipt_for(evidence_id, concept, text, truncated=truncated, bundle=entry.bundle),
            )
        )
    return out


def load_evidence(bundle: ConceptSource, shortlist: list[ShortlistEntry], *, item_tokens: int) -> GatheredEvidence:
    """Every shortlisted body as evidence, in shortlist order, each cut to ``item_tokens`` on its own.

    Nothing is dropped for want of room: what does not fit one prompt is read in slices (okf.answer.synthesis).
    An unreadable item is kept in ``unreadable``. ``evidence_tokens`` is the budget of one prompt.
    """
    out = GatheredEvidence(evidence_tokens=item_tokens)
    for evidence_id, entry in zip(evidence_ids(shortlist), shortlist, strict=True):
        try:
            concept = concept_of(bundle, entry)
        except BundleError as exc:
            out.unreadable.append((entry, str(exc)))
            continue
        text, truncated = judged_text(concept.body, item_tokens * CHARS_PER_TOKEN)
        evidence = Evidence(
            id=evidence_id, title=concept.title, text=text, truncated=truncated, status=entry.status, stale=entry.stale
        )
        out.items.append(
            EvidenceItem(
                evidence,
                entry,
                concept,
                receipt_for(evidence_id, concept, text, truncated=truncated, bundle=entry.bundle),
            )
        )
    assert_loaded(shortlist, out)
    return out


def assert_loaded(shortlist: list[ShortlistEntry], loaded: GatheredEvidence) -> None:
    """The load-completeness assertion: every delivered item is loaded or reported unreadable, exactly once.

    A short load would be a silent evidence drop that no coverage check downstream can see (coverage is
    checked over what was loaded), so it is an error, never a smaller answer.
    """
    delivered = [(entry.bundle or "", entry.path) for entry in shortlist]
    held = [(item.entry.bundle or "", item.entry.path) for item in loaded.items] + [
        (entry.bundle or "", entry.path) for entry, _ in loaded.unreadable
    ]
    ids = [item.evidence.id for item in loaded.items]
    if sorted(held) != sorted(delivered) or len(set(ids)) != len(ids):
        missing = sorted(path for _, path in set(delivered) - set(held))
        detail = f"missing {', '.join(missing[:5])}" if missing else "some held twice"
        raise BundleError(
            f"evidence load incomplete: {len(held)} of {len(delivered)} shortlisted items held, "
            f"{detail}; nothing was answered",
            fix="run the question again; if it persists, report it with the bundle",
        )
