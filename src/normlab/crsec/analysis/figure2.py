"""What the paper plots (Figure 2), measured from run directories.

Definitions (the paper gives none; ours, also in the README):

- **social conflicts** in an hour: observations a DetectConflict call found in conflict with
  the observer's qualified norms (Q1 = yes), counted per observation;
- **norm-related chats**: conversations in which the receiver identified normative
  information; **norm-related thoughts**: thoughts from which normative information was
  identified;
- **holding** norm *k* at the end of hour *t*: the share of agents whose qualified norms
  include one that the judge deems to express *k* (an abstract norm counts when it
  expresses *k*; when synthesis folds a matching norm into one that does not, the share dips,
  as in the paper's curves);
- **complying** with *k* in hour *t*, in plans and in actions apart: the share of agents
  whose plan for the hour, or whose subtasks in the hour, the judge finds *explicitly*
  compliant (a smoker smoking outside, a talker using headphones, a diner tipping);
  trivial compliance (a non-smoker not smoking) is "not shown" and does not count;
  **adhering**: compliant in the plan or the actions and violating in neither;
- **emergence time**: the first simulated hour at whose end more than 70% of agents both
  hold and adhere to the norm (``normlab.crsec.emergence``: the paper's "widely accepted and
  adhered to by a significant majority", "over 70% agents"); the first hour over 70% of each
  of Figure 2(b)'s curves alone (holding, adhering) is reported beside it, never as
  emergence; hour 1 is the first simulated hour, the one the figures' x axis puts at 1 and
  names ``09–10``.

The counts of Figure 2(a) are read from ``events.jsonl``
(``HourCounter``, which the simulation counts its own hours with),
the log of what happened, so a run is measured from its events alone; the simulation's
``metrics.jsonl`` keeps each hour's calls, tokens and cost.

Several runs give, per hour, the mean and the min–max band; final shares and emergence
times carry their n and an interval over runs (a single run's final share is k of n agents
with no interval: its agents are not independent), and emergence times the runs that never
got over 70% (censored at their last hour).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from normlab.core.errors import InputError
from normlab.crsec.analysis.judge import NOT_SHOWN, Judge, Verdict, gather_all
from normlab.crsec.emergence import emergence_hour
from normlab.crsec.sim.clock import clock_of
from normlab.crsec.sim.counts import EVENT_COUNTS, HourCounter
from normlab.crsec.sim.events import AgentSnapshot, CallEvent, HourData
from normlab.crsec.sim.rundir import CHECKPOINT, CONFIG, EVENTS, METRICS, RunDir
from normlab.crsec.sim.schemas import HourMetrics, RunConfig, TargetNorm, Usage, WorldState
from normlab.models import ModelClient, RoleUsage, RunUsage
from normlab.models.prefix_scheduler import shared_prefix_length
from normlab.models.usage import usage_by
from normlab.norms.clock import Clock
from normlab.stats import Band, Estimate, Rate

MEASURES = ("holding", "plan", "actions", "adhering", "both")
"""Per agent and hour: holds the norm, complies in its plan, in its actions, adheres, and
both holds and adheres (what emergence counts: ``normlab.crsec.emergence``)."""
EMERGENCE_MEASURES = ("both", "holding", "adhering")
"""Whose first hour over 70% each run reports: ``both`` is the norm's emergence; holding and
adhering are Figure 2(b)'s two curves, each read alone."""
COUNTS = (
    "conflicts",
    "norm_thoughts",
    "norm_chats",
    "thoughts",
    "chats",
    "accepted",
    "unanswered",
)
ANALYZED_FILES = (CONFIG, CHECKPOINT, EVENTS, METRICS)
"""What [`load_run`][normlab.crsec.load_run] reads of a run folder: a copy of these (and nothing of
the judge's cache) is a run the analysis reads as the original, judged afresh."""


@dataclass
class LoadedRun:
    """One run directory read once: its config, hour snapshots, metrics and calls."""

    folder: Path
    config: RunConfig
    state: WorldState | None
    hours: list[HourData] = field(default_factory=list)
    metrics: list[HourMetrics] = field(default_factory=list)
    calls: list[CallEvent] = field(default_factory=list)

    @property
    def clock(self) -> Clock:
        return clock_of(self.config)

    @property
    def finished(self) -> bool:
        return self.state is not None and self.state.finished


