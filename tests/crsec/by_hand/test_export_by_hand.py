"""Which norms ``crsec export`` finds emerged, worked out by hand on a hand-written run (issue 31,
item 12).

The paper (§3.2): "The emergence of a social norm is typically measured by whether the standard
of behavior defined by that norm has been widely accepted and adhered to by a significant
majority", and "The emergence of these social norm is characterized by most agents not only
adopting these standards of behavior as their qualified personal norms but also adhering to
these standards in their planning and actions." So a norm emerged, for export, at the end of
the first hour in which the share of agents that *both* hold it (a qualified norm the judge
deems to express it: Figure 2(b)'s holding) *and* adhere to it (plan or actions explicitly
compliant, violating in neither: Figure 2(b)'s adhering) is over the threshold (0.7: the
paper's "over 70% agents", the one rule of ``normlab.crsec.emergence``, issue 41, item
11). "… norms, such as 'maintain a healthy environment', can also emerge without any
inclinations exhibited in agent descriptions, and even without any norm entrepreneurs initially
creating them": a norm in the society's own words (one the judge matches to none of the
society file's norms) is a norm at stake too.

Four agents (the society's order: Bob Johnson, the entrepreneur; Tamara Rodriguez; Sam Moore;
Carlos Gomez), two simulated hours. 3 of 4 is 75% (emerged at 0.7); 2 of 4 is 50% (not).
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from normlab.crsec.export.emerged import Selection, select_emerged, wording_key
from normlab.crsec.export.losona import plan_losona
from normlab.crsec.export.scene import plan_scene
from tests.crsec.support import client, write_script
from tests.crsec.test_figure2_by_hand import (
    evaluated,
    finding,
    held,
    item,
    norm,
    snapshot,
    write_run,
)

BOB, TAMARA, SAM, CARLOS = "Bob Johnson", "Tamara Rodriguez", "Sam Moore", "Carlos Gomez"
AGENTS = [BOB, TAMARA, SAM, CARLOS]  # the society's order
SMOKING, QUIET, TIPPING = "no_smoking_indoors", "quiet_in_public", "tipping_after_meals"
TABLES = "Keep shared tables clear for others."  # Bob's synthesized abstract: no author's words
CLEAR = "Clear your table when you leave."  # Tamara's, from a thought: a paraphrase of TABLES
REHEARSE = "Musicians may rehearse at the cafe."  # Sam's, from a thought: held by him alone
# The society's own norms are named by their first six words.
OWN = "own_keep_shared_tables_clear_for_others"
OWN_CLEAR = "own_clear_your_table_when_you_leave"
OWN_REHEARSE = "own_musicians_may_rehearse_at_the_cafe"
VOICE = "Keep your voice down inside the cafe."

BREACH = "Carlos Gomez is smoking a cigarette at a table (at Hobbs Cafe)"
CHAT_1 = [  # raised over smoking: its second line is the violator's (keyword "smok"), its
    # third the first that demonstrates the norm (Bob asks him to stop)
    (BOB, "Morning, Carlos. How is the new poem coming along?"),
    (CARLOS, "Slowly, as always. (keeps smoking) It is my table."),
    (BOB, "Could you put the cigarette out? The smoke drifts over every table."),
    (CARLOS, "Sorry, Bob. I will go out front from now on."),
]
CHAT_2 = [  # raised over smoking; Tamara identifies a noise norm from it as well, though
    # nothing in it is about noise ("single" starts with quiet's keyword "sing")
    (CARLOS, "Tamara, please put that cigarette out, the smoke carries."),
    (TAMARA, "Sorry, I will step outside next time. A single espresso, please."),
]
CHAT_3 = [  # spreads TABLES, whose words none of its lines holds; "tips" starts with tipping's
    # keyword "tip" but is about a crossword
    (BOB, "Carlos, could you take your cup back to the counter?"),
    (CARLOS, "Right away, Bob. Any tips for the crossword?"),
]
DEMONSTRATING = {(SMOKING, CHAT_1[2][1]), (SMOKING, CHAT_2[0][1])}
"""The lines the judge ties to a norm (it asks for or follows it); every other line it is asked
about (a keyword's candidate) it finds about something else, or against the norm."""
STATEMENTS = {SMOKING: "No smoking indoors.", QUIET: "Be quiet in public.",
              TIPPING: "Tip after meals."}  # fmt: skip


def chat(receiver: str, observation: str, topic: str, lines: list[tuple[str, str]]) -> Any:
    return {"receiver": receiver, "place": "Hobbs Cafe", "observation": observation,
            "topic": topic, "transcript": [list(line) for line in lines],
            "ended": "turn limit", "minutes": 1}  # fmt: skip


def thought_item(content: str, id: int) -> dict[str, Any]:
    return {**evaluated(content, id, True), "origin": "thought"}


BOB_CREATED = [
    norm(1, "No smoking indoors.", 100),
    norm(2, VOICE, 90),
    norm(3, "People tip the staff after their meals.", 90),
    norm(4, "Clear your cups when you leave.", 60),
    norm(5, "Do not leave plates on shared tables.", 60),
]
SYNTHESIS = {
    "trigger": "paper", "qualified_utility_before": 400,
    "categories": [["Tidiness", [4, 5]], ["Smoking", [1]], ["Noise", [2]], ["Tipping", [3]]],
    "abstracts": [{"id": 6, "theme": "Tidiness", "content": TABLES, "type": "injunctive",
                   "members": [4, 5], "utility": 60, "qualified": True, "rejection": None}],
    "failed": None,
}  # fmt: skip

BOB_HELD = held((1, "No smoking indoors.", 100, "created"), (2, VOICE, 90, "created"),
                (3, "People tip the staff after their meals.", 90, "created"),
                (6, TABLES, 60, "synthesis"))  # fmt: skip
"""Bob's qualified norms at both hours' ends: his created #1–#3 and the abstract #6 that
SYNTHESIS folded #4 and #5 into."""

# (tick, kind, agent, data); hour 1 is ticks 0–11, hour 2 ticks 12–23.
LOG: list[tuple[int, str, str, dict[str, Any]]] = [
    # --- hour 1, day 1 09:00–10:00 ---
    (0, "create_norm", BOB, {"norms": BOB_CREATED, "failed": False}),
    (1, "detect", BOB, {"findings": [finding(CARLOS, BREACH, True, True)]}),
    (1, "conversation", BOB, chat(CARLOS, BREACH, "smoking indoors", CHAT_1)),
    (1, "identify", CARLOS, {"source": "chat", "norms": [item("No smoking inside the cafe.")]}),
    (1, "evaluate", CARLOS, evaluated("No smoking inside the cafe.", 1, True)),
    (11, "thought", TAMARA, {"thoughts": ["People leave cups everywhere here."]}),
    (11, "identify", TAMARA, {"source": "thought", "norms": [item(CLEAR)]}),
    (11, "evaluate", TAMARA, thought_item(CLEAR, 1)),
    (11, "thought", SAM, {"thoughts": ["The band could practise here in the mornings."]}),
    (11, "identify", SAM, {"source": "thought", "norms": [item(REHEARSE)]}),
    (11, "evaluate", SAM, thought_item(REHEARSE, 1)),
    # Bob folds #4 and #5 into #6 before the hour ends: they are at no hour's end.
    (11, "synthesis", BOB, SYNTHESIS),
    (11, "hour", "", {"hour": 0, "label": "day 1 09:00–10:00", "agents": {
        BOB: snapshot(BOB_HELD, "greet the regulars",
                      [["Hobbs Cafe", "Bob Johnson is asking Carlos to take his cigarette outside"],
                       ["Hobbs Cafe", "Bob Johnson is reading quietly with headphones on"],
                       ["Hobbs Cafe", "Bob Johnson is clearing his cups off the shared table"]]),
        TAMARA: snapshot(held((1, CLEAR, 70, "thought")), "have breakfast",
                         [["Hobbs Cafe", "Tamara Rodriguez is speaking softly with a friend"],
                          ["Hobbs Cafe", "Tamara Rodriguez is wiping down her table"],
                          ["Hobbs Cafe", "Tamara Rodriguez is leaving without tipping"]]),
        SAM: snapshot(held((1, REHEARSE, 70, "thought")), "smoke and plan the rehearsal",
                      [["outside Hobbs Cafe", "Sam Moore is smoking outside by the door"],
                       ["Hobbs Cafe", "Sam Moore is listening to music with headphones on"],
                       ["Hobbs Cafe", "Sam Moore is leaving his plates on the shared table"]]),
        CARLOS: snapshot(held((1, "No smoking inside the cafe.", 70, "chat")), "write poems",
                         [["Hobbs Cafe", "Carlos Gomez is smoking a cigarette at a table"],
                          ["Hobbs Cafe", "Carlos Gomez is whispering a poem to himself"]])}}),
    # --- hour 2, day 1 10:00–11:00 ---
    (13, "detect", CARLOS, {"findings": [finding(
        TAMARA, "Tamara Rodriguez is smoking by the window (at Hobbs Cafe)", True, True)]}),
    (13, "conversation", CARLOS, chat(
        TAMARA, "Tamara Rodriguez is smoking by the window (at Hobbs Cafe)", "smoking", CHAT_2)),
    (13, "identify", TAMARA, {"source": "chat", "norms": [item("No smoking indoors."),
                                                          item(VOICE)]}),
    (13, "evaluate", TAMARA, evaluated("No smoking indoors.", 2, True)),
    (13, "evaluate", TAMARA, evaluated(VOICE, 3, True)),
    (14, "conversation", BOB, chat(
        CARLOS, "Carlos Gomez is leaving his cup on the shared table (at Hobbs Cafe)",
        "tidiness", CHAT_3)),
    (14, "identify", CARLOS, {"source": "chat", "norms": [item(TABLES)]}),
    (14, "evaluate", CARLOS, evaluated(TABLES, 2, True)),
    (23, "thought", SAM, {"thoughts": ["Tipping keeps the staff happy."]}),
    (23, "identify", SAM, {"source": "thought", "norms": [item("Tip after eating.")]}),
    (23, "evaluate", SAM, thought_item("Tip after eating.", 2)),
    (23, "thought", CARLOS, {"thoughts": ["Bob tips every time."]}),
    (23, "identify", CARLOS, {"source": "thought", "norms": [item("Tip after eating.")]}),
    (23, "evaluate", CARLOS, thought_item("Tip after eating.", 3)),
    (23, "hour", "", {"hour": 1, "label": "day 1 10:00–11:00", "agents": {
        BOB: snapshot(BOB_HELD, "have lunch and tip after eating",
                      [["Hobbs Cafe", "Bob Johnson is pointing a guest to the bench outside"],
                       ["Hobbs Cafe", "Bob Johnson is tipping the waiter after lunch"],
                       ["Hobbs Cafe", "Bob Johnson is clearing his plate off the shared table"]]),
        TAMARA: snapshot(held((1, CLEAR, 70, "thought"), (2, "No smoking indoors.", 70, "chat"),
                              (3, VOICE, 70, "chat")),
                         "meet a friend",
                         [["Hobbs Cafe", "Tamara Rodriguez is reminding a guest to smoke outside"],
                          ["Hobbs Cafe", "Tamara Rodriguez is chatting in a low voice"],
                          ["Hobbs Cafe", "Tamara Rodriguez is stacking her cups for the server"]]),
        SAM: snapshot(held((1, REHEARSE, 70, "thought"), (2, "Tip after eating.", 70, "thought")),
                      "smoke and rehearse quietly",
                      [["outside Hobbs Cafe", "Sam Moore is smoking outside by the door"],
                       ["Hobbs Cafe", "Sam Moore is humming with headphones on"],
                       ["Hobbs Cafe", "Sam Moore is leaving his plates on the shared table"]]),
        CARLOS: snapshot(held((1, "No smoking inside the cafe.", 70, "chat"),
                              (2, TABLES, 70, "chat"), (3, "Tip after eating.", 70, "thought")),
                         "write poems outside",
                         [["outside Hobbs Cafe", "Carlos Gomez is smoking outside by the door"],
                          ["Hobbs Cafe", "Carlos Gomez is clearing his table before leaving"],
                          ["Hobbs Cafe", "Carlos Gomez is reading in silence"]])}}),
]  # fmt: skip

# What a strict judge says each qualified norm expresses: of the society file's norms, and of
# the society's own norms (each candidate's own words always express it, without a call).
MATCHES = {
    "No smoking indoors.": [SMOKING],
    "No smoking inside the cafe.": [SMOKING],
    VOICE: [QUIET],
    "People tip the staff after their meals.": [TIPPING],
    "Tip after eating.": [TIPPING],
}
OWN_MATCHES = {CLEAR: [OWN, OWN_CLEAR]}  # clearing your own table keeps shared tables clear

C, V, N = "complied", "violated", "not shown"
# The judge's compliance verdicts per (agent, plan): (plan, actions) per norm, then for the
# society's own norm (asked apart: its prompt lists only the own norms held widely enough).
VERDICTS: dict[tuple[str, str], dict[str, tuple[str, str]]] = {
    # hour 1. Smoking: Bob asks Carlos to smoke outside and Sam smokes outside (complied),
    # Carlos smokes at a table (violated). Quiet: everyone reads, speaks softly, listens on
    # headphones or whispers (complied). Tipping: Tamara leaves without tipping (violated).
    (BOB, "greet the regulars"): {SMOKING: (N, C), QUIET: (N, C), OWN: (N, C)},
    (TAMARA, "have breakfast"): {QUIET: (N, C), TIPPING: (N, V), OWN: (N, C)},
    (SAM, "smoke and plan the rehearsal"): {SMOKING: (N, C), QUIET: (N, C), OWN: (N, V)},
    (CARLOS, "write poems"): {SMOKING: (N, V), QUIET: (N, C)},
    # hour 2. Smoking: all four complied (Bob and Tamara point guests outside, Sam and Carlos
    # smoke outside). Quiet: all four complied. Tipping: only Bob tips. Own: Sam leaves his
    # plates again (violated), the others clear their tables.
    (BOB, "have lunch and tip after eating"): {SMOKING: (N, C), QUIET: (N, C),
                                               TIPPING: (C, C), OWN: (N, C)},
    (TAMARA, "meet a friend"): {SMOKING: (N, C), QUIET: (N, C), OWN: (N, C)},
    (SAM, "smoke and rehearse quietly"): {SMOKING: (C, C), QUIET: (C, C), OWN: (N, V)},
    (CARLOS, "write poems outside"): {SMOKING: (C, C), QUIET: (N, C), OWN: (N, C)},
}  # fmt: skip


def judge(folder: Path) -> str:
    """A scripted judge answering :data:`MATCHES`, :data:`OWN_MATCHES` and :data:`VERDICTS`;
    a prompt that lists the society's own norms starts its list with ``- own_``."""
    rules: list[tuple[str, list[Any]]] = []
    for content, ids in OWN_MATCHES.items():
        rules.append((f"PERSONAL NORM: {re.escape(content)}\nTARGET NORMS:\n- own_",
                      [{"matches": ids}]))  # fmt: skip
    rules.append(("PERSONAL NORM: [^\n]*\nTARGET NORMS:\n- own_", [{"matches": []}]))
    for content, ids in MATCHES.items():
        rules.append((f"PERSONAL NORM: {re.escape(content)}\n", [{"matches": ids}]))
    rules.append(("PERSONAL NORM: ", [{"matches": []}]))
    for norm_id, line in DEMONSTRATING:
        asked = rf"NORM: {re.escape(STATEMENTS[norm_id])}\n[\s\S]*\nLINE: {re.escape(line)}\n"
        rules.append((asked, [{"demonstrates": True, "reason": "asks for it"}]))
    rules.append(("demonstrates a norm", [{"demonstrates": False, "reason": "not about it"}]))
    for (agent, plan), verdicts in VERDICTS.items():
        head = f"AGENT: {re.escape(agent)}\nTHE DAY'S PLAN FOR THIS HOUR: {re.escape(plan)}\n"
        for own in (True, False):
            norms = [(n, v) for n, v in verdicts.items() if n.startswith("own_") == own]
            reply = {"verdicts": [{"norm": n, "plan": p, "actions": a} for n, (p, a) in norms]}
            rules.append((head + r"[\s\S]*NORMS:\n- " + ("own_" if own else "[a-z]"), [reply]))
    return write_script(folder, rules)


def by_hand_run(folder: Path, log: list[tuple[int, str, str, dict[str, Any]]] = LOG) -> str:
    """The run folder at ``folder / "run"``; the scripted judge's model string."""
    folder.mkdir(parents=True, exist_ok=True)
    model = judge(folder)
    write_run(folder / "run", model, log, AGENTS)
    return model


def select(folder: Path, threshold: float = 0.7) -> Selection:
    model = by_hand_run(folder)
    return asyncio.run(select_emerged(folder / "run", threshold, client(model), model))


@pytest.fixture
def selection(tmp_path: Path) -> Selection:
    return select(tmp_path)


def shares(selection: Selection, norm_id: str) -> list[tuple[float, float, float]]:
    return [(s.holding, s.adhering, s.both) for s in selection.shares[norm_id]]


def test_held_and_adhered_shares_per_hour_by_hand(selection: Selection) -> None:
    # No smoking indoors. Hour 1: held by Bob (#1) and Carlos ("No smoking inside the cafe.")
    # = 2/4; adhered by Bob and Sam (Carlos violated, Tamara showed nothing) = 2/4; both: Bob
    # = 1/4. Hour 2: held by Bob, Tamara (from chat 2) and Carlos = 3/4; adhered by all 4;
    # both: Bob, Tamara, Carlos = 3/4 (Sam smokes outside but holds no such norm).
    assert shares(selection, SMOKING) == [(0.5, 0.5, 0.25), (0.75, 1.0, 0.75)]
    # Be quiet in public. Hour 1: held by Bob (#2) = 1/4, adhered by all 4, both 1/4. Hour 2:
    # Tamara accepted Bob's words from chat 2: held 2/4, adhered 4/4, both 2/4.
    assert shares(selection, QUIET) == [(0.25, 1.0, 0.25), (0.5, 1.0, 0.5)]
    # Tip after meals. Hour 1: held by Bob (#3) = 1/4, adhered by nobody. Hour 2: held by Bob,
    # Sam and Carlos ("Tip after eating.") = 3/4, adhered by Bob only = 1/4, both 1/4.
    assert shares(selection, TIPPING) == [(0.25, 0.0, 0.0), (0.75, 0.25, 0.25)]
    # The society's own "Keep shared tables clear for others." Hour 1: held by Bob (his
    # abstract #6) and Tamara (her paraphrase, which the judge matches) = 2/4; adhered by Bob
    # and Tamara (Sam violated, Carlos showed nothing) = 2/4; both 2/4. Hour 2: Carlos holds
    # the same words (from chat 3): held 3/4; adhered by Bob, Tamara, Carlos = 3/4; both 3/4.
    assert shares(selection, OWN) == [(0.5, 0.5, 0.5), (0.75, 0.75, 0.75)]


def test_a_norm_emerged_when_three_of_four_hold_and_adhere(selection: Selection) -> None:
    """Smoking and the society's own norm reach 3/4 = 75% ≥ 70% at the end of hour 2; quiet
    (best 2/4) and tipping (best 1/4) never do, however widely one of the two is reached:
    quiet is adhered by 4/4 from hour 1, tipping held by 3/4 in hour 2."""
    by_id = {e.target.id: e for e in selection.emerged}
    assert list(by_id) == [SMOKING, OWN]
    for norm_id in (SMOKING, OWN):
        origin = by_id[norm_id].provenance
        assert (origin.adherent, origin.agents, origin.adherence, origin.hour) == (3, 4, 0.75, 2)
        assert origin.hour_label == "day 1 10:00–11:00" and origin.threshold == 0.7
        # Who held and adhered then, in the society's order: not Sam.
        assert by_id[norm_id].adherents == [BOB, TAMARA, CARLOS]
    missed = [(m.norm_id, m.share, m.holding, m.adhering, m.hour_label) for m in selection.missed]
    assert missed == [
        (QUIET, 0.5, 0.5, 1.0, "day 1 10:00–11:00"),
        (TIPPING, 0.25, 0.75, 0.25, "day 1 10:00–11:00"),
    ]


def test_a_norm_adhered_to_by_all_but_held_by_one_is_not_exported(selection: Selection) -> None:
    """The busy run's "quiet in public": exported at 100% adherence while almost nobody held
    it. Here quiet is adhered to by 4/4 from hour 1 (the adhering share alone would export it
    at hour 1, 4/4) but held by at most 2/4."""
    assert QUIET not in {e.target.id for e in selection.emerged}
    assert "quiet_in_public 50% (day 1 10:00–11:00: holding 50%, adhering 100%)" in (
        selection.missed_line()
    )


def test_the_societys_own_norm_is_exported_in_its_own_words(selection: Selection) -> None:
    """Bob's abstract (a synthesis, no author's words) is a norm at stake: its id from its words,
    its words the statement. Tamara's paraphrase is the same norm (its words express the
    earlier one); Sam's "Musicians may rehearse" is held by 1/4 and never judged for
    compliance."""
    (own,) = [e for e in selection.emerged if e.target.id == OWN]
    assert own.target.statement == TABLES and own.target.id == OWN
    assert own.provenance.statement == TABLES and own.provenance.norm_origin == "synthesis"
    assert own.provenance.norm_id == OWN
    assert [(o.target.id, o.origin, o.same_as) for o in selection.own] == [
        (OWN, "synthesis", ""),
        (OWN_CLEAR, "thought", OWN),
        (OWN_REHEARSE, "thought", ""),
    ]
    assert OWN_REHEARSE not in selection.shares and OWN_CLEAR not in selection.shares
    # Its evidence: chat 3 (Carlos identified its words), Bob's abstract and the same words
    # accepted from chat 3, Tamara's paraphrase.
    evidence = own.evidence
    assert [(c.sender, c.receiver, c.identified) for c in evidence.conversations] == [
        (BOB, CARLOS, [TABLES])
    ]
    assert {(w.agent, w.text, w.origin) for w in evidence.wordings} == {
        (BOB, TABLES, "synthesis"),
        (CARLOS, TABLES, "chat"),
        (TAMARA, CLEAR, "thought"),
    }
    # The society file's norms keep the file's words and origin.
    smoking = selection.emerged[0].provenance
    assert (smoking.statement, smoking.norm_origin) == ("No smoking indoors.", "society file")


def test_only_lines_the_judge_ties_to_the_norm_are_marked(
    selection: Selection, tmp_path: Path
) -> None:
    """The keywords (word starts) only pick candidate lines; the judge decides. Chat 1's
    candidates about smoking are its second line (Carlos, who keeps smoking: the violator's,
    not a demonstration) and its third (Bob asks him to stop): the judge ties the third, the
    one marked; chat 2's first line is both candidate and marked. Quiet's only conversation is
    chat 2 (Tamara identified Bob's noise norm from it): its one candidate, "A single
    espresso", is about coffee, so it marks no line, the LoSoNA scenario for quiet does not
    take it (the generator writes both demonstrations, and the notes say why), and SCENE's
    quiet scenario has no precedent from it."""
    smoking = selection.emerged[0].evidence
    assert [(c.transcript, c.candidates, c.marked) for c in smoking.conversations] == [
        (CHAT_1, [1, 2], 2), (CHAT_2, [0], 0),
    ]  # fmt: skip
    # Lines asked: chat 1's two (no, then yes), chat 2's one (yes) = 3; the own norm's chat 3
    # has no candidate. A fresh cache: 3 judge calls.
    assert smoking.lines_asked == 3 and selection.demonstration_calls == 3
    # 2/4 hold and adhere to quiet at hour 2: 50% is not over 0.5 (once "at or above", it
    # emerged there), and is over 0.4.
    assert QUIET not in [e.target.id for e in select(tmp_path / "half", 0.5).emerged]
    lower = select(tmp_path / "lower", 0.4)
    quiet = next(e for e in lower.emerged if e.target.id == QUIET)
    (talk,) = quiet.evidence.conversations
    assert talk.transcript == CHAT_2 and talk.identified == [VOICE]
    assert (talk.candidates, talk.marked) == ([1], None)
    plan = plan_losona(quiet, lower)
    assert plan.conversations == [] and plan.demonstrations == 2
    assert plan.unmarked == 1
    # Nor is that smoking talk SCENE's precedent for quiet, or a quiet sanction to quote.
    scene = plan_scene(quiet, lower)
    assert not isinstance(scene, str) and scene.precedent is None
    quoted = " ".join(line for name in scene.cast for line in scene.persona(name).sanction_lines)
    assert not any(said in quoted for _, said in CHAT_2)
    # The society's own norm: chat 3 holds none of its words, so no line is asked or marked.
    own = next(e for e in lower.emerged if e.target.id == OWN)
    assert [(c.candidates, c.marked) for c in own.evidence.conversations] == [([], None)]


def test_a_keyword_line_about_something_else_is_not_marked(tmp_path: Path) -> None:
    """At 0.2 "Tip after meals." emerged (1/4 = 25% hold and adhere at hour 2, over 20%).
    "Any tips for the crossword?" starts a word with its keyword "tip", so chat 3 is its
    conversation and that line its one candidate; the judge finds it about a crossword:
    nothing marked."""
    low = select(tmp_path, 0.2)
    tipping = next(e for e in low.emerged if e.target.id == TIPPING)
    (talk,) = tipping.evidence.conversations
    assert talk.transcript == CHAT_3 and (talk.candidates, talk.marked) == ([1], None)
    assert tipping.evidence.demonstrating() == [] and tipping.evidence.lines_asked == 1


def test_asking_again_costs_nothing(tmp_path: Path) -> None:
    """The judge's answers are kept in the run's judge cache: the same export again asks the
    same lines (3 for smoking) and makes no call."""
    model = by_hand_run(tmp_path)
    first, again = (
        asyncio.run(select_emerged(tmp_path / "run", 0.7, client(model), model)) for _ in "12"
    )
    assert first.demonstration_calls == 3 and again.demonstration_calls == 0
    assert again.emerged[0].evidence.lines_asked == 3
    assert [c.marked for c in again.emerged[0].evidence.conversations] == [2, 0]


# --- metamorphic: how an agent spells a norm's words does not change which norm it holds ------


def variants(text: str) -> st.SearchStrategy[str]:
    """``text`` in another letter case, Unicode form, quoting, spacing, "and" as "&"."""
    return st.sampled_from(
        [
            text.upper(),
            text.lower(),
            unicodedata.normalize("NFD", text),
            f"“{text}”",
            f"'{text}'",
            f"  {text.rstrip('.')}  ",
            text.replace(" and ", " & "),
        ]
    )


@given(st.sampled_from([TABLES, "Keep tables clear and tidy.", "Café tables stay clear."]).flatmap(
    lambda text: st.tuples(st.just(text), variants(text))
))  # fmt: skip
def test_the_words_of_a_norm_are_keyed_whatever_their_spelling(pair: tuple[str, str]) -> None:
    text, variant = pair
    assert wording_key(variant) == wording_key(text)


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(variant=variants(TABLES), reverse=st.booleans())
def test_an_agents_spelling_or_order_of_its_norms_changes_no_share(
    tmp_path_factory: pytest.TempPathFactory, variant: str, reverse: bool
) -> None:
    """Carlos holding TABLES in another case, Unicode form or quoting, and every agent's
    qualified norms listed in reverse: the same norms emerge, with the same shares."""
    log = []
    for tick, kind, agent, data in LOG:
        if kind == "hour":
            agents = {}
            for name, state in data["agents"].items():
                qualified = [
                    {**n, "content": variant if (name, n["content"]) == (CARLOS, TABLES)
                     else n["content"]}
                    for n in state["qualified"]
                ]  # fmt: skip
                agents[name] = {**state, "qualified": qualified[::-1] if reverse else qualified}
            data = {**data, "agents": agents}
        log.append((tick, kind, agent, data))
    folder = tmp_path_factory.mktemp("variant")
    model = by_hand_run(folder, log)
    varied = asyncio.run(select_emerged(folder / "run", 0.7, client(model), model))
    assert [(e.target.id, e.adherents, e.provenance.hour) for e in varied.emerged] == [
        (SMOKING, [BOB, TAMARA, CARLOS], 2),
        (OWN, [BOB, TAMARA, CARLOS], 2),
    ]
    assert shares(varied, OWN) == [(0.5, 0.5, 0.5), (0.75, 0.75, 0.75)]
