"""okf compile: structure, signposts, links, incremental and atomic writes, bad input."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from okf.bundle import Bundle
from okf.cli import main
from okf.compile import CompileOptions, compile_bundle
from okf.compile.tree import slugify, unique
from okf.errors import CompileError
from okf.markdown import parse_index
from okf.sources import read_source_text, span_sha256

CONTRACT = """MASTER SERVICES AGREEMENT

This Master Services Agreement is made between Acme Corp and Beta LLC on the date below.

ARTICLE I
DEFINITIONS

1.1 "Confidential Information" means any information disclosed by one party to the other party, marked
confidential or reasonably understood to be confidential, in connection with this Agreement and the services.

1.2 "Services" means the services described in Schedule B and any related deliverables that the provider
supplies to the customer under this Agreement during the term of the agreement as described.

ARTICLE II
SERVICES AND FEES

2.1 Provision. The provider shall perform the Services with reasonable care and skill, as set out in
Section 2.2, and shall protect all Confidential Information received from the customer at all times.

2.2 Fees. The customer shall pay the fees set out in Schedule B within thirty days of each invoice date,
except as otherwise stated in Article I or agreed by the parties in writing from time to time.

SCHEDULE B

Fees are one thousand dollars per month for the Services, payable monthly in arrears by bank transfer
to the account the provider names in writing, and subject to annual review by both parties.
"""


def check_clean(out: Path) -> None:
    """Every bundle okf compiles passes okf check with zero errors."""
    try:
        from okf.bundle import Bundle
        from okf.checker import check
    except ImportError:  # pragma: no cover - check lands separately
        return
    report = check(Bundle.open(out))
    assert not report.errors, [str(d) for d in report.errors]


def concept(out: Path, rel: str) -> tuple[dict[str, str], str]:
    text = (out / rel).read_text()
    _, head, body = text.split("---\n", 2)
    return {
        line.split(":", 1)[0].strip(" -"): line.split(":", 1)[1].strip() for line in head.splitlines() if ":" in line
    }, body


def snapshot(out: Path) -> dict[str, tuple[bytes, int]]:
    """Bundle files with their mtimes; the stat cache is compile bookkeeping, not bundle content."""
    return {
        p.relative_to(out).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name != "stat-cache.json"
    }


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "legal").mkdir(parents=True)
    (src / "legal" / "msa.txt").write_text(CONTRACT)
    (src / "guide.md").write_text(
        "# Guide\n\nThe guide explains how the services work for every customer and team.\n\n"
        "## Setup\n\nInstall the agent on every host before the first run starts in production.\n\n"
        "## Usage\n\nRun the agent daily. See [fees](notes.md#fees) for what it costs to run it.\n"
    )
    (src / "notes.md").write_text(
        "# Notes\n\nNotes about the services, written by the team for new colleagues.\n\n"
        "## Fees\n\nFees are billed monthly and reviewed each year by the finance team together.\n"
    )
    (src / "image.png").write_bytes(b"\x89PNG")
    return src


def test_compile_builds_a_clean_bundle(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    report = compile_bundle([corpus], out, options=CompileOptions(max_words=30, min_words=8))
    assert report.created == report.concepts > 5
    assert [s.path for s in report.skipped] == ["image.png"]
    check_clean(out)
    root = (out / "index.md").read_text()
    assert root.startswith('---\nokf_version: "0.2"\n---\n')
    # Folder structure kept; one directory per document.
    assert (out / "legal" / "msa" / "index.md").is_file() and (out / "guide" / "index.md").is_file()
    meta, body = concept(out, "guide/setup.md")
    assert meta["type"] == '"Section"' and meta["description"].startswith('"Install the agent')
    source = read_source_text(corpus / "guide.md").text
    lines = json.loads(meta["lines"])
    assert meta["sha256"] == span_sha256(source, *lines)
    assert body.strip() == "\n".join(source.split("\n")[lines[0] - 1 : lines[1]]).strip()
    # Cross-document markdown link -> the concept holding the anchor (notes.md is one concept: a file).
    assert "[fees](/notes.md)" in concept(out, "guide/usage.md")[1]
    assert (out / "notes.md").is_file() and not (out / "notes").exists()
    # Index entries repeat the concept descriptions exactly.
    listing = parse_index((out / "guide" / "index.md").read_text())
    for entry in listing.entries:
        if entry.target.endswith(".md") and not entry.target.endswith("index.md"):
            assert json.loads(concept(out, "guide/" + entry.target)[0]["description"]) == entry.description
    assert "12 items" not in (out / "index.md").read_text()
    log = (out / "log.md").read_text()
    assert log.startswith("# Update log\n\n## ") and "**Creation**" in log


def test_text_numbering_defined_terms_and_references(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    compile_bundle([corpus], out, options=CompileOptions(max_words=45, min_words=8))
    doc = out / "legal" / "msa"
    names = sorted(p.relative_to(doc).as_posix() for p in doc.rglob("*.md"))
    assert "article-ii-services-and-fees/2-1-provision.md" in names, names
    assert any(n.startswith("schedule-b") for n in names)
    _, body = concept(out, "legal/msa/article-ii-services-and-fees/2-1-provision.md")
    assert "[Section 2.2](/legal/msa/article-ii-services-and-fees/2-2-fees.md)" in body
    assert "[Confidential Information](/legal/msa/article-i-definitions" in body
    assert body.count("[Confidential Information]") == 1  # first use per concept only
    index = (doc / "index.md").read_text()
    assert "Article I: Definitions" in index


def test_recompile_unchanged_touches_nothing(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    options = CompileOptions(max_words=30, min_words=8)
    compile_bundle([corpus], out, options=options)
    before = snapshot(out)
    report = compile_bundle([corpus], out, options=options)
    assert not report.changed and report.unchanged == report.concepts
    assert snapshot(out) == before


def test_changed_and_removed_sources(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    options = CompileOptions(max_words=30, min_words=8, timestamp="2026-01-01T00:00:00Z")
    compile_bundle([corpus], out, options=options)
    before = snapshot(out)
    (corpus / "notes.md").write_text((corpus / "notes.md").read_text().replace("monthly", "weekly"))
    (corpus / "legal" / "msa.txt").unlink()
    report = compile_bundle([corpus], out, options=options.model_copy(update={"timestamp": None}))
    assert report.updated >= 1 and report.removed >= 5
    after = snapshot(out)
    assert not any(p.startswith("legal/") for p in after)
    assert after["guide/setup.md"] == before["guide/setup.md"]  # same bytes, same inode: untouched
    assert b"weekly" in after["notes.md"][0]
    assert "**Removal**" in (out / "log.md").read_text()
    check_clean(out)


def test_ids_stable_when_a_section_is_added(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    para = "This paragraph has enough words to stand alone as one section of the handbook text. " * 2
    (src / "h.md").write_text(f"# H\n\n{para}\n\n## Alpha\n\n{para}\n\n## Beta\n\n{para}\n")
    options = CompileOptions(max_words=60, min_words=8)
    compile_bundle([src], tmp_path / "out", options=options)
    first = {p.name for p in (tmp_path / "out" / "h").glob("*.md")}
    (src / "h.md").write_text(f"# H\n\n{para}\n\n## New\n\n{para}\n\n## Alpha\n\n{para}\n\n## Beta\n\n{para}\n")
    compile_bundle([src], tmp_path / "out", options=options)
    second = {p.name for p in (tmp_path / "out" / "h").glob("*.md")}
    assert first <= second and second - first == {"new.md"}


def test_no_headings_split_by_paragraphs_and_big_file(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    paragraph = "plain words without any heading at all in this long file that goes on " * 10
    (src / "plain.txt").write_text("\n\n".join([paragraph] * 3000))  # ~2 MB, 420k words
    report = compile_bundle([src], tmp_path / "out", options=CompileOptions(max_words=1500))
    assert report.concepts >= 280
    for path in (tmp_path / "out").rglob("*.md"):
        if path.name != "index.md" and path.name != "log.md":
            assert len(path.read_text().split()) < 1700
    index = (tmp_path / "out" / "plain" / "index.md").read_text()
    assert index.count("\n* [") <= 24  # fan-out cap: grouped into contiguous runs
    check_clean(tmp_path / "out")


TOPICS = {
    "orchard": ["apple orchard harvest", "pear orchard pruning", "cherry orchard blossom", "plum orchard grafting"],
    "engine": ["diesel engine piston", "turbine engine blade", "rotary engine rotor", "steam engine boiler"],
    "choir": ["choir soprano rehearsal", "choir tenor anthem", "choir alto hymn", "choir bass chant"],
}


def test_fanout_groups_wide_folders_by_topic(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    # 60 one-paragraph documents on three topics, interleaved so their names say nothing of their topic.
    for i in range(60):
        topic = list(TOPICS)[i % 3]
        words = TOPICS[topic][i % 4]
        (src / f"doc {i:03d}.txt").write_text(
            f"The {topic} note {i} covers the {words} and the {topic} work around the {words} in detail.\n"
        )
    compile_bundle([src], tmp_path / "out", options=CompileOptions(fanout=24))
    root = parse_index((tmp_path / "out" / "index.md").read_text().split("---\n", 2)[2])
    assert len(root.entries) == 3 and all(e.target.startswith("topic-") for e in root.entries)
    for entry in root.entries:
        group = parse_index((tmp_path / "out" / entry.target).read_text())
        names = {e.title for e in group.entries}
        numbers = {int(name.split()[1]) for name in names}
        # Each group holds one topic's documents, and its title and description name that topic.
        assert len({n % 3 for n in numbers}) == 1, names
        topic = list(TOPICS)[next(iter(numbers)) % 3]
        assert topic in entry.title.casefold() or topic in entry.description.casefold()
        # One-paragraph documents are concept files listed in the group, not folders of one file.
        assert all(e.target.endswith(".md") and not e.target.endswith("index.md") for e in group.entries)
        # The description names every member, so a selector can tell whether the document it wants is inside.
        assert all(name in entry.description for name in names)
    check_clean(tmp_path / "out")


# Four pairs of related subjects (the two of a pair share a few words of their own), eight groups' worth of
# documents for four groups: each group has to hold two subjects. "cell" is the term of art of the first
# subject (each of its documents says it twice) and a word three documents of the third use in another sense.
SENSES = [
    (("biology", "membrane nucleus protein enzyme mitosis"), ("genetics", "gene allele chromosome mutation genome")),
    (("prison", "inmate warden parole convict jailer"), ("police", "officer patrol detective precinct badge")),
    (("ships", "boat sail mast anchor hull"), ("fishing", "trawler net cod catch bait")),
    (("bread", "oven flour dough yeast crust"), ("cheese", "milk curd rennet cheddar cellar")),
]
KIN = ["organism tissue molecule", "crime arrest murder", "sea harbour wave", "kitchen recipe taste"]


@pytest.mark.parametrize("per, repeats", [(4, 2), (5, 3)])
def test_topic_groups_do_not_join_two_senses_of_one_word(tmp_path: Path, per: int, repeats: int) -> None:
    src = tmp_path / "src"
    src.mkdir()
    documents = []
    for p, (pair, kin) in enumerate(zip(SENSES, KIN)):
        for s, (subject, pool) in enumerate(pair):
            words, shared = pool.split(), kin.split()
            for n in range(per):
                picked = [words[n % 5], words[(n + 1) % 5], shared[n % 3], shared[(n + 1) % 3]]
                text = " ".join(f"The {w} was there." for w in picked)
                if (p, s) == (0, 0):
                    text += " The cell was there." * 2
                elif (p, s) == (1, 0) and n < 3:
                    text += " The cell was there." * repeats
                documents.append((subject, text))
    subject_of = {}
    for k, j in enumerate(sorted(range(len(documents)), key=lambda i: (i * 7919) % len(documents))):
        (src / f"note {k:02d}.txt").write_text(documents[j][1] + "\n")
        subject_of[f"note {k:02d}"] = documents[j][0]
    compile_bundle([src], tmp_path / "out", options=CompileOptions(fanout=2 * per))
    root = parse_index((tmp_path / "out" / "index.md").read_text().split("---\n", 2)[2])
    assert len(root.entries) == 4
    groups = [
        {subject_of[e.title] for e in parse_index((tmp_path / "out" / entry.target).read_text()).entries}
        for entry in root.entries
    ]
    # The word's two senses never share a group: each subject sits with the subject it has words in common with.
    assert not any({"biology", "prison"} <= g for g in groups), groups
    assert sorted(sorted(g) for g in groups) == sorted(sorted(s for s, _ in pair) for pair in SENSES)
    check_clean(tmp_path / "out")


def _subjects(seed: int, subjects: int, per: int) -> tuple[list[str], dict[str, dict[str, int]], dict[str, int]]:
    """Grouping terms of ``subjects`` subjects of ``per`` documents (three of a subject's eight words each,
    and two of six words every subject uses), drawn by a seeded generator, in a shuffled order."""
    import random

    rnd = random.Random(seed)
    letters = "bcdfghklmnprstvz"

    def word(i: int) -> str:
        return "".join(letters[(i * 7 + k * 3) % 16] + "aeiou"[(i + k) % 5] for k in range(3)) + letters[i % 16]

    docs = []
    for s in range(subjects):
        for _ in range(per):
            counts = {word(s * 8 + j): rnd.randint(1, 3) for j in rnd.sample(range(8), 3)}
            for j in rnd.sample(range(6), 2):
                counts[word(1000 + j)] = rnd.randint(1, 3)
            docs.append((s, counts))
    rnd.shuffle(docs)
    names = [f"doc{i:03d}.txt" for i in range(len(docs))]
    return names, {n: d[1] for n, d in zip(names, docs)}, {n: d[0] for n, d in zip(names, docs)}


@pytest.mark.parametrize("seed, subjects, per", [(4, 3, 10), (1, 4, 10), (11, 4, 5), (21, 6, 5)])
def test_topic_groups_keep_subjects_whole_in_any_order(seed: int, subjects: int, per: int) -> None:
    """Subjects of ``per`` documents, groups of at most 10: each subject fits in one group, and balanced
    k-means alone split some (a document whose subject's group was full placed where it was least unwanted,
    and which subjects moved with the order the documents came in). The local search moves them back to
    their kin, and the groups are the same in path order, reversed and shuffled."""
    import random

    from okf.compile.tree import place_documents

    names, terms_of, subject = _subjects(seed, subjects, per)
    shuffled = list(names)
    random.Random(1).shuffle(shuffled)
    placements = [place_documents(order, 10, terms_of)[1] for order in (names, names[::-1], shuffled)]
    assert placements[0] == placements[1] == placements[2]
    groups: dict[str, set[int]] = {}
    for name in names:
        groups.setdefault(placements[0][name].rstrip("/").rpartition("/")[0], set()).add(subject[name])
    assert len(groups) == math.ceil(subjects * per / 10)
    assert all(sum(s in g for g in groups.values()) == 1 for s in range(subjects)), groups


def test_fanout_range_groups_are_the_last_resort(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "inner.txt").write_text("An inner document with a sentence of its own in it.\n")
    for i in range(30):
        (src / f"doc {i:03d}.txt").write_text(f"Document number {i} says something short but sensible here.\n")
    compile_bundle([src], tmp_path / "out", options=CompileOptions(fanout=24))
    root = parse_index((tmp_path / "out" / "index.md").read_text().split("---\n", 2)[2])
    # A folder mixing documents and subfolders is cut into contiguous runs, described by their members.
    assert [e.target for e in root.entries] == ["documents-1-16/index.md", "documents-17-31/index.md"]
    assert "doc 000" in root.entries[0].description
    check_clean(tmp_path / "out")


def test_html_and_names(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "Page: one?.html").write_text(
        "<html><head><title>T</title></head><body><h1>Page One</h1><p>Hello <b>world</b> and "
        "<a href='x.html'>x</a> here in a sentence.</p><ul><li>a</li><li>b</li></ul>"
        "<table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table>"
        "<pre><code>x = 1</code></pre></body></html>"
    )
    (src / "caf\u00e9 notes..txt").write_text("Caf\u00e9 notes are short but fine as a document here.\n")
    (src / "empty.md").write_text("\n\n")
    (src / "bad.txt").write_bytes(b"bad \xff bytes but a real sentence of text here.\n")
    report = compile_bundle([src], tmp_path / "out")
    converted = read_source_text(src / "Page: one?.html").text
    assert "# Page One" in converted and "| k | v |" in converted and "```\nx = 1\n```" in converted
    assert (tmp_path / "out" / "page-one.md").is_file()  # one-concept documents are concept files
    assert (tmp_path / "out" / "cafe-notes.md").is_file()
    assert any(s.path == "empty.md" for s in report.skipped)
    assert any("undecodable" in w for w in report.warnings)
    check_clean(tmp_path / "out")


def test_slugs() -> None:
    assert slugify('A:b*c?"d<e>f|g.') == "a-b-c-d-e-f-g"
    assert slugify("index") == "index-doc" and slugify("...") == "untitled"
    assert unique(["a", "a", "b", "a"]) == ["a", "a-2", "b", "a-3"]


def test_bad_inputs(tmp_path: Path, corpus: Path) -> None:
    with pytest.raises(CompileError, match="does not exist"):
        compile_bundle([tmp_path / "missing"], tmp_path / "out")
    (tmp_path / "file").write_text("x")
    with pytest.raises(CompileError, match="not a folder"):
        compile_bundle([corpus], tmp_path / "file")
    with pytest.raises(CompileError, match="inside the sources"):
        compile_bundle([corpus], corpus / "out")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "keep.txt").write_text("mine")
    with pytest.raises(CompileError, match="not written by okf"):
        compile_bundle([corpus], tmp_path / "foreign")
    assert (tmp_path / "foreign" / "keep.txt").read_text() == "mine"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads unreadable files")
def test_unreadable_file_is_skipped(corpus: Path, tmp_path: Path) -> None:
    secret = corpus / "secret.md"
    secret.write_text("# Secret\n\ntext")
    secret.chmod(0)
    report = compile_bundle([corpus], tmp_path / "out")
    assert any(s.path == "secret.md" and "not readable" in s.reason for s in report.skipped)


def test_cli_json_and_errors(corpus: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["compile", str(corpus), "-o", str(tmp_path / "out"), "--json", "-q"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["created"] == data["concepts"] and data["skipped"][0]["path"] == "image.png"
    again = runner.invoke(main, ["compile", str(corpus), "-o", str(tmp_path / "out")])
    assert again.exit_code == 0 and "up to date" in again.stdout
    bad = runner.invoke(main, ["compile", str(tmp_path / "nope"), "-o", str(tmp_path / "o2")])
    assert bad.exit_code == 1 and "source does not exist" in bad.stderr
    assert "Examples:" in runner.invoke(main, ["compile", "--help"]).stdout


def test_forced_rebuild_with_same_output_writes_nothing(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    options = CompileOptions(max_words=30, min_words=8)
    compile_bundle([corpus], out, options=options)
    before = snapshot(out)
    report = compile_bundle([corpus], out, options=options.model_copy(update={"force": True}))
    assert report.documents_rebuilt == 3 and not report.changed
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "out.okf-spare", "src"]  # no side tree left


def test_worker_processes_write_the_same_bundle(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forked workers write their documents into the side tree: the result is byte for byte the same."""
    from okf.compile import parallel

    for i in range(6):
        (corpus / "legal" / f"msa-{i}.txt").write_text(CONTRACT.replace("Acme", f"Acme {i}"))
    options = CompileOptions(max_words=30, min_words=8, fanout=4, timestamp="2026-01-01T00:00:00Z")
    monkeypatch.setenv("OKF_COMPILE_JOBS", "1")
    serial = compile_bundle([corpus], tmp_path / "one" / "out", options=options)
    monkeypatch.setenv("OKF_COMPILE_JOBS", "2")
    monkeypatch.setattr(parallel, "MIN_BYTES", 0)
    forked = compile_bundle([corpus], tmp_path / "two" / "out", options=options)
    assert forked.files_written == serial.files_written and forked.bytes == serial.bytes
    assert snapshot(tmp_path / "two" / "out").keys() == snapshot(tmp_path / "one" / "out").keys()
    for rel in snapshot(tmp_path / "one" / "out"):
        assert (tmp_path / "two" / "out" / rel).read_bytes() == (tmp_path / "one" / "out" / rel).read_bytes(), rel


