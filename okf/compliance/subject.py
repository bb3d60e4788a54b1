"""The subject of a compliance check: a document read as okf reads sources, or text given directly."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from okf.errors import ConfigError
from okf.markdown import atx_heading
from okf.readers.assessment import SubjectText
from okf.sources import read_source_text, span_text

# A subject longer than this (characters) is refused: every judgment shows the model the whole subject.
SUBJECT_CHARS = 200_000


def load_subject(path: str | os.PathLike[str]) -> SubjectText:
    """A subject document: markdown and text as-is, HTML and PDF converted (line numbers are of that text)."""
    source = Path(path)
    if not source.is_file():
        raise ConfigError(f"subject not found: {source}", fix="pass the path of the document to check, or - for stdin")
    try:
        text = read_source_text(source).text
    except OSError as exc:
        raise ConfigError(f"cannot read subject {source}: {exc.strerror or exc}", fix="pass a readable file") from None
    return checked(SubjectText(name=str(path), text=text))


def checked(subject: SubjectText) -> SubjectText:
    """``subject`` with its trailing newlines dropped; ConfigError when it is empty or too long."""
    text = subject.text.replace("\r\n", "\n").rstrip("\n")
    if not text.strip():
        raise ConfigError(f"the subject {subject.name} is empty", fix="give a document with text in it")
    if len(text) > SUBJECT_CHARS:
        raise ConfigError(
            f"the subject {subject.name} has {len(text):,} characters, more than {SUBJECT_CHARS:,}",
            fix="check it in parts (one file per part)",
        )
    return SubjectText(name=subject.name, text=text)


def title_of(subject: SubjectText) -> str:
    """The subject's first heading, else its first line (clipped), else its name."""
    lines = [line for line in subject.lines if line.strip()]
    for line in lines[:40]:
        heading = atx_heading(line)
        if heading and heading[1]:
            return heading[1]
    first = lines[0].strip() if lines else subject.name
    return first if len(first) <= 120 else first[:119].rsplit(" ", 1)[0] + "…"


def span_sha256(subject: SubjectText, start_line: int, end_line: int) -> str:
    """sha256 of the subject's lines ``start_line..end_line`` (as :func:`okf.sources.span_sha256`)."""
    return hashlib.sha256(span_text(subject.text, start_line, end_line).encode("utf-8")).hexdigest()
