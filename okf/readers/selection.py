"""The offline selector: which signposts of one listing to open, each decided on what it says.

A signpost is kept when it says enough of what the question asks about: the units it mentions (in its title
or name, or in its description and key terms), each weighed by how rare it is in the bundle and by how well
it tells this listing's signposts apart (a word every signpost of the listing carries tells them apart no
better than none). A signpost naming the thing the question names is kept; one named for another
organisation is not. When the reader cannot tell the signposts apart (every one says the same, or there are
only two and neither is a sure choice), it opens them all rather than guess; when nothing in the listing speaks to the question, it opens
only groups that are blind by construction (named by a range), never everything.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from okf.readers.base import Choice, SignpostOffer
from okf.readers.matching import WORD, Field, Question

# Share of what the listing tells apart (the question's weight, each unit weighed by how few signposts
# carry it) a signpost must carry to be opened; title words count whole, words of the description and
# key terms count DESCRIPTION_CREDIT.
KEEP_SHARE = 0.5
# ... and this share of the whole question's weight, however little the listing tells apart.
MIN_SHARE = 0.2
DESCRIPTION_CREDIT = 0.7
# A unit every signpost of a listing carries still counts this much (it may be the listing's subject).
SHARED_FLOOR = 0.25
# A signpost carrying LEADS units that at most a share (1 - LEAD_TELLING) of the listing carries, each at
# least as weighty as the question's median unit, is opened whatever share of the question it says.
LEADS = 1
LEAD_TELLING = 0.67
# A signpost saying this share of the question (but not enough to be sure) is opened as a weak choice:
# what it holds is read after what strong choices hold.
WEAK_SHARE = 0.15
# A choice saying less than this share of what the listing tells apart is a faint one, unless it carries a lead
# and the listing is short (at most BROWSE_LISTING entries) or its lead is carried by at most RARE_LEAD entries:
# in a wide listing, a word a third of the entries carry does not set one of them apart on its own.
FAINT_BELOW = 0.25
RARE_LEAD = 2
# A listing this short is read on in every part when none of its entries says enough to the question.
BROWSE_LISTING = 6
# Words that make a title the name of an organisation (a small general table).
COMPANY_FORMS = frozenset(
    ["inc", "ltd", "llc", "corp", "corporation", "incorporated", "company", "limited", "plc", "gmbh", "lp", "llp"]
)
# A range group: "Documents 1 to 24", "Sections 1.1.1 to 2", "Part 3", "Pages 10-19" (optionally ": topic").
_RANGE_TITLE = re.compile(r"^\s*[^\W\d_]+\s+[\w.()]+\s*(?:to|-|–)\s*[\w.()]+\s*(?::.*)?$")


def _name_of(path: str) -> str:
    """The last path segment without ``.md``: only it speaks for the signpost (ancestors already matched)."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return name.removesuffix(".md").replace("-", " ").replace("_", " ")


@lru_cache(maxsize=20_000)
def _head(title: str, path: str) -> Field:
    """An entry's title and name as one field; remembered per title and path, as every angle's walk selects
    the same listings (the title and path strings are the offer's own, their hashes kept by them)."""
    return Field.of(f"{title} {_name_of(path)}")


def _is_range(offer: SignpostOffer) -> bool:
    """A group named by its range ("Documents 1 to 24"): its title says nothing about its content."""
    return offer.is_dir and bool(_RANGE_TITLE.match(offer.title)) and any(ch.isdigit() for ch in offer.title)


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
    return _folder([o.path for o in offers])


def _folder(paths: Sequence[str]) -> Field:
    parents = {path.rstrip("/").rpartition("/")[0] for path in paths}
    return Field.of(" ".join(sorted(parents)).replace("/", " ").replace("-", " "))


