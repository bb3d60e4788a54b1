"""``okf report``: an evaluation (``okf eval --json``) as one self-contained HTML page."""

from __future__ import annotations

import click

from okf.cli.common import emit_json, json_option, notice, quiet_option


@click.command("report")
@click.argument(
    "evals", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=str), metavar="EVAL.json..."
)
@click.option(
    "--html",
    "html_out",
    required=True,
    type=click.Path(dir_okay=False, path_type=str),
    metavar="OUT.html",
    help="The page to write.",
)
@click.option(
    "--baselines",
    type=click.Path(dir_okay=False, path_type=str),
    default=None,
    metavar="FILE",
    help='Reference points for the charts: a JSON list of {"name", "recall_any", "bodies_mean", "words_mean"}.',
)
@click.option(
    "--walks",
    "walks_dir",
    type=click.Path(file_okay=False, path_type=str),
    default=None,
    metavar="DIR",
    help="Walks saved by `okf eval --walks DIR`: each missed question links to a page of "
    "its walk, written into OUT-walks/.",
)
@click.option(
    "--bundle",
    type=click.Path(path_type=str),
    default=None,
    help="Bundle to read receipt lines from for the walk pages (default: the evaluated one).",
)
@json_option
@quiet_option
def command(
    evals: tuple[str, ...],
    html_out: str,
    baselines: str | None,
    walks_dir: str | None,
    bundle: str | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Write the evaluation in EVAL.json (from `okf eval --json`) as a page: summary, recall against bodies
    and words read beside the baselines, loss attribution as a bar per stage, and the missed questions, each
    linking to its walk. Further EVAL files (the same questions at other budgets) join the charts.

    The page and the walk pages load nothing from the network and escape every string. --json prints
    what was written. See docs/evaluation.md, "The report page".

    \b
    Examples:
      okf eval bundles/harborview bundles/sources/harborview-questions.jsonl --json --walks walks/ > eval.json
      okf report eval.json --html eval.html --walks walks/
    """
    from okf.report import write_eval_report  # Jinja2 only when a page is made

    written = write_eval_report(list(evals), html_out, baselines=baselines, walks_dir=walks_dir, bundle=bundle)
    if as_json:
        emit_json(written)
    else:
        notice(
            f"wrote {written['report']} and {len(written['walks'])} walk page(s) ({written['bytes'] / 1024:.0f} KB)",
            quiet=quiet,
        )
