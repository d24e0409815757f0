"""The one rule every loader applies to a row's unknown names (issue 31, item 14): a near miss
of a known field is an error naming file, line and field; any other name is kept as metadata.

Hand cases against the three systems' own field names, then properties: the verdict on a
name never depends on its letter case, its Unicode form (NFC/NFD), ``-`` or space for ``_``,
or the order of the known fields or of the row's keys.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from normlab.core.errors import InputError
from normlab.core.fields import MetadataTally, model_fields, near_miss, unknown_fields
from normlab.hsii.schemas import Case, Dialogue, NewsParagraph
from normlab.losona.dataset import KNOWN_FIELDS as LOSONA
from normlab.scene.schemas import SceneScenario

SCENE = model_fields(SceneScenario)
CASE = model_fields(Case)
SYSTEMS = [LOSONA, SCENE, CASE, model_fields(Dialogue), model_fields(NewsParagraph)]
EVERY_FIELD = sorted({name for known in SYSTEMS for name in known})


@pytest.mark.parametrize(
    ("name", "known", "meant"),
    [
        # equal but for case or separators
        ("Norm_ID", LOSONA, "norm_id"),
        ("scenario-id", LOSONA, "scenario_id"),
        ("Topic", CASE, "topic"),
        # difflib ratio ≥ 0.85: scenaro_id/scenario_id = 2·10/21 = 0.95; topics/topic 10/11
        ("scenaro_id", LOSONA, "scenario_id"),
        ("demonstraton_turn_ids", LOSONA, "demonstration_turn_ids"),
        ("transcripts", LOSONA, "transcript"),
        ("topics", CASE, "topic"),
        ("scafold", SCENE, "scaffold"),
        # one letter changed or two swapped, same length ≥ 5 (ratio only 5/6 = 0.83)
        ("domian", CASE, "domain"),
        ("goldne", CASE, "golden"),
        ("tupel", SCENE, "tuple"),
        # kept: another word sharing a prefix, or a short name one letter off
        ("source", CASE, None),  # source/source_id = 2·6/15 = 0.80
        ("scenario", LOSONA, None),  # 2·8/19 = 0.84
        ("event", LOSONA, None),  # 2·5/13 = 0.77
        ("Norm", LOSONA, None),  # norm_id: 2·4/11 = 0.73; no field is "norm"
        ("case", LOSONA, None),  # cast: four letters, one changed
        ("license", LOSONA, None),
        ("license", SCENE, None),
        ("split", CASE, None),
    ],
)
def test_near_misses_by_hand(name: str, known: frozenset[str], meant: str | None) -> None:
    assert near_miss(name, known) == meant


def test_a_near_miss_is_one_line_naming_file_line_and_field() -> None:
    row = {"scenario_id": "s", "licence": "CC-BY", "Norm_ID": "x"}
    with pytest.raises(InputError) as raised:
        unknown_fields(row, LOSONA, "data.jsonl", 7)
    line = raised.value.one_line()
    assert line.startswith("data.jsonl:7: field 'Norm_ID': unknown field, a near miss of")
    assert "'norm_id'" in line and "\n" not in line
    assert unknown_fields({"scenario_id": "s", "licence": "CC", "url": "u"}, LOSONA, "f") == [
        "licence",
        "url",
    ]


def test_the_tally_counts_rows_per_file() -> None:
    tally = MetadataTally()
    for extra in ({"license": "a"}, {"license": "b", "source": "c"}, {}):
        tally.add("f.jsonl", NewsParagraph(id="n", domain="d", keywords=["k"], title="t",
                                           text="x", **extra))  # fmt: skip
    assert tally.lines() == [
        "f.jsonl: kept as metadata (not read by the benchmark): license (2 of 3 rows), "
        "source (1 of 3 rows)"
    ]
    assert MetadataTally().lines() == []


def _respelt(name: str, upper: list[bool], dash: bool) -> str:
    letters = [c.upper() if flip else c for c, flip in zip(name, upper * len(name), strict=False)]
    spelt = "".join(letters)
    return spelt.replace("_", "-") if dash else spelt


@given(
    field=st.sampled_from(EVERY_FIELD),
    upper=st.lists(st.booleans(), min_size=1, max_size=8),
    dash=st.booleans(),
)
def test_a_known_field_in_other_case_or_dashes_is_a_near_miss_of_it(
    field: str, upper: list[bool], dash: bool
) -> None:
    known = next(system for system in SYSTEMS if field in system)
    respelt = _respelt(field, upper, dash)
    if respelt != field:
        assert near_miss(respelt, known) == field


NAMES = st.text(alphabet=st.sampled_from("abcdeéñö_ -ABCÉ"), min_size=1, max_size=14).filter(
    lambda name: name.strip() == name
)


@given(name=NAMES, known=st.sampled_from(SYSTEMS), upper=st.booleans())
def test_case_and_unicode_form_never_change_the_verdict(
    name: str, known: frozenset[str], upper: bool
) -> None:
    verdict = near_miss(name, known)
    assert near_miss(unicodedata.normalize("NFD", name), known) == verdict
    assert near_miss(unicodedata.normalize("NFC", name), known) == verdict
    assert near_miss(name.upper() if upper else name.lower(), known) == verdict


@given(known=st.sampled_from(SYSTEMS), data=st.data())
def test_the_order_of_fields_and_keys_never_changes_the_verdict(
    known: frozenset[str], data: st.DataObject
) -> None:
    names = data.draw(st.lists(NAMES.filter(lambda n: n not in known), max_size=5, unique=True))
    order = data.draw(st.permutations(sorted(known)))
    shuffled = data.draw(st.permutations(names))
    verdicts = {name: near_miss(name, known) for name in names}
    assert {name: near_miss(name, order) for name in names} == verdicts
    kept = [name for name in names if verdicts[name] is None]
    if len(kept) == len(names):
        assert unknown_fields(dict.fromkeys(shuffled, 1), known, "f") == list(shuffled)
    else:
        with pytest.raises(InputError):
            unknown_fields(dict.fromkeys(shuffled, 1), known, "f")
