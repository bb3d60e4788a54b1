"""okf: the embedding-free toolkit for Open Knowledge Format bundles.

The public API (see docs/api.md)::

    import okf

    bundle = okf.open_bundle("bundles/harborview")
    result = okf.navigate(bundle, "How many paid time off days does a new employee get each year?")
    answer = okf.ask(bundle, "How many paid time off days does a new employee get each year?")
    saved = okf.save_answer(bundle, answer)    # file it back as a Synthesis concept (the wiki loop)
    facts = okf.check_contract(bundle, "bundles/harborview.contract.yaml")   # typed facts, zero model calls

Every public name is defined in a named module (``_EXPORTS`` says which) and handed on here, loaded on first
use (a module ``__getattr__``, PEP 562), so ``import okf`` stays fast and imports neither the ``openai``
client, ``click`` nor the MCP SDK. No module of okf shares its name with one of these names: ``okf.check``
is the function, its package is :mod:`okf.checker` (likewise :mod:`okf.navigator`, :mod:`okf.answer`,
:mod:`okf.compliance`). tests/test_api.py keeps ``__all__``, ``_EXPORTS`` and the typing imports equal.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

from okf._version import __version__

# A library logs and never prints: records reach stderr only when the application (okf's CLI: -v) says so.
logging.getLogger("okf").addHandler(logging.NullHandler())

if TYPE_CHECKING:
    from okf.answer.pipeline import ask, ask_async
    from okf.answer.save import save_answer
    from okf.bundle.bundle import Bundle
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
    )
    from okf.checker.api import CheckReport, check
    from okf.compile.api import compile_bundle
    from okf.compile.state import CompileOptions, CompileReport, SkippedFile
    from okf.compliance.model import ComplianceResult, Finding, SubjectSpan
    from okf.compliance.pipeline import comply, comply_async
    from okf.compliance.subject import load_subject
    from okf.contract.evaluate import ContractReport, check_contract
    from okf.contract.load import load_contract
    from okf.contract.model import Contract, contract_schema
    from okf.contract.scaffold import init_contract
    from okf.errors import (
        BundleError,
        BundleNotFoundError,
        CompileError,
        ConceptNotFoundError,
        ConfigError,
        ContractError,
        DeadlineExceeded,
        ModelOutputError,
        NotABundleError,
        OKFError,
        PathEscapeError,
        ProviderError,
    )
    from okf.eval.questions import EvalQuestion
    from okf.eval.report import EvalReport, EvalSummary
    from okf.eval.runner import evaluate, evaluate_async
    from okf.models import (
        AngleRecord,
        AnswerResult,
        Budgets,
        Citation,
        ContractSummary,
        EscalationRecord,
        FactResult,
        NavigationResult,
        NavigationStats,
        Orchestration,
        PartRecord,
        Receipt,
        RoundRecord,
        SavedSynthesis,
        ShortlistEntry,
        SourceLine,
        Supporting,
        SynthesisNode,
        SynthesisReport,
        TraceEvent,
    )
    from okf.navigator.api import navigate, navigate_async
    from okf.readers.assessment import SubjectText
    from okf.readers.base import Reader, Usage
    from okf.readers.config import ReaderConfig
    from okf.readers.factory import make_reader
    from okf.readers.llm import LLMReader
    from okf.readers.offline import OfflineReader
    from okf.requirements.extract import extract_requirements, extract_requirements_async
    from okf.requirements.model import (
        ExtractionStats,
        Requirement,
        RequirementCitation,
        RequirementsResult,
        SectionFailure,
    )
    from okf.requirements.store import load_requirements, write_requirements

    open_bundle = Bundle.open

# Public name -> the module that defines it. Each is imported on first access (module __getattr__, PEP 562).
_EXPORTS: dict[str, str] = {
    # bundles
    "Bundle": "okf.bundle.bundle",
    "Actor": "okf.bundle.model",
    "Concept": "okf.bundle.model",
    "ConceptMeta": "okf.bundle.model",
    "Diagnostic": "okf.bundle.model",
    "Link": "okf.bundle.model",
    "Listing": "okf.bundle.model",
    "Signpost": "okf.bundle.model",
    "SourceRef": "okf.bundle.model",
    "Status": "okf.bundle.model",
    "TrustTier": "okf.bundle.model",
    # operations
    "compile_bundle": "okf.compile.api",
    "CompileOptions": "okf.compile.state",
    "CompileReport": "okf.compile.state",
    "SkippedFile": "okf.compile.state",
    "check": "okf.checker.api",
    "CheckReport": "okf.checker.api",
    "check_contract": "okf.contract.evaluate",
    "load_contract": "okf.contract.load",
    "init_contract": "okf.contract.scaffold",
    "contract_schema": "okf.contract.model",
    "Contract": "okf.contract.model",
    "ContractReport": "okf.contract.evaluate",
    "navigate": "okf.navigator.api",
    "navigate_async": "okf.navigator.api",
    "ask": "okf.answer.pipeline",
    "ask_async": "okf.answer.pipeline",
    "save_answer": "okf.answer.save",
    "evaluate": "okf.eval.runner",
    "evaluate_async": "okf.eval.runner",
    "EvalQuestion": "okf.eval.questions",
    "EvalReport": "okf.eval.report",
    "EvalSummary": "okf.eval.report",
    "extract_requirements": "okf.requirements.extract",
    "extract_requirements_async": "okf.requirements.extract",
    "load_requirements": "okf.requirements.store",
    "write_requirements": "okf.requirements.store",
    "comply": "okf.compliance.pipeline",
    "comply_async": "okf.compliance.pipeline",
    "load_subject": "okf.compliance.subject",
    # results
    "AngleRecord": "okf.models",
    "EscalationRecord": "okf.models",
    "Orchestration": "okf.models",
    "PartRecord": "okf.models",
    "RoundRecord": "okf.models",
    "AnswerResult": "okf.models",
    "Budgets": "okf.models",
    "Citation": "okf.models",
    "ContractSummary": "okf.models",
    "FactResult": "okf.models",
    "NavigationResult": "okf.models",
    "NavigationStats": "okf.models",
    "Receipt": "okf.models",
    "SavedSynthesis": "okf.models",
    "ShortlistEntry": "okf.models",
    "SourceLine": "okf.models",
    "Supporting": "okf.models",
    "SynthesisNode": "okf.models",
    "SynthesisReport": "okf.models",
    "TraceEvent": "okf.models",
    "Requirement": "okf.requirements.model",
    "RequirementCitation": "okf.requirements.model",
    "RequirementsResult": "okf.requirements.model",
    "SectionFailure": "okf.requirements.model",
    "ExtractionStats": "okf.requirements.model",
    "ComplianceResult": "okf.compliance.model",
    "Finding": "okf.compliance.model",
    "SubjectSpan": "okf.compliance.model",
    "SubjectText": "okf.readers.assessment",
    # readers
    "Reader": "okf.readers.base",
    "OfflineReader": "okf.readers.offline",
    "LLMReader": "okf.readers.llm",
    "ReaderConfig": "okf.readers.config",
    "Usage": "okf.readers.base",
    "make_reader": "okf.readers.factory",
    # errors
    "OKFError": "okf.errors",
    "BundleError": "okf.errors",
    "BundleNotFoundError": "okf.errors",
    "NotABundleError": "okf.errors",
    "PathEscapeError": "okf.errors",
    "ConceptNotFoundError": "okf.errors",
    "CompileError": "okf.errors",
    "ConfigError": "okf.errors",
    "ContractError": "okf.errors",
    "ProviderError": "okf.errors",
    "DeadlineExceeded": "okf.errors",
    "ModelOutputError": "okf.errors",
}

__all__ = [
    "Actor",
    "AngleRecord",
    "AnswerResult",
    "Budgets",
    "Bundle",
    "BundleError",
    "BundleNotFoundError",
    "CheckReport",
    "Citation",
    "CompileError",
    "CompileOptions",
    "CompileReport",
    "ComplianceResult",
    "Concept",
    "ConceptMeta",
    "ConceptNotFoundError",
    "ConfigError",
    "Contract",
    "ContractError",
    "ContractReport",
    "ContractSummary",
    "DeadlineExceeded",
    "Diagnostic",
    "EscalationRecord",
    "EvalQuestion",
    "EvalReport",
    "EvalSummary",
    "ExtractionStats",
    "FactResult",
    "Finding",
    "LLMReader",
    "Link",
    "Listing",
    "ModelOutputError",
    "NavigationResult",
    "NavigationStats",
    "NotABundleError",
    "OKFError",
    "OfflineReader",
    "Orchestration",
    "PartRecord",
    "PathEscapeError",
    "ProviderError",
    "Reader",
    "ReaderConfig",
    "Receipt",
    "Requirement",
    "RequirementCitation",
    "RequirementsResult",
    "RoundRecord",
    "SavedSynthesis",
    "SectionFailure",
    "ShortlistEntry",
    "Signpost",
    "SkippedFile",
    "SourceLine",
    "SourceRef",
    "Status",
    "SubjectSpan",
    "SubjectText",
    "Supporting",
    "SynthesisNode",
    "SynthesisReport",
    "TraceEvent",
    "TrustTier",
    "Usage",
    "__version__",
    "ask",
    "ask_async",
    "check",
    "check_contract",
    "compile_bundle",
    "comply",
    "comply_async",
    "contract_schema",
    "evaluate",
    "evaluate_async",
    "extract_requirements",
    "extract_requirements_async",
    "init_contract",
    "load_contract",
    "load_requirements",
    "load_subject",
    "make_reader",
    "navigate",
    "navigate_async",
    "open_bundle",
    "save_answer",
    "write_requirements",
]


def __getattr__(name: str) -> Any:
    if name == "open_bundle":  # an alias: okf.open_bundle(path) is Bundle.open(path)
        return __getattr__("Bundle").open
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'okf' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
