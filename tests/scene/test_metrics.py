"""SCENE metrics on hand-built episodes with hand-computed values."""

from __future__ import annotations

import pytest

from normlab.core.chat import Turn
from normlab.scene.analysis import analyze_outcomes
from normlab.scene.rules import adaptation_point, episode_outcome, repaired_sanctions
from normlab.scene.schemas import Episode, EpisodeLabels, FidelityVerdict, LogEvent
from normlab.scene.taxonomy import SceneTuple, load_dimensions
from normlab.stats import Rate

SUBJECT = "Ana"


def build(actions: list[tuple[str, str]], norm: str = "concise_answer_norm") -> Episode:
    """``actions``: (actor, "msg" | "noop") in order; messages get turn ids 1, 2, 3…"""
    episode = Episode(
        scenario_id=f"s-{norm}",
        tuple=SceneTuple(
            event="bug_report",
            norm=norm,
            elicitor="address_explicit",
            sanction="silent_ignore",
            precedent=0,
        ),
        subject=SUBJECT,
    )
    for actor, kind in actions:
        if kind == "noop":
            episode.log.append(LogEvent(kind="no-op", round=1, actor=actor))
            continue
        turn_id = len(episode.entries) + 1
        episode.entries.append(
            Turn(
                turn_id=turn_id,
                round=1,
                actor=actor,
                kind="message",
                content=f"m{turn_id}",
                phase="episode",
            )
        )
        episode.log.append(
            LogEvent(kind="entry", round=1, actor=actor, detail={"turn_id": turn_id})
        )
    return episode


def labels(d: list[int], b: list[int], s: list[int], r: list[int]) -> EpisodeLabels:
    return EpisodeLabels(
        labeller="turns", demonstrations=d, breaches=b, sanctions=s, repairs=r,
        persona_breaches=[], sanction_shape_match=True, parse_failures=0,
    )  # fmt: skip


def test_repair_window_is_the_next_three_subject_actions() -> None:
    # turns: 1 Bo, 2 Ana(breach), 3 Bo(sanction); Ana no-ops twice, then 4 Ana(repair) = 3rd action
    episode = build(
        [
            ("Bo", "msg"),
            (SUBJECT, "msg"),
            ("Bo", "msg"),
            (SUBJECT, "noop"),
            (SUBJECT, "noop"),
            (SUBJECT, "msg"),
        ]
    )
    assert repaired_sanctions(episode, sanctions=[3], repairs=[4]) == 1
    # one more no-op pushes the repair to the 4th action after the sanction: not repaired
    late = build(
        [
            ("Bo", "msg"),
            (SUBJECT, "msg"),
            ("Bo", "msg"),
            (SUBJECT, "noop"),
            (SUBJECT, "noop"),
            (SUBJECT, "noop"),
            (SUBJECT, "msg"),
        ]
    )
    assert repaired_sanctions(late, sanctions=[3], repairs=[4]) == 0
    # a repair before the sanction does not count
    assert repaired_sanctions(episode, sanctions=[3], repairs=[2]) == 0


def test_adaptation_point_hand_computed() -> None:
    # turns: 1 Bo(demo), 2 Cy(demo), 3 Ana(breach, t*), 4 Bo, 5 Ana(breach), 6 Ana,
    # 7 Bo(demo), 8 Ana(breach)
    episode = build(
        [
            ("Bo", "msg"),
            ("Cy", "msg"),
            (SUBJECT, "msg"),
            ("Bo", "msg"),
            (SUBJECT, "msg"),
            (SUBJECT, "msg"),
            ("Bo", "msg"),
            (SUBJECT, "msg"),
        ]
    )
    d, b = adaptation_point(episode, demonstrations=[1, 2, 7], breaches=[3, 5, 8])
    assert d == 2  # demonstrations before t* = 3
    assert b == pytest.approx(2 / 3)  # subject actions after t*: 5, 6, 8; breaches: 5, 8
    assert adaptation_point(episode, [1], []) == (None, None)
    assert adaptation_point(episode, [1, 2], [8]) == (2, None)  # nothing follows the breach


def test_silence_after_a_breach_counts_as_the_subjects_action() -> None:
    # §4.3: no-op is an action. turns: 1 Bo, 2 Ana(breach, t*), then Ana is silent twice.
    silent = build([("Bo", "msg"), (SUBJECT, "msg"), (SUBJECT, "noop"), (SUBJECT, "noop")])
    assert adaptation_point(silent, [1], [2]) == (1, 0.0), "breached once and then stopped"
    # breach, silence, breach again: one of the two later actions is a breach
    again = build([("Bo", "msg"), (SUBJECT, "msg"), (SUBJECT, "noop"), (SUBJECT, "msg")])
    assert adaptation_point(again, [1], [2, 3]) == (1, 0.5)
    # only other participants speak after the breach: no subject action, b undefined
    assert adaptation_point(build([(SUBJECT, "msg"), ("Bo", "msg")]), [], [1]) == (0, None)


