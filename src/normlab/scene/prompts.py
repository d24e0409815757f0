"""Fill SCENE's Appendix B prompts and lay out each role's messages append-only.

Templates are verbatim in ``prompts/*.txt`` with the paper's ``{{placeholder}}``
names; a leading ``SYSTEM:`` marks the system message and is not sent.
Layout, so that successive calls of one caller share their prefix (and
llama.cpp or a provider's prompt cache can reuse it):

- scripted persona: system = B.3 filled for that persona (constant through the
  episode); user = the running transcript, then at most a one-line phase note;
- subject: system = B.4 with everything before ``TRANSCRIPT SO FAR:``; user = the
  transcript and B.4's closing line (plus the open-floor note when it applies);
- orchestrator: system = B.5 filled; user = roster, then transcript, then the
  order request.
Only what follows the transcript changes between calls, and it is one line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

from normlab.core.chat import Turn, render_transcript, render_turn
from normlab.core.templates import DOUBLE_BRACES, PromptSet
from normlab.scene.schemas import Episode, SceneScenario, norm_of
from normlab.scene.taxonomy import Dimensions

SYSTEM_PREFIX = "SYSTEM: "
TRANSCRIPT_MARKER = "TRANSCRIPT SO FAR:"

# Runtime notes: our wording (the paper describes these moments without printing them).
PRECEDENT_NOTE = "(Now: the precedent sub-script, before anyone else acts.)"
OPEN_FLOOR_NOTE = "(Nobody else has said anything this turn: the floor is open.)"
ORCHESTRATOR_REQUEST = (
    "Scripted participants to route this turn: {names}. Return next_actor, terminate, "
    'and "order": the full order in which they act this turn.'
)
MIN_POST_SANCTION_TURNS = 3


PROMPTS = PromptSet("normlab.scene", DOUBLE_BRACES)
"""SCENE's prompt files, with the paper's ``{{name}}`` placeholders."""
load_template = PROMPTS.load
NO_MESSAGES = "(no messages yet)"


def transcript_text(entries: list[Turn]) -> str:
    """The chat as Appendix B prints it: ``[id] Actor: text``, reactions as their own lines."""
    return render_transcript(entries, "numbered", empty=NO_MESSAGES)


YOU_MARK = " (you)"


def subject_view_text(entries: list[Turn], subject: str) -> str:
    """The chat the subject sees, with its own turns marked, so that the reactions and
    sanctions aimed at it show (what the norm-learning subject reads before each reply)."""
    return transcript_text(
        [
            entry.model_copy(update={"actor": entry.actor + YOU_MARK})
            if entry.actor == subject
            else entry
            for entry in entries
        ]
    )


STAGED_MARK = "(staged precedent)"
STAGED_LABELLED = "(staged precedent; labelled {labels})"
"""A staged turn's labels go inside its staged mark, not after ``##``: the metrics set staged
turns apart, so the ``##`` marks are exactly what an episode's counts count."""


def marked_transcript(
    episode: Episode, notes: Mapping[int, Sequence[str]] | None = None, rounds: bool = False
) -> str:
    """The episode for a person to read: the numbered chat (reactions as ``reacted … to [id]``),
    the subject's turns starred, the precedent sub-script's staged turns marked (the metrics
    set them apart), the notes of any turn in ``notes`` (the report's judge labels, each as
    ``## NOTE``; on a staged turn, inside its mark) and, with ``rounds``, each turn's round."""
    lines = []
    for entry in episode.entries:
        star = "*" if entry.actor == episode.subject else ""
        text = render_turn(entry, "numbered").replace(
            f"] {entry.actor}", f"] {entry.actor}{star}", 1
        )
        turn_notes = list((notes or {}).get(entry.turn_id, ()))
        if entry.phase == "precedent":
            text += "   " + (
                STAGED_LABELLED.format(labels=", ".join(turn_notes)) if turn_notes else STAGED_MARK
            )
        elif turn_notes:
            text += "".join(f"   ## {note}" for note in turn_notes)
        lines.append(f"r{entry.round} {text}" if rounds else text)
    return "\n".join(lines) if lines else NO_MESSAGES


def scaffold_turns(scenario: SceneScenario) -> list[Turn]:
    """The scaffold's scripted chat (opening messages, then the elicitor) as transcript turns;
    the precedent sub-script, when p = 1, is played live between the two."""
    transcript = scenario.scaffold.transcript
    turns = [turn for turn in transcript.opening_turns if turn.action == "message"]
    return [
        Turn(turn_id=index, actor=turn.actor, content=turn.content, phase=phase)
        for index, (turn, phase) in enumerate(
            [*((t, "opening") for t in turns), (transcript.elicitor_turn, "elicitor")], start=1
        )
    ]


