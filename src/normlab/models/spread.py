"""One role over several endpoints: ``spread/M1+M2+…`` sends each call to the least busy.

A sweep larger than one server can answer (one vLLM instance per GPU or node,
several self-hosted OpenAI-compatible servers, several API keys' quotas) gives
a role every endpoint at once::

    export GPU1_BASE_URL=http://node1:8000/v1 GPU2_BASE_URL=http://node2:8000/v1
    normlab scene run --model spread/openai-api/gpu1/Qwen2.5-72B+openai-api/gpu2/Qwen2.5-72B

Each call goes to the endpoint with the fewest calls in flight (ties in turn),
through that endpoint's own provider, so each keeps its own client, retry rules
and usage. Its connections add up: ``max_connections`` of the whole is the sum,
and ``--max-connections`` caps the whole. (``+`` separates the models because
Inspect reads commas in a model option as several models.) The log records ``spread/…`` as the
role's model, so a run over two servers resumes and analyzes as one.
"""

from __future__ import annotations

import itertools
from typing import Any

from inspect_ai.model import (
    GenerateConfig,
    ModelCall,
    ModelOutput,
    get_model,
    modelapi,
)

from normlab.core.errors import InputError
from normlab.models.provider import GenerateArgs, NormlabModelAPI


@modelapi(name="spread")
class SpreadModel(NormlabModelAPI):
    """Inspect provider over several models; see the module docstring."""

    def setup(self, config: GenerateConfig, **model_args: Any) -> None:
        names = [name.strip() for name in self.model_name.split("+") if name.strip()]
        if len(names) < 2:
            raise InputError(
                f"spread/{self.model_name}", "expected two or more models joined by '+'"
            )
        self.apis = [get_model(name, config=config, memoize=False).api for name in names]
        self.in_flight = [0] * len(self.apis)
        self._turn = itertools.count()

    def max_connections(self) -> int:
        return sum(api.max_connections() for api in self.apis)

    def connection_key(self) -> str:
        return f"spread/{self.model_name}"

    def should_retry(self, ex: Exception) -> Any:
        # The endpoints' providers classify their own errors; the first that knows wins.
        for api in self.apis:
            decision = api.should_retry(ex)
            if decision:
                return decision
        return self.apis[0].should_retry(ex)

    def _pick(self) -> int:
        turn = next(self._turn)
        count = len(self.apis)
        order = [(turn + offset) % count for offset in range(count)]
        return min(order, key=lambda index: self.in_flight[index])

    async def respond(
        self, args: GenerateArgs
    ) -> ModelOutput | tuple[ModelOutput | Exception, ModelCall]:
        index = self._pick()
        self.in_flight[index] += 1
        try:
            return await self.apis[index].generate(
                args.input, args.tools, args.tool_choice, args.config
            )
        finally:
            self.in_flight[index] -= 1