class Listing:
    """What the selector reads of one listing whatever the question: each entry's head (title and name) and
    tail (description and key terms) as fields, the folder they sit in, and where each term and letter of
    them stands. Read once per listing (``listing_of``): every angle's walk of an orchestration selects the same
    listing, and asks its units of all the entries at once (:meth:`units_said`)."""

    __slots__ = ("_letters", "_places", "_starts", "heads", "parent", "tails")

    def __init__(self, entries: tuple[str, ...]) -> None:
        rows = [entries[k : k + 3] for k in range(0, len(entries), 3)]
        self.heads = tuple([_head(title, path) for title, path, _ in rows])
        self.tails = tuple([Field.of(description) for _, _, description in rows])
        self.parent = _folder([path for _, path, _ in rows])
        fields = [*self.heads, *self.tails]
        # Each term -> the numbers of the fields (heads first, then tails) holding it, as bytes when they fit
        # (else a tuple): the cyclic collector never walks bytes, where it would walk lists in every
        # collection for as long as the listing is remembered.
        places: dict[str, list[int]] = {}
        for i, place in enumerate(fields):
            for term in place.terms:
                places.setdefault(term, []).append(i)
        self._places: dict[str, bytes | tuple[int, ...]] = (
            {term: bytes(found) for term, found in places.items()}
            if len(fields) <= 256
            else {term: tuple(found) for term, found in places.items()}
        )
        # Every field's letters in one text, each after a NUL (no letters of a field or form hold one), and
        # where each starts: a form is looked for once in the listing rather than once per field.
        starts = []
        at = 0
        for place in fields:
            starts.append(at + 1)
            at += len(place.letters) + 1
        self._starts = tuple(starts)
        self._letters = "".join(["\0" + place.letters for place in fields])

    def units_said(self, question: Question) -> tuple[list[frozenset[str]], list[frozenset[str]]]:
        """``question.units_in`` of each head and of each tail, found for all the entries at once: each term of
        the question's units looked up once, each form looked for inside words found in the listing's letters."""
        fields = len(self._starts)
        found: list[set[str] | None] = [None] * fields
        places = self._places
        index = question.unit_index
        for term in index.keys() & places.keys():  # walks the smaller of the two
            keys = index[term]
            for i in places[term]:
                known = found[i]
                if known is None:
                    found[i] = set(keys)
                else:
                    known.update(keys)
        letters, starts = self._letters, self._starts
        for form, key in question.inside_forms:
            at = letters.find(form)
            while at >= 0:
                i = bisect_right(starts, at) - 1
                known = found[i]
                if known is None:
                    found[i] = {key}
                else:
                    known.add(key)
                at = letters.find(form, starts[i + 1]) if i + 1 < fields else -1
        phrased = question.phrase_units
        if phrased:
            every = [*self.heads, *self.tails]
            for i, place in enumerate(every):
                terms = place.terms
                known = found[i]
                for key, phrases in phrased:
                    if (known is None or key not in known) and any(all(t in terms for t in p) for p in phrases):
                        if known is None:
                            known = found[i] = set()
                        known.add(key)
        said = [_NONE if known is None else frozenset(known) for known in found]
        n = fields // 2
        return said[:n], said[n:]


_NONE: frozenset[str] = frozenset()


@lru_cache(maxsize=4096)
def listing_of(entries: tuple[str, ...]) -> Listing:
    """The :class:`Listing` of entries given as title, path and description after another (one flat tuple,
    one object for the collector), read once per process."""
    return Listing(entries)


