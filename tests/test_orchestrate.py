"""Orchestration (okf.orchestrate): angles walked in parallel over one ledger, the cross-check, second hops,
escalations, caps and stops, several bundles, fallbacks; all in the trace and the orchestration block."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

import okf
from okf.bundle import Bundle
from okf.errors import ConfigError
from okf.models import NavigationResult
from okf.orchestrate.crosscheck import Found
from okf.readers import OfflineReader
from okf.readers.base import Document, Judgement, Selection, SignpostOffer
from okf.readers.planning import Plan, PlanHints, PlannedAngle, PlannedPart
from okf.testing import ScriptedReader
from tests.builders import concept, write_files

QUESTION = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"


def film_bundle(root: Path) -> Path:
    """A bridge: the film's page names the actress; her page says what she became."""
    return write_files(
        root,
        {
            "index.md": "# Encyclopedia\n\n- [Films](films/index.md): comedies and dramas of the 1940s\n"
            "- [People](people/index.md): actors, actresses and diplomats\n",
            "films/index.md": "# Films\n\n- [Kiss and Tell](kiss-and-tell.md): a 1945 comedy film about Corliss Archer\n"
            "- [Rope](rope.md): a 1948 thriller\n",
            "films/kiss-and-tell.md": concept(
                "Kiss and Tell",
                "Kiss and Tell is a 1945 comedy film starring Shirley Temple as Corliss Archer, a teenage girl.",
                kind="Document",
            ),
            "films/rope.md": concept("Rope", "Rope is a 1948 thriller directed by Alfred Hitchcock.", kind="Document"),
            "people/index.md": "# People\n\n- [Shirley Temple](shirley-temple.md): an actress\n"
            "- [James Stewart](james-stewart.md): an actor\n",
            "people/shirley-temple.md": concept(
                "Shirley Temple",
                "Shirley Temple was an American actress. She later served as Chief of Protocol of the United States.",
                kind="Document",
            ),
            "people/james-stewart.md": concept(
                "James Stewart", "James Stewart was an American actor in Rope.", kind="Document"
            ),
        },
    )


# The pages of film_bundle: the film the question names, another film, the bridge's far end, another actor.
FILM_PAGES = ("films/kiss-and-tell.md", "films/rope.md", "people/shirley-temple.md", "people/james-stewart.md")


def people_bundle(root: Path) -> Path:
    return write_files(
        root,
        {
            "index.md": "# People\n\n- [Models](models/index.md): fashion models\n"
            "- [Photographers](photographers/index.md): fashion photographers\n",
            "models/index.md": "# Models\n\n- [Annie Morton](annie-morton.md): an American model\n",
            "models/annie-morton.md": concept(
                "Annie Morton",
                "Annie Morton (born October 8, 1970) is an American model born in Pennsylvania.",
                kind="Document",
            ),
            "photographers/index.md": "# Photographers\n\n- [Terry Richardson](terry-richardson.md): a photographer\n",
            "photographers/terry-richardson.md": concept(
                "Terry Richardson",
                "Terry Richardson (born August 14, 1965) is an American fashion photographer.",
                kind="Document",
            ),
        },
    )


def _angles(result: NavigationResult) -> dict[str, object]:
    assert result.orchestration is not None
    return {a.id: a for a in result.orchestration.angles}


def test_a_bridge_is_crossed_by_a_second_hop_through_the_name_the_evidence_introduces(tmp_path: Path) -> None:
    result = okf.navigate(film_bundle(tmp_path / "b"), QUESTION)
    orchestration = result.orchestration
    assert orchestration is not None
    paths = [e.path for e in result.shortlist]
    assert "films/kiss-and-tell.md" in paths and "people/shirley-temple.md" in paths
    hops = [a for a in orchestration.angles if a.origin == "second_hop"]
    assert hops and hops[0].text == "Shirley Temple" and hops[0].source == "films/kiss-and-tell.md"
    assert hops[0].family == "titles" and "people/shirley-temple.md" in hops[0].relevant
    # The hop is walked as soon as the film's page is graded, in the round that found it: one round.
    assert hops[0].round == 1 and len(orchestration.rounds) == 1
    assert [r.round for r in orchestration.rounds] == list(range(1, len(orchestration.rounds) + 1))
    assert orchestration.rounds[0].state == "insufficient" and "government" in " ".join(orchestration.rounds[0].why)
    # Every angle and every round is in the trace, and the walks' own events carry their angle.
    kinds = [e.kind for e in result.trace]
    assert kinds.count("round") == len(orchestration.rounds) and kinds[-1] == "stop"
    traced = {e.data["id"] for e in result.trace if e.kind == "angle"}
    assert traced == {a.id for a in orchestration.angles if a.walked}
    assert all(e.data.get("angle") for e in result.trace if e.kind == "verdict")
    assert orchestration.tried.startswith("Tried ") and orchestration.walks == sum(
        len(r.angles) for r in orchestration.rounds
    )


def test_the_kind_of_thing_asked_for_keeps_a_part_open_and_the_name_the_question_describes_is_hopped_first(
    tmp_path: Path,
) -> None:
    bundle = write_files(
        tmp_path / "b",
        {
            "index.md": "# Encyclopedia\n\n- [Sports](sports/index.md): football teams and conferences\n"
            "- [Other](other/index.md): armies\n",
            "sports/index.md": "# Sports\n\n- [Tennessee Volunteers football](volunteers.md): a college team\n"
            "- [Southeastern Conference](sec.md): a college athletic conference\n",
            "sports/volunteers.md": concept(
                "Tennessee Volunteers football",
                "The Tennessee Volunteers football team was founded by veterans of the United States Army. The "
                "Tennessee Volunteers football team plays as a member of the Southeastern Conference.",
                kind="Document",
            ),
            "sports/sec.md": concept(
                "Southeastern Conference",
                "The Southeastern Conference is an American college athletic conference headquartered in Birmingham.",
                kind="Document",
            ),
            "other/index.md": "# Other\n\n- [United States Army](army.md): the land service branch\n",
            "other/army.md": concept("United States Army", "The United States Army is a land force.", kind="Document"),
        },
    )
    question = "The Tennessee Volunteers football team plays as a member for a conference in what city?"
    result = okf.navigate(bundle, question)
    orchestration = result.orchestration
    assert orchestration is not None
    # The team's page says nearly every word but not the city asked for: the question is not yet answered.
    assert orchestration.rounds[0].state == "insufficient" and "city" in " ".join(orchestration.rounds[0].why)
    hops = [a.text for a in orchestration.angles if a.origin == "second_hop"]
    # "a conference" describes the Southeastern Conference: that bridge first, before an army named earlier.
    assert hops[0] == "Southeastern Conference"
    assert "sports/sec.md" in [e.path for e in result.shortlist]


