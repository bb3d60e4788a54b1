"""okf compile: turn a document set into an OKF v0.2 bundle, incrementally and atomically.

The compiler is an ordered list of named steps (:data:`~okf.compile.api.STEPS`), each ``step(state) -> None``
over one :class:`~okf.compile.state.CompileState`; every step can be run and tested alone.
"""

from __future__ import annotations

from okf.compile.api import STEPS, compile_bundle, compile_time
from okf.compile.state import CompileOptions, CompileReport, CompileState, SkippedFile

__all__ = ["STEPS", "CompileOptions", "CompileReport", "CompileState", "SkippedFile", "compile_bundle", "compile_time"]
