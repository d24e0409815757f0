"""The paper's criteria for a scenario worth keeping (§4, B.4: scenarios that "accurately meet
predefined criteria and mirror real-world complexities involving intricate social dynamics and
conflicts"), named once: the ``screener`` model scores them (``prompts/scenario_criteria.txt``,
``normlab.hsii.bank.topk``) and curators tick them (``normlab.hsii.curation.decisions``)."""

from __future__ import annotations

CRITERIA: tuple[str, ...] = ("participants", "relationships", "conflicts", "transitions", "realism")
"""The keys, as the screener's reply and the curators' CSV spell them."""

CRITERIA_TEXT: dict[str, str] = {
    "participants": "Several participants (at least two users besides the assistant)",
    "relationships": "Social relationships between them are clear and matter",
    "conflicts": "Potential conflicts (interests, requests or norms that clash)",
    "transitions": "Target transitions (the assistant must change whom it addresses)",
    "realism": "Realistic: mirrors a real-world situation",
}
"""What a curator reads beside each box."""
