"""LoSoNA's subject solver: one sampled reply to the subject prompt (paper §5.1).

The eval's model writes the next chat message. A reply cut off by the output cap
(thinking tokens count against it on reasoning models) is a *truncation*: it is
retried once with a larger cap and recorded in the sample's metadata, never
passed off as a complete message.
"""

from __future__ import annotations

from inspect_ai.model import ChatMessageAssistant, GenerateConfig, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from pydantic import BaseModel

from normlab.models import StructuredResult, generate_structured


@solver
def subject_reply(max_tokens: int | None = None) -> Solver:
    """The subject's next message; temperature and the rest come from the task's config."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        result: StructuredResult[BaseModel] = await generate_structured(
            model, state.messages, None, GenerateConfig(max_tokens=max_tokens), repair_retries=0
        )
        state.output = ModelOutput.from_content(
            model=str(model),
            content=result.text,
            stop_reason="max_tokens" if result.truncated else "stop",
        )
        state.messages.append(ChatMessageAssistant(content=result.text, model=str(model)))
        state.metadata["subject_truncated"] = result.truncated
        state.metadata["subject_truncations"] = result.truncations
        return state

    return solve
