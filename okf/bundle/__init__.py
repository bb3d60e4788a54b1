"""Bundles: open an OKF v0.2 bundle (:class:`~okf.bundle.bundle.Bundle`), its typed model and diagnostics.

The names below are defined in the modules of this package and handed on here, each module imported when one of
its names is first asked for: a program using only a leaf module (``okf compile`` reads ``paths``, ``syntheses``
and ``frontmatter``) does not build the bundle model's classes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_HOME = {
    "Bundle": "okf.bundle.bundle",
    "CODES": "okf.bundle.codes",
    "diagnostic": "okf.bundle.codes",
    "IndexFile": "okf.bundle.listing",
    "ResolvedEntry": "okf.bundle.listing",
    **dict.fromkeys(
        (
            "Actor",
            "Concept",
            "ConceptMeta",
            "Diagnostic",
            "Link",
            "Listing",
            "Signpost",
            "SourceRef",
            "Status",
            "TrustTier",
            "as_datetime",
        ),
        "okf.bundle.model",
    ),
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
        globals()[name] = value  # looked up once
        return value
    raise AttributeError(f"module 'okf.bundle' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))


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
