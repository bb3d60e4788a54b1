"""``okf contract``: write a contract pinning facts to their current values (``init``), print its schema
(``schema``); and the rendering of a contract check shared with ``okf check --contract``."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import click
import yaml

from okf.bundle import Bundle
from okf.cli.common import emit_json, json_option, notice, quiet_option
from okf.contract import ContractReport, check_contract, contract_data, contract_schema, init_contract
from okf.errors import ConfigError
from okf.models import FactResult


def fact_line(fact: FactResult) -> str:
    """One line per fact: grounded with value, receipt id and lines, or failed with code, message and fix."""
    if fact.status == "grounded" and fact.receipt is not None:
        r = fact.receipt
        value = "absent, as required" if fact.value is None else f"= {json.dumps(fact.value, ensure_ascii=False)}"
        return (
            f"fact {fact.name}: grounded {value} ({fact.type}) at {r.path}:{r.start_line}-{r.end_line} "
            f"[{r.evidence_id}] sha256:{r.sha256[:12]}"
        )
    return f"fact {fact.name}: FAILED {fact.code} ({fact.severity}): {fact.message} (fix: {fact.fix})"


def run_contract_check(bundle: str, contract: str, *, as_json: bool, strict: bool, quiet: bool) -> None:
    """``okf check BUNDLE --contract FILE``: every fact grounded or failed; exit 1 on a failed error fact."""
    report = check_contract(Bundle.open(bundle), contract)
    if as_json:
        emit_json(report)
    else:
        for fact in report.facts:
            click.echo(fact_line(fact))
        click.echo(summary_line(report))
    if not report.ok:
        notice("See docs/contracts.md for what each failure code means.", quiet=quiet or as_json)
    if not report.ok or (strict and report.warning_count > 0):
        raise SystemExit(1)


def summary_line(report: ContractReport) -> str:
    """The last line of a contract check."""
    failed = len(report.facts) - report.grounded_count
    verdict = "contract holds" if report.ok else "contract FAILED"
    return (
        f"{len(report.facts)} facts checked in {report.seconds:.2f}s against {report.contract}: "
        f"{report.grounded_count} grounded, {failed} failed ({report.error_count} errors, "
        f"{report.warning_count} warnings; {verdict})"
    )


@click.group("contract")
def command() -> None:
    """Contracts: named, typed facts about a bundle, checked in code with no model call (docs/contracts.md).

    \b
    Examples:
      okf contract init bundles/harborview --fact 'pto_new_hire_days:number=handbook/paid-time-off#PTO Accrual:regex:new hires\\) \\| (\\d+) days'
      okf check bundles/harborview --contract bundles/harborview.contract.yaml
      okf contract schema > contract.schema.json
    """


@command.command("init")
@click.argument("bundle", type=click.Path(path_type=str))
@click.option(
    "--fact",
    "facts",
    multiple=True,
    required=True,
    metavar="NAME[:TYPE]=LOCATOR",
    help="A fact to pin; LOCATOR is CONCEPT[#HEADING]:EXTRACTOR:ARGUMENT with EXTRACTOR literal, regex, "
    "frontmatter or table (argument ROW|COLUMN). Repeat for more facts.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="FILE",
    help="Write the contract to FILE (.json: JSON, else YAML) instead of stdout.",
)
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@click.option("--description", metavar="TEXT", help="A description to record in the contract.")
@json_option
@quiet_option
def init(
    bundle: str,
    facts: tuple[str, ...],
    output: str | None,
    force: bool,
    description: str | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Write a contract pinning each --fact to its current value and the sha256 of the lines it is read from.

    Without TYPE the type is inferred from the value found (boolean, number, date, list, else string).
    Each fact gets expect.equals (its value now) and expect.unchanged (the sha256 of its lines now), so a
    later 'okf check BUNDLE --contract FILE' fails when the value or its text changes. Exit 2 when a fact
    cannot be pinned (its locator finds nothing, several concepts or several values), naming it.

    \b
    Examples:
      okf contract init bundles/harborview --fact 'pto_new_hire_days:number=handbook/paid-time-off#PTO Accrual:regex:new hires\\) \\| (\\d+) days'
      okf contract init bundles/harborview -o pto.contract.yaml --fact 'pto_title=handbook/paid-time-off:frontmatter:title' --fact 'msa_renewal_notice_days=contracts/**/article-ii-term-and-renewal:regex:at least \\w+ \\((\\d+)\\) days before'
    """
    if output and os.path.exists(output) and not force:
        raise ConfigError(f"{output} exists", fix="pass --force to overwrite it, or another -o path")
    contract = init_contract(Bundle.open(bundle), list(facts), description=description)
    data = contract_data(contract)
    as_file_json = as_json if output is None else output.lower().endswith(".json")
    text = (
        json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        if as_file_json
        else yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120)
    )
    if output is None:
        click.echo(text, nl=False)
        return
    _write_atomic(Path(output), text)
    notice(
        f"Wrote {len(contract.facts)} fact(s) to {output}; check them with 'okf check {bundle} --contract {output}'.",
        quiet=quiet,
    )


def _write_atomic(path: Path, text: str) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    except OSError as exc:
        raise ConfigError(
            f"cannot write {path}: {exc.strerror or exc}", fix="pass -o a writable file path whose folder exists"
        ) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


@command.command("schema")
def schema() -> None:
    """Print the JSON Schema of a contract file (the one in docs/contracts.md).

    \b
    Examples:
      okf contract schema > contract.schema.json
    """
    emit_json(contract_schema())
