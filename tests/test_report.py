"""The HTML pages as text: escaping, self-containment, the CSP, receipts, tolerance of what newer walks add,
and bad input to ``okf report``. (The same pages in a real browser: tests/test_browser.py.)"""

from __future__ import annotations

import base64
import hashlib
import html as html_lib
import json
import re
from pathlib import Path

import pytest
from builders import HOSTILE_TITLE, hostile_bundle
from click.testing import CliRunner

from okf.answer import ask
from okf.bundle import Bundle
from okf.cli import main
from okf.errors import BundleError
from okf.html import asset
from okf.report import walk_page
from okf.report.evaluation import load_baselines, load_eval
from okf.trace import WalkRecord, load_walk

GOLDEN_WALK = Path(__file__).parent / "golden" / "trace" / "walk.jsonl"


def _self_contained(html: str) -> None:
    assert not re.search(r"""(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert "<link" not in html and "@import" not in html and "url(" not in html
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert policy
    rules = html_lib.unescape(policy.group(1))
    assert "default-src 'none'" in rules
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    assert scripts == [asset("page.js")]
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert f"'sha256-{digest}'" in rules


@pytest.fixture
def answer_page(tmp_path: Path) -> str:
    bundle = hostile_bundle(tmp_path / "bundle")
    result = ask(bundle, "Who approves refunds?")
    assert result.status == "answered" and result.citations
    return walk_page(WalkRecord.from_result(result), bundle=Bundle.open(bundle))


def test_walk_page_escapes_bundle_strings_and_is_self_contained(answer_page: str) -> None:
    assert "<script>window.__okfPwned" not in answer_page and "<img src=x" not in answer_page
    assert "&lt;script&gt;window.__okfPwned = 1&lt;/script&gt;&lt;img src=x onerror=" in answer_page
    _self_contained(answer_page)


def test_walk_page_shows_answer_citation_receipt_lines_and_budgets(answer_page: str) -> None:
    assert re.search(r'<a class="cite" href="#cite-1" data-reveal="cite-1">\[1\]</a>', answer_page)
    receipt = answer_page[answer_page.index('id="cite-1"') :]
    receipt = receipt[: receipt.index("</details>")]
    assert "sha256 matches" in receipt and "approved by the finance director." in receipt
    assert re.search(r'data-n="\d+">Refunds over 500 dollars', receipt)
    assert 'data-budget="max_bodies"' in answer_page and "120" in answer_page  # the default limit, recorded
    assert "answerer" in answer_page and "judge" in answer_page  # model usage per role


def test_walk_page_renders_grades_unknown_events_fields_and_orchestration(tmp_path: Path) -> None:
    record = load_walk(GOLDEN_WALK)
    record.extra["orchestration"] = {
        "angles": [{"name": "approvals <x>", "state": "done"}],
        "escalations": [],
        "states": {"finance/": "exhausted"},
    }
    html = walk_page(record, bundle=None)
    assert 'data-grade="partial"' in html and ">partial</span>" in html
    assert 'data-grade="failed"' in html and "not valid JSON" in html
    assert "confidence" in html  # an unknown verdict field is shown, not dropped
    assert 'id="other-events"' not in html and ">angle<" in html  # an orchestration event, shown as one
    assert 'id="orchestration"' in html and "approvals &lt;x&gt;" in html and "exhausted" in html
    assert "thresholds" in html and "\x1b" not in html
    assert "Lines not shown" not in html  # no shortlist in a bare trace: nothing to show
    _self_contained(html)


def test_receipts_that_cannot_be_shown_say_why(tmp_path: Path) -> None:
    bundle = hostile_bundle(tmp_path / "bundle")
    result = ask(bundle, "Who approves refunds?").model_dump(mode="json")
    nav = result["navigation"]
    nav["shortlist"][0]["receipt"]["sha256"] = "0" * 64
    nav["shortlist"][1:] = [
        {**nav["shortlist"][0], "receipt": {**nav["shortlist"][0]["receipt"], "path": "../../etc/passwd"}}
    ]
    html = walk_page(WalkRecord.from_result(result), bundle=str(bundle))
    assert "sha256 differs" in html and "no longer match" in html
    assert "Lines not shown" in html and "root:" not in html
    gone = walk_page(WalkRecord.from_result({**result, "navigation": {**nav, "bundle": str(tmp_path / "gone")}}))
    assert "Lines not shown: the bundle could not be opened" in gone


def test_report_inputs_are_checked(tmp_path: Path) -> None:
    bad = tmp_path / "eval.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(BundleError, match="not valid JSON"):
        load_eval(bad)
    bad.write_text(json.dumps({"summary": {}, "results": [{"id": 1}]}), encoding="utf-8")
    with pytest.raises(BundleError, match="not an evaluation report: "):
        load_eval(bad)
    baselines = tmp_path / "baselines.json"
    baselines.write_text(json.dumps([{"name": "x", "recall_any": 0.5}]), encoding="utf-8")
    with pytest.raises(BundleError, match=r"baseline \[0\] needs"):
        load_baselines(baselines)
    result = CliRunner().invoke(main, ["report", str(tmp_path / "missing.json"), "--html", str(tmp_path / "o.html")])
    assert result.exit_code == 1 and "missing.json: no such file" in result.stderr
    result = CliRunner().invoke(main, ["report", str(bad)])
    assert result.exit_code == 2  # --html is required


def test_trace_html_of_a_saved_answer_shows_the_hostile_title_as_text(tmp_path: Path) -> None:
    bundle = hostile_bundle(tmp_path / "bundle")
    saved = tmp_path / "answer.json"
    saved.write_text(ask(bundle, "Who approves refunds?").model_dump_json(), encoding="utf-8")
    shown = CliRunner().invoke(main, ["trace", str(saved), "--html", str(tmp_path / "a.html")])
    assert shown.exit_code == 0 and "wrote" in shown.stderr
    page = (tmp_path / "a.html").read_text(encoding="utf-8")
    assert "<script>window" not in page and HOSTILE_TITLE in html_lib.unescape(page)
    tree = CliRunner().invoke(main, ["trace", str(saved)])
    assert "Answer: answered, citing finance/refunds" in tree.stdout
