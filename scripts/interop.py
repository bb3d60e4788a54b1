"""Self-contained, conformant bundles, measured (docs/compile.md "Self-contained bundles").

Usage: python scripts/interop.py [--corpus NAME ...]   (from the repository root; offline)

For each corpus (../shared/corpora/rhdh/sources and bundles/sources/harborview by default):
1. compile a copy of its sources and run ``okf check --strict`` (the number of diagnostics must be 0);
2. move the bundle to another folder and delete the copied sources (another machine): check again (0), check
   that every receipt of a navigation verifies against the file lines it names, and that a changed line of a
   mirrored source is reported as drift (W150);
then compile ../shared/reference/okf-samples/acme_retail as sources and compare titles, types, descriptions and
tags with the original bundle. Prints one line per measure; exit 1 when one fails.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from okf.bundle import Bundle
from okf.checker import check
from okf.compile import CompileOptions, compile_bundle
from okf.navigator import navigate
from okf.sources import span_sha256

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPORA = {
    "rhdh": (SHARED / "corpora" / "rhdh" / "sources", "How do I enable audit logs?"),
    "harborview": (REPO / "bundles" / "sources" / "harborview", "How many days of notice end the Cascadia MSA?"),
}


def measure(name: str, sources: Path, question: str, work: Path) -> bool:
    copy = work / f"{name}-sources"
    shutil.copytree(sources, copy)
    out = work / name
    started = time.perf_counter()
    report = compile_bundle([copy], out, options=CompileOptions())
    seconds = time.perf_counter() - started
    first = check(Bundle.open(out))
    print(
        f"{name}: {report.concepts} concepts from {report.sources} sources in {seconds:.2f}s; "
        f"okf check --strict: {len(first.diagnostics)} diagnostics"
    )
    moved = work / "elsewhere" / name
    moved.parent.mkdir(exist_ok=True)
    shutil.move(str(out), moved)
    shutil.rmtree(copy)  # the sources are gone: only the bundle's own copies remain
    again = check(Bundle.open(moved))
    result = navigate(moved, question)
    receipts = [entry.receipt for entry in result.shortlist]
    verified = sum(
        span_sha256((moved / r.path).read_text("utf-8"), r.start_line, r.end_line) == r.sha256 for r in receipts
    )
    bundle = Bundle.open(moved)
    cited = next(
        ref
        for path in bundle.iter_concepts()
        for ref in bundle.concept(path).meta.sources
        if ref.lines and ref.resource.startswith("/references/sources/") and not ref.resource.endswith(".pdf")
    )
    mirror = moved / cited.resource.lstrip("/")
    lines = mirror.read_text("utf-8").split("\n")
    lines[cited.lines[0] - 1] += " (edited)"
    mirror.write_text("\n".join(lines), "utf-8")
    drift = [d for d in check(Bundle.open(moved)).diagnostics if d.code == "W150"]
    print(
        f"{name} moved, sources deleted: okf check: {len(again.diagnostics)} diagnostics; receipts verified: "
        f"{verified} of {len(receipts)}; a mirrored line edited: {len(drift)} W150 "
        f"({'found' if drift else 'MISSED'})"
    )
    return not first.diagnostics and not again.diagnostics and verified == len(receipts) > 0 and bool(drift)


def round_trip(work: Path) -> bool:
    sample = SHARED / "reference" / "okf-samples" / "acme_retail"
    if not sample.is_dir():
        print("acme_retail round trip: skipped (no ../shared/reference/okf-samples/acme_retail)")
        return True
    out = work / "acme"
    compile_bundle([sample], out, options=CompileOptions())
    original, compiled = Bundle.open(sample), Bundle.open(out)
    paths = list(original.iter_concepts())
    kept = 0
    for path in paths:
        a, b = original.concept(path).meta, compiled.concept(path).meta
        # The source's tags come first; compile's key terms follow them.
        same = (a.type, a.title, a.description, a.tags) == (b.type, b.title, b.description, b.tags[: len(a.tags)])
        kept += same
        if not same:
            print(f"  {path}: {(a.type, a.title, a.tags)} became {(b.type, b.title, b.tags)}")
    errors = check(compiled).error_count
    print(
        f"acme_retail round trip: {kept} of {len(paths)} concepts keep title, type, description and tags (first); "
        f"{errors} check errors"
    )
    return kept == len(paths) and errors == 0


def main() -> int:
    names = [a for a in sys.argv[1:] if not a.startswith("-")] or list(CORPORA)
    ok = True
    with tempfile.TemporaryDirectory(prefix="okf-interop-") as tmp:
        for name in names:
            sources, question = CORPORA[name]
            if not sources.is_dir():
                print(f"{name}: skipped ({sources} missing)")
                continue
            ok &= measure(name, sources, question, Path(tmp))
        ok &= round_trip(Path(tmp))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
