"""okf trace: reading walks tolerantly, folding them into a tree, the terminal tree (golden files) and the CLI.

Golden files live in tests/golden/trace/; regenerate with OKF_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from builders import concept, write_files
from click.testing import CliRunner

from okf.cli import main
from okf.errors import BundleError
from okf.models import TraceEvent
from okf.navigator import navigate
from okf.trace import fold, load_walk, parse_walk, render_tree
from okf.trace.load import walk_file_name

GOLDEN = Path(__file__).parent / "golden" / "trace"
WALK = GOLDEN / "walk.jsonl"
BUDGETS = {
    "max_bodies": 4,
    "max_shortlist": 12,
    "max_depth": 8,
    "max_calls": 200,
    "max_tokens": 400000,
    "deadline_s": 120.0,
}


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("OKF_UPDATE_GOLDEN") == "1":
        path.write_text(text + "\n", encoding="utf-8")
    assert text + "\n" == path.read_text(encoding="utf-8"), f"{name} differs (OKF_UPDATE_GOLDEN=1 to accept)"


def _record():
    record = load_walk(WALK)
    record.question, record.bundle, record.reader, record.budgets = (
        "Who approves refunds?",
        "bundles/acme",
        "scripted",
        BUDGETS,
    )
    return record


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("walk.txt", {}),
        ("walk-relevant.txt", {"only": "relevant"}),
        ("walk-failures.txt", {"only": "failures"}),
        ("walk-depth0.txt", {"depth": 0}),
        ("walk-color.txt", {"color": True}),
    ],
)
def test_terminal_tree_matches_golden(name: str, options: dict) -> None:
    _golden(name, render_tree(_record(), **options))


def test_fold_places_every_event() -> None:
    tree = fold(load_walk(WALK).events)
    root = tree.root
    assert [(c.path, c.state) for c in root.offered] == [
        ("finance/", "kept"),
        ("people/", "kept"),
        ("legal/", "passed"),
    ]
    assert root.choice("finance/").reason == "refunds are a finance matter"
    people = root.children["people/"]
    # The only page failed: its signposts were never answered, which is not "passed over".
    assert [c.state for c in people.offered] == ["unanswered", "unanswered"]
    assert people.failures[0]["error"] == "HTTP 503 from the endpoint"
    finance = root.children["finance/"]
    refunds, invoices = finance.concepts["finance/refunds.md"], finance.concepts["finance/invoices.md"]
    assert refunds.grade == "relevant" and invoices.grade == "partial"
    assert invoices.verdicts[0].cached and invoices.verdicts[0].extra == {"confidence": 0.4}
    assert [(link.target, link.skipped) for link in refunds.links] == [
        ("legal/consumer-law.md", None),
        ("https://example.org/policy", "external"),
        ("finance/invoices.md", "already a candidate"),
    ]
    law = root.children["legal/"].concepts["legal/consumer-law.md"]
    assert not root.children["legal/"].opened and law.linked_from == ["finance/refunds.md"]
    assert law.grade == "failed" and law.verdicts[0].error.startswith("the reply was not valid JSON")
    assert tree.stopped_by == "bodies" and tree.t_stop == 0.05
    assert (tree.totals.judged, tree.totals.relevant, tree.totals.partial, tree.totals.no, tree.totals.failed) == (
        4,
        1,
        1,
        1,
        1,
    )
    assert [e["kind"] for e in tree.orchestration] == ["angle"] and tree.other == []
    assert tree.links_followed == 1 and tree.links_skipped == {"external": 1, "already a candidate": 1}
    assert json.loads(json.dumps(tree.to_dict()))["root"]["children"][0]["path"] == "finance/"


def test_grade_without_relevant_and_unknown_kinds_never_crash() -> None:
    events = [
        TraceEvent(seq=0, t=0.0, kind="verdict", path="a/b.md", data={"grade": "partial"}),
        TraceEvent(seq=1, t=0.1, kind="verdict", path="a/c.md", data={"grade": "no", "relevant": False}),
        TraceEvent(seq=2, t=0.2, kind="escalation", path=None, data={"to": ["x"], "why": {"deep": [1, 2]}}),
        TraceEvent(seq=3, t=0.3, kind="selected", path="", data={"kept": "not a list", "reasons": 5}),
        TraceEvent(seq=4, t=0.4, kind="verdict", path=None, data={}),
        TraceEvent(seq=5, t=0.5, kind="link", path=None, data={}),
    ]
    tree = fold(events)
    grades = {c.path: c.grade for c in tree.concepts()}
    assert grades == {"a/b.md": "partial", "a/c.md": "no"}
    assert [e["kind"] for e in tree.other] == ["verdict"]
    assert [e["kind"] for e in tree.orchestration] == ["escalation"]  # an unknown shape, kept and shown as JSON
    text = render_tree(tree)
    assert "partial" in text and 'escalation {"to": ["x"]' in text


def test_reading_is_tolerant_and_errors_name_file_and_line(tmp_path: Path) -> None:
    record = parse_walk(
        '{"kind": "collected", "path": "", "data": {"concepts": ["a.md"]}}\n\n{"kind": "mystery", "data": [1, 2]}\n',
        "walk.jsonl",
    )
    assert [(e.seq, e.t, e.kind) for e in record.events] == [(0, 0.0, "collected"), (1, 0.0, "mystery")]
    assert record.events[1].data == {"value": [1, 2]}
    with pytest.raises(BundleError) as bad:
        parse_walk('{"kind": "collected"}\n{"kind": \n', "walk.jsonl")
    assert "walk.jsonl:2:" in str(bad.value) and "JSON" in str(bad.value)
    with pytest.raises(BundleError) as no_kind:
        parse_walk('{"kind": "collected"}\n[1]\n', "walk.jsonl")
    assert "walk.jsonl:2:" in str(no_kind.value)
    with pytest.raises(BundleError, match="evaluation report"):
        parse_walk('{"summary": {}, "results": []}', "eval.json")
    with pytest.raises(BundleError, match="no such file"):
        load_walk(tmp_path / "missing.jsonl")
    with pytest.raises(BundleError, match="empty"):
        parse_walk("  \n", "walk.jsonl")


def test_terminal_tree_strips_control_characters() -> None:
    events = [
        TraceEvent(
            seq=0,
            t=0.0,
            kind="verdict",
            path="a/evil\x1b[2J.md",
            data={"relevant": True, "reason": "ok\x1b]0;title\x07 then\nnext line\x9b"},
        )
    ]
    text = render_tree(fold(events))
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
    assert "ok then next line" in text


def _bundle(tmp_path: Path) -> Path:
    return write_files(
        tmp_path / "b",
        {
            "index.md": "# Acme\n\n- [Finance](finance/index.md): refunds, invoices and approvals\n"
            "- [Travel](travel/index.md): trips and hotels\n",
            "finance/index.md": "# Finance\n\n- [Refunds](refunds.md): who approves refunds\n",
            "finance/refunds.md": concept(
                "Refunds",
                "Refunds over 500 dollars are approved by the finance director.\nSee [travel](../travel/hotels.md).",
            ),
            "travel/index.md": "# Travel\n\n- [Hotels](hotels.md): hotel caps\n",
            "travel/hotels.md": concept("Hotels", "Hotel stays are capped at 200 dollars a night."),
        },
    )


def test_real_walk_renders_and_round_trips_through_its_json(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    result = navigate(bundle, "Who approves refunds?", budgets={"max_bodies": 10})
    saved = tmp_path / "nav.json"
    saved.write_text(result.model_dump_json(), encoding="utf-8")
    record = load_walk(saved)
    assert record.question == "Who approves refunds?" and record.budgets["max_bodies"] == 10
    tree = fold(record.events)
    assert tree.root.choice("finance/").state == "kept"
    assert tree.root.children["finance/"].concepts["finance/refunds.md"].grade == "relevant"
    text = render_tree(record)
    assert text.startswith("Walk for: Who approves refunds?")
    assert "refunds.md  relevant (judge):" in text


def test_cli_trace_tree_json_and_filters(tmp_path: Path) -> None:
    runner = CliRunner()
    plain = runner.invoke(main, ["trace", str(WALK)])
    assert plain.exit_code == 0, plain.output
    assert plain.output.startswith("19 events over 0.051 s") and "\x1b[" not in plain.output
    forced = runner.invoke(main, ["trace", str(WALK), "--color"])
    assert "\x1b[32m" in forced.output
    only = runner.invoke(main, ["trace", str(WALK), "--only", "relevant"])
    assert "refunds.md" in only.output and "overview.md" not in only.output
    as_json = runner.invoke(main, ["trace", str(WALK), "--json"])
    data = json.loads(as_json.output)
    assert data["stopped_by"] == "bodies" and data["totals"]["judged"] == 4
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "offered"}\nnot json\n', encoding="utf-8")
    failed = runner.invoke(main, ["trace", str(bad)])
    assert failed.exit_code == 1 and f"{bad}:2:" in failed.output
    usage = runner.invoke(main, ["trace", str(WALK), "--only", "everything"])
    assert usage.exit_code == 2


def test_cli_navigate_show_trace_and_report(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    out = tmp_path / "walk.html"
    result = CliRunner().invoke(
        main, ["navigate", str(bundle), "Who approves refunds?", "--show-trace", "--report", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "refunds.md  relevant (judge):" in result.stderr and "refunds.md  relevant" not in result.stdout
    html = out.read_text(encoding="utf-8")
    assert "Who approves refunds?" in html and "finance director" in html  # the receipt's lines
    bad = CliRunner().invoke(
        main, ["navigate", str(bundle), "Who approves refunds?", "--report", str(tmp_path / "no" / "such" / "dir.html")]
    )
    assert bad.exit_code == 2 and "cannot write" in bad.stderr


def test_walk_file_names_are_safe_and_distinct() -> None:
    assert walk_file_name("q-12_a.b") == "q-12_a.b"
    odd = [walk_file_name(q) for q in ("a/b", "a b", "../x", "a:b", "")]
    assert all("/" not in n and not n.startswith(".") for n in odd)
    assert len(set(odd)) == len(odd)


def test_directories_read_on_are_told_apart_from_those_passed_over(tmp_path: Path) -> None:
    # Nothing in the bundle answers: the offline reader reads on into what its selector passed over.
    bundle = write_files(
        tmp_path / "b", {f"g{n}/item.md": concept(f"Item {n}", f"Bolts and nuts, lot {n}.") for n in range(8)}
    )
    result = navigate(bundle, "Who approves international travel?", angles="off")
    saved = tmp_path / "nav.json"
    saved.write_text(result.model_dump_json(), encoding="utf-8")
    record = load_walk(saved)
    tree = fold(record.events)
    assert [tree.root.choice(f"g{n}/").state for n in range(8)] == ["read on"] * 8
    assert "passed over by the selector, read on when nothing was found" in render_tree(record)
