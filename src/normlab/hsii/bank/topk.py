"""Top-k scenario sampling (§4, §5.1): k Prompt-1 scenes per news item, screened, the best kept.

The paper: "top-k scenario sampling" keeps the scenarios that "accurately meet predefined criteria
and mirror real-world complexities involving intricate social dynamics and conflicts"; neither k
nor the criteria's wording is printed. Ours:

- k scenes from Prompt-1 verbatim (``scene_from_news.txt``), sample i asked with seed i, so a
  rerun (and the scripted model) draws the same k; each linted and repaired as ``hsii generate``
  does (``normlab.hsii.bank.generator.scene_findings``);
- each valid scene scored by the ``screener`` role on the five criteria the paper names
  (``scenario_criteria.txt``: participants, relationships, conflicts, target transitions,
  realism; 1–5 each), the total their mean; a scene whose scores never parse is not ranked;
- ranked by total (ties: the earlier sample), ``keep`` best kept (default 1); the rank is the
  case's ``k_rank`` (1 = best) and the scores its ``screener_scores``;
- each kept scene goes to Prompt-2 verbatim, lint and repair, then aliases are filled
  (``normlab.hsii.aliases``) and provenance attached. Cutting into cases is
  [`normlab.hsii.dataset.cut_dialogue`][normlab.hsii.cut_dialogue], which copies the provenance to
  every case.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TypeVar

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig
from pydantic import BaseModel, Field

from normlab.hsii.bank.generator import (
    GENERATOR_CONFIG,
    DialogueDraft,
    SceneDraft,
    dialogue_findings,
    scene_findings,
)
from normlab.hsii.bank.newsprep import SCREENER, SCREENER_CONFIG
from normlab.hsii.curation.criteria import CRITERIA
from normlab.hsii.prompts import PROMPTS, dialogue_prompt, scene_prompt
from normlab.hsii.schemas import Background, Dialogue, NewsParagraph, Provenance
from normlab.models.client import ModelClient
from normlab.models.structured import CheckedResult, StructuredResult, repair_checked

GENERATOR = "generator"
DEFAULT_K = 3

SchemaT = TypeVar("SchemaT", bound=BaseModel)
ResultT = TypeVar("ResultT")


class CriteriaScores(BaseModel):
    """The screener's reply to ``scenario_criteria.txt``."""

    participants: float = Field(ge=1, le=5)
    relationships: float = Field(ge=1, le=5)
    conflicts: float = Field(ge=1, le=5)
    transitions: float = Field(ge=1, le=5)
    realism: float = Field(ge=1, le=5)
    reason: str = ""

    def scores(self) -> dict[str, float]:
        values = {name: float(getattr(self, name)) for name in CRITERIA}
        return {**values, "total": round(sum(values.values()) / len(values), 4)}


class Candidate(BaseModel):
    """One of the k scenes: its sample number (1..k), the scene or why there is none, its
    scores and its rank among the scored (1 = best)."""

    sample: int
    background: Background | None = None
    problems: list[str] = Field(default_factory=list)
    scores: dict[str, float] = Field(default_factory=dict)
    reason: str = ""
    rank: int | None = None


class ScenarioSet(BaseModel):
    """The scenarios stage's row for one news item."""

    news_id: str
    candidates: list[Candidate]
    kept: list[int] = Field(default_factory=list)
    """Sample numbers of the kept scenes, best first."""

    def kept_candidates(self) -> list[Candidate]:
        by_sample = {candidate.sample: candidate for candidate in self.candidates}
        return [by_sample[sample] for sample in self.kept]


async def generate_checked_by(
    client: ModelClient,
    role: str,
    actor: str,
    operation: str,
    messages: list[ChatMessage],
    schema: type[SchemaT],
    check: Callable[[SchemaT], tuple[ResultT | None, list[str]]],
    config: GenerateConfig,
    repairs: int = 1,
) -> CheckedResult[ResultT]:
    """[`normlab.models.structured.generate_checked`][normlab.models.generate_checked] through the
    client, so every call is counted by role and stage
    ([`CallRecord`][normlab.models.CallRecord])."""

    async def ask(conversation: list[ChatMessage]) -> StructuredResult[SchemaT]:
        return await client.structured(
            role, actor, conversation, schema, config, operation=operation
        )

    return await repair_checked(ask, messages, check, repairs)


