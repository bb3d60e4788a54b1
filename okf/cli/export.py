"""``okf export``: publish a bundle as llms.txt (with llms-full.txt and .md files) or as a static HTML site."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import click

from okf.cli.common import emit_json, json_option, notice, printable, progress_enabled, quiet_option
from okf.cli.flags import settings_options
from okf.cli.progress import StageProgress
from okf.errors import ConfigError
from okf.export import ExportReport, export_llms_txt, export_site
from okf.setting import EXPORT_MAX_BYTES


def _as_of(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ConfigError(
            f"--as-of {value!r} is not a date", fix="give it as YYYY-MM-DD, e.g. --as-of 2026-01-01"
        ) from None


_STAGES = {"concepts": ("Reading concepts", " concepts"), "pages": ("Rendering pages", " pages")}


def _run(export: Callable[..., ExportReport], quiet: bool, as_json: bool, **options: Any) -> ExportReport:
    """``export(**options)`` with a progress bar on stderr (a terminal, not --quiet or --json)."""
    bar = StageProgress(_STAGES) if progress_enabled(quiet, as_json) else None
    try:
        return export(progress=bar, **options)
    finally:
        if bar is not None:
            bar.close()


def _done(report: ExportReport, as_json: bool, quiet: bool) -> None:
    if as_json:
        emit_json(report)
        return
    full = f", {report.full_concepts} in llms-full.txt" if report.full_concepts is not None else ""
    click.echo(
        f"exported {report.concepts} concepts ({report.optional} deprecated or stale{full}) to "
        f"{report.output}: {report.files} files, {report.written} written, {report.unchanged} unchanged, "
        f"{report.removed} removed, {report.seconds:.2f}s"
    )
    for warning in report.warnings:
        notice(printable(f"warning: {warning}"), quiet=quiet)


_OUT = click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=str),
    metavar="DIR",
    help="Folder to write (created; files of a previous export there are updated).",
)
_AS_OF = click.option(
    "--as-of",
    default=None,
    metavar="YYYY-MM-DD",
    help="Judge stale_after against this date (default today), for reproducible output.",
)
_TITLE = click.option("--title", default=None, help="Title (default: the root index.md's heading).")


@click.group("export")
def command() -> None:
    """Publish BUNDLE for agents and people that do not speak OKF: llms.txt or a static HTML site.

    Both outputs are deterministic (the same bundle and --as-of date give byte-identical files) and
    incremental: files whose bytes did not change are not rewritten, files of concepts that disappeared
    since the last export into the same folder are removed. See docs/export.md.

    \b
    Examples:
      okf export llms-txt bundles/harborview -o /tmp/harborview-llms
      okf export llms-txt bundles/harborview -o /tmp/harborview-llms --base-url https://docs.example.com/hv --max-bytes 200000
      okf export site bundles/harborview -o /tmp/harborview-site
    """


@command.command("llms-txt")
@click.argument("bundle", type=click.Path(path_type=str))
@_OUT
@click.option(
    "--base-url",
    default=None,
    metavar="URL",
    help="Make links absolute under URL (where DIR will be served); default relative links.",
)
@settings_options(EXPORT_MAX_BYTES)
@_AS_OF
@_TITLE
@json_option
@quiet_option
def llms_txt(
    bundle: str,
    out: str,
    base_url: str | None,
    max_bytes: int | None,
    as_of: str | None,
    title: str | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Write llms.txt (an index of the bundle's concepts by top-level directory, deprecated and stale ones under
    Optional), llms-full.txt (every current concept's text, in signpost order, each under its id and source
    lines) and each concept's .md file into DIR.

    \b
    Examples:
      okf export llms-txt bundles/harborview -o /tmp/harborview-llms
      okf export llms-txt bundles/harborview -o /tmp/hv --base-url https://docs.example.com/hv --json
    """
    if base_url is not None and not base_url.strip():
        raise ConfigError("--base-url is empty", fix="pass the URL DIR will be served at, e.g. https://example.com/kb")
    report = _run(
        export_llms_txt,
        quiet,
        as_json,
        bundle=bundle,
        out=out,
        base_url=base_url,
        max_bytes=max_bytes,
        as_of=_as_of(as_of),
        title=title,
    )
    _done(report, as_json, quiet)


@command.command("site")
@click.argument("bundle", type=click.Path(path_type=str))
@_OUT
@_AS_OF
@_TITLE
@json_option
@quiet_option
def site(bundle: str, out: str, as_of: str | None, title: str | None, as_json: bool, quiet: bool) -> None:
    """Write a static HTML site of BUNDLE into DIR: DIR/index.html is the root's page, one page per directory and
    per concept, the signposts as navigation, links between concepts rewritten, frontmatter as a table,
    deprecated and stale concepts marked. No script, nothing fetched, every bundle string escaped.

    \b
    Examples:
      okf export site bundles/harborview -o /tmp/harborview-site
    """
    report = _run(export_site, quiet, as_json, bundle=bundle, out=out, as_of=_as_of(as_of), title=title)
    _done(report, as_json, quiet)
