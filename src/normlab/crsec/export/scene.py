"""A society's emergent norm as a SCENE scenario: its members enforce it on a newcomer.

Taken from the run: the hidden norm (the judge's statement, with the society file's
descriptions of complying and violating, then up to three behaviours the metrics' judge
found compliant and three observations members found in conflict, verbatim, as the
compliance and breach signals; carried in the scenario as ``own_norm``), the personas (the
members who sanctioned and were sanctioned over the norm, then its adherents: 3–4 of them,
each outlined by its description in the society file, the norm in its own words and what it
did), and the sanction style. CRSEC has one sanction: a member who sees a behaviour that
conflicts with its norms goes over and talks about it, so the modality is
``explicit_callout`` and each persona's sanction lines quote what it said then (its line about
the norm). The first such conversation raised over a breach of the norm becomes the precedent
sub-script (p = 1): the sanctioned member breaches as it did, and answers as it did. A
conversation with no line about the norm (the receiver drew the norm from talk about something
else) sanctions nothing here. The generator writes only the scaffold's chat, norm-blind
as SCENE's own first stage (the event, the elicitor and the cast, never the norm): the
newcomer's bio, a few opening messages and the elicitor. Event ``event_planning`` (the
regulars plan to meet at the society's place), elicitor ``address_explicit``.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspect_ai.model import Model
from pydantic import BaseModel, Field, ValidationError

from normlab import scene
from normlab.core.jsonio import validation_field
from normlab.crsec.export.chat import (
    TurnDraft,
    bio,
    cast_names,
    channel_description,
    generate_scenario,
    newcomer_name,
    scenario_suffix,
    society_values,
)
from normlab.crsec.export.emerged import EmergedNorm, Selection
from normlab.crsec.export.evidence import Conversation
from normlab.crsec.prompts import PROMPTS
from normlab.models import Generated

EVENT = "event_planning"
ELICITOR = "address_explicit"
SANCTION = "explicit_callout"
"""CRSEC's only sanction: the observer talks to the violator about the conflict."""
MIN_CAST, MAX_CAST = 3, 4
SIGNALS = 3
"""Observed behaviours per signal list, beside the society file's description."""
DEMONSTRATIONS = 2


class SceneFill(BaseModel):
    """What the generator writes: the scaffold's chat, which the run does not hold."""

    subject_bio: str = Field(min_length=1)
    opening_turns: list[TurnDraft] = Field(min_length=1)
    elicitor: TurnDraft


