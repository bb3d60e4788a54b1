"""The contract file as data: pydantic models whose JSON Schema is the published one (docs/contracts.md).

A contract names facts. Each fact has a type, a locator (which concept, optionally which section, and one
extractor), expectations and a severity. Pure data, no I/O; the checks that need more than the schema (a
regex that compiles, an expected value of the fact's type) are in :mod:`okf.contract.load`.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

CONTRACT_VERSION = 1
FactType = Literal["string", "number", "date", "boolean", "enum", "list"]
EXTRACTORS = ("literal", "regex", "frontmatter", "table")
NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$"
SHA256_PATTERN = r"^[0-9a-f]{64}$"
Bound = float | int | date | str

_STRICT = ConfigDict(extra="forbid")


class TableCell(BaseModel):
    """A table cell: the body row whose first cell is ``row`` and the column whose header is ``column``."""

    model_config = _STRICT

    row: str = Field(min_length=1, description="The text of the row's first cell (case and markup ignored).")
    column: str = Field(min_length=1, description="The column's header text (case and markup ignored).")


class Locator(BaseModel):
    """Where a fact is: one concept, optionally one section of it, and exactly one extractor."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"oneOf": [{"required": [name]} for name in EXTRACTORS]}
    )

    concept: str = Field(
        min_length=1,
        description="A concept id ('handbook/pto/pto'), its path ('....md'), or a glob "
        "('**/pto') that must match exactly one concept.",
    )
    heading: str | None = Field(
        default=None,
        min_length=1,
        description="Only the section under this heading (its text, case ignored; the heading must occur once).",
    )
    literal: str | None = Field(default=None, min_length=1, description="Text that must occur; the value is the text.")
    regex: str | None = Field(
        default=None,
        min_length=1,
        description="A regular expression with exactly one capture "
        "group; the value is what the group captures. Searched with MULTILINE.",
    )
    frontmatter: str | None = Field(
        default=None,
        min_length=1,
        description="A frontmatter key ('title', or a dotted path 'owner.name' into mappings).",
    )
    table: TableCell | None = Field(default=None, description="A cell of a pipe table.")

    @model_validator(mode="after")
    def _one_extractor(self) -> Locator:
        given = [name for name in EXTRACTORS if getattr(self, name) is not None]
        if len(given) != 1:
            what = ", ".join(given) if given else "none"
            raise ValueError(f"a locator takes exactly one extractor of {', '.join(EXTRACTORS)} (given: {what})")
        if self.frontmatter is not None and self.heading is not None:
            raise ValueError("a frontmatter extractor reads the frontmatter, so it takes no heading")
        return self

    @property
    def extractor(self) -> str:
        """The extractor's name: literal, regex, frontmatter or table."""
        return next(name for name in EXTRACTORS if getattr(self, name) is not None)


class Range(BaseModel):
    """Inclusive bounds for a number or date fact; either may be left out."""

    model_config = _STRICT

    min: Bound | None = None
    max: Bound | None = None


class Expectations(BaseModel):
    """What must hold of a fact's value. With none, the fact must only be found and parse as its type."""

    model_config = _STRICT

    equals: Any = Field(default=None, description="The value must equal this (compared as the fact's type).")
    one_of: list[Any] | None = Field(default=None, min_length=1, description="The value must be one of these.")
    range: Range | None = Field(default=None, description="Number or date facts: min <= value <= max.")
    present: bool = Field(
        default=True,
        description="false: the fact must NOT be found (e.g. a clause that must be "
        "absent); the receipt then covers the text searched.",
    )
    unchanged: str | None = Field(
        default=None,
        pattern=SHA256_PATTERN,
        description="sha256 of the lines the value "
        "was read from, as recorded (okf contract init writes it); a different hash is drift.",
    )


class Fact(BaseModel):
    """One named, typed fact of a contract."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"if": {"properties": {"type": {"const": "enum"}}}, "then": {"required": ["values"]}},
    )

    name: str = Field(pattern=NAME_PATTERN, description="Unique name of the fact (letters, digits, _ . -).")
    type: FactType
    description: str | None = None
    values: list[str] | None = Field(default=None, min_length=1, description="enum facts: the allowed values.")
    separator: str | None = Field(
        default=None,
        min_length=1,
        description="list facts read from text: the item "
        "separator (default: commas, semicolons and a final 'and'/'or').",
    )
    locate: Locator
    expect: Expectations = Field(default_factory=Expectations)
    severity: Literal["error", "warning"] = Field(
        default="error",
        description="A failed error fact fails the check (exit 1) and stops an ask; a warning is reported only.",
    )


class Contract(BaseModel):
    """A versioned set of facts about a bundle, checked in code with zero model calls."""

    model_config = ConfigDict(extra="forbid", title="okf contract")

    version: Literal[1] = Field(description="The contract format version; this okf reads version 1.")
    description: str | None = None
    bundle: str | None = Field(default=None, description="The bundle the contract was written for (informational).")
    facts: list[Fact] = Field(min_length=1)

    _origin: str = PrivateAttr(default="<inline>")
    _sha256: str = PrivateAttr(default="")

    @property
    def origin(self) -> str:
        """The file the contract was read from, or ``<inline>`` for data."""
        return self._origin

    @property
    def sha256(self) -> str:
        """sha256 of the contract as read: the file's bytes, or the canonical JSON of data."""
        return self._sha256


def contract_schema() -> dict[str, Any]:
    """The JSON Schema of a contract file (the one published in docs/contracts.md)."""
    schema = Contract.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
