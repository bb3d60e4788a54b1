"""The offline reader's decisions on hand-written cases: questions as units, selection, graded judging, the
extractive answer; and the scripted reader."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okf.readers import OfflineReader, Reader
from okf.readers.base import Document, DraftAnswer, Evidence, Selection, SignpostOffer, Verdict
from okf.readers.extractive import answer_from
from okf.readers.judging import judge_all, judge_one
from okf.readers.matching import Field, Question, read_body
from okf.readers.selection import select_offer
from okf.testing import ScriptedReader
from okf.text.vocabulary import Vocabulary
from okf.text.words import stem

QUESTION = "How many vacation days do new hires get?"


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def offer(index: int, path: str, title: str, description: str = "") -> SignpostOffer:
    return SignpostOffer(index=index, path=path, title=title, description=description, is_dir=path.endswith("/"))


def doc(doc_id: str, title: str, text: str, headings: list[str] | None = None) -> Document:
    return Document(id=doc_id, title=title, text=text, sha256="0" * 64, headings=headings or [])


def vocabulary(
    tmp_path: Path, terms_df: dict[str, int], concepts: int = 100, acronyms: dict[str, str] | None = None
) -> Vocabulary:
    (tmp_path / ".okf").mkdir(parents=True, exist_ok=True)
    (tmp_path / ".okf" / "vocabulary.json").write_text(
        json.dumps({"format": 1, "concepts": concepts, "documents": 3, "acronyms": acronyms or {}, "terms": terms_df})
    )
    loaded = Vocabulary.load(tmp_path)
    assert loaded is not None
    return loaded


def kept(question: str, offers: list[SignpostOffer], vocab: Vocabulary | None = None) -> dict[int, str]:
    return {c.index: c.grade for c in select_offer(Question.parse(question, vocab), offers)}


# --- questions as units ---


def test_question_finds_names_and_runs() -> None:
    question = Question.parse("Which law governs the Adaptimmune Therapeutics strategic alliance agreement?")
    assert "adaptimmunetherapeutics" in question.runs
    assert stem("adaptimmune") in question.names and stem("law") not in question.names


def test_alternatives_joined_by_or_are_one_unit() -> None:
    question = Question.parse("Can the party audit the books, records or premises?")
    units = {u.key: u for u in question.units}
    merged = [u for u in question.units if len(u.terms) == 3]
    assert len(merged) == 1 and {stem("books"), stem("records"), stem("premises")} == merged[0].terms
    assert stem("audit") in units


def test_the_alternative_is_the_word_of_the_same_form() -> None:
    """After "or", the word standing beside the one before it: "debts or financial obligations" offers
    obligations (both plural), "soliciting or hiring employees" hiring, "terminate or materially breach" breach."""

    def merged(text: str) -> frozenset[str]:
        return next(u.terms for u in Question.parse(text).units if len(u.terms) > 1)

    assert merged("Can one fund settle the debts or financial obligations of another?") == {
        stem("debts"),
        stem("obligations"),
    }
    assert merged("Is there a clause on soliciting or hiring employees?") == {stem("soliciting"), stem("hiring")}
    assert merged("May a party terminate or materially breach the deal?") == {stem("terminate"), stem("breach")}
    assert merged("Must it be written or oral notice?") == {stem("written"), stem("oral")}


def test_a_compound_is_found_written_together_or_apart() -> None:
    question = Question.parse("How do I install in an air-gapped cluster?")
    air = next(u for u in question.units if u.key == "air")
    assert stem("airgapped") in air.terms
    assert read_body("Clusters that are airgapped need a mirror.").has_unit(air)
    assert read_body("An air-gapped cluster needs a mirror.").has_unit(air)


def test_misspelled_question_words_also_match_the_bundle_word(tmp_path: Path) -> None:
    vocab = vocabulary(tmp_path, {stem("environment"): 20, stem("install"): 30, stem("disconnected"): 5})
    question = Question.parse("how to instal in a disconected envirnment", vocab)
    forms = set().union(*(u.terms for u in question.units))
    assert {stem("environment"), stem("disconnected")} <= forms


def test_acronyms_and_expansions_the_bundle_defines_stand_for_each_other(tmp_path: Path) -> None:
    vocab = vocabulary(
        tmp_path,
        {"pfp": 10, stem("private"): 40, stem("financing"): 30, stem("platform"): 25},
        acronyms={"PFP": "Private Financing Platform"},
    )
    by_acronym = Question.parse("What must a PFP Operator disclose?", vocab)
    pfp = next(u for u in by_acronym.units if u.key == "pfp")
    assert pfp.phrases == ((stem("private"), stem("financing"), stem("platform")),)
    assert read_body("A private financing platform operator must disclose fees.").has_unit(pfp)
    spelled = Question.parse("What must a private financing platform disclose?", vocab)
    assert all("pfp" in u.terms for u in spelled.units if u.key in {stem("private"), stem("financing")})


def test_units_weigh_their_rarity_in_the_bundle(tmp_path: Path) -> None:
    vocab = vocabulary(tmp_path, {stem("agreement"): 90, stem("escrow"): 2}, concepts=100)
    question = Question.parse("Does the agreement have an escrow?", vocab)
    weight = {u.key: u.weight for u in question.units}
    assert weight[stem("escrow")] > 2 * weight[stem("agreement")]
    units = {u.key: u for u in Question.parse("Does the agreement have zebras?", vocab).units}
    assert not units[stem("zebras")].known and units[stem("agreement")].known


# --- select ---


def contracts(*titles: str) -> list[SignpostOffer]:
    return [
        offer(i, f"c/{t.lower().replace(' ', '-')}/", t, "Agreement between the parties.") for i, t in enumerate(titles)
    ]


def test_select_keeps_what_says_the_question_and_skips_the_rest() -> None:
    offers = [
        offer(0, "hr/", "Human resources", "Vacation days, sick leave and holidays for employees."),
        offer(1, "it/", "IT", "Laptops, accounts and passwords."),
        offer(2, "fin/", "Finance", "Invoices and payments."),
        offer(3, "ops/", "Operations", "Shipping and receiving."),
    ]
    assert kept(QUESTION, offers) == {0: "strong"}


def test_select_the_entry_naming_the_thing_the_question_names_is_the_one() -> None:
    offers = contracts("Adaptimmune Therapeutics Alliance", "Acme Supply", "Bolt Licensing", "Corio Hosting")
    assert kept("Which law governs the Adaptimmune Therapeutics alliance agreement?", offers) == {0: "strong"}


def test_select_opens_the_parts_of_the_named_thing() -> None:
    offers = [
        offer(0, "c/adaptimmune-therapeutics/definitions/", "Definitions", "Terms used."),
        offer(1, "c/adaptimmune-therapeutics/schedules/", "Schedules", "Prices and dates."),
    ]
    question = "Which law governs the Adaptimmune Therapeutics agreement?"
    assert set(kept(question, offers)) == {0, 1}


def test_select_when_every_entry_says_the_question_opens_them_all() -> None:
    # The known defect: a word every signpost carries used to make none of them worth opening.
    offers = [
        offer(i, f"{name}/", name.title(), "New hires, vacation days and holidays.")
        for i, name in enumerate(["handbook", "policies", "benefits"])
    ]
    assert set(kept(QUESTION, offers)) == {0, 1, 2}


def test_select_a_rare_word_only_one_entry_carries_decides() -> None:
    """Of seven chapters only the one naming auditors is opened: the question's rarest word decides."""
    offers = [
        offer(i, f"d{i}/", f"Chapter {name}", desc)
        for i, (name, desc) in enumerate(
            [
                ("Accounting", "Auditors, financial statements and annual reports."),
                ("Conduct", "Client classification and suitability."),
                ("Markets", "Listing, prospectus and disclosure."),
                ("Prudential", "Capital requirements and liquidity."),
                ("Funds", "Fund managers and custodians."),
                ("Fees", "Application and annual fees."),
                ("Islamic", "Sharia boards and products."),
            ]
        )
    ]
    question = "What must be notified when an Auditor resigns or its appointment is terminated?"
    assert set(kept(question, offers)) == {0}


