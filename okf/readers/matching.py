"""What the offline reader matches: a question's units of meaning, the fields it looks for them in, and
bodies read once into sentences with their terms indexed.

A *unit* is one thing the question asks about, with every form that counts as saying it: its term, the
term a misspelling stands for, an acronym's expansion or the acronym for an expansion (as the bundle itself
defines them), alternatives offered with "or", the parts of a compound ("air-gapped", "StarredDropdown").
Each unit weighs what its rarest form weighs in the bundle (bundle statistics, the same for every question).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import pairwise

from okf.text.vocabulary import Vocabulary
from okf.text.words import (
    STOP_WORDS,
    _hyphen_joins,
    compact,
    sentences,
    stem,
    term_words,
    terms,
    terms_and_letters,
)

# Names weigh this much more than other words when no bundle statistics are known.
NAME_WEIGHT = 1.5
# A run of names whose rarest word at most this share of the bundle's concepts holds names one thing.
RARE_NAME_SHARE = 0.02
# Containment ("adaptimmune" inside "ADAPTIMMUNETHERAPEUTICSPLC") only for words at least this long.
CONTAINMENT_MIN = 5
# camelCase parts of a question word count as words of their own from this length on.
CAMEL_PART_MIN = 5
# Questions whose answer is a figure, a date or a duration ("how long", "when", "what percentage").
_ASKS_FIGURE = re.compile(
    r"\b(?:how\s+(?:many|much|long|often|soon|far|old)|when|what\s+(?:date|time|period|percentage|amount|fee|"
    r"price|number|age))\b",
    re.IGNORECASE,
)
# A request put to the reader ("Could you please clarify ...", "Can you outline ...", "Please elaborate on
# ..."), also after a clause that says who asks ("As a Platform Engineer, could you provide ..."): its verb
# asks for an answer and says nothing the answer is about.
_REQUEST = re.compile(
    r"(?:^\W*|[,;:]\s+)(?:(?:could|can|would|will)\s+you\s+(?:please\s+|also\s+|kindly\s+)*|please\s+)([^\W\d_]+)",
    re.IGNORECASE,
)
# The same request put to someone else the question names ("Can the ADGM provide examples ...", "Could the
# FSRA clarify ..."): only a verb of telling asks for an answer there ("Can the Regulator modify ..." asks
# what the Regulator may do).
_REQUEST_OF = re.compile(
    r"^\W*(?:could|can|would|will)\s+(?:the\s+)?[^\W\d_]+\s+(?:please\s+|also\s+|kindly\s+)*"
    r"(provide|clarify|illustrate|elaborate|outline|explain|describe|give|share)\b",
    re.IGNORECASE,
)
# Words a question uses to say what form of answer it wants ("examples of", "a detailed, step-by-step guide",
# "the necessary steps"), not what the answer is about: no body is evidence for saying them, so they are not
# units (unless written as a name, "the Complete Guide", or all the question says). Matched as written, not
# by stem ("precision", "guided" and "detailing" are what a question asks about). General English, beside
# the stop words the whole toolkit skips (okf/text/stopwords.txt: "explain", "describe", "details"), which
# also shape what compile writes; these shape only what a reader looks for.
ANSWER_FORM = frozenset(["example", "examples", "guide", "step", "steps", "detailed", "precise", "necessary"])
# A numbered rule or clause ("8.3.1", "a6.3.31") of three parts or more: the sections holding it are numbered by
# its leading parts ("8.3"), and a signpost listing those sections says where it is.
_NUMBERED = re.compile(r"^([a-z]*\d+(?:\.\d+)+)\.\d+$")
# "a, b or c" / "a or b": one or two words per item (an article may stand before the last).
_ALTERNATIVES = re.compile(
    r"(?:[^\W_][\w'’-]*(?:\s+[^\W_][\w'’-]*)?\s*,\s*)*(?:[^\W_][\w'’-]*\s+)?[^\W_][\w'’-]*\s+or\s+(?:(?:a|an|the)\s+)?"
    r"[^\W_][\w'’-]*(?:\s+[^\W_][\w'’-]*)?",
    re.IGNORECASE,
)
_POSSESSIVE = re.compile(r"['’]s?$")
_LIST_SPLIT = re.compile(r"\s*,\s*|\s+or\s+", re.IGNORECASE)
WORD = re.compile(r"[^\W_]+(?:[._'’-][^\W_]+)*")
_CODE_WORD = re.compile(r"[a-z][A-Z]")
_PARENTHESIS = re.compile(r"\s*\([^()]*\)\s*$")


@dataclass(frozen=True)
class Unit:
    """One thing a question asks about: any of ``terms``, or all terms of one of ``phrases``, says it."""

    key: str  # the question's own term (stable identity)
    word: str  # the question's word, for reasons
    terms: frozenset[str]
    phrases: tuple[tuple[str, ...], ...] = ()
    weight: float = 1.0
    name: bool = False

    known: bool = True  # some form of it occurs in the bundle (always true without bundle statistics)

    def all_terms(self) -> frozenset[str]:
        return self.terms | {t for p in self.phrases for t in p}

    @cached_property
    def contained(self) -> tuple[str, ...]:
        """Terms long enough to be found written into a longer word (``Field.has``)."""
        return tuple(t for t in self.terms if len(t) >= CONTAINMENT_MIN and t.isalpha())

    @cached_property
    def written(self) -> str:
        """The question's word as written, run together, when long enough to be looked for inside a word
        (``Field.has_word``); empty otherwise."""
        letters = compact(self.word)
        return letters if len(letters) >= CONTAINMENT_MIN and not letters.isdigit() else ""


# Parsed questions kept per process (oldest dropped first): a question holds only its own words' units. A
# parsed question holds its vocabulary too, so entries are kept for the latest few vocabularies only: a
# process reading many bundles (the MCP server) keeps no more of their vocabularies alive than that.
PARSED_KEPT = 256
VOCABULARIES_KEPT = 4
_PARSED: dict[tuple[str, int], tuple[Vocabulary | None, Question]] = {}
_VOCABULARIES: dict[int, None] = {}  # ids of the vocabularies parsed against, the latest used last


@dataclass(frozen=True)
class Question:
    """A question as units, its name-like terms and run-together names, and word pairs for phrase credit."""

    units: tuple[Unit, ...]
    names: frozenset[str]
    runs: tuple[str, ...]
    pairs: frozenset[tuple[str, str]]
    asks_figure: bool = False
    # Words offered as alternatives ("books, records or premises"): one unit each group.
    alternatives: tuple[frozenset[str], ...] = ()
    vocabulary: Vocabulary | None = field(default=None, compare=False, repr=False)
    run_terms: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False, repr=False)
    # The question's words as written (casefolded), and which of them name something (``_name_like``).
    spoken: tuple[str, ...] = field(default=(), compare=False, repr=False)
    naming: frozenset[int] = field(default=frozenset(), compare=False, repr=False)
    # The question's words written as code (a capital inside after a small letter), casefolded.
    coded: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    # Positions of the words written with a capital, the first word aside (a sentence's capital says nothing).
    capitals: frozenset[int] = field(default=frozenset(), compare=False, repr=False)
    _explained: dict[Field, frozenset[str]] = field(default_factory=dict, compare=False, repr=False)
    _about: dict[str, frozenset[str]] = field(default_factory=dict, compare=False, repr=False)
    # Unit keys each piece of evidence says (title, path, body -> keys), for the orchestration's cross-check.
    evidence_said: dict[tuple[str, str, str], frozenset[str]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def parse(cls, text: str, vocabulary: Vocabulary | None = None) -> Question:
        """``text`` as units against ``vocabulary``; remembered per text and vocabulary (the reader, the plan,
        the cross-check and the second hops of one orchestration parse the same angles again)."""
        key = (text, id(vocabulary))
        _VOCABULARIES.pop(key[1], None)
        _VOCABULARIES[key[1]] = None
        known = _PARSED.get(key)
        if known is not None and known[0] is vocabulary:
            return known[1]
        parsed = cls._parse(text, vocabulary)
        _PARSED[key] = (vocabulary, parsed)  # the vocabulary kept with it: its id is not reused meanwhile
        if len(_VOCABULARIES) > VOCABULARIES_KEPT:
            dropped = next(iter(_VOCABULARIES))  # the least recently used
            del _VOCABULARIES[dropped]
            for stale in [k for k in _PARSED if k[1] == dropped]:
                del _PARSED[stale]
        if len(_PARSED) > PARSED_KEPT:
            del _PARSED[next(iter(_PARSED))]  # the oldest
        return parsed

    @classmethod
    def _parse(cls, text: str, vocabulary: Vocabulary | None) -> Question:
        # Short camelCase parts ("git" of "GitOps") stay out: alone they match unrelated things ("GitHub");
        # longer ones ("button" of "SupportButton") are words in their own right.
        plain = unicodedata.normalize("NFKC", text)
        request = _REQUEST.search(plain) or _REQUEST_OF.match(plain)
        asked = stem(request.group(1).casefold()) if request else ""
        words = {
            t: w
            for t, w in term_words(plain).items()
            if (t in (w, stem(w)) or any(ch in w for ch in "._-") or len(t) >= CAMEL_PART_MIN) and t != asked
        }
        raw = WORD.findall(plain)
        words = _without_answer_form(words, raw)
        joined = dict(_hyphen_joins(plain))
        names: set[str] = set()
        runs: list[str] = []
        run_terms: dict[str, tuple[str, ...]] = {}
        run: list[str] = []
        acronyms: dict[str, str] = {}
        for position, word in enumerate(raw):
            if word.isupper() and 2 <= len(word) <= 8 and word.isalpha():
                acronyms[stem(word.casefold())] = word
            if _name_like(word, first=position == 0):
                names.update(terms(word))
                run.append(_POSSESSIVE.sub("", word))  # "the Appeals Panel's decisions": "Appeals Panel"
                continue
            if len(run) > 1:
                runs.append(compact(" ".join(run)))
                run_terms[runs[-1]] = tuple(terms(" ".join(run)))
            run = []
        if len(run) > 1:
            runs.append(compact(" ".join(run)))
            run_terms[runs[-1]] = tuple(terms(" ".join(run)))
        ordered = terms(plain)
        alternatives = _alternatives(plain, set(words))
        units = _units(words, joined, names, alternatives, acronyms, vocabulary, ordered)
        return cls(
            tuple(units),
            frozenset(names & set(words)),
            tuple(dict.fromkeys(runs)),
            frozenset(pairwise(ordered)),
            bool(_ASKS_FIGURE.search(plain)),
            alternatives,
            vocabulary,
            run_terms,
            tuple(w.casefold() for w in raw),
            frozenset(n for n, w in enumerate(raw) if _name_like(w, first=n == 0)),
            frozenset(w.casefold() for w in raw if _CODE_WORD.search(w)),
            frozenset(n for n, w in enumerate(raw) if n and w[:1].isupper()),
        )

    def units_in(self, place: Field) -> frozenset[str]:
        """Keys of the units ``place`` says (``place.has_unit`` of each), found with one set intersection for
        the terms and a scan only of the forms looked for inside words. Not remembered: a field is seldom
        asked twice of one question (5% of the selector's and judge's asks), and the memo cost more than that."""
        index = self.unit_index
        found: set[str] = set()
        for term in place.terms.intersection(index):  # walks the question's terms, not the field's
            found.update(index[term])
        letters = place.letters
        found.update([key for form, key in self.inside_forms if form in letters])
        if self.phrase_units:
            terms = place.terms
            for key, phrases in self.phrase_units:
                if key not in found and any(all(t in terms for t in phrase) for phrase in phrases):
                    found.add(key)
        return frozenset(found)

    def units_of(self, body: Body) -> frozenset[str]:
        """Keys of the units ``body`` says (``body.has_unit`` of each), found by looking up the units' terms
        in the body's index once each rather than unit by unit."""
        said = body.terms
        index = self.unit_index
        found: set[str] = set()
        for term in said.intersection(index):  # walks the question's terms, not the body's
            found.update(index[term])
        for key, phrases in self.phrase_units:
            if key not in found and any(all(t in said for t in phrase) for phrase in phrases):
                found.add(key)
        return frozenset(found)

    @cached_property
    def inside_forms(self) -> tuple[tuple[str, str], ...]:
        """(form, unit key) for the forms looked for inside words: the terms long enough (``contained``) and
        the word as written (``written``), in unit order; a form holding another form of its unit is left
        out (wherever it is written, so is the other: it finds nothing more)."""
        out: list[tuple[str, str]] = []
        for unit in self.units:
            forms = list(dict.fromkeys([*unit.contained, *([unit.written] if unit.written else [])]))
            out += [(f, unit.key) for f in forms if not any(g != f and g in f for g in forms)]
        return tuple(out)

    @cached_property
    def phrase_units(self) -> tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]:
        """(unit key, phrases) of the units said by all terms of a phrase."""
        return tuple((u.key, u.phrases) for u in self.units if u.phrases)

    @cached_property
    def unit_index(self) -> dict[str, tuple[str, ...]]:
        """Each term of the question's units -> the keys of the units it says."""
        index: dict[str, list[str]] = {}
        for unit in self.units:
            for term in unit.terms:
                index.setdefault(term, []).append(unit.key)
        return {term: tuple(keys) for term, keys in index.items()}

    def identifies(self, run: str) -> bool:
        """A run of names rare enough in the bundle to name one thing ("Adaptimmune Therapeutics"), not a
        defined term many concepts use ("Financial Institution"): its rarest word is held by at most
        ``RARE_NAME_SHARE`` of the concepts. Without bundle statistics every run counts."""
        vocabulary = self.vocabulary
        found = [vocabulary.df.get(t, 0) for t in self.run_terms.get(run, ())] if vocabulary else []
        return not found or min(found) <= RARE_NAME_SHARE * vocabulary.concepts  # type: ignore[union-attr]

    def titled(self, title: str) -> set[str]:
        """Unit keys of the things the question names that ``title`` spells out: a run of names rare enough to
        name one thing ("American Beauty", "Manchester Terrier") written out together, or one such name that is
        no part of such a run ("Vanessa"; but "Remark" of "Remark Holdings" alone does not name it). A concept
        so titled is about something the question names."""
        return self.spelled(Field.of(title))  # titles recur across a walk's angles: read once

    def about(self, title: str) -> set[str]:
        """Unit keys of the things the question names that a concept titled ``title`` is about: the names the
        title spells out (:meth:`titled`) and the whole title when the question says it (:meth:`says_title`).
        Remembered per title: every walk of a question judges bodies with recurring titles."""
        known = self._about.get(title)
        if known is None:
            known = self._about[title] = frozenset(self.titled(title) | self.says_title(title))
        return set(known)

    def says_title(self, title: str) -> set[str]:
        """Unit keys of ``title`` when the question spells the whole title out as written, word for word, at
        least two words of it and one a name ("What Are Little Girls Made Of?", "Old and in the Way"), and
        rare enough in the bundle to name one thing (``identifies``); empty otherwise. A trailing
        parenthesis ("(album)") is not part of a title as a question says it."""
        words, said, capitals = _title_words(title)
        size = len(words)
        if size < 2 or size > len(self.spoken):
            return set()
        own = {u.key for u in self.units} & said
        if not own:
            return self._says_plain_title(words, capitals) if not said else set()
        for start in range(len(self.spoken) - size + 1):
            if self.spoken[start : start + size] == words and self.naming & set(range(start, start + size)):
                vocabulary = self.vocabulary
                found = [vocabulary.df.get(t, 0) for t in own] if vocabulary else []
                if not found or min(found) <= RARE_NAME_SHARE * vocabulary.concepts:  # type: ignore[union-attr]
                    return own
                return set()
        return set()

    def _says_plain_title(self, words: tuple[str, ...], capitals: tuple[bool, ...]) -> set[str]:
        """A title made only of stop words ("The Thing of It Is..."), which no unit can say: the question
        writes it out word for word with the title's own ``capitals``, two at least and never as its opening
        words (where a capital says nothing). The title, as a key of its own (:meth:`named` words it)."""
        if sum(capitals) < 2:
            return set()
        for start in range(1, len(self.spoken) - len(words) + 1):
            if self.spoken[start : start + len(words)] == words and all(
                (start + k in self.capitals) == upper for k, upper in enumerate(capitals)
            ):
                return {" ".join(words)}
        return set()

    def spelled(self, place: Field) -> set[str]:
        """:meth:`titled` of any text: a folder named "topic-buffett-psycholog-warren" carries the words of
        "Warren Buffett" but does not spell him out; a contract's folder "adaptimmune-therapeutics-plc-..."
        spells out "Adaptimmune Therapeutics"."""
        letters = place.letters
        if not letters:
            return set()
        found: set[str] = set()
        for run in self.runs:
            if run in letters and self.identifies(run):
                found.update(self.run_terms.get(run, ()))
        vocabulary = self.vocabulary
        in_runs = self._in_runs
        for unit in self.units:
            if unit.name and unit.written and unit.written in letters and unit.key not in found | in_runs:
                df = vocabulary.df.get(unit.key, 0) if vocabulary else 0
                if vocabulary is None or df <= RARE_NAME_SHARE * vocabulary.concepts:
                    found.add(unit.key)
        return found & {u.key for u in self.units}

    @cached_property
    def identifiers(self) -> frozenset[str]:
        """Keys of the units the question writes as code: a word with a capital inside it after a small letter
        ("HeaderIconButton", "mountPoint"), held by at most ``RARE_NAME_SHARE`` of the bundle's concepts (a
        product's name every page says, "OpenShift", names no one thing). Such a word is an exact reference:
        a body saying it is about what the question names."""
        vocabulary = self.vocabulary
        out: set[str] = set()
        for unit in self.units:
            if unit.word not in self.coded or unit.key not in (unit.word, stem(unit.word)):
                continue  # not written as code, or one part of such a word ("button" of "HeaderIconButton")
            df = vocabulary.df.get(unit.key, 0) if vocabulary else 0
            if vocabulary is None or 0 < df <= RARE_NAME_SHARE * vocabulary.concepts:
                out.add(unit.key)
        return frozenset(out)

    @cached_property
    def thing_keys(self) -> tuple[frozenset[str], ...]:
        """Per run of names rare enough to name one thing ("Remark Holdings"), the keys of the units saying it:
        a text saying all of one run's says a thing the question names."""
        index = self.unit_index
        runs = (self.run_terms.get(run, ()) for run in self.runs if self.identifies(run))
        keys = (frozenset(k for t in terms for k in index.get(t, ())) for terms in runs)
        return tuple(k for k in keys if k)

    @cached_property
    def _in_runs(self) -> frozenset[str]:
        """Terms of the runs of names rare enough to name one thing: said alone, such a word names nothing."""
        return frozenset(t for run in self.runs if self.identifies(run) for t in self.run_terms.get(run, ()))

    @property
    def words(self) -> dict[str, str]:
        """The question's content terms mapped to its words (unit keys)."""
        return {u.key: u.word for u in self.units}

    @property
    def terms(self) -> set[str]:
        return {u.key for u in self.units}

    def named(self, found: set[str] | list[str] | frozenset[str]) -> str:
        """The question's own words for ``found`` unit keys (and runs), in question order."""
        out = [u.word for u in self.units if u.key in found]
        out += [run for run in self.runs if run in found]
        # Any other key is a title of stop words only (``_says_plain_title``), its own words.
        known = {u.key for u in self.units} | set(self.runs)
        return ", ".join(out + sorted(k for k in found if k not in known))

    def word(self, term: str) -> str:
        for unit in self.units:
            if unit.key == term:
                return unit.word
        return term

    def explained(self, context: Field) -> set[str]:
        """Unit keys (and runs) ``context`` already answers; a found name answers all of its words. Remembered
        per field: a folder's concepts and listings are judged and selected against the same context."""
        known = self._explained.get(context)
        if known is None:
            found_runs = [run for run in self.runs if context.has(run)]
            out = set(found_runs)
            said = self.units_in(context)
            for unit in self.units:
                if unit.key in said or (unit.key in self.names and any(compact(unit.word) in r for r in found_runs)):
                    out.add(unit.key)
            known = self._explained[context] = frozenset(out)
        return set(known)


