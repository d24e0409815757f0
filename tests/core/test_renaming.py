"""Renaming reads names as a person is written (issue 41 items 3, 5, 6, 8): names that are
words renamed only where they are the name, titles kept, every part of a name mapped alike,
accents folded, pronouns fitted; and as properties, what must not change a rename."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from normlab.core.namebank import GIVEN
from normlab.core.namewords import NameOrWord, Reading, read
from normlab.core.renaming import fresh_names, name_parts


def _rename(names: list[str], *texts: str) -> list[str]:
    renaming = fresh_names(names, "rename:1:item", texts, item="item")
    return [renaming.text(text) for text in texts]


# --- names that are words (item 3) ---------------------------------------------------------


def test_a_modal_and_a_month_are_words_where_they_stand() -> None:
    # Before: "Goran this be sorted by the end of Seamus?".
    text = "Will this be sorted by the end of May?"
    assert _rename(["Will", "May"], text) == [text]


def test_a_month_after_a_preposition_or_beside_a_number_is_the_month() -> None:
    for text in ("room four in May", "due May 5", "on 5 May", "Early May works"):
        assert _rename(["MAY", "May"], text) == [text], text


def test_a_vocative_and_a_subject_are_the_name() -> None:
    renaming = fresh_names(["Will", "Grace"], "rename:1:item", [], item="item")
    will, grace = renaming.names["Will"], renaming.names["Grace"]
    assert renaming.text("Will, can you check?") == f"{will}, can you check?"
    assert renaming.text("as Will said, ask Grace") == f"as {will} said, ask {grace}"
    assert renaming.text("Grace asked first") == f"{grace} asked first"
    assert renaming.text("thanks grace") == f"thanks {grace.lower()}"
    assert renaming.text("I will ask; grace under pressure") == "I will ask; grace under pressure"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("Sandy", "built on sandy foundations"),
        ("Norm", "that's the norm here"),
        ("Iris", "the iris scanner"),
        ("Lily", "a lily pad"),
        ("Amber", "amber alert"),
        ("Dale", "up hill and down dale"),
        ("Glen", "a quiet glen"),
        ("Brook", "we will not brook delays"),
        ("Hope", "Hope you're well"),
        ("Mark", "Mark this as done"),
        ("Sandy", "Sandy soil drains"),
        ("Will", "I WILL do it"),
    ],
)
def test_words_stay_words(name: str, text: str) -> None:
    assert _rename([name], text) == [text]


def test_an_occurrence_not_told_is_refused() -> None:
    with pytest.raises(NameOrWord, match="item: cannot tell whether 'Will' in 'Will check"):
        _rename(["Will"], "Will check the logs")
    assert read("ask the Grace team", 8, 13) is Reading.UNTOLD


# --- titles and name parts (items 5, 6, 10) ------------------------------------------------


def test_a_title_is_kept_and_never_mapped() -> None:
    # Before: "Dr. Lee" -> "Makoa …", and "Dr. Okafor from payments" -> "Makoa Okafor".
    renaming = fresh_names(["Dr. Lee", "Priya Sharma"], "rename:1:item", [], item="item")
    new_lee = renaming.names["Dr. Lee"]
    assert new_lee.startswith("Dr. ") and "Lee" not in new_lee
    assert renaming.text("Dr. Okafor from payments") == "Dr. Okafor from payments"
    assert "Dr" not in renaming.names and "Dr." not in renaming.names


def test_every_way_a_person_is_written_is_renamed_alike() -> None:
    cast = ["Priya Sharma", "Dr. Siobhán Ní Bhriain", "Tom"]
    renaming = fresh_names(cast, "rename:1:item", [], item="item")
    given, family = renaming.names["Priya Sharma"].split()
    assert renaming.text("Priya") == given
    assert renaming.text("Dr. Sharma said") == f"Dr. {family} said"
    siobhan = renaming.names["Dr. Siobhán Ní Bhriain"]
    _, new_given, new_family = siobhan.split()
    assert renaming.text("Dr Ní Bhriain and Dr Ni Bhriain") == (
        f"Dr {new_family} and Dr {new_family}"
    )
    assert renaming.text("Siobhan, SIOBHÁN") == f"{new_given}, {new_given.upper()}"


def test_a_shared_family_name_stays_shared() -> None:
    renaming = fresh_names(["Aaliyah Brooks", "Ben Brooks"], "s", [], item="item")
    assert renaming.names["Aaliyah Brooks"].split()[1] == renaming.names["Ben Brooks"].split()[1]


def test_name_parts() -> None:
    assert name_parts("DR. MARA QUINN (WARD SISTER)").titles == ("DR.",)
    assert name_parts("DR. MARA QUINN (WARD SISTER)").suffix == " (WARD SISTER)"
    assert name_parts("Dr. Lee").family == "Lee" and name_parts("Dr. Lee").given is None
    assert name_parts("KILNFORD HEADTEACHER", roles=True).role
    assert name_parts("UPPER BRAE PARENTS' CHAIR", roles=True).role
    # In HSII's cast a rank before English words only is a post, not a titled person.
    assert name_parts("CHIEF FINANCE OFFICER", roles=True).role
    assert name_parts("Captain Hook").titles == ("Captain",)


# --- accents and pronouns (item 8) ---------------------------------------------------------


def test_accents_are_folded_when_matching() -> None:
    renaming = fresh_names(["José"], "rename:1:item", [], item="item")
    new = renaming.names["José"]
    decomposed = unicodedata.normalize("NFD", "José")
    assert renaming.text(f"José, Jose, JOSÉ, {decomposed}") == (
        f"{new}, {new}, {new.upper()}, {new}"
    )


def test_a_drawn_name_fits_the_pronouns_the_text_uses() -> None:
    relationships = [
        "The SAFETY OFFICER runs the site; she will not allow it.",
        "The COACH trains the team. He wants a win.",
    ]
    for seed in range(20):
        renaming = fresh_names(
            ["SAFETY OFFICER", "COACH"], f"s{seed}", relationships, drop_article=True
        )
        officer = renaming.names["SAFETY OFFICER"].split()[0].title()
        coach = renaming.names["COACH"].split()[0].title()
        assert GIVEN[officer] in ("f", "n") and GIVEN[coach] in ("m", "n"), seed
    # A title fits pronouns too: "Mrs" draws a name that fits "she".
    for seed in range(20):
        given_name = fresh_names(["Mrs. Ada Obi"], f"s{seed}", []).names["Mrs. Ada Obi"].split()[1]
        assert GIVEN[given_name] in ("f", "n")


# --- properties ----------------------------------------------------------------------------

CAST = ("Will", "Grace", "José", "Priya Sharma", "Dr. Lee")
WORDS = st.sampled_from(
    ("and", "then", "asked", "the", "export", "by", "end", "of", "May", "will", "grace", ",",
     "?", ".", "🙏", "Dr.", "Okafor", "she", "said")
)  # fmt: skip
TOKENS = st.lists(st.one_of(st.sampled_from(("Priya", "Sharma", "José", "Dr. Lee")), WORDS))


def _safe(text: str) -> str | None:
    try:
        return fresh_names(list(CAST), "s", [], item="x").text(text)
    except NameOrWord:
        return None


@given(TOKENS)
def test_unicode_form_does_not_change_a_rename(tokens: list[str]) -> None:
    text = " ".join(tokens)
    nfc, nfd = _safe(unicodedata.normalize("NFC", text)), _safe(unicodedata.normalize("NFD", text))
    assert (nfc is None) == (nfd is None)
    if nfc is not None and nfd is not None:
        assert unicodedata.normalize("NFC", nfd) == nfc


@given(TOKENS)
def test_lower_case_words_and_titles_are_never_renamed(tokens: list[str]) -> None:
    text = " ".join(tokens)
    renamed = _safe(text)
    if renamed is None:
        return
    for kept in (" will ", " grace ", "Dr.", " by the end of May"):
        assert renamed.count(kept) >= text.count(kept) - text.count(f"thanks{kept}"), kept


# --- held-out-style probes (a second read's 74 cases; those that failed once) ---------------


@pytest.mark.parametrize(
    ("names", "text"),
    [
        (["Hope"], "Hope so."),
        (["Sandy"], "we went to sandy beaches."),
        (["Grace"], "With grace, she declined."),
        (["Will", "May"], "She wrote 'Will this be sorted by the end of May?'"),
        (["Will", "May"], "She wrote ‘Will this be sorted by the end of May?’"),
        (["Will"], "I WILL do it"),
    ],
)
def test_more_words_stay_words(names: list[str], text: str) -> None:
    assert _rename(names, text) == [text]


def test_a_compound_noun_is_not_told() -> None:
    with pytest.raises(NameOrWord, match="'Grace' in 'Grace period ends"):
        _rename(["Grace"], "Grace period ends Friday.")


def test_capitals_and_and_read_as_the_written_name() -> None:
    renaming = fresh_names(["Will", "May", "Dr. Lee", "Priya"], "s", [], item="item")
    will, may, priya = (renaming.names[n] for n in ("Will", "May", "Priya"))
    lee = renaming.names["Dr. Lee"].split()[1]
    assert renaming.text("Will & May are here.") == renaming.text("Will and May are here.").replace(
        " and ", " & "
    )
    assert renaming.text("GRACE ASKED FIRST. WILL, ASK PRIYA.") == (
        f"GRACE ASKED FIRST. {will.upper()}, ASK {priya.upper()}."
    )
    assert renaming.text("DR LEE signed.") == f"DR {lee.upper()} signed."
    assert renaming.text("the Priya-approved fix") == f"the {priya}-approved fix"
    assert may not in renaming.text("back in May")


def test_ranks_and_curly_apostrophes() -> None:
    renaming = fresh_names(["Captain Hook", "Mr O'Neill"], "s", [], item="item")
    hook = renaming.names["Captain Hook"]
    assert hook.startswith("Captain ") and renaming.text("Hook said so.") == (
        f"{hook.split()[1]} said so."
    )
    neill = renaming.names["Mr O'Neill"].split()[1]
    assert renaming.text("Mr O’Neill said") == f"Mr {neill} said"


def test_an_hsii_person_in_capitals_has_parts() -> None:
    assert not name_parts("WILL HARPER", roles=True).role
    assert not name_parts("PRIYA LEE", roles=True).role
    assert name_parts("WARD SISTER", roles=True).role
    renaming = fresh_names(["WILL HARPER"], "s", [], family=True, drop_article=True)
    given, family = renaming.names["WILL HARPER"].split()
    assert renaming.text("WILL, ask HARPER.") == f"{given}, ask {family}."


def test_a_bios_pronoun_is_its_members() -> None:
    for seed in range(20):
        renaming = fresh_names(
            ["Chloe", "Javi"],
            f"s{seed}",
            [],
            about={"Chloe": ["She is on call."], "Javi": ["He leads."]},
        )
        assert GIVEN[renaming.names["Chloe"]] in ("f", "n") and GIVEN[renaming.names["Javi"]] in (
            "m",
            "n",
        )


@given(TOKENS)
def test_capitals_of_the_whole_text_do_not_change_a_rename(tokens: list[str]) -> None:
    """Capitals carry no case of their own: a text in capitals renames as the same text with
    its words capitalised (a word in lower case is another text: "will" is the word)."""
    assume(not any(token[:1].islower() for token in tokens))
    text = " ".join(tokens)
    mixed, upper = _safe(text), _safe(text.upper())
    assert (mixed is None) == (upper is None)
    if mixed is not None and upper is not None:
        assert upper == mixed.upper()
