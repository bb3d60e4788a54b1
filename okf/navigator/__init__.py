"""Navigation: find the concepts that answer a question by progressive disclosure, never by similarity.

Signposts first (the selector gates directories), bodies only for what survives the sift (the judge reads
them in parallel batches), lateral expansion along the links of relevant concepts, all under budgets, with
a receipt for every shortlisted concept and a trace of every decision. See docs/navigate.md.
"""

from __future__ import annotations

from okf.navigator.api import make_budgets, navigate, navigate_async

__all__ = ["make_budgets", "navigate", "navigate_async"]
