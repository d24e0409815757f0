"""A person in the subject's seat: the ``human/<name>`` provider.

Human input is a model like any other (design): a person's answers flow through
the same task, logs, judge, analyses and reports as a model's, under the model
name ``human/<name>``, so a human row sits beside the models in every table.

The provider does not know how to reach the person; an *answerer* does. A command
(``normlab hsii play``, the web app) registers one for the duration of a run with
[`answering`][normlab.models.answering]; it receives the conversation the model would see and
returns the person's reply. Calls are one at a time. Token usage is counted in words, so
tables stay comparable in shape; cost is zero.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator

from inspect_ai.model import ChatMessage, GenerateConfig, StopReason, modelapi

from normlab.core.errors import NormlabError
from normlab.models.provider import TextReplyModelAPI

Answerer = Callable[[list[ChatMessage]], Awaitable[str]]
"""Gives a person's reply to the conversation ``human/<name>`` is asked (what the model would
see): a command's prompt, or the web app's seat, whose process asks the server for it."""
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
class HumanModel(TextReplyModelAPI):
    """Inspect provider whose replies come from a person (see the module docstring)."""

    reply_cost = 0.0
    """A person's answer costs nothing in the usage tables."""

    def max_connections(self) -> int:
        return 1

    def connection_key(self) -> str:
        return f"human/{self.model_name}"

    def reply_model(self) -> str:
        return f"human/{self.model_name}"

    async def answer(
        self, input: list[ChatMessage], prompt: str, config: GenerateConfig
    ) -> tuple[str, StopReason]:
        answerer = _answerers.get(self.model_name)
        if answerer is None:
            raise NoHumanError(
                f"human/{self.model_name} has nobody to answer: play with "
                "'normlab hsii play', 'normlab serve', or another command that seats a person"
            )
        return await answerer(input), "stop"
