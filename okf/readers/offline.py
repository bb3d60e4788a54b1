"""The offline reader: a deterministic stand-in for a model, used when no model is configured.

It reads like a careful skimmer that only knows the question's words. It weighs them the way a reader
weighs them while looking at one list: a word every signpost in the offer carries ("agreement" in every
contract title) tells the options apart no better than none, while a rare word or a name ("Adaptimmune",
"Keycloak") decides. Every decision is then made per item against a fixed threshold, never by ranking
items against each other or by scoring the question against the corpus. No network, no randomness.

- select: keep a signpost whose title, name or description matches an informative question word; when
  nothing in the offer does, open the directories carrying a question word too widely spread to be
  informative, else the range groups ("Documents 1 to 24") that may hide it, else (inside a range group)
  its folders.
- judge: a body is relevant when it covers the question's topic words (those its own path does not
  already explain; alternatives joined by "or" count once) and one sentence or heading carries them
  together, or its title names the topic with a word rare in the batch that a sentence carries too; the
  reason quotes that sentence.
- answer: quote the evidence sentences that carry the most topic words, citing their evidence ids.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Self

from okf.readers.base import (
    Choice,
    Document,
    DraftAnswer,
    Evidence,
    Judgement,
    Selection,
    SignpostOffer,
    Usage,
    Verdict,
)
from okf.readers.matching import WORD, Body, Field, Question, read_body
from okf.readers.offline_roles import OfflineRoles
from okf.readers.synthesis import LeafExtract, Part, Split, extract_offline, split_offline
from okf.text.words import clip, stem

# select: a term is informative when at most this share of the offer carries it (and at least one does).
COMMON_SHARE = 0.4
# select: an informative word in the title or name scores 2, in the description 1. Opening a directory is
# cheap (its children are decided again, one by one); a concept costs a judged body.
DIRECTORY_KEEP_SCORE = 1
CONCEPT_KEEP_SCORE = 2
# judge: weighted coverage of the topic words (title/heading 1.0, body 0.7; names weigh more) needed.
HEADING_CREDIT = 1.0
BODY_CREDIT = 0.7
RELEVANT_COVERAGE = 0.45
# judge: a question word every document of a batch (of at least COMMON_BATCH) carries weighs this much.
COMMON_WEIGHT = 0.25
COMMON_BATCH = 4
# judge: a question word at most this share of a batch carries is rare there: with the title on the
# question's topic, one sentence carrying it is enough.
RARE_SHARE = 0.5
# judge: a question with this many telling words needs one more of them together in a sentence.
LONG_QUESTION = 5
# judge: a question word pair that stands together in a sentence too (a phrase) adds this to coverage.
PHRASE_BONUS = 0.1
# answer: sentences quoted per evidence item and overall.
SENTENCES_PER_EVIDENCE = 2
SENTENCES_TOTAL = 3
# Parsed bodies kept per reader (keyed by sha256): a walk re-judges nothing, but many walks share bodies.
BODY_CACHE_SIZE = 4096

# Light verbs ("take effect", "provide for"): they count towards coverage, never towards the words a
# sentence must carry together.
LIGHT_TERMS = frozenset(
    stem(w)
    for w in [
        "take",
        "make",
        "provide",
        "apply",
        "require",
        "allow",
        "include",
        "contain",
        "happen",
        "mean",
        "work",
        "set",
        "go",
        "come",
        "put",
        "see",
        "find",
        "handle",
        "ensure",
    ]
)
# Words that make a title the name of an organisation (a small general table).
COMPANY_FORMS = frozenset(
    [
        "inc",
        "ltd",
        "llc",
        "corp",
        "corporation",
        "incorporated",
        "company",
        "limited",
        "plc",
        "gmbh",
        "lp",
        "llp",
    ]
)
_FIGURE = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|thirty|sixty|ninety)\b", re.IGNORECASE
)
# A range group: "Documents 1 to 24", "Sections 1.1.1 to 2", "Part 3", "Pages 10-19".
_RANGE_TITLE = re.compile(r"^\s*[^\W\d_]+\s+[\w.()]+(?:\s*(?:to|-|–)\s*[\w.()]+)?\s*$")
# A range followed by the span of titles it holds ("Documents 1 to 14: About to Installing"): its
# description lists them, so it is read like any signpost and opened only when nothing else fits.
# A range group's folder name: "documents-15-28", "sections-1-22".
_RANGE_PATH = re.compile(r"^[^\W\d_]+-\d[\w.]*-\d[\w.]*$")
_SPAN_TITLE = re.compile(r"^\s*[^\W\d_]+\s+[\w.()]+\s*(?:to|-|–)\s*[\w.()]+\s*:")


def _name_of(path: str) -> str:
    """The last path segment without ``.md``: only it speaks for the signpost (ancestors already matched)."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return name.removesuffix(".md").replace("-", " ").replace("_", " ")


