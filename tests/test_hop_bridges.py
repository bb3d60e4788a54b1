"""Multi-hop bridges (issue 13): titles a question spells out as named starts, bridges a paragraph's first
word names, sentences not cut at initials."""

from __future__ import annotations

from pathlib import Path

import okf
from okf.bundle import Bundle
from okf.orchestrate.crosscheck import Found
from okf.orchestrate.hops import second_hops
from okf.orchestrate.names import resolve, titles_said
from okf.readers.matching import Question
from okf.text.words import sentences
from tests.builders import concept, write_files


def encyclopedia(root: Path) -> Path:
    return write_files(
        root,
        {
            "index.md": "# Encyclopedia\n\n- [Plants](plants/index.md): genera\n"
            "- [People](people/index.md): novelists and directors\n"
            "- [Films](films/index.md): films and games\n",
            "plants/index.md": "# Plants\n\n- [Psychopsis](psychopsis.md): a genus\n"
            "- [Aubrieta](aubrieta.md): a genus\n",
            "plants/psychopsis.md": concept("Psychopsis", "Psychopsis is a genus of orchids.", kind="Document"),
            "plants/aubrieta.md": concept("Aubrieta", "Aubrieta is a genus of flowering plants.", kind="Document"),
            "people/index.md": "# People\n\n- [J. G. Farrell](j-g-farrell.md): a novelist\n"
            "- [David Yates](david-yates.md): a director\n- [Pietro Germi](pietro-germi.md): a director\n",
            "people/j-g-farrell.md": concept("J. G. Farrell", "J. G. Farrell was a novelist.", kind="Document"),
            "people/david-yates.md": concept("David Yates", "David Yates is a film director.", kind="Document"),
            "people/pietro-germi.md": concept("Pietro Germi", "Pietro Germi was an actor.", kind="Document"),
            "films/index.md": "# Films\n\n- [Out of Place](out-of-place.md): a documentary\n"
            "- [Catwoman (film)](catwoman-film.md): a 2004 film\n"
            "- [Catwoman (video game)](catwoman-video-game.md): a 2004 game\n"
            "- [Terms](terms-1.md): terms\n- [Terms](terms-2.md): terms\n- [Terms](terms-3.md): terms\n"
            "- [Terms](terms-4.md): terms\n",
            "films/out-of-place.md": concept("Out of Place", "Out of Place is a documentary.", kind="Document"),
            "films/catwoman-film.md": concept(
                "Catwoman (film)", "Catwoman is a 2004 superhero film directed by Pitof.", kind="Document"
            ),
            "films/catwoman-video-game.md": concept(
                "Catwoman (video game)",
                "Catwoman is an action-adventure tie-in video game based on the 2004 film of the same name.",
                kind="Document",
            ),
            **{f"films/terms-{n}.md": concept("Terms", "Terms of use.", kind="Document") for n in range(1, 5)},
        },
    )


def test_titles_said_finds_titles_a_question_spells_out_word_for_word(tmp_path: Path) -> None:
    bundle = Bundle.open(encyclopedia(tmp_path / "b"))

    def said(text: str) -> list[str]:
        return [path for _, path in titles_said(bundle, text)]

    # A question's first word, names joined by "and", initials: each the title of one concept.
    assert said("Psychopsis and Aubrieta are both genuses of which type of plants?") == [
        "plants/psychopsis.md",
        "plants/aubrieta.md",
    ]
    assert said("What occupation was shared by David Yates and Pietro Germi?") == [
        "people/david-yates.md",
        "people/pietro-germi.md",
    ]
    assert said("Which novelist, J. G. Farrell or Louis Aragon, wrote of colonial rule?") == ["people/j-g-farrell.md"]
    # A title starting with a capitalized stop word counts when it goes on; a stop word alone names nothing.
    assert said("are the documentaries Out of Place and Rope by the same director ?") == ["films/out-of-place.md"]
    assert said("Out of curiosity, what is it?") == []
    # Lowercase words never start a title; a title many concepts bear is a common heading, no name.
    assert said("what is psychopsis?") == []
    assert said("What do the Terms say?") == []
    # Where each begins, in text order.
    assert [at for at, _ in titles_said(bundle, "Aubrieta or Psychopsis?")] == [0, 12]


