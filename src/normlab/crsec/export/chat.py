"""What the LoSoNA and SCENE builders of ``crsec export`` share: the group chat around the
society's own turns.

A society's run holds its members, their places, what they said to one another and what
they did; it holds no newcomer and no group chat. The newcomer is named here (a name no
member has), the chat's description and the members' one-line bios are written from the
society file (its name, places, occupations), and the generator model's turns are laid
out around the society's own. The generator's prompts are ours (``prompts/export_*_ours.txt``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from inspect_ai.model import ChatMessageUser, GenerateConfig, Model
from pydantic import BaseModel, Field

from normlab.core.outputs import slug
from normlab.crsec.export.emerged import EmergedNorm, Selection
from normlab.crsec.sim.schemas import AgentSpec, Society
from normlab.models import Generated, generate_checked

NEWCOMER_NAMES = ("Alex", "Jordan", "Riley", "Casey", "Robin", "Morgan", "Quinn", "Avery")
"""The newcomer's name: the first no member of the society has, in full or as first name."""

GENERATOR_TEMPERATURE = 0.8
GENERATOR_MAX_TOKENS = 3000

FillT = TypeVar("FillT", bound=BaseModel)
ScenarioT = TypeVar("ScenarioT")


class TurnDraft(BaseModel):
    """A message the generator writes."""

    actor: str
    content: str = Field(min_length=1)


def newcomer_name(society: Society) -> str:
    taken = {agent.name for agent in society.agents}
    taken |= {agent.first_name for agent in society.agents}
    free = [name for name in NEWCOMER_NAMES if name not in taken]
    return free[0] if free else f"Newcomer {len(society.agents) + 1}"


def bio(agent: AgentSpec, society: Society) -> str:
    """A member's one line: their occupation, from the society file (a description talks of
    their norms, which no subject-visible line may). Short, so that a generator's hidden
    examples seldom repeat five of its words."""
    if not agent.occupation:
        return f"A regular at {society.name}."
    return f"{agent.occupation[0].upper()}{agent.occupation[1:]}."


def channel_description(society: Society) -> str:
    return f"The group chat of the regulars of {society.name}."


def places(society: Society) -> str:
    return "; ".join(
        f"{place.name}: {place.description}" if place.description else place.name
        for place in society.places
    )


def cast_names(
    emerged: EmergedNorm, selection: Selection, first: Sequence[str], size: int
) -> list[str]:
    """``first``, then the norm's adherents, then the other members, up to ``size`` (never
    fewer than ``first``), in that order and each once."""
    order = [*first, *emerged.adherents, *(agent.name for agent in selection.society.agents)]
    names = list(dict.fromkeys(order))
    return names[: max(size, len(dict.fromkeys(first)))]


def scenario_suffix(selection: Selection) -> str:
    return slug(selection.run)


ItemT = TypeVar("ItemT")


def interleave(filler: list[ItemT], blocks: list[list[ItemT]]) -> list[ItemT]:
    """``filler`` cut into ``len(blocks) + 1`` near-equal runs, the blocks between them: the
    society's turns spread through the generator's ordinary chat, in their own order."""
    runs = len(blocks) + 1
    size, extra = divmod(len(filler), runs)
    out: list[ItemT] = []
    start = 0
    for index in range(runs):
        end = start + size + (index < extra)
        out += filler[start:end]
        start = end
        if index < len(blocks):
            out += blocks[index]
    return out


def example_actors(names: list[str]) -> dict[str, str]:
    """Members' real names in the prompt's JSON shape: a small model copies a placeholder
    such as "member name" as it stands."""
    return {"first member": names[0], "second member": names[1 % len(names)]}


def cast_lines(names: list[str], society: Society) -> str:
    return "\n".join(f"- {name}: {bio(society.agent(name), society)}" for name in names)


def society_values(selection: Selection, cast: list[str], subject: str) -> dict[str, str]:
    """What both generator prompts open with: the society and its places, the members cast
    in the chat (each with a bio from the society file), the newcomer, and two members' real
    names for the JSON shape."""
    return {
        "society": selection.society.name,
        "places": places(selection.society),
        "cast": cast_lines(cast, selection.society),
        "subject": subject,
        **example_actors(cast),
    }


async def generate_scenario(
    model: Model,
    norm: str,
    prompt: str,
    fill: type[FillT],
    check: Callable[[FillT], tuple[ScenarioT | None, list[str]]],
    repairs: int,
) -> Generated[ScenarioT]:
    """The generator's part of a scenario for the norm ``norm``: its reply as ``fill``, then
    ``check`` (the benchmark's own lint) with ``repairs`` rounds of the findings sent back."""
    config = GenerateConfig(temperature=GENERATOR_TEMPERATURE, max_tokens=GENERATOR_MAX_TOKENS)
    result = await generate_checked(
        model, [ChatMessageUser(content=prompt)], fill, check, config, repairs
    )
    return Generated(norm, result.value, result.problems, result.calls)
