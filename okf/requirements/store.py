"""Requirements as JSON lines: written atomically, read back with errors naming the file, line and fix."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from okf.errors import ConfigError
from okf.requirements.model import Requirement


def write_requirements(requirements: Iterable[Requirement], path: str | os.PathLike[str]) -> int:
    """Write one JSON object per line to ``path`` (a temporary file renamed over it); the count written."""
    target = Path(path)
    if target.is_dir():
        raise ConfigError(f"{target} is a directory", fix="give -o a file path such as requirements.jsonl")
    count = 0
    try:
        with tempfile.NamedTemporaryFile(
            "w",
            encoding="utf-8",
            dir=target.parent or Path("."),
            delete=False,
            prefix=f".{target.name}.",
            suffix=".tmp",
        ) as handle:
            for requirement in requirements:
                handle.write(requirement.model_dump_json() + "\n")
                count += 1
        os.replace(handle.name, target)
    except FileNotFoundError:
        raise ConfigError(
            f"cannot write {target}: its folder does not exist", fix="create the folder first or write elsewhere"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot write {target}: {exc.strerror or exc}", fix="write to a writable path") from None
    return count


def load_requirements(path: str | os.PathLike[str]) -> list[Requirement]:
    """The requirements of a JSON-lines file written by ``okf requirements -o``; blank lines are skipped."""
    source = Path(path)
    try:
        lines = source.read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        raise ConfigError(
            f"requirements file not found: {source}",
            fix="write one with: okf requirements BUNDLE -o requirements.jsonl",
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"cannot read requirements file {source}: {exc}", fix="pass a UTF-8 JSON-lines file"
        ) from None
    out: list[Requirement] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(Requirement.model_validate(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{source}:{number}: not a JSON object ({exc.msg})",
                fix="each line must be one requirement as written by okf requirements -o",
            ) from None
        except ValidationError as exc:
            problem = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:3])
            raise ConfigError(
                f"{source}:{number}: not a requirement ({problem})",
                fix="each line must be one requirement as written by okf requirements -o",
            ) from None
    if not out:
        raise ConfigError(
            f"{source} holds no requirement", fix="extract some with: okf requirements BUNDLE -o requirements.jsonl"
        )
    return out
