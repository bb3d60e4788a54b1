"""``okf requirements``: the operative rules of a bundle's sections, as JSON lines or for reading."""

from __future__ import annotations

from functools import partial
from typing import Any

import click

from okf.bundle import Bundle
from okf.cli.common import (
    emit_json,
    json_option,
    notice,
    progress_enabled,
    quiet_option,
    setup_logging,
    verbose_option,
)
from okf.cli.options import extract_model_option, extraction_reader_from_options, reader_options, settings_options
from okf.cli.progress import StageProgress
from okf.requirements import extract_requirements, write_requirements
from okf.requirements.render import render_requirement, render_summary
from okf.settings import MODE


@click.command("requirements")
@click.argument("bundle", type=click.Path(path_type=str))
@click.option(
    "--under",
    metavar="DIR",
    default=None,
    help="Only the sections under this bundle directory (or this one concept), e.g. policies/.",
)
@click.option(
    "-o",
    "--output",
    metavar="FILE.jsonl",
    type=click.Path(dir_okay=False, path_type=str),
    default=None,
    help="Write one requirement per line to FILE (atomically); stdout then gets the summary.",
)
@settings_options(MODE)
@json_option
@reader_options
@extract_model_option
@quiet_option
@verbose_option
def command(
    bundle: str,
    under: str | None,
    output: str | None,
    mode: str,
    as_json: bool,
    quiet: bool,
    verbose: int,
    **options: Any,
) -> None:
    """Extract the operative rules (obligations, prohibitions, permissions) of BUNDLE's sections.

    Each rule: its sentence, deontic type (obligation / prohibition / permission; anything a model says
    outside those is ambiguous), the actor it binds, applicability ('dimension: value' conditions), an
    evidence standard, and a citation (concept, file lines, sha256 of those lines) with a content-hash id
    that stays the same across recompiles while the text does. Definitions and purpose statements are not
    rules. With no model configured, the offline reader reads the modal structure of each sentence (must,
    shall, is required to, must not, may not, may, ...). With a model (--extract-model or --model), long
    sections are read skeleton-then-fill and results are cached by section text, so a recompile re-reads
    only what changed.

    Exit status: 0, or 1 when a section could not be read (the others are still written); 2 for bad arguments.
    See docs/compliance.md.

    \b
    Examples:
      okf requirements bundles/harborview --under policies
      okf requirements bundles/harborview --under policies -o /tmp/harborview-policies.jsonl
      okf requirements bundles/harborview --under policies/procurement --json | jq '.requirements[0]'
    """
    setup_logging(quiet, verbose)
    reader, cache = extraction_reader_from_options(**options)
    opened = Bundle.open(bundle)
    bar = StageProgress({"sections": ("Reading sections", " sections")}) if progress_enabled(quiet, as_json) else None
    try:
        result = extract_requirements(
            opened,
            under=under,
            reader=reader,
            cache=cache,
            mode=mode,
            progress=None if bar is None else partial(bar, "sections"),
        )
    finally:
        if bar is not None:
            bar.close()
    if output:
        count = write_requirements(result.requirements, output)
        if as_json:
            emit_json(
                {
                    "output": output,
                    "written": count,
                    "stats": result.stats.model_dump(),
                    "failures": [f.model_dump() for f in result.failures],
                    "reader": result.reader,
                }
            )
        else:
            click.echo(f"{render_summary(result)}\nwrote {count} requirements to {output}")
    elif as_json:
        emit_json(result)
    else:
        for requirement in result.requirements:
            click.echo(render_requirement(requirement))
        notice(render_summary(result), quiet=quiet)
    for failure in result.failures:
        notice(f"Error: {failure.concept_id} ({failure.stage}): {failure.error}", quiet=False)
    if result.failures:
        raise SystemExit(1)