def _is_range(offer: SignpostOffer) -> bool:
    """A group named only by its range ("Documents 1 to 24"): its title says nothing about its content."""
    return offer.is_dir and bool(_RANGE_TITLE.match(offer.title)) and any(ch.isdigit() for ch in offer.title)


def _is_group(offer: SignpostOffer) -> bool:
    """A range group, also one titled with the span of titles it holds ("Documents 1 to 14: A to B")."""
    return _is_range(offer) or (offer.is_dir and bool(_SPAN_TITLE.match(offer.title)))


def _lists_a_range_group(offers: Sequence[SignpostOffer]) -> bool:
    """The folder these signposts list is a range group by its name ("documents-15-28")."""
    if not offers:
        return False
    folder = offers[0].path.rstrip("/").rpartition("/")[0]
    return bool(_RANGE_PATH.match(folder.rpartition("/")[2]))


def _hard_name(title: str) -> bool:
    """A title naming an organisation: one opening with a name written as one token ("ADAPTIMMUNETHERAPEUTICSPLC",
    "2ThemartComInc") or carrying a company form ("Loop Industries, Inc. - Marketing Agreement")."""
    plain = unicodedata.normalize("NFKC", title).strip()
    if any(word.casefold() in COMPANY_FORMS for word in WORD.findall(plain)):
        return True
    first = WORD.match(plain)
    if first is None:
        return False
    word = first.group()
    letters = [ch for ch in word if ch.isalpha()]
    if len(letters) < 4:
        return False
    return word.isupper() or any(ch.isupper() for ch in word[1:]) or any(ch.isdigit() for ch in word)


def _parent(offers: Sequence[SignpostOffer]) -> Field:
    """The folder the offer lists, as words: what it already established is context, not a choice."""
    parents = {o.path.rstrip("/").rpartition("/")[0] for o in offers}
    return Field.of(" ".join(sorted(parents)).replace("/", " ").replace("-", " "))


