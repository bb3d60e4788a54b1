"""``okf comply``: judge a document against requirements, violations first, with both-sided citations."""

from __future__ import annotations

import sys
from typing import Any

import click

from okf.cli.common import (
    LiveLine,
    emit_json,
    json_option,
    notice,
    progress_enabled,
    quiet_option,
    setup_logging,
    verbose_option,
)
from okf.cli.options import (
    assess_model_option,
    budget_options,
    budgets_from_options,
    extract_model_option,
    extraction_reader_from_options,
    reader_options,
    settings_options,
)
from okf.cli.progress import StageProgress
from okf.compliance import SubjectText, comply
from okf.compliance.render import render_result
from okf.errors import ConfigError
from okf.navigator import make_budgets
from okf.settings import MAX_REQUIREMENTS_SETTING

# The work after navigation, one bar each (okf.compliance.pipeline.Stages).
_STAGES = {
    "sections": ("Reading sections", " sections"),
    "applicability": ("Deciding applicability", " batches"),
    "judging": ("Judging requirements", " requirements"),
}


@click.command("comply")
@click.argument("subject", type=click.Path(dir_okay=False, allow_dash=True, path_type=str))
@click.option(
    "--requirements",
    "requirements_file",
    metavar="FILE.jsonl",
    default=None,
    type=click.Path(dir_okay=False, path_type=str),
    help="Requirements written by okf requirements -o.",
)
@click.option(
    "--bundle",
    metavar="BUNDLE",
    default=None,
    type=click.Path(path_type=str),
    help="Find the requirements by navigating this bundle with --question (or the subject's title).",
)
@click.option(
    "--question",
    "-Q",
    metavar="TEXT",
    default=None,
    help="What to check (with --bundle it steers navigation; with --requirements the model's "
    "applicability decisions see it).",
)
@settings_options(MAX_REQUIREMENTS_SETTING)
@json_option
@budget_options
@reader_options
@extract_model_option
@assess_model_option
@quiet_option
@verbose_option
def command(
    subject: str,
    requirements_file: str | None,
    bundle: str | None,
    question: str | None,
    max_requirements: int,
    as_json: bool,
    quiet: bool,
    verbose: int,
    **options: Any,
) -> None:
    """Judge SUBJECT (a document, or - for stdin) against requirements: violation, needs_review or compliant.

    Each requirement is first decided on its own: does it plausibly apply to the subject? Each that does is
    judged: violation (the subject text shows the breach), needs_review (it applies but the text does not
    show enough) or compliant (clearly met, or it does not bite). Anything else a model answers, and any
    failed judgment, is needs_review: that default is in code. Each finding carries both citations: the
    subject lines (file, line range, sha256) and the requirement's clause (receipt). The roll-up lists
    violations first. The offline reader is conservative: needs_review unless a subject sentence states the
    required or prohibited act in the requirement's own words.

    Exit status: 0 when no violation is found, 1 when one is (or the command failed), 2 for bad arguments.
    See docs/compliance.md.

    \b
    Examples:
      okf requirements bundles/harborview --under policies -o /tmp/harborview-policies.jsonl
      okf comply examples/compliance/northwind-freight-services-agreement.md --requirements /tmp/harborview-policies.jsonl
      okf comply examples/compliance/northwind-freight-services-agreement.md --bundle bundles/harborview \\
          --question "What must a vendor contract with a motor carrier provide?" --json
    """
    if (requirements_file is None) == (bundle is None):
        raise ConfigError(
            "give exactly one of --requirements FILE.jsonl and --bundle BUNDLE",
            fix="extract requirements with okf requirements BUNDLE -o FILE.jsonl, or name a bundle",
        )
    budgets = make_budgets(budgets_from_options(options))
    setup_logging(quiet, verbose)
    reader, cache = extraction_reader_from_options(**options)
    target: Any = SubjectText(name="<stdin>", text=sys.stdin.read()) if subject == "-" else subject
    shown = progress_enabled(quiet, as_json)
    live = LiveLine() if bundle and shown else None
    bars = StageProgress(_STAGES) if shown else None

    def stages(stage: str, done: int, total: int) -> None:
        nonlocal live
        if live is not None:  # the walk is over: its counter ends where the stage bars begin
            live.close()
            live = None
        if bars is not None:
            bars(stage, done, total)

    try:
        result = comply(
            target,
            requirements=requirements_file,
            bundle=bundle,
            question=question,
            reader=reader,
            budgets=budgets,
            max_requirements=max_requirements,
            cache=cache,
            progress=live,
            stages=stages,
        )
    finally:
        if live is not None:
            live.close()
        if bars is not None:
            bars.close()
    if as_json:
        emit_json(result.model_copy(update={"navigation": None}))
    else:
        click.echo(render_result(result))
    for warning in result.warnings:
        notice(f"Warning: {warning}", quiet=quiet)
    if result.violations:
        raise SystemExit(1)
