"""A newcomer joins a converged society (issue 24): the run, continued with one agent more.

LoSoNA and SCENE test whether a model adapts to a group's unstated norms, but every norm they
test was written by a person; CRSEC's societies make norms of their own. Here a model meets
those: a finished run's last checkpoint is copied into a new folder (the source run is only
read), one agent driven by the subject model joins the society, and the society goes on for
a few more simulated hours with the run's own tick loop (:class:`~normlab.crsec.sim.Simulation`
with the continuation hooks of :class:`~normlab.crsec.world.World`: a later end tick, the
newcomer's calls under the ``subject`` role, and, for a plain model, no norm database).

Two newcomers are compared on the same checkpoint and seeds:

- ``base``: the subject model as a plain agent. It plans, acts and talks with the society's
  prompts (Figures 17–18, its qualified norms NONE), but keeps no norm database: what it is
  told in a conversation reaches its next plan only if the model carries it there, which in
  this architecture it cannot (the plan and action prompts hold no memory but the norms);
- ``norm-memory``: the same model with the society's own architecture and an empty personal
  norm database: it identifies normative information in the talks it is drawn into and in
  its thoughts, evaluates it and keeps what passes, as every agent of the society does.

The newcomer is a copy of one of the society's agents (by default the one most against the
norms at stake, so that it has a reason to breach them) under a new name, with the
sentences that tie it to the others left out: it knows nobody. Each newcomer run is an
ordinary run folder (``config.json`` with the newcomer in the society and the ``subject``
role in the models, the source's events and metrics followed by the new hours, a
checkpoint after every tick), plus ``newcomer.json`` (:class:`NewcomerSetup`); a killed run
goes on from its last checkpoint when the same command is given again. The measures are
:mod:`~normlab.crsec.newcomer_analysis`.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import sys
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from normlab.core.errors import InputError
from normlab.core.jsonio import read_json, validate_row
from normlab.core.logs import BASE_AGENT, subject_label
from normlab.core.outputs import output_folder, replace_file, replacing, slug
from normlab.crsec.judge import JUDGE_CACHE
from normlab.crsec.rundir import CHECKPOINT, EVENTS, METRICS, RunDir
from normlab.crsec.schemas import AgentSpec, RunConfig, Society, WorldState
from normlab.crsec.sim import Simulation
from normlab.crsec.society import SURNAMES
from normlab.crsec.world import initial_state
from normlab.models import ModelClient

SUBJECT_ROLE = "subject"
"""The model role of the newcomer's calls (the society's keep ``agent``)."""
SETUP = "newcomer.json"
"""A newcomer run's settings, beside its ``config.json``."""
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
    like: str
    """The society's agent the newcomer was copied from."""
    agent: str
    """``base`` (a plain model) or ``norm-memory`` (an empty personal norm database)."""
    subject: str
    """The newcomer's model."""
    society_model: str
    """The model of the society's agents (the run's unless ``--model`` named another)."""
    seed: int

    @property
    def label(self) -> str:
        """The subject as reports name it: the model, or ``MODEL + norm-memory``."""
        return subject_label(self.subject, self.agent)

    @property
    def keeps_norms(self) -> bool:
        return self.agent != BASE_AGENT


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


def newcomer_spec(society: Society, template: AgentSpec) -> AgentSpec:
    """The newcomer: ``template``'s description, traits, stances and daily requirement under
    a new name, without the sentences that name another agent (it knows nobody), and told
    that it is new."""
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
            "daily_requirement": renamed(template.daily_requirement),
        }
    )


def joined_config(
    config: RunConfig, spec: AgentSpec, subject: str, agent_model: str | None, seed: int
) -> RunConfig:
    """The source's config with the newcomer in the society, its model as the ``subject``
    role, the society's model replaced if ``agent_model`` is given, and the seed."""
    models = {**config.models, SUBJECT_ROLE: subject}
    if agent_model is not None:
        models["agent"] = agent_model
    society = {**config.society.model_dump(), "agents": [*config.society.agents, spec]}
    return RunConfig.model_validate(
        {**config.model_dump(), "society": society, "models": models, "seed": seed}
    )


# --- the folders --------------------------------------------------------------------


