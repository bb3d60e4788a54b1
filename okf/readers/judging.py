"""The offline judge: one graded verdict per body, decided on that body alone.

A body is judged on the question's units it says (each weighed by its rarity in the bundle, bundle
statistics that are the same for every body) and on whether it says them together:

- ``coverage``: the weighed share of the question's topic units the body says anywhere (its title and
  headings count whole, its text ``BODY_CREDIT``); units no concept of the bundle says at all (words of
  the question's own phrasing) are left out, since no body can say them;
- ``together``: the weighed share said within one passage of ``WINDOW`` consecutive sentences (units of the
  title and headings count in every passage: a section titled "Termination" speaks of termination
  throughout).

``relevant`` needs both high; ``partial`` needs a fair coverage; anything less is ``no``. Units the
concept's folder already answers (the contract a question names, when the concept sits in that
contract's folder) are context, not topic; but a document a topical group holds says the group's key
terms itself (compile named the group by them), and is partial when it says enough counting them, together
in one passage, and one of the things the question names. Inside the folder of a thing the question names
(its path spells out a run of names the question identifies: the contract, not a numbered rule), where the
evidence must be if the bundle holds it, a body saying less of the topic is already partial evidence. The verdict depends on
the question, the body and the bundle's vocabulary only: never on the other bodies of a batch, so batching
cannot change a shortlist.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from okf.limits import TOPIC_PREFIX
from okf.readers.base import Document, Grade, Verdict
from okf.readers.matching import Body, Field, Question, Unit, read_body
from okf.text.words import clip

BODY_CREDIT = 0.8
WINDOW = 2
RELEVANT_COVERAGE = 0.45
RELEVANT_TOGETHER = 0.35
PARTIAL_COVERAGE = 0.3
# ... and this, inside the folder of a thing the question names by name (``in_named_folder``).
NAMED_PARTIAL_COVERAGE = 0.2


def judge_all(question: Question, documents: Sequence[Document], bodies: Sequence[Body] | None = None) -> list[Verdict]:
    """One verdict per document, in order, each decided alone."""
    read = list(bodies) if bodies is not None else [read_body(d.text) for d in documents]
    return [judge_one(question, d, b) for d, b in zip(documents, read)]


def _context(document: Document) -> Field:
    """The words of the folders above a concept."""
    return _folders(document.id.split("/")[:-1])


def _things(document: Document) -> Field:
    """The folders above a concept that may be the folder of a thing: not a topical group okf compile named
    by its key terms ("topic-britain-cypress-genus" holds "cypress" but is no folder of the cypress)."""
    return _folders([f for f in document.id.split("/")[:-1] if not f.startswith(TOPIC_PREFIX)])


def _folders(names: list[str]) -> Field:
    return Field.of(" ".join(names).replace("-", " "))


def judge_one(question: Question, document: Document, body: Body | None = None) -> Verdict:
    """The graded verdict on one body (see the module docstring)."""
    return verdict_of(question, document, assess(question, document, body))


@dataclass(frozen=True)
class Assessment:
    """What the judge made of one body for one question: the grade, and what its reason quotes."""

    grade: Grade
    coverage: float = 0.0
    best: str = ""
    said: tuple[Unit, ...] = ()
    headed: tuple[Unit, ...] = ()
    about: frozenset[str] = frozenset()

    @property
    def given(self) -> Grade:
        """The grade its verdict gives: a body about a thing the question names is at least partial."""
        return "partial" if self.grade == "no" and self.about else self.grade


def assess(question: Question, document: Document, body: Body | None = None, head: Field | None = None) -> Assessment:
    """The grade of one body for ``question`` (:func:`verdict_of` words it); ``head`` is the document's title
    and headings as a field, when the caller read them already (several questions judge one body)."""
    if not question.units:
        return Assessment("no")
    body = body or read_body(document.text)
    # A concept titled by something the question names is about it, whatever words its folder shares with
    # the question; unless its folder already is that thing (a contract's folder and its title page): the
    # folder's name spells the same names out whole, not merely some of their words (a topical group named
    # by key terms, "buffett psycholog warren", is no folder of Warren Buffett's, nor is
    # "topic-britain-cypress-genus" the cypress's: ``_things``).
    context = _context(document)
    explained = question.explained(context)
    about = question.about(document.title)
    if about and about <= explained and about <= question.spelled(_things(document)):
        about = set()
    explained -= about
    topic, total = _topic(question, explained)
    head = head or head_field(document)
    # The units the head and the body say, as key sets (``has_unit`` of each, looked up once per term).
    in_head = question.units_in(head)
    in_body = question.units_of(body)
    headed = [u for u in topic if u.key in in_head]
    said, coverage = _coverage(topic, total, in_head, in_body)
    best, together = _together(body, said, in_head, total)
    grade = grade_of(coverage, together, lambda: bool(explained) and in_named_folder(question, context))
    if grade == "no" and explained and _grouped_document(document):
        grouped = _grouped(question, document, body, in_head, in_body)
        if grouped:
            grade, said = "partial", grouped
    if grade == "no" and not about and question.identifiers:
        # A body saying a rare identifier the question writes as code is about what the question names.
        about = set((in_head | in_body) & question.identifiers)
    return Assessment(grade, coverage, best, tuple(said), tuple(headed), frozenset(about))


def _grouped_document(document: Document) -> bool:
    """Whether a topical group holds the concept directly (okf compile's ``topic-`` folders,
    ``okf.limits.TOPIC_PREFIX``): a document grouped with others by its own words, not a section of one."""
    folder = document.id.rpartition("/")[0]
    return folder.rpartition("/")[2].startswith(TOPIC_PREFIX)


def _grouped(
    question: Question, document: Document, body: Body, in_head: AbstractSet[str], in_body: AbstractSet[str]
) -> list[Unit]:
    """The units a document a topical group holds says, its group's words counted as its own (okf compile
    named the group by its members' key terms, "topic-festiv-documentari-film": statistics, not a thing its
    members leave unsaid), when they are a fair share of the question, said together in one passage (the
    bar a relevant body's best passage meets: words each member may say somewhere are no evidence
    scattered), and take in one of the things the question names, if it names any (another contract of the
    group than the "Remark Holdings" one asked about is not evidence); else none. Partial at most: words
    every member of the group may say do not make one of them the answer."""
    if question.thing_keys and not any(keys <= in_head | in_body for keys in question.thing_keys):
        return []  # it says none of the things the question names: it is about another one
    # Only what a folder of a thing above the group answers, if any, is context.
    topic, total = _topic(question, question.explained(_things(document)))
    said, coverage = _coverage(topic, total, in_head, in_body)
    if coverage < PARTIAL_COVERAGE:
        return []
    return said if _together(body, said, in_head, total)[1] >= RELEVANT_TOGETHER else []


def _topic(question: Question, explained: AbstractSet[str]) -> tuple[list[Unit], float]:
    """The question's units a body is judged on (those its folders do not already answer), and their weight."""
    topic = [u for u in question.units if u.key not in explained] or list(question.units)
    # Units no concept of the bundle says (a word of the question's own phrasing) cannot tell bodies apart.
    topic = [u for u in topic if u.known] or topic
    return topic, sum(u.weight for u in topic) or 1.0


