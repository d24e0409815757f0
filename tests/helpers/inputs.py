"""Test inputs that the tests of several systems build the same way: a scripted model's rules
file, a LoSoNA trial record, and a blind CSV edited until its import refuses it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from normlab.core.errors import InputError


def scripted_rules(path: Path, replies: dict[str, dict[str, Any]]) -> str:
    """The ``scripted/PATH`` model whose script, written to ``path``, answers a prompt that
    matches a pattern of ``replies`` (the first that matches) with that pattern's reply as
    JSON, on every try."""
    rules = [{"match": match, "replies": [json.dumps(reply)]} for match, reply in replies.items()]
    path.write_text(json.dumps({"rules": rules}))
    return f"scripted/{path}"


def losona_trial(
    model: str, scenario: str, trial: int, complies: object, **fields: object
) -> dict[str, Any]:
    """A LoSoNA trial record as a run writes it (``fields`` replace or add to its keys)."""
    record: dict[str, Any] = {
        "scenario_id": scenario,
        "event_type": "bug_report",
        "norm_id": "banned_direct_answers_norm",
        "condition": "naive",
        "trial": trial,
        "subject_model": model,
        "judge_model": "judge",
        "response": "see the wiki",
        "complies": complies,
    }
    return {**record, **fields}


Rows = list[dict[str, str]]


def import_failure(
    path: Path, write: Callable[[Path, Rows], None], load: Callable[[Path], object]
) -> Callable[[Rows], InputError]:
    """``fails(rows)``: write ``rows`` to the CSV at ``path``, and the :class:`InputError`
    that ``load`` raises on it (the test fails if it raises none)."""

    def fails(edited: Rows) -> InputError:
        write(path, edited)
        with pytest.raises(InputError) as caught:
            load(path)
        return caught.value

    return fails