def select_offer(question: Question, offers: Sequence[SignpostOffer]) -> list[Choice]:
    """Per signpost keep/skip, with words weighed by how many signposts of this offer carry them."""
    heads = [Field.of(f"{o.title} {_name_of(o.path)}") for o in offers]
    tails = [Field.of(o.description) for o in offers]
    context = _parent(offers)
    explained = question.explained(context)
    wanted = [t for t in (*question.words, *question.runs) if t not in explained]
    hits = {
        t: {
            i
            for i in range(len(offers))
            if heads[i].has_word(t, question.word(t)) or tails[i].has_word(t, question.word(t))
        }
        for t in wanted
    }
    limit = max(1, int(len(offers) * COMMON_SHARE))
    informative = {
        t
        for t, where in hits.items()
        if where and (len(where) <= limit and len(where) < len(offers) or len(offers) == 1)
    }
    decisive = {t for t in informative if t in question.names or t in question.runs}
    # The thing the question names ("the Adaptimmune Therapeutics agreement"): its full name when it has
    # several words, else its name-like words.
    entity = [t for t in question.runs if t in hits] or [t for t in question.names if t in hits]
    seen = [any(i in hits[t] for t in entity) for i in range(len(offers))]
    choices: list[Choice] = []
    for i, offer in enumerate(offers):
        if entity and not seen[i] and _hard_name(offer.title):
            continue  # its title names something else than what the question names
        if entity and not any(seen) and _is_range(offer):
            choices.append(
                Choice(index=offer.index, reason=f"a range group that may hold {question.named(entity)}")
            )
            continue
        if _is_range(offer) and offer.description.rstrip().endswith("…"):
            # Its description is a clipped sample of what it holds: absence of a word there proves nothing.
            choices.append(Choice(index=offer.index, reason="a range group whose description is cut short"))
            continue
        named = {t for t in decisive if i in hits[t]}
        in_head = {t for t in informative if heads[i].has_word(t, question.word(t))}
        in_tail = {t for t in informative if i in hits[t]} - in_head
        score = 2 * len(in_head) + len(in_tail)
        if named or score >= (DIRECTORY_KEEP_SCORE if offer.is_dir else CONCEPT_KEEP_SCORE):
            where = "title/name" if in_head else "description"
            choices.append(
                Choice(
                    index=offer.index, reason=f"{where} mentions {question.named(named | in_head | in_tail)}"
                )
            )
    if not choices and any(t in question.names or t in question.runs for t in explained):
        # This folder belongs to what the question names (one contract, one product): its parts are in scope.
        return [
            Choice(index=o.index, reason=f"part of {question.named(explained)}, which the question names")
            for o in offers
            if o.is_dir
        ]
    if not choices:
        # The words the offer carries are carried too widely to count as informative: open the folders
        # carrying one that still tells some apart rather than nothing (children are decided one by one).
        common = [t for t in wanted if 0 < len(hits[t]) < len(offers)]
        choices = [
            Choice(index=o.index, reason=f"mentions {question.named({t for t in common if i in hits[t]})}")
            for i, o in enumerate(offers)
            # Never a folder named for an organisation: a common word is no reason to open another's files.
            if o.is_dir and any(i in hits[t] for t in common) and not _hard_name(o.title)
        ]
    if not choices:
        # Nothing here speaks to the question: the only places it may still hide are groups named by range.
        choices = [
            Choice(
                index=o.index,
                reason="a range group; nothing in this listing mentions the question's "
                "words, so it may hold them",
            )
            for o in offers
            if _is_group(o)
        ]
    if not choices and _lists_a_range_group(offers):
        # This listing is itself a range group, opened because nothing above spoke to the question either:
        # its folders are the only places left, so open them rather than nothing.
        choices = [
            Choice(
                index=o.index, reason="a folder of a range group where nothing mentions the question's words"
            )
            for o in offers
            if o.is_dir and not _hard_name(o.title)
        ]
    return choices


def judge_all(
    question: Question, documents: Sequence[Document], bodies: Sequence[Body] | None = None
) -> list[Verdict]:
    """One verdict per document of a batch, in order (words every document carries weigh little)."""
    read = list(bodies) if bodies is not None else [read_body(d.text) for d in documents]
    common = batch_common(question, read)
    rare = batch_rare(question, read)
    return [judge_one(question, d, b, common, rare) for d, b in zip(documents, read)]


