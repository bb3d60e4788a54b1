"""Self-contained, conformant bundles (docs/compile.md "Self-contained bundles"): mirrored sources, copied
assets, source frontmatter, escaped plain text, log order, and the okf check rules that go with them."""

from __future__ import annotations

import html
import json
import os
import random
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

from builders import write_files
from click.testing import CliRunner
from markdown_it import MarkdownIt

from okf.bundle import Bundle
from okf.checker import check
from okf.cli import main
from okf.compile import CompileOptions, compile_bundle
from okf.compile.escape import escape_text
from okf.navigator import navigate
from okf.sources import span_sha256

T1 = datetime(2026, 3, 1, tzinfo=UTC)
T0 = datetime(2026, 2, 1, tzinfo=UTC)
CONTRACT = (
    'MASTER AGREEMENT\n\n1. Definitions\n\n1.1 "Assignment" means a transfer of rights. See '
    '[Assignment]("Assignment") and *all* of Section 1.2 & co &amp; <b>bold</b>.\n\n'
    '1.2 "Party" means a signatory of this Agreement, named in the preamble and bound by it.\n\n'
    "2. Term\n\nThe Assignment lasts [***] years; signed ________ and [***] again.\n"
)
GUIDE = (
    "# Guide\n\nThe warehouse layout is shown below and in the [floor plan](plans/floor.pdf).\n\n"
    "![Layout](img/layout.png)\n\nA [missing chart](img/none.png) and ![gone](img/gone.png) too.\n"
)


def compile_at(sources: Path, out: Path, at: datetime = T1, **kw: object) -> object:
    kw.setdefault("max_words", 30)
    kw.setdefault("min_words", 5)
    return compile_bundle([sources], out, options=CompileOptions(timestamp=at, **kw))  # type: ignore[arg-type]


def sources_tree(root: Path) -> Path:
    write_files(root, {"contracts/msa.txt": CONTRACT, "guide.md": GUIDE, "notes/log.md": "# Notes\n\nA log file.\n"})
    (root / "img").mkdir()
    (root / "img" / "layout.png").write_bytes(b"\x89PNG\r\n\x1a\nlayout")
    (root / "plans").mkdir()
    (root / "plans" / "floor.pdf").write_bytes(b"%PDF-1.4 not really a pdf\n")
    return root


def test_sources_are_mirrored_and_cited_in_the_bundle(tmp_path: Path) -> None:
    src, out = sources_tree(tmp_path / "src"), tmp_path / "out"
    compile_at(src, out)
    bundle = Bundle.open(out)
    # Byte-for-byte copies at the same relative paths; a .md source gets .txt (a .md file would be a concept).
    assert (out / "references/sources/contracts/msa.txt").read_bytes() == (src / "contracts/msa.txt").read_bytes()
    assert (out / "references/sources/guide.md.txt").read_bytes() == (src / "guide.md").read_bytes()
    assert (out / "references/sources/notes/log.md.txt").is_file()  # never the bundle's own reserved log.md
    for path in bundle.iter_concepts():
        concept = bundle.concept(path)
        (ref,) = concept.meta.sources
        assert ref.resource.startswith("/references/sources/")
        mirror = (out / ref.resource.lstrip("/")).read_text()
        assert span_sha256(mirror, *ref.lines) == ref.sha256  # a consumer can follow it and verify the span
    assert not any(p.startswith("references/") for p in bundle.iter_concepts())
    assert check(bundle).diagnostics == [d for d in check(bundle).diagnostics if d.code in ("W101", "W104")]


def test_a_moved_bundle_still_verifies_drift_and_receipts(tmp_path: Path) -> None:
    src, out = sources_tree(tmp_path / "src"), tmp_path / "out"
    (src / "guide.md").write_text("# Guide\n\nThe warehouse layout has three zones: receiving, storage, shipping.\n")
    compile_at(src, out)
    moved = tmp_path / "elsewhere" / "bundle"
    moved.parent.mkdir()
    shutil.copytree(out, moved)
    shutil.rmtree(src)  # another machine: no source folder at all
    assert check(Bundle.open(moved)).diagnostics == []
    result = navigate(moved, "How long does the Assignment last?")
    assert result.shortlist
    for entry in result.shortlist:  # every receipt names file lines whose hash it records
        receipt = entry.receipt
        text = (moved / receipt.path).read_text()
        assert span_sha256(text, receipt.start_line, receipt.end_line) == receipt.sha256
    mirror = moved / "references/sources/contracts/msa.txt"
    mirror.write_text(mirror.read_text().replace("[***] years", "five years"))
    drift = [d for d in check(Bundle.open(moved)).diagnostics if d.code == "W150"]
    assert drift and all("/references/sources/contracts/msa.txt" in d.message for d in drift)


