"""``okf trace``: see a walk as a terminal tree, or as one self-contained HTML page."""

from __future__ import annotations

import json
import sys

import click

from okf.cli.common import json_option, notice, quiet_option
from okf.cli.options import settings_options
from okf.settings import TRACE_DEPTH, TRACE_ONLY
from okf.trace import load_walk, render_tree
from okf.trace.tree import fold


def color_wanted(color: bool | None, stream: object) -> bool:
    """``--color``/``--no-color`` when given, else colours only on a terminal (and never with NO_COLOR set)."""
    if color is not None:
        return color
    import os

    return bool(getattr(stream, "isatty", lambda: False)()) and not os.environ.get("NO_COLOR")


@click.command("trace")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option(
    "--html",
    "html_out",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="OUT.html",
    help="Write the walk as one self-contained HTML page instead of printing the tree.",
)
@click.option(
    "--bundle",
    type=click.Path(path_type=str),
    default=None,
    help="Bundle to read receipt lines from for --html (default: the one the file names).",
)
@settings_options(TRACE_DEPTH, TRACE_ONLY)
@click.option("--color/--no-color", default=None, help="Colours (default: only when stdout is a terminal).")
@json_option
@quiet_option
def command(
    file: str,
    html_out: str | None,
    bundle: str | None,
    depth: int | None,
    only: str | None,
    color: bool | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Show the walk in FILE: a trace (`okf navigate --trace FILE`) or a saved result (`okf navigate --json`,
    `okf ask --json`, a walk saved by `okf eval --walks DIR`).

    The tree lists each directory with the signposts offered there, kept or passed over by the selector (with
    its reason), the concepts judged (relevant, partial, not relevant or failed, with the judge's reason), the
    links followed, the failures and warnings, and what ended the walk. --html writes the same walk as one
    HTML page that needs no network: the question, the answer with clickable citations showing the exact
    lines read, the collapsible tree with counts and timings, budget gauges and model usage per role.
    --json prints the folded tree. See docs/navigate.md, "Seeing the walk".

    \b
    Examples:
      okf navigate bundles/harborview "Who approves international travel?" --trace walk.jsonl -q
      okf trace walk.jsonl
      okf trace walk.jsonl --only relevant --depth 2
      okf ask bundles/harborview "Who approves international travel?" --json > answer.json
      okf trace answer.json --html answer.html
    """
    record = load_walk(file)
    if html_out:
        from okf.report import walk_page, write_html  # Jinja2 only when a page is asked for

        size = write_html(html_out, walk_page(record, bundle=bundle))
        notice(f"wrote {html_out} ({size / 1024:.0f} KB)", quiet=quiet)
        return
    if as_json:
        click.echo(json.dumps(fold(record.events).to_dict(), indent=2, ensure_ascii=False))
        return
    click.echo(
        render_tree(
            record,
            depth=depth,
            only=only,  # type: ignore[arg-type]
            color=color_wanted(color, sys.stdout),
        ),
        color=color_wanted(color, sys.stdout),
    )
