"""Prompt variants' shared parts: the spec's grammar and its one-line errors, the instruction
file's check, the linter gate, and renaming (consistent, seeded, never a word of the item)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from normlab.core.errors import InputError
from normlab.core.namewords import is_word
from normlab.core.renaming import (
    FAMILY_NAMES,
    GIVEN_NAMES,
    Renaming,
    fresh_names,
)
from normlab.core.templates import DOUBLE_BRACES, SINGLE_BRACES
from normlab.core.text import words
from normlab.core.variants import (
    KINDS,
    VariantSpec,
    added_findings,
    parse_variant,
    read_instruction,
    refuse_added,
)

ALL = tuple(KINDS)


@pytest.mark.parametrize(
    ("text", "kind", "argument"),
    [
        ("paper", "paper", ""),
        (" rename:12 ", "rename", "12"),
        ("reorder:0", "reorder", "0"),
        ("format:key-lines", "format", "key-lines"),
        ("file:~/prompts/x.txt", "file", "~/prompts/x.txt"),
    ],
)
def test_good_specs(text: str, kind: str, argument: str) -> None:
    spec = parse_variant(text, ALL, ("json", "key-lines"))
    assert (spec.kind, spec.argument) == (kind, argument)
    assert spec.text == text.strip()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "a variant is one of paper, file:PATH"),
        ("renamed:1", "unknown variant 'renamed:1'; losona takes: paper, rename:SEED"),
        ("rename", "rename needs its SEED (rename:SEED)"),
        ("rename:one", "rename takes a whole-number seed (rename:1), got 'one'"),
        ("rename:-1", "whole-number seed"),
        ("paper:2", "paper takes no argument"),
        ("format:yaml", "unknown format 'yaml'; choose from json, key-lines"),
        ("reorder:1", "losona takes: paper, rename:SEED"),
    ],
)
def test_bad_specs_are_one_line_errors(text: str, message: str) -> None:
    kinds = ("paper", "rename", "format") if "reorder" in text or "renamed" in text else ALL
    with pytest.raises(InputError) as error:
        parse_variant(text, kinds, ("json", "key-lines"), system="losona")
    line = error.value.one_line()
    assert message in line and "\n" not in line and "--variant" in line


def test_slugs_name_a_folder() -> None:
    assert VariantSpec("rename", "3").slug == "rename-3"
    assert VariantSpec("format", "key-lines").slug == "format-key-lines"
    assert VariantSpec("file", "/x/y/Reworded prompt.txt").slug == "file-Reworded-prompt"
    assert VariantSpec("paper").slug == "paper"


def test_an_instruction_file_must_hold_the_papers_placeholders(tmp_path: Path) -> None:
    paper = "You are {subject}.\n- {name}: {bio}\n{transcript}"
    good = tmp_path / "good.txt"
    good.write_text("Hi {subject}, here:\n- {name}: {bio}\n\n{transcript}\n", encoding="utf-8")
    spec = VariantSpec("file", str(good))
    text = read_instruction(spec, paper, SINGLE_BRACES, ["- {name}: {bio}"])
    assert text.endswith("{transcript}")  # the final newline dropped, as prompt files are read
    cases = {
        "lacks.txt": ("You are {subject}.\n- {name}: {bio}", "placeholder(s): transcript"),
        "extra.txt": ("{subject} {norm}\n- {name}: {bio}\n{transcript}", "does not fill: norm"),
        "line.txt": ("{subject} - {name}: {bio} {transcript}", "lacks the line '- {name}: {bio}'"),
    }  # fmt: skip
    for name, (content, message) in cases.items():
        path = tmp_path / name
        path.write_text(content, encoding="utf-8")
        with pytest.raises(InputError) as error:
            read_instruction(
                VariantSpec("file", str(path)), paper, SINGLE_BRACES, ["- {name}: {bio}"]
            )
        assert message in error.value.one_line() and str(path) in error.value.one_line()
    with pytest.raises(InputError, match="no such instruction file"):
        read_instruction(VariantSpec("file", str(tmp_path / "none.txt")), paper, SINGLE_BRACES)
    braces = tmp_path / "braces.txt"
    braces.write_text("{{norm}} stays out", encoding="utf-8")
    with pytest.raises(InputError, match="does not fill: norm"):
        read_instruction(VariantSpec("file", str(braces)), "no placeholders", DOUBLE_BRACES)


def test_an_instruction_path_that_is_no_file_says_what_it_is(tmp_path: Path) -> None:
    """A FIFO named as the instruction was called missing, which sends a user looking for a
    typo; a folder likewise. Each says what the path is (and the FIFO is never opened)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, message in ((fifo, "not a regular file"), (tmp_path, "a folder, not a file")):
        with pytest.raises(InputError) as error:
            read_instruction(VariantSpec("file", str(path)), "{subject}", SINGLE_BRACES)
        assert message in error.value.one_line(), error.value.one_line()


