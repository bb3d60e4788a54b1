"""``compile_bundle``: run the compiler's named steps over one :class:`~okf.compile.state.CompileState`."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from okf.collector import collector_paused
from okf.compile.assemble import finish, render_documents, render_indexes
from okf.compile.discover import check_paths, discover, hash_sources, save_stat_cache
from okf.compile.documents import build_documents
from okf.compile.manifest import load_manifest, place, plan_changes
from okf.compile.mirror import assign_mirrors, copy_assets
from okf.compile.model_cache import DescriptionCache
from okf.compile.model_describe import describe_concepts, start
from okf.compile.state import CompileOptions, CompileReport, CompileState, SkippedFile
from okf.compile.vault_resolve import resolve_vault
from okf.compile.write import NO_SPACE, clean_stale, drop_side, start_spare, write_bundle, write_error
from okf.errors import ConfigError
from okf.readers.describing import Describer

Step = Callable[[CompileState], None]

STEPS: list[tuple[str, Step]] = [
    ("check_paths", check_paths),
    ("clean_stale", clean_stale),
    ("discover", discover),
    ("assign_mirrors", assign_mirrors),
    ("hash_sources", hash_sources),
    ("load_manifest", load_manifest),
    ("place", place),
    ("plan_changes", plan_changes),
    ("build_documents", build_documents),
    ("resolve_vault", resolve_vault),
    ("describe_concepts", describe_concepts),
    ("render_documents", render_documents),
    ("copy_assets", copy_assets),
    ("start_spare", start_spare),
    ("render_indexes", render_indexes),
    ("finish", finish),
    ("write_bundle", write_bundle),
    ("save_stat_cache", save_stat_cache),
]

__all__ = ["STEPS", "CompileOptions", "CompileReport", "CompileState", "SkippedFile", "compile_bundle", "compile_time"]


def compile_time(options: CompileOptions) -> datetime:
    """``generated.at`` of this compile: the option, else SOURCE_DATE_EPOCH (reproducible builds), else now."""
    if options.timestamp is not None:
        at = options.timestamp
        return (at if at.tzinfo else at.replace(tzinfo=UTC)).astimezone(UTC)
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            return datetime.fromtimestamp(int(epoch), UTC)
        except ValueError as exc:
            raise ConfigError(
                f"SOURCE_DATE_EPOCH={epoch!r} is not a whole number of seconds",
                fix="unset it or set it to a Unix time like 1700000000",
            ) from exc
    return datetime.now(UTC).replace(microsecond=0)


def compile_bundle(
    sources: Sequence[str | Path] | str | Path,
    output: str | Path,
    *,
    options: CompileOptions | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    describer: Describer | None = None,
    cache: DescriptionCache | None = None,
) -> CompileReport:
    """Compile source files and folders into the bundle at ``output``; only changed sources are rebuilt.

    With a ``describer`` (an ``LLMReader`` whose describer role has a model), a model writes the concepts'
    descriptions and tags and the groups' titles (okf.compile.model_describe), reusing what ``cache`` holds;
    without one, the compile is the deterministic extractive one. ``progress(stage, done, total)`` is called
    with the stages ``files``, then ``describe`` and ``titles`` when a model is asked.
    """
    started = time.perf_counter()
    if isinstance(sources, (str, Path)):
        sources = [sources]
    options = options or CompileOptions()
    state = CompileState(inputs=[Path(s) for s in sources], output=Path(output), options=options, progress=progress)
    state.report.output = str(output)
    state.at = compile_time(options)
    start(state, describer, cache)
    free = False
    # The compile builds large tables that live until it ends (the term tables, plans, trees) and frees
    # little before: the cyclic collector's full passes over them were 15 to 20% of the CPU of a compile,
    # with nothing to find. Paused while the steps run (forked workers inherit the pause), then restored, with
    # what is still alive moved to the oldest generation (okf.collector, ``long_lived``): the first young
    # collection after the pause walked every object the compile made (0.15 to 0.35 s at the command's serial
    # end); cycles it leaves are freed by the next full collection.
    try:
        with collector_paused(long_lived=True):
            for _name, step in STEPS:
                step(state)
                if state.settled:
                    break
    except OSError as exc:  # a full disk, a read-only or forbidden output: said in words, never a traceback
        free = exc.errno in NO_SPACE
        raise write_error(exc, state) from exc
    finally:
        drop_side(state, free=free)  # set only when a step failed after files were written beside the output
    state.report.seconds = round(time.perf_counter() - started, 3)
    return state.report