def run_folder(out: Path, setup: NewcomerSetup) -> Path:
    """``OUT/SUBJECT/seed-S``: one folder per subject (model, and agent after a ``+``) and
    seed, so the base model and the agent never resume into each other."""
    subject = slug(setup.subject)
    if setup.keeps_norms:
        subject += f"+{slug(setup.agent)}"
    return out / subject / f"seed-{setup.seed}"


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
    """Make ``folder`` the source run joined by the newcomer, unless it already is (then it
    resumes; more ``hours`` than before extend it). ``config.json`` is written last: a
    folder without it was cut short while being made, and is made again."""
    run = RunDir(folder)
    if run.exists():
        kept = read_setup(folder)
        if kept is None or kept.model_copy(update={"hours": setup.hours}) != setup:
            raise InputError(
                folder / SETUP,
                "holds another run (other source, subject, agent, newcomer or society model): "
                "choose another --out",
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
    newcomer = initial_state(config).agents[setup.name]
    joined = state.model_copy(
        update={"agents": {**state.agents, setup.name: newcomer}, "finished": False}, deep=True
    )
    replace_file(folder / CHECKPOINT, joined.model_dump_json() + "\n")
    replace_file(folder / SETUP, setup.model_dump_json(indent=1) + "\n")
    run.create(config)


def plan(
    source: Path,
    out: Path,
    *,
    subject: str,
    agents: list[str],
    seeds: list[int],
    hours: int,
    like: str | None = None,
    agent_model: str | None = None,
) -> list[Path]:
    """Every newcomer run (each agent × seed) made or found in ``out``; their folders."""
    config, state = finished_source(source)
    if out.resolve().is_relative_to(source.resolve()):
        raise InputError("--out", f"{out} is inside the run {source}, which is only read")
    template = _template(config.society, like, source)
    spec = newcomer_spec(config.society, template)
    if not (out / JUDGE_CACHE).exists():
        # The day before the arrival is the source's: its verdicts are the newcomer runs' too.
        output_folder(out, "--out")
        _copy_lines(source / JUDGE_CACHE, out / JUDGE_CACHE, None)
    folders = []
    for agent, seed in itertools.product(agents, seeds):
        setup = NewcomerSetup(
            source=str(source),
            start_tick=state.tick,
            hours=hours,
            name=spec.name,
            like=template.name,
            agent=agent,
            subject=subject,
            society_model=agent_model or config.models["agent"],
            seed=seed,
        )
        folder = run_folder(out, setup)
        prepare(
            source, folder, setup, joined_config(config, spec, subject, agent_model, seed), state
        )
        folders.append(folder)
    return folders


# --- the simulation -------------------------------------------------------------------


def joined(simulation: Simulation, setup: NewcomerSetup) -> Simulation:
    """``simulation`` as a newcomer run: it ends ``hours`` after the arrival, the newcomer's
    calls go to the subject model, and a plain newcomer keeps no norm database."""
    simulation.end_tick = setup.start_tick + setup.hours * simulation.clock.ticks_per_hour
    simulation.roles = {setup.name: SUBJECT_ROLE}
    simulation.without_norms = set() if setup.keeps_norms else {setup.name}
    return simulation


def newcomer_setup(folder: Path) -> NewcomerSetup:
    setup = read_setup(folder)
    if setup is None:
        raise InputError(folder, f"not a newcomer run (no {SETUP})")
    return setup


async def simulate(
    folders: list[Path],
    client_for: Callable[[dict[str, str]], ModelClient],
    progress: Callable[[str], None],
    max_calls: int | None = None,
) -> None:
    """Run (or resume) the newcomer runs at once, each to its end, each with a client for
    its config's models. ``max_calls`` (the whole run's, source included) stops them early,
    as ``crsec run``'s budget does."""

    async def one(folder: Path) -> None:
        run = RunDir(folder)
        setup = newcomer_setup(folder)
        prefix = f"{setup.label} seed {setup.seed}: "
        simulation = joined(
            Simulation(
                run,
                client_for(run.config().models),
                lambda line: progress(prefix + line),
                tick_lines=not sys.stderr.isatty(),
            ),
            setup,
        )
        await simulation.run_or_stop("give the same command again to go on", max_calls)

    await asyncio.gather(*(one(folder) for folder in folders))
