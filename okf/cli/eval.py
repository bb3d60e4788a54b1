"""``okf eval``: score a bundle's shortlists against gold source spans, with costs and loss attribution."""

from __future__ import annotations

from collections.abc import Callable
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
)
from okf.cli.options import (
    angles_from_options,
    angles_option,
    budget_options,
    budgets_from_options,
    reader_from_options,
    reader_options,
    settings_options,
)
from okf.cli.progress import StageProgress
from okf.errors import ConfigError
from okf.eval import EvalQuestion, QuestionResult, evaluate
from okf.eval.render import render
from okf.models import NavigationResult
from okf.settings import EVAL_SETTINGS
from okf.trace.load import walk_file_name


@click.command("eval")
@click.argument("bundle", type=click.Path(path_type=str))
@click.argument("questions", type=click.Path(path_type=str))
@json_option
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Also print one line per question, and model retries and failures on stderr as they happen.",
)
@settings_options(*EVAL_SETTINGS)
@click.option(
    "--walks",
    "walks_dir",
    type=click.Path(file_okay=False, path_type=str),
    metavar="DIR",
    help="Save every question's navigation (shortlist, receipts, trace) as DIR/<question id>.json, "
    "for `okf report --walks DIR` and `okf trace`.",
)
@angles_option
@budget_options
@reader_options
@quiet_option
def command(
    bundle: str,
    questions: str,
    as_json: bool,
    verbose: bool,
    limit: int | None,
    sample: int | None,
    seed: int,
    parallel: int,
    walks_dir: str | None,
    quiet: bool,
    **options: Any,
) -> None:
    """Navigate every question of QUESTIONS (a JSONL file) in BUNDLE and score the shortlists against gold.

    A shortlisted concept hits a gold span when its `sources` provenance names the same source file with
    overlapping lines, so scores do not depend on how the bundle was cut. Prints recall (some / all gold
    spans hit), gold coverage, shortlist precision, bodies judged, calls, tokens and time, and for every
    missed gold span the stage of the walk where it was lost; with --angles (auto by default) also the walks
    per question and why the orchestrations stopped. Metrics and loss stages: docs/evaluation.md.

    \b
    Examples:
      okf eval bundles/harborview bundles/sources/harborview-questions.jsonl --sample 10
      okf eval bundles/harborview bundles/sources/harborview-questions.jsonl --max-bodies 40 --verbose
      okf eval bundles/harborview bundles/sources/harborview-questions.jsonl --json --walks walks/ > report.json
      okf eval bundles/harborview bundles/sources/harborview-questions.jsonl --model gpt-4o-mini --base-url http://localhost:8000/v1 --parallel 4
      okf eval bundles/harborview bundles/sources/harborview-questions.jsonl --angles off
    """
    setup_logging(quiet, int(verbose))
    budgets = budgets_from_options(options)
    angles = angles_from_options(options)
    reader = reader_from_options(**options)
    bar = StageProgress({"questions": ("Evaluating", " questions")}) if progress_enabled(quiet, as_json) else None
    hits = 0

    def progress(done: int, total: int, result: QuestionResult) -> None:
        nonlocal hits
        hits += result.recall_any
        if bar is not None:
            # The running recall tells early whether a long run is worth waiting for.
            bar("questions", done, total, note=f"recall so far {hits / done:.0%}")

    try:
        report = evaluate(
            bundle,
            questions,
            reader=reader,
            budgets=budgets or None,
            sample=sample,
            seed=seed,
            limit=limit,
            concurrency=parallel,
            progress=progress,
            on_walk=_walk_saver(walks_dir) if walks_dir else None,
            angles=angles,
        )
    finally:
        if bar is not None:
            bar.close()
    if as_json:
        emit_json(report)
        for warning in report.warnings:
            notice(printable(f"warning: {warning}"), quiet=quiet)
    else:
        click.echo(render(report, verbose=verbose))


def _walk_saver(folder: str) -> Callable[[EvalQuestion, NavigationResult], None]:
    """Write each question's navigation to ``folder/<safe id>.json`` (made before any question runs)."""
    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"cannot create {folder}: {exc.strerror or exc}", fix="pass --walks a writable folder"
        ) from None

    def save(question: EvalQuestion, result: NavigationResult) -> None:
        (target / f"{walk_file_name(question.id)}.json").write_text(result.model_dump_json(), encoding="utf-8")

    return save