def test_select_a_common_lead_alone_is_a_faint_choice_in_a_wide_listing() -> None:
    """In a wide listing, a weighty word three entries carry is a lead, but an entry saying only it (and little
    of what the listing tells apart) is read after the weak choices (faint); a word only one or two entries
    carry still makes a weak choice."""
    question = "What must a custodian report about client money reconciliation each quarter?"
    entries = [
        ("Funds", "Custodians and fund managers."),
        ("Client assets", "Client money, reconciliation and reporting each quarter."),
        ("Markets", "Listing, prospectus and custodians."),
        ("Prudential", "Capital and liquidity."),
        ("Fees", "Application fees."),
        ("Islamic", "Sharia boards."),
        ("Conduct", "Suitability."),
        ("Insurance", "Insurers, custodians and actuaries."),
    ]
    wide = [offer(i, f"d{i}/", title, desc) for i, (title, desc) in enumerate(entries)]
    assert kept(question, wide) == {0: "faint", 1: "strong", 2: "faint", 7: "faint"}
    rare = [o if o.index not in (2, 7) else offer(o.index, o.path, o.title, "Other matters.") for o in wide]
    assert kept(question, rare) == {0: "weak", 1: "strong"}


def test_question_a_request_verb_is_not_a_unit() -> None:
    """ "Could you clarify ..." asks for an answer: the verb says nothing the answer is about."""
    asked = Question.parse("Could you please clarify how often client money is reconciled?")
    assert "clarifi" not in {u.key for u in asked.units} and "reconcil" in {u.key for u in asked.units}
    assert "clarifi" in {u.key for u in Question.parse("Which rules clarify client money?").units}


def test_question_a_request_after_who_asks_or_put_to_an_authority_is_not_a_unit() -> None:
    """The request may follow a clause saying who asks, or be put to an authority the question names; a verb
    an authority may do something by ("Can the Regulator modify ...") is what the question is about."""
    persona = Question.parse("As a platform engineer, could you please outline how plugins are loaded?")
    assert "outlin" not in {u.key for u in persona.units} and "plugin" in {u.key for u in persona.units}
    put = Question.parse("Could the FSRA elaborate on auctions run by price reporting agencies?")
    assert "elabor" not in {u.key for u in put.units} and "auction" in {u.key for u in put.units}
    power = Question.parse("Can the Regulator modify the interest payable on a residual liability?")
    assert "modifi" in {u.key for u in power.units}


