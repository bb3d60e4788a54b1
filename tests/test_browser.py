"""The HTML pages in a real browser: headless Chromium (Debian's chromium and chromium-driver) driven by
selenium. Skipped, saying why, when the browser, its driver or selenium is missing (.ci/run installs them).

One browser for the module. Every page is opened from a file:// URL; the pages' own Content-Security-Policy
forbids any fetch, and the tests check that nothing was fetched and no injected script ran.
"""

from __future__ import annotations

import json
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from builders import HOSTILE_TITLE, hostile_bundle, write_files
from click.testing import CliRunner

from okf.cli import main
from okf.eval.loss import STAGES

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1200,1000",
)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
    if not CHROMIUM or not DRIVER:
        pytest.skip(
            "headless Chromium not available: install Debian's chromium and chromium-driver "
            "(apt-get install -y chromium chromium-driver; .ci/run does)"
        )
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def _open(driver: object, page: Path) -> None:
    driver.get(page.resolve().as_uri())
    assert driver.execute_script("return document.readyState") == "complete"


def _nothing_fetched_nothing_injected(driver: object) -> None:
    from selenium.webdriver.common.by import By

    assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert driver.execute_script("return window.__okfPwned === undefined")
    assert not driver.find_elements(By.CSS_SELECTOR, "img[src='x'], main script")