def test_a_thing_the_question_describes_by_its_kind_is_hopped_to_even_when_every_word_was_said(
    tmp_path: Path,
) -> None:
    """The team's page says every word of the question (the team was formerly known as something else), so no
    part is left unsaid; but "a conference" describes the Northern Valley Conference it names, and what the
    question asks of that conference is said, if anywhere, on its own page: that bridge is still walked. (The
    team's name begins four titles, and the question does not spell the team page's title: it names no page.)"""
    SPORTS = ("basketball", "hockey", "baseball")
    bundle = write_files(
        tmp_path / "b",
        {
            "index.md": "# Encyclopedia\n\n- [Teams](teams/index.md): soccer teams\n"
            "- [Associations](associations/index.md): regional sports bodies\n",
            "teams/index.md": "# Teams\n\n- [Riverton Otters men's soccer](men-soccer.md): a college soccer team\n"
            + "".join(f"- [Riverton Otters {s}](otters-{s}.md): a college {s} team\n" for s in SPORTS),
            **{
                f"teams/otters-{s}.md": concept(
                    f"Riverton Otters {s}", f"The Riverton Otters {s} team.", kind="Document"
                )
                for s in SPORTS
            },
            "teams/men-soccer.md": concept(
                "Riverton Otters men's soccer",
                "The Riverton Otters soccer team competes in the Northern Valley Conference. The Riverton Otters "
                "were formerly known as the Riverton Beavers.",
                kind="Document",
            ),
            "associations/index.md": "# Associations\n\n- [Northern Valley Conference](nvc.md): a regional body\n",
            "associations/nvc.md": concept(
                "Northern Valley Conference",
                "The Northern Valley Conference was called the Tri-County League until 1996.",
                kind="Document",
            ),
        },
    )
    question = "The Riverton Otters soccer team competes in a conference that was formerly known as what?"
    result = okf.navigate(bundle, question)
    assert result.orchestration is not None
    hops = [a.text for a in result.orchestration.angles if a.origin == "second_hop"]
    assert hops == ["Northern Valley Conference"]
    assert "associations/nvc.md" in [e.path for e in result.shortlist]


def test_asked_for_is_the_noun_after_what_or_which() -> None:
    from okf.orchestrate.crosscheck import asked_for
    from okf.readers.matching import Question
    from okf.text.words import stem

    def asked(text: str) -> set[str]:
        return asked_for(Question.parse(text), text)

    assert asked("The team plays for a conference in what city?") == {stem("city")}
    assert asked("What major truck road is located in Backford Cross?") == {stem("road")}
    assert asked("What type of changes must be notified?") == {stem("changes")}
    assert asked("Who directed the film?") == set() and asked("What is the governing law?") == set()


def test_parallel_walks_judge_each_body_once_per_round_within_one_budget(tmp_path: Path) -> None:
    bundle = film_bundle(tmp_path / "b")
    result = okf.navigate(bundle, QUESTION, budgets={"max_bodies": 3})
    assert result.stats.bodies_judged <= 3
    round_of = {a.id: a.round for a in result.orchestration.angles}
    seen: set[tuple[int, str]] = set()
    for event in result.trace:
        if event.kind == "verdict":
            key = (round_of[event.data["angle"]], event.path)
            assert key not in seen, f"{event.path} judged twice in round {key[0]}"
            seen.add(key)
    assert result.orchestration.stop == "budget" and result.stopped_by == "bodies"


def test_angles_off_is_the_single_walk_and_a_number_sets_the_angles_per_part(tmp_path: Path) -> None:
    bundle = film_bundle(tmp_path / "b")
    off = okf.navigate(bundle, QUESTION, angles="off")
    plain = okf.navigate(bundle, QUESTION, angles="off")
    assert off.orchestration is None and [e.path for e in off.shortlist] == [e.path for e in plain.shortlist]
    one = okf.navigate(bundle, QUESTION, angles=1)
    first = [a for a in one.orchestration.angles if a.round == 1]
    assert [a.origin for a in first] == ["question"] and one.orchestration.angles_setting == "1"
    with pytest.raises(ConfigError, match="angles must be auto, off or a number"):
        okf.navigate(bundle, QUESTION, angles="many")


def test_a_comparison_is_two_parts_each_covered(tmp_path: Path) -> None:
    result = okf.navigate(people_bundle(tmp_path / "b"), "Who is older, Annie Morton or Terry Richardson?")
    orchestration = result.orchestration
    assert [p.question for p in orchestration.parts] == [
        "Who is older, Annie Morton?",
        "Who is older, Terry Richardson?",
    ]
    assert all(p.covered for p in orchestration.parts)
    assert {e.path for e in result.shortlist} >= {"models/annie-morton.md", "photographers/terry-richardson.md"}
    whole = [a for a in orchestration.angles if a.part == 0]
    assert whole and whole[0].text == "Who is older, Annie Morton or Terry Richardson?"
    # Each part's evidence comes first, so a small shortlist keeps both.
    small = okf.navigate(
        people_bundle(tmp_path / "c"), "Who is older, Annie Morton or Terry Richardson?", budgets={"max_shortlist": 2}
    )
    assert {e.path for e in small.shortlist} == {"models/annie-morton.md", "photographers/terry-richardson.md"}


def test_only_deprecated_evidence_is_suspicious_escalated_once_then_surfaced(tmp_path: Path) -> None:
    bundle = write_files(
        tmp_path / "b",
        {
            "index.md": "# Handbook\n\n- [Policies](policies/index.md): travel and expenses\n"
            "- [Guides](guides/index.md): how to book\n",
            "policies/index.md": "# Policies\n\n- [Travel Policy](travel.md): travel approvals\n",
            "policies/travel.md": concept(
                "Travel Policy",
                "International travel is approved by the department vice president.",
                kind="Policy",
                status="deprecated",
            ),
            "policies/other.md": concept("Other", "Nothing about trips.", kind="Policy"),
            "guides/index.md": "# Guides\n\n- [Booking](booking.md): booking tools\n",
            "guides/booking.md": concept("Booking", "Book flights in the travel portal.", kind="Guide"),
        },
    )
    result = okf.navigate(bundle, "Who approves international travel?")
    orchestration = result.orchestration
    assert orchestration.rounds[0].state == "suspicious" and "deprecated" in orchestration.rounds[0].signals
    assert len(orchestration.escalations) == 1 and orchestration.escalations[0].axes
    assert orchestration.escalations[0].resolved is False
    assert orchestration.stop == "suspicious" and "one composite escalation" in orchestration.stop_reason
    assert any("deprecated" in u for u in orchestration.uncertain)
    assert any(e.kind == "escalation" for e in result.trace)
    assert [e.path for e in result.shortlist] == ["policies/travel.md"]  # found, flagged, never hidden


class FinalPasses(OfflineReader):
    """The offline reader, but what its selector passes over is final (as a model reader's is)."""

    reads_on = False