def test_question_words_asking_for_the_form_of_the_answer_are_not_units() -> None:
    """ "A detailed, step-by-step guide with examples" says how to answer, not what about; written as a name
    ("the Complete Guide to Sailing"), as all the question says, or as another word of their stem, they stay."""
    asked = Question.parse("Give a detailed, step-by-step guide with examples for rotating the signing key.")
    keys = {u.key for u in asked.units}
    assert keys.isdisjoint({stem(w) for w in ("detailed", "step", "guide", "examples")})
    assert {"rotat", "sign", "key"} <= keys
    named = Question.parse("Who wrote the Complete Guide to Sailing?")
    assert "guid" in {u.key for u in named.units}
    assert {u.key for u in Question.parse("What are the necessary steps?").units} == {"necessari", "step"}
    # Read as written: other words of the same stem ask about something.
    asked = Question.parse("Which guided tours keep the precision of the detailing step-by-step?")
    assert {"guid", "precis", "detail"} <= {u.key for u in asked.units}


def test_judge_is_not_held_back_by_words_asking_for_the_form_of_the_answer() -> None:
    """A body stating the steps to rotate the signing key answers a question asking for a detailed,
    step-by-step guide with examples; without its answer-form words the question's topic is what it says."""
    body = "## Rotating the signing key\n\nCreate a new signing key, publish it, then retire the old key."
    document = Document(id="keys/rotate.md", title="Rotating the signing key", text=body, sha256="1" * 64)
    question = Question.parse(
        "Could you provide a detailed, complete, step-by-step guide with precise examples and the necessary "
        "prerequisites for rotating the signing key?"
    )
    assert judge_one(question, document).grade == "relevant"


def test_question_a_numbered_rule_is_said_by_the_section_holding_it() -> None:
    """ "Rule 8.3.1(1)(d)" is in section 8.3: a signpost listing "8.3 Customer Due Diligence" says it."""
    question = Question.parse("How often must CDD be reviewed under Rule 8.3.1(1)(d)?")
    assert "8.3.1" in question.units_in(Field.of("8.3 Customer Due Diligence requirements"))
    assert "8.3.1" not in question.units_in(Field.of("8.4 Enhanced Customer Due Diligence"))


def test_select_a_short_listing_that_says_nothing_is_read_on_in_every_part() -> None:
    offers = [offer(0, "a/", "Drummer, bassist", "Bands and albums."), offer(1, "b/", "Iata, route", "Airports.")]
    # Read on, but faintly: what stronger choices elsewhere hold is read first.
    assert kept("What other position did the person who introduced the DISCLOSE Act hold?", offers) == {
        0: "faint",
        1: "faint",
    }


def test_select_a_short_listing_no_entry_settles_keeps_the_other_side() -> None:
    """Of two groups, one saying a word or two of the question and neither a sure choice: the other is kept too,
    read after it (faint), rather than passed over on a stray word's say ("georgia" is read as "George")."""
    offers = [
        offer(0, "a/", "Sports", "Football, racing and tennis. Topics: georgia, western, vermont."),
        offer(1, "b/", "Music and stage", "Actors and bands. Topics: discography, broadway."),
    ]
    question = "Which director filmed the 1931 western with Ralph Murphy as editor and a score by Max Steiner?"
    assert kept(question, offers) == {0: "weak", 1: "faint"}
    # A sure choice settles it: the other side stays closed.
    sure = [
        offer(0, "hr/", "Human resources", "Vacation days, sick leave and holidays for employees."),
        offer(1, "it/", "IT", "Laptops, accounts and passwords."),
    ]
    assert kept(QUESTION, sure) == {0: "strong"}


def test_select_a_long_listing_that_says_nothing_opens_nothing() -> None:
    offers = [offer(i, f"g{i}/", f"Group {chr(65 + i)}", f"Topic {chr(65 + i)} things.") for i in range(8)]
    assert kept("What other position did the person who introduced the DISCLOSE Act hold?", offers) == {}


def test_select_uses_only_the_last_path_segment() -> None:
    offers = [
        offer(0, "vacation/plans/", "Plans", ""),
        offer(1, "vacation/other/", "Other", ""),
        offer(2, "vacation/misc/", "Misc", ""),
        offer(3, "vacation/more/", "More", ""),
    ]
    assert kept("What plans exist for vacation days?", offers) == {0: "strong"}


def test_select_blind_range_groups_are_opened_as_weak_choices_when_nothing_speaks() -> None:
    offers = [
        offer(i, f"documents-{i * 10 + 1}-{i * 10 + 10}/", f"Documents {i * 10 + 1} to {i * 10 + 10}") for i in range(8)
    ]
    assert set(kept("What is the escrow amount?", offers).values()) == {"weak"}


# --- judge ---


