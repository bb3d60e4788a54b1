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


HOSTILE_TITLE = (
    '<script>window.__okfPwned = 1</script><img src=x onerror="window.__okfPwned = 2"> Refunds & *bold* [x](y)'
)


def hostile_bundle(root: Path) -> Path:
    """A small bundle whose relevant concept has a title full of HTML and markdown specials (for escaping tests)."""
    return write_files(
        root,
        {
            "index.md": "# Acme\n\n- [Finance](finance/index.md): refunds, invoices and approvals\n"
            "- [Travel](travel/index.md): trips and hotels\n",
            "finance/index.md": "# Finance\n\n- [Refunds](refunds.md): who approves refunds\n"
            "- [Invoices](invoices.md): invoice sign-off\n",
            "finance/refunds.md": (
                '---\ntype: note\ntitle: "' + HOSTILE_TITLE.replace('"', '\\"') + '"\n'
                'description: "Who approves refunds <b>now</b>"\n---\n'
                "# Refunds\n\nRefunds over 500 dollars are approved by the finance director.\n\n"
                "Smaller refunds are approved by the store manager. See [hotels](../travel/hotels.md).\n"
            ),
            "finance/invoices.md": concept("Invoices", "Invoices are signed off by the controller."),
            "travel/index.md": "# Travel\n\n- [Hotels](hotels.md): hotel caps\n",
            "travel/hotels.md": concept(
                "Hotels", "Hotel stays are capped at 200 dollars a night.", status="deprecated"
            ),
        },
    )
