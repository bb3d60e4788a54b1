"""okf check: OKF v0.2 conformance errors and tolerant-consumer warnings, with zero model calls.

:func:`~okf.checker.api.check` runs the checks (:mod:`okf.checker.rules` holds one rule per concern;
:mod:`okf.checker.parallel` spreads large bundles over processes). Codes and fixes: docs/check.md.
"""

from __future__ import annotations

from okf.checker.api import CheckReport, check

__all__ = ["CheckReport", "check"]
