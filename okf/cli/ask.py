"""``okf ask``: a grounded answer citing concepts, with a Sources ledger, or an abstention that says why."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import IO, Any

import click

from okf.answer import ask
from okf.answer.render import (
    render_answer,
    render_facts,
    render_footer,
    render_saved,
    render_tree,
    total_usage,
)
from okf.answer.save import save_answer
from okf.cli.common import (
    LiveLine,
    emit_json,
    json_line,
    json_option,
    notice,
    progress_enabled,
    quiet_option,
    report_options,
    setup_logging,
    show_walk,
    verbose_option,
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
from okf.contract import load_contract
from okf.errors import ConfigError, OKFError
from okf.models import AnswerResult
from okf.navigator import make_budgets
from okf.navigator.api import open_bundles
from okf.settings import EVIDENCE_TOKENS, SYNTHESIS


def _open_log(path: str) -> IO[str]:
    # Opened before any model call, so a bad path fails fast instead of after the answer was paid for.
    try:
        return open(path, "a", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"cannot append to the query log {path}: {exc.strerror or exc}",
            fix="pass --log a writable file path whose folder exists",
        ) from exc


def _open_trace(path: str) -> IO[str]:
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"cannot write the trace {path}: {exc.strerror or exc}",
            fix="pass --trace a writable file path whose folder exists",
        ) from exc


def write_trace(handle: IO[str], result: AnswerResult) -> None:
    """The walk's events, then the synthesis events (decomposition tree, leaves, coverage), as JSON lines."""
    events = list(result.navigation.trace) if result.navigation else []
    events += result.synthesis.trace if result.synthesis else []
    handle.writelines(json_line(e) for e in events)


def log_record(result: AnswerResult, corpus_id: str | None) -> dict[str, Any]:
    """The query-log line for one question: when, what, against which bundle content, outcome and cost."""
    total = total_usage(result)
    return {
        "time": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "question": result.question,
        "corpus_id": corpus_id,
        "reader": result.reader,
        "status": result.status,
        "failed": result.failed,
        "cited": [c.concept_id for c in result.citations],
        "usage": {
            "calls": total.calls,
            "failures": total.failures,
            "prompt_tokens": total.prompt_tokens,
            "completion_tokens": total.completion_tokens,
            "tokens": total.tokens,
        },
    }