def _hardware_store(root: Path) -> Path:
    groups = {f"g{n}/index.md": f"# Group {n}\n\n- [Item {n}](item.md): parts list {n}\n" for n in range(8)}
    items = {f"g{n}/item.md": concept(f"Item {n}", f"Bolts and nuts, lot {n}.") for n in range(8)}
    index = "# Store\n\n" + "".join(f"- [Group {n}](g{n}/index.md): hardware lot {n}\n" for n in range(8))
    return write_files(root, {"index.md": index, **groups, **items})


def test_nothing_anywhere_is_a_corpus_boundary_after_another_family(tmp_path: Path) -> None:
    bundle = _hardware_store(tmp_path / "b")
    result = okf.navigate(bundle, "Who approves international travel?", reader=FinalPasses())
    orchestration = result.orchestration
    assert orchestration.stop == "boundary" and not result.shortlist
    assert orchestration.escalations and "groups" in orchestration.escalations[-1].axes
    assert any("not seem to be in the bundle" in u for u in orchestration.uncertain)
    assert not any(e.kind == "read_on" for e in result.trace)


def test_nothing_anywhere_read_on_everywhere_is_a_boundary(tmp_path: Path) -> None:
    # The offline reader reads on into the groups its selector passed over: every item is judged by the
    # first walk, and no family is left to escalate to.
    bundle = _hardware_store(tmp_path / "b")
    result = okf.navigate(bundle, "Who approves international travel?")
    orchestration = result.orchestration
    assert orchestration.stop == "boundary" and not result.shortlist and not orchestration.escalations
    assert "read on" in orchestration.stop_reason
    judged = {e.path for e in result.trace if e.kind == "verdict"}
    assert judged == {f"g{n}/item.md" for n in range(8)}
    # With another angle walking beside it, only the question's own walk reads on (the other angles' walks end
    # once the question's has ended: a walk of theirs could not read on for it).
    result = okf.navigate(
        bundle, "Other than racing, what sport does the 1998 champion of the Toyota Grand Prix practice?"
    )
    orchestration = result.orchestration
    question = next(a.id for a in orchestration.angles if a.origin == "question")
    assert orchestration.stop == "boundary" and [a.origin for a in orchestration.angles] == ["question", "granularity"]
    assert {e.data["angle"] for e in result.trace if e.kind == "read_on"} == {question}
    assert {e.path for e in result.trace if e.kind == "verdict"} == judged


def test_a_chain_of_names_stops_at_the_soft_cap(tmp_path: Path) -> None:
    # Every page introduces two more names; nothing ever says what was asked.
    files = {"index.md": "# Films\n\n- [All](all/index.md): films and people\n"}
    listing = ["# All\n"]
    names = [f"Person{chr(65 + n)} Star" for n in range(40)]
    files["all/kiss-and-tell.md"] = concept(
        "Kiss and Tell", f"Kiss and Tell is a film starring {names[0]} and {names[1]} as Corliss Archer."
    )
    listing.append("- [Kiss and Tell](kiss-and-tell.md): a film about Corliss Archer")
    for n, name in enumerate(names):
        nxt = names[(2 * n + 2) % 40], names[(2 * n + 3) % 40]
        slug = name.lower().replace(" ", "-")
        files[f"all/{slug}.md"] = concept(
            name, f"{name} acted in a film with {nxt[0]} and {nxt[1]}, portrayed by Corliss Archer fans."
        )
        listing.append(f"- [{name}]({slug}.md): a performer")
    files["all/index.md"] = "\n".join(listing) + "\n"
    result = okf.navigate(write_files(tmp_path / "b", files), QUESTION, budgets={"max_bodies": 400})
    orchestration = result.orchestration
    assert orchestration.stop == "cap" and orchestration.walks == 8
    assert max(len(r.angles) for r in orchestration.rounds) <= 8


def test_several_bundles_are_source_families_and_receipts_name_the_bundle(tmp_path: Path) -> None:
    films = film_bundle(tmp_path / "films")
    people = people_bundle(tmp_path / "people")
    result = okf.navigate([films, people], "Who is older, Annie Morton or Terry Richardson?")
    assert result.bundles == [str(films.resolve()), str(people.resolve())] and result.bundle == str(films.resolve())
    found = {(e.bundle, e.path) for e in result.shortlist}
    assert (str(people.resolve()), "models/annie-morton.md") in found
    assert all(e.receipt.bundle == e.bundle for e in result.shortlist)
    walked = {b for a in result.orchestration.angles if a.walked for b in a.bundles}
    assert walked == {str(films.resolve()), str(people.resolve())}
    answer = okf.ask([films, people], "When was Annie Morton born?")
    assert answer.status == "answered" and answer.citations
    assert all(c.receipt.bundle == str(people.resolve()) for c in answer.citations)
    with pytest.raises(ConfigError, match="given twice"):
        okf.navigate([films, films], QUESTION)


class FailingPlanner(OfflineReader):
    """The offline reader whose plan fails (or, with ``duplicates``, repeats itself)."""

    def __init__(self, duplicates: bool = False) -> None:
        super().__init__()
        self.duplicates = duplicates

    def bind(self, vocabulary):  # type: ignore[no-untyped-def]
        bound = FailingPlanner(self.duplicates)
        bound.vocabulary = vocabulary
        return bound

    async def plan(self, question: str, count: int | None, hints: PlanHints) -> Plan:
        if not self.duplicates:
            return Plan(failed=True, error="planner: the reply was not valid JSON")
        same = [
            PlannedAngle(text=question.upper(), origin="rephrasing"),
            PlannedAngle(text=question.upper(), origin="rephrasing"),  # the same text twice: one angle
            PlannedAngle(text=question.lower(), origin="rephrasing"),
        ]
        return Plan(parts=[PlannedPart(question=question, angles=same)])


def test_a_failed_plan_falls_back_to_the_offline_plan_and_says_so(tmp_path: Path) -> None:
    result = okf.navigate(film_bundle(tmp_path / "b"), QUESTION, reader=FailingPlanner())
    orchestration = result.orchestration
    assert orchestration.planner == "offline" and "the plan failed" in orchestration.fallback
    assert any(e.kind == "failure" and e.data.get("role") == "planner" for e in result.trace)
    assert result.stats.failures >= 1 and "films/kiss-and-tell.md" in [e.path for e in result.shortlist]
    plan = next(e for e in result.trace if e.kind == "plan")
    assert plan.data["fallback"] == orchestration.fallback


def test_duplicate_angles_are_dropped_and_recorded(tmp_path: Path) -> None:
    result = okf.navigate(film_bundle(tmp_path / "b"), QUESTION, reader=FailingPlanner(duplicates=True))
    dropped = [a for a in result.orchestration.angles if a.note and "duplicate" in a.note]
    assert len(dropped) == 2 and all(not a.walked for a in dropped)  # same terms as the question, twice
    assert [e.data["dropped"] for e in result.trace if e.kind == "angle" and "dropped" in e.data] == [
        "a duplicate of a1",
        "a duplicate of a1",
    ]