def _coverage(
    topic: list[Unit], total: float, in_head: AbstractSet[str], in_body: AbstractSet[str]
) -> tuple[list[Unit], float]:
    """The units of ``topic`` the head or the body says, and their weighed share (the body's at BODY_CREDIT)."""
    said = [u for u in topic if u.key in in_head or u.key in in_body]
    return said, sum(u.weight * (1.0 if u.key in in_head else BODY_CREDIT) for u in said) / total


def _together(body: Body, said: list[Unit], in_head: AbstractSet[str], total: float) -> tuple[str, float]:
    """The best passage of the body, and the share of the topic said together: the head's units (in every
    passage) and those of that passage."""
    best, best_units = _best_passage(body, [u for u in said if u.key not in in_head])
    return best, (sum(u.weight for u in said if u.key in in_head) + sum(u.weight for u in best_units)) / total


def grade_of(coverage: float, together: float, named: Callable[[], bool]) -> Grade:
    """The grade of a body saying ``coverage`` of the topic, ``together`` in one passage; ``named`` says
    (asked only when it matters) whether the body sits in the folder of a thing the question names."""
    if coverage >= RELEVANT_COVERAGE and together >= RELEVANT_TOGETHER:
        return "relevant"
    if coverage >= PARTIAL_COVERAGE or (coverage >= NAMED_PARTIAL_COVERAGE and named()):
        return "partial"
    return "no"


