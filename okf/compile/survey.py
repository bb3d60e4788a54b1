"""One document's term statistics, counted once: concept descriptions and tags, directory key terms, and the
summary and vocabulary table the folder levels and readers use."""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass, field
from itertools import repeat
from operator import mul, neg, truediv

from okf.compile.describe import (
    CONCEPT_TAGS,
    DIRECTORY_TERMS,
    STEM_MARK,
    candidate_scores,
    concept_tags,
    describe_concept,
    directory_terms,
    running_heads,
    shown_once,
)
from okf.compile.state import DocPlan, Node
from okf.compile.tree import iter_dirs
from okf.text.keyterms import acronyms, count_each, idf_table, smallest, word_forms

# Terms a document hands the folder level to choose its key terms from (by frequency in the document).
SUMMARY_TERMS = 80


@dataclass
class DocumentSurvey:
    """Term counts of every concept of one document, and what follows from them."""

    counts_of: dict[str, Counter[str]] = field(default_factory=dict)  # concept path -> term counts
    forms: dict[str, str] = field(default_factory=dict)  # candidate term -> its most used word
    df: Counter[str] = field(default_factory=Counter)  # term -> concepts of the document holding it
    expansions: dict[str, str] = field(default_factory=dict)  # acronym -> expansion the document gives
    weights: dict[str, float] = field(default_factory=dict)  # term -> idf over the document's concepts
    scores_of: dict[str, dict[str, float]] = field(default_factory=dict)  # path -> key-term candidates, scored
    dir_terms: dict[str, list[str]] = field(default_factory=dict)  # directory path -> its key terms
    texts: list[str] = field(default_factory=list)  # each concept's lines joined, in concept order
    _summary: list[str] | None = None

    @property
    def total(self) -> int:
        return len(self.counts_of)

    def terms_of(self, node: Node) -> list[str]:
        """Key terms of a directory of this document (as written): the terms weighing most across its concepts."""
        found = self.dir_terms.get(node.path)
        if found is None:
            found = self.dir_terms[node.path] = directory_terms(node, self.scores_of)
        return shown_once((self.forms.get(t, t) for t in found), DIRECTORY_TERMS)

    def summary_terms(self) -> list[str]:
        """The document's most weighty terms (most concepts holding them, rare ones favoured); computed once."""
        if self._summary is None:
            # ``weights`` holds exactly the eligible terms of ``df``, in df's order (idf_table): the scores
            # ``-n * (1.0 + w / 4)`` by C-level maps over it, each float computed as the expression would.
            weights = self.weights
            keys = list(weights)
            counts = map(neg, map(self.df.__getitem__, keys))
            scored = list(zip(map(mul, counts, map((1.0).__add__, map(truediv, weights.values(), repeat(4)))), keys))
            self._summary = [t for _, t in smallest(SUMMARY_TERMS, scored)]
        return self._summary

    def summary(self) -> dict[str, list[int | str]]:
        """The document's most weighty terms: term -> [concepts holding it, word as written]."""
        return {t: [self.df[t], self.forms.get(t, t)] for t in self.summary_terms()}

    def table(self) -> dict[str, int]:
        """Term -> concepts holding it: this document's share of the bundle vocabulary."""
        keys = sorted(self.df)  # the terms alone: a string sort, no tuple comparisons (terms are unique)
        return dict(zip(keys, map(self.df.__getitem__, keys)))


def survey_document(plan: DocPlan, concepts: list[Node]) -> DocumentSurvey:
    """Count every concept's terms; set each concept's description and tags from them."""
    survey = DocumentSurvey()
    texts = survey.texts
    for node in concepts:
        assert node.lines is not None
        texts.append("\n".join(plan.lines[node.lines[0] - 1 : node.lines[1]]))
    counted, chunks = count_each(texts)
    for node, counts in zip(concepts, counted):
        survey.counts_of[node.path] = counts
        survey.df.update(counts.keys())
    whole = "\n".join(texts)
    survey.expansions = acronyms(whole)
    survey.weights = idf_table(survey.df, survey.total, counted=True)
    for path, counts in survey.counts_of.items():
        survey.scores_of[path] = candidate_scores(counts, survey.weights)
    heading_lines = sorted(plan.heading_titles)
    defined: dict[str, list[str]] = {}
    for term, path in plan.terms.items():
        defined.setdefault(path, []).append(term)
    running = running_heads(plan.lines, [n.lines for n in concepts if n.lines is not None], plan.headings)
    for node, text in zip(concepts, texts):
        assert node.lines is not None
        start, end = node.lines
        first, last = bisect.bisect_right(heading_lines, start), bisect.bisect_right(heading_lines, end)
        subheadings = [plan.heading_titles[n] for n in heading_lines[first:last]]
        node.description = describe_concept(
            plan.lines, start, end, plan.headings, node.title, subheadings, plan.heading_titles, running
        )
        node.tags = concept_tags(
            survey.scores_of[node.path], node.title, text, defined.get(node.path, ()), survey.expansions
        )
    # Every term shown (tags, directory key terms, the summary) is shown as the document writes it.
    shown = {t[1:] for node in concepts for t in node.tags if t.startswith(STEM_MARK)}
    for directory in iter_dirs(plan.node):
        shown.update(survey.dir_terms.setdefault(directory.path, directory_terms(directory, survey.scores_of)))
    shown.update(survey.summary_terms())
    survey.forms = word_forms(chunks, shown, learned=True)  # nothing was counted since count_each
    for node in concepts:
        node.tags = shown_once(
            (survey.forms.get(t[1:], t[1:]) if t.startswith(STEM_MARK) else t for t in node.tags), CONCEPT_TAGS
        )
        if not node.description:
            # No sentence states anything (a table, a list of names): say what it mentions, never the title again.
            node.description = f"Mentions {', '.join(node.tags[:6])}." if node.tags else node.title
    return survey
