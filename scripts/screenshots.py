"""Make the screenshots of docs/img/ from real runs on bundles/harborview, offline, in headless Chromium.

Usage: python scripts/screenshots.py [--out docs/img] [--keep DIR]

- trace-answer.png: `okf ask bundles/harborview "How many paid time off days ..." --report`, its citation
  [1] clicked (the receipt's lines revealed);
- trace-tree.png: the tree of the same walk;
- eval-report.png: `okf report` of `okf eval bundles/harborview bundles/sources/harborview-questions.jsonl`
  at max_bodies 5, 15 and 120, with two baselines measured on the same questions (BM25 top-k with k = okf's
  bodies at max_bodies 120, when rank-bm25 from the bench extra is installed; the offline judge on every concept).

Needs Debian's chromium and chromium-driver and selenium (the test extra). PNGs are reduced to 256 colours
when Pillow is installed (the bench extra), to keep them small.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from baselines import BaselineRun, _documents, judge_everything, summarize_runs

from okf.answer import ask
from okf.bundle import Bundle
from okf.eval import GoldIndex, evaluate, load_questions
from okf.models import Budgets
from okf.readers import OfflineReader
from okf.report import walk_page, write_eval_report, write_html
from okf.trace import WalkRecord
from okf.trace.load import walk_file_name

REPO = Path(__file__).resolve().parents[1]
BUNDLE = REPO / "bundles" / "harborview"
QUESTIONS = REPO / "bundles" / "sources" / "harborview-questions.jsonl"
QUESTION = "How many paid time off days does a new employee get each year?"
BUDGETS = (5, 15, 120)


def browser(width: int, height: int, profile: Path):  # type: ignore[no-untyped-def]
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--window-size={width},{height}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)


def shrink(path: Path) -> None:
    """256 colours, when Pillow is installed: text screenshots lose nothing visible and most of their size."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def baselines(work: Path, reports: dict[int, dict]) -> Path:
    """BM25 top-k (k = okf's bodies per question at the largest budget) and the judge on every concept."""
    bundle = Bundle.open(BUNDLE)
    questions = load_questions(QUESTIONS)
    index = GoldIndex.from_bundle(bundle)
    rows = []
    try:
        from baselines import BM25Index, bm25_topk

        k_by_id = {r["id"]: max(1, r["bodies_judged"]) for r in reports[max(BUDGETS)]["results"]}
        bm25 = bm25_topk(BM25Index(bundle), questions, k_by_id)
        summary = summarize_runs(questions, bm25, index)
        rows.append(
            {
                "name": "BM25 top-k, k = okf's bodies (max_bodies 120)",
                "recall_any": summary.recall_any,
                "bodies_mean": summary.bodies_mean,
            }
        )
    except ImportError:
        print("rank-bm25 not installed (pip install -e '.[bench]'): no BM25 baseline", file=sys.stderr)
    budgets = Budgets()
    docs = _documents(bundle, list(bundle.iter_concepts()), budgets.body_chars)
    reader = OfflineReader()

    async def judge_all() -> list[BaselineRun]:
        return [await judge_everything(bundle, q, reader, budgets, documents=docs) for q in questions]

    summary = summarize_runs(questions, asyncio.run(judge_all()), index)
    rows.append(
        {"name": "offline judge on every concept", "recall_any": summary.recall_any, "bodies_mean": summary.bodies_mean}
    )
    path = work / "baselines.json"
    path.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "img"))
    parser.add_argument("--keep", default=None, help="write the pages here instead of a temporary folder")
    args = parser.parse_args()
    out = Path(args.out)
    work = Path(args.keep or tempfile.mkdtemp(prefix="okf-shots-"))
    work.mkdir(parents=True, exist_ok=True)

    answer = ask(BUNDLE, QUESTION)
    write_html(work / "answer.html", walk_page(WalkRecord.from_result(answer), bundle=str(BUNDLE)))

    reports: dict[int, dict] = {}
    walks = work / "walks"
    walks.mkdir(exist_ok=True)
    for max_bodies in BUDGETS:

        def save(question, result) -> None:  # type: ignore[no-untyped-def]
            (walks / f"{walk_file_name(question.id)}.json").write_text(result.model_dump_json(), encoding="utf-8")

        report = evaluate(
            BUNDLE, QUESTIONS, budgets={"max_bodies": max_bodies}, on_walk=save if max_bodies == max(BUDGETS) else None
        )
        reports[max_bodies] = json.loads(report.model_dump_json())
        (work / f"eval-{max_bodies}.json").write_text(report.model_dump_json(indent=2), encoding="utf-8")
        print(
            f"max_bodies {max_bodies}: recall {report.summary.recall_any:.0%}, "
            f"bodies {report.summary.bodies_judged_mean:.1f}",
            file=sys.stderr,
        )
    evals = [work / f"eval-{max(BUDGETS)}.json"] + [work / f"eval-{b}.json" for b in BUDGETS if b != max(BUDGETS)]
    write_eval_report(evals, work / "eval.html", baselines=baselines(work, reports), walks_dir=walks)

    from selenium.webdriver.common.by import By

    driver = browser(1100, 1400, work / "profile")
    try:
        driver.get((work / "answer.html").as_uri())
        driver.find_element(By.CSS_SELECTOR, "a.cite[data-reveal='cite-1']").click()
        driver.execute_script("window.scrollTo(0, 0)")
        driver.save_screenshot(str(out / "trace-answer.png"))
        driver.find_element(By.ID, "walk").location_once_scrolled_into_view  # noqa: B018
        driver.find_element(By.ID, "tree").screenshot(str(out / "trace-tree.png"))
        driver.set_window_size(1100, 1500)
        driver.get((work / "eval.html").as_uri())
        driver.save_screenshot(str(out / "eval-report.png"))
    finally:
        driver.quit()
    for name in ("trace-answer.png", "trace-tree.png", "eval-report.png"):
        shrink(out / name)
        print(f"{out / name}: {(out / name).stat().st_size / 1024:.0f} KB", file=sys.stderr)
    print(f"pages in {work}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
