"""The okf command line: thin click commands over the library. The only package that imports click.

Each command lives in its own module ``okf.cli.<name>`` exposing ``command``; a command body parses
options, makes one library call and renders the result. stdout carries results only; progress, notices and
errors go to stderr.
"""

from __future__ import annotations

import importlib

import click

from okf._version import __version__
from okf.cli.common import OKFGroup

COMMAND_MODULES = (
    "compile",
    "check",
    "navigate",
    "ask",
    "eval",
    "requirements",
    "comply",
    "mcp",
    "contract",
    "trace",
    "report",
    "export",
)


@click.group(cls=OKFGroup, context_settings={"help_option_names": ["-h", "--help"]})
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


for _name in COMMAND_MODULES:
    try:
        _module = importlib.import_module(f"okf.cli.{_name}")
    except ModuleNotFoundError as exc:  # a command still being built; never hide other import errors
        if exc.name != f"okf.cli.{_name}":
            raise
        continue
    main.add_command(_module.command)