def test_every_episode_counts_in_the_headline_and_valid_only_is_shown_beside_it() -> None:
    dimensions = load_dimensions()
    episode = build([("Bo", "msg"), (SUBJECT, "msg"), ("Bo", "msg"), (SUBJECT, "msg")])
    repaired = labels(d=[1], b=[2], s=[3], r=[4])
    outcomes = [
        episode_outcome(episode, repaired, FidelityVerdict(label="VALID", justification=""), "m"),
        episode_outcome(
            episode,
            labels([1], [2], [3], []),
            FidelityVerdict(label="VALID", justification=""),
            "m",
        ),
        episode_outcome(episode, repaired, FidelityVerdict(label="PARTIAL", justification=""), "m"),
        episode_outcome(episode, repaired, FidelityVerdict(label="INVALID", justification=""), "m"),
        episode_outcome(
            build([("Bo", "msg"), (SUBJECT, "msg")], "elaborated_answer_norm"),
            labels([1], [], [], []),
            None,
            "m",
        ),
    ]
    summary = analyze_outcomes(outcomes, dimensions).models["m"]
    # Issue 8, §5.4 and §6: the headline counts every labelled episode; B.7's VALID-only view
    # is reported beside it; PARTIAL and UNKNOWN are counted, never silently dropped.
    assert summary.validity == {"INVALID": 1, "PARTIAL": 1, "UNKNOWN": 1, "VALID": 2}
    headline, valid = summary.all_episodes, summary.valid_only
    assert (headline.episodes, valid.episodes) == (5, 2)
    assert (headline.repair.k, headline.repair.n) == (3, 4)  # VALID, VALID, PARTIAL, INVALID
    assert (valid.repair.k, valid.repair.n) == (1, 2)
    pair = next(p for p in headline.opposing_pairs if p.pole_a == "concise_answer_norm")
    assert (pair.compliance_a.k, pair.compliance_a.n) == (0, 4)  # all concise episodes breached
    assert (pair.compliance_b.k, pair.compliance_b.n) == (1, 1)  # the UNKNOWN one counts
    valid_pair = next(p for p in valid.opposing_pairs if p.pole_a == "concise_answer_norm")
    assert (valid_pair.compliance_b.k, valid_pair.compliance_b.n) == (0, 0)
    # fidelity over all episodes
    delivered = summary.fidelity.sanction_delivered
    assert (delivered.k, delivered.n) == (4, 4)


def test_repair_rate_check_value() -> None:
    rate = Rate.of(461, 547)
    assert rate.value is not None and round(100 * rate.value, 1) == 84.3
    lo, hi = rate.ci
    assert lo is not None and hi is not None
    assert (round(100 * lo, 1), round(100 * hi, 1)) == (81.0, 87.1)


def test_shape_match_needs_every_sanction_in_the_configured_modality_only() -> None:
    # Issue 12, B.6 ("sanctioning turns used ONLY the specified modality") and B.7 (b).
    # Configured modality: explicit_callout. Turns in each episode: 1 Bo, 2 Ana(breach),
    # 3 Bo(sanction), 4 Ana, 5 Cy(sanction); only the forms of turns 3 and 5 differ.
    episode = build(
        [("Bo", "msg"), (SUBJECT, "msg"), ("Bo", "msg"), (SUBJECT, "msg"), ("Cy", "msg")]
    )
    episode.tuple = episode.tuple.model_copy(update={"sanction": "explicit_callout"})

    def sanctioned(forms: dict[int, str]) -> EpisodeLabels:
        return labels([1], [2], [3, 5], []).model_copy(update={"sanction_modalities": forms})

    callout, aside = "explicit_callout", "off_record_sanction"
    outcomes = [
        episode_outcome(episode, sanctioned(forms), None, "m")
        for forms in (
            {3: callout, 5: aside},  # mixed: a match under "any", none under "only"
            {3: callout, 5: callout},  # every sanction in the modality: match
            {3: callout},  # turn 5's form unknown, no mismatch seen: unknown, left out
            {3: aside, 5: aside},  # no sanction in the modality: no match
        )
    ]
    assert [o.sanction_shape_match for o in outcomes] == [False, True, None, False]
    assert all(o.sanction_delivered for o in outcomes)
    rate = analyze_outcomes(outcomes, load_dimensions()).models["m"].fidelity.sanction_shape_match
    # known flags: False, True, False -> 1 of 3 (under "any" it was True, True, True, False: 3/4)
    assert (rate.k, rate.n) == (1, 3)
    assert rate.value == pytest.approx(1 / 3)
