"""SCENE report: a sample episode's header counts what its transcript marks (issue 13)."""

from __future__ import annotations

import re
from html import unescape

from normlab.core.chat import Turn
from normlab.report import HtmlReport
from normlab.scene.analysis import EpisodeRecord
from normlab.scene.report import add_sample_episode
from normlab.scene.rules import episode_outcome
from normlab.scene.schemas import Episode, EpisodeLabels, LogEvent
from normlab.scene.taxonomy import SceneTuple

SUBJECT = "Ana"
# (round, actor, phase): turn ids 1, 2, 3… in order; Kenji's breach and Priya's sanction
# are the precedent sub-script, staged before the subject's first action.
TURNS = [
    (1, "Bo", "opening"),
    (1, "Kenji", "precedent"),  # 2: staged breach
    (1, "Priya", "precedent"),  # 3: staged sanction
    (1, SUBJECT, "episode"),  # 4: the subject's breach
    (2, "Bo", "episode"),  # 5: sanction of turn 4
    (2, SUBJECT, "episode"),  # 6: repair, the subject's next action after 5
    (2, "Cy", "episode"),  # 7: demonstration
]


def staged_episode() -> Episode:
    episode = Episode(
        scenario_id="s-staged",
        tuple=SceneTuple(
            event="bug_report",
            norm="concise_answer_norm",
            elicitor="address_explicit",
            sanction="explicit_callout",
            precedent=1,
        ),
        subject=SUBJECT,
    )
    for turn_id, (round_, actor, phase) in enumerate(TURNS, start=1):
        episode.entries.append(
            Turn(turn_id=turn_id, round=round_, actor=actor, content=f"m{turn_id}", phase=phase)
        )
        episode.log.append(
            LogEvent(kind="entry", round=round_, actor=actor, detail={"turn_id": turn_id})
        )
    return episode


def test_staged_labels_sit_in_the_staged_mark_and_the_header_counts_the_marks() -> None:
    episode = staged_episode()
    # The labeller's raw labels: it calls the staged turns an SP breach and a sanction.
    labels = EpisodeLabels(
        labeller="turns", demonstrations=[1, 7], breaches=[4], sanctions=[3, 5], repairs=[6],
        persona_breaches=[2], sanction_shape_match=None, parse_failures=0,
        sanction_modalities={3: "explicit_callout", 5: "explicit_callout"},
    )  # fmt: skip
    outcome = episode_outcome(episode, labels, None, "m")
    # By hand: S = {5} once staged turn 3 is set apart; 5 is repaired by 6; one subject breach.
    assert (outcome.breaches, outcome.sanctions, outcome.repaired) == (1, 1, 1)
    assert outcome.sanction_shape_match is True
    report = HtmlReport("t")
    add_sample_episode(
        report,
        EpisodeRecord(episode=episode, labels=labels, fidelity=None, outcome=outcome, roles={}),
    )
    html = report.render()
    # The ## marks are exactly what the header counts: no raw mark on a staged turn.
    assert html.count("## BREACH") == 1 and html.count("## SANCTION") == 1
    assert html.count("## REPAIR") == 1 and "## SP BREACH" not in html
    assert "1 breaches, 1 sanctions, 1 repaired, shape match yes" in html
    assert (
        "staged precedent: 2 turns, labelled 1 SANCTION, 1 SP BREACH (set apart: never the "
        "subject&#x27;s breaches or sanctions, counted only as demonstrations for d)"
    ) in html
    pre = re.search(r"<pre>(.*?)</pre>", html, re.S)
    assert pre is not None
    lines = unescape(pre.group(1)).splitlines()
    assert lines[0] == "r1 [1] Bo: m1   ## DEMONSTRATION"
    assert "r1 [2] Kenji: m2   (staged precedent; labelled SP BREACH)" in lines
    assert "r1 [3] Priya: m3   (staged precedent; labelled SANCTION (explicit_callout))" in lines
    assert "r1 [4] Ana*: m4   ## BREACH" in lines
    assert "r2 [5] Bo: m5   ## SANCTION (explicit_callout)" in lines
    assert lines[6] == "r2 [7] Cy: m7   ## DEMONSTRATION"
