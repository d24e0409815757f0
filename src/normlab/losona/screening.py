"""No-demonstration screening (paper §3, §5.4): keep only candidates a default reply breaches.

For each candidate, remove its marked demonstration turns (same elicitor), ask
each screening model for a ``naive`` reply, and judge it against the norm. If
any baseline reply already complies, the candidate cannot tell local adaptation
from default behaviour and is rejected. Several screening models may be given —
the paper's limitation was a single (Gemini-family) screening model. A baseline
whose judgement failed to parse rejects the candidate too ("unproven"), since
screening must show a breach, not assume one.

Each screened candidate is appended to ``screening_log.jsonl`` as it finishes,
so a rerun skips finished candidates; ``accepted.jsonl`` and ``rejected.jsonl``
(with reasons) are rewritten from that log at the end.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Literal

from inspect_ai.model import ChatMessageUser, GenerateConfig, Model, get_model
from pydantic import BaseModel

from normlab.core.batch import run_batch
from normlab.core.jsonio import append_jsonl, read_jsonl_rows, validate_row
from normlab.losona.dataset import Scenario
from normlab.losona.prompts import render_subject_prompt
from normlab.losona.scorer import judge_response
from normlab.losona.task import SUBJECT_MAX_TOKENS, SUBJECT_TEMPERATURE

SCREENING_LOG = "screening_log.jsonl"
BASELINE_CONDITION = "naive"


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


def without_demonstrations(scenario: Scenario) -> Scenario:
    """The no-demonstration control: the same transcript and elicitor minus the marked demos."""
    removed = set(scenario.demonstration_turn_ids)
    return scenario.model_copy(
        update={
            "transcript": [turn for turn in scenario.transcript if turn.turn_id not in removed],
            "demonstration_turn_ids": [],
        }
    )


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


async def screen_scenario(
    scenario: Scenario, subjects: list[Model], judge: Model, samples: int
) -> ScreeningResult:
    control = without_demonstrations(scenario)
    prompt = render_subject_prompt(control, BASELINE_CONDITION)
    config = GenerateConfig(temperature=SUBJECT_TEMPERATURE, max_tokens=SUBJECT_MAX_TOKENS)

    async def baseline(subject: Model, sample: int) -> BaselineReply:
        output = await subject.generate([ChatMessageUser(content=prompt)], config=config)
        verdict = (await judge_response(judge, control, output.completion)).value
        return BaselineReply(
            model=str(subject),
            sample=sample,
            response=output.completion,
            complies=None if verdict is None else verdict.complies,
            judge_reasoning=verdict.reasoning if verdict else "judge reply unparseable",
        )

    baselines = list(
        await asyncio.gather(
            *(baseline(subject, sample) for subject in subjects for sample in range(1, samples + 1))
        )
    )
    decision, reasons = decide(baselines)
    return ScreeningResult(
        scenario=scenario, decision=decision, reasons=reasons, baselines=baselines
    )


def _finished(log_path: Path) -> dict[str, ScreeningResult]:
    if not log_path.exists():
        return {}
    results = [
        validate_row(ScreeningResult, row, log_path, line)
        for line, row in read_jsonl_rows(log_path)
    ]
    return {result.scenario.scenario_id: result for result in results}


def write_outcome_files(results: list[ScreeningResult], out_dir: Path) -> tuple[Path, Path]:
    """Accepted scenarios as plain rows; rejected ones with their screening record."""
    accepted_path, rejected_path = out_dir / "accepted.jsonl", out_dir / "rejected.jsonl"
    with (
        accepted_path.open("w", encoding="utf-8") as accepted,
        rejected_path.open("w", encoding="utf-8") as rejected,
    ):
        for result in results:
            row = result.scenario.model_dump(mode="json")
            if result.decision == "accepted":
                accepted.write(json.dumps(row, ensure_ascii=False) + "\n")
            else:
                row["screening"] = {
                    "reasons": result.reasons,
                    "baselines": [b.model_dump(mode="json") for b in result.baselines],
                }
                rejected.write(json.dumps(row, ensure_ascii=False) + "\n")
    return accepted_path, rejected_path


async def screen_all(
    scenarios: list[Scenario],
    subject_models: list[str],
    judge_model: str,
    samples: int,
    out_dir: Path,
) -> list[ScreeningResult]:
    out_dir.mkdir(parents=True, exist_ok=True)
    log_path = out_dir / SCREENING_LOG
    finished = _finished(log_path)
    subjects = [get_model(name) for name in subject_models]
    judge = get_model(judge_model)
    todo = [scenario for scenario in scenarios if scenario.scenario_id not in finished]
    await run_batch(
        todo,
        lambda scenario: screen_scenario(scenario, subjects, judge, samples),
        concurrency=min(model.api.max_connections() for model in [*subjects, judge]),
        description="screening without demonstrations",
        on_result=lambda _, result: append_jsonl(log_path, result),
    )
    by_id = _finished(log_path)
    results = [by_id[scenario.scenario_id] for scenario in scenarios]
    write_outcome_files(results, out_dir)
    return results


def screen(
    scenarios: list[Scenario],
    subject_models: list[str],
    judge_model: str,
    samples: int,
    out_dir: Path,
) -> list[ScreeningResult]:
    return asyncio.run(screen_all(scenarios, subject_models, judge_model, samples, out_dir))