def test_a_question_that_decomposes_into_nothing_is_walked_as_asked(tmp_path: Path) -> None:
    result = okf.navigate(film_bundle(tmp_path / "b"), "how is it?")
    orchestration = result.orchestration
    assert "decomposes into nothing" in orchestration.fallback
    assert next(a.text for a in orchestration.angles if a.walked) == "how is it?"


def test_a_reader_without_angle_roles_judges_for_the_walks_own_angle(tmp_path: Path) -> None:
    offline = OfflineReader()

    async def judge(question: str, documents: Sequence[Document]) -> Judgement:
        return await offline.judge(question, documents)

    async def select(question, signposts):  # type: ignore[no-untyped-def]
        return await offline.select(question, signposts)

    reader = ScriptedReader(select=select, judge=judge)
    result = okf.navigate(
        people_bundle(tmp_path / "b"), "Who is older, Annie Morton or Terry Richardson?", reader=reader
    )
    assert result.orchestration.planner == "offline" and result.orchestration.fallback is None
    judged = [q for role, q, _ in reader.requests if role == "judge"]
    walked = {a.text for a in result.orchestration.angles if a.walked}
    assert judged and set(judged) <= walked  # each batch judged for the angle of the walk that reached it


def test_navigate_async_runs_inside_a_loop_with_several_bundles(tmp_path: Path) -> None:
    films, people = film_bundle(tmp_path / "f"), people_bundle(tmp_path / "p")

    async def run() -> NavigationResult:
        return await okf.navigate_async([films, people], QUESTION, angles="off")

    result = asyncio.run(run())
    assert result.orchestration is not None and result.orchestration.stop == "off"
    assert result.orchestration.walks == 2 and len(result.bundles) == 2


def test_a_concept_reached_again_carries_its_place_past_links_another_walk_claimed(tmp_path: Path) -> None:
    """Walks of one ledger share the visited set: a link target the other walk claimed has no key in this
    walk, and re-placing the concept linking to it must pass it by (it once raised KeyError on cuad)."""
    from okf.bundle import Bundle
    from okf.models import Budgets
    from okf.navigator.walk import Shared, Walk

    bundle = Bundle.open(film_bundle(tmp_path / "b"))

    async def reach_again() -> tuple[Walk, Walk]:
        shared = Shared()
        mine = Walk(bundle, QUESTION, OfflineReader(), Budgets(), shared=shared)
        other = Walk(bundle, "Shirley Temple", OfflineReader(), Budgets(), shared=shared)
        assert other._enqueue("people/shirley-temple.md", (0,), "descent", "")
        assert mine._enqueue("films/kiss-and-tell.md", (5,), "descent", "")
        mine.links_of["films/kiss-and-tell.md"] = [("people/shirley-temple.md", 0)]
        assert not mine._enqueue("films/kiss-and-tell.md", (1,), "link", "films/index.md")
        return mine, other

    mine, other = asyncio.run(reach_again())
    assert mine.keys == {"films/kiss-and-tell.md": (1,)} and other.keys["people/shirley-temple.md"] == (0,)


def test_the_question_as_asked_leads_the_ledger_and_may_spend_the_whole_budget(tmp_path: Path) -> None:
    """At an equal selector level the walk of the question reads before the angles beside it, and the round
    share that holds the angles back (later rounds keep bodies to read with) does not hold it back."""
    from okf.bundle import Bundle
    from okf.models import Budgets
    from okf.navigator.walk import Shared, Walk

    bundle = Bundle.open(film_bundle(tmp_path / "b"))

    async def ledger() -> tuple[Walk, Walk, Shared]:
        shared = Shared(max_bodies=8, lead_max_bodies=10)
        asked = Walk(bundle, QUESTION, OfflineReader(), Budgets(max_bodies=10), shared=shared)
        angle = Walk(bundle, "Corliss Archer actress", OfflineReader(), Budgets(max_bodies=8), shared=shared)
        asked.leads = True
        assert asked._enqueue("films/kiss-and-tell.md", (0,), "descent", "")
        assert angle._enqueue("films/rope.md", (0,), "descent", "")
        assert angle._behind() and not asked._behind()  # both at level 0, neither has read: the question first
        angle.stats.bodies_judged, asked.stats.bodies_judged = 0, 3
        assert angle._behind()  # still: leading outranks having read fewer bodies at the same level
        assert angle._enqueue("people/james-stewart.md", (1,), "descent", "")
        asked.queue.popleft()
        assert asked._enqueue("people/shirley-temple.md", (1,), "descent", "", weak=1)
        assert asked._behind() and not angle._behind()  # a surer place of an angle reads before a weaker one
        shared.bodies = 8  # the round's share is spent: the angles stop, the question's walk reads on
        assert angle._room() == 0 and asked._room() == 2
        return asked, angle, shared

    asyncio.run(ledger())


def _found(
    bundle: Bundle,
    path: str,
    grade: str,
    by: str,
    place: tuple[int, int] = (0, 0),
    answers: set[str] | None = None,
    bears: set[str] | None = None,
    key: tuple[int, ...] = (),
) -> Found:
    """Evidence a walk found: ``path`` of ``bundle`` as a shortlist entry graded ``grade`` by the walk ``by``."""
    from okf.navigator.receipts import offer, receipt

    item = bundle.load(path)
    entry = okf.models.ShortlistEntry.model_validate(
        {
            "concept_id": item.id,
            "path": path,
            "title": item.title,
            "type": item.meta.type,
            "status": "active",
            "trust_tier": "unverified",
            "reason": "partly" if grade == "partial" else "says it",
            "via": "descent",
            "grade": grade,
            "receipt": receipt("c0", path, offer(item, 2000)),
        }
    )
    return Found(
        entry, item, str(bundle.root), answers=answers or set(), by=by, place=place, bears=bears or set(), key=key
    )


def test_the_merged_shortlist_keeps_the_question_walks_partial_evidence_first(tmp_path: Path) -> None:
    from okf.bundle import Bundle
    from okf.orchestrate.result import shortlist

    bundle = Bundle.open(people_bundle(tmp_path / "b"))
    paths = ["models/annie-morton.md", "photographers/terry-richardson.md"]

    def partial(path: str, by: str) -> Found:
        return _found(bundle, path, "partial", by)

    # The angle's walk found its partial entry first; the question's own comes first all the same, and with
    # one room left (two concepts answer the question as asked) it is the one kept.
    found = [partial(paths[1], "rephrasing"), partial(paths[0], "question")]
    assert [f.entry.path for f in shortlist(found, {1: "a1"}, {"a1": 1}, 10)] == [paths[0], paths[1]]
    assert [f.entry.path for f in shortlist(found, {1: "a1"}, {"a1": 1}, 1)] == [paths[0]]


