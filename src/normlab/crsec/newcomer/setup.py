"""A newcomer joins a converged society (issue 24): the run, continued with one agent more.

LoSoNA and SCENE test whether a model adapts to a group's unstated norms, but every norm they
test was written by a person; CRSEC's societies make norms of their own. Here a model meets
those: a finished run's last checkpoint is copied into a new folder (the source run is only
read), one agent driven by the subject model joins the society, and the society goes on for
a few more simulated hours with the run's own tick loop ([`Simulation`][normlab.crsec.Simulation]
with the continuation hooks of ``World``: a later end tick, the
newcomer's calls under the ``subject`` role, for a plain model no norm database, and a budget
that counts the continuation's calls only).

A fair experiment (issue 31): every arm starts from the same checkpoint with the same seeds,
and the newcomer of each arm gets the same memory and the same opportunity:

- ``base``: the subject model as a plain agent, which keeps no norm database;
- ``norm-memory``: the same model with the society's own architecture and an empty personal
  norm database (identification in its talks and thoughts, the immediate evaluation, synthesis);
- both carry a memory of their latest conversations and observations into every plan and
  action prompt, and plan their day and the rest of the hour again after each conversation
  (``Memory``), so a sanction can reach a base model's next plan;
- both have the same occasion every hour (their daily requirement is "Every hour of the day,
  NAME feels like smoking a cigarette.", from the norms' ``occasion`` in the society file, or
  ``--occasion``), not a copied schedule that demands the breach in one hour only;
- ``control``: no newcomer at all, the same continuation with the same seeds: the society's
  drift without one, which the newcomer runs' drift is corrected by;
- with ``--no-communication``, each of these again with conversations switched off (the
  run's ``no_communication`` ablation): the newcomer meets no sanction.

The newcomer is a copy of one of the society's agents (by default the one most against the
norms at stake, so that it has a reason to breach them) under a new name, with the
sentences that tie it to the others left out: it knows nobody. Each run is an ordinary run
folder (``config.json``, the source's events and metrics followed by the new hours, a
checkpoint after every tick), plus ``newcomer.json`` (``NewcomerSetup``); a stopped run
goes on from its last checkpoint when the same command is given again, or with ``normlab crsec
resume FOLDER``. The measures are ``normlab.crsec.newcomer.analysis``.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from normlab.core.errors import InputError, at_least
from normlab.core.jsonio import read_json, validate_row
from normlab.core.logs import BASE_AGENT, subject_label
from normlab.core.outputs import (
    apart_from_inputs,
    output_folder,
    replace_file,
    replacing,
    slug,
)
from normlab.crsec.analysis.judge import JUDGE_CACHE
from normlab.crsec.prompts import PROMPTS
from normlab.crsec.sim.clock import clock_of
from normlab.crsec.sim.loop import Simulation
from normlab.crsec.sim.rundir import CHECKPOINT, EVENTS, METRICS, RunDir
from normlab.crsec.sim.schemas import MAX_DAYS, AgentSpec, RunConfig, Society, Usage, WorldState
from normlab.crsec.sim.society import SURNAMES
from normlab.crsec.sim.world import initial_state
from normlab.norms.schemas import Memory

SUBJECT_ROLE = "subject"
"""The model role of the newcomer's calls (the society's keep ``agent``)."""
SETUP = "newcomer.json"
"""A newcomer run's settings, beside its ``config.json``."""
CONTROL = "control"
"""The arm in which no newcomer joins: the society's own continuation, same seeds."""
NO_COMMUNICATION = "no-communication"
FIRST_NAMES = ("Alex", "Robin", "Jordan", "Casey", "Riley", "Quinn", "Avery", "Jamie")
"""The newcomer's first name: the first not already used in the society (names that fit
any pronoun, since the description it is copied from keeps its own)."""


