"""Retrieved news "algorithmically clustered and detoxified" (§4), every drop with its reason.

The paper names the steps, not the methods. Ours:

- **near-duplicates merged**: the same story is syndicated, re-headlined and lightly edited, and
  would seed the same scene twice. TF-IDF (word unigrams and bigrams, sublinear tf) of title and
  text, fitted on the retrieved items; an item whose cosine with an item ranked above it is at
  least ``DUPLICATE_COSINE`` is dropped as a duplicate of it. 0.8 is our choice, not
  a measured optimum: a three-sentence report with one phrase rewritten scores 0.89 against its
  original (``tests/hsii/test_build.py``), unrelated reports about 0.03; a one-sentence item with
  three of fourteen words changed already falls to 0.68, so short items are merged less;
- **clusters** with the shipped encoder (``normlab.models.encoder.load_encoder``, MiniLM by
  default), DBSCAN on cosine distance with eps at the k-distance knee, as
  ``normlab.hsii.clusters`` does for cases (k = 2: a cluster is two stories or more; a
  story alike to no other is cluster ``None``). Clusters are recorded in each case's provenance,
  so a bank can be balanced over them;
- **toxicity screen**: no offline toxicity classifier is a package we keep, so the ``screener``
  model role applies a printed rubric (``prompts/toxicity_screen.txt``). An item it calls toxic is
  dropped with its category and reason; an item whose verdict never parses is dropped too (an
  unscreened story never reaches the bank), with that reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig
from pydantic import BaseModel

from normlab.hsii.bank.news import Hit
from normlab.hsii.prompts import PROMPTS
from normlab.models.client import ModelClient

DUPLICATE_COSINE = 0.8
CLUSTER_MIN_SAMPLES = 2
SCREENER = "screener"
SCREENER_CONFIG = GenerateConfig(temperature=0.0, max_tokens=400)

DropStage = Literal["dedupe", "toxicity", "scenarios", "dialogues"]


class Drop(BaseModel):
    """A news item that left the pipeline, where and why (``drops.jsonl``)."""

    news_id: str
    stage: DropStage
    reason: str
    duplicate_of: str | None = None
    cosine: float | None = None


class ToxicityVerdict(BaseModel):
    """The screener's reply to ``toxicity_screen.txt``."""

    toxic: bool
    category: str = "none"
    reason: str = ""


def _document(hit: Hit) -> str:
    return f"{hit.item.title}\n{hit.item.text}"


def dedupe(
    hits: Sequence[Hit], threshold: float = DUPLICATE_COSINE
) -> tuple[list[Hit], list[Drop]]:
    """The hits without near-duplicates (the better-ranked of a pair stays) and the drops."""
    if len(hits) < 2:
        return list(hits), []
    from sklearn.feature_extraction.text import TfidfVectorizer

    matrix = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True).fit_transform(
        [_document(hit) for hit in hits]
    )
    similarity = (matrix @ matrix.T).toarray()
    kept: list[int] = []
    drops: list[Drop] = []
    for index, hit in enumerate(hits):
        twin = max(kept, key=lambda other: similarity[index, other], default=None)
        if twin is not None and similarity[index, twin] >= threshold:
            cosine = round(float(similarity[index, twin]), 4)
            drops.append(
                Drop(
                    news_id=hit.item.id,
                    stage="dedupe",
                    reason=f"near-duplicate of {hits[twin].item.id} (TF-IDF cosine {cosine} "
                    f">= {threshold})",
                    duplicate_of=hits[twin].item.id,
                    cosine=cosine,
                )
            )
        else:
            kept.append(index)
    return [hits[index] for index in kept], drops


def cluster_labels(hits: Sequence[Hit], encoder: str = "minilm") -> list[int | None]:
    """One cluster per hit (None: alike to no other); see the module docstring."""
    if len(hits) <= CLUSTER_MIN_SAMPLES:
        return [0 if len(hits) == CLUSTER_MIN_SAMPLES else None for _ in hits]
    from sklearn.cluster import DBSCAN

    from normlab.hsii.clusters import knee_eps
    from normlab.models.encoder import load_encoder

    vectors = load_encoder(encoder).encode([_document(hit) for hit in hits])
    # knee_eps needs a neighbour beyond the k-th, so k is at most n - 2.
    eps = knee_eps(vectors, min(CLUSTER_MIN_SAMPLES, len(hits) - 2))
    labels = DBSCAN(eps=eps, min_samples=CLUSTER_MIN_SAMPLES, metric="cosine").fit_predict(vectors)
    return [int(label) if label >= 0 else None for label in labels]


def toxicity_messages(hit: Hit) -> list[ChatMessage]:
    prompt = PROMPTS.render("toxicity_screen", {"title": hit.item.title, "text": hit.item.text})
    return [ChatMessageUser(content=prompt)]


async def screen_toxicity(client: ModelClient, hit: Hit) -> Drop | None:
    """The drop of a toxic (or unscreenable) item; None for an item that passes."""
    result = await client.structured(
        SCREENER,
        hit.item.id,
        toxicity_messages(hit),
        ToxicityVerdict,
        SCREENER_CONFIG,
        operation="toxicity",
    )
    verdict = result.value
    if verdict is None:
        return Drop(
            news_id=hit.item.id,
            stage="toxicity",
            reason=f"screener reply unusable, so the item is not screened: {result.error}",
        )
    if verdict.toxic:
        return Drop(
            news_id=hit.item.id,
            stage="toxicity",
            reason=f"toxic ({verdict.category}): {verdict.reason}".strip(),
        )
    return None