def system_text(name: str, values: dict[str, str]) -> str:
    return PROMPTS.render(name, values).removeprefix(SYSTEM_PREFIX)


def sanction_text(dimensions: Dimensions, sanction_id: str) -> str:
    sanction = dimensions.sanctions[sanction_id]
    return f"{sanction.id} ({sanction.description})"


def norm_values(scenario: SceneScenario, dimensions: Dimensions) -> dict[str, str]:
    """The hidden layer as prompt values: norm statement, signals, sanction, subject, precedent.

    For the personas (who enforce the norm), the judge and the auditor; never the subject.
    """
    norm = norm_of(scenario, dimensions)
    return {
        "norm": norm.statement,
        "compliance_signals": "; ".join(norm.compliance_signals),
        "breach_signals": "; ".join(norm.breach_signals),
        "sanction": sanction_text(dimensions, scenario.tuple.sanction),
        "subject": scenario.subject.name,
        "precedent": str(scenario.tuple.precedent),
    }


def persona_messages(
    scenario: SceneScenario,
    name: str,
    dimensions: Dimensions,
    entries: list[Turn],
    note: str | None = None,
) -> list[ChatMessage]:
    persona = scenario.persona(name)
    bio = next(m.bio_oneline for m in scenario.scaffold.channel.cast if m.name == name)
    lines = persona.precedent_lines_or_null
    system = system_text(
        "persona",
        {
            "persona.name": name,
            "persona.bio_oneline": bio.rstrip("."),
            "persona.outline": persona.outline,
            "sanction": sanction_text(dimensions, scenario.tuple.sanction),
            "persona.sanction_lines": "\n".join(f"- {line}" for line in persona.sanction_lines)
            or "(none)",
            "persona.precedent_lines_or_null": "\n".join(f"- {line}" for line in lines)
            if lines
            else "null",
        },
    )
    # §4.2: personas "also receive the hidden norm"; B.3 has no placeholder for it, so our
    # lines follow the verbatim prompt.
    system += "\n" + PROMPTS.render("persona_norm", norm_values(scenario, dimensions))
    channel = scenario.scaffold.channel
    user = (
        f"CHANNEL: {channel.description}\n"
        f"SUBJECT: {scenario.subject.name}, {scenario.subject.bio_oneline}\n"
        f"TRANSCRIPT SO FAR:\n{transcript_text(entries)}"
    )
    if note:
        user += f"\n\n{note}"
    return [ChatMessageSystem(content=system), ChatMessageUser(content=user)]


def cast_text(scenario: SceneScenario) -> str:
    return "; ".join(f"{m.name} ({m.bio_oneline})" for m in scenario.scaffold.channel.cast)


def subject_messages(
    scenario: SceneScenario,
    entries: list[Turn],
    open_floor: bool = False,
    norms: str = "",
    instruction: str | None = None,
) -> list[ChatMessage]:
    """B.4 for the subject: channel-visible context only, never hidden fields.

    ``norms``: a norm-learning subject's compliance block (its qualified norms), placed after
    the transcript and before B.4's closing line, where the action is asked for.
    ``instruction``: a ``file:`` prompt variant's wording in place of B.4
    (``normlab.scene.variants``), filled and laid out the same way.
    """
    channel = scenario.scaffold.channel
    values = {
        "channel.description": channel.description,
        "channel.cast": f"{cast_text(scenario)}. You are {scenario.subject.name} "
        f"({scenario.subject.bio_oneline}).",
        "transcript": "\x00",
    }
    if instruction is None:
        filled = system_text("subject", values)
    else:
        filled = PROMPTS.fill(instruction, values).removeprefix(SYSTEM_PREFIX)
    head, tail = filled.split(f"{TRANSCRIPT_MARKER} \x00")
    user = f"{TRANSCRIPT_MARKER}\n{transcript_text(entries)}"
    if open_floor:
        user += f"\n\n{OPEN_FLOOR_NOTE}"
    if norms:
        user += f"\n\n{norms}"
    user += tail
    return [ChatMessageSystem(content=head.rstrip()), ChatMessageUser(content=user)]


def orchestrator_messages(
    scenario: SceneScenario, entries: list[Turn], max_turns: int, to_route: list[str]
) -> list[ChatMessage]:
    system = system_text(
        "orchestrator",
        {
            "max_turns": str(max_turns),
            "min_post_sanction_turns": str(MIN_POST_SANCTION_TURNS),
        },
    )
    user = (
        f"PARTICIPANTS: {cast_text(scenario)}; subject: {scenario.subject.name}\n"
        f"TRANSCRIPT SO FAR:\n{transcript_text(entries)}\n\n"
        + ORCHESTRATOR_REQUEST.format(names=", ".join(to_route))
    )
    return [ChatMessageSystem(content=system), ChatMessageUser(content=user)]
