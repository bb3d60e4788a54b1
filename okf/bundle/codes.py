"""Every diagnostic code okf reports about a bundle, its severity and its one-line fix (docs/check.md).

Codes are stable: E0xx are OKF §11 conformance errors, W1xx are warnings a tolerant consumer reads past.
"""

from __future__ import annotations

from typing import Literal

from okf.bundle.model import Diagnostic

# code: (severity, short name, default fix)
CODES: dict[str, tuple[Literal["error", "warning"], str, str]] = {
    "E001": ("error", "unparseable frontmatter", "fix the YAML syntax between the '---' lines"),
    "E002": ("error", "frontmatter not a mapping", "write frontmatter as 'key: value' lines"),
    "E003": ("error", "missing type", "add a non-empty 'type:' to the frontmatter"),
    "E004": ("error", "no frontmatter", "start the file with a '---' block holding at least 'type: ...'"),
    "E005": ("error", "file refused", "split the file or remove what makes it too large"),
    "E006": ("error", "unreadable file", "check the file's permissions and that it is a regular file"),
    "E007": ("error", "invalid UTF-8", "save the file as UTF-8"),
    "E010": ("error", "frontmatter in a non-root index.md", "remove the frontmatter from this index.md"),
    "E011": (
        "error",
        "root index.md frontmatter carries keys other than okf_version",
        "keep only 'okf_version' in the root index.md frontmatter",
    ),
    "E012": ("error", "index.md bullet without a link", "write the entry as '* [Title](target) - description'"),
    "E020": ("error", "log.md date heading not YYYY-MM-DD", "write date headings as '## YYYY-MM-DD'"),
    "W101": ("warning", "broken link", "fix the link target or write the missing concept"),
    "W102": ("warning", "link leaves the bundle", "link only to files inside the bundle"),
    "W103": (
        "warning",
        "unresolved wikilink",
        "create the note it names, fix its spelling, or write it as a markdown link",
    ),
    "W104": ("warning", "broken image link", "fix the image path, or copy the image into the bundle"),
    "W110": ("warning", "index entry points nowhere", "fix or remove the index entry"),
    "W111": ("warning", "index entry points outside the bundle", "list only files inside the bundle"),
    "W112": ("warning", "concept not listed in its directory's index.md", "add an entry for it to index.md"),
    "W113": (
        "warning",
        "index description differs from the concept's description",
        "copy the concept's frontmatter description into the index entry",
    ),
    "W114": ("warning", "duplicate index entry", "remove the repeated entry"),
    "W115": ("warning", "file name okf cannot address", "rename it without backslashes or control characters"),
    "W116": (
        "warning",
        "concept reachable from no index.md",
        "add an index.md to its directory listing it, or list it in an index.md above",
    ),
    "W117": ("warning", "file name not UTF-8", "rename it to a UTF-8 name"),
    "W120": ("warning", "directory wider than the fanout", "group the entries into subdirectories"),
    "W130": ("warning", "missing description", "add a one-line 'description:' to the frontmatter"),
    "W131": ("warning", "deprecated concept", "link to its replacement, or remove it when nothing needs it"),
    "W132": ("warning", "stale concept", "re-verify the concept and move 'stale_after' forward"),
    "W133": ("warning", "optional field has the wrong type", "fix the field's value (kept as written in extra)"),
    "W134": ("warning", "unknown status", "use one of draft, stable, deprecated"),
    "W135": ("warning", "title too long", "shorten the title to 200 characters at most"),
    "W136": (
        "warning",
        "description repeats the title",
        "say in one sentence what the concept states (its lead sentence, defined terms, key figures)",
    ),
    "W137": (
        "warning",
        "Attested Computation without runtime",
        "add 'runtime:' (bigquery, postgres, dbt, python...): OKF §10.2 requires it for this type",
    ),
    "W138": ("warning", "generated without by", "add 'by:' to 'generated' (an actor: okf/1.0, human:id, process:id)"),
    "W139": (
        "warning",
        "timestamp without a UTC offset",
        "write timestamps as ISO 8601 datetimes with an offset, e.g. 2026-06-30T14:00:00Z",
    ),
    "W140": ("warning", "undecodable bytes", "save the file as UTF-8"),
    "W141": ("warning", "frontmatter in log.md", "remove the frontmatter from log.md (OKF §9 has none)"),
    "W142": ("warning", "log.md not newest first", "order the log's date headings newest first (OKF §9)"),
    "W143": ("warning", "UTF-8 byte order mark", "save the file as UTF-8 without a byte order mark"),
    "W144": ("warning", "frontmatter closed with '...'", "close the frontmatter with '---' (OKF §4)"),
    "W145": ("warning", "type is not a string", 'quote the type: type: "..."'),
    "W150": ("warning", "source drift", "recompile with okf compile"),
    "W151": (
        "warning",
        "stale synthesis: a concept it cites changed",
        "ask the question again with okf ask --save to refresh it, or delete the synthesis",
    ),
    "W152": (
        "warning",
        "sources entry without resource",
        "give every sources entry a 'resource' (a URL, a bundle path, or a scope descriptor; OKF §5.1)",
    ),
    "W153": (
        "warning",
        "sources resource not found",
        "fix the path, or recompile so the source is mirrored in the bundle (references/sources/)",
    ),
}


def diagnostic(code: str, path: str, line: int | None, message: str, fix: str | None = None) -> Diagnostic:
    """A Diagnostic for ``code`` with its registered severity and default fix."""
    severity, _name, default_fix = CODES[code]
    return Diagnostic(code=code, severity=severity, path=path, line=line, message=message, fix=fix or default_fix)
