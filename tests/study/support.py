"""What several study tests build: a LoSoNA bank whose subject alternates between two names,
so a scripted subject that answers by name has a known rate."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def named_scenarios(folder: Path, count: int, tariq_every: int) -> Path:
    """``FOLDER/scenarios.jsonl``: ``count`` copies of the tests' first LoSoNA scenario
    (ids ``…__00``, ``…__01``, …), the subject Tariq in every ``tariq_every``-th from the
    first and Uma in the rest."""
    base = json.loads((REPO / "tests/losona/fixtures/scenarios.jsonl").read_text().splitlines()[0])
    rows = [
        {
            **base,
            "scenario_id": f"{base['scenario_id']}__{i:02d}",
            "subject": "Tariq" if i % tariq_every == 0 else "Uma",
        }
        for i in range(count)
    ]
    path = folder / "scenarios.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path