def _answering(bundle: Bundle, *paths: str) -> list[Found]:
    """Concepts the question's own walk found answering it as asked, in that order: a full shortlist's worth."""
    return [_found(bundle, p, "relevant", "question", place=(k, 1), answers={"a1"}) for k, p in enumerate(paths)]


def test_a_concept_the_question_names_by_its_title_keeps_its_place_on_a_full_shortlist(tmp_path: Path) -> None:
    """Each side of a comparison: the page of a thing the question names, judged partial, is kept ahead of
    other walks' relevant entries however many there are (it used to give way once three answered)."""
    from okf.bundle import Bundle
    from okf.orchestrate.result import shortlist

    bundle = Bundle.open(film_bundle(tmp_path / "b"))
    kiss, rope, temple, stewart = FILM_PAGES
    merged = [*_answering(bundle, kiss, rope, temple), _found(bundle, stewart, "partial", "question", place=(3, 1))]
    root = str(bundle.root)
    assert stewart not in [f.entry.path for f in shortlist(merged, {1: "a1"}, {"a1": 1}, 3)]
    picked = shortlist(merged, {1: "a1"}, {"a1": 1}, 3, frozenset({(root, stewart)}))
    assert [f.entry.path for f in picked] == [kiss, stewart, rope]  # once, after the first answer


def test_the_page_a_second_hop_walked_to_keeps_its_place_on_a_full_shortlist(tmp_path: Path) -> None:
    """The other end of a bridge answers the hop, not the question as asked: it used to come last and be cut
    from a full shortlist; it comes after the first answer."""
    from okf.bundle import Bundle
    from okf.orchestrate.result import shortlist

    bundle = Bundle.open(film_bundle(tmp_path / "b"))
    kiss, rope, temple, stewart = FILM_PAGES
    hop = _found(bundle, temple, "relevant", "second_hop", place=(0, 2), answers={"a2"})
    merged = [*_answering(bundle, kiss, rope, stewart), hop]
    assert temple not in [f.entry.path for f in shortlist(merged, {1: "a1"}, {"a1": 1, "a2": 1}, 3)]
    bridged = frozenset({(str(bundle.root), temple)})
    picked = shortlist(merged, {1: "a1"}, {"a1": 1, "a2": 1}, 3, bridged=bridged)
    assert [f.entry.path for f in picked] == [kiss, temple, rope]


def test_the_page_a_second_hop_walked_to_comes_first_of_what_that_walk_found(tmp_path: Path) -> None:
    """A hop the question did not need keeps its pages after the question's own evidence; of them, the page
    titled by the name the hop followed comes before the other pages its walk judged relevant on the way
    (every other university, for "Columbia University"), not in the order the walk reached them."""
    from okf.bundle import Bundle
    from okf.orchestrate.result import shortlist

    bundle = Bundle.open(film_bundle(tmp_path / "b"))
    kiss, rope, temple, stewart = FILM_PAGES
    on_the_way = [
        _found(bundle, p, "relevant", "second_hop", place=(k, 2), answers={"a2"}) for k, p in enumerate([rope, stewart])
    ]
    hop = _found(bundle, temple, "relevant", "second_hop", place=(2, 2), answers={"a2"})
    merged = [*_answering(bundle, kiss), *on_the_way, hop]
    walked_to = frozenset({(str(bundle.root), temple)})
    assert [f.entry.path for f in shortlist(merged, {1: "a1"}, {"a1": 1, "a2": 1}, 2)] == [kiss, rope]
    picked = shortlist(merged, {1: "a1"}, {"a1": 1, "a2": 1}, 2, walked_to=walked_to)
    assert [f.entry.path for f in picked] == [kiss, temple]


def test_evidence_relevant_to_another_angle_and_partial_to_the_question_is_partial_evidence_for_it(
    tmp_path: Path,
) -> None:
    """A body relevant to another angle only (the hop "World War") and partial to the question as asked (it
    says the civil war the question asks about) is partial evidence for the question: after the partial
    evidence the question's walks kept for it, before what bears on other angles only. It used to wait
    behind all of that and the angles' agreed evidence, and a full shortlist cut it."""
    from okf.orchestrate.result import shortlist

    bundle = Bundle.open(film_bundle(tmp_path / "b"))
    kiss, rope, temple, stewart = FILM_PAGES
    found = [
        _found(bundle, rope, "partial", "question", bears={"a1"}, key=(1,)),
        _found(bundle, stewart, "partial", "second_hop", bears={"a2"}, key=(2,)),
        _found(bundle, kiss, "relevant", "second_hop", answers={"a2"}, bears={"a2"}, key=(3,)),
        _found(bundle, temple, "relevant", "second_hop", answers={"a2"}, bears={"a1", "a2"}, key=(0,)),
    ]
    picked = shortlist(found, {1: "a1"}, {"a1": 1}, 3)  # room for two partial entries
    assert [f.entry.path for f in picked] == [rope, temple, kiss]
    picked = shortlist(found, {1: "a1"}, {"a1": 1}, 12)
    assert [f.entry.path for f in picked] == [rope, temple, stewart, kiss]


def test_a_hop_page_comes_first_only_while_the_question_needs_it(tmp_path: Path) -> None:
    """The page a second hop walked to is put forward while the evidence the question's own angles found
    leaves the question unanswered (the film's page never says the position), or when it bears on the
    question as asked; a hop drawn from the first evidence found, to a page the question turns out not to
    need, is not put ahead of the question's own answers."""
    from types import SimpleNamespace

    from okf.orchestrate.run import Orchestrator

    bundle = Bundle.open(film_bundle(tmp_path / "b"))
    kiss, _, temple, _ = FILM_PAGES
    root = str(bundle.root)

    def run_with(question: str, found: list[Found]) -> Orchestrator:
        run = object.__new__(Orchestrator)
        run.sources = [SimpleNamespace(bundle=bundle, root=root, vocabulary=bundle.vocabulary())]  # type: ignore[assignment]
        run.question = question
        angles = [
            SimpleNamespace(id="a1", walked=True, part=1, origin="question"),
            SimpleNamespace(id="a2", walked=True, part=1, origin="second_hop"),
        ]
        run.report = SimpleNamespace(parts=[SimpleNamespace(index=1, question=question)], angles=angles)  # type: ignore[assignment]
        keys = [(root, f.entry.path) for f in found]
        run.state = SimpleNamespace(found=dict(zip(keys, found)), order=keys)  # type: ignore[assignment]
        return run

    hop = _found(bundle, temple, "relevant", "second_hop", place=(0, 2), answers={"a2"})
    bridged = frozenset({(root, temple)})
    # The film's page leaves the position unsaid: the hop's page is the rest of the answer.
    needed = run_with(QUESTION, [_found(bundle, kiss, "relevant", "question", answers={"a1"}), hop])
    assert needed.bridges_needed(bridged) == bridged
    # A question its own evidence answers whole: the hop's page is not needed, unless it bears on it.
    asked = "Which 1945 comedy film starred Shirley Temple as Corliss Archer?"
    answered = run_with(asked, [_found(bundle, kiss, "relevant", "question", answers={"a1"}), hop])
    assert answered.bridges_needed(bridged) == frozenset()
    bearing = _found(bundle, temple, "relevant", "second_hop", place=(0, 2), answers={"a2"}, bears={"a1", "a2"})
    answered = run_with(asked, [_found(bundle, kiss, "relevant", "question", answers={"a1"}), bearing])
    assert answered.bridges_needed(bridged) == bridged


