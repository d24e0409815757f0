"""The metrics' judge: does a personal norm express a target norm; did an agent comply.

The paper plots shares of agents "holding" and "adhering to" each norm but never says how
an entry is matched to a norm or how adherence is judged; we ask a ``judge`` role, strictly
(the prompts are ``judge_match.txt``, shared with the norm-learning subject in
``normlab/norms/prompts/``, and ``prompts/judge_compliance.txt``; ``crsec export`` also asks it
which lines demonstrate a norm, ``prompts/judge_demonstration.txt``), at temperature 0. Every
verdict is cached in the run directory (``judge_cache.jsonl``, keyed by judge model and prompt),
appended as it arrives: re-analysing costs nothing, and an analysis killed half-way resumes
where it stopped. A reply that never parses is cached as such and counts as no match / not
shown, and the analysis reports how many there were.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from inspect_ai.model import ChatMessageUser, GenerateConfig
from pydantic import BaseModel, Field

from normlab.core.errors import InputError
from normlab.core.jsonio import append_jsonl, jsonl_lines, parse_json, read_text, write_jsonl
from normlab.crsec.prompts import PROMPTS
from normlab.crsec.sim.schemas import TargetNorm
from normlab.models import ModelClient
from normlab.norms.matching import match_prompt, target_line
from normlab.norms.replies import NormMatches, Reply

SchemaT = TypeVar("SchemaT", bound=BaseModel)


class Demonstration(Reply):
    """The judge's reply to ``judge_demonstration``: whether one line of a conversation shows
    the norm (its speaker follows it, asks for it, or states it), and why. Required: a reply
    that does not say is a parse failure, never a silent no."""

    demonstrates: bool
    reason: str = ""


class ComplianceVerdict(Reply):
    norm: str
    plan: Literal["complied", "violated", "not shown"] = "not shown"
    actions: Literal["complied", "violated", "not shown"] = "not shown"


class ComplianceVerdicts(Reply):
    verdicts: list[ComplianceVerdict] = Field(default_factory=list)


JUDGE_ROLE = "judge"
JUDGE_CACHE = "judge_cache.jsonl"

Verdict = tuple[str, str]
"""(plan, actions): each ``complied``, ``violated`` or ``not shown``."""
NOT_SHOWN: Verdict = ("not shown", "not shown")


def read_cache(path: Path) -> tuple[list[dict[str, Any]], bool]:
    """The cached verdicts, and whether a last line cut short by a killed analysis was left out."""
    if not path.exists():
        return [], False
    text = read_text(path).removesuffix("\n")
    lines = jsonl_lines(text) if text else []
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        try:
            row = parse_json(line, path, number)
        except InputError:
            if number == len(lines):
                return rows, True
            raise
        if not isinstance(row, dict) or "key" not in row or "parsed" not in row:
            raise InputError(path, "each line must be a cached verdict (key, parsed…)", line=number)
        rows.append(row)
    return rows, False


def cached_matches(folder: Path, model: str | None = None) -> dict[str, list[str]]:
    """Personal norm → target ids, from a run's judge cache (the latest verdict per norm)."""
    rows, _ = read_cache(folder / JUDGE_CACHE)
    matches: dict[str, list[str]] = {}
    for row in rows:
        if row.get("operation") != "judge_match" or (model and row.get("model") != model):
            continue
        parsed = row.get("parsed") or {}
        matches[str(row.get("subject"))] = [str(m) for m in parsed.get("matches", [])]
    return matches


def targets_text(targets: Iterable[TargetNorm], compliance: bool = False) -> str:
    lines = []
    for norm in targets:
        line = target_line(norm.id, norm.statement)
        if compliance:
            line += f" (complying: {norm.compliance}; violating: {norm.violation})"
        lines.append(line)
    return "\n".join(lines)