class NewcomerSetup(BaseModel):
    """``newcomer.json``: what decides a newcomer run besides its ``config.json``."""

    model_config = ConfigDict(extra="forbid")

    source: str
    """The finished run the society comes from (read, never written)."""
    start_tick: int = Field(ge=0)
    """The tick the newcomer arrives at: the source's end, the start of a new day."""
    hours: int = Field(ge=1)
    name: str
    """The newcomer (empty in the control, which no newcomer joins)."""
    like: str
    """The society's agent the newcomer was copied from."""
    agent: str
    """``base`` (a plain model), ``norm-memory`` (an empty personal norm database) or
    ``control`` (no newcomer)."""
    subject: str
    """The newcomer's model (empty in the control)."""
    society_model: str
    """The model of the society's agents (the run's unless ``--model`` named another)."""
    seed: int
    communication: bool = True
    """False: the no-sanction arm (``--no-communication``): nobody talks, so nobody sanctions."""
    occasion: str = ""
    """The newcomer's daily requirement: the same occasion every hour."""
    source_usage: Usage = Field(default_factory=Usage)
    """The source run's usage at its end, which ``--max-calls`` does not count."""

    @property
    def is_control(self) -> bool:
        return self.agent == CONTROL

    @property
    def label(self) -> str:
        """The arm as reports name it: the model, ``MODEL + norm-memory`` or ``control (no
        newcomer)``, then ``, no communication`` for the no-sanction arm."""
        arm = (
            "control (no newcomer)" if self.is_control else subject_label(self.subject, self.agent)
        )
        return arm if self.communication else f"{arm}, no communication"

    @property
    def keeps_norms(self) -> bool:
        return self.agent not in (BASE_AGENT, CONTROL)


def read_setup(folder: Path) -> NewcomerSetup | None:
    """A folder's newcomer settings; None when it is not a newcomer run."""
    path = folder / SETUP
    return validate_row(NewcomerSetup, read_json(path), path) if path.exists() else None


def finished_source(source: Path) -> tuple[RunConfig, WorldState]:
    """The source run's config and final state; one-line errors for a folder that is not a
    finished CRSEC run (a newcomer joins a society that has had its days)."""
    run = RunDir(source)
    config = run.config()
    state = run.checkpoint()
    if state is None or not state.finished:
        raise InputError(
            source, f"the run has not finished; finish it first: normlab crsec resume {source}"
        )
    if read_setup(source) is not None:
        raise InputError(source / SETUP, "is a newcomer run: name the run it continued")
    return config, state


def check_hours(config: RunConfig, hours: int) -> None:
    """``--hours`` at least 1 and at most ``MAX_DAYS`` days of the
    society's active hours, the longest any run may be (``--hours 100000`` was accepted and
    would have run for 12,500 simulated days)."""
    at_least("--hours", hours, 1)
    per_day = clock_of(config).hours_per_day
    most = MAX_DAYS * per_day
    if hours > most:
        raise InputError(
            "--hours",
            f"at most {most} ({MAX_DAYS} simulated days of the society's {per_day} active "
            f"hours, the longest a run may be), got {hours}",
            field="hours",
        )


# --- who joins ------------------------------------------------------------------------


def _template(society: Society, like: str | None, source: Path) -> AgentSpec:
    """The agent to copy: ``like``, or the one against most norms at stake (ordinary agents
    first, then the society's order)."""
    if like is not None:
        found = [agent for agent in society.agents if agent.name == like]
        if not found:
            raise InputError("--like", f"{like!r} is not an agent of {source}", field="like")
        return found[0]

    def against(agent: AgentSpec) -> tuple[int, bool]:
        stances = sum(stance == "against" for stance in agent.stances.values())
        return stances, agent.role == "ordinary"

    return max(society.agents, key=against)


def occasion_text(
    society: Society, template: AgentSpec, first: str, occasion: str | None = None
) -> str:
    """The newcomer's daily requirement: the same occasion every hour
    (``prompts/newcomer_occasion_ours.txt``), so that a breach can happen, or not, in every
    hour alike. ``occasion`` (``--occasion``), or the ``occasion`` the society file gives each
    norm at stake the template is against (every norm's, if it is against none)."""
    if occasion is not None:
        if not occasion.strip():
            raise InputError("--occasion", "give the occasion in words", field="occasion")
        chosen = [occasion.strip()]
    else:
        given = [norm for norm in society.norms if norm.occasion]
        against = [n for n in given if template.stances.get(n.id) == "against"]
        chosen = [norm.occasion for norm in against or given]
    if not chosen:
        raise InputError(
            "--occasion",
            f"the society {society.name!r} gives its norms at stake no occasion: name what the "
            "newcomer does every hour, e.g. --occasion 'feels like smoking a cigarette'",
            field="occasion",
        )
    return " ".join(
        PROMPTS.render("newcomer_occasion_ours", {"agent first name": first, "occasion": text})
        for text in chosen
    )


