"""Build scenario rows for tests: a clean baseline that tests then break one way at a time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CAST = ["Marcus", "Chloe", "Javi"]


def clean_row(
    scenario_id: str = "bug_report__banned_direct_answers_norm__demos__f1",
) -> dict[str, Any]:
    """A 20-turn scenario with 2 demonstrations that the linter accepts."""
    transcript = []
    for turn_id in range(1, 21):
        actor = CAST[turn_id % len(CAST)]
        content = f"update {turn_id} on the flaky checkout build from {actor.lower()}"
        transcript.append(
            {"turn_id": turn_id, "actor": actor, "content": content, "is_elicitor": turn_id == 20}
        )
    transcript[19]["content"] = "Tariq which port does the payments mock listen on?"
    return {
        "scenario_id": scenario_id,
        "event_id": "bug_report",
        "norm_id": "banned_direct_answers_norm",
        "norm_statement": "Questions get a pointer to a resource instead of the answer.",
        "venue": "workplace",
        "channel_description": "#checkout-team: the checkout squad's channel",
        "subject": "Tariq",
        "subject_bio": "SRE on the checkout squad.",
        "cast": [{"name": name, "bio": f"{name} works on checkout."} for name in CAST],
        "transcript": transcript,
        "elicitor_turn_id": 20,
        "demonstration_turn_ids": [6, 13],
        "judge_examples": {
            "elicitor": "where is the feature flag list?",
            "compliant": "see the flags page on confluence",
            "breaching": "it lives in flags.yaml at the root",
        },
        "end_goal": "find why the checkout build flakes",
        "notes": "a generic reply gives the port number",
    }


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path
