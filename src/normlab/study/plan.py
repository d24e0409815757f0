"""``study plan``: what a study will cost, take and be able to tell apart, before a paid call.

Calls and tokens are counted, not guessed: each cell's real task runs, through its system's
own run function, with every model (the subject, the agent's own calls, every other role)
replaced by a scripted model that answers like a busy subject (every prompt answered in full,
so every branch that costs calls is taken), into a temporary folder; the counts are read back
from the logs through :mod:`normlab.models.usage`, the one usage path every report uses.
Cells that would dry-run the same way (same system, options, agent and scripts) share one run.

Then: dollars from the prices (the study's ``prices:`` over Inspect's; a model with neither is
"unknown", never $0); a lower bound on wall time, calls × latency / connections (every
connection busy for the whole run at the stated latency); and power for each system's headline
rate at its planned n, from :mod:`normlab.stats`, at an assumed rate or a pilot's
(:mod:`normlab.study.pilot`).

The scripted model counts tokens as whitespace-separated words; a real tokenizer gives about
1.3 tokens per English word, so dollars are a floor on the same count of calls.
"""

from __future__ import annotations

import dataclasses
import json
import math
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from normlab import stats
from normlab.core.errors import InputError
from normlab.models.roles import NORM_MEMORY_ROLE, is_embedded
from normlab.models.usage import SUBJECT_ROLE, RoleUsage
from normlab.study.location import read_text, write_text
from normlab.study.pilot import PilotRates, rate_for
from normlab.study.schema import Price, Study
from normlab.study.systems import SYSTEMS, Cell, cells

PLAN_FILE = "plan.json"


class RolePlan(BaseModel):
    model: str
    calls: int
    input_tokens: int
    output_tokens: int
    cost: float | None
    """US dollars; ``None`` when the model's price is unknown (shown as "unknown")."""


class Power(BaseModel):
    metric: str
    unit: str
    n: int
    assumed_rate: float
    rate_source: str = "assumed"
    """``assumed`` (``--assumed-rate``) or the pilot cell(s) it was read from (``--pilot``)."""
    halfwidth: float | None
    """Wilson 95% half-width at the assumed rate and n."""
    paired_mde: float | None
    """Smallest paired difference between two subjects detectable at 80% power, α = 0.05."""
    n_for_target: int
    """The n (units) whose half-width reaches the target."""


class CellPlan(BaseModel):
    """One cell's plan, counted on its dry run before any paid call: samples, calls and tokens
    per role, the cost, a floor on the wall time, and the power its sample size gives."""

    system: str
    """The system's name."""
    subject: str
    """The subject's name."""
    samples: int
    roles: dict[str, RolePlan]
    calls: int
    """The cell's own run (what ``study report`` sets the run's calls against)."""
    input_tokens: int
    output_tokens: int
    extra_judges: dict[str, RolePlan] = Field(default_factory=dict)
    """Each extra judge (``judges:``) by model: the judge role's calls again, at its price."""
    cost: float | None
    """The run's and every extra judge's."""
    wall_s_at_least: float
    power: Power | None


class StudyPlan(BaseModel):
    """What ``study plan`` writes and ``study run`` and ``study report`` read: every cell's
    plan, the assumptions it was counted under, and the total cost."""

    study: str
    """The study's name."""
    latency_s: float
    connections: int
    target_halfwidth: float
    formulas: dict[str, str]
    cells: list[CellPlan]
    cost: float | None


FORMULAS = {
    "wall_s_at_least": "(calls + extra judges' calls) × latency / connections",
    "halfwidth": "Wilson: z·√(p(1−p)/n + z²/4n²) / (1 + z²/n), z = 1.96",
    "paired_mde": "(z₀.₉₇₅ + z₀.₈₀)·√(2p(1−p)/n), subjects independent within a unit",
    "tokens": "the scripted model's words; real tokenizers count about 1.3× more",
    "extra_judges": "each extra judge: the judge role's calls and tokens, at its own price",
}


