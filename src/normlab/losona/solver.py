"""LoSoNA's subject solver: one sampled reply to the subject prompt (paper §5.1, §6).

The eval's model writes the next chat message at temperature 0.9, except for the
models the paper sampled at their provider's default settings (§6: OpenAI's GPT-5
series and Claude Fable 5, whose APIs fix or reject a temperature). A reply cut
off by the output cap (thinking tokens count against it on reasoning models) is a
*truncation*: it is retried once with a larger cap and recorded in the sample's
metadata, never passed off as a complete message.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspect_ai.model import ChatMessageAssistant, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from pydantic import BaseModel

from normlab.core.errors import InputError
from normlab.models import RoleSettings, StructuredResult, generate_structured

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


@dataclass(frozen=True)
class SubjectTemperature:
    """``paper`` (0.9, or provider default for the models above), a fixed value, or ``default``."""

    mode: str
    value: float | None = None

    @classmethod
    def parse(cls, text: float | str) -> SubjectTemperature:
        if isinstance(text, int | float):
            return cls("fixed", float(text))
        if text in ("paper", "default"):
            return cls(text)
        try:
            return cls("fixed", float(text))
        except ValueError:
            raise InputError(
                "--temperature",
                f"expected a number, 'paper' or 'default', got {text!r}",
                field="temperature",
            ) from None

    def for_model(self, model: str) -> float | None:
        """The temperature sent to ``model``; ``None`` sends none (the provider's default)."""
        if self.mode == "fixed":
            return self.value
        if self.mode == "default" or model.startswith(PROVIDER_DEFAULT_MODELS):
            return None
        return PAPER_TEMPERATURE


def temperature_label(value: float | None) -> str:
    return "provider default" if value is None else f"{value:g}"


@solver
def subject_reply(
    temperature: SubjectTemperature | None = None, settings: RoleSettings | None = None
) -> Solver:
    """The subject's next message, at the subject's temperature, cap and reasoning effort."""
    chosen = temperature or SubjectTemperature("paper")
    roles = settings or RoleSettings()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
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
        state.metadata["subject_truncated"] = result.truncated
        state.metadata["subject_truncations"] = result.truncations
        state.metadata["subject_temperature"] = temperature_label(value)
        return state

    return solve
