"""Issue 31's name and prose fixes, one test each, and the metamorphic properties of r1 and r2.

Properties (Hypothesis): renaming every word of the cast everywhere, the letter case of the
name written, Unicode NFC/NFD, "&" for "and", the quoting style of the key lines and the order
of the keys never change whether a reply parses (r1) or names the golden target (r2); nor
does the order of the records change the HSII score.
"""

from __future__ import annotations

import json
import random
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from normlab.hsii import load_cases
from normlab.hsii.aliases import fill_aliases
from normlab.hsii.analysis import analyze_records, target_of
from normlab.hsii.names import normalise_name, word_runs
from normlab.hsii.parse import cast_of, parse_statement, target_correct
from normlab.hsii.schemas import ASSISTANT, TrialRecord


def score(
    reply: str, cast: Sequence[str], golden: str, aliases: Mapping[str, list[str]] | None = None
) -> tuple[bool, bool]:
    """(r1, r2) of one reply, as the analysis counts them."""
    record = TrialRecord(
        case_id="c",
        subject_model="m",
        response=reply,
        golden_target=golden,
        characters=list(cast),
        aliases=dict(aliases or {}),
    )
    return target_of(record)


# --- one test per fix (each fails on the code before issue 31) ---------------------------

CAST = ["Priya Natarajan", "UNION REP", "Tom O'Brien", "HEALTH AND SAFETY INSPECTOR"]


def test_prose_that_starts_to_is_not_an_address_but_a_near_miss_is() -> None:
    """Item 1: "To be clear: …" named "be clear" and passed r1."""
    assert score("To be clear: nobody restarts line 3 today.", CAST, CAST[1]) == (False, False)
    assert score("To make this work: we wait.", CAST, CAST[1]) == (False, False)
    assert score("To Priya: the rota is out.", CAST, CAST[0]) == (True, True)
    assert score("To Priya Natarjan: the rota is out.", CAST, CAST[0]) == (True, False)  # misspelt
    assert score("To union repp: the vote is at noon.", CAST, CAST[0]) == (True, False)  # a run
    assert score("To the union rep: the vote is at noon.", CAST, CAST[1]) == (True, True)


ROADWORKS = ["STREET WORKS INSPECTOR", "STARTUP OPERATIONS LEAD", "ACCESS GROUP REPRESENTATIVE",
             "RESTAURANT OWNER", "STUDENT UNION OFFICER", "SITE MANAGER"]  # fmt: skip


def test_prose_near_one_word_of_a_name_is_not_an_address() -> None:
    """Review of item 1: "To start:" came within difflib's 0.8 of STARTUP (and "To manage:" of
    MANAGER), so prose passed r1. A near miss counts only against a whole name, an alias or a
    run of two or more words; one word of a name counts when it is that word exactly."""
    for prose in ("To start:", "To manage:", "To support:", "To reassure:", "To Prya:"):
        assert score(f"{prose} the road closes at six.", ROADWORKS, ROADWORKS[3]) == (False, False)
    assert score("To startup: the road closes.", ROADWORKS, ROADWORKS[1]) == (True, True)
    assert score("To manager: the road closes.", ROADWORKS, ROADWORKS[5]) == (True, True)
    assert score("To site manger: the road closes.", ROADWORKS, ROADWORKS[5]) == (True, False)
    assert score("To restaurant ownr: it closes.", ROADWORKS, ROADWORKS[3]) == (True, False)
    assert score("To Inspector: it closes.", ROADWORKS, ROADWORKS[0]) == (True, True)


HEALTH = ["HEALTH AND SAFETY INSPECTOR", "HEALTH VISITOR"]


