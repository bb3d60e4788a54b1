"""okf eval: questions loading, gold matching, metrics, loss attribution, sampling, and the CLI."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from okf.errors import ConfigError
from okf.eval import (
    GoldIndex,
    GoldSpan,
    WalkView,
    attribute,
    load_questions,
    overlaps,
    pick,
    score,
    summarize,
)
from okf.eval.paths import normalize_source
from okf.eval.questions import EvalQuestion
from okf.eval.render import render
from okf.models import NavigationResult, NavigationStats, Receipt, ShortlistEntry, TraceEvent
from okf.readers.base import Usage


def span(source: str = "a.txt", start: int = 10, end: int = 12) -> GoldSpan:
    return GoldSpan(source=source, start_line=start, end_line=end)


# ---- gold matching -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (1, 9, False),  # ends the line before
        (1, 10, True),  # touches the first line
        (12, 20, True),  # touches the last line
        (13, 20, False),  # starts the line after
        (11, 11, True),  # inside
        (1, 100, True),  # encloses
    ],
)
def test_overlap_edges(a: int, b: int, expected: bool) -> None:
    assert overlaps(a, b, span(start=10, end=12)) is expected


@pytest.mark.parametrize("raw", ["./a/b.txt", "a//b.txt", "a\\b.txt", "a/./b.txt", "a/c/../b.txt", " a/b.txt "])
def test_normalize_source_forms_agree(raw: str) -> None:
    assert normalize_source(raw) == "a/b.txt"


def test_normalize_source_unicode_forms_agree() -> None:
    assert normalize_source(unicodedata.normalize("NFD", "café.md")) == normalize_source("café.md")


@pytest.mark.parametrize("raw", ["../x.txt", "/etc/passwd", "a/../../x", "C:/x.txt", "https://x.org/a", "."])
def test_normalize_source_refuses_escapes(raw: str) -> None:
    with pytest.raises(ValueError):
        normalize_source(raw)


def test_index_matches_by_source_and_lines() -> None:
    index = GoldIndex.from_records(
        [
            ("c/one.md", "./a.txt", (1, 9)),
            ("c/two.md", "a.txt", (10, 20)),
            ("c/three.md", "b.txt", (10, 20)),  # same lines, other file
            ("c/four.md", "a.txt", None),  # no lines: cannot be matched
            ("c/five.md", "../a.txt", (10, 20)),  # escaping resource: unusable
        ]
    )
    assert index.covering(span("a.txt", 9, 10)) == ["c/one.md", "c/two.md"]
    assert index.covering(span("a.txt", 21, 30)) == []
    assert index.hits("c/two.md", span("a.txt", 20, 20))
    assert not index.hits("c/three.md", span("a.txt", 10, 10))
    assert index.entries_without_lines == 1 and index.unusable_resources == 1


def write_bundle(root: Path) -> Path:
    """A tiny bundle: two contract concepts with line provenance, one guide without, one broken concept."""
    (root / "contracts").mkdir(parents=True)
    (root / "guides").mkdir()
    (root / "index.md").write_text(
        "# Bundle\n\n- [Contracts](contracts/) - contract clauses\n- [Guides](guides/) - how-to guides\n",
        encoding="utf-8",
    )
    (root / "contracts" / "governing-law.md").write_text(
        "---\ntype: clause\ntitle: Governing law\nsources:\n  - resource: acme.txt\n    lines: [10, 12]\n---\n"
        "This agreement is governed by the law of the State of Texas.\n",
        encoding="utf-8",
    )
    (root / "contracts" / "termination.md").write_text(
        "---\ntype: clause\ntitle: Termination\nsources:\n  - resource: ./acme.txt\n    lines: [20, 25]\n---\n"
        "Either party may terminate this agreement with thirty days notice.\n",
        encoding="utf-8",
    )
    (root / "guides" / "vacation.md").write_text(
        "---\ntype: guide\ntitle: Vacation\n---\nNew hires get twenty vacation days.\n", encoding="utf-8"
    )
    return root


def test_index_from_bundle(tmp_path: Path) -> None:
    from okf.bundle import Bundle

    index = GoldIndex.from_bundle(Bundle.open(write_bundle(tmp_path / "b")))
    assert index.concepts == 3
    assert index.covering(span("acme.txt", 12, 20)) == ["contracts/governing-law.md", "contracts/termination.md"]


@pytest.mark.parametrize("mode", ["mirror", "url", "source_root"])
def test_index_maps_compiled_resources_back_to_source_paths(tmp_path: Path, mode: str) -> None:
    """However compile cites a source (its copy in the bundle, a URL, the compile folder), gold spans name
    the path under the compile folder and must still match."""
    from okf.bundle import Bundle
    from okf.compile import CompileOptions, compile_bundle

    src = tmp_path / "src" / "hr"
    src.mkdir(parents=True)
    (src / "leave.md").write_text("# Leave\n\nNew hires get fifteen vacation days.\n\n# Pay\n\nPaid monthly.\n")
    (src / "notes.txt").write_text("Notes\n\nThe office closes at noon on Fridays.\n")
    (src / "amendment #2 ?x 100%.txt").write_text("Amendment\n\nThe term is extended by two years.\n")
    options = {
        "mirror": CompileOptions(),
        "url": CompileOptions(sources_url="https://docs.example/src"),
        "source_root": CompileOptions(copy_sources=False),
    }[mode]
    compile_bundle(tmp_path / "src", tmp_path / "b", options=options)
    index = GoldIndex.from_bundle(Bundle.open(tmp_path / "b"))
    assert index.unusable_resources == 0 and not index.warnings
    assert index.covering(span("hr/leave.md", 3, 3)) and index.covering(span("hr/notes.txt", 3, 3))
    assert index.covering(span("hr/amendment #2 ?x 100%.txt", 3, 3))  # "#", "?", "%" encoded in the resource


def test_index_from_bundle_skips_broken_concept_with_warning(tmp_path: Path) -> None:
    from okf.bundle import Bundle

    root = write_bundle(tmp_path / "b")
    (root / "contracts" / "broken.md").write_text("---\ntype: [unclosed\n---\nbody\n", encoding="utf-8")
    index = GoldIndex.from_bundle(Bundle.open(root))
    assert len(index.warnings) == 1 and "contracts/broken.md" in index.warnings[0]
    assert index.covering(span("acme.txt", 10, 10)) == ["contracts/governing-law.md"]


# ---- metrics ------------------------------------------------------------------------------------------


def entry(path: str) -> ShortlistEntry:
    receipt = Receipt(evidence_id="e", path=path, start_line=1, end_line=2, sha256="0" * 64)
    return ShortlistEntry(concept_id=path[:-3], path=path, title=path, type="clause", receipt=receipt)


def nav(
    shortlist: list[str],
    trace: list[tuple[str, str | None, dict]] | None = None,
    *,
    bodies: int = 5,
    stopped_by: str | None = None,
) -> NavigationResult:
    events = [TraceEvent(seq=i, t=0.0, kind=k, path=p, data=d) for i, (k, p, d) in enumerate(trace or [])]
    stats = NavigationStats(
        bodies_judged=bodies,
        usage={
            "selector": Usage(calls=2, prompt_tokens=100, completion_tokens=10),
            "judge": Usage(calls=3, prompt_tokens=300, completion_tokens=30),
        },
    )
    return NavigationResult(
        question="q",
        bundle="b",
        corpus_id="c",
        reader="scripted",
        shortlist=[entry(p) for p in shortlist],
        stats=stats,
        trace=events,
        stopped_by=stopped_by,
    )  # type: ignore[arg-type]


INDEX = GoldIndex.from_records(
    [
        ("d/hit1.md", "a.txt", (1, 5)),
        ("d/hit2.md", "a.txt", (40, 50)),
        ("d/other.md", "a.txt", (100, 110)),
        ("d/both.md", "b.txt", (1, 3)),
    ]
)


def question(*spans: GoldSpan) -> EvalQuestion:
    return EvalQuestion(id="q1", question="Which law governs?", gold=list(spans))


def test_score_metrics_on_hand_built_result() -> None:
    q = question(span("a.txt", 2, 2), span("a.txt", 45, 46), span("b.txt", 9, 9))
    result = score(q, nav(["d/hit1.md", "d/other.md", "d/hit2.md"]), INDEX)
    assert [o.hit for o in result.spans] == [True, True, False]
    assert result.recall_any and not result.recall_all
    assert result.coverage == pytest.approx(2 / 3)
    assert result.precision == pytest.approx(2 / 3)
    assert result.spans[2].lost_at == "no_concept" and result.spans[2].covering == 0
    assert (result.bodies_judged, result.calls, result.tokens) == (5, 5, 440)


def test_score_empty_shortlist_and_summary() -> None:
    q = question(span("a.txt", 2, 2))
    empty = score(q, nav([]), INDEX)
    assert empty.precision is None and not empty.recall_any and empty.coverage == 0
    full = score(q, nav(["d/hit1.md"], bodies=7, stopped_by="bodies"), INDEX)
    summary = summarize([empty, full])
    assert summary.recall_any == 0.5 and summary.recall_all == 0.5
    assert summary.precision == 1.0 and summary.empty_shortlists == 1
    assert summary.bodies_judged_total == 12 and summary.calls_total == 10
    assert summary.spans == 2 and summary.spans_hit == 1
    assert summary.losses == {"never_offered": 1}
    assert summary.stopped_by == {"bodies": 1, "done": 1}
    text = render_report([empty, full])
    assert "recall (any gold span hit)   50.0%" in text and "never_offered" in text


def render_report(results: list) -> str:
    from okf.eval import EvalReport

    return render(
        EvalReport(bundle="b", reader="scripted", results=results, summary=summarize(results), questions_total=2),
        verbose=True,
    )


def test_walk_failure_is_charged_to_walk_failed() -> None:
    result = score(question(span("a.txt", 2, 2)), None, INDEX, error="DeadlineExceeded: late")
    assert result.spans[0].lost_at == "walk_failed" and result.error


# ---- loss attribution ---------------------------------------------------------------------------------

ROOT_OFFER = ("offered", "", {"signposts": ["d/", "e/"], "page": 1})


@pytest.mark.parametrize(
    ("trace", "expected"),
    [
        ([], "never_offered"),
        ([("offered", "", {"signposts": ["e/"], "page": 1})], "never_offered"),
        ([ROOT_OFFER, ("selected", "", {"kept": ["e/"], "reasons": {}})], "not_opened"),
        ([ROOT_OFFER, ("selected", "", {"kept": ["d/"], "reasons": {}})], "not_reached"),
        (
            [
                ROOT_OFFER,
                ("selected", "", {"kept": ["d/"], "reasons": {}}),
                ("offered", "d/", {"signposts": ["d/hit1.md"], "page": 1}),
                ("selected", "d/", {"kept": [], "reasons": {}}),
            ],
            "not_opened",
        ),
        (
            [
                ROOT_OFFER,
                ("selected", "", {"kept": ["d/"], "reasons": {}}),
                ("collected", "d/", {"concepts": ["d/hit1.md"]}),
                ("budget", None, {"stopped_by": "bodies"}),
            ],
            "not_reached",
        ),
        ([("verdict", "d/hit1.md", {"relevant": False, "reason": "no", "failed": False})], "judged_not_relevant"),
        ([("verdict", "d/hit1.md", {"relevant": None, "reason": "", "failed": True})], "judge_failed"),
        ([("verdict", "d/hit1.md", {"relevant": True, "reason": "yes", "failed": False})], "not_shortlisted"),
    ],
)
def test_loss_categories(trace: list, expected: str) -> None:
    result = score(question(span("a.txt", 2, 2)), nav([], trace), INDEX)
    assert result.spans[0].lost_at == expected


def test_loss_takes_the_furthest_stage_of_covering_concepts() -> None:
    view = WalkView.from_trace(
        nav(
            [],
            [
                ("verdict", "x/one.md", {"relevant": False, "failed": False}),
                ("verdict", "y/two.md", {"relevant": None, "failed": True}),
            ],
        ).trace
    )
    assert attribute(["x/one.md", "y/two.md", "z/three.md"], view, set()) == "judge_failed"
    assert attribute(["x/one.md", "z/three.md"], view, {"z/three.md"}) is None
    assert attribute([], view, set()) == "no_concept"


def test_root_concept_never_offered_when_root_never_listed() -> None:
    assert WalkView().stage("top.md", set()) == "never_offered"
    view = WalkView.from_trace(nav([], [("offered", "", {"signposts": ["top.md"]})]).trace)
    assert view.stage("top.md", set()) == "not_opened"


# ---- questions file and sampling ----------------------------------------------------------------------

GOOD = {"id": "q1", "question": "Which law?", "gold": [{"source": "a.txt", "start_line": 1, "end_line": 2}]}


def write_questions(path: Path, rows: list) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_load_questions_normalizes_and_skips_blank_lines(tmp_path: Path) -> None:
    row = dict(GOOD, gold=[{"source": "./x//a.txt", "start_line": 3, "end_line": 3, "start": 5, "end": 9}])
    qs = load_questions(write_questions(tmp_path / "q.jsonl", [row, "", dict(GOOD, id="q2")]))
    assert [q.id for q in qs] == ["q1", "q2"] and [q.line for q in qs] == [1, 3]
    assert qs[0].gold[0].source == "x/a.txt" and qs[0].gold[0].start == 5


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (dict(GOOD, id=""), "'id'"),
        (dict(GOOD, question=" "), "'question'"),
        (dict(GOOD, gold=[]), "'gold' must be a non-empty list"),
        (dict(GOOD, gold=[{"source": "a.txt", "start_line": 5, "end_line": 2}]), "after end_line"),
        (dict(GOOD, gold=[{"source": "a.txt", "start_line": 0, "end_line": 2}]), "start_line and end_line >= 1"),
        (dict(GOOD, gold=[{"source": "a.txt", "start_line": True, "end_line": 2}]), "start_line and end_line"),
        (dict(GOOD, gold=[{"source": "../a.txt", "start_line": 1, "end_line": 2}]), "leaves the sources folder"),
        (dict(GOOD, gold=["a.txt"]), "gold[0] is str"),
        (GOOD, "duplicate id 'q1' (first on line 1)"),
    ],
)
def test_bad_questions_file_names_file_and_line(tmp_path: Path, row: object, message: str) -> None:
    path = write_questions(tmp_path / "q.jsonl", [GOOD, "", row])
    with pytest.raises(ConfigError) as info:
        load_questions(path)
    assert f"{path}:3: " in str(info.value) and message in str(info.value)


def test_missing_and_empty_questions_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_questions(tmp_path / "nope.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="no questions"):
        load_questions(tmp_path / "empty.jsonl")


def test_sampling_is_deterministic_and_in_file_order() -> None:
    qs = [EvalQuestion(id=f"q{i}", question="x", gold=[span()]) for i in range(50)]
    first = [q.id for q in pick(qs, sample=10, seed=3)]
    assert first == [q.id for q in pick(qs, sample=10, seed=3)]
    assert first != [q.id for q in pick(qs, sample=10, seed=4)]
    assert first == sorted(first, key=lambda i: int(i[1:]))
    assert [q.id for q in pick(qs, sample=10, seed=3, limit=4)] == first[:4]
    assert len(pick(qs, sample=500)) == 50
    with pytest.raises(ConfigError):
        pick(qs, sample=0)


# ---- evaluate and the CLI on a tiny bundle --------------------------------------------------------------

TINY_QUESTIONS = [
    {
        "id": "law",
        "question": "Which law governs the contract clauses?",
        "gold": [{"source": "acme.txt", "start_line": 11, "end_line": 11}],
    },
    {
        "id": "term",
        "question": "How much notice does contract termination need?",
        "gold": [{"source": "./acme.txt", "start_line": 21, "end_line": 22}],
    },
    {
        "id": "vacation",
        "question": "How many vacation days do new hires get?",
        "gold": [{"source": "hr.txt", "start_line": 1, "end_line": 1}],
    },
]


def test_evaluate_on_tiny_bundle_is_the_same_concurrently(tmp_path: Path) -> None:
    from okf.eval import evaluate
    from okf.readers import OfflineReader

    root = write_bundle(tmp_path / "b")
    questions = write_questions(tmp_path / "q.jsonl", TINY_QUESTIONS)
    serial = evaluate(root, questions, reader=OfflineReader())
    concurrent = evaluate(root, questions, reader=OfflineReader(), concurrency=3)
    assert [r.shortlist for r in serial.results] == [r.shortlist for r in concurrent.results]
    # The vacation concept says what was asked, but the gold cites a source the bundle does not hold.
    assert [r.shortlist for r in serial.results] == [
        ["contracts/governing-law.md"],
        ["contracts/termination.md"],
        ["guides/vacation.md"],
    ]
    assert serial.summary.recall_any == pytest.approx(2 / 3)
    assert serial.summary.losses == {"no_concept": 1}
    assert any("hr.txt" in w for w in serial.warnings)


def test_cli_json_output(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from okf.cli import main

    root = write_bundle(tmp_path / "b")
    questions = write_questions(tmp_path / "q.jsonl", TINY_QUESTIONS)
    result = CliRunner().invoke(
        main, ["eval", str(root), str(questions), "--json", "--sample", "2", "--seed", "1", "--max-bodies", "5"]
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["summary"]["questions"] == 2 and report["sample"] == 2 and report["seed"] == 1
    assert report["budgets"]["max_bodies"] == 5 and report["reader"] == "offline"
    assert {r["id"] for r in report["results"]} <= {q["id"] for q in TINY_QUESTIONS}
    assert report["index"]["concepts_with_lines"] == 2


def test_cli_human_table_and_bad_questions_file(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from okf.cli import main

    root = write_bundle(tmp_path / "b")
    questions = write_questions(tmp_path / "q.jsonl", TINY_QUESTIONS)
    result = CliRunner().invoke(main, ["eval", str(root), str(questions), "--verbose", "--quiet"])
    assert result.exit_code == 0, result.stderr
    assert "law: gold 1/1" in result.stdout and "recall (any gold span hit)   66.7%" in result.stdout
    as_json = CliRunner().invoke(main, ["eval", str(root), str(questions), "--json", "--quiet"])
    summary = json.loads(as_json.stdout)["summary"]
    assert summary["words_shortlist_mean"] > 0
    assert f"words of the shortlist       mean {summary['words_shortlist_mean']:.0f}\n" in result.stdout
    read = summary["words_signposts_mean"] + summary["words_bodies_mean"]
    assert f"words read by the walk       mean {read:.0f}  " in result.stdout
    bad = write_questions(tmp_path / "bad.jsonl", [TINY_QUESTIONS[0], "{oops"])
    result = CliRunner().invoke(main, ["eval", str(root), str(bad)])
    assert result.exit_code == 2 and f"{bad}:2: not valid JSON" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_development_script_compares_two_runs_question_by_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """scripts/eval_dev.py --compare A B (docs/benchmarks.md, "Running heads") prints exactly the questions whose
    outcome differs between two --out files, with both outcomes."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("eval_dev", Path(__file__).parents[1] / "scripts/eval_dev.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    before, after = tmp_path / "a.json", tmp_path / "b.json"
    before.write_text(json.dumps({"cuad": {"q1": [True, True], "q2": [False, False], "q3": [True, False]}}))
    after.write_text(json.dumps({"cuad": {"q1": [True, True], "q2": [True, False], "q3": [True, True]}}))
    script.compare(str(before), str(after))
    assert capsys.readouterr().out.splitlines() == [
        "cuad q2 [False, False] -> [True, False]",
        "cuad q3 [True, False] -> [True, True]",
    ]