TASK_DEFAULT = "embedded (task default)"
"""What the plan names a role the study binds to no model: the task's default, embedded."""
LOCAL = Price(input=0.0, output=0.0)


def price_of(model: str, prices: Mapping[str, Price]) -> Price | None:
    """The study's price for ``model``, else Inspect's, else ``None`` (unknown). The embedded
    model runs on this machine and bills no tokens: $0, so a study that uses it for a role
    still has a total."""
    if model in prices:
        return prices[model]
    if is_embedded(model) or model == TASK_DEFAULT:
        return LOCAL
    from inspect_ai.model import get_model_info

    info = get_model_info(model)
    cost = info.cost if info is not None else None
    return Price(input=cost.input, output=cost.output) if cost is not None else None


def dry_models(cell: Cell, study: Study) -> tuple[str, dict[str, str]]:
    """The scripted subject and role models a cell's dry run uses: the system's ``dry_run``,
    else the cell's own models when every one is scripted."""
    system = SYSTEMS[cell.system]
    roles = system.roles()
    dry = study.systems[cell.system].dry_run  # type: ignore[index]
    if dry is not None:
        return dry.model, {role: dry.roles.get(role, dry.model) for role in roles}
    own = {role: cell.roles.get(role, "") for role in roles}
    if cell.model.startswith("scripted/") and all(m.startswith("scripted/") for m in own.values()):
        return cell.model, own
    raise InputError(
        "study",
        "the plan needs scripted models to count with: give dry_run.model (a busy script)",
        field=f"systems.{cell.system}.dry_run",
    )


def dry_run(cell: Cell, model: str, roles: dict[str, str], connections: int) -> dict[str, Any]:
    """Run the cell's real task, whole, on scripted models into a temporary folder; its usage by
    role (calls include cache hits: a fresh paid run makes those calls) and samples. What the
    system prints goes to stderr."""
    from normlab.commands import stdout_to_stderr

    system = SYSTEMS[cell.system]
    with tempfile.TemporaryDirectory(prefix="normlab-plan-") as scratch, stdout_to_stderr():
        scripted = dataclasses.replace(
            cell, model=model, roles=roles, folder=Path(scratch) / "logs"
        )
        # No report: its path would be printed, and the folder it names deleted right after.
        analysis = system.run(scripted, connections, report=False)
    return {"usage": system.usage(analysis), "headline": system.headline(analysis)}


def _role_plan(model: str, usage: RoleUsage, price: Price | None) -> RolePlan:
    calls = usage.calls + usage.cache_hits
    tokens_in = usage.input_tokens + usage.cache_hit_input_tokens
    tokens_out = usage.output_tokens + usage.cache_hit_output_tokens
    return RolePlan(
        model=model,
        calls=calls,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        cost=_cost(tokens_in, tokens_out, price),
    )


def _cost(tokens_in: int, tokens_out: int, price: Price | None) -> float | None:
    """US dollars at ``price`` (per million tokens); ``None`` when the price is unknown."""
    return None if price is None else (tokens_in * price.input + tokens_out * price.output) / 1e6


def _total_cost(parts: list[float | None]) -> float | None:
    return None if any(part is None for part in parts) else sum(p for p in parts if p is not None)


def extra_judges(cell: Cell, judge: RolePlan | None, study: Study) -> dict[str, RolePlan]:
    """What each extra judge of the cell's system will cost: a second judge runs the system's
    judge again on the finished cell (:mod:`normlab.study.judges`: the scorer on the logs;
    CRSEC's analysis on copies of the runs), and every judge call of these systems is made
    there, so it makes the calls the judge role made in the dry run, with the same prompts (as
    the dry run's judge, a busy script answers every one). SCENE's scorer also asks its
    fidelity auditor again, a cached call at temperature 0: not counted."""
    judges = study.systems[cell.system].judges  # type: ignore[index]
    if judge is None or not judges:
        return {}
    return {
        model: RolePlan(
            model=model,
            calls=judge.calls,
            input_tokens=judge.input_tokens,
            output_tokens=judge.output_tokens,
            cost=_cost(judge.input_tokens, judge.output_tokens, price_of(model, study.prices)),
        )
        for model in judges
    }


