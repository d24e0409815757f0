"""The HSII bank's dataset card: what is in it, counted from the files themselves.

Counts per domain, characters per scene, history lengths, and target transitions
per dialogue (how often the assistant turns to a different character than the one
it last addressed: the decision the benchmark measures). ``normlab hsii card``
writes it; a test keeps the shipped card equal to the shipped files.
"""

from __future__ import annotations

import itertools
import statistics
from collections import Counter
from collections.abc import Sequence
from importlib.resources import files

from normlab.hsii.schemas import ASSISTANT, Case, Dialogue, NewsParagraph

CARD_PATH = files("normlab.hsii") / "dataset_card.md"


def transitions(dialogue: Dialogue) -> int:
    """Assistant turns addressed to someone other than the assistant's previous addressee."""
    targets = [m.role_to for m in dialogue.messages if m.role_from == ASSISTANT]
    return sum(1 for before, after in itertools.pairwise(targets) if before != after)


def _spread(values: Sequence[int]) -> str:
    if not values:
        return "–"
    return f"{min(values)}–{max(values)} (mean {statistics.mean(values):.1f})"


def _table(title: str, counts: dict[str, tuple[int, ...]], columns: Sequence[str]) -> str:
    head = f"| {title} | " + " | ".join(columns) + " |\n|---|" + "---|" * len(columns) + "\n"
    rows = "".join(
        f"| {name} | " + " | ".join(str(v) for v in values) + " |\n"
        for name, values in counts.items()
    )
    return head + rows


def render_card(
    news: Sequence[NewsParagraph], dialogues: Sequence[Dialogue], cases: Sequence[Case]
) -> str:
    news_by_domain = Counter(n.domain for n in news)
    dialogues_by_domain = Counter(d.domain for d in dialogues)
    cases_by_domain = Counter(c.domain for c in cases)
    domains = sorted(set(news_by_domain) | set(dialogues_by_domain))
    characters = Counter(len(d.background.characters) for d in dialogues)
    letters = sum(all(len(c) == 1 for c in d.background.characters) for d in dialogues)
    targets = [
        len({c.golden.role_to for c in cases if c.dialogue_id == d.dialogue_id}) for d in dialogues
    ]
    per_domain = _table(
        "domain",
        {d: (news_by_domain[d], dialogues_by_domain[d], cases_by_domain[d]) for d in domains},
        ["news", "dialogues", "cases"],
    )
    return f"""# HSII case bank (normlab)

Multi-user, multi-turn cases in the shape of the HSII benchmark (Wu, Xiong & Deng 2025,
Tables 3–5): a background {{scene, characters, relationships}}, a one-word topic, the message
history `[{{role_from, role_to, content, index}}]` and the golden next message of the Intelligent
Assistant. The paper's news source (Babel Briefings, CC BY-NC-SA) is not shipped; the seed
paragraphs are fictional and news-like, written for the project, and the scenes and dialogues were
written from them in the shapes of the paper's Prompt-1 and Prompt-2 by an LLM assistant, then
reread for the defensibility of every golden addressee, conflicts between characters and privacy.
No real people or organisations are named. Licence: Apache-2.0, like normlab.

## Counts

- seed news paragraphs: {len(news)} over {len(news_by_domain)} domains, \
{_spread([len(n.text.split()) for n in news])} words each
- dialogues: {len(dialogues)} over {len(dialogues_by_domain)} domains; \
{_spread([len(d.messages) for d in dialogues])} messages each
- cases (cut at every assistant turn with ≥ 2 prior messages and one addressee): {len(cases)}
- characters per scene (the assistant not counted): \
{", ".join(f"{k}: {v} dialogues" for k, v in sorted(characters.items()))}; \
{letters} dialogues use single capital letters instead of titles (Prompt-1, requirement 2)
- history length per case: {_spread([len(c.messages) for c in cases])} messages
- target transitions per dialogue (the assistant turns to a different character): \
{_spread([transitions(d) for d in dialogues])}
- distinct golden targets per dialogue: \
{_spread(targets)}

## Per domain

{per_domain}
## Files

- `data/news_seed.jsonl`: `id, domain, keywords, title, text`
- `data/dialogues.jsonl`: `dialogue_id, source_id, domain, topic, background, aliases, messages`
- `data/cases.jsonl`: `case_id, dialogue_id, source_id, domain, topic, background, aliases,
  messages, golden` (`normlab hsii cut data/dialogues.jsonl` rebuilds it)
- `data/clusters.json`: the dataset analysis of the cases (`normlab hsii clusters`)
"""
