"""okf export: llms.txt (golden files), llms-full.txt and its cap, per-concept files, the static site, escaping,
determinism and incremental writes. The site in a real browser: tests/test_browser.py.

Golden files live in tests/golden/export/; regenerate with OKF_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import html as html_lib
import json
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from builders import HOSTILE_TITLE, concept, hostile_bundle, write_files
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from okf.bundle import Bundle
from okf.cli import main
from okf.errors import ConfigError
from okf.export import export_llms_txt, export_site
from okf.export.llms import escape

GOLDEN = Path(__file__).parent / "golden" / "export"
AS_OF = date(2026, 6, 1)


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("OKF_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs (OKF_UPDATE_GOLDEN=1 to accept)"


def small_bundle(root: Path) -> Path:
    return write_files(
        root,
        {
            "index.md": '---\nokf_version: "0.2"\n---\n# Acme Handbook\n\nPolicies and procedures of Acme.\n\n'
            "* [Welcome](welcome.md) - start here\n* [Finance](finance/index.md) - money matters\n"
            "* [People](people/index.md) - staff and leave\n",
            "welcome.md": concept(
                "Welcome", "Read the [refunds rule](finance/refunds.md) first.", description="How to use this handbook"
            ),
            "finance/index.md": "# Finance\n\nMoney matters.\n\n* [Refunds](refunds.md) - who approves refunds\n"
            "* [Old refunds](refunds-2019.md) - superseded rule\n"
            "* [Cards](cards/index.md) - corporate cards\n",
            "finance/refunds.md": concept(
                "Refunds", "Refunds over 500 dollars need the finance director.", description="Who approves refunds"
            ),
            "finance/refunds-2019.md": concept("Refunds (2019)", "Refunds needed the CEO.", status="deprecated"),
            "finance/cards/index.md": "# Cards\n\n* [Card limits](limits.md) - limits per role\n",
            "finance/cards/limits.md": concept(
                "Card limits <b>& caps</b> [draft]", "Cards are capped at 2000 dollars.", stale_after="2026-01-31"
            ),
            "people/index.md": "# People\n\n* [Leave](leave.md) - leave types\n",
            "people/leave.md": concept("Leave", "Employees get 15 days of leave.\n\nSee [travel](../travel/none.md)."),
        },
    )


def test_llms_txt_and_full_match_golden(tmp_path: Path) -> None:
    bundle = small_bundle(tmp_path / "b")
    report = export_llms_txt(bundle, tmp_path / "out", as_of=AS_OF)
    assert (report.concepts, report.current, report.optional, report.full_concepts) == (5, 3, 2, 3)
    _golden("llms.txt", (tmp_path / "out" / "llms.txt").read_text(encoding="utf-8"))
    _golden("llms-full.txt", (tmp_path / "out" / "llms-full.txt").read_text(encoding="utf-8"))
    assert (tmp_path / "out" / "finance" / "refunds.md").read_bytes() == (
        bundle / "finance" / "refunds.md"
    ).read_bytes()


def test_deprecated_and_stale_only_in_optional(tmp_path: Path) -> None:
    export_llms_txt(small_bundle(tmp_path / "b"), tmp_path / "out", as_of=AS_OF)
    text = (tmp_path / "out" / "llms.txt").read_text(encoding="utf-8")
    main_part, optional = text.split("## Optional\n")
    assert "refunds-2019.md" not in main_part and "limits.md" not in main_part
    assert "refunds-2019.md): superseded rule (deprecated)\n" in optional
    assert "limits.md): limits per role (stale since 2026-01-31)\n" in optional
    full = (tmp_path / "out" / "llms-full.txt").read_text(encoding="utf-8")
    assert "the CEO" not in full and "capped at 2000" not in full
    # Before its stale_after date the same concept is current.
    export_llms_txt(tmp_path / "b", tmp_path / "early", as_of=date(2026, 1, 1))
    assert "capped at 2000" in (tmp_path / "early" / "llms-full.txt").read_text(encoding="utf-8")


def test_special_characters_stay_text_in_llms_txt(tmp_path: Path) -> None:
    bundle = hostile_bundle(tmp_path / "b")
    export_llms_txt(bundle, tmp_path / "out", as_of=AS_OF, base_url="https://kb.example.com/acme/")
    text = (tmp_path / "out" / "llms.txt").read_text(encoding="utf-8")
    line = next(ln for ln in text.splitlines() if "refunds.md" in ln)
    assert line.startswith(r"- [\<script\>window.\_\_okfPwned = 1\</script\>\<img src=x onerror=")
    assert "](https://kb.example.com/acme/finance/refunds.md): Who approves refunds \\<b\\>now\\</b\\>" in line
    assert "<script>" not in text and "[x](y)" not in text
    assert escape("a\x1b[2Jb\nc") == "a \\[2Jb c"


def test_max_bytes_cuts_whole_concepts_and_says_so(tmp_path: Path) -> None:
    bundle = small_bundle(tmp_path / "b")
    whole = export_llms_txt(bundle, tmp_path / "whole", as_of=AS_OF)
    size = (tmp_path / "whole" / "llms-full.txt").stat().st_size
    cap = size - 10
    report = export_llms_txt(bundle, tmp_path / "cut", as_of=AS_OF, max_bytes=cap)
    text = (tmp_path / "cut" / "llms-full.txt").read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= cap and report.full_concepts is not None
    assert report.full_concepts < whole.full_concepts
    assert text.rstrip().endswith(
        f"[Cut at --max-bytes {cap}: {report.full_concepts} of 3 current concepts are "
        f"included; the other {3 - report.full_concepts} are listed in llms.txt with links "
        "to their files.]"
    )
    assert text.count("\n## ") == report.full_concepts
    with pytest.raises(ConfigError, match="no room"):
        export_llms_txt(bundle, tmp_path / "tiny", max_bytes=10)


def test_exports_are_deterministic_and_incremental(tmp_path: Path) -> None:
    bundle = small_bundle(tmp_path / "b")
    seen: dict[str, dict[str, int]] = {}
    for kind, export in (("llms", export_llms_txt), ("site", export_site)):
        a, b = tmp_path / f"{kind}-a", tmp_path / f"{kind}-b"
        export(bundle, a, as_of=AS_OF)
        export(bundle, b, as_of=AS_OF)
        files = sorted(p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file())
        assert files == sorted(p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file())
        assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
        mtimes = {f: (a / f).stat().st_mtime_ns for f in files}
        again = export(bundle, a, as_of=AS_OF)
        assert again.written == 0 and again.unchanged == again.files
        assert {f: (a / f).stat().st_mtime_ns for f in files} == mtimes
        seen[kind] = mtimes
    out = tmp_path / "llms-a"
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    (bundle / "people" / "leave.md").write_text(concept("Leave", "Employees get 20 days of leave."), encoding="utf-8")
    (bundle / "finance" / "refunds-2019.md").unlink()
    changed = export_llms_txt(bundle, out, as_of=AS_OF)
    assert (changed.written, changed.removed) == (3, 1)  # leave.md, llms.txt, llms-full.txt; refunds-2019.md gone
    assert not (out / "finance" / "refunds-2019.md").exists() and (out / "notes.txt").read_text() == "mine"
    assert (out / "welcome.md").stat().st_mtime_ns == seen["llms"]["welcome.md"]


def test_worker_processes_give_the_same_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = small_bundle(tmp_path / "b")
    export_llms_txt(bundle, tmp_path / "one", as_of=AS_OF)
    monkeypatch.setattr(sys.modules["okf.export.reading"], "PARALLEL_FROM", 1)
    monkeypatch.setattr(sys.modules["okf.export.reading"], "_workers", lambda n: 2)
    export_llms_txt(bundle, tmp_path / "two", as_of=AS_OF)
    for name in ("llms.txt", "llms-full.txt", "finance/cards/limits.md"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_reading_ahead_a_cold_bundle_gives_the_same_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With worker processes, a bundle whose files are not in the page cache is read ahead in a thread (in the
    order the readers come to the files: a run from each end in turn); the output is the same, and the thread
    has ended when the export returns."""
    reading = sys.modules["okf.export.reading"]
    bundle = small_bundle(tmp_path / "b")
    export_llms_txt(bundle, tmp_path / "one", as_of=AS_OF)
    asked: list[list[str]] = []
    monkeypatch.setattr(reading, "PARALLEL_FROM", 1)
    monkeypatch.setattr(reading, "_workers", lambda n: 2)
    monkeypatch.setattr(reading, "_cold", lambda files: asked.append(files) or True)
    export_llms_txt(bundle, tmp_path / "two", as_of=AS_OF)
    assert _tree(tmp_path / "one") == _tree(tmp_path / "two")
    files = asked[0]
    root = str(Bundle.open(bundle).root)
    assert sorted(files) == sorted(str(p) for p in Path(root).rglob("*.md"))  # its index.md files and concepts
    assert not any(t.name == "okf-read-ahead" for t in reading.threading.enumerate())
    runs = [[("", ["a.md"])], [("x/", ["x/b.md"])], [("y/", [])]]
    assert reading._ahead("/r", runs, {"index.md": (1, 1, 1, 1), "y/index.md": (1, 1, 1, 1)}) == [
        "/r/index.md",
        "/r/a.md",
        "/r/y/index.md",
        "/r/x/b.md",
    ]


