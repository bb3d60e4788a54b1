"""okf check: every rule, bad input that never stops the check, the CLI, and the real sample bundle."""

from __future__ import annotations

import hashlib
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from okf.bundle import CODES, Bundle
from okf.checker import check
from okf.cli import main
from okf.sources import span_sha256

NOW = datetime(2026, 7, 1, tzinfo=UTC)
OK = "---\ntype: Note\ndescription: Fine.\n---\n# Fine\n"


def codes(report) -> list[tuple[str, str, int | None]]:
    return sorted((d.code, d.path, d.line) for d in report.diagnostics)


def test_clean_bundle_has_no_diagnostics(tmp_path, write_bundle):
    root = write_bundle(tmp_path, {"index.md": "# All\n\n* [A](a.md) - Fine.\n", "a.md": OK})
    report = check(Bundle.open(root), now=NOW)
    assert report.diagnostics == [] and report.ok and report.concepts == 1 and report.files == 2


def test_errors_and_warnings_are_all_reported(tmp_path, write_bundle):
    root = write_bundle(
        tmp_path,
        {
            "index.md": "---\nokf_version: '0.2'\nauthor: x\n---\n# All\n\n* [A](a.md) - Other words.\n"
            "* no link here\n* [Gone](gone.md) - x\n* [Out](../../x.md) - x\n* [A again](a.md) - Fine.\n",
            "a.md": "---\ntype: Note\ndescription: Fine.\nstatus: deprecated\nstale_after: 2026-01-01\n---\n"
            "[b](b.md) [none](none.md) [up](../../up.md)\n",
            "b.md": "---\ntitle: no type\n---\nx\n",
            "c.md": "just a body\n",
            "d.md": "---\n- a list\n---\n",
            "e.md": "---\ntype: [oops\n---\n",
            "sub/index.md": "---\ntitle: x\n---\n* [F](f.md) - F.\n",
            "sub/f.md": "---\ntype: N\ndescription: F.\n---\n",
            "sub/log.md": "# Log\n\n## 2026-13-45\nx\n\n## yesterday\ny\n\n## 2026-01-02\nz\n",
            "bin.md": b"---\ntype: N\ndescription: d\n---\n\xff\n",
        },
    )
    report = check(Bundle.open(root), now=NOW, fanout=3)
    got = {(c, p, ln) for c, p, ln in codes(report)}
    expected = {
        ("E011", "index.md", 1),
        ("E012", "index.md", 8),
        ("W110", "index.md", 9),
        ("W111", "index.md", 10),
        ("W114", "index.md", 11),
        ("W113", "index.md", 7),
        ("W112", "index.md", None),
        ("W120", "index.md", None),
        ("W131", "a.md", 1),
        ("W132", "a.md", 1),
        ("W101", "a.md", 7),
        ("W102", "a.md", 7),
        ("E003", "b.md", 1),
        ("E004", "c.md", 1),
        ("E002", "d.md", 2),
        ("E001", "e.md", 3),
        ("E010", "sub/index.md", 1),
        ("E020", "sub/log.md", 3),
        ("E020", "sub/log.md", 6),
        ("E007", "bin.md", 5),
        ("W130", "b.md", 1),
    }
    assert expected <= got, expected - got
    assert not report.ok and len(report.errors) == 10
    for d in report.diagnostics:
        assert d.fix and d.message and d.code in CODES


