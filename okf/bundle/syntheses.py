"""The syntheses folder: where ``okf ask --save`` files answers, and what a recompile must keep of it.

``syntheses/`` holds Synthesis concepts and their ``index.md``; ``.okf/syntheses.json`` records each one
(question, sha256 of the file). ``okf compile`` keeps these files (it did not write them) without warning, and
keeps the root ``index.md`` entry for the folder when it rewrites the root index.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

FOLDER = "syntheses"
REGISTRY = ".okf/syntheses.json"
FOLDER_TITLE = "Syntheses"
ENTRY_LEAD = "Saved answers"


def read_registry(root: Path | str) -> dict[str, dict[str, Any]]:
    """The recorded syntheses (bundle path -> record); empty when there is no readable registry."""
    path = os.path.join(root, REGISTRY)
    if os.path.islink(path) or not os.path.isfile(path):
        return {}
    try:
        with open(path, encoding="utf-8") as handle:
            records = json.load(handle).get("syntheses", {})
    except (OSError, ValueError, AttributeError):
        return {}
    if not isinstance(records, dict):
        return {}
    return {str(k): v for k, v in records.items() if isinstance(v, dict)}


def filed_files(root: Path | str) -> set[str]:
    """The files ``okf ask --save`` wrote into the bundle at ``root``: the registry, the folder index and
    every recorded synthesis."""
    records = read_registry(root)
    if not records:
        return set()
    return {REGISTRY, f"{FOLDER}/index.md", *records}


def root_entry(root: Path | str) -> str | None:
    """The root ``index.md`` line of an existing bundle's root index that lists the syntheses folder, or
    None when there is no such line (or no recorded synthesis)."""
    if not read_registry(root) or not os.path.isfile(os.path.join(root, FOLDER, "index.md")):
        return None
    path = os.path.join(root, "index.md")
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
    except (OSError, UnicodeDecodeError):
        return None
    marker = f"]({FOLDER}/index.md)"
    return next((line for line in lines if line.lstrip().startswith(("* [", "- [")) and marker in line), None)


__all__ = ["ENTRY_LEAD", "FOLDER", "FOLDER_TITLE", "REGISTRY", "filed_files", "read_registry", "root_entry"]
