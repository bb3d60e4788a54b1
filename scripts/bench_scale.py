"""How okf's cost grows with the bundle: check, navigate and compile at 1k, 10k, 100k and 300k concepts.

Every size is the same shape grown wider: three directory levels of ``f`` directories (``f`` the cube root
of the leaf count), ten concepts per leaf directory, an ``index.md`` everywhere, one cross-link per concept.
Each directory has its own made-up name, so a question naming one leaf's three names makes the same walk at
every size (four directories opened, the leaf's ten bodies and one linked body judged); the walk's figures
are printed per size so that can be seen. Bundles are generated under ``--out`` (default
``/tmp/okf-scale``, never the repository) and reused when present.

Per size, each measure runs in a fresh child process (so peak RSS and CPU are that measure's own) and
prints wall time, CPU time (user + system, children included) and peak RSS, then the growth factor per
decade of concepts (the ratio between sizes scaled to a 10x step: 1.0 means flat, 10.0 means linear):

- ``check``: ``okf check`` of the bundle (no manifest: the generated bundle has none);
- ``navigate-offline``: the walk with the offline reader, the bundle opened fresh in the process, without a
  compile manifest (``cold``: the corpus-id cache emptied first; ``warm``: second run) and with one;
- ``navigate-loopback``: the same question through ``LLMReader`` against the loopback model server at a
  fixed latency per call (``--latency``), with wall time against the walk's critical path;
- ``compile``: ``okf compile --max-words 100`` of generated markdown sources (one file per leaf, one ``##``
  section of ~60 words per concept) making the same number of concepts;
- ``--check-bundle PATH`` (optional): ``okf check`` of an existing bundle too, e.g. the compiled cuad corpus.

Usage: python scripts/bench_scale.py [--sizes 1000,10000,100000,300000] [--measures check,navigate,compile]
       [--latency 0.2] [--out /tmp/okf-scale] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CONCEPTS_PER_LEAF = 10
sys.path.insert(0, str(Path(__file__).parent))
from bench_navigate import NOTE as FILLER  # noqa: E402  (the same topics and filler as bench_navigate)
from bench_navigate import TOPICS  # noqa: E402

_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"
_LEVEL_ROOTS = ["har", "cop", "fal"]  # words of different levels never collide
COMPILE_MAX_WORDS = 100
MANIFEST_TEXT = '{"generator": "bench_scale", "note": "stands in for a compile manifest"}\n'


def name(level: int, i: int) -> str:
    """A made-up word, unique per (level, index): ``har`` + two syllables per base-70 digit."""
    syllables = [c + v for c in _CONSONANTS for v in _VOWELS]
    digits = ""
    while True:
        digits = syllables[i % len(syllables)] + digits
        i //= len(syllables)
        if not i:
            return _LEVEL_ROOTS[level] + digits


def shape(concepts: int) -> int:
    """Directories per level: the cube root of the leaf directories needed, rounded up."""
    leaves = -(-concepts // CONCEPTS_PER_LEAF)
    return max(2, math.ceil(round(leaves ** (1 / 3), 6)))


def leaf_names(concepts: int) -> list[tuple[str, str, str]]:
    fan = shape(concepts)
    leaves = -(-concepts // CONCEPTS_PER_LEAF)
    out = []
    for leaf in range(leaves):
        a, rest = divmod(leaf, fan * fan)
        b, c = divmod(rest, fan)
        out.append((name(0, a), name(1, b), name(2, c)))
    return out


def question(concepts: int) -> str:
    """The bench question: one topic of the first leaf, named by its three directory names."""
    w1, w2, w3 = leaf_names(concepts)[0]
    return f"Which refund rules apply to the {w1} {w2} {w3} office?"


def generate(root: Path, concepts: int) -> None:
    """Write the bundle (no manifest); a finished bundle has ``.okf-bench-complete``."""
    if (root / ".okf-bench-complete").exists():
        return
    if root.exists():
        shutil.rmtree(root)
    leaves = leaf_names(concepts)
    children: dict[str, list[str]] = {}
    written = 0
    for n, (w1, w2, w3) in enumerate(leaves):
        leaf = root / w1 / w2 / w3
        leaf.mkdir(parents=True, exist_ok=True)
        for parent, child in (("", w1), (w1, w2), (f"{w1}/{w2}", w3)):
            kids = children.setdefault(parent, [])
            if not kids or kids[-1] != child:
                kids.append(child)
        other = leaves[(n + 1) % len(leaves)]
        lines = [f"# {w3.capitalize()}\n\n"]
        for t, topic in enumerate(TOPICS):
            if written >= concepts:
                break
            title = f"{topic.capitalize()} rules"
            link = f"../../../{other[0]}/{other[1]}/{other[2]}/{TOPICS[(t + 1) % 10]}.md"
            (leaf / f"{topic}.md").write_text(
                f"---\ntype: policy\ntitle: {title}\ndescription: {topic} rules of the {w3} crew\n---\n"
                f"# {title}\n\nHow {topic} requests are handled. Approved by the {w1} {w2} {w3} office.\n\n"
                f"{FILLER}\n\nSee also [related]({link}).\n",
                encoding="utf-8",
            )
            lines.append(f"* [{title}]({topic}.md) - {topic} rules of the {w3} crew\n")
            written += 1
        (leaf / "index.md").write_text("".join(lines), encoding="utf-8")
    for parent, kids in children.items():
        kind = {0: "division", 1: "branch", 2: "crew"}[parent.count("/") + 1 if parent else 0]
        title = parent.rsplit("/", 1)[-1].capitalize() if parent else "Divisions"
        (root / parent / "index.md").write_text(
            f"# {title}\n\n" + "".join(f"* [{k.capitalize()}]({k}/) - the {k} {kind}\n" for k in kids), encoding="utf-8"
        )
    (root / ".okf-bench-complete").write_text(f"{concepts}\n")


def generate_sources(root: Path, concepts: int) -> None:
    """Markdown sources for compile: one file per leaf, one ``##`` section per concept."""
    if (root / ".okf-bench-complete").exists():
        return
    if root.exists():
        shutil.rmtree(root)
    written = 0
    for w1, w2, w3 in leaf_names(concepts):
        folder = root / w1 / w2
        folder.mkdir(parents=True, exist_ok=True)
        parts = [f"# The {w3} crew\n\nRules of the {w1} {w2} {w3} office.\n"]
        for topic in TOPICS:
            if written >= concepts:
                break
            parts.append(
                f"\n## {topic.capitalize()} rules\n\nHow {topic} requests are handled. Approved by the "
                f"{w1} {w2} {w3} office. {FILLER} {FILLER}\n"
            )
            written += 1
        (folder / f"{w3}.md").write_text("".join(parts), encoding="utf-8")
    (root / ".okf-bench-complete").write_text(f"{concepts}\n")


