"""Offline requirement extraction on a whole bundle: rules per section, the share with a valid deontic type and a
citation that verifies, and the time, in worker processes and in one process, side by side.

Usage (from the repo root; the bundle is compiled outside the repository):

    okf compile ../shared/corpora/obliqa/sources -o /tmp/obliqa
    python scripts/bench_requirements.py /tmp/obliqa [--repeat 3] [--json]

A citation verifies when its lines lie in the concept's body and the sha256 of those file lines
(okf.sources.span_sha256) equals the citation's sha256.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from okf.bundle import Bundle
from okf.requirements import extract_requirements, pool
from okf.requirements.model import RequirementsResult
from okf.sources import span_sha256


def verified(bundle: Bundle, result: RequirementsResult) -> int:
    """How many requirements carry a citation whose lines and sha256 check out against the concept file."""
    ok = 0
    texts: dict[str, str] = {}
    for requirement in result.requirements:
        c = requirement.citation
        if c.path not in texts:
            texts[c.path] = (bundle.root / c.path).read_text(encoding="utf-8")
        concept = bundle.concept(c.concept_id)
        inside = concept.body_start_line <= c.start_line <= c.end_line <= concept.end_line
        ok += inside and span_sha256(texts[c.path], c.start_line, c.end_line) == c.sha256
    return ok


def timed(root: str, repeat: int, parallel: bool) -> tuple[float, RequirementsResult]:
    """The best wall time of ``repeat`` runs on a fresh Bundle each (in processes or forced into one)."""
    saved = pool.PARALLEL_FROM
    pool.PARALLEL_FROM = saved if parallel else 10**9
    try:
        best, result = float("inf"), None
        for _ in range(repeat):
            start = time.perf_counter()
            result = extract_requirements(Bundle.open(root))
            best = min(best, time.perf_counter() - start)
    finally:
        pool.PARALLEL_FROM = saved
    assert result is not None
    return best, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    bundle = Bundle.open(args.bundle)
    load = os.getloadavg()[0]
    pooled, result = timed(args.bundle, args.repeat, parallel=True)
    single, again = timed(args.bundle, args.repeat, parallel=False)
    assert [r.requirement_id for r in again.requirements] == [r.requirement_id for r in result.requirements]
    per_section: dict[str, int] = {}
    for requirement in result.requirements:
        per_section[requirement.citation.concept_id] = per_section.get(requirement.citation.concept_id, 0) + 1
    counts = [per_section.get(p.removesuffix(".md"), 0) for p in bundle.iter_concepts()]
    size = sum((bundle.root / p).stat().st_size for p in bundle.iter_concepts())
    s = result.stats
    valid = sum(n for kind, n in s.by_type.items() if kind != "ambiguous")
    cited = verified(bundle, result)
    report = {
        "bundle": args.bundle,
        "sections": s.sections,
        "megabytes": round(size / 1e6, 2),
        "rules": s.rules,
        "by_type": s.by_type,
        "rules_per_section": round(s.rules / s.sections, 2),
        "sections_with_rules": s.sections_with_rules,
        "median_rules_per_section": statistics.median(counts),
        "max_rules_per_section": max(counts),
        "skeleton_then_fill_sections": s.dense,
        "valid_deontic_type": valid,
        "valid_deontic_share": round(valid / s.rules, 4),
        "citation_verifies": cited,
        "citation_share": round(cited / s.rules, 4),
        "seconds_processes": round(pooled, 2),
        "seconds_one_process": round(single, 2),
        "workers": pool.workers(),
        "speedup": round(single / pooled, 2),
        "sections_per_second": round(s.sections / pooled),
        "load_before": round(load, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"{report['sections']} sections ({report['megabytes']} MB): {report['rules']} rules, "
        f"{report['rules_per_section']} per section (median {report['median_rules_per_section']}, "
        f"max {report['max_rules_per_section']}); {report['sections_with_rules']} sections hold one or more"
    )
    print(
        f"by type: {report['by_type']}; valid deontic type {report['valid_deontic_share']:.1%}, "
        f"citation verifies {report['citation_share']:.1%}"
    )
    print(
        f"offline extraction: {report['seconds_processes']} s in {report['workers']} processes, "
        f"{report['seconds_one_process']} s in one ({report['speedup']}x); best of {args.repeat}; "
        f"load {report['load_before']} -> {report['load_after']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
