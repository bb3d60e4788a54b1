"""Bundles: open an OKF v0.2 bundle (:class:`~okf.bundle.bundle.Bundle`), its typed model and diagnostics.

The names below are defined in the modules of this package and handed on here.
"""

from __future__ import annotations

from okf.bundle.bundle import Bundle
from okf.bundle.codes import CODES, diagnostic
from okf.bundle.listing import IndexFile, ResolvedEntry
from okf.bundle.model import (
    Actor,
    Concept,
    ConceptMeta,
    Diagnostic,
    Link,
    Listing,
    Signpost,
    SourceRef,
    Status,
    TrustTier,
    as_datetime,
)

__all__ = [
    "CODES",
    "Actor",
    "Bundle",
    "Concept",
    "ConceptMeta",
    "Diagnostic",
    "IndexFile",
    "Link",
    "Listing",
    "ResolvedEntry",
    "Signpost",
    "SourceRef",
    "Status",
    "TrustTier",
    "as_datetime",
    "diagnostic",
]
