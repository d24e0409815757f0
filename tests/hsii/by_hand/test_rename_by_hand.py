"""HSII's ``rename:SEED`` worked by hand (issue 41 items 5, 6, 10): every way a character is
written is renamed alike, so r2 still asks for the same person and r3 compares statements
about the same people.

§6.3: the golden "covers all possible duplicated names"; r2 scores a reply's ``role_to``
against it. By hand, for a case whose cast is PRIYA SHARMA, WILL and DR. SIOBHÁN NÍ
BHRIAIN under ``rename:1`` (PRIYA → P, SHARMA → S, WILL → W, SIOBHÁN → G, NÍ BHRIAIN → F):
the history's "Priya, can you…" reads "P, can you…"; the alias "Dr. Sharma" reads "Dr. S"
(the title kept, so r2 scores "Dr. S" as P S and no longer "Dr. Sharma"); the golden
statement "Will, the gauge…" reads "W, the gauge…"; "Dr Ní Bhriain" reads "Dr F".
"""

from __future__ import annotations

import json

from normlab.core.namebank import GIVEN
from normlab.hsii.dataset import CASES_PATH, load_cases
from normlab.hsii.names import Cast
from normlab.hsii.schemas import Case
from normlab.hsii.variants import renamed

OLD = {
    "COOPERATIVE CHAIR": "PRIYA SHARMA",
    "WATER BOARD ENGINEER": "WILL",
    "ORCHARD OWNER": "DR. SIOBHÁN NÍ BHRIAIN",
}


def _case() -> Case:
    text = CASES_PATH.read_text(encoding="utf-8").splitlines()[0]
    for old, new in OLD.items():
        text = text.replace(old, new)
    row = json.loads(text)
    row["aliases"] = {"PRIYA SHARMA": ["Dr. Sharma"]}
    row["messages"][0]["content"] = "Priya, can you ask Dr Ní Bhriain? Will this be done by May?"
    row["golden"]["content"] = "Will, the gauge on terrace two reads low."
    return Case.model_validate(row)


def test_every_way_a_character_is_written_is_renamed() -> None:
    case = _case()
    changed, renaming = renamed(case, 1)
    priya = renaming.names["PRIYA SHARMA"]
    given, family = priya.title().split()
    will = renaming.names["WILL"].title()
    _, _, bhriain = renaming.names["DR. SIOBHÁN NÍ BHRIAIN"].title().split()
    assert changed.messages[0].content == (
        f"{given}, can you ask Dr {bhriain}? Will this be done by May?"
    )
    assert changed.golden.content == f"{will}, the gauge on terrace two reads low."
    assert changed.aliases == {priya: [f"Dr. {family}"]}
    cast = Cast(tuple(changed.background.characters), changed.aliases)
    assert cast.resolve(f"Dr. {family}") == priya
    assert cast.resolve("Dr. Sharma") is None


def test_a_drawn_name_fits_the_pronoun_the_relationships_use() -> None:
    """dlg-sports-001: "SAFETY OFFICER … she will not allow …", "OPERATIONS DIRECTOR … he
    wants …" (item 8: before, a drawn name could stand beside "she" that an English reader
    takes for a man's). By hand: every seed gives the officer a name marked "f" or "n" and
    the director one marked "m" or "n"."""
    (case, *_) = [c for c in load_cases() if c.dialogue_id == "dlg-sports-001"]
    for seed in range(1, 11):
        _, renaming = renamed(case, seed)
        officer = renaming.names["SAFETY OFFICER"].split()[0].title()
        director = renaming.names["OPERATIONS DIRECTOR"].split()[0].title()
        assert GIVEN[officer] in ("f", "n") and GIVEN[director] in ("m", "n"), seed