def newcomer_spec(society: Society, template: AgentSpec, occasion: str | None = None) -> AgentSpec:
    """The newcomer: ``template``'s description, traits and stances under a new name, without
    the sentences that name another agent (it knows nobody), told that it is new, and with
    the same occasion every hour in place of the template's schedule (``occasion_text``;
    a schedule that demands the breach in its first hour only would show the schedule)."""
    firsts = {agent.first_name for agent in society.agents}
    surnames = {agent.name.split()[-1] for agent in society.agents}
    first = next((name for name in FIRST_NAMES if name not in firsts), template.first_name)
    name = f"{first} {next(s for s in SURNAMES if s not in surnames)}"
    others = [agent for agent in society.agents if agent.name != template.name]
    mentions = re.compile(
        r"\b(" + "|".join(re.escape(n) for a in others for n in (a.name, a.first_name)) + r")\b"
    )

    def renamed(text: str) -> str:
        text = re.sub(rf"\b{re.escape(template.name)}\b", name, text)
        return re.sub(rf"\b{re.escape(template.first_name)}\b", first, text)

    sentences = re.split(r"(?<=[.!?])\s+", template.description.strip())
    kept = " ".join(renamed(s) for s in sentences if not mentions.search(s))
    return template.model_copy(
        update={
            "name": name,
            "role": "ordinary",
            "description": f"{name} has just come to {society.name} for the first time and "
            f"knows nobody there. {kept}",
            "relationships": [],
            "daily_requirement": occasion_text(society, template, first, occasion),
        }
    )


def joined_config(
    config: RunConfig,
    spec: AgentSpec | None,
    subject: str,
    agent_model: str | None,
    seed: int,
    communication: bool = True,
) -> RunConfig:
    """The source's config with the newcomer ``spec`` (None: the control, none) in the
    society and its model as the ``subject`` role, the society's model replaced if
    ``agent_model`` is given, the seed, and without communication the ``no_communication``
    ablation."""
    models = dict(config.models)
    if spec is not None:
        models[SUBJECT_ROLE] = subject
    if agent_model is not None:
        models["agent"] = agent_model
    agents = [*config.society.agents, *([spec] if spec is not None else [])]
    society = {**config.society.model_dump(), "agents": agents}
    ablations = list(config.ablations)
    if not communication and "no_communication" not in ablations:
        ablations.append("no_communication")
    return RunConfig.model_validate(
        {
            **config.model_dump(),
            "society": society,
            "models": models,
            "seed": seed,
            "ablations": ablations,
        }
    )


# --- the folders --------------------------------------------------------------------


def run_folder(out: Path, setup: NewcomerSetup) -> Path:
    """``OUT/SUBJECT[+AGENT][+no-communication]/seed-S`` (``OUT/control…`` for the control):
    one folder per arm and seed, so no two arms ever resume into each other."""
    arm = CONTROL if setup.is_control else slug(setup.subject)
    if setup.keeps_norms:
        arm += f"+{slug(setup.agent)}"
    if not setup.communication:
        arm += f"+{NO_COMMUNICATION}"
    return out / arm / f"seed-{setup.seed}"


def newcomer_folders(out: Path) -> list[Path]:
    """Every newcomer run (control included) in ``out``, in name order."""
    return sorted(path.parent for path in out.glob(f"*/seed-*/{SETUP}"))


def _copy_lines(source: Path, target: Path, count: int | None) -> None:
    """The first ``count`` lines of ``source`` (what its checkpoint counts; None: all) as
    ``target``, written whole or not at all."""
    if not source.exists():
        if count:
            raise InputError(source, f"missing, but the checkpoint counts {count} lines in it")
        return
    with source.open(encoding="utf-8") as lines, replacing(target) as handle:
        handle.writelines(itertools.islice(lines, count))


