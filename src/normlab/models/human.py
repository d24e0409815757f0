"""A person in the subject's seat: the ``human/<name>`` provider.

Human input is a model like any other (design): a person's answers flow through
the same task, logs, judge, analyses and reports as a model's, under the model
name ``human/<name>``, so a human row sits beside the models in every table.

The provider does not know how to reach the person; an *answerer* does. A command
(``normlab hsii play``, the web app) registers one for the duration of a run with
:func:`answering`; it receives the conversation the model would see and returns
the person's reply. Calls are one at a time. Token usage is counted in words, so
tables stay comparable in shape; cost is zero.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelCall,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from normlab.core.errors import NormlabError

Answerer = Callable[[list[ChatMessage]], Awaitable[str]]
_answerers: dict[str, Answerer] = {}


class NoHumanError(NormlabError):
    """``human/<name>`` was asked for an answer with nobody registered to give one."""


@contextlib.contextmanager
def answering(name: str, answerer: Answerer) -> Iterator[None]:
    """Route ``human/<name>``'s calls to ``answerer`` while the block runs."""
    _answerers[name] = answerer
    try:
        yield
    finally:
        _answerers.pop(name, None)


@modelapi(name="human")
class HumanModel(ModelAPI):
    """Inspect provider whose replies come from a person (see the module docstring)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)

    def max_connections(self) -> int:
        return 1

    def connection_key(self) -> str:
        return f"human/{self.model_name}"

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> tuple[ModelOutput, ModelCall]:
        answerer = _answerers.get(self.model_name)
        if answerer is None:
            raise NoHumanError(
                f"human/{self.model_name} has nobody to answer: play with "
                "'normlab hsii play', 'normlab serve', or another command that seats a person"
            )
        reply = await answerer(input)
        prompt = "\n\n".join(message.text for message in input)
        usage = ModelUsage(
            input_tokens=len(prompt.split()),
            output_tokens=len(reply.split()),
            total_tokens=len(prompt.split()) + len(reply.split()),
            total_cost=0.0,
        )
        output = ModelOutput.from_content(model=f"human/{self.model_name}", content=reply)
        output.usage = usage
        return output, ModelCall.create(request={"prompt": prompt}, response={"reply": reply})
