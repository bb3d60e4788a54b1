"""How coherent a compiled bundle's topic groups are, measured against a corpus's question contexts.

    python scripts/topic_coherence.py BUNDLE [BUNDLE ...]

Each BUNDLE is a compiled corpus named like its folder under ../shared/corpora (``/tmp/b/hotpotqa-dev``).
A document's group is the folder the compile placed it in (the manifest's ``dir``, one level up); its top
group the first folder of that path. For a corpus whose questions list the paragraphs given with them
(``meta.context_titles``, hotpotqa-dev: the two supporting paragraphs and HotpotQA's distractors, which
were picked for being about what the question is about), prints the share of pairs of one question's
context documents that share a group and a top group; and for the questions whose gold spans lie in two
documents, how many of those pairs share a group and a top group. Evaluation only: nothing here is read
by a compile or a walk.
"""

from __future__ import annotations

import argparse
import json
from itertools import combinations
from pathlib import Path

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundles", nargs="+", type=Path)
    args = parser.parse_args()
    print(f"{'bundle':40} {'groups':>6} {'context pairs: group':>21} {'top':>6} {'gold pairs: group':>18} {'top':>5}")
    for bundle in args.bundles:
        sources = json.loads((bundle / ".okf" / "manifest.json").read_text())["sources"]
        group = {name: entry["dir"].rstrip("/").rpartition("/")[0] for name, entry in sources.items()}
        stem = {Path(name).stem: name for name in sources}
        questions = [json.loads(line) for line in (SHARED / bundle.name / "questions.jsonl").open()]
        pairs = same = top = 0
        gold = gold_same = gold_top = 0
        for q in questions:
            titles = q.get("meta", {}).get("context_titles") or []
            docs = sorted({stem[t] for t in titles if t in stem})
            for a, b in combinations(docs, 2):
                pairs += 1
                same += group[a] == group[b]
                top += group[a].split("/")[0] == group[b].split("/")[0]
            files = sorted({g["source"] for g in q["gold"]})
            if len(files) == 2 and all(f in group for f in files):
                a, b = files
                gold += 1
                gold_same += group[a] == group[b]
                gold_top += group[a].split("/")[0] == group[b].split("/")[0]
        shown = f"{same / pairs:.3f}" if pairs else "-"
        shown_top = f"{top / pairs:.3f}" if pairs else "-"
        print(
            f"{bundle!s:40} {len(set(group.values())):>6} {shown:>21} {shown_top:>6} "
            f"{f'{gold_same}/{gold}':>18} {gold_top:>5}"
        )


if __name__ == "__main__":
    main()
