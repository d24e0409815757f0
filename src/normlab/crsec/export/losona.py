"""A society's emergent norm as a LoSoNA scenario: the newcomer joins the regulars' group chat.

Taken from the run, verbatim: the conversations that spread the norm and hold a line the
judge ties to it (up to three, whole, in simulated time; in each, the first such line is a
marked demonstration; one with no such line demonstrates nothing, is left out, and the notes
say so), the members who spoke in them and the norm's adherents as the cast, the judge's norm
statement, and the judge's examples of compliance (an action the metrics' judge found
explicitly compliant, as ``action (at place)``) and of a breach (an observation a member
found in conflict with its norms). The generator writes what the run does not hold: the
newcomer's bio, ordinary chat around the society's turns (to LoSoNA's 20–34 turns), the
elicitor, the judge's example elicitor, demonstrations when the run has fewer than two,
and an example the run lacks. The event is ``new_joiner_intro``: the subject is the
newcomer. Every candidate passes LoSoNA's own linter (structure, leakage) or is repaired;
one still failing is reported, never written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from inspect_ai.model import Model
from pydantic import BaseModel, Field, ValidationError

from normlab.core.chat import Participant, Turn
from normlab.core.jsonio import validation_field
from normlab.core.leaks import copied_runs
from normlab.crsec.export.chat import (
    TurnDraft,
    bio,
    cast_names,
    channel_description,
    generate_scenario,
    interleave,
    newcomer_name,
    scenario_suffix,
    society_values,
)
from normlab.crsec.export.emerged import EmergedNorm, Selection
from normlab.crsec.export.evidence import Conversation
from normlab.crsec.prompts import PROMPTS
from normlab.losona import (
    MAX_TURNS,
    SHARED_RUN_WORDS,
    NormExample,
    Scenario,
    check_scenario,
    load_taxonomy,
)
from normlab.models import Generated

EVENT_ID = "new_joiner_intro"
VENUE = "neighbourhood group chat"
TARGET_TURNS = 24
"""Turns up to and including the elicitor when the generator fills (our bank's mean, 24.2)."""
MAX_CONVERSATIONS = 3
"""One demonstration each: LoSoNA marks 2–3."""
MIN_DEMONSTRATIONS = 2
CAST_SIZE = 4


class Line(NamedTuple):
    actor: str
    content: str
    demonstrates: bool
    own: bool
    """The society's, verbatim (else the generator's)."""


class LosonaFill(BaseModel):
    """What the generator writes: only what the run does not hold."""

    subject_bio: str = Field(min_length=1)
    turns: list[TurnDraft] = Field(default_factory=list)
    demonstrations: list[TurnDraft] = Field(default_factory=list)
    elicitor: TurnDraft
    example_elicitor: str = Field(min_length=1)
    compliant: str = ""
    breaching: str = ""


@dataclass
class LosonaPlan:
    """The scenario's parts taken from the run, and what is left for the generator."""

    emerged: EmergedNorm
    selection: Selection
    subject: str
    conversations: list[Conversation]
    cast: list[str]
    compliant: str
    breaching: str
    filler: int
    demonstrations: int
    unmarked: int = 0
    """Conversations that spread the norm with no line the judge ties to it: left out, said in
    the notes."""

    @property
    def norm_id(self) -> str:
        return f"crsec_{self.emerged.target.id}"

    def prompt(self) -> str:
        target = self.emerged.target
        taken = "\n".join(
            f"{speaker}: {said}" for talk in self.conversations for speaker, said in talk.transcript
        )
        asks = {
            "compliant": "compliant, a reply to example_elicitor that follows it",
            "breaching": "breaching, a reply to example_elicitor that goes against it",
        }
        wanted = [asks[name] for name in self.missing_examples()]
        return PROMPTS.render(
            "export_losona_ours",
            {
                **society_values(self.selection, self.cast, self.subject),
                "norm statement": target.statement,
                "compliance": target.compliance,
                "violation": target.violation,
                "taken": taken or "(none)",
                "filler": str(self.filler),
                "demonstration request": (
                    f"exactly {self.demonstrations} messages in which a member shows in passing "
                    "that they do what the group came to do, without naming it."
                    if self.demonstrations
                    else "leave it empty: the society's own messages show it."
                ),
                "example request": "; ".join(wanted) + "."
                if wanted
                else "leave both empty: the society's own behaviour gives them.",
                "demonstrations shape": (
                    f'[{{"actor": "{self.cast[-1]}", "content": "..."}}, ...]'
                    if self.demonstrations
                    else "[]"
                ),
            },
        )

    def scenario(self, fill: LosonaFill) -> Scenario:
        """The scenario: the society's turns spread through the generator's, then the
        elicitor; demonstrations marked; provenance and the fields generated recorded."""
        blocks = [
            [
                Line(speaker, said, talk.marked is not None and index == talk.marked, True)
                for index, (speaker, said) in enumerate(talk.transcript)
            ]
            for talk in self.conversations
        ]
        blocks += [[Line(turn.actor, turn.content, True, False)] for turn in fill.demonstrations]
        ordinary = [Line(turn.actor, turn.content, False, False) for turn in fill.turns]
        lines = [
            *interleave(ordinary, blocks),
            Line(fill.elicitor.actor, fill.elicitor.content, False, False),
        ]
        turns = [
            Turn(
                turn_id=index,
                actor=line.actor,
                content=line.content,
                is_elicitor=index == len(lines),
            )
            for index, line in enumerate(lines, start=1)
        ]
        society = self.selection.society
        generated = ["subject_bio", f"transcript: {len(fill.turns)} ordinary turns"]
        if fill.demonstrations:
            generated.append(f"transcript: {len(fill.demonstrations)} demonstrations")
        generated += ["elicitor", "judge_examples.elicitor"]
        generated += [f"judge_examples.{name}" for name in self.missing_examples()]
        return Scenario(
            scenario_id=f"{EVENT_ID}__{self.norm_id}__demos__{scenario_suffix(self.selection)}",
            event_id=EVENT_ID,
            norm_id=self.norm_id,
            norm_statement=self.emerged.target.statement,
            venue=VENUE,
            channel_description=channel_description(society),
            subject=self.subject,
            subject_bio=fill.subject_bio,
            cast=[
                Participant(name=name, bio=bio(society.agent(name), society)) for name in self.cast
            ],
            transcript=turns,
            elicitor_turn_id=len(turns),
            demonstration_turn_ids=[
                turn.turn_id for turn, line in zip(turns, lines, strict=True) if line.demonstrates
            ],
            judge_examples=NormExample(
                elicitor=fill.example_elicitor,
                compliant=self.compliant or fill.compliant,
                breaching=self.breaching or fill.breaching,
            ),
            notes=_notes(
                self, [turn.turn_id for turn, line in zip(turns, lines, strict=True) if line.own]
            ),
            provenance=self.emerged.provenance.model_copy(update={"generated": generated}),
        )

    def missing_examples(self) -> list[str]:
        """The judge's examples the run holds none of."""
        return [
            name
            for name, held in (("compliant", self.compliant), ("breaching", self.breaching))
            if not held
        ]

    def check(self, fill: LosonaFill) -> tuple[Scenario | None, list[str]]:
        """LoSoNA's linter on the candidate, plus what the generator was asked for."""
        problems = [
            f"{name}: write it" for name in self.missing_examples() if not getattr(fill, name)
        ]
        if fill.demonstrations and not self.demonstrations:
            problems.append("demonstrations: leave it empty, the society's own turns show it")
        cast = set(self.cast)
        problems += [
            f"{where}: {turn.actor!r} is not a member ({', '.join(self.cast)})"
            for where, turn in [
                *(("turns", t) for t in fill.turns),
                *(("demonstrations", t) for t in fill.demonstrations),
                ("elicitor", fill.elicitor),
            ]
            if turn.actor not in cast
        ]
        if problems:
            return None, problems
        try:
            scenario = self.scenario(fill)
        except ValidationError as error:
            location, message = validation_field(error)
            return None, [f"{location}: {message}"]
        findings = [
            self.explained(scenario, where, message)
            for where, message in check_scenario(scenario, load_taxonomy())
        ]
        return (None, findings) if findings else (scenario, [])

    def explained(self, scenario: Scenario, where: str, message: str) -> str:
        """A finding on text the generator did not write (a bio, the society's own turns)
        tells it what it can change instead: the hidden examples that copy that text."""
        own = {(speaker, said) for talk in self.conversations for speaker, said in talk.transcript}
        by_field = {f"transcript.turn {turn.turn_id}": turn for turn in scenario.transcript}
        turn = by_field.get(where)
        if where.startswith("cast.") or (turn is not None and (turn.actor, turn.content) in own):
            return (
                f"{where} (taken from the society, it stays as it is): {message}; reword "
                "example_elicitor, compliant and breaching so that they do not copy it"
            )
        if where == "transcript" and "turns up to the elicitor" in message:
            return f"{where}: {message}; turns: write exactly {self.filler} ordinary messages"
        return f"{where}: {message}"


def _notes(plan: LosonaPlan, own: list[int]) -> str:
    emerged = plan.emerged
    provenance = emerged.provenance
    words = "; ".join(
        f"{said.text!r} ({said.agent}, {said.origin})" for said in emerged.evidence.wordings[:4]
    )
    norm = f" The norm is {emerged.whose_words()}; no author wrote it." if emerged.own else ""
    left_out = (
        f" {plan.unmarked} conversation(s) that spread it hold no line the judge ties to it "
        "(of those its keywords or a matched norm's words pick): left out, no demonstration "
        "marked in them."
        if plan.unmarked
        else ""
    )
    return (
        f"Exported from CRSEC run {provenance.run} ({provenance.society}): "
        f"{provenance.adherent}/{provenance.agents} agents held it and adhered to it by "
        f"{provenance.hour_label}.{norm} Turns {own or 'none'} are the society's own "
        f"conversations, verbatim; the rest was generated.{left_out} The society's words for "
        f"the norm: {words or 'none recorded'}."
    )


def plan_losona(emerged: EmergedNorm, selection: Selection) -> LosonaPlan:
    """What the run gives the scenario: examples first, then the conversations with a line about
    the norm that share no five words with them (LoSoNA's leak rule), up to three and 33
    turns."""
    evidence = emerged.evidence
    compliant = next(iter(evidence.compliant()), "")
    breaching = next(iter(evidence.breaches()), "")
    hidden = [emerged.target.statement, compliant, breaching]
    chosen: list[Conversation] = []
    for talk in evidence.demonstrating():
        turns = sum(len(c.transcript) for c in chosen) + len(talk.transcript)
        leaks = copied_runs(talk.transcript, hidden, SHARED_RUN_WORDS)
        if len(chosen) < MAX_CONVERSATIONS and turns < MAX_TURNS and not any(leaks):
            chosen.append(talk)
    taken = sum(len(talk.transcript) for talk in chosen)
    demonstrations = max(0, MIN_DEMONSTRATIONS - len(chosen))
    speakers = [speaker for talk in chosen for speaker, _ in talk.transcript]
    return LosonaPlan(
        emerged=emerged,
        selection=selection,
        subject=newcomer_name(selection.society),
        conversations=chosen,
        cast=cast_names(emerged, selection, speakers, CAST_SIZE),
        compliant=compliant,
        breaching=breaching,
        filler=max(0, TARGET_TURNS - 1 - taken - demonstrations),
        demonstrations=demonstrations,
        unmarked=len(evidence.conversations) - len(evidence.demonstrating()),
    )


async def export_losona(
    model: Model, emerged: EmergedNorm, selection: Selection, repairs: int
) -> Generated[Scenario]:
    """One LoSoNA scenario for ``emerged``: plan from the run, generate the rest, lint, repair."""
    plan = plan_losona(emerged, selection)
    return await generate_scenario(
        model, emerged.target.id, plan.prompt(), LosonaFill, plan.check, repairs
    )