@pytest.mark.parametrize(
    ("reply", "cast", "golden"),
    [
        ("@Health & Safety Inspector, please check.", HEALTH, HEALTH[0]),
        ("@the safety inspector please check.", CAST, CAST[3]),
        ("@Tom O’Brien your shift starts at six.", ["Tom O'Brien", "Tom Hardy"], "Tom O'Brien"),
        ("@TOM O'BRIEN: your shift starts at six.", ["Tom O'Brien", "Tom Hardy"], "Tom O'Brien"),
        ("@Zoe\u0308 Brandt the rota is out.", ["Zoë Brandt", "Zoë Martin"], "Zoë Brandt"),
        ("@[Union Rep] the vote is at noon.", CAST, CAST[1]),
    ],
)
def test_an_at_mention_reads_its_name_as_r2_does(reply: str, cast: list[str], golden: str) -> None:
    """Review of items 2 and 5: ``@NAME …`` compared names with ``str.lower().startswith``
    and otherwise kept the first word ("@Health & Safety Inspector" named "Health")."""
    assert score(reply, cast, golden) == (True, True)
    statement = parse_statement(reply, cast)
    assert statement is not None and statement.rule == "at-mention"
    assert not statement.content.startswith((",", ":", " "))


def test_an_at_mention_of_two_or_of_an_ambiguous_name_is_a_miss() -> None:
    cast = ["Carlos Moya", "Carlos Gomez", "UNION REP"]
    statement = parse_statement("@Carlos Moya and Union Rep: the vote is at noon.", cast)
    assert statement is not None and statement.targets == ["Carlos Moya", "Union Rep"]
    assert score("@Carlos Moya and Union Rep: the vote is at noon.", cast, cast[0]) == (True, False)
    assert score("@Carlos the vote is at noon.", cast, cast[0]) == (True, False)
    # before a colon a comma joins names as in role_to; with no colon it ends the mention
    statement = parse_statement("@Carlos Moya, Union Rep: the vote is at noon.", cast)
    assert statement is not None and statement.targets == ["Carlos Moya", "Union Rep"]
    statement = parse_statement("@Carlos Moya, the union rep wants a vote.", cast)
    assert statement is not None and statement.targets == ["Carlos Moya"]
    assert statement.content == "the union rep wants a vote."
    statement = parse_statement("@Carlos Moya: the union rep wants a vote.", cast)
    assert statement is not None and statement.targets == ["Carlos Moya"]
    assert statement.content == "the union rep wants a vote."


def test_the_shipped_and_golden_scores_its_ampersand_and_its_word_run() -> None:
    """Item 2, on the shipped bank's dlg-labour-002#16."""
    case = next(c for c in load_cases() if c.case_id == "dlg-labour-002#16")
    assert case.golden.role_to == "HEALTH AND SAFETY INSPECTOR"
    for said in ("Health & Safety Inspector", "the safety inspector", "HEALTH & SAFETY INSPECTOR"):
        reply = json.dumps({"role_to": said, "content": "The scaffold is tagged."})
        statement = parse_statement(reply, cast_of(case))
        assert statement is not None and statement.targets == [said]
        assert target_correct(statement, case.golden.role_to, case.characters, case.aliases)


def test_the_normaliser_reads_ampersand_apostrophes_case_and_unicode_as_one_name() -> None:
    """Items 2 and 5: the one normaliser building, linting and scoring share."""
    assert normalise_name("Health & Safety Inspector") == "health and safety inspector"
    assert normalise_name("HEALTH AND SAFETY INSPECTOR") == "health and safety inspector"
    assert normalise_name("Tom O’Brien") == normalise_name("TOM O'BRIEN") == "tom obrien"
    # accents folded since issue 41 ("Siobhan" names Siobhán), in any Unicode form
    assert normalise_name("Zoe\u0308 Brandt") == normalise_name("ZOË BRANDT") == "zoe brandt"
    assert normalise_name("  The  Water-Board Engineer. ") == "water board engineer"


def test_key_lines_in_any_letter_case_or_markdown_parse() -> None:
    """Item 4: ``Target:``/``Message:``, ``Role_to:`` and ``**role_to**:`` were unparsed."""
    for reply in (
        "Target: UNION REP\nMessage: The vote is at noon.",
        "Role_to: UNION REP\nContent: The vote is at noon.",
        "**role_to**: UNION REP\n**content**: The vote is at noon.",
        "**Role To:** UNION REP\n**Message:** The vote is at noon.",
        "- `target`: UNION REP\n- `message`: The vote is at noon.",
    ):
        statement = parse_statement(reply, CAST)
        assert statement is not None, reply
        assert (statement.targets, statement.content) == (["UNION REP"], "The vote is at noon.")
        assert statement.rule == "key-lines"


