"""The okf MCP server: one or more bundles as tools over stdio. The only module that imports ``mcp``.

Tools take a ``bundle`` name (see ``list_bundles``) and return structured content. Bad input and library
errors come back as tool errors (``isError``) carrying okf's message and fix; an unexpected exception is
logged with its traceback on stderr and reported as a tool error too, so no call ends the server.
stdout carries protocol only (the SDK points fd 1 at stderr while serving).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field, ValidationError

from okf._version import __version__
from okf.compliance import ComplianceResult
from okf.errors import OKFError
from okf.mcp import compliance
from okf.mcp.compliance import RequirementList
from okf.mcp.tools import (
    BundleList,
    BundleSet,
    CheckSummary,
    ConceptView,
    SignpostListing,
)
from okf.models import AnswerResult, NavigationResult
from okf.readers.base import aclose
from okf.settings import (
    ANGLES,
    BUDGETS,
    EVIDENCE_TOKENS,
    MAX_BYTES,
    MAX_DIAGNOSTICS,
    MAX_REQUIREMENTS_SETTING,
    MAX_RESULTS,
    SYNTHESIS,
    argument_type,
)

# Argument types live at module level: the SDK resolves the (string) annotations in module globals.
BundleName = Annotated[str, Field(description="A bundle name from list_bundles.")]
Directory = Annotated[str, Field(description="Bundle-relative directory, e.g. 'contracts/msa/'; '' is the root.")]
ConceptRef = Annotated[str, Field(description="A concept id ('policies/leave') or path ('policies/leave.md').")]
Question = Annotated[str, Field(description="The question, in plain words.")]
StartLine = Annotated[
    int | None,
    Field(
        description="File line to start the body at (next_start_line of a "
        "previous call); default: the body's first line."
    ),
]
# The option arguments are generated from the pydantic fields of okf.settings (okf.models.Budgets and the
# settings models): one default, bound and help text for the flags, these schemas and the docs tables.
_BUDGET = {setting.name: setting for setting in BUDGETS}
if TYPE_CHECKING:  # made at run time (schema: default, bound, help); to a type checker, the field's type
    MaxBodies = int
    MaxShortlist = int
    DeadlineS = float
    Angles = str
    EvidenceTokens = int
    Synthesis = str
    MaxBytes = int
    MaxDiagnostics = int
    MaxResults = int
    MaxRequirements = int
else:
    MaxBodies = argument_type(_BUDGET["max_bodies"])
    MaxShortlist = argument_type(_BUDGET["max_shortlist"])
    DeadlineS = argument_type(_BUDGET["deadline_s"])
    Angles = argument_type(ANGLES)
    EvidenceTokens = argument_type(EVIDENCE_TOKENS)
    Synthesis = argument_type(SYNTHESIS)
    MaxBytes = argument_type(MAX_BYTES)
    MaxDiagnostics = argument_type(MAX_DIAGNOSTICS)
    MaxResults = argument_type(MAX_RESULTS)
    MaxRequirements = argument_type(MAX_REQUIREMENTS_SETTING)
IncludeTrace = Annotated[bool, Field(description="Include every step of the walk (large).")]
Save = Annotated[
    bool,
    Field(
        description="File an answered or partial answer into the bundle as a Synthesis "
        "concept (syntheses/<slug>.md) that later questions can find."
    ),
]
OtherBundles = Annotated[
    list[str] | None,
    Field(
        description="More bundle names to read beside `bundle`, each a source family; receipts then name the bundle."
    ),
]
ContractData = Annotated[
    dict[str, Any] | None,
    Field(
        description="A contract as JSON: {version: 1, facts: [{name, "
        "type, locate, expect, severity}]}; its schema is in "
        "docs/contracts.md (okf contract schema prints it)."
    ),
]
Under = Annotated[
    str,
    Field(
        description="Bundle-relative directory (or concept) to take requirements from, "
        "e.g. 'policies/'; '' is the whole bundle."
    ),
]
SubjectBody = Annotated[str, Field(description="The text of the document to check (a contract, a policy, ...).")]
SubjectName = Annotated[str, Field(description="A name for the subject, shown in the citations.")]
CheckQuestion = Annotated[str, Field(description="What to check; steers navigation when under is empty.")]

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
# navigate and ask may call the configured model, whose replies can differ between calls.
MODEL_BACKED = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
# ask writes into the bundle when save is true: a synthesis concept, added, or replacing the one saved
# earlier for the same question (an update of okf's own file, never of compiled or hand-written concepts).
MODEL_BACKED_WRITES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)


@contextmanager
def _tool_errors() -> Iterator[None]:
    """okf errors and rejected budgets raised inside become tool errors carrying okf's own message."""
    try:
        yield
    except OKFError as exc:
        raise ToolError(f"{type(exc).__name__}: {exc}") from exc
    except ValidationError as exc:  # Budgets refused a value the checks above let through
        raise ToolError("; ".join(str(e["msg"]) for e in exc.errors())) from exc


