"""The wiki loop: ``okf ask --save`` files an answer back as a Synthesis concept that check verifies and later
walks find; a recompile keeps it; an interrupted save changes nothing."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from builders import write_files
from click.testing import CliRunner

import okf.cli.ask as ask_cli
from okf.answer import ask, save_answer
from okf.bundle import Bundle
from okf.checker import check
from okf.cli import main
from okf.compile import CompileOptions, compile_bundle, write
from okf.errors import BundleError, CompileError
from okf.navigator import navigate
from okf.testing import ScriptedReader

AT = "2026-01-02T00:00:00Z"
Q_TRAVEL = "Who approves international travel?"
Q_LATER = "Which approval does international travel need?"  # a related question the synthesis answers
SOURCES = {
    "handbook/leave.md": "# Annual leave\n\nNew employees receive 15 days of paid time off per year.\n\n"
    "## Carryover\n\nUp to 5 unused days carry over to the next year.\n",
    "policies/travel.md": "# Travel policy\n\nInternational travel requires written approval from the department "
    "vice president.\n\nDomestic travel is approved by the traveller's manager.\n\n"
    "Receipts are kept for seven years.\n",
}


def citing_all() -> ScriptedReader:
    """Offline selection and judging, an answerer citing every shortlisted item: the saved synthesis too.

    (The offline answerer quotes the raw policy when it says the same as the synthesis; these tests are about
    what happens when an answer cites a synthesis, whichever reader chose to.)"""
    return ScriptedReader(answer="International travel needs the department vice president's written approval.")


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (hidden ones too) with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def compiled(tmp_path: Path) -> tuple[Path, Path]:
    src = write_files(tmp_path / "src", SOURCES)
    out = tmp_path / "bundle"
    compile_bundle([src], out, options=CompileOptions(timestamp=AT, title="Harbor"))
    return src, out


@pytest.fixture
def bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767312000")  # 2026-01-02: generated.at and the log date
    return compiled(tmp_path)[1]


def saved_answer(bundle: Path, question: str = Q_TRAVEL):
    result = ask(bundle, question)
    assert result.status in ("answered", "partial"), result.reason
    return result, save_answer(bundle, result)


def test_save_writes_a_synthesis_check_finds_clean_and_the_next_walk_shortlists_it(bundle: Path) -> None:
    before = Bundle.open(bundle).corpus_id()
    result, saved = saved_answer(bundle)
    assert (saved.action, saved.path) == ("created", "syntheses/who-approves-international-travel.md")
    cited = result.citations[0].receipt
    concept = Bundle.open(bundle).concept(saved.path)
    meta = concept.meta
    assert (meta.type, concept.title, meta.status.value) == ("Synthesis", Q_TRAVEL, "stable")
    assert meta.description and "vice president" in meta.description and meta.tags[0] == "synthesis"
    assert meta.extra["answer_status"] == "answered"
    assert [(s.resource, s.lines, s.sha256) for s in meta.sources] == [
        ("/" + cited.path, (cited.start_line, cited.end_line), cited.sha256)
    ]
    assert meta.generated is not None and meta.generated.by.startswith("okf/")
    assert meta.generated.at is not None and meta.generated.at.year == 2026
    assert (meta.generated.model_extra or {}).get("reader") == "offline"
    links = [link for link in Bundle.open(bundle).links(concept) if link.exists]
    assert {link.path for link in links} == {cited.path}  # it links the concept it cites
    assert "## Sources" in concept.body and "/references/sources/policies/travel.md.txt:1-" in concept.body

    assert (
        "[Who approves international travel?](who-approves-international-travel.md) - "
        in (bundle / "syntheses" / "index.md").read_text()
    )
    root_index = (bundle / "index.md").read_text()
    assert root_index.count("](syntheses/index.md)") == 1 and "Saved answers: Who approves" in root_index
    log = (bundle / "log.md").read_text()
    assert "**Synthesis**: created [Who approves international travel?](/syntheses/" in log
    registry = json.loads((bundle / ".okf" / "syntheses.json").read_text())
    assert registry["syntheses"][saved.path]["question"] == Q_TRAVEL
    assert Bundle.open(bundle).corpus_id() != before  # the content changed, so does its identity

    report = check(Bundle.open(bundle))
    assert (report.error_count, report.warning_count) == (0, 0), report.diagnostics
    walk = navigate(bundle, Q_LATER)
    entry = next(e for e in walk.shortlist if e.path == saved.path)
    assert (entry.type, entry.trust_tier, entry.cites) == ("Synthesis", "unverified", [cited.path[:-3]])
    assert entry.generated_by and entry.generated_at and entry.generated_at.startswith("2026-01-02")


def test_a_later_answer_citing_the_synthesis_traces_it_to_the_raw_sources(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, saved = saved_answer(bundle)
    later = ask(bundle, Q_LATER, reader=citing_all())
    line = next(s for s in later.sources if s.concept_id == saved.concept_id)
    assert line.through == ["policies/travel"]
    assert line.sources == result.sources[0].sources  # the raw source span, not the synthesis's own lines
    assert line.sources[0].startswith("/references/sources/policies/travel.md.txt:1-")
    assert any("is a saved answer (a synthesis written by okf/" in c for c in later.caveats)
    monkeypatch.setattr(ask_cli, "reader_from_options", lambda **kw: citing_all())
    printed = CliRunner().invoke(main, ["ask", str(bundle), Q_LATER, "--quiet"])
    assert f"({saved.path}): /references/sources/policies/travel.md.txt:1-" in printed.stdout
    assert "(through policies/travel)" in printed.stdout


def test_saving_the_same_question_again_updates_it_in_place(bundle: Path) -> None:
    _, first = saved_answer(bundle)
    result, again = saved_answer(bundle, "  who APPROVES international travel ")
    assert (again.action, again.path) == ("updated", first.path)
    assert sorted(p.name for p in (bundle / "syntheses").iterdir()) == ["index.md", Path(first.path).name]
    index = (bundle / "syntheses" / "index.md").read_text()
    assert index.count("* [") == 1 and "[who APPROVES international travel]" in index
    assert (bundle / "index.md").read_text().count("](syntheses/index.md)") == 1
    log = (bundle / "log.md").read_text()
    assert log.count("**Synthesis**: created") == 1 and log.count("**Synthesis**: updated") == 1
    assert len(json.loads((bundle / ".okf" / "syntheses.json").read_text())["syntheses"]) == 1
    # A different question whose file name would be the same gets a file of its own.
    other = "Who approves international travel (again)?"
    _, third = saved_answer(bundle, other)
    assert third.action == "created" and third.path == "syntheses/who-approves-international-travel-again.md"
    clash = save_answer(bundle, ask(bundle, "Who approves international travel again"))
    assert clash.path == "syntheses/who-approves-international-travel-again-2.md"
    assert check(Bundle.open(bundle)).warning_count == 0
    # An answer whose evidence changed since it was given is never saved (it would be stale at birth).
    result = ask(bundle, "  who APPROVES international travel ", reader=citing_all())
    assert any(c.receipt.path == first.path for c in result.citations)  # it cited the synthesis
    changed = ask(
        bundle,
        "  who APPROVES international travel ",
        reader=ScriptedReader(answer="The vice president of the department approves it."),
    )
    assert save_answer(bundle, changed).action == "updated"  # the synthesis changes under the answer
    before = tree(bundle)
    with pytest.raises(BundleError, match=r"changed since the answer cited lines .*nothing was saved"):
        save_answer(bundle, result.model_copy(update={"question": "Who approves travel abroad?"}))
    assert tree(bundle) == before


def test_a_partial_answer_is_a_draft_and_an_abstention_is_not_saved(bundle: Path) -> None:
    partial = ask(bundle, "Who approves international travel for staff?")
    assert partial.status == "partial"
    saved = save_answer(bundle, partial)
    meta = Bundle.open(bundle).concept(saved.path).meta
    assert (meta.status.value, meta.extra["answer_status"]) == ("draft", "partial")
    assert "Not established by the evidence" in Bundle.open(bundle).concept(saved.path).body
    assert check(Bundle.open(bundle)).warning_count == 0  # no W134: status stays within OKF §5.4

    before = tree(bundle)
    nothing = ask(bundle, "What colour is the office cat?")
    assert nothing.status == "abstained"
    skipped = save_answer(bundle, nothing)
    assert skipped.action == "skipped" and "abstained" in (skipped.reason or "") and tree(bundle) == before
    cli = CliRunner().invoke(main, ["ask", str(bundle), "What colour is the office cat?", "--save", "--json"])
    assert cli.exit_code == 0 and json.loads(cli.stdout)["saved"]["action"] == "skipped"
    assert "Not saved: the answer abstained" in cli.stderr and tree(bundle) == before


def test_a_recompile_keeps_the_synthesis_and_a_changed_source_makes_it_stale(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767312000")
    src, bundle = compiled(tmp_path)
    _, saved = saved_answer(bundle)
    synthesis = (bundle / saved.path).read_bytes()
    report = compile_bundle([src], bundle, options=CompileOptions(timestamp=AT, title="Harbor"))
    assert report.warnings == [] and (bundle / saved.path).read_bytes() == synthesis
    assert check(Bundle.open(bundle)).warning_count == 0

    travel = src / "policies" / "travel.md"
    travel.write_text(travel.read_text().replace("vice president", "chief operating officer"))
    report = compile_bundle([src], bundle, options=CompileOptions(timestamp=AT, title="Harbor"))
    assert report.updated == 1 and report.warnings == [], report.warnings  # no "not written by okf" noise
    assert (bundle / saved.path).read_bytes() == synthesis
    assert (bundle / "index.md").read_text().count("](syntheses/index.md)") == 1  # the entry survives
    diags = check(Bundle.open(bundle)).diagnostics
    assert [(d.code, d.path) for d in diags] == [("W151", saved.path)]
    assert "policies/travel.md lines" in diags[0].message and "okf ask --save" in diags[0].fix
    later = ask(bundle, Q_LATER, reader=citing_all())
    assert any("is stale: policies/travel.md changed" in c for c in later.caveats)

    (bundle / "policies" / "travel.md").unlink()  # a cited concept gone: stale too
    gone = check(Bundle.open(bundle)).diagnostics
    assert any(d.code == "W151" and "no longer in the bundle" in d.message for d in gone)


def test_a_save_that_fails_mid_write_leaves_the_bundle_as_it_was(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = ask(bundle, Q_TRAVEL)
    before = tree(bundle)
    real = write.write_file
    calls = []

    def fail_second(root: str, path: str, content: bytes) -> None:
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device", root + path)
        real(root, path, content)

    monkeypatch.setattr(write, "write_file", fail_second)
    with pytest.raises(CompileError, match=r"No space left on device.*unchanged"):
        save_answer(bundle, result)
    assert tree(bundle) == before and not list(bundle.parent.glob("bundle.okf-tmp-*"))

    monkeypatch.setattr(write, "write_file", real)
    monkeypatch.setattr(write, "_exchange", lambda a, b: (_ for _ in ()).throw(OSError(5, "I/O error", str(b))))
    with pytest.raises(CompileError):
        save_answer(bundle, result)
    assert tree(bundle) == before and not list(bundle.parent.glob("bundle.okf-tmp-*"))


def test_a_save_killed_mid_write_leaves_the_bundle_as_it_was(bundle: Path, tmp_path: Path) -> None:
    """SIGKILL while the side tree is being written (the moment a careless writer would touch the bundle)."""
    before = tree(bundle)
    marker = tmp_path / "writing"
    script = textwrap.dedent(f"""
        import time
        import okf.compile.write as write
        from okf.answer import ask, save_answer
        real = write.write_file
        def stall(root, path, content):
            real(root, path, content)
            open({str(marker)!r}, "w").close()
            time.sleep(60)
        write.write_file = stall
        save_answer({str(bundle)!r}, ask({str(bundle)!r}, {Q_TRAVEL!r}))
    """)
    proc = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 60
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert marker.exists(), "the save never started writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert tree(bundle) == before
    assert list(bundle.parent.glob("bundle.okf-tmp-*")), "the killed save left its side tree (cleaned next)"
    saved = save_answer(bundle, ask(bundle, Q_TRAVEL))  # the next save cleans up and succeeds
    assert saved.action == "created" and not list(bundle.parent.glob("bundle.okf-tmp-*"))


def test_save_refuses_a_syntheses_file_and_the_cli_still_prints_the_answer(bundle: Path) -> None:
    (bundle / "syntheses").write_text("not a folder\n")
    result = ask(bundle, Q_TRAVEL)
    with pytest.raises(BundleError, match="syntheses exists and is not a folder"):
        save_answer(bundle, result)
    cli = CliRunner().invoke(main, ["ask", str(bundle), Q_TRAVEL, "--save"])
    assert cli.exit_code == 1 and "vice president" in cli.stdout
    assert "Error: syntheses: syntheses exists and is not a folder" in cli.stderr


def test_cli_save_reports_the_path_and_json_carries_it(bundle: Path) -> None:
    cli = CliRunner().invoke(main, ["ask", str(bundle), Q_TRAVEL, "--save"])
    assert cli.exit_code == 0, cli.stderr
    assert "Saved: created syntheses/who-approves-international-travel.md" in cli.stderr
    again = CliRunner().invoke(main, ["ask", str(bundle), Q_TRAVEL, "--save", "--json", "--quiet"])
    assert json.loads(again.stdout)["saved"] == {
        "action": "updated",
        "path": "syntheses/who-approves-international-travel.md",
        "concept_id": "syntheses/who-approves-international-travel",
        "reason": None,
    }
    assert again.stderr == ""


def test_a_hand_written_bundle_without_a_root_index_gets_none(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "notes",
        {
            "travel.md": "---\ntype: Note\ntitle: Travel\ndescription: Travel approvals.\n---\n# Travel\n\n"
            "International travel requires written approval from the department vice president.\n"
        },
    )
    saved = save_answer(root, ask(root, Q_TRAVEL))
    assert saved.action == "created" and not (root / "index.md").exists()
    assert (root / "log.md").read_text().startswith("# Update log\n\n## ")
    report = check(Bundle.open(root))
    assert report.error_count == 0 and not [d for d in report.diagnostics if d.path.startswith("syntheses")]


def test_the_loop_in_docs_is_a_real_run_on_harborview(tmp_path: Path) -> None:
    """docs/ask.md#the-wiki-loop: the outputs shown are those of the commands shown (dates and times aside)."""
    repo = Path(__file__).resolve().parents[1]
    doc = (repo / "docs" / "ask.md").read_text(encoding="utf-8").split("## The wiki loop")[1]
    copy = tmp_path / "harborview-wiki"
    shutil.copytree(repo / "bundles" / "harborview", copy)
    related, question = "Which approval does international travel need?", "Who approves international travel?"
    assert f'okf navigate /tmp/harborview-wiki "{related}"' in doc and f'"{question}" --save' in doc
    before = CliRunner().invoke(main, ["navigate", str(copy), related])
    assert "syntheses/" not in before.stdout
    saved = CliRunner().invoke(main, ["ask", str(copy), question, "--save"])
    shown = doc.split("stderr says where:")[1].split("```\n")[1].rstrip("\n")
    assert saved.exit_code == 0 and shown in saved.stderr
    checked = CliRunner().invoke(main, ["check", str(copy)])
    summary = re.sub(r"in \S+s:", "in Ns:", checked.stdout.strip().splitlines()[-1])
    assert f"`{summary}`" in re.sub(r"in \S+s:", "in Ns:", doc)
    after = CliRunner().invoke(main, ["navigate", str(copy), related])
    shown = doc.split("with its trust shown:")[1].split("```\n")[1].rstrip("\n")
    # Dates, times and the call count vary: angles walk concurrently, so how judged bodies fall into batches
    # depends on which walk reaches a directory first (the shortlist and verdicts do not).
    day = re.compile(r"\d{4}-\d{2}-\d{2}|\d+\.\d+s|\d+ calls")
    assert day.sub("X", after.stdout.rstrip("\n")) == day.sub("X", shown)
    assert "syntheses/who-approves-international-travel" in after.stdout


def test_a_save_reuses_the_spare_tree_and_gives_the_same_bundle(bundle: Path, tmp_path: Path) -> None:
    """The spare a compile left is reconciled into the side tree; the bundle is the same as one saved without
    it, the replaced tree becomes the spare, and a symlinked folder is kept as a symlink."""
    spare = bundle.with_name("bundle.okf-spare")
    twin = tmp_path / "twin"
    shutil.copytree(bundle, twin, symlinks=True)
    (twin / "elsewhere").mkdir()  # a symlinked folder: never reconciled, the side tree is built afresh
    (twin / "policies" / "linked").symlink_to(twin / "elsewhere", target_is_directory=True)
    assert spare.is_dir() and not twin.with_name("twin.okf-spare").exists()
    result = ask(bundle, Q_TRAVEL)
    before = tree(bundle)
    save_answer(bundle, result)
    save_answer(twin, result)
    assert tree(spare) == before  # the replaced bundle, kept whole for the next compile or save
    assert (twin / "policies" / "linked").is_symlink()
    mine, theirs = tree(bundle), tree(twin)
    for path in (".okf/syntheses.json", "syntheses/who-approves-international-travel.md"):  # same but for time
        assert mine.pop(path) and theirs.pop(path)
    assert mine == theirs