@lru_cache(maxsize=20_000)
def _title_words(title: str) -> tuple[tuple[str, ...], frozenset[str], tuple[bool, ...]]:
    """A title's words as a question says them (casefolded, a trailing parenthesis left out), their terms, and
    which of them the title writes with a capital: read once per title, as every angle of every question asks
    :meth:`Question.says_title` of it."""
    written = WORD.findall(_PARENTHESIS.sub("", unicodedata.normalize("NFKC", title)))
    words = tuple(w.casefold() for w in written)
    return words, frozenset(terms(" ".join(words))), tuple(w[:1].isupper() for w in written)


def _units(
    words: dict[str, str],
    joined: dict[str, str],
    names: set[str],
    alternatives: tuple[frozenset[str], ...],
    acronyms: dict[str, str],
    vocabulary: Vocabulary | None,
    ordered: list[str],
) -> list[Unit]:
    """The question's units: alternatives merged, compound parts and bundle synonyms attached, weighted."""
    grouped: dict[str, frozenset[str]] = {}
    for group in alternatives:
        for term in group:
            grouped[term] = group
    # A hyphenated word written together ("airgapped") is another way of saying each of its parts.
    part_of: dict[str, set[str]] = {}
    for term, word in joined.items():
        for part in terms(word.replace("-", " ")):
            part_of.setdefault(part, set()).add(term)
    # Phrases an acronym of the question stands for, and acronyms for expansions the question spells out.
    expansions: dict[str, tuple[str, ...]] = {}
    also: dict[str, set[str]] = {}
    if vocabulary is not None:
        for term in words:
            if term in acronyms:
                expansion = vocabulary.expansion_of(acronyms[term])
                if expansion and len(expansion) > 1:
                    expansions[term] = expansion
        sequence = [t for t in ordered if t not in STOP_WORDS]
        for size in range(2, 6):
            for start in range(len(sequence) - size + 1):
                window = tuple(sequence[start : start + size])
                short = vocabulary.acronym_for(window)
                if short:
                    for term in window:
                        also.setdefault(term, set()).add(stem(short.casefold()))
    units: list[Unit] = []
    seen: set[str] = set()
    for term, word in words.items():
        if term in seen or term in joined:
            continue
        group = grouped.get(term, frozenset([term]))
        seen.update(group)
        forms = set(group) | part_of.get(term, set()) | also.get(term, set())
        forms.update(_sections_of(term))
        if vocabulary is not None and term not in names:
            for member in group:
                fixed = vocabulary.correction(member, words.get(member, "").casefold())
                if fixed:
                    forms.add(fixed)
        phrases = (expansions[term],) if term in expansions else ()
        is_name = term in names
        known = (
            vocabulary is None
            or any(vocabulary.knows(t) for t in forms)
            or any(all(vocabulary.knows(t) for t in p) for p in phrases)
        )
        units.append(
            Unit(term, word, frozenset(forms), phrases, _weight(forms, phrases, is_name, vocabulary), is_name, known)
        )
    return units


