"""PDF sources as their text layer (pypdf, imported only when a PDF is read)."""

from __future__ import annotations

import io
import logging
from pathlib import Path


def pdf_to_text(path: Path, data: bytes | None = None) -> tuple[str, list[str]]:
    """The text layer of a PDF (its bytes ``data`` when already read), pages separated by a blank line, and
    notices (encrypted, no text, ...). pypdf's own warnings are muted: the notices say what went wrong."""
    pypdf_log = logging.getLogger("pypdf")
    level = pypdf_log.level
    pypdf_log.setLevel(logging.ERROR)
    try:
        return _pdf_text(path, data)
    finally:
        pypdf_log.setLevel(level)


def _pdf_text(path: Path, data: bytes | None) -> tuple[str, list[str]]:
    from pypdf import PdfReader  # imported here: only PDF sources pay for it
    from pypdf.errors import PdfReadError

    notices: list[str] = []
    try:
        reader = PdfReader(io.BytesIO(data) if data is not None else str(path))
        if reader.is_encrypted:
            try:
                reader.decrypt("")
            except Exception:  # noqa: BLE001 - pypdf raises several types for bad passwords
                return "", [f"{path}: encrypted PDF, skipped"]
        pages = []
        for number, page in enumerate(reader.pages, 1):
            try:
                pages.append((page.extract_text() or "").strip("\n"))
            except Exception as exc:  # noqa: BLE001 - one bad page must not lose the rest
                notices.append(f"{path}: page {number}: text not extracted ({exc})")
    except (PdfReadError, OSError, ValueError) as exc:
        return "", [f"{path}: not a readable PDF ({exc})"]
    text = "\n\n".join(p for p in pages if p.strip())
    if not text.strip():
        notices.append(f"{path}: PDF has no text layer (scanned?); nothing to compile")
    return (text + "\n" if text else ""), notices
