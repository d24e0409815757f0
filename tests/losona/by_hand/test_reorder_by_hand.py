"""LoSoNA's ``reorder:SEED`` worked by hand (issue 41 item 4): a demonstration moves with the
request it answers, a back-reference stays after what it refers to, and a scenario no other
order can show so is refused.

The paper (§4) builds each scenario so that the demonstrations "show" the norm in a running
chat: a demonstration answers a request, later turns lean on it. By hand, on the factory's
20-turn chat (actors by turn id mod 3: 1 Chloe, 2 Javi, 3 Marcus, 4 Chloe, 5 Javi, 6 Marcus,
…, 12 Marcus, 13 Chloe; demonstrations 6 and 13; the elicitor 20):

- turn 5 (Javi) "Marcus can you check the cache?" is the latest earlier turn naming turn 6's
  author, so exchange one is turns 5–6; turn 12 (Marcus) "Chloe can you look at the logs?"
  names turn 13's author, so exchange two is 12–13;
- the only other order swaps them: 1–4, 12, 13, 7–11, 5, 6, 14–20; turn 15 "same as Chloe
  above" leans on Chloe's latest earlier turn, 13, which still comes first: kept;
- with turn 9 "same as Marcus above" (leaning on 6) the swap puts 6 after 9: refused, naming
  "turn 9 leans on turn 6".
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from normlab.losona.dataset import load_scenarios
from normlab.losona.reorder import NotReorderable, dependencies, exchanges, reordered
from normlab.losona.schemas import Scenario
from tests.losona.factory import clean_row


def _chain(**contents: str) -> Scenario:
    row = clean_row()
    texts = {5: "Marcus can you check the cache?", 6: "yes, done by noon",
             12: "Chloe can you look at the logs?", 13: "sure, by 3pm"}  # fmt: skip
    texts.update({int(key[1:]): text for key, text in contents.items()})
    for turn in row["transcript"]:
        turn["content"] = texts.get(turn["turn_id"], turn["content"])
    return Scenario.model_validate(row)


def test_an_exchange_is_the_demonstration_and_its_request() -> None:
    scenario = _chain(t15="same as Chloe above")
    assert exchanges(scenario) == [[4, 5], [11, 12]]  # positions: turns 5–6 and 12–13
    changed = reordered(scenario, 1)
    ids = [turn.turn_id for turn in changed.transcript]
    assert ids == [1, 2, 3, 4, 12, 13, 7, 8, 9, 10, 11, 5, 6, *range(14, 21)]


def test_a_back_reference_that_a_swap_breaks_is_refused() -> None:
    scenario = _chain(t9="same as Marcus above")
    assert 5 in dependencies(scenario)[8]  # turn 9 leans on turn 6 (positions 8, 5)
    with pytest.raises(NotReorderable, match="turn 9 leans on turn 6"):
        reordered(scenario, 1)


def test_the_shipped_csv_export_is_refused_not_scrambled() -> None:
    # Before: reorder:1 posted "pdf is fine btw" (turn 15) before Kwame was asked (turn 10).
    (scenario,) = [s for s in load_scenarios() if s.scenario_id.endswith("csv_export")]
    with pytest.raises(NotReorderable, match="csv_export: no other order"):
        reordered(scenario, 1)


NAMES = ("Chloe", "Javi", "Marcus")
LINES = st.sampled_from(
    ("same as {n} above", "{n} can you check?", "as {n} said", "^ this", "ok", "+1 to {n}",
     "the pdf is fine", "can you test the pdf?", "agree with {n}", "sure, by 5pm")
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(st.integers(1, 19), st.tuples(LINES, st.sampled_from(NAMES))), st.integers(0, 9)
)
def test_every_order_drawn_keeps_every_dependency(
    lines: dict[int, tuple[str, str]], seed: int
) -> None:
    """Property: whatever the chat says, a reorder either refuses or keeps each turn after
    every turn it depends on, each request before its answer, the elicitor last."""
    scenario = _chain(**{f"t{key}": line.format(n=name) for key, (line, name) in lines.items()})
    try:
        changed = reordered(scenario, seed)
    except NotReorderable:
        return
    depends = dependencies(scenario)
    at = {turn.turn_id: place for place, turn in enumerate(changed.transcript)}
    ids = [turn.turn_id for turn in scenario.transcript]
    for index, earlier in depends.items():
        for before in earlier:
            assert at[ids[before]] < at[ids[index]], (ids[index], ids[before])
    for block in exchanges(scenario):
        assert [at[ids[i]] for i in block] == list(
            range(at[ids[block[0]]], at[ids[block[0]]] + len(block))
        )
    assert changed.transcript[-1].turn_id == scenario.elicitor_turn_id


@pytest.mark.parametrize(
    "reference",
    ["agreed with Marcus", "as @Marcus said", "as Marcus says", "+1 Marcus", "Marcus’s point",
     "per Marcus", "ditto Marcus", "like Marcus mentioned"],
)  # fmt: skip
def test_every_way_of_leaning_back_is_kept(reference: str) -> None:
    # Turn 9 leans on Marcus's latest turn, 6: the swap would put 6 after 9.
    with pytest.raises(NotReorderable, match="turn 9 leans on turn 6"):
        reordered(_chain(t9=reference), 1)


def test_a_request_is_found_as_a_rename_reads_names() -> None:
    # "I will" names nobody; "Ms Okafor" and "Chloe" without the accent name Chloé Okafor.
    row = clean_row()
    for turn in row["transcript"]:
        if turn["actor"] == "Chloe":
            turn["actor"] = "Chloé Okafor"
    row["cast"] = [
        {"name": "Chloé Okafor" if m["name"] == "Chloe" else m["name"], "bio": m["bio"]}
        for m in row["cast"]
    ]
    row["transcript"][11]["content"] = "I will grab lunch first"
    row["transcript"][10]["content"] = "Ms Okafor can you look at the logs?"
    scenario = Scenario.model_validate(row)
    assert [10, 11, 12] in exchanges(scenario) or [10, 11, 12, 13] in exchanges(scenario)
