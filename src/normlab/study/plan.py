"""``study plan``: what a study will cost, take and be able to tell apart, before a paid call.

Calls and tokens are counted, not guessed: each cell's real task runs, through its system's
own run function, with every model (the subject, the agent's own calls, every other role)
replaced by a scripted model that answers like a busy subject (every prompt answered in full,
so every branch that costs calls is taken), into a temporary folder; the counts are read back
from the logs through ``normlab.models.usage``, the one usage path every report uses.
Cells that would dry-run the same way (same system, options, agent and scripts) share one run.

Then: dollars from the prices (the study's ``prices:`` over Inspect's; a model with neither is
"unknown", never $0); a lower bound on wall time, remote calls × latency / connections (every
connection busy for the whole run at the stated latency), and for a local model its tokens at
its measured rate; and the precision of each system's headline at its planned n, on the scale
of its own estimator and with its units' clustering (``normlab.study.power``), at assumed
rates or a pilot's (``normlab.study.pilot``).

The scripted model counts tokens as whitespace-separated words, so the dollars it gives are a
floor; the plan states them beside the same count corrected to tokens (``TOKENS_PER_WORD``),
and the busy scripts (``examples/busy``) write replies of the papers' lengths
(``benchmarks.study_cost`` sets SCENE's against the paper's printed calls, tokens and dollars).
"""

from __future__ import annotations

import dataclasses
import json
import math
import tempfile
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, Field, JsonValue

from normlab.core.errors import InputError
from normlab.core.fields import taken_from
from normlab.models.roles import NORM_MEMORY_ROLE, is_embedded
from normlab.models.usage import SUBJECT_ROLE, RoleUsage, RunUsage, dollars
from normlab.runs.headline import Headline
from normlab.stats.planning import Assumed, Design
from normlab.study.location import read_text, write_text
from normlab.study.pilot import PilotRates, rate_for
from normlab.study.power import ICC, Sizing, precision
from normlab.study.schema import Price, Study
from normlab.study.sequential.sim import ExpectedSaving
from normlab.study.systems import SYSTEMS, Cell, cells, variant_cells

PLAN_FILE = "plan.json"


class RolePlan(BaseModel):
    model: str
    calls: int
    input_tokens: int
    output_tokens: int
    cost: float | None
    """US dollars; ``None`` when the model's price is unknown (shown as "unknown")."""


class Power(BaseModel):
    """A cell's precision at its planned size, on its headline's own scale
    (``normlab.study.power``)."""

    metric: str
    unit: str
    """What n counts: the headline's unit (scenario, sanction, case, run)."""
    n: int
    """The headline's units at the planned size (SCENE's sanctions: expected)."""
    clusters: int
    cluster_unit: str | None
    """What the units cluster in, as the report's interval resamples them."""
    sampled: str
    """What the study sizes: scenario, episode, case, run."""
    sampled_n: int
    method: str
    icc: float
    design_effect: float
    """The variance over the variance of as many independent units (1: none)."""
    assumed_rate: float
    """The headline at the assumed rates (a score, where the headline is one of rates)."""
    assumed: dict[str, JsonValue] = Field(default_factory=dict)
    """The rates assumed, as the system's estimator names them (its ``assumed``), less their
    source: what a sequential plan's simulation draws at."""
    per_sampled: float | None = None
    """The headline's units per sampled unit at this size, where they differ (events per
    sampled unit)."""
    rate_source: str = "assumed"
    """``assumed`` (``--assumed-rate``, HSII's paper row) or the pilot cell(s) it was read
    from (``--pilot``)."""
    halfwidth: float | None
    """95% half-width at the assumed rates and n (None: no interval at this n)."""
    paired_mde: float | None
    """Smallest paired difference between two subjects detectable at 80% power, α = 0.05."""
    pair_correlation: float = 0.0
    discordance: float | None = None
    """Connor's ψ, where the paired units are binary (LoSoNA's scenarios)."""
    n_for_target: int
    """The units (clusters of the same size) whose half-width reaches the target."""
    sampled_for_target: int
    """The same, in what the study sizes (SCENE: episodes)."""


