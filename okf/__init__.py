"""okf: the embedding-free toolkit for Open Knowledge Format bundles.

The public API (see docs/api.md)::

    import okf

    bundle = okf.open_bundle("bundles/harborview")
    result = okf.navigate(bundle, "How many paid time off days does a new employee get each year?")
    answer = okf.ask(bundle, "How many paid time off days does a new employee get each year?")
    saved = okf.save_answer(bundle, answer)    # file it back as a Synthesis concept (the wiki loop)
    facts = okf.check_contract(bundle, "bundles/harborview.contract.yaml")   # typed facts, zero model calls

Every name in ``__all__`` is loaded on first use, so ``import okf`` stays fast and imports neither the
``openai`` client, ``click`` nor the MCP SDK.
"""

from __future__ import annotations

import importlib
import logging
import sys
import types
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# A library logs and never prints: records reach stderr only when the application (okf's CLI: -v) says so.
logging.getLogger("okf").addHandler(logging.NullHandler())

if TYPE_CHECKING:
    from okf.ask import ask, ask_async, save_answer
    from okf.bundle import Bundle
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
    from okf.check import CheckReport, check
    from okf.comply import ComplianceResult, Finding, SubjectSpan, SubjectText, comply, comply_async, load_subject
    from okf.compile import CompileOptions, CompileReport, SkippedFile, compile_bundle
    from okf.contract import (
        Contract,
        ContractReport,
        check_contract,
        contract_schema,
        init_contract,
        load_contract,
    )
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
    from okf.eval import EvalQuestion, EvalReport, EvalSummary, evaluate, evaluate_async
    from okf.models import (
        AnswerResult,
        Budgets,
        Citation,
        ContractSummary,
        FactResult,
        NavigationResult,
        NavigationStats,
        Receipt,
        SavedSynthesis,
        ShortlistEntry,
        SourceLine,
        Supporting,
        SynthesisNode,
        SynthesisReport,
        TraceEvent,
    )
    from okf.navigate import navigate, navigate_async
    from okf.readers import LLMReader, OfflineReader, Reader, ReaderConfig, Usage, make_reader
    from okf.requirements import (
        ExtractionStats,
        Requirement,
        RequirementCitation,
        RequirementsResult,
        SectionFailure,
        extract_requirements,
        extract_requirements_async,
        load_requirements,
        write_requirements,
    )

    open_bundle = Bundle.open

# Public name -> the module that defines it. Each is imported on first access (module __getattr__, PEP 562).
_EXPORTS: dict[str, str] = {
    # bundles
    "Bundle": "okf.bundle",
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
    "compile_bundle": "okf.compile",
    "CompileOptions": "okf.compile",
    "CompileReport": "okf.compile",
    "SkippedFile": "okf.compile",
    "check": "okf.check",
    "CheckReport": "okf.check",
    "check_contract": "okf.contract",
    "load_contract": "okf.contract",
    "init_contract": "okf.contract",
    "contract_schema": "okf.contract",
    "Contract": "okf.contract",
    "ContractReport": "okf.contract",
    "navigate": "okf.navigate",
    "navigate_async": "okf.navigate",
    "ask": "okf.ask",
    "ask_async": "okf.ask",
    "save_answer": "okf.ask",
    "evaluate": "okf.eval",
    "evaluate_async": "okf.eval",
    "EvalQuestion": "okf.eval",
    "EvalReport": "okf.eval",
    "EvalSummary": "okf.eval",
    "extract_requirements": "okf.requirements",
    "extract_requirements_async": "okf.requirements",
    "load_requirements": "okf.requirements",
    "write_requirements": "okf.requirements",
    "comply": "okf.comply",
    "comply_async": "okf.comply",
    "load_subject": "okf.comply",
    # results
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
    "Requirement": "okf.requirements",
    "RequirementCitation": "okf.requirements",
    "RequirementsResult": "okf.requirements",
    "SectionFailure": "okf.requirements",
    "ExtractionStats": "okf.requirements",
    "ComplianceResult": "okf.comply",
    "Finding": "okf.comply",
    "SubjectSpan": "okf.comply",
    "SubjectText": "okf.comply",
    # readers
    "Reader": "okf.readers",
    "OfflineReader": "okf.readers",
    "LLMReader": "okf.readers",
    "ReaderConfig": "okf.readers",
    "Usage": "okf.readers",
    "make_reader": "okf.readers",
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
    "Actor", "AnswerResult", "Budgets", "Bundle", "BundleError", "BundleNotFoundError", "CheckReport",
    "Citation", "CompileError", "CompileOptions", "CompileReport", "ComplianceResult", "Concept", "ConceptMeta",
    "ConceptNotFoundError", "ConfigError", "Contract", "ContractError", "ContractReport", "ContractSummary",
    "DeadlineExceeded", "Diagnostic", "EvalQuestion", "EvalReport", "EvalSummary", "ExtractionStats",
    "FactResult", "Finding", "LLMReader", "Link", "Listing", "ModelOutputError", "NavigationResult",
    "NavigationStats", "NotABundleError", "OKFError", "OfflineReader", "PathEscapeError", "ProviderError",
    "Reader", "ReaderConfig", "Receipt", "Requirement", "RequirementCitation", "RequirementsResult",
    "SavedSynthesis", "SectionFailure", "ShortlistEntry", "Signpost", "SkippedFile", "SourceLine", "SourceRef", "Status",
    "SubjectSpan", "SubjectText", "Supporting", "SynthesisNode", "SynthesisReport", "TraceEvent", "TrustTier",
    "Usage", "__version__", "ask", "ask_async", "check", "check_contract", "compile_bundle", "comply",
    "comply_async", "contract_schema", "evaluate", "evaluate_async", "extract_requirements",
    "extract_requirements_async", "init_contract", "load_contract", "load_requirements", "load_subject",
    "make_reader", "navigate", "navigate_async", "open_bundle", "save_answer", "write_requirements",
]


class _Package(types.ModuleType):
    """The module type of ``okf``: ``okf.check``, ``okf.navigate`` and ``okf.ask`` stay the functions."""

    def __setattr__(self, name: str, value: Any) -> None:
        # Loading a subpackage binds it on its parent; okf.check (the package) would then hide okf.check (the
        # function) for everyone. The function is the public name; the package stays in sys.modules.
        if name in _EXPORTS and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


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
