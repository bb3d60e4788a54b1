"""Readers: the model seam. ``OfflineReader`` (default, no network) and ``LLMReader`` (OpenAI-compatible).

``LLMReader``, ``ReaderConfig``, ``make_reader`` are imported lazily so that code needing only the protocol
or the offline reader never imports the ``openai`` package; ``OfflineReader`` too, so that code needing only
the protocol's types (``okf compile``, ``okf check``) does not import the offline reader's modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from okf.readers.base import (
    Choice,
    Document,
    DraftAnswer,
    Evidence,
    Judgement,
    Reader,
    Role,
    Selection,
    SignpostOffer,
    Usage,
    Verdict,
)

if TYPE_CHECKING:
    from okf.readers.config import Profile, ReaderConfig
    from okf.readers.factory import make_reader
    from okf.readers.llm import LLMReader
    from okf.readers.offline import OfflineReader

_LAZY = {
    "OfflineReader": "okf.readers.offline",
    "LLMReader": "okf.readers.llm",
    "ReaderConfig": "okf.readers.config",
    "Profile": "okf.readers.config",
    "make_reader": "okf.readers.factory",
}

__all__ = [
    "Choice",
    "Document",
    "DraftAnswer",
    "Evidence",
    "Judgement",
    "LLMReader",
    "OfflineReader",
    "Profile",
    "Reader",
    "ReaderConfig",
    "Role",
    "Selection",
    "SignpostOffer",
    "Usage",
    "Verdict",
    "make_reader",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'okf.readers' has no attribute {name!r}")
