"""The offline planner (okf.readers.angles): parts, names, angles, and the gate on angles that say too little."""

from __future__ import annotations

import asyncio

from okf.readers import OfflineReader
from okf.readers.angles import (
    angle_key,
    granularity,
    in_bundle_words,
    name_spans,
    plan_offline,
    split_parts,
    viewpoints,
)
from okf.readers.planning import PlanHints
from okf.text.vocabulary import Vocabulary


def _vocabulary(**terms: int) -> Vocabulary:
    return Vocabulary(concepts=100, df=terms, acronyms={"PFP": "Private Financing Platform"})


def test_names_are_runs_quoted_titles_and_particles_and_punctuation_ends_them() -> None:
    spans = [s.text for s in name_spans('Which came first, "Hey Pa! There\'s a Goat on the Roof" or "Poleconomy"?')]
    assert spans == ["Hey Pa! There's a Goat on the Roof", "Poleconomy"]
    assert [s.text for s in name_spans("Who was born first, Mahbub ul Haq or Ibn Arabi?")] == [
        "Mahbub ul Haq",
        "Ibn Arabi",
    ]
    # The first word counts when a name follows it; a lone capitalized first word does not.
    assert [s.text for s in name_spans("Ralph Hefferline was a professor")] == ["Ralph Hefferline"]
    assert [s.text for s in name_spans("Where is the film Kiss and Tell set?")] == ["Kiss and Tell"]
    assert name_spans("Where was the treaty signed?") == []
    said = 'appearing in films such as "Plan 9 from Outer Space", "Glen or Glenda", and Jail Bait.'
    assert [s.text for s in name_spans(said)] == ["Plan 9 from Outer Space", "Glen or Glenda", "Jail Bait"]


def test_parts_split_questions_comparisons_and_named_clauses_only() -> None:
    assert split_parts("Who is older, Annie Morton or Terry Richardson?") == [
        "Who is older, Annie Morton?",
        "Who is older, Terry Richardson?",
    ]
    assert split_parts("Are Random House Tower and 888 7th Avenue both used for real estate?") == [
        "Are Random House Tower both used for real estate?",
        "Are 888 7th Avenue both used for real estate?",
    ]
    assert split_parts("What is the notice period? Who signs the renewal?") == [
        "What is the notice period?",
        "Who signs the renewal?",
    ]
    # "... and who died in 2007?" says more of the same person: one question.
    one = "Who was the writer of These Boots Are Made for Walkin' and who died in 2007?"
    assert split_parts(one) == [one]
    # "and" inside a name without a cue such as "both" joins no two things.
    assert split_parts("Who directed Kiss and Tell?") == ["Who directed Kiss and Tell?"]


def test_angles_are_the_part_then_other_ways_distinct_and_in_order() -> None:
    question = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
    assert viewpoints(question)[0] == "the woman who portrayed Corliss Archer in the film Kiss and Tell"
    (part,) = plan_offline(question, None)
    assert part.angles[0].text == question and part.angles[0].origin == "question"
    origins = [a.origin for a in part.angles]
    assert origins[1] == "viewpoint" and "granularity" in origins
    keys = [angle_key(a.text) for a in part.angles]
    assert len(keys) == len(set(keys))  # no two angles say the same terms


def test_granularity_keeps_telling_names_and_the_gate_drops_common_words() -> None:
    vocabulary = _vocabulary(develop=90, hub=90, see=80, user=30, keycloak=2, sync=10, group=40)
    narrow, _ = granularity("How does Keycloak sync groups in Developer Hub?", vocabulary)
    assert narrow.startswith("Keycloak") and "Developer" not in narrow  # the product name is everywhere
    (part,) = plan_offline("how i see users in Developer Hub?", vocabulary)
    # "Developer Hub see" would be found everywhere: every other angle keeps the telling word.
    assert len(part.angles) > 1 and all("users" in a.text.split() for a in part.angles)


def test_vocabulary_angles_use_the_bundles_acronyms_and_spelling() -> None:
    vocabulary = Vocabulary(
        concepts=100,
        df={"privat": 3, "financ": 5, "platform": 4, "environ": 9},
        acronyms={"PFP": "Private Financing Platform"},
    )
    assert in_bundle_words("Who runs the PFP?", vocabulary) == "Who runs the Private Financing Platform"
    assert "PFP" in in_bundle_words("Who runs the private financing platform?", vocabulary)
    assert in_bundle_words("Who runs the treasury?", vocabulary) == ""


def test_a_question_without_content_words_plans_nothing_and_the_reader_says_so() -> None:
    assert plan_offline("???", None) == []
    plan = asyncio.run(OfflineReader().plan("how is it?", None, PlanHints()))
    assert not plan.failed and plan.parts == [] and plan.usage.calls == 1
