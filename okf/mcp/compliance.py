"""The requirements and comply MCP tools, free of the MCP SDK (like :mod:`okf.mcp.tools`)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from okf.compliance import ComplianceResult, SubjectText, comply_async
from okf.compliance.pipeline import MAX_REQUIREMENTS
from okf.errors import ConfigError
from okf.mcp.tools import BundleSet, positive
from okf.requirements import Requirement, extract_requirements_async
from okf.requirements.model import ExtractionStats, SectionFailure
from okf.settings import MAX_RESULTS

DEFAULT_MAX_RESULTS: int = MAX_RESULTS.default  # okf.settings.ComplianceSettings


class RequirementList(BaseModel):
    """The requirements of a bundle (or of one directory), the first ``max_results`` of them."""

    bundle: str
    under: str
    total: int = Field(description="Requirements found in all.")
    truncated: bool = Field(description="True when more requirements exist than were returned.")
    requirements: list[Requirement]
    failures: list[SectionFailure] = Field(description="Sections whose extraction failed (never 'no rules').")
    stats: ExtractionStats


async def requirements(
    shelf: BundleSet, bundle: str, under: str = "", max_results: int = DEFAULT_MAX_RESULTS
) -> RequirementList:
    """The operative rules of a served bundle's sections (under one directory when given)."""
    positive("max_results", max_results)
    b = shelf.get(bundle)
    result = await extract_requirements_async(b, under=under or None, reader=shelf.reader)  # type: ignore[arg-type]
    return RequirementList(
        bundle=bundle,
        under=under,
        total=len(result.requirements),
        truncated=len(result.requirements) > max_results,
        requirements=result.requirements[:max_results],
        failures=result.failures,
        stats=result.stats,
    )


async def comply(
    shelf: BundleSet,
    bundle: str,
    subject_text: str,
    subject_name: str = "subject",
    question: str = "",
    under: str = "",
    max_requirements: int | None = None,
) -> ComplianceResult:
    """Judge a subject text against a served bundle: the requirements under ``under``, else those navigation
    finds for ``question``."""
    positive("max_requirements", max_requirements)
    b = shelf.get(bundle)
    if not subject_text.strip():
        raise ConfigError("subject_text is empty", fix="pass the text of the document to check")
    subject = SubjectText(name=subject_name.strip() or "subject", text=subject_text)
    most = MAX_REQUIREMENTS if max_requirements is None else max_requirements
    if under.strip():
        found = await extract_requirements_async(b, under=under, reader=shelf.reader)  # type: ignore[arg-type]
        result = await comply_async(
            subject,
            requirements=found.requirements,
            question=question or None,
            reader=shelf.reader,
            max_requirements=most,
        )
    else:
        result = await comply_async(
            subject, bundle=b, question=question or None, reader=shelf.reader, max_requirements=most
        )
    return result.model_copy(update={"navigation": None})