def test_evidence_saying_all_the_question_asks_comes_before_evidence_saying_part_of_it(tmp_path: Path) -> None:
    """Twelve pages on installing with the Helm chart, found first, do not crowd out the one on the chart's
    metrics: of the concepts answering the question as asked, those saying every word of it the bundle
    knows come first."""
    from okf.orchestrate.crosscheck import says_all
    from okf.orchestrate.result import shortlist

    clouds = ["aks", "eks", "gke", "osd"]
    root = write_files(
        tmp_path / "b",
        {
            "index.md": "# Guides\n\n- [Install](install/index.md): installing\n",
            "install/index.md": "# Install\n\n"
            + "".join(f"- [Helm chart on {c}]({c}.md): the chart\n" for c in clouds)
            + "- [Metrics](metrics.md): metrics\n",
            **{
                f"install/{c}.md": concept(f"Helm chart on {c}", f"Install the hub on {c} with the Helm chart.")
                for c in clouds
            },
            "install/metrics.md": concept(
                "Enabling metrics", "Turn on the metrics endpoint by setting a value of the Helm chart."
            ),
        },
    )
    bundle = Bundle.open(root)
    question = "How do I turn on metrics for the Helm chart?"
    found = [
        _found(bundle, p, "relevant", "question", place=(k, 1), answers={"a1"})
        for k, p in enumerate([*(f"install/{c}.md" for c in clouds), "install/metrics.md"])
    ]
    assert "install/metrics.md" not in [f.entry.path for f in shortlist(found, {1: "a1"}, {"a1": 1}, 3)]
    complete = says_all(question, bundle.vocabulary())
    picked = shortlist(found, {1: "a1"}, {"a1": 1}, 3, complete=complete)
    # The first answer keeps its place (a part's first evidence is never dropped); the whole answer comes next.
    assert [f.entry.path for f in picked] == ["install/aks.md", "install/metrics.md", "install/eks.md"]


def test_partial_evidence_saying_what_the_first_answer_leaves_unsaid_keeps_a_place(tmp_path: Path) -> None:
    """The page of the lake the question names answers it as asked, and so do other lakes' pages, which leaves
    partial evidence no room; but the county's page says what the lake's never does (the population): it is
    kept after the first answer. The folder's key terms ("popul") say nothing for the lake's page."""
    from okf.bundle import Bundle
    from okf.orchestrate.crosscheck import filling
    from okf.orchestrate.result import shortlist

    lakes = ("kettle", "otter", "heron", "pine")
    root = write_files(
        tmp_path / "b",
        {
            "index.md": "# Places\n\n- [Lakes](topic-lake-popul-counti/index.md): lakes\n",
            "topic-lake-popul-counti/index.md": "# Lakes\n\n"
            + "".join(f"- [{n.title()} Lake]({n}-lake.md): a lake\n" for n in lakes)
            + "- [Ashford County](ashford-county.md): a county\n",
            **{
                f"topic-lake-popul-counti/{n}-lake.md": concept(
                    f"{n.title()} Lake", f"{n.title()} Lake is a state fishing lake in Ashford County.", kind="Document"
                )
                for n in lakes
            },
            "topic-lake-popul-counti/ashford-county.md": concept(
                "Ashford County", "Ashford County is a county with a population of 9,984.", kind="Document"
            ),
        },
    )
    bundle = Bundle.open(root)
    question = "Kettle Lake is in a county that has a population of how many inhabitants?"
    found = [
        _found(bundle, f"topic-lake-popul-counti/{n}-lake.md", "relevant", "question", place=(k, 1), answers={"a1"})
        for k, n in enumerate(lakes)
    ]
    county = _found(bundle, "topic-lake-popul-counti/ashford-county.md", "partial", "question", place=(4, 1))
    found.append(county)
    assert county not in shortlist(found, {1: "a1"}, {"a1": 1}, 12)

    def fill(evidence: list[Found], partial: list[Found]) -> list[Found]:
        return filling(question, evidence, partial, [bundle.vocabulary()])

    picked = shortlist(found, {1: "a1"}, {"a1": 1}, 12, fill=fill)
    assert [f.entry.path for f in picked][:2] == ["topic-lake-popul-counti/kettle-lake.md", county.entry.path]
    assert len(picked) == 5


def test_a_named_concept_in_the_folder_of_the_thing_named_is_not_put_forward(tmp_path: Path) -> None:
    """The title page of a contract the question names sits in that contract's folder: no more about it than
    its other pages, so it is not put ahead of them; the page of a thing named elsewhere is."""
    bundle = write_files(
        tmp_path / "b",
        {
            "index.md": "# Contracts\n\n- [Acme Widgets supply agreement](acme-widgets-supply/index.md): supply\n"
            "- [People](people/index.md): people\n",
            "acme-widgets-supply/index.md": "# Acme Widgets supply agreement\n\n"
            "- [Acme Widgets Supply Agreement](acme-widgets-supply-agreement.md): the cover page\n",
            "acme-widgets-supply/acme-widgets-supply-agreement.md": concept(
                "Acme Widgets Supply Agreement", "This supply agreement is made between Acme Widgets and Bo Corp."
            ),
            "people/index.md": "# People\n\n- [Zed Quill](zed-quill.md): a person\n",
            "people/zed-quill.md": concept("Zed Quill", "Zed Quill signed it.", kind="Document"),
        },
    )
    from okf.bundle import Bundle
    from okf.orchestrate.run import Orchestrator

    run = object.__new__(Orchestrator)
    opened = Bundle.open(bundle)
    run.sources = [type("S", (), {"bundle": opened, "root": "b"})()]  # type: ignore[assignment]
    run.question = "Did Zed Quill sign the Acme Widgets Supply Agreement?"
    run.named = None
    assert set(run._named()) == {
        ("b", "acme-widgets-supply/acme-widgets-supply-agreement.md"),
        ("b", "people/zed-quill.md"),
    }
    assert run.named_apart() == {("b", "people/zed-quill.md")}


