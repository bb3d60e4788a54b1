"""How well a bundle's signposts say what is inside: the figures issue 11 sets targets for.

    python scripts/signpost_quality.py BUNDLE [BUNDLE ...] [--json] [--window 6000]

Per bundle, with zero model calls:

- directory signposts whose description is mostly identifiers ("Part 1; Part 1.Chapter 1; 93); 94)"):
  more than half of its words are numbers, numbering or structural words (part, chapter, section, ...);
- concepts whose ``description`` equals their ``title`` (or is missing);
- concepts carrying ``tags``;
- index.md files per concept;
- concepts the judge cannot read whole: longer than its window (``--window``, default the navigator's
  body_chars; a single line longer than the window is shown whole up to twice the window).

Works on any OKF bundle (okf's or another producer's).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from okf.bundle import Bundle  # noqa: E402
from okf.compile.describe import mostly_identifiers  # noqa: E402
from okf.errors import BundleError  # noqa: E402
from okf.models import JUDGE_WINDOW_CHARS  # noqa: E402
from okf.navigator.receipts import judged_text  # noqa: E402


def measure(root: Path, window: int) -> dict[str, Any]:
    """The signpost figures of one bundle."""
    bundle = Bundle.open(root)
    dirs = dir_blind = concepts = same = tagged = long = indexes = 0
    for directory in bundle.iter_directories():
        try:
            listing = bundle.listing(directory)
        except BundleError:
            continue
        if (root / directory / "index.md").is_file():
            indexes += 1
        for signpost in listing.signposts:
            if signpost.is_dir:
                dirs += 1
                dir_blind += mostly_identifiers(signpost.description)
    for path in bundle.iter_concepts():
        try:
            concept = bundle.load(path)
        except BundleError:
            continue
        concepts += 1
        meta = concept.meta
        description = (meta.description or "").strip()
        same += not description or description.casefold() == (concept.title or "").strip().casefold()
        tagged += bool(meta.tags)
        long += judged_text(concept.body, window)[1]
    return {
        "bundle": str(root),
        "concepts": concepts,
        "directory_signposts": dirs,
        "identifier_only_directory_descriptions": dir_blind / dirs if dirs else 0.0,
        "description_equals_title": same / concepts if concepts else 0.0,
        "concepts_with_tags": tagged / concepts if concepts else 0.0,
        "index_files_per_concept": indexes / concepts if concepts else 0.0,
        "concepts_longer_than_window": long,
        "window_chars": window,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundles", nargs="+", type=Path)
    parser.add_argument("--window", type=int, default=JUDGE_WINDOW_CHARS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [measure(b, args.window) for b in args.bundles]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        "| bundle | concepts | identifier-only dir descriptions | description = title | with tags | "
        "index.md per concept | longer than judge window |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {Path(r['bundle']).name} | {r['concepts']} | {r['identifier_only_directory_descriptions']:.1%} | "
            f"{r['description_equals_title']:.1%} | {r['concepts_with_tags']:.1%} | "
            f"{r['index_files_per_concept']:.2f} | {r['concepts_longer_than_window']} |"
        )


if __name__ == "__main__":
    main()