def test_judge_grades_relevant_when_the_body_says_the_question_together() -> None:
    verdict = judge_one(
        Question.parse(QUESTION),
        doc("hr/pto", "Paid time off", "New hires get 15 vacation days a year. Days accrue monthly."),
    )
    assert verdict.grade == "relevant" and verdict.relevant and "15 vacation days" in verdict.reason


def test_judge_grades_partial_when_the_words_are_spread_thin() -> None:
    text = (
        "Vacation is planned with the team lead.\n\nThe office has several rooms.\n\n"
        "Parking is free.\n\nHires are announced on Mondays."
    )
    verdict = judge_one(Question.parse(QUESTION), doc("hr/misc", "Notes", text))
    assert verdict.grade == "partial" and verdict.relevant and verdict.reason.startswith("partly:")


def test_judge_grades_no_when_one_word_is_shared() -> None:
    verdict = judge_one(Question.parse(QUESTION), doc("it/laptops", "Laptops", "Laptops are issued on day one."))
    assert verdict.grade == "no" and verdict.relevant is False


def test_judge_words_of_the_folder_are_context() -> None:
    question = Question.parse("Which law governs the Acme Corp supply agreement?")
    in_folder = doc(
        "g/acme-corp-supply-agreement/12-governing-law",
        "12 Governing Law",
        "This Agreement is governed by the laws of Delaware.",
    )
    elsewhere = doc(
        "g/other/12-governing-law", "12 Governing Law", "This Agreement is governed by the laws of Delaware."
    )
    assert judge_one(question, in_folder).grade == "relevant"
    assert judge_one(question, elsewhere).grade != "relevant"  # it says nothing of Acme


def test_judge_inside_the_named_things_folder_less_of_the_question_is_partial() -> None:
    """In the folder of the contract the question names, where the evidence must be if the bundle holds it,
    a clause saying a fifth of the rest of the question is partial evidence; the same clause in a folder that
    only shares some of the question's words, or in the folder of a numbered rule, needs three tenths."""
    asked = Question.parse("Does the Acme Corp supply agreement contain a non-disparagement obligation?")
    clause = "Each obligation of this section survives termination."
    named = doc("contracts/acme-corp-supply-agreement/9-general", "9 General", clause)
    assert judge_one(asked, named).grade == "partial"  # says obligation: 0.8 of 3 topic units
    assert judge_one(asked, doc("contracts/acme-supply-terms/9-general", "9 General", clause)).grade == "no"
    assert judge_one(asked, doc("contracts/other/9-general", "9 General", clause)).grade == "no"
    # A numbered rule names one short section, every passage of which shares its subject: no lower bar there.
    rule = Question.parse(
        "Under Rule 7.2.2 what must a Reporting Entity state about delayed disclosure of Inside Information?"
    )
    said = "Inside information may be withheld for a while."
    assert judge_one(rule, doc("guidance/confidentiality-rule-7-2-2/93", "93", said)).grade == "no"
    assert judge_one(rule, doc("guidance/confidentiality-rule-7-2-2/93", "93", said + " State it.")).grade == "partial"


def test_judge_a_body_saying_a_rare_identifier_the_question_writes_as_code_is_partial(tmp_path: Path) -> None:
    """A word the question writes as code ("HeaderIconButton": a capital inside, after a small letter), held by
    few of the bundle's concepts, is an exact reference: a body saying it is about what the question names,
    however little else of a long question it says. Not a code word a fifth of the bundle says ("OpenShift"),
    nor one part of such a word ("button")."""
    weights = {
        stem(w): 2 for w in ["goal", "enterprise", "detailed", "explanation", "component", "function", "implementation"]
    }
    vocab = vocabulary(
        tmp_path,
        {**weights, "headericonbutton": 2, "header": 5, "button": 8, "openshift": 20, "configur": 40, "properti": 9},
    )
    asked = Question.parse(
        "Considering our enterprise goal, give a detailed explanation of the `HeaderIconButton` component, its "
        "function, implementation and configuration properties on OpenShift.",
        vocab,
    )
    assert asked.identifiers == {"headericonbutton"}
    said = "* HeaderIconButton: adds an icon to the header."
    verdict = judge_one(asked, doc("customizing/global-header/part-2", "Global header, part 2", said))
    assert verdict.grade == "partial" and "headericonbutton" in verdict.reason
    # A part of the word, or a code word a fifth of the bundle says, is no reference to one thing.
    assert judge_one(asked, doc("ui/buttons", "Buttons", "Each button has an icon.")).grade == "no"
    assert judge_one(asked, doc("install/ocp", "Install", "Runs on OpenShift.")).grade == "no"
    # Without it the body says too little of the question to be evidence.
    plain = Question.parse(
        "Considering our enterprise goal, give a detailed explanation of the header icon button component, its "
        "function, implementation and configuration properties on OpenShift.",
        vocab,
    )
    assert not plain.identifiers
    assert judge_one(plain, doc("customizing/global-header/part-2", "Global header, part 2", said)).grade == "no"