def held_contents(run: LoadedRun) -> set[str]:
    """Every qualified norm's words at some hour's end: what the judge matches to the norms."""
    return {
        norm.content
        for hour in run.hours
        for state in hour.agents.values()
        for norm in state.qualified
    }


def load_run(folder: Path) -> LoadedRun:
    """A run directory read once; Figure 2(a)'s counts from its events (``HourCounter``),
    each hour's usage from ``metrics.jsonl``."""
    run = RunDir(folder)
    loaded = LoadedRun(folder, run.config(), run.checkpoint())
    counter = HourCounter()
    counted: list[HourMetrics] = []
    for event in run.events():
        if event.kind == "hour":
            loaded.hours.append(event.data)
        elif event.kind == "call":
            loaded.calls.append(event)
        closed = counter.add(event)
        if closed is not None:
            counted.append(closed)
    written = {metrics.hour: metrics for metrics in run.metrics()}
    loaded.metrics = [
        written[hour.hour].model_copy(update={name: getattr(hour, name) for name in EVENT_COUNTS})
        if hour.hour in written
        else hour
        for hour in counted
    ]
    if not loaded.hours:
        raise InputError(
            folder, "the run has not finished a simulated hour yet: nothing to analyze"
        )
    return loaded


class HourShares(BaseModel):
    """Per target norm, the share of agents holding / complying at the end of one hour."""

    hour: int
    label: str
    holding: dict[str, float]
    plan: dict[str, float]
    actions: dict[str, float]
    adhering: dict[str, float]
    both: dict[str, float]
    """The share holding it and adhering to it, each agent both: what emergence reads."""


class Emergence(BaseModel):
    """First simulated hour (1-based, hours elapsed) at whose end over 70% of the agents hold
    and adhere (``both``: the norm emerged, ``normlab.crsec.emergence``), hold, adhere;
    None: never."""

    holding: int | None
    adhering: int | None
    both: int | None = None


class RunResult(BaseModel):
    folder: str
    label: str
    seed: int
    models: dict[str, str]
    faithful: bool
    finished: bool
    agents: int
    hours: list[HourShares]
    counts: list[HourMetrics]
    emergence: dict[str, Emergence]
    final: dict[str, dict[str, float]]
    usage: Usage
    by_operation: dict[str, RoleUsage]
    prefix_share: float | None
    """Share of the agents' prompt characters repeating that agent's previous prompt."""
    prefix_share_by_agent: dict[str, float | None]
    judge_calls: int
    judge_cached: int
    judge_failures: int
    norm_databases: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    final_adhering: dict[str, dict[str, bool]] = Field(default_factory=dict)
    """Target → agent → adhering at the last hour: the flags ``final``'s adhering share is the
    share of (a second judge's agreement is counted on these)."""


