"""Answer prose for people: engine markers out, inline citations as ``[n]`` numbered by the Sources ledger.

Model prose is untrusted. :func:`clean_prose` removes everything the engine uses as a signal and a person
should never read: evidence ids in any form (``[c1]``, ``(c2)``, ``[c1, c3]``, ``[^c1]``, a bare ``c1``),
tags such as ``<partial/>``, ``[dimension=value; ...]`` groups, ``[Exception ... (inferred)]`` framing,
``<think>`` blocks, numeric citations the model invented (``[1]``: only okf numbers citations), control
characters and terminal escapes. A citation group naming evidence that was given becomes ``[n]`` in place;
one naming anything else is removed and reported as invalid.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

_ANSI = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ue000\ue001]")
_THINK = re.compile(r"<\s*(think|thinking|reasoning)\s*>.*?<\s*/\s*\1\s*>", re.DOTALL | re.IGNORECASE)
_ENGINE_TAGS = (
    "partial|abstain|abstained|answer|final|cite|cited|citation|citations|evidence|missing|"
    "exception|dimension|think|thinking|reasoning|source|sources|quote"
)
_TAG = re.compile(rf"<\s*/?\s*(?:{_ENGINE_TAGS})\b[^<>\n]*>|<\s*[A-Za-z][\w-]*\s*/\s*>", re.IGNORECASE)
_DIMENSION = re.compile(r"\[\s*[A-Za-z_][\w .-]*=[^\[\]\n]*\]")
_EXCEPTION_FRAME = re.compile(
    r"\[\s*(?:exception|carve[- ]?out)\b[^\[\]\n]*\]|\[[^\[\]\n]*\(inferred\)\s*\]", re.IGNORECASE
)
_INFERRED = re.compile(r"\(\s*inferred\s*\)", re.IGNORECASE)
_NUMERIC_CITE = re.compile(r"\[\s*\d{1,3}(?:\s*(?:[,;–-]|and)\s*\d{1,3})*\s*\](?!\()")
_GROUP = re.compile(r"(?:\[\^?|\(|【)([^\[\]()【】\n]{1,160})(?:\]|\)|】)")
_GROUP_SPLIT = re.compile(r"[\s,;&/]+|\band\b", re.IGNORECASE)
_FILLER = frozenset(
    (
        "see",
        "also",
        "source",
        "sources",
        "evidence",
        "item",
        "items",
        "id",
        "ids",
        "cf",
        "cf.",
        "ref",
        "refs",
        "citation",
        "citations",
        "cited",
        "from",
        "in",
        "per",
        "doc",
        "document",
        "documents",
        "chunk",
        "chunks",
    )
)
_PLACEHOLDER = re.compile(r"\s*\ue000(\d+)\ue001")
PARTIAL_TAG = re.compile(r"<\s*/?\s*partial\b[^<>\n]*>", re.IGNORECASE)


@dataclass
class CleanProse:
    """Prose with markers removed; ``inline`` are evidence ids cited in place (first-appearance order)."""

    text: str
    inline: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)


def _id_prefixes(valid_ids: Collection[str]) -> list[str]:
    # Ids like c1..cN share a letter prefix; a group "[c9]" with that prefix is a citation even if c9 is unknown.
    prefixes = {m.group(1).lower() for i in valid_ids if (m := re.fullmatch(r"([A-Za-z]{1,4})[-_]?\d+", i))}
    return sorted(prefixes, key=len, reverse=True)


def one_line(text: str) -> str:
    """``text`` safe for one terminal line: no escapes, no control characters, whitespace collapsed."""
    return " ".join(_CONTROL.sub(" ", _ANSI.sub("", text)).split())


def strip_markers(text: str) -> str:
    """Remove tags, typed-property groups, exception framing, think blocks and control characters."""
    text = _ANSI.sub("", text.replace("\r\n", "\n"))
    text = _CONTROL.sub(lambda m: " " if m.group() == "\t" else "", text)
    text = _THINK.sub("", text)
    text = _TAG.sub("", text)
    text = _DIMENSION.sub("", text)
    text = _EXCEPTION_FRAME.sub("", text)
    return _INFERRED.sub("", text)


def tidy(text: str) -> str:
    """Whitespace and punctuation left tidy after removals."""
    lines: list[str] = []
    for line in text.split("\n"):
        line = re.sub(r"[ \t]{2,}", " ", line)
        line = re.sub(r"\(\s*[,;:]?\s*\)|\[\s*[,;:]?\s*\]", "", line)
        line = re.sub(r"\s+([,.;:!?])", r"\1", line)
        line = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", line)
        line = re.sub(r"[,;:]\s*([.!?])", r"\1", line)
        line = re.sub(r"[ \t]{2,}", " ", line).strip()
        lines.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def clean_prose(
    text: str, *, valid_ids: Sequence[str], claimed: Collection[str] = (), numbers: dict[str, int] | None = None
) -> CleanProse:
    """Clean model prose; valid citation groups become ``[n]`` using (and extending) ``numbers``.

    ``valid_ids`` are the evidence ids given to the answerer; ``claimed`` are ids the model listed as cited
    (valid or not), also removed wherever they appear. ``numbers`` maps evidence id to ledger number; an id
    first cited here gets the next number.
    """
    numbers = numbers if numbers is not None else {}
    by_fold = {i.casefold(): i for i in valid_ids}
    other_ids = {c.casefold() for c in claimed if c and c.casefold() not in by_fold}
    prefixes = _id_prefixes(valid_ids)
    generic = re.compile(rf"(?:{'|'.join(map(re.escape, prefixes))})[-_]?\d+", re.IGNORECASE) if prefixes else None
    out = CleanProse(text="")

    def is_id(token: str) -> bool:
        fold = token.casefold()
        return fold in by_fold or fold in other_ids or bool(generic and generic.fullmatch(token))

    def group(match: re.Match[str]) -> str:
        tokens = [t for t in _GROUP_SPLIT.split(match.group(1)) if t and t.casefold() not in _FILLER]
        if not tokens or not all(is_id(t) for t in tokens):
            return match.group(0)
        marks = []
        for token in tokens:
            ident = by_fold.get(token.casefold())
            if ident is None:
                if token not in out.invalid:
                    out.invalid.append(token)
                continue
            if ident not in out.inline:
                out.inline.append(ident)
            marks.append(f"\ue000{numbers.setdefault(ident, len(numbers) + 1)}\ue001")
        return "".join(dict.fromkeys(marks))

    text = strip_markers(text)
    text = _NUMERIC_CITE.sub("", text)
    text = _GROUP.sub(group, text)
    bare_ids = [*by_fold, *other_ids]
    if bare_ids:
        names = "|".join(map(re.escape, sorted(bare_ids, key=len, reverse=True)))
        # "evidence c1 shows" / "see c1": the id and the words that introduce it go together.
        bare = re.compile(
            rf"(?:\b(?:see|per|in|from)\s+)?(?:\b(?:evidence|items?|sources?|documents?|chunks?)\s+)?"
            rf"(?<![\w/.-])(?:{names})(?![\w/-])",
            re.IGNORECASE,
        )

        def mention(match: re.Match[str]) -> str:
            # A bare mention of given evidence is a citation without a place: numbered, marked at the end.
            ident = by_fold.get(re.split(r"\s+", match.group(0))[-1].casefold())
            if ident is not None and ident not in out.inline:
                out.inline.append(ident)
                numbers.setdefault(ident, len(numbers) + 1)
            return ""

        text = bare.sub(mention, text)
    text = tidy(text)
    text = _PLACEHOLDER.sub(lambda m: f" [{m.group(1)}]", text)
    text = re.sub(r"\]\s+\[(?=\d+\])", "][", text)
    # "[1][2][1]" after merging neighbouring groups: each number once per run.
    text = re.sub(r"(?:\[\d+\])+", lambda m: "".join(dict.fromkeys(re.findall(r"\[\d+\]", m.group()))), text)
    out.text = tidy(text)
    return out


def append_markers(text: str, marks: Sequence[int]) -> str:
    """``text`` with ``[n]`` markers added at its end, before a final full stop."""
    if not marks:
        return text
    tail = "".join(f"[{n}]" for n in marks)
    match = re.search(r"([.!?。])\s*$", text)
    head, end = (text[: match.start()], match.group(1)) if match else (text, "")
    sep = "" if re.search(r"\[\d+\]$", head) or not head else " "
    return f"{head}{sep}{tail}{end}"
