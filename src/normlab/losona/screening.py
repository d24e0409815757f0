"""No-demonstration screening (paper §3, §5.4): keep only candidates a default reply breaches.

For each candidate, remove its marked demonstration turns (same elicitor), ask
each screening model for a ``naive`` reply, and judge it against the norm. If
any baseline reply already complies, the candidate cannot tell local adaptation
from default behaviour and is rejected. Several screening models may be given —
the paper's limitation was a single (Gemini-family) screening model. A baseline
whose judgement failed to parse rejects the candidate too ("unproven"), since
screening must show a breach, not assume one.

Screening is an Inspect task (``losona_screen``: one sample per candidate, one
epoch per baseline reply, the LoSoNA judge as scorer) run through ``eval_set``
with every screening model, so it resumes, logs and opens in ``inspect view``
like any run. The decisions are derived from the logs into
``screening_log.jsonl`` (one row per candidate), ``accepted.jsonl`` and
``rejected.jsonl`` (with reasons).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from normlab.core.errors import at_least
from normlab.core.evalrun import run_task
from normlab.core.jsonio import write_jsonl
from normlab.core.logs import read_samples
from normlab.core.outputs import output_folder
from normlab.losona.analysis import record_of
from normlab.losona.schemas import Scenario
from normlab.losona.task import losona_screen

SCREENING_LOG = "screening_log.jsonl"


class BaselineReply(BaseModel):
    model: str
    sample: int
    response: str
    complies: bool | None
    judge_reasoning: str


class ScreeningResult(BaseModel):
    scenario: Scenario
    decision: Literal["accepted", "rejected"]
    reasons: list[str]
    baselines: list[BaselineReply]


def decide(baselines: list[BaselineReply]) -> tuple[Literal["accepted", "rejected"], list[str]]:
    reasons = []
    for reply in baselines:
        if reply.complies is True:
            reasons.append(
                f"{reply.model} (sample {reply.sample}) complies without demonstrations: "
                f"{reply.response!r}"
            )
        elif reply.complies is None:
            reasons.append(
                f"{reply.model} (sample {reply.sample}): judge reply unparseable, breach unproven"
            )
    return ("rejected" if reasons else "accepted"), reasons


def write_outcome_files(results: list[ScreeningResult], out_dir: Path) -> None:
    """Decisions; accepted scenarios as plain rows; rejected ones with their screening record."""
    write_jsonl(out_dir / SCREENING_LOG, results)
    write_jsonl(
        out_dir / "accepted.jsonl",
        [r.scenario for r in results if r.decision == "accepted"],
    )
    write_jsonl(
        out_dir / "rejected.jsonl",
        [
            {
                **r.scenario.model_dump(mode="json"),
                "screening": {
                    "reasons": r.reasons,
                    "baselines": [b.model_dump(mode="json") for b in r.baselines],
                },
            }
            for r in results
            if r.decision == "rejected"
        ],
    )


def screen(
    scenarios: list[Scenario],
    subject_models: list[str],
    judge_model: str,
    samples: int,
    out_dir: Path,
) -> list[ScreeningResult]:
    """Run (or resume) screening of ``scenarios``; write and return the decisions."""
    at_least("--samples", samples, 1)
    output_folder(out_dir, "--out")
    candidates = out_dir / "candidates.jsonl"
    write_jsonl(candidates, scenarios)
    logs = run_task(
        losona_screen(scenarios=str(candidates), samples=samples),
        out_dir / "logs",
        subject_models,
        {"judge": judge_model},
    )
    baselines: dict[str, list[BaselineReply]] = {s.scenario_id: [] for s in scenarios}
    for item in read_samples(logs).samples:
        record = record_of(item)
        if record is not None and record.scenario_id in baselines:
            baselines[record.scenario_id].append(
                BaselineReply(
                    model=record.subject_model,
                    sample=record.trial,
                    **record.model_dump(include={"response", "complies", "judge_reasoning"}),
                )
            )
    order = {model: index for index, model in enumerate(subject_models)}
    results = []
    for scenario in scenarios:
        replies = sorted(
            baselines[scenario.scenario_id], key=lambda b: (order.get(b.model, 0), b.sample)
        )
        decision, reasons = decide(replies)
        results.append(
            ScreeningResult(
                scenario=scenario, decision=decision, reasons=reasons, baselines=replies
            )
        )
    write_outcome_files(results, out_dir)
    return results