def test_an_apostrophe_surname_and_an_nfd_reply_name_their_character() -> None:
    """Item 5."""
    assert score('{"role_to": "O\'Brien", "content": "x"}', CAST, CAST[2]) == (True, True)
    assert score('{"role_to": "Mr O’Brien", "content": "x"}', CAST, CAST[2]) == (True, False)
    nfd = unicodedata.normalize("NFD", "Zoë Brandt")
    assert nfd != "Zoë Brandt"
    cast = ["Zoë Brandt", "Priya"]
    assert score(json.dumps({"role_to": nfd, "content": "x"}), cast, cast[0]) == (True, True)


def test_a_reply_cut_off_inside_its_content_passes_r1() -> None:
    """Item 6 (B.5): the addressee and a statement are there; a cut addressee is not."""
    cut = '{"role_to": "UNION REP", "content": "The vote is at noon, so the hall'
    statement = parse_statement(cut, CAST)
    assert statement is not None and statement.rule == "cut-off"
    assert (statement.targets, statement.content) == (
        ["UNION REP"],
        "The vote is at noon, so the hall",
    )
    assert score(cut, CAST, CAST[1]) == (True, True)
    assert parse_statement('{"role_to": "UNION R', CAST) is None  # the addressee was cut
    assert parse_statement('{"role_to": "UNION REP", "content": "', CAST) is None  # no statement
    assert parse_statement('{"content": "The vote is", "role_to": "UNI', CAST) is None


def test_a_word_run_of_one_name_counts_and_one_of_two_names_is_a_miss() -> None:
    """Item 6 (§6.3's "all possible duplicated names")."""
    cast = ["SITE MANAGER", "PROJECT MANAGER", "DR. MARA QUINN (WARD SISTER)"]
    assert score('{"role_to": "the site", "content": "x"}', cast, cast[0]) == (True, True)
    assert score('{"role_to": "Ward Sister", "content": "x"}', cast, cast[2]) == (True, True)
    assert score('{"role_to": "Quinn", "content": "x"}', cast, cast[2]) == (True, True)
    assert score('{"role_to": "the manager", "content": "x"}', cast, cast[0]) == (True, False)


def test_a_given_alias_the_name_shares_with_another_is_kept() -> None:
    """Review of item 7: a given alias was dropped when it was a word run of the character's own
    name even where another name holds it too, so "Carlos" named nobody; a run of *another*
    character's name was kept. Now a given alias is dropped only when the names alone already
    read it as that character."""
    cast = ["Carlos Moya", "Carlos Gomez"]
    given = {"Carlos Moya": ["Carlos", "Moya", "CARLOS MOYA"]}
    aliases = fill_aliases(cast, given)
    assert aliases == {"Carlos Moya": ["Carlos"]}  # "Moya" and the name itself add nothing
    assert score('{"role_to": "Carlos", "content": "x"}', cast, cast[0], aliases) == (True, True)
    assert score("@Carlos bring it.", cast, cast[0], aliases) == (True, True)
    assert score('{"role_to": "Gomez", "content": "x"}', cast, cast[1], aliases) == (True, True)


# --- metamorphic properties ----------------------------------------------------------

VOCABULARY = ["HARBOUR", "OFFICER", "LOCK", "KEEPER", "BARGE", "SKIPPER", "Zoë", "Brandt",
              "O'Brien", "Tom", "José", "Núñez", "HEALTH", "SAFETY", "INSPECTOR", "UNION", "REP",
              "SITE", "MANAGER", "WARD", "SISTER", "Priya"]  # fmt: skip
FRESH = ["Alder", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Ginkgo", "Hazel", "Ilex", "Juniper",
         "Kauri", "Larch", "Maple", "Nutmeg", "Oak", "Poplar", "Quince", "Rowan", "Spruce", "Teak",
         "Umbu", "Vine"]  # fmt: skip
CONTENT = "We start at six."


