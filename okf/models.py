"""Result models shared by navigate, ask, eval, the CLI and the MCP server. Pure data, no I/O."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field

from okf.limits import JUDGE_WINDOW_CHARS  # declared with the bundle's size bounds (okf compile reads it there)
from okf.readers.base import Usage

# The angles setting of navigate, ask and eval when none is given (okf.settings.NavigationSettings: help, the
# flags and MCP arguments; okf.orchestrate.parse_angles reads it).
DEFAULT_ANGLES = "auto"

StopReason = Literal["bodies", "shortlist", "depth", "calls", "tokens", "deadline"]


class Budgets(BaseModel):
    """Limits on one navigation. Whichever is hit first ends the walk (``stopped_by`` names it)."""

    max_bodies: int = Field(
        default=120,
        ge=1,
        description="Concept bodies judged at most: the walk ends when a "
        "candidate waits and this many were sent to the judge.",
    )
    max_shortlist: int = Field(
        default=12,
        ge=1,
        description="Relevant concepts kept at most: the walk ends when "
        "this many relevant (not partial) entries were found while work remains.",
    )
    max_depth: int = Field(
        default=8,
        ge=1,
        description="Directory levels below the root descended at most "
        "(reported as the stop only at the end, when the selector kept a deeper directory).",
    )
    max_calls: int = Field(
        default=200,
        ge=1,
        description="Model calls, all roles, at most: the walk ends when a "
        "call is about to be sent and this many were sent (settled or in flight).",
    )
    max_tokens: int = Field(
        default=400_000,
        ge=1,
        description="Prompt plus completion tokens at most: the walk ends when they reach this while work remains.",
    )
    deadline_s: float = Field(
        default=120.0, gt=0, description="Wall-clock seconds for one navigation: the walk ends when they have passed."
    )
    batch_size: int = Field(default=8, ge=1, description="Documents per judge call (not a stop).")
    page_size: int = Field(
        default=60, ge=1, description="Signposts per selector call; wider listings are paged (not a stop)."
    )
    body_chars: int = Field(
        default=JUDGE_WINDOW_CHARS,
        ge=1,
        description="Characters of a body shown to the judge: the compile's --max-chars (not a stop).",
    )


class Receipt(BaseModel):
    """Evidence of what was read, without the text: where it is and the hash of exactly what was used."""

    evidence_id: str
    path: str
    start_line: int
    end_line: int
    sha256: str
    truncated: bool = False
    bundle: str | None = Field(
        default=None,
        description="The bundle (its root path) the path is in, when several bundles were read; null for one.",
    )


class ShortlistEntry(BaseModel):
    """A concept the judge found relevant, with its trust state and receipt."""

    concept_id: str
    path: str
    title: str
    type: str
    status: str = "stable"
    trust_tier: str = "unverified"
    stale: bool = False
    reason: str = ""
    via: Literal["descent", "link"] = "descent"
    grade: Literal["relevant", "partial"] = Field(
        default="relevant", description="The judge's grade: relevant states the answer, partial bears on it."
    )
    receipt: Receipt
    generated_by: str | None = Field(default=None, description="generated.by: who or what wrote the concept.")
    generated_at: str | None = Field(default=None, description="generated.at, ISO 8601.")
    cites: list[str] = Field(
        default_factory=list,
        description="Concept ids of the bundle this concept cites "
        "as its sources (a synthesis saved by okf ask --save); empty for others.",
    )
    bundle: str | None = Field(
        default=None,
        description="The bundle (its root path) the concept is in, when several bundles were read; null for one.",
    )
    angles: list[str] = Field(
        default_factory=list,
        description="With orchestration: the ids of the angles "
        "this concept states the answer to (see NavigationResult.orchestration).",
    )


class TraceEvent(BaseModel):
    """One step of the walk, in order. ``kind`` is one of: ``offered``, ``selected``, ``collected``,
    ``verdict``, ``link``, ``retry``, ``failure``, ``budget``, ``warning``, ``answer``; recursive synthesis adds
    ``decompose``, ``leaf``, ``coverage`` and ``reduce`` (docs/ask.md)."""

    seq: int
    t: float = Field(description="Seconds since the walk started.")
    kind: str
    path: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class NavigationStats(BaseModel):
    """Counts and costs of one navigation."""

    directories_opened: int = 0
    signposts_offered: int = 0
    candidates: int = 0
    bodies_judged: int = 0
    links_followed: int = 0
    failures: int = Field(
        default=0,
        description="Model call results that failed (a failed selection page, each "
        "verdict not had), calls cut off by the deadline included.",
    )
    cut_off: int = Field(
        default=0,
        description="Model calls still running when a budget or the deadline ended the walk (cancelled unfinished).",
    )
    words_signposts: int = Field(
        default=0, description="Words of the signposts offered to the selector (titles and descriptions)."
    )
    words_bodies: int = Field(default=0, description="Words of the bodies offered to the judge.")
    words_shortlist: int = Field(default=0, description="Words of the shortlisted bodies (what answering reads).")
    usage: dict[str, Usage] = Field(default_factory=dict, description="Per role: selector, judge, answerer.")
    seconds: float = 0.0

    @property
    def total(self) -> Usage:
        out = Usage()
        for u in self.usage.values():
            out = out + u
        return out


OrchestrationState = Literal["sufficient", "insufficient", "suspicious"]
OrchestrationStop = Literal["sufficient", "suspicious", "cap", "boundary", "exhausted", "budget", "failed", "off"]


class AngleRecord(BaseModel):
    """One angle of an orchestrated navigation: a way of asking (part of) the question, and its walks."""

    id: str = Field(description="a1, a2, ... in the order angles were made.")
    text: str
    origin: str = Field(
        description="question, subquestion, rephrasing, viewpoint, granularity, vocabulary "
        "(planned), second_hop (a name relevant evidence introduced), escalation."
    )
    part: int = Field(
        description="The part (sub-question) it asks, from 1; 0 for the whole question of a "
        "question with several parts."
    )
    round: int = Field(description="The round it was walked in; 0 when it was never walked.")
    family: str = Field(
        default="",
        description="Where its walk started: 'bundle' (the root), 'groups' "
        "(top-level groups no walk had opened), 'links' (the links of the evidence), 'cited' "
        "(the concepts a synthesis cites), or another bundle's path.",
    )
    source: str | None = Field(
        default=None, description="For a second hop or an escalation: the concept (or angle) it came from."
    )
    bundles: list[str] = Field(
        default_factory=list, description="The bundles it was walked in, when several were given."
    )
    walked: bool = False
    relevant: list[str] = Field(default_factory=list, description="Concept paths judged to state its answer.")
    bodies: int = Field(default=0, description="Bodies its walk sent to the judge.")
    stopped_by: str | None = None
    note: str | None = Field(
        default=None, description="Why it was not walked (a duplicate, the cap), or what its walk met."
    )


class PartRecord(BaseModel):
    """One part (sub-question) of the question and what the cross-check found for it."""

    index: int
    question: str
    covered: bool = False
    evidence: list[str] = Field(default_factory=list, description="Concept paths relevant to it.")
    missing: list[str] = Field(default_factory=list, description="Words of the part no relevant evidence says.")


class RoundRecord(BaseModel):
    """One round of parallel walks and the cross-check after it."""

    round: int
    angles: list[str] = Field(description="Ids of the angles walked in this round.")
    state: OrchestrationState
    why: list[str] = Field(default_factory=list, description="The cross-check's reasons, in words.")
    signals: list[str] = Field(
        default_factory=list,
        description="Suspicion signals: disagree, one_source, one_author, deprecated, stale, superseded, echo.",
    )
    relevant: int = Field(default=0, description="Concepts judged relevant so far.")
    bodies: int = Field(default=0, description="Bodies judged so far, all walks together.")
    seconds: float = 0.0


class EscalationRecord(BaseModel):
    """A composite escalation: the axes switched to, why, and the angles walked there."""

    round: int = Field(description="The round it was walked in.")
    axes: list[str] = Field(description="groups, links, cited, bundle.")
    why: list[str] = Field(default_factory=list)
    angles: list[str] = Field(default_factory=list)
    resolved: bool | None = Field(default=None, description="Whether the suspicion was resolved after it.")


class Orchestration(BaseModel):
    """How an orchestrated navigation went: the plan, the rounds, the escalations, why it stopped."""

    angles_setting: str = Field(description="auto, or the number of angles per part asked for.")
    planner: str = Field(description="Who planned the angles: the reader's name, or 'offline' on a fallback.")
    fallback: str | None = Field(
        default=None,
        description="Why the plan fell back (invalid plan reply, a "
        "question that decomposes into nothing), when it did.",
    )
    parts: list[PartRecord] = Field(default_factory=list)
    angles: list[AngleRecord] = Field(default_factory=list)
    rounds: list[RoundRecord] = Field(default_factory=list)
    escalations: list[EscalationRecord] = Field(default_factory=list)
    state: OrchestrationState = "insufficient"
    stop: OrchestrationStop = "exhausted"
    stop_reason: str = ""
    uncertain: list[str] = Field(default_factory=list, description="What remains uncertain, in words.")
    walks: int = Field(default=0, description="Walks run, all rounds together (soft cap 8, hard stop 12).")
    tried: str = Field(default="", description="One line: what was tried.")


class NavigationResult(BaseModel):
    """What ``navigate`` returns: the shortlist, why it stopped, what it cost, and every decision."""

    question: str
    bundle: str
    corpus_id: str | None = Field(
        description="The bundle's content id when known without a pass over the bundle "
        "(its compile manifest, or Bundle.corpus_id() called before the walk); null "
        "otherwise. Receipts carry the sha256 of every text judged."
    )
    reader: str
    shortlist: list[ShortlistEntry] = Field(default_factory=list)
    stopped_by: StopReason | None = None
    budgets: Budgets | None = Field(default=None, description="The limits the walk ran under.")
    stats: NavigationStats = Field(default_factory=NavigationStats)
    warnings: list[str] = Field(default_factory=list)
    trace: list[TraceEvent] = Field(default_factory=list)
    bundles: list[str] = Field(
        default_factory=list,
        description="Every bundle read, when several were given (``bundle`` is the first); empty for one.",
    )
    orchestration: Orchestration | None = Field(
        default=None,
        description="The angles, rounds, escalations and stop of an orchestrated navigation (--angles); null without.",
    )


class Citation(BaseModel):
    """A concept the answer cites, with the receipt of the evidence it rests on."""

    concept_id: str
    receipt: Receipt


class SourceLine(BaseModel):
    """One entry of the Sources ledger: the cited concept and its raw sources (never invented)."""

    number: int
    concept_id: str
    title: str
    sources: list[str] = Field(default_factory=list, description="'path:start-end' strings; empty = none recorded.")
    through: list[str] = Field(
        default_factory=list,
        description="Concepts of the bundle the ledger went through "
        "to reach the raw sources (a cited synthesis names the concepts it cites).",
    )


class Supporting(BaseModel):
    """A supporting concept and one line on why it matters."""

    concept_id: str
    title: str
    why: str


class FactResult(BaseModel):
    """One contract fact after a check: ``grounded`` (its typed value and the receipt of the lines it was read
    from) or ``failed`` (a stable ``code``, a message naming the fact, and a one-line fix). See docs/contracts.md."""

    name: str
    type: str
    severity: Literal["error", "warning"] = "error"
    status: Literal["grounded", "failed"]
    value: Any = Field(default=None, description="The typed value: a number, string, boolean, ISO date or list.")
    receipt: Receipt | None = Field(default=None, description="Where the value was read: path, lines, sha256.")
    code: str | None = None
    message: str | None = None
    fix: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def receipt_ids(self) -> list[str]:
        """The evidence ids that support this fact (its receipt's id)."""
        return [self.receipt.evidence_id] if self.receipt is not None and self.status == "grounded" else []


class ContractSummary(BaseModel):
    """Which contract an answer was checked against, and whether its preflight passed."""

    path: str = Field(description="The contract file, or '<inline>' for a contract passed as data.")
    sha256: str = Field(description="sha256 of the contract as read (file bytes, or its canonical JSON).")
    version: int
    ok: bool = Field(description="No error-severity fact failed.")
    grounded: int = 0
    failed: int = 0


class SynthesisNode(BaseModel):
    """One node of a recursive synthesis: a slice of the evidence, split further or read by a leaf worker.

    ``first`` and ``last`` are 1-based positions in the evidence order (``c1`` is 1), inclusive.
    """

    id: str = Field(
        description="'r' for the root, 'r.2' for its second group, 'r.2.1', ...; 't' for the coverage tail."
    )
    depth: int
    kind: Literal["split", "leaf"]
    first: int
    last: int
    items: int
    tokens: int
    decided_by: str = Field(
        description="decomposer | repaired | size (the decomposer failed) | fits | max depth | coverage tail"
    )
    repairs: list[str] = Field(
        default_factory=list,
        description="What the code changed in the decomposer's reply to make it a valid partition.",
    )
    children: list[SynthesisNode] = Field(default_factory=list)
    calls: int = Field(default=0, description="Leaf calls made for this node (budget-sized parts, retries).")
    facts: int = 0
    evidence_ids: list[str] = Field(default_factory=list, description="Leaf: the ids of its slice.")
    missed: list[str] = Field(default_factory=list, description="Leaf: ids the worker did not account for.")
    failed: list[str] = Field(default_factory=list, description="Leaf: ids not read because the worker failed twice.")
    dropped_citations: list[str] = Field(default_factory=list, description="Leaf: cited ids outside its slice.")
    error: str | None = None


class SynthesisReport(BaseModel):
    """How the answer read its evidence: in one prompt (``single``) or by recursive synthesis."""

    requested: Literal["auto", "single", "recursive"]
    mode: Literal["single", "recursive"]
    why: str
    budget_tokens: int = Field(description="Tokens one prompt may carry (--evidence-tokens).")
    evidence_tokens: int = Field(description="Tokens of the whole evidence (each item within the budget).")
    items_total: int
    items_covered: int = Field(
        description="Items read whole or in part by the answerer (single) or by a "
        "leaf worker that accounted for them (recursive)."
    )
    missed_then_covered: list[str] = Field(
        default_factory=list,
        description="Evidence ids no leaf accounted for, dispatched by the coverage tail and then read.",
    )
    not_covered: list[str] = Field(
        default_factory=list,
        description="Evidence ids (or paths, if unreadable) no worker read; the answer is partial and names them.",
    )
    depth: int = Field(default=0, description="Deepest level of a leaf (the root is 0).")
    leaves: int = 0
    calls: dict[str, int] = Field(
        default_factory=dict, description="Role calls made: decomposer, leaf, answerer (retries included)."
    )
    facts: int = Field(default=0, description="Facts given to the answerer after the fan-in.")
    reduce_rounds: int = 0
    rounds: int = Field(
        default=0,
        description="Model calls one after another on the longest chain: the "
        "wall time in units of one call's latency when every level runs in parallel.",
    )
    seconds: float = 0.0
    tree: SynthesisNode | None = None
    tail: SynthesisNode | None = Field(default=None, description="The coverage tail's leaf, when items were missed.")
    trace: list[TraceEvent] = Field(default_factory=list)


class SavedSynthesis(BaseModel):
    """What ``okf ask --save`` did with an answer: filed it as a Synthesis concept, or why not."""

    action: Literal["created", "updated", "skipped"]
    path: str = Field(default="", description="Bundle path of the synthesis ('syntheses/<slug>.md').")
    concept_id: str = ""
    reason: str | None = Field(default=None, description="Why nothing was saved (action 'skipped').")


class AnswerResult(BaseModel):
    """What ``ask`` returns."""

    question: str
    status: Literal["answered", "partial", "abstained"]
    answer: str
    reason: str | None = Field(default=None, description="Why the answer abstained or is partial.")
    citations: list[Citation] = Field(default_factory=list)
    supporting: list[Supporting] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)
    sources: list[SourceLine] = Field(default_factory=list)
    shortlist: list[ShortlistEntry] = Field(default_factory=list)
    usage: dict[str, Usage] = Field(default_factory=dict)
    reader: str = ""
    corpus_id: str | None = Field(
        default=None,
        description="As NavigationResult.corpus_id: null for a bundle "
        "without a compile manifest unless its id was computed before.",
    )
    navigation: NavigationResult | None = None
    failed: bool = Field(
        default=False,
        description="The answerer failed (a model error, not an honest abstention); the shortlist is kept.",
    )
    typed_fact_guarantee: bool = Field(
        default=False,
        description="True only when a contract was checked in code "
        "before answering and its facts were grounded; a contract-free answer has "
        "no typed-fact guarantee.",
    )
    contract: ContractSummary | None = Field(default=None, description="The contract checked first; null without one.")
    facts: list[FactResult] = Field(
        default_factory=list,
        description="With a contract: every fact the preflight "
        "checked; grounded ones were given to the answerer as evidence (receipt_ids).",
    )
    synthesis: SynthesisReport | None = Field(
        default=None, description="How the evidence was read: one prompt or recursive synthesis (docs/ask.md)."
    )
    saved: SavedSynthesis | None = Field(
        default=None,
        description="With --save (MCP save): the Synthesis "
        "concept the answer was filed as, or why it was not; null otherwise.",
    )
