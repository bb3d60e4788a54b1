"""Read a contract (a JSON or YAML file, or data) and refuse it, with every problem named, unless it is usable.

Usable means: valid against the schema (:mod:`okf.contract.model`), fact names unique, every regex compiles
with exactly one capture group, every expected value parses as its fact's type, and every expectation fits
its type. Problems are collected, not stopped at: one ``ContractError`` lists them all, each naming the fact.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import regex
import yaml
from pydantic import ValidationError

from okf.bundle.frontmatter import _TooComplex, counting_loader
from okf.contract.model import CONTRACT_VERSION, Contract, Fact
from okf.contract.values import ValueProblem, parse_value
from okf.errors import ContractError

MAX_CONTRACT_BYTES = 1_048_576
INLINE = "<inline>"
REGEX_FLAGS = regex.MULTILINE
ContractInput = Contract | Mapping[str, Any] | str | Path


def load_contract(source: ContractInput) -> Contract:
    """A checked :class:`Contract` from a file path (``.json``, else YAML), a mapping, or a Contract."""
    if isinstance(source, Contract):  # built in Python: checked like any other, keeping where it came from
        data = source.model_dump(mode="json", exclude_unset=True)
        return _validated(data, source.origin, source.sha256 or _digest(data))
    if isinstance(source, Mapping):
        data = dict(source)
        return _validated(data, INLINE, _digest(data))
    return _validated(*_read(Path(source)))


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def _read(path: Path) -> tuple[Any, str, str]:
    shown = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ContractError(
            "no such contract file", path=shown, fix="pass the path of a contract (okf contract init writes one)"
        ) from None
    except OSError as exc:
        raise ContractError(
            f"cannot read the contract: {exc.strerror or exc}", path=shown, fix="pass a readable contract file"
        ) from None
    if len(data) > MAX_CONTRACT_BYTES:
        raise ContractError(
            f"the contract is {len(data):,} bytes, over the {MAX_CONTRACT_BYTES:,}-byte limit",
            path=shown,
            fix="split it into several contracts",
        )
    digest = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ContractError(
            f"the contract is not UTF-8 (byte {exc.start})", path=shown, fix="save it as UTF-8"
        ) from None
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text), shown, digest
        except json.JSONDecodeError as exc:
            raise ContractError(
                f"line {exc.lineno}: not valid JSON: {exc.msg}", path=shown, fix="fix the JSON syntax at that line"
            ) from None
    loader = counting_loader(text)  # frontmatter's loader: refuses alias bombs (billion laughs)
    try:
        return loader.get_single_data(), shown, digest
    except (_TooComplex, RecursionError) as exc:
        raise ContractError(
            f"the contract is refused: {exc or 'nested too deeply'}",
            path=shown,
            fix="write the values out instead of using YAML anchors and aliases",
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ContractError(
            f"{where}not valid YAML: {problem}", path=shown, fix="fix the YAML syntax at that line"
        ) from None
    finally:
        loader.dispose()


def _fact_label(data: Any, index: int) -> str:
    facts = data.get("facts") if isinstance(data, dict) else None
    if isinstance(facts, list) and index < len(facts) and isinstance(facts[index], dict):
        name = facts[index].get("name")
        if isinstance(name, str) and name:
            return f"fact {name!r}"
    return f"fact #{index + 1}"


def _where(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _schema_problem(data: Any, error: Any) -> str:
    loc = tuple(error["loc"])
    label = (
        _fact_label(data, loc[1]) if len(loc) > 1 and loc[0] == "facts" and isinstance(loc[1], int) else "the contract"
    )
    message = str(error["msg"]).removeprefix("Value error, ")
    kind = error["type"]
    fix = "see the schema in docs/contracts.md"
    if kind == "extra_forbidden":
        message, fix = (
            f"unknown key {loc[-1]!r}",
            "remove it or correct its spelling (docs/contracts.md lists the keys)",
        )
    elif kind == "missing":
        message, fix = f"{loc[-1]!r} is required", f"add {loc[-1]!r}"
    elif loc == ("version",):
        message = f"unsupported contract version {error.get('input')!r}"
        fix = f"this okf reads version {CONTRACT_VERSION}; write 'version: {CONTRACT_VERSION}'"
    return f"{label} ({_where(loc) or 'top level'}): {message} (fix: {fix})"


def _validated(data: Any, origin: str, digest: str) -> Contract:
    if not isinstance(data, dict):
        raise ContractError(
            "a contract is a mapping with 'version' and 'facts'",
            path=origin,
            fix=f"start the file with 'version: {CONTRACT_VERSION}' and a 'facts:' list",
        )
    try:
        contract = Contract.model_validate(data)
    except ValidationError as exc:
        invalid = [_schema_problem(data, error) for error in exc.errors()]
        raise ContractError(
            f"the contract is not valid against its schema ({len(invalid)} problem(s))", path=origin, problems=invalid
        ) from None
    problems: list[str] = []
    seen: set[str] = set()
    for fact in contract.facts:
        if fact.name in seen:
            problems.append(f"fact {fact.name!r}: the name is used twice (fix: give every fact its own name)")
        seen.add(fact.name)
        problems.extend(
            f"fact {fact.name!r} ({where}): {message} (fix: {fix})" for where, message, fix in fact_problems(fact)
        )
    if problems:
        raise ContractError(
            f"the contract cannot be checked ({len(problems)} problem(s))", path=origin, problems=problems
        )
    contract._origin = origin
    contract._sha256 = digest
    return contract


def compile_regex(pattern: str) -> regex.Pattern[str]:
    """The fact's regex compiled as okf searches it; ``regex.error`` when it does not compile."""
    return regex.compile(pattern, REGEX_FLAGS)