def test_judge_reads_what_a_body_says_in_fenced_code(tmp_path: Path) -> None:
    """A guide's example block names the configuration it is about: the key or component written only in
    fenced code is something the body says (the judge once dropped code blocks and found nothing)."""
    vocab = vocabulary(tmp_path, {"headericonbutton": 2, "header": 5, "icon": 6, "mount": 4, "point": 9})
    asked = Question.parse("Which mount point does the `HeaderIconButton` component use?", vocab)
    said = (
        "Add the button to the header:\n\n```yaml\nmountPoints:\n  - mountPoint: global.header/component\n"
        "    importName: HeaderIconButton\n```\n"
    )
    verdict = judge_one(asked, doc("customizing/global-header", "Global header", said))
    assert verdict.grade != "no" and "headericonbutton" in verdict.reason
    # The same body with its example block left out says none of it.
    bare = judge_one(asked, doc("customizing/global-header", "Global header", "Add the button to the header.\n"))
    assert bare.grade == "no"


def test_judge_keeps_a_concept_whose_title_of_stop_words_the_question_writes_with_its_capitals() -> None:
    """A title made only of stop words says no unit, yet a question writing it out with its own capitals names
    it: the novel's page is about what the question asks of it, however few of its other words it says."""
    asked = Question.parse("The author of The Thing of It Is... is what Nationality?")
    novel = doc("novels/the-thing-of-it-is", "The Thing of It Is...", "A 1967 novel by William Goldman.")
    verdict = judge_one(asked, novel)
    assert verdict.grade == "partial" and verdict.reason == "partly: about the thing of it is, which the question names"
    # Written without the title's capitals, or as the question's opening words, it names nothing.
    assert judge_one(Question.parse("Who wrote the thing of it is, and when?"), novel).grade == "no"
    assert judge_one(Question.parse("The Thing of It Is... was written in which year?"), novel).grade == "no"


def test_judge_keeps_a_concept_titled_by_a_thing_the_question_names(tmp_path: Path) -> None:
    asked = "Which dog's ancestors include Gordon and Irish Setters: the Manchester Terrier or the Scotch Collie?"
    text = "A breed first bred in the north of England in the nineteenth century."
    # The other side of a comparison says few of the question's words, but it is about a thing the question names,
    # even where its folder's words (a topical group "terrier") would otherwise be taken as context.
    verdict = judge_one(
        Question.parse(asked), doc("topic-breed-terrier/manchester-terrier", "Manchester Terrier", text)
    )
    assert (
        verdict.grade == "partial" and verdict.reason == "partly: about manchester, terrier, which the question names"
    )
    assert judge_one(Question.parse(asked), doc("dogs/poodle", "Poodle", "The Poodle is a breed of dog.")).grade == "no"
    # Inside a folder that already is the named thing, its title page is no more about it than its other pages.
    inside = doc("kennel/manchester-terrier-club/manchester-terrier", "Manchester Terrier", text)
    assert judge_one(Question.parse(asked), inside).grade == "no"
    # A name half the bundle carries names no one thing: a concept titled by it is not about what is asked.
    rare = {stem(w): 3 for w in ("ancestors", "include", "gordon", "irish", "setters", "scotch", "collie")}
    common = vocabulary(tmp_path, {**rare, stem("manchester"): 60, stem("terrier"): 60, stem("dog"): 50})
    titled = doc("dogs/manchester-terrier", "Manchester Terrier", text)
    assert judge_one(Question.parse(asked, common), titled).grade == "no"


def test_judge_a_topical_folder_carrying_a_names_words_is_not_that_thing() -> None:
    """A folder grouped by key terms ("topic-buffett-psycholog-warren") carries the words of "Warren Buffett"
    without naming him: the page titled by him is still about what the question names (it used to be judged
    on the question's other words alone, and fail)."""
    asked = "What type of activity does Owner earnings and Warren Buffett have in common?"
    text = "Warren Edward Buffett is an American business magnate and philanthropist."
    verdict = judge_one(
        Question.parse(asked), doc("topic-buffett-psycholog-warren/warren-buffett", "Warren Buffett", text)
    )
    assert verdict.grade == "partial" and "warren, buffett" in verdict.reason
    # A folder named by the thing itself still is that thing.
    inside = doc("warren-buffett-papers/warren-buffett", "Warren Buffett", text)
    assert judge_one(Question.parse(asked), inside).grade == "no"


def test_judge_a_topical_folder_spelling_a_one_word_name_is_not_that_thing() -> None:
    """A topical group's key terms can spell a one-word name whole ("topic-britain-cypress-genus" holds
    "cypress"): the page titled "Cypress" is still about what the question names, not the title page of a
    folder of the cypress (it was judged to mention none of the question's words and the comparison lost its
    other side)."""
    asked = "Are both Cypress and Ajuga genera?"
    text = "Cypress is a conifer tree or shrub of northern temperate regions that belongs to the family Cupressaceae."
    grouped = doc("topic-footbal-team-park/topic-britain-cypress-genus/cypress", "Cypress", text)
    verdict = judge_one(Question.parse(asked), grouped)
    assert verdict.grade == "partial" and "cypress" in verdict.reason
    # A folder named by the thing itself, even under a topical group, still is that thing.
    inside = doc("topic-britain-cypress-genus/cypress-society/cypress", "Cypress", text)
    assert judge_one(Question.parse(asked), inside).grade == "no"