class CellPlan(BaseModel):
    """One cell's plan, counted on its dry run before any paid call: samples, calls and tokens
    per role, the cost, a floor on the wall time, and the power its sample size gives."""

    system: str
    """The system's name."""
    subject: str
    """The subject's name."""
    variant: str | None = None
    """The prompt variant (``variants:``), a cell of its own; None for the paper's prompt."""
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
    """Remote models' calls × latency / connections; with a local model, at least its time."""
    local_s: float = 0.0
    """The local (embedded) model's own time: its tokens at its measured rates, one slot."""
    cost_corrected: float | None = None
    """``cost`` with the scripted words corrected to tokens (``TOKENS_PER_WORD``)."""
    power: Power | None
    sequential: ExpectedSaving | None = None
    """With ``--until-halfwidth``: what a sequential run is expected to leave unrun
    (``normlab.study.sequential.sim``)."""


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
    """A floor: the scripted words priced as tokens."""
    cost_corrected: float | None = None
    """The floor with words corrected to tokens (``tokens_per_word``)."""
    tokens_per_word: dict[str, float] = Field(default_factory=dict)
    icc: float = 0.0
    pair_correlation: float = 0.0
    local_rate: dict[str, float] = Field(default_factory=dict)
    """Tokens per second of the local model: ``prompt`` and ``generation``, and ``source``."""


TOKENS_PER_WORD = {"input": 1.6, "output": 1.3}
"""Real tokens per scripted word. Input: measured on the embedded model (Qwen2.5's tokenizer),
1.5–1.7× the plan's words over LoSoNA, SCENE and HSII prompts (issue 35): prompts hold JSON,
names and transcript markup, which cut into more tokens than prose. Output: the busy scripts
write English replies of realistic length, about 1.3 tokens per word (GPT-4's and Qwen's BPE
on English prose); the replies of a model that reasons before it answers are longer still."""

EMBEDDED_RATE = {"prompt": 85.0, "generation": 20.0}
"""Tokens per second of the embedded model (Qwen2.5-Coder-0.5B Q4_K_M through xllamacpp, one
slot) on the project's 2-core machines, shared with other work: measured by
``calibrate_embedded`` (``study plan --calibrate``), 85.5 and 20.2. ``--calibrate``
measures the machine the plan runs on instead."""

