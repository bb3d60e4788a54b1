"""``init_contract``: pin facts a user names to their current values and sha256s, so later drift is caught.

A fact is named as ``NAME[:TYPE]=LOCATOR`` where LOCATOR is ``CONCEPT[#HEADING]:EXTRACTOR:ARGUMENT`` and
EXTRACTOR is ``literal``, ``regex``, ``frontmatter`` or ``table`` (whose argument is ``ROW|COLUMN``)::

    pto_new_hire_days=handbook/paid-time-off#PTO Accrual:table:Less than 3 years (including new hires)|Annual PTO
    msa_renewal_notice_days:number=contracts/**/article-ii-term-and-renewal:regex:at least \\w+ \\((\\d+)\\) days

Without TYPE the type is inferred from the value found (boolean, number, date, list, else string).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from okf.bundle import Bundle
from okf.contract.evaluate import REGEX_TIMEOUT_S, check_contract
from okf.contract.load import load_contract
from okf.contract.locate import Unlocated, extract, find_concept, read_source, scope
from okf.contract.model import CONTRACT_VERSION, Contract, Fact
from okf.contract.values import infer_type
from okf.errors import ContractError

_SPEC = re.compile(r"^(?P<name>[^:=]+?)(?::(?P<type>[a-z]+))?=(?P<locator>.+)$", re.S)
_LOCATOR = re.compile(
    r"^(?P<concept>[^#]+?)(?:#(?P<heading>.*?))?:(?P<kind>literal|regex|frontmatter|table):"
    r"(?P<arg>.+)$",
    re.S,
)
SPEC_FORM = "NAME[:TYPE]=CONCEPT[#HEADING]:EXTRACTOR:ARGUMENT"


def parse_fact_spec(spec: str) -> dict[str, Any]:
    """The fact (as contract data, without expectations) that ``NAME[:TYPE]=LOCATOR`` names; ContractError if
    it is not in that form. The type is left out when not given."""
    match = _SPEC.match(spec.strip())
    located = _LOCATOR.match(match.group("locator")) if match else None
    if match is None or located is None:
        raise ContractError(
            f"--fact {spec!r} is not {SPEC_FORM}", fix="e.g. --fact 'pto_days=handbook/paid-time-off:regex:(\\d+) days'"
        )
    locate: dict[str, Any] = {"concept": located.group("concept").strip()}
    if located.group("heading"):
        locate["heading"] = located.group("heading").strip()
    kind, argument = located.group("kind"), located.group("arg")
    if kind == "table":
        row, bar, column = argument.rpartition("|")
        if not bar or not row.strip() or not column.strip():
            raise ContractError(
                f"--fact {spec!r}: a table argument is ROW|COLUMN",
                fix="e.g. ':table:Less than 3 years (including new hires)|Annual PTO'",
            )
        locate["table"] = {"row": row.strip(), "column": column.strip()}
    else:
        locate[kind] = argument.strip() if kind == "frontmatter" else argument
    fact: dict[str, Any] = {"name": match.group("name").strip(), "locate": locate}
    if match.group("type"):
        fact["type"] = match.group("type")
    return fact


def _raw_value(bundle: Bundle, fact: Fact) -> Any:
    source = read_source(bundle, find_concept(bundle, fact.locate.concept))
    found = extract(source, fact.locate, scope(source, fact), timeout=REGEX_TIMEOUT_S)
    if not found:
        raise Unlocated(
            "not_found",
            f"the {fact.locate.extractor} extractor found nothing in {source.path}",
            "check the locator against the concept's current text",
        )
    return found[0].raw


def init_contract(
    bundle: Bundle | str | Path, specs: Sequence[str | dict[str, Any]], *, description: str | None = None
) -> Contract:
    """A contract pinning each named fact to its current value (``expect.equals``) and the sha256 of the lines
    it is read from (``expect.unchanged``). ContractError, naming every fact that cannot be pinned, otherwise."""
    opened = bundle if isinstance(bundle, Bundle) else Bundle.open(bundle)
    if not specs:
        raise ContractError("no fact to pin", fix=f"name at least one: --fact '{SPEC_FORM}'")
    drafts = [parse_fact_spec(s) if isinstance(s, str) else dict(s) for s in specs]
    problems: list[str] = []
    open_enums: set[str] = set()  # enums named without values: they allow the value found now
    for draft in drafts:
        if draft.get("type") == "enum" and "values" not in draft:
            open_enums.add(draft["name"])
            draft["type"] = "string"
        if "type" in draft:
            continue
        probe = load_contract({"version": CONTRACT_VERSION, "facts": [{**draft, "type": "string"}]}).facts[0]
        try:  # the type of the value found now
            draft["type"] = infer_type(_raw_value(opened, probe))
        except Unlocated as problem:
            problems.append(f"fact {draft['name']!r}: {problem.code}: {problem.message} (fix: {problem.fix})")
    located = [d for d in drafts if "type" in d]
    data: dict[str, Any] = {"version": CONTRACT_VERSION, "bundle": opened.root.name}
    if description:
        data["description"] = description
    data["facts"] = located
    report = check_contract(opened, data) if located else None
    for result, draft in zip(report.facts if report else [], located, strict=True):
        if result.status != "grounded" or result.receipt is None:
            problems.append(f"fact {result.name!r}: {result.code}: {result.message} (fix: {result.fix})")
            continue
        if draft["name"] in open_enums:
            draft["type"], draft["values"] = "enum", [result.value]
        draft["expect"] = {"equals": result.value, "unchanged": result.receipt.sha256}
    if problems:
        raise ContractError("cannot pin these facts", problems=problems)
    return load_contract(data)


def contract_data(contract: Contract) -> dict[str, Any]:
    """A contract as the plain data of its file: defaults and empty keys left out, keys in schema order."""
    return contract.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
