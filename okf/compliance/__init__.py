"""Compliance: judge a subject (a document or text) against requirements, with both-sided citations.

``comply(subject, requirements=... | bundle=..., question=...)`` decides, requirement by requirement, whether
it plausibly applies and then whether the subject shows a ``violation``, ``needs_review`` or is
``compliant``. The verdict vocabulary, its conservative default, both citations and the roll-up are enforced
in code (:mod:`okf.compliance.verdicts`). See docs/compliance.md.
"""

from __future__ import annotations

from okf.compliance.model import ComplianceResult, Finding, SubjectSpan
from okf.compliance.pipeline import comply, comply_async
from okf.compliance.subject import load_subject
from okf.readers.assessment import SubjectText

__all__ = ["ComplianceResult", "Finding", "SubjectSpan", "SubjectText", "comply", "comply_async", "load_subject"]