def _without_answer_form(words: dict[str, str], raw: list[str]) -> dict[str, str]:
    """``words`` (term -> the word first writing it) without the terms written by a word of ``ANSWER_FORM``,
    except one the question writes with a capital after its first word (part of a name); all of them when
    nothing else is left."""
    if ANSWER_FORM.isdisjoint(words.values()):
        return words
    named = {w.casefold() for n, w in enumerate(raw) if n and w[:1].isupper()}
    kept = {t: w for t, w in words.items() if w not in ANSWER_FORM or w in named}
    return kept or words


def _sections_of(term: str) -> list[str]:
    """The numbers of the sections holding numbered rule ``term`` ("8.3.1" -> "8.3"), two parts or more."""
    out = []
    while (found := _NUMBERED.match(term)) is not None:
        term = found.group(1)
        out.append(term)
    return out


def _weight(forms: set[str], phrases: tuple[tuple[str, ...], ...], name: bool, vocabulary: Vocabulary | None) -> float:
    """What saying a unit is worth: its most telling form's rarity in the bundle (names weigh more without it)."""
    if vocabulary is None:
        return NAME_WEIGHT if name else 1.0
    known = [vocabulary.idf(t) for t in forms if vocabulary.knows(t)]
    known += [max(vocabulary.idf(t) for t in p) for p in phrases if all(vocabulary.knows(t) for t in p)]
    if not known:  # the bundle holds no form of it: whatever matches it is rare, but it may be a stray word
        return math.log(1.0 + vocabulary.concepts) * 0.5
    return max(known)