def test_a_name_many_concepts_bear_resolves_to_none_of_them(tmp_path: Path) -> None:
    """A second hop's name is read as a link by title: "Catwoman" is two concepts' (the film, the game), but
    a title four concepts bear is a common heading ("Recitals", "Definitions" of every contract), no name: a
    hop to three of them picked by listing order led to other contracts than the one asked about, and
    their pages went first on the shortlist as the other end of the bridge."""
    bundle = Bundle.open(encyclopedia(tmp_path / "b"))
    assert resolve(bundle, "Catwoman") == ["films/catwoman-film.md", "films/catwoman-video-game.md"]
    assert resolve(bundle, "Terms") == []
    assert resolve(bundle, "Out of Place") == ["films/out-of-place.md"]


def test_a_title_the_question_spells_out_is_judged_first(tmp_path: Path) -> None:
    result = okf.navigate(
        encyclopedia(tmp_path / "b"), "Psychopsis and Aubrieta are both genuses of which type of plants?"
    )
    first = [e.path for e in result.trace if e.kind == "verdict"][:2]
    assert set(first) == {"plants/psychopsis.md", "plants/aubrieta.md"}
    assert {"plants/psychopsis.md", "plants/aubrieta.md"} <= {e.path for e in result.shortlist}


def test_sentences_are_not_cut_at_initials_or_abbreviations() -> None:
    text = (
        "The DISCLOSE Act was a bill introduced in the U.S. House of Representatives by Chris Van Hollen. "
        "It was praised by J. G. Farrell, e.g. in a letter. A new sentence; and a clause."
    )
    assert sentences(text) == [
        "The DISCLOSE Act was a bill introduced in the U.S. House of Representatives by Chris Van Hollen.",
        "It was praised by J. G. Farrell, e.g. in a letter.",
        "A new sentence;",
        "and a clause.",
    ]


def _evidence(bundle: Bundle, path: str) -> Found:
    from okf.models import ShortlistEntry
    from okf.navigator.receipts import offer, receipt

    loaded = bundle.load(path)
    entry = ShortlistEntry(
        concept_id=loaded.id,
        path=path,
        title=loaded.title,
        type="Document",
        reason="",
        via="descent",
        grade="relevant",
        receipt=receipt("c1", path, offer(loaded, 6000)),
    )
    return Found(entry, loaded, "b")


def test_a_paragraphs_first_word_is_a_bridge_to_another_concept_of_that_title(tmp_path: Path) -> None:
    """ "Catwoman is an action-adventure tie-in video game based on the 2004 film ...": the film the question
    asks for is the concept titled by the paragraph's first word, which the question never names; the game's
    page does not say Pitof, the name the question does say, and is still a bridge (no evidence says it)."""
    from okf.orchestrate.names import resolve

    bundle = Bundle.open(encyclopedia(tmp_path / "b"))
    question = "What movie did Pitof direct which had an action-adventure tie-in video game based off of it in 2004?"
    game = _evidence(bundle, "films/catwoman-video-game.md")
    parsed = Question.parse(question, bundle.vocabulary())
    gap = [u for u in parsed.units if u.key in {"movi", "pitof", "direct"}]
    assert {u.key for u in gap} == {"movi", "pitof", "direct"}

    def elsewhere(name: str, path: str) -> bool:
        return any(p != path for p in resolve(bundle, name))

    hops, _ = second_hops(question, [game], gap, bundle.vocabulary(), set(), only=elsewhere)
    assert hops == [("Catwoman", "films/catwoman-video-game.md")]
    # A name that is the title of the evidence alone leads nowhere else: no bridge.
    alone = _evidence(bundle, "plants/psychopsis.md")
    hops, _ = second_hops("Which genus is a orchid?", [alone], gap, bundle.vocabulary(), set(), only=elsewhere)
    assert hops == []


def test_a_hop_named_by_a_paragraphs_first_word_is_walked_in_the_round_that_found_it(tmp_path: Path) -> None:
    result = okf.navigate(
        encyclopedia(tmp_path / "b"),
        "What movie did Pitof direct which had an action-adventure tie-in video game based off of it in 2004?",
    )
    orchestration = result.orchestration
    assert orchestration is not None
    hops = [a for a in orchestration.angles if a.origin == "second_hop"]
    assert hops and hops[0].text == "Catwoman" and hops[0].bodies > 0
    assert "films/catwoman-film.md" in [e.path for e in result.shortlist]
