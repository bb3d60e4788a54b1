"""Requirements for people: one block per rule (type, actor, sentence, citation) and a one-line summary."""

from __future__ import annotations

from okf.requirements.model import Requirement, RequirementsResult


def render_requirement(requirement: Requirement) -> str:
    """Three lines: type and actor, the rule's sentence, where it is stated and its id."""
    c = requirement.citation
    who = f" · {requirement.actor}" if requirement.actor else ""
    lines = [f"[{requirement.deontic_type}]{who}", f"  {requirement.requirement_text}"]
    if requirement.applicability:
        lines.append(f"  applies: {'; '.join(requirement.applicability)}")
    if requirement.evidence_standard:
        lines.append(f"  evidence: {requirement.evidence_standard}")
    lines.append(f"  {c.path}:{c.start_line}-{c.end_line}  {requirement.requirement_id}")
    return "\n".join(lines)


def render_summary(result: RequirementsResult) -> str:
    """The run in one line: rules by type, sections, failures, time, reader."""
    s = result.stats
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(s.by_type.items(), key=lambda kv: -kv[1])) or "none"
    failed = f", {s.failed} sections FAILED" if s.failed else ""
    extra = f", {s.dense} skeleton-then-fill" if s.dense else ""
    cached = f", {s.cached} from cache" if s.cached else ""
    return (
        f"{s.rules} requirements ({kinds}) from {s.sections_with_rules} of {s.sections} sections"
        f"{extra}{cached}{failed} in {s.seconds:.2f}s; reader: {result.reader}"
    )
