"""Shared CLI plumbing: error handling, JSON output, stderr notices, common options."""

from __future__ import annotations

import codecs
import io
import json
import logging
import os
import re
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_json

from okf.cli.progress import WalkProgress as LiveLine  # noqa: F401 - the walk counter under its old name
from okf.cli.progress import progress_enabled  # noqa: F401 - re-exported for the commands
from okf.errors import ConfigError, OKFError

F = TypeVar("F", bound=Callable[..., Any])


class OKFGroup(click.Group):
    """A click group that turns OKFError into ``Error: ...`` on stderr and exit 1 (ConfigError: exit 2).

    Unexpected exceptions re-raise when ``OKF_RAISE_ERRORS=1``; otherwise they too become one line on
    stderr (exit 1), never a traceback.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ConfigError as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(2)
        except OKFError as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(1)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            ctx.exit(130)
        except BrokenPipeError:
            # The reader of stdout went away (`okf ... | head`): stop quietly, as Unix tools do.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            ctx.exit(141)
        except Exception as exc:
            if os.environ.get("OKF_RAISE_ERRORS") == "1":
                raise
            click.echo(
                f"Error: unexpected {type(exc).__name__}: {exc} "
                "(set OKF_RAISE_ERRORS=1 for a traceback and please report it)",
                err=True,
            )
            ctx.exit(1)


_quick_exit = False


def exit_quickly() -> None:
    """Ask :func:`okf.cli.run` to end the process once this command's output is out and the exit handlers have
    run, without the interpreter's teardown (it frees every object one by one: after ``okf check`` of cuad, 57 to 87
    ms from the last exit handler to the process's end, 28 to 30 ms without it, at load 5 to 6; docs/benchmarks.md).
    Only the okf program ends so; a caller of ``main`` keeps its process."""
    global _quick_exit
    _quick_exit = True


def quick_exit_asked() -> bool:
    """Whether the command that ran asked for :func:`exit_quickly`."""
    return _quick_exit


def json_option(f: F) -> F:
    """``--json``: print the whole result as JSON on stdout."""
    return click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")(f)


def quiet_option(f: F) -> F:
    """``--quiet``: no progress or notices on stderr."""
    return click.option("--quiet", "-q", is_flag=True, help="No progress or notices on stderr.")(f)


def verbose_option(f: F) -> F:
    """``-v``: model calls' retries and failures on stderr as they happen (``-vv``: also the SDK's own log)."""
    return click.option(
        "--verbose", "-v", count=True, help="Show model retries and failures on stderr as they happen (-vv: more)."
    )(f)


class _StderrHandler(logging.Handler):
    """Log records as ``okf: message`` lines on the current stderr (click's, so CliRunner captures them)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            click.echo(f"okf: {self.format(record)}", err=True)
        except Exception:  # noqa: BLE001 - a logging failure must never end a command
            self.handleError(record)


def setup_logging(quiet: bool, verbose: int = 0) -> None:
    """Route the ``okf`` logger to stderr: warnings by default, retries and failures with ``-v``, the openai
    SDK's own log too with ``-vv``, nothing with ``--quiet``."""
    level = (
        logging.CRITICAL + 1
        if quiet
        else (logging.INFO if verbose == 1 else logging.DEBUG if verbose > 1 else logging.WARNING)
    )
    for name in ("okf", "openai"):
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if isinstance(h, _StderrHandler)]:
            logger.removeHandler(old)
    handler = _StderrHandler(level)
    okf_logger = logging.getLogger("okf")
    okf_logger.addHandler(handler)
    okf_logger.setLevel(level)
    if verbose > 1 and not quiet:
        sdk = logging.getLogger("openai")
        sdk.addHandler(handler)
        sdk.setLevel(logging.INFO)


def emit_json(value: BaseModel | dict[str, Any] | list[Any]) -> None:
    """Write a result as JSON to stdout."""
    click.echo(json_text(value, indent=2))


def json_line(value: BaseModel | dict[str, Any]) -> str:
    """``value`` as one line of JSON, newline ended (traces and logs written as JSON lines)."""
    return json_text(value) + "\n"


