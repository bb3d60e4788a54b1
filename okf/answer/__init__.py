"""Grounded, cited answers: navigate, gather evidence within a budget, ask the answerer, validate in code.

The model reads; the code guarantees (see :mod:`okf.answer.validate` and docs/ask.md).
"""

from __future__ import annotations

from okf.answer.pipeline import DEFAULT_EVIDENCE_TOKENS, ask, ask_async
from okf.answer.save import save_answer

__all__ = ["DEFAULT_EVIDENCE_TOKENS", "ask", "ask_async", "save_answer"]