def test_a_plan_rendered_where_it_was_planned_keeps_only_what_later_steps_read(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text source is rendered in the worker that planned it, whose plan is then pickled back: it comes back
    without its text, concept tree and planning tables; a markdown source keeps them (rendered later)."""
    import okf.compile.api as compile_module

    kept: dict[str, object] = {}

    def spy(state: object) -> None:
        kept.update(state.plans)  # type: ignore[attr-defined]

    steps = list(compile_module.STEPS)
    steps.insert([n for n, _ in steps].index("build_documents") + 1, ("spy", spy))
    monkeypatch.setattr(compile_module, "STEPS", steps)
    out = tmp_path / "out"
    compile_bundle([corpus], out, options=CompileOptions(max_words=30, min_words=8))
    text, markdown = kept["legal/msa.txt"], kept["guide.md"]
    assert text.lines == [] and text.node.children == [] and not text.keys and not text.heading_titles  # type: ignore[attr-defined]
    assert text.title == "msa" and text.node.path == "legal/msa/"  # type: ignore[attr-defined]
    assert text.anchors[""].startswith("legal/msa/") and (out / text.anchors[""]).is_file()  # type: ignore[attr-defined]
    assert markdown.node.children  # type: ignore[attr-defined]


def test_failed_step_removes_the_side_tree(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import okf.compile.api as compile_module

    out = tmp_path / "out"
    compile_bundle([corpus], out, options=CompileOptions(max_words=30, min_words=8))
    before = snapshot(out)
    (corpus / "notes.md").write_text((corpus / "notes.md").read_text().replace("monthly", "weekly"))

    def broken(state: object) -> None:
        raise CompileError("broken step")

    steps = [(n, broken if n == "finish" else s) for n, s in compile_module.STEPS]
    monkeypatch.setattr(compile_module, "STEPS", steps)
    with pytest.raises(CompileError):
        compile_bundle([corpus], out, options=CompileOptions(max_words=30, min_words=8))
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "out.okf-spare", "src"]


def test_plain_text_dense_with_markup_characters_fits_the_judge_window(tmp_path: Path) -> None:
    """A .txt body gains a backslash before each character markdown would read as markup (okf.compile.escape);
    pieces are sized as written, so every concept still fits the judge's window (CompileOptions.max_chars)."""
    from okf.bundle import Bundle
    from okf.navigator.receipts import judged_text

    src = tmp_path / "src"
    src.mkdir()
    row = " ".join(["*a*", "_b_", "[c]", "<d>"] * 5)  # half its characters need a backslash
    paragraphs = ["\n".join([f"Line {n}: {row}"] * 6) for n in range(1, 120)]
    (src / "schedule.txt").write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    options = CompileOptions(max_chars=2000)
    compile_bundle([src], out, options=options)
    bundle = Bundle.open(out)
    bodies = [bundle.concept(p).body for p in bundle.iter_concepts()]
    assert len(bodies) > 5 and all("\\*" in b for b in bodies)  # escaped as written, and split into many
    assert not [b for b in bodies if judged_text(b, options.max_chars)[1]]


def test_a_split_section_is_named_once_in_its_folder_signpost(tmp_path: Path) -> None:
    """The pieces of a long section ("Fees (part 1 of 3)", ...) are one member of the folder's description:
    "Fees (3 parts)" with the pieces' key terms, never a run of numbered copies of one title."""
    src = tmp_path / "src"
    src.mkdir()
    fees = "\n\n".join(
        f"The licensee pays royalty instalment {n} on the invoice date for shipment {n}." for n in range(60)
    )
    text = f"# Terms\n\n## Fees\n\n{fees}\n\n## Notices\n\nNotices go to the registered office by courier.\n"
    (src / "deal.md").write_text(text, encoding="utf-8")
    compile_bundle([src], tmp_path / "out", options=CompileOptions(max_words=300, min_words=8))
    root = (tmp_path / "out" / "index.md").read_text(encoding="utf-8")
    folder = (tmp_path / "out" / "deal" / "index.md").read_text(encoding="utf-8")
    assert "Fees (part 1 of" in folder  # the pieces themselves keep their titles
    assert "(part 1 of" not in root and "Fees (" in root and " parts)" in root
    check_clean(tmp_path / "out")


def test_a_running_head_over_numbered_passages_is_not_their_description(tmp_path: Path) -> None:
    """A line the source repeats at the top of each passage (a chapter's name over numbered passages, a page
    header) is no passage's description: each is described, and named in its folder's line, by what it says."""
    head = "REQUIREMENTS FOR FIRMS ENGAGED IN REGULATED ACTIVITIES IN RELATION TO VIRTUAL ASSETS"
    said = [
        "Firms keep a clear audit trail of system issues, their resolution and the fixes implemented.",
        "Firms encrypt client keys at rest and rotate them every quarter.",
        "Firms report security incidents to the regulator within one business day.",
        "Firms test their recovery plans once a year with an outside assessor.",
    ]
    passages = "\n\n".join(f"### {n})\n\n{head}\n{text}" for n, text in enumerate(said, 40))
    src = tmp_path / "src"
    src.mkdir()
    intro = "# Virtual asset guidance\n\nThis guidance sets out what the regulator expects of firms.\n\n"
    (src / "guide.md").write_text(f"{intro}{passages}\n", encoding="utf-8")
    compile_bundle([src], tmp_path / "out", options=CompileOptions(max_words=40, min_words=5))
    bundle = Bundle.open(tmp_path / "out")
    passage = [bundle.load(p).meta for p in bundle.iter_concepts()]
    assert {m.description for m in passage if m.title.endswith(")")} == set(said)
    root = (tmp_path / "out" / "index.md").read_text(encoding="utf-8")
    assert "REQUIREMENTS FOR FIRMS" not in root and "40): Firms keep a clear audit trail" in root
    # A line opening fewer passages (two here) is what they say, and stays.
    (src / "guide.md").write_text(f"{intro}{passages.split('### 42)')[0]}", encoding="utf-8")
    compile_bundle([src], tmp_path / "out2", options=CompileOptions(max_words=40, min_words=5))
    two = Bundle.open(tmp_path / "out2")
    opened = [two.load(p).meta for p in two.iter_concepts()]
    assert [m.description[: len(head)] for m in opened if m.title.endswith(")")] == [head, head]
    check_clean(tmp_path / "out")


def test_a_concept_whose_title_says_it_all_still_has_tags(tmp_path: Path) -> None:
    """Tags leave out words the title already shows; when the title is the concept's whole sentence, the
    concept's own key terms are its tags (the spec's tags on every concept with words)."""
    src = tmp_path / "src"
    src.mkdir()
    filler = "\n\n".join(
        f"## Step {n}\n\nRotate the signing certificate {n} times before the audit window." for n in range(4)
    )
    note = "Audit records stay inside the cluster because the forwarder lacks encrypted storage."
    (src / "guide.md").write_text(f"# Guide\n\n{filler}\n\n## {note}\n\n{note}\n", encoding="utf-8")
    compile_bundle([src], tmp_path / "out", options=CompileOptions(max_words=60, min_words=5))
    bundle = Bundle.open(tmp_path / "out")
    untagged = [p for p in bundle.iter_concepts() if not bundle.load(p).meta.tags]
    assert untagged == []


def test_a_folder_of_numbered_sections_is_described_in_their_words() -> None:
    """Members titled "Section 1.2 Act", "Sections 1 to 40: ..." would make a folder's description mostly
    numbering; it names them by their words instead (issue 11: no identifier-only directory descriptions)."""
    from okf.compile.describe import content_label, directory_description, mostly_identifiers

    sections = [(f"Section 1.{n} {term}", []) for n, term in enumerate(["Act", "Affiliate", "COGS", "Control"] * 9)]
    plain = directory_description(sections, [])
    assert not mostly_identifiers(plain) and plain.startswith("Act; Affiliate; COGS; Control;")
    ranges = [("Sections 1 to 40: rules, authority", []), ("Sections 41 to 80: permission, variation", [])]
    assert directory_description(ranges, []) == "rules, authority; permission, variation."
    # Titles with words of their own keep their numbering; numbering alone is kept as it is.
    mixed = [("Section 1.2 Act", []), ("Termination for convenience by either party", [])]
    assert directory_description(mixed, []) == "Section 1.2 Act; Termination for convenience by either party."
    assert content_label("Part 1.Chapter 2") == "Part 1.Chapter 2"
    assert content_label("18.8.2: A PFP Operator must disclose") == "A PFP Operator must disclose"


def test_key_terms_are_shown_once_and_lists_stay_full(tmp_path: Path) -> None:
    """Several stems can be written by one word ("sonata", "flow" and "sonataflow" are all read in
    "SonataFlow"): a concept's tags and a folder's key terms name each word once."""
    src = tmp_path / "src"
    src.mkdir()
    sections = []
    for n in range(6):
        body = " ".join(
            [
                f"Deploy the SonataFlow operator {n} with the sonataflow.yaml file.",
                "SonataFlow runs workflows; each SonataFlow workflow reads its sonataflow.yaml settings.",
                f"Kafka brokers, Knative eventing, PostgreSQL storage and Quarkus builds back step {n}.",
                "Retries, timeouts, compensation handlers and callbacks shape every orchestration.",
            ]
        )
        sections.append(f"## Workflow step {n}\n\n{body}\n")
    (src / "guide.md").write_text("# Orchestrator guide\n\n" + "\n".join(sections), encoding="utf-8")
    compile_bundle([src], tmp_path / "out", options=CompileOptions(max_words=60, min_words=5))
    bundle = Bundle.open(tmp_path / "out")
    for path in bundle.iter_concepts():
        tags = bundle.load(path).meta.tags
        assert len({t.casefold() for t in tags}) == len(tags), (path, tags)
    for index in (tmp_path / "out").rglob("index.md"):
        for group in re.findall(r"\(([^()]*)\)", index.read_text(encoding="utf-8")):
            terms = [t.strip().casefold() for t in group.split(",")]
            assert len(set(terms)) == len(terms), (index, group)
    check_clean(tmp_path / "out")


def test_names_are_not_read_cut_short_at_the_opening_bound() -> None:
    """Names are read from a concept's opening; a name the bound falls inside is not read as its first
    words ("Red Hat Deve")."""
    from okf.compile.describe import NAME_CHARS, concept_tags

    name = "Red Hat Developer Hub"
    text = "x" * (NAME_CHARS - 12) + f" {name} and {name} again, then {name}."
    tags = concept_tags({}, "Guide", text, (), {})
    assert not [t for t in tags if t != name and name.startswith(t)]


def test_okf_compile_freezes_what_is_left_at_exit_only(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The interpreter's last collection would walk every object the compile left (term tables, caches): okf
    # compile freezes them at exit (registered once however often it runs), never while the process goes on.
    import atexit
    import gc

    registered: list[object] = []
    monkeypatch.setattr(atexit, "register", registered.append)
    monkeypatch.setattr(atexit, "unregister", lambda f: registered.remove(f) if f in registered else None)
    frozen = gc.get_freeze_count()
    for _ in range(2):
        result = CliRunner().invoke(main, ["compile", str(corpus), "-o", str(tmp_path / "out"), "--json", "--quiet"])
        assert result.exit_code == 0, result.output
    assert registered == [gc.freeze] and gc.get_freeze_count() == frozen
