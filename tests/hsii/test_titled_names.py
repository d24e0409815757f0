"""Issue 41, item 10: title + surname names a character (the README's reading of §6.3's
"covers all possible duplicated names"), whatever the full stop, letter case, Unicode form
or accents; and an ambiguous one stays a miss.

Property (Hypothesis): for any cast of titled people, "TITLE SURNAME" resolves to the one
character whose title and surname they are, or to no one when two share them; writing it
with or without the title's full stop, in any letter case, in NFC or NFD, or without its
accents resolves the same.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from normlab.core.text import fold
from normlab.hsii.names import Cast, titled_surnames
from normlab.hsii.parse import parse_statement

SURNAMES = ["Ní Bhriain", "Van der Berg", "de la Cruz", "Mac Giolla", "O'Neill", "Quinn",
            "Ó Súilleabháin", "Nakamura"]  # fmt: skip
"""No surname is another's last words, so a title + surname is one surname's."""
GIVEN = ["Siobhán", "Pádraig", "Anneke", "Luis", "Mara", "Zoë"]
TITLES = {"Dr.": "dr", "Prof.": "prof", "Ms.": "ms", "Doctor": "dr", "Mr": "mr"}
"""Each title as the cast may write it, and which title it is ("Doctor" is "Dr")."""


@pytest.mark.parametrize(
    ("said", "surname"),
    [
        ("Dr Ní Bhriain", "Ní Bhriain"),
        ("Dr. Ní Bhriain", "Ní Bhriain"),
        ("dr ni bhriain", "Ní Bhriain"),
        ("Doctor Van der Berg", "Van der Berg"),
        ("Dr. van der Berg", "Van der Berg"),
        ("Dr de la Cruz", "de la Cruz"),
        ("Dr Mac Giolla", "Mac Giolla"),
        ("Dr O'Neill", "O'Neill"),
        ("Dr O’Neill", "O'Neill"),
    ],
)
def test_a_title_and_a_surname_of_one_name_is_that_character(said: str, surname: str) -> None:
    cast = Cast.of([f"Dr. Siobhán {surname}", "Dr. Mara Quinn", "SITE MANAGER"])
    assert cast.resolve(said) == f"Dr. Siobhán {surname}"
    reply = parse_statement(f"To {said}: bed four is ready.", cast)
    assert reply is not None and reply.targets == [said]


def test_the_accents_are_folded_in_every_name() -> None:
    cast = Cast.of(["Dr. Siobhán Ní Bhriain", "CAFÉ OWNER"])
    assert cast.resolve("Siobhan Ni Bhriain") == "Dr. Siobhán Ní Bhriain"
    assert cast.resolve("cafe owner") == "CAFÉ OWNER"


def test_two_people_who_share_title_and_surname_are_a_miss() -> None:
    cast = Cast.of(["Dr. Siobhán Ní Bhriain", "Dr. Pádraig Ní Bhriain"])
    assert cast.resolve("Dr Ní Bhriain") is None
    assert cast.owners("Dr Ní Bhriain") == set(cast.characters)  # still an address, a miss


def test_a_post_and_another_title_are_no_title_and_surname() -> None:
    """A post ("CHIEF FINANCE OFFICER") is no Chief Officer; "Prof Ní Bhriain" is not Dr."""
    assert titled_surnames("CHIEF FINANCE OFFICER") == frozenset()
    cast = Cast.of(["Dr. Siobhán Ní Bhriain", "UNION REP"])
    assert cast.resolve("Prof Ní Bhriain") is None
    assert titled_surnames("DR. MARA QUINN (WARD SISTER)") == {"dr quinn"}


@st.composite
def casts(draw: st.DrawFn) -> tuple[list[str], int, str]:
    """Titled people (some sharing a title and surname), one of them addressed, and the
    title the address is written with (the cast's, or its other form)."""
    people = draw(
        st.lists(
            st.tuples(st.sampled_from(list(TITLES)), st.sampled_from(GIVEN),
                      st.sampled_from(SURNAMES)),
            min_size=2, max_size=4, unique_by=lambda p: (p[1], p[2]),
        )
    )  # fmt: skip
    index = draw(st.integers(0, len(people) - 1))
    kind = TITLES[people[index][0]]
    written = draw(st.sampled_from([t for t, k in TITLES.items() if k == kind]))
    return [" ".join(person) for person in people], index, f"{written} {people[index][2]}"


FORMS: list[Callable[[str], str]] = [
    lambda s: s,
    lambda s: s.replace(".", "", 1),  # the title's full stop dropped
    lambda s: s.split()[0].rstrip(".") + ". " + " ".join(s.split()[1:]),  # one added
    str.upper,
    str.lower,
    str.title,
    lambda s: unicodedata.normalize("NFD", s),
    lambda s: unicodedata.normalize("NFC", s),
    lambda s: fold(s, strip_accents=True),  # typed without accents (and casefolded)
]


@settings(max_examples=150, deadline=None)
@given(casts(), st.sampled_from(FORMS))
def test_title_and_surname_resolve_alike_in_every_spelling(
    drawn: tuple[list[str], int, str], form: Callable[[str], str]
) -> None:
    names, index, said = drawn
    person = names[index].split(maxsplit=2)
    sharing = [
        name
        for name in names
        if TITLES[name.split()[0]] == TITLES[person[0]] and name.split(maxsplit=2)[2] == person[2]
    ]
    expected = names[index] if len(sharing) == 1 else None
    cast = Cast.of(names)
    assert cast.resolve(said) == expected, (names, said)
    assert cast.resolve(form(said)) == expected, (names, form(said))
    decomposed = Cast.of([unicodedata.normalize("NFD", name) for name in names])
    assert decomposed.resolve(form(said)) == (
        None if expected is None else unicodedata.normalize("NFD", expected)
    )