def test_drift_is_checked_against_the_original_while_it_is_reachable(tmp_path: Path) -> None:
    src, out = sources_tree(tmp_path / "src"), tmp_path / "out"
    compile_at(src, out)
    (src / "contracts/msa.txt").write_text(CONTRACT.replace("[***] years", "ten years"))
    drift = [d for d in check(Bundle.open(out)).diagnostics if d.code == "W150"]
    assert drift and "its original, contracts/msa.txt" in drift[0].message


def test_incremental_compile_carries_updates_and_removes_mirrors(tmp_path: Path) -> None:
    src, out = sources_tree(tmp_path / "src"), tmp_path / "out"
    compile_at(src, out)
    before = os.stat(out / "references/sources/contracts/msa.txt").st_ino
    compile_at(src, out, force=True)  # every document rebuilt, the bytes unchanged: the mirror is carried over
    assert os.stat(out / "references/sources/contracts/msa.txt").st_ino == before  # a link, not a new copy
    assert (out / "references/sources/contracts/msa.txt").read_text() == CONTRACT
    (src / "contracts/msa.txt").write_text(CONTRACT + "\n3. Notices\n\nNotices are written and signed by both.\n")
    compile_at(src, out)
    assert (out / "references/sources/contracts/msa.txt").read_text().endswith("signed by both.\n")
    (src / "img/layout.png").write_bytes(b"\x89PNG\r\n\x1a\nnew layout")
    compile_at(src, out)
    assert (out / "references/sources/img/layout.png").read_bytes().endswith(b"new layout")
    (src / "contracts/msa.txt").unlink()
    compile_at(src, out)
    assert not (out / "references/sources/contracts").exists()
    assert check(Bundle.open(out)).error_count == 0


def test_assets_are_copied_and_links_rewritten_missing_ones_warned(tmp_path: Path) -> None:
    src, out = sources_tree(tmp_path / "src"), tmp_path / "out"
    report = compile_at(src, out)
    body = (out / "guide.md").read_text()
    assert "![Layout](/references/sources/img/layout.png)" in body
    assert "[floor plan](/references/sources/plans/floor.pdf)" in body
    assert (out / "references/sources/plans/floor.pdf").read_bytes().startswith(b"%PDF")
    assert any("img/none.png" in w for w in report.warnings) and any("img/gone.png" in w for w in report.warnings)
    assert not any(s.path == "img/layout.png" for s in report.skipped)  # copied, not "skipped"
    found = {(d.code, d.path) for d in check(Bundle.open(out)).diagnostics}
    assert found == {("W101", "guide.md"), ("W104", "guide.md")}


def test_no_copy_and_url_modes(tmp_path: Path) -> None:
    src = sources_tree(tmp_path / "src")
    plain = tmp_path / "plain"
    report = compile_at(src, plain, copy_sources=False)
    assert any("--no-copy-sources" in w for w in report.warnings)
    assert not (plain / "references/sources/contracts").exists()
    bundle = Bundle.open(plain)
    assert bundle.concept("contracts/msa/1-definitions/1-1-assignment").meta.sources[0].resource == "contracts/msa.txt"
    assert check(bundle).error_count == 0
    moved = tmp_path / "far" / "plain"
    moved.parent.mkdir()
    shutil.copytree(plain, moved)
    assert "W153" in {d.code for d in check(Bundle.open(moved)).diagnostics}  # not followable once moved
    url = tmp_path / "url"
    compile_at(src, url, sources_url="https://example.com/docs/")
    ref = Bundle.open(url).concept("contracts/msa/2-term").meta.sources[0]
    assert ref.resource == "https://example.com/docs/contracts/msa.txt"
    assert not (url / "references/sources/contracts").exists()
    result = CliRunner().invoke(main, ["compile", str(src), "-o", str(tmp_path / "x"), "--sources-url", "docs"])
    assert result.exit_code == 2 and "not an absolute URL" in result.stderr