def _share(flags: list[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0


def violated(verdict: Verdict) -> bool:
    """Whether the hour's plan or its actions break the norm (either one suffices)."""
    return "violated" in verdict


def _complied(verdict: Verdict) -> tuple[bool, bool, bool]:
    plan, actions = verdict
    plan_ok, actions_ok = plan == "complied", actions == "complied"
    return plan_ok, actions_ok, (plan_ok or actions_ok) and not violated(verdict)


def verdict_word(verdict: Verdict) -> str:
    """One agent's hour on one norm in a word: ``violated`` (in its plan or its actions),
    ``complied`` (adhering: shown in either, violated in neither) or ``not shown``."""
    if violated(verdict):
        return "violated"
    return "complied" if _complied(verdict)[2] else "not shown"


def prompt_prefix_shares(
    calls: list[CallEvent],
) -> tuple[float | None, dict[str, float | None]]:
    """Per agent and overall: characters of each prompt repeating the agent's previous one."""
    previous: dict[str, str] = {}
    totals: dict[str, list[int]] = {}
    for call in calls:
        if call.data.role != "agent":
            continue
        text = f"{call.data.system}\n{call.data.prompt}"
        agent = call.agent
        total = totals.setdefault(agent, [0, 0])
        total[0] += shared_prefix_length(text, previous.get(agent, ""))
        total[1] += len(text)
        previous[agent] = text
    by_agent = {
        agent: shared / whole if whole else None for agent, (shared, whole) in totals.items()
    }
    shared_all = sum(t[0] for t in totals.values())
    whole_all = sum(t[1] for t in totals.values())
    return (shared_all / whole_all if whole_all else None), by_agent


def usage_by_operation(calls: list[CallEvent]) -> dict[str, RoleUsage]:
    return usage_by((call.data for call in calls), lambda data: data.operation)


Matches = dict[str, list[str]]
"""A qualified norm's words → the ids of the norms at stake the judge deems it to express."""
Verdicts = dict[tuple[int, str], dict[str, Verdict]]
"""(hour, agent) → norm id → the judge's (plan, actions) verdict."""


async def judge_matches(
    judge: Judge, contents: list[str], progress: Callable[[], None] | None = None
) -> Matches:
    """Each qualified norm's words → the judge's matches among ``judge.targets``."""
    jobs = [lambda content=content: judge.matches(content) for content in contents]
    return dict(zip(contents, await gather_all(jobs, progress), strict=True))


async def compliance_verdicts(
    loaded: LoadedRun,
    judge: Judge,
    names: list[str],
    progress: Callable[[], None] | None = None,
) -> Verdicts:
    """Every agent-hour's compliance verdicts on ``judge.targets`` (cached in the run's judge
    cache, so asking again for the same targets costs nothing)."""
    cells = [(hour.hour, name) for hour in loaded.hours for name in names]
    snapshot = {hour.hour: hour.agents for hour in loaded.hours}

    def job(hour: int, name: str) -> Callable[[], Any]:
        state = snapshot[hour].get(name, AgentSnapshot())
        return lambda: judge.compliance(name, state.plan, list(state.actions))

    answers = await gather_all([job(hour, name) for hour, name in cells], progress)
    return dict(zip(cells, answers, strict=True))


async def analyze_run(
    loaded: LoadedRun, judge: Judge, progress: Callable[[], None] | None = None
) -> RunResult:
    """The run's hourly shares, emergence times and usage; judge verdicts come from the cache
    where they can."""
    targets = loaded.config.society.norms
    agents = [agent.name for agent in loaded.config.society.agents]
    contents = sorted(held_contents(loaded))
    cached_before = len(judge.cache)
    matched = await judge_matches(judge, contents, progress)
    verdicts = await compliance_verdicts(loaded, judge, agents, progress)
    shares = [
        _hour_shares(hour, hour_flags(hour, agents, targets, matched, verdicts))
        for hour in loaded.hours
    ]
    emergence = {
        target.id: Emergence(
            **{
                measure: emergence_hour([getattr(s, measure)[target.id] for s in shares])
                for measure in EMERGENCE_MEASURES
            }
        )
        for target in targets
    }
    last = shares[-1]
    share, by_agent = prompt_prefix_shares(loaded.calls)
    return RunResult(
        folder=str(loaded.folder),
        label=loaded.config.label,
        seed=loaded.config.seed,
        models=loaded.config.models,
        faithful=loaded.config.faithful,
        finished=loaded.finished,
        agents=len(agents),
        hours=shares,
        counts=loaded.metrics,
        emergence=emergence,
        final={
            target.id: {measure: getattr(last, measure)[target.id] for measure in MEASURES}
            for target in targets
        },
        usage=loaded.state.usage if loaded.state else Usage(),
        by_operation=usage_by_operation(loaded.calls),
        prefix_share=share,
        prefix_share_by_agent=by_agent,
        judge_calls=judge.calls,
        judge_cached=cached_before,
        judge_failures=judge.failures,
        norm_databases=_final_databases(loaded),
        final_adhering=hour_flags(loaded.hours[-1], agents, targets, matched, verdicts)["adhering"],
    )


def hour_flags(
    hour: HourData,
    agents: list[str],
    targets: list[TargetNorm],
    matched: dict[str, list[str]],
    verdicts: dict[tuple[int, str], dict[str, Verdict]],
) -> dict[str, dict[str, dict[str, bool]]]:
    """Measure → target → agent → whether the agent holds / complies at the end of the hour."""
    result: dict[str, dict[str, dict[str, bool]]] = {measure: {} for measure in MEASURES}
    for target in targets:
        for measure in MEASURES:
            result[measure][target.id] = {}
        for name in agents:
            state = hour.agents.get(name, AgentSnapshot())
            holding = any(target.id in matched[n.content] for n in state.qualified)
            verdict = verdicts[(hour.hour, name)].get(target.id, NOT_SHOWN)
            plan_ok, actions_ok, adheres = _complied(verdict)
            flags = (holding, plan_ok, actions_ok, adheres, holding and adheres)
            for measure, flag in zip(MEASURES, flags, strict=True):
                result[measure][target.id][name] = flag
    return result


def _hour_shares(hour: HourData, flags: dict[str, dict[str, dict[str, bool]]]) -> HourShares:
    """The hour's shares of agents, per measure and target norm, from its ``hour_flags``."""
    shares = {
        measure: {target: _share(list(by_agent.values())) for target, by_agent in found.items()}
        for measure, found in flags.items()
    }
    return HourShares(hour=hour.hour, label=hour.label, **shares)


def _final_databases(loaded: LoadedRun) -> dict[str, list[dict[str, Any]]]:
    if loaded.state is None:
        return {}
    return {
        name: [norm.model_dump() for norm in state.norms.norms]
        for name, state in loaded.state.agents.items()
    }


# --- several runs -------------------------------------------------------------------


class GroupResult(BaseModel):
    """Runs of one setting (full, or an ablation): bands per hour, emergence, final shares."""

    label: str
    runs: int
    hours: list[str]
    indices: list[int]
    """The 0-based simulated hour of each of ``hours``: runs, and settings, of unequal length
    (one stopped at its budget, a newcomer arm beside its finished control) line up by it."""
    series: dict[str, dict[str, list[Band]]]
    """measure → target → per hour band over runs."""
    counts: dict[str, list[Band]]
    """conflicts, norm_thoughts, norm_chats… → per hour band over runs."""
    emergence: dict[str, dict[str, Estimate]]
    """target → both/holding/adhering → mean hour over the runs that reached 70% (only those: the
    others are ``censored``, and ``reached`` says how many of each)."""
    reached: dict[str, dict[str, str]]
    """target → holding/adhering → "r of n runs", then the censored ones: "; 2 censored (not
    over 70% by their last hour: 8, 8)"."""
    censored: dict[str, dict[str, list[int]]] = Field(default_factory=dict)
    """target → holding/adhering → the last simulated hour of each run that never got over
    70%: its emergence hour is only known to be later (right-censored), so the mean leaves
    it out."""
    final: dict[str, dict[str, Estimate]]
    """target → measure → final share (mean over runs with a bootstrap CI over runs; one run:
    k of n agents with no interval, since one run's agents talk to each other and are not
    independent units)."""


def group_result(label: str, runs: list[RunResult]) -> GroupResult:
    """The runs of one setting per simulated hour: each hour's band over the runs that have
    it (by hour, not position: a newcomer run that stopped early judges fewer hours of the
    day before, so its second entry is another hour than a finished run's)."""
    targets = list(runs[0].final)
    labels = {share.hour: share.label for run in runs for share in run.hours}
    indices = sorted(labels)
    shares = [{share.hour: share for share in run.hours} for run in runs]
    counted = [{row.hour: row for row in run.counts} for run in runs]

    def share_band(measure: str, target: str, hour: int) -> Band:
        return Band.of([getattr(by[hour], measure)[target] for by in shares if hour in by])

    def count_band(name: str, hour: int) -> Band:
        return Band.of([float(getattr(by[hour], name)) for by in counted if hour in by])

    series = {
        measure: {target: [share_band(measure, target, h) for h in indices] for target in targets}
        for measure in MEASURES
    }
    counts = {name: [count_band(name, hour) for hour in indices] for name in COUNTS}
    emergence: dict[str, dict[str, Estimate]] = {}
    reached: dict[str, dict[str, str]] = {}
    censored: dict[str, dict[str, list[int]]] = {}
    final: dict[str, dict[str, Estimate]] = {}
    for target in targets:
        emergence[target], reached[target], censored[target], final[target] = {}, {}, {}, {}
        for measure in EMERGENCE_MEASURES:
            times = [getattr(run.emergence[target], measure) for run in runs]
            hit = [float(time) for time in times if time is not None]
            emergence[target][measure] = Estimate.mean_of(hit)
            late = [len(run.hours) for run, time in zip(runs, times, strict=True) if time is None]
            censored[target][measure] = late
            reached[target][measure] = reached_text(len(hit), len(runs), late)
        for measure in MEASURES:
            values = [run.final[target][measure] for run in runs]
            if len(runs) == 1:
                final[target][measure] = agents_share(values[0], runs[0].agents)
            else:
                final[target][measure] = Estimate.mean_of(values)
    return GroupResult(
        label=label,
        runs=len(runs),
        hours=[labels[hour] for hour in indices],
        indices=indices,
        series=series,
        counts=counts,
        emergence=emergence,
        reached=reached,
        censored=censored,
        final=final,
    )


def reached_text(hit: int, runs: int, censored: list[int]) -> str:
    """``1 of 3 runs; 2 censored (not over 70% by their last hour: 8, 8)``: how many runs the
    mean emergence hour is over, and the runs it leaves out with the hour each was last seen
    (issue 41, item 14: a mean over the runs that got there alone reads as all of them)."""
    text = f"{hit} of {runs} runs"
    if censored:
        hours = ", ".join(map(str, censored))
        text += f"; {len(censored)} censored (not over 70% by their last hour: {hours})"
    return text


def agents_share(share: float, agents: int) -> Rate:
    """One run's final share: k of its n agents, with no interval. Its agents are no sample
    of independent units (they talk to each other, and one spreads a norm to the next), so
    a binomial interval over them would claim a precision the run does not have; intervals
    are over runs only."""
    return Rate(k=round(share * agents), n=agents, value=share, ci=(None, None))


class CrsecAnalysis(BaseModel):
    """``normlab crsec analyze``: every run, and the runs grouped by setting."""

    runs: list[RunResult]
    groups: list[GroupResult]
    targets: list[TargetNorm]
    judge_model: str
    usage: dict[str, RunUsage] = Field(default_factory=dict)


def load_runs(folders: list[Path]) -> list[LoadedRun]:
    """Run directories of one society, each read once."""
    loaded = [load_run(folder) for folder in folders]
    societies = {run.config.society.name for run in loaded}
    if len(societies) > 1:
        raise InputError(folders[0], f"runs of different societies: {sorted(societies)}")
    return loaded


def judge_jobs(loaded: list[LoadedRun]) -> int:
    """How many verdicts an analysis needs, cached or not (for its progress bar)."""
    total = 0
    for run in loaded:
        total += len(held_contents(run)) + len(run.hours) * len(run.config.society.agents)
    return total


async def analyze_runs(
    loaded: list[LoadedRun],
    client: ModelClient,
    judge_model: str,
    progress: Callable[[], None] | None = None,
) -> CrsecAnalysis:
    """Analyze each run (judge verdicts cached in its folder) and group runs by setting."""
    results: list[RunResult] = []
    for run in loaded:
        judge = Judge(client, judge_model, run.folder, run.config.society.norms)
        results.append(await analyze_run(run, judge, progress))
    by_label: dict[str, list[RunResult]] = {}
    for result in results:
        by_label.setdefault(result.label, []).append(result)
    usage = {
        result.folder: RunUsage(
            units=len(result.hours),
            roles={
                "agent": RoleUsage(
                    calls=result.usage.calls,
                    input_tokens=result.usage.input_tokens,
                    cached_input_tokens=result.usage.cached_input_tokens,
                    output_tokens=result.usage.output_tokens,
                    cost=None if result.usage.unpriced_calls else result.usage.cost,
                    retries=result.usage.retries,
                )
            },
        )
        for result in results
    }
    for role, item in client.usage().items():
        first = usage[results[0].folder]
        first.roles[f"{role} (this analysis)"] = item
    return CrsecAnalysis(
        runs=results,
        groups=[group_result(label, runs) for label, runs in by_label.items()],
        targets=loaded[0].config.society.norms,
        judge_model=judge_model,
        usage=usage,
    )
