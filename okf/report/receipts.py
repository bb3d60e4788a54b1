"""A receipt shown with the exact lines it names, read from the bundle and checked against its sha256."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from okf.bundle import Bundle
from okf.bundle.documents import read_text
from okf.errors import BundleError
from okf.sources import span_sha256

MAX_LINES = 400


@dataclass
class ReceiptView:
    """What the page shows of one receipt: where, the hash, and the lines (None when they cannot be read)."""

    evidence_id: str
    path: str
    start_line: int
    end_line: int
    sha256: str
    truncated: bool = False
    lines: list[tuple[int, str]] | None = None
    verified: bool | None = None
    note: str = ""
    more_lines: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class ReceiptReader:
    """Reads receipt lines from one bundle (or says why it cannot), each file once."""

    def __init__(self, bundle: Bundle | None, why_not: str = "") -> None:
        self.bundle = bundle
        self.why_not = why_not or "the bundle was not given"
        self._texts: dict[str, str | BundleError] = {}

    def _text(self, path: str) -> str:
        assert self.bundle is not None
        if path not in self._texts:
            try:
                # resolve() refuses paths leaving the bundle (a trace file is untrusted input).
                rel = self.bundle.resolve(path)
                self._texts[path] = read_text(self.bundle.real_path(rel), rel)[0]
            except BundleError as exc:
                self._texts[path] = exc
        text = self._texts[path]
        if isinstance(text, BundleError):
            raise text
        return text

    def view(self, receipt: dict[str, Any]) -> ReceiptView:
        """A :class:`ReceiptView` of a receipt given as a dict (``Receipt.model_dump()``)."""
        start, end = _int(receipt.get("start_line")), _int(receipt.get("end_line"))
        view = ReceiptView(
            evidence_id=str(receipt.get("evidence_id") or ""),
            path=str(receipt.get("path") or ""),
            start_line=start,
            end_line=end,
            sha256=str(receipt.get("sha256") or ""),
            truncated=bool(receipt.get("truncated")),
        )
        if self.bundle is None:
            view.note = f"Lines not shown: {self.why_not}."
            return view
        if start < 1 or end < start:
            view.note = f"Lines not shown: the receipt names lines {start}-{end}."
            return view
        try:
            text = self._text(view.path)
        except BundleError as exc:
            view.note = f"Lines not shown: {exc}"
            return view
        every = text.split("\n")
        view.verified = span_sha256(text, start, end) == view.sha256
        if not view.verified:
            view.note = (
                "The file's lines no longer match the receipt's sha256: the bundle changed since the "
                "walk (or a line longer than the judge's limit was cut)."
            )
        shown = every[start - 1 : min(end, start - 1 + MAX_LINES)]
        view.lines = [(start + n, line) for n, line in enumerate(shown)]
        view.more_lines = max(0, min(end, len(every)) - start + 1 - len(shown))
        return view


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def open_bundle(path: str | None) -> tuple[Bundle | None, str]:
    """The bundle at ``path`` for receipt lines, or None and why not."""
    if not path:
        return None, "the walk file does not name its bundle (pass --bundle)"
    try:
        return Bundle.open(path), ""
    except BundleError as exc:
        return None, f"the bundle could not be opened ({exc})"