@click.command("ask")
@click.argument("bundles", nargs=-1, required=True, type=click.Path(path_type=str))
@click.argument("question")
@json_option
@angles_option
@click.option(
    "--log",
    "log_file",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="FILE",
    help="Append one JSON line per question to FILE (time, question, corpus_id, status, cited ids, "
    "usage totals). Without a compile manifest the corpus id costs a pass over the bundle's files.",
)
@settings_options(EVIDENCE_TOKENS, SYNTHESIS)
@click.option(
    "--trace",
    "trace_file",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="FILE",
    help="Write the walk's decisions and the synthesis tree to FILE as JSON lines.",
)
@click.option(
    "--contract",
    "contract_path",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="FILE",
    help="Check this contract's facts first, in code: on a failed error fact stop with the failures and "
    "call no model; else give the grounded facts to the answerer as evidence (docs/contracts.md).",
)
@click.option(
    "--save",
    is_flag=True,
    help="File an answered or partial answer back into BUNDLE as a Synthesis concept under syntheses/ "
    "(the same question updates it in place); later walks find it like any concept "
    "(docs/ask.md#the-wiki-loop).",
)
@report_options
@budget_options
@reader_options
@quiet_option
@verbose_option
def command(
    bundles: tuple[str, ...],
    question: str,
    as_json: bool,
    log_file: str | None,
    evidence_tokens: int,
    synthesis: str,
    trace_file: str | None,
    contract_path: str | None,
    save: bool,
    report_file: str | None,
    show_trace: bool,
    quiet: bool,
    verbose: int,
    **options: Any,
) -> None:
    """Answer QUESTION from BUNDLE (one or more) with citations it can prove, or abstain and say why.

    Navigates like `okf navigate` (--angles auto by default; several bundles are each a source family),
    gives the shortlisted bodies to the answerer as evidence (within
    --evidence-tokens), then checks the draft in code: citations to anything not given are dropped, an
    uncited answer becomes an abstention, a partial answer says what the evidence does not establish,
    and a rule is shown with the exceptions its source states. Prints the answer with [n] citations,
    the supporting concepts, caveats and a numbered Sources ledger (each cited concept's raw source
    path:lines); a one-line cost footer goes to stderr. With no model configured the offline reader
    answers extractively (it quotes the evidence sentences that carry the question's words).

    Evidence larger than --evidence-tokens is read by recursive synthesis (--synthesis auto): a decomposer
    splits it, leaf workers extract the facts of each slice (every item read, checked in code), and the
    answer is written from the facts; a Synthesis line says what was read and the tree goes to stderr.

    With --contract FILE the contract's facts are checked first with zero model calls: if an error fact
    fails, okf prints the failures and stops (exit 1, no model called); otherwise the grounded facts go to
    the answerer as evidence (ids f1, f2...) and a Facts section lists them. Without a contract the last
    line says the answer has no typed-fact guarantee.

    With --save an answered or partial answer is written into the bundle as syntheses/<slug>.md (type
    Synthesis: title the question, sources the cited concepts with their lines and sha256, the answer and
    its Sources ledger), atomically with syntheses/index.md, the root index.md entry and a log.md line; the
    same question is updated in place, an abstention is not saved. okf check reports a synthesis whose
    cited concepts changed since (W151).

    Exit status: 0 for an answer, a partial answer or an honest abstention; 1 when the model failed
    (the answerer, or navigation found nothing while model calls failed; the error names the HTTP
    status, timeout or unreachable server; the shortlist is still printed) or the contract preflight
    failed; 2 for bad arguments or a malformed contract. See docs/ask.md.

    \b
    Examples:
      okf ask bundles/harborview "How many paid time off days does a new employee get each year?"
      okf ask bundles/harborview "Who approves international travel?" --json | jq '.status, .citations'
      okf ask bundles/harborview "What is the liability cap?" --model gpt-4o-mini --log queries.jsonl
      okf ask bundles/harborview "How many PTO days does a new hire get?" --contract bundles/harborview.contract.yaml
      okf ask bundles/harborview "Who approves international travel?" --report answer.html
      okf ask bundles/harborview "Which policies require manager approval?" --max-shortlist 40 \\
          --evidence-tokens 800 --synthesis recursive --trace ask.jsonl
      cp -r bundles/harborview /tmp/wiki && okf ask /tmp/wiki "Who approves international travel?" --save
      okf ask bundles/harborview bundles/okf-docs "Who approves international travel?" --angles 3
    """
    if not question.strip():
        raise ConfigError("the question is empty", fix='ask a question in words, e.g. "How are refunds handled?"')
    setup_logging(quiet, verbose)
    budgets = make_budgets(budgets_from_options(options))
    angles = angles_from_options(options)
    contract = load_contract(contract_path) if contract_path else None  # malformed: exit 2 before any work
    several = open_bundles(list(bundles))
    if len(several) > 1 and (save or contract is not None):
        raise ConfigError(
            f"{'--save' if save else '--contract'} works on one bundle, and {len(several)} were given",
            fix="ask one bundle, or leave the option out",
        )
    opened = several[0]
    reader = reader_from_options(**options)
    log = _open_log(log_file) if log_file else None
    trace = _open_trace(trace_file) if trace_file else None
    live = LiveLine() if progress_enabled(quiet, as_json) else None
    save_error: OKFError | None = None
    try:
        try:
            result = ask(
                several,
                question,
                reader=reader,
                budgets=budgets,
                evidence_tokens=evidence_tokens,
                progress=live,
                contract=contract,
                synthesis=synthesis,
                angles=angles,
            )
        finally:
            if live is not None:
                live.close()
        # The log names the content read even without a compile manifest: that hashes the bundle's files
        # once (then cached by file identity, okf.bundle.identity), after the answer and before any save.
        log_corpus_id = (result.corpus_id or opened.corpus_id()) if log is not None else None
        if save:
            try:
                result.saved = save_answer(opened, result)
            except OKFError as exc:  # the answer is shown anyway; the error follows it (exit 1)
                save_error = exc
        if log is not None:
            log.write(json_line(log_record(result, log_corpus_id)))
        if trace is not None:
            write_trace(trace, result)
    finally:
        if log is not None:
            log.close()
        if trace is not None:
            trace.close()
    if as_json:
        emit_json(result)
    else:
        click.echo(render_answer(result))
        click.echo("\n" + render_facts(result))
    if result.synthesis is not None and result.synthesis.mode == "recursive":
        notice(render_tree(result.synthesis), quiet=quiet)
    notice(click.style(render_footer(result), dim=True), quiet=quiet)
    if result.saved is not None:
        notice(render_saved(result.saved), quiet=quiet)
    show_walk(result, report_file=report_file, show_trace=show_trace, bundle=opened, quiet=quiet)
    if save_error is not None:
        raise save_error
    if result.failed:
        notice(f"Error: {result.reason}", quiet=False)
        raise SystemExit(1)
    if result.contract is not None and not result.contract.ok:
        notice(f"Error: {result.reason}", quiet=False)
        raise SystemExit(1)
