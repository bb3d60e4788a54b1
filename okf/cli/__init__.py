"""The okf command line: thin click commands over the library. The only package that imports click.

Each command lives in its own module ``okf.cli.<name>`` exposing ``command``; a command body parses
options, makes one library call and renders the result. stdout carries results only; progress, notices and
errors go to stderr. A command's module is imported only when that command runs (or its help is shown), so
``okf check`` does not pay for the readers, the navigator or the MCP SDK; ``okf --help`` lists the commands
from :data:`SUMMARIES` (tests/test_cli_lazy.py keeps it equal to each command's own help).
"""

from __future__ import annotations

import atexit
import importlib
import os
import sys
import threading
from collections.abc import Iterator, Mapping

import click

from okf._version import __version__
from okf.cli.common import OKFGroup, quick_exit_asked, safe_output
from okf.collector import collector_paused

# Every command, by the module that defines it (okf.cli.<name>), with the first sentence of its help.
SUMMARIES: dict[str, str] = {
    "compile": "Compile markdown, text, HTML and PDF files into an OKF bundle.",
    "check": "Check BUNDLE against OKF v0.2: errors break conformance (§11), warnings are worth fixing.",
    "navigate": "Find the concepts of BUNDLE (one or more) that answer QUESTION, by reading signposts then bodies.",
    "ask": "Answer QUESTION from BUNDLE (one or more) with citations it can prove, or abstain and say why.",
    "eval": "Navigate every question of QUESTIONS (a JSONL file) in BUNDLE and score the shortlists against gold.",
    "requirements": "Extract the operative rules (obligations, prohibitions, permissions) of BUNDLE's sections.",
    "comply": "Judge SUBJECT (a document, or - for stdin) against requirements: violation, needs_review or compliant.",
    "mcp": "Serve BUNDLES to agents as an MCP server over stdio.",
    "contract": "Contracts: named, typed facts about a bundle, checked in code with no model call (docs/contracts.md).",
    "trace": "Show the walk in FILE: a trace (`okf navigate --trace FILE`) or a saved result (`okf navigate --json`, "
    "`okf ask --json`, a walk saved by `okf eval --walks DIR`).",
    "report": "Write the evaluation in EVAL.json (from `okf eval --json`) as a page: summary, recall against bodies "
    "and words read beside the baselines, loss attribution as a bar per stage, and the missed questions, each "
    "linking to its walk.",
    "export": "Publish BUNDLE for agents and people that do not speak OKF: llms.txt or a static HTML site.",
}
COMMAND_MODULES = tuple(SUMMARIES)


class _Commands(Mapping[str, click.Command]):
    """The commands by name, each module imported on first access (iterating gives the names alone)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self._names = names
        self._loaded: dict[str, click.Command | None] = {}

    def _load(self, name: str) -> click.Command | None:
        if name not in self._loaded:
            try:
                # A command's imports (pydantic models, the readers, the settings of every command) allocate
                # hundreds of thousands of objects and free almost none: the cyclic collector's passes over
                # them found nothing and cost 0.2 to 0.4 s of a command's start (docs/benchmarks.md).
                with collector_paused():
                    module = importlib.import_module(f"okf.cli.{name}")
            except ModuleNotFoundError as exc:  # a command still being built; never hide other import errors
                if exc.name != f"okf.cli.{name}":
                    raise
                self._loaded[name] = None
            else:
                self._loaded[name] = module.command
        return self._loaded[name]

    def __getitem__(self, name: str) -> click.Command:
        command = self._load(name) if name in self._names else None
        if command is None:
            raise KeyError(name)
        return command

    def __iter__(self) -> Iterator[str]:
        return (name for name in self._names if name not in self._loaded or self._loaded[name] is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _LazyGroup(OKFGroup):
    """okf's group: commands imported when run; the command list of ``okf --help`` made from SUMMARIES."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="okf")
def main() -> None:
    """okf: compile, check, navigate and ask Open Knowledge Format (OKF) bundles, with no embeddings.

    \b
    Examples:
      okf compile docs/ -o /tmp/okf-docs
      okf check /tmp/okf-docs
      okf navigate bundles/harborview "How many paid time off days does a new employee get each year?"
      okf ask bundles/harborview "How many paid time off days does a new employee get each year?"

    With no model configured every command runs on the offline reader, a deterministic stand-in for a
    model that reads signposts and bodies for the question's words. Configure a real model with --model
    and --base-url (or OKF_MODEL / OPENAI_BASE_URL); see docs/models.md.
    """
    safe_output()


main.commands = _Commands(COMMAND_MODULES)  # type: ignore[assignment]


def run() -> None:
    """The okf program (the ``okf`` script, ``python -m okf``): :func:`main`; then, when the command asked for it
    (:func:`okf.cli.common.exit_quickly`), the exit handlers run, the output is flushed and the process ends
    without the interpreter's teardown. Anything unusual (an exit code that is not a small number, a thread still
    running, output that cannot be flushed) ends the usual way."""
    try:
        main()
    except SystemExit as done:
        code = 0 if done.code is None else done.code
        if not quick_exit_asked() or type(code) is not int or not 0 <= code <= 255 or threading.active_count() > 1:
            raise
        atexit._run_exitfuncs()  # what the interpreter runs first at exit (then cleared: never run twice)
        try:
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:
                    stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: the interpreter reports it as it always does
            raise done from None
        os._exit(code)