async def generate_for_news(
    client: ModelClient,
    news: NewsParagraph,
    operation: str,
    prompt: str,
    schema: type[SchemaT],
    check: Callable[[SchemaT], tuple[ResultT | None, list[str]]],
    config: GenerateConfig,
    repairs: int = 1,
) -> CheckedResult[ResultT]:
    """``generate_checked_by`` for the ``generator`` role on one news item: ``prompt`` as
    the single user message, the call counted under the news id and ``operation``."""
    return await generate_checked_by(
        client,
        GENERATOR,
        news.id,
        operation,
        [ChatMessageUser(content=prompt)],
        schema,
        check,
        config,
        repairs,
    )


def criteria_prompt(news: NewsParagraph, background: Background) -> str:
    return PROMPTS.render(
        "scenario_criteria",
        {
            "news": f"{news.title}\n{news.text}",
            "scenario": json.dumps(background.model_dump(), ensure_ascii=False),
        },
    )


async def sample_scenario(
    client: ModelClient, news: NewsParagraph, sample: int, repairs: int = 1
) -> Candidate:
    """Prompt-1's sample number ``sample`` (seed ``sample - 1``), linted, repaired, scored."""
    config = GENERATOR_CONFIG.merge(GenerateConfig(seed=sample - 1))
    scene = await generate_for_news(
        client, news, "scenario", scene_prompt(news), SceneDraft, scene_findings, config, repairs
    )
    if scene.value is None:
        return Candidate(sample=sample, problems=[f"scene: {p}" for p in scene.problems])
    scored = await client.structured(
        SCREENER,
        news.id,
        [ChatMessageUser(content=criteria_prompt(news, scene.value))],
        CriteriaScores,
        SCREENER_CONFIG,
        operation="criteria",
    )
    if scored.value is None:
        return Candidate(
            sample=sample,
            background=scene.value,
            problems=[f"screener reply unusable: {scored.error}"],
        )
    return Candidate(
        sample=sample,
        background=scene.value,
        scores=scored.value.scores(),
        reason=scored.value.reason,
    )


def rank_candidates(candidates: Sequence[Candidate], keep: int = 1) -> list[int]:
    """Ranks on the scored candidates (best total first, ties to the earlier sample); the
    sample numbers of the ``keep`` best."""
    scored = sorted(
        (c for c in candidates if c.scores), key=lambda c: (-c.scores["total"], c.sample)
    )
    for rank, candidate in enumerate(scored, start=1):
        candidate.rank = rank
    return [candidate.sample for candidate in scored[:keep]]


async def top_k_scenarios(
    client: ModelClient, news: NewsParagraph, k: int = DEFAULT_K, keep: int = 1, repairs: int = 1
) -> ScenarioSet:
    """k scenes for one news item, scored and ranked; the best ``keep`` marked kept."""
    candidates = [
        await sample_scenario(client, news, sample, repairs) for sample in range(1, k + 1)
    ]
    kept = rank_candidates(candidates, keep)
    return ScenarioSet(news_id=news.id, candidates=candidates, kept=kept)


def dialogue_id(news: NewsParagraph, rank: int) -> str:
    """``dlg-NEWS`` for the best scene (``hsii generate``'s id), ``dlg-NEWS-r2`` … after it."""
    return f"dlg-{news.id}" if rank == 1 else f"dlg-{news.id}-r{rank}"


async def dialogue_for(
    client: ModelClient,
    news: NewsParagraph,
    candidate: Candidate,
    provenance: Provenance,
    repairs: int = 1,
) -> tuple[Dialogue | None, list[str]]:
    """Prompt-2 on a kept scene, linted and repaired; the dialogue with its provenance, or None
    and the problems that remained."""
    background = candidate.background
    assert background is not None and candidate.rank is not None

    def check(draft: DialogueDraft) -> tuple[Dialogue | None, list[str]]:
        return dialogue_findings(draft, background, news)

    prompt = dialogue_prompt(background)
    result = await generate_for_news(
        client, news, "dialogue", prompt, DialogueDraft, check, GENERATOR_CONFIG, repairs
    )
    if result.value is None:
        return None, [f"dialogue: {p}" for p in result.problems]
    dialogue = result.value.model_copy(
        update={"dialogue_id": dialogue_id(news, candidate.rank), "provenance": provenance}
    )
    return dialogue, []