def json_text(value: BaseModel | dict[str, Any] | list[Any], indent: int | None = None) -> str:
    """``value`` as JSON text. A file name that is not UTF-8 (Python reads its bad bytes as lone surrogates,
    "caf\\udce9.md") is written as its JSON escape: the output stays valid UTF-8, and a JSON reader gets the
    same name back (in Python, ``os.fsencode`` of it gives the bytes)."""
    try:
        if isinstance(value, BaseModel):
            text = (
                value.model_dump_json(indent=indent)
                if indent
                else json.dumps(value.model_dump(mode="json"), ensure_ascii=False)
            )
        else:
            text = json.dumps(value, indent=indent, default=str, ensure_ascii=False)
    except (PydanticSerializationError, UnicodeEncodeError):
        # pydantic refuses such a name as a key or a value; masked, serialized the same way, unmasked.
        data = value.model_dump(mode="python") if isinstance(value, BaseModel) else value
        text = _MASKED.sub(_unmask, to_json(_mask(data), indent=indent, fallback=str).decode("utf-8"))
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_SURROGATE = re.compile("[\ud800-\udfff]")
# A lone surrogate masked as a noncharacter and a private-use character (never in interchanged text).
_MASKED = re.compile("\ufdd0([\ue000-\ue7ff])")


def _mask(data: Any) -> Any:
    if isinstance(data, str):
        return _SURROGATE.sub(lambda m: "\ufdd0" + chr(0xE000 + ord(m.group()) - 0xD800), data)
    if isinstance(data, dict):
        return {_mask(k): _mask(v) for k, v in data.items()}
    if isinstance(data, list | tuple | set | frozenset):
        return [_mask(v) for v in data]
    return data


def _unmask(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(1)) - 0xE000 + 0xD800:04x}"


def _output_errors(error: UnicodeError) -> tuple[str | bytes, int]:
    """What text output writes for characters its encoding cannot: a file name's bytes that are not UTF-8
    (read as lone surrogates) as those very bytes, as ``ls`` prints them; anything else backslash-escaped."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    chunk = error.object[error.start : error.end]
    if all(0xDC80 <= ord(ch) <= 0xDCFF for ch in chunk):
        return bytes(ord(ch) - 0xDC00 for ch in chunk), error.end
    return codecs.backslashreplace_errors(error)


codecs.register_error("okf-output", _output_errors)


def safe_output() -> None:
    """Make stdout and stderr write what their encoding cannot (``_output_errors``) instead of failing: a
    concept named by an old archive's Latin-1 bytes, or an accented title on an ASCII terminal."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="okf-output")


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def printable(text: str) -> str:
    """``text`` for one line of output: control characters (a newline or an escape in a file name) shown as
    ``\\n``, ``\\x1b``..., so a name can neither break line-based output nor rewrite the terminal."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def notice(message: str, *, quiet: bool = False) -> None:
    """A line for people on stderr."""
    if not quiet:
        click.echo(message, err=True)


def report_options(f: F) -> F:
    """``--report OUT.html`` and ``--show-trace``: see the walk of navigate or ask (okf.report, okf.trace)."""
    f = click.option(
        "--show-trace", is_flag=True, help="After the result, draw the walk as a tree on stderr (as `okf trace` does)."
    )(f)
    return click.option(
        "--report",
        "report_file",
        type=click.Path(dir_okay=False, path_type=str),
        metavar="OUT.html",
        help="Also write the walk (and answer) as one self-contained HTML page (as `okf trace --html` does).",
    )(f)


def show_walk(result: Any, *, report_file: str | None, show_trace: bool, bundle: Any, quiet: bool) -> None:
    """Write the HTML page and/or draw the tree of ``result`` (a NavigationResult or an AnswerResult)."""
    if not report_file and not show_trace:
        return
    from okf.trace import WalkRecord, render_tree

    record = WalkRecord.from_result(result)
    if show_trace:
        click.echo(render_tree(record, color=sys.stderr.isatty() and not os.environ.get("NO_COLOR")), err=True)
    if report_file:
        from okf.report import walk_page, write_html  # Jinja2 only when a page is asked for

        size = write_html(report_file, walk_page(record, bundle=bundle))
        notice(f"wrote {report_file} ({size / 1024:.0f} KB)", quiet=quiet)