def test_source_frontmatter_is_read_and_kept(tmp_path: Path) -> None:
    src = write_files(
        tmp_path / "src",
        {
            "metrics/revenue.md": (
                "---\ntype: Metric\ntitle: Revenue\ndescription: Recognized revenue for a period.\n"
                "resource: https://bi.example/revenue\ntags: [finance, revenue]\nowner: team:finance  # kept as written\n"
                "generated: { by: human:jsmith, at: 2026-06-30T14:00:00Z }\nverified:\n  - { by: human:kliu, at: "
                "2026-07-01T09:00:00Z }\nstale_after: 2026-12-31T00:00:00Z\nsources:\n  - id: policy\n"
                "    resource: https://wiki.example/policy\n---\n# Definition\n\nRevenue sums net amounts of delivered "
                "orders once the return window closed.\n"
            )
        },
    )
    out = tmp_path / "out"
    compile_at(src, out)
    concept = Bundle.open(out).concept("metrics/revenue")
    meta = concept.meta
    assert (meta.type, meta.title, meta.description, meta.tags[:2]) == (
        "Metric",
        "Revenue",
        "Recognized revenue for a period.",
        ["finance", "revenue"],
    )
    assert meta.resource == "https://bi.example/revenue" and meta.extra["owner"] == "team:finance"
    assert meta.verified and meta.verified[0].by == "human:kliu" and meta.stale_after is not None
    assert "---" not in concept.body and concept.body.startswith("# Definition")
    src_ref, policy = meta.sources
    assert (src_ref.author, policy.resource) == ("human:jsmith", "https://wiki.example/policy")
    assert src_ref.lines[0] == 16  # lines stay those of the file: the mirror and the span agree
    assert meta.generated is not None and meta.generated.by.startswith("okf/")
    assert "owner: team:finance  # kept as written" in (out / "metrics/revenue.md").read_text()
    assert check(Bundle.open(out)).diagnostics == []


def test_a_bad_frontmatter_block_is_compiled_as_text_with_a_warning(tmp_path: Path) -> None:
    src = write_files(tmp_path / "src", {"a.md": "---\ntitle: [unclosed\n---\n# A\n\nSome text about apples.\n"})
    report = compile_at(src, tmp_path / "out")
    assert any("frontmatter unreadable" in w for w in report.warnings)


def test_round_trip_of_an_okf_bundle_keeps_titles_types_descriptions_and_tags(
    tmp_path: Path, sample_bundle: Path
) -> None:
    out = tmp_path / "acme"
    compile_at(sample_bundle, out, max_words=1500, min_words=40)  # the defaults
    original, compiled = Bundle.open(sample_bundle), Bundle.open(out)
    for path in original.iter_concepts():
        before = original.concept(path).meta
        after = compiled.concept(path).meta
        # The source's tags come first, the key terms compile finds after them (up to the source's own count
        # plus those): title, type and description are the source's exactly.
        assert (after.type, after.title, after.description, after.tags[: len(before.tags)]) == (
            before.type,
            before.title,
            before.description,
            before.tags,
        ), path
        assert after.status == before.status and after.stale_after == before.stale_after
    assert check(compiled).error_count == 0


def test_plain_text_is_escaped_so_no_markdown_appears(tmp_path: Path) -> None:
    src = write_files(tmp_path / "src", {"msa.txt": CONTRACT})
    out = tmp_path / "out"
    compile_at(src, out)
    bundle = Bundle.open(out)
    body = bundle.concept("msa/1-definitions/1-1-assignment").body
    assert '[Assignment\\]("Assignment")' in body and "\\*all\\*" in body and "\\<b>" in body
    targets = [link.target for link in bundle.links("msa/1-definitions/1-1-assignment")]
    assert targets == ["/msa/1-definitions/1-2-party.md"]  # the one link compile wrote, none from the text
    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(bundle.concept("msa/2-term").body)
    assert "<em>" not in rendered and "<strong>" not in rendered