def test_a_file_not_in_the_page_cache_is_told(tmp_path: Path) -> None:
    """_cold says whether sampled files must be read from the disk (a file just written is in the page cache)."""
    reading = sys.modules["okf.export.reading"]
    path = tmp_path / "a.md"
    path.write_bytes(b"x" * 8192)
    assert reading._cold([str(path)]) is False
    assert reading._cold([]) is False and reading._cold([str(tmp_path / "missing.md")]) is False
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        try:
            os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT)
            evicted = False
        except BlockingIOError:
            evicted = True
    except (AttributeError, OSError):
        pytest.skip("this platform cannot drop a file from the page cache or read without waiting")
    finally:
        os.close(fd)
    if not evicted:
        pytest.skip("this file system keeps its files in memory (tmpfs)")
    assert reading._cold([str(path)]) is True


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.name != ".okf-export.json"
    }


@pytest.mark.parametrize("regions", ["shared", "too small", "none"])
def test_worker_processes_match_one_process_through_first_repeat_and_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, regions: str
) -> None:
    """With worker processes (which list, parse and copy their runs of directories, and pickle entries back
    as their fields: into shared memory, or through the pool's pipe when a part does not fit its region or
    there is none), the same files, report and cache rows as one process, through a first export, a repeat
    and an edit; a concept that cannot be read is skipped and not copied either way."""
    reading = sys.modules["okf.export.reading"]
    loaded: list[int] = []
    made = reading._regions

    def sized(work: Any, stats: Any) -> Any:
        if regions == "none":
            return None
        out = made(work, stats)
        return out if regions == "shared" else [reading.mmap.mmap(-1, 64) for _ in work]

    def load(region: Any, length: int) -> Any:
        loaded.append(length)
        return reading_load(region, length)

    reading_load = reading._load
    monkeypatch.setattr(reading, "_regions", sized)
    monkeypatch.setattr(reading, "_load", load)
    bundle = small_bundle(tmp_path / "b")
    (bundle / "people" / "broken.md").write_text("---\ntitle: [unclosed\n---\nBody.\n", encoding="utf-8")
    (bundle / "finance" / "broken.md").write_text("---\ntitle: [unclosed\n---\nBody.\n", encoding="utf-8")
    (bundle / "people" / "crlf.md").write_bytes(concept("Crlf", "One.\nTwo.").replace("\n", "\r\n").encode())
    old = os.stat(bundle / "welcome.md").st_mtime_ns - 10_000_000_000  # settled files: trusted from their stat
    for path in bundle.rglob("*.md"):
        os.utime(path, ns=(old, old))
    one, two = tmp_path / "one", tmp_path / "two"
    pools: list[int] = []

    class Pool(ProcessPoolExecutor):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pools.append(kwargs["max_workers"])
            super().__init__(*args, **kwargs)

    def both() -> Any:
        first = export_llms_txt(bundle, one, as_of=AS_OF)
        with monkeypatch.context() as patch:
            patch.setattr(reading, "PARALLEL_FROM", 1)
            patch.setattr(reading, "_workers", lambda n: 2)
            patch.setattr(reading, "ProcessPoolExecutor", Pool)
            second = export_llms_txt(bundle, two, as_of=AS_OF)
        assert _tree(one) == _tree(two)
        keep = {"concepts", "files", "written", "unchanged", "removed", "warnings"}
        assert first.model_dump(include=keep) == second.model_dump(include=keep)  # warnings in the same order
        rows = [json.loads((d / ".okf-export.json").read_text().split("\n")[1])["cache"] for d in (one, two)]
        assert rows[0].keys() == rows[1].keys()
        assert all(rows[0][p][:10] == rows[1][p][:10] for p in rows[0])  # all but the copy's size and mtime
        return first

    first = both()
    assert pools == [1]  # the second export read in two processes: this one and one worker
    if reading.start_method() == "fork":  # (regions are for a forked worker only)
        assert bool(loaded) == (regions == "shared")
    assert [w.split(":")[0] for w in first.warnings] == ["finance/broken.md", "people/broken.md"]
    assert "people/broken.md" not in _tree(two) and any("people/broken.md" in w for w in first.warnings)
    assert (two / "people" / "crlf.md").read_bytes() == (bundle / "people" / "crlf.md").read_bytes().replace(b"\r", b"")
    assert both().written == 0
    (bundle / "welcome.md").write_text(concept("Welcome", "Changed.", description="How to use it"), encoding="utf-8")
    os.utime(bundle / "welcome.md", ns=(old + 1, old + 1))
    assert both().written == 3
    assert (two / "welcome.md").read_bytes() == (bundle / "welcome.md").read_bytes()