def fact_problems(fact: Fact) -> list[tuple[str, str, str]]:
    """``(field, message, fix)`` for everything about ``fact`` that the schema alone cannot refuse."""
    out: list[tuple[str, str, str]] = []
    if fact.locate.regex is not None:
        try:
            groups = compile_regex(fact.locate.regex).groups
        except regex.error as exc:
            out.append(("locate.regex", f"the regex does not compile: {exc}", "correct the regular expression"))
        else:
            if groups != 1:
                out.append(
                    (
                        "locate.regex",
                        f"the regex has {groups} capture groups; it needs exactly one",
                        "wrap the value in one (...) group and make the others non-capturing (?:...)",
                    )
                )
    if fact.type == "enum" and not fact.values:
        out.append(("values", "an enum fact needs its allowed values", "add 'values: [a, b, ...]'"))
    if fact.values is not None and fact.type != "enum":
        out.append(("values", f"values apply to enum facts, not {fact.type}", "remove 'values' or use type enum"))
    if fact.separator is not None and fact.type != "list":
        out.append(("separator", f"a separator applies to list facts, not {fact.type}", "remove 'separator'"))
    if out:
        return out
    expect = fact.expect
    given = {name for name in expect.model_fields_set if name != "present"}
    if not expect.present and given - {"unchanged"}:
        out.append(
            (
                "expect.present",
                f"present: false says the fact must be absent, so it takes no {', '.join(sorted(given))}",
                "remove the other expectations, or present: false",
            )
        )
        return out
    checks: list[tuple[str, Any]] = []
    if "equals" in expect.model_fields_set:
        checks.append(("expect.equals", expect.equals))
    if expect.one_of is not None:
        if fact.type == "list":
            out.append(("expect.one_of", "one_of does not apply to list facts", "use equals"))
        checks.extend((f"expect.one_of[{i}]", value) for i, value in enumerate(expect.one_of))
    if expect.range is not None:
        if fact.type not in ("number", "date"):
            out.append(
                (
                    "expect.range",
                    f"range applies to number and date facts, not {fact.type}",
                    "remove range, or change the type",
                )
            )
        else:
            checks.extend(
                (f"expect.range.{end}", getattr(expect.range, end))
                for end in ("min", "max")
                if getattr(expect.range, end) is not None
            )
    parsed: dict[str, Any] = {}
    for where, value in checks:
        try:
            parsed[where] = parse_value(fact.type, value, values=fact.values, separator=fact.separator)
        except ValueProblem as exc:
            out.append(
                (
                    where,
                    f"{exc.message}, but the fact is a {fact.type}",
                    f"write a {fact.type} value here, or change the fact's type",
                )
            )
    low, high = parsed.get("expect.range.min"), parsed.get("expect.range.max")
    if low is not None and high is not None and low > high:
        out.append(("expect.range", f"min {low} is above max {high}", "swap them"))
    return out