def _shown(md: MarkdownIt, text: str) -> tuple[set[str], str]:
    out = md.render(text)
    tags = set(re.findall(r"<(/?[a-z0-9]+)", out)) - {"p", "/p", "pre", "/pre", "code", "/code", "br"}
    return tags, " ".join(html.unescape(re.sub(r"<[^>]+>", "", out)).split())


def test_escaped_text_renders_as_written() -> None:
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    alphabet = list("ab  *_~`[]()<>&#;!\\|-=+.:1\n\n\t\"'") + [
        "amp;",
        "http://x",
        "    ",
        "1. ",
        "- ",
        "# ",
        "> ",
        "---",
        "|---|",
        "[x]: y",
        "~~~",
    ]
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
        tags, shown = _shown(md, escape_text(text))
        assert not tags and shown == " ".join(text.split()), repr(text)
    assert escape_text("It is 5 p.m. and R&D said so.") == "It is 5 p.m. and R&D said so."  # plain text untouched


def test_log_stays_newest_first_when_a_compile_is_dated_earlier(tmp_path: Path) -> None:
    src = write_files(tmp_path / "src", {"a.md": "# A\n\nApples are red and sweet in autumn.\n"})
    out = tmp_path / "out"
    compile_at(src, out, at=T1)
    (src / "b.md").write_text("# B\n\nBananas are yellow and grow in bunches.\n")
    compile_at(src, out, at=T0)
    dates = re.findall(r"^## (\S+)", (out / "log.md").read_text(), re.M)
    assert dates == ["2026-03-01", "2026-02-01"]
    assert check(Bundle.open(out)).diagnostics == []


def test_check_reports_the_conformance_rules(tmp_path: Path, write_bundle) -> None:  # type: ignore[no-untyped-def]
    root = write_bundle(
        tmp_path,
        {
            "index.md": "# Root\n\n* [Listed](listed.md) - d\n",
            "listed.md": "---\ntype: N\ndescription: d\n---\nbody\n",
            "orphans/lost.md": "---\ntype: N\ndescription: d\n---\n![chart](missing.png)\n",
            "calc.md": "---\ntype: Attested Computation\ndescription: d\ngenerated: {at: 2026-01-01}\n"
            "stale_after: 2026-05-01T00:00:00\nsources:\n  - {id: a}\n  - {resource: /references/x.pdf}\n"
            "  - {resource: all queries in project X}\n---\nbody\n",
            "bom.md": "\ufeff---\ntype: 2024\ndescription: d\n...\nbody\n",
            "log.md": "# Log\n\n## 2026-01-01\n\n* old\n\n## 2026-02-01\n\n* newer, below\n",
        },
    )
    (root / "bad.md").write_bytes(b"---\ntype: N\ndescription: d\n---\nbad \xff byte\n")
    found = {(d.code, d.path) for d in check(Bundle.open(root)).diagnostics}
    assert {
        ("W116", "orphans/lost.md"),
        ("W104", "orphans/lost.md"),
        ("W137", "calc.md"),
        ("W138", "calc.md"),
        ("W139", "calc.md"),
        ("W152", "calc.md"),
        ("W153", "calc.md"),
        ("W143", "bom.md"),
        ("W144", "bom.md"),
        ("W145", "bom.md"),
        ("W142", "log.md"),
        ("E007", "bad.md"),
    } <= found
    assert ("W116", "listed.md") not in found and ("W153", "listed.md") not in found
    codes = [d.code for d in check(Bundle.open(root)).diagnostics if d.path == "calc.md"]
    assert codes.count("W153") == 1  # the scope descriptor is no path


def test_the_interop_script_measures_harborview(tmp_path: Path) -> None:
    """scripts/interop.py (docs/benchmarks.md): compiled, checked strict, moved, verified, a drift found."""
    import importlib.util

    repo = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("interop", repo / "scripts" / "interop.py")
    assert spec and spec.loader
    interop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(interop)
    sources, question = interop.CORPORA["harborview"]
    assert interop.measure("harborview", sources, question, tmp_path) is True