def build_server(shelf: BundleSet) -> MCPServer[Any]:
    """An MCP server exposing ``shelf``'s bundles as tools; its reader's connections close when it stops."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer[Any]) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {}
        finally:
            if shelf.reader is not None:
                await aclose(shelf.reader)

    server: MCPServer[Any] = MCPServer(
        "okf",
        version=__version__,
        log_level="WARNING",
        lifespan=lifespan,
        instructions=(
            "okf serves Open Knowledge Format bundles: folders of markdown concepts with index.md signposts. "
            f"Bundles: {shelf.describe()}. To answer from a bundle, call ask; to find the relevant concepts "
            "with receipts, call navigate; to browse by hand, call read_signposts from the root ('') and "
            "read_concept on what looks relevant. To list a bundle's rules, call requirements; to check a "
            "document against them, call comply."
        ),
    )

    @server.tool(annotations=READ_ONLY)
    async def list_bundles() -> BundleList:
        """List the bundles this server serves: name (the `bundle` argument of every tool), root directory,
        corpus id, OKF version and number of concepts."""
        with _tool_errors():
            return shelf.list_bundles()

    @server.tool(annotations=READ_ONLY)
    async def read_signposts(bundle: BundleName, directory: Directory = "") -> SignpostListing:
        """List a directory's signposts (its index.md entries plus unlisted concepts and subdirectories):
        path, title, description and is_dir. Start at the root ('') and descend into directories whose
        signposts fit the question; read concepts with read_concept."""
        with _tool_errors():
            return shelf.read_signposts(bundle, directory)

    @server.tool(annotations=READ_ONLY)
    async def read_concept(
        bundle: BundleName, concept: ConceptRef, max_bytes: MaxBytes = MAX_BYTES.default, start_line: StartLine = None
    ) -> ConceptView:
        """Read one concept: its frontmatter (type, title, sources, status, ...), its body with file line
        numbers ('  12 | text'), and its links. A long body is cut at max_bytes: truncated is true and
        next_start_line says where to continue."""
        with _tool_errors():
            return shelf.read_concept(bundle, concept, max_bytes, start_line)

    @server.tool(annotations=MODEL_BACKED)
    async def navigate(
        bundle: BundleName,
        question: Question,
        max_bodies: MaxBodies = _BUDGET["max_bodies"].default,
        max_shortlist: MaxShortlist = _BUDGET["max_shortlist"].default,
        deadline_s: DeadlineS = _BUDGET["deadline_s"].default,
        include_trace: IncludeTrace = False,
        angles: Angles = ANGLES.default,
        other_bundles: OtherBundles = None,
    ) -> NavigationResult:
        """Find the concepts relevant to a question by walking the bundle's signposts and judging each
        concept body. Returns the shortlist (each entry with the reason, trust tier, staleness and a receipt:
        path, line span and sha256 of the text judged), why the walk stopped, its cost, and warnings; with
        angles (the default), the orchestration block: the angles tried, the state after each round, the
        escalations, the stop and what remains uncertain."""
        budgets = {"max_bodies": max_bodies, "max_shortlist": max_shortlist, "deadline_s": deadline_s}
        with _tool_errors():
            return await shelf.navigate(
                bundle, question, budgets, include_trace, angles=angles, others=other_bundles or []
            )

    @server.tool(annotations=MODEL_BACKED_WRITES)
    async def ask(
        bundle: BundleName,
        question: Question,
        max_bodies: MaxBodies = _BUDGET["max_bodies"].default,
        max_shortlist: MaxShortlist = _BUDGET["max_shortlist"].default,
        deadline_s: DeadlineS = _BUDGET["deadline_s"].default,
        evidence_tokens: EvidenceTokens = EVIDENCE_TOKENS.default,
        contract: ContractData = None,
        synthesis: Synthesis = SYNTHESIS.default,
        save: Save = False,
        angles: Angles = ANGLES.default,
        other_bundles: OtherBundles = None,
    ) -> AnswerResult:
        """Answer a question from a bundle, citing the concepts it rests on. status is 'answered',
        'partial' (reason says what is missing) or 'abstained' (nothing relevant found); citations carry
        receipts, sources lists the raw sources behind each cited concept, caveats flag stale or draft
        evidence. With a contract, its facts are checked first in code: if one fails, no model is called and
        facts holds the failures; else the grounded facts are evidence (receipt ids f1, f2...) and are listed
        in facts. Without one, typed_fact_guarantee is false. Evidence larger than evidence_tokens is read by
        recursive synthesis; the synthesis field says how many evidence items were read (items_covered of
        items_total) and names any not read. With save=true an answered or partial answer is filed into the
        bundle as a Synthesis concept under syntheses/ (the same question updates it in place); saved gives its
        path, or why it was not saved. Later walks find it like any concept. angles and other_bundles are
        navigate's (save and contract take one bundle)."""
        budgets = {"max_bodies": max_bodies, "max_shortlist": max_shortlist, "deadline_s": deadline_s}
        with _tool_errors():
            return await shelf.ask(
                bundle,
                question,
                budgets,
                evidence_tokens,
                contract,
                synthesis,
                save,
                angles=angles,
                others=other_bundles or [],
            )

    @server.tool(annotations=MODEL_BACKED)
    async def requirements(
        bundle: BundleName, under: Under = "", max_results: MaxResults = MAX_RESULTS.default
    ) -> RequirementList:
        """Extract the operative rules (obligations, prohibitions, permissions) of a bundle's sections: each
        with its sentence, deontic type, actor, applicability conditions, evidence standard, a citation
        (concept, file lines, sha256) and a content-hash requirement_id. Sections that failed are listed."""
        with _tool_errors():
            return await compliance.requirements(shelf, bundle, under, max_results)

    @server.tool(annotations=MODEL_BACKED)
    async def comply(
        bundle: BundleName,
        subject_text: SubjectBody,
        subject_name: SubjectName = "subject",
        question: CheckQuestion = "",
        under: Under = "",
        max_requirements: MaxRequirements = MAX_REQUIREMENTS_SETTING.default,
    ) -> ComplianceResult:
        """Judge a document against a bundle's requirements (those under `under`, else those navigation finds
        for `question`): each applicable requirement gets a verdict, violation (the text shows the breach),
        needs_review (it applies, the text does not show enough) or compliant, with a rationale, the subject
        lines it rests on and the requirement clause's receipt. rollup counts verdicts; violations come first."""
        with _tool_errors():
            return await compliance.comply(shelf, bundle, subject_text, subject_name, question, under, max_requirements)

    @server.tool(annotations=READ_ONLY)
    async def check(
        bundle: BundleName, max_diagnostics: MaxDiagnostics = MAX_DIAGNOSTICS.default, contract: ContractData = None
    ) -> CheckSummary:
        """Check a bundle against the OKF format: counts of errors and warnings and the first diagnostics,
        each with a code, file, line, message and fix. With a contract, also every fact of it: grounded
        (typed value and receipt: path, lines, sha256) or failed (code, message, fix). Makes no model calls."""
        # check reads every file (about a second for a few hundred concepts): off the event loop.
        with _tool_errors():
            return await anyio.to_thread.run_sync(shelf.check, bundle, max_diagnostics, contract)

    return server