def _alternatives(text: str, wanted: set[str]) -> tuple[frozenset[str], ...]:
    """Groups of content terms joined by "or" (with a comma list before it): "soliciting or hiring"."""
    groups: list[frozenset[str]] = []
    for match in _ALTERNATIVES.finditer(text):
        parts = [(part, item) for part in _LIST_SPLIT.split(match.group()) if (item := terms(part))]
        items = [item for _, item in parts]
        if len({item[0] for item in items}) == 1 and all(len(item) > 1 for item in items):
            # A shared first word ("first refusal, first offer or first negotiation"): the heads differ.
            picked = [item[-1] for item in items]
        else:
            # The word next to each separator: the last of an item before it, the first of the one after;
            # unless a later word of the last item is formed as the word before the "or" and the first is not
            # ("debts or financial obligations": "obligations"; "soliciting or hiring employees": "hiring").
            picked = [item[-1] for item in items[:-1]] + [items[-1][0]] if items else []
            if len(picked) > 1:
                picked[-1] = _parallel(parts[-2][0], parts[-1][0], picked[-1])
        group = frozenset(t for t in picked if t in wanted)
        if len(group) > 1:
            groups.append(group)
    return tuple(groups)


# Endings that mark a word's form (plural or third person, -ing, -ed, -ly), for parallel alternatives.
_FORM = re.compile(r"(?:(?<![su])s|ing|ed|ly)$")


