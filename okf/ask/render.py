"""The answer shape for people: direct answer with [n] citations, supporting concepts, caveats, Sources ledger."""

from __future__ import annotations

import json

from okf.ask.prose import one_line
from okf.models import AnswerResult
from okf.readers.base import Usage

NO_SOURCE = "(no source recorded)"
NO_CONTRACT = ("No contract: this answer has no typed-fact guarantee (okf ask --contract checks named facts in "
               "code first; see docs/contracts.md).")


def render_answer(result: AnswerResult) -> str:
    """The human answer (stdout of ``okf ask``). Sections without content are omitted, except Sources."""
    parts: list[str] = []
    if result.status == "abstained":
        parts.append(f"No answer. {one_line(result.reason or 'The evidence does not answer the question.')}")
    else:
        parts.append(result.answer)
    if result.supporting:
        lines = ["Supporting concepts"]
        lines += [f"- [{n}] {one_line(s.title)} ({one_line(s.concept_id)}): {one_line(s.why)}"
                  for n, s in enumerate(result.supporting, 1)]
        parts.append("\n".join(lines))
    if result.status == "abstained" and result.shortlist:
        # An abstention keeps what navigation found, so a person can read it themselves.
        lines = ["Shortlisted concepts (not cited)"]
        lines += [f"- {one_line(e.title)} ({one_line(e.path)}): {one_line(e.reason or 'judged relevant')}"
                  for e in result.shortlist]
        parts.append("\n".join(lines))
    if result.caveats:
        parts.append("\n".join(["Caveats", *(f"- {one_line(c)}" for c in result.caveats)]))
    if result.sources:
        lines = ["Sources"]
        for line in result.sources:
            path = next((c.receipt.path for c in result.citations if c.concept_id == line.concept_id),
                        f"{line.concept_id}.md")
            ledger = ", ".join(one_line(source) for source in line.sources) or NO_SOURCE
            lines.append(f"{line.number}. {one_line(line.title)} ({one_line(path)}): {ledger}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


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
    seconds = (result.navigation.stats.seconds if result.navigation else 0.0) + answering
    return (f"{result.status} by {result.reader or 'unknown reader'}: {total.calls} call(s){failures}, "
            f"{total.tokens} tokens, {seconds:.2f} s")


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
            lines.append(f"- {one_line(fact.name)} {one_line(str(value))} [{r.evidence_id}] "
                         f"{one_line(r.path)}:{r.start_line}-{r.end_line}")
        else:
            lines.append(f"- {one_line(fact.name)} FAILED {fact.code} ({fact.severity}): "
                         f"{one_line(fact.message or '')} (fix: {one_line(fact.fix or '')})")
    return "\n".join(lines)
