"""Why 100% adherence is out of reach here, on ``benchmarks.crsec_ceiling``'s scripted run,
worked out by hand (issue 31, item 11).

The paper (§3.2): "at the end of Day 2 in the Smallville environment, 100% of agents have
adopted and adhered to the injunctive norms 'no smoking indoors' and 'be quiet in public'."

The run: Bob Johnson (holds "No smoking indoors." from the start), Tamara Rodriguez, Carlos
Gomez; 9:00–13:00 in 5-minute ticks (48). Without norms an agent smokes at its table for the
first 30 minutes of each hour, then drinks coffee; with them a non-smoker (Bob, Tamara) drinks
coffee all hour and Carlos smokes outside. An hour's subtasks are planned at its start, so a
norm accepted at hh:00 shapes the next hour. Talks last one tick.

- 9:00  Bob sees Carlos and Tamara light up (2 conflicts), talks to Tamara: she accepts.
- 10:00 Carlos lights up; Bob and Tamara see it (2 conflicts); Bob talks to him: refused.
- 11:00 Carlos lights up; Bob and Tamara see it (2 conflicts); Bob may not talk again (pair
  buffer, 130 minutes), Tamara does: accepted.
- 12:00 Carlos smokes outside.
"""

from __future__ import annotations

import pytest
from benchmarks.crsec_ceiling import measure


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    return measure(tmp_path_factory.mktemp("ceiling"))


def test_a_continuing_violation_is_seen_once(summary: dict[str, object]) -> None:
    # Ticks an agent smoked indoors in sight of a free norm holder:
    #   hour 1: Carlos 9:00–9:25 (6 ticks, Bob there; Tamara too from 9:05) + Tamara 9:00–9:25
    #           (6 ticks, Bob there) = 12;  hour 2: Carlos 10:00–10:25 = 6;  hour 3: 11:00–11:25
    #           = 6;  hour 4: Carlos smokes outside = 0.  Total 12 + 6 + 6 = 24.
    # Observed (the action changed for a witness): 9:00 Carlos and Tamara (2), 10:00 Carlos
    #   (1; the 9:05–9:25 ticks repeat what Bob saw at 9:00), 11:00 Carlos (1) = 4 of 24.
    # Conflicts: 9:00 Bob × 2, 10:00 Bob + Tamara, 11:00 Bob + Tamara = 6.
    assert summary["violation_ticks_in_sight_of_a_holder"] == 24
    assert summary["of_them_observed"] == 4
    assert summary["conflicts"] == 6


def test_adherence_needs_an_occasion_every_hour(summary: dict[str, object]) -> None:
    # Agent-hours holding the norm: Bob 4 + Tamara 4 (accepted at 9:00) + Carlos 2 (accepted
    # at 11:00: hours 3 and 4) = 10. Adhering: Carlos in hour 4 (smoking outside) = 1.
    # Violating: Tamara in hour 1 and Carlos in hour 3 (hours planned before they accepted)
    # = 2. Neither (no occasion: coffee at a table is "not shown"): 10 − 1 − 2 = 7.
    assert summary["agent_hours"] == {"held": 10, "held_adhering": 1, "held_not_shown": 7}
    # The last hour: 3 of 3 hold it, 1 of 3 adheres; no non-smoker can ever count.
    assert summary["last_hour"] == {
        "label": "day 1 12:00–13:00", "holding": 1.0, "adhering": pytest.approx(1 / 3),
    }  # fmt: skip