def test_walk_page_tree_citations_receipts_and_hostile_title(browser: object, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    bundle = hostile_bundle(tmp_path / "bundle")
    page = tmp_path / "answer.html"
    result = CliRunner().invoke(main, ["ask", str(bundle), "Who approves refunds?", "--report", str(page), "-q"])
    assert result.exit_code == 0, result.output
    _open(browser, page)
    shot = tmp_path / "answer.png"
    assert browser.save_screenshot(str(shot))
    width, height = _png_size(shot)
    assert width == 1200 and height > 500 and shot.stat().st_size > 20_000  # a rendered page, not a blank one

    tree = browser.find_element(By.ID, "tree")
    assert tree.is_displayed()
    assert len(tree.find_elements(By.CSS_SELECTOR, "details.dir")) >= 2
    relevant = tree.find_element(By.CSS_SELECTOR, "li.concept[data-path='finance/refunds.md']")
    assert relevant.get_attribute("data-grade") == "relevant" and relevant.is_displayed()

    receipt = browser.find_element(By.ID, "cite-1")
    line = receipt.find_element(By.CSS_SELECTOR, ".lines .ln")
    assert not line.is_displayed(), "the receipt's lines are hidden until the citation is clicked"
    citation = browser.find_element(By.CSS_SELECTOR, "a.cite[data-reveal='cite-1']")
    assert citation.text == "[1]"
    citation.click()
    assert receipt.get_attribute("open") is not None and line.is_displayed()
    lines = receipt.find_elements(By.CSS_SELECTOR, ".lines .ln")
    assert any("approved by the finance director" in ln.text for ln in lines)
    assert lines[0].get_attribute("data-n").isdigit()
    assert "sha256 matches" in receipt.find_element(By.TAG_NAME, "summary").text

    # The hostile title is shown as text, exactly, and none of it ran.
    assert HOSTILE_TITLE in browser.find_element(By.TAG_NAME, "body").text
    _nothing_fetched_nothing_injected(browser)

    # Expand all / collapse all work on the tree.
    browser.find_element(By.CSS_SELECTOR, "button[data-toggle='close']").click()
    assert not relevant.is_displayed()
    browser.find_element(By.CSS_SELECTOR, "button[data-toggle='open']").click()
    assert relevant.is_displayed()


def _compiled_eval(tmp_path: Path) -> tuple[Path, Path, Path]:
    sources = write_files(
        tmp_path / "sources",
        {
            "finance/refunds.md": "# Refunds\n\nRefunds over 500 dollars are approved by the finance director.\n",
            "travel/hotels.md": "# Hotels\n\nHotel stays are capped at 200 dollars a night.\n",
            "travel/flights.md": "# Flights\n\nEconomy class is the rule for every flight.\n",
        },
    )
    bundle = tmp_path / "bundle"
    runner = CliRunner()
    assert runner.invoke(main, ["compile", str(sources), "-o", str(bundle), "-q"]).exit_code == 0
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        "\n".join(
            json.dumps(q)
            for q in [
                {
                    "id": "refunds",
                    "question": "Who approves refunds?",
                    "gold": [{"source": "finance/refunds.md", "start_line": 3, "end_line": 3}],
                },
                {
                    "id": "q/<b>odd</b>",
                    "question": "Which cabin may staff book on an aircraft? <script>window.__okfPwned=3</script>",
                    "gold": [{"source": "travel/flights.md", "start_line": 3, "end_line": 3}],
                },
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    walks = tmp_path / "walks"
    ran = runner.invoke(main, ["eval", str(bundle), str(questions), "--json", "--walks", str(walks), "-q"])
    assert ran.exit_code == 0, ran.output
    report = tmp_path / "eval.json"
    report.write_text(ran.stdout, encoding="utf-8")
    return report, walks, bundle


def test_eval_page_chart_losses_and_walk_links(browser: object, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    report, walks, _ = _compiled_eval(tmp_path)
    baselines = tmp_path / "baselines.json"
    baselines.write_text(
        json.dumps([{"name": "BM25 top-3 <i>ref</i>", "recall_any": 1.0, "bodies_mean": 3}]), encoding="utf-8"
    )
    page = tmp_path / "eval.html"
    made = CliRunner().invoke(
        main,
        ["report", str(report), "--html", str(page), "--walks", str(walks), "--baselines", str(baselines), "--json"],
    )
    assert made.exit_code == 0, made.output
    written = json.loads(made.stdout)
    assert written["report"] == str(page)
    _open(browser, page)
    shot = tmp_path / "eval.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 20_000

    chart = browser.find_element(By.CSS_SELECTOR, "figure.chart svg")
    assert chart.is_displayed() and chart.size["width"] > 300
    assert len(chart.find_elements(By.CSS_SELECTOR, "circle.point.okf")) == 1
    assert len(chart.find_elements(By.CSS_SELECTOR, "rect.point.baseline")) == 1
    assert "BM25 top-3 <i>ref</i>" in browser.find_element(By.TAG_NAME, "figcaption").text
    bars = browser.find_elements(By.CSS_SELECTOR, ".losses .hbar")
    assert [b.get_attribute("data-stage") for b in bars] == list(STAGES)

    missed = browser.find_elements(By.CSS_SELECTOR, "tr.missed")
    assert missed and "<script>" in missed[-1].text  # the hostile question is shown as text
    _nothing_fetched_nothing_injected(browser)
    link = missed[-1].find_element(By.CSS_SELECTOR, "a.walk")
    link.click()
    assert browser.current_url.endswith(".html") and "eval-walks/" in browser.current_url
    assert browser.find_element(By.ID, "gold").is_displayed()
    assert browser.find_element(By.ID, "tree").is_displayed()
    _nothing_fetched_nothing_injected(browser)
    browser.find_element(By.CSS_SELECTOR, "nav.crumbs a").click()
    assert browser.current_url == page.resolve().as_uri()


def test_exported_site_every_internal_link_resolves(browser: object, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    bundle = hostile_bundle(tmp_path / "bundle")
    site = tmp_path / "site"
    result = CliRunner().invoke(main, ["export", "site", str(bundle), "-o", str(site), "-q"])
    assert result.exit_code == 0, result.output
    start = (site / "index.html").resolve().as_uri()
    queue, visited, links = [start], set(), 0
    while queue:
        url = queue.pop()
        if url in visited:
            continue
        visited.add(url)
        browser.get(url)
        # Every page is one of ours (a missing file would be the browser's error page, without our generator).
        assert (
            browser.find_element(By.CSS_SELECTOR, "meta[name='generator']").get_attribute("content").startswith("okf")
        )
        _nothing_fetched_nothing_injected(browser)
        for anchor in browser.find_elements(By.CSS_SELECTOR, "a[href]"):
            target = anchor.get_attribute("href")
            raw = anchor.get_attribute("outerHTML")
            if target.startswith("file://"):
                links += 1
                page = target.split("#", 1)[0]
                if 'href="#not-exported"' in raw:
                    continue  # a link to nothing the bundle has: kept as text, pointing nowhere
                assert Path(page.removeprefix("file://")).is_file(), f"{url} links to a missing page {page}"
                queue.append(page)
    assert len(visited) == 6 and links > 10
    browser.get((site / "finance" / "refunds.html").resolve().as_uri())
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith(HOSTILE_TITLE)
    assert browser.find_element(By.CSS_SELECTOR, "table.fm").is_displayed()
    shot = tmp_path / "site.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 20_000