def in_named_folder(question: Question, context: Field) -> bool:
    """Whether ``context`` (a concept's folder path, as words) spells out a thing the question names by
    name: a run of names it identifies ("Adaptimmune Therapeutics" in "adaptimmune-therapeutics-plc-...") or
    one rare name (``Question.spelled``). A numbered reference ("Rule 7.2.2", "MIR 2.9") is not a name: its
    folder is one short section, every passage of which shares its subject, so a lower bar there admits them
    all (measured: docs/benchmarks.md, "Weaker evidence inside the folder the question names")."""
    found = question.spelled(context)
    if not found:
        return False
    numbered = {t for run in question.runs if any(ch.isdigit() for ch in run) for t in question.run_terms.get(run, ())}
    return bool(found - numbered)


def head_field(document: Document) -> Field:
    """A document's title and headings, as a field."""
    return Field.of(" ".join([document.title, *document.headings]))


def verdict_of(
    question: Question,
    document: Document,
    assessment: Assessment,
    *,
    answers: list[int] | None = None,
    bears: list[int] | None = None,
) -> Verdict:
    """The verdict an assessment gives, with its reason in the question's words; ``answers`` and ``bears``
    (a verdict under several angles, ``judge_angles``) are set on it as it is made, when given."""
    angles: dict[str, Any] = {}
    if answers is not None:
        angles["answers"] = answers
    if bears is not None:
        angles["bears"] = bears
    if not question.units:
        return Verdict(
            id=document.id,
            relevant=False,
            grade="no",
            reason="the question has no content words to look for",
            **angles,
        )
    grade, coverage, best, about = assessment.grade, assessment.coverage, assessment.best, assessment.about
    said, headed = assessment.said, assessment.headed
    named = question.named({u.key for u in said})
    if grade == "no" and about:
        # A paragraph about a thing the question names is evidence about it, however few of the question's
        # other words it says (the other half of a comparison, the bridge of a second hop).
        return Verdict(
            id=document.id,
            relevant=True,
            grade="partial",
            reason=f"partly: about {question.named(about)}, which the question names",
            **angles,
        )
    if grade != "no" and best:
        reason = f'"{clip(best)}" (mentions {named})'
    elif grade != "no":
        reason = f"title/headings mention {question.named({u.key for u in headed})}"
    elif said:
        reason = f"mentions only {named} of the question's words (coverage {coverage:.2f})"
    else:
        reason = "mentions none of the question's words"
    if grade == "partial":
        reason = f"partly: {reason}"
    return Verdict(id=document.id, relevant=grade != "no", grade=grade, reason=reason, **angles)


def _best_passage(body: Body, units: list[Unit]) -> tuple[str, list[Unit]]:
    """The passage of ``WINDOW`` sentences saying the most weight of ``units`` (earliest wins ties)."""
    if not units:
        return "", []
    if len(units) == 1:
        # One unit: the first passage holding it weighs the most (no later one weighs more), and the sentence
        # quoted is the first saying it.
        unit = units[0]
        holding = body.sentences_with(unit)
        if not holding or not unit.weight > 0.0:
            return "", []
        return body.sentences[min(holding)], [unit]
    places: dict[int, list[Unit]] = {}
    for unit in units:
        for n in body.sentences_with(unit):
            places.setdefault(n, []).append(unit)
    # A passage whose units all stand in one of its sentences weighs what that sentence weighs: summed once
    # per sentence, in the same order (so to the same float), when no unit is given twice.
    alone = len({u.key for u in units}) == len(units)
    weighs = {n: sum([u.weight for u in said]) for n, said in places.items()} if alone else {}
    best_weight, best_start, best_units = 0.0, -1, []
    for start in sorted({max(0, n - WINDOW + 1) for n in places} | set(places)):
        held = [n for n in range(start, start + WINDOW) if n in places]
        if alone and len(held) == 1:
            weight = weighs[held[0]]
            if weight > best_weight:
                best_weight, best_start, best_units = weight, start, list(places[held[0]])
            continue
        # The passage's units, the first sentence's first (a unit said twice keeps its first place).
        found = {unit.key: unit for n in held for unit in places[n]}
        weight = sum([u.weight for u in found.values()])
        if weight > best_weight:
            best_weight, best_start, best_units = weight, start, list(found.values())
    if best_start < 0:
        return "", []
    # Quote the sentence of the passage that says most.
    quote = max(
        range(best_start, min(best_start + WINDOW, len(body.sentences))),
        key=lambda n: (weighs.get(n, 0) if alone else sum(u.weight for u in places.get(n, ())), -n),
    )
    return body.sentences[quote], best_units
