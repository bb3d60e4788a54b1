"""HTML sources as markdown okf can cite (stdlib html.parser); the <title> becomes an H1."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCKS = {
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "aside",
    "nav",
    "blockquote",
    "figure",
    "figcaption",
    "dl",
    "dt",
    "dd",
    "address",
    "form",
    "fieldset",
    "body",
    "html",
}
_SKIP = {"script", "style", "head", "template", "noscript", "svg"}
_VOID = {"br", "hr", "img", "meta", "link", "input", "area", "base", "col", "embed", "source", "track", "wbr"}
# Text that reads as an HTML tag once written to markdown ("&lt;script&gt;" in the page is the text "<script>"):
# written as "&lt;" so no markdown renderer turns the page's text into live markup.
_TAG_LIKE = re.compile(r"<(?=[A-Za-z/!?])")


class _Converter(HTMLParser):
    """A small HTML to markdown converter: headings, paragraphs, lists, tables, links, pre/code."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []  # finished blocks
        self.buf: list[str] = []  # inline text of the current block
        self.skip = 0
        self.pre = 0
        self.lists: list[list[int | str]] = []  # [kind, counter]
        self.heading = 0
        self.href: list[str | None] = []
        self.table: list[list[str]] | None = None
        self.row: list[str] | None = None
        self.cell: list[str] | None = None
        self.title = ""
        self.in_title = False
        self.code = False  # inside inline `code`, where text is shown literally

    def _flush(self) -> None:
        text = re.sub(r"[ \t\r\n]+", " ", "".join(self.buf)).strip()
        self.buf = []
        if not text:
            return
        if self.heading:
            self.out.append("#" * self.heading + " " + text)
        elif self.lists:
            kind, n = self.lists[-1]
            bullet = f"{n}." if kind == "ol" else "-"
            self.out.append("  " * (len(self.lists) - 1) + f"{bullet} {text}")
        else:
            self.out.append(text)

    def _sink(self) -> list[str]:
        return self.cell if self.cell is not None else self.buf

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skip += 1
            self.in_title = False
            return
        if tag == "title":
            self.in_title = True
            return
        if self.skip:
            return
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._flush()
            self.heading = int(tag[1])
        elif tag in _BLOCKS:
            self._flush()
        elif tag in ("ul", "ol"):
            self._flush()
            self.lists.append([tag, 0])
        elif tag == "li":
            self._flush()
            if self.lists:
                self.lists[-1][1] = int(self.lists[-1][1]) + 1
        elif tag == "pre":
            self._flush()
            self.pre += 1
        elif tag == "code" and not self.pre:
            self._sink().append("`")
            self.code = True
        elif tag == "br":
            self._sink().append("\n" if self.pre else " ")
        elif tag == "hr":
            self._flush()
            self.out.append("---")
        elif tag == "a":
            self.href.append(dict(attrs).get("href"))
            self._sink().append("[")
        elif tag in ("strong", "b"):
            self._sink().append("**")
        elif tag in ("em", "i"):
            self._sink().append("*")
        elif tag == "table":
            self._flush()
            self.table = []
        elif tag == "tr" and self.table is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if tag == "title":
            self.in_title = False
            return
        if self.skip:
            return
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._flush()
            self.heading = 0
        elif tag in _BLOCKS or tag == "li":
            self._flush()
        elif tag in ("ul", "ol"):
            self._flush()
            if self.lists:
                self.lists.pop()
        elif tag == "pre":
            code = "".join(self.buf).strip("\n")
            self.buf = []
            self.pre = max(0, self.pre - 1)
            fence = "````" if "```" in code else "```"
            self.out.append(f"{fence}\n{code}\n{fence}")
        elif tag == "code" and not self.pre:
            self._sink().append("`")
            self.code = False
        elif tag == "a":
            href = self.href.pop() if self.href else None
            self._sink().append(f"]({href})" if href else "]")
        elif tag in ("strong", "b"):
            self._sink().append("**")
        elif tag in ("em", "i"):
            self._sink().append("*")
        elif tag in ("td", "th") and self.row is not None and self.cell is not None:
            text = re.sub(r"\s+", " ", "".join(self.cell)).strip().replace("|", "\\|")
            self.row.append(text)
            self.cell = None
        elif tag == "tr" and self.table is not None and self.row is not None:
            self.table.append(self.row)
            self.row = None
        elif tag == "table" and self.table is not None:
            self._emit_table(self.table)
            self.table = None

    def _emit_table(self, rows: list[list[str]]) -> None:
        rows = [r for r in rows if r]
        if not rows:
            return
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
        lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
        self.out.append("\n".join(lines))

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title += data
            return
        if self.skip:
            return
        self._sink().append(data if self.pre or self.code else _TAG_LIKE.sub("&lt;", data))

    def result(self) -> str:
        self._flush()
        body = "\n\n".join(self.out)
        title = re.sub(r"\s+", " ", self.title).strip()
        if title and not any(line.startswith("# ") for line in self.out):
            body = f"# {title}\n\n{body}" if body else f"# {title}"
        return body + "\n" if body else ""


def html_to_markdown(html: str) -> str:
    """Markdown for an HTML document; the <title> becomes an H1 when the page has none."""
    converter = _Converter()
    converter.feed(html)
    converter.close()
    return converter.result()