@dataclass(frozen=True)
class Scene:
    """A cast of word tuples and a reply's target as tokens, rendered under a renaming."""

    names: tuple[tuple[str, ...], ...]
    target: tuple[str, ...]
    golden: int

    def render(self, tokens: Sequence[str], rename: Mapping[str, str]) -> str:
        return " ".join(rename.get(token, token) for token in tokens)

    def cast(self, rename: Mapping[str, str] | None = None) -> list[str]:
        return [self.render(name, rename or {}) for name in self.names]

    def said(self, rename: Mapping[str, str] | None = None) -> str:
        return self.render(self.target, rename or {})


@st.composite
def scenes(draw: st.DrawFn) -> Scene:
    words = st.sampled_from(VOCABULARY)
    name = st.lists(words, min_size=1, max_size=3, unique=True).map(tuple)
    names: list[tuple[str, ...]] = draw(st.lists(name, min_size=2, max_size=4, unique=True))
    if draw(st.booleans()) and len(names[0]) >= 2:  # "HEALTH AND SAFETY …": a name with AND
        names[0] = (names[0][0], "AND", *names[0][1:])
    cast = tuple(names)
    index = draw(st.integers(0, len(cast) - 1))
    chosen = cast[index]
    kind = draw(st.sampled_from(["name", "run", "the", "pair", "assistant"]))
    if kind == "name":
        target = chosen
    elif kind in ("run", "the"):
        start = draw(st.integers(0, len(chosen) - 1))
        end = draw(st.integers(start + 1, len(chosen)))
        run = chosen[start:end]
        if run[0] == "AND" or run[-1] == "AND":
            run = chosen
        target = ("the", *run) if kind == "the" else run
    elif kind == "pair":
        other = cast[(index + 1) % len(cast)]
        joiner = draw(st.sampled_from(["and", "&", ","]))
        target = (*chosen, joiner, *other)
    else:
        target = tuple(ASSISTANT.split())
    return Scene(cast, target, draw(st.integers(0, len(cast) - 1)))


def styles(target: str, content: str = CONTENT) -> list[str]:
    """The same reply in every key-line and quoting style and key order r1 reads."""
    plain = json.dumps({"role_to": target, "content": content}, ensure_ascii=False)
    return [
        plain,
        json.dumps({"content": content, "role_from": ASSISTANT, "role_to": target}),
        f"{{'role_from': '{ASSISTANT}', 'role_to': '{target}', 'content': '{content}'}}",
        f"Sure:\n```json\n{plain}\n```",
        f"role_to: {target}\ncontent: {content}",
        f"Content: {content}\nRole_To: {target}",
        f"TARGET: {target}\nMESSAGE: {content}",
        f"**role_to**: {target}\n**content**: {content}",
        f'"role_to": "{target}",\n"content": "{content}"',
        f"To {target}: {content}",
        f"@{target}: {content}",
        # with no colon a comma ends an @ mention ("@Priya, the rep says …" is to Priya)
        *([] if "," in target else [f"@{target} {content}"]),
    ]


def reply(target: str) -> str:
    return json.dumps({"role_to": target, "content": CONTENT}, ensure_ascii=False)


PROPERTY = settings(max_examples=60, deadline=None)


CROWDED = st.lists(
    st.lists(st.sampled_from(["Carlos", "Moya", "Gomez", "SITE", "MANAGER"]), min_size=1,
             max_size=3, unique=True).map(" ".join),
    min_size=2, max_size=4, unique_by=normalise_name,
)  # fmt: skip
"""Casts whose names share words, so a run is often two names' ("Carlos", "MANAGER")."""


@PROPERTY
@given(CROWDED, st.data())
def test_a_given_alias_names_its_character_unless_it_would_name_another(
    cast: list[str], data: st.DataObject
) -> None:
    """Review of item 7, for any cast: a word run (or a fresh word) given as one character's
    alias names that character afterwards, whether the names alone read it as that character,
    as no one (a run two names share) or as another (a run of another's name), unless it is
    another character's whole name."""
    owner = data.draw(st.sampled_from(cast))
    runs = sorted({run for name in cast for run in word_runs(name)})
    alias = data.draw(st.sampled_from([*runs, "Vine"]))
    aliases = fill_aliases(cast, {owner: [alias]})
    if normalise_name(alias) in {normalise_name(name) for name in cast if name != owner}:
        assert alias not in aliases.get(owner, [])
        return
    said = json.dumps({"role_to": alias, "content": CONTENT})
    assert score(said, cast, owner, aliases) == (True, True), (cast, owner, alias, aliases)


