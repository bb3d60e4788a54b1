"""``okf mcp``: serve bundles to agents as a Model Context Protocol server over stdio."""

from __future__ import annotations

from typing import Any

import click

from okf.cli.common import notice, quiet_option, setup_logging, verbose_option
from okf.cli.options import assess_model_option, extract_model_option, reader_from_options, reader_options


@click.command("mcp")
@click.argument("bundles", nargs=-1, required=True, type=click.Path(file_okay=True, dir_okay=True))
@reader_options
@extract_model_option
@assess_model_option
@quiet_option
@verbose_option
def command(bundles: tuple[str, ...], quiet: bool, verbose: int, **reader_kw: Any) -> None:
    """Serve BUNDLES to agents as an MCP server over stdio.

    Each bundle is named by its directory name (made unique with -2, -3...). Tools: list_bundles,
    read_signposts, read_concept, navigate, ask, check, requirements, comply (see docs/mcp.md). Every bundle is opened and
    checked before serving: a bad path exits with an error. stdout carries the protocol only; notices
    go to stderr. The reader is configured as for 'okf ask' (offline unless a model is given).

    \b
    Examples:
      okf mcp bundles/harborview
      okf mcp bundles/harborview bundles/okf-docs --model gpt-4o-mini
      claude mcp add okf -- okf mcp /path/to/bundle
    """
    from okf.mcp.tools import BundleSet  # the MCP SDK loads only when serving

    setup_logging(quiet, verbose)
    reader = reader_from_options(**reader_kw)
    shelf = BundleSet.open(bundles, reader)
    from okf.mcp.server import build_server

    server = build_server(shelf)
    notice(f"okf mcp: serving {shelf.describe()} over stdio with reader {reader.name}", quiet=quiet)
    server.run("stdio")