FORMULAS = {
    "wall_s_at_least": (
        "max(remote calls × latency / connections, local model's tokens at its rate: "
        "input / prompt rate + output / generation rate, one slot)"
    ),
    "halfwidth": (
        "per system, the headline's own estimator: a share, Wilson at n / deff, "
        "z·√(p(1−p)/n′ + z²/4n′²)/(1 + z²/n′), n′ = n / deff; HSII's score, the delta method "
        "over r1–r4, z·√(Σₖ gₖ²·rₖ(1−rₖ)/πₖ·deffₖ / n); CRSEC, Student's t over runs"
    ),
    "design_effect": "Kish: deff = 1 + (m̃ − 1)·ρ, m̃ = Σm²/Σm the clusters' effective size",
    "paired_mde": (
        "binary paired units (LoSoNA): Connor (1987), δ√n = z₀.₉₇₅√ψ + z₀.₈₀√(ψ − δ²), "
        "ψ = 2p(1−p)(1 − r); otherwise (z₀.₉₇₅ + z₀.₈₀)·√(2σ²(1 − r)/n)"
    ),
    "tokens": (
        "the scripted model's words: the cost is a floor; cost_corrected counts "
        "tokens_per_word real tokens per word"
    ),
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
    dry = study.systems[cell.system].dry_run
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


@dataclasses.dataclass(frozen=True)
class Counted:
    """What a cell's dry run counted: its usage by role, its headline, and how it sampled the
    headline's units (None for what was not counted: a sequential look prices usage alone)."""

    usage: RunUsage | None
    headline: Headline | None = None
    design: Design | None = None


def dry_run(cell: Cell, model: str, roles: dict[str, str], connections: int) -> Counted:
    """Run the cell's real task, whole, on scripted models into a temporary folder; its usage by
    role (calls include cache hits: a fresh paid run makes those calls), its headline and how
    it sampled the headline's units. What the system prints goes to stderr."""
    from normlab.runs import stdout_to_stderr

    system = SYSTEMS[cell.system]
    with tempfile.TemporaryDirectory(prefix="normlab-plan-") as scratch, stdout_to_stderr():
        folder = Path(scratch) / "logs"
        scripted = dataclasses.replace(cell, model=model, roles=roles, folder=folder)
        # No report: its path would be printed, and the folder it names deleted right after.
        analysis = system.run(scripted, connections, report=False)
        run = system.load([folder])
        return Counted(
            system.usage(analysis), system.headline(run, analysis), system.design(run, analysis)
        )


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
    return None if price is None else dollars(tokens_in, tokens_out, price)


def _total_cost(parts: list[float | None]) -> float | None:
    return None if any(part is None for part in parts) else sum(p for p in parts if p is not None)


def extra_judges(cell: Cell, judge: RolePlan | None, study: Study) -> dict[str, RolePlan]:
    """What each extra judge of the cell's system will cost (a cell of the paper's prompt; a
    variant's cells are not judged again): a second judge runs the system's
    judge again on the finished cell (``normlab.study.judges``: the scorer on the logs;
    CRSEC's analysis on copies of the runs), and every judge call of these systems is made
    there, so it makes the calls the judge role made in the dry run, with the same prompts (as
    the dry run's judge, a busy script answers every one). SCENE's scorer also asks its
    fidelity auditor again, a cached call at temperature 0: not counted."""
    judges = study.systems[cell.system].judges
    if judge is None or not judges or cell.variant is not None:  # the paper's cells only
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


def _is_local(model: str) -> bool:
    """A model that runs on this machine (the embedded one, or a role left to the task's
    default): timed by its token rate, not by a latency over connections."""
    return is_embedded(model) or model == TASK_DEFAULT


def corrected(role: RolePlan, price: Price | None) -> float | None:
    """A role's dollars with its words counted as real tokens (``TOKENS_PER_WORD``)."""
    return _cost(
        round(role.input_tokens * TOKENS_PER_WORD["input"]),
        round(role.output_tokens * TOKENS_PER_WORD["output"]),
        price,
    )


def local_seconds(roles: list[RolePlan], rate: Mapping[str, float]) -> float:
    """The local model's time for these roles' tokens (words corrected to tokens) at its
    prompt and generation rates, on one slot, every prompt evaluated whole (a prefix the
    model's cache reuses costs less)."""
    return sum(
        role.input_tokens * TOKENS_PER_WORD["input"] / rate["prompt"]
        + role.output_tokens * TOKENS_PER_WORD["output"] / rate["generation"]
        for role in roles
        if _is_local(role.model)
    )


def _power(
    cell: Cell,
    counted: Counted,
    assumed: Assumed,
    sizing: Sizing,
) -> Power | None:
    headline, design = counted.headline, counted.design
    if headline is None or design is None or not design.sizes:
        return None
    system = SYSTEMS[cell.system]
    found = precision(system.estimator, design, assumed, sizing)
    # Every other field of Power is the precision's of the same name, as found.
    return taken_from(
        Power,
        found,
        metric=headline.metric,
        n=round(found.n),
        cluster_unit=design.cluster,
        sampled=design.sampled,
        sampled_n=design.sampled_n,
        icc=sizing.icc,
        design_effect=round(found.design_effect, 4),
        assumed_rate=found.value,
        assumed=assumed.model_dump(mode="json", exclude={"source"}),
        per_sampled=system.estimator.per_sampled_units(found.n, design),
        rate_source=system.estimator.source(assumed),
        pair_correlation=sizing.correlation,
    )


def plan_cell(
    cell: Cell,
    counted: Counted,
    study: Study,
    latency: float,
    assumed: Assumed,
    sizing: Sizing,
    local_rate: Mapping[str, float] = EMBEDDED_RATE,
) -> CellPlan:
    usage = counted.usage
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
    every = [*roles.values(), *extra.values()]
    remote = sum(r.calls for r in every if not _is_local(r.model))
    local = local_seconds(every, local_rate)
    return CellPlan(
        system=cell.system,
        subject=cell.subject.name,
        variant=cell.variant,
        samples=usage.units if usage else 0,
        roles=roles,
        calls=calls,
        input_tokens=sum(r.input_tokens for r in roles.values()),
        output_tokens=sum(r.output_tokens for r in roles.values()),
        extra_judges=extra,
        cost=_total_cost([r.cost for r in every]),
        cost_corrected=_total_cost([corrected(r, price_of(r.model, study.prices)) for r in every]),
        wall_s_at_least=round(max(remote * latency / study.max_connections, local), 1),
        local_s=round(local, 1),
        power=_power(cell, counted, assumed, sizing),
    )


LATENCY_S = 2.0
ASSUMED_RATE = 0.5
TARGET_HALFWIDTH = 0.05
"""``plan_study``'s defaults: seconds per call, the headline's assumed rate, the half-width."""


def plan_one(cell: Cell, study: Study) -> CellPlan:
    """One cell counted and priced as ``plan_study`` does it (a dry run on scripted models,
    no paid call), at its default assumptions."""
    model, roles = dry_models(cell, study)
    counted = dry_run(cell, model, roles, study.max_connections)
    assumed = rate_for(None, cell.system, cell.subject.name, ASSUMED_RATE)
    return plan_cell(cell, counted, study, LATENCY_S, assumed, Sizing(TARGET_HALFWIDTH))


def plan_study(
    study: Study,
    latency: float = LATENCY_S,
    rate: float = ASSUMED_RATE,
    target: float = TARGET_HALFWIDTH,
    pilot: PilotRates | None = None,
    icc: float = ICC,
    correlation: float = 0.0,
    local_rate: Mapping[str, float] | None = None,
) -> StudyPlan:
    """Dry-run every cell (once per distinct dry run) and plan it; see the module docstring.
    ``pilot``: rates read from a pilot's logs (``normlab.study.pilot``), over ``rate``;
    ``icc``: the units' correlation within a cluster; ``correlation``: two subjects' on a
    shared unit; ``local_rate``: the local model's tokens per second (measured)."""
    if not 0.0 < target < 0.5:
        raise InputError("--target-halfwidth", f"must lie in (0, 0.5), got {target}")
    if not 0.0 < rate < 1.0:
        raise InputError("--assumed-rate", f"must lie in (0, 1), got {rate}")
    if not 0.0 <= latency < math.inf:  # a NaN fails this too
        raise InputError("--latency", f"seconds per call: a number ≥ 0, got {latency}")
    if not 0.0 <= icc < 1.0:
        raise InputError("--icc", f"an intra-cluster correlation in [0, 1), got {icc}")
    if not 0.0 <= correlation < 1.0:
        raise InputError("--pair-correlation", f"a correlation in [0, 1), got {correlation}")
    from normlab.runs import note

    sizing = Sizing(target, icc, correlation)
    speed = dict(local_rate or EMBEDDED_RATE)
    counted: dict[str, Counted] = {}
    plans = []
    for cell in [*cells(study), *variant_cells(study)]:  # a variant's cells are cells too
        model, roles = dry_models(cell, study)
        key = json.dumps([cell.system, cell.options, model, roles], sort_keys=True, default=str)
        if key not in counted:
            note(f"plan: dry run of {cell.label} on scripted models")
            counted[key] = dry_run(cell, model, roles, study.max_connections)
        assumed = rate_for(pilot, cell.system, cell.subject.name, rate)
        plans.append(plan_cell(cell, counted[key], study, latency, assumed, sizing, speed))
    return StudyPlan(
        study=study.name,
        latency_s=latency,
        connections=study.max_connections,
        target_halfwidth=target,
        formulas=FORMULAS,
        cells=plans,
        cost=_total_cost([p.cost for p in plans]),
        cost_corrected=_total_cost([p.cost_corrected for p in plans]),
        tokens_per_word=TOKENS_PER_WORD,
        icc=icc,
        pair_correlation=correlation,
        local_rate={k: v for k, v in speed.items() if isinstance(v, float)},
    )


def write_plan(plan: StudyPlan, out: Path | str) -> str:
    """``OUT/plan.json``: what ``study report`` sets each cell's calls against."""
    return write_text(out, PLAN_FILE, plan.model_dump_json(indent=2))


def read_plan(out: Path | str) -> StudyPlan | None:
    """The plan ``study plan`` wrote in the study's output folder, or ``None`` if none."""
    text = read_text(out, PLAN_FILE)
    return None if text is None else StudyPlan.model_validate_json(text)