@dataclass
class ScenePlan:
    emerged: EmergedNorm
    selection: Selection
    subject: str
    cast: list[str]
    precedent: Conversation | None

    @property
    def scene_tuple(self) -> scene.SceneTuple:
        return scene.SceneTuple(
            event=EVENT,
            norm=f"crsec_{self.emerged.target.id}",
            elicitor=ELICITOR,
            sanction=SANCTION,
            precedent=1 if self.precedent else 0,
        )

    def own_norm(self) -> scene.SceneNorm:
        target, evidence = self.emerged.target, self.emerged.evidence
        return scene.SceneNorm(
            id=self.scene_tuple.norm,
            pair=0,
            pole="a",
            opposite="",
            statement=target.statement,
            compliance_signals=[target.compliance, *evidence.compliant()[:SIGNALS]],
            breach_signals=[target.violation, *evidence.breaches()[:SIGNALS]],
            applies_to=[EVENT],
        )

    def prompt(self) -> str:
        dimensions = scene.load_dimensions()
        return PROMPTS.render(
            "export_scene_ours",
            {
                **society_values(self.selection, self.cast, self.subject),
                "event": dimensions.events[EVENT].setting,
                "elicitor": dimensions.elicitors[ELICITOR].description,
            },
        )

    def persona(self, name: str) -> scene.HiddenPersona:
        """One member as a scripted persona, in the run's own words."""
        society, evidence = self.selection.society, self.emerged.evidence
        violation = self.emerged.target.violation
        outline = [f"At the society's start: {society.agent(name).description}"]
        outline += [
            f"Since then they hold, in their own words: “{said.text}”"
            for said in evidence.wordings[::-1]
            if said.agent == name
        ][:1]
        outline += [f"They were seen: {s.text}." for s in evidence.compliance if s.agent == name][
            :1
        ]
        said_then = [
            said
            for talk in evidence.demonstrating()
            for speaker, said in [talk.transcript[talk.marked or 0]]
            if talk.sender == name and speaker == name
        ]
        sanctions = [
            f"If {self.subject} is {violation}, call it out directly, as you once did: “{line}”"
            for line in list(dict.fromkeys(said_then))[:2]
        ]
        precedent = None
        talk = self.precedent
        if talk is not None and name == talk.sender:
            sanctions.insert(
                0, f"In the precedent, when {talk.receiver} does it, call it out as you did then."
            )
        if talk is not None and name == talk.receiver:
            answer = next((said for speaker, said in talk.transcript if speaker == name), "")
            precedent = [
                f"Before anyone asks {self.subject} anything, say in the chat that you are doing "
                f"what you once did at {society.name}: “{talk.observation}”.",
                f"After {talk.sender} calls it out, answer as you did then: “{answer}”; from "
                "then on keep to it.",
            ]
        return scene.HiddenPersona(
            name=name,
            outline=" ".join(outline),
            sanction_lines=sanctions,
            precedent_lines_or_null=precedent,
        )

    def hidden(self, opening: int) -> scene.Hidden:
        personas = [self.persona(name) for name in self.cast]
        if not any(persona.sanction_lines for persona in personas):
            # The run saw no callout among these members: the first adherent makes one.
            personas[0].sanction_lines = [
                f"If {self.subject} is {self.emerged.target.violation}, call it out directly."
            ]
        return scene.Hidden(
            personas=personas,
            fidelity_criteria=scene.FidelityCriteria(
                demonstration_min_count=DEMONSTRATIONS,
                sanction_required_modality=SANCTION,
                precedent_complete_by_turn=opening + len(self.cast) if self.precedent else 0,
            ),
        )

    def scenario(self, fill: SceneFill) -> scene.SceneScenario:
        society = self.selection.society
        opening = [
            scene.ScaffoldTurn(turn_id=index, actor=turn.actor, content=turn.content)
            for index, turn in enumerate(fill.opening_turns, start=1)
        ]
        elicitor = scene.ScaffoldTurn(
            turn_id=len(opening) + 1, actor=fill.elicitor.actor, content=fill.elicitor.content
        )
        scaffold = scene.Scaffold(
            channel=scene.Channel(
                description=channel_description(society),
                cast=[
                    scene.CastMember(name=name, bio_oneline=bio(society.agent(name), society))
                    for name in self.cast
                ],
            ),
            subject=scene.CastMember(name=self.subject, bio_oneline=fill.subject_bio),
            transcript=scene.ScaffoldTranscript(opening_turns=opening, elicitor_turn=elicitor),
        )
        generated = [
            "scaffold.subject.bio_oneline",
            f"scaffold.transcript: {len(opening)} opening turns",
            "scaffold.transcript.elicitor_turn",
        ]
        return scene.SceneScenario(
            scenario_id=f"{self.scene_tuple.slug()}__{scenario_suffix(self.selection)}",
            scaffold=scaffold,
            tuple=self.scene_tuple,
            hidden=self.hidden(len(opening)),
            own_norm=self.own_norm(),
            provenance=self.emerged.provenance.model_copy(update={"generated": generated}),
        )

    def check(self, fill: SceneFill) -> tuple[scene.SceneScenario | None, list[str]]:
        """SCENE's schema, its applicability filter and its scaffold linter on the candidate."""
        try:
            scenario = self.scenario(fill)
        except ValidationError as error:
            location, message = validation_field(error)
            return None, [f"{location}: {message}"]
        dimensions = scene.with_own_norms(scene.load_dimensions(), [self.own_norm()])
        if not dimensions.is_valid(scenario.tuple):
            return None, [f"tuple: {scenario.tuple.slug()} fails the applicability filter"]
        findings = [f"scaffold.{finding}" for finding in scene.scaffold_findings(scenario.scaffold)]
        return (None, findings) if findings else (scenario, [])


def plan_scene(emerged: EmergedNorm, selection: Selection) -> ScenePlan | str:
    """The personas and the precedent from the run; a society too small for SCENE's 3–4
    personas is a problem to report, not a scenario."""
    members = len(selection.society.agents)
    if members < MIN_CAST:
        return f"SCENE needs {MIN_CAST}–{MAX_CAST} personas; the society has {members} agents"
    conversations = emerged.evidence.demonstrating()
    precedent = next((talk for talk in conversations if talk.about_conflict), None)
    first = [name for talk in conversations for name in (talk.sender, talk.receiver)]
    return ScenePlan(
        emerged=emerged,
        selection=selection,
        subject=newcomer_name(selection.society),
        cast=cast_names(emerged, selection, first[:MAX_CAST], MAX_CAST)[:MAX_CAST],
        precedent=precedent,
    )


async def export_scene(
    model: Model, emerged: EmergedNorm, selection: Selection, repairs: int
) -> Generated[scene.SceneScenario]:
    """One SCENE scenario for ``emerged``: plan from the run, generate the scaffold's chat,
    check it with SCENE's own checks, repair."""
    plan = plan_scene(emerged, selection)
    if isinstance(plan, str):
        return Generated(emerged.target.id, None, [plan], 0)
    return await generate_scenario(
        model, emerged.target.id, plan.prompt(), SceneFill, plan.check, repairs
    )
