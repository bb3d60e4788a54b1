"""Precision and recall of the offline requirement extractor against hand labels (tests/data/requirements).

Usage (from the repo root, the obliqa bundle compiled outside the repo first):

    okf compile ../shared/corpora/obliqa/sources -o /tmp/obliqa
    python scripts/requirements_eval.py /tmp/obliqa                 # the scores
    python scripts/requirements_eval.py /tmp/obliqa --verbose       # every miss and every extra rule
    python scripts/requirements_eval.py /tmp/obliqa --sample        # the 30 section ids the labels cover
    python scripts/requirements_eval.py /tmp/obliqa --labels tests/data/requirements/obliqa-heldout-labels.json
    python scripts/requirements_eval.py /tmp/obliqa --sample heldout   # the 20 held-out section ids

A labelled rule is found by an extracted rule of the same section whose requirement text holds the label's
quote (whitespace and case aside), or failing that whose cited lines hold it; each extracted rule finds at
most one label (texts first, then spans, in reading order). Precision = extracted rules that found a label /
extracted rules; recall = labels found / labels. "type agrees" counts found labels whose deontic type the
extractor gave too.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from okf.bundle import Bundle
from okf.requirements import extract_requirements
from okf.requirements.model import Requirement

REPO = Path(__file__).resolve().parents[1]
LABELS = REPO / "tests" / "data" / "requirements" / "obliqa-labels.json"
SEED, SIZE = 16, 30
HELDOUT_SEED, HELDOUT_SIZE = 1616, 20


def _fold(text: str) -> str:
    return " ".join(text.replace("\u200e", "").split()).casefold()


def sample(bundle: Bundle, which: str = "labelled") -> list[str]:
    """The labelled sample (``SIZE`` concept ids drawn with ``random.Random(SEED)``), or the held-out one
    (``HELDOUT_SIZE`` drawn with ``random.Random(HELDOUT_SEED)`` from the ids not in the first), sorted."""
    ids = sorted(p.removesuffix(".md") for p in bundle.iter_concepts())
    first = sorted(random.Random(SEED).sample(ids, SIZE))
    if which == "labelled":
        return first
    rest = [i for i in ids if i not in set(first)]
    return sorted(random.Random(HELDOUT_SEED).sample(rest, HELDOUT_SIZE))


def match(labels: list[dict], rules: list[Requirement], bundle: Bundle) -> list[tuple[int, int]]:
    """(label index, rule index) pairs, one-to-one: text matches first, then span matches."""
    spans = []
    for rule in rules:
        concept = bundle.concept(rule.citation.concept_id)
        lines = concept.body.split("\n")
        first = concept.body_start_line
        spans.append(_fold("\n".join(lines[rule.citation.start_line - first : rule.citation.end_line - first + 1])))
    texts = [_fold(r.requirement_text) for r in rules]
    pairs: list[tuple[int, int]] = []
    used_labels: set[int] = set()
    used_rules: set[int] = set()
    for pool in (texts, spans):
        for li, label in enumerate(labels):
            if li in used_labels:
                continue
            quote = _fold(label["quote"])
            for ri, text in enumerate(pool):
                if ri not in used_rules and quote in text:
                    pairs.append((li, ri))
                    used_labels.add(li)
                    used_rules.add(ri)
                    break
    return pairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", help="the obliqa bundle (okf compile ../shared/corpora/obliqa/sources -o DIR)")
    parser.add_argument("--labels", default=str(LABELS))
    parser.add_argument(
        "--sample",
        nargs="?",
        const="labelled",
        choices=["labelled", "heldout"],
        help="print the sampled concept ids (the first sample, or the held-out one) and stop",
    )
    parser.add_argument("--verbose", action="store_true", help="list every missed label and every extra rule")
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    args = parser.parse_args()
    bundle = Bundle.open(args.bundle)
    if args.sample:
        print("\n".join(sample(bundle, args.sample)))
        return 0
    data = json.loads(Path(args.labels).read_text(encoding="utf-8"))
    sections = data["sections"]
    missing = [s["concept_id"] for s in sections if not bundle.is_concept_path(s["concept_id"] + ".md")]
    if missing:
        print(
            f"labelled sections not in {args.bundle}: {missing[:3]} (compile with: {data['compile']})", file=sys.stderr
        )
        return 1
    labels_total = rules_total = found = agree = 0
    for section in sections:
        result = extract_requirements(bundle, under=section["concept_id"] + ".md")
        rules, labels = result.requirements, section["rules"]
        pairs = match(labels, rules, bundle)
        labels_total += len(labels)
        rules_total += len(rules)
        found += len(pairs)
        agree += sum(labels[li]["deontic_type"] == rules[ri].deontic_type for li, ri in pairs)
        if args.verbose:
            hit_labels = {li for li, _ in pairs}
            hit_rules = {ri for _, ri in pairs}
            print(f"== {section['concept_id']}: {len(labels)} labels, {len(rules)} rules, {len(pairs)} matched")
            for li, label in enumerate(labels):
                if li not in hit_labels:
                    print(f"   missed [{label['deontic_type']}] {label['quote']}")
            for li, ri in pairs:
                if labels[li]["deontic_type"] != rules[ri].deontic_type:
                    print(
                        f"   type   {labels[li]['deontic_type']} labelled, {rules[ri].deontic_type} extracted: "
                        f"{labels[li]['quote']}"
                    )
            for ri, rule in enumerate(rules):
                if ri not in hit_rules:
                    print(f"   extra  [{rule.deontic_type}] {rule.requirement_text[:160]}")
    precision = found / rules_total if rules_total else 0.0
    recall = found / labels_total if labels_total else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    scores = {
        "sections": len(sections),
        "labels": labels_total,
        "extracted": rules_total,
        "matched": found,
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "f1": round(f1, 3),
        "type_agrees": agree,
        "type_accuracy": round(agree / found, 3) if found else 0.0,
    }
    if args.json:
        print(json.dumps(scores, indent=2))
    else:
        print(
            f"{scores['sections']} sections, {labels_total} labelled rules, {rules_total} extracted, "
            f"{found} matched: precision {precision:.1%}, recall {recall:.1%}, F1 {f1:.1%}; "
            f"deontic type agrees on {agree} of {found} matched ({scores['type_accuracy']:.1%})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