def test_the_entries_answering_the_question_are_taken_from_every_walk_in_turn(tmp_path: Path) -> None:
    """The question's own walk's entries first; then, since walks of a round share their bodies, the other
    walks' in turn, each walk's best first; and partial evidence still fills in while the question's own walks
    found few concepts (what other angles found does not crowd it out)."""
    from okf.bundle import Bundle
    from okf.orchestrate.result import shortlist

    bundle = Bundle.open(film_bundle(tmp_path / "b"))

    def found(path: str, grade: str, by: str, place: tuple[int, int], answers: set[str]) -> Found:
        return _found(bundle, path, grade, by, place=place, answers=answers)

    kiss, rope, temple, stewart = FILM_PAGES
    # Found in this order: the question's walk (walk 1), then the rephrasing's (walk 2), the viewpoint's (3).
    merged = [
        found(kiss, "relevant", "question", (0, 1), {"a1"}),
        found(rope, "relevant", "rephrasing", (0, 2), {"a1", "a2"}),
        found(temple, "relevant", "rephrasing", (1, 2), {"a1"}),
        found(stewart, "relevant", "viewpoint", (0, 3), {"a1"}),
    ]
    picked = shortlist(merged, {1: "a1"}, {"a1": 1, "a2": 1}, 3)
    assert [f.entry.path for f in picked] == [kiss, rope, stewart]
    # Three concepts answer the question as asked, all found by the rephrasing's walk: the question's own
    # walk's partial entry is still kept, as its lone walk would have kept it.
    others = [found(p, "relevant", "rephrasing", (k, 2), {"a1"}) for k, p in enumerate([kiss, rope, temple])]
    partial = found(stewart, "partial", "question", (0, 1), set())
    assert stewart in [f.entry.path for f in shortlist([*others, partial], {1: "a1"}, {"a1": 1}, 10)]


def test_a_company_named_in_a_sentence_with_its_town_is_a_second_hop_walked_in_the_first_round(
    tmp_path: Path,
) -> None:
    """The page of the person the question names says "at Acme Widget Company in Springfield": a span that is
    no title splits at its lowercase words, and the company's page is reached by a hop started as soon as the
    person's page was graded, in the first round."""
    root = write_files(
        tmp_path / "b",
        {
            "index.md": "# Encyclopedia\n\n- [People](people/index.md): engineers and singers\n"
            "- [Companies](companies/index.md): firms and their offices\n",
            "people/index.md": "# People\n\n- [Jo Marlowe](jo-marlowe.md): a singer\n",
            "people/jo-marlowe.md": concept(
                "Jo Marlowe",
                "Jo Marlowe is a singer. Jo Marlowe worked as a software engineer at Acme Widget Company in "
                "Springfield before singing.",
                kind="Document",
            ),
            "companies/index.md": "# Companies\n\n- [Acme Widget Company](acme-widget-company.md): a firm\n"
            "- [Springfield](springfield.md): a town\n",
            "companies/acme-widget-company.md": concept(
                "Acme Widget Company", "Acme Widget Company is headquartered in Boston.", kind="Document"
            ),
            "companies/springfield.md": concept("Springfield", "Springfield is a town.", kind="Document"),
        },
    )
    result = okf.navigate(root, "Where is the firm that Jo Marlowe worked for as a software engineer based?")
    orchestration = result.orchestration
    assert orchestration is not None
    hops = [a for a in orchestration.angles if a.origin == "second_hop"]
    assert hops and hops[0].text == "Acme Widget Company" and hops[0].round == 1
    assert hops[0].source == "people/jo-marlowe.md"
    assert "companies/acme-widget-company.md" in [e.path for e in result.shortlist]


def test_the_other_angles_walks_end_once_the_leading_walks_have(tmp_path: Path) -> None:
    """A round lasts about as long as its leading walks: when the question's walk has ended, an angle's walk
    still running finishes what it sent and starts nothing more (stopped by its bodies)."""
    from okf.bundle import Bundle
    from okf.models import Budgets
    from okf.navigator.walk import Walk
    from okf.orchestrate.run import Live, Orchestrator, Source

    bundle = Bundle.open(film_bundle(tmp_path / "b"))
    reader = OfflineReader()

    async def curb() -> tuple[Walk, Walk]:
        source = Source(bundle, str(bundle.root), reader, bundle.vocabulary())
        run = Orchestrator([source], QUESTION, reader, Budgets(), None)
        live = Live(1, Budgets())
        asked = Walk(bundle, QUESTION, reader, Budgets(), shared=run.shared)
        angle = Walk(bundle, "Corliss Archer actress", reader, Budgets(), shared=run.shared)
        asked.leads = True
        running = asyncio.get_running_loop().create_future()
        ended = asyncio.get_running_loop().create_future()
        live.walks, live.tasks = [asked, angle], [ended, running]  # type: ignore[list-item]
        run._curb(live)
        assert angle.stopped_by is None  # the question's walk still runs: the angle reads on
        ended.set_result(None)
        run._curb(live)
        running.cancel()
        return asked, angle

    asked, angle = asyncio.run(curb())
    assert angle.stopped_by == "bodies" and asked.stopped_by is None


def test_the_other_angles_and_later_rounds_walk_a_few_judge_batches(tmp_path: Path) -> None:
    """Rounds run one after another: an angle beside the question's walk reads at most SIDE_BATCHES judge
    batches, a walk of a later round LATER_BATCHES (once something was read: a question with nothing to
    walk in the first round is walked in full by its escalation, tests/test_navigate_batching.py), while the
    question's own walk may spend the whole budget."""
    from okf.bundle import Bundle
    from okf.models import AngleRecord, Budgets
    from okf.orchestrate.run import LATER_BATCHES, SIDE_BATCHES, Job, Live, Orchestrator, Source

    bundle = Bundle.open(film_bundle(tmp_path / "b"))
    reader = OfflineReader()

    def angle(n: int, origin: str) -> AngleRecord:
        return AngleRecord(id=f"a{n}", text=f"{QUESTION} {origin}", origin=origin, part=1, round=0)

    async def budgets() -> list[list[int]]:
        source = Source(bundle, str(bundle.root), reader, bundle.vocabulary())
        run = Orchestrator([source], QUESTION, reader, Budgets(batch_size=2, max_bodies=50), None)
        out = []
        for number, jobs in [(1, [angle(1, "question"), angle(2, "granularity")]), (2, [angle(3, "escalation")])]:
            run.shared.bodies = 10 * (number - 1)  # the first round read 10 bodies
            live = Live(number, run._round_budgets(len(jobs)))
            run._start([Job(a, 0) for a in jobs], live)
            out.append([w.budgets.max_bodies for w in live.walks])
            for task in live.tasks:
                task.cancel()
            await asyncio.gather(*live.tasks, return_exceptions=True)
        return out

    first, later = asyncio.run(budgets())
    assert first == [50, SIDE_BATCHES * 2] and later == [LATER_BATCHES * 2]


