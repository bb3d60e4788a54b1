"""One source of truth per option: a setting is declared once, as a pydantic field with its default, bounds
and help text, and every surface is generated from it. The budgets, reader options and compile options are
fields of the models that use them (``Budgets``, ``ReaderConfig``, ``CompileOptions``); the options of one
command or tool are fields of the models below (``NavigationSettings`` for ``angles``, ``AnswerSettings``,
``ComplianceSettings``, ``ToolSettings``, ``CheckSettings``, ``EvalSettings``, ``TraceSettings``,
``ExportSettings``), whose defaults are the library's own constants where a library function takes the option.

``Setting`` reads a field; ``okf.cli.options`` turns settings into click options, ``okf.mcp.server`` into
tool argument types, and ``settings_table`` into the markdown tables of docs/ (tests keep the docs, the CLI
and the MCP schemas in step with the fields). No surface restates a default or a bound.

Options that stay hand-written in okf/cli, and why: paths and names with no default (``--output``, ``--title``,
``--model``, ``--base-url``, ``--contract`` ...: nothing to bound or restate), on/off flags, ``-v`` (a count of
flags) and ``--json``/``--quiet`` (okf.cli.common, the same on every command). MCP arguments that stay
hand-written in okf.mcp.server, for the same reason: names, texts and switches with nothing to bound
(``bundle``, ``directory``, ``concept``, ``question``, ``under``, ``subject_text``, ``subject_name``,
``start_line``, ``include_trace``, ``save``, ``contract``, ``other_bundles``). tests/test_settings.py fails on
a flag or an MCP argument with a default, a bound or choices that is not made from a field here.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from okf.answer.pipeline import DEFAULT_EVIDENCE_TOKENS, DEFAULT_SYNTHESIS, Synthesis
from okf.compliance.pipeline import MAX_REQUIREMENTS
from okf.eval.questions import DEFAULT_SEED
from okf.models import DEFAULT_ANGLES
from okf.orchestrate.run import HARD_CAP, SOFT_CAP
from okf.reader_settings import (  # noqa: F401 - declared there (okf compile's flags without this module), handed on
    BUDGETS,
    COMPILE_FLAGS,
    MCP_BUDGETS,
    READER_FLAGS,
    READER_SETTINGS,
    READER_TABLE,
)
from okf.readers.angles import AUTO_ANGLES
from okf.readers.planning import MAX_ANGLES
from okf.requirements.sections import Mode
from okf.setting import (  # noqa: F401 - the machinery and okf check's and okf export's settings, handed on here
    CHECK_FANOUT,
    EXPORT_MAX_BYTES,
    CheckSettings,
    ExportSettings,
    Setting,
    argument_type,
    settings_table,
    table_in,
)
from okf.trace.text import Only


class NavigationSettings(BaseModel):
    """How navigate, ask and eval walk a bundle, beside the budgets (okf.models.Budgets)."""

    angles: str = Field(
        default=DEFAULT_ANGLES,
        description=f"auto: plan {AUTO_ANGLES} to {MAX_ANGLES} angles (rephrasings, viewpoints, granularity, the "
        "bundle's vocabulary; a question asking several things split into parts), walk them in parallel, "
        f"cross-check, follow second hops and escalate, within {SOFT_CAP} walks ({HARD_CAP} at most); "
        f"N (1 to {MAX_ANGLES}): N angles per part; off: one walk of the question as asked.",
    )


class AnswerSettings(BaseModel):
    """How ask reads the evidence navigation found (okf.answer)."""

    evidence_tokens: int = Field(
        default=DEFAULT_EVIDENCE_TOKENS,
        ge=1,
        description="Evidence given to the answerer at most, in tokens estimated as characters / 4; what does "
        "not fit is read by recursive synthesis (see synthesis).",
    )
    synthesis: Synthesis = Field(
        default=DEFAULT_SYNTHESIS,
        description="auto: recursive synthesis only when the shortlist exceeds evidence_tokens; single: one "
        "prompt, cutting what does not fit (said in the caveats); recursive: always through leaf workers.",
    )


class ComplianceSettings(BaseModel):
    """okf requirements and okf comply (okf.requirements, okf.compliance) and their MCP tools."""

    mode: Mode = Field(
        default="auto",
        description="auto: sections over 4,000 characters skeleton-then-fill, others one call; single: one call "
        "per section; dense: skeleton-then-fill for all.",
    )
    max_requirements: int = Field(
        default=MAX_REQUIREMENTS,
        ge=1,
        description="Applicable requirements judged at most; the rest are listed as not judged.",
    )
    max_results: int = Field(default=100, ge=1, description="Most requirements to return.")


class ToolSettings(BaseModel):
    """Limits on what the MCP tools read_concept and check return (okf.mcp.tools)."""

    max_bytes: int = Field(default=20_000, ge=1, description="Most UTF-8 bytes of numbered body text to return.")
    max_diagnostics: int = Field(default=50, ge=1, description="Most diagnostics to return (errors first).")


class EvalSettings(BaseModel):
    """Which questions okf eval runs and how many at once (okf.eval)."""

    limit: int | None = Field(default=None, ge=1, description="Evaluate only the first N questions (after sample).")
    sample: int | None = Field(
        default=None, ge=1, description="Evaluate a random sample of N questions, fixed by seed, kept in file order."
    )
    seed: int = Field(default=DEFAULT_SEED, description="Seed of sample.")
    parallel: int = Field(
        default=1,
        ge=1,
        description="Questions navigated at once (worth raising with a model endpoint; concurrency still caps "
        "the model calls in flight over all of them).",
    )


class TraceSettings(BaseModel):
    """What okf trace shows of a walk (okf.trace)."""

    depth: int | None = Field(
        default=None,
        ge=0,
        description="Show N directory levels below the root; deeper directories are summed up on one line.",
    )
    only: Only | None = Field(
        default=None, description="Show only the paths to relevant (or partial) concepts, or only failures."
    )


ANGLES = Setting(NavigationSettings, "angles", metavar="auto|N|off")
EVIDENCE_TOKENS = Setting(AnswerSettings, "evidence_tokens", metavar="TOKENS")
SYNTHESIS = Setting(AnswerSettings, "synthesis")
MODE = Setting(ComplianceSettings, "mode")
MAX_REQUIREMENTS_SETTING = Setting(ComplianceSettings, "max_requirements")
MAX_RESULTS = Setting(ComplianceSettings, "max_results")
MAX_BYTES = Setting(ToolSettings, "max_bytes", metavar="BYTES")
MAX_DIAGNOSTICS = Setting(ToolSettings, "max_diagnostics")
EVAL_SETTINGS: tuple[Setting, ...] = tuple(Setting(EvalSettings, name) for name in EvalSettings.model_fields)
TRACE_DEPTH = Setting(TraceSettings, "depth")
TRACE_ONLY = Setting(TraceSettings, "only", metavar="relevant|failures")


def doc_tables() -> dict[str, str]:
    """Every generated table of docs/, by the marker around it (``<!-- settings:budgets -->`` ...)."""
    from okf.compile.state import CompileOptions

    compile_settings = [Setting(CompileOptions, name) for name in COMPILE_FLAGS]
    return {
        "settings:budgets": settings_table(BUDGETS, mcp=MCP_BUDGETS),
        "settings:reader": settings_table(READER_SETTINGS, cli=READER_FLAGS),
        "settings:compile": settings_table(compile_settings),
        "settings:navigation": settings_table([ANGLES], mcp=["angles"]),
        "settings:answer": settings_table([EVIDENCE_TOKENS, SYNTHESIS], mcp=["evidence_tokens", "synthesis"]),
        "settings:compliance": settings_table(
            [MODE, MAX_REQUIREMENTS_SETTING, MAX_RESULTS],
            cli=["mode", "max_requirements"],
            mcp=["max_requirements", "max_results"],
        ),
        "settings:mcp": settings_table([MAX_BYTES, MAX_DIAGNOSTICS], cli=(), mcp=["max_bytes", "max_diagnostics"]),
        "settings:check": settings_table([CHECK_FANOUT]),
        "settings:eval": settings_table(EVAL_SETTINGS),
        "settings:trace": settings_table([TRACE_DEPTH, TRACE_ONLY]),
        "settings:export": settings_table([EXPORT_MAX_BYTES]),
    }
