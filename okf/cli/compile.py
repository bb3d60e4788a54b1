"""``okf compile``: sources to an OKF v0.2 bundle, incrementally and atomically."""

from __future__ import annotations

import atexit
import gc
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from okf.cli.common import (
    emit_json,
    json_option,
    notice,
    printable,
    progress_enabled,
    quiet_option,
    setup_logging,
    verbose_option,
)
from okf.cli.options import compile_setting_options, describer_options, reader_config_from_options
from okf.cli.progress import StageProgress
from okf.compile import CompileOptions, CompileReport, compile_bundle
from okf.errors import ConfigError

_STAGES = {
    "files": ("Compiling", " files"),
    "describe": ("Describing concepts", " model calls"),
    "titles": ("Titling groups", " model calls"),
}


def _timestamp(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ConfigError(
            f"--timestamp {value!r} is not an ISO 8601 datetime", fix="use a form like 2026-01-31T12:00:00Z"
        ) from exc
    return at if at.tzinfo else at.replace(tzinfo=UTC)


@click.command("compile")
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path), help="Bundle folder to write.")
@compile_setting_options
@click.option("--force", is_flag=True, help="Rebuild every source even when unchanged.")
@click.option(
    "--timestamp",
    default=None,
    metavar="ISO",
    help="generated.at and log date (default: SOURCE_DATE_EPOCH, else now) for reproducible bundles.",
)
@click.option("--title", default=None, help="Title of the root index.md (default: from the output name).")
@click.option(
    "--sources-url",
    default=None,
    metavar="BASE",
    help="Cite sources as BASE/<path> (sources published elsewhere) instead of copying them into the "
    "bundle under references/sources/.",
)
@click.option(
    "--no-copy-sources",
    is_flag=True,
    help="Do not copy sources into the bundle: concepts cite paths under the compiled folder, which no "
    "consumer can follow once the bundle moves (a warning says so each compile).",
)
@describer_options
@json_option
@quiet_option
@verbose_option
def command(
    sources: tuple[Path, ...],
    output: Path,
    max_words: int,
    max_chars: int,
    fanout: int,
    force: bool,
    timestamp: str | None,
    title: str | None,
    sources_url: str | None,
    no_copy_sources: bool,
    as_json: bool,
    quiet: bool,
    verbose: int,
    offline: bool,
    no_cache: bool,
    **options: Any,
) -> None:
    """Compile markdown, text, HTML and PDF files into an OKF bundle.

    Each source document becomes a directory of concepts, one per section, nested along the document's
    own headings or numbering (a document that is one concept becomes one concept file). Sources are copied
    into the bundle under references/sources/ (with the images and files they link to) and cited there, so
    the bundle is self-contained; a source's own frontmatter (title, type, description, tags...) is kept.
    Every concept gets
    a description and key terms (tags); every index.md entry says what lies below in content words and key
    terms; a folder of more documents than --fanout is grouped by topic. Recompiling rebuilds only changed sources; the output is replaced
    atomically, so an interrupted compile leaves the previous bundle intact. Beside the bundle, OUTPUT.okf-spare
    keeps the previous tree for the next compile to reuse (safe to delete); inside it,
    .okf/stat-cache.json holds per-machine file stats (keep it out of version control).

    With a model (--model, --describe-model, OKF_MODEL or a config file), the model writes each concept's
    description and tags and each group's title; an unchanged concept is never asked again (a cache keyed by
    its text), a failed or invalid reply keeps the extractive text and is counted in log.md. See
    docs/compile.md and docs/models.md.

    \b
    Examples:
      okf compile docs/ -o /tmp/okf-docs
      okf compile bundles/sources/harborview examples/compliance -o /tmp/harborview --max-words 800 --fanout 30
      okf compile docs/ -o /tmp/okf-docs --json --quiet
      okf compile docs/ -o /tmp/okf-docs --sources-url https://example.com/docs
      okf compile docs/ -o /tmp/okf-docs --model qwen2.5:7b-instruct --base-url http://localhost:11434/v1
    """
    if sources_url is not None and not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://\S+$", sources_url):
        raise click.BadParameter(
            f"{sources_url!r} is not an absolute URL (https://host/path)", param_hint="--sources-url"
        )
    if sources_url and no_copy_sources:
        raise click.UsageError(
            "--sources-url and --no-copy-sources exclude each other: a URL base already means "
            "the sources are not copied"
        )
    # At exit the interpreter's last collection walks every object the compile left (its term tables, the
    # readers' and stemmer's caches: 0.5 to 0.7 s on hotpotqa-dev); frozen, they are skipped and the process
    # ends once its output is out. At exit only: a process that compiles and goes on keeps collecting.
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    setup_logging(quiet, verbose)
    compile_options = CompileOptions(
        max_words=max_words,
        max_chars=max_chars,
        fanout=fanout,
        force=force,
        timestamp=_timestamp(timestamp),
        title=title,
        copy_sources=not no_copy_sources,
        sources_url=sources_url,
    )
    describer, cache = _describer(offline, no_cache, options)
    progress = StageProgress(_STAGES) if progress_enabled(quiet, as_json) else None
    try:
        report = compile_bundle(
            list(sources), output, options=compile_options, progress=progress, describer=describer, cache=cache
        )
    finally:
        if progress is not None:
            progress.close()
    for skipped in report.skipped:
        notice(printable(f"skipped {skipped.path}: {skipped.reason}"), quiet=quiet)
    for warning in report.warnings:
        notice(printable(f"warning: {warning}"), quiet=quiet)
    if as_json:
        emit_json(report)
        return
    if not report.changed:
        click.echo(
            f"{report.output}: up to date ({report.concepts} concepts from {report.sources} sources, "
            f"{report.seconds:.2f}s)"
        )
        return
    click.echo(
        f"{report.output}: {report.concepts} concepts from {report.sources} sources "
        f"({report.created} created, {report.updated} updated, {report.removed} removed, "
        f"{report.unchanged} unchanged; {report.bytes} bytes in {report.seconds:.2f}s)"
    )
    _echo_model(report)


def _describer(offline: bool, no_cache: bool, options: dict[str, Any]) -> tuple[Any, Any]:
    """The describer the options ask for (an LLMReader; None for the extractive compile) and its cache."""
    if offline:
        return None, None
    config = reader_config_from_options(**options)
    if config.profile("describer") is None:
        return None, None
    from okf.compile.model_cache import DescriptionCache
    from okf.readers.factory import make_reader

    return make_reader(config.only("describer")), None if no_cache or not config.cache else DescriptionCache()


def _echo_model(report: CompileReport) -> None:
    model = report.model
    if model is None or not (model.concepts or model.groups or model.concepts_failed or model.groups_failed):
        return
    kept = model.concepts_failed + model.groups_failed
    click.echo(
        f"{model.describer}: {model.concepts} concepts described ({model.concepts_cached} from cache), "
        f"{model.groups} groups titled ({model.groups_cached} from cache), {kept} kept extractive; "
        f"{model.usage.calls} calls, {model.usage.tokens} tokens"
    )