def test_a_concept_another_walk_queued_and_never_sent_is_still_a_candidate_here(tmp_path: Path) -> None:
    """Walks of one ledger claim a concept when they send it to the judge, not when they queue it: an angle's
    walk whose budget ends with candidates still queued leaves them to the question's walk; one already sent
    by another walk is passed by."""
    from okf.models import Budgets
    from okf.navigator.walk import Shared, Walk

    bundle = Bundle.open(film_bundle(tmp_path / "b"))

    async def ledger() -> None:
        shared = Shared()
        asked = Walk(bundle, QUESTION, OfflineReader(), Budgets(), shared=shared)
        angle = Walk(bundle, "Corliss Archer actress", OfflineReader(), Budgets(), shared=shared)
        assert angle._enqueue("films/kiss-and-tell.md", (0,), "descent", "")
        assert angle._enqueue("films/rope.md", (1,), "descent", "")
        assert asked._enqueue("films/kiss-and-tell.md", (0,), "descent", "")  # queued there, not judged
        assert [c.path for c, _, _ in angle._take_batch(1)] == ["films/kiss-and-tell.md"]
        assert asked._take_batch(8) == []  # sent by the angle's walk meanwhile
        assert asked._enqueue("films/rope.md", (1,), "descent", "")  # the angle never sent it: still open here
        assert [c.path for c, _, _ in asked._take_batch(8)] == ["films/rope.md"]
        assert not angle._take_batch(8)

    asyncio.run(ledger())


class _OtherAngleJudge(OfflineReader):
    """Judges every body relevant to the second angle only, bearing on the first as well."""

    async def judge_angles(self, question: str, angles: Sequence[str], documents: Sequence[Document]) -> Judgement:
        from okf.readers.base import Verdict

        return Judgement(
            verdicts=[
                Verdict(id=d.id, relevant=True, grade="relevant", reason="says it", answers=[1], bears=[0, 1])
                for d in documents
            ]
        )


def test_a_walk_sees_a_body_relevant_to_other_angles_only_as_partial() -> None:
    """The question's walk goes on as a lone walk would: a body relevant to another angle only neither widens
    its frontier nor fills its shortlist (it stays evidence for that angle, and bears on the question)."""
    from okf.models import AngleRecord
    from okf.orchestrate.views import AngleView, Judgments

    asked = AngleRecord(id="a1", text=QUESTION, origin="question", part=1, round=1)
    other = AngleRecord(id="a2", text="Corliss Archer actress", origin="granularity", part=1, round=1)
    judgments = Judgments(QUESTION)
    judgments.angles = [asked, other]
    reader = _OtherAngleJudge()
    document = Document(id="films/kiss-and-tell", title="Kiss and Tell", text="Shirley Temple.", sha256="a" * 64)

    async def judge(angle: AngleRecord) -> str | None:
        judgement = await AngleView(reader, judgments, angle, "b").judge(angle.text, [document])
        return judgement.verdicts[0].grade

    assert asyncio.run(judge(asked)) == "partial"
    assert asyncio.run(judge(other)) == "relevant"
    assert judgments.answers_of("b", "a" * 64) == {"a2"} and judgments.bears_of("b", "a" * 64) == {"a1", "a2"}


def test_partial_evidence_bearing_on_the_question_comes_first_in_tree_order(tmp_path: Path) -> None:
    """Partial entries the question as asked bears on come first, whichever walk judged them, from the surest
    places, in the order of the tree (as a lone walk of the question keeps them); those bearing only on
    another angle after."""
    from okf.orchestrate.result import shortlist

    bundle = Bundle.open(film_bundle(tmp_path / "b"))
    kiss, rope, temple = "films/kiss-and-tell.md", "films/rope.md", "people/shirley-temple.md"
    found = [
        _found(bundle, rope, "partial", "question", (0, 1), bears={"a2"}, key=(0,)),
        _found(bundle, temple, "partial", "question", (1, 1), bears={"a1"}, key=(3,)),
        _found(bundle, kiss, "partial", "granularity", (0, 2), bears={"a1", "a2"}, key=(1,)),
    ]
    picked = shortlist(found, {1: "a1"}, {"a1": 1, "a2": 1}, 10)
    assert [f.entry.path for f in picked] == [kiss, temple, rope]
    assert [f.entry.path for f in shortlist(found, {1: "a1"}, {"a1": 1, "a2": 1}, 2)] == [kiss]  # room for one
    # Of the surer places first: temple was reached with no weak choice on the way, kiss with one.
    found[1].doubt, found[2].doubt = 0, 1
    assert [f.entry.path for f in shortlist(found, {1: "a1"}, {"a1": 1, "a2": 1}, 2)] == [temple]


class _CountingSelector(OfflineReader):
    """The offline reader, counting the angles it selects for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    async def select(self, question: str, signposts: Sequence[SignpostOffer]) -> Selection:
        self.asked.append(question)
        return await super().select(question, signposts)


def test_a_reader_selecting_angles_apart_selects_a_walks_angle_only_when_it_opens_the_listing() -> None:
    """The offline reader's select_angles is its select of each angle: an orchestration reads a listing once
    per round and selects each walk's angle only when that walk offers it, with the choices select_angles
    gives, one call counted for the listing."""
    from okf.models import AngleRecord
    from okf.orchestrate.views import AngleView, Judgments

    asked = AngleRecord(id="a1", text="Who approves international travel?", origin="question", part=1, round=1)
    other = AngleRecord(id="a2", text="vacation days", origin="granularity", part=1, round=1)
    third = AngleRecord(id="a3", text="termination notice", origin="granularity", part=1, round=1)
    judgments = Judgments(asked.text)
    judgments.new_round([asked, other, third])
    reader = _CountingSelector()
    offers = [
        SignpostOffer(index=0, path="travel/", title="Travel", description="international travel approval"),
        SignpostOffer(index=1, path="leave/", title="Leave", description="vacation days of new hires"),
        SignpostOffer(index=2, path="legal/", title="Legal", description="contracts and notices"),
    ]

    async def walk() -> tuple[Selection, Selection]:
        first = await AngleView(reader, judgments, asked, "b").select(asked.text, offers)
        second = await AngleView(reader, judgments, other, "b").select(other.text, offers)
        return first, second

    first, second = asyncio.run(walk())
    assert reader.asked == [asked.text, other.text]  # the third angle's walk never offered it: not selected
    together = asyncio.run(OfflineReader().select_angles(asked.text, [asked.text, other.text], offers))
    assert [first.choices, second.choices] == together.kept and first.choices and second.choices
    assert first.usage.calls == 1 and second.usage.calls == 0 and second.usage.cache_hits == 1
    assert judgments.signposts_offered == len(offers)  # the listing was read once