def test_judge_a_document_a_topical_group_holds_says_the_groups_words_itself() -> None:
    """okf compile names a topical group by its members' key terms ("topic-festiv-documentari-film"): the
    document it holds says them itself, so a body saying the question's festival, documentary and film in
    its own words is partial evidence, not a body saying only "month, annual, presented" (it was judged
    "no" and the two-hop question lost its first hop). Never relevant on those words alone; and a section
    nested in a document's folder under the group is judged as before (the words may be its document's)."""
    asked = (
        "In what month is the annual documentary film festival, that is presented by the fortnightly "
        "published British journal of literary essays, held?"
    )
    text = (
        "The Harbour Documentary Festival is an annual documentary film festival that takes place in the "
        "months of March and April every year. The event is presented in association with a magazine."
    )
    grouped = doc("topic-film-magazin-seri/topic-festiv-documentari-film/harbour-festival", "Harbour Festival", text)
    verdict = judge_one(Question.parse(asked), grouped)
    assert verdict.grade == "partial" and "documentary, film, festival" in verdict.reason
    nested = doc("topic-festiv-documentari-film/harbour-festival/programme", "Programme", text)
    assert judge_one(Question.parse(asked), nested).grade == "no"
    # A body saying none of the things the question names is about another one (another contract of the
    # group than the one asked about), whatever words of the group it says.
    named = asked.replace("British journal", "Kestrel Review")
    assert judge_one(Question.parse(named), grouped).grade == "no"
    # Said together, in one passage (the bar a relevant body's best passage meets): words each member of the
    # group may say somewhere, scattered over a body about something else, are no evidence.
    scattered = (
        "The documentary film programme opened in 1990. The town has a harbour. Boats arrive daily. Fishermen "
        "sell their catch. It comes every month. The event is presented with a magazine. Visitors like it. "
        "An annual prize is given."
    )
    apart = doc("topic-film-magazin-seri/topic-festiv-documentari-film/harbour-festival", "Harbour Festival", scattered)
    assert judge_one(Question.parse(asked), apart).grade == "no"


def test_judge_one_word_of_a_named_run_inside_another_title_names_nothing() -> None:
    """ "Remark" of "Remark Holdings" written into "Remarketing Agreement" is not the company the question names."""
    asked = "Does the Remark Holdings content license agreement restrict a party from competing?"
    page = doc("contracts/nuveen/remarketing-agreement", "Remarketing Agreement", "Nuveen appoints the agent.")
    assert judge_one(Question.parse(asked), page).grade == "no"


def test_judge_a_title_the_question_spells_out_is_about_what_it_names() -> None:
    """A title with lowercase words is no run of names, but the question may say it word for word."""
    asked = (
        "Which American audio engineer and clandestine chemist, a key figure in the hippie movement of the "
        "1960s, recorded the album Old and in the Way?"
    )
    page = doc("music/lp", "Old and in the Way (album)", "A 1975 bluegrass record made live.")
    verdict = judge_one(Question.parse(asked), page)
    assert verdict.grade == "partial" and "which the question names" in verdict.reason
    # The same words said in passing are not the title: "old" and "way" alone are no name.
    passing = (
        "Which American audio engineer and clandestine chemist, a key figure in the hippie movement of the "
        "1960s, recorded an old album in the way bands did?"
    )
    assert judge_one(Question.parse(passing), page).grade == "no"


def test_judge_units_no_body_of_the_bundle_says_do_not_count(tmp_path: Path) -> None:
    vocab = vocabulary(tmp_path, {stem("vacation"): 5, stem("day"): 30, stem("new"): 40, stem("hire"): 10})
    question = Question.parse("How many vacation days do new hires get, per the handbook's zorblax rules?", vocab)
    verdict = judge_one(question, doc("hr/pto", "Paid time off", "New hires get 15 vacation days a year."))
    assert verdict.grade == "relevant"


def test_judge_verdict_depends_on_the_body_alone_not_on_its_batch() -> None:
    question = Question.parse(QUESTION)
    target = doc("hr/pto", "PTO", "New hires get 15 vacation days. Days accrue monthly.")
    others = [doc(f"x/{i}", "Days", f"Days {i} of the new year and vacation plans.") for i in range(6)]
    alone = judge_all(question, [target])[0]
    batched = judge_all(question, [*others, target])[-1]
    assert (alone.grade, alone.reason) == (batched.grade, batched.reason)


def test_judge_verdicts_follow_document_order_and_ids() -> None:
    documents = [doc("a", "A", "New hires get 15 vacation days."), doc("b", "B", "Unrelated text about trucks.")]
    verdicts = run(OfflineReader().judge(QUESTION, documents)).verdicts
    assert [v.id for v in verdicts] == ["a", "b"] and [v.grade for v in verdicts] == ["relevant", "no"]


def test_judge_question_without_content_words() -> None:
    assert judge_one(Question.parse("What is it?"), doc("a", "A", "text")).grade == "no"


def test_judge_reads_each_body_once_per_sha256(monkeypatch: pytest.MonkeyPatch) -> None:
    from okf.readers import offline

    calls = []
    real = offline.read_body
    monkeypatch.setattr(offline, "read_body_once", lambda text: calls.append(text) or real(text))
    reader = OfflineReader()
    document = Document(id="a", title="A", text="New hires get 15 vacation days.", sha256="f" * 64)
    run(reader.judge(QUESTION, [document]))
    run(reader.judge("Another question about vacation?", [document]))
    assert len(calls) == 1


