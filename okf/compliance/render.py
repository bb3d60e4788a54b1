"""Compliance findings for people: the roll-up first, then each finding (violations first) with both citations."""

from __future__ import annotations

from okf.compliance.model import ComplianceResult, Finding
from okf.text.words import clip

LABELS = {"violation": "VIOLATION", "needs_review": "NEEDS REVIEW", "compliant": "COMPLIANT"}


def render_finding(finding: Finding) -> str:
    """A finding: verdict and rule, why, the subject lines and the requirement clause it rests on."""
    s, r = finding.subject_span, finding.requirement_receipt
    confidence = f" (confidence {finding.confidence:.2f})" if finding.confidence is not None else ""
    lines = [
        f"{LABELS[finding.verdict]}  {clip(finding.requirement_text, 300)}",
        f"  why: {clip(finding.rationale or 'no rationale given', 300)}{confidence}",
    ]
    if finding.raw_verdict is not None:
        lines.append(f"  the reader said {finding.raw_verdict!r}, which is not a verdict: needs_review")
    lines += [
        f"  subject:     {s.path}:{s.start_line}-{s.end_line}",
        f"  requirement: {r.path}:{r.start_line}-{r.end_line}  ({finding.requirement_id})",
    ]
    return "\n".join(lines)


def render_rollup(result: ComplianceResult) -> str:
    """One line: how many requirements were considered, applied, and the count per verdict."""
    counts = result.rollup
    judged = sum(counts.values())
    return (
        f"{result.subject}: {counts.get('violation', 0)} violation(s), {counts.get('needs_review', 0)} to review, "
        f"{counts.get('compliant', 0)} compliant; {judged} requirement(s) judged of {result.considered} "
        f"considered ({result.not_applicable} did not apply)"
    )


def render_result(result: ComplianceResult) -> str:
    """The whole report for ``okf comply``."""
    parts = [render_rollup(result)]
    parts += [render_finding(f) for f in result.findings]
    if result.not_judged:
        parts.append(
            f"Not judged ({len(result.not_judged)}, over --max-requirements): "
            + ", ".join(result.not_judged[:20])
            + (" …" if len(result.not_judged) > 20 else "")
        )
    return "\n\n".join(parts)