def test_the_linter_gate_counts_what_is_new() -> None:
    # Two findings before, the same two and one more after: only the new one.
    before = ["s1: transcript: 19 turns", "s2: cast: x"]
    after = ["s1: transcript: 19 turns", "s2: cast: x", "s2: cast: x"]
    assert added_findings(before, after) == ["s2: cast: x"]
    refuse_added(VariantSpec("rename", "1"), before, before[::-1])  # the same: accepted
    with pytest.raises(InputError) as error:
        refuse_added(VariantSpec("rename", "1"), before, after)
    assert error.value.one_line() == (
        "--variant: field 'variant': rename:1: the transformed data fails the linter: s2: cast: x"
    )
    # Issue 41 item 8: a finding the transformation removes is refused too (before: accepted).
    with pytest.raises(InputError) as error:
        refuse_added(VariantSpec("rename", "1"), after, before)
    assert error.value.one_line() == (
        "--variant: field 'variant': rename:1: the transformed data hides: s2: cast: x"
    )


def test_renaming_is_one_pass_longest_first_and_keeps_capitals() -> None:
    renaming = Renaming({"Mei": "Zeynep", "Mei-Lin": "Tove", "Zeynep": "Petra", "Will": "Rasmus"})
    text = "Mei-Lin told Mei and Zeynep; MEI shouted, mei sighed. I will ask Will."
    assert renaming.text(text) == (
        "Tove told Zeynep and Petra; ZEYNEP shouted, zeynep sighed. I will ask Rasmus."
    )


def test_one_letter_names_only_where_they_stand_whole() -> None:
    renaming = Renaming({"A": "NNAMDI TEMBO"})
    assert renaming.text("A") == "NNAMDI TEMBO"
    assert renaming.text("A storm is coming for A.") == "A storm is coming for A."


def test_a_roles_article_goes_with_it() -> None:
    renaming = Renaming({"ORCHARD OWNER": "ANOUK BAKSHI"}, drop_article=True)
    text = "The ORCHARD OWNER grows apricots; he is the ORCHARD OWNER's brother. the orchard"
    assert (
        renaming.text(text)
        == "ANOUK BAKSHI grows apricots; he is ANOUK BAKSHI's brother. the orchard"
    )


def test_strings_skip_protected_keys_and_rename_keyed_mappings() -> None:
    renaming = Renaming({"Ana": "Octavia"})
    row = {"norm": "Ana never apologises", "who": ["Ana"], "aliases": {"Ana": ["Ana B"]}}
    found = renaming.strings(row, frozenset({"norm"}), frozenset({"aliases"}))
    assert found == {
        "norm": "Ana never apologises",
        "who": ["Octavia"],
        "aliases": {"Octavia": ["Octavia B"]},
    }


def test_fresh_names_are_seeded_distinct_and_avoid_the_items_words() -> None:
    taken = ["Anouk and Rasmus say hello", "the norm: never thank Petra"]
    first = fresh_names(["Grace", "Tomás Reyes"], "rename:1:s1", taken)
    again = fresh_names(["Grace", "Tomás Reyes"], "rename:1:s1", taken)
    other = fresh_names(["Grace", "Tomás Reyes"], "rename:2:s1", taken)
    assert first.names == again.names != other.names
    new = [first.names["Grace"], first.names["Tomás Reyes"]]
    assert len(set(new)) == 2 and len(new[1].split()) == 2
    forbidden = {w for text in taken for w in words(text)} | {"grace", "tomás", "reyes"}
    assert not {w for name in new for w in words(name)} & forbidden
    capitals = fresh_names(["ORCHARD OWNER"], "s", [], family=True)
    assert capitals.names["ORCHARD OWNER"].isupper()
    parts = fresh_names(["Aaliyah Brooks", "Ben Brooks"], "s", [])
    # A family name two people share maps to one new family name: they still share it.
    assert parts.names["Aaliyah Brooks"].split()[1] == parts.names["Ben Brooks"].split()[1]
    assert parts.names["Brooks"] == parts.names["Ben Brooks"].split()[1]


def test_the_bank_holds_no_english_word() -> None:
    bank = [w for name in (*GIVEN_NAMES, *FAMILY_NAMES) for w in words(name)]
    assert not [w for w in bank if is_word(w)]
    assert len(set(GIVEN_NAMES)) == len(GIVEN_NAMES) and len(set(FAMILY_NAMES)) == len(FAMILY_NAMES)


NAMES = ("Kofi", "Mei", "Mei-Lin", "Saoirse", "Tomás")
FILLER = st.sampled_from(("and", "then", "asked", "about", "the", "export", ",", "?", "🙏"))


@given(st.lists(st.one_of(st.sampled_from(NAMES), FILLER), max_size=30), st.integers(0, 99))
def test_renaming_back_gives_the_text_again(tokens: list[str], seed: int) -> None:
    """Consistency as a property: renamed, then renamed back with the inverse map, any text
    of names and other words is the text again (no name lost, merged or renamed twice)."""
    text = " ".join(tokens)
    forward = fresh_names(list(NAMES), f"s{seed}", [text])
    back = Renaming({new: old for old, new in forward.names.items()})
    renamed = forward.text(text)
    assert not any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w]|-\w)", renamed) for n in NAMES)
    assert back.text(renamed) == text