def test_judge_is_fast_enough() -> None:
    reader = OfflineReader()
    body = ("New employees accrue paid time off each month of service. " * 40 + "\n") * 10
    documents = [Document(id=f"d{i}", title=f"D{i}", text=body + str(i), sha256=f"{i:064x}") for i in range(120)]
    started = time.process_time()
    run(reader.judge(QUESTION, documents))
    run(reader.judge(QUESTION, documents))  # bodies cached by sha256
    assert time.process_time() - started < 5.0  # generous: a regression guard against quadratic scans


# --- answer ---

EVIDENCE = [
    Evidence(
        id="c1",
        title="Paid Time Off",
        text="# PTO\n\nNew hires get 15 vacation days per year.\nDays accrue monthly from the first day of work.",
    ),
    Evidence(id="c2", title="Holidays", text="The company observes ten paid holidays.\nOffices close early."),
]


def test_answer_quotes_the_best_sentences_and_cites_them() -> None:
    draft = answer_from(Question.parse(QUESTION), EVIDENCE)
    assert "15 vacation days" in draft.text and draft.cited == ["c1"] and not draft.partial


def test_answer_partial_names_uncovered_words() -> None:
    draft = answer_from(Question.parse("How many vacation days and parking spots do new hires get?"), EVIDENCE)
    assert draft.partial and "parking" in draft.missing


def test_answer_empty_when_nothing_matches() -> None:
    draft = answer_from(Question.parse("What is the escrow agent's fee?"), EVIDENCE)
    assert draft.text == "" and draft.cited == []


def test_answer_a_lead_in_or_a_heading_does_not_answer() -> None:
    evidence = [
        Evidence(
            id="c1",
            title="Plugins",
            text="# Installing the plugin\n\nTo install the plugin, "
            "complete the following steps:\n\n1. Open the console.",
        )
    ]
    draft = answer_from(Question.parse("What are the steps to install the plugin?"), evidence)
    assert draft.partial and draft.missing


def test_answer_to_a_how_many_question_needs_a_figure() -> None:
    evidence = [Evidence(id="c1", title="Leave", text="New hires get vacation days after the introductory period.")]
    draft = answer_from(Question.parse(QUESTION), evidence)
    assert draft.partial and "figure" in draft.missing


# --- the reader and the scripted reader ---


def test_offline_reader_is_a_reader_named_offline() -> None:
    assert isinstance(OfflineReader(), Reader) and OfflineReader().name == "offline"


# --- scripted reader ---


def test_scripted_reader_shorthands_and_counts() -> None:
    offers = [offer(0, "a/", "A"), offer(1, "b/", "B")]
    docs = [doc("x", "X", "x"), doc("y", "Y", "y")]
    reader = ScriptedReader(select=["b/"], judge={"x": True, "y": None}, answer="It is so.", name="s1")
    assert isinstance(reader, Reader) and reader.name == "s1"
    assert [c.index for c in run(reader.select("q", offers)).choices] == [1]
    verdicts = run(reader.judge("q", docs)).verdicts
    assert verdicts[0].relevant is True and verdicts[1].failed and verdicts[1].relevant is None
    draft = run(reader.answer("q", [Evidence(id="E1", title="t", text="x")]))
    assert draft.text == "It is so." and draft.cited == ["E1"]
    assert reader.calls == {"select": 1, "judge": 1, "answer": 1, "decompose": 0, "leaf": 0}


def test_scripted_reader_async_callables_latency_and_concurrency() -> None:
    async def judge(question: str, documents: list[Document]) -> list[Verdict]:
        return [Verdict(id=d.id, relevant=d.id == "x") for d in documents]

    reader = ScriptedReader(select=lambda q, s: Selection(), judge=judge, answer=DraftAnswer(text="t"), latency=0.05)

    async def main() -> list[bool | None]:
        results = await asyncio.gather(*(reader.judge("q", [doc("x", "X", "x")]) for _ in range(4)))
        return [r.verdicts[0].relevant for r in results]

    start = time.perf_counter()
    assert run(main()) == [True] * 4
    assert time.perf_counter() - start < 0.19  # the four calls overlapped
    assert reader.max_in_flight == 4 and reader.calls["judge"] == 4


def test_scripted_reader_defaults_to_offline_decisions() -> None:
    reader = ScriptedReader()
    selection = run(reader.select(QUESTION, [offer(0, "hr/", "Vacation"), offer(1, "x/", "Other")]))
    assert [c.index for c in selection.choices] == [0] and reader.calls["select"] == 1


def test_select_a_two_way_choice_keeps_both_sides() -> None:
    # One side says the question strongly; the other says part of it: in a short listing it is read on too,
    # faintly (a little of the question and no word that tells the two apart).
    offers = [
        offer(0, "a/", "Vacation and holidays", "New hires get vacation days and holidays."),
        offer(1, "b/", "Payroll", "Pay days for new staff."),
    ]
    assert kept(QUESTION, offers) == {0: "strong", 1: "faint"}


