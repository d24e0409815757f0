"""r1's lenient parser on every listed form and on replies that must fail; r2's name matching."""

from __future__ import annotations

import pytest

from normlab.hsii.parse import cast_of, parse_statement, resolve_target, target_correct

GOOD = [
    ('{"role_from": "Intelligent Assistant", "role_to": "F", "content": "Here."}', "json"),
    ("{'role_from': 'Intelligent Assistant', 'role_to': 'F', 'content': 'Here.'}", "python-dict"),
    ('Sure:\n```json\n{"role_to": "F", "content": "Here."}\n```', "fenced"),
    ("```\n{'to': 'F', 'message': 'Here.'}\n```", "fenced"),
    ('Let me think. My reply: {"role_to": "F", "content": "Here."} Hope it helps.', "json"),
    ('{"role_to": "F", "content": "Here.",}', "python-dict"),  # trailing comma
    ("{“role_to”: “F”, “content”: “Here.”}", "repaired"),  # curly quotes
    ('{"role-to": "F", "statement": "Here."}', "json"),
    ('{"target": "F", "content": "Here."}', "json"),
    ('{"addressee": "F", "message": "Here."}', "json"),
    ('{"to": "F", "content": "Here."}', "json"),
    ("role_to: F\ncontent: Here.", "key-lines"),
    ("To F: Here.", "to-prefix"),
    ("**To F:** Here.", "to-prefix"),
    ("@F Here.", "at-mention"),
]


@pytest.mark.parametrize(("reply", "rule"), GOOD)
def test_every_listed_form_parses_and_names_its_rule(reply: str, rule: str) -> None:
    statement = parse_statement(reply, ["F", "G"])
    assert statement is not None, reply
    assert (statement.targets, statement.content, statement.rule) == (["F"], "Here.", rule)


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "I would talk to the coordinator about the meeting.",
        '{"role_to": "F"}',  # no content
        '{"content": "Here."}',  # no target
        '{"role_to": "", "content": "Here."}',
        '{"role_to": "F", "content": "   "}',
        "[1, 2, 3]",
        "{" * 5000,  # deep nesting
        "To: nobody",
    ],
)
def test_replies_without_target_and_statement_fail(reply: str) -> None:
    assert parse_statement(reply) is None


def test_role_from_is_ignored_and_several_addressees_are_kept() -> None:
    cast = ["F", "G", "H"]
    statement = parse_statement('{"role_from": "F", "role_to": "G and H", "content": "x"}', cast)
    assert statement is not None and statement.targets == ["G", "H"]
    assert not target_correct(statement, "G", cast)


def test_a_name_with_and_in_it_is_one_addressee_and_scores() -> None:
    """Issue 19: split at "and", "&", "/" or "," only where every part names the cast."""
    cast = ["HEALTH AND SAFETY INSPECTOR", "SITE MANAGER", "EDUCATION AND AGRICULTURE MINISTRIES"]
    for name in cast:
        reply = f'{{"role_to": "{name}", "content": "We are ready."}}'
        statement = parse_statement(reply, cast)
        assert statement is not None and statement.targets == [name]
        assert target_correct(statement, name, cast)
    both = parse_statement('{"role_to": "SITE MANAGER & HEALTH AND SAFETY INSPECTOR", '
                           '"content": "x"}', cast)  # fmt: skip
    assert both is not None and both.targets == ["SITE MANAGER", "HEALTH AND SAFETY INSPECTOR"]
    stranger = parse_statement('{"role_to": "SITE MANAGER and a guest", "content": "x"}', cast)
    assert stranger is not None and stranger.targets == ["SITE MANAGER and a guest"]


def test_the_prompts_own_single_quoted_style_parses_with_apostrophes() -> None:
    """Issue 19: the paper's example style, a value holding an apostrophe (B.5: "contains the
    essential elements")."""
    reply = (
        "{'role_from': 'Intelligent Assistant', 'role_to': 'G', "
        "'content': 'I'll send the report now.'}"
    )
    statement = parse_statement(reply, ["G", "H"])
    assert statement is not None
    assert (statement.targets, statement.content) == (["G"], "I'll send the report now.")
    assert statement.rule == "loose-dict"
    fenced = parse_statement(f"Sure:\n```\n{reply}\n```", ["G", "H"])
    assert fenced is not None and fenced.content == "I'll send the report now."


def test_at_mention_of_a_two_word_name_uses_the_known_names() -> None:
    statement = parse_statement("@Rafael Nadal sure, I will remind you.", ["Rafael Nadal"])
    assert statement is not None
    assert (statement.targets, statement.content) == (["Rafael Nadal"], "sure, I will remind you.")


CHARACTERS = ["WATER BOARD ENGINEER", "COOPERATIVE CHAIR", "Carlos Moya", "Rafael Nadal", "F"]
ALIASES = {"COOPERATIVE CHAIR": ["the chair", "chairwoman"], "F": ["the CFO"]}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("WATER BOARD ENGINEER", "WATER BOARD ENGINEER"),
        ("water board engineer", "WATER BOARD ENGINEER"),  # case
        ("  The  Water-Board Engineer. ", "WATER BOARD ENGINEER"),  # spacing, punctuation, the
        ("engineer", "WATER BOARD ENGINEER"),  # a last word no one else ends with
        ("Chairwoman", "COOPERATIVE CHAIR"),  # an alias
        ("the CFO", "F"),  # an alias
        ("Nadal", "Rafael Nadal"),  # a unique surname
        ("Rafael", "Rafael Nadal"),  # a unique first name
        ("Intelligent Assistant", None),  # the assistant itself
        ("the board", "WATER BOARD ENGINEER"),  # a word run only one name holds (issue 31)
        ("water engineer", None),  # not a run of the name: its words are not consecutive
        ("Roddick", None),  # not in the scene
    ],
)
def test_alias_and_name_matching(name: str, expected: str | None) -> None:
    assert resolve_target(name, CHARACTERS, ALIASES) == expected


def test_a_first_name_shared_by_two_characters_is_ambiguous() -> None:
    assert resolve_target("Carlos", ["Carlos Moya", "Carlos Gomez"]) is None
    assert resolve_target("Moya", ["Carlos Moya", "Carlos Gomez"]) == "Carlos Moya"


def test_every_shipped_golden_written_in_the_prompts_style_parses_and_scores() -> None:
    """Issue 19: 285 of the 477 shipped goldens hold an apostrophe and failed r1 when written in
    the paper's single-quoted style; every one parses, whole, and names its own target."""
    from normlab.hsii import load_cases
    from normlab.models.structured import strict_object

    cases = load_cases()
    no_literal = 0
    for case in cases:
        golden = case.golden
        reply = (
            f"{{'role_from': 'Intelligent Assistant', 'role_to': '{golden.role_to}', "
            f"'content': '{golden.content}'}}"
        )
        no_literal += strict_object(reply) is None
        statement = parse_statement(reply, cast_of(case))
        assert statement is not None, case.case_id
        assert statement.content == golden.content, case.case_id
        assert target_correct(statement, golden.role_to, case.characters, case.aliases)
    assert len(cases) == 477 and no_literal == 285