def select_offer(question: Question, offers: Sequence[SignpostOffer]) -> list[Choice]:
    """Per signpost keep/skip (see the module docstring)."""
    if not offers:
        return []
    listing = listing_of(tuple([text for o in offers for text in (o.title, o.path, o.description)]))
    explained = question.explained(listing.parent)
    units = [u for u in question.units if u.key not in explained] or list(question.units)
    heads, tails = listing.heads, listing.tails
    head_says, tail_says = listing.units_said(question)
    says = [head | tail for head, tail in zip(head_says, tail_says)]
    n = len(offers)
    # How many signposts carry each unit, and so how well it tells this listing's signposts apart: 1 when
    # one carries it, less the more do (worked out once per unit, not once per unit and signpost).
    carried = dict.fromkeys([u.key for u in units], 0)
    for said_here in says:
        for key in said_here:
            if key in carried:
                carried[key] += 1
    telling = {
        key: 1.0 if n == 1 or count <= 1 else max(SHARED_FLOOR, 1.0 - (count - 1) / (n - 1))
        for key, count in carried.items()
    }
    weights = [u.weight for u in units]
    total = sum(weights) or 1.0
    heavy = sorted(weights)[len(weights) // 2]  # the median unit's weight
    # What the listing can tell apart at all: units some signpost carries, weighed by how well they do.
    informative = sum([u.weight * telling[u.key] for u in units if carried[u.key]]) or 1.0
    # The thing the question names ("the Adaptimmune Therapeutics agreement"), written as one run of names.
    runs = [r for r in question.runs if r not in explained and question.identifies(r)]
    named = [any(heads[i].has(r) or tails[i].has(r) for r in runs) for i in range(n)] if runs else [False] * n
    if any(named) and not all(named):
        # The listing has an entry for the thing the question names: that entry, not the others.
        return [
            Choice(index=o.index, reason=f"names {question.named(set(runs))}") for i, o in enumerate(offers) if named[i]
        ]
    choices: list[Choice] = []
    for i, offer in enumerate(offers):
        said_here = says[i]
        said = [u for u in units if u.key in said_here] if said_here else []
        if not said:
            continue  # says none of the listing's units: weighs nothing, no lead (no choice below)
        in_head = head_says[i]
        weight = sum([u.weight * telling[u.key] * (1.0 if u.key in in_head else DESCRIPTION_CREDIT) for u in said])
        plain_share = sum([u.weight for u in said]) / total
        # Units few signposts of this listing carry, and weighty in the question: each is a lead.
        leads = [u for u in said if telling[u.key] >= LEAD_TELLING and u.weight >= heavy]
        where = "title/name" if any(u.key in in_head for u in said) else "description"
        if weight / informative >= KEEP_SHARE and plain_share >= MIN_SHARE:
            choices.append(
                Choice(index=offer.index, reason=f"{where} mentions {question.named({u.key for u in said})}")
            )
        elif len(leads) >= LEADS or plain_share >= WEAK_SHARE or (said and n <= BROWSE_LISTING):
            # In a short listing, an entry saying anything of the question is read on after the sure ones:
            # a two-way choice the reader cannot settle keeps both sides. One saying a fair share of what the
            # listing tells apart is a weak choice, and so is one with a lead in a short listing or a lead at
            # most RARE_LEAD entries carry; one saying only a little, a faint one.
            grade: Literal["weak", "faint"] = (
                "weak"
                if (leads and (n <= BROWSE_LISTING or any(carried[u.key] <= RARE_LEAD for u in leads)))
                or weight / informative >= FAINT_BELOW
                else "faint"
            )
            choices.append(
                Choice(
                    index=offer.index, grade=grade, reason=f"{where} mentions {question.named({u.key for u in said})}"
                )
            )
    if choices and n == 2 and all(c.grade != "strong" for c in choices):
        # A two-way choice neither side of which is a sure one is a choice the reader cannot settle: the side
        # saying nothing is kept too, as a faint one, read after the side saying something.
        picked = {c.index for c in choices}
        choices += [
            Choice(index=o.index, grade="faint", reason="the other side of a two-way choice no entry settles")
            for o in offers
            if o.is_dir and o.index not in picked
        ]
    if choices:
        return choices
    if any(u.name for u in question.units if u.key in explained) or any(r in explained for r in question.runs):
        # This folder is what the question names (one contract, one product): its parts are all in scope.
        return [
            Choice(index=o.index, reason=f"part of {question.named(explained)}, which the question names")
            for o in offers
            if o.is_dir
        ]
    if n <= BROWSE_LISTING:
        # A short listing that says nothing to the question is a table of contents too broad to name it:
        # read on in every part rather than abandon it (each part's listing is decided again).
        return [
            Choice(
                index=o.index,
                grade="faint",
                reason="a short listing none of whose entries can be told "
                "apart by the question's words: every part is read on",
            )
            for o in offers
            if o.is_dir
        ]
    # Nothing here says enough: the only places the answer may still hide unannounced are groups named
    # only by their range and described by nothing more.
    return [
        Choice(
            index=o.index, grade="weak", reason="a group named by its range and nothing else; it may hold the answer"
        )
        for o in offers
        if _is_range(o) and not o.description.strip()
    ]
