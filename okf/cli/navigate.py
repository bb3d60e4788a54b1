"""``okf navigate``: the shortlist of concepts that answer a question, with receipts and a decision trace."""

from __future__ import annotations

import json
from typing import IO, Any

import click

from okf.bundle import Bundle
from okf.cli.common import (
    LiveLine,
    emit_json,
    json_option,
    notice,
    progress_enabled,
    quiet_option,
    report_options,
    show_walk,
    setup_logging,
    verbose_option,
)
from okf.cli.options import budget_options, budgets_from_options, reader_from_options, reader_options
from okf.errors import ConfigError
from okf.models import NavigationResult, ShortlistEntry
from okf.navigate import make_budgets, navigate
from okf.navigate.trace import nothing_found_reason

_POSITIVE = click.IntRange(min=1)
_STOPS = {
    "bodies": "the bodies budget (--max-bodies)",
    "shortlist": "a full shortlist (--max-shortlist)",
    "depth": "the depth bound (--max-depth)",
    "calls": "the calls budget (--max-calls)",
    "tokens": "the tokens budget (--max-tokens)",
    "deadline": "the deadline (--deadline)",
}


def _flags(entry: ShortlistEntry) -> str:
    flags = [entry.type or "concept"]
    if entry.status != "stable":
        flags.append(entry.status.upper() if entry.status == "deprecated" else entry.status)
    if entry.stale:
        flags.append("STALE")
    flags.append(entry.trust_tier)
    if entry.via == "link":
        flags.append("via link")
    return ", ".join(flags)


def _render(result: NavigationResult) -> None:
    if not result.shortlist:
        click.echo("No relevant concept found." if not result.stats.failures else
                   "No concept found, and model calls failed: the bundle was not fully read (see the error).")
    for n, entry in enumerate(result.shortlist, start=1):
        r = entry.receipt
        click.echo(f"{n}. {entry.title}  [{entry.concept_id}]  ({_flags(entry)})")
        if entry.reason:
            click.echo(f"   why: {entry.reason}")
        truncated = ", truncated" if r.truncated else ""
        click.echo(f"   {r.path}:{r.start_line}-{r.end_line}  ({r.evidence_id}{truncated})")
    stats, total = result.stats, result.stats.total
    stopped = f"stopped by {_STOPS[result.stopped_by]}" if result.stopped_by else "finished"
    failed = f", {stats.failures} failed" if stats.failures else ""
    # No bundle-wide concept count here: on a large bundle counting would cost more than the walk did.
    click.echo(f"{stats.bodies_judged} of {stats.candidates} candidate bodies judged "
               f"({stats.directories_opened} directories opened), "
               f"{total.calls} calls{failed}, {total.tokens} tokens, {stats.seconds:.2f}s, {stopped}, "
               f"reader: {result.reader}")


def _open_trace(path: str) -> IO[str]:
    # Opened before the walk, so a bad path fails before any model call is paid for.
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write the trace file {path}: {exc.strerror or exc}",
                          fix="pass --trace a writable file path whose folder exists") from exc


def _write_trace(handle: IO[str], result: NavigationResult) -> None:
    handle.writelines(json.dumps(event.model_dump(mode="json"), ensure_ascii=False) + "\n" for event in result.trace)


@click.command("navigate")
@click.argument("bundle", type=click.Path(path_type=str))
@click.argument("question")
@json_option
@click.option("--trace", "trace_file", type=click.Path(dir_okay=False, path_type=str),
              help="Write every decision of the walk to FILE as JSON lines.")
@report_options
@budget_options
@reader_options
@quiet_option
@verbose_option
def command(bundle: str, question: str, as_json: bool, trace_file: str | None, report_file: str | None,
            show_trace: bool, quiet: bool, verbose: int, **options: Any) -> None:
    """Find the concepts of BUNDLE that answer QUESTION, by reading signposts then bodies (no embeddings).

    The selector reads directory signposts and opens the promising subtrees (siblings concurrently); the
    judge reads the bodies of their concepts in parallel batches; links of relevant concepts are followed.
    Prints the shortlist (title, id, type, status and trust flags, the judge's reason, path:lines of the
    text judged) and a summary. Exit status 1 when nothing was found while model calls failed (the error
    names them: HTTP status, timeout, unreachable server); a shortlist found despite some failures exits 0
    with warnings. See docs/navigate.md and docs/reliability.md.

    \b
    Examples:
      okf navigate bundles/harborview "How many vacation days do new hires get?"
      okf navigate bundles/harborview "Who approves refunds?" --max-bodies 40 --trace walk.jsonl
      okf navigate bundles/harborview "Who approves refunds?" --json | jq '.shortlist[].concept_id'
      okf navigate bundles/harborview "Who approves international travel?" --show-trace --report walk.html
    """
    setup_logging(quiet, verbose)
    budgets = make_budgets(budgets_from_options(options))
    opened = Bundle.open(bundle)
    reader = reader_from_options(**options)
    trace = _open_trace(trace_file) if trace_file else None
    live = LiveLine() if progress_enabled(quiet) else None
    try:
        try:
            result = navigate(opened, question, reader=reader, budgets=budgets, progress=live)
        finally:
            if live is not None:
                live.close()
        if trace is not None:
            _write_trace(trace, result)
    finally:
        if trace is not None:
            trace.close()
    if as_json:
        emit_json(result)
    else:
        _render(result)
    show_walk(result, report_file=report_file, show_trace=show_trace, bundle=opened, quiet=quiet)
    for warning in result.warnings:
        notice(f"warning: {warning}", quiet=quiet)
    if result.stats.failures and not result.shortlist:
        notice(f"Error: {nothing_found_reason(result)}", quiet=False)
        raise SystemExit(1)