def test_a_concept_copy_is_its_text_as_okf_reads_it(tmp_path: Path) -> None:
    """A concept's .md is its file's bytes when they decode as they are, else the text okf read (CRLF made LF,
    a byte order mark dropped, bad bytes replaced), whichever path the copy takes."""
    plain = concept("Plain", "Body with a lone \r carriage return.").encode()
    files = {
        "plain.md": plain,
        "crlf.md": concept("Crlf", "Line one.\nLine two.").replace("\n", "\r\n").encode(),
        "bom.md": b"\xef\xbb\xbf" + concept("Bom", "Marked.").encode(),
        "bad.md": concept("Bad", "Caf\u00e9.").encode().replace(b"\xc3\xa9", b"\xe9"),
    }
    bundle = tmp_path / "b"
    bundle.mkdir()
    (bundle / "index.md").write_text("# B\n", encoding="utf-8")
    for name, data in files.items():
        (bundle / name).write_bytes(data)
    export_llms_txt(bundle, tmp_path / "out", as_of=AS_OF)
    out = tmp_path / "out"
    assert (out / "plain.md").read_bytes() == plain
    assert (out / "crlf.md").read_bytes() == files["crlf.md"].replace(b"\r\n", b"\n")
    assert (out / "bom.md").read_bytes() == files["bom.md"][3:]
    assert (out / "bad.md").read_bytes() == files["bad.md"].replace(b"\xe9", "\ufffd".encode())


def test_an_export_leaves_the_garbage_collector_as_it_found_it(tmp_path: Path) -> None:
    import gc

    bundle = small_bundle(tmp_path / "b")
    assert gc.isenabled()
    export_llms_txt(bundle, tmp_path / "on", as_of=AS_OF)
    assert gc.isenabled()
    gc.disable()
    try:
        export_site(bundle, tmp_path / "off", as_of=AS_OF)
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(ConfigError):
        export_llms_txt(bundle, tmp_path / "tiny", max_bytes=10)
    assert gc.isenabled()


def test_site_pages_links_escaping_and_trust_marks(tmp_path: Path) -> None:
    bundle = hostile_bundle(tmp_path / "b")
    (bundle / "finance" / "refunds.md").write_text(
        (bundle / "finance" / "refunds.md").read_text(encoding="utf-8")
        + "\n<script>window.__okfPwned = 3</script>\n\n[card](invoices.md#sign-off) [up](../travel/) "
        "[gone](missing.md) [web](https://example.org/x) [js](javascript:alert(1))\n",
        encoding="utf-8",
    )
    report = export_site(bundle, tmp_path / "site", as_of=AS_OF)
    site = tmp_path / "site"
    assert report.files == 6 and (site / "index.html").is_file()  # 3 directory pages, 3 concept pages
    page = (site / "finance" / "refunds.html").read_text(encoding="utf-8")
    assert "<script>window" not in page and "<img src=x" not in page
    assert HOSTILE_TITLE in html_lib.unescape(re.search(r"<h1>(.*?)</h1>", page, re.S).group(1))
    assert "&lt;script&gt;window.__okfPwned = 3&lt;/script&gt;" in page
    assert 'href="invoices.html#sign-off"' in page and 'href="../travel/index.html"' in page
    assert 'href="#not-exported"' in page and 'href="https://example.org/x"' in page
    assert "javascript:" not in page.replace("[js](javascript:alert(1))", "")
    assert 'href="../travel/hotels.html"' in page  # the body's link to another concept, rewritten
    assert '<table class="fm">' in page and "<td>description</td>" in page
    hotels = (site / "travel" / "hotels.html").read_text(encoding="utf-8")
    assert "deprecated</span>" in hotels and "do not rely on it as current" in hotels
    listing = (site / "finance" / "index.html").read_text(encoding="utf-8")
    assert 'href="refunds.html"' in listing and "<script>window" not in listing
    assert "script-src 'none'" in html_lib.unescape(page)