def test_select_grades_by_how_much_of_what_the_listing_tells_apart_an_entry_says() -> None:
    # Neither entry says enough to be sure. One carries a word of the question few entries carry (a lead):
    # weak; one says only a word every entry carries: faint. Faint choices are read after weak ones.
    offers = [
        offer(0, "a/", "Leave", "Annual leave for staff, hires and contractors."),
        offer(1, "b/", "Onboarding", "Hires get a laptop, a badge and a mentor."),
        offer(2, "c/", "Payroll", "Pay dates for staff and hires."),
        offer(3, "d/", "Travel", "Trips, hires of cars and hotels."),
        offer(4, "e/", "Security", "Badges and hires' access."),
        offer(5, "f/", "Benefits", "Pension and health plans for hires."),
        offer(6, "g/", "Holidays", "Public holidays and vacation days off."),
    ]
    grades = kept(QUESTION, offers)
    assert grades.get(6) in ("strong", "weak") and grades.get(1) == "faint", grades


def test_select_a_common_defined_term_does_not_make_an_exclusive_choice(tmp_path: Path) -> None:
    vocab = vocabulary(
        tmp_path,
        {
            stem("financial"): 300,
            stem("institution"): 250,
            stem("sanction"): 20,
            "adaptimmun": 3,
            stem("therapeutics"): 5,
        },
        concepts=1000,
    )
    offers = [
        offer(0, "a/", "Sanctions", "Sanctions screening of clients."),
        offer(1, "b/", "Definitions", "Financial Institution means a bank."),
        offer(2, "c/", "Fees", "Annual fees."),
        offer(3, "d/", "Funds", "Fund managers."),
        offer(4, "e/", "Islamic", "Sharia boards."),
        offer(5, "f/", "Markets", "Listing rules."),
        offer(6, "g/", "Conduct", "Client classification."),
    ]
    question = "Which sanctions apply to a Financial Institution?"
    assert 0 in kept(question, offers, vocab)  # "Financial Institution" is used everywhere: it names nothing
    rare = [
        offer(0, "a/", "Adaptimmune Therapeutics alliance", "Alliance terms."),
        offer(1, "b/", "Sanctions", "Sanctions screening of clients."),
    ] + offers[2:]
    assert set(kept("Which sanctions apply to Adaptimmune Therapeutics?", rare, vocab)) == {0}


_WORDS = [
    "air-gapped",
    "airgapped",
    "cluster",
    "clusters",
    "Adaptimmune",
    "ADAPTIMMUNETHERAPEUTICSPLC",
    "Therapeutics",
    "PFP",
    "platform",
    "private",
    "financing",
    "operator",
    "StarredDropdown",
    "dropdown",
    "mirror",
    "mirrors",
    "or",
    "and",
    "the",
    "governing",
    "law",
    "Delaware",
    "termination",
    "terminate",
    "5.2",
    "notice",
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=8),
    st.lists(st.sampled_from(_WORDS), min_size=0, max_size=12),
)
def test_units_in_is_has_unit_of_every_unit(asked: list[str], text: list[str]) -> None:
    question = Question.parse(" ".join(asked) + "?")
    place = Field.of(" ".join(text))
    assert question.units_in(place) == {u.key for u in question.units if place.has_unit(u)}


_ANGLE_TEXTS = st.lists(
    st.sampled_from(
        [
            "How many vacation days do new hires get?",
            "vacation days",
            "Who approves international travel?",
            "What is the notice period for termination of the Acme agreement?",
            "Kiss and Tell",
            "",
        ]
    ),
    min_size=1,
    max_size=4,
)
_BODIES = [
    ("hr/leave", "Leave", "New hires get fifteen vacation days each year.\n\nDays carry over once."),
    ("travel/approval", "Travel approval", "International travel is approved by the finance director."),
    ("acme/termination", "Termination", "Either party may terminate the Acme agreement on 30 days notice."),
    ("films/kiss-and-tell", "Kiss and Tell", "Kiss and Tell is a 1945 film starring Shirley Temple."),
]


@settings(max_examples=40, deadline=None)
@given(angles=_ANGLE_TEXTS)
def test_judge_angles_is_judge_one_of_each_angle_the_first_best_speaking(angles: list[str]) -> None:
    """judge_angles words only the best angle's verdict: the same verdict, answers and bears as judging the
    body under every angle on its own."""
    rank = {"relevant": 2, "partial": 1, "no": 0}
    reader = OfflineReader()
    documents = [Document(id=i, title=t, text=x, sha256=str(n) * 64) for n, (i, t, x) in enumerate(_BODIES, 1)]
    got = asyncio.run(reader.judge_angles(angles[0], angles, documents)).verdicts
    for document, verdict in zip(documents, got):
        per = [judge_one(Question.parse(a), document) for a in angles]
        best = max(per, key=lambda v: rank[v.grade or "no"])
        assert verdict.model_copy(update={"answers": [], "bears": []}) == best
        assert verdict.answers == [i for i, v in enumerate(per) if v.grade == "relevant"]
        assert verdict.bears == [i for i, v in enumerate(per) if v.grade in ("relevant", "partial")]