def _parallel(before: str, after: str, default: str) -> str:
    """The term of the words of ``after`` (the item after the "or") that stands beside the last word of
    ``before`` (the item before it): the first (``default``), past an adverb ("or materially breach"), unless
    it differs in form from that word and a later one has its form ("debts or financial obligations"). Forms
    are read from the words as written (:data:`_FORM`); the terms are their stems."""
    left = [w for w in WORD.findall(before.casefold()) if w not in STOP_WORDS]
    right = [w for w in WORD.findall(after.casefold()) if w not in STOP_WORDS]
    if not left or len(right) < 2:
        return default  # one word after the "or": it is the alternative
    ending = _form(left[-1])
    if ending != "ly" and _form(right[0]) == "ly":
        right = right[1:]
    chosen = right[0]
    if ending and _form(chosen) != ending:
        chosen = next((w for w in right[1:] if _form(w) == ending), chosen)
    found = terms(chosen)
    return found[0] if found else default


def _form(word: str) -> str:
    found = _FORM.search(word)
    return found.group() if found else ""


def _name_like(word: str, *, first: bool) -> bool:
    """A word that names something: capitalized mid-sentence, an acronym, camelCase, or an identifier."""
    if word.casefold() in STOP_WORDS or len(word) < 2:
        return False
    if any(ch.isdigit() for ch in word) or "_" in word:
        return True
    rest = word[1:]
    if any(ch.isupper() for ch in rest):  # RHDH, GitHub
        return True
    return word[0].isupper() and not first