@dataclass
class Judge:
    """Cached judge calls for one run directory."""

    client: ModelClient
    model: str
    folder: Path
    targets: list[TargetNorm]
    cache: dict[str, dict[str, Any]] = field(default_factory=dict)
    failures: int = 0
    calls: int = 0
    pending: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    """Verdicts being fetched: a second job with the same prompt waits for the first."""

    def __post_init__(self) -> None:
        path = self.folder / JUDGE_CACHE
        rows, cut = read_cache(path)
        if cut:
            write_jsonl(path, rows)
        for row in rows:
            self.cache[str(row["key"])] = row

    def _key(self, prompt: str) -> str:
        return hashlib.sha256(f"{self.model}\n{prompt}".encode()).hexdigest()

    async def _ask(
        self, operation: str, subject: str, prompt: str, schema: type[SchemaT]
    ) -> SchemaT | None:
        key = self._key(prompt)
        row = self.cache.get(key)
        if row is None and key in self.pending:
            row = await self.pending[key]
        if row is None:
            waiting: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            self.pending[key] = waiting
            result = await self.client.structured(
                JUDGE_ROLE,
                JUDGE_ROLE,
                [ChatMessageUser(content=prompt)],
                schema,
                GenerateConfig(temperature=0.0, max_tokens=400),
                operation=operation,
            )
            self.calls += 1
            row = {
                "key": key,
                "model": self.model,
                "operation": operation,
                "subject": subject,
                "prompt": prompt,
                "replies": result.replies,
                "parsed": None if result.value is None else result.value.model_dump(),
            }
            self.cache[key] = row
            append_jsonl(self.folder / JUDGE_CACHE, row)
            waiting.set_result(row)
            del self.pending[key]
        if row["parsed"] is None:
            self.failures += 1
            return None
        return schema.model_validate(row["parsed"])

    async def matches(self, content: str) -> list[str]:
        """The ids of the target norms ``content`` expresses."""
        prompt = match_prompt(content, targets_text(self.targets))
        reply = await self._ask("judge_match", content, prompt, NormMatches)
        known = {norm.id for norm in self.targets}
        return [] if reply is None else [m for m in dict.fromkeys(reply.matches) if m in known]

    async def demonstrates(
        self, target: TargetNorm, speaker: str, line: str, occasion: str
    ) -> bool:
        """Whether ``line``, said by ``speaker`` in a conversation raised over ``occasion``,
        demonstrates ``target`` (``prompts/judge_demonstration.txt``): what ``crsec export``
        marks as a demonstration turn. A reply that never parses is no."""
        prompt = PROMPTS.render(
            "judge_demonstration",
            {
                "norm": target.statement,
                "complying": target.compliance,
                "violating": target.violation,
                "occasion": occasion or "(not given)",
                "speaker": speaker,
                "line": line,
            },
        )
        reply = await self._ask("judge_demonstration", speaker, prompt, Demonstration)
        return reply is not None and reply.demonstrates

    async def compliance(
        self, agent: str, plan: str, actions: list[tuple[str, str]]
    ) -> dict[str, Verdict]:
        """Per target norm, whether the hour's plan and actions show compliance or violation."""
        prompt = PROMPTS.render(
            "judge_compliance",
            {
                "agent name": agent,
                "plan": plan or "(none)",
                "actions": "\n".join(f"{place}: {action}" for place, action in actions) or "(none)",
                "targets": targets_text(self.targets, compliance=True),
            },
        )
        reply = await self._ask("judge_compliance", agent, prompt, ComplianceVerdicts)
        verdicts = {norm.id: NOT_SHOWN for norm in self.targets}
        for verdict in reply.verdicts if reply else []:
            if verdict.norm in verdicts:
                verdicts[verdict.norm] = (verdict.plan, verdict.actions)
        return verdicts


async def gather_all(
    jobs: Iterable[Callable[[], Awaitable[Any]]], on_done: Callable[[], None] | None = None
) -> list[Any]:
    """Run the judge's jobs concurrently (the model's own connection limit applies)."""

    async def run(job: Callable[[], Awaitable[Any]]) -> Any:
        value = await job()
        if on_done is not None:
            on_done()
        return value

    return list(await asyncio.gather(*(run(job) for job in jobs)))