def test_a_source_named_with_uri_characters_is_cited_so_every_consumer_finds_it(tmp_path: Path) -> None:
    """A "#", "?" or "%" in a file name would start a fragment, a query or an escape in a URI: the resource
    percent-encodes them (OKF §6.2), okf check follows it, drift is still seen, and bundles written before
    the encoding (the raw name as resource) are still followed and mapped to the original."""
    from urllib.parse import unquote, urlsplit

    from okf.eval.gold import GoldIndex
    from okf.eval.questions import GoldSpan

    name = "deals/AMENDMENT #2 ?x 100%.txt"
    src = write_files(
        tmp_path / "src", {name: CONTRACT, "guide.md": "# Guide\n\n![plan](img/plan%20%231%2050%25.png)\n"}
    )
    (src / "img").mkdir()
    (src / "img" / "plan #1 50%.png").write_bytes(b"\x89PNG\r\n\x1a\nplan")
    out = tmp_path / "out"
    compile_at(src, out)
    bundle = Bundle.open(out)
    cited = {ref.resource for path in bundle.iter_concepts() for ref in bundle.concept(path).meta.sources}
    resource = "/references/sources/deals/AMENDMENT %232 %3Fx 100%25.txt"
    assert resource in cited
    parts = urlsplit(resource)  # what any URI-aware consumer reads: the whole name, no fragment, no query
    assert (unquote(parts.path), parts.fragment, parts.query) == ("/references/sources/" + name, "", "")
    assert (out / "references/sources" / name).read_bytes() == (src / name).read_bytes()
    result = CliRunner().invoke(main, ["check", str(out), "--strict", "--json"])
    assert result.exit_code == 0, result.stdout
    assert json.loads(result.stdout)["diagnostics"] == []
    # The linked image is copied and its link rewritten to the copy (a link destination: every space encoded too).
    assert "![plan](/references/sources/img/plan%20%231%2050%25.png)" in (out / "guide.md").read_text()
    assert (out / "references/sources/img/plan #1 50%.png").is_file()

    def drift(root: Path) -> list[str]:
        return [d.message for d in check(Bundle.open(root)).diagnostics if d.code == "W150"]

    def gold_covers(root: Path) -> bool:
        return bool(GoldIndex.from_bundle(Bundle.open(root)).covering(GoldSpan(source=name, start_line=1, end_line=3)))

    assert gold_covers(out)
    (src / name).write_text(CONTRACT.replace("[***] years", "ten years"))  # the original, still reachable
    assert drift(out) and all(f"its original, {name}" in m for m in drift(out))
    (src / name).write_text(CONTRACT)

    # A bundle written before the encoding: the raw name, "#" and all, as resource.
    old = tmp_path / "old"
    shutil.copytree(out, old)
    rewritten = 0
    for path in old.rglob("*.md"):
        text = path.read_text()
        if resource in text:
            path.write_text(text.replace(resource, "/references/sources/" + name))
            rewritten += 1
    assert rewritten >= 2  # every concept of the contract
    assert check(Bundle.open(old)).diagnostics == []
    assert gold_covers(old)

    for root in (out, old):  # moved away from the source folder: the bundle's own copy is compared
        moved = tmp_path / "moved" / root.name
        shutil.copytree(root, moved)
        copy = moved / "references/sources" / name
        copy.write_text(copy.read_text().replace("[***] years", "five years"))
        assert drift(moved)


def test_no_copy_sources_encode_the_path_under_the_compile_folder(tmp_path: Path) -> None:
    name = "deals/AMENDMENT #2 ?x 100%.txt"
    src = write_files(tmp_path / "src", {name: CONTRACT})
    out = tmp_path / "out"
    compile_at(src, out, copy_sources=False)
    bundle = Bundle.open(out)
    cited = {ref.resource for path in bundle.iter_concepts() for ref in bundle.concept(path).meta.sources}
    assert cited == {"deals/AMENDMENT %232 %3Fx 100%25.txt"}
    assert [d.code for d in check(bundle).diagnostics] == []
    (src / name).write_text(CONTRACT.replace("[***] years", "ten years"))
    assert any(d.code == "W150" for d in check(Bundle.open(out)).diagnostics)
