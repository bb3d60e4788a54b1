"""Contracts: named, typed facts about a bundle, checked in code with zero model calls before an answer is paid
for, and carried into the answer with their receipts (docs/contracts.md).

- :mod:`okf.contract.model`: the contract file as pydantic models; its JSON Schema is the published one.
- :mod:`okf.contract.load`: read a JSON or YAML contract and refuse it, naming every problem, unless usable.
- :mod:`okf.contract.values`: what each fact type parses from text.
- :mod:`okf.contract.locate`: the concept, section and places a locator's extractor finds a value.
- :mod:`okf.contract.evaluate`: ``check_contract`` — every fact grounded (value + receipt) or failed.
- :mod:`okf.contract.scaffold`: ``init_contract`` — pin facts to their current values and sha256s.
"""

from __future__ import annotations

from okf.contract.evaluate import REGEX_TIMEOUT_S, ContractReport, check_contract
from okf.contract.load import load_contract
from okf.contract.model import Contract, contract_schema
from okf.contract.scaffold import contract_data, init_contract

__all__ = [
    "REGEX_TIMEOUT_S",
    "Contract",
    "ContractReport",
    "check_contract",
    "contract_data",
    "contract_schema",
    "init_contract",
    "load_contract",
]
