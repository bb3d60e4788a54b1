"""Benchmark okf compile on CUAD: full throughput, peak memory, no-op and one-changed-file recompile ratios.

Usage: python scripts/bench_compile.py [--corpus PATH] [--json]
The corpus is copied to a temp dir first so files can be changed. After the full compile: three no-op
recompiles, one compile after changing one file (its side tree is built anew: no spare tree exists yet), then
three more one-changed-file compiles (each reuses the spare tree the previous swap left); medians reported. Each compile runs in a fresh
subprocess so max RSS (resource.getrusage) is that compile's own peak (parent process; the worker processes'
peak separately); CPU seconds include the workers; the 1-minute load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import json, resource, sys, time
from okf.compile import compile_bundle
t = time.perf_counter()
r = compile_bundle([sys.argv[1]], sys.argv[2])
s = time.perf_counter() - t
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": s, "concepts": r.concepts, "rebuilt": r.documents_rebuilt, "changed": r.changed,
                  "max_rss_mb": me.ru_maxrss / 1024, "worker_max_rss_mb": kids.ru_maxrss / 1024,
                  "user_s": me.ru_utime + kids.ru_utime, "sys_s": me.ru_stime + kids.ru_stime}))
"""


def shared() -> Path:
    """/work/shared (or OKF_SHARED) relative to this repository."""
    env = os.environ.get("OKF_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared"


def run(src: Path, out: Path) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", CHILD, str(src), str(out)], check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=shared() / "corpora" / "cuad" / "sources")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        shutil.copytree(args.corpus, src)
        mb = sum(p.stat().st_size for p in src.rglob("*") if p.is_file()) / 1e6
        load_before = os.getloadavg()[0]
        full = run(src, out)
        noops = [run(src, out) for _ in range(3)]
        texts = sorted(src.rglob("*.txt"))
        changed = []
        for victim in texts[len(texts) // 2 : len(texts) // 2 + 4]:
            victim.write_text(victim.read_text() + "\n\nADDENDUM\n\nA changed paragraph for the benchmark.\n")
            changed.append(run(src, out))
        one, again = changed[0], changed[1:]
        noop = sorted(noops, key=lambda r: r["seconds"])[1]
        reused = sorted(again, key=lambda r: r["seconds"])[1]
    result = {
        "corpus_mb": round(mb, 1),
        "cpus": os.cpu_count(),
        "full_s": round(full["seconds"], 2),
        "mb_per_s": round(mb / full["seconds"], 2),
        "concepts": full["concepts"],
        "concepts_per_s": round(full["concepts"] / full["seconds"]),
        "peak_rss_mb": round(full["max_rss_mb"]),
        "worker_peak_rss_mb": round(full["worker_max_rss_mb"]),
        "full_user_cpu_s": round(full["user_s"], 2),
        "full_sys_cpu_s": round(full["sys_s"], 2),
        "one_changed_cpu_s": round(one["user_s"] + one["sys_s"], 2),
        "load_avg_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "noop_s": round(noop["seconds"], 3),
        "noop_ratio": round(noop["seconds"] / full["seconds"], 3),
        "one_changed_s": round(one["seconds"], 3),
        "one_changed_ratio": round(one["seconds"] / full["seconds"], 3),
        "one_changed_rebuilt": one["rebuilt"],
        "noop_changed": any(r["changed"] for r in noops),
        "noop_runs_s": [round(r["seconds"], 3) for r in noops],
        "one_changed_reused_s": round(reused["seconds"], 3),
        "one_changed_reused_ratio": round(reused["seconds"] / full["seconds"], 3),
        "one_changed_reused_runs_s": [round(r["seconds"], 3) for r in again],
    }
    print(json.dumps(result, indent=2) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