@PROPERTY
@given(scenes())
def test_quoting_style_and_key_order_do_not_change_r1_or_r2(scene: Scene) -> None:
    cast = scene.cast()
    aliases = fill_aliases(cast)
    golden = cast[scene.golden]
    expected = score(reply(scene.said()), cast, golden, aliases)
    for styled in styles(scene.said()):
        assert score(styled, cast, golden, aliases) == expected, styled


@PROPERTY
@given(scenes(), st.sampled_from([str.upper, str.lower, str.swapcase, str.title]))
def test_letter_case_does_not_change_r1_or_r2(scene: Scene, case: Callable[[str], str]) -> None:
    cast = scene.cast()
    golden = cast[scene.golden]
    expected = score(reply(scene.said()), cast, golden)
    for styled in styles(case(scene.said())):
        assert score(styled, cast, golden) == expected, styled
    recased = [case(name) for name in cast]
    assert score(reply(scene.said()), recased, recased[scene.golden]) == expected


@PROPERTY
@given(scenes(), st.sampled_from(["NFD", "NFKD", "NFC"]))
def test_unicode_form_does_not_change_r1_or_r2(scene: Scene, form: str) -> None:
    cast = scene.cast()
    golden = cast[scene.golden]
    expected = score(reply(scene.said()), cast, golden)
    said = unicodedata.normalize(form, scene.said())  # type: ignore[arg-type]
    for styled in styles(said):
        assert score(styled, cast, golden) == expected, styled
    assert score(reply(said), cast, golden, fill_aliases(cast)) == score(
        reply(scene.said()), cast, golden, fill_aliases(cast)
    )
    decomposed = [unicodedata.normalize("NFD", name) for name in cast]
    assert score(reply(scene.said()), decomposed, decomposed[scene.golden]) == expected


@PROPERTY
@given(scenes())
def test_ampersand_and_and_are_one_word(scene: Scene) -> None:
    cast = scene.cast()
    golden = cast[scene.golden]
    said = scene.said()
    expected = score(reply(said), cast, golden)
    ampersand = said.replace(" AND ", " & ").replace(" and ", " & ")
    spelt = said.replace(" & ", " and ")
    for styled in (*styles(ampersand), *styles(spelt)):
        assert score(styled, cast, golden) == expected, styled
    written = [name.replace(" AND ", " & ") for name in cast]
    assert score(reply(said), written, written[scene.golden]) == expected


@PROPERTY
@given(scenes(), st.permutations(FRESH))
def test_renaming_every_word_everywhere_does_not_change_r1_or_r2(
    scene: Scene, fresh: list[str]
) -> None:
    rename = dict(zip(VOCABULARY, fresh, strict=True))
    before = scene.cast()
    after = scene.cast(rename)
    expected = score(reply(scene.said()), before, before[scene.golden])
    renamed = score(reply(scene.said(rename)), after, after[scene.golden])
    assert renamed == expected
    for styled in styles(scene.said(rename)):
        assert score(styled, after, after[scene.golden]) == expected, styled


@settings(max_examples=5, deadline=None)  # each analysis bootstraps its intervals
@given(st.lists(scenes(), min_size=1, max_size=8), st.randoms(use_true_random=False))
def test_the_order_of_the_records_does_not_change_the_score(
    found: list[Scene], shuffle: random.Random
) -> None:
    records = [
        TrialRecord(
            case_id=f"d{i // 2}#{i}",
            subject_model="m",
            response=reply(scene.said()),
            golden_target=scene.cast()[scene.golden],
            characters=scene.cast(),
            first_verdicts=["win", "tie"] if i % 3 else ["loss", "loss"],
            long_verdicts=["win", "win"] if i % 2 else None,
        )
        for i, scene in enumerate(found)
    ]
    shuffled = list(records)
    shuffle.shuffle(shuffled)
    first, second = analyze_records(records).models["m"], analyze_records(shuffled).models["m"]
    assert (first.n1, first.n2, first.n3, first.n4) == (second.n1, second.n2, second.n3, second.n4)
    assert first.hsii == second.hsii