@dataclass(frozen=True)
class Field:
    """Text a question unit is looked for in: its terms and its letters run together."""

    terms: frozenset[str]
    letters: str

    @classmethod
    def of(cls, text: str) -> Field:
        return _field(text)

    def has(self, term: str) -> bool:
        """``term`` is a term here, or a long enough term is written into a longer word."""
        if term in self.terms:
            return True
        return len(term) >= CONTAINMENT_MIN and term.isalpha() and term in self.letters

    def has_word(self, term: str, word: str) -> bool:
        """Like :meth:`has`, also finding the question's word as written inside a run-together word."""
        if self.has(term):
            return True
        # "accurai" (the stem of "Accuray") is not in "accurayinc"; the word as written is.
        letters = compact(word)
        return len(letters) >= CONTAINMENT_MIN and not letters.isdigit() and letters in self.letters

    def has_unit(self, unit: Unit) -> bool:
        """Some form of ``unit`` is here (:meth:`has` of any of its terms, its word as written inside a
        run-together word, or all terms of one of its phrases)."""
        terms = self.terms
        if not terms.isdisjoint(unit.terms):
            return True
        letters = self.letters
        if any(t in letters for t in unit.contained):
            return True
        written = unit.written
        if written and written in letters:
            return True
        return any(all(t in terms for t in phrase) for phrase in unit.phrases)


