"""An hour's end (§2.2–2.3, Figures 10, 15–16): thoughts, the observation channel, synthesis.

Every agent thinks about what it saw and heard in the hour (GenerateThought, from the hour's
latest observations and conversations), identifies normative information in its thoughts
and evaluates each item; then, when its qualified norms call for it (the paper's utility sum
over 350, or the authors' counter), it synthesizes: ClassifySpecificNorms groups its qualified
norms and GenerateAbstractNorm writes an abstract norm per group, which takes its members'
place once it passes the sanity check.

A module of its own because it is the second half of an hour's work, run once an hour, and
because the synthesis event it writes is the richest of the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from normlab.core.fields import taken_from
from normlab.crsec.sim.events import AbstractData, IdentifyData, SynthesisData, ThoughtData
from normlab.crsec.sim.world import World
from normlab.norms.calls import Caller, CallLog
from normlab.norms.normdb import mark_synthesis_attempt, synthesis_due
from normlab.norms.operations.evaluation import synthesize
from normlab.norms.operations.spreading import generate_thoughts, identify_from_thoughts
from normlab.norms.records import EvaluateData
from normlab.norms.replies import IdentifiedNorm
from normlab.norms.schemas import NormDatabase

CLASSIFY_HINT = (
    "(norms are expected to be grouped into categories: smoking-related, noise-related, "
    "tip-related and others)"
)
"""The authors' code's steer for ClassifySpecificNorms (off unless ``classify_hint``)."""

THOUGHT_INPUT_LINES = 20
"""At most this many of the hour's latest observations and conversations feed GenerateThought."""


@dataclass
class Reflection:
    """One agent's hour's end, worked out on a copy of its database and applied in order."""

    thoughts: list[str] = field(default_factory=list)
    identified: list[IdentifiedNorm] = field(default_factory=list)
    assessments: list[EvaluateData] = field(default_factory=list)
    synthesis: SynthesisData | None = None
    database: NormDatabase = field(default_factory=NormDatabase)
    log: CallLog = field(default_factory=CallLog)


async def reflect(world: World, tick: int, name: str) -> Reflection:
    """GenerateThought, identification in the thoughts and their evaluation, then synthesis
    if it is due."""
    result = Reflection()
    state = world.agent(name)
    caller = world.caller(name, tick, "reflect", result.log)
    result.database = state.norms.model_copy(deep=True)
    if not world.keeps_norms(name):
        return result
    heard = (state.hour_observations + state.hour_conversations)[-THOUGHT_INPUT_LINES:]
    if heard and not world.ablated("no_observation"):
        result.thoughts = await generate_thoughts(caller, state.place, heard)
    if result.thoughts:
        for item in await identify_from_thoughts(caller, result.thoughts):
            index = item.source if 1 <= item.source <= len(result.thoughts) else 1
            result.identified.append(item)
            related = result.thoughts[index - 1]
            result.assessments.append(
                await world.assess(caller, result.database, item, "thought", related, tick)
            )
    due = synthesis_due(
        result.database, world.config.synthesis_trigger, world.society.synthesis_threshold
    )
    if due and not world.ablated("no_synthesis"):
        result.synthesis = await synthesis(world, caller, result.database, tick)
    return result


async def synthesis(
    world: World, caller: Caller, database: NormDatabase, tick: int
) -> SynthesisData:
    """The long-term synthesis into ``database``; its ``synthesis`` event."""
    before = database.qualified_utility()
    hint = CLASSIFY_HINT if world.config.classify_hint else ""
    outcome = await synthesize(caller, database, world.mode, world.clock.label(tick), hint)
    abstracts = [
        taken_from(
            AbstractData,
            abstract,
            qualified=abstract.verdict.qualified,
            checks=abstract.verdict.checks,
            rejection=abstract.verdict.rejection,
        )
        for abstract in outcome.abstracts
    ]
    mark_synthesis_attempt(database)
    return SynthesisData(
        trigger=world.config.synthesis_trigger,
        qualified_utility_before=before,
        categories=outcome.categories,
        abstracts=abstracts,
        failed=outcome.failed,
    )


async def reflect_phase(world: World, tick: int) -> None:
    """Every agent's hour's end at once; applied and logged in the society's order."""
    for name, result in await world.each(world.order, lambda name: reflect(world, tick, name)):
        world.emit_calls(tick, result.log)
        if result.thoughts:
            world.emit(tick, name, ThoughtData(thoughts=result.thoughts))
            world.emit(tick, name, IdentifyData(source="thought", norms=result.identified))
        for assessment in result.assessments:
            world.emit(tick, name, assessment)
        if result.synthesis is not None:
            world.emit(tick, name, result.synthesis)
        world.agent(name).norms = result.database
