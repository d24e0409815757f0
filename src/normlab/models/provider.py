"""The shared shape of normlab's own Inspect providers: embedded, scripted, human, spread.

Inspect builds a provider as ``cls(model_name=…, base_url=…, api_key=…, config=…, **model_args)``.
None of ours reads a credential or a URL (they run in-process, or delegate to providers that
do), so the constructor is written once here and each provider reads only its own ``-M``
options in ``NormlabModelAPI.setup``.

Two of them answer with text they make themselves (a script, a person) and have no
tokenizer: ``TextReplyModelAPI`` turns such a text into Inspect's output with the
tokens counted as words, so usage tables are filled and comparable in shape, and Inspect's
mock model (which would fetch a tokenizer, and fail offline) is never needed.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelCall,
    ModelOutput,
    ModelUsage,
    StopReason,
)
from inspect_ai.tool import ToolChoice, ToolInfo


@dataclass(frozen=True)
class GenerateArgs:
    """What Inspect hands ``ModelAPI.generate``, as one value."""

    input: list[ChatMessage]
    tools: list[ToolInfo]
    tool_choice: ToolChoice
    config: GenerateConfig


class NormlabModelAPI(ModelAPI):
    """Base of normlab's providers: Inspect's constructor, no credentials, typed options, and
    Inspect's ``generate`` answered by each provider's ``respond``."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: Any,
    ) -> None:
        # No environment variable holds a key for these providers: ``[]``.
        super().__init__(model_name, base_url, api_key, [], config)
        self.setup(config, **model_args)

    def setup(self, config: GenerateConfig, **model_args: Any) -> None:
        """Read this provider's ``-M`` options; unknown ones are ignored, as Inspect's are."""

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput | tuple[ModelOutput | Exception, ModelCall]:
        return await self.respond(GenerateArgs(input, tools, tool_choice, config))

    @abc.abstractmethod
    async def respond(
        self, args: GenerateArgs
    ) -> ModelOutput | tuple[ModelOutput | Exception, ModelCall]:
        """The provider's answer to one ``generate`` call."""


def conversation_text(messages: list[ChatMessage]) -> str:
    """The conversation as one text, messages joined by blank lines: what a script's rules
    match against and what a person reads."""
    return "\n\n".join(message.text for message in messages)


def word_count(text: str) -> int:
    return len(text.split())


class TextReplyModelAPI(NormlabModelAPI):
    """A provider whose reply is a text it makes itself, with tokens counted as words."""

    reply_cost: float | None = None
    """The cost recorded per call (``None``: no cost known)."""

    def reply_model(self) -> str:
        """The model name the output carries."""
        return self.model_name

    @abc.abstractmethod
    async def answer(
        self, input: list[ChatMessage], prompt: str, config: GenerateConfig
    ) -> tuple[str, StopReason]:
        """The reply to the conversation ``input`` (``prompt`` is its text) and why it ended."""

    async def respond(self, args: GenerateArgs) -> tuple[ModelOutput, ModelCall]:
        prompt = conversation_text(args.input)
        reply, stop_reason = await self.answer(args.input, prompt, args.config)
        output = ModelOutput.from_content(
            model=self.reply_model(), content=reply, stop_reason=stop_reason
        )
        input_tokens, output_tokens = word_count(prompt), word_count(reply)
        output.usage = ModelUsage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=input_tokens + output_tokens,
            total_cost=self.reply_cost,
        )
        call = ModelCall.create(request={"prompt": prompt}, response={"reply": reply})
        return output, call
