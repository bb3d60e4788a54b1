"""The offline reader's extractive answer: quoted evidence sentences that say what the question asks.

Each quote is a whole sentence of the evidence. The answer is ``answered`` only when the quotes state what
was asked: it is ``partial``, saying what is missing, when some of the question's units are said by no quote
(nor by the title of the evidence quoted), when every quote only leads into what follows it ("complete
the following steps:"), or when the question asks for a figure (how many, how long, when) and no quote
states one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from okf.readers.base import DraftAnswer, Evidence
from okf.readers.matching import Field, Question, read_body
from okf.text.words import clip

# Sentences quoted per evidence item and overall.
SENTENCES_PER_EVIDENCE = 2
SENTENCES_TOTAL = 3
# A sentence that only leads into a list or a block: it ends with a colon.
_LEAD_IN = re.compile(r":\s*$")
_FIGURE = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|thirty|sixty|ninety)\b", re.IGNORECASE
)


@dataclass(frozen=True)
class _Candidate:
    evidence: Evidence
    order: int
    sentence: str
    found: frozenset[str]
    titled: frozenset[str]  # question words the evidence's title already states

    @property
    def covers(self) -> frozenset[str]:
        return self.found | self.titled


def _candidates(question: Question, evidence: Sequence[Evidence]) -> list[_Candidate]:
    out: list[_Candidate] = []
    for order, item in enumerate(evidence):
        context = Field.of(item.title)
        topic = [u for u in question.units if not context.has_unit(u)] or list(question.units)
        body = read_body(item.text)
        places = {u.key: body.sentences_with(u) for u in topic}
        scored = [(s, frozenset(u.key for u in topic if n in places[u.key])) for n, s in enumerate(body.sentences)]
        # A heading-like fragment ("Termination") carries a word but no answer: quote sentences with a verb's room.
        scored = [pair for pair in scored if pair[1] and len(pair[0].split()) >= 4]
        # Most topic words first; for "how long"/"when" questions a sentence with a figure wins a tie.
        scored.sort(key=lambda pair: (-len(pair[1]), not (question.asks_figure and _FIGURE.search(pair[0]))))
        picked: list[tuple[str, frozenset[str]]] = scored[:1]
        # A second sentence only when it adds a question word the first lacks.
        for sentence, found in scored[1:]:
            if len(picked) < SENTENCES_PER_EVIDENCE and found - picked[0][1]:
                picked.append((sentence, found))
        titled = frozenset(u.key for u in question.units if context.has_unit(u))
        out.extend(_Candidate(item, order, s, f, titled) for s, f in picked)
    return out


def answer_from(question: Question, evidence: Sequence[Evidence]) -> DraftAnswer:
    """Quote the evidence sentences that carry the most question terms, citing their evidence ids."""
    candidates = _candidates(question, evidence)
    chosen: list[_Candidate] = []
    covered: set[str] = set()
    # Greedy cover: each pick adds the most question words not yet quoted (a quote is read with its source's
    # title, so the title's words count as said); ties go to earlier evidence.
    while candidates and len(chosen) < SENTENCES_TOTAL:
        best = max(candidates, key=lambda c: (len(c.covers - covered), len(c.covers), -c.order))
        if chosen and not best.covers - covered:
            break
        chosen.append(best)
        covered |= best.covers
        candidates.remove(best)
    if not chosen:
        return DraftAnswer(
            text="", cited=[], partial=False, missing="no evidence sentence mentions the question's words"
        )
    chosen.sort(key=lambda c: c.order)  # read in evidence order
    lines = [
        f'{c.evidence.title}: "{clip(c.sentence, 400)}"' if c.evidence.title else f'"{clip(c.sentence, 400)}"'
        for c in chosen
    ]
    cited = list(dict.fromkeys(c.evidence.id for c in chosen))
    quoted_titles = " ".join(c.evidence.title for c in chosen)
    titles = Field.of(quoted_titles)
    missing_terms = {u.key for u in question.units if u.key not in covered and not titles.has_unit(u)}
    missing = []
    if missing_terms:
        missing.append(f"the quoted evidence does not mention: {question.named(missing_terms)}")
    if all(_LEAD_IN.search(c.sentence) for c in chosen):
        # "To install the plugin, complete the following steps:" introduces an answer; it does not state it.
        missing.append("the quoted sentences only introduce what follows them")
    if question.asks_figure and not any(_FIGURE.search(c.sentence) for c in chosen):
        missing.append("a figure: the question asks how many, how long or when, and no quote states one")
    return DraftAnswer(text="\n".join(lines), cited=cited, partial=bool(missing), missing="; ".join(missing))
