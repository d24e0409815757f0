"""LoSoNA's subject solver: one sampled reply to the subject prompt (paper §5.1, §6).

The eval's model writes the next chat message at temperature 0.9, except for the
models the paper sampled at their provider's default settings (§6: OpenAI's GPT-5
series and Claude Fable 5, whose APIs fix or reject a temperature). A reply cut
off by the output cap (thinking tokens count against it on reasoning models) is a
*truncation*: it is retried once with a larger cap and recorded in the sample's
metadata, never passed off as a complete message.

With ``agent="norm-memory"`` the subject is the norm-learning agent (``normlab.agents``):
before replying it reads the chat, keeps the norms that pass CRSEC's immediate evaluation,
and the same model writes the reply to the same prompt plus the agent's compliance block.
The agent's database goes into the sample's metadata.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, Model, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from pydantic import BaseModel

from normlab.agents import (
    NORM_MEMORY,
    NORM_MEMORY_ROLE,
    NormMemory,
    memory_model,
)
from normlab.core.chat import render_transcript
from normlab.core.errors import InputError
from normlab.core.logs import BASE_AGENT
from normlab.losona.meta import SampleMeta
from normlab.losona.prompts import render_subject_prompt
from normlab.models import ModelClient, RoleSettings, StructuredResult, generate_structured

PAPER_TEMPERATURE = 0.9
PROVIDER_DEFAULT_MODELS = (
    "openai/gpt-5",
    "openai/o1",
    "openai/o3",
    "openai/o4",
    "anthropic/claude-fable",
)
"""Model name prefixes the paper (§6) sampled at provider defaults rather than 0.9."""
SUBJECT_MAX_TOKENS = 256
MAX_TEMPERATURE = 2.0


@dataclass(frozen=True)
class SubjectTemperature:
    """``paper`` (0.9, or provider default for the models above), a fixed value, or ``default``."""

    mode: str
    value: float | None = None

    @classmethod
    def parse(cls, text: float | str) -> SubjectTemperature:
        if isinstance(text, str) and text in ("paper", "default"):
            return cls(text)
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        # NaN, infinities and negatives are no temperature any provider takes; 2 is the
        # largest the OpenAI-compatible APIs accept.
        if not 0.0 <= value <= MAX_TEMPERATURE:
            raise InputError(
                "--temperature",
                f"expected a number from 0 to {MAX_TEMPERATURE:g}, 'paper' or 'default', "
                f"got {str(text)[:40]!r}",
                field="temperature",
            )
        return cls("fixed", value)

    def for_model(self, model: str) -> float | None:
        """The temperature sent to ``model``; ``None`` sends none (the provider's default)."""
        if self.mode == "fixed":
            return self.value
        if self.mode == "default" or model.startswith(PROVIDER_DEFAULT_MODELS):
            return None
        return PAPER_TEMPERATURE


def temperature_label(value: float | None) -> str:
    return "provider default" if value is None else f"{value:g}"


async def read_norms(
    state: TaskState, subject: Model, settings: RoleSettings, instruction: str | None = None
) -> None:
    """The norm-learning subject reads the chat the prompt shows and keeps the norms that pass;
    the prompt (``instruction``: a prompt variant's wording) gains its compliance block and
    the metadata its norm database."""
    meta = state.metadata_as(SampleMeta)
    scenario = meta.scenario
    client = ModelClient({NORM_MEMORY_ROLE: memory_model(subject)})
    memory = NormMemory.for_sample(state, client, scenario.subject, settings)
    block = await memory.before_reply(
        render_transcript(scenario.visible_turns), scenario.elicitor_turn_id
    )
    prompt = render_subject_prompt(scenario, meta.condition, block, instruction)
    state.messages = [ChatMessageUser(content=prompt)]
    meta.remembered(memory.log).write(state.metadata)


@solver
def subject_reply(
    temperature: SubjectTemperature | None = None,
    settings: RoleSettings | None = None,
    agent: str = BASE_AGENT,
    instruction: str | None = None,
) -> Solver:
    """The subject's next message, at the subject's temperature, cap and reasoning effort;
    under ``agent="norm-memory"``, written with the agent's qualified norms in view (in the
    prompt a ``file:`` variant's ``instruction`` words, where it gives one)."""
    chosen = temperature or SubjectTemperature("paper")
    roles = settings or RoleSettings()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        if agent == NORM_MEMORY:
            await read_norms(state, model, roles, instruction)
        value = chosen.for_model(str(model))
        result: StructuredResult[BaseModel] = await generate_structured(
            model,
            state.messages,
            None,
            roles.config("subject", SUBJECT_MAX_TOKENS, value),
            repair_retries=0,
        )
        state.output = ModelOutput.from_content(
            model=str(model),
            content=result.text,
            stop_reason="max_tokens" if result.truncated else "stop",
        )
        state.messages.append(ChatMessageAssistant(content=result.text, model=str(model)))
        meta = state.metadata_as(SampleMeta)
        meta.replied(result.truncated, result.truncations, temperature_label(value)).write(
            state.metadata
        )
        return state

    return solve
