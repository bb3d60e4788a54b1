"""Requirements: the operative rules (obligations, prohibitions, permissions) a bundle's sections state.

``extract_requirements(bundle)`` reads each section with the reader's extractor role (offline: the modal
structure of its sentences) and returns :class:`Requirement` records, each cited to the lines of its clause,
with a content-hash id stable across recompiles. ``write_requirements`` / ``load_requirements`` store them as
JSON lines. See docs/compliance.md.
"""

from __future__ import annotations

from okf.requirements.extract import extract_requirements, extract_requirements_async
from okf.requirements.model import (
    ExtractionStats,
    Requirement,
    RequirementCitation,
    RequirementsResult,
    SectionFailure,
)
from okf.requirements.store import load_requirements, write_requirements

__all__ = [
    "ExtractionStats",
    "Requirement",
    "RequirementCitation",
    "RequirementsResult",
    "SectionFailure",
    "extract_requirements",
    "extract_requirements_async",
    "load_requirements",
    "write_requirements",
]
