"""Calls, tokens and cost per model role: the one usage path of every normlab report.

Tokens and dollars come from what Inspect itself records per sample:
``role_usage`` for every named role (judge, persona, …) and ``model_usage`` for
all calls, so the eval's own model (normlab's *subject*, which Inspect calls
with no role) is the difference. Call counts are the one thing Inspect keeps
only as ``model`` events, so they are counted there. Cost is filled wherever
Inspect knows the model's price (the embedded and scripted models have none).

The CRSEC simulation runs outside Inspect's samples; its [`ModelClient`][normlab.models.ModelClient]
sums the same [`RoleUsage`][normlab.models.RoleUsage] from its own call records.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Protocol, TypeVar

from inspect_ai.model import ModelUsage
from pydantic import BaseModel, Field

from normlab.core.logs import event_retries, subject_of
from normlab.core.sources import DataSource

if TYPE_CHECKING:
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import EvalSample

    from normlab.core.logs import SampleSet

SUBJECT_ROLE = "subject"
"""The role of a call Inspect records with no role: the task's own model, the subject."""


def _optional_sum(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    return a if b is None else a + b


class RoleUsage(BaseModel):
    """One role's calls and tokens (input includes cached tokens) and dollar cost."""

    calls: int = 0
    """Calls that reached the model (cache hits are counted apart)."""
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    """US dollars, summed over calls Inspect could price (None when it priced none)."""
    retries: int = 0
    """Attempts that failed and were made again: rate limits, server errors, timeouts and
    dropped connections (retried by Inspect) and responses that were no reply (by normlab)."""
    cache_hits: int = 0
    """Calls answered from Inspect's local cache (a rerun, a deterministic judge): no model
    call and no cost this time, so kept apart from ``calls``; a fresh run pays for them."""
    cache_hit_input_tokens: int = 0
    """Input tokens of the cache hits, as the first call used them: what a run without the
    cache would add to ``input_tokens``."""
    cache_hit_output_tokens: int = 0

    @property
    def cached_share(self) -> float | None:
        """Share of input tokens served from the provider's prompt cache."""
        return self.cached_input_tokens / self.input_tokens if self.input_tokens else None

    def __add__(self, other: RoleUsage) -> RoleUsage:
        return RoleUsage(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost=_optional_sum(self.cost, other.cost),
            retries=self.retries + other.retries,
            cache_hits=self.cache_hits + other.cache_hits,
            cache_hit_input_tokens=self.cache_hit_input_tokens + other.cache_hit_input_tokens,
            cache_hit_output_tokens=self.cache_hit_output_tokens + other.cache_hit_output_tokens,
        )

    @classmethod
    def of(cls, usage: ModelUsage, calls: int = 0) -> RoleUsage:
        cached = (usage.input_tokens_cache_read or 0) + (usage.input_tokens_cache_write or 0)
        return cls(
            calls=calls,
            input_tokens=usage.input_tokens + cached,
            cached_input_tokens=usage.input_tokens_cache_read or 0,
            output_tokens=usage.output_tokens,
            cost=usage.total_cost,
        )


class CallCounts(Protocol):
    """What one logged model call says of its tokens, dollars and retries (a client's call
    record, a CRSEC run's call event)."""

    @property
    def input_tokens(self) -> int: ...
    @property
    def cached_input_tokens(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def cost(self) -> float | None: ...
    @property
    def retries(self) -> int: ...


CallT = TypeVar("CallT", bound=CallCounts)


class TokenPrice(Protocol):
    """US dollars per million input and output tokens (a study's ``prices:``)."""

    @property
    def input(self) -> float: ...
    @property
    def output(self) -> float: ...


def dollars(input_tokens: int, output_tokens: int, price: TokenPrice) -> float:
    """US dollars for the tokens at ``price`` (per million tokens)."""
    return (input_tokens * price.input + output_tokens * price.output) / 1e6


def usage_by(
    calls: Iterable[CallT],
    key: Callable[[CallT], str],
    count: Callable[[CallT], int] = lambda call: 1,
) -> dict[str, RoleUsage]:
    """Calls (one each, or ``count`` of each: a record's attempts, when a parse repair is to
    count as the call it is), tokens, cost and retries summed per ``key``, in the keys' order."""
    totals: dict[str, RoleUsage] = {}
    for call in calls:
        name = key(call)
        totals[name] = totals.get(name, RoleUsage()) + RoleUsage(
            calls=count(call),
            input_tokens=call.input_tokens,
            cached_input_tokens=call.cached_input_tokens,
            output_tokens=call.output_tokens,
            cost=call.cost,
            retries=call.retries,
        )
    return dict(sorted(totals.items()))


def _difference(total: RoleUsage, part: RoleUsage) -> RoleUsage:
    cost = None
    if total.cost is not None:
        cost = max(0.0, total.cost - (part.cost or 0.0)) if part.cost is not None else total.cost
    return RoleUsage(
        input_tokens=max(0, total.input_tokens - part.input_tokens),
        cached_input_tokens=max(0, total.cached_input_tokens - part.cached_input_tokens),
        output_tokens=max(0, total.output_tokens - part.output_tokens),
        cost=cost,
    )


def _sum(usages: Iterable[RoleUsage]) -> RoleUsage:
    total = RoleUsage()
    for usage in usages:
        total = total + usage
    return total


def sample_usage(sample: EvalSample) -> dict[str, RoleUsage]:
    """Per-role usage of one sample (the subject is every call without a role)."""
    roles = {role: RoleUsage.of(usage) for role, usage in sample.role_usage.items()}
    everything = _sum(RoleUsage.of(usage) for usage in sample.model_usage.values())
    subject = _difference(everything, _sum(roles.values()))
    events: dict[str, RoleUsage] = {}
    for event in sample.events:
        if event.event == "model":
            role = event.role or SUBJECT_ROLE
            events[role] = events.get(role, RoleUsage()) + event_usage(event)
    if SUBJECT_ROLE in events or subject.input_tokens or subject.output_tokens:
        roles[SUBJECT_ROLE] = subject
    for role, counted in events.items():
        # Inspect's usage has the tokens and cost, the events the calls, retries and hits.
        roles[role] = roles.get(role, RoleUsage()) + counted
    return roles


def event_usage(event: ModelEvent) -> RoleUsage:
    """What one model event adds to the counts Inspect keeps only as events: a call (or a
    cache hit, with the tokens its cached answer cost when first made) and its retries.
    Inspect records no usage for a cache hit, so its tokens come from the cached output."""
    if event.cache == "read":
        usage = event.output.usage
        return RoleUsage(
            retries=event_retries(event),
            cache_hits=1,
            cache_hit_input_tokens=RoleUsage.of(usage).input_tokens if usage else 0,
            cache_hit_output_tokens=usage.output_tokens if usage else 0,
        )
    return RoleUsage(calls=0 if event.error else 1, retries=event_retries(event))


def merge_usage(parts: Iterable[Mapping[str, RoleUsage]]) -> dict[str, RoleUsage]:
    """Sum per-role usage over samples (or runs)."""
    totals: dict[str, RoleUsage] = {}
    for part in parts:
        for role, usage in part.items():
            totals[role] = totals.get(role, RoleUsage()) + usage
    return dict(sorted(totals.items()))


def usage_by_role(samples: Iterable[EvalSample]) -> dict[str, RoleUsage]:
    """Per-role calls, tokens and cost over the given samples."""
    return merge_usage(sample_usage(sample) for sample in samples)


class RunUsage(BaseModel):
    """One run's (one subject model's) usage by role, and how many samples it covers."""

    units: int
    roles: dict[str, RoleUsage]


def priced(
    usage: Mapping[str, RunUsage],
    model_of: Mapping[str, str],
    prices: Mapping[str, TokenPrice],
) -> dict[str, RunUsage]:
    """``usage`` with each role whose model (``model_of``: role → model) ``prices`` names
    costed at that price, over what Inspect recorded: a study's ``prices:`` stand over
    Inspect's, and Inspect knows no price for a model it does not list (a scripted or
    private one), which the usage table would show as "cost unknown". The tokens priced are
    those this run paid for; cache hits cost nothing this time."""
    found: dict[str, RunUsage] = {}
    for run, used in usage.items():
        roles = {}
        for role, item in used.roles.items():
            price = prices.get(model_of.get(role, ""))
            if price is not None:
                cost = dollars(item.input_tokens, item.output_tokens, price)
                item = item.model_copy(update={"cost": cost})
            roles[role] = item
        found[run] = used.model_copy(update={"roles": roles})
    return found


def usage_by_run(samples: SampleSet) -> dict[str, RunUsage]:
    """Per subject (the model, or ``MODEL + AGENT``): usage by role over its samples."""
    by_model: dict[str, list[dict[str, RoleUsage]]] = {}
    for item in samples.samples:
        by_model.setdefault(subject_of(item.log), []).append(sample_usage(item.sample))
    return {
        model: RunUsage(units=len(parts), roles=merge_usage(parts))
        for model, parts in sorted(by_model.items())
    }


class AnalysisBase(BaseModel):
    """What every system's analysis carries besides its metrics: its runs' usage, so every
    ``--json``, terminal table and report has calls, tokens and cost by role; and the data
    each run measured, so each says exactly which bytes its numbers are about."""

    usage: dict[str, RunUsage] = Field(default_factory=dict)
    data: dict[str, list[DataSource]] = Field(
        default_factory=dict, exclude_if=lambda data: not any(data.values())
    )
    """Per run (keyed as ``usage``): the data its logs recorded
    (``data_by_run``); an empty list for logs older than that. Left
    out of ``--json`` when no log recorded any, so an old log's analysis reads as it did."""