def test_cli_export(tmp_path: Path) -> None:
    bundle = small_bundle(tmp_path / "b")
    runner = CliRunner()
    result = runner.invoke(
        main, ["export", "llms-txt", str(bundle), "-o", str(tmp_path / "o"), "--json", "--as-of", "2026-06-01"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["kind"] == "llms-txt" and data["optional"] == 2 and data["files"] == 7
    text = runner.invoke(main, ["export", "site", str(bundle), "-o", str(tmp_path / "s")])
    assert text.exit_code == 0 and text.stdout.startswith("exported 5 concepts")
    bad_date = runner.invoke(main, ["export", "site", str(bundle), "-o", str(tmp_path / "s"), "--as-of", "soon"])
    assert bad_date.exit_code == 2 and "YYYY-MM-DD" in bad_date.stderr
    missing = runner.invoke(main, ["export", "llms-txt", str(tmp_path / "nope"), "-o", str(tmp_path / "o2")])
    assert missing.exit_code == 1 and "no such bundle" in missing.stderr
    help_text = runner.invoke(main, ["export", "llms-txt", "--help"])
    assert "Examples" in help_text.output


def test_repeat_export_reuses_unchanged_concepts_without_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = small_bundle(tmp_path / "b")
    old = 1_700_000_000
    for path in bundle.rglob("*.md"):
        os.utime(path, (old, old))  # older than the racy window: cacheable
    out = tmp_path / "out"
    export_llms_txt(bundle, out, as_of=AS_OF)
    reading = sys.modules["okf.export.reading"]
    real_entry = reading._summary_entry

    def refuse(*args: object) -> object:
        raise AssertionError("an unchanged concept was parsed again")

    monkeypatch.setattr(reading, "_summary_entry", refuse)
    again = export_llms_txt(bundle, out, as_of=AS_OF)
    assert again.written == 0
    fresh = tmp_path / "fresh"
    monkeypatch.setattr(reading, "_summary_entry", real_entry)
    export_llms_txt(bundle, fresh, as_of=AS_OF)
    for name in ("llms.txt", "llms-full.txt"):
        assert (out / name).read_bytes() == (fresh / name).read_bytes()
    # A changed concept is parsed again; a hand-edited copy is rewritten; the rest still come from the cache.
    parsed: list[str] = []

    def counting(path: str, text: str, now: datetime) -> object:
        parsed.append(path)
        return real_entry(path, text, now)

    monkeypatch.setattr(reading, "_summary_entry", counting)
    (bundle / "people" / "leave.md").write_text(concept("Leave", "Employees get 25 days of leave."), encoding="utf-8")
    (out / "welcome.md").write_text("edited by hand", encoding="utf-8")
    changed = export_llms_txt(bundle, out, as_of=AS_OF)
    assert sorted(parsed) == ["people/leave.md", "welcome.md"]
    assert "25 days" in (out / "llms-full.txt").read_text(encoding="utf-8")
    assert (out / "welcome.md").read_bytes() == (bundle / "welcome.md").read_bytes()
    assert changed.written == 3  # leave.md, welcome.md, llms-full.txt (llms.txt is unchanged)


def _manifest(out: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The export manifest's two lines of JSON: its head (kind, files, seal) and what an export reuses."""
    head, _, rest = (out / ".okf-export.json").read_text(encoding="utf-8").partition("\n")
    return json.loads(head), json.loads(rest) if rest.strip() else {}


def _write_manifest(out: Path, head: dict[str, Any], rest: dict[str, Any]) -> None:
    (out / ".okf-export.json").write_text(json.dumps(head) + "\n" + json.dumps(rest) + "\n", encoding="utf-8")


def _age(bundle: Path) -> None:
    old = 1_700_000_000
    for path in bundle.rglob("*.md"):
        os.utime(path, (old, old))


def test_a_repeat_export_with_nothing_changed_reads_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unchanged = sys.modules["okf.export.unchanged"]
    monkeypatch.setattr(unchanged, "RACY_NS", 0)  # files written by the test just now count as settled
    bundle = small_bundle(tmp_path / "b")
    _age(bundle)
    out = tmp_path / "out"
    first = export_llms_txt(bundle, out, as_of=AS_OF)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    mtimes = {p: p.stat().st_mtime_ns for p in before}
    api = sys.modules["okf.export.api"]
    real_collect = api.collect

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("the bundle was read although nothing changed")

    monkeypatch.setattr(api, "collect", refuse)
    again = export_llms_txt(bundle, out, as_of=AS_OF)
    assert again.model_dump(exclude={"seconds", "written", "unchanged"}) == first.model_dump(
        exclude={"seconds", "written", "unchanged"}
    )
    assert (again.written, again.unchanged) == (0, first.files)
    assert {p: p.stat().st_mtime_ns for p in before} == mtimes
    # Anything that decides the output sends the export down the full path, and the output is what a fresh
    # export into an empty folder gives.
    calls: list[int] = []

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real_collect(*args, **kwargs)

    monkeypatch.setattr(api, "collect", counting)
    changes = [
        ("base url", lambda: None, {"base_url": "https://kb.example.com/"}),
        ("stale_after passed", lambda: None, {"as_of": date(2026, 2, 1)}),  # before: limits.md was current
        ("hand-edited copy", lambda: (out / "welcome.md").write_text("mine", encoding="utf-8"), {}),
        ("new concept", lambda: (bundle / "people" / "pay.md").write_text(concept("Pay", "Monthly."), "utf-8"), {}),
        (
            "edited index",
            lambda: (bundle / "people" / "index.md").write_text(
                "# Staff\n\n* [Pay](pay.md) - salaries\n", encoding="utf-8"
            ),
            {},
        ),
    ]
    for name, change, options in changes:
        change()
        options = {"as_of": AS_OF, **options}
        calls.clear()
        export_llms_txt(bundle, out, **options)  # type: ignore[arg-type]
        assert calls == [1], name
        fresh = tmp_path / f"fresh-{len(list(tmp_path.iterdir()))}"
        export_llms_txt(bundle, fresh, **options)  # type: ignore[arg-type]
        produced = sorted(
            p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file() and p.name != ".okf-export.json"
        )
        for rel in produced:
            assert (out / rel).read_bytes() == (fresh / rel).read_bytes(), (name, rel)
        calls.clear()
        export_llms_txt(bundle, out, **options)  # type: ignore[arg-type]
        assert calls == [], f"{name}: the repeat after it was not recognized as unchanged"
    assert "- [Pay](people/pay.md): salaries\n- [Leave](people/leave.md)" in (out / "llms.txt").read_text("utf-8")


def test_a_file_changed_within_two_seconds_leaves_no_seal(tmp_path: Path) -> None:
    bundle = small_bundle(tmp_path / "b")  # just written: its times are too recent to trust
    out = tmp_path / "out"
    export_llms_txt(bundle, out, as_of=AS_OF)
    assert "seal" not in _manifest(out)[0]


def test_stale_on_its_stale_after_day_on_first_and_cached_export(tmp_path: Path) -> None:
    bundle = small_bundle(tmp_path / "b")
    _age(bundle)
    day = date(2026, 1, 31)  # limits.md's stale_after: stale from that day on (OKF §5.5)
    out = tmp_path / "out"
    for _ in range(2):  # the second export takes its entries from the cache
        export_llms_txt(bundle, out, as_of=day)
        optional = (out / "llms.txt").read_text(encoding="utf-8").split("## Optional\n")[1]
        assert "limits.md): limits per role (stale since 2026-01-31)" in optional


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_exports_never_write_or_remove_through_a_symlink_in_the_folder(tmp_path: Path) -> None:
    bundle = small_bundle(tmp_path / "b")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "welcome.md").write_text("not yours", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "welcome.md").symlink_to(outside / "welcome.md")
    export_llms_txt(bundle, out, as_of=AS_OF)
    assert (outside / "welcome.md").read_text(encoding="utf-8") == "not yours"
    assert not (out / "welcome.md").is_symlink()
    assert (out / "welcome.md").read_bytes() == (bundle / "welcome.md").read_bytes()
    # A folder of the export replaced by a symlink leading out: refused, nothing written or removed there.
    (outside / "leave.md").write_text("not yours either", encoding="utf-8")
    for path in (out / "people").iterdir():
        path.unlink()
    (out / "people").rmdir()
    (out / "people").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ConfigError, match="symlink"):
        export_llms_txt(bundle, out, as_of=AS_OF)
    assert (outside / "leave.md").read_text(encoding="utf-8") == "not yours either"
    assert sorted(p.name for p in outside.iterdir()) == ["leave.md", "welcome.md"]


def test_cli_export_progress_on_stderr_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = small_bundle(tmp_path / "b")
    monkeypatch.setenv("OKF_PROGRESS", "1")
    runner = CliRunner()
    for kind, label in (("llms-txt", "Reading concepts"), ("site", "Rendering pages")):
        shown = runner.invoke(main, ["export", kind, str(bundle), "-o", str(tmp_path / kind)])
        assert shown.exit_code == 0, shown.output
        assert label in shown.stderr and "5/5" in shown.stderr and label not in shown.stdout
        for flag in ("--quiet", "--json"):
            silent = runner.invoke(main, ["export", kind, str(bundle), "-o", str(tmp_path / kind), flag])
            assert silent.exit_code == 0 and "Reading concepts" not in silent.stderr and "%|" not in silent.stderr


def test_an_export_after_an_edit_lists_again_only_what_the_edit_can_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for module in ("okf.export.unchanged", "okf.export.reading"):
        monkeypatch.setattr(sys.modules[module], "RACY_NS", 0)  # the test's files count as settled
    bundle = small_bundle(tmp_path / "b")
    (bundle / "people" / "index.md").write_text("# People\n\n* [Leave](leave.md)\n", encoding="utf-8")  # no description
    _age(bundle)
    out = tmp_path / "out"
    export_llms_txt(bundle, out, as_of=AS_OF)
    from okf.bundle import Bundle

    listed: list[str] = []
    real_fields = Bundle.signpost_fields  # what an export lists a directory with

    def counting(self: Bundle, directory: str = "", **kwargs: Any) -> list[tuple[str, str, str, bool]]:
        listed.append(directory)
        return real_fields(self, directory, **kwargs)

    monkeypatch.setattr(Bundle, "signpost_fields", counting)
    edits = [
        # The listed concept's own description fills its signpost: its directory is listed again, no other.
        ("people/leave.md", concept("Leave", "Employees get 30 days.", description="Paid leave"), ["people/"]),
        # A concept under a directory's listing, with the index giving its description: only that directory.
        ("finance/refunds.md", concept("Refunds", "Over 900 dollars.", description="Refund approvals"), ["finance/"]),
        # An index.md: its directory and the one whose listing takes its title.
        ("finance/cards/index.md", "# Company cards\n\n* [Card limits](limits.md) - per role\n", None),
        # A new file changes the bundle's names: every directory is listed again.
        ("people/pay.md", concept("Pay", "Monthly."), ["", "finance/", "finance/cards/", "people/"]),
    ]
    for n, (path, text, expected) in enumerate(edits):
        (bundle / path).write_text(text, encoding="utf-8")
        listed.clear()
        export_llms_txt(bundle, out, as_of=AS_OF)
        if expected is not None:
            assert sorted(listed) == expected, path
        else:
            assert "finance/cards/" in listed and "people/" not in listed, listed
        fresh = tmp_path / f"fresh-{n}"
        export_llms_txt(bundle, fresh, as_of=AS_OF)
        for name in ("llms.txt", "llms-full.txt"):
            assert (out / name).read_bytes() == (fresh / name).read_bytes(), (path, name)
    text = (out / "llms.txt").read_text(encoding="utf-8")
    assert "- [Leave](people/leave.md): Paid leave" in text and "(finance/cards/limits.md): per role" in text


def test_a_damaged_seal_means_a_full_export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("okf.export.unchanged", "okf.export.reading"):
        monkeypatch.setattr(sys.modules[module], "RACY_NS", 0)
    bundle = small_bundle(tmp_path / "b")
    _age(bundle)
    out = tmp_path / "out"
    first = export_llms_txt(bundle, out, as_of=AS_OF)
    data, rest = _manifest(out)
    for report in ({**data["seal"]["report"], "kind": "site"}, {**data["seal"]["report"], "concepts": "many"}, []):
        data["seal"]["report"] = report
        _write_manifest(out, data, rest)
        again = export_llms_txt(bundle, out, as_of=AS_OF)  # no error: the export runs in full
        assert (again.concepts, again.files, again.written) == (first.concepts, first.files, 0)
        data, rest = _manifest(out)
        assert data["seal"]["report"]["concepts"] == first.concepts  # the seal written anew


def test_an_export_after_an_edit_reads_only_the_edited_concepts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Unchanged concepts' bodies come from the previous llms-full.txt (checked against their headings), so
    # their files are not read; when llms-full.txt was edited or the recorded spans are wrong, the files are.
    for module in ("okf.export.unchanged", "okf.export.reading"):
        monkeypatch.setattr(sys.modules[module], "RACY_NS", 0)
    reading = sys.modules["okf.export.reading"]
    bundle = small_bundle(tmp_path / "b")
    _age(bundle)
    out = tmp_path / "out"
    export_llms_txt(bundle, out, as_of=AS_OF)
    read: list[str] = []

    def counting(real_read: Any) -> Any:
        def counted(real: str, rel: str) -> object:
            read.append(rel)
            return real_read(real, rel)

        return counted

    for name in ("read_file", "read_bytes"):  # every way the export reads a concept's file
        monkeypatch.setattr(reading, name, counting(getattr(reading, name)))

    def damage_spans() -> None:
        head, data = _manifest(out)
        data["full"]["spans"] = {path: [start + 1, end] for path, (start, end) in data["full"]["spans"].items()}
        _write_manifest(out, head, data)

    def edit_full() -> None:
        full = out / "llms-full.txt"
        full.write_text(full.read_text(encoding="utf-8").replace("15 days", "99 days"), encoding="utf-8")

    current = {"welcome.md", "finance/refunds.md", "people/leave.md"}
    for n, (damage, expected) in enumerate(
        [(None, {"people/leave.md"}), (damage_spans, current), (edit_full, current)]
    ):
        leave = concept("Leave", f"Employees get {15 + n} days of leave.")
        (bundle / "people" / "leave.md").write_text(leave, encoding="utf-8")
        if damage is not None:
            damage()
        read.clear()
        export_llms_txt(bundle, out, as_of=AS_OF)
        assert set(read) == expected, n
        fresh = tmp_path / f"fresh-{n}"
        export_llms_txt(bundle, fresh, as_of=AS_OF)
        for name in ("llms.txt", "llms-full.txt", "people/leave.md"):
            assert (out / name).read_bytes() == (fresh / name).read_bytes(), (n, name)


def test_a_manifest_in_one_line_is_read_for_its_seal_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A manifest of one JSON line (as okf wrote them before the two-line layout): its files are still known
    # (so files of removed concepts are removed), its rows are not reused, and the export is a full one.
    for module in ("okf.export.unchanged", "okf.export.reading"):
        monkeypatch.setattr(sys.modules[module], "RACY_NS", 0)
    bundle = small_bundle(tmp_path / "b")
    _age(bundle)
    out = tmp_path / "out"
    first = export_llms_txt(bundle, out, as_of=AS_OF)
    head, rest = _manifest(out)
    del head["seal"]
    (out / ".okf-export.json").write_text(json.dumps({**head, **rest}), encoding="utf-8")
    (bundle / "people" / "leave.md").unlink()
    again = export_llms_txt(bundle, out, as_of=AS_OF)
    assert (again.removed, again.concepts) == (1, first.concepts - 1)
    assert not (out / "people" / "leave.md").exists()
    assert _manifest(out)[1]["cache"]  # written in two lines again


@given(st.text(alphabet=st.one_of(st.characters(max_codepoint=200), st.sampled_from(["…", "\u2028", "\xa0"]))))
@settings(max_examples=300, deadline=None)
@example("a b")
@example("a  b")
@example(" a")
@example("a ")
@example("a\xa0b")
def test_escape_translates_only_when_needed(text: str) -> None:
    # escape() skips translating text with no character to escape, and splitting ASCII text with single spaces
    # only: the same result as translating and splitting always.
    from okf.export.llms import _ESCAPES

    assert escape(text) == " ".join(text.translate(_ESCAPES).split())


def test_a_first_export_resolves_no_folder_it_creates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder the export creates inside one it knows to be inside the export folder is not resolved again
    (``realpath`` is a system call per part of the path); a folder that was there before still is, and one a
    symlink leads out of the export folder is still refused."""
    write = sys.modules["okf.export.write"]
    bundle = small_bundle(tmp_path / "b")
    out = tmp_path / "out"
    resolved: list[str] = []
    realpath = os.path.realpath

    def counted(path: Any, *args: Any, **kwargs: Any) -> str:
        resolved.append(os.fspath(path))
        return realpath(path, *args, **kwargs)

    monkeypatch.setattr(write.os.path, "realpath", counted)
    export_llms_txt(bundle, out, as_of=AS_OF)
    below = [p for p in resolved if p.startswith(str(out) + os.sep)]
    assert below == []  # finance/, finance/cards/ and people/ were created: none resolved
    assert (out / "finance" / "cards" / "limits.md").read_bytes() == (bundle / "finance/cards/limits.md").read_bytes()
    resolved.clear()
    (bundle / "people" / "leave.md").write_text(concept("Leave", "Twenty days."), encoding="utf-8")
    export_llms_txt(bundle, out, as_of=AS_OF)
    assert str(out / "people") in resolved  # there before: resolved (and inside)
    if sys.platform != "win32":
        outside = tmp_path / "outside"
        outside.mkdir()
        fresh = tmp_path / "fresh"
        fresh.mkdir()
        (fresh / "finance").symlink_to(outside, target_is_directory=True)
        with pytest.raises(ConfigError, match="symlink"):
            export_llms_txt(bundle, fresh, as_of=AS_OF)
        assert not (outside / "cards").exists() and not (outside / "refunds.md").exists()


def test_llms_full_bytes_and_spans_with_non_ascii_text_and_a_cap(tmp_path: Path) -> None:
    """llms-full.txt is built as bytes part by part: with text beyond ASCII (and beyond the BMP) its bytes
    are the UTF-8 of the text, the cap counts bytes, and a repeat export takes each body back from the spans
    (in characters) the first one recorded."""
    bundle = small_bundle(tmp_path / "b")
    (bundle / "welcome.md").write_text(
        concept("Welcome", "Café — naïve ✓ 𝄞 emoji 🙂 and more.", description="Start"), encoding="utf-8"
    )
    old = os.stat(bundle / "welcome.md").st_mtime_ns - 10_000_000_000  # settled files: rows and spans kept
    for path in bundle.rglob("*.md"):
        os.utime(path, ns=(old, old))
    full = export_llms_txt(bundle, tmp_path / "all", as_of=AS_OF)
    data = (tmp_path / "all" / "llms-full.txt").read_bytes()
    text = data.decode("utf-8")
    assert "Café — naïve ✓ 𝄞 emoji 🙂 and more." in text and full.full_concepts == 3
    cap = len(data) - 1  # one byte short: the last concept cannot stay
    cut = export_llms_txt(bundle, tmp_path / "cut", as_of=AS_OF, max_bytes=cap)
    assert cut.full_concepts is not None and cut.full_concepts < 3
    assert len((tmp_path / "cut" / "llms-full.txt").read_bytes()) <= cap
    manifest = (tmp_path / "all" / ".okf-export.json").read_text(encoding="utf-8").split("\n")
    spans = json.loads(manifest[1])["full"]["spans"]
    start, end = spans["welcome.md"]
    assert text[start:end].endswith("\n\nCafé — naïve ✓ 𝄞 emoji 🙂 and more.")  # the body, in characters
    os.utime(bundle / "people" / "leave.md", ns=(old + 1, old + 1))  # no seal: the bodies come from the spans
    assert export_llms_txt(bundle, tmp_path / "all", as_of=AS_OF).written == 0


def test_the_manifest_encoder_falls_back_to_the_json_module() -> None:
    """The manifest is encoded by pydantic-core, compact, as the json module would read it; a value that one
    refuses (a lone surrogate) is encoded by the json module instead, not lost."""
    write = sys.modules["okf.export.write"]
    value = {"cache": {"a/b.md": [1, 1796136046421448035, "Café ✓", None, False, ["x.txt:1-2"]]}}
    assert json.loads(write._json(value)) == value
    assert b"\n" not in write._json({"t": "two\nlines"})
    odd = {"files": ["caf\udce9.md"]}
    assert write._json(odd) == json.dumps(odd, separators=(",", ":")).encode("ascii")
    assert json.loads(write._json(odd)) == odd


@pytest.mark.parametrize("at_once", [1, 2, 3, 256])
def test_llms_txt_in_pieces_is_its_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at_once: int) -> None:
    """llms.txt is written from pieces of a few hundred lines: together, the bytes of the whole text."""
    llms = sys.modules["okf.export.llms"]
    collected = sys.modules["okf.export.reading"].collect(Bundle.open(small_bundle(tmp_path / "b")), as_of=AS_OF)
    monkeypatch.setattr(llms, "_LINES_AT_ONCE", at_once)
    for base_url in (None, "https://example.com/x"):
        text = llms.llms_txt(collected, base_url=base_url)
        assert b"".join(llms.llms_txt_pieces(collected, base_url=base_url)) == text.encode("utf-8")
    assert text.endswith("\n") and (text.count("\n") > 3 * at_once or at_once == 256)  # several pieces


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=30,
)


@given(_JSON_VALUES)
@example({"a": {"b": {"c": {}}}, "": [], "d": {}})
def test_the_manifest_in_pieces_is_the_same_bytes(value: Any) -> None:
    """The manifest's lines are encoded in pieces (its mappings key by key, two levels down), giving the very
    bytes one call of the encoder gives."""
    write = sys.modules["okf.export.write"]
    assert b"".join(write.json_pieces(value)) == write._json(value)


def _bundle_named_not_utf8(tmp_path: Path) -> Path:
    """A one-concept bundle in a folder whose name is Latin-1 (``k\\xe9b``); skips where the file system refuses it."""
    raw = os.fsencode(tmp_path) + b"/k\xe9b"
    try:
        os.mkdir(raw)
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    return write_files(Path(os.fsdecode(raw)), {"x.md": concept("X")})


def test_a_manifest_pydantic_core_refuses_is_written_the_json_module_way(tmp_path: Path) -> None:
    """A lone surrogate (a bundle folder whose name is not UTF-8) makes the pieces fail part-way through the
    manifest: the file begun is replaced by the whole manifest as the json module encodes it."""
    bundle = _bundle_named_not_utf8(tmp_path)
    out = tmp_path / "llms"
    first = export_llms_txt(bundle, out, as_of=AS_OF)
    head, rest, end = (out / ".okf-export.json").read_bytes().split(b"\n")
    assert end == b"" and json.loads(rest)["bundle"] == str(bundle) and b"\\udce9" in rest
    assert json.loads(head)["kind"] == "llms-txt" and first.written == 3
    assert export_llms_txt(bundle, out, as_of=AS_OF).unchanged == first.files  # read back: the seal holds


def _with_names_not_utf8(root: Path) -> Path:
    """small_bundle plus a concept whose file name is Latin-1 (``finance/caf\\xe9.md``) and a folder whose name
    is (``r\\xe9sum\\xe9s/``, one concept in it), written through bytes paths as an old archive leaves them."""
    bundle = small_bundle(root)
    raw = os.fsencode(bundle)
    try:
        with open(raw + b"/finance/caf\xe9.md", "wb") as f:
            f.write(concept("Cafe", "The cafe opens at 8.", description="opening hours").encode("utf-8"))
        os.mkdir(raw + b"/r\xe9sum\xe9s")
        with open(raw + b"/r\xe9sum\xe9s/cv.md", "wb") as f:
            f.write(concept("CV", "A CV.").encode("utf-8"))
    except OSError:  # a file system that takes only UTF-8 names (macOS): such a bundle cannot exist there
        pytest.skip("this file system refuses names that are not UTF-8")
    return bundle


@pytest.mark.parametrize("workers", [1, 2])
def test_a_name_that_is_not_utf8_is_skipped_with_a_warning_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """A concept or folder whose name is not UTF-8 cannot be linked to or named in UTF-8 output: it is left out
    with a warning naming it (its bad bytes as \\xNN) and saying to rename it; the rest is exported as if it
    were not there (the same bytes as a bundle without it), with no traceback and exit status 0."""
    if workers > 1:
        monkeypatch.setattr(sys.modules["okf.export.reading"], "PARALLEL_FROM", 1)
        monkeypatch.setattr(sys.modules["okf.export.reading"], "_workers", lambda n: workers)
    bundle = _with_names_not_utf8(tmp_path / "b")
    clean = small_bundle(tmp_path / "clean")
    runner = CliRunner()
    for kind in ("llms-txt", "site"):
        export = export_llms_txt if kind == "llms-txt" else export_site
        export(clean, tmp_path / f"clean-{kind}", as_of=AS_OF)
        out = tmp_path / kind
        result = runner.invoke(main, ["export", kind, str(bundle), "-o", str(out), "--as-of", "2026-06-01", "--json"])
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert report["concepts"] == 5
        assert len(report["warnings"]) == 2, report["warnings"]
        concept_warning, folder_warning = sorted(report["warnings"])
        assert concept_warning.startswith("finance/caf\\xe9.md: skipped: its name is not valid UTF-8")
        assert folder_warning.startswith("r\\xe9sum\\xe9s/: skipped with the 1 concept in it: its name is not valid")
        assert all("rename it" in w for w in report["warnings"])
        assert _tree(out) == _tree(tmp_path / f"clean-{kind}"), kind
        text = runner.invoke(main, ["export", kind, str(bundle), "-o", str(out), "--as-of", "2026-06-01"])
        assert text.exit_code == 0, text.output
        assert text.stdout.startswith("exported 5 concepts")
        assert "warning: finance/caf\\xe9.md: skipped" in text.stderr and "rename it" in text.stderr
        assert "warning: r\\xe9sum\\xe9s/: skipped" in text.stderr


def test_a_bundle_folder_whose_name_is_not_utf8_titles_the_export_with_u_fffd(tmp_path: Path) -> None:
    """With no heading in the root index.md the title is the bundle folder's name; one that is not UTF-8 is
    read with U+FFFD for its bad bytes (as okf reads them in a concept), not a crash writing llms.txt."""
    bundle = _bundle_named_not_utf8(tmp_path)
    export_llms_txt(bundle, tmp_path / "llms", as_of=AS_OF)
    assert (tmp_path / "llms" / "llms.txt").read_text("utf-8").startswith("# k\ufffdb\n")
    export_site(bundle, tmp_path / "site", as_of=AS_OF)
    assert "k\ufffdb" in (tmp_path / "site" / "index.html").read_text("utf-8")


_front_text = st.text(
    alphabet=st.one_of(st.characters(codec="utf-8", exclude_categories=("Cs",)), st.sampled_from(list('"\\ -…\n'))),
    max_size=20,
)


@given(
    st.lists(_front_text, min_size=3, max_size=3),
    st.sampled_from(["12", "012", "0", "7"]),
    st.sampled_from(["---\n", "--- \n", "...\n", "---", "----\n---\n", "---\r\n"]),
    st.sampled_from(["", "Body.\n", "Text\n---\nmore\n", "\n\n", "x"]),
    st.booleans(),
)
@example(["Title", "A description", "/r.txt"], "12", "---\n", "Body.\n", False)
@example(['Say "hi"', "Line\\one", ""], "7", "---", "", True)
@example(["Title", "A description", "/r.txt"], "0", "---\n", "Body.\n", False)
@settings(max_examples=300, deadline=None)
def test_a_compiled_frontmatter_read_in_one_match_is_read_as_the_long_way(
    values: list[str], first: str, closer: str, body: str, author: bool
) -> None:
    # _compiled_entry (the compiler's layout, one match) gives what _summary_entry's long way gives, or None.
    import okf.export.reading as reading
    from okf.compile.render import yaml_str
    from okf.errors import BundleError

    title, description, resource = values
    text = (
        f'---\ntype: "Document"\ntitle: {yaml_str(title)}\ndescription: {yaml_str(description)}\n'
        f'tags: ["a", "b"]\nsources:\n  - id: src\n    resource: {yaml_str(resource)}\n    title: "T"\n'
        + ('    author: "A"\n' if author else "")
        + f"    lines: [{first}, 40]\n    sha256: {'ab' * 32}\ngenerated:\n  by: okf/0.1.0\n  at: 2026-12-01T03:48:13Z\n"
        + closer
        + body
    )
    now = datetime(2026, 12, 1, tzinfo=reading.UTC)
    fast = reading._compiled_entry("a/b-c.md", text)
    saved, reading._fast_entry = reading._fast_entry, lambda path, text, now: None  # the long way alone
    try:
        slow: Any = reading._summary_entry("a/b-c.md", text, now)
    except BundleError:
        slow = None
    finally:
        reading._fast_entry = saved
    assert fast is None or fast == slow
    usual = closer == "---\n" and "\\" not in yaml_str(title) + yaml_str(description) + yaml_str(resource)
    if usual and first in ("12", "7"):  # the usual compiled concept takes the one-match path
        assert fast is not None and fast.sources_given == ([f"{resource}:{first}-40"] if resource else [])


def test_signpost_fields_are_the_listings_signposts(tmp_path: Path) -> None:
    # The export lists a directory by Bundle.signpost_fields (no models; its index.md read once, for the intro
    # too): the fields of Bundle.listing's signposts, index entries with and without a description, entries
    # listed twice, synthesized concepts and folders (untitled, titled by their index.md) and a broken index.
    from okf.bundle import Bundle
    from okf.bundle.documents import read_text

    bundle = small_bundle(tmp_path / "b")
    write_files(
        bundle,
        {
            "people/index.md": "# People\n\n* [Leave](leave.md)\n* [Leave again](leave.md) - twice\n* [Gone](gone.md)\n",
            "people/pay.md": concept("Pay", "Monthly.", description="When pay arrives"),
            "people/untitled.md": "No frontmatter at all.\n",
            "people/teams/index.md": "# The teams\n",
            "people/teams/blue.md": concept("Blue", "Blue team."),
            "people/plain/red.md": concept("Red", "Red team."),
            "broken/index.md": "---\ntitle: [unclosed\n---\n* [X](x.md) - x\n",
            "broken/x.md": concept("X", "X."),
        },
    )
    directories = list(Bundle.open(bundle).iter_directories())
    assert {"people/", "people/teams/", "people/plain/", "broken/"} <= set(directories)
    for directory in directories:
        listed = [(s.path, s.title, s.description, s.is_dir) for s in Bundle.open(bundle).listing(directory).signposts]
        assert Bundle.open(bundle).signpost_fields(directory) == listed, directory
        fresh = Bundle.open(bundle)
        index = directory + "index.md"
        read = read_text(fresh.real_path(index), index) if fresh.exists(index) else None
        assert fresh.signpost_fields(directory, index_read=read) == listed, directory
        assert fresh.listing(directory).diagnostics == Bundle.open(bundle).listing(directory).diagnostics
    people = Bundle.open(bundle).signpost_fields("people/")
    assert ("people/leave.md", "Leave", "", False) in people and (
        "people/pay.md",
        "Pay",
        "When pay arrives",
        False,
    ) in people
    assert ("people/teams/", "The teams", "", True) in people


def test_the_kept_hashes_are_the_digests_of_their_lines(tmp_path: Path) -> None:
    # The listings' and the folder's hashes are taken over one joined text: the digest of the lines one by one
    # (what earlier exports kept in their manifests), a name that is not UTF-8 included.
    import hashlib

    from okf.export.listings import _files_hash
    from okf.export.write import outputs_signature

    names = ["a.md", "b/c.md", "caf\udce9.md"]
    stats = {name: (n + 1, 10 + n, 20 + n, 30 + n) for n, name in enumerate(names)}
    digest = hashlib.blake2b(digest_size=20)
    for name, (size, mtime, ctime, ino) in stats.items():
        digest.update(f"{name}\0{size}\0{mtime}\0{ctime}\0{ino}\n".encode("utf-8", "surrogateescape"))
    assert _files_hash(str(tmp_path), names, 10**6, stats) == digest.hexdigest()
    assert _files_hash(str(tmp_path), names, 22, stats) is None  # changed too recently to be trusted
    digest = hashlib.blake2b(digest_size=20)
    for name, (size, mtime, _, _) in stats.items():
        digest.update(f"{name}\0{size}\0{mtime}\n".encode("utf-8", "surrogateescape"))
    assert outputs_signature(str(tmp_path), names, {n: s[:2] for n, s in stats.items()}) == digest.hexdigest()


def test_a_first_export_takes_each_concepts_stat_from_the_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The walk has stat-ed every markdown file: reading a concept for a first export adds no fstat (the row kept
    # for it holds the walk's size and time, taken before the read), and the rows match on the next export.
    import okf.bundle.documents as documents

    bundle = small_bundle(tmp_path / "b")
    _age(bundle)
    asked: dict[str, bool] = {}
    real_read = documents._read

    def recording(real_path: str, rel: str, *, stat: bool) -> Any:
        asked[rel] = stat
        return real_read(real_path, rel, stat=stat)

    monkeypatch.setattr(documents, "_read", recording)
    out = tmp_path / "out"
    export_llms_txt(bundle, out, as_of=AS_OF)
    concepts = {"welcome.md", "finance/refunds.md", "finance/refunds-2019.md", "finance/cards/limits.md"}
    assert concepts <= set(asked) and not any(asked[path] for path in concepts)
    _, rest = _manifest(out)
    for path in concepts:
        info = (bundle / path).stat()
        assert rest["cache"][path][:2] == [info.st_size, info.st_mtime_ns]


def test_new_files_are_written_in_pieces_and_match_the_joined_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first export writes llms-full.txt and the manifest from pieces, never joined (write.write_pieces, a
    thousand buffers per writev); over files already there the pieces are joined and compared. Either way the
    bytes are those of llms_full (and the spans the same), unchanged files keep their times, and a short writev
    is finished buffer by buffer."""
    write = sys.modules["okf.export.write"]
    llms = sys.modules["okf.export.llms"]
    bundle = small_bundle(tmp_path / "b")
    (bundle / "welcome.md").write_text(
        concept("Welcome", "\n  Café — naïve 𝄞 \u2028\n", description="Start"), encoding="utf-8"
    )
    monkeypatch.setattr(write, "_IOV_MAX", 2)  # several batches even on a small bundle
    first = tmp_path / "first"
    export_llms_txt(bundle, first, as_of=AS_OF)
    from okf.bundle import Bundle
    from okf.export.reading import collect

    collected = collect(Bundle.open(bundle), as_of=AS_OF)
    joined, kept, spans = llms.llms_full(collected)
    pieces, kept_too, later = llms.full_pieces(collected)
    assert later == {} and kept_too == kept  # spans are filled in as the pieces are taken
    assert b"".join(pieces) == joined == (first / "llms-full.txt").read_bytes() and later == spans
    files = sorted(p.relative_to(first).as_posix() for p in first.rglob("*") if p.is_file())
    mtimes = {f: (first / f).stat().st_mtime_ns for f in files}
    (first / "llms-full.txt").write_bytes(b"stale")  # a file there: the pieces are joined and compared
    again = export_llms_txt(bundle, first, as_of=AS_OF)
    assert again.written == 1 and (first / "llms-full.txt").read_bytes() == joined
    assert all((first / f).stat().st_mtime_ns == mtimes[f] for f in files if f != "llms-full.txt" and f[0] != ".")
    short = {"left": 3}

    def writev(fd: int, buffers: list[bytes]) -> int:  # writes at most three bytes a call
        return os.write(fd, b"".join(buffers)[: short["left"]])

    monkeypatch.setattr(write, "_WRITEV", writev)
    export_llms_txt(bundle, tmp_path / "short", as_of=AS_OF)
    assert all((tmp_path / "short" / f).read_bytes() == (first / f).read_bytes() for f in files if f[0] != ".")
    manifest = (tmp_path / "short" / ".okf-export.json").read_text(encoding="utf-8").split("\n")
    assert [json.loads(line)["kind"] for line in manifest[:1]] == ["llms-txt"] and manifest[2] == ""


def test_the_walk_hands_its_listings_to_the_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An export's walk (bundle_signature) lists every folder once: the bundle takes those listings as its
    scans (not listing again), and they are the scans it would have made itself."""
    from okf.bundle import Bundle
    from okf.export.unchanged import bundle_signature

    root = write_files(
        tmp_path / "b",
        {
            "index.md": "# B\n",
            "a.md": concept("A"),
            ".hidden.md": concept("H"),
            "sub/c.md": concept("C"),
            "sub/deep/d.md": concept("D"),
            "sub/notes.txt": "x",
            "elsewhere/e.md": concept("E"),
        },
    )
    os.symlink(root / "a.md", root / "sub" / "link.md")
    os.symlink(root / "elsewhere", root / "dirlink")
    os.symlink("/nonexistent", root / "broken.md")
    walked = Bundle.open(root)
    bundle_signature(str(walked.root), walked)
    listed: list[str] = []
    scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path: listed.append(path) or scandir(path))
    directories = list(walked.iter_directories())
    assert listed == []
    monkeypatch.undo()
    alone = Bundle.open(root)
    assert directories == list(alone.iter_directories())
    assert list(walked.iter_concepts()) == list(alone.iter_concepts())
    assert walked._dirs == alone._dirs