def prepare(
    source: Path, folder: Path, setup: NewcomerSetup, config: RunConfig, state: WorldState
) -> None:
    """Make ``folder`` the source run joined by the newcomer (the control: by none), unless it
    already is (then it resumes; more ``hours`` than before extend it). ``config.json`` is
    written last: a folder without it was cut short while being made, and is made again."""
    run = RunDir(folder)
    if run.exists():
        kept = read_setup(folder)
        if kept is None or kept.model_copy(update={"hours": setup.hours}) != setup:
            raise InputError(
                folder / SETUP,
                "holds another run (other source, subject, agent, newcomer, occasion or society "
                "model): choose another --out",
            )
        if setup.hours < kept.hours:
            raise InputError(
                "--hours", f"{folder} already runs {kept.hours} hours; give at least that"
            )
        if setup.hours > kept.hours:
            replace_file(folder / SETUP, setup.model_dump_json(indent=1) + "\n")
        return
    output_folder(folder, "--out")
    _copy_lines(source / EVENTS, folder / EVENTS, state.events_written)
    _copy_lines(source / METRICS, folder / METRICS, state.metrics_written)
    agents = dict(state.agents)
    if not setup.is_control:
        newcomer = initial_state(config).agents[setup.name]
        agents[setup.name] = newcomer.model_copy(update={"memory": Memory()})
    joined = state.model_copy(update={"agents": agents, "finished": False}, deep=True)
    replace_file(folder / CHECKPOINT, joined.model_dump_json() + "\n")
    replace_file(folder / SETUP, setup.model_dump_json(indent=1) + "\n")
    run.create(config)


@dataclass(frozen=True)
class Newcomers:
    """What ``crsec newcomer`` is asked: which newcomers (``agents``, each beside a control)
    join the finished run ``source`` as ``subject``, like whom, for how long, with which seeds,
    with or without communication; their runs go to ``out``."""

    source: Path
    out: Path
    subject: str
    agents: list[str]
    seeds: list[int]
    hours: int
    like: str | None = None
    agent_model: str | None = None
    no_communication: bool = False
    occasion: str | None = None


def plan(request: Newcomers) -> list[Path]:
    """Every run (each agent and the control × communication × seed) made or found in
    ``out``; their folders."""
    source, out, subject, agent_model = (
        request.source,
        request.out,
        request.subject,
        request.agent_model,
    )
    config, state = finished_source(source)
    apart_from_inputs(out, [source])
    template = _template(config.society, request.like, source)
    spec = newcomer_spec(config.society, template, request.occasion)
    if not (out / JUDGE_CACHE).exists():
        # The day before the arrival is the source's: its verdicts are the newcomer runs' too.
        output_folder(out, "--out")
        _copy_lines(source / JUDGE_CACHE, out / JUDGE_CACHE, None)
    folders = []
    arms = [*request.agents, CONTROL]
    settings = [True, False] if request.no_communication else [True]
    for communication, agent, seed in itertools.product(settings, arms, request.seeds):
        control = agent == CONTROL
        setup = NewcomerSetup(
            source=str(source),
            start_tick=state.tick,
            hours=request.hours,
            name="" if control else spec.name,
            like="" if control else template.name,
            agent=agent,
            subject="" if control else subject,
            society_model=agent_model or config.models["agent"],
            seed=seed,
            communication=communication,
            occasion="" if control else spec.daily_requirement,
            source_usage=state.usage,
        )
        folder = run_folder(out, setup)
        joined = joined_config(
            config, None if control else spec, subject, agent_model, seed, communication
        )
        prepare(source, folder, setup, joined, state)
        folders.append(folder)
    return folders


# --- the simulation -------------------------------------------------------------------


def joined(simulation: Simulation, setup: NewcomerSetup) -> Simulation:
    """``simulation`` as a newcomer run: it ends ``hours`` after the arrival, the newcomer's
    calls go to the subject model, a plain newcomer keeps no norm database, and the budget
    counts the calls since the arrival."""
    simulation.end_tick = setup.start_tick + setup.hours * simulation.clock.ticks_per_hour
    simulation.budget_from = setup.source_usage
    if not setup.is_control:
        simulation.roles = {setup.name: SUBJECT_ROLE}
        simulation.without_norms = set() if setup.keeps_norms else {setup.name}
    return simulation


def hours_done(folder: Path) -> int:
    """Simulated hours a newcomer run has finished since the arrival (what can be measured)."""
    setup = newcomer_setup(folder)
    state = RunDir(folder).checkpoint()
    ticks_per_hour = RunDir(folder).config().society.ticks_per_hour
    return 0 if state is None else max(0, state.tick - setup.start_tick) // ticks_per_hour


def newcomer_setup(folder: Path) -> NewcomerSetup:
    setup = read_setup(folder)
    if setup is None:
        raise InputError(folder, f"not a newcomer run (no {SETUP})")
    return setup