# -- measures, each run in a fresh child process -------------------------------------------------------------


def _evict(root: Path) -> int:
    """Drop the bundle's file pages from the OS page cache (posix_fadvise DONTNEED, file by file: nothing else
    on the machine is touched). Directory and inode caches stay warm. Returns the files evicted."""
    count = 0
    for current, _dirs, files in os.walk(root):
        for name in files:
            try:
                fd = os.open(os.path.join(current, name), os.O_RDONLY)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                count += 1
            finally:
                os.close(fd)
    return count


def child(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one measure in this (fresh) process; the parent reads the JSON it prints."""
    import resource

    t_start = time.perf_counter()
    out: dict[str, Any] = {}
    measure, root = spec["measure"], Path(spec["root"])
    if measure == "check":
        from okf.bundle import Bundle
        from okf.checker import check

        report = check(Bundle.open(root))
        out.update(
            concepts=report.concepts, errors=report.error_count, warnings=report.warning_count, call_s=report.seconds
        )
    elif measure in ("navigate", "ask"):
        from okf.bundle import Bundle
        from okf.models import Budgets

        if spec.get("base_url"):
            import asyncio

            from okf.navigator import navigate_async
            from okf.readers import LLMReader, ReaderConfig
            from okf.readers.base import SignpostOffer

            async def walk() -> tuple[Any, float]:
                reader = LLMReader(
                    ReaderConfig(
                        model="loopback",
                        base_url=spec["base_url"],
                        api_key_env="OKF_BENCH_KEY",
                        concurrency=32,
                        cache=False,
                        max_retries=0,
                    )
                )
                await reader.select("warm up", [SignpostOffer(index=0, path="x/", title="x")])  # a connection
                t0 = time.perf_counter()
                result = await navigate_async(Bundle.open(root), spec["question"], reader=reader, budgets=Budgets())
                seconds = time.perf_counter() - t0
                await reader.aclose()
                return result, seconds

            nav, out["call_s"] = asyncio.run(walk())
        elif measure == "navigate":
            from okf.navigator import navigate

            t0 = time.perf_counter()
            nav = navigate(Bundle.open(root), spec["question"])
            out["call_s"] = time.perf_counter() - t0
        else:
            from okf.answer import ask

            t0 = time.perf_counter()
            answer = ask(Bundle.open(root), spec["question"])
            out["call_s"] = time.perf_counter() - t0
            nav = answer.navigation
            out.update(status=answer.status, cited=[c.concept_id for c in answer.citations])
        assert nav is not None
        out.update(
            corpus_id=nav.corpus_id,
            directories=nav.stats.directories_opened,
            bodies=nav.stats.bodies_judged,
            calls=nav.stats.total.calls,
            walk_s=nav.stats.seconds,
            shortlist=[e.concept_id for e in nav.shortlist],
        )
        if spec.get("base_url"):
            from bench_navigate import critical_path

            out["critical_path_rounds"] = critical_path(nav)
    elif measure == "compile":
        from okf.compile import CompileOptions, compile_bundle

        t0 = time.perf_counter()
        # Sections of ~60 words each become a concept with --max-words 100 (a document is one concept when
        # it fits the limit whole).
        report = compile_bundle([root], spec["output"], options=CompileOptions(max_words=COMPILE_MAX_WORDS))
        out.update(call_s=time.perf_counter() - t0, concepts=report.concepts, bytes=report.bytes)
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    out.update(
        process_s=time.perf_counter() - t_start,
        cpu_s=own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime,
        peak_rss_mb=own.ru_maxrss / 1024,
        children_peak_rss_mb=kids.ru_maxrss / 1024,
    )
    return out


def _tree_pss_kb(pid: int) -> int:
    """Proportional set size of ``pid`` and its descendants (pages shared by forked workers counted once)."""
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            with open(f"/proc/{current}/smaps_rollup") as handle:
                total += next(int(line.split()[1]) for line in handle if line.startswith("Pss:"))
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    pending.extend(int(c) for c in handle.read().split())
        except (OSError, StopIteration, ValueError):
            continue
    return total


def run_child(spec: dict[str, Any], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run one measure in a fresh process; sample the memory of it and its workers (PSS) every 0.1 s."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", json.dumps(spec)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    peak_pss = 0
    while True:
        try:
            stdout, stderr = proc.communicate(timeout=0.1)
            break
        except subprocess.TimeoutExpired:
            peak_pss = max(peak_pss, _tree_pss_kb(proc.pid))
    if proc.returncode != 0:
        raise RuntimeError(f"{spec['measure']} failed: {stderr[-2000:]}")
    result = json.loads(stdout.strip().splitlines()[-1])
    result["wall_s"] = time.perf_counter() - started  # interpreter start and imports included
    result["peak_pss_mb"] = peak_pss / 1024  # sampled: the process and its workers together
    return result


# -- the run -----------------------------------------------------------------------------------------------------


def median(values: list[float]) -> float:
    return statistics.median(values)


def growth(rows: list[tuple[int, float]]) -> list[str]:
    """The growth factor per decade between consecutive sizes: (t2 / t1) ** (1 / log10(n2 / n1))."""
    out = []
    for (n1, t1), (n2, t2) in itertools.pairwise(rows):
        if t1 > 0 and t2 > 0:
            out.append(f"{n1:,}->{n2:,}: x{(t2 / t1) ** (1 / math.log10(n2 / n1)):.2f}")
    return out


def measure_size(n: int, args: argparse.Namespace, url: str | None) -> dict[str, Any]:
    root = args.out / f"bundle-{n}"
    t0 = time.perf_counter()
    generate(root, n)
    figures: dict[str, Any] = {"concepts": n, "generated_s": time.perf_counter() - t0}
    q = question(n)
    manifest = root / ".okf" / "manifest.json"
    if manifest.exists():
        manifest.unlink()
    if "navigate" in args.measures:
        cache = args.out / f"cache-{n}"
        shutil.rmtree(cache, ignore_errors=True)
        env = {"OKF_CACHE_DIR": str(cache)}
        spec = {"measure": "navigate", "root": str(root), "question": q}
        evicted = _evict(root)
        figures["navigate_cold"] = run_child(spec, env)  # page cache of the bundle's files dropped, no caches
        figures["navigate_cold"]["evicted_files"] = evicted
        figures["navigate_warm"] = [run_child(spec, env) for _ in range(args.repeats)]
        figures["ask_warm"] = [run_child({**spec, "measure": "ask"}, env) for _ in range(args.repeats)]
        if url:
            figures["navigate_loopback"] = [run_child({**spec, "base_url": url}, env) for _ in range(args.repeats)]
        manifest.parent.mkdir(exist_ok=True)
        manifest.write_text(MANIFEST_TEXT, encoding="utf-8")
        try:
            figures["navigate_manifest"] = [run_child(spec, env) for _ in range(args.repeats)]
            if url:
                figures["navigate_loopback_manifest"] = [
                    run_child({**spec, "base_url": url}, env) for _ in range(args.repeats)
                ]
        finally:
            manifest.unlink()
    if "check" in args.measures:
        figures["check"] = run_child({"measure": "check", "root": str(root)})
    if "compile" in args.measures:
        sources = args.out / f"sources-{n}"
        generate_sources(sources, n)
        output = args.out / f"compiled-{n}"
        for leftover in (output, Path(str(output) + ".okf-spare")):
            shutil.rmtree(leftover, ignore_errors=True)
        figures["compile"] = run_child({"measure": "compile", "root": str(sources), "output": str(output)})
        figures["compile"]["source_mb"] = sum(p.stat().st_size for p in sources.rglob("*.md")) / 1e6
    return figures


def report(all_figures: list[dict[str, Any]], args: argparse.Namespace, loads: tuple[Any, Any]) -> None:
    def med(rows: list[dict[str, Any]], key: str) -> float:
        return median([r[key] for r in rows])

    sizes = ", ".join(f"{f['concepts']:,}" for f in all_figures)
    print(
        f"okf scaling bench: sizes {sizes}; load average before {loads[0]}, after {loads[1]} on {os.cpu_count()} CPUs"
    )
    print(
        "wall = process wall (interpreter start included); call = the library call (bundle opened inside it); "
        "CPU = user + system of the process and its workers; RSS = peak of the process (workers apart)"
    )
    if "navigate" in args.measures:
        print(f"\nnavigate, offline reader, the same question (median of {args.repeats} runs):")
        print(
            "| concepts | walk | no manifest, cold: call / wall / RSS | no manifest, warm: call / wall / CPU / RSS "
            "| manifest, warm: call / wall | ask, warm: call / wall | corpus_id |"
        )
        print("|---|---|---|---|---|---|---|")
        for f in all_figures:
            cold, warm, man, ask = f["navigate_cold"], f["navigate_warm"], f["navigate_manifest"], f["ask_warm"]
            print(
                f"| {f['concepts']:,} | {warm[0]['directories']} dirs, {warm[0]['bodies']} bodies, "
                f"{warm[0]['calls']} calls | {cold['call_s']:.3f} s / {cold['wall_s']:.3f} s / "
                f"{cold['peak_rss_mb']:.0f} MB | {med(warm, 'call_s'):.3f} s / {med(warm, 'wall_s'):.3f} s / "
                f"{med(warm, 'cpu_s'):.2f} s / {med(warm, 'peak_rss_mb'):.0f} MB | {med(man, 'call_s'):.3f} s / "
                f"{med(man, 'wall_s'):.3f} s | {med(ask, 'call_s'):.3f} s / {med(ask, 'wall_s'):.3f} s | "
                f"{warm[0]['corpus_id']} / {man[0]['corpus_id']} |"
            )
        first = all_figures[0]
        for f in all_figures[1:]:
            print(
                f"{f['concepts']:,} against {first['concepts']:,}, no manifest: warm call "
                f"{med(f['navigate_warm'], 'call_s') / med(first['navigate_warm'], 'call_s'):.2f}x, warm wall "
                f"{med(f['navigate_warm'], 'wall_s') / med(first['navigate_warm'], 'wall_s'):.2f}x, cold call "
                f"{f['navigate_cold']['call_s'] / first['navigate_cold']['call_s']:.2f}x, cold wall "
                f"{f['navigate_cold']['wall_s'] / first['navigate_cold']['wall_s']:.2f}x; ask warm call "
                f"{med(f['ask_warm'], 'call_s') / med(first['ask_warm'], 'call_s'):.2f}x "
                "(targets: warm <= 1.5x, cold <= 2x)"
            )
        for key in ("call_s", "wall_s"):
            rows = [(f["concepts"], med(f["navigate_warm"], key)) for f in all_figures]
            print(f"growth per decade, no manifest warm {key[:-2]}: " + "; ".join(growth(rows)))
        if "navigate_loopback" in first:
            print(
                f"\nnavigate through LLMReader and the loopback model at L = {args.latency * 1000:.0f} ms per call "
                f"(median of {args.repeats}):"
            )
            print("| concepts | no manifest: walk / critical path | ratio | manifest: walk | ratio | calls |")
            print("|---|---|---|---|---|---|")
            for f in all_figures:
                lb, lbm = f["navigate_loopback"], f["navigate_loopback_manifest"]
                bound = lb[0]["critical_path_rounds"] * args.latency
                print(
                    f"| {f['concepts']:,} | {med(lb, 'call_s'):.3f} s / {bound:.3f} s "
                    f"({lb[0]['critical_path_rounds']} L) | {med(lb, 'call_s') / bound:.2f} | "
                    f"{med(lbm, 'call_s'):.3f} s | {med(lbm, 'call_s') / bound:.2f} | {lb[0]['calls']} |"
                )
    if "check" in args.measures:
        workers = os.cpu_count() or 1
        print(
            f"\nokf check (no manifest; memory = peak PSS of the process and its {workers} workers together, "
            "sampled every 0.1 s: pages forked workers share are counted once):"
        )
        print(
            "| concepts | wall | concepts/s | CPU | CPU per concept | peak RSS (process / a worker) | peak memory "
            "| memory per concept |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for f in all_figures + ([{"concepts": args.check_bundle, "check": args.checked}] if args.check_bundle else []):
            c = f["check"]
            label = f"{f['concepts']:,}" if isinstance(f["concepts"], int) else f"{f['concepts']} ({c['concepts']:,})"
            print(
                f"| {label} | {c['call_s']:.2f} s | {c['concepts'] / c['call_s']:,.0f} | {c['cpu_s']:.1f} s | "
                f"{c['cpu_s'] / c['concepts'] * 1e6:.0f} us | {c['peak_rss_mb']:.0f} / {c['children_peak_rss_mb']:.0f} MB | "
                f"{c['peak_pss_mb']:.0f} MB | {c['peak_pss_mb'] * 1024 / c['concepts']:.2f} KB |"
            )
        print(
            "growth per decade, wall: "
            + "; ".join(growth([(f["concepts"], f["check"]["call_s"]) for f in all_figures]))
        )
        print(
            "growth per decade, peak memory: "
            + "; ".join(growth([(f["concepts"], f["check"]["peak_pss_mb"]) for f in all_figures]))
        )
    if "compile" in args.measures:
        print("\nokf compile of generated markdown (one file per 10 concepts, fresh output):")
        print("| concepts | source MB | wall | MB/s | CPU | peak RSS (process / a worker) |")
        print("|---|---|---|---|---|---|")
        for f in all_figures:
            c = f["compile"]
            print(
                f"| {c['concepts']:,} | {c['source_mb']:.1f} | {c['call_s']:.2f} s | {c['source_mb'] / c['call_s']:.2f} | "
                f"{c['cpu_s']:.1f} s | {c['peak_rss_mb']:.0f} / {c['children_peak_rss_mb']:.0f} MB |"
            )
        print(
            "growth per decade, wall: "
            + "; ".join(growth([(f["compile"]["concepts"], f["compile"]["call_s"]) for f in all_figures]))
        )


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(child(json.loads(sys.argv[2]))))
        return 0
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000,300000")
    parser.add_argument("--measures", default="navigate,check,compile")
    parser.add_argument("--latency", type=float, default=0.2, help="loopback model latency per call (0: none)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("/tmp/okf-scale"))
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    parser.add_argument("--check-bundle", help="also time okf check on this existing bundle (e.g. compiled cuad)")
    args = parser.parse_args()
    args.measures = set(args.measures.split(","))
    sizes = [int(s) for s in args.sizes.split(",")]
    if Path(__file__).resolve().parents[1] in args.out.resolve().parents:
        parser.error("--out must be outside the repository")
    args.out.mkdir(parents=True, exist_ok=True)
    for n in sizes:  # generated first, so the runs below come close together
        generate(args.out / f"bundle-{n}", n)
    load_before = os.getloadavg()
    figures = []
    with contextlib.ExitStack() as stack:
        url = None
        if "navigate" in args.measures and args.latency > 0:
            sys.path.insert(0, str(Path(__file__).parent))
            from bench_navigate import model_server

            url = stack.enter_context(model_server(args.latency))
        for n in sizes:
            print(f"measuring {n:,} concepts...", file=sys.stderr, flush=True)
            figures.append(measure_size(n, args, url))
        args.checked = run_child({"measure": "check", "root": args.check_bundle}) if args.check_bundle else None
    loads = (load_before, os.getloadavg())
    report(figures, args, loads)
    if args.json:
        args.json.write_text(
            json.dumps({"figures": figures, "checked": args.checked, "load_average": loads, "argv": sys.argv}, indent=2)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
