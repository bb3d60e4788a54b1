"""The cross-check after a round, decided in code from the evidence found (seed 003, Block 3).

- **suspicious** when a signal of doubt is present: the planned angles of a part disagree (each found
  relevant evidence, none in common); all relevant evidence comes from one source document the question does not name
  while the walks also found others, or from one author; a part's relevant evidence is only deprecated or stale concepts; a relevant concept has
  a newer version (same title, a later year or version number) that was not found relevant; or the
  evidence only echoes the question's words (a body saying nothing else).
- **insufficient** when a part has no relevant evidence, or what its evidence says leaves a weighty share of
  the part's words unsaid (``GAP_SHARE``: "the woman who portrayed X": found X's page, not what she did); a
  name of the question no bundle says at all counts as unsaid.
- **sufficient** otherwise: every part covered, nothing contradictory.

The words are weighed as the offline reader weighs them (okf.readers.matching: rarity in the bundle). This
checks what the evidence found says, after the judge chose it; it ranks nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from okf.bundle.model import Concept
from okf.models import AngleRecord, OrchestrationState, PartRecord, ShortlistEntry
from okf.readers.angles import name_spans
from okf.readers.matching import Body, Field, Question, Unit, read_body_once
from okf.text.vocabulary import Vocabulary
from okf.text.words import compact, terms

# Angles made after the plan look elsewhere on purpose (a bridge, another family): never "disagreeing".
_LATER = ("second_hop", "escalation")
# A part whose relevant evidence leaves this share of its words' weight unsaid is not yet answered.
GAP_SHARE = 0.25
# Partial concepts at most put forward on a shortlist for saying what its relevant evidence leaves unsaid.
FILLS = 2
# A body of at least this many terms, all of them the question's own, only echoes it.
ECHO_MIN_TERMS = 3
_VERSION = re.compile(r"\b(?:v?\d+(?:\.\d+)*|(?:19|20)\d\d)\b", re.IGNORECASE)


def body_of(text: str) -> Body:
    """A concept body read into sentences and terms, once per process while it is recent (the offline judge
    read it already; the cross-check after each round and the second hops read the same evidence again). The
    judge was given the text without its trailing newlines (okf.navigator.receipts), which read alike."""
    return read_body_once(text.rstrip("\n"))


@dataclass
class Found:
    """One concept the walks shortlisted: its entry, the concept, its bundle, the angles it answers."""

    entry: ShortlistEntry
    concept: Concept
    bundle: str
    answers: set[str] = field(default_factory=set)
    by: str = ""  # the origin of the angle whose walk found it first
    place: tuple[int, int] = (0, 0)  # its rank in the shortlist of the walk that found it, and that walk's number
    bears: set[str] = field(default_factory=set)  # the angles it bears on, relevant or partial
    key: tuple[int, ...] = ()  # its place in the tree, as the walk that found it reached it (listing positions)
    doubt: int = 0  # the doubt on the way to it in that walk (weak choices): partial evidence of surer places first

    @property
    def relevant(self) -> bool:
        return bool(self.answers) or self.entry.grade == "relevant"


@dataclass
class Check:
    """The state after a round, why, the suspicion signals, and per part what is covered and missing."""

    state: OrchestrationState
    why: list[str] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)
    parts: list[PartRecord] = field(default_factory=list)
    gaps: dict[int, list[Unit]] = field(default_factory=dict)  # part -> units its evidence leaves unsaid


def cross_check(
    question: str,
    parts: list[PartRecord],
    angles: list[AngleRecord],
    found: list[Found],
    vocabulary: Vocabulary | None,
    others: list[Vocabulary | None] | None = None,
) -> Check:
    """The three-state cross-check (see the module docstring). ``vocabulary`` weighs the words (the first
    bundle's); a name no bundle's vocabulary (``others`` too) holds is unsaid by any evidence."""
    walked = [a for a in angles if a.walked]
    check = Check(state="sufficient")
    for part in parts:
        record = part.model_copy(update={"covered": False, "evidence": [], "missing": []})
        ids = {a.id for a in walked if a.part == record.index}
        evidence = [f for f in found if f.answers & ids]
        record.evidence = [f.entry.path for f in evidence]
        record.covered = bool(evidence)
        parsed = Question.parse(record.question, vocabulary)
        gap = _unsaid(parsed, evidence, [vocabulary, *(others or [])])
        record.missing = [u.word for u in gap]
        check.gaps[record.index] = gap
        check.parts.append(record)
        label = f"part {record.index} ({record.question})" if len(parts) > 1 else "the question"
        if not evidence:
            check.why.append(f"no relevant evidence for {label}")
        elif _share(parsed, gap) >= GAP_SHARE or asked_for(parsed, record.question) & {u.key for u in gap}:
            check.why.append(f"the evidence for {label} does not say {', '.join(record.missing)}")
        planned = [a for a in walked if a.origin not in _LATER]
        if len([a for a in planned if a.part == record.index and _answering(a, evidence)]) >= 2:
            _disagree(check, record, planned, evidence)
    relevant = [f for f in found if f.relevant]
    _doubts(check, question, parts, relevant, found)
    if check.signals:
        check.state = "suspicious"
    elif check.why:
        check.state = "insufficient"
    else:
        check.why.append("every part has relevant evidence saying what it asks, and nothing contradicts it")
    return check


# "what city", "which team", "what major truck road": the words after "what"/"which" name the kind of thing
# asked for, its head the last of them before a stop word; "what type of X" asks for an X.
_ASKED = re.compile(r"\b(?:what|which)\s+([^?.!;:,]*)", re.IGNORECASE)
ASKED_WORDS = 4
_KIND_OF = frozenset({"type", "types", "kind", "kinds", "sort", "sorts"})


def asked_for(parsed: Question, text: str) -> set[str]:
    """Unit keys of the kind of thing a question asks for ("in what city" -> city): evidence that never says
    it has not said what was asked (it found the team, not the conference's city), however little the word
    weighs. Empty when the question asks with no such noun ("who", "when", "where")."""
    keys: set[str] = set()
    for match in _ASKED.finditer(text):
        content: list[str] = []
        for word in match.group(1).split()[:ASKED_WORDS]:
            if word.casefold() in _KIND_OF and not content:
                continue  # "what type of changes": the changes are asked for
            found = terms(word)
            if not found:
                if content or word.casefold() != "of":
                    break  # a stop word ("did", "was", "that") ends the phrase
                continue
            content.append(found[-1])
        if content:
            keys.add(content[-1])
    return keys & {u.key for u in parsed.units}


def unsaid(
    question: str, evidence: list[Found], vocabulary: Vocabulary | None, others: list[Vocabulary | None]
) -> list[Unit]:
    """What ``evidence`` leaves unsaid of ``question`` when that leaves it unanswered (at least ``GAP_SHARE``
    of its words' weight, as the cross-check decides after a round), else nothing."""
    parsed = Question.parse(question, vocabulary)
    gap = _unsaid(parsed, evidence, [vocabulary, *others])
    return gap if _share(parsed, gap) >= GAP_SHARE else []


def filling(
    question: str, evidence: list[Found], others: list[Found], vocabularies: list[Vocabulary | None]
) -> list[Found]:
    """Of ``others`` (partial evidence), in their order, those saying a unit of ``question`` that
    ``evidence`` (the first answers) leaves unsaid and no earlier one said: "the county's population"
    beside the page of the lake the question names, which never says it. At most ``FILLS``."""
    parsed = Question.parse(question, vocabularies[0] if vocabularies else None)
    # What each text says itself: its title and body (a topical folder's key terms, "topic-kansa-popul-counti",
    # say nothing of the lake's county's population).

    bodies: dict[int, Body] = {}

    def says(f: Found, unit: Unit) -> bool:
        if Field.of(f.concept.title).has_unit(unit):
            return True
        body = bodies.get(id(f))
        if body is None:
            body = bodies[id(f)] = body_of(f.concept.body)
        return body.has_unit(unit)

    gap = {u.key: u for u in parsed.units if u.known and not any(says(f, u) for f in evidence)}
    out: list[Found] = []
    for f in others:
        if not gap or len(out) >= FILLS:
            break
        said = [key for key, u in gap.items() if says(f, u)]
        if said:
            out.append(f)
            for key in said:
                del gap[key]
    return out


def says_all(question: str, vocabulary: Vocabulary | None) -> Callable[[Found], bool]:
    """Whether evidence says every word of ``question`` the bundle knows, in its head or its body: it
    answers the question as asked whole, where another piece says only some of it ("helm chart" without
    "metrics")."""
    parsed = Question.parse(question, vocabulary)
    wanted = frozenset(u.key for u in parsed.units if u.known)

    def complete(f: Found) -> bool:
        return bool(wanted) and wanted <= _said_by(parsed, f)

    return complete


def _answering(angle: AngleRecord, evidence: list[Found]) -> bool:
    return any(angle.id in f.answers for f in evidence)


def _disagree(check: Check, part: PartRecord, walked: list[AngleRecord], evidence: list[Found]) -> None:
    """Angles of one part that each found relevant evidence, with no concept in common."""
    sets = [frozenset(f.entry.path for f in evidence if a.id in f.answers) for a in walked if a.part == part.index]
    sets = [s for s in sets if s]
    if len(sets) >= 2 and not frozenset.intersection(*sets):
        check.signals.append("disagree")
        check.why.append(f"the angles of part {part.index} found different evidence, none in common")


def _unsaid(parsed: Question, evidence: list[Found], vocabularies: list[Vocabulary | None]) -> list[Unit]:
    """The part's units no relevant evidence says: those the bundle says somewhere, and the names no bundle's
    vocabulary holds ("Peru" asked of an employee handbook; a name written into another word, "OASYSMOBILE",
    is said where it is written)."""
    unknown = {u.key for u in _unknown_names(parsed, vocabularies)}
    wanted = [u for u in parsed.units if u.known or u.key in unknown]
    said: set[str] = set()
    for f in evidence:
        said |= _said_by(parsed, f)
    return [u for u in wanted if u.key not in said]


def _said_by(parsed: Question, f: Found) -> frozenset[str]:
    """The unit keys evidence ``f`` says in its head (title and path) or its body (``has_unit`` of each, as key
    sets); remembered per question and evidence text: the early second hops ask it of all the evidence found
    so far after every new piece."""
    key = (f.concept.title, f.entry.path, f.concept.body)
    known = parsed.evidence_said.get(key)
    if known is None:
        head = Field.of(" ".join([f.concept.title, f.entry.path.replace("/", " ").replace("-", " ")]))
        known = parsed.evidence_said[key] = parsed.units_in(head) | parsed.units_of(body_of(f.concept.body))
    return known


def _unknown_names(parsed: Question, vocabularies: list[Vocabulary | None]) -> list[Unit]:
    """Names of the question no bundle's vocabulary holds (never without vocabularies)."""
    if any(v is None for v in vocabularies):
        return []
    return [u for u in parsed.units if u.name and not any(v.knows(t) for v in vocabularies if v for t in u.terms)]


def _share(parsed: Question, gap: list[Unit]) -> float:
    total = sum(u.weight for u in parsed.units if u.known) + sum(u.weight for u in gap if not u.known)
    return sum(u.weight for u in gap) / (total or 1.0)


def _doubts(check: Check, question: str, parts: list[PartRecord], relevant: list[Found], found: list[Found]) -> None:
    """The suspicion signals other than disagreement."""
    if not relevant:
        return
    sources = {_source(f) for f in relevant}
    seen = {_source(f) for f in found}
    if len(sources) == 1 and len(seen) > 1 and not _named(question, relevant[0]):
        check.signals.append("one_source")
        check.why.append(
            f"all relevant evidence comes from one document ({next(iter(sources))}), which the question does not name"
        )
    authors = {_author(f) for f in relevant}
    if len(relevant) > 1 and len(sources) > 1 and len(authors) == 1 and None not in authors:
        check.signals.append("one_author")
        check.why.append(f"all relevant evidence has one author ({next(iter(authors))})")
    for part in check.parts:
        evidence = [f for f in relevant if f.entry.path in part.evidence]
        if evidence and all(f.entry.status == "deprecated" for f in evidence):
            check.signals.append("deprecated")
            check.why.append(f"the only relevant evidence for part {part.index} is deprecated")
        elif evidence and all(f.entry.stale or f.entry.status == "deprecated" for f in evidence):
            check.signals.append("stale")
            check.why.append(f"the only relevant evidence for part {part.index} is stale")
    for f in relevant:
        newer = _newer(f, found)
        if newer is not None:
            check.signals.append("superseded")
            check.why.append(f"{f.entry.path} has a newer version, {newer.entry.path}, not found relevant")
    words = set(terms(question))
    echoes = [f for f in relevant if _echo(f, words)]
    if echoes and len(echoes) == len(relevant):
        check.signals.append("echo")
        check.why.append("the relevant evidence only repeats the question's words")
    check.signals = list(dict.fromkeys(check.signals))


def _source(f: Found) -> str:
    """The source document a concept was compiled from (its first source's resource), else the concept."""
    for source in f.concept.meta.sources:
        if source.resource:
            return f"{f.bundle}::{source.resource}"
    return f"{f.bundle}::{f.entry.path}"


def _author(f: Found) -> str | None:
    """Who wrote what a concept says: its sources' author, or a person who generated it (``human:``)."""
    for source in f.concept.meta.sources:
        if source.author:
            return source.author
    generated = f.concept.meta.generated
    return generated.by if generated and generated.by.startswith("human:") else None


def _named(question: str, f: Found) -> bool:
    """Whether the question names the document (a name it uses is in the title, path or source name)."""
    where = [f.concept.title, f.entry.path] + [s.resource or s.title or "" for s in f.concept.meta.sources]
    letters = compact(" ".join(where))
    return any(len(compact(span.text)) >= 3 and compact(span.text) in letters for span in name_spans(question))


def _base_title(title: str) -> tuple[str, tuple[int, ...]]:
    """A title without its years and version numbers, and those numbers (the version)."""
    numbers = tuple(
        int(float(n)) if n.replace(".", "").isdigit() else 0
        for n in (m.group().lstrip("vV").split(".")[0] for m in _VERSION.finditer(title))
    )
    return compact(_VERSION.sub(" ", title)), numbers


def _newer(f: Found, found: list[Found]) -> Found | None:
    """A found concept with the same title but a later year or version, itself not relevant."""
    base, version = _base_title(f.concept.title)
    if not version or not base:
        return None
    for other in found:
        if other is f or other.relevant:
            continue
        other_base, other_version = _base_title(other.concept.title)
        if other_base == base and other_version > version:
            return other
    return None


def _echo(f: Found, words: set[str]) -> bool:
    """A body that says nothing but the question's own words (a heading restating it, no answer). Read a line
    at a time, stopping at the first word that is neither the title's nor the question's (no token spans a
    line, so the lines' terms are the body's)."""
    title = set(terms(f.concept.title))
    body: set[str] = set()
    for line in f.concept.body.split("\n"):
        said = set(terms(line)) - title
        if not said <= words:
            return False
        body |= said
    return len(body) >= ECHO_MIN_TERMS
