"""Per-role generation settings: output caps and reasoning effort, set from the command line.

Output caps count thinking tokens on reasoning models, so a cap sized for a
plain model (LoSoNA's judge: 400) can leave a reasoning model's reply empty.
Every role's cap and reasoning effort is therefore an option
(``--max-tokens judge=2000 --reasoning-effort subject=low``), carried into the
task as a plain mapping so ``inspect eval -T max_tokens='{judge: 2000}'`` works
too. A reply still cut off is a truncation: retried once with a larger cap and
counted apart (``normlab.models.structured``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict, get_args

from pydantic import BaseModel, Field, ValidationError

from normlab.core.errors import InputError
from normlab.models.roles import parse_assignments

if TYPE_CHECKING:
    from inspect_ai.model import GenerateConfig

MAX_TOKENS_CAP = 1_000_000
Effort = Literal["none", "minimal", "low", "medium", "high", "xhigh"]
EFFORTS: tuple[str, ...] = get_args(Effort)


class RoleArguments(TypedDict):
    """[`RoleSettings`][normlab.models.RoleSettings] as the plain mappings a task and its
    scorer take, and so as their logs record them."""

    max_tokens: dict[str, int]
    reasoning_effort: dict[str, str]


class RoleSettings(BaseModel):
    """Caps and reasoning effort by role; roles not named keep the system's defaults."""

    max_tokens: dict[str, Annotated[int, Field(ge=1, le=MAX_TOKENS_CAP)]] = Field(
        default_factory=dict
    )
    """Output caps by role: a whole number of tokens from 1 to 1,000,000 (no provider allows
    more; a cap of 0 or less would make every reply a truncation)."""
    reasoning_effort: dict[str, Effort] = Field(default_factory=dict)

    def config(
        self, role: str, max_tokens: int, temperature: float | None = None
    ) -> GenerateConfig:
        """The call config of ``role``: its cap (or ``max_tokens``), effort and temperature."""
        from inspect_ai.model import GenerateConfig

        return GenerateConfig(
            max_tokens=self.max_tokens.get(role, max_tokens),
            reasoning_effort=self.reasoning_effort.get(role),
            temperature=temperature,
        )

    def task_args(self) -> RoleArguments:
        """As task arguments (every task takes ``max_tokens`` and ``reasoning_effort``, and
        so does every scorer that calls a model: its options are what its log records)."""
        return {
            "max_tokens": dict(self.max_tokens),
            "reasoning_effort": dict(self.reasoning_effort),
        }

    def cap(self, role: str, default: int) -> int:
        return self.max_tokens.get(role, default)

    @classmethod
    def of(cls, max_tokens: Any = None, reasoning_effort: Any = None) -> RoleSettings:
        """From task arguments: mappings, or ``"role=value,role=value"`` strings."""
        try:
            return cls(
                max_tokens=_mapping(max_tokens, "max_tokens"),
                reasoning_effort=_mapping(reasoning_effort, "reasoning_effort"),
            )
        except ValidationError as error:
            first = error.errors()[0]
            field = ".".join(str(part) for part in first["loc"])
            raise InputError(
                f"--{first['loc'][0]}".replace("_", "-"),
                f"{first['msg']} (got {first.get('input')!r}"
                + (
                    f"; efforts: {', '.join(EFFORTS)})"
                    if first["loc"][0] == "reasoning_effort"
                    else ")"
                ),
                field=field,
            ) from error


def _mapping(value: Any, name: str) -> dict[str, Any]:
    if value is None or value == "":
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str):
        return parse_assignments(value.split(","), name)
    raise InputError(f"--{name}".replace("_", "-"), "expected ROLE=VALUE pairs", field=name)