@lru_cache(maxsize=20_000)
def _field(text: str) -> Field:
    """A field read once per text: titles, folder paths and signpost lines recur across a walk and walks."""
    found, letters = terms_and_letters(text)
    return Field(frozenset(found), letters)


@dataclass(frozen=True)
class Body:
    """A body read once (cache it by sha256): its sentences and the terms each says. Where a term occurs
    (its sentence numbers) is found when first asked and remembered: a judge asks it of the few terms of
    the question a body says, so the body is not indexed term by term for all of its terms."""

    sentences: tuple[str, ...]
    said: tuple[frozenset[str], ...]  # the terms of each sentence
    _places: dict[str, tuple[int, ...]] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def terms(self) -> frozenset[str]:
        """Every term the body says."""
        return frozenset().union(*self.said)

    @property
    def where(self) -> dict[str, tuple[int, ...]]:
        """Each term of the body -> the sentences saying it."""
        return {term: self.places(term) for term in self.terms}

    def places(self, term: str) -> tuple[int, ...]:
        """The numbers of the sentences saying ``term``, in order (empty when none does)."""
        known = self._places.get(term)
        if known is None:
            known = self._places[term] = (
                tuple([n for n, said in enumerate(self.said) if term in said]) if term in self.terms else ()
            )
        return known

    def has(self, term: str) -> bool:
        return term in self.terms

    def has_unit(self, unit: Unit) -> bool:
        terms = self.terms
        if not terms.isdisjoint(unit.terms):
            return True
        return any(all(t in terms for t in phrase) for phrase in unit.phrases)

    def sentences_with(self, unit: Unit) -> set[int]:
        """Sentences saying ``unit`` (a phrase counts where its first term stands with the rest in the body)."""
        terms = self.terms
        found: set[int] = set()
        for term in unit.terms:
            if term in terms:
                found.update(self.places(term))
        for phrase in unit.phrases:
            if all(t in terms for t in phrase):
                found.update(self.places(phrase[0]))
        return found


def read_body(text: str) -> Body:
    """Split ``text`` into plain sentences and the terms of each. Fenced code counts, line by line: a
    configuration key or a component's name in a guide's example is something the body says."""
    plain = tuple(sentences(unicodedata.normalize("NFKC", text), code=True))
    return Body(plain, tuple([frozenset(terms(sentence)) for sentence in plain]))


@lru_cache(maxsize=1024)
def read_body_once(text: str) -> Body:
    """:func:`read_body` remembered per text, for readers of the same evidence in one process: the offline
    judge reads a body, and an orchestration's cross-check and second hops read it again after the round."""
    return read_body(text)