def judge_one(
    question: Question,
    document: Document,
    body: Body | None = None,
    common: frozenset[str] = frozenset(),
    rare: frozenset[str] | None = None,
) -> Verdict:
    """Relevant when the body covers the question's topic words and one sentence carries them together.

    ``common`` are question terms every document of the batch carries: they tell nothing apart, so they
    weigh little and never count towards the words a sentence must carry together.
    """
    if not question.words:
        return Verdict(id=document.id, relevant=False, reason="the question has no content words to look for")
    body = body or read_body(document.text)
    # Words the concept's folder already answers ("Adaptimmune" for a clause of that contract) are context;
    # the rest are the topic the body itself must speak to.
    context = Field.of(document.id.rpartition("/")[0].replace("/", " ").replace("-", " "))
    explained = question.explained(context)
    topic = [t for t in question.words if t not in explained] or list(question.words)
    telling = [t for t in topic if t not in common and t not in LIGHT_TERMS] or topic

    def weight(term: str) -> float:
        return question.weight(term) * (COMMON_WEIGHT if term in common else 1.0)

    head = Field.of(" ".join([document.title, *document.headings]))
    in_head = {t for t in topic if head.has_word(t, question.word(t))}
    in_body = {t for t in topic if body.has(t)}
    # Alternatives ("books, records or premises") are one unit: the best-covered of them counts.
    units = _units(question, topic)
    total = sum(max(weight(t) for t in unit) for unit in units)
    credit = sum(
        max(
            (
                weight(t) * (HEADING_CREDIT if t in in_head else BODY_CREDIT)
                for t in unit & (in_head | in_body)
            ),
            default=0.0,
        )
        for unit in units
    )
    # Only sentences holding a telling word can decide: visit those, in order (earlier wins ties).
    holding: dict[int, set[str]] = {}
    for term in telling:
        for n in body.sentences_with(term):
            holding.setdefault(n, set()).add(term)
    best, best_found, best_score, best_phrases = "", set(), 0.0, 0
    for n in sorted(holding):
        found, sequence = holding[n], body.sentence_terms[n]
        phrases = len(question.pairs & set(pairwise(sequence))) if len(found) > 1 else 0
        score = sum(weight(t) for t in found) + PHRASE_BONUS * phrases
        if score > best_score:
            best, best_found, best_score, best_phrases = body.sentences[n], found, score, phrases
    coverage = credit / total + PHRASE_BONUS * best_phrases
    # Two telling words together; long questions (five or more) need three in one sentence.
    telling_units = _units(question, telling)
    needed = min(len(telling_units), 2 + len(telling_units) // LONG_QUESTION)
    heads_telling = in_head & set(telling)
    title = Field.of(document.title)
    titled = {t for t in heads_telling if title.has_word(t, question.word(t))}
    # A title naming the topic ("Non-Solicitation", "Limitation of Liability") with a word few documents
    # of the batch carry, which a sentence carries too, is the section on that topic, however the
    # question words the rest.
    strong = set(telling) if rare is None else rare & set(telling)
    together = (
        _count(telling_units, best_found) >= needed
        or (bool(heads_telling) and _count(telling_units, best_found | heads_telling) >= needed)
        or (bool(titled & strong) and bool(best_found & strong))
    )
    relevant = coverage >= RELEVANT_COVERAGE and together
    found = in_head | in_body
    if relevant and best:
        reason = f'"{clip(best)}" (mentions {question.named(found)})'
    elif relevant:
        reason = f"title/headings mention {question.named(in_head)}"
    elif found and not together:
        reason = f"mentions {question.named(found)}, but never together in one sentence"
    elif found:
        reason = (
            f"mentions only {question.named(found)} of the question's words"
            f" (coverage {coverage:.2f} < {RELEVANT_COVERAGE})"
        )
    else:
        reason = "mentions none of the question's words"
    return Verdict(id=document.id, relevant=relevant, reason=reason)


def _units(question: Question, terms: Sequence[str]) -> list[frozenset[str]]:
    """``terms`` grouped into the question's alternatives; every other term is a unit of its own."""
    units: list[frozenset[str]] = []
    for term in terms:
        group = next((g & set(terms) for g in question.alternatives if term in g), frozenset([term]))
        if group not in units:
            units.append(group)
    return units


def _count(units: Sequence[frozenset[str]], found: set[str]) -> int:
    """How many units ``found`` carries at least one term of."""
    return sum(1 for unit in units if unit & found)


def batch_common(question: Question, bodies: Sequence[Body]) -> frozenset[str]:
    """Question terms that every body of a batch of at least ``COMMON_BATCH`` carries."""
    if len(bodies) < COMMON_BATCH:
        return frozenset()
    return frozenset(t for t in question.words if all(b.has(t) for b in bodies))


def batch_rare(question: Question, bodies: Sequence[Body]) -> frozenset[str] | None:
    """Question terms at most ``RARE_SHARE`` of a batch carries; ``None`` when the batch is too small to tell."""
    if len(bodies) < COMMON_BATCH:
        return None
    limit = len(bodies) * RARE_SHARE
    return frozenset(t for t in question.words if sum(b.has(t) for b in bodies) <= limit)


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
        topic = {t for t in question.words if not context.has(t)} or set(question.words)
        body = read_body(item.text)
        places = {t: body.sentences_with(t) for t in topic}
        scored = [(s, frozenset(t for t in topic if n in places[t])) for n, s in enumerate(body.sentences)]
        # A heading-like fragment ("Termination") carries a word but no answer: quote sentences with a verb's room.
        scored = [pair for pair in scored if pair[1] and len(pair[0].split()) >= 4]
        # Most topic words first; for "how long"/"when" questions a sentence with a figure wins a tie.
        scored.sort(key=lambda pair: (-len(pair[1]), not (question.asks_figure and _FIGURE.search(pair[0]))))
        picked: list[tuple[str, frozenset[str]]] = scored[:1]
        # A second sentence only when it adds a question word the first lacks.
        for sentence, found in scored[1:]:
            if len(picked) < SENTENCES_PER_EVIDENCE and found - picked[0][1]:
                picked.append((sentence, found))
        titled = frozenset(t for t in question.words if context.has(t))
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
    missing_terms = {t for t in question.words if t not in covered and not Field.of(quoted_titles).has(t)}
    return DraftAnswer(
        text="\n".join(lines),
        cited=cited,
        partial=bool(missing_terms),
        missing=f"the quoted evidence does not mention: {question.named(missing_terms)}"
        if missing_terms
        else "",
    )


class OfflineReader(OfflineRoles):
    """A deterministic reader matching the question's content words; no network. The default reader.

    It also extracts requirements and judges compliance offline (:mod:`okf.readers.offline_roles`)."""

    def __init__(self) -> None:
        self._bodies: OrderedDict[str, Body] = OrderedDict()

    @property
    def name(self) -> str:
        return "offline"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Nothing to close: the offline reader holds no connections."""

    def _body(self, document: Document) -> Body:
        # Keyed by the sha256 of the text as offered; a document without one is read afresh.
        if not document.sha256 or set(document.sha256) == {"0"}:
            return read_body(document.text)
        body = self._bodies.get(document.sha256)
        if body is None:
            body = self._bodies[document.sha256] = read_body(document.text)
            if len(self._bodies) > BODY_CACHE_SIZE:
                self._bodies.popitem(last=False)
        else:
            self._bodies.move_to_end(document.sha256)
        return body

    async def select(self, question: str, signposts: Sequence[SignpostOffer]) -> Selection:
        """Keep each signpost that matches a question word informative within this offer."""
        start = time.perf_counter()
        parsed = Question.parse(question)
        choices = select_offer(parsed, signposts) if parsed.words else []
        return Selection(choices=choices, usage=_usage(start))

    async def judge(self, question: str, documents: Sequence[Document]) -> Judgement:
        """One verdict per document, each decided on its own coverage of the question's words."""
        start = time.perf_counter()
        parsed = Question.parse(question)
        verdicts = judge_all(parsed, documents, [self._body(d) for d in documents])
        return Judgement(verdicts=verdicts, usage=_usage(start))

    async def answer(self, question: str, evidence: Sequence[Evidence]) -> DraftAnswer:
        """An extractive answer: quoted evidence sentences, with ``partial`` when words stay uncovered."""
        start = time.perf_counter()
        draft = answer_from(Question.parse(question), evidence)
        draft.usage = _usage(start)
        return draft

    async def decompose(self, question: str, parts: Sequence[Part], budget_tokens: int) -> Split:
        """Contiguous groups of about equal size, cut where the folder changes when one is near."""
        start = time.perf_counter()
        return Split(groups=split_offline(parts, budget_tokens), usage=_usage(start))

    async def extract_leaf(self, question: str, evidence: Sequence[Evidence]) -> LeafExtract:
        """Per item, the sentences that carry the question's topic words, each citing its item."""
        start = time.perf_counter()
        extract = extract_offline(question, evidence)
        extract.usage = _usage(start)
        return extract


def _usage(start: float) -> Usage:
    # One local "call", no tokens: the offline reader spends no model tokens.
    return Usage(calls=1, seconds=time.perf_counter() - start)
