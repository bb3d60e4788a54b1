"""The answer shape for people: direct answer with [n] citations, supporting concepts, caveats, Sources ledger."""

from __future__ import annotations

import json

from okf.answer.prose import one_line
from okf.models import AnswerResult, SavedSynthesis, SynthesisNode, SynthesisReport
from okf.readers.base import Usage

NO_SOURCE = "(no source recorded)"
NO_CONTRACT = (
    "No contract: this answer has no typed-fact guarantee (okf ask --contract checks named facts in "
    "code first; see docs/contracts.md)."
)


def render_answer(result: AnswerResult) -> str:
    """The human answer (stdout of ``okf ask``). Sections without content are omitted, except Sources."""
    parts: list[str] = []
    if result.status == "abstained":
        parts.append(f"No answer. {one_line(result.reason or 'The evidence does not answer the question.')}")
    else:
        parts.append(result.answer)
    if result.supporting:
        lines = ["Supporting concepts"]
        lines += [
            f"- [{n}] {one_line(s.title)} ({one_line(s.concept_id)}): {one_line(s.why)}"
            for n, s in enumerate(result.supporting, 1)
        ]
        parts.append("\n".join(lines))
    if result.status == "abstained" and result.shortlist:
        # An abstention keeps what navigation found, so a person can read it themselves.
        lines = ["Shortlisted concepts (not cited)"]
        lines += [
            f"- {one_line(e.title)} ({one_line(e.path)}): {one_line(e.reason or 'judged relevant')}"
            for e in result.shortlist
        ]
        parts.append("\n".join(lines))
    if result.synthesis is not None and result.synthesis.mode == "recursive":
        parts.append(f"Synthesis\n- {synthesis_line(result.synthesis)}")
    orchestration = result.navigation.orchestration if result.navigation else None
    if orchestration is not None and result.status != "answered":
        parts.append(one_line(orchestration.tried))  # what was tried, when the answer is partial or abstains
    if result.caveats:
        parts.append("\n".join(["Caveats", *(f"- {one_line(c)}" for c in result.caveats)]))
    if result.sources:
        lines = ["Sources"]
        for line in result.sources:
            path = next(
                (c.receipt.path for c in result.citations if c.concept_id == line.concept_id), f"{line.concept_id}.md"
            )
            ledger = ", ".join(one_line(source) for source in line.sources) or NO_SOURCE
            if line.through:
                ledger += f" (through {', '.join(one_line(t) for t in line.through)})"
            lines.append(f"{line.number}. {one_line(line.title)} ({one_line(path)}): {ledger}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def render_saved(saved: SavedSynthesis) -> str:
    """One stderr line on what --save did."""
    if saved.action == "skipped":
        return one_line(saved.reason or "Not saved.")
    return f"Saved: {saved.action} {one_line(saved.path)} (a Synthesis concept; okf check verifies its citations)"


def total_usage(result: AnswerResult) -> Usage:
    """The sum of every role's usage."""
    out = Usage()
    for usage in result.usage.values():
        out = out + usage
    return out


def render_footer(result: AnswerResult) -> str:
    """One line for stderr: reader, status and what the question cost."""
    total = total_usage(result)
    failures = f", {total.failures} failed" if total.failures else ""
    # Wall time: navigation's clock plus the answer call (summed call seconds overlap when calls run in parallel).
    answering = result.usage["answerer"].seconds if "answerer" in result.usage else 0.0
    if result.synthesis is not None and result.synthesis.mode == "recursive":
        answering = result.synthesis.seconds
    seconds = (result.navigation.stats.seconds if result.navigation else 0.0) + answering
    return (
        f"{result.status} by {result.reader or 'unknown reader'}: {total.calls} call(s){failures}, "
        f"{total.tokens} tokens, {seconds:.2f} s"
    )


def render_facts(result: AnswerResult) -> str:
    """The Facts section (with a contract) or the one line saying a contract-free answer has no typed facts."""
    if result.contract is None:
        return NO_CONTRACT
    lines = [f"Facts (checked in code against {one_line(result.contract.path)} before answering)"]
    for fact in result.facts:
        if fact.status == "grounded" and fact.receipt is not None:
            r = fact.receipt
            shown = fact.value if isinstance(fact.value, str) else json.dumps(fact.value, ensure_ascii=False)
            value = "absent, as required" if fact.value is None else f"= {shown}"
            lines.append(
                f"- {one_line(fact.name)} {one_line(str(value))} [{r.evidence_id}] "
                f"{one_line(r.path)}:{r.start_line}-{r.end_line}"
            )
        else:
            lines.append(
                f"- {one_line(fact.name)} FAILED {fact.code} ({fact.severity}): "
                f"{one_line(fact.message or '')} (fix: {one_line(fact.fix or '')})"
            )
    return "\n".join(lines)


def synthesis_line(report: SynthesisReport) -> str:
    """One line on a recursive synthesis: coverage, shape and calls per role."""
    missed = (
        f", {len(report.missed_then_covered)} missed then covered by the coverage tail"
        if report.missed_then_covered
        else ""
    )
    calls = ", ".join(f"{role} {n}" for role, n in report.calls.items() if n)
    return (
        f"Recursive synthesis read {report.items_covered} of {report.items_total} evidence items "
        f"({report.evidence_tokens} tokens, budget {report.budget_tokens}) with {report.leaves} leaf "
        f"worker(s), depth {report.depth}{missed}; calls: {calls}; {report.rounds} call(s) deep."
    )


def _node_line(node: SynthesisNode) -> str:
    span = f"items {node.first}-{node.last}" if node.first != node.last or node.items > 1 else f"item {node.first}"
    if node.id == "t":
        span = f"{node.items} missed item(s) ({', '.join(node.evidence_ids[:6])}{' ...' if node.items > 6 else ''})"
    size = f"{span}, {node.tokens} tokens"
    if node.kind == "split":
        how = {
            "decomposer": "split by the decomposer",
            "repaired": "split by the decomposer, repaired",
            "size": "split by size (the decomposer failed)",
        }.get(node.decided_by, node.decided_by)
        return f"{node.id}  {size}: {how} into {len(node.children)}"
    how = {"fits": "leaf", "max depth": "forced leaf (max depth)", "coverage tail": "coverage tail leaf"}.get(
        node.decided_by, node.decided_by
    )
    notes = [f"{node.facts} fact(s)", f"{node.calls} call(s)"]
    if node.missed:
        notes.append(f"skipped {len(node.missed)}")
    if node.failed:
        notes.append(f"FAILED on {len(node.failed)}")
    if node.dropped_citations:
        notes.append(f"{len(node.dropped_citations)} foreign citation(s) dropped")
    return f"{node.id}  {size}: {how}, {', '.join(notes)}"


def render_tree(report: SynthesisReport) -> str:
    """The decomposition tree of a recursive synthesis as indented text, one node a line."""
    lines: list[str] = []

    def walk(node: SynthesisNode, prefix: str, last: bool, root: bool) -> None:
        lines.append(_node_line(node) if root else f"{prefix}{'└── ' if last else '├── '}{_node_line(node)}")
        for note in node.repairs:
            lines.append(f"{prefix}{'' if root else ('    ' if last else '│   ')}   repaired: {one_line(note)}")
        inner = prefix if root else prefix + ("    " if last else "│   ")
        for k, child in enumerate(node.children):
            walk(child, inner, k == len(node.children) - 1, False)

    if report.tree is not None:
        walk(report.tree, "", True, True)
    if report.tail is not None:
        walk(report.tail, "", True, True)
    lines.append(
        f"coverage: {report.items_covered} of {report.items_total} items read"
        + (f", not read: {', '.join(report.not_covered)}" if report.not_covered else "")
    )
    if report.reduce_rounds:
        lines.append(f"reduce: {report.reduce_rounds} round(s) of leaf workers over the facts")
    lines.append(f"answer: {report.facts} fact(s) to the answerer; {report.rounds} call(s) deep")
    return "\n".join(lines)