def plan_cell(
    cell: Cell,
    counted: dict[str, Any],
    study: Study,
    latency: float,
    rate: tuple[float, str],
    target: float,
) -> CellPlan:
    usage = counted["usage"]
    roles: dict[str, RolePlan] = {}
    for role, used in sorted((usage.roles if usage else {}).items()):
        if role == SUBJECT_ROLE:
            model = cell.model
        elif role == NORM_MEMORY_ROLE:
            model = cell.roles.get(role, cell.model)
        else:
            model = cell.roles.get(role, TASK_DEFAULT)
        roles[role] = _role_plan(model, used, price_of(model, study.prices))
    extra = extra_judges(cell, roles.get("judge"), study)
    calls = sum(r.calls for r in roles.values())
    headline = counted["headline"]
    power = None
    if headline is not None:
        n, (p, source) = headline.n, rate
        power = Power(
            metric=headline.metric,
            unit=headline.unit,
            n=n,
            assumed_rate=p,
            rate_source=source,
            halfwidth=stats.wilson_halfwidth(p, n) if n else None,
            paired_mde=stats.paired_mde(n, p) if n else None,
            n_for_target=stats.n_for_halfwidth(target, p),
        )
    return CellPlan(
        system=cell.system,
        subject=cell.subject.name,
        samples=usage.units if usage else 0,
        roles=roles,
        calls=calls,
        input_tokens=sum(r.input_tokens for r in roles.values()),
        output_tokens=sum(r.output_tokens for r in roles.values()),
        extra_judges=extra,
        cost=_total_cost([r.cost for r in [*roles.values(), *extra.values()]]),
        wall_s_at_least=round(
            (calls + sum(j.calls for j in extra.values())) * latency / study.max_connections, 1
        ),
        power=power,
    )


def plan_study(
    study: Study,
    latency: float = 2.0,
    rate: float = 0.5,
    target: float = 0.05,
    pilot: PilotRates | None = None,
) -> StudyPlan:
    """Dry-run every cell (once per distinct dry run) and plan it; see the module docstring.
    ``pilot``: rates read from a pilot's logs (:mod:`normlab.study.pilot`), over ``rate``."""
    if not 0.0 < target < 0.5:
        raise InputError("--target-halfwidth", f"must lie in (0, 0.5), got {target}")
    if not 0.0 < rate < 1.0:
        raise InputError("--assumed-rate", f"must lie in (0, 1), got {rate}")
    if not 0.0 <= latency < math.inf:  # a NaN fails this too
        raise InputError("--latency", f"seconds per call: a number ≥ 0, got {latency}")
    from normlab.commands import note

    counted: dict[str, dict[str, Any]] = {}
    plans = []
    for cell in cells(study):
        model, roles = dry_models(cell, study)
        key = json.dumps([cell.system, cell.options, model, roles], sort_keys=True, default=str)
        if key not in counted:
            note(f"plan: dry run of {cell.label} on scripted models")
            counted[key] = dry_run(cell, model, roles, study.max_connections)
        cell_rate = rate_for(pilot, cell.system, cell.subject.name, rate)
        plans.append(plan_cell(cell, counted[key], study, latency, cell_rate, target))
    return StudyPlan(
        study=study.name,
        latency_s=latency,
        connections=study.max_connections,
        target_halfwidth=target,
        formulas=FORMULAS,
        cells=plans,
        cost=_total_cost([p.cost for p in plans]),
    )


def write_plan(plan: StudyPlan, out: Path | str) -> str:
    """``OUT/plan.json``: what ``study report`` sets each cell's calls against."""
    return write_text(out, PLAN_FILE, plan.model_dump_json(indent=2))


def read_plan(out: Path | str) -> StudyPlan | None:
    """The plan ``study plan`` wrote in the study's output folder, or ``None`` if none."""
    text = read_text(out, PLAN_FILE)
    return None if text is None else StudyPlan.model_validate_json(text)
