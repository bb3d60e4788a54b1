"""Multi-angle orchestration of navigation (seed 003, Retrieval Orchestration), built on okf.navigator.

A question is planned as parts and angles (okf.readers.angles, or the reader's planner), the angles are
walked in parallel sharing one visited set, one judgment cache and one budget, the evidence is cross-checked
in code (sufficient / insufficient / suspicious), second hops and composite escalations follow, within walk
caps, and the result says why it stopped and what remains uncertain. See docs/navigate.md ("Angles").
"""

from __future__ import annotations

from okf.orchestrate.api import AnglesSetting, orchestrate, parse_angles

__all__ = ["AnglesSetting", "orchestrate", "parse_angles"]
