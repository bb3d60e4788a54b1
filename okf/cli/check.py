"""``okf check``: OKF v0.2 conformance errors and warnings for a bundle, with no model calls."""

from __future__ import annotations

import atexit
import gc

import click

from okf.bundle import Bundle
from okf.checker import check
from okf.cli.common import emit_json, exit_quickly, json_option, notice, progress_enabled, quiet_option
from okf.cli.flags import settings_options
from okf.cli.progress import StageProgress
from okf.setting import CHECK_FANOUT


@click.command("check")
@click.argument("bundle", type=click.Path(path_type=str))
@json_option
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too, not only on errors.")
@settings_options(CHECK_FANOUT)
@click.option(
    "--contract",
    "contract",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="FILE",
    help="Check the facts of this contract (JSON or YAML) instead of the conformance rules: each "
    "grounded or failed, zero model calls; exit 2 if the contract is malformed. See "
    "docs/contracts.md.",
)
@quiet_option
def command(bundle: str, as_json: bool, strict: bool, fanout: int, contract: str | None, quiet: bool) -> None:
    """Check BUNDLE against OKF v0.2: errors break conformance (§11), warnings are worth fixing.

    One line per finding on stdout, 'path:line: CODE severity: message (fix: ...)', then a summary.
    Exit status: 0 when there are no errors (with --strict: no warnings either), 1 otherwise.
    Every code is explained in docs/check.md.

    \b
    Examples:
      okf check bundles/okf-docs
      okf check bundles/okf-docs --strict --fanout 24
      okf check bundles/okf-docs --json | jq '.diagnostics[] | select(.severity == "error")'
      okf check bundles/harborview --contract bundles/harborview.contract.yaml
    """
    # At exit the interpreter's last collection walks every object the imports made (0.1 to 0.3 s, more than
    # checking a thousand concepts); frozen, they are skipped and the process ends once its output is out. At
    # exit only: a process that runs this command and goes on (a test) keeps collecting.
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    exit_quickly()  # the okf program then skips the interpreter's teardown too (okf.cli.run)
    if contract is not None:
        from okf.cli.contract import run_contract_check  # the contract machinery only when a contract is checked

        run_contract_check(bundle, contract, as_json=as_json, strict=strict, quiet=quiet)
        return
    bar = StageProgress({"concepts": ("Checking", " concepts")}) if progress_enabled(quiet, as_json) else None
    try:
        report = check(Bundle.open(bundle), fanout=fanout, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    if as_json:
        emit_json(report)
    else:
        for d in report.diagnostics:
            where = f"{d.path}:{d.line}" if d.line else d.path
            fix = f" (fix: {d.fix})" if d.fix else ""
            click.echo(f"{where}: {d.code} {d.severity}: {d.message}{fix}")
        verdict = "conformant" if report.ok else "NOT conformant"
        click.echo(
            f"{report.concepts} concepts, {report.files} files checked in {report.seconds:.2f}s: "
            f"{report.error_count} errors, {report.warning_count} warnings ({verdict} with OKF v0.2)"
        )
    if not report.ok:
        notice("See docs/check.md for what each code means and how to fix it.", quiet=quiet or as_json)
    failed = not report.ok or (strict and report.warning_count > 0)
    if failed:
        raise SystemExit(1)
