"""Bundle text the tests write: concept files and folders of them (importable from every test module)."""

from __future__ import annotations

from pathlib import Path


def concept(title: str, body: str = "", *, kind: str = "note", heading: bool = True, **meta: str) -> str:
    """A concept file: frontmatter (``type: kind``, ``title``, then ``meta`` as written) and a body.

    With ``heading`` the body is ``# title``, a blank line and ``body`` (default ``"<title> body."``);
    without it the body is ``body`` exactly as given.
    """
    extra = "".join(f"{k}: {v}\n" for k, v in meta.items())
    text = f"# {title}\n\n{body or title + ' body.'}\n" if heading else body
    return f"---\ntype: {kind}\ntitle: {title}\n{extra}---\n{text}"


def write_files(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text) under ``root``; return ``root``."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