def test_bad_input_never_stops_the_check(tmp_path, write_bundle):
    bomb = (
        "---\ntype: B\na: &a [x,x,x,x,x,x,x,x]\n"
        + "".join(f"{c}: &{c} [{','.join(['*' + p] * 8)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
        + "---\n"
    )
    root = write_bundle(tmp_path, {"bomb.md": bomb, "ok.md": OK})
    with open(root / "huge.md", "wb") as handle:
        handle.seek(50 * 1024 * 1024)
        handle.write(b"x")
    outside = tmp_path / "outside.md"
    outside.write_text(OK)
    os.symlink(outside, root / "escape.md")
    report = check(Bundle.open(root), now=NOW)
    assert ("E005", "bomb.md", 1) in codes(report)
    assert any(c == "E005" and p == "huge.md" for c, p, _ in codes(report))
    assert report.concepts == 3  # bomb, huge, ok: the escaping symlink is not part of the bundle


def test_drift_against_source_root(tmp_path, write_bundle):
    src = tmp_path / "src"
    src.mkdir()
    (src / "doc.txt").write_text("one\ntwo\nthree\n")
    good = span_sha256("one\ntwo\nthree\n", 2, 3)
    root = write_bundle(
        tmp_path,
        {
            "fresh.md": f"---\ntype: N\ndescription: d\nsources:\n  - {{resource: doc.txt, lines: [2, 3], sha256: {good}}}\n---\n",
            "drift.md": "---\ntype: N\ndescription: d\nsources:\n  - {resource: doc.txt, lines: '1-2', sha256: "
            + hashlib.sha256(b"old").hexdigest()
            + "}\n  - {resource: ../../etc/passwd, lines: [1, 1],"
            " sha256: abc}\n  - {resource: missing.txt, lines: [1, 1], sha256: abc}\n---\n",
            ".okf/manifest.json": json.dumps({"source_root": "../src"}),
        },
    )
    report = check(Bundle.open(root), now=NOW)
    # The escaping and the missing source are not followable: W153 for each (no drift can be checked there).
    assert codes(report) == [("W150", "drift.md", 1), ("W153", "drift.md", 1), ("W153", "drift.md", 1)]
    assert report.diagnostics[0].fix == "recompile with okf compile"


def test_every_code_is_documented():
    doc = (Path(__file__).resolve().parents[1] / "docs" / "check.md").read_text()
    for code in CODES:
        assert re.search(rf"\b{code}\b", doc), f"{code} is not documented in docs/check.md"


def test_sample_bundle_has_zero_errors(sample_bundle):
    report = check(Bundle.open(sample_bundle), now=NOW)
    assert report.errors == [], report.errors
    assert ("W141", "log.md", 1) in codes(report)
    assert report.concepts == 9


def test_cli_human_json_and_exit_codes(tmp_path, write_bundle):
    runner = CliRunner()
    clean = write_bundle(tmp_path / "c", {"a.md": OK})
    result = runner.invoke(main, ["check", str(clean)])
    assert result.exit_code == 0 and "0 errors, 0 warnings" in result.stdout
    warn = write_bundle(tmp_path / "w", {"a.md": "---\ntype: N\n---\n"})
    assert runner.invoke(main, ["check", str(warn)]).exit_code == 0
    strict = runner.invoke(main, ["check", str(warn), "--strict"])
    assert strict.exit_code == 1 and "a.md:1: W130 warning:" in strict.stdout and "(fix: " in strict.stdout
    bad = write_bundle(tmp_path / "b", {"a.md": "---\n- x\n---\n"})
    result = runner.invoke(main, ["check", str(bad), "--json", "--quiet"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False and data["error_count"] == 1 and data["diagnostics"][0]["code"] == "E002"


def test_cli_bad_paths_and_options(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(main, ["check", str(tmp_path / "nope")])
    assert missing.exit_code == 1 and "nope" in missing.stderr and "Traceback" not in missing.output
    (tmp_path / "f.md").write_text(OK)
    assert runner.invoke(main, ["check", str(tmp_path / "f.md")]).exit_code == 1
    (tmp_path / "empty").mkdir()
    empty = runner.invoke(main, ["check", str(tmp_path / "empty")])
    assert empty.exit_code == 1 and "no markdown" in empty.stderr
    assert runner.invoke(main, ["check", str(tmp_path), "--fanout", "0"]).exit_code == 2
    assert "Examples:" in runner.invoke(main, ["check", "--help"]).stdout


def test_worker_processes_give_the_serial_report(tmp_path, write_bundle, monkeypatch):
    from okf.checker import parallel

    monkeypatch.setattr(parallel, "_SLICE", 4)
    monkeypatch.setattr(parallel, "_DIR_SLICE", 1)  # several slices per worker: order must survive
    files: dict[str, str | bytes] = {"index.md": "# All\n\n* [A](d0/a0.md) - Other words.\n* no link\n"}
    for d in range(3):
        for i in range(7):
            files[f"d{d}/a{i}.md"] = (
                f"---\ntype: N\ndescription: Fine {i}.\nstatus: {'deprecated' if i == 3 else 'stable'}\n"
                f"---\n[next](a{i + 1}.md) [root](/index.md) [out](../../../x.md)\n"
            )
        files[f"d{d}/bad.md"] = "---\ntype: [oops\n---\n"
        files[f"d{d}/bin.md"] = b"---\ntype: N\n---\n\xff\n"
    files[".okf/manifest.json"] = "{not json"  # read by a worker beside the listings (E006)
    root = write_bundle(tmp_path, files)
    serial = check(Bundle.open(root), now=NOW, workers=1)
    pooled = check(Bundle.open(root), now=NOW, workers=2)
    assert len(serial.diagnostics) > 30 and "E006" in {d.code for d in serial.diagnostics if d.path.startswith(".okf")}
    assert pooled.diagnostics == serial.diagnostics  # same diagnostics, same order
    assert pooled.corpus_id == serial.corpus_id and pooled.concepts == serial.concepts == 27


def test_okf_check_freezes_what_is_left_at_exit_only(tmp_path, write_bundle, monkeypatch):
    # The interpreter's last collection would walk every object the imports made: okf check freezes them at
    # exit (registered once however often it runs), never while the process goes on.
    import atexit
    import gc

    from click.testing import CliRunner

    from okf.cli import main

    registered: list[object] = []
    monkeypatch.setattr(atexit, "register", registered.append)
    monkeypatch.setattr(atexit, "unregister", lambda f: registered.remove(f) if f in registered else None)
    root = write_bundle(tmp_path, {"a.md": "---\ntype: N\ndescription: A.\n---\nText.\n"})
    frozen = gc.get_freeze_count()
    for _ in range(2):
        assert CliRunner().invoke(main, ["check", str(root), "--json"]).exit_code == 0
    assert registered == [gc.freeze] and gc.get_freeze_count() == frozen


def test_the_okf_program_ends_a_check_after_its_exit_handlers_and_output(tmp_path, write_bundle):
    # okf.cli.run ends the process without the interpreter's teardown once okf check asked: the exit handlers
    # still run (after the command, before the end), every byte of output is out, the exit code is the command's.
    import subprocess
    import sys

    root = write_bundle(tmp_path, {"a.md": "---\ntype: N\ndescription: A.\n---\n[b](missing.md)\n" * 300})
    program = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stdout.write('handler ran\\n'))\n"
        "sys.argv = ['okf', 'check', sys.argv[1]] + sys.argv[2:]\n"
        "from okf.cli import run\n"
        "run()\n"
    )
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # output left unflushed is lost
    for flags, code in (([], 0), (["--json", "--strict"], 1)):
        done = subprocess.run(
            [sys.executable, "-c", program, str(root), *flags],
            capture_output=True,
            text=True,
            timeout=120,
            env=buffered,
        )
        expected = CliRunner().invoke(main, ["check", str(root), *flags])
        assert done.returncode == expected.exit_code == code
        assert done.stdout.endswith("handler ran\n")
        shown, wanted = done.stdout.removesuffix("handler ran\n"), expected.stdout
        if flags:
            shown, wanted = (re.sub(r'"seconds": [0-9.e-]+', "", text) for text in (shown, wanted))
        else:
            shown, wanted = (re.sub(r"in [0-9.]+s", "", text) for text in (shown, wanted))
        assert shown == wanted and len(shown) > 300 * 40


def test_run_ends_quickly_only_when_the_command_asked(monkeypatch):
    import atexit

    import okf.cli as cli
    import okf.cli.common as common

    ended: list[object] = []

    class Ended(BaseException):
        pass

    def end(code: int) -> None:
        ended.append(code)
        raise Ended

    monkeypatch.setattr(cli.os, "_exit", end)
    monkeypatch.setattr(atexit, "_run_exitfuncs", lambda: ended.append("handlers"))
    # The threads running are the table's to say: a thread an earlier test left (tqdm's monitor outlives the
    # last progress bar by up to 10 s) decided this test when test_export ran before it in one process.
    running = {"threads": 1}
    monkeypatch.setattr(cli.threading, "active_count", lambda: running["threads"])
    for asked, code, threads, outcome in (
        (False, 1, 1, SystemExit),
        (True, 1, 1, Ended),
        (True, None, 1, Ended),
        (True, "message", 1, SystemExit),
        (True, 300, 1, SystemExit),
        (True, 1, 2, SystemExit),  # another thread still running: the usual ending
    ):
        ended.clear()
        running["threads"] = threads
        monkeypatch.setattr(common, "_quick_exit", asked)

        def command(code: object = code) -> None:
            raise SystemExit(code)

        monkeypatch.setattr(cli, "main", command)
        with pytest.raises(outcome):
            cli.run()
        assert ended == (["handlers", code or 0] if outcome is Ended else [])


def test_the_last_concept_slices_are_short_and_all_in_order() -> None:
    from okf.checker.parallel import _balanced

    items = [f"c{i:03d}.md" for i in range(1234)]
    parts = _balanced(items, 100, 2)
    assert [p for part in parts for p in part] == items
    assert [len(p) for p in parts][-8:] == [25] * 8 and all(len(p) == 100 for p in parts[:10])
    assert _balanced(items[:150], 100, 2) == [items[i : i + 25] for i in range(0, 150, 25)]
    assert _balanced([], 100, 2) == []


def test_check_pauses_the_collector_and_restores_it(tmp_path, write_bundle, monkeypatch):
    import gc

    seen: list[bool] = []
    from okf.checker import api

    real = api.check_concepts
    monkeypatch.setattr(api, "check_concepts", lambda *a, **k: seen.append(gc.isenabled()) or real(*a, **k))
    root = write_bundle(tmp_path, {"a.md": "---\ntype: N\ndescription: A.\n---\nText.\n"})
    assert gc.isenabled()
    check(Bundle.open(root), now=NOW, workers=1)
    assert seen == [False] and gc.isenabled()


@pytest.mark.parametrize("text", ["", "a", "a\n", "a\nb", "a\nb\n", "\n\n", "x\ny\nz\n\nw"])
def test_span_text_by_line_starts_equals_span_text(text: str) -> None:
    from okf.sources import line_starts, span_text, span_text_at

    starts = line_starts(text)
    for a in range(-1, 8):
        for b in range(-1, 8):
            assert span_text_at(text, starts, a, b) == span_text(text, a, b), (a, b)


@given(st.text(alphabet=st.sampled_from(["a", "é", "\n", "\r", "\u2028", " "]), max_size=40))
def test_line_starts_are_where_each_line_begins(text: str) -> None:
    from okf.sources import line_starts

    assert line_starts(text) == [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
